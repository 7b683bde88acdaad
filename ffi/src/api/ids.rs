//! Keys, namespaces and process ids: `PMIx_Load_key/_nspace/_procid`,
//! `PMIx_Check_key/_nspace/_rank/_procid/_reserved_key`,
//! `PMIx_Xfer_procid`, `PMIx_Nspace_invalid`, `PMIx_Procid_invalid`,
//! `PMIx_Multicluster_nspace_construct/_parse` and `PMIx_Proc_string`.
//!
//! Invariants: a name is read as C reads it with `strncmp` or
//! `pmix_strncpy`, never past its bound (`PMIX_MAX_KEYLEN` or
//! `PMIX_MAX_NSLEN` characters), so an unterminated key or namespace is
//! safe; a load writes the whole `pmix_key_t`/`pmix_nspace_t`, NUL-padded.
//! Namespaces match when equal or when either is unset (NULL or empty),
//! ranks when equal or when either is `PMIX_RANK_WILDCARD`. A
//! multicluster namespace is `cluster:nspace`. Where OpenPMIx
//! dereferences a NULL argument we answer "no match"/"invalid" or do
//! nothing.

use std::ffi::c_char;
use std::ptr::null_mut;

use pmix_core::print;

use crate::api::value::malloc_text;
use crate::boundary::guard_or;
use crate::sys::{
    pmix_key_t, pmix_proc_t, pmix_rank_t, PMIX_MAX_KEYLEN, PMIX_MAX_NSLEN, PMIX_RANK_INVALID,
    PMIX_RANK_WILDCARD,
};

/// The length of `s`, looking at no more than `limit` bytes (0 for NULL).
///
/// # Safety
/// `s` is NULL or readable up to its NUL or `limit` bytes.
unsafe fn bounded_len(s: *const c_char, limit: usize) -> usize {
    if s.is_null() {
        return 0;
    }
    // SAFETY: each byte read is before the NUL or the limit (contract).
    (0..limit)
        .find(|&i| unsafe { *s.add(i) } == 0)
        .unwrap_or(limit)
}

/// `strncmp(a, b, n) == 0`.
///
/// # Safety
/// `a` and `b` are readable up to their NUL or `n` bytes.
unsafe fn equal_within(a: *const c_char, b: *const c_char, n: usize) -> bool {
    for i in 0..n {
        // SAFETY: i is before both NULs and the bound (contract).
        let (x, y) = unsafe { (*a.add(i), *b.add(i)) };
        if x != y {
            return false;
        }
        if x == 0 {
            return true;
        }
    }
    true
}

/// `pmix_strncpy(dst, src, max)`: at most `max` characters of `src`, then
/// a NUL (`dst` holds `max + 1` bytes).
///
/// # Safety
/// `dst` is writable for `max + 1` bytes; `src` readable up to its NUL or
/// `max` bytes.
unsafe fn copy_bounded(dst: *mut c_char, src: *const c_char, max: usize) {
    // SAFETY: the caller's contract.
    let n = unsafe { bounded_len(src, max) };
    // SAFETY: n <= max bytes read and written, then the NUL at n <= max.
    unsafe {
        std::ptr::copy(src, dst, n);
        *dst.add(n) = 0;
    }
}

/// `PMIX_LOAD_KEY`/`PMIX_LOAD_NSPACE`: zeroes the `max + 1` bytes of `dst`
/// and copies at most `max` characters of `src` (nothing for NULL).
///
/// # Safety
/// `dst` is writable for `max + 1` bytes; `src` is NULL or readable up to
/// its NUL or `max` bytes.
pub(crate) unsafe fn load_name(dst: *mut c_char, src: *const c_char, max: usize) {
    // SAFETY: the caller's contract.
    unsafe {
        std::ptr::write_bytes(dst, 0, max + 1);
        if !src.is_null() {
            copy_bounded(dst, src, max);
        }
    }
}

/// `PMIX_LOAD_KEY` into a `pmix_key_t`.
///
/// # Safety
/// `src` is NULL or readable up to its NUL or `PMIX_MAX_KEYLEN` bytes.
pub(crate) unsafe fn load_key(dst: &mut pmix_key_t, src: *const c_char) {
    // SAFETY: dst is a whole key; src per the contract.
    unsafe { load_name(dst.as_mut_ptr(), src, PMIX_MAX_KEYLEN) }
}

