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
//!
//! The parsers [`parse_node_regex`] and [`parse_ppn`] read these forms back
//! (and OpenPMIx's `raw:` and `blob:` forms, and plain lists) for
//! `PMIx_server_register_nspace`.

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

// ---------------------------------------------------------------------------
// Parsers: the inverse of the generators, for `PMIX_NODE_MAP` and
// `PMIX_PROC_MAP` as `PMIx_server_register_nspace` receives them.

/// Largest number of names, or of ranks, one map may expand to. A regex is
/// a compressed form: a few bytes can name billions of items, so the
/// expansion is bounded before anything is allocated.
pub const MAX_REGEX_EXPANSION: usize = 1 << 26;

/// Why a node or process map was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegexError {
    /// A `pmix[` form without its closing bracket, or a `blob:` form that
    /// is not a complete zlib blob.
    #[error("malformed {0} map: {1}")]
    Malformed(&'static str, String),
    /// More than [`MAX_REGEX_EXPANSION`] names or ranks.
    #[error("{0} map expands to more than {MAX_REGEX_EXPANSION} items")]
    TooLarge(&'static str),
    /// A name is not valid UTF-8.
    #[error("node map holds a name that is not UTF-8")]
    NotUtf8,
}

impl From<RegexError> for crate::Status {
    fn from(_: RegexError) -> crate::Status {
        crate::Status::ERR_BAD_PARAM
    }
}

/// The text a map stands for, with its generator's tag removed.
enum MapText<'a> {
    /// `pmix[...]`: the native generator's compressed form (the inside of
    /// the brackets).
    Native(&'a str),
    /// `raw:...`, a decompressed `blob:`, or an untagged list: the input
    /// list itself.
    List(std::borrow::Cow<'a, str>),
}

/// Recognizes the form of a map. `what` names it in errors. Trailing NULs
/// (a `PMIX_REGEX` value holds the C string's terminator) are ignored.
fn map_text<'a>(what: &'static str, input: &'a [u8]) -> Result<MapText<'a>, RegexError> {
    let end = input.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
    let input = &input[..end];
    if input.starts_with(b"blob:") {
        return blob_text(what, input).map(|s| MapText::List(s.into()));
    }
    // A NUL inside a string form would end the C string there.
    let input = match input.iter().position(|&b| b == 0) {
        Some(p) => &input[..p],
        None => input,
    };
    let text = std::str::from_utf8(input).map_err(|_| RegexError::NotUtf8)?;
    if let Some(rest) = text.strip_prefix("pmix[") {
        let inner = rest.strip_suffix(']').ok_or_else(|| {
            RegexError::Malformed(what, "missing the closing bracket of pmix[...]".into())
        })?;
        return Ok(MapText::Native(inner));
    }
    if let Some(rest) = text.strip_prefix("raw:") {
        return Ok(MapText::List(rest.into()));
    }
    Ok(MapText::List(text.into()))
}

/// The list inside a `blob:\0component=zlib:\0size=N:\0<N bytes>` regex (the
/// compress component's form): N bytes of the zlib framing of
/// [`crate::codec::compress`].
fn blob_text(what: &'static str, input: &[u8]) -> Result<String, RegexError> {
    let bad = |m: &str| RegexError::Malformed(what, m.into());
    let rest = input
        .strip_prefix(b"blob:\0component=zlib:\0size=")
        .ok_or_else(|| bad("unknown blob component"))?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let size: usize = std::str::from_utf8(&rest[..digits])
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("bad blob size"))?;
    let body = rest[digits..]
        .strip_prefix(b":\0")
        .ok_or_else(|| bad("bad blob header"))?;
    let body = body.get(..size).ok_or_else(|| bad("truncated blob"))?;
    let text = crate::codec::compress::decompress(body).ok_or_else(|| bad("bad zlib data"))?;
    let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
    String::from_utf8(text[..end].to_vec()).map_err(|_| RegexError::NotUtf8)
}

/// Parses a decimal number of at most `u64` range (digits only).
fn parse_number(s: &str) -> Option<u64> {
    let s = s.trim();
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses `N` or `A-B` (`A <= B`) into an inclusive range.
fn parse_range(s: &str) -> Option<(u64, u64)> {
    match s.split_once('-') {
        Some((a, b)) => {
            let (a, b) = (parse_number(a)?, parse_number(b)?);
            (a <= b).then_some((a, b))
        }
        None => parse_number(s).map(|a| (a, a)),
    }
}

/// Splits `s` on the commas that are not inside brackets.
fn split_items(s: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, b) in s.bytes().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                items.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&s[start..]);
    items
}

