//! Raw hwloc 2.x bindings (opaque handles as `*mut c_void`): the few
//! functions needed to carry `pmix_cpuset_t` bitmaps and `pmix_topology_t`
//! topologies, linked dynamically against the system's libhwloc (as the
//! reference library is), so that objects created by the host's hwloc and
//! by ours are interchangeable.
//!
//! Invariant: declarations only, matching hwloc 2.x's.
use std::ffi::{c_char, c_int, c_ulong, c_void};

pub type hwloc_bitmap_t = *mut c_void;
pub type hwloc_topology_t = *mut c_void;

pub const HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED: c_ulong = 1 << 0;
pub const HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM: c_ulong = 1 << 1;
pub const HWLOC_TYPE_FILTER_KEEP_IMPORTANT: c_int = 3;

/// The leading fields of `struct hwloc_obj` (hwloc 2.x ABI), up to the
/// cpuset; only ever read through pointers hwloc hands out.
#[repr(C)]
pub struct hwloc_obj {
    pub type_: c_int,
    pub subtype: *mut c_char,
    pub os_index: std::ffi::c_uint,
    pub name: *mut c_char,
    pub total_memory: u64,
    pub attr: *mut c_void,
    pub depth: c_int,
    pub logical_index: std::ffi::c_uint,
    pub next_cousin: *mut hwloc_obj,
    pub prev_cousin: *mut hwloc_obj,
    pub parent: *mut hwloc_obj,
    pub sibling_rank: std::ffi::c_uint,
    pub next_sibling: *mut hwloc_obj,
    pub prev_sibling: *mut hwloc_obj,
    pub arity: std::ffi::c_uint,
    pub children: *mut *mut hwloc_obj,
    pub first_child: *mut hwloc_obj,
    pub last_child: *mut hwloc_obj,
    pub symmetric_subtree: c_int,
    pub memory_arity: std::ffi::c_uint,
    pub memory_first_child: *mut hwloc_obj,
    pub io_arity: std::ffi::c_uint,
    pub io_first_child: *mut hwloc_obj,
    pub misc_arity: std::ffi::c_uint,
    pub misc_first_child: *mut hwloc_obj,
    pub cpuset: hwloc_bitmap_t,
}

/// `struct hwloc_topology_support`: pointers to arrays of flag bytes.
#[repr(C)]
pub struct hwloc_topology_support {
    pub discovery: *const u8,
    pub cpubind: *const u8,
    pub membind: *const u8,
    pub misc: *const u8,
}

/// `HWLOC_OBJ_MACHINE`.
pub const HWLOC_OBJ_MACHINE: c_int = 0;
/// Offsets of `set_thisproc_*bind` and `set_thisthread_*bind` in the
/// cpubind and membind support arrays.
pub const SUPPORT_SET_THISPROC: usize = 0;
pub const SUPPORT_SET_THISTHREAD: usize = 4;

#[link(name = "hwloc")]
extern "C" {
    pub fn hwloc_get_obj_by_depth(
        topology: hwloc_topology_t,
        depth: c_int,
        idx: std::ffi::c_uint,
    ) -> *mut hwloc_obj;
    pub fn hwloc_obj_type_snprintf(
        string: *mut c_char,
        size: usize,
        obj: *mut hwloc_obj,
        verbose: c_int,
    ) -> c_int;
    pub fn hwloc_obj_attr_snprintf(
        string: *mut c_char,
        size: usize,
        obj: *mut hwloc_obj,
        separator: *const c_char,
        verbose: c_int,
    ) -> c_int;
    pub fn hwloc_bitmap_snprintf(buf: *mut c_char, buflen: usize, bitmap: hwloc_bitmap_t) -> c_int;
    pub fn hwloc_topology_get_support(topology: hwloc_topology_t) -> *const hwloc_topology_support;
    pub fn hwloc_bitmap_alloc() -> hwloc_bitmap_t;
    pub fn hwloc_bitmap_free(bitmap: hwloc_bitmap_t);
    pub fn hwloc_bitmap_dup(bitmap: hwloc_bitmap_t) -> hwloc_bitmap_t;
    pub fn hwloc_bitmap_isequal(a: hwloc_bitmap_t, b: hwloc_bitmap_t) -> c_int;
    pub fn hwloc_bitmap_list_asprintf(strp: *mut *mut c_char, bitmap: hwloc_bitmap_t) -> c_int;
    pub fn hwloc_bitmap_list_sscanf(bitmap: hwloc_bitmap_t, string: *const c_char) -> c_int;

    pub fn hwloc_topology_init(topology: *mut hwloc_topology_t) -> c_int;
    pub fn hwloc_topology_load(topology: hwloc_topology_t) -> c_int;
    pub fn hwloc_topology_destroy(topology: hwloc_topology_t);
    pub fn hwloc_topology_dup(newtopo: *mut hwloc_topology_t, old: hwloc_topology_t) -> c_int;
    pub fn hwloc_topology_set_flags(topology: hwloc_topology_t, flags: c_ulong) -> c_int;
    pub fn hwloc_topology_set_io_types_filter(topology: hwloc_topology_t, filter: c_int) -> c_int;
    pub fn hwloc_topology_set_xmlbuffer(
        topology: hwloc_topology_t,
        buffer: *const c_char,
        size: c_int,
    ) -> c_int;
    pub fn hwloc_topology_export_xmlbuffer(
        topology: hwloc_topology_t,
        xmlbuffer: *mut *mut c_char,
        buflen: *mut c_int,
        flags: c_ulong,
    ) -> c_int;
    pub fn hwloc_free_xmlbuffer(topology: hwloc_topology_t, xmlbuffer: *mut c_char);
    pub fn hwloc_shmem_topology_get_length(
        topology: hwloc_topology_t,
        lengthp: *mut usize,
        flags: c_ulong,
    ) -> c_int;
}
