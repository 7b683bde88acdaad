//! The readers of the C arguments of the exported functions: arrays of
//! infos and procs, the process a call names, keys and namespaces, and C
//! infos read in place by the core's parsers ([`InfoItem`]).
//!
//! Invariants: a reader checks what it reads (a NULL array with a nonzero
//! count, a non-UTF-8 key, an over-long name are `PMIX_ERR_BAD_PARAM`) and
//! never keeps a pointer it was given; the in-place readers borrow the
//! caller's memory for the length of the call only and allocate nothing.

use std::ffi::{c_char, CStr};

use pmix_core::client::Client;
use pmix_core::info::{InfoItem, ValueView};
use pmix_core::{Info, Nspace, Proc, Status};

use crate::convert;
use crate::sys::{
    pmix_info_t, pmix_proc_t, pmix_value_t, PMIX_BOOL, PMIX_INT, PMIX_INT16, PMIX_INT32,
    PMIX_INT64, PMIX_INT8, PMIX_SIZE, PMIX_STRING, PMIX_UINT, PMIX_UINT16, PMIX_UINT32,
    PMIX_UINT64, PMIX_UINT8, PMIX_UNDEF,
};

/// `Err(PMIX_ERR_BAD_PARAM)` for a NULL array with a nonzero count.
pub(crate) fn check_array<T>(p: *const T, n: usize) -> Result<(), Status> {
    if n > 0 && p.is_null() {
        Err(Status::ERR_BAD_PARAM)
    } else {
        Ok(())
    }
}

/// Reads an optional C info array.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos.
pub(crate) unsafe fn infos_in(info: *const pmix_info_t, ninfo: usize) -> Result<Vec<Info>, Status> {
    check_array(info, ninfo)?;
    if ninfo == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: checked non-NULL; the caller guarantees ninfo elements.
    unsafe { convert::infos_from_c(info, ninfo) }
}

/// Borrows an optional C info array in place (for the core's parsers, see
/// [`InfoItem`]).
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos, which outlive `'a`.
pub(crate) unsafe fn infos_at<'a>(
    info: *const pmix_info_t,
    ninfo: usize,
) -> Result<&'a [pmix_info_t], Status> {
    check_array(info, ninfo)?;
    if ninfo == 0 {
        return Ok(&[]);
    }
    // SAFETY: checked non-NULL; the caller guarantees ninfo elements.
    Ok(unsafe { std::slice::from_raw_parts(info, ninfo) })
}

/// Reads an optional C proc array.
///
/// # Safety
/// `procs` is NULL or points to `n` valid procs.
pub(crate) unsafe fn procs_in(procs: *const pmix_proc_t, n: usize) -> Result<Vec<Proc>, Status> {
    check_array(procs, n)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: checked non-NULL; the caller guarantees n elements.
    let s = unsafe { std::slice::from_raw_parts(procs, n) };
    Ok(s.iter().map(convert::proc_from_c).collect())
}

/// The process a call names, `me` by default: NULL is `me`, an empty
/// namespace is `me`'s namespace.
///
/// # Safety
/// `p` is NULL or a valid proc.
pub(crate) unsafe fn target_or(me: &Proc, p: *const pmix_proc_t) -> Proc {
    if p.is_null() {
        return me.clone();
    }
    // SAFETY: non-NULL, valid per the contract.
    let p = convert::proc_from_c(unsafe { &*p });
    if p.nspace.is_empty() {
        Proc::new(me.nspace.clone(), p.rank)
    } else {
        p
    }
}

/// The process a client's get or store names (see [`target_or`]).
///
/// # Safety
/// `p` is NULL or a valid proc.
pub(crate) unsafe fn target(c: &Client, p: *const pmix_proc_t) -> Proc {
    // SAFETY: the caller's contract.
    unsafe { target_or(c.proc(), p) }
}

