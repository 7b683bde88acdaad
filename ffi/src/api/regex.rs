//! `PMIx_generate_regex` and `PMIx_generate_ppn`: the compressed node-list
//! and procs-per-node strings a host passes to
//! `PMIx_server_register_nspace`. The formats (OpenPMIx 4.2's) are
//! described in [`pmix_core::regex`].
//!
//! Unlike OpenPMIx, which refuses both before `PMIx_server_init` (or any
//! other init) with `PMIX_ERR_INIT`, these need no initialization: they are
//! pure functions of their input.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, CString};

use pmix_core::Status;

use crate::boundary::{guard, malloc_cstr, opt_cstr};
use crate::nonnull;

/// Runs `f` on the C string `input` and stores its result, `malloc`ed, in
/// `*out`.
///
/// # Safety
/// `input` must be NULL or a valid C string, `out` NULL or writable.
unsafe fn generate(input: *const c_char, out: *mut *mut c_char, f: fn(&str) -> String) -> c_int {
    guard(|| {
        nonnull!(input, out);
        // SAFETY: input is a non-NULL C string per the C API.
        let input = unsafe { opt_cstr(input) }.ok_or(Status::ERR_BAD_PARAM)?;
        let input = input.to_str().map_err(|_| Status::ERR_BAD_PARAM)?;
        let result = CString::new(f(input)).map_err(|_| Status::ERROR)?;
        let p = malloc_cstr(&result)?;
        // SAFETY: out is non-NULL and points to a char* the caller owns.
        unsafe { *out = p };
        Ok(())
    })
}

/// `PMIx_generate_regex`: `*regex` receives a `malloc`ed string the caller
/// frees.
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_regex(
    input: *const c_char,
    regex: *mut *mut c_char,
) -> c_int {
    // SAFETY: the C caller's pointers, checked for NULL inside.
    unsafe { generate(input, regex, pmix_core::regex::generate_node_regex) }
}

/// `PMIx_generate_ppn`: `*ppn` receives a `malloc`ed string the caller
/// frees.
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_ppn(input: *const c_char, ppn: *mut *mut c_char) -> c_int {
    // SAFETY: the C caller's pointers, checked for NULL inside.
    unsafe { generate(input, ppn, pmix_core::regex::generate_ppn) }
}
