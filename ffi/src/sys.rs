//! `#[repr(C)]` mirrors of the types of `pmix_common.h` (OpenPMIx 4.2 ABI).
//!
//! Every struct, union and typedef a C caller can hand us, with the same
//! size, alignment and field offsets as the reference headers on x86_64
//! Linux (checked field by field by the `layout` test at the bottom, which
//! compiles a C program against a C header and compares). Names keep their C
//! spelling so that code reading like the C API is easy to check against it;
//! a field named `type` in C is `type_` here.
//!
//! The numeric constants at the end are generated from the reference header
//! and checked against it by the same test.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_void};

pub use libc::{pid_t, time_t, timeval};

use pmix_core::value::{DiskStats, NetStats, NodeStats, OptString, ProcStats, Timeval};
use pmix_core::Proc;

pub mod server;
pub use server::*;

// ---------------------------------------------------------------------------
// Scalar typedefs

pub type pmix_status_t = c_int;
pub type pmix_rank_t = u32;
pub type pmix_data_type_t = u16;
pub type pmix_proc_state_t = u8;
pub type pmix_job_state_t = u8;
pub type pmix_scope_t = u8;
pub type pmix_data_range_t = u8;
pub type pmix_persistence_t = u8;
pub type pmix_info_directives_t = u32;
pub type pmix_alloc_directive_t = u8;
pub type pmix_iof_channel_t = u16;
pub type pmix_storage_medium_t = u64;
pub type pmix_storage_accessibility_t = u64;
pub type pmix_storage_persistence_t = u64;
pub type pmix_storage_access_type_t = u16;
pub type pmix_coord_view_t = u8;
pub type pmix_link_state_t = u8;
pub type pmix_bind_envelope_t = u8;
pub type pmix_locality_t = u16;
pub type pmix_device_type_t = u64;

/// `pmix_nspace_t`: `char[PMIX_MAX_NSLEN + 1]`.
pub type pmix_nspace_t = [c_char; PMIX_MAX_NSLEN + 1];
/// `pmix_key_t`: `char[PMIX_MAX_KEYLEN + 1]`.
pub type pmix_key_t = [c_char; PMIX_MAX_KEYLEN + 1];

// C enums are `int`-sized.

/// `pmix_value_cmp_t`.
pub type pmix_value_cmp_t = c_int;
pub const PMIX_EQUAL: pmix_value_cmp_t = 0;
pub const PMIX_VALUE1_GREATER: pmix_value_cmp_t = 1;
pub const PMIX_VALUE2_GREATER: pmix_value_cmp_t = 2;
pub const PMIX_VALUE_TYPE_DIFFERENT: pmix_value_cmp_t = 3;
pub const PMIX_VALUE_INCOMPATIBLE_OBJECTS: pmix_value_cmp_t = 4;
pub const PMIX_VALUE_COMPARISON_NOT_AVAIL: pmix_value_cmp_t = 5;

/// `pmix_boolean_t`.
pub type pmix_boolean_t = c_int;
pub const PMIX_BOOL_TRUE: pmix_boolean_t = 0;
pub const PMIX_BOOL_FALSE: pmix_boolean_t = 1;
pub const PMIX_NON_BOOL: pmix_boolean_t = 2;

/// `pmix_group_opt_t`.
pub type pmix_group_opt_t = c_int;
pub const PMIX_GROUP_DECLINE: pmix_group_opt_t = 0;
pub const PMIX_GROUP_ACCEPT: pmix_group_opt_t = 1;

/// `pmix_group_operation_t`.
pub type pmix_group_operation_t = c_int;
pub const PMIX_GROUP_CONSTRUCT: pmix_group_operation_t = 0;
pub const PMIX_GROUP_DESTRUCT: pmix_group_operation_t = 1;

/// `pmix_fabric_operation_t`.
pub type pmix_fabric_operation_t = c_int;
pub const PMIX_FABRIC_REQUEST_INFO: pmix_fabric_operation_t = 0;
pub const PMIX_FABRIC_UPDATE_INFO: pmix_fabric_operation_t = 1;

// ---------------------------------------------------------------------------
// Structures

/// `pmix_coord_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_coord_t {
    pub view: pmix_coord_view_t,
    pub coord: *mut u32,
    pub dims: usize,
}

/// `pmix_cpuset_t`: `bitmap` is an `hwloc_bitmap_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_cpuset_t {
    pub source: *mut c_char,
    pub bitmap: *mut c_void,
}

/// `pmix_topology_t`: `topology` is an `hwloc_topology_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_topology_t {
    pub source: *mut c_char,
    pub topology: *mut c_void,
}

/// `pmix_geometry_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_geometry_t {
    pub fabric: usize,
    pub uuid: *mut c_char,
    pub osname: *mut c_char,
    pub coordinates: *mut pmix_coord_t,
    pub ncoords: usize,
}

/// `pmix_device_distance_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_device_distance_t {
    pub uuid: *mut c_char,
    pub osname: *mut c_char,
    pub type_: pmix_device_type_t,
    pub mindist: u16,
    pub maxdist: u16,
}

/// `pmix_byte_object_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_byte_object_t {
    pub bytes: *mut c_char,
    pub size: usize,
}

/// `pmix_endpoint_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_endpoint_t {
    pub uuid: *mut c_char,
    pub osname: *mut c_char,
    pub endpt: pmix_byte_object_t,
}

/// `pmix_envar_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_envar_t {
    pub envar: *mut c_char,
    pub value: *mut c_char,
    pub separator: c_char,
}

/// `pmix_proc_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_proc_t {
    pub nspace: pmix_nspace_t,
    pub rank: pmix_rank_t,
}

/// `pmix_proc_info_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_proc_info_t {
    pub proc_: pmix_proc_t,
    pub hostname: *mut c_char,
    pub executable_name: *mut c_char,
    pub pid: pid_t,
    pub exit_code: c_int,
    pub state: pmix_proc_state_t,
}

/// `pmix_data_array_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_data_array_t {
    pub type_: pmix_data_type_t,
    pub size: usize,
    pub array: *mut c_void,
}

/// `pmix_data_buffer_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_data_buffer_t {
    pub base_ptr: *mut c_char,
    pub pack_ptr: *mut c_char,
    pub unpack_ptr: *mut c_char,
    pub bytes_allocated: usize,
    pub bytes_used: usize,
}

// ---------------------------------------------------------------------------
// Statistics: `pmix_proc_stats_t`, `pmix_disk_stats_t`, `pmix_net_stats_t`,
// `pmix_node_stats_t`, declared from their one field list
// (`pmix_core::value::stats_structs`); [`CForm`] names the C type of each
// of the list's (core) field types.

/// The C type of a statistics field whose core type is `Self`.
pub trait CForm {
    type C;
}

impl CForm for OptString {
    type C = *mut c_char;
}

impl CForm for Proc {
    type C = pmix_proc_t;
}

impl CForm for Timeval {
    type C = timeval;
}

/// A process state, a `char` in C.
impl CForm for u8 {
    type C = c_char;
}

macro_rules! same_in_c {
    ($($t:ty),*) => {$(
        impl CForm for $t {
            type C = $t;
        }
    )*};
}
same_in_c!(u16, i32, u64, f32);

/// A list: a pointer to its first element (its count is a field of its
/// own, beside it).
impl<T: CForm> CForm for Vec<T> {
    type C = *mut T::C;
}

