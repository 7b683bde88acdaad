//! `PMIx_Info_list_*`: an opaque, growable list of infos owned by this
//! library.
//!
//! The handle returned by `PMIx_Info_list_start` is a `Box<InfoList>` turned
//! into a pointer; only `PMIx_Info_list_release` frees it. The list holds C
//! `pmix_info_t` structs, each boxed so that its address stays put while
//! the list grows: `PMIx_Info_list_get_info` hands out those addresses, and
//! takes one back as its `prev`/`next` position (OpenPMIx hands out list
//! items; either way the caller only passes them back). `add`, `prepend`
//! and `xfer` store deep copies, `insert` stores the caller's struct as it
//! is, marked `PMIX_INFO_PERSISTENT` so that neither the list nor the
//! converted array ever releases the caller's payload (the reference's
//! contract).
//!
//! The `_unique` forms look for an entry with the same key (compared as
//! `PMIX_CHECK_KEY` compares) and, if there is one, leave the list as it
//! is, or with `overwrite` replace that entry's value only (its key and
//! flags stay). Replacing the value of an inserted (persistent) entry
//! leaves the caller's payload alone (OpenPMIx frees it) and makes the
//! entry the list's own.

use std::ffi::{c_char, c_void};
use std::ptr::null_mut;

use pmix_core::Status;

use crate::api::ids::{load_key, PMIx_Check_key};
use crate::api::info::{info_xfer, PMIx_Info_load};
use crate::api::value::PMIx_Value_load;
use crate::boundary::{calloc_array, guard, guard_or};
use crate::convert;
use crate::nonnull;
use crate::sys::*;

/// The list behind an info-list handle.
// Boxed entries: their addresses are the positions get_info hands out.
#[allow(clippy::vec_box)]
struct InfoList {
    items: Vec<Box<pmix_info_t>>,
}

impl Drop for InfoList {
    fn drop(&mut self) {
        for i in &mut self.items {
            // SAFETY: every stored info is valid, with malloc'd payloads or
            // the persistent flag.
            unsafe { convert::info_destruct(&mut **i) };
        }
    }
}

impl InfoList {
    /// The entry whose key equals `key` in its first `PMIX_MAX_KEYLEN`
    /// characters (none for a NULL key).
    ///
    /// # Safety
    /// `key` is NULL or a C string.
    unsafe fn find(&mut self, key: *const c_char) -> Option<&mut pmix_info_t> {
        if key.is_null() {
            return None;
        }
        self.items
            .iter_mut()
            .map(|b| &mut **b)
            // SAFETY: a whole key and a C string.
            .find(|i| unsafe { PMIx_Check_key(i.key.as_ptr(), key) })
    }

    /// The position of the entry at `at`.
    fn position(&self, at: *const pmix_info_t) -> Option<usize> {
        self.items.iter().position(|b| std::ptr::eq(&**b, at))
    }
}

/// Replaces the value of a listed entry with what `fill` writes into a
/// fresh value (see the module doc for persistent entries).
///
/// # Safety
/// `entry` is a listed info.
unsafe fn replace_value(entry: &mut pmix_info_t, fill: impl FnOnce(&mut pmix_value_t)) {
    if entry.flags & PMIX_INFO_PERSISTENT == 0 {
        // SAFETY: the list's own payload.
        unsafe { convert::value_destruct(&mut entry.value) };
    }
    entry.flags &= !PMIX_INFO_PERSISTENT;
    entry.value = pmix_value_t::default();
    fill(&mut entry.value);
}

/// An info keyed `key` whose value is loaded from `value` of `type_`, as
/// `PMIX_INFO_LOAD` makes it (a failed load leaves it empty).
///
/// # Safety
/// `key` and `value` as for `PMIx_Info_load`.
unsafe fn loaded(
    key: *const c_char,
    value: *const c_void,
    type_: pmix_data_type_t,
) -> Box<pmix_info_t> {
    let mut info = Box::new(pmix_info_t::default());
    // SAFETY: info is writable; key and value as the caller promised.
    let _ = unsafe { PMIx_Info_load(&mut *info, key, value, type_) };
    info
}

/// An info keyed `key` holding a copy of `value`.
///
/// # Safety
/// `key` is NULL or a C string; `value` a valid value.
unsafe fn with_value(
    key: *const c_char,
    value: *const pmix_value_t,
) -> Result<Box<pmix_info_t>, Status> {
    let mut info = Box::new(pmix_info_t::default());
    // SAFETY: the caller's contract.
    unsafe {
        load_key(&mut info.key, key);
        crate::api::value::xfer(&mut info.value, value)?;
    }
    Ok(info)
}

/// # Safety
/// `ptr` is a handle from `PMIx_Info_list_start` not yet released.
unsafe fn list<'a>(ptr: *mut c_void) -> &'a mut InfoList {
    // SAFETY: the handle is a live Box<InfoList> (caller's contract).
    unsafe { &mut *ptr.cast::<InfoList>() }
}

