//! What the exported functions hand back as info arrays: the
//! `results`/`nresults` out-parameters of the blocking calls and the
//! `pmix_info_cbfunc_t` callbacks of the non-blocking ones (queries, job
//! control, allocations, monitoring, groups).
//!
//! Invariants: an out-parameter array is `malloc`ed (the caller frees it
//! with `PMIx_Info_free`/`PMIX_INFO_FREE`), NULL with a count of 0 when
//! there is nothing; the array a callback gets stays the library's until
//! the callback calls the `release_fn` it was given, which frees it once.

use std::ffi::c_void;
use std::ptr::null_mut;

use pmix_core::{Info, Status};

use crate::boundary::{guard_or, SendPtr};
use crate::convert;
use crate::nonnull;
use crate::sys::{pmix_info_cbfunc_t, pmix_info_t};

/// Writes a blocking call's results to the caller's out-parameters.
///
/// # Safety
/// Both pointers are valid for writing.
pub(crate) unsafe fn write_results(
    infos: &[Info],
    results: *mut *mut pmix_info_t,
    nresults: *mut usize,
) -> Result<(), Status> {
    let arr = convert::infos_to_c(infos)?;
    // SAFETY: valid out-parameters (caller's contract).
    unsafe {
        *results = arr;
        *nresults = if arr.is_null() { 0 } else { infos.len() };
    }
    Ok(())
}

/// Clears a blocking call's out-parameters.
///
/// # Safety
/// Both pointers are valid for writing.
pub(crate) unsafe fn clear_results(results: *mut *mut pmix_info_t, nresults: *mut usize) {
    // SAFETY: valid out-parameters (caller's contract).
    unsafe {
        *results = null_mut();
        *nresults = 0;
    }
}

/// A blocking call answering in the caller's `results`/`nresults`: both
/// are checked and cleared, then `call` runs and its infos are written.
///
/// # Safety
/// Both pointers are NULL or valid for writing.
pub(crate) unsafe fn answer(
    results: *mut *mut pmix_info_t,
    nresults: *mut usize,
    call: impl FnOnce() -> Result<Vec<Info>, Status>,
) -> Result<(), Status> {
    nonnull!(results, nresults);
    // SAFETY: valid out-parameters (checked non-NULL).
    unsafe { clear_results(results, nresults) };
    let r = call()?;
    // SAFETY: valid out-parameters.
    unsafe { write_results(&r, results, nresults) }
}

/// An info array handed to a callback, freed by [`release_infos`].
struct InfoArray(*mut pmix_info_t, usize);

/// The `release_fn` of our info callbacks.
unsafe extern "C" fn release_infos(cbdata: *mut c_void) {
    guard_or((), || {
        if cbdata.is_null() {
            return;
        }
        // SAFETY: cbdata is the box `deliver_infos` leaked, released once.
        let a = unsafe { Box::from_raw(cbdata.cast::<InfoArray>()) };
        // SAFETY: the array came from infos_to_c with this count.
        unsafe { convert::infos_free(a.0, a.1) };
    })
}

/// Calls a `pmix_info_cbfunc_t` (if set) with `status` and `infos`; a
/// failed conversion is reported as its status with no infos.
pub(crate) fn deliver_infos(
    f: pmix_info_cbfunc_t,
    mut status: Status,
    infos: &[Info],
    cbdata: SendPtr,
) {
    let Some(f) = f else { return };
    guard_or((), || {
        let (arr, n) = match convert::infos_to_c(infos) {
            Ok(a) if !a.is_null() => (a, infos.len()),
            Ok(_) => (null_mut(), 0),
            Err(e) => {
                status = e;
                (null_mut(), 0)
            }
        };
        let rel = Box::into_raw(Box::new(InfoArray(arr, n)));
        // SAFETY: the caller's callback with its cbdata; the array stays
        // valid until it calls release_fn with `rel`.
        unsafe { f(status.0, arr, n, cbdata.0, Some(release_infos), rel.cast()) };
    })
}

/// A callback delivering an infos result through a `pmix_info_cbfunc_t`.
pub(crate) fn infos_cb(
    f: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> Box<dyn FnOnce(Result<Vec<Info>, Status>) + Send + 'static> {
    let data = SendPtr(cbdata);
    Box::new(move |r| {
        let data = data;
        match r {
            Ok(infos) => deliver_infos(f, Status::SUCCESS, &infos, data),
            Err(s) => deliver_infos(f, s, &[], data),
        }
    })
}
