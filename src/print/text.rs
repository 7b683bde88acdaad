//! The small text pieces the printers share: a labelled line, strings or
//! `NULL`, attribute and rank names, process names, times, flag sets,
//! locality and storage words.
//!
//! Invariants: every piece is bytes (strings from C need not be UTF-8); a
//! process name is cut at the reference's limit ([`PROC_NAME_MAX`]).

use std::ffi::CStr;

use crate::codec::float::c_float;
use crate::sys;
use crate::value::{OptString, Timeval};
use crate::{keys, Proc, Rank};

/// `{prefix}Data type: {name}\tValue: {value}`.
pub(super) fn line(p: &[u8], name: &str, value: impl AsRef<[u8]>) -> Vec<u8> {
    cat!(p, "Data type: ", name, "\tValue: ", value)
}

/// A nullable string as `%s` prints it (glibc: `(null)`).
pub(super) fn s_or_null(s: &OptString) -> &[u8] {
    s.as_deref().map_or(b"(null)", CStr::to_bytes)
}

/// A nullable string the reference guards itself (`NULL`).
pub(super) fn s_or_word(s: &OptString) -> &[u8] {
    s.as_deref().map_or(b"NULL", CStr::to_bytes)
}

pub(super) fn cs(s: &'static CStr) -> &'static [u8] {
    s.to_bytes()
}

/// `PMIx_Get_attribute_name`: the macro name of a key, or the key itself.
pub(super) fn attribute_name(key: &[u8]) -> &[u8] {
    match keys::by_string(key) {
        Some(a) => a.name.as_bytes(),
        None => key,
    }
}

/// A rank as `%lu`, with the names of the three special ranks.
pub(super) fn rank_text(r: u32) -> String {
    match Rank(r) {
        Rank::UNDEF => "PMIX_RANK_UNDEF".into(),
        Rank::WILDCARD => "PMIX_RANK_WILDCARD".into(),
        Rank::LOCAL_NODE => "PMIX_RANK_LOCAL_NODE".into(),
        _ => r.to_string(),
    }
}

/// `{prefix}PROC: {nspace}:{rank}`.
pub(super) fn proc_line(p: &[u8], pr: &Proc) -> Vec<u8> {
    cat!(p, "PROC: ", pr.nspace.as_bytes(), ":", rank_text(pr.rank.0))
}

/// `PMIX_NAME_PRINT`: `[nspace,rank]`.
pub(super) fn name_print(pr: &Proc) -> Vec<u8> {
    let rank = match pr.rank {
        Rank::UNDEF => "UNDEF".to_string(),
        Rank::WILDCARD => "WILDCARD".to_string(),
        r => r.0.to_string(),
    };
    cat!("[", pr.nspace.as_bytes(), ",", rank, "]")
}

/// The longest text OpenPMIx 5.0 prints for a process name (its
/// `snprintf` buffer holds 300 bytes).
pub(super) const PROC_NAME_MAX: usize = 299;

/// `PMIx_Proc_string` (OpenPMIx 5.0's `PMIX_NAME_PRINT`): `[nspace,rank]`,
/// the special ranks by name.
pub fn proc_name(nspace: &[u8], rank: u32) -> Vec<u8> {
    let rank = match Rank(rank) {
        Rank::UNDEF => "UNDEF".to_string(),
        Rank::WILDCARD => "WILDCARD".to_string(),
        Rank::LOCAL_NODE => "LOCAL_NODE".to_string(),
        Rank::LOCAL_PEERS => "LOCAL_PEERS".to_string(),
        Rank::INVALID => "INVALID".to_string(),
        r => r.0.to_string(),
    };
    let mut out = cat!("[", nspace, ",", rank, "]");
    out.truncate(PROC_NAME_MAX);
    out
}

/// `PMIx_Proc_string` of no process.
pub fn no_proc_name() -> Vec<u8> {
    b"[NO-NAME]".to_vec()
}

pub(super) fn tv(t: &Timeval) -> String {
    format!("{}.{:06}", t.sec, t.usec)
}

/// `%W.2f` of a float.
pub(super) fn f2(x: f32, width: usize) -> String {
    c_float(f64::from(x), 2, width)
}

/// `ctime()` without its newline, in the process's local time zone
/// (`(null)` for a time it cannot represent).
pub(super) fn ctime(t: i64) -> Vec<u8> {
    match sys::ctime(t) {
        Ok(mut s) => {
            if s.last() == Some(&b'\n') {
                s.pop();
            }
            s
        }
        Err(_) => b"(null)".to_vec(),
    }
}

/// The names of the bits set in `bits`, joined by `:`.
pub(super) fn flags(bits: u64, names: &[(u64, &str)]) -> String {
    names
        .iter()
        .filter(|(b, _)| bits & b != 0)
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join(":")
}

pub(super) fn locality(l: u16) -> String {
    match l {
        0 => "UNKNOWN".to_owned(),
        0x8000 => "NONLOCAL".to_owned(),
        _ => flags(
            l.into(),
            &[
                (0x0001, "HWTHREAD"),
                (0x0002, "CORE"),
                (0x0004, "L1"),
                (0x0008, "L2"),
                (0x0010, "L3"),
                // The reference names the package bit "CORE".
                (0x0020, "CORE"),
                (0x0040, "NUMA"),
                (0x4000, "NODE"),
            ],
        ),
    }
}

pub(super) fn storage_medium(m: u64) -> String {
    if m & 0x1 != 0 {
        return "UNKNOWN".to_owned();
    }
    flags(
        m,
        &[
            (0x02, "TAPE"),
            (0x04, "HDD"),
            (0x08, "SSD"),
            (0x10, "NVME"),
            (0x20, "PMEM"),
            (0x40, "RAM"),
        ],
    )
}

pub(super) fn storage_access(a: u64) -> String {
    flags(
        a,
        &[
            (0x01, "NODE"),
            (0x02, "SESSION"),
            (0x04, "JOB"),
            (0x08, "RACK"),
            (0x10, "CLUSTER"),
            (0x20, "REMOTE"),
        ],
    )
}

pub(super) fn storage_persistence(p: u64) -> String {
    flags(
        p,
        &[
            (0x01, "TEMPORARY"),
            (0x02, "NODE"),
            (0x04, "SESSION"),
            (0x08, "JOB"),
            (0x10, "SCRATCH"),
            (0x20, "PROJECT"),
            (0x40, "ARCHIVE"),
        ],
    )
}

pub(super) fn storage_access_type(t: u16) -> String {
    flags(t.into(), &[(0x1, "READ"), (0x2, "WRITE")])
}
