//! The flat records: `pmix_proc_info_t`, `pmix_envar_t`, `pmix_coord_t`,
//! `pmix_regattr_t`, regexes, `pmix_geometry_t`,
//! `pmix_device_distance_t`, `pmix_endpoint_t` and `pmix_data_buffer_t`,
//! each read, written and destructed.
//!
//! Invariants: writers fill a zeroed record and destruct it on error;
//! a written data buffer owns a malloc'd copy of the unread bytes.

use std::ffi::{c_char, CStr, CString};
use std::ptr::{self, null_mut};

use pmix_core::value::{Coord, DeviceDistance, Endpoint, Envar, Geometry, ProcInfo, RegAttr};
use pmix_core::{DataType, Status};

use super::item::*;
use super::names::*;
use crate::boundary::{calloc_array, malloc_cstr};
use crate::sys::*;

// ---------------------------------------------------------------------------
// pmix_proc_info_t, pmix_envar_t, pmix_coord_t, pmix_regattr_t

/// # Safety
/// `p` points to a valid `pmix_proc_info_t`.
pub(super) unsafe fn proc_info_from_c(p: *const pmix_proc_info_t) -> ProcInfo {
    // SAFETY: p is valid and its strings are valid or NULL.
    unsafe {
        let p = &*p;
        ProcInfo {
            proc: proc_from_c(&p.proc_),
            hostname: opt_string_from_c(p.hostname),
            executable_name: opt_string_from_c(p.executable_name),
            pid: p.pid,
            exit_code: p.exit_code,
            state: p.state,
        }
    }
}

/// # Safety
/// `out` is a zeroed `pmix_proc_info_t`.
pub(super) unsafe fn proc_info_write(pi: &ProcInfo, out: *mut pmix_proc_info_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.proc_ = proc_to_c(&pi.proc);
    o.pid = pi.pid;
    o.exit_code = pi.exit_code;
    o.state = pi.state;
    o.hostname = opt_string_to_c(&pi.hostname)?;
    o.executable_name = opt_string_to_c(&pi.executable_name)?;
    Ok(())
}

/// # Safety
/// `p` points to a valid proc info whose strings are NULL or malloc'd.
pub(super) unsafe fn proc_info_destruct(p: *mut pmix_proc_info_t) {
    // SAFETY: p is valid (caller's contract).
    unsafe {
        free_str(&mut (*p).hostname);
        free_str(&mut (*p).executable_name);
    }
}

/// # Safety
/// `e` points to a valid `pmix_envar_t`.
pub(super) unsafe fn envar_from_c(e: *const pmix_envar_t) -> Envar {
    // SAFETY: e is valid and its strings are valid or NULL.
    unsafe {
        let e = &*e;
        Envar {
            envar: opt_string_from_c(e.envar),
            value: opt_string_from_c(e.value),
            separator: e.separator as u8,
        }
    }
}

/// # Safety
/// `out` is a zeroed `pmix_envar_t`.
pub(super) unsafe fn envar_write(e: &Envar, out: *mut pmix_envar_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.separator = e.separator as c_char;
    o.envar = opt_string_to_c(&e.envar)?;
    o.value = opt_string_to_c(&e.value)?;
    Ok(())
}

/// `PMIX_ENVAR_DESTRUCT`.
///
/// # Safety
/// `e` points to a valid envar whose strings are NULL or malloc'd.
pub unsafe fn envar_destruct(e: *mut pmix_envar_t) {
    // SAFETY: e is valid (caller's contract).
    unsafe {
        free_str(&mut (*e).envar);
        free_str(&mut (*e).value);
    }
}

/// # Safety
/// `c` points to a valid `pmix_coord_t`.
pub(super) unsafe fn coord_from_c(c: *const pmix_coord_t) -> Coord {
    // SAFETY: c is valid; coord points to dims u32 or is NULL.
    unsafe {
        let c = &*c;
        Coord {
            view: c.view,
            coord: if c.coord.is_null() {
                Vec::new()
            } else {
                std::slice::from_raw_parts(c.coord, c.dims).to_vec()
            },
        }
    }
}

/// # Safety
/// `out` is a zeroed `pmix_coord_t`.
pub(super) unsafe fn coord_write(c: &Coord, out: *mut pmix_coord_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.view = c.view;
    if !c.coord.is_empty() {
        let p = calloc_array::<u32>(c.coord.len())?;
        // SAFETY: p holds coord.len() u32s.
        unsafe { ptr::copy_nonoverlapping(c.coord.as_ptr(), p, c.coord.len()) };
        o.coord = p;
        o.dims = c.coord.len();
    }
    Ok(())
}

