//! The exported functions not implemented yet: fabric.
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

/// Declares the stubs: each `fn NAME(ARGS) { CHECKS }` becomes the
/// exported function `NAME` that checks the initialization state, then
/// runs `CHECKS` (each may return early with its status), then answers
/// `PMIX_ERR_NOT_SUPPORTED`. Arguments no check reads are ignored.
macro_rules! stubs {
    ($(
        $(#[$doc:meta])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) { $($check:expr;)* }
    )*) => {$(
        $(#[$doc])*
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> c_int {
            let _ = ($($arg,)*);
            guard(|| {
                require_init()?;
                $($check;)*
                Err(Status::ERR_NOT_SUPPORTED)
            })
        }
    )*};
}

stubs! {
    // Fabric

    /// `PMIx_Fabric_register`.
    fn PMIx_Fabric_register(fabric: *mut c_void, directives: *const c_void, ndirs: usize) {
        nonnull!(fabric);
        check_array(directives, ndirs)?;
    }

    /// `PMIx_Fabric_register_nb`.
    fn PMIx_Fabric_register_nb(
        fabric: *mut c_void,
        directives: *const c_void,
        ndirs: usize,
        cbfunc: *const c_void,
        cbdata: *mut c_void,
    ) {
        nonnull!(fabric);
        check_array(directives, ndirs)?;
    }

    /// `PMIx_Fabric_update`.
    fn PMIx_Fabric_update(fabric: *mut c_void) {
        nonnull!(fabric);
    }

    /// `PMIx_Fabric_update_nb`.
    fn PMIx_Fabric_update_nb(fabric: *mut c_void, cbfunc: *const c_void, cbdata: *mut c_void) {
        nonnull!(fabric);
    }

    /// `PMIx_Fabric_deregister`.
    fn PMIx_Fabric_deregister(fabric: *mut c_void) {
        nonnull!(fabric);
    }

    /// `PMIx_Fabric_deregister_nb`.
    fn PMIx_Fabric_deregister_nb(fabric: *mut c_void, cbfunc: *const c_void, cbdata: *mut c_void) {
        nonnull!(fabric);
    }
}
