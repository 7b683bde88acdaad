//! `PMIx_Spawn`, `PMIx_Connect`, `PMIx_Disconnect` and their non-blocking
//! forms, over [`pmix_core::client::Client`]'s process-management calls.
//!
//! The caller's arrays are converted (deep copies) before the call
//! returns, so they may be freed as soon as it does, `_nb` forms included.
//! The namespace handed to a `pmix_spawn_cbfunc_t` is a buffer of ours,
//! valid only during the callback (as in OpenPMIx). Callbacks run on the
//! client's progress thread.
//!
//! In a server process (`PMIx_server_init` without `PMIx_Init`) a spawn
//! goes to the server's own host (its `spawn` upcall, the server's process
//! the requestor), as OpenPMIx does; the blocking form called from inside
//! an upcall returns `PMIX_ERR_WOULD_BLOCK` (it would wait for the thread
//! running it).
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype.
//!
//! Invariant: nothing of the caller's arrays is referenced after the call
//! returns (deep copies), `_nb` forms included.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void};

use pmix_core::client::Client;
use pmix_core::value::App;
use pmix_core::{DataType, Info, Nspace, Proc, Status, Value};

use crate::api::args::infos_in;
use crate::api::serving::{self, client, Serving};
use crate::api::state::{self, require_init};
use crate::boundary::guard;
use crate::boundary::{op_callback, SendPtr};
use crate::convert;
use crate::sys::{
    pmix_app_t, pmix_info_t, pmix_nspace_t, pmix_op_cbfunc_t, pmix_proc_t, pmix_spawn_cbfunc_t,
    PMIX_MAX_NSLEN,
};

/// # Safety
/// `apps` is NULL or `napps` valid apps.
unsafe fn apps_in(apps: *const pmix_app_t, napps: usize) -> Result<Vec<App>, Status> {
    if apps.is_null() || napps == 0 {
        return Err(Status::ERR_BAD_PARAM);
    }
    // SAFETY: non-NULL with napps valid apps (caller's contract).
    let values = unsafe { convert::read_items(DataType::App, apps.cast(), napps)? };
    values
        .into_iter()
        .map(|v| match v {
            Value::App(a) => Ok(*a),
            _ => Err(Status::ERR_BAD_PARAM),
        })
        .collect()
}

/// # Safety
/// `procs` is NULL or `nprocs` valid procs.
unsafe fn procs_in(procs: *const pmix_proc_t, nprocs: usize) -> Result<Vec<Proc>, Status> {
    if procs.is_null() || nprocs == 0 {
        return Err(Status::ERR_BAD_PARAM);
    }
    // SAFETY: non-NULL with nprocs valid procs (caller's contract).
    let s = unsafe { std::slice::from_raw_parts(procs, nprocs) };
    Ok(s.iter().map(convert::proc_from_c).collect())
}

fn nspace_buf(ns: Option<&Nspace>) -> pmix_nspace_t {
    let mut buf: pmix_nspace_t = [0; PMIX_MAX_NSLEN + 1];
    if let Some(ns) = ns {
        convert::nspace_to_c(ns, &mut buf);
    }
    buf
}

/// `PMIx_Spawn`: returns once the new job's processes are started; its
/// namespace goes to `nspace` when that is not NULL.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Spawn(
    job_info: *const pmix_info_t,
    ninfo: usize,
    apps: *const pmix_app_t,
    napps: usize,
    nspace: *mut c_char,
) -> c_int {
    guard(|| {
        require_init()?;
        if let Ok(Serving::Server) = serving::serving(true) {
            // SAFETY: the C contract of PMIx_Spawn.
            return unsafe { server_spawn(job_info, ninfo, apps, napps, nspace) };
        }
        let c = client()?;
        if !nspace.is_null() {
            // SAFETY: a pmix_nspace_t out-parameter (C contract).
            unsafe { std::ptr::write_bytes(nspace, 0, PMIX_MAX_NSLEN + 1) };
        }
        // SAFETY: arrays valid for their counts (C contract).
        let (infos, apps) = unsafe { (infos_in(job_info, ninfo)?, apps_in(apps, napps)?) };
        let ns = c.spawn(&infos, &apps)?;
        if !nspace.is_null() {
            let buf = nspace_buf(Some(&ns));
            // SAFETY: nspace has PMIX_MAX_NSLEN + 1 writable bytes.
            unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), nspace, buf.len()) };
        }
        Ok(())
    })
}

/// `PMIx_Spawn_nb`: `cbfunc` runs on the progress thread with the status
/// and the new namespace (valid during the callback).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Spawn_nb(
    job_info: *const pmix_info_t,
    ninfo: usize,
    apps: *const pmix_app_t,
    napps: usize,
    cbfunc: pmix_spawn_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        require_init()?;
        if let Ok(Serving::Server) = serving::serving(true) {
            // SAFETY: the C contract of PMIx_Spawn_nb.
            return unsafe { server_spawn_nb(job_info, ninfo, apps, napps, cbfunc, cbdata) };
        }
        let c = client()?;
        // SAFETY: arrays valid for their counts (C contract).
        let (infos, apps) = unsafe { (infos_in(job_info, ninfo)?, apps_in(apps, napps)?) };
        c.spawn_nb(&infos, &apps, spawn_callback(cbfunc, cbdata))
    })
}

