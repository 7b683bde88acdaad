//! The client API of `pmix.h`: init/finalize, key-value exchange, fences,
//! publish/lookup, spawn, connect, events, queries, logging, job control,
//! monitoring, credentials, groups, fabric, and the topology helpers.
//!
//! Until the client (issue #4) lands, the library is never initialized:
//! every entry point that needs a connection to a server returns
//! `PMIX_ERR_INIT`, exactly as OpenPMIx 4.2.2 does before `PMIx_Init`
//! (its checks of the initialization state come before its checks of the
//! arguments, so ours do too). Non-blocking variants return that status and
//! never call their callback. `PMIx_Init` itself honestly reports
//! `PMIX_ERR_NOT_SUPPORTED`.
//!
//! Struct pointers are typed `*const c_void` / `*mut c_void` here: every C
//! object pointer has the same ABI, and these functions do not look inside.
//! Callback pointers that are never called are typed the same way.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicI32, Ordering};

use pmix_core::Status;

use crate::boundary::guard;
use crate::nonnull;

/// How many times the library has been initialized (as a client, a server
/// or a tool) and not finalized. Nothing sets it yet: the control plane of
/// issue #4 will.
pub(crate) static INIT_COUNT: AtomicI32 = AtomicI32::new(0);

/// True once `PMIx_Init`, `PMIx_tool_init` or `PMIx_server_init` has
/// succeeded (and not been undone by its finalize).
pub(crate) fn initialized() -> bool {
    INIT_COUNT.load(Ordering::Acquire) > 0
}

/// `Err(PMIX_ERR_INIT)` unless the library is initialized.
pub(crate) fn require_init() -> Result<(), Status> {
    if initialized() {
        Ok(())
    } else {
        Err(Status::ERR_INIT)
    }
}

/// `Err(PMIX_ERR_BAD_PARAM)` for a NULL array with a nonzero count.
pub(crate) fn check_array<T>(p: *const T, n: usize) -> Result<(), Status> {
    if n > 0 && p.is_null() {
        Err(Status::ERR_BAD_PARAM)
    } else {
        Ok(())
    }
}

/// What a stub returns once its checks pass: the operation itself is not
/// implemented yet.
pub(crate) fn unsupported() -> Result<(), Status> {
    Err(Status::ERR_NOT_SUPPORTED)
}

// ---------------------------------------------------------------------------
// Initialization

/// `PMIx_Init`: not supported yet (no client connection).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Init(proc_: *mut c_void, info: *mut c_void, ninfo: usize) -> c_int {
    let _ = proc_;
    guard(|| {
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Initialized`: false until the client exists.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Initialized() -> c_int {
    crate::boundary::guard_or(0, || c_int::from(initialized()))
}

/// `PMIx_Finalize`: like OpenPMIx, finalizing a library that is not
/// initialized is a successful no-op.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Finalize(info: *const c_void, ninfo: usize) -> c_int {
    guard(|| {
        if !initialized() {
            return Ok(());
        }
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Abort`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Abort(
    status: c_int,
    msg: *const c_char,
    procs: *mut c_void,
    nprocs: usize,
) -> c_int {
    let _ = (status, msg);
    guard(|| {
        require_init()?;
        check_array(procs, nprocs)?;
        unsupported()
    })
}

/// `PMIx_Progress`: nothing to progress without a connection.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Progress() {}

// ---------------------------------------------------------------------------
// Key-value exchange

/// `PMIx_Put`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Put(scope: u8, key: *const c_char, val: *mut c_void) -> c_int {
    let _ = scope;
    guard(|| {
        require_init()?;
        nonnull!(key, val);
        unsupported()
    })
}

/// `PMIx_Commit`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Commit() -> c_int {
    guard(|| {
        require_init()?;
        unsupported()
    })
}

/// `PMIx_Fence`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence(
    procs: *const c_void,
    nprocs: usize,
    info: *const c_void,
    ninfo: usize,
) -> c_int {
    guard(|| {
        require_init()?;
        check_array(procs, nprocs)?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Fence_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence_nb(
    procs: *const c_void,
    nprocs: usize,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(procs, nprocs)?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Get`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get(
    proc_: *const c_void,
    key: *const c_char,
    info: *const c_void,
    ninfo: usize,
    val: *mut *mut c_void,
) -> c_int {
    let _ = (proc_, key);
    guard(|| {
        require_init()?;
        nonnull!(val);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Get_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_nb(
    proc_: *const c_void,
    key: *const c_char,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (proc_, key, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(cbfunc);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Store_internal`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Store_internal(
    proc_: *const c_void,
    key: *const c_char,
    val: *mut c_void,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(proc_, key, val);
        unsupported()
    })
}

/// `PMIx_Resolve_peers`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_peers(
    nodename: *const c_char,
    nspace: *const c_char,
    procs: *mut *mut c_void,
    nprocs: *mut usize,
) -> c_int {
    let _ = (nodename, nspace);
    guard(|| {
        require_init()?;
        nonnull!(procs, nprocs);
        unsupported()
    })
}

/// `PMIx_Resolve_nodes`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_nodes(
    nspace: *const c_char,
    nodelist: *mut *mut c_char,
) -> c_int {
    let _ = nspace;
    guard(|| {
        require_init()?;
        nonnull!(nodelist);
        unsupported()
    })
}

