//! `pmix_info_t` (one and arrays), `pmix_pdata_t`, `pmix_app_t` and
//! `pmix_query_t` between their C form and the core's.
//!
//! Invariants: info arrays written for C are calloc'd and released with
//! [`infos_free`]; a failed write destructs what it wrote.

use std::ptr::null_mut;

use pmix_core::value::{App, PData, Query};
use pmix_core::{DataType, Info, InfoDirectives};

use super::item::*;
use super::names::*;
use super::value::*;
use crate::boundary::calloc_array;
use crate::sys::*;

// ---------------------------------------------------------------------------
// pmix_info_t, pmix_pdata_t

/// Reads a `pmix_info_t`.
///
/// # Safety
/// `i` points to a valid `pmix_info_t`.
pub unsafe fn info_from_c(i: *const pmix_info_t) -> Res<Info> {
    // SAFETY: i is valid (caller's contract).
    let i = unsafe { &*i };
    Ok(Info {
        key: key_from_c(&i.key),
        flags: InfoDirectives(i.flags),
        // SAFETY: the embedded value is valid.
        value: unsafe { value_from_c(&i.value) }?,
    })
}

/// Writes an info into a zeroed-or-garbage `pmix_info_t` (overwritten, not
/// released).
///
/// # Safety
/// `out` points to a writable `pmix_info_t`.
pub unsafe fn info_write(i: &Info, out: *mut pmix_info_t) -> Res<()> {
    // SAFETY: out is writable (caller's contract).
    let o = unsafe { &mut *out };
    key_to_c(&i.key, &mut o.key);
    o.flags = i.flags.0;
    // SAFETY: o.value is writable.
    unsafe { value_write(&i.value, &mut o.value) }
}

/// `PMIX_INFO_DESTRUCT`: releases the value unless the info is marked
/// `PMIX_INFO_PERSISTENT`.
///
/// # Safety
/// `i` points to a valid `pmix_info_t`.
pub unsafe fn info_destruct(i: *mut pmix_info_t) {
    // SAFETY: i is valid (caller's contract).
    let i = unsafe { &mut *i };
    if i.flags & PMIX_INFO_PERSISTENT == 0 {
        // SAFETY: the embedded value is valid.
        unsafe { value_destruct(&mut i.value) };
    }
}

/// Reads `n` infos.
///
/// # Safety
/// `p` is NULL or points to `n` valid infos.
pub unsafe fn infos_from_c(p: *const pmix_info_t, n: usize) -> Res<Vec<Info>> {
    let mut out = Vec::new();
    if p.is_null() {
        return Ok(out);
    }
    for k in 0..n {
        // SAFETY: k < n.
        out.push(unsafe { info_from_c(p.add(k)) }?);
    }
    Ok(out)
}

/// A calloc'd array of infos (NULL for none); release with [`infos_free`].
pub fn infos_to_c(infos: &[Info]) -> Res<*mut pmix_info_t> {
    if infos.is_empty() {
        return Ok(null_mut());
    }
    let arr = calloc_array::<pmix_info_t>(infos.len())?;
    for (k, i) in infos.iter().enumerate() {
        // SAFETY: k < len; the slot is zeroed.
        if let Err(e) = unsafe { info_write(i, arr.add(k)) } {
            // SAFETY: every slot is a written or zeroed info.
            unsafe { infos_free(arr, infos.len()) };
            return Err(e);
        }
    }
    Ok(arr)
}

/// `PMIX_INFO_FREE`.
///
/// # Safety
/// `p` is NULL or a malloc'd array of `n` valid infos.
pub unsafe fn infos_free(p: *mut pmix_info_t, n: usize) {
    // SAFETY: forwarded contract.
    unsafe { free_items(DataType::Info, p.cast(), n) }
}

