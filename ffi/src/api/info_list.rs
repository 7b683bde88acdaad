//! `PMIx_Info_list_*`: an opaque, growable list of infos owned by this
//! library.
//!
//! The handle returned by `PMIx_Info_list_start` is a `Box<InfoList>` turned
//! into a pointer; only `PMIx_Info_list_release` frees it. The list holds C
//! `pmix_info_t` structs: `add` and `xfer` store deep copies, `insert` stores
//! the caller's struct as it is, marked `PMIX_INFO_PERSISTENT` so that
//! neither the list nor the converted array ever releases the caller's
//! payload (the reference's contract).

use std::ffi::{c_char, c_void};
use std::ptr::null_mut;

use pmix_core::Status;

use crate::api::info::{info_xfer, PMIx_Info_load};
use crate::boundary::{calloc_array, guard, guard_or};
use crate::convert;
use crate::nonnull;
use crate::sys::*;

/// The list behind an info-list handle.
struct InfoList {
    items: Vec<pmix_info_t>,
}

impl Drop for InfoList {
    fn drop(&mut self) {
        for i in &mut self.items {
            // SAFETY: every stored info is valid, with malloc'd payloads or
            // the persistent flag.
            unsafe { convert::info_destruct(i) };
        }
    }
}

/// # Safety
/// `ptr` is a handle from `PMIx_Info_list_start` not yet released.
unsafe fn list<'a>(ptr: *mut c_void) -> &'a mut InfoList {
    // SAFETY: the handle is a live Box<InfoList> (caller's contract).
    unsafe { &mut *ptr.cast::<InfoList>() }
}

/// `void* PMIx_Info_list_start(void)`.
#[no_mangle]
pub extern "C" fn PMIx_Info_list_start() -> *mut c_void {
    guard_or(null_mut(), || {
        Box::into_raw(Box::new(InfoList { items: Vec::new() })).cast()
    })
}

/// `pmix_status_t PMIx_Info_list_add(void *ptr, const char *key, const void
/// *value, pmix_data_type_t type)`: appends a copy, as `PMIX_INFO_LOAD`
/// makes it (a load that fails leaves an empty info, and the add still
/// succeeds, as in the reference).
///
/// # Safety
/// `ptr` is NULL or a live handle; `key` and `value` as for
/// `PMIx_Info_load`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    guard(|| {
        nonnull!(ptr);
        let mut info = pmix_info_t::default();
        // SAFETY: info is writable; key and value as the caller promised.
        let _ = unsafe { PMIx_Info_load(&mut info, key, value, type_) };
        // SAFETY: ptr is a live handle.
        unsafe { list(ptr) }.items.push(info);
        Ok(())
    })
}

/// `pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info)`:
/// appends the caller's info itself (its pointers are kept, not copied).
///
/// # Safety
/// `ptr` is NULL or a live handle; `info` is NULL or a valid info that
/// outlives its use through the list.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_insert(
    ptr: *mut c_void,
    info: *mut pmix_info_t,
) -> pmix_status_t {
    guard(|| {
        nonnull!(ptr, info);
        // SAFETY: info is valid (C contract).
        let mut copy = unsafe { *info };
        copy.flags |= PMIX_INFO_PERSISTENT;
        // SAFETY: ptr is a live handle.
        unsafe { list(ptr) }.items.push(copy);
        Ok(())
    })
}

/// `pmix_status_t PMIx_Info_list_xfer(void *ptr, const pmix_info_t *info)`:
/// appends a copy made as `PMIx_Info_xfer` makes it.
///
/// # Safety
/// `ptr` is NULL or a live handle; `info` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_xfer(
    ptr: *mut c_void,
    info: *const pmix_info_t,
) -> pmix_status_t {
    guard(|| {
        nonnull!(ptr, info);
        let mut copy = pmix_info_t::default();
        // SAFETY: copy is writable and info valid; a failed value copy
        // leaves the info as the reference leaves it (still appended).
        let _ = unsafe { info_xfer(&mut copy, info) };
        // SAFETY: ptr is a live handle.
        unsafe { list(ptr) }.items.push(copy);
        Ok(())
    })
}

/// `pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t
/// *par)`: fills `par` with a `PMIX_INFO` array holding copies of the list's
/// infos (`PMIX_ERR_EMPTY` for an empty list). Release it with
/// `PMIX_DATA_ARRAY_DESTRUCT`.
///
/// # Safety
/// `ptr` is NULL or a live handle; `par` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_convert(
    ptr: *mut c_void,
    par: *mut pmix_data_array_t,
) -> pmix_status_t {
    guard(|| {
        nonnull!(par, ptr);
        // SAFETY: par is writable (C contract).
        unsafe {
            *par = pmix_data_array_t {
                type_: PMIX_INFO,
                size: 0,
                array: null_mut(),
            };
        }
        // SAFETY: ptr is a live handle.
        let items = &unsafe { list(ptr) }.items;
        if items.is_empty() {
            return Err(Status::ERR_EMPTY);
        }
        let arr = calloc_array::<pmix_info_t>(items.len())?;
        // SAFETY: arr holds items.len() zeroed infos; PMIX_INFO_CREATE marks
        // the last one as the end of the array.
        unsafe { (*arr.add(items.len() - 1)).flags = PMIX_INFO_ARRAY_END };
        for (k, i) in items.iter().enumerate() {
            // SAFETY: slot k is inside arr; i is a valid info.
            let _ = unsafe { info_xfer(arr.add(k), i) };
        }
        // SAFETY: par is writable.
        unsafe {
            (*par).array = arr.cast();
            (*par).size = items.len();
        }
        Ok(())
    })
}

/// `void PMIx_Info_list_release(void *ptr)`: releases the list and the
/// copies it made (not what was inserted).
///
/// # Safety
/// `ptr` is NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_release(ptr: *mut c_void) {
    guard_or((), || {
        if !ptr.is_null() {
            // SAFETY: ptr came from Box::into_raw in PMIx_Info_list_start.
            drop(unsafe { Box::from_raw(ptr.cast::<InfoList>()) });
        }
    })
}
