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
//! Not implemented yet (`PMIX_ERR_NOT_SUPPORTED` once initialized): IOF
//! delivery, inventory, resources, process sets, attribute registration.
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
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, RwLock};

use pmix_core::server::{Server, ServerConfig};
use pmix_core::{Nspace, Status};

pub(crate) use crate::api::client::infos_in;
use crate::api::client::{check_array, require_init, unsupported, INIT_COUNT};
use crate::api::server_module::{pmix_server_module_t, CHost, ServerObjects};
pub(crate) use crate::boundary::SendPtr;
use crate::boundary::{guard, guard_or, malloc_cstr};
use crate::convert;
use crate::nonnull;
use crate::sys::{pmix_info_t, pmix_op_cbfunc_t, pmix_proc_t, pmix_release_cbfunc_t};

/// `pmix_op_cbfunc_t`.
type OpCbFunc = pmix_op_cbfunc_t;

// ---------------------------------------------------------------------------
// The process-global server

/// The running server and what the C layer keeps beside it.
pub(crate) struct Running {
    pub(crate) server: Server,
    pub(crate) objects: Arc<ServerObjects>,
}

/// The server, once `PMIx_server_init` succeeded. Not on any client hot
/// path: a read lock held only to clone the `Arc`.
static SERVER: RwLock<Option<Arc<Running>>> = RwLock::new(None);
/// Outstanding `PMIx_server_init` calls (OpenPMIx counts them).
static SERVER_REFS: Mutex<u32> = Mutex::new(0);

/// The running server, or `PMIX_ERR_INIT`.
pub(crate) fn server() -> Result<Arc<Running>, Status> {
    SERVER
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .ok_or(Status::ERR_INIT)
}

/// Calls the host's `release_fn` for data it handed a callback of ours,
/// once that callback has returned: from the server's progress thread, as
/// OpenPMIx does. Slurm 22.05 completes a fence while holding the lock its
/// release function takes, so calling it inside the callback deadlocks.
/// Without a running server there is no such thread: called at once.
pub(crate) fn release_later(release_fn: pmix_release_cbfunc_t, cbdata: *mut c_void) {
    let Some(f) = release_fn else {
        return;
    };
    let data = SendPtr(cbdata);
    let release: Box<dyn FnOnce() + Send> = Box::new(move || {
        let data = data;
        // SAFETY: the host's release function with its own cbdata, called
        // once; nothing unwinds out of it.
        guard_or((), || unsafe { f(data.0) });
    });
    let release = match server() {
        Ok(s) => match s.server.defer(release) {
            Ok(()) => return,
            Err(r) => r,
        },
        Err(_) => release,
    };
    release();
}

/// Runs `f` on the running core server (for the client calls a host
/// process may make itself: `PMIx_Query_info`, `PMIx_Log`).
pub(crate) fn with_server<R>(f: impl FnOnce(&Server) -> R) -> Result<R, Status> {
    Ok(f(&server()?.server))
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

/// Calls `cbfunc` with `status` from another thread, as OpenPMIx calls
/// it from its progress thread (a host may hold a lock its callback
/// takes while it calls us).
pub(crate) fn report_later(cbfunc: OpCbFunc, status: Status, cbdata: *mut c_void) {
    let Some(f) = cbfunc else { return };
    let data = SendPtr(cbdata);
    let run = move || {
        let data = data;
        // SAFETY: the host's callback with its own cbdata.
        crate::boundary::guard_or((), || unsafe { f(status.0, data.0) });
    };
    if std::thread::Builder::new()
        .name("pmix-server-cb".into())
        .spawn(run)
        .is_err()
    {
        // SAFETY: as above; no thread: call it here rather than never.
        crate::boundary::guard_or((), || unsafe { f(status.0, cbdata) });
    }
}

/// `PMIx_server_init`: starts the server (rendezvous socket and progress
/// thread) with the host's module. Understands `PMIX_SERVER_NSPACE`,
/// `PMIX_SERVER_RANK`, `PMIX_SERVER_TMPDIR`, `PMIX_SYSTEM_TMPDIR`,
/// `PMIX_HOSTNAME`. Repeated calls are counted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_init(
    module: *mut pmix_server_module_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        let mut refs = SERVER_REFS.lock().unwrap_or_else(|e| e.into_inner());
        if *refs > 0 {
            *refs += 1;
            return Ok(());
        }
        let module = if module.is_null() {
            pmix_server_module_t::default()
        } else {
            // SAFETY: non-NULL, a valid module (C contract); copied.
            unsafe { *module }
        };
        let objects = Arc::new(ServerObjects::default());
        let host = Arc::new(CHost {
            module,
            objects: objects.clone(),
        });
        let config = ServerConfig {
            locality: Some(super::locality::locality_of_list),
            ..ServerConfig::from_infos(&infos)?
        };
        let server = Server::start(config, host)?;
        *SERVER.write().unwrap_or_else(|e| e.into_inner()) =
            Some(Arc::new(Running { server, objects }));
        *refs = 1;
        INIT_COUNT.fetch_add(1, Ordering::AcqRel);
        pmix_core::strings::note_init();
        Ok(())
    })
}

