//! `PMIx_Value_true` and `PMIx_Info_true`: a value read as a boolean, as
//! OpenPMIx's `pmix_check_true` reads it (the header's `PMIX_INFO_TRUE`).
//!
//! Invariant: `PMIX_UNDEF` (a bare flag) and a NULL string are true, a
//! `PMIX_BOOL` is its flag, a string is read by
//! `pmix_core::info::text_truth`; every other type is `PMIX_NON_BOOL`. A
//! NULL argument (which OpenPMIx dereferences) is `PMIX_NON_BOOL`.

use std::ffi::CStr;

use pmix_core::info::text_truth;

use crate::sys::{
    pmix_boolean_t, pmix_info_t, pmix_value_t, PMIX_BOOL, PMIX_BOOL_FALSE, PMIX_BOOL_TRUE,
    PMIX_NON_BOOL, PMIX_STRING, PMIX_UNDEF,
};

/// The boolean reading of a value.
///
/// # Safety
/// `v` is NULL or a valid value.
unsafe fn truth(v: *const pmix_value_t) -> pmix_boolean_t {
    // SAFETY: the caller's contract.
    let Some(v) = (unsafe { v.as_ref() }) else {
        return PMIX_NON_BOOL;
    };
    let answer = match v.type_ {
        PMIX_UNDEF => Some(true),
        // SAFETY: the member the type names, read as a byte.
        PMIX_BOOL => Some(unsafe { v.data.byte } != 0),
        PMIX_STRING => {
            // SAFETY: the member the type names.
            let s = unsafe { v.data.string };
            if s.is_null() {
                Some(true)
            } else {
                // SAFETY: a valid C string.
                text_truth(unsafe { CStr::from_ptr(s) }.to_bytes())
            }
        }
        _ => None,
    };
    match answer {
        Some(true) => PMIX_BOOL_TRUE,
        Some(false) => PMIX_BOOL_FALSE,
        None => PMIX_NON_BOOL,
    }
}

/// `pmix_boolean_t PMIx_Value_true(const pmix_value_t *v)`.
///
/// # Safety
/// `v` is NULL or a valid value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_true(v: *const pmix_value_t) -> pmix_boolean_t {
    // SAFETY: the C contract.
    crate::boundary::guard_or(PMIX_NON_BOOL, || unsafe { truth(v) })
}

/// `pmix_boolean_t PMIx_Info_true(const pmix_info_t *p)`: of its value.
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_true(p: *const pmix_info_t) -> pmix_boolean_t {
    crate::boundary::guard_or(PMIX_NON_BOOL, || {
        if p.is_null() {
            return PMIX_NON_BOOL;
        }
        // SAFETY: a valid info (C contract).
        unsafe { truth(&(*p).value) }
    })
}
