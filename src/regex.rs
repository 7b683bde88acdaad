//! The compressed node-list and procs-per-node representations of
//! `PMIx_generate_regex` and `PMIx_generate_ppn`, in the formats OpenPMIx
//! 4.2 produces (its "native" generator, with its "raw" fallback), so that
//! a host gets byte-for-byte the string it got from OpenPMIx.
//!
//! Node regex: `pmix[` + comma-separated items + `]`, where an item is a
//! name that was kept as is (it has no digits, or a character that is
//! neither a letter nor a digit), or `PREFIX[WIDTH:RANGES]SUFFIX` for a run
//! of names made of letters, a number of `WIDTH` digits (zero-padded), and a
//! suffix; `RANGES` is a comma-separated list of `N` or `A-B`. Order is
//! preserved: a name only joins an earlier item if no differing item came
//! between. Example: `node01,node02,node03` -> `pmix[node[2:1-3]]`.
//!
//! Procs per node: `pmix[` + one group per node, separated by `;`, each a
//! comma-separated list of `N` or `A-B` rank ranges, + `]`; used only when
//! it is not longer than the input, else `raw:` + the input.
//! Example: `0-3;4-7` stays `raw:0-3;4-7` (the compressed form is longer),
//! `0,1,2,3;4,5,6,7` -> `pmix[0-3;4-7]`.
//!
//! An empty node list gives `raw:`. An input that already starts with
//! `raw:` is returned as it is when the raw form is used.

/// One item of the node regex under construction.
struct Item {
    /// Letters before the number, or the whole name for a name kept as is.
    prefix: Option<String>,
    /// What follows the number (possibly empty); `None` for a name kept as
    /// is.
    suffix: Option<String>,
    /// Number of digits of the number (its zero-padded width).
    width: usize,
    /// `(start, count)` runs of consecutive numbers, in input order.
    ranges: Vec<(i32, i32)>,
    /// Set once a later name differed from this item: nothing joins it
    /// any more, which keeps the order of the names.
    closed: bool,
}

/// Parses the leading decimal number of `s` like C's `strtol(s, &end, 10)`
/// stored into an `int`: leading whitespace and a sign are accepted, an
/// overflowing value saturates to the `long` range and is then truncated to
/// 32 bits. Returns the value and the number of bytes consumed (0 if there
/// is no number).
fn c_strtol_int(s: &[u8]) -> (i32, usize) {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    let mut negative = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        negative = s[i] == b'-';
        i += 1;
    }
    let digits_start = i;
    let mut value: i128 = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        value = (value * 10 + i128::from(s[i] - b'0')).min(i128::from(i64::MAX) + 1);
        i += 1;
    }
    if i == digits_start {
        return (0, 0);
    }
    if negative {
        value = -value;
    }
    let long = value.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    (long as i32, i)
}

/// Formats a run as `N` or `A-B`.
fn push_range(out: &mut String, start: i32, count: i32) {
    if count == 1 {
        out.push_str(&start.to_string());
    } else {
        let end = start.wrapping_add(count).wrapping_sub(1);
        out.push_str(&format!("{start}-{end}"));
    }
}

/// The raw form: the input itself behind `raw:` (once).
fn raw(input: &str) -> String {
    if input.starts_with("raw:") {
        input.to_string()
    } else {
        format!("raw:{input}")
    }
}

/// `PMIx_generate_regex`: the compressed representation of a
/// comma-separated list of node names.
pub fn generate_node_regex(input: &str) -> String {
    let mut items: Vec<Item> = Vec::new();
    let segments: Vec<&str> = input.split(',').collect();
    let last = segments.len() - 1;
    for (n, name) in segments.iter().enumerate() {
        // A trailing empty segment (input empty or ending in a comma) is
        // not a name; an empty one between commas is.
        if n == last && name.is_empty() {
            break;
        }
        add_name(&mut items, name);
    }
    if items.is_empty() {
        return raw(input);
    }
    let mut parts: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        if item.ranges.is_empty() {
            parts.push(item.prefix.unwrap_or_default());
            continue;
        }
        let mut s = format!("{}[{}:", item.prefix.as_deref().unwrap_or(""), item.width);
        for (i, &(start, count)) in item.ranges.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            push_range(&mut s, start, count);
        }
        s.push(']');
        if let Some(suffix) = &item.suffix {
            s.push_str(suffix);
        }
        parts.push(s);
    }
    format!("pmix[{}]", parts.join(","))
}

/// Adds one node name to the items of a node regex.
fn add_name(items: &mut Vec<Item>, name: &str) {
    let bytes = name.as_bytes();
    let mut prefix = String::new();
    let mut number_at: Option<usize> = None;
    let mut keep_whole = false;
    for (i, &b) in bytes.iter().enumerate() {
        if b.is_ascii_alphabetic() {
            if number_at.is_none() {
                prefix.push(char::from(b));
            }
        } else if b.is_ascii_digit() {
            number_at.get_or_insert(i);
        } else {
            keep_whole = true;
            break;
        }
    }
    let start = match number_at {
        Some(start) if !keep_whole => start,
        _ => {
            items.push(Item {
                prefix: Some(name.to_string()),
                suffix: None,
                width: 0,
                ranges: Vec::new(),
                closed: false,
            });
            return;
        }
    };
    let (value, used) = c_strtol_int(&bytes[start..]);
    let width = used;
    let suffix = &name[start + used..];

    let mut joined = false;
    for item in items.iter_mut() {
        if item.closed {
            continue;
        }
        match (&item.prefix, prefix.is_empty()) {
            (None, false) | (Some(_), true) => continue,
            (Some(p), false) if *p != prefix => {
                item.closed = true;
                continue;
            }
            _ => {}
        }
        let Some(item_suffix) = &item.suffix else {
            continue;
        };
        if item_suffix != suffix || item.width != width {
            item.closed = true;
            continue;
        }
        joined = true;
        match item.ranges.last_mut() {
            Some((start, count)) if start.wrapping_add(*count) == value => *count += 1,
            _ => item.ranges.push((value, 1)),
        }
        break;
    }
    if !joined {
        items.push(Item {
            prefix: (!prefix.is_empty()).then_some(prefix),
            suffix: Some(suffix.to_string()),
            width,
            ranges: vec![(value, 1)],
            closed: false,
        });
    }
}

