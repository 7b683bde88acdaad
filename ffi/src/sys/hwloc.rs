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

/// `struct hwloc_obj` (hwloc 2.x ABI); only ever read through pointers
/// hwloc hands out.
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
    pub complete_cpuset: hwloc_bitmap_t,
    pub nodeset: hwloc_bitmap_t,
    pub complete_nodeset: hwloc_bitmap_t,
    pub infos: *mut hwloc_info_s,
    pub infos_count: std::ffi::c_uint,
    pub userdata: *mut c_void,
    pub gp_index: u64,
}

/// `struct hwloc_info_s`: one `name=value` info of an object.
#[repr(C)]
pub struct hwloc_info_s {
    pub name: *mut c_char,
    pub value: *mut c_char,
}

/// `hwloc_obj_type_t` values (hwloc 2.x).
pub const HWLOC_OBJ_PACKAGE: c_int = 1;
pub const HWLOC_OBJ_CORE: c_int = 2;
pub const HWLOC_OBJ_PU: c_int = 3;
pub const HWLOC_OBJ_L1CACHE: c_int = 4;
pub const HWLOC_OBJ_L2CACHE: c_int = 5;
pub const HWLOC_OBJ_L3CACHE: c_int = 6;
pub const HWLOC_OBJ_NUMANODE: c_int = 13;
/// `HWLOC_TYPE_DEPTH_NUMANODE`: the virtual depth of NUMA nodes.
pub const HWLOC_TYPE_DEPTH_NUMANODE: c_int = -3;
/// `hwloc_cpubind_flags_t`.
pub const HWLOC_CPUBIND_PROCESS: c_int = 1 << 0;
pub const HWLOC_CPUBIND_THREAD: c_int = 1 << 1;
/// `HWLOC_TYPE_DEPTH_OS_DEVICE`: the virtual depth of OS devices.
pub const HWLOC_TYPE_DEPTH_OS_DEVICE: c_int = -6;
/// `hwloc_obj_osdev_type_t` (hwloc 2.x): the first field of an OS
/// device's `attr` union (`attr->osdev.type`).
pub const HWLOC_OBJ_OSDEV_BLOCK: c_int = 0;
pub const HWLOC_OBJ_OSDEV_GPU: c_int = 1;
pub const HWLOC_OBJ_OSDEV_NETWORK: c_int = 2;
pub const HWLOC_OBJ_OSDEV_OPENFABRICS: c_int = 3;
pub const HWLOC_OBJ_OSDEV_DMA: c_int = 4;
pub const HWLOC_OBJ_OSDEV_COPROC: c_int = 5;

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
    pub fn hwloc_topology_get_depth(topology: hwloc_topology_t) -> c_int;
    pub fn hwloc_get_type_depth(topology: hwloc_topology_t, type_: c_int) -> c_int;
    pub fn hwloc_get_nbobjs_by_depth(topology: hwloc_topology_t, depth: c_int) -> std::ffi::c_uint;
    pub fn hwloc_get_depth_type(topology: hwloc_topology_t, depth: c_int) -> c_int;
    pub fn hwloc_get_cpubind(
        topology: hwloc_topology_t,
        set: hwloc_bitmap_t,
        flags: c_int,
    ) -> c_int;
    pub fn hwloc_bitmap_isfull(bitmap: hwloc_bitmap_t) -> c_int;
    pub fn hwloc_bitmap_intersects(a: hwloc_bitmap_t, b: hwloc_bitmap_t) -> c_int;
    pub fn hwloc_bitmap_isincluded(sub: hwloc_bitmap_t, sup: hwloc_bitmap_t) -> c_int;
    pub fn hwloc_bitmap_iszero(bitmap: hwloc_bitmap_t) -> c_int;
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