macro_rules! c_stats {
    ($( $core:ident / $stored:ident / $c:ident [$($eq:ident)?] {
        $( $f:ident : $t:ty $([count: $n:ident])? ),* $(,)?
    } )*) => {$(
        #[doc = concat!("`", stringify!($c), "`.")]
        #[repr(C)]
        #[derive(Clone, Copy)]
        pub struct $c {
            $( pub $f: <$t as CForm>::C, $( pub $n: usize, )? )*
        }

        impl CForm for $core {
            type C = $c;
        }
    )*};
}

pmix_core::value::stats_structs!(c_stats);

/// The `data` union of `pmix_value_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union pmix_value_data_t {
    pub flag: bool,
    pub byte: u8,
    pub string: *mut c_char,
    pub size: usize,
    pub pid: pid_t,
    pub integer: c_int,
    pub int8: i8,
    pub int16: i16,
    pub int32: i32,
    pub int64: i64,
    pub uint: u32,
    pub uint8: u8,
    pub uint16: u16,
    pub uint32: u32,
    pub uint64: u64,
    pub fval: f32,
    pub dval: f64,
    pub tv: timeval,
    pub time: time_t,
    pub status: pmix_status_t,
    pub rank: pmix_rank_t,
    pub nspace: *mut pmix_nspace_t,
    pub proc_: *mut pmix_proc_t,
    pub bo: pmix_byte_object_t,
    pub persist: pmix_persistence_t,
    pub scope: pmix_scope_t,
    pub range: pmix_data_range_t,
    pub state: pmix_proc_state_t,
    pub pinfo: *mut pmix_proc_info_t,
    pub darray: *mut pmix_data_array_t,
    pub ptr: *mut c_void,
    pub adir: pmix_alloc_directive_t,
    pub envar: pmix_envar_t,
    pub coord: *mut pmix_coord_t,
    pub linkstate: pmix_link_state_t,
    pub jstate: pmix_job_state_t,
    pub topo: *mut pmix_topology_t,
    pub cpuset: *mut pmix_cpuset_t,
    pub locality: pmix_locality_t,
    pub geometry: *mut pmix_geometry_t,
    pub devtype: pmix_device_type_t,
    pub devdist: *mut pmix_device_distance_t,
    pub endpoint: *mut pmix_endpoint_t,
    pub dbuf: *mut pmix_data_buffer_t,
    pub pstats: *mut pmix_proc_stats_t,
    pub dkstats: *mut pmix_disk_stats_t,
    pub netstats: *mut pmix_net_stats_t,
    pub ndstats: *mut pmix_node_stats_t,
}

/// `pmix_value_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_value_t {
    pub type_: pmix_data_type_t,
    pub data: pmix_value_data_t,
}

/// `pmix_info_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_info_t {
    pub key: pmix_key_t,
    pub flags: pmix_info_directives_t,
    pub value: pmix_value_t,
}

/// `pmix_pdata_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_pdata_t {
    pub proc_: pmix_proc_t,
    pub key: pmix_key_t,
    pub value: pmix_value_t,
}

/// `pmix_app_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_app_t {
    pub cmd: *mut c_char,
    pub argv: *mut *mut c_char,
    pub env: *mut *mut c_char,
    pub cwd: *mut c_char,
    pub maxprocs: c_int,
    pub info: *mut pmix_info_t,
    pub ninfo: usize,
}

/// `pmix_query_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_query_t {
    pub keys: *mut *mut c_char,
    pub qualifiers: *mut pmix_info_t,
    pub nqual: usize,
}

/// `pmix_regattr_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_regattr_t {
    pub name: *mut c_char,
    pub string: pmix_key_t,
    pub type_: pmix_data_type_t,
    pub description: *mut *mut c_char,
}

/// `pmix_fabric_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_fabric_t {
    pub name: *mut c_char,
    pub index: usize,
    pub info: *mut pmix_info_t,
    pub ninfo: usize,
    pub module: *mut c_void,
}

macro_rules! zeroed_default {
    ($($t:ty),* $(,)?) => {
        $(impl Default for $t {
            /// All bytes zero: what the header's `*_CONSTRUCT` macros produce
            /// (NULL pointers, zero counts, `PMIX_UNDEF` types).
            fn default() -> Self {
                // SAFETY: every field of this plain C struct (integers, floats,
                // raw pointers, arrays and unions of them, `bool`) is valid
                // when all its bytes are zero.
                unsafe { std::mem::zeroed() }
            }
        })*
    };
}

zeroed_default!(
    pmix_coord_t,
    pmix_cpuset_t,
    pmix_topology_t,
    pmix_geometry_t,
    pmix_device_distance_t,
    pmix_byte_object_t,
    pmix_endpoint_t,
    pmix_envar_t,
    pmix_proc_t,
    pmix_proc_info_t,
    pmix_data_array_t,
    pmix_data_buffer_t,
    pmix_proc_stats_t,
    pmix_disk_stats_t,
    pmix_net_stats_t,
    pmix_node_stats_t,
    pmix_value_t,
    pmix_info_t,
    pmix_pdata_t,
    pmix_app_t,
    pmix_query_t,
    pmix_regattr_t,
    pmix_fabric_t,
);

// ---------------------------------------------------------------------------
// Callback function types (pmix_common.h)

pub type pmix_release_cbfunc_t = Option<unsafe extern "C" fn(cbdata: *mut c_void)>;
pub type pmix_modex_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        data: *const c_char,
        ndata: usize,
        cbdata: *mut c_void,
        release_fn: pmix_release_cbfunc_t,
        release_cbdata: *mut c_void,
    ),
>;
/// The `pmix_nspace_t` parameter decays to `char *` in C.
pub type pmix_spawn_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, nspace: *mut c_char, cbdata: *mut c_void)>;
pub type pmix_op_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, cbdata: *mut c_void)>;
pub type pmix_lookup_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        data: *mut pmix_pdata_t,
        ndata: usize,
        cbdata: *mut c_void,
    ),
>;
pub type pmix_event_notification_cbfunc_fn_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        results: *mut pmix_info_t,
        nresults: usize,
        cbfunc: pmix_op_cbfunc_t,
        thiscbdata: *mut c_void,
        notification_cbdata: *mut c_void,
    ),
>;
pub type pmix_notification_fn_t = Option<
    unsafe extern "C" fn(
        evhdlr_registration_id: usize,
        status: pmix_status_t,
        source: *const pmix_proc_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        results: *mut pmix_info_t,
        nresults: usize,
        cbfunc: pmix_event_notification_cbfunc_fn_t,
        cbdata: *mut c_void,
    ),
>;
pub type pmix_hdlr_reg_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, refid: usize, cbdata: *mut c_void)>;
pub type pmix_evhdlr_reg_cbfunc_t = pmix_hdlr_reg_cbfunc_t;
pub type pmix_iof_cbfunc_t = Option<
    unsafe extern "C" fn(
        iofhdlr: usize,
        channel: u16,
        source: *mut pmix_proc_t,
        payload: *mut pmix_byte_object_t,
        info: *mut pmix_info_t,
        ninfo: usize,
    ),
>;
pub type pmix_value_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, kv: *mut pmix_value_t, cbdata: *mut c_void)>;
pub type pmix_info_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbdata: *mut c_void,
        release_fn: pmix_release_cbfunc_t,
        release_cbdata: *mut c_void,
    ),
