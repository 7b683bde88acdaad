//! `PMIx_Get` / `PMIx_Get_nb` with a NULL key: all the data the library
//! holds for one process (see [`pmix_core::client::Client::get_all`]),
//! as one `PMIX_DATA_ARRAY` value of `PMIX_INFO`, one info per key, the
//! last flagged `PMIX_INFO_ARRAY_END` (as OpenPMIx 4.2 returns it).

use std::ffi::c_void;
use std::ptr::null_mut;

use pmix_core::value::DataArray;
use pmix_core::{DataType, Info, InfoDirectives, Status, Value};

use crate::api::client::{deliver_value, infos_in, storage, target, Storage};
use crate::api::pointer_cache;
use crate::boundary::SendPtr;
use crate::convert;
use crate::nonnull;
use crate::sys::{pmix_info_t, pmix_proc_t, pmix_value_cbfunc_t, pmix_value_t};
use pmix_core::client::Client;

/// The infos as one data-array value.
fn as_value(mut infos: Vec<Info>) -> Value {
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
pub(crate) unsafe fn get(
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
    unsafe { deliver(c.get_all(&proc, &infos), &infos, val) }
}

/// Hands a process's data (`data`: its infos, or why there are none) to
/// a blocking caller in the storage `infos` ask for.
///
/// # Safety
/// `val` is writable, and under `PMIX_GET_STATIC_VALUES` `*val` is the
/// caller's value.
pub(crate) unsafe fn deliver(
    data: Result<Vec<Info>, Status>,
    infos: &[Info],
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    let mode = storage(infos);
    if mode != Storage::Static {
        // SAFETY: val is a writable out-parameter.
        unsafe { *val = null_mut() };
    }
    let v = as_value(data?);
    match mode {
        Storage::Static => {
            // SAFETY: under static values *val is the caller's value.
            let out = unsafe { *val };
            nonnull!(out);
            // SAFETY: out is a writable value the caller owns.
            unsafe { convert::value_write(&v, out) }
        }
        Storage::Pointer => {
            let p = pointer_cache::retain(convert::value_to_c_new(&v)?);
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = p };
            Ok(())
        }
        Storage::Malloc => {
            let p = convert::value_to_c_new(&v)?;
            // SAFETY: as above.
            unsafe { *val = p };
            Ok(())
        }
    }
}

/// `PMIx_Get_nb(proc, NULL, ...)` in a client: `f` runs on the progress
/// thread with a value released when it returns.
///
/// # Safety
/// `proc_` NULL or a valid proc, `info` NULL or `ninfo` valid infos.
pub(crate) unsafe fn get_nb(
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