/// `PMIx_server_register_nspace`'s parser of `PMIX_NODE_MAP`: the node
/// names, in order, of a map made by [`generate_node_regex`] (or by
/// OpenPMIx's `PMIx_generate_regex`).
///
/// Accepted forms, as OpenPMIx 4.2's regex components accept them:
/// - `pmix[ITEM,ITEM,...]` (native): an item is a name as is, or
///   `PREFIX[WIDTH:RANGES]SUFFIX`, which stands for `PREFIX`, each number of
///   `RANGES` (`N` or `A-B`, comma-separated) zero-padded to `WIDTH` digits,
///   then `SUFFIX`;
/// - `raw:NAME,NAME,...` (raw);
/// - `blob:\0component=zlib:\0size=N:\0...` (compress): a zlib-compressed
///   comma-separated list;
/// - an untagged comma-separated list (an extension: OpenPMIx refuses it).
///
/// Empty names in a list are skipped (OpenPMIx's `argv_split` does the
/// same); an empty item in the native form, a bracket in a name, a range
/// running backwards, or more than [`MAX_REGEX_EXPANSION`] names are
/// errors.
pub fn parse_node_regex(input: &[u8]) -> Result<Vec<String>, RegexError> {
    const WHAT: &str = "node";
    let bad = |m: String| RegexError::Malformed(WHAT, m);
    let list = match map_text(WHAT, input)? {
        MapText::List(list) => {
            let names: Vec<String> = list
                .split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            if let Some(n) = names.iter().find(|n| n.contains(['[', ']'])) {
                return Err(bad(format!("bracket in node name {n:?}")));
            }
            if names.len() > MAX_REGEX_EXPANSION {
                return Err(RegexError::TooLarge(WHAT));
            }
            return Ok(names);
        }
        MapText::Native(inner) => inner,
    };
    let mut names = Vec::new();
    if list.is_empty() {
        return Ok(names);
    }
    for item in split_items(list) {
        let Some(open) = item.find('[') else {
            if item.is_empty() || item.contains(']') {
                return Err(bad(format!("bad item {item:?}")));
            }
            if names.len() >= MAX_REGEX_EXPANSION {
                return Err(RegexError::TooLarge(WHAT));
            }
            names.push(item.to_owned());
            continue;
        };
        let prefix = &item[..open];
        let rest = &item[open + 1..];
        let close = rest
            .find(']')
            .ok_or_else(|| bad(format!("unclosed range in {item:?}")))?;
        let (spec, suffix) = (&rest[..close], &rest[close + 1..]);
        if suffix.contains(['[', ']']) || prefix.contains(']') {
            return Err(bad(format!("bad item {item:?}")));
        }
        let (width, ranges) = spec
            .split_once(':')
            .ok_or_else(|| bad(format!("no digit count in {item:?}")))?;
        let width = parse_number(width)
            .filter(|&w| w <= 64)
            .ok_or_else(|| bad(format!("bad digit count in {item:?}")))?
            as usize;
        for range in ranges.split(',') {
            let (a, b) = parse_range(range)
                .ok_or_else(|| bad(format!("bad range {range:?} in {item:?}")))?;
            let count = usize::try_from(b - a)
                .ok()
                .and_then(|c| c.checked_add(1))
                .filter(|&c| c <= MAX_REGEX_EXPANSION - names.len())
                .ok_or(RegexError::TooLarge(WHAT))?;
            names.reserve(count);
            for n in a..=b {
                names.push(format!("{prefix}{n:0width$}{suffix}"));
            }
        }
    }
    Ok(names)
}

