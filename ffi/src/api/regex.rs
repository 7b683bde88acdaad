//! `PMIx_generate_regex` and `PMIx_generate_ppn`.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int};

use crate::api::client::{require_init, unsupported};
use crate::boundary::guard;
use crate::nonnull;

/// `PMIx_generate_regex`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_regex(
    input: *const c_char,
    regex: *mut *mut c_char,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(input, regex);
        unsupported()
    })
}

/// `PMIx_generate_ppn`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_ppn(input: *const c_char, ppn: *mut *mut c_char) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(input, ppn);
        unsupported()
    })
}
