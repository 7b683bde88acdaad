//! Topology, cpuset and locality helpers.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void};

use crate::api::client::{require_init, unsupported};
use crate::boundary::guard;
use crate::nonnull;

/// `PMIx_Load_topology`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_topology(topo: *mut c_void) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(topo);
        unsupported()
    })
}

/// `PMIx_Get_cpuset`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_cpuset(cpuset: *mut c_void, ref_: u8) -> c_int {
    let _ = ref_;
    guard(|| {
        require_init()?;
        nonnull!(cpuset);
        unsupported()
    })
}

/// `PMIx_Get_relative_locality`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_relative_locality(
    locality1: *const c_char,
    locality2: *const c_char,
    locality: *mut u16,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(locality1, locality2, locality);
        unsupported()
    })
}

/// `PMIx_Parse_cpuset_string`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Parse_cpuset_string(
    cpuset_string: *const c_char,
    cpuset: *mut c_void,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(cpuset_string, cpuset);
        unsupported()
    })
}

/// `PMIx_server_generate_cpuset_string`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_generate_cpuset_string(
    cpuset: *const c_void,
    cpuset_string: *mut *mut c_char,
) -> c_int {
    guard(|| {
        nonnull!(cpuset, cpuset_string);
        unsupported()
    })
}

/// `PMIx_server_generate_locality_string`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_generate_locality_string(
    cpuset: *const c_void,
    locality: *mut *mut c_char,
) -> c_int {
    guard(|| {
        nonnull!(cpuset, locality);
        unsupported()
    })
}