>;
pub type pmix_credential_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        credential: *mut pmix_byte_object_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbdata: *mut c_void,
    ),
>;
pub type pmix_validation_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbdata: *mut c_void,
    ),
>;
pub type pmix_device_dist_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        dist: *mut pmix_device_distance_t,
        ndist: usize,
        cbdata: *mut c_void,
        release_fn: pmix_release_cbfunc_t,
        release_cbdata: *mut c_void,
    ),
>;

// ---------------------------------------------------------------------------
// hwloc: the few functions needed to carry `pmix_cpuset_t` bitmaps and
// `pmix_topology_t` topologies, linked dynamically against the system's
// libhwloc (as the reference library is), so that objects created by the
// host's hwloc and by ours are interchangeable.

/// Raw hwloc 2.x bindings (opaque handles as `*mut c_void`).
pub mod hwloc {
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
        pub fn hwloc_bitmap_snprintf(
            buf: *mut c_char,
            buflen: usize,
            bitmap: hwloc_bitmap_t,
        ) -> c_int;
        pub fn hwloc_topology_get_support(
            topology: hwloc_topology_t,
        ) -> *const hwloc_topology_support;
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
        pub fn hwloc_topology_set_io_types_filter(
            topology: hwloc_topology_t,
            filter: c_int,
        ) -> c_int;
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
}

// ---------------------------------------------------------------------------
// Numeric constants (generated from pmix_common.h and pmix_deprecated.h;
// every one is checked against the header by the layout test).

