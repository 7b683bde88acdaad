//! The server API of `pmix_server.h`.
//!
//! `PMIx_server_init` starts [`pmix_core::server::Server`] with the host's
//! `pmix_server_module_t` bridged as its host module
//! ([`crate::api::server_module`]); registration, `setup_fork`, direct
//! modex requests and the application/local-support setup wrap the
//! server's API. Before `PMIx_server_init`, every entry point that needs a
//! running server returns `PMIX_ERR_INIT` (checked before the arguments),
//! as OpenPMIx 4.2.2 does; the two `void` deregistration calls report that
//! status through their callback (a caller waiting on it must not hang).
//!
//! `PMIx_server_register_resources` keeps its infos for the namespaces
//! registered afterwards (see `pmix_core::server::Server::register_resources`).
//!
//! Not implemented yet (`PMIX_ERR_NOT_SUPPORTED` once initialized, in
//! [`crate::api::stubs`]): inventory.
//!
//! The helpers that need no server (regex and ppn generation, cpuset and
//! locality strings) live in [`crate::api::regex`] and
//! [`crate::api::locality`].
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
//!
//! Invariant: the running server and its objects belong to `state`; this
//! module only checks and converts arguments and results.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void};
use std::sync::Arc;

use pmix_core::server::{Server, ServerConfig};
use pmix_core::{Info, Status};

use crate::api::args::{infos_in, key_str, nspace_in, procs_in};
use crate::api::server_module::CHost;
use crate::api::state::{server, ServerInit, ServerObjects};
use crate::boundary::{guard, report_later, SendPtr};
use crate::convert;
use crate::nonnull;
use crate::sys::{
    pmix_info_t, pmix_op_cbfunc_t, pmix_proc_t, pmix_server_module_t, DmodexResponseFn,
};

/// `pmix_op_cbfunc_t`.
type OpCbFunc = pmix_op_cbfunc_t;

/// Reports `status` through an optional `pmix_op_cbfunc_t`.
///
/// # Safety
/// `cbfunc`, if set, must be a valid callback accepting `cbdata`.
unsafe fn report(cbfunc: OpCbFunc, status: Status, cbdata: *mut c_void) {
    if let Some(f) = cbfunc {
        // SAFETY: the caller passed a callback of this C type, which takes
        // the cbdata it gave us back.
        unsafe { f(status.0, cbdata) };
    }
}

/// `PMIx_server_init`: starts the server (rendezvous socket and progress
/// thread) with the host's module. Understands what
/// `ServerConfig::from_infos` reads (`PMIX_SERVER_NSPACE`,
/// `PMIX_SERVER_RANK`, `PMIX_SERVER_TMPDIR`, `PMIX_SYSTEM_TMPDIR`,
/// `PMIX_HOSTNAME`, `PMIX_TCP_REPORT_URI`, `PMIX_IOF_LOCAL_OUTPUT`, ...).
/// Without `PMIX_IOF_LOCAL_OUTPUT`, delivered output is written to this
/// process's stdout/stderr unless a parent tool takes it
/// (`PMIX_LAUNCHER_RNDZ_URI` or `PMIX_KEEPALIVE_PIPE` in the
/// environment), OpenPMIx's default. Repeated calls are counted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_init(
    module: *mut pmix_server_module_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        let mut init = ServerInit::lock();
        if init.again() {
            return Ok(());
        }
        let objects = Arc::new(ServerObjects::default());
        // SAFETY: module is NULL or a valid module of 4.2.2's size at
        // least (C contract).
        let host = Arc::new(unsafe { CHost::new(module, objects.clone()) });
        let mut config = ServerConfig {
            locality: Some(super::locality::locality_of_list),
            device_distances: Some(super::distances::distances_of_list),
            stock_door: true,
            ..ServerConfig::from_infos(&infos)?
        };
        if config.local_output.is_none() {
            let parent_tool = ["PMIX_LAUNCHER_RNDZ_URI", "PMIX_KEEPALIVE_PIPE"]
                .iter()
                .any(|v| std::env::var_os(v).is_some());
            config.local_output = Some(!parent_tool);
        }
        init.publish(Server::start(config, host)?, objects);
        pmix_core::strings::note_init();
        Ok(())
    })
}

/// `PMIx_server_finalize`: the last counted call stops the server,
/// closing every client connection.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_finalize() -> c_int {
    guard(|| {
        let running = ServerInit::lock().release()?;
        pmix_core::strings::note_finalize();
        if let Some(r) = running {
            pmix_core::attributes::clear_host();
            // The last holder stops the server (an in-flight call may still
            // hold a clone for a moment).
            if let Ok(r) = Arc::try_unwrap(r) {
                r.server.finalize();
            }
        }
        Ok(())
    })
}

