//! Comparing what two clients read of every reserved key
//! (`tests/c/stock_keys.c`: "keys R LEVEL KEY = VALUE" lines) from the
//! same kind of stock server, in two runs: our client against OpenPMIx's
//! own (issue 24: `tests/slurm.rs`, `tests/stock_hosts.rs`).
//!
//! What differs from run to run is masked ([`key_values`]), and integers
//! lose their type: a host registers some keys in its own types (Slurm:
//! `PMIX_APPNUM` as an `int`, ranks as `uint32`), which our client's job
//! segment holds in the standard's. Our client may read MORE than
//! OpenPMIx's (it derives what hosts leave out); every key OpenPMIx's
//! client finds, ours must find with the same value
//! ([`stock_values_ours_lacks`]), save where the caller says the
//! clients' rules differ.
#![allow(dead_code)]

use std::collections::BTreeMap;

/// `s` with each run of ASCII digits that follows `prefix` replaced by
/// `with`.
fn mask_digits_after(s: &str, prefix: &str, with: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find(prefix) {
        let (head, tail) = rest.split_at(at + prefix.len());
        out.push_str(head);
        let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push_str(with);
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

/// `s` with every occurrence of `word` that no digit or dot borders
/// replaced by `with` (a job id "4.0" inside "31684.0" stays).
fn replace_whole(s: &str, word: &str, with: &str) -> String {
    let joined = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit() || c == '.');
    let mut out = String::new();
    let mut at = 0;
    while let Some(i) = s[at..].find(word) {
        let (start, end) = (at + i, at + i + word.len());
        out.push_str(&s[at..start]);
        if joined(s[..start].chars().next_back()) || joined(s[end..].chars().next()) {
            out.push_str(word);
        } else {
            out.push_str(with);
        }
        at = end;
    }
    out.push_str(&s[at..]);
    out
}

/// The lines' keys ("keys R LEVEL KEY") and values, comparable across
/// runs and clients: a missing key's status dropped; an integer without
/// its type; in a string, the job's `PMIX_JOBID` as `JOBID`, ORTE's job
/// ids (`[N,`) as `[J,`, PRRTE's session directory (`prtrn.PID`) as
/// `prtrn.PID`, the value of `LD_LIBRARY_PATH=` (which chose the client)
/// as `LIB`; a pid without its number.
pub fn key_values(out: &str) -> BTreeMap<String, String> {
    let jobid = out
        .lines()
        .find_map(|l| l.strip_prefix("keys 0 job pmix.jobid = PMIX_STRING:"))
        .filter(|j| !j.starts_with('['))
        .map(str::to_owned);
    out.lines()
        .filter(|l| l.starts_with("keys ") && l.contains(" = "))
        .filter_map(|l| l.split_once(" = "))
        .map(|(k, v)| {
            let v = if v.starts_with("missing") {
                "missing".to_string()
            } else if v.starts_with("PMIX_PID:") {
                "PMIX_PID".to_string()
            } else {
                match v.split_once(':') {
                    Some((_, n)) if n.parse::<i64>().is_ok() => n.to_string(),
                    _ => {
                        let mut v = mask_digits_after(v, "[", "J");
                        v = mask_digits_after(&v, "prtrn.", "PID");
                        if let Some(at) = v.find("LD_LIBRARY_PATH=") {
                            let from = at + "LD_LIBRARY_PATH=".len();
                            let end = v[from..].find(' ').map_or(v.len(), |e| from + e);
                            v.replace_range(from..end, "LIB");
                        }
                        match &jobid {
                            Some(j) => replace_whole(&v, j, "JOBID"),
                            None => v,
                        }
                    }
                }
            };
            (k.to_string(), v)
        })
        .collect()
}

/// The keys OpenPMIx's client read (`stock`) that ours (`ours`) read
/// otherwise or not at all, one line each, leaving out those
/// `rule_differs` accepts; and a line if the runs read different numbers
/// of keys.
pub fn stock_values_ours_lacks(
    stock: &BTreeMap<String, String>,
    ours: &BTreeMap<String, String>,
    rule_differs: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut v: Vec<String> = stock
        .iter()
        .filter(|(k, v)| *v != "missing" && !rule_differs(k))
        .filter(|(k, v)| ours.get(*k) != Some(v))
        .map(|(k, v)| format!("{k}: stock {v}, ours {:?}", ours.get(k)))
        .collect();
    if stock.len() != ours.len() {
        v.push(format!(
            "{} keys read by the stock client, {} by ours",
            stock.len(),
            ours.len()
        ));
    }
    v
}

/// The level (without its number: "job", "node", "app", "rank") and the
/// key of a key line's key ("keys R LEVEL KEY").
pub fn level_and_key(k: &str) -> Option<(&str, &str)> {
    let mut w = k.split(' ').skip(2);
    let (level, key) = (w.next()?, w.next()?);
    Some((level.trim_end_matches(|c: char| c.is_ascii_digit()), key))
}
