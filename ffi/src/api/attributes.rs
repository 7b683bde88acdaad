//! `PMIx_Register_attributes`: a host says which attributes the functions
//! of its server module honour; `PMIX_QUERY_ATTRIBUTE_SUPPORT` with
//! `PMIX_HOST_ATTRIBUTES` then answers them (see
//! [`pmix_core::attributes`]).
//!
//! Statuses as OpenPMIx: before any init `PMIX_ERR_INIT`, a NULL or empty
//! function name `PMIX_ERR_BAD_PARAM`, a function registered before
//! `PMIX_ERR_REPEAT_ATTR_REGISTRATION`. `attrs` may be NULL (the function
//! is listed among the host's functions, with no attributes). The
//! registrations live until the server finalizes.
//!
//! # Safety
//!
//! `function` is NULL or a valid string; `attrs` is NULL or a
//! NULL-terminated array of valid strings.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int};

use pmix_core::Status;

use crate::api::state::require_init;
use crate::boundary::{guard, opt_cstr};
use crate::convert::argv_from_c;

/// `PMIx_Register_attributes`: records that the host's `function`
/// honours `attrs` (attribute names such as `"PMIX_TIMEOUT"`).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Register_attributes(
    function: *mut c_char,
    attrs: *mut *mut c_char,
) -> c_int {
    guard(|| {
        require_init()?;
        // SAFETY: function is NULL or a valid string (C contract).
        let function = unsafe { opt_cstr(function) }.ok_or(Status::ERR_BAD_PARAM)?;
        let function = function.to_str().map_err(|_| Status::ERR_BAD_PARAM)?;
        // SAFETY: attrs is NULL or a NULL-terminated argv (C contract).
        let attrs = unsafe { argv_from_c(attrs) }
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        pmix_core::attributes::register_host(function, attrs)
    })
}
