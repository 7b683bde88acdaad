//! `PMIx_Info_load`, `PMIx_Info_xfer` and `PMIx_Info_string`.
//!
//! Keys are copied as `PMIX_LOAD_KEY` does: at most `PMIX_MAX_KEYLEN` bytes,
//! NUL-padded (a longer key is truncated, not refused, as in the
//! reference). An info marked `PMIX_INFO_PERSISTENT` is transferred by
//! sharing its value, since its owner keeps releasing it.

use std::ffi::{c_char, c_void};
use std::ptr::null_mut;

use pmix_core::{print, Status};

use crate::api::ids::load_key;
use crate::api::value::{malloc_text, value_text, PMIx_Value_load};
use crate::boundary::{guard, guard_or};
use crate::convert;
use crate::nonnull;
use crate::sys::*;

/// `pmix_status_t PMIx_Info_load(pmix_info_t *info, const char *key, const
/// void *data, pmix_data_type_t type)`: key, no flags, and the datum loaded
/// as by `PMIx_Value_load`.
///
/// # Safety
/// `info` is NULL or writable; `key` is NULL or a C string; `data` as for
/// `PMIx_Value_load`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_load(
    info: *mut pmix_info_t,
    key: *const c_char,
    data: *const c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    let r = guard(|| {
        nonnull!(key, info);
        // SAFETY: info is writable and key a C string (C contract).
        unsafe {
            load_key(&mut (*info).key, key);
            (*info).flags = 0;
        }
        Ok(())
    });
    if r != 0 {
        return r;
    }
    // SAFETY: info is writable; data as the caller promised.
    unsafe { PMIx_Value_load(&mut (*info).value, data, type_) }
}

/// Copies key and flags, then the value (shared when persistent).
///
/// # Safety
/// `dest` is writable; `src` is a valid info.
pub(crate) unsafe fn info_xfer(
    dest: *mut pmix_info_t,
    src: *const pmix_info_t,
) -> Result<(), Status> {
    // SAFETY: valid pointers (caller's contract).
    unsafe {
        let key = convert::key_from_c(&(*src).key);
        convert::key_to_c(&key, &mut (*dest).key);
        (*dest).flags = (*src).flags;
        if (*src).flags & PMIX_INFO_PERSISTENT != 0 {
            (*dest).value = (*src).value;
            Ok(())
        } else {
            crate::api::value::xfer(&mut (*dest).value, &(*src).value)
        }
    }
}

/// `pmix_status_t PMIx_Info_xfer(pmix_info_t *dest, const pmix_info_t
/// *src)`.
///
/// # Safety
/// `dest` is NULL or writable; `src` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_xfer(
    dest: *mut pmix_info_t,
    src: *const pmix_info_t,
) -> pmix_status_t {
    guard(|| {
        nonnull!(dest, src);
        // SAFETY: both valid (C contract).
        unsafe { info_xfer(dest, src) }
    })
}

/// The reference's text of an info.
///
/// # Safety
/// `info` is a valid info.
pub(crate) unsafe fn info_text(info: *const pmix_info_t, prefix: Option<&[u8]>) -> Vec<u8> {
    // SAFETY: info is valid (caller's contract).
    let i = unsafe { &*info };
    let key = convert::key_from_c(&i.key);
    // SAFETY: the embedded value is valid.
    let value = unsafe { value_text(&i.value, prefix) };
    print::info_lines(prefix, key.as_bytes(), i.flags, value.as_deref())
}

/// `char* PMIx_Info_string(const pmix_info_t *info)`: malloc'd, freed by the
/// caller (NULL for a NULL info).
///
/// # Safety
/// `info` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_string(info: *const pmix_info_t) -> *mut c_char {
    guard_or(null_mut(), || {
        if info.is_null() {
            return null_mut();
        }
        // SAFETY: info is valid (C contract).
        malloc_text(unsafe { info_text(info, None) })
    })
}
