//! Locality strings (`PMIX_LOCALITY_STRING`) and the relative locality of
//! two processes (`PMIx_Get_relative_locality`).
//!
//! A locality string, as OpenPMIx 4.2 generates it from a process's cpuset
//! and the node's hwloc topology, is a colon-separated list of tokens, one
//! per kind of object the process's PUs touch, in topology order (top
//! down) with the NUMA nodes last: a two-letter code and an hwloc "list"
//! bitmap of the logical indexes of those objects, e.g.
//! `SK0:L30:L20-1:L10-1:CR0-1:HT0-1:NM0`. Codes: `NM` NUMA node, `SK`
//! package, `L3`/`L2`/`L1` caches, `CR` core, `HT` hardware thread (PU).
//! The standard asks for a `hwloc:` prefix; OpenPMIx 4.2 does not emit one.
//! Both forms are accepted here.

use crate::status::{Result, Status};

/// `pmix_locality_t` bits.
pub const LOCALITY_UNKNOWN: u16 = 0x0000;
pub const LOCALITY_NONLOCAL: u16 = 0x8000;
pub const LOCALITY_SHARE_HWTHREAD: u16 = 0x0001;
pub const LOCALITY_SHARE_CORE: u16 = 0x0002;
pub const LOCALITY_SHARE_L1CACHE: u16 = 0x0004;
pub const LOCALITY_SHARE_L2CACHE: u16 = 0x0008;
pub const LOCALITY_SHARE_L3CACHE: u16 = 0x0010;
pub const LOCALITY_SHARE_PACKAGE: u16 = 0x0020;
pub const LOCALITY_SHARE_NUMA: u16 = 0x0040;
pub const LOCALITY_SHARE_NODE: u16 = 0x4000;

/// The token codes of a locality string and the bit each one sets.
pub const LOCALITY_CODES: [(&str, u16); 7] = [
    ("NM", LOCALITY_SHARE_NUMA),
    ("SK", LOCALITY_SHARE_PACKAGE),
    ("L3", LOCALITY_SHARE_L3CACHE),
    ("L2", LOCALITY_SHARE_L2CACHE),
    ("L1", LOCALITY_SHARE_L1CACHE),
    ("CR", LOCALITY_SHARE_CORE),
    ("HT", LOCALITY_SHARE_HWTHREAD),
];

/// A set of indexes in hwloc's "list" syntax: inclusive ranges, the last
/// possibly open-ended (`end == u64::MAX`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct IndexList(Vec<(u64, u64)>);

impl IndexList {
    /// Parses an hwloc list (`0-3,8,10-`): comma- or space-separated
    /// decimal indexes and `A-B` ranges, `A-` running to infinity.
    pub fn parse(s: &str) -> Result<IndexList> {
        let mut ranges = Vec::new();
        for item in s.split([',', ' ']).filter(|t| !t.is_empty()) {
            let (a, b) = match item.split_once('-') {
                Some((a, "")) => (parse_index(a)?, u64::MAX),
                Some((a, b)) => (parse_index(a)?, parse_index(b)?),
                None => {
                    let a = parse_index(item)?;
                    (a, a)
                }
            };
            if a <= b {
                ranges.push((a, b));
            }
        }
        Ok(IndexList(ranges))
    }

    /// Builds the list of the given indexes (in any order).
    pub fn from_indexes(indexes: impl IntoIterator<Item = u64>) -> IndexList {
        let mut v: Vec<u64> = indexes.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for i in v {
            match ranges.last_mut() {
                Some((_, end)) if *end + 1 == i => *end = i,
                _ => ranges.push((i, i)),
            }
        }
        IndexList(ranges)
    }

    /// True if no index is in the set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// True if the two sets share an index.
    pub fn intersects(&self, other: &IndexList) -> bool {
        self.0
            .iter()
            .any(|&(a, b)| other.0.iter().any(|&(c, d)| a <= d && c <= b))
    }
}

impl std::fmt::Display for IndexList {
    /// hwloc's list form: `0-3,8`, an open end as `10-`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (n, &(a, b)) in self.0.iter().enumerate() {
            if n > 0 {
                f.write_str(",")?;
            }
            if a == b {
                write!(f, "{a}")?;
            } else if b == u64::MAX {
                write!(f, "{a}-")?;
            } else {
                write!(f, "{a}-{b}")?;
            }
        }
        Ok(())
    }
}

fn parse_index(s: &str) -> Result<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Status::ERR_BAD_PARAM);
    }
    s.parse().map_err(|_| Status::ERR_BAD_PARAM)
}