/// The body of `PMIx_Info_list_add` and `_prepend`: `place` puts the
/// loaded info among the list's items.
///
/// # Safety
/// `ptr` is NULL or a live handle; `key` and `value` as for
/// `PMIx_Info_load`.
unsafe fn add_loaded(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const c_void,
    type_: pmix_data_type_t,
    place: impl FnOnce(&mut Vec<Box<pmix_info_t>>, Box<pmix_info_t>),
) -> Result<(), Status> {
    nonnull!(ptr);
    // SAFETY: ptr is a live handle; key and value as the caller promised.
    unsafe { place(&mut list(ptr).items, loaded(key, value, type_)) };
    Ok(())
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
    // SAFETY: ptr NULL or a live handle; key and value as the caller
    // promised.
    guard(|| unsafe { add_loaded(ptr, key, value, type_, Vec::push) })
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
        let mut copy = Box::new(unsafe { *info });
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
        let mut copy = Box::new(pmix_info_t::default());
        // SAFETY: copy is writable and info valid; a failed value copy
        // leaves the info as the reference leaves it (still appended).
        let _ = unsafe { info_xfer(&mut *copy, info) };
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
            let _ = unsafe { info_xfer(arr.add(k), &**i) };
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

/// `pmix_status_t PMIx_Info_list_add_unique(void *ptr, const char *key,
/// const void *value, pmix_data_type_t type, bool overwrite)`.
///
/// # Safety
/// As `PMIx_Info_list_add`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_unique(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const c_void,
    type_: pmix_data_type_t,
    overwrite: bool,
) -> pmix_status_t {
    guard(|| {
        nonnull!(ptr);
        // SAFETY: ptr is a live handle; key a C string or NULL.
        let l = unsafe { list(ptr) };
        // SAFETY: as above.
        match unsafe { l.find(key) } {
            Some(entry) if overwrite => {
                // SAFETY: a listed entry; value as the caller promised (a
                // failed load is ignored, as in the reference).
                unsafe {
                    replace_value(entry, |v| {
                        let _ = PMIx_Value_load(v, value, type_);
                    })
                }
            }
            Some(_) => {}
            // SAFETY: key and value as the caller promised.
            None => l.items.push(unsafe { loaded(key, value, type_) }),
        }
        Ok(())
    })
}

/// `pmix_status_t PMIx_Info_list_add_value(void *ptr, const char *key,
/// const pmix_value_t *value)`: appends a copy of the value (nothing when
/// it cannot be copied, and its status).
///
/// # Safety
/// `ptr` is NULL or a live handle; `key` NULL or a C string; `value` NULL
/// or a valid value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_value(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const pmix_value_t,
) -> pmix_status_t {
    guard(|| {
        nonnull!(ptr, value);
        // SAFETY: the C contract.
        let info = unsafe { with_value(key, value) }?;
        // SAFETY: ptr is a live handle.
        unsafe { list(ptr) }.items.push(info);
        Ok(())
    })
}

/// `pmix_status_t PMIx_Info_list_add_value_unique(void *ptr, const char
/// *key, const pmix_value_t *value, bool overwrite)`.
///
/// # Safety
/// As `PMIx_Info_list_add_value`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_value_unique(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const pmix_value_t,
    overwrite: bool,
) -> pmix_status_t {
    guard(|| {
        nonnull!(ptr, value);
        // SAFETY: ptr is a live handle; key a C string or NULL.
        let l = unsafe { list(ptr) };
        // SAFETY: as above.
        match unsafe { l.find(key) } {
            // SAFETY: a listed entry and a valid value (a failed copy is
            // ignored, as in the reference).
            Some(entry) if overwrite => unsafe {
                replace_value(entry, |v| {
                    let _ = crate::api::value::xfer(v, value);
                })
            },
            Some(_) => {}
            // SAFETY: the C contract.
            None => l.items.push(unsafe { with_value(key, value) }?),
        }
        Ok(())
    })
}

/// `pmix_status_t PMIx_Info_list_prepend(void *ptr, const char *key, const
/// void *value, pmix_data_type_t type)`: as `PMIx_Info_list_add`, in
/// front.
///
/// # Safety
/// As `PMIx_Info_list_add`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_prepend(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    // SAFETY: ptr NULL or a live handle; key and value as the caller
    // promised.
    guard(|| unsafe { add_loaded(ptr, key, value, type_, |items, info| items.insert(0, info)) })
}

