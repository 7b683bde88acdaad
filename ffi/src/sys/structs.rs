//! The structures and unions of `pmix_common.h` (`pmix_proc_t`,
//! `pmix_value_t`, `pmix_info_t`, the statistics structs declared from their
//! one field list, ...), the name arrays `pmix_nspace_t` and `pmix_key_t`,
//! and their all-zero `Default`.
//!
//! Invariant: size, alignment and field offsets equal the reference
//! headers' (checked by the `layout` test); `Default` is what the header's
//! `*_CONSTRUCT` macros produce.

use std::ffi::{c_char, c_int, c_void};

use libc::{pid_t, time_t, timeval};
use pmix_core::value::{DiskStats, NetStats, NodeStats, OptString, ProcStats, Timeval};
use pmix_core::Proc;

use super::constants::{PMIX_MAX_KEYLEN, PMIX_MAX_NSLEN};
use super::scalars::*;

// ---------------------------------------------------------------------------
// Structures

/// `pmix_nspace_t`: `char[PMIX_MAX_NSLEN + 1]`.
pub type pmix_nspace_t = [c_char; PMIX_MAX_NSLEN + 1];
/// `pmix_key_t`: `char[PMIX_MAX_KEYLEN + 1]`.
pub type pmix_key_t = [c_char; PMIX_MAX_KEYLEN + 1];

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