/// `PMIX_NSPACE_INVALID`: NULL or empty.
///
/// # Safety
/// `ns` is NULL or readable at its first byte.
unsafe fn nspace_invalid(ns: *const c_char) -> bool {
    // SAFETY: the caller's contract.
    ns.is_null() || unsafe { *ns } == 0
}

/// `PMIX_CHECK_NSPACE`.
///
/// # Safety
/// Each is NULL or readable up to its NUL or `PMIX_MAX_NSLEN` bytes.
unsafe fn nspace_matches(a: *const c_char, b: *const c_char) -> bool {
    // SAFETY: the caller's contract.
    unsafe { nspace_invalid(a) || nspace_invalid(b) || equal_within(a, b, PMIX_MAX_NSLEN) }
}

/// `PMIX_CHECK_RANK`.
fn rank_matches(a: pmix_rank_t, b: pmix_rank_t) -> bool {
    a == b || a == PMIX_RANK_WILDCARD || b == PMIX_RANK_WILDCARD
}

/// `void PMIx_Load_key(pmix_key_t key, const char *src)`.
///
/// # Safety
/// `key` is NULL or a writable `pmix_key_t`; `src` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_key(key: *mut c_char, src: *const c_char) {
    if !key.is_null() {
        // SAFETY: the C contract.
        guard_or((), || unsafe { load_name(key, src, PMIX_MAX_KEYLEN) })
    }
}

/// `bool PMIx_Check_key(const char *key, const char *str)`: equal in their
/// first `PMIX_MAX_KEYLEN` characters.
///
/// # Safety
/// Each is NULL or a C string (or a full key buffer).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_key(key: *const c_char, str: *const c_char) -> bool {
    guard_or(false, || {
        // SAFETY: both non-NULL and readable (C contract).
        !key.is_null() && !str.is_null() && unsafe { equal_within(key, str, PMIX_MAX_KEYLEN) }
    })
}

/// `bool PMIx_Check_reserved_key(const char *key)`: starts with "pmix".
///
/// # Safety
/// `key` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_reserved_key(key: *const c_char) -> bool {
    guard_or(false, || {
        // SAFETY: non-NULL and readable (C contract).
        !key.is_null() && unsafe { equal_within(key, c"pmix".as_ptr(), 4) }
    })
}

/// `void PMIx_Load_nspace(pmix_nspace_t nspace, const char *str)`.
///
/// # Safety
/// `nspace` is NULL or a writable `pmix_nspace_t`; `str` is NULL or a C
/// string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_nspace(nspace: *mut c_char, str: *const c_char) {
    if !nspace.is_null() {
        // SAFETY: the C contract.
        guard_or((), || unsafe { load_name(nspace, str, PMIX_MAX_NSLEN) })
    }
}

/// `bool PMIx_Check_nspace(const char *key1, const char *key2)`.
///
/// # Safety
/// Each is NULL or a C string (or a full namespace buffer).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_nspace(key1: *const c_char, key2: *const c_char) -> bool {
    // SAFETY: the C contract.
    guard_or(false, || unsafe { nspace_matches(key1, key2) })
}

/// `bool PMIx_Nspace_invalid(const char *nspace)`.
///
/// # Safety
/// `nspace` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Nspace_invalid(nspace: *const c_char) -> bool {
    // SAFETY: the C contract.
    guard_or(true, || unsafe { nspace_invalid(nspace) })
}

/// `void PMIx_Load_procid(pmix_proc_t *p, const char *ns, pmix_rank_t rk)`.
///
/// # Safety
/// `p` is NULL or writable; `ns` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_procid(p: *mut pmix_proc_t, ns: *const c_char, rk: pmix_rank_t) {
    if p.is_null() {
        return;
    }
    guard_or((), || {
        // SAFETY: p is writable (C contract).
        unsafe {
            load_name((*p).nspace.as_mut_ptr(), ns, PMIX_MAX_NSLEN);
            (*p).rank = rk;
        }
    })
}

