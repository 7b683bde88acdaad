//! A get with a NULL key: all the data the library holds for one process,
//! as a data array of infos (what OpenPMIx 4.2 returns), blocking or
//! through a callback.
//!
//! Invariant: a `_nb` result goes to the callback once, then is released.

use std::ffi::c_void;
use std::ptr::null_mut;

use pmix_core::client::{Client, GetOptions, ValueStorage};
use pmix_core::value::DataArray;
use pmix_core::{DataType, Info, InfoDirectives, Status, Value};

use crate::api::args::{infos_in, target};
use crate::boundary::SendPtr;
use crate::nonnull;
use crate::sys::{pmix_info_t, pmix_proc_t, pmix_value_cbfunc_t, pmix_value_t};

use super::deliver::*;

// ---------------------------------------------------------------------------
// A NULL key: all the data the library holds for one process (see
// `pmix_core::client::Client::get_all`), as one `PMIX_DATA_ARRAY` value of
// `PMIX_INFO`, one info per key, the last flagged `PMIX_INFO_ARRAY_END` (as
// OpenPMIx 4.2 returns it).

/// The infos as one data-array value.
pub(super) fn as_value(mut infos: Vec<Info>) -> Value {
    if let Some(last) = infos.last_mut() {
        last.flags = InfoDirectives(last.flags.0 | InfoDirectives::ARRAY_END.0);
    }
    Value::DataArray(Box::new(DataArray {
        elem_type: DataType::Info,
        items: infos
            .into_iter()
            .map(|i| Value::Info(Box::new(i)))
            .collect(),
    }))
}

/// `PMIx_Get(proc, NULL, info, ninfo, val)` in a client.
///
/// # Safety
/// `proc_` NULL or a valid proc, `info` NULL or `ninfo` valid infos,
/// `val` NULL or writable (and under `PMIX_GET_STATIC_VALUES`, `*val` the
/// caller's value).
pub(super) unsafe fn get_all(
    c: &Client,
    proc_: *const pmix_proc_t,
    info: *const pmix_info_t,
    ninfo: usize,
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    // A NULL proc names this process for a keyed get only (OpenPMIx
    // refuses it with a NULL key).
    nonnull!(proc_, val);
    // SAFETY: info is NULL or ninfo valid infos (C contract).
    let infos = unsafe { infos_in(info, ninfo) }?;
    // SAFETY: proc_ is NULL or valid (C contract).
    let proc = unsafe { target(c, proc_) };
    // SAFETY: val is writable (and *val the caller's under static values).
    unsafe { deliver_all(c.get_all(&proc, &infos), &infos, val) }
}

/// Hands a process's data (`data`: its infos, or why there are none) to
/// a blocking caller in the storage `infos` ask for.
///
/// # Safety
/// `val` is writable, and under `PMIX_GET_STATIC_VALUES` `*val` is the
/// caller's value.
pub(super) unsafe fn deliver_all(
    data: Result<Vec<Info>, Status>,
    infos: &[Info],
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    let storage = GetOptions::parse(infos).storage;
    if storage != ValueStorage::Static {
        // SAFETY: val is a writable out-parameter.
        unsafe { *val = null_mut() };
    }
    let v = as_value(data?);
    if storage == ValueStorage::Static {
        // SAFETY: under static values *val is the caller's value.
        let out = unsafe { *val };
        nonnull!(out);
    }
    // SAFETY: val is writable, *val the caller's non-NULL value under
    // static values (checked above).
    unsafe { put_value(storage, &v, val) }
}

/// `PMIx_Get_nb(proc, NULL, ...)` in a client: `f` runs on the progress
/// thread with a value released when it returns.
///
/// # Safety
/// `proc_` NULL or a valid proc, `info` NULL or `ninfo` valid infos.
pub(super) unsafe fn get_all_nb(
    c: &Client,
    proc_: *const pmix_proc_t,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_value_cbfunc_t,
    cbdata: *mut c_void,
) -> Result<(), Status> {
    nonnull!(proc_);
    let f = cbfunc.ok_or(Status::ERR_BAD_PARAM)?;
    // SAFETY: info is NULL or ninfo valid infos (C contract).
    let infos = unsafe { infos_in(info, ninfo) }?;
    // SAFETY: proc_ is NULL or valid (C contract).
    let proc = unsafe { target(c, proc_) };
    let data = SendPtr(cbdata);
    c.get_all_nb(
        &proc,
        &infos,
        Box::new(move |r| deliver_value(f, data, r.map(as_value))),
    )
}
