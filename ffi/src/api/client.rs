//! The client API of `pmix.h` that is the client's own: init/finalize,
//! abort, progress, put/commit/fences, `PMIx_Store_internal` and the
//! job-layout queries (`PMIx_Resolve_peers`, `PMIx_Resolve_nodes`). The
//! rest of the client API has its own modules: gets in
//! [`crate::api::get`], publish/lookup in [`crate::api::pubsub`], spawn
//! and connect/disconnect in [`crate::api::spawn`], events in
//! [`crate::api::events`], queries, logging, job control, monitoring,
//! allocation and credentials in [`crate::api::query`], what is not
//! implemented yet in [`crate::api::stubs`].
//!
//! Invariants: each entry point wraps [`pmix_core::client::Client`],
//! found through [`crate::api::state`] without a lock; init and finalize
//! are counted and serialized there. Non-blocking callbacks run on the
//! client's progress thread.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr::null_mut;

use pmix_core::client::{Client, Scope};
use pmix_core::{Nspace, Status};

use crate::api::args::{check_array, infos_in, key_str, procs_in, target, target_or};
use crate::api::pointer_cache;
use crate::api::serving::{self, client, Serving};
use crate::api::state::{self, initialized, ClientInit};
use crate::boundary::{calloc_array, guard, malloc_cstr, op_callback};
use crate::convert;
use crate::nonnull;
use crate::sys::{pmix_info_t, pmix_op_cbfunc_t, pmix_proc_t, pmix_value_t};

// ---------------------------------------------------------------------------
// Initialization

/// `PMIx_Init`: connects to the server named by the environment (set by
/// the server's `PMIx_server_setup_fork`). Repeated calls are counted and
/// return the same identity. Without a server in the environment the
/// process becomes a singleton (`pmix_core::client::Client::singleton`):
/// the library is initialized and `proc` filled, and every call returns
/// `PMIX_ERR_UNREACH`, as OpenPMIx 4.2 does.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Init(
    proc_: *mut pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        let init = ClientInit::lock();
        let c = match init.again() {
            Some(c) => c,
            None => init.publish(Client::init(&infos)?),
        };
        pmix_core::strings::note_init();
        // As in OpenPMIx, an announcement that cannot be made does not fail
        // the init.
        let _ = c.declare_model(&infos);
        if !proc_.is_null() {
            // SAFETY: non-NULL out-parameter, writable per the contract.
            unsafe { proc_.write(convert::proc_to_c(c.proc())) };
        }
        // A singleton is initialized, but told (as OpenPMIx 4.2 tells it at
        // every init, and Open MPI and MPICH expect) that no server is
        // reachable.
        if c.is_singleton() {
            return Err(Status::ERR_UNREACH);
        }
        Ok(())
    })
}

/// `PMIx_Initialized`: true between `PMIx_Init` (or a server or tool
/// init) and its finalize.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Initialized() -> c_int {
    crate::boundary::guard_or(0, || c_int::from(initialized()))
}

/// `PMIx_Finalize`: the last of the counted calls tells the server this
/// process is done and closes the connection. Finalizing a library that
/// is not initialized is a successful no-op, as in OpenPMIx.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Finalize(info: *const pmix_info_t, ninfo: usize) -> c_int {
    guard(|| {
        let init = ClientInit::lock();
        if client().is_err() {
            return Ok(());
        }
        check_array(info, ninfo)?;
        pmix_core::strings::note_finalize();
        let Some(c) = init.release() else {
            return Ok(());
        };
        let r = c.finalize();
        pointer_cache::clear();
        r
    })
}

/// `PMIx_Abort`: asks the host to abort `procs` (none: this namespace).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Abort(
    status: c_int,
    msg: *const c_char,
    procs: *const pmix_proc_t,
    nprocs: usize,
) -> c_int {
    guard(|| {
        let c = client()?;
        // SAFETY: procs is NULL or nprocs valid procs (C contract).
        let procs = unsafe { procs_in(procs, nprocs) }?;
        // SAFETY: msg is NULL or a valid string (C contract).
        let msg = unsafe { crate::boundary::opt_cstr(msg) }.map(|m| m.to_string_lossy());
        c.abort(Status(status), msg.as_deref(), &procs)
    })
}

/// `PMIx_Progress`: the library has its own progress thread; nothing to
/// do.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Progress() {}

// ---------------------------------------------------------------------------
// Key-value exchange

/// `PMIx_Put`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Put(scope: u8, key: *const c_char, val: *mut pmix_value_t) -> c_int {
    guard(|| {
        let c = client()?;
        nonnull!(key, val);
        let scope = Scope::from_raw(scope).ok_or(Status::ERR_BAD_PARAM)?;
        // SAFETY: key is a valid string (C contract, checked non-NULL).
        let key = unsafe { key_str(key) }?;
        // SAFETY: val is a valid value (C contract, checked non-NULL).
        let v = unsafe { convert::value_from_c(val) }?;
        c.put(scope, key, v)
    })
}