/// `PMIX_COORD_DESTRUCT`: the view becomes undefined; the dimensions are
/// reset only with the array they describe (a coord without an array keeps
/// its `dims`, as in the reference).
///
/// # Safety
/// `c` points to a valid coord whose array is NULL or malloc'd.
pub(super) unsafe fn coord_destruct(c: *mut pmix_coord_t) {
    // SAFETY: c is valid (caller's contract).
    let c = unsafe { &mut *c };
    c.view = PMIX_COORD_VIEW_UNDEF;
    if !c.coord.is_null() {
        // SAFETY: malloc'd array, freed once.
        unsafe { libc::free(c.coord.cast()) };
        c.coord = null_mut();
        c.dims = 0;
    }
}

/// # Safety
/// `r` points to a valid `pmix_regattr_t`.
pub(super) unsafe fn regattr_from_c(r: *const pmix_regattr_t) -> RegAttr {
    // SAFETY: r is valid; its pointers are valid or NULL.
    unsafe {
        let r = &*r;
        RegAttr {
            name: opt_string_from_c(r.name),
            string: key_from_c(&r.string),
            data_type: r.type_,
            description: argv_from_c(r.description),
        }
    }
}

/// # Safety
/// `out` is a zeroed `pmix_regattr_t`.
pub(super) unsafe fn regattr_write(r: &RegAttr, out: *mut pmix_regattr_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    key_to_c(&r.string, &mut o.string);
    o.type_ = r.data_type;
    o.name = opt_string_to_c(&r.name)?;
    o.description = argv_to_c(&r.description)?;
    Ok(())
}

/// `PMIX_REGATTR_DESTRUCT`.
///
/// # Safety
/// `r` points to a valid regattr whose pointers are NULL or malloc'd.
pub(super) unsafe fn regattr_destruct(r: *mut pmix_regattr_t) {
    // SAFETY: r is valid (caller's contract).
    unsafe {
        let r = &mut *r;
        free_str(&mut r.name);
        argv_free(r.description);
        r.description = null_mut();
    }
}

/// A regex item is a `char *` holding the regex text; in Rust it is the
/// text's bytes with the terminating NUL (as in a value's byte object).
///
/// # Safety
/// `s` is NULL or a valid C string.
pub(super) unsafe fn regex_from_c(s: *const c_char) -> Vec<u8> {
    if s.is_null() {
        Vec::new()
    } else {
        // SAFETY: s is a valid C string.
        unsafe { CStr::from_ptr(s) }.to_bytes_with_nul().to_vec()
    }
}

pub(super) fn regex_to_c(r: &[u8]) -> Res<*mut c_char> {
    if r.is_empty() {
        return Ok(null_mut());
    }
    let text = r.strip_suffix(&[0]).unwrap_or(r);
    let text = text.split(|&b| b == 0).next().unwrap_or(text);
    let c = CString::new(text).map_err(|_| Status::ERR_BAD_PARAM)?;
    malloc_cstr(&c)
}

// ---------------------------------------------------------------------------
// pmix_geometry_t, pmix_device_distance_t, pmix_endpoint_t

/// # Safety
/// `g` points to a valid `pmix_geometry_t`.
pub(super) unsafe fn geometry_from_c(g: *const pmix_geometry_t) -> Geometry {
    // SAFETY: g is valid; coordinates points to ncoords coords or is NULL.
    unsafe {
        let g = &*g;
        let mut coordinates = Vec::new();
        if !g.coordinates.is_null() {
            for k in 0..g.ncoords {
                coordinates.push(coord_from_c(g.coordinates.add(k)));
            }
        }
        Geometry {
            fabric: g.fabric,
            uuid: opt_string_from_c(g.uuid),
            osname: opt_string_from_c(g.osname),
            coordinates,
        }
    }
}

/// # Safety
/// `out` is a zeroed `pmix_geometry_t`.
pub(super) unsafe fn geometry_write(g: &Geometry, out: *mut pmix_geometry_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.fabric = g.fabric;
    o.uuid = opt_string_to_c(&g.uuid)?;
    o.osname = opt_string_to_c(&g.osname)?;
    if !g.coordinates.is_empty() {
        let arr = calloc_array::<pmix_coord_t>(g.coordinates.len())?;
        o.coordinates = arr;
        o.ncoords = g.coordinates.len();
        for (k, c) in g.coordinates.iter().enumerate() {
            // SAFETY: k < ncoords, zeroed slot.
            unsafe { coord_write(c, arr.add(k)) }?;
        }
    }
    Ok(())
}

/// `PMIX_GEOMETRY_DESTRUCT`.
///
/// # Safety
/// `g` points to a valid geometry whose pointers are NULL or malloc'd.
pub(super) unsafe fn geometry_destruct(g: *mut pmix_geometry_t) {
    // SAFETY: g is valid (caller's contract).
    unsafe {
        let g = &mut *g;
        free_str(&mut g.uuid);
        free_str(&mut g.osname);
        free_items(DataType::Coord, g.coordinates.cast(), g.ncoords);
        g.coordinates = null_mut();
        g.ncoords = 0;
    }
}