/// Borrows a C key as UTF-8.
///
/// # Safety
/// `key` is a valid NUL-terminated string.
pub(crate) unsafe fn key_str<'a>(key: *const c_char) -> Result<&'a str, Status> {
    // SAFETY: the caller's contract.
    unsafe { CStr::from_ptr(key) }
        .to_str()
        .map_err(|_| Status::ERR_BAD_PARAM)
}

/// Borrows the one key a call names (put, get, store): UTF-8 and at most
/// `PMIX_MAX_KEYLEN` bytes, else `PMIX_ERR_BAD_PARAM`, as in a client.
///
/// # Safety
/// `key` is a valid NUL-terminated string.
pub(crate) unsafe fn one_key<'a>(key: *const c_char) -> Result<&'a str, Status> {
    // SAFETY: the caller's contract.
    let k = unsafe { key_str(key) }?;
    if k.len() > pmix_core::MAX_KEYLEN {
        return Err(Status::ERR_BAD_PARAM);
    }
    Ok(k)
}

/// Reads a namespace name argument.
///
/// # Safety
/// `p` is a valid NUL-terminated string.
pub(crate) unsafe fn nspace_in(p: *const c_char) -> Result<Nspace, Status> {
    // SAFETY: the caller's contract.
    let s = unsafe { CStr::from_ptr(p) };
    Nspace::from_cstring(s.to_owned())
}

/// The bytes of a NUL-terminated C character array, without the NUL.
pub(crate) fn c_array_bytes(a: &[c_char]) -> &[u8] {
    // SAFETY: c_char and u8 have the same size and alignment.
    let b = unsafe { std::slice::from_raw_parts(a.as_ptr().cast::<u8>(), a.len()) };
    &b[..crate::os::nul_position(b).unwrap_or(b.len())]
}

/// True if the NUL-terminated C array `a` holds exactly `k` (no scan for
/// the NUL: one compare of `k`'s length).
#[inline]
pub(crate) fn c_array_is(a: &[c_char], k: &[u8]) -> bool {
    // SAFETY: c_char and u8 have the same size and alignment.
    let b = unsafe { std::slice::from_raw_parts(a.as_ptr().cast::<u8>(), a.len()) };
    b.len() > k.len() && b[k.len()] == 0 && crate::api::pointer_cache::eq_short(&b[..k.len()], k)
}

/// A C value as the core's parsers read it.
fn view_of(v: &pmix_value_t) -> ValueView<'_> {
    // SAFETY: each arm reads the union member its type names.
    let x: i128 = unsafe {
        match v.type_ {
            // A PMIX_BOOL value holds a bool; read as a byte, so any
            // nonzero byte is true.
            PMIX_BOOL => return ValueView::Bool(v.data.byte != 0),
            PMIX_UNDEF => return ValueView::Undef,
            PMIX_STRING => {
                let p = v.data.string;
                if p.is_null() {
                    return ValueView::Other;
                }
                return CStr::from_ptr(p)
                    .to_str()
                    .map_or(ValueView::Other, ValueView::Str);
            }
            PMIX_INT | PMIX_INT32 => v.data.int32.into(),
            PMIX_INT8 => v.data.int8.into(),
            PMIX_INT16 => v.data.int16.into(),
            PMIX_INT64 => v.data.int64.into(),
            PMIX_UINT | PMIX_UINT32 => v.data.uint32.into(),
            PMIX_UINT8 => v.data.uint8.into(),
            PMIX_UINT16 => v.data.uint16.into(),
            PMIX_UINT64 => v.data.uint64.into(),
            PMIX_SIZE => v.data.size as i128,
            _ => return ValueView::Other,
        }
    };
    i64::try_from(x).map_or(ValueView::Other, ValueView::Int)
}

/// A C info read in place by the core's parsers of qualifiers and
/// directives (`GetOptions::parse`, `Directives::parse`).
impl InfoItem for pmix_info_t {
    #[inline]
    fn key_is(&self, key: &str) -> bool {
        c_array_is(&self.key, key.as_bytes())
    }

    #[inline]
    fn view(&self) -> ValueView<'_> {
        view_of(&self.value)
    }
}