/// `PMIx_Commit`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Commit() -> c_int {
    guard(|| client()?.commit())
}

/// `PMIx_Fence`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        let c = client()?;
        // SAFETY: arrays are NULL or valid for their counts (C contract).
        let (procs, infos) = unsafe { (procs_in(procs, nprocs)?, infos_in(info, ninfo)?) };
        c.fence(&procs, &infos)
    })
}

/// `PMIx_Fence_nb`: `cbfunc` runs on the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence_nb(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let c = client()?;
        // SAFETY: arrays are NULL or valid for their counts (C contract).
        let (procs, infos) = unsafe { (procs_in(procs, nprocs)?, infos_in(info, ninfo)?) };
        c.fence_nb(&procs, &infos, op_callback(cbfunc, cbdata))
    })
}

/// `PMIx_Store_internal`: in a client, its internal store; in a server
/// process (`PMIx_server_init` without `PMIx_Init`, as Open MPI's `mpirun`
/// storing its URI), the server process's own store
/// ([`pmix_core::server::own_store`]), which its `PMIx_Get` reads.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Store_internal(
    proc_: *const pmix_proc_t,
    key: *const c_char,
    val: *mut pmix_value_t,
) -> c_int {
    guard(|| {
        let c = match serving::serving(true) {
            Ok(Serving::Client(c)) => c,
            Ok(Serving::Server) => {
                let s = state::server()?;
                nonnull!(key, val);
                // SAFETY: proc_ NULL or valid, key a valid string, val a
                // valid value (C contract, checked non-NULL).
                let (p, k, v) = unsafe {
                    (
                        target_or(&s.server.proc(), proc_),
                        crate::api::args::one_key(key)?,
                        convert::value_from_c(val)?,
                    )
                };
                s.own.store(p, k, v);
                return Ok(());
            }
            Err(_) => return Err(Status::ERR_INIT),
        };
        nonnull!(proc_, key, val);
        // SAFETY: all three are valid (C contract, checked non-NULL).
        let (proc, key, v) =
            unsafe { (target(c, proc_), key_str(key)?, convert::value_from_c(val)?) };
        c.store_internal(&proc, key, v)
    })
}

/// `PMIx_Resolve_peers`: a `calloc`ed array the caller releases with
/// `PMIX_PROC_FREE`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_peers(
    nodename: *const c_char,
    nspace: *const c_char,
    procs: *mut *mut pmix_proc_t,
    nprocs: *mut usize,
) -> c_int {
    guard(|| {
        let c = client()?;
        nonnull!(procs, nprocs);
        // SAFETY: writable out-parameters (C contract, checked non-NULL).
        unsafe {
            *procs = null_mut();
            *nprocs = 0;
        }
        // SAFETY: NULL or valid strings (C contract).
        let (node, ns) = unsafe {
            (
                crate::boundary::opt_cstr(nodename),
                crate::boundary::opt_cstr(nspace),
            )
        };
        let node = node.map(|n| n.to_string_lossy());
        let ns = ns.map(|n| Nspace::from_cstring(n.to_owned())).transpose()?;
        let peers = c.resolve_peers(node.as_deref(), ns.as_ref())?;
        let out = calloc_array::<pmix_proc_t>(peers.len())?;
        for (i, p) in peers.iter().enumerate() {
            // SAFETY: out holds peers.len() elements.
            unsafe { out.add(i).write(convert::proc_to_c(p)) };
        }
        // SAFETY: as above.
        unsafe {
            *procs = out;
            *nprocs = peers.len();
        }
        Ok(())
    })
}

/// `PMIx_Resolve_nodes`: a `malloc`ed comma-separated list.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_nodes(
    nspace: *const c_char,
    nodelist: *mut *mut c_char,
) -> c_int {
    guard(|| {
        let c = client()?;
        nonnull!(nodelist);
        // SAFETY: writable out-parameter (checked non-NULL).
        unsafe { *nodelist = null_mut() };
        // SAFETY: NULL or a valid string (C contract).
        let ns = unsafe { crate::boundary::opt_cstr(nspace) }
            .map(|n| Nspace::from_cstring(n.to_owned()))
            .transpose()?;
        let nodes = c.resolve_nodes(ns.as_ref())?;
        let list = CString::new(nodes.join(",")).map_err(|_| Status::ERR_BAD_PARAM)?;
        let p = malloc_cstr(&list)?;
        // SAFETY: as above.
        unsafe { *nodelist = p };
        Ok(())
    })
}