pub const PMIX_MAX_NSLEN: usize = 255;
pub const PMIX_MAX_KEYLEN: usize = 511;
pub const PMIX_RANK_UNDEF: pmix_rank_t = u32::MAX;
pub const PMIX_RANK_WILDCARD: pmix_rank_t = u32::MAX - 1;
pub const PMIX_RANK_LOCAL_NODE: pmix_rank_t = u32::MAX - 2;
pub const PMIX_RANK_LOCAL_PEERS: pmix_rank_t = u32::MAX - 4;
pub const PMIX_RANK_INVALID: pmix_rank_t = u32::MAX - 3;
pub const PMIX_RANK_VALID: pmix_rank_t = u32::MAX - 50;
pub const PMIX_APP_WILDCARD: u32 = u32::MAX;
pub const PMIX_PROC_STATE_UNDEF: pmix_proc_state_t = 0;
pub const PMIX_PROC_STATE_PREPPED: pmix_proc_state_t = 1;
pub const PMIX_PROC_STATE_LAUNCH_UNDERWAY: pmix_proc_state_t = 2;
pub const PMIX_PROC_STATE_RESTART: pmix_proc_state_t = 3;
pub const PMIX_PROC_STATE_TERMINATE: pmix_proc_state_t = 4;
pub const PMIX_PROC_STATE_RUNNING: pmix_proc_state_t = 5;
pub const PMIX_PROC_STATE_CONNECTED: pmix_proc_state_t = 6;
pub const PMIX_PROC_STATE_UNTERMINATED: pmix_proc_state_t = 15;
pub const PMIX_PROC_STATE_TERMINATED: pmix_proc_state_t = 20;
pub const PMIX_PROC_STATE_ERROR: pmix_proc_state_t = 50;
pub const PMIX_PROC_STATE_KILLED_BY_CMD: pmix_proc_state_t = PMIX_PROC_STATE_ERROR + 1;
pub const PMIX_PROC_STATE_ABORTED: pmix_proc_state_t = PMIX_PROC_STATE_ERROR + 2;
pub const PMIX_PROC_STATE_FAILED_TO_START: pmix_proc_state_t = PMIX_PROC_STATE_ERROR + 3;
pub const PMIX_PROC_STATE_ABORTED_BY_SIG: pmix_proc_state_t = PMIX_PROC_STATE_ERROR + 4;
pub const PMIX_PROC_STATE_TERM_WO_SYNC: pmix_proc_state_t = PMIX_PROC_STATE_ERROR + 5;
pub const PMIX_PROC_STATE_COMM_FAILED: pmix_proc_state_t = PMIX_PROC_STATE_ERROR + 6;
pub const PMIX_PROC_STATE_SENSOR_BOUND_EXCEEDED: pmix_proc_state_t = PMIX_PROC_STATE_ERROR + 7;
pub const PMIX_PROC_STATE_CALLED_ABORT: pmix_proc_state_t = PMIX_PROC_STATE_ERROR + 8;
pub const PMIX_PROC_STATE_HEARTBEAT_FAILED: pmix_proc_state_t = PMIX_PROC_STATE_ERROR + 9;
pub const PMIX_PROC_STATE_MIGRATING: pmix_proc_state_t = PMIX_PROC_STATE_ERROR + 10;
pub const PMIX_PROC_STATE_CANNOT_RESTART: pmix_proc_state_t = PMIX_PROC_STATE_ERROR + 11;
pub const PMIX_PROC_STATE_TERM_NON_ZERO: pmix_proc_state_t = PMIX_PROC_STATE_ERROR + 12;
pub const PMIX_PROC_STATE_FAILED_TO_LAUNCH: pmix_proc_state_t = PMIX_PROC_STATE_ERROR + 13;
pub const PMIX_JOB_STATE_UNDEF: pmix_job_state_t = 0;
pub const PMIX_JOB_STATE_AWAITING_ALLOC: pmix_job_state_t = 1;
pub const PMIX_JOB_STATE_LAUNCH_UNDERWAY: pmix_job_state_t = 2;
pub const PMIX_JOB_STATE_RUNNING: pmix_job_state_t = 3;
pub const PMIX_JOB_STATE_SUSPENDED: pmix_job_state_t = 4;
pub const PMIX_JOB_STATE_CONNECTED: pmix_job_state_t = 5;
pub const PMIX_JOB_STATE_UNTERMINATED: pmix_job_state_t = 15;
pub const PMIX_JOB_STATE_TERMINATED: pmix_job_state_t = 20;
pub const PMIX_JOB_STATE_TERMINATED_WITH_ERROR: pmix_job_state_t = 50;
pub const PMIX_SUCCESS: pmix_status_t = 0;
pub const PMIX_ERROR: pmix_status_t = -1;
pub const PMIX_ERR_PROC_RESTART: pmix_status_t = -4;
pub const PMIX_ERR_PROC_CHECKPOINT: pmix_status_t = -5;
pub const PMIX_ERR_PROC_MIGRATE: pmix_status_t = -6;
pub const PMIX_ERR_EXISTS: pmix_status_t = -11;
pub const PMIX_ERR_INVALID_CRED: pmix_status_t = -12;
pub const PMIX_ERR_WOULD_BLOCK: pmix_status_t = -15;
pub const PMIX_ERR_UNKNOWN_DATA_TYPE: pmix_status_t = -16;
pub const PMIX_ERR_TYPE_MISMATCH: pmix_status_t = -18;
pub const PMIX_ERR_UNPACK_INADEQUATE_SPACE: pmix_status_t = -19;
pub const PMIX_ERR_UNPACK_FAILURE: pmix_status_t = -20;
pub const PMIX_ERR_PACK_FAILURE: pmix_status_t = -21;
pub const PMIX_ERR_NO_PERMISSIONS: pmix_status_t = -23;
pub const PMIX_ERR_TIMEOUT: pmix_status_t = -24;
pub const PMIX_ERR_UNREACH: pmix_status_t = -25;
pub const PMIX_ERR_BAD_PARAM: pmix_status_t = -27;
pub const PMIX_ERR_RESOURCE_BUSY: pmix_status_t = -28;
pub const PMIX_ERR_OUT_OF_RESOURCE: pmix_status_t = -29;
pub const PMIX_ERR_INIT: pmix_status_t = -31;
pub const PMIX_ERR_NOMEM: pmix_status_t = -32;
pub const PMIX_ERR_NOT_FOUND: pmix_status_t = -46;
pub const PMIX_ERR_NOT_SUPPORTED: pmix_status_t = -47;
pub const PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED: pmix_status_t = -59;
pub const PMIX_ERR_COMM_FAILURE: pmix_status_t = -49;
pub const PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER: pmix_status_t = -50;
pub const PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES: pmix_status_t = -51;
pub const PMIX_ERR_PARTIAL_SUCCESS: pmix_status_t = -52;
pub const PMIX_ERR_DUPLICATE_KEY: pmix_status_t = -53;
pub const PMIX_ERR_EMPTY: pmix_status_t = -60;
pub const PMIX_ERR_LOST_CONNECTION: pmix_status_t = -61;
pub const PMIX_ERR_EXISTS_OUTSIDE_SCOPE: pmix_status_t = -62;
pub const PMIX_PROCESS_SET_DEFINE: pmix_status_t = -55;
pub const PMIX_PROCESS_SET_DELETE: pmix_status_t = -56;
pub const PMIX_DEBUGGER_RELEASE: pmix_status_t = -3;
pub const PMIX_READY_FOR_DEBUG: pmix_status_t = -58;
pub const PMIX_QUERY_PARTIAL_SUCCESS: pmix_status_t = -104;
pub const PMIX_JCTRL_CHECKPOINT: pmix_status_t = -106;
pub const PMIX_JCTRL_CHECKPOINT_COMPLETE: pmix_status_t = -107;
pub const PMIX_JCTRL_PREEMPT_ALERT: pmix_status_t = -108;
pub const PMIX_MONITOR_HEARTBEAT_ALERT: pmix_status_t = -109;
pub const PMIX_MONITOR_FILE_ALERT: pmix_status_t = -110;
pub const PMIX_PROC_TERMINATED: pmix_status_t = -111;
pub const PMIX_ERR_EVENT_REGISTRATION: pmix_status_t = -144;
pub const PMIX_MODEL_DECLARED: pmix_status_t = -147;
pub const PMIX_MODEL_RESOURCES: pmix_status_t = -151;
pub const PMIX_OPENMP_PARALLEL_ENTERED: pmix_status_t = -152;
pub const PMIX_OPENMP_PARALLEL_EXITED: pmix_status_t = -153;
pub const PMIX_LAUNCHER_READY: pmix_status_t = -155;
pub const PMIX_OPERATION_IN_PROGRESS: pmix_status_t = -156;
pub const PMIX_OPERATION_SUCCEEDED: pmix_status_t = -157;
pub const PMIX_ERR_INVALID_OPERATION: pmix_status_t = -158;
pub const PMIX_GROUP_INVITED: pmix_status_t = -159;
pub const PMIX_GROUP_LEFT: pmix_status_t = -160;
pub const PMIX_GROUP_INVITE_ACCEPTED: pmix_status_t = -161;
pub const PMIX_GROUP_INVITE_DECLINED: pmix_status_t = -162;
pub const PMIX_GROUP_INVITE_FAILED: pmix_status_t = -163;
pub const PMIX_GROUP_MEMBERSHIP_UPDATE: pmix_status_t = -164;
pub const PMIX_GROUP_CONSTRUCT_ABORT: pmix_status_t = -165;
pub const PMIX_GROUP_CONSTRUCT_COMPLETE: pmix_status_t = -166;
pub const PMIX_GROUP_LEADER_SELECTED: pmix_status_t = -167;
pub const PMIX_GROUP_LEADER_FAILED: pmix_status_t = -168;
pub const PMIX_GROUP_CONTEXT_ID_ASSIGNED: pmix_status_t = -169;
pub const PMIX_GROUP_MEMBER_FAILED: pmix_status_t = -170;
pub const PMIX_ERR_REPEAT_ATTR_REGISTRATION: pmix_status_t = -171;
pub const PMIX_ERR_IOF_FAILURE: pmix_status_t = -172;
pub const PMIX_ERR_IOF_COMPLETE: pmix_status_t = -173;
pub const PMIX_LAUNCH_COMPLETE: pmix_status_t = -174;
pub const PMIX_FABRIC_UPDATED: pmix_status_t = -175;
pub const PMIX_FABRIC_UPDATE_PENDING: pmix_status_t = -176;
pub const PMIX_FABRIC_UPDATE_ENDPOINTS: pmix_status_t = -113;
pub const PMIX_ERR_JOB_APP_NOT_EXECUTABLE: pmix_status_t = -177;
pub const PMIX_ERR_JOB_NO_EXE_SPECIFIED: pmix_status_t = -178;
pub const PMIX_ERR_JOB_FAILED_TO_MAP: pmix_status_t = -179;
pub const PMIX_ERR_JOB_CANCELED: pmix_status_t = -180;
pub const PMIX_ERR_JOB_FAILED_TO_LAUNCH: pmix_status_t = -181;
pub const PMIX_ERR_JOB_ABORTED: pmix_status_t = -182;
pub const PMIX_ERR_JOB_KILLED_BY_CMD: pmix_status_t = -183;
pub const PMIX_ERR_JOB_ABORTED_BY_SIG: pmix_status_t = -184;
pub const PMIX_ERR_JOB_TERM_WO_SYNC: pmix_status_t = -185;
pub const PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED: pmix_status_t = -186;
pub const PMIX_ERR_JOB_NON_ZERO_TERM: pmix_status_t = -187;
pub const PMIX_ERR_JOB_ALLOC_FAILED: pmix_status_t = -188;
pub const PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT: pmix_status_t = -189;
pub const PMIX_ERR_JOB_EXE_NOT_FOUND: pmix_status_t = -190;
pub const PMIX_ERR_JOB_WDIR_NOT_FOUND: pmix_status_t = -233;
pub const PMIX_ERR_JOB_INSUFFICIENT_RESOURCES: pmix_status_t = -234;
pub const PMIX_ERR_JOB_SYS_OP_FAILED: pmix_status_t = -235;
pub const PMIX_EVENT_JOB_START: pmix_status_t = -191;
pub const PMIX_EVENT_JOB_END: pmix_status_t = -145;
pub const PMIX_EVENT_SESSION_START: pmix_status_t = -192;
pub const PMIX_EVENT_SESSION_END: pmix_status_t = -193;
pub const PMIX_ERR_PROC_REQUESTED_ABORT: pmix_status_t = -8;
pub const PMIX_ERR_PROC_TERM_WO_SYNC: pmix_status_t = -200;
pub const PMIX_EVENT_PROC_TERMINATED: pmix_status_t = -201;
pub const PMIX_ERR_PROC_KILLED_BY_CMD: pmix_status_t = -400;
pub const PMIX_ERR_PROC_FAILED_TO_START: pmix_status_t = -401;
pub const PMIX_ERR_PROC_ABORTED_BY_SIG: pmix_status_t = -402;
pub const PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED: pmix_status_t = -403;
pub const PMIX_ERR_EXIT_NONZERO_TERM: pmix_status_t = -404;
pub const PMIX_EVENT_SYS_BASE: pmix_status_t = -230;
pub const PMIX_EVENT_NODE_DOWN: pmix_status_t = -231;
pub const PMIX_EVENT_NODE_OFFLINE: pmix_status_t = -232;
pub const PMIX_EVENT_SYS_OTHER: pmix_status_t = -330;
pub const PMIX_EVENT_NO_ACTION_TAKEN: pmix_status_t = -331;
pub const PMIX_EVENT_PARTIAL_ACTION_TAKEN: pmix_status_t = -332;
pub const PMIX_EVENT_ACTION_DEFERRED: pmix_status_t = -333;
pub const PMIX_EVENT_ACTION_COMPLETE: pmix_status_t = -334;
pub const PMIX_EXTERNAL_ERR_BASE: pmix_status_t = -3000;
pub const PMIX_UNDEF: pmix_data_type_t = 0;
pub const PMIX_BOOL: pmix_data_type_t = 1;
pub const PMIX_BYTE: pmix_data_type_t = 2;
pub const PMIX_STRING: pmix_data_type_t = 3;
pub const PMIX_SIZE: pmix_data_type_t = 4;
pub const PMIX_PID: pmix_data_type_t = 5;
pub const PMIX_INT: pmix_data_type_t = 6;
pub const PMIX_INT8: pmix_data_type_t = 7;
pub const PMIX_INT16: pmix_data_type_t = 8;
pub const PMIX_INT32: pmix_data_type_t = 9;
pub const PMIX_INT64: pmix_data_type_t = 10;
pub const PMIX_UINT: pmix_data_type_t = 11;
pub const PMIX_UINT8: pmix_data_type_t = 12;
pub const PMIX_UINT16: pmix_data_type_t = 13;
pub const PMIX_UINT32: pmix_data_type_t = 14;
pub const PMIX_UINT64: pmix_data_type_t = 15;
pub const PMIX_FLOAT: pmix_data_type_t = 16;
pub const PMIX_DOUBLE: pmix_data_type_t = 17;
pub const PMIX_TIMEVAL: pmix_data_type_t = 18;
pub const PMIX_TIME: pmix_data_type_t = 19;
pub const PMIX_STATUS: pmix_data_type_t = 20;
pub const PMIX_VALUE: pmix_data_type_t = 21;
pub const PMIX_PROC: pmix_data_type_t = 22;
pub const PMIX_APP: pmix_data_type_t = 23;
pub const PMIX_INFO: pmix_data_type_t = 24;
pub const PMIX_PDATA: pmix_data_type_t = 25;
pub const PMIX_BYTE_OBJECT: pmix_data_type_t = 27;
pub const PMIX_KVAL: pmix_data_type_t = 28;
pub const PMIX_PERSIST: pmix_data_type_t = 30;
pub const PMIX_POINTER: pmix_data_type_t = 31;
pub const PMIX_SCOPE: pmix_data_type_t = 32;
pub const PMIX_DATA_RANGE: pmix_data_type_t = 33;
pub const PMIX_COMMAND: pmix_data_type_t = 34;
pub const PMIX_INFO_DIRECTIVES: pmix_data_type_t = 35;
pub const PMIX_DATA_TYPE: pmix_data_type_t = 36;
pub const PMIX_PROC_STATE: pmix_data_type_t = 37;
pub const PMIX_PROC_INFO: pmix_data_type_t = 38;
pub const PMIX_DATA_ARRAY: pmix_data_type_t = 39;
pub const PMIX_PROC_RANK: pmix_data_type_t = 40;
pub const PMIX_QUERY: pmix_data_type_t = 41;
pub const PMIX_COMPRESSED_STRING: pmix_data_type_t = 42;
pub const PMIX_ALLOC_DIRECTIVE: pmix_data_type_t = 43;
pub const PMIX_IOF_CHANNEL: pmix_data_type_t = 45;
pub const PMIX_ENVAR: pmix_data_type_t = 46;
pub const PMIX_COORD: pmix_data_type_t = 47;
pub const PMIX_REGATTR: pmix_data_type_t = 48;
pub const PMIX_REGEX: pmix_data_type_t = 49;
pub const PMIX_JOB_STATE: pmix_data_type_t = 50;
pub const PMIX_LINK_STATE: pmix_data_type_t = 51;
pub const PMIX_PROC_CPUSET: pmix_data_type_t = 52;
pub const PMIX_GEOMETRY: pmix_data_type_t = 53;
pub const PMIX_DEVICE_DIST: pmix_data_type_t = 54;
pub const PMIX_ENDPOINT: pmix_data_type_t = 55;
pub const PMIX_TOPO: pmix_data_type_t = 56;
pub const PMIX_DEVTYPE: pmix_data_type_t = 57;
pub const PMIX_LOCTYPE: pmix_data_type_t = 58;
pub const PMIX_COMPRESSED_BYTE_OBJECT: pmix_data_type_t = 59;
pub const PMIX_PROC_NSPACE: pmix_data_type_t = 60;
pub const PMIX_PROC_STATS: pmix_data_type_t = 61;
pub const PMIX_DISK_STATS: pmix_data_type_t = 62;
pub const PMIX_NET_STATS: pmix_data_type_t = 63;
pub const PMIX_NODE_STATS: pmix_data_type_t = 64;
pub const PMIX_DATA_BUFFER: pmix_data_type_t = 65;
pub const PMIX_STOR_MEDIUM: pmix_data_type_t = 66;
pub const PMIX_STOR_ACCESS: pmix_data_type_t = 67;
pub const PMIX_STOR_PERSIST: pmix_data_type_t = 68;
pub const PMIX_STOR_ACCESS_TYPE: pmix_data_type_t = 69;
pub const PMIX_DATA_TYPE_MAX: pmix_data_type_t = 500;
pub const PMIX_SCOPE_UNDEF: pmix_scope_t = 0;
pub const PMIX_LOCAL: pmix_scope_t = 1;
pub const PMIX_REMOTE: pmix_scope_t = 2;
pub const PMIX_GLOBAL: pmix_scope_t = 3;
pub const PMIX_INTERNAL: pmix_scope_t = 4;
pub const PMIX_RANGE_UNDEF: pmix_data_range_t = 0;
pub const PMIX_RANGE_RM: pmix_data_range_t = 1;
pub const PMIX_RANGE_LOCAL: pmix_data_range_t = 2;
pub const PMIX_RANGE_NAMESPACE: pmix_data_range_t = 3;
pub const PMIX_RANGE_SESSION: pmix_data_range_t = 4;
pub const PMIX_RANGE_GLOBAL: pmix_data_range_t = 5;
pub const PMIX_RANGE_CUSTOM: pmix_data_range_t = 6;
pub const PMIX_RANGE_PROC_LOCAL: pmix_data_range_t = 7;
pub const PMIX_RANGE_INVALID: pmix_data_range_t = u8::MAX;
pub const PMIX_PERSIST_INDEF: pmix_persistence_t = 0;
pub const PMIX_PERSIST_FIRST_READ: pmix_persistence_t = 1;
pub const PMIX_PERSIST_PROC: pmix_persistence_t = 2;
pub const PMIX_PERSIST_APP: pmix_persistence_t = 3;
pub const PMIX_PERSIST_SESSION: pmix_persistence_t = 4;
pub const PMIX_PERSIST_INVALID: pmix_persistence_t = u8::MAX;
pub const PMIX_INFO_REQD: pmix_info_directives_t = 0x00000001;
pub const PMIX_INFO_ARRAY_END: pmix_info_directives_t = 0x00000002;
pub const PMIX_INFO_REQD_PROCESSED: pmix_info_directives_t = 0x00000004;
pub const PMIX_INFO_QUALIFIER: pmix_info_directives_t = 0x00000008;
pub const PMIX_INFO_PERSISTENT: pmix_info_directives_t = 0x00000010;
pub const PMIX_INFO_DIR_RESERVED: pmix_info_directives_t = 0xffff0000;
pub const PMIX_ALLOC_NEW: pmix_alloc_directive_t = 1;
pub const PMIX_ALLOC_EXTEND: pmix_alloc_directive_t = 2;
pub const PMIX_ALLOC_RELEASE: pmix_alloc_directive_t = 3;
pub const PMIX_ALLOC_REAQUIRE: pmix_alloc_directive_t = 4;
pub const PMIX_ALLOC_EXTERNAL: pmix_alloc_directive_t = 128;
pub const PMIX_FWD_NO_CHANNELS: pmix_iof_channel_t = 0x0000;
pub const PMIX_FWD_STDIN_CHANNEL: pmix_iof_channel_t = 0x0001;
pub const PMIX_FWD_STDOUT_CHANNEL: pmix_iof_channel_t = 0x0002;
pub const PMIX_FWD_STDERR_CHANNEL: pmix_iof_channel_t = 0x0004;
pub const PMIX_FWD_STDDIAG_CHANNEL: pmix_iof_channel_t = 0x0008;
pub const PMIX_FWD_ALL_CHANNELS: pmix_iof_channel_t = 0x00ff;
pub const PMIX_STORAGE_MEDIUM_UNKNOWN: pmix_storage_medium_t = 0x0000000000000001;
pub const PMIX_STORAGE_MEDIUM_TAPE: pmix_storage_medium_t = 0x0000000000000002;
pub const PMIX_STORAGE_MEDIUM_HDD: pmix_storage_medium_t = 0x0000000000000004;
pub const PMIX_STORAGE_MEDIUM_SSD: pmix_storage_medium_t = 0x0000000000000008;
pub const PMIX_STORAGE_MEDIUM_NVME: pmix_storage_medium_t = 0x0000000000000010;
pub const PMIX_STORAGE_MEDIUM_PMEM: pmix_storage_medium_t = 0x0000000000000020;
pub const PMIX_STORAGE_MEDIUM_RAM: pmix_storage_medium_t = 0x0000000000000040;
pub const PMIX_STORAGE_ACCESSIBILITY_NODE: pmix_storage_accessibility_t = 0x0000000000000001;
pub const PMIX_STORAGE_ACCESSIBILITY_SESSION: pmix_storage_accessibility_t = 0x0000000000000002;
pub const PMIX_STORAGE_ACCESSIBILITY_JOB: pmix_storage_accessibility_t = 0x0000000000000004;
pub const PMIX_STORAGE_ACCESSIBILITY_RACK: pmix_storage_accessibility_t = 0x0000000000000008;
pub const PMIX_STORAGE_ACCESSIBILITY_CLUSTER: pmix_storage_accessibility_t = 0x0000000000000010;
pub const PMIX_STORAGE_ACCESSIBILITY_REMOTE: pmix_storage_accessibility_t = 0x0000000000000020;
pub const PMIX_STORAGE_PERSISTENCE_TEMPORARY: pmix_storage_persistence_t = 0x0000000000000001;
pub const PMIX_STORAGE_PERSISTENCE_NODE: pmix_storage_persistence_t = 0x0000000000000002;
pub const PMIX_STORAGE_PERSISTENCE_SESSION: pmix_storage_persistence_t = 0x0000000000000004;
pub const PMIX_STORAGE_PERSISTENCE_JOB: pmix_storage_persistence_t = 0x0000000000000008;
pub const PMIX_STORAGE_PERSISTENCE_SCRATCH: pmix_storage_persistence_t = 0x0000000000000010;
pub const PMIX_STORAGE_PERSISTENCE_PROJECT: pmix_storage_persistence_t = 0x0000000000000020;
pub const PMIX_STORAGE_PERSISTENCE_ARCHIVE: pmix_storage_persistence_t = 0x0000000000000040;
pub const PMIX_STORAGE_ACCESS_RD: pmix_storage_access_type_t = 0x0001;
pub const PMIX_STORAGE_ACCESS_WR: pmix_storage_access_type_t = 0x0002;
pub const PMIX_STORAGE_ACCESS_RDWR: pmix_storage_access_type_t = 0x0003;
pub const PMIX_COORD_VIEW_UNDEF: pmix_coord_view_t = 0x00;
pub const PMIX_COORD_LOGICAL_VIEW: pmix_coord_view_t = 0x01;
pub const PMIX_COORD_PHYSICAL_VIEW: pmix_coord_view_t = 0x02;
pub const PMIX_LINK_STATE_UNKNOWN: pmix_link_state_t = 0;
pub const PMIX_LINK_DOWN: pmix_link_state_t = 1;
pub const PMIX_LINK_UP: pmix_link_state_t = 2;
pub const PMIX_CPUBIND_PROCESS: pmix_bind_envelope_t = 0;
pub const PMIX_CPUBIND_THREAD: pmix_bind_envelope_t = 1;
pub const PMIX_LOCALITY_UNKNOWN: pmix_locality_t = 0x0000;
pub const PMIX_LOCALITY_NONLOCAL: pmix_locality_t = 0x8000;
pub const PMIX_LOCALITY_SHARE_HWTHREAD: pmix_locality_t = 0x0001;
pub const PMIX_LOCALITY_SHARE_CORE: pmix_locality_t = 0x0002;
pub const PMIX_LOCALITY_SHARE_L1CACHE: pmix_locality_t = 0x0004;
pub const PMIX_LOCALITY_SHARE_L2CACHE: pmix_locality_t = 0x0008;
pub const PMIX_LOCALITY_SHARE_L3CACHE: pmix_locality_t = 0x0010;
pub const PMIX_LOCALITY_SHARE_PACKAGE: pmix_locality_t = 0x0020;
pub const PMIX_LOCALITY_SHARE_NUMA: pmix_locality_t = 0x0040;
pub const PMIX_LOCALITY_SHARE_NODE: pmix_locality_t = 0x4000;
pub const PMIX_DEVTYPE_UNKNOWN: pmix_device_type_t = 0x00;
pub const PMIX_DEVTYPE_BLOCK: pmix_device_type_t = 0x01;
pub const PMIX_DEVTYPE_GPU: pmix_device_type_t = 0x02;
pub const PMIX_DEVTYPE_NETWORK: pmix_device_type_t = 0x04;
pub const PMIX_DEVTYPE_OPENFABRICS: pmix_device_type_t = 0x08;
pub const PMIX_DEVTYPE_DMA: pmix_device_type_t = 0x10;
pub const PMIX_DEVTYPE_COPROC: pmix_device_type_t = 0x20;

