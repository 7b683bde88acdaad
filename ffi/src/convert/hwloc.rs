//! hwloc-backed objects: `pmix_cpuset_t` (a bitmap, in Rust its list
//! string) and `pmix_topology_t` (in Rust its XML export), and the
//! printing of a topology ([`topology_tree`], [`FfiHwloc`]).
//!
//! Invariants: objects whose source names another provider are refused
//! with `PMIX_ERR_NOT_SUPPORTED` and released only when their source names
//! hwloc; written objects get the source "hwloc".

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr::null_mut;

use pmix_core::value::{Cpuset, OptString, Topology};
use pmix_core::Status;

use super::names::*;
use crate::sys::hwloc;
use crate::sys::*;

// ---------------------------------------------------------------------------
// hwloc-backed: pmix_cpuset_t, pmix_topology_t

/// True if `source` is NULL or names hwloc (`strncasecmp(source, "hwloc", 5)`).
///
/// # Safety
/// `source` is NULL or a valid C string.
pub(super) unsafe fn is_hwloc(source: *const c_char) -> bool {
    if source.is_null() {
        return true;
    }
    // SAFETY: forwarded contract.
    unsafe { names_hwloc(source) }
}

/// True if `source` is a non-NULL string naming hwloc: the reference only
/// releases cpusets and topologies whose source says hwloc owns them.
///
/// # Safety
/// `source` is NULL or a valid C string.
pub unsafe fn names_hwloc(source: *const c_char) -> bool {
    if source.is_null() {
        return false;
    }
    // SAFETY: valid C string.
    let s = unsafe { CStr::from_ptr(source) }.to_bytes();
    s.len() >= 5 && s[..5].eq_ignore_ascii_case(b"hwloc")
}

/// An hwloc object written for C carries the source "hwloc" (what the
/// reference always writes), so that it is released like the reference's.
pub(super) fn source_or_hwloc(source: &OptString, has_object: bool) -> OptString {
    match source {
        None if has_object => Some(c"hwloc".to_owned()),
        s => s.clone(),
    }
}

/// # Safety
/// `c` points to a valid `pmix_cpuset_t` whose bitmap, if any, is an hwloc
/// bitmap.
pub(super) unsafe fn cpuset_from_c(c: *const pmix_cpuset_t) -> Res<Cpuset> {
    // SAFETY: c is valid (caller's contract).
    let c = unsafe { &*c };
    // SAFETY: source is NULL or a valid C string.
    let source = unsafe { opt_string_from_c(c.source) };
    if c.bitmap.is_null() {
        return Ok(Cpuset {
            source,
            bitmap: None,
        });
    }
    // SAFETY: as above.
    if !unsafe { is_hwloc(c.source) } {
        return Err(Status::ERR_NOT_SUPPORTED);
    }
    let mut s: *mut c_char = null_mut();
    // SAFETY: bitmap is an hwloc bitmap; s receives a malloc'd string.
    let rc = unsafe { hwloc::hwloc_bitmap_list_asprintf(&mut s, c.bitmap) };
    if rc < 0 || s.is_null() {
        return Err(Status::ERROR);
    }
    // SAFETY: s is a valid malloc'd C string, freed right after copying.
    let text = unsafe { CStr::from_ptr(s) }.to_owned();
    // SAFETY: as above.
    unsafe { libc::free(s.cast()) };
    Ok(Cpuset {
        source,
        bitmap: Some(text),
    })
}

/// Parses an hwloc list string into a new bitmap.
pub fn bitmap_from_list(list: &CStr) -> Res<*mut c_void> {
    // SAFETY: plain allocation, checked below.
    let bm = unsafe { hwloc::hwloc_bitmap_alloc() };
    if bm.is_null() {
        return Err(Status::ERR_NOMEM);
    }
    // SAFETY: bm is a fresh bitmap, list a valid C string.
    if unsafe { hwloc::hwloc_bitmap_list_sscanf(bm, list.as_ptr()) } != 0 {
        // SAFETY: bm is ours.
        unsafe { hwloc::hwloc_bitmap_free(bm) };
        return Err(Status::ERR_BAD_PARAM);
    }
    Ok(bm)
}

/// # Safety
/// `out` is a zeroed `pmix_cpuset_t`.
pub(super) unsafe fn cpuset_write(c: &Cpuset, out: *mut pmix_cpuset_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.source = opt_string_to_c(&source_or_hwloc(&c.source, c.bitmap.is_some()))?;
    if let Some(list) = &c.bitmap {
        o.bitmap = bitmap_from_list(list)?;
    }
    Ok(())
}

/// Releases a cpuset's bitmap and source if its source names hwloc;
/// leaves any other cpuset alone (its owner is not this library), as the
/// reference does.
///
/// # Safety
/// `c` points to a valid cpuset whose pointers are NULL, malloc'd (source)
/// or an hwloc bitmap.
pub unsafe fn cpuset_destruct(c: *mut pmix_cpuset_t) {
    // SAFETY: c is valid (caller's contract).
    let c = unsafe { &mut *c };
    // SAFETY: source is NULL or a valid C string.
    if !unsafe { names_hwloc(c.source) } {
        return;
    }
    if !c.bitmap.is_null() {
        // SAFETY: an hwloc bitmap, freed once.
        unsafe { hwloc::hwloc_bitmap_free(c.bitmap) };
        c.bitmap = null_mut();
    }
    // SAFETY: malloc'd.
    unsafe { free_str(&mut c.source) };
}

