//! `PMIx_Error_code`: the status or event code of a name, from OpenPMIx
//! 5.0's dictionary (`pmix_core::event_names`).
//!
//! Invariant: an unknown name, and a NULL one (which OpenPMIx
//! dereferences), give `INT32_MIN`, OpenPMIx's answer for "not found".

use std::ffi::c_char;

use pmix_core::event_names;

use crate::boundary::{guard_or, opt_cstr};
use crate::sys::pmix_status_t;

/// What `PMIx_Error_code` answers for a name it does not know.
const NOT_FOUND: pmix_status_t = i32::MIN;

/// `pmix_status_t PMIx_Error_code(const char *errname)`: the code whose
/// macro name is `errname`, in any case (`"PMIX_ERR_BAD_PARAM"` gives
/// `-27`).
///
/// # Safety
/// `errname` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Error_code(errname: *const c_char) -> pmix_status_t {
    guard_or(NOT_FOUND, || {
        // SAFETY: NULL or a C string (C contract).
        unsafe { opt_cstr(errname) }
            .and_then(|n| event_names::code_of(n.to_bytes()))
            .unwrap_or(NOT_FOUND)
    })
}