// Deprecated names (pmix_deprecated.h), still part of the ABI.
pub const PMIX_BUFFER: pmix_data_type_t = 26;
pub const PMIX_ERR_SILENT: pmix_status_t = -2;
pub const PMIX_ERR_DEBUGGER_RELEASE: pmix_status_t = -3;
pub const PMIX_ERR_PROC_ABORTED: pmix_status_t = -7;
pub const PMIX_ERR_PROC_ABORTING: pmix_status_t = -9;
pub const PMIX_ERR_SERVER_FAILED_REQUEST: pmix_status_t = -10;
pub const PMIX_EXISTS: pmix_status_t = -11;
pub const PMIX_ERR_HANDSHAKE_FAILED: pmix_status_t = -13;
pub const PMIX_ERR_READY_FOR_HANDSHAKE: pmix_status_t = -14;
pub const PMIX_ERR_PROC_ENTRY_NOT_FOUND: pmix_status_t = -17;
pub const PMIX_ERR_PACK_MISMATCH: pmix_status_t = -22;
pub const PMIX_ERR_IN_ERRNO: pmix_status_t = -26;
pub const PMIX_ERR_DATA_VALUE_NOT_FOUND: pmix_status_t = -30;
pub const PMIX_ERR_INVALID_ARG: pmix_status_t = -33;
pub const PMIX_ERR_INVALID_KEY: pmix_status_t = -34;
pub const PMIX_ERR_INVALID_KEY_LENGTH: pmix_status_t = -35;
pub const PMIX_ERR_INVALID_VAL: pmix_status_t = -36;
pub const PMIX_ERR_INVALID_VAL_LENGTH: pmix_status_t = -37;
pub const PMIX_ERR_INVALID_LENGTH: pmix_status_t = -38;
pub const PMIX_ERR_INVALID_NUM_ARGS: pmix_status_t = -39;
pub const PMIX_ERR_INVALID_ARGS: pmix_status_t = -40;
pub const PMIX_ERR_INVALID_NUM_PARSED: pmix_status_t = -41;
pub const PMIX_ERR_INVALID_KEYVALP: pmix_status_t = -42;
pub const PMIX_ERR_INVALID_SIZE: pmix_status_t = -43;
pub const PMIX_ERR_INVALID_NAMESPACE: pmix_status_t = -44;
pub const PMIX_ERR_SERVER_NOT_AVAIL: pmix_status_t = -45;
pub const PMIX_ERR_NOT_IMPLEMENTED: pmix_status_t = -48;
pub const PMIX_DEBUG_WAITING_FOR_NOTIFY: pmix_status_t = -58;
pub const PMIX_ERR_FATAL: pmix_status_t = -63;
pub const PMIX_ERR_NOT_AVAILABLE: pmix_status_t = -64;
pub const PMIX_ERR_VALUE_OUT_OF_BOUNDS: pmix_status_t = -65;
pub const PMIX_ERR_FILE_OPEN_FAILURE: pmix_status_t = -67;
pub const PMIX_ERR_FILE_READ_FAILURE: pmix_status_t = -68;
pub const PMIX_ERR_FILE_WRITE_FAILURE: pmix_status_t = -69;
pub const PMIX_ERR_SYS_LIMITS_PIPES: pmix_status_t = -70;
pub const PMIX_ERR_SYS_LIMITS_CHILDREN: pmix_status_t = -71;
pub const PMIX_ERR_PIPE_SETUP_FAILURE: pmix_status_t = -72;
pub const PMIX_ERR_EXE_NOT_ACCESSIBLE: pmix_status_t = -73;
pub const PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE: pmix_status_t = -74;
pub const PMIX_ERR_SYS_LIMITS_FILES: pmix_status_t = -75;
pub const PMIX_ERR_LOST_CONNECTION_TO_SERVER: pmix_status_t = -101;
pub const PMIX_ERR_LOST_PEER_CONNECTION: pmix_status_t = -102;
pub const PMIX_ERR_LOST_CONNECTION_TO_CLIENT: pmix_status_t = -103;
pub const PMIX_NOTIFY_ALLOC_COMPLETE: pmix_status_t = -105;
pub const PMIX_ERR_INVALID_TERMINATION: pmix_status_t = -112;
pub const PMIX_ERR_JOB_TERMINATED: pmix_status_t = -145;
pub const PMIX_ERR_UPDATE_ENDPOINTS: pmix_status_t = -146;
pub const PMIX_GDS_ACTION_COMPLETE: pmix_status_t = -148;
pub const PMIX_PROC_HAS_CONNECTED: pmix_status_t = -149;
pub const PMIX_CONNECT_REQUESTED: pmix_status_t = -150;
pub const PMIX_ERR_NODE_DOWN: pmix_status_t = -231;
pub const PMIX_ERR_NODE_OFFLINE: pmix_status_t = -232;
pub const PMIX_JOB_STATE_PREPPED: pmix_job_state_t = 1;