/// `PMIx_server_register_nspace`'s parser of `PMIX_PROC_MAP`: for each
/// node, in node-map order, the ranks it hosts, in the order given.
///
/// Accepted forms: `pmix[GROUP;GROUP;...]` (native), `raw:GROUP;GROUP;...`,
/// a `blob:` (zlib) form, or an untagged list; a group is a
/// comma-separated list of `N` and `A-B` rank ranges (ranges are expanded
/// in every form: OpenPMIx's raw parser leaves them as text, which the
/// reference generator itself emits, e.g. `raw:0-3;4-7`). Empty groups are
/// skipped, as OpenPMIx's `argv_split` does. A rank that is not a number,
/// is above `PMIX_RANK_VALID`, a range running backwards, or more than
/// [`MAX_REGEX_EXPANSION`] ranks in all are errors.
pub fn parse_ppn(input: &[u8]) -> Result<Vec<Vec<u32>>, RegexError> {
    const WHAT: &str = "process";
    let text = match map_text(WHAT, input)? {
        MapText::Native(inner) => std::borrow::Cow::Borrowed(inner),
        MapText::List(list) => list,
    };
    let mut total = 0usize;
    let mut nodes = Vec::new();
    for group in text.split(';').filter(|g| !g.trim().is_empty()) {
        let mut ranks = Vec::new();
        for element in group.split(',').filter(|e| !e.trim().is_empty()) {
            let (a, b) = parse_range(element)
                .filter(|&(_, b)| b <= u64::from(crate::Rank::VALID.0))
                .ok_or_else(|| {
                    RegexError::Malformed(WHAT, format!("bad rank or range {element:?}"))
                })?;
            let count = (b - a + 1) as usize;
            total = total
                .checked_add(count)
                .filter(|&t| t <= MAX_REGEX_EXPANSION)
                .ok_or(RegexError::TooLarge(WHAT))?;
            ranks.extend((a..=b).map(|r| r as u32));
        }
        nodes.push(ranks);
    }
    Ok(nodes)
}

#[cfg(test)]
mod parse_tests {
    use super::*;

    fn names(s: &str) -> Vec<String> {
        parse_node_regex(s.as_bytes()).unwrap()
    }

    fn list(s: &str) -> Vec<String> {
        if s.is_empty() {
            return Vec::new();
        }
        s.split(',').map(str::to_owned).collect()
    }

    #[test]
    fn native_node_maps() {
        assert_eq!(names("pmix[node[2:1-3]]"), list("node01,node02,node03"));
        assert_eq!(names("pmix[n[1:1-3,5]]"), list("n1,n2,n3,n5"));
        assert_eq!(names("pmix[c[3:1-2]x]"), list("c001x,c002x"));
        assert_eq!(names("pmix[node[1:1],node[2:10]]"), list("node1,node10"));
        assert_eq!(
            names("pmix[a[2:28]n01,a[2:99,28]n02]"),
            list("a28n01,a99n02,a28n02")
        );
        assert_eq!(names("pmix[localhost]"), list("localhost"));
        assert_eq!(names("pmix[[2:12-13]]"), list("12,13"));
        assert_eq!(names("pmix[]"), list(""));
        // The regex value of a PMIX_REGEX carries the C string's NUL.
        assert_eq!(
            parse_node_regex(b"pmix[node[2:1-3]]\0").unwrap(),
            list("node01,node02,node03")
        );
    }

    #[test]
    fn raw_blob_and_plain_node_maps() {
        assert_eq!(names("raw:a,b,c"), list("a,b,c"));
        assert_eq!(names("raw:a,,b,"), list("a,b"));
        assert_eq!(names("raw:"), list(""));
        assert_eq!(names("h1,h2"), list("h1,h2"));
        let frame = crate::codec::compress::zlib_frame(b"x1,x2,x3").unwrap();
        let mut blob = format!("blob:\0component=zlib:\0size={}:\0", frame.len()).into_bytes();
        blob.extend_from_slice(&frame);
        assert_eq!(parse_node_regex(&blob).unwrap(), list("x1,x2,x3"));
    }

    #[test]
    fn bad_node_maps() {
        for bad in [
            "pmix[node[2:1-3]",
            "pmix[a,,b]",
            "pmix[n[2:3-1]]",
            "pmix[n[x:1]]",
            "pmix[n[2 1]]",
            "pmix[n[2:1]x]y]",
            "raw:a[1],b",
        ] {
            assert!(parse_node_regex(bad.as_bytes()).is_err(), "{bad}");
        }
        assert_eq!(
            parse_node_regex(b"pmix[n[1:0-4294967295]]"),
            Err(RegexError::TooLarge("node"))
        );
        assert!(parse_node_regex(b"blob:\0component=zlib:\0size=9:\0abc").is_err());
        assert!(parse_node_regex(b"blob:\0component=lz4:\0size=0:\0").is_err());
    }

