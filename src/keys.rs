//! PMIx attribute names (the `PMIX_*` keys of `pmix_common.h`).
//!
//! The constants and [`ATTRIBUTES`], the attribute dictionary in header
//! order (the constants of `pmix_common.h`, then the deprecated ones),
//! are generated into [`table`] by `tools/gen_keys.py` from the PMIx
//! headers and re-exported here; the tests at the bottom check that table
//! against `include/pmix_common.h` and `include/pmix_deprecated.h` (and
//! the reference headers when they are installed), so the headers stay
//! the one source of truth. Lookups by name and by string are
//! ASCII-case-insensitive and return the first match, which is what
//! `PMIx_Get_attribute_string`/`_name` do.

mod table;

pub use table::*;

/// The attribute whose macro name is `name` (ASCII-case-insensitive).
pub fn by_name(name: &[u8]) -> Option<&'static Attribute> {
    ATTRIBUTES
        .iter()
        .find(|a| a.name.as_bytes().eq_ignore_ascii_case(name))
}

/// The first attribute whose key string is `string`
/// (ASCII-case-insensitive).
pub fn by_string(string: &[u8]) -> Option<&'static Attribute> {
    ATTRIBUTES
        .iter()
        .find(|a| a.string.as_bytes().eq_ignore_ascii_case(string))
}

/// True if `key` is a reserved key: its name starts with "pmix", the
/// check OpenPMIx makes (`PMIX_CHECK_RESERVED_KEY`). Reserved keys come
/// from the host's job data only, never from a process's posts, and a
/// process's own puts never shadow them.
#[inline]
pub fn is_reserved(key: impl AsRef<[u8]>) -> bool {
    key.as_ref().starts_with(b"pmix")
}

/// The application-level keys a get on a namespace's WILDCARD rank, with
/// no realm qualifier, answers with the caller's own application's value
/// (OpenPMIx's clients' list).
pub const APP_LEVEL_OF_JOB: [&str; 8] = [
    APP_SIZE,
    APPLDR,
    APP_ARGV,
    WDIR,
    PSET_NAME,
    PSET_MEMBERS,
    APP_MAP_TYPE,
    APP_MAP_REGEX,
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The dictionary as the headers in `dir` define it: string macros of
    /// pmix_common.h from PMIX_ATTR_UNDEF on whose value starts with
    /// "pmix", then those of pmix_deprecated.h.
    fn from_headers(dir: &Path) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        for (file, start) in [
            ("pmix_common.h", Some("PMIX_ATTR_UNDEF")),
            ("pmix_deprecated.h", None),
        ] {
            let text = std::fs::read_to_string(dir.join(file)).ok()?;
            let mut on = start.is_none();
            for line in text.lines() {
                let mut words = line.split_whitespace();
                if words.next() != Some("#define") {
                    continue;
                }
                let (Some(name), Some(value)) = (words.next(), words.next()) else {
                    continue;
                };
                if !name.starts_with("PMIX_") || !value.starts_with('"') {
                    continue;
                }
                if !on {
                    if Some(name) != start {
                        continue;
                    }
                    on = true;
                }
                let value = value.trim_matches('"');
                if value.starts_with("pmix") {
                    out.push((name.to_owned(), value.to_owned()));
                }
            }
        }
        Some(out)
    }

    /// Compares [`ATTRIBUTES`] with the headers in `dir`; `beyond`: those
    /// headers define the attributes of [`BEYOND_4_2_2`] (ours do, the
    /// 4.2.2 reference does not).
    fn check(dir: &Path, beyond: bool) {
        let Some(expected) = from_headers(dir) else {
            eprintln!("{} has no complete headers; skipped", dir.display());
            return;
        };
        let ours: Vec<(String, String)> = ATTRIBUTES
            .iter()
            .filter(|a| beyond || !BEYOND_4_2_2.contains(&a.name))
            .map(|a| (a.name.to_owned(), a.string.to_owned()))
            .collect();
        assert_eq!(
            ours,
            expected,
            "src/keys/table.rs is out of date with {}: run tools/gen_keys.py",
            dir.display()
        );
    }

    #[test]
    fn matches_our_headers() {
        check(&Path::new(env!("CARGO_MANIFEST_DIR")).join("include"), true);
    }

    #[test]
    fn matches_reference_headers() {
        let dir = Path::new("/usr/lib/x86_64-linux-gnu/pmix2/include");
        assert!(
            dir.join("pmix_common.h").exists()
                || std::env::var("PMIX_REQUIRE_REFERENCE").as_deref() != Ok("1"),
            "PMIX_REQUIRE_REFERENCE=1 but the reference headers are not installed"
        );
        check(dir, false);
    }

    #[test]
    fn lookups() {
        assert_eq!(RANK, "pmix.rank");
        assert_eq!(by_name(b"PMIX_RANK").unwrap().string, "pmix.rank");
        assert_eq!(by_name(b"pmix_rank").unwrap().string, "pmix.rank");
        assert_eq!(by_string(b"PMIX.RANK").unwrap().name, "PMIX_RANK");
        // Two names share this string: the first in header order wins.
        assert_eq!(
            by_string(b"pmix.qry.quals").unwrap().name,
            "PMIX_QUERY_QUALIFIERS"
        );
        assert_eq!(
            by_string(b"pmix.pdata").unwrap().name,
            "PMIX_PROC_INFO_ARRAY"
        );
        assert!(by_name(b"PMIX_KEEPALIVE_PIPE").is_none());
        assert!(by_string(b"no.such.key").is_none());
    }
}