#[cfg(test)]
mod layout {
    //! Compiles a C program against the reference headers (and against ours
    //! in `include/` once they exist) that prints the size, alignment and
    //! offsets of every type above and the value of every constant, and
    //! requires the Rust side to print exactly the same.
    use super::*;
    use std::collections::BTreeSet;
    use std::fmt::Write as _;
    use std::mem::{align_of, offset_of, size_of, MaybeUninit};
    use std::path::Path;
    use std::process::Command;

    include!("sys_layout_tables.rs");

    fn size_of_pointee<T>(_: *const T) -> usize {
        size_of::<T>()
    }

    struct Struct {
        name: &'static str,
        size: usize,
        align: usize,
        fields: Vec<(&'static str, usize, usize)>,
    }

    macro_rules! struct_layout {
        ($t:ident; $(($c:literal, $f:ident)),* $(,)?) => {{
            let u = MaybeUninit::<$t>::uninit();
            let p = u.as_ptr();
            Struct {
                name: stringify!($t),
                size: size_of::<$t>(),
                align: align_of::<$t>(),
                fields: vec![$((
                    $c,
                    offset_of!($t, $f),
                    // SAFETY: addr_of! only computes the address of a field
                    // of the (uninitialised but allocated) place; nothing is
                    // read.
                    size_of_pointee(unsafe { std::ptr::addr_of!((*p).$f) }),
                )),*],
            }
        }};
    }

