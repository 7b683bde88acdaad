//! The loaders of OpenPMIx 5's structure types: `PMIx_Byte_object_load`,
//! `PMIx_Envar_load`, `PMIx_Proc_load`, `PMIx_Regattr_load`,
//! `PMIx_Regattr_xfer`, `PMIx_Data_buffer_load` and
//! `PMIx_Data_buffer_unload` (their life cycles are in
//! [`super::families`]).
//!
//! As in OpenPMIx 5.0.11, a loader fills the fields it is given and does
//! not release what they held (load into a constructed or destructed
//! element); the byte object and the data buffer take over the caller's
//! malloc'd bytes, the others copy. Where the reference would crash (a
//! NULL element, a NULL out pointer) these do nothing.

use std::ffi::c_char;
use std::ptr::null_mut;

use pmix_core::Nspace;

use crate::api::buffer::{PMIx_Data_load, PMIx_Data_unload};
use crate::api::families::Family;
use crate::api::ids::load_key;
use crate::boundary::{guard_or, malloc_cstr, opt_cstr};
use crate::convert;
use crate::sys::*;

/// A malloc'd copy of a nullable C string (NULL for NULL, or if memory is
/// short).
///
/// # Safety
/// `s` is NULL or a valid C string.
unsafe fn strdup_opt(s: *const c_char) -> *mut c_char {
    // SAFETY: forwarded contract.
    match unsafe { opt_cstr(s) } {
        Some(s) => malloc_cstr(s).unwrap_or(null_mut()),
        None => null_mut(),
    }
}

/// `void PMIx_Byte_object_load(pmix_byte_object_t *b, char *d, size_t
/// sz)`: `b` takes over the `sz` malloc'd bytes at `d`.
///
/// # Safety
/// `b` is NULL or writable; `d` is NULL or malloc'd, of `sz` bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Byte_object_load(
    b: *mut pmix_byte_object_t,
    d: *mut c_char,
    sz: usize,
) {
    guard_or((), || {
        if !b.is_null() {
            // SAFETY: b is writable (C contract).
            unsafe { *b = pmix_byte_object_t { bytes: d, size: sz } };
        }
    })
}

/// `void PMIx_Envar_load(pmix_envar_t *e, char *var, char *value, char
/// separator)`: copies of `var` and `value` (each only if non-NULL) and
/// the separator.
///
/// # Safety
/// `e` is NULL or a valid envar; `var` and `value` are NULL or C strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Envar_load(
    e: *mut pmix_envar_t,
    var: *mut c_char,
    value: *mut c_char,
    separator: c_char,
) {
    guard_or((), || {
        if e.is_null() {
            return;
        }
        // SAFETY: e is a valid envar; the strings are NULL or valid (C
        // contract).
        unsafe {
            if !var.is_null() {
                (*e).envar = strdup_opt(var);
            }
            if !value.is_null() {
                (*e).value = strdup_opt(value);
            }
            (*e).separator = separator;
        }
    })
}

/// `void PMIx_Proc_load(pmix_proc_t *p, char *nspace, pmix_rank_t rank)`:
/// constructs `p` and loads the namespace (at most `PMIX_MAX_NSLEN`
/// bytes; NULL gives the empty one) and rank.
///
/// # Safety
/// `p` is NULL or writable; `nspace` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_load(
    p: *mut pmix_proc_t,
    nspace: *mut c_char,
    rank: pmix_rank_t,
) {
    guard_or((), || {
        if p.is_null() {
            return;
        }
        // SAFETY: p is writable; nspace is NULL or a C string (C contract).
        unsafe {
            <pmix_proc_t as Family>::construct(p);
            if let Some(ns) = opt_cstr(nspace) {
                convert::nspace_to_c(&Nspace::truncated(ns), &mut (*p).nspace);
            }
            (*p).rank = rank;
        }
    })
}

/// `void PMIx_Regattr_load(pmix_regattr_t *p, const char *name, const char
/// *key, pmix_data_type_t type, const char *description)`: a copy of
/// `name` and the key (each only if non-NULL), the type, and
/// `description` appended to the description lines.
///
/// # Safety
/// `p` is NULL or a valid regattr; the strings are NULL or C strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Regattr_load(
    p: *mut pmix_regattr_t,
    name: *const c_char,
    key: *const c_char,
    type_: pmix_data_type_t,
    description: *const c_char,
) {
    guard_or((), || {
        if p.is_null() {
            return;
        }
        // SAFETY: p is a valid regattr whose description is NULL or a
        // malloc'd argv; the strings are NULL or valid (C contract).
        unsafe {
            let r = &mut *p;
            if !name.is_null() {
                r.name = strdup_opt(name);
            }
            if !key.is_null() {
                load_key(&mut r.string, key);
            }
            r.type_ = type_;
            if let Some(d) = opt_cstr(description) {
                let mut lines = convert::argv_from_c(r.description);
                lines.push(d.to_owned());
                if let Ok(argv) = convert::argv_to_c(&lines) {
                    convert::argv_free(r.description);
                    r.description = argv;
                }
            }
        }
    })
}

