//! The tool API of `pmix_tool.h` (and the deprecated
//! `PMIx_tool_connect_to_server`), plus the IOF calls it declares.
//!
//! Until the tool (no issue yet) lands, `PMIx_tool_init` honestly reports
//! `PMIX_ERR_NOT_SUPPORTED` and everything needing a connection returns
//! `PMIX_ERR_INIT`, as OpenPMIx 4.2.2 does before initialization.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_int, c_void};

use crate::api::client::{check_array, initialized, require_init, unsupported};
use crate::boundary::guard;
use crate::nonnull;

/// `PMIx_tool_init`: not supported yet. A NULL `proc` is refused first, as
/// OpenPMIx does.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_init(
    proc_: *mut c_void,
    info: *mut c_void,
    ninfo: usize,
) -> c_int {
    guard(|| {
        nonnull!(proc_);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_tool_finalize`: like OpenPMIx, finalizing a library that is not
/// initialized is a successful no-op.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_finalize() -> c_int {
    guard(|| if initialized() { unsupported() } else { Ok(()) })
}

/// `PMIx_tool_disconnect`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_disconnect(server: *const c_void) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(server);
        unsupported()
    })
}

/// `PMIx_tool_attach_to_server`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_attach_to_server(
    myproc: *mut c_void,
    server: *mut c_void,
    info: *mut c_void,
    ninfo: usize,
) -> c_int {
    let _ = (myproc, server);
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_tool_connect_to_server` (deprecated form of
/// `PMIx_tool_attach_to_server`).
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_connect_to_server(
    proc_: *mut c_void,
    info: *mut c_void,
    ninfo: usize,
) -> c_int {
    let _ = proc_;
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_tool_get_servers`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_get_servers(
    servers: *mut *mut c_void,
    nservers: *mut usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(servers, nservers);
        unsupported()
    })
}

/// `PMIx_tool_set_server`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_set_server(
    server: *const c_void,
    info: *mut c_void,
    ninfo: usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(server);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_IOF_pull`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_pull(
    procs: *const c_void,
    nprocs: usize,
    directives: *const c_void,
    ndirs: usize,
    channel: u16,
    cbfunc: *const c_void,
    regcbfunc: *const c_void,
    regcbdata: *mut c_void,
) -> c_int {
    let _ = (channel, cbfunc, regcbfunc, regcbdata);
    guard(|| {
        require_init()?;
        check_array(procs, nprocs)?;
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_IOF_deregister`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_deregister(
    iofhdlr: usize,
    directives: *const c_void,
    ndirs: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (iofhdlr, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_IOF_push`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_push(
    targets: *const c_void,
    ntargets: usize,
    bo: *mut c_void,
    directives: *const c_void,
    ndirs: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (bo, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        check_array(targets, ntargets)?;
        check_array(directives, ndirs)?;
        unsupported()
    })
}