/// `PMIx_server_register_nspace`: builds the namespace's job data. With a
/// callback, returns `PMIX_SUCCESS` and reports the result through it
/// (from another thread); without, returns the result.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_nspace(
    nspace: *const c_char,
    nlocalprocs: c_int,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbfunc: OpCbFunc,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let s = server()?;
        nonnull!(nspace);
        let nlocal = u32::try_from(nlocalprocs).map_err(|_| Status::ERR_BAD_PARAM)?;
        // SAFETY: valid string and info array (C contract).
        let (ns, infos) = unsafe { (nspace_in(nspace)?, infos_in(info, ninfo)?) };
        answer(
            s.server.register_nspace(&ns, nlocal, &infos),
            cbfunc,
            cbdata,
        )
    })
}

/// A registration's outcome: returned when there is no callback, else
/// given to the callback from another thread (and the call succeeds).
fn answer(r: Result<(), Status>, cbfunc: OpCbFunc, cbdata: *mut c_void) -> Result<(), Status> {
    if cbfunc.is_none() {
        return r;
    }
    report_later(cbfunc, r.err().unwrap_or(Status::SUCCESS), cbdata);
    Ok(())
}

/// A deregistration's outcome (`status`, the call returns nothing): to the
/// callback, from another thread when it succeeded.
fn answer_void(status: c_int, cbfunc: OpCbFunc, cbdata: *mut c_void) {
    if status == Status::SUCCESS.0 {
        report_later(cbfunc, Status(status), cbdata);
    } else {
        // SAFETY: the C caller hands us a valid callback (or NULL).
        crate::boundary::guard_or((), || unsafe { report(cbfunc, Status(status), cbdata) });
    }
}

/// `PMIx_server_deregister_nspace`: returns nothing, so every outcome
/// goes to the callback.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_nspace(
    nspace: *const c_char,
    cbfunc: OpCbFunc,
    cbdata: *mut c_void,
) {
    let status = guard(|| {
        let s = server()?;
        nonnull!(nspace);
        // SAFETY: a valid string (C contract).
        let ns = unsafe { nspace_in(nspace) }?;
        s.server.deregister_nspace(&ns);
        s.objects.remove_nspace(&ns);
        Ok(())
    });
    answer_void(status, cbfunc, cbdata);
}

/// `PMIx_server_register_client`: the process and the uid/gid it will run
/// as (its connection is accepted only from them). `server_object` is
/// handed back in the upcalls about this client.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_client(
    proc_: *const pmix_proc_t,
    uid: libc::uid_t,
    gid: libc::gid_t,
    server_object: *mut c_void,
    cbfunc: OpCbFunc,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let s = server()?;
        nonnull!(proc_);
        // SAFETY: a valid proc (C contract, checked non-NULL).
        let p = convert::proc_from_c(unsafe { &*proc_ });
        let r = s.server.register_client(&p, uid, gid);
        if r.is_ok() {
            s.objects.set(&p, server_object);
        }
        answer(r, cbfunc, cbdata)
    })
}

/// `PMIx_server_deregister_client`: returns nothing, so every outcome
/// goes to the callback.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_client(
    proc_: *const pmix_proc_t,
    cbfunc: OpCbFunc,
    cbdata: *mut c_void,
) {
    let status = guard(|| {
        let s = server()?;
        nonnull!(proc_);
        // SAFETY: a valid proc (C contract, checked non-NULL).
        let p = convert::proc_from_c(unsafe { &*proc_ });
        s.server.deregister_client(&p);
        s.objects.remove(&p);
        Ok(())
    });
    answer_void(status, cbfunc, cbdata);
}

/// `PMIx_server_setup_fork`: adds the variables the child that will be
/// `proc` needs (server URI, namespace, rank, secret, ...) to `*env`, then
/// applies the environment directives `PMIx_server_setup_local_support`
/// kept for its namespace.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_fork(
    proc_: *const pmix_proc_t,
    env: *mut *mut *mut c_char,
) -> c_int {
    guard(|| {
        let s = server()?;
        nonnull!(proc_, env);
        // SAFETY: a valid proc (C contract, checked non-NULL).
        let p = convert::proc_from_c(unsafe { &*proc_ });
        // SAFETY: env is a valid environment array (C contract).
        unsafe { crate::api::app_setup::setup_fork_into(&s.server, &p, env) }
    })
}