    #[test]
    fn proc_maps() {
        let p = |s: &str| parse_ppn(s.as_bytes()).unwrap();
        assert_eq!(p("pmix[0-3;4-7]"), vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        assert_eq!(p("pmix[0-3,8-11;4-7]")[0], vec![0, 1, 2, 3, 8, 9, 10, 11]);
        assert_eq!(
            p("raw:0,1,2;3,4,5;6"),
            vec![vec![0, 1, 2], vec![3, 4, 5], vec![6]]
        );
        assert_eq!(p("raw:0-3;4-7"), vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        assert_eq!(p("0;;1"), vec![vec![0], vec![1]]);
        assert_eq!(p(" 1, 2;5"), vec![vec![1, 2], vec![5]]);
        assert_eq!(p("raw:"), Vec::<Vec<u32>>::new());
        for bad in ["pmix[0-3", "pmix[3-1]", "pmix[x]", "raw:4294967295", "0,-1"] {
            assert!(parse_ppn(bad.as_bytes()).is_err(), "{bad}");
        }
        assert_eq!(
            parse_ppn(b"pmix[0-4294967000]"),
            Err(RegexError::TooLarge("process"))
        );
    }

    proptest::proptest! {
        /// Names with a letter prefix and a number keep their order.
        #[test]
        fn numbered_node_lists_survive_generate_and_parse(
            list in proptest::collection::vec("[a-c]{1,2}[0-9]{1,4}x?", 0..40)
        ) {
            let input = list.join(",");
            proptest::prop_assert_eq!(names(&generate_node_regex(&input)), list);
        }

        /// Any names come back, but a name kept as is (or a bare number)
        /// between two of the same pattern is moved after them: the
        /// generator reproduces OpenPMIx 4.2.2, whose `PMIx_generate_regex`
        /// does this too (`0,a,0` -> `pmix[[1:0,0],a]`).
        #[test]
        fn node_lists_survive_generate_and_parse_as_sets(
            list in proptest::collection::vec("[a-c]{0,3}[0-9]{0,4}[a-c.-]{0,2}", 0..40)
        ) {
            let mut list: Vec<String> = list.into_iter().filter(|n| !n.is_empty()).collect();
            let input = list.join(",");
            let mut back = names(&generate_node_regex(&input));
            list.sort();
            back.sort();
            proptest::prop_assert_eq!(back, list);
        }

        #[test]
        fn rank_lists_survive_generate_and_parse(
            groups in proptest::collection::vec(
                proptest::collection::btree_set(0u32..5000, 1..30), 0..20)
        ) {
            let groups: Vec<Vec<u32>> = groups.into_iter().map(|g| g.into_iter().collect()).collect();
            let input = groups
                .iter()
                .map(|g| g.iter().map(u32::to_string).collect::<Vec<_>>().join(","))
                .collect::<Vec<_>>()
                .join(";");
            proptest::prop_assert_eq!(parse_ppn(generate_ppn(&input).as_bytes()).unwrap(), groups);
        }
    }

    #[test]
    fn generators_round_trip() {
        for input in [
            "node01,node02,node03",
            "n1,n2,n3,n5",
            "a28n01,a99n02,a28n02",
            "node1,node10",
            "c001x,c002x",
            "nid00001,nid00002,nid00003,nid00010,nid00011,login1",
            "host.example.com,host2.example.com",
            "12,13",
            "localhost",
        ] {
            assert_eq!(names(&generate_node_regex(input)), list(input), "{input}");
        }
        for (input, want) in [
            ("0,1,2,3;4,5,6,7", vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]),
            ("0,1,2;3,4,5;6", vec![vec![0, 1, 2], vec![3, 4, 5], vec![6]]),
            ("0-3;4-7", vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]),
            ("0,2,4;1,3,5", vec![vec![0, 2, 4], vec![1, 3, 5]]),
        ] {
            assert_eq!(parse_ppn(generate_ppn(input).as_bytes()).unwrap(), want);
        }
    }
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