/// `PMIx_generate_ppn`: the compressed representation of a
/// semicolon-separated list (one entry per node) of comma-separated rank
/// lists and ranges.
pub fn generate_ppn(input: &str) -> String {
    let mut out = String::from("pmix[");
    for node in input.split(';').filter(|s| !s.is_empty()) {
        let mut ranges: Vec<(i32, i32)> = Vec::new();
        for element in node.split(',').filter(|s| !s.is_empty()) {
            let (start, count) = match element.split_once('-') {
                Some((a, b)) => {
                    let start = c_strtol_int(a.as_bytes()).0;
                    let end = c_strtol_int(b.as_bytes()).0;
                    (start, end.wrapping_sub(start).wrapping_add(1))
                }
                None => (c_strtol_int(element.as_bytes()).0, 1),
            };
            match ranges.last_mut() {
                Some((s, c)) if s.wrapping_add(*c) == start => *c = c.wrapping_add(count),
                _ => ranges.push((start, count)),
            }
        }
        for (start, count) in ranges {
            push_range(&mut out, start, count);
            out.push(',');
        }
        // The group's last comma (or, for a node with no ranks, whatever
        // came last) becomes the node separator.
        out.pop();
        out.push(';');
    }
    out.pop();
    out.push(']');
    if out.len() > input.len() {
        return raw(input);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_regex_of_numbered_names() {
        assert_eq!(
            generate_node_regex("node01,node02,node03"),
            "pmix[node[2:1-3]]"
        );
        assert_eq!(generate_node_regex("n1,n2,n3,n5"), "pmix[n[1:1-3,5]]");
        assert_eq!(generate_node_regex("c001x,c002x"), "pmix[c[3:1-2]x]");
        assert_eq!(
            generate_node_regex("node1,node10"),
            "pmix[node[1:1],node[2:10]]"
        );
    }

    #[test]
    fn node_regex_keeps_order() {
        assert_eq!(
            generate_node_regex("a28n01,a99n02,a28n02"),
            "pmix[a[2:28]n01,a[2:99,28]n02]"
        );
        assert_eq!(
            generate_node_regex("n01,m01,n02"),
            "pmix[n[2:1],m[2:1],n[2:2]]"
        );
    }

    #[test]
    fn node_regex_keeps_odd_names() {
        assert_eq!(generate_node_regex("localhost"), "pmix[localhost]");
        assert_eq!(
            generate_node_regex("node-1,node-2,head"),
            "pmix[node-1,node-2,head]"
        );
        assert_eq!(generate_node_regex("a,,b"), "pmix[a,,b]");
        assert_eq!(generate_node_regex("a,b,"), "pmix[a,b]");
        assert_eq!(generate_node_regex("12,13"), "pmix[[2:12-13]]");
        assert_eq!(generate_node_regex(",a"), "pmix[,a]");
        assert_eq!(generate_node_regex("node,node1"), "pmix[node,node[1:1]]");
        assert_eq!(generate_node_regex("n1a2,n1a3"), "pmix[n[1:1]a2,n[1:1]a3]");
    }

    #[test]
    fn empty_node_list_is_raw() {
        assert_eq!(generate_node_regex(""), "raw:");
    }

    #[test]
    fn ppn_compresses_only_when_shorter() {
        assert_eq!(generate_ppn("0,1,2,3;4,5,6,7"), "pmix[0-3;4-7]");
        assert_eq!(generate_ppn("0,1,2;3,4,5;6"), "raw:0,1,2;3,4,5;6");
        assert_eq!(generate_ppn("0-3;4-7"), "raw:0-3;4-7");
        assert_eq!(generate_ppn(""), "raw:");
        assert_eq!(generate_ppn("raw:0;1"), "raw:0;1");
        assert_eq!(generate_ppn("0,1,2,3,5,6,7,8"), "pmix[0-3,5-8]");
        assert_eq!(generate_ppn("0;;1"), "raw:0;;1");
        assert_eq!(generate_ppn(" 1, 2, 3, 4;5"), "pmix[1-4;5]");
    }

    #[test]
    fn ppn_joins_a_range_that_continues_a_run() {
        // 0, then 1-3: one run 0-3 (OpenPMIx 4.2.2 loses 2-3 here).
        assert_eq!(generate_ppn("0,1-3,4,5,6,7,8,9"), "pmix[0-9]");
    }

    #[test]
    fn strtol_semantics() {
        assert_eq!(c_strtol_int(b" 42x"), (42, 3));
        assert_eq!(c_strtol_int(b"-7"), (-7, 2));
        assert_eq!(c_strtol_int(b"x"), (0, 0));
        assert_eq!(c_strtol_int(b"99999999999999999999999").0, -1);
    }
}