/// # Safety
/// `p` points to a valid `pmix_pdata_t`.
pub(super) unsafe fn pdata_from_c(p: *const pmix_pdata_t) -> Res<PData> {
    // SAFETY: p is valid (caller's contract).
    let p = unsafe { &*p };
    Ok(PData {
        proc: proc_from_c(&p.proc_),
        key: key_from_c(&p.key),
        // SAFETY: the embedded value is valid.
        value: unsafe { value_from_c(&p.value) }?,
    })
}

/// # Safety
/// `out` is a zeroed `pmix_pdata_t`.
pub(super) unsafe fn pdata_write(d: &PData, out: *mut pmix_pdata_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.proc_ = proc_to_c(&d.proc);
    key_to_c(&d.key, &mut o.key);
    // SAFETY: o.value is writable.
    unsafe { value_write(&d.value, &mut o.value) }
}

// ---------------------------------------------------------------------------
// pmix_app_t, pmix_query_t

/// # Safety
/// `a` points to a valid `pmix_app_t`.
pub(super) unsafe fn app_from_c(a: *const pmix_app_t) -> Res<App> {
    // SAFETY: a is valid and its pointers are valid or NULL.
    unsafe {
        let a = &*a;
        Ok(App {
            cmd: opt_string_from_c(a.cmd),
            argv: argv_from_c(a.argv),
            env: argv_from_c(a.env),
            cwd: opt_string_from_c(a.cwd),
            maxprocs: a.maxprocs,
            info: infos_from_c(a.info, a.ninfo)?,
        })
    }
}

/// # Safety
/// `out` is a zeroed `pmix_app_t`.
pub(super) unsafe fn app_write(a: &App, out: *mut pmix_app_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.maxprocs = a.maxprocs;
    o.cmd = opt_string_to_c(&a.cmd)?;
    o.argv = argv_to_c(&a.argv)?;
    o.env = argv_to_c(&a.env)?;
    o.cwd = opt_string_to_c(&a.cwd)?;
    o.info = infos_to_c(&a.info)?;
    o.ninfo = a.info.len();
    Ok(())
}

/// `PMIX_APP_DESTRUCT`.
///
/// # Safety
/// `a` points to a valid app whose pointers are NULL or malloc'd.
pub(super) unsafe fn app_destruct(a: *mut pmix_app_t) {
    // SAFETY: a is valid (caller's contract).
    unsafe {
        let a = &mut *a;
        free_str(&mut a.cmd);
        argv_free(a.argv);
        a.argv = null_mut();
        argv_free(a.env);
        a.env = null_mut();
        free_str(&mut a.cwd);
        infos_free(a.info, a.ninfo);
        a.info = null_mut();
        a.ninfo = 0;
    }
}

/// # Safety
/// `q` points to a valid `pmix_query_t`.
pub(super) unsafe fn query_from_c(q: *const pmix_query_t) -> Res<Query> {
    // SAFETY: q is valid and its pointers are valid or NULL.
    unsafe {
        let q = &*q;
        Ok(Query {
            keys: argv_from_c(q.keys),
            qualifiers: infos_from_c(q.qualifiers, q.nqual)?,
        })
    }
}

/// # Safety
/// `out` is a zeroed `pmix_query_t`.
pub(super) unsafe fn query_write(q: &Query, out: *mut pmix_query_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.keys = argv_to_c(&q.keys)?;
    o.qualifiers = infos_to_c(&q.qualifiers)?;
    o.nqual = q.qualifiers.len();
    Ok(())
}

/// `PMIX_QUERY_DESTRUCT`.
///
/// # Safety
/// `q` points to a valid query whose pointers are NULL or malloc'd.
pub(super) unsafe fn query_destruct(q: *mut pmix_query_t) {
    // SAFETY: q is valid (caller's contract).
    unsafe {
        let q = &mut *q;
        argv_free(q.keys);
        q.keys = null_mut();
        infos_free(q.qualifiers, q.nqual);
        q.qualifiers = null_mut();
        q.nqual = 0;
    }
}
