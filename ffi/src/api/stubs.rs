//! The exported functions not implemented yet: fabric,
//! `PMIx_Compute_distances`, and the server's inventory.
//!
//! Invariant: a stub checks what OpenPMIx 4.2.2 checks, in its order, and
//! then returns `PMIX_ERR_NOT_SUPPORTED`: before any init `PMIX_ERR_INIT`
//! (OpenPMIx checks the initialization state before the arguments, so
//! these do too), then `PMIX_ERR_BAD_PARAM` for a required pointer that is
//! NULL or a NULL array with a nonzero count. Non-blocking stubs never
//! call their callback.
//!
//! Struct pointers are typed `*const c_void` / `*mut c_void`: every C
//! object pointer has the same ABI, and the stubs do not look inside.
//! Callback pointers that are never called are typed the same way.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_int, c_void};

use pmix_core::Status;

use crate::api::args::check_array;
use crate::api::state::require_init;
use crate::boundary::guard;
use crate::nonnull;

/// What a stub returns once its checks pass: the operation itself is not
/// implemented yet.
fn unsupported() -> Result<(), Status> {
    Err(Status::ERR_NOT_SUPPORTED)
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

// ---------------------------------------------------------------------------
// Server (`pmix_server.h`)

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