// ---------------------------------------------------------------------------
// Publish / lookup

/// `PMIx_Publish`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Publish(info: *const c_void, ninfo: usize) -> c_int {
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Publish_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Publish_nb(
    info: *const c_void,
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

/// `PMIx_Lookup`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Lookup(
    data: *mut c_void,
    ndata: usize,
    info: *const c_void,
    ninfo: usize,
) -> c_int {
    guard(|| {
        require_init()?;
        check_array(data, ndata)?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Lookup_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Lookup_nb(
    keys: *mut *mut c_char,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(keys);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Unpublish`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Unpublish(
    keys: *mut *mut c_char,
    info: *const c_void,
    ninfo: usize,
) -> c_int {
    let _ = keys;
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Unpublish_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Unpublish_nb(
    keys: *mut *mut c_char,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (keys, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

// ---------------------------------------------------------------------------
// Spawn, connect, disconnect

/// `PMIx_Spawn`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Spawn(
    job_info: *const c_void,
    ninfo: usize,
    apps: *const c_void,
    napps: usize,
    nspace: *mut c_char,
) -> c_int {
    let _ = nspace;
    guard(|| {
        require_init()?;
        check_array(job_info, ninfo)?;
        nonnull!(apps);
        check_array(apps, napps)?;
        unsupported()
    })
}

/// `PMIx_Spawn_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Spawn_nb(
    job_info: *const c_void,
    ninfo: usize,
    apps: *const c_void,
    napps: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(job_info, ninfo)?;
        nonnull!(apps);
        check_array(apps, napps)?;
        unsupported()
    })
}

/// `PMIx_Connect`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect(
    procs: *const c_void,
    nprocs: usize,
    info: *const c_void,
    ninfo: usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(procs);
        check_array(info, ninfo)?;
        let _ = nprocs;
        unsupported()
    })
}

/// `PMIx_Connect_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect_nb(
    procs: *const c_void,
    nprocs: usize,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (nprocs, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(procs);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Disconnect`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect(
    procs: *const c_void,
    nprocs: usize,
    info: *const c_void,
    ninfo: usize,
) -> c_int {
    let _ = nprocs;
    guard(|| {
        require_init()?;
        nonnull!(procs);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Disconnect_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect_nb(
    procs: *const c_void,
    nprocs: usize,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (nprocs, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(procs);
        check_array(info, ninfo)?;
        unsupported()
    })
}

// ---------------------------------------------------------------------------
// Events

/// `PMIx_Register_event_handler`. OpenPMIx reports a failure to register
/// through the return value, not the registration callback, when it is
/// not initialized; so do we.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Register_event_handler(
    codes: *mut c_int,
    ncodes: usize,
    info: *mut c_void,
    ninfo: usize,
    evhdlr: *const c_void,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(codes, ncodes)?;
        check_array(info, ninfo)?;
        nonnull!(evhdlr);
        unsupported()
    })
}

/// `PMIx_Deregister_event_handler`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Deregister_event_handler(
    evhdlr_ref: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (evhdlr_ref, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        unsupported()
    })
}

/// `PMIx_Notify_event`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Notify_event(
    status: c_int,
    source: *const c_void,
    range: u8,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (status, source, range, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

// ---------------------------------------------------------------------------
// Queries, logging, allocation, job control, monitoring

/// `PMIx_Query_info`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_info(
    queries: *mut c_void,
    nqueries: usize,
    results: *mut *mut c_void,
    nresults: *mut usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(queries, results, nresults);
        let _ = nqueries;
        unsupported()
    })
}

/// `PMIx_Query_info_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_info_nb(
    queries: *mut c_void,
    nqueries: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (nqueries, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(queries, cbfunc);
        unsupported()
    })
}