/// The tokens of a locality string, or `None` if it is not one we know:
/// either `hwloc:`-prefixed (any case) or starting with one of the codes.
fn payload(locality: &str) -> Option<&str> {
    let b = locality.as_bytes();
    if b.len() >= 6 && b[..6].eq_ignore_ascii_case(b"hwloc:") {
        return Some(&locality[6..]);
    }
    LOCALITY_CODES
        .iter()
        .any(|(code, _)| b.len() >= 2 && b[..2].eq_ignore_ascii_case(code.as_bytes()))
        .then_some(locality)
}

/// `PMIx_Get_relative_locality`: the `pmix_locality_t` bits shared by two
/// processes of the same node, given their locality strings. Always
/// includes `PMIX_LOCALITY_SHARE_NODE`; for each code present in both
/// strings (the first token of that code in the second string), the code's
/// bit if their object sets intersect. Tokens of codes we do not know are
/// ignored. `PMIX_ERR_BAD_PARAM` if either string is not a locality string
/// or holds a malformed bitmap.
pub fn relative_locality(locality1: &str, locality2: &str) -> Result<u16> {
    let (Some(p1), Some(p2)) = (payload(locality1), payload(locality2)) else {
        return Err(Status::ERR_BAD_PARAM);
    };
    let set1: Vec<&str> = p1.split(':').filter(|t| !t.is_empty()).collect();
    let set2: Vec<&str> = p2.split(':').filter(|t| !t.is_empty()).collect();
    let mut locality = LOCALITY_SHARE_NODE;
    for t1 in &set1 {
        if t1.len() < 2 || !t1.is_char_boundary(2) {
            continue;
        }
        let (code, bits1) = t1.split_at(2);
        let Some(t2) = set2
            .iter()
            .find(|t2| t2.len() >= 2 && t2.as_bytes()[..2] == *code.as_bytes())
        else {
            continue;
        };
        let Some(&(_, bit)) = LOCALITY_CODES.iter().find(|(c, _)| *c == code) else {
            continue;
        };
        let a = IndexList::parse(bits1)?;
        let b = IndexList::parse(&t2[2..])?;
        if a.intersects(&b) {
            locality |= bit;
        }
    }
    Ok(locality)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_lists_round_trip() {
        for s in ["0", "0-3", "0-3,8", "1,3,5-7", "10-", ""] {
            assert_eq!(IndexList::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(
            IndexList::from_indexes([3, 0, 1, 2, 8]).to_string(),
            "0-3,8"
        );
        assert!(IndexList::parse("x").is_err());
        assert!(IndexList::parse("1-x").is_err());
    }

    #[test]
    fn intersections() {
        let p = |s| IndexList::parse(s).unwrap();
        assert!(p("0-3").intersects(&p("3-5")));
        assert!(!p("0-3").intersects(&p("4-5")));
        assert!(p("10-").intersects(&p("1000")));
        assert!(!p("").intersects(&p("0-")));
    }

    #[test]
    fn same_core_different_threads() {
        let a = "SK0:L30:L20:L10:CR0:HT0:NM0";
        let b = "SK0:L30:L20:L10:CR0:HT1:NM0";
        let want = LOCALITY_SHARE_NODE
            | LOCALITY_SHARE_NUMA
            | LOCALITY_SHARE_PACKAGE
            | LOCALITY_SHARE_L3CACHE
            | LOCALITY_SHARE_L2CACHE
            | LOCALITY_SHARE_L1CACHE
            | LOCALITY_SHARE_CORE;
        assert_eq!(relative_locality(a, b), Ok(want));
        assert_eq!(relative_locality(a, a), Ok(want | LOCALITY_SHARE_HWTHREAD));
    }

    #[test]
    fn prefixed_and_bare_forms_agree() {
        let a = "SK0:CR0-1:HT0-3";
        let b = "SK1:CR2:HT4";
        assert_eq!(relative_locality(a, b), Ok(LOCALITY_SHARE_NODE));
        assert_eq!(
            relative_locality(&format!("hwloc:{a}"), &format!("HWLOC:{b}")),
            Ok(LOCALITY_SHARE_NODE)
        );
        assert_eq!(
            relative_locality("hwloc:", "hwloc:"),
            Ok(LOCALITY_SHARE_NODE)
        );
    }

    #[test]
    fn foreign_strings_are_refused() {
        assert_eq!(relative_locality("", "SK0"), Err(Status::ERR_BAD_PARAM));
        assert_eq!(
            relative_locality("foo:bar", "SK0"),
            Err(Status::ERR_BAD_PARAM)
        );
        assert_eq!(relative_locality("SK0", "SKx"), Err(Status::ERR_BAD_PARAM));
    }
}