    macro_rules! union_member {
        (($c:literal, $f:ident)) => {{
            let u = MaybeUninit::<pmix_value_t>::uninit();
            let p = u.as_ptr();
            (
                $c,
                offset_of!(pmix_value_t, data) + offset_of!(pmix_value_data_t, $f),
                // SAFETY: as above, only the address of a member is taken.
                size_of_pointee(unsafe { std::ptr::addr_of!((*p).data.$f) }),
            )
        }};
    }

    macro_rules! typedefs {
        ($($t:ident),* $(,)?) => {
            [$((stringify!($t), size_of::<$t>(), align_of::<$t>())),*]
        };
    }

    fn typedef_table() -> Vec<(&'static str, usize, usize)> {
        typedefs!(
            pmix_status_t,
            pmix_rank_t,
            pmix_data_type_t,
            pmix_proc_state_t,
            pmix_job_state_t,
            pmix_scope_t,
            pmix_data_range_t,
            pmix_persistence_t,
            pmix_info_directives_t,
            pmix_alloc_directive_t,
            pmix_iof_channel_t,
            pmix_storage_medium_t,
            pmix_storage_accessibility_t,
            pmix_storage_persistence_t,
            pmix_storage_access_type_t,
            pmix_coord_view_t,
            pmix_link_state_t,
            pmix_bind_envelope_t,
            pmix_locality_t,
            pmix_device_type_t,
            pmix_nspace_t,
            pmix_key_t,
            pmix_value_cmp_t,
            pmix_boolean_t,
            pmix_group_opt_t,
            pmix_group_operation_t,
            pmix_fabric_operation_t,
            pmix_release_cbfunc_t,
            pmix_modex_cbfunc_t,
            pmix_spawn_cbfunc_t,
            pmix_op_cbfunc_t,
            pmix_lookup_cbfunc_t,
            pmix_event_notification_cbfunc_fn_t,
            pmix_notification_fn_t,
            pmix_hdlr_reg_cbfunc_t,
            pmix_evhdlr_reg_cbfunc_t,
            pmix_value_cbfunc_t,
            pmix_info_cbfunc_t,
            pmix_credential_cbfunc_t,
            pmix_validation_cbfunc_t,
            pmix_device_dist_cbfunc_t,
        )
        .to_vec()
    }