/// # Safety
/// `d` points to a valid `pmix_device_distance_t`.
pub(super) unsafe fn devdist_from_c(d: *const pmix_device_distance_t) -> DeviceDistance {
    // SAFETY: d is valid; its strings are valid or NULL.
    unsafe {
        let d = &*d;
        DeviceDistance {
            uuid: opt_string_from_c(d.uuid),
            osname: opt_string_from_c(d.osname),
            dev_type: d.type_,
            mindist: d.mindist,
            maxdist: d.maxdist,
        }
    }
}

/// # Safety
/// `out` is a zeroed `pmix_device_distance_t`.
pub(super) unsafe fn devdist_write(
    d: &DeviceDistance,
    out: *mut pmix_device_distance_t,
) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.type_ = d.dev_type;
    o.mindist = d.mindist;
    o.maxdist = d.maxdist;
    o.uuid = opt_string_to_c(&d.uuid)?;
    o.osname = opt_string_to_c(&d.osname)?;
    Ok(())
}

/// # Safety
/// `d` points to a valid device distance whose strings are NULL or malloc'd.
pub(super) unsafe fn devdist_destruct(d: *mut pmix_device_distance_t) {
    // SAFETY: d is valid (caller's contract).
    unsafe {
        free_str(&mut (*d).uuid);
        free_str(&mut (*d).osname);
    }
}

/// # Safety
/// `e` points to a valid `pmix_endpoint_t`.
pub(super) unsafe fn endpoint_from_c(e: *const pmix_endpoint_t) -> Endpoint {
    // SAFETY: e is valid; its pointers are valid or NULL.
    unsafe {
        let e = &*e;
        Endpoint {
            uuid: opt_string_from_c(e.uuid),
            osname: opt_string_from_c(e.osname),
            endpt: bo_from_c(&e.endpt),
        }
    }
}

/// # Safety
/// `out` is a zeroed `pmix_endpoint_t`.
pub(super) unsafe fn endpoint_write(e: &Endpoint, out: *mut pmix_endpoint_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.uuid = opt_string_to_c(&e.uuid)?;
    o.osname = opt_string_to_c(&e.osname)?;
    o.endpt = bo_to_c(&e.endpt)?;
    Ok(())
}

/// `PMIX_ENDPOINT_DESTRUCT`.
///
/// # Safety
/// `e` points to a valid endpoint whose pointers are NULL or malloc'd.
pub(super) unsafe fn endpoint_destruct(e: *mut pmix_endpoint_t) {
    // SAFETY: e is valid (caller's contract).
    unsafe {
        free_str(&mut (*e).uuid);
        free_str(&mut (*e).osname);
        bo_destruct(&mut (*e).endpt);
    }
}

// ---------------------------------------------------------------------------
// pmix_data_buffer_t

/// The unread bytes of a data buffer (from `unpack_ptr` to the end of the
/// used region).
///
/// # Safety
/// `b` points to a valid data buffer whose pointers lie in one allocation.
pub(super) unsafe fn dbuf_from_c(b: *const pmix_data_buffer_t) -> Vec<u8> {
    // SAFETY: b is valid (caller's contract).
    let b = unsafe { &*b };
    if b.base_ptr.is_null() || b.bytes_used == 0 {
        return Vec::new();
    }
    let start = if b.unpack_ptr.is_null() {
        0
    } else {
        (b.unpack_ptr as usize).saturating_sub(b.base_ptr as usize)
    };
    if start >= b.bytes_used {
        return Vec::new();
    }
    // SAFETY: [base_ptr + start, base_ptr + bytes_used) is inside the
    // buffer's allocation.
    unsafe { bytes_from_c(b.base_ptr.add(start), b.bytes_used - start) }
}

/// # Safety
/// `out` is a zeroed `pmix_data_buffer_t`.
pub(super) unsafe fn dbuf_write(bytes: &[u8], out: *mut pmix_data_buffer_t) -> Res<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    let base = bytes_to_c(bytes)?;
    // SAFETY: out is valid (caller's contract); base holds bytes.len() bytes.
    unsafe {
        *out = pmix_data_buffer_t {
            base_ptr: base,
            pack_ptr: base.add(bytes.len()),
            unpack_ptr: base,
            bytes_allocated: bytes.len(),
            bytes_used: bytes.len(),
        };
    }
    Ok(())
}

/// `PMIX_DATA_BUFFER_DESTRUCT`.
///
/// # Safety
/// `b` points to a valid data buffer whose base is NULL or malloc'd.
pub unsafe fn dbuf_destruct(b: *mut pmix_data_buffer_t) {
    // SAFETY: b is valid (caller's contract).
    unsafe {
        free_str(&mut (*b).base_ptr);
        *b = pmix_data_buffer_t::default();
    }
}
