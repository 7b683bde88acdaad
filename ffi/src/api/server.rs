//! The server API of `pmix_server.h`.
//!
//! Until the server (issue #4) lands, `PMIx_server_init` honestly reports
//! `PMIX_ERR_NOT_SUPPORTED` and every other entry point that needs a
//! running server returns `PMIX_ERR_INIT`, as OpenPMIx 4.2.2 does before
//! `PMIx_server_init`. The two `void` deregistration calls report that
//! status through their callback, as OpenPMIx does (a caller waiting on the
//! callback must not hang).
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

use std::ffi::{c_char, c_int, c_void};

use pmix_core::Status;

use crate::api::client::{check_array, require_init, unsupported};
use crate::boundary::guard;
use crate::nonnull;

/// `pmix_op_cbfunc_t`.
type OpCbFunc = Option<unsafe extern "C" fn(status: c_int, cbdata: *mut c_void)>;

/// `PMIx_server_init`: not supported yet.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_init(
    module: *mut c_void,
    info: *mut c_void,
    ninfo: usize,
) -> c_int {
    let _ = module;
    guard(|| {
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_server_finalize`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_finalize() -> c_int {
    guard(|| {
        require_init()?;
        unsupported()
    })
}

/// `PMIx_server_register_nspace`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_nspace(
    nspace: *const c_char,
    nlocalprocs: c_int,
    info: *mut c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (nlocalprocs, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(nspace);
        check_array(info, ninfo)?;
        unsupported()
    })
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

/// `PMIx_server_deregister_nspace`: returns nothing, so the failure goes
/// to the callback.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_nspace(
    nspace: *const c_char,
    cbfunc: OpCbFunc,
    cbdata: *mut c_void,
) {
    let status = guard(|| {
        require_init()?;
        nonnull!(nspace);
        unsupported()
    });
    // SAFETY: the C caller hands us a valid callback (or NULL) for cbdata.
    crate::boundary::guard_or((), || unsafe { report(cbfunc, Status(status), cbdata) });
}

/// `PMIx_server_register_client`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_client(
    proc_: *const c_void,
    uid: libc::uid_t,
    gid: libc::gid_t,
    server_object: *mut c_void,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (uid, gid, server_object, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(proc_);
        unsupported()
    })
}

/// `PMIx_server_deregister_client`: returns nothing, so the failure goes
/// to the callback.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_client(
    proc_: *const c_void,
    cbfunc: OpCbFunc,
    cbdata: *mut c_void,
) {
    let status = guard(|| {
        require_init()?;
        nonnull!(proc_);
        unsupported()
    });
    // SAFETY: the C caller hands us a valid callback (or NULL) for cbdata.
    crate::boundary::guard_or((), || unsafe { report(cbfunc, Status(status), cbdata) });
}

/// `PMIx_server_setup_fork`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_fork(
    proc_: *const c_void,
    env: *mut *mut *mut c_char,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(proc_, env);
        unsupported()
    })
}

/// `PMIx_server_dmodex_request`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_dmodex_request(
    proc_: *const c_void,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = cbdata;
    guard(|| {
        require_init()?;
        nonnull!(proc_, cbfunc);
        unsupported()
    })
}

/// `PMIx_server_setup_application`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_application(
    nspace: *const c_char,
    info: *mut c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = cbdata;
    guard(|| {
        require_init()?;
        nonnull!(nspace, cbfunc);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_server_setup_local_support`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_local_support(
    nspace: *const c_char,
    info: *mut c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(nspace);
        check_array(info, ninfo)?;
        unsupported()
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
