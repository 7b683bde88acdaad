//! `PMIx_Publish`, `PMIx_Lookup`, `PMIx_Unpublish` and their non-blocking
//! forms, over [`pmix_core::client::Client`]'s publish/lookup service.
//!
//! Memory follows OpenPMIx 4.2: the blocking `PMIx_Lookup` fills the
//! caller's `pmix_pdata_t` array in place (for each value found, the first
//! element with that key gets the publisher in `proc` and a deep copy in
//! `value`, its payload `malloc`ed so `PMIX_PDATA_DESTRUCT`/`_FREE` release
//! it; elements whose key was not found are not touched, so they keep the
//! `PMIX_UNDEF` of `PMIX_PDATA_CONSTRUCT`). `PMIx_Lookup_nb` hands its
//! callback a `calloc`ed array owned by the library, released (values
//! destructed, array freed) when the callback returns — the callback
//! must copy what it keeps (`PMIX_PDATA_XFER`). Callbacks run on the
//! client's progress thread and must not call blocking PMIx functions.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype.
//!
//! Invariant: the elements of the caller's `pmix_pdata_t` array whose key
//! was not found are never written.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void};

use pmix_core::client::Client;
use pmix_core::client::PublishedValue;
use pmix_core::{Info, Key, Status};

use crate::api::args::infos_in;
use crate::api::serving::client;
use crate::api::state::require_init;
use crate::boundary::{calloc_array, guard, guard_or, op_callback, SendPtr};
use crate::convert;
use crate::nonnull;
use crate::sys::{pmix_info_t, pmix_lookup_cbfunc_t, pmix_op_cbfunc_t, pmix_pdata_t};

/// Reads a NULL-terminated key array (NULL: `None`); an empty or
/// over-long key is `PMIX_ERR_BAD_PARAM`.
///
/// # Safety
/// `keys` is NULL or a NULL-terminated array of valid strings.
unsafe fn keys_in(keys: *const *mut c_char) -> Result<Option<Vec<Key>>, Status> {
    if keys.is_null() {
        return Ok(None);
    }
    // SAFETY: NULL-terminated array of strings (caller's contract).
    let v = unsafe { convert::argv_from_c(keys) };
    v.into_iter()
        .map(|k| {
            let k = Key::from_cstring(k).map_err(|_| Status::ERR_BAD_PARAM)?;
            if k.is_empty() {
                Err(Status::ERR_BAD_PARAM)
            } else {
                Ok(k)
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// `PMIx_Publish`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Publish(info: *const pmix_info_t, ninfo: usize) -> c_int {
    guard(|| {
        require_init()?;
        let c = client()?;
        nonnull!(info);
        // SAFETY: ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo)? };
        c.publish(&infos)
    })
}

/// `PMIx_Publish_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Publish_nb(
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        require_init()?;
        let c = client()?;
        nonnull!(info);
        // SAFETY: ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo)? };
        c.publish_nb(&infos, op_callback(cbfunc, cbdata))
    })
}

/// The status of a lookup that found `found` of the distinct `keys`.
fn lookup_status(keys: &[Key], found: &[PublishedValue]) -> Status {
    if keys.iter().all(|k| found.iter().any(|v| &v.key == k)) {
        Status::SUCCESS
    } else {
        Status::ERR_PARTIAL_SUCCESS
    }
}

/// `PMIx_Lookup`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Lookup(
    data: *mut pmix_pdata_t,
    ndata: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        require_init()?;
        let c = client()?;
        nonnull!(data);
        // SAFETY: the caller's ndata elements (C contract).
        let pdata = unsafe { std::slice::from_raw_parts_mut(data, ndata) };
        let mut keys: Vec<Key> = Vec::new();
        for p in pdata.iter() {
            let k = convert::key_from_c(&p.key);
            if !k.is_empty() && !keys.contains(&k) {
                keys.push(k);
            }
        }
        if keys.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        // SAFETY: ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo)? };
        let found = c.lookup_published(&keys, &infos)?;
        for v in &found {
            let Some(p) = pdata
                .iter_mut()
                .find(|p| convert::key_from_c(&p.key) == v.key)
            else {
                continue;
            };
            p.proc_ = convert::proc_to_c(&v.publisher);
            // SAFETY: the element's value is writable (overwritten, as
            // OpenPMIx's value transfer does).
            unsafe { convert::value_write(&v.value, &mut p.value)? };
        }
        lookup_status(&keys, &found).into_result()
    })
}