/// `void PMIx_Regattr_xfer(pmix_regattr_t *dest, const pmix_regattr_t
/// *src)`: `dest` is constructed, then given copies of `src`'s fields.
///
/// # Safety
/// `dest` is NULL or writable; `src` is NULL or a valid regattr.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Regattr_xfer(dest: *mut pmix_regattr_t, src: *const pmix_regattr_t) {
    guard_or((), || {
        if dest.is_null() || src.is_null() {
            return;
        }
        // SAFETY: dest is writable and src valid (C contract); they may
        // be the same element, so src is read before dest is written.
        unsafe {
            let s = &*src;
            let name = strdup_opt(s.name);
            let key = convert::key_from_c(&s.string);
            let type_ = s.type_;
            let description =
                convert::argv_to_c(&convert::argv_from_c(s.description)).unwrap_or(null_mut());
            <pmix_regattr_t as Family>::construct(dest);
            let d = &mut *dest;
            d.name = name;
            convert::key_to_c(&key, &mut d.string);
            d.type_ = type_;
            d.description = description;
        }
    })
}

/// `void PMIx_Data_buffer_load(pmix_data_buffer_t *b, char *bytes, size_t
/// sz)`: `b` (its previous payload released) takes over the `sz` malloc'd
/// bytes at `bytes`, as `PMIx_Data_load`.
///
/// # Safety
/// `b` is NULL or a valid buffer; `bytes` is NULL or malloc'd, of `sz`
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_load(
    b: *mut pmix_data_buffer_t,
    bytes: *mut c_char,
    sz: usize,
) {
    guard_or((), || {
        let mut payload = pmix_byte_object_t { bytes, size: sz };
        // SAFETY: forwarded C contract; payload is a valid byte object.
        unsafe { PMIx_Data_load(b, &mut payload) };
    })
}