/// # Safety
/// `t` points to a valid `pmix_topology_t` whose topology, if any, is an
/// hwloc topology.
pub(super) unsafe fn topology_from_c(t: *const pmix_topology_t) -> Res<Topology> {
    // SAFETY: t is valid (caller's contract).
    let t = unsafe { &*t };
    // SAFETY: source is NULL or a valid C string.
    let source = unsafe { opt_string_from_c(t.source) };
    if t.topology.is_null() {
        return Ok(Topology { source, xml: None });
    }
    // SAFETY: as above.
    if !unsafe { is_hwloc(t.source) } {
        return Err(Status::ERR_NOT_SUPPORTED);
    }
    Ok(Topology {
        source,
        // SAFETY: an hwloc source means a loaded hwloc topology.
        xml: Some(unsafe { topology_xml(t.topology) }?),
    })
}

/// The XML export (hwloc's v2 format) of a topology.
///
/// # Safety
/// `topo` is a loaded hwloc topology.
pub unsafe fn topology_xml(topo: hwloc::hwloc_topology_t) -> Res<CString> {
    let mut buf: *mut c_char = null_mut();
    let mut len: c_int = 0;
    // SAFETY: topo is a loaded hwloc topology; buf receives hwloc's
    // buffer, released with hwloc_free_xmlbuffer below.
    let rc = unsafe { hwloc::hwloc_topology_export_xmlbuffer(topo, &mut buf, &mut len, 0) };
    if rc != 0 || buf.is_null() {
        return Err(Status::ERROR);
    }
    // SAFETY: buf is a NUL-terminated XML string owned by hwloc.
    let xml = unsafe { CStr::from_ptr(buf) }.to_owned();
    // SAFETY: releases hwloc's buffer once.
    unsafe { hwloc::hwloc_free_xmlbuffer(topo, buf) };
    Ok(xml)
}

/// Builds a loaded hwloc topology from its XML export.
pub fn topology_from_xml(xml: &CStr) -> Res<*mut c_void> {
    let len = c_int::try_from(xml.to_bytes().len() + 1).map_err(|_| Status::ERR_BAD_PARAM)?;
    let mut topo: hwloc::hwloc_topology_t = null_mut();
    // SAFETY: topo receives a new topology context.
    if unsafe { hwloc::hwloc_topology_init(&mut topo) } != 0 {
        return Err(Status::ERROR);
    }
    // SAFETY: topo is a fresh, not yet loaded context; xml is valid for len
    // bytes including its NUL.
    let ok = unsafe {
        hwloc::hwloc_topology_set_xmlbuffer(topo, xml.as_ptr(), len) == 0
            && hwloc::hwloc_topology_set_io_types_filter(
                topo,
                hwloc::HWLOC_TYPE_FILTER_KEEP_IMPORTANT,
            ) == 0
            && hwloc::hwloc_topology_set_flags(
                topo,
                hwloc::HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM
                    | hwloc::HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED,
            ) == 0
            && hwloc::hwloc_topology_load(topo) == 0
    };
    if !ok {
        // SAFETY: topo is ours.
        unsafe { hwloc::hwloc_topology_destroy(topo) };
        return Err(Status::ERROR);
    }
    Ok(topo)
}

/// # Safety
/// `out` is a zeroed `pmix_topology_t`.
pub(super) unsafe fn topology_write(t: &Topology, out: *mut pmix_topology_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.source = opt_string_to_c(&source_or_hwloc(&t.source, t.xml.is_some()))?;
    if let Some(xml) = &t.xml {
        o.topology = topology_from_xml(xml)?;
    }
    Ok(())
}

/// Releases a topology (if it holds one) and its source if its source names
/// hwloc; leaves anything else alone, as the reference does (OpenPMIx 5
/// also releases the source of an hwloc topology that holds none, which
/// 4.2 leaked).
///
/// # Safety
/// `t` points to a valid topology whose pointers are NULL, malloc'd (source)
/// or an hwloc topology.
pub unsafe fn topology_destruct(t: *mut pmix_topology_t) {
    // SAFETY: t is valid (caller's contract).
    let t = unsafe { &mut *t };
    // SAFETY: source is NULL or a valid C string.
    if !unsafe { names_hwloc(t.source) } {
        return;
    }
    if !t.topology.is_null() {
        // SAFETY: an hwloc topology, destroyed once.
        unsafe { hwloc::hwloc_topology_destroy(t.topology) };
        t.topology = null_mut();
    }
    // SAFETY: malloc'd.
    unsafe { free_str(&mut t.source) };
}