/// `pmix_status_t PMIx_Info_list_xfer_unique(void *ptr, const pmix_info_t
/// *info, bool overwrite)`: as `PMIx_Info_list_xfer` unless the key is
/// listed (nothing is appended when the copy fails, and its status is
/// returned).
///
/// # Safety
/// `ptr` is NULL or a live handle; `info` NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_xfer_unique(
    ptr: *mut c_void,
    info: *const pmix_info_t,
    overwrite: bool,
) -> pmix_status_t {
    guard(|| {
        nonnull!(ptr, info);
        // SAFETY: ptr is a live handle; info valid (C contract).
        let (l, info) = unsafe { (list(ptr), &*info) };
        // SAFETY: a whole key.
        match unsafe { l.find(info.key.as_ptr()) } {
            // SAFETY: a listed entry and a valid value (a failed copy is
            // ignored, as in the reference).
            Some(entry) if overwrite => unsafe {
                replace_value(entry, |v| {
                    let _ = crate::api::value::xfer(v, &info.value);
                })
            },
            Some(_) => {}
            None => {
                let mut copy = Box::new(pmix_info_t::default());
                // SAFETY: copy is writable and info valid.
                if let Err(e) = unsafe { info_xfer(&mut *copy, info) } {
                    // SAFETY: what the failed copy holds is the copy's own.
                    unsafe { convert::info_destruct(&mut *copy) };
                    return Err(e);
                }
                l.items.push(copy);
            }
        }
        Ok(())
    })
}

/// `pmix_info_t* PMIx_Info_list_get_info(void *ptr, void *prev, void
/// **next)`: the entry at `prev` (the first for NULL), with `*next` set to
/// the position of the one after it (NULL after the last). NULL, with
/// `*next` NULL, for an empty list or a position not in the list.
///
/// # Safety
/// `ptr` is NULL or a live handle; `prev` NULL or a position this list
/// gave; `next` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_get_info(
    ptr: *mut c_void,
    prev: *mut c_void,
    next: *mut *mut c_void,
) -> *mut pmix_info_t {
    guard_or(null_mut(), || {
        let (found, after) = if ptr.is_null() {
            (None, None)
        } else {
            // SAFETY: ptr is a live handle.
            let l = unsafe { list(ptr) };
            let at = if prev.is_null() {
                Some(0)
            } else {
                l.position(prev.cast())
            };
            let at = at.filter(|&k| k < l.items.len());
            let ptr_of = |k: usize| {
                l.items
                    .get(k)
                    .map(|b| &**b as *const pmix_info_t as *mut pmix_info_t)
            };
            (at.and_then(ptr_of), at.and_then(|k| ptr_of(k + 1)))
        };
        if !next.is_null() {
            // SAFETY: next is writable (C contract).
            unsafe { *next = after.map_or(null_mut(), |p| p.cast()) };
        }
        found.unwrap_or(null_mut())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key of a listed info, as text.
    fn key(i: *const pmix_info_t) -> String {
        // SAFETY: a listed info.
        String::from_utf8(crate::api::args::c_array_bytes(unsafe { &(*i).key }).to_vec()).unwrap()
    }

    #[test]
    fn overwriting_an_inserted_entry_leaves_the_callers_payload_alone() {
        let mut text = *b"caller's\0";
        let mut mine = pmix_info_t::default();
        let two = 2i32;
        // SAFETY: a live list; valid infos and data; the inserted info
        // outlives the list.
        unsafe {
            mine.key[0] = b'k' as c_char;
            mine.value.type_ = PMIX_STRING;
            mine.value.data.string = text.as_mut_ptr().cast();
            let l = PMIx_Info_list_start();
            assert_eq!(PMIx_Info_list_insert(l, &mut mine), 0);
            let two_ptr: *const c_void = (&two as *const i32).cast();
            assert_eq!(
                PMIx_Info_list_add_unique(l, c"k".as_ptr(), two_ptr, PMIX_INT, true),
                0
            );
            let got = PMIx_Info_list_get_info(l, null_mut(), &mut null_mut());
            assert_eq!(
                ((*got).value.type_, (*got).value.data.integer),
                (PMIX_INT, 2)
            );
            assert_eq!((*got).flags & PMIX_INFO_PERSISTENT, 0);
            PMIx_Info_list_release(l);
        }
        assert_eq!(&text, b"caller's\0");
    }

    #[test]
    fn positions_survive_growth_and_an_unknown_one_finds_nothing() {
        // SAFETY: a live list and C strings.
        unsafe {
            let l = PMIx_Info_list_start();
            PMIx_Info_list_add(l, c"a".as_ptr(), null_mut(), PMIX_BOOL);
            PMIx_Info_list_add(l, c"b".as_ptr(), null_mut(), PMIX_BOOL);
            let mut second = null_mut();
            assert_eq!(
                key(PMIx_Info_list_get_info(l, null_mut(), &mut second)),
                "a"
            );
            for _ in 0..100 {
                PMIx_Info_list_prepend(l, c"z".as_ptr(), null_mut(), PMIX_BOOL);
            }
            let mut next = null_mut();
            assert_eq!(key(PMIx_Info_list_get_info(l, second, &mut next)), "b");
            assert!(next.is_null());
            let other = pmix_info_t::default();
            let stranger = (&other as *const pmix_info_t).cast_mut().cast();
            assert!(PMIx_Info_list_get_info(l, stranger, &mut next).is_null());
            PMIx_Info_list_release(l);
        }
    }
}