/// `void PMIx_Xfer_procid(pmix_proc_t *dst, const pmix_proc_t *src)`: a
/// byte copy.
///
/// # Safety
/// Each is NULL or a valid proc.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Xfer_procid(dst: *mut pmix_proc_t, src: *const pmix_proc_t) {
    guard_or((), || {
        if !dst.is_null() && !src.is_null() {
            // SAFETY: two valid procs (C contract); they may be the same one.
            unsafe { std::ptr::copy(src, dst, 1) }
        }
    })
}

/// `bool PMIx_Check_procid(const pmix_proc_t *a, const pmix_proc_t *b)`.
///
/// # Safety
/// Each is NULL or a valid proc.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_procid(a: *const pmix_proc_t, b: *const pmix_proc_t) -> bool {
    guard_or(false, || {
        if a.is_null() || b.is_null() {
            return false;
        }
        // SAFETY: two valid procs (C contract).
        let (a, b) = unsafe { (&*a, &*b) };
        // SAFETY: namespaces are whole buffers.
        let ns = unsafe { nspace_matches(a.nspace.as_ptr(), b.nspace.as_ptr()) };
        ns && rank_matches(a.rank, b.rank)
    })
}

/// `bool PMIx_Check_rank(pmix_rank_t a, pmix_rank_t b)`.
#[no_mangle]
pub extern "C" fn PMIx_Check_rank(a: pmix_rank_t, b: pmix_rank_t) -> bool {
    guard_or(false, || rank_matches(a, b))
}

/// `bool PMIx_Procid_invalid(const pmix_proc_t *p)`: an unset namespace or
/// `PMIX_RANK_INVALID`.
///
/// # Safety
/// `p` is NULL or a valid proc.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Procid_invalid(p: *const pmix_proc_t) -> bool {
    guard_or(true, || {
        // SAFETY: a valid proc (C contract).
        p.is_null()
            || unsafe { nspace_invalid((*p).nspace.as_ptr()) || (*p).rank == PMIX_RANK_INVALID }
    })
}

/// `void PMIx_Multicluster_nspace_construct(pmix_nspace_t target,
/// pmix_nspace_t cluster, pmix_nspace_t nspace)`: `target` =
/// `cluster:nspace`, left empty when that would not fit.
///
/// # Safety
/// `target` is NULL or a writable `pmix_nspace_t`; the others NULL or
/// namespaces.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Multicluster_nspace_construct(
    target: *mut c_char,
    cluster: *const c_char,
    nspace: *const c_char,
) {
    if target.is_null() {
        return;
    }
    guard_or((), || {
        // SAFETY: each read is bounded by PMIX_MAX_NSLEN + 1 (contract).
        let (len, nlen) = unsafe {
            (
                bounded_len(cluster, PMIX_MAX_NSLEN + 1),
                bounded_len(nspace, PMIX_MAX_NSLEN + 1),
            )
        };
        // SAFETY: target is a whole namespace; len + nlen < PMIX_MAX_NSLEN
        // keeps every write inside it.
        unsafe {
            load_name(target, null_mut(), PMIX_MAX_NSLEN);
            if len + nlen < PMIX_MAX_NSLEN {
                load_name(target, cluster, PMIX_MAX_NSLEN);
                *target.add(len) = b':' as c_char;
                if !nspace.is_null() {
                    copy_bounded(target.add(len + 1), nspace, PMIX_MAX_NSLEN - len);
                }
            }
        }
    })
}

/// `void PMIx_Multicluster_nspace_parse(pmix_nspace_t target,
/// pmix_nspace_t cluster, pmix_nspace_t nspace)`: `cluster` (cleared
/// first) gets the characters before the first `:`, `nspace` those after
/// it, copied without a terminator (as OpenPMIx: `nspace` should start
/// zeroed).
///
/// # Safety
/// `target` is NULL or a namespace buffer; `cluster` and `nspace` NULL or
/// writable namespace buffers.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Multicluster_nspace_parse(
    target: *const c_char,
    cluster: *mut c_char,
    nspace: *mut c_char,
) {
    if target.is_null() || cluster.is_null() || nspace.is_null() {
        return;
    }
    guard_or((), || {
        // SAFETY: every index stays below PMIX_MAX_NSLEN + 1, inside the
        // three buffers (contract).
        unsafe {
            load_name(cluster, null_mut(), PMIX_MAX_NSLEN);
            let mut n = 0;
            while n < PMIX_MAX_NSLEN {
                let c = *target.add(n);
                if c == 0 || c == b':' as c_char {
                    break;
                }
                *cluster.add(n) = c;
                n += 1;
            }
            n += 1;
            let mut j = 0;
            while n < PMIX_MAX_NSLEN && *target.add(n) != 0 {
                *nspace.add(j) = *target.add(n);
                n += 1;
                j += 1;
            }
        }
    })
}