/// `PMIx_server_finalize`: the last counted call stops the server,
/// closing every client connection.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_finalize() -> c_int {
    guard(|| {
        let mut refs = SERVER_REFS.lock().unwrap_or_else(|e| e.into_inner());
        if *refs == 0 {
            return Err(Status::ERR_INIT);
        }
        *refs -= 1;
        pmix_core::strings::note_finalize();
        if *refs > 0 {
            return Ok(());
        }
        let running = SERVER.write().unwrap_or_else(|e| e.into_inner()).take();
        crate::api::server_store::clear();
        INIT_COUNT.fetch_sub(1, Ordering::AcqRel);
        if let Some(r) = running {
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
        let r = s.server.register_nspace(&ns, nlocal, &infos);
        if cbfunc.is_none() {
            return r;
        }
        report_later(cbfunc, r.err().unwrap_or(Status::SUCCESS), cbdata);
        Ok(())
    })
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
    if status == Status::SUCCESS.0 {
        report_later(cbfunc, Status(status), cbdata);
    } else {
        // SAFETY: the C caller hands us a valid callback (or NULL).
        crate::boundary::guard_or((), || unsafe { report(cbfunc, Status(status), cbdata) });
    }
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
        if cbfunc.is_none() {
            return r;
        }
        report_later(cbfunc, r.err().unwrap_or(Status::SUCCESS), cbdata);
        Ok(())
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
    if status == Status::SUCCESS.0 {
        report_later(cbfunc, Status(status), cbdata);
    } else {
        // SAFETY: the C caller hands us a valid callback (or NULL).
        crate::boundary::guard_or((), || unsafe { report(cbfunc, Status(status), cbdata) });
    }
}

/// Sets `name=value` in an environment array as the header's
/// `pmix_setenv` does with overwrite: the process environment itself
/// through `setenv`, otherwise replacing an existing entry or appending a
/// `malloc`ed one (the array is `realloc`ed and stays NULL-terminated).
///
/// # Safety
/// `env` points to NULL, `environ`, or a `malloc`ed NULL-terminated array
/// of `malloc`ed strings.
pub(crate) unsafe fn setenv_in(
    env: *mut *mut *mut c_char,
    name: &str,
    value: &str,
) -> Result<(), Status> {
    let cname = CString::new(name).map_err(|_| Status::ERR_BAD_PARAM)?;
    let cvalue = CString::new(value).map_err(|_| Status::ERR_BAD_PARAM)?;
    extern "C" {
        static mut environ: *mut *mut c_char;
    }
    // SAFETY: env is valid (contract); reading environ's address only.
    let arr = unsafe { *env };
    // SAFETY: reading the pointer value of environ.
    if !arr.is_null() && arr == unsafe { environ } {
        // SAFETY: valid C strings.
        if unsafe { libc::setenv(cname.as_ptr(), cvalue.as_ptr(), 1) } != 0 {
            return Err(Status::ERR_NOMEM);
        }
        return Ok(());
    }
    let entry = CString::new(format!("{name}={value}")).map_err(|_| Status::ERR_BAD_PARAM)?;
    let prefix = format!("{name}=");
    let mut n = 0usize;
    if !arr.is_null() {
        loop {
            // SAFETY: the array is NULL-terminated (contract).
            let e = unsafe { *arr.add(n) };
            if e.is_null() {
                break;
            }
            // SAFETY: each entry is a valid string.
            if unsafe { CStr::from_ptr(e) }
                .to_bytes()
                .starts_with(prefix.as_bytes())
            {
                let new = malloc_cstr(&entry)?;
                // SAFETY: the old entry is malloc'd (contract); replaced.
                unsafe {
                    libc::free(e.cast());
                    *arr.add(n) = new;
                }
                return Ok(());
            }
            n += 1;
        }
    }
    let new = malloc_cstr(&entry)?;
    // SAFETY: arr is NULL or malloc'd (contract); grown to n + 2 slots.
    let grown = unsafe { libc::realloc(arr.cast(), (n + 2) * std::mem::size_of::<*mut c_char>()) }
        as *mut *mut c_char;
    if grown.is_null() {
        // SAFETY: new was malloc'd above and is unused.
        unsafe { libc::free(new.cast()) };
        return Err(Status::ERR_NOMEM);
    }
    // SAFETY: grown holds n + 2 slots; env is writable.
    unsafe {
        *grown.add(n) = new;
        *grown.add(n + 1) = std::ptr::null_mut();
        *env = grown;
    }
    Ok(())
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

/// `pmix_dmodex_response_fn_t`.
type DmodexResponseFn =
    Option<unsafe extern "C" fn(status: c_int, data: *mut c_char, sz: usize, cbdata: *mut c_void)>;

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

/// `PMIx_server_IOF_deliver`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_IOF_deliver(
    source: *const c_void,
    channel: u16,
    bo: *const c_void,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (channel, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(source, bo);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_server_collect_inventory`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_collect_inventory(
    directives: *mut c_void,
    ndirs: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_server_deliver_inventory`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deliver_inventory(
    info: *mut c_void,
    ninfo: usize,
    directives: *mut c_void,
    ndirs: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_server_register_resources`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_resources(
    info: *mut c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_server_deregister_resources`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_resources(
    info: *mut c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_server_define_process_set`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_define_process_set(
    members: *const c_void,
    nmembers: usize,
    pset_name: *const c_char,
) -> c_int {
    guard(|| {
        require_init()?;
        check_array(members, nmembers)?;
        nonnull!(pset_name);
        unsupported()
    })
}

/// `PMIx_server_delete_process_set`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_delete_process_set(pset_name: *mut c_char) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(pset_name);
        unsupported()
    })
}

/// `PMIx_Register_attributes` (declared in `pmix_server.h`: a host
/// registers the attributes its module functions support).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Register_attributes(
    function: *mut c_char,
    attrs: *mut *mut c_char,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(function, attrs);
        unsupported()
    })
}

/// This server's own process, when `PMIx_server_init` succeeded (for the
/// server process's store, [`crate::api::server_store`]).
pub(crate) fn server_proc() -> Option<pmix_core::Proc> {
    server().ok().map(|r| r.server.proc())
}
