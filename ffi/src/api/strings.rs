//! The `PMIx_*_string` functions, `PMIx_Get_version` and the attribute
//! name lookups.
//!
//! The tables live in the core crate (`pmix::strings`, `pmix::keys`); this
//! module only hands them to C. Ownership of what is returned:
//! * every `const char *` is a static string of this library (never free
//!   it), including `PMIx_IOF_channel_string`'s, where the reference
//!   returns one static buffer overwritten by each call and we return one
//!   static string per answer;
//! * `PMIx_Get_attribute_string`/`_name` return a static dictionary string,
//!   or the caller's own argument when it is not in the dictionary, as the
//!   reference does (NULL for a NULL argument, where the reference crashes);
//! * `PMIx_Info_directives_string` returns a malloc'd string the caller
//!   frees, as the reference does.

use std::ffi::{c_char, CStr, CString};
use std::ptr::null_mut;

use pmix_core::{keys, strings};

use crate::boundary::{guard_or, malloc_cstr};
use crate::sys::*;

/// Fallback for the static-string functions if a panic were caught.
const NOT_FOUND: &CStr = c"UNKNOWN";

fn stat(f: impl FnOnce() -> &'static CStr) -> *const c_char {
    guard_or(NOT_FOUND.as_ptr(), || f().as_ptr())
}

/// `const char* PMIx_Get_version(void)`.
#[no_mangle]
pub extern "C" fn PMIx_Get_version() -> *const c_char {
    strings::VERSION.as_ptr()
}

/// `const char* PMIx_Error_string(pmix_status_t status)`.
#[no_mangle]
pub extern "C" fn PMIx_Error_string(status: pmix_status_t) -> *const c_char {
    stat(|| strings::error_string(status))
}

/// `const char* PMIx_Proc_state_string(pmix_proc_state_t state)`.
#[no_mangle]
pub extern "C" fn PMIx_Proc_state_string(state: pmix_proc_state_t) -> *const c_char {
    stat(|| strings::proc_state_string(state))
}

/// `const char* PMIx_Scope_string(pmix_scope_t scope)`.
#[no_mangle]
pub extern "C" fn PMIx_Scope_string(scope: pmix_scope_t) -> *const c_char {
    stat(|| strings::scope_string(scope))
}

/// `const char* PMIx_Persistence_string(pmix_persistence_t persist)`.
#[no_mangle]
pub extern "C" fn PMIx_Persistence_string(persist: pmix_persistence_t) -> *const c_char {
    stat(|| strings::persistence_string(persist))
}

/// `const char* PMIx_Data_range_string(pmix_data_range_t range)`.
#[no_mangle]
pub extern "C" fn PMIx_Data_range_string(range: pmix_data_range_t) -> *const c_char {
    stat(|| strings::data_range_string(range))
}

/// `const char* PMIx_Data_type_string(pmix_data_type_t type)`.
#[no_mangle]
pub extern "C" fn PMIx_Data_type_string(type_: pmix_data_type_t) -> *const c_char {
    stat(|| strings::data_type_name(type_))
}

/// `const char* PMIx_Alloc_directive_string(pmix_alloc_directive_t directive)`.
#[no_mangle]
pub extern "C" fn PMIx_Alloc_directive_string(directive: pmix_alloc_directive_t) -> *const c_char {
    stat(|| strings::alloc_directive_string(directive))
}

/// `const char* PMIx_IOF_channel_string(pmix_iof_channel_t channel)`.
#[no_mangle]
pub extern "C" fn PMIx_IOF_channel_string(channel: pmix_iof_channel_t) -> *const c_char {
    stat(|| strings::iof_channel_string(channel))
}

/// `const char* PMIx_Job_state_string(pmix_job_state_t state)`.
#[no_mangle]
pub extern "C" fn PMIx_Job_state_string(state: pmix_job_state_t) -> *const c_char {
    stat(|| strings::job_state_string(state))
}

/// `const char* PMIx_Link_state_string(pmix_link_state_t state)`.
#[no_mangle]
pub extern "C" fn PMIx_Link_state_string(state: pmix_link_state_t) -> *const c_char {
    stat(|| strings::link_state_string(state))
}

/// `const char* PMIx_Device_type_string(pmix_device_type_t type)`.
#[no_mangle]
pub extern "C" fn PMIx_Device_type_string(type_: pmix_device_type_t) -> *const c_char {
    stat(|| strings::device_type_string(type_))
}

/// `const char* PMIx_Value_comparison_string(pmix_value_cmp_t cmp)`.
#[no_mangle]
pub extern "C" fn PMIx_Value_comparison_string(cmp: pmix_value_cmp_t) -> *const c_char {
    stat(|| strings::value_comparison_string(cmp))
}

/// `char* PMIx_Info_directives_string(pmix_info_directives_t directives)`:
/// malloc'd, freed by the caller.
#[no_mangle]
pub extern "C" fn PMIx_Info_directives_string(directives: pmix_info_directives_t) -> *mut c_char {
    guard_or(null_mut(), || {
        let s = strings::info_directives_string(directives);
        CString::new(s)
            .ok()
            .and_then(|c| malloc_cstr(&c).ok())
            .unwrap_or(null_mut())
    })
}

/// Static C strings for the dictionary entries, built once.
fn dictionary_cstrs() -> &'static [(CString, CString)] {
    static TABLE: std::sync::OnceLock<Vec<(CString, CString)>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        keys::ATTRIBUTES
            .iter()
            .map(|a| {
                (
                    CString::new(a.name).unwrap_or_default(),
                    CString::new(a.string).unwrap_or_default(),
                )
            })
            .collect()
    })
}

/// Finds `arg` in the dictionary by `find` and returns the matching
/// entry's other half through `pick`, or `arg` itself when not found.
///
/// # Safety
/// `arg` is NULL or a valid C string.
unsafe fn lookup(
    arg: *const c_char,
    find: fn(&[u8]) -> Option<&'static keys::Attribute>,
    pick: fn(&'static (CString, CString)) -> &'static CStr,
) -> *const c_char {
    if arg.is_null() {
        return arg;
    }
    // SAFETY: arg is a valid C string (caller's contract).
    let bytes = unsafe { CStr::from_ptr(arg) }.to_bytes();
    let Some(attr) = find(bytes) else { return arg };
    let index = keys::ATTRIBUTES
        .iter()
        .position(|a| std::ptr::eq(a, attr))
        .unwrap_or(0);
    match dictionary_cstrs().get(index) {
        Some(entry) => pick(entry).as_ptr(),
        None => arg,
    }
}

/// `const char* PMIx_Get_attribute_string(const char *attribute)`: the key
/// string of an attribute macro name (`"PMIX_RANK"` -> `"pmix.rank"`).
///
/// # Safety
/// `attribute` is NULL or a valid C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_attribute_string(attribute: *const c_char) -> *const c_char {
    // SAFETY: forwarded contract.
    guard_or(attribute, || unsafe {
        lookup(attribute, keys::by_name, |e| e.1.as_c_str())
    })
}

/// `const char* PMIx_Get_attribute_name(const char *attrstring)`: the macro
/// name of an attribute key string (`"pmix.rank"` -> `"PMIX_RANK"`).
///
/// # Safety
/// `attrstring` is NULL or a valid C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_attribute_name(attrstring: *const c_char) -> *const c_char {
    // SAFETY: forwarded contract.
    guard_or(attrstring, || unsafe {
        lookup(attrstring, keys::by_string, |e| e.0.as_c_str())
    })
}