/// A spawn's outcome to the caller's `pmix_spawn_cbfunc_t` (if any), with
/// the new namespace in a buffer valid for the call.
fn spawn_callback(
    cbfunc: pmix_spawn_cbfunc_t,
    cbdata: *mut c_void,
) -> Box<dyn FnOnce(Result<Nspace, Status>) + Send + 'static> {
    let data = SendPtr(cbdata);
    Box::new(move |r| {
        let data = data;
        let (status, ns) = match r {
            Ok(ns) => (Status::SUCCESS, Some(ns)),
            Err(s) => (s, None),
        };
        let mut buf = nspace_buf(ns.as_ref());
        if let Some(f) = cbfunc {
            crate::boundary::guard_or((), || {
                // SAFETY: the caller's callback with its cbdata and a
                // namespace buffer valid for the call.
                unsafe { f(status.0, buf.as_mut_ptr(), data.0) }
            });
        }
    })
}

/// The client and the arguments of a connect or disconnect call.
///
/// # Safety
/// `procs` is NULL or `nprocs` valid procs; `info` is NULL or `ninfo`
/// valid infos.
unsafe fn connect_args(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> Result<(&'static Client, Vec<Proc>, Vec<Info>), Status> {
    require_init()?;
    let c = client()?;
    // SAFETY: the caller's contract.
    let (procs, infos) = unsafe { (procs_in(procs, nprocs)?, infos_in(info, ninfo)?) };
    Ok((c, procs, infos))
}

/// `PMIx_Connect`: collective over `procs` (of any namespaces).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        // SAFETY: arrays valid for their counts (C contract).
        let (c, procs, infos) = unsafe { connect_args(procs, nprocs, info, ninfo) }?;
        c.connect_procs(&procs, &infos)
    })
}

/// `PMIx_Connect_nb`: `cbfunc` runs on the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect_nb(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        // SAFETY: arrays valid for their counts (C contract).
        let (c, procs, infos) = unsafe { connect_args(procs, nprocs, info, ninfo) }?;
        c.connect_procs_nb(&procs, &infos, op_callback(cbfunc, cbdata))
    })
}

/// `PMIx_Disconnect`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        // SAFETY: arrays valid for their counts (C contract).
        let (c, procs, infos) = unsafe { connect_args(procs, nprocs, info, ninfo) }?;
        c.disconnect_procs(&procs, &infos)
    })
}

/// `PMIx_Disconnect_nb`: `cbfunc` runs on the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect_nb(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        // SAFETY: arrays valid for their counts (C contract).
        let (c, procs, infos) = unsafe { connect_args(procs, nprocs, info, ninfo) }?;
        c.disconnect_procs_nb(&procs, &infos, op_callback(cbfunc, cbdata))
    })
}

// ---------------------------------------------------------------------------
// A server process's own spawn

/// The server's spawn of `apps` (completed as a client's are), its
/// outcome to `done` on the server's progress thread.
///
/// # Safety
/// `job_info` NULL or `ninfo` valid infos; `apps` NULL or `napps` valid
/// apps.
unsafe fn server_spawn_start(
    job_info: *const pmix_info_t,
    ninfo: usize,
    apps: *const pmix_app_t,
    napps: usize,
    done: Box<dyn FnOnce(Result<Nspace, Status>) + Send + 'static>,
) -> Result<(), Status> {
    // SAFETY: arrays valid for their counts (caller's contract).
    let (infos, apps) = unsafe { (infos_in(job_info, ninfo)?, apps_in(apps, napps)?) };
    let apps = apps
        .iter()
        .map(pmix_core::client::normalize_app)
        .collect::<Result<Vec<_>, _>>()?;
    state::with_server(|s| s.spawn_nb(infos, apps, done))?
}

/// `PMIx_Spawn` in a server process: waits for the host's answer
/// (`PMIX_ERR_WOULD_BLOCK` from inside an upcall).
///
/// # Safety
/// The C contract of `PMIx_Spawn`.
unsafe fn server_spawn(
    job_info: *const pmix_info_t,
    ninfo: usize,
    apps: *const pmix_app_t,
    napps: usize,
    nspace: *mut c_char,
) -> Result<(), Status> {
    if !nspace.is_null() {
        // SAFETY: a pmix_nspace_t out-parameter (C contract).
        unsafe { std::ptr::write_bytes(nspace, 0, PMIX_MAX_NSLEN + 1) };
    }
    // SAFETY: the caller's contract.
    let ns = state::server_wait(|done| unsafe {
        server_spawn_start(job_info, ninfo, apps, napps, done)
    })??;
    if !nspace.is_null() {
        let buf = nspace_buf(Some(&ns));
        // SAFETY: nspace has PMIX_MAX_NSLEN + 1 writable bytes.
        unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), nspace, buf.len()) };
    }
    Ok(())
}

/// `PMIx_Spawn_nb` in a server process: `cbfunc` gets the host's answer
/// on the server's progress thread.
///
/// # Safety
/// The C contract of `PMIx_Spawn_nb`.
unsafe fn server_spawn_nb(
    job_info: *const pmix_info_t,
    ninfo: usize,
    apps: *const pmix_app_t,
    napps: usize,
    cbfunc: pmix_spawn_cbfunc_t,
    cbdata: *mut c_void,
) -> Result<(), Status> {
    let done = spawn_callback(cbfunc, cbdata);
    // SAFETY: the caller's contract.
    unsafe { server_spawn_start(job_info, ninfo, apps, napps, done) }
}