/// `void PMIx_Data_buffer_unload(pmix_data_buffer_t *b, char **bytes,
/// size_t *sz)`: the buffer's unread bytes move to `*bytes` (malloc'd, the
/// caller frees them) and `*sz`, as `PMIx_Data_unload`; NULL and 0 if
/// there are none or `b` is NULL.
///
/// # Safety
/// `b` is NULL or a valid buffer; `bytes` and `sz` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_unload(
    b: *mut pmix_data_buffer_t,
    bytes: *mut *mut c_char,
    sz: *mut usize,
) {
    guard_or((), || {
        if bytes.is_null() || sz.is_null() {
            return;
        }
        let mut payload = pmix_byte_object_t::default();
        // SAFETY: forwarded C contract; payload is writable.
        if unsafe { PMIx_Data_unload(b, &mut payload) } != PMIX_SUCCESS {
            payload = pmix_byte_object_t::default();
        }
        // SAFETY: both out pointers are writable (C contract).
        unsafe {
            *bytes = payload.bytes;
            *sz = payload.size;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::families::*;

    /// The 96 functions of OpenPMIx 5.0.11's type families that 4.2.2 did
    /// not export.
    const EXPECTED: &str = "PMIx_App_construct PMIx_App_create PMIx_App_destruct PMIx_App_free
        PMIx_App_info_create PMIx_App_release PMIx_Byte_object_construct PMIx_Byte_object_create
        PMIx_Byte_object_destruct PMIx_Byte_object_free PMIx_Byte_object_load
        PMIx_Coord_construct PMIx_Coord_create PMIx_Coord_destruct PMIx_Coord_free
        PMIx_Cpuset_construct PMIx_Cpuset_create PMIx_Cpuset_free PMIx_Data_array_construct
        PMIx_Data_array_create PMIx_Data_array_free PMIx_Data_array_init
        PMIx_Data_buffer_construct PMIx_Data_buffer_create PMIx_Data_buffer_destruct
        PMIx_Data_buffer_load PMIx_Data_buffer_release PMIx_Data_buffer_unload
        PMIx_Device_distance_construct PMIx_Device_distance_create
        PMIx_Device_distance_destruct PMIx_Device_distance_free PMIx_Disk_stats_construct
        PMIx_Disk_stats_create PMIx_Disk_stats_destruct PMIx_Disk_stats_free
        PMIx_Endpoint_construct PMIx_Endpoint_create PMIx_Endpoint_destruct PMIx_Endpoint_free
        PMIx_Envar_construct PMIx_Envar_create PMIx_Envar_destruct PMIx_Envar_free
        PMIx_Envar_load PMIx_Geometry_construct PMIx_Geometry_create PMIx_Geometry_destruct
        PMIx_Geometry_free PMIx_Info_construct PMIx_Info_create PMIx_Info_destruct
        PMIx_Info_free PMIx_Net_stats_construct PMIx_Net_stats_create PMIx_Net_stats_destruct
        PMIx_Net_stats_free PMIx_Node_stats_construct PMIx_Node_stats_create
        PMIx_Node_stats_destruct PMIx_Node_stats_free PMIx_Pdata_construct PMIx_Pdata_create
        PMIx_Pdata_destruct PMIx_Pdata_free PMIx_Proc_construct PMIx_Proc_create
        PMIx_Proc_destruct PMIx_Proc_free PMIx_Proc_info_construct PMIx_Proc_info_create
        PMIx_Proc_info_destruct PMIx_Proc_info_free PMIx_Proc_load PMIx_Proc_stats_construct
        PMIx_Proc_stats_create PMIx_Proc_stats_destruct PMIx_Proc_stats_free
        PMIx_Query_construct PMIx_Query_create PMIx_Query_destruct PMIx_Query_free
        PMIx_Query_qualifiers_create PMIx_Query_release PMIx_Regattr_construct
        PMIx_Regattr_create PMIx_Regattr_destruct PMIx_Regattr_free PMIx_Regattr_load
        PMIx_Regattr_xfer PMIx_Topology_construct PMIx_Topology_create PMIx_Topology_free
        PMIx_Value_construct PMIx_Value_create PMIx_Value_free";

    /// The names of functions (each checked to be one).
    macro_rules! names {
        ($($f:ident),* $(,)?) => {
            vec![$({
                let _ = $f as *const ();
                stringify!($f)
            }),*]
        };
    }

    #[test]
    fn the_table_and_the_shaped_functions_are_openpmix_5s_families() {
        let mut ours: Vec<&str> = FAMILY_EXPORTS.to_vec();
        ours.extend(names![
            PMIx_Coord_create,
            PMIx_Data_array_init,
            PMIx_Data_array_construct,
            PMIx_Data_array_create,
            PMIx_Data_array_free,
            PMIx_Data_buffer_create,
            PMIx_Data_buffer_release,
            PMIx_App_release,
            PMIx_Query_release,
            PMIx_App_info_create,
            PMIx_Query_qualifiers_create,
            PMIx_Byte_object_load,
            PMIx_Envar_load,
            PMIx_Proc_load,
            PMIx_Regattr_load,
            PMIx_Regattr_xfer,
            PMIx_Data_buffer_load,
            PMIx_Data_buffer_unload,
        ]);
        ours.sort_unstable();
        let before = ours.len();
        ours.dedup();
        assert_eq!(before, ours.len(), "a function is generated twice");
        let mut expected: Vec<&str> = EXPECTED.split_whitespace().collect();
        expected.sort_unstable();
        assert_eq!(expected.len(), 96);
        assert_eq!(ours, expected);
    }

    #[test]
    fn regattr_load_appends_description_lines_and_xfer_copies_onto_itself() {
        let mut r = pmix_regattr_t {
            name: null_mut(),
            string: [0; PMIX_MAX_KEYLEN + 1],
            type_: 0,
            description: null_mut(),
        };
        // SAFETY: r is a constructed regattr; the strings are C strings.
        unsafe {
            PMIx_Regattr_load(
                &mut r,
                c"n".as_ptr(),
                c"pmix.k".as_ptr(),
                PMIX_INT,
                c"one".as_ptr(),
            );
            PMIx_Regattr_load(&mut r, null_mut(), null_mut(), PMIX_INT, c"two".as_ptr());
            let lines = convert::argv_from_c(r.description);
            assert_eq!(lines, [c"one".to_owned(), c"two".to_owned()]);
            let (name, description) = (r.name, r.description);
            PMIx_Regattr_xfer(&mut r, &r);
            assert_eq!(convert::argv_from_c(r.description).len(), 2);
            assert_eq!(convert::key_from_c(&r.string).as_bytes(), b"pmix.k");
            libc::free(name.cast());
            convert::argv_free(description);
            PMIx_Regattr_destruct(&mut r);
        }
    }

    #[test]
    fn a_loaded_buffer_unloads_the_same_block() {
        let b = PMIx_Data_buffer_create();
        let bytes = malloc_cstr(c"abc").unwrap();
        let (mut out, mut sz) = (null_mut(), 0);
        // SAFETY: b is a fresh buffer; bytes is malloc'd, 4 bytes.
        unsafe {
            PMIx_Data_buffer_load(b, bytes, 4);
            PMIx_Data_buffer_unload(b, &mut out, &mut sz);
            assert_eq!((out, sz), (bytes, 4));
            assert!((*b).base_ptr.is_null());
            libc::free(out.cast());
            PMIx_Data_buffer_release(b);
        }
    }
}