    /// The lines the C program must print, computed from the Rust side.
    fn rust_lines() -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for s in layout_table!() {
            out.insert(format!("S {} {} {}", s.name, s.size, s.align));
            for (f, off, size) in s.fields {
                out.insert(format!("F {}.{} {} {}", s.name, f, off, size));
            }
        }
        for (f, off, size) in union_table!() {
            out.insert(format!("F pmix_value_t.data.{} {} {}", f, off, size));
        }
        for (t, size, align) in typedef_table() {
            out.insert(format!("T {} {} {}", t, size, align));
        }
        for (name, v) in const_table!() {
            out.insert(format!("C {} {}", name, v));
        }
        out
    }

    /// The C program printing the same lines from the headers.
    fn c_program() -> String {
        let mut c = String::from(
            "#include <stdio.h>\n#include <stddef.h>\n#include <stdalign.h>\n\
             #include <pmix_common.h>\n#include <pmix_deprecated.h>\n\
             #define S(t) printf(\"S %s %zu %zu\\n\", #t, sizeof(t), alignof(t))\n\
             #define T(t) printf(\"T %s %zu %zu\\n\", #t, sizeof(t), alignof(t))\n\
             #define F(t, f) printf(\"F %s.%s %zu %zu\\n\", #t, #f, offsetof(t, f), sizeof(((t *)0)->f))\n\
             #define C(n) printf(\"C %s %lld\\n\", #n, (long long)(n))\n\
             int main(void) {\n",
        );
        for s in layout_table!() {
            writeln!(c, "S({});", s.name).unwrap();
            for (f, _, _) in s.fields {
                writeln!(c, "F({}, {});", s.name, f).unwrap();
            }
        }
        for (f, _, _) in union_table!() {
            writeln!(c, "F(pmix_value_t, data.{});", f).unwrap();
        }
        for (t, _, _) in typedef_table() {
            writeln!(c, "T({});", t).unwrap();
        }
        for (name, _) in const_table!() {
            writeln!(c, "C({});", name).unwrap();
        }
        c.push_str("return 0;\n}\n");
        c
    }

    fn c_lines(include: &Path, tag: &str) -> BTreeSet<String> {
        let dir =
            std::env::temp_dir().join(format!("pmix-sys-layout-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join("layout.c");
        let exe = dir.join("layout");
        std::fs::write(&src, c_program()).unwrap();
        let out = Command::new("cc")
            .args(["-std=gnu11", "-w", "-I"])
            .arg(include)
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .output()
            .expect("run cc");
        assert!(
            out.status.success(),
            "cc failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new(&exe).output().expect("run layout program");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn compare(include: &Path, tag: &str) {
        let c = c_lines(include, tag);
        let r = rust_lines();
        let only_c: Vec<_> = c.difference(&r).collect();
        let only_r: Vec<_> = r.difference(&c).collect();
        assert!(
            only_c.is_empty() && only_r.is_empty(),
            "layout differs from {}:\nC says:\n{:#?}\nRust says:\n{:#?}",
            include.display(),
            only_c,
            only_r
        );
        assert!(r.len() > 500, "tables unexpectedly small: {}", r.len());
    }

    #[test]
    fn matches_reference_headers() {
        let inc = Path::new("/usr/lib/x86_64-linux-gnu/pmix2/include");
        if !inc.join("pmix_common.h").exists() {
            assert!(
                std::env::var("PMIX_REQUIRE_REFERENCE").as_deref() != Ok("1"),
                "PMIX_REQUIRE_REFERENCE=1 but the reference headers are not installed"
            );
            eprintln!("reference headers not installed; skipping");
            return;
        }
        compare(inc, "reference");
    }

    #[test]
    fn matches_our_headers() {
        let inc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../include");
        if !inc.join("pmix_common.h").exists() || !inc.join("pmix_deprecated.h").exists() {
            eprintln!("include/pmix_common.h not written yet; skipping");
            return;
        }
        compare(&inc, "ours");
    }

    /// The partial `struct hwloc_obj` and the support struct match the
    /// installed hwloc headers.
    #[test]
    fn hwloc_structs_match_header() {
        use super::hwloc::{hwloc_obj, hwloc_topology_support};
        if !Path::new("/usr/include/hwloc.h").exists() {
            eprintln!("hwloc headers not installed; skipping");
            return;
        }
        let dir = std::env::temp_dir().join(format!("pmix-sys-hwloc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join("hw.c");
        std::fs::write(
            &src,
            "#include <hwloc.h>\n#include <stdio.h>\n#include <stddef.h>\n\
             int main(void) { printf(\"%zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %d\\n\",\
             offsetof(struct hwloc_obj, type), offsetof(struct hwloc_obj, name),\
             offsetof(struct hwloc_obj, arity), offsetof(struct hwloc_obj, children),\
             offsetof(struct hwloc_obj, cpuset),\
             offsetof(struct hwloc_topology_support, cpubind),\
             offsetof(struct hwloc_topology_support, membind),\
             offsetof(struct hwloc_topology_cpubind_support, set_thisproc_cpubind),\
             offsetof(struct hwloc_topology_cpubind_support, set_thisthread_cpubind),\
             offsetof(struct hwloc_topology_membind_support, set_thisthread_membind),\
             (int) HWLOC_OBJ_MACHINE); return 0; }\n",
        )
        .unwrap();
        let exe = dir.join("hw");
        let out = Command::new("cc")
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .output()
            .expect("run cc");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new(&exe).output().expect("run");
        let _ = std::fs::remove_dir_all(&dir);
        let c = String::from_utf8(out.stdout).unwrap();
        let rust = format!(
            "{} {} {} {} {} {} {} {} {} {} {}\n",
            offset_of!(hwloc_obj, type_),
            offset_of!(hwloc_obj, name),
            offset_of!(hwloc_obj, arity),
            offset_of!(hwloc_obj, children),
            offset_of!(hwloc_obj, cpuset),
            offset_of!(hwloc_topology_support, cpubind),
            offset_of!(hwloc_topology_support, membind),
            super::hwloc::SUPPORT_SET_THISPROC,
            super::hwloc::SUPPORT_SET_THISTHREAD,
            super::hwloc::SUPPORT_SET_THISTHREAD,
            super::hwloc::HWLOC_OBJ_MACHINE,
        );
        assert_eq!(c, rust);
    }
}