/// `PMIx_server_dmodex_request`: the data a local process posted, for
/// the host to forward; `cbfunc` runs on the progress thread once the
/// process committed, with a blob valid for the callback's duration.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_dmodex_request(
    proc_: *const pmix_proc_t,
    cbfunc: DmodexResponseFn,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let s = server()?;
        nonnull!(proc_);
        let f = cbfunc.ok_or(Status::ERR_BAD_PARAM)?;
        // SAFETY: a valid proc (C contract, checked non-NULL).
        let p = convert::proc_from_c(unsafe { &*proc_ });
        let data = SendPtr(cbdata);
        s.server.dmodex_request(
            &p,
            Box::new(move |r| {
                let data = data;
                crate::boundary::guard_or((), || {
                    let (status, mut blob) = match r {
                        Ok(b) => (Status::SUCCESS, b),
                        Err(e) => (e, Vec::new()),
                    };
                    let ptr = if blob.is_empty() {
                        std::ptr::null_mut()
                    } else {
                        blob.as_mut_ptr().cast()
                    };
                    // SAFETY: the host's callback; the blob lives until it
                    // returns.
                    unsafe { f(status.0, ptr, blob.len(), data.0) };
                })
            }),
        )
    })
}

/// `PMIx_server_define_process_set`: defines (or redefines) the process
/// set `pset_name` of `members` and sends `PMIX_PROCESS_SET_DEFINE` to
/// every connected local client (see `pmix_core::server::Server::define_process_set`).
/// Returns `PMIX_SUCCESS` once the set is recorded and the events queued
/// (a deliberate difference: OpenPMIx 4.2.2 returns
/// `PMIX_OPERATION_SUCCEEDED`). A NULL or empty name is
/// `PMIX_ERR_BAD_PARAM` (4.2.2 crashes on NULL).
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_define_process_set(
    members: *const pmix_proc_t,
    nmembers: usize,
    pset_name: *const c_char,
) -> c_int {
    guard(|| {
        let s = server()?;
        nonnull!(pset_name);
        // SAFETY: a valid string and proc array (C contract).
        let (name, procs) = unsafe { (key_str(pset_name)?, procs_in(members, nmembers)?) };
        s.server.define_process_set(name, procs)
    })
}

/// `PMIx_server_delete_process_set`: deletes the process set and sends
/// `PMIX_PROCESS_SET_DELETE` to every connected local client. Returns
/// `PMIX_SUCCESS` (4.2.2 returns an uninitialised value),
/// `PMIX_ERR_NOT_FOUND` for an unknown set, `PMIX_ERR_BAD_PARAM` for a
/// NULL or empty name.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_delete_process_set(pset_name: *mut c_char) -> c_int {
    guard(|| {
        let s = server()?;
        nonnull!(pset_name);
        // SAFETY: a valid string (C contract).
        let name = unsafe { key_str(pset_name)? };
        s.server.delete_process_set(name)
    })
}

/// `PMIx_server_register_resources`: keeps `info` for the namespaces
/// registered from now on, whose clients read each as job-level data
/// (OpenPMIx's server-wide data). With a callback, returns `PMIX_SUCCESS`
/// and reports through it (from another thread); without, returns
/// `PMIX_OPERATION_SUCCEEDED` (as OpenPMIx).
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_resources(
    info: *mut pmix_info_t,
    ninfo: usize,
    cbfunc: OpCbFunc,
    cbdata: *mut c_void,
) -> c_int {
    // SAFETY: info is NULL or ninfo valid infos (C contract).
    unsafe { resources_call(info, ninfo, cbfunc, cbdata, Server::register_resources) }
}

/// `PMIx_server_deregister_resources`: forgets the keys of `info` for the
/// namespaces registered from now on. Returns as
/// [`PMIx_server_register_resources`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_resources(
    info: *mut pmix_info_t,
    ninfo: usize,
    cbfunc: OpCbFunc,
    cbdata: *mut c_void,
) -> c_int {
    // SAFETY: as for `PMIx_server_register_resources`.
    unsafe { resources_call(info, ninfo, cbfunc, cbdata, Server::deregister_resources) }
}

/// The body of both resource calls: `apply` the infos to the server, then
/// report as a call done at once.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos.
unsafe fn resources_call(
    info: *mut pmix_info_t,
    ninfo: usize,
    cbfunc: OpCbFunc,
    cbdata: *mut c_void,
    apply: fn(&Server, &[Info]),
) -> c_int {
    guard(|| {
        crate::api::state::require_init()?;
        // SAFETY: the caller's contract.
        let infos = unsafe { infos_in(info, ninfo) }?;
        apply(&server()?.server, &infos);
        answer_done(cbfunc, cbdata)
    })
}

/// A call done at once: reported to the callback (from another thread),
/// else `PMIX_OPERATION_SUCCEEDED`.
pub(crate) fn answer_done(cbfunc: OpCbFunc, cbdata: *mut c_void) -> Result<(), Status> {
    if cbfunc.is_none() {
        return Err(Status::OPERATION_SUCCEEDED);
    }
    report_later(cbfunc, Status::SUCCESS, cbdata);
    Ok(())
}