/// A `calloc`ed pdata array of `found`, released by [`free_pdata`].
fn pdata_to_c(found: &[PublishedValue]) -> Result<*mut pmix_pdata_t, Status> {
    let arr = calloc_array::<pmix_pdata_t>(found.len())?;
    for (i, v) in found.iter().enumerate() {
        // SAFETY: arr holds found.len() zeroed elements; i is in range.
        let p = unsafe { &mut *arr.add(i) };
        p.proc_ = convert::proc_to_c(&v.publisher);
        convert::key_to_c(&v.key, &mut p.key);
        // SAFETY: p.value is writable.
        if let Err(e) = unsafe { convert::value_write(&v.value, &mut p.value) } {
            // SAFETY: the first i elements hold written values.
            unsafe { free_pdata(arr, i) };
            return Err(e);
        }
    }
    Ok(arr)
}

/// Destructs and frees a pdata array of [`pdata_to_c`].
///
/// # Safety
/// `arr` is NULL or came from [`pdata_to_c`] with at least `n` elements
/// written.
unsafe fn free_pdata(arr: *mut pmix_pdata_t, n: usize) {
    if arr.is_null() {
        return;
    }
    for i in 0..n {
        // SAFETY: element i holds a written value (caller's contract).
        unsafe { convert::value_destruct(&mut (*arr.add(i)).value) };
    }
    // SAFETY: arr was calloc'd.
    unsafe { libc::free(arr.cast()) };
}

/// `PMIx_Lookup_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Lookup_nb(
    keys: *mut *mut c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_lookup_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        require_init()?;
        let c = client()?;
        nonnull!(keys);
        // SAFETY: NULL-terminated key array (C contract).
        let mut keys = unsafe { keys_in(keys)? }.unwrap_or_default();
        let mut seen: Vec<Key> = Vec::with_capacity(keys.len());
        keys.retain(|k| {
            let first = !seen.contains(k);
            if first {
                seen.push(k.clone());
            }
            first
        });
        if keys.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        // SAFETY: ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo)? };
        let data = SendPtr(cbdata);
        let asked = keys.clone();
        c.lookup_published_nb(
            &keys,
            &infos,
            Box::new(move |r| {
                let data = data;
                let Some(f) = cbfunc else {
                    return;
                };
                let (status, arr, n) = match r.and_then(|found| {
                    let arr = pdata_to_c(&found)?;
                    Ok((lookup_status(&asked, &found), arr, found.len()))
                }) {
                    Ok(t) => t,
                    Err(s) => (s, std::ptr::null_mut(), 0),
                };
                // SAFETY: the caller's callback with a library-owned array
                // valid for the call, and its cbdata.
                guard_or((), || unsafe { f(status.0, arr, n, data.0) });
                // SAFETY: arr came from pdata_to_c with n elements.
                unsafe { free_pdata(arr, n) };
            }),
        )
    })
}

/// The serving client, the keys (`None`: every key) and the directives
/// of an unpublish.
type UnpublishArgs = (&'static Client, Option<Vec<Key>>, Vec<Info>);

/// [`UnpublishArgs`] read from the C arguments.
///
/// # Safety
/// `keys` is NULL or a NULL-terminated key array; `info` is NULL or
/// valid for `ninfo` infos.
unsafe fn unpublish_args(
    keys: *const *mut c_char,
    info: *const pmix_info_t,
    ninfo: usize,
) -> Result<UnpublishArgs, Status> {
    require_init()?;
    let c = client()?;
    // SAFETY: the caller's contract.
    let (keys, infos) = unsafe { (keys_in(keys)?, infos_in(info, ninfo)?) };
    Ok((c, keys, infos))
}

/// `PMIx_Unpublish`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Unpublish(
    keys: *mut *mut c_char,
    info: *const pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        // SAFETY: NULL or a NULL-terminated key array, ninfo valid infos
        // (C contract).
        let (c, keys, infos) = unsafe { unpublish_args(keys, info, ninfo) }?;
        c.unpublish(keys.as_deref(), &infos)
    })
}

/// `PMIx_Unpublish_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Unpublish_nb(
    keys: *mut *mut c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        // SAFETY: NULL or a NULL-terminated key array, ninfo valid infos
        // (C contract).
        let (c, keys, infos) = unsafe { unpublish_args(keys, info, ninfo) }?;
        c.unpublish_nb(keys.as_deref(), &infos, op_callback(cbfunc, cbdata))
    })
}