/// Text from a C `snprintf`-style hwloc call into a buffer of `size` bytes.
pub(super) fn hwloc_text(
    size: usize,
    f: impl FnOnce(*mut c_char, usize) -> c_int,
) -> (c_int, String) {
    let mut buf = vec![0 as c_char; size];
    let n = f(buf.as_mut_ptr(), size);
    // SAFETY: the hwloc snprintf functions always NUL-terminate within size.
    let s = unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    (n, s)
}

/// Appends one hwloc object and its normal children, as the reference
/// prints a topology.
///
/// # Safety
/// `topo` is a loaded topology and `obj` one of its objects.
pub(super) unsafe fn print_hwloc_obj(
    out: &mut String,
    prefix: &str,
    topo: hwloc::hwloc_topology_t,
    obj: *mut hwloc::hwloc_obj,
) {
    // SAFETY: obj is a valid object of topo (caller's contract).
    let o = unsafe { &*obj };
    // SAFETY: obj is valid; the buffer is as large as announced.
    let (_, type_name) = hwloc_text(1024, |b, n| unsafe {
        hwloc::hwloc_obj_type_snprintf(b, n, obj, 1)
    });
    let sep = format!("\n{prefix}\t");
    let name = if o.name.is_null() {
        "NULL".to_owned()
    } else {
        // SAFETY: hwloc object names are C strings.
        unsafe { CStr::from_ptr(o.name) }
            .to_string_lossy()
            .into_owned()
    };
    let mut tmp = format!(
        "{prefix}Type: {type_name} Number of child objects: {}{sep}Name={name}",
        o.arity
    );
    let csep = CString::new(sep.clone()).unwrap_or_default();
    // SAFETY: obj is valid; csep is a C string; the buffer is as announced.
    let (n, attrs) = hwloc_text(1024, |b, len| unsafe {
        hwloc::hwloc_obj_attr_snprintf(b, len, obj, csep.as_ptr(), 1)
    });
    if n > 0 {
        tmp = format!("{tmp}{sep}{attrs}");
    }
    if !o.cpuset.is_null() {
        // SAFETY: cpuset is a valid bitmap of the object.
        let (_, set) = hwloc_text(2048, |b, len| unsafe {
            hwloc::hwloc_bitmap_snprintf(b, len, o.cpuset)
        });
        tmp = format!("{tmp}{sep}Cpuset:  {set}");
    }
    if o.type_ == hwloc::HWLOC_OBJ_MACHINE {
        // SAFETY: topo is loaded; its support arrays are valid while it is.
        let flag = |arr: *const u8, i: usize| unsafe {
            if !arr.is_null() && *arr.add(i) != 0 {
                "TRUE"
            } else {
                "FALSE"
            }
        };
        // SAFETY: topo is a loaded topology.
        let sup = unsafe { hwloc::hwloc_topology_get_support(topo) };
        if !sup.is_null() {
            // SAFETY: non-NULL support struct of a loaded topology.
            let sup = unsafe { &*sup };
            tmp = format!(
                "{tmp}{sep}Bind CPU proc:   {}{sep}Bind CPU thread: {}",
                flag(sup.cpubind, hwloc::SUPPORT_SET_THISPROC),
                flag(sup.cpubind, hwloc::SUPPORT_SET_THISTHREAD)
            );
            tmp = format!(
                "{tmp}{sep}Bind MEM proc:   {}{sep}Bind MEM thread: {}",
                flag(sup.membind, hwloc::SUPPORT_SET_THISPROC),
                flag(sup.membind, hwloc::SUPPORT_SET_THISTHREAD)
            );
        }
    }
    out.push_str(&tmp);
    out.push('\n');
    let child_prefix = format!("{prefix}\t");
    for i in 0..o.arity as usize {
        // SAFETY: children holds arity valid objects.
        let child = unsafe { *o.children.add(i) };
        // SAFETY: child is an object of topo.
        unsafe { print_hwloc_obj(out, &child_prefix, topo, child) };
    }
}

/// The reference's text of a topology: its object tree.
///
/// # Safety
/// `topo` is a loaded hwloc topology.
pub unsafe fn topology_tree(topo: hwloc::hwloc_topology_t) -> Option<String> {
    // SAFETY: topo is loaded; depth 0 index 0 is its root.
    let root = unsafe { hwloc::hwloc_get_obj_by_depth(topo, 0, 0) };
    if root.is_null() {
        return None;
    }
    let mut out = String::new();
    // SAFETY: root belongs to topo.
    unsafe { print_hwloc_obj(&mut out, "", topo, root) };
    Some(out)
}

/// The hwloc services the core's printing and comparison need.
pub struct FfiHwloc;

impl pmix_core::print::Hwloc for FfiHwloc {
    fn topology_tree(&self, xml: &CStr) -> Option<String> {
        let topo = topology_from_xml(xml).ok()?;
        // SAFETY: topo was just loaded and is destroyed right after.
        let tree = unsafe { topology_tree(topo) };
        // SAFETY: ours, destroyed once.
        unsafe { hwloc::hwloc_topology_destroy(topo) };
        tree
    }
}