/// `char* PMIx_Proc_string(const pmix_proc_t *proc)`: `[nspace,rank]`
/// (`[NO-NAME]` for NULL), `malloc`ed: the caller frees it.
///
/// # Safety
/// `proc` is NULL or a valid proc.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_string(proc: *const pmix_proc_t) -> *mut c_char {
    guard_or(null_mut(), || {
        // SAFETY: a valid proc (C contract).
        let text = unsafe { proc.as_ref() }.map_or_else(print::no_proc_name, |p| {
            print::proc_name(crate::api::args::c_array_bytes(&p.nspace), p.rank)
        });
        malloc_text(text)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::pmix_nspace_t;

    fn ns(s: &str) -> pmix_nspace_t {
        let mut n: pmix_nspace_t = [0; PMIX_MAX_NSLEN + 1];
        // SAFETY: a whole namespace; a C string.
        unsafe {
            load_name(
                n.as_mut_ptr(),
                std::ffi::CString::new(s).unwrap().as_ptr(),
                PMIX_MAX_NSLEN,
            )
        };
        n
    }

    fn text(n: &pmix_nspace_t) -> String {
        String::from_utf8(crate::api::args::c_array_bytes(n).to_vec()).unwrap()
    }

    #[test]
    fn a_multicluster_name_round_trips_and_an_overlong_one_stays_empty() {
        let mut t = ns("junk");
        // SAFETY: whole namespaces.
        unsafe {
            PMIx_Multicluster_nspace_construct(
                t.as_mut_ptr(),
                ns("c1").as_ptr(),
                ns("job").as_ptr(),
            )
        };
        assert_eq!(text(&t), "c1:job");
        let (mut c, mut n) = (ns("zz"), ns(""));
        // SAFETY: whole namespaces.
        unsafe { PMIx_Multicluster_nspace_parse(t.as_ptr(), c.as_mut_ptr(), n.as_mut_ptr()) };
        assert_eq!((text(&c), text(&n)), ("c1".into(), "job".into()));
        let long = "x".repeat(200);
        // SAFETY: whole namespaces.
        unsafe {
            PMIx_Multicluster_nspace_construct(
                t.as_mut_ptr(),
                ns(&long).as_ptr(),
                ns(&long[..60]).as_ptr(),
            )
        };
        assert_eq!(text(&t), "");
    }

    #[test]
    fn a_load_truncates_at_the_bound_and_pads_with_nuls() {
        let long = "k".repeat(PMIX_MAX_KEYLEN + 10);
        let mut key: pmix_key_t = [1; PMIX_MAX_KEYLEN + 1];
        // SAFETY: a whole key; a C string.
        unsafe { load_key(&mut key, std::ffi::CString::new(long).unwrap().as_ptr()) };
        assert_eq!(crate::api::args::c_array_bytes(&key).len(), PMIX_MAX_KEYLEN);
        assert_eq!(key[PMIX_MAX_KEYLEN], 0);
    }

    #[test]
    fn wildcards_and_unset_namespaces_match_anything() {
        assert!(rank_matches(3, PMIX_RANK_WILDCARD) && !rank_matches(3, 4));
        // SAFETY: C strings or NULL.
        unsafe {
            assert!(nspace_matches(c"".as_ptr(), c"a".as_ptr()));
            assert!(nspace_matches(std::ptr::null(), c"a".as_ptr()));
            assert!(!nspace_matches(c"b".as_ptr(), c"a".as_ptr()));
        }
    }
}