/// `PMIx_Log`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Log(
    data: *const c_void,
    ndata: usize,
    directives: *const c_void,
    ndirs: usize,
) -> c_int {
    guard(|| {
        require_init()?;
        check_array(data, ndata)?;
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_Log_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Log_nb(
    data: *const c_void,
    ndata: usize,
    directives: *const c_void,
    ndirs: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(data, ndata)?;
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_Allocation_request`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Allocation_request(
    directive: u8,
    info: *mut c_void,
    ninfo: usize,
    results: *mut *mut c_void,
    nresults: *mut usize,
) -> c_int {
    let _ = directive;
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        nonnull!(results, nresults);
        unsupported()
    })
}

/// `PMIx_Allocation_request_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Allocation_request_nb(
    directive: u8,
    info: *mut c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (directive, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Job_control`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_control(
    targets: *const c_void,
    ntargets: usize,
    directives: *const c_void,
    ndirs: usize,
    results: *mut *mut c_void,
    nresults: *mut usize,
) -> c_int {
    guard(|| {
        require_init()?;
        check_array(targets, ntargets)?;
        check_array(directives, ndirs)?;
        nonnull!(results, nresults);
        unsupported()
    })
}

/// `PMIx_Job_control_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_control_nb(
    targets: *const c_void,
    ntargets: usize,
    directives: *const c_void,
    ndirs: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(targets, ntargets)?;
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_Process_monitor`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Process_monitor(
    monitor: *const c_void,
    error: c_int,
    directives: *const c_void,
    ndirs: usize,
    results: *mut *mut c_void,
    nresults: *mut usize,
) -> c_int {
    let _ = error;
    guard(|| {
        require_init()?;
        nonnull!(monitor, results, nresults);
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_Process_monitor_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Process_monitor_nb(
    monitor: *const c_void,
    error: c_int,
    directives: *const c_void,
    ndirs: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (error, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(monitor);
        check_array(directives, ndirs)?;
        unsupported()
    })
}

// ---------------------------------------------------------------------------
// Credentials

/// `PMIx_Get_credential`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_credential(
    info: *const c_void,
    ninfo: usize,
    credential: *mut c_void,
) -> c_int {
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        nonnull!(credential);
        unsupported()
    })
}

/// `PMIx_Get_credential_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_credential_nb(
    info: *const c_void,
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

/// `PMIx_Validate_credential`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Validate_credential(
    cred: *const c_void,
    info: *const c_void,
    ninfo: usize,
    results: *mut *mut c_void,
    nresults: *mut usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(cred, results, nresults);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Validate_credential_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Validate_credential_nb(
    cred: *const c_void,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(cred);
        check_array(info, ninfo)?;
        unsupported()
    })
}

// ---------------------------------------------------------------------------
// Groups

/// `PMIx_Group_construct`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct(
    grp: *const c_char,
    procs: *const c_void,
    nprocs: usize,
    directives: *const c_void,
    ndirs: usize,
    results: *mut *mut c_void,
    nresults: *mut usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(grp, procs, results, nresults);
        check_array(procs, nprocs)?;
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_Group_construct_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct_nb(
    grp: *const c_char,
    procs: *const c_void,
    nprocs: usize,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(grp, procs);
        check_array(procs, nprocs)?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_destruct`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct(
    grp: *const c_char,
    info: *const c_void,
    ninfo: usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(grp);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_destruct_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct_nb(
    grp: *const c_char,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(grp);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_invite`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite(
    grp: *const c_char,
    procs: *const c_void,
    nprocs: usize,
    info: *const c_void,
    ninfo: usize,
    results: *mut *mut c_void,
    nresult: *mut usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(grp, procs, results, nresult);
        check_array(procs, nprocs)?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_invite_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite_nb(
    grp: *const c_char,
    procs: *const c_void,
    nprocs: usize,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(grp, procs);
        check_array(procs, nprocs)?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_join`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join(
    grp: *const c_char,
    leader: *const c_void,
    opt: c_int,
    info: *const c_void,
    ninfo: usize,
    results: *mut *mut c_void,
    nresult: *mut usize,
) -> c_int {
    let _ = opt;
    guard(|| {
        require_init()?;
        nonnull!(grp, leader, results, nresult);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_join_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join_nb(
    grp: *const c_char,
    leader: *const c_void,
    opt: c_int,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (opt, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(grp, leader);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_leave`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave(
    grp: *const c_char,
    info: *const c_void,
    ninfo: usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(grp);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_leave_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave_nb(
    grp: *const c_char,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(grp);
        check_array(info, ninfo)?;
        unsupported()
    })
}

// ---------------------------------------------------------------------------
// Fabric

/// `PMIx_Fabric_register`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register(
    fabric: *mut c_void,
    directives: *const c_void,
    ndirs: usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(fabric);
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_Fabric_register_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register_nb(
    fabric: *mut c_void,
    directives: *const c_void,
    ndirs: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(fabric);
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_Fabric_update`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update(fabric: *mut c_void) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(fabric);
        unsupported()
    })
}

/// `PMIx_Fabric_update_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update_nb(
    fabric: *mut c_void,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(fabric);
        unsupported()
    })
}

/// `PMIx_Fabric_deregister`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister(fabric: *mut c_void) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(fabric);
        unsupported()
    })
}

/// `PMIx_Fabric_deregister_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister_nb(
    fabric: *mut c_void,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(fabric);
        unsupported()
    })
}

// ---------------------------------------------------------------------------
// Topology

/// `PMIx_Compute_distances`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances(
    topo: *mut c_void,
    cpuset: *mut c_void,
    info: *mut c_void,
    ninfo: usize,
    distances: *mut *mut c_void,
    ndist: *mut usize,
) -> c_int {
    let _ = (topo, cpuset);
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        nonnull!(distances, ndist);
        unsupported()
    })
}

/// `PMIx_Compute_distances_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances_nb(
    topo: *mut c_void,
    cpuset: *mut c_void,
    info: *mut c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (topo, cpuset, cbdata);
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        nonnull!(cbfunc);
        unsupported()
    })
}
