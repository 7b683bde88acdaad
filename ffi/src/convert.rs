//! Deep, lossless conversions between the C structures of [`crate::sys`] and
//! the core crate's data model ([`Value`], [`Info`], [`Proc`], ...), and deep
//! destruction of C objects.
//!
//! Two C representations of a datum exist and both are handled here:
//!
//! * the **item** form: one element of a C array of type `t` — an element of
//!   a `pmix_data_array_t`, or one of the `num_vals` items handed to
//!   `PMIx_Data_pack`. Structured types are stored inline (`pmix_proc_t`,
//!   `pmix_info_t`, `pmix_cpuset_t`, ...), strings as `char *`. See
//!   [`item_size`] for the size of each; [`read_item`], [`write_item`],
//!   [`destruct_item`] and the array helpers [`read_items`],
//!   [`write_items`], [`free_items`] work on it.
//! * the **value** form: the `data` union of a `pmix_value_t`, where most
//!   structured types are held through a pointer to one malloc'd item
//!   (`data.proc`, `data.darray`, `data.ptr` for `pmix_regattr_t`, ...). See
//!   [`value_from_c`], [`value_write`] and [`value_destruct`].
//!
//! Invariants:
//! * Everything written for C is allocated with the `malloc` family, so the
//!   header macros (`PMIX_VALUE_DESTRUCT`, `PMIX_INFO_FREE`, `free()`) and the
//!   reference library release it, and [`destruct_item`] releases what the
//!   reference's macros allocate.
//! * Writers start from a zeroed slot and fill it field by field; on any
//!   error they destruct what they wrote, so a failed write leaks nothing and
//!   leaves a zeroed (`PMIX_UNDEF`, NULL) slot.
//! * Readers copy: the Rust result never borrows C memory.
//!
//! `PMIX_PROC_CPUSET` bitmaps and `PMIX_TOPO` topologies are hwloc objects
//! in C; in Rust they are the bitmap's list string (`0-3,8`) and the
//! topology's XML export. Objects whose `source` names another provider
//! than hwloc are opaque and refused with `PMIX_ERR_NOT_SUPPORTED`. As in the
//! reference, such objects are released only when their `source` names
//! hwloc (for an array, the first element's source decides, except that a
//! data array's own array of source-less elements, as
//! `PMIx_Data_array_create` makes them, is released); writers give a
//! bitmap or topology without a source the source "hwloc" for that reason.
//!
//! Element sizes are the natural C ones: `PMIX_POINTER` items are
//! `void *` (the reference's `PMIX_DATA_ARRAY_CONSTRUCT` allocates one byte
//! for them, a bug its pack/unpack do not share), `PMIX_REGEX` items are
//! `char *` (what `PMIx_Data_pack` reads).
//!
//! `PMIX_DATA_BUFFER` items carry the unread bytes (`unpack_ptr` to the end
//! of the used region); a written buffer owns a malloc'd copy of them.
//!
//! The value form has no member for `PMIX_VALUE`, `PMIX_INFO`, `PMIX_APP`,
//! `PMIX_PDATA`, `PMIX_QUERY` and `PMIX_KVAL` (the reference refuses them
//! too); those exist only as items. The scalar types the union also lacks
//! (`PMIX_COMMAND`, `PMIX_INFO_DIRECTIVES`, `PMIX_DATA_TYPE`,
//! `PMIX_IOF_CHANNEL`) are carried in the unsigned member of their width.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::mem::size_of;
use std::ptr::{self, null_mut};

use pmix_core::value::{
    App, Coord, Cpuset, DataArray, DeviceDistance, DiskStats, Endpoint, Envar, Geometry, NetStats,
    NodeStats, OptString, PData, ProcInfo, ProcStats, Query, RegAttr, Timeval, Topology,
};
use pmix_core::{DataType, Info, InfoDirectives, Key, Nspace, Proc, Rank, Status, Value};

use crate::boundary::{calloc_array, malloc_bytes, malloc_cstr};
use crate::sys::hwloc;
use crate::sys::*;

type Res<T> = Result<T, Status>;

// ---------------------------------------------------------------------------
// Strings, names, byte objects, argv

/// Copies a nullable C string.
///
/// # Safety
/// `p` is NULL or a valid NUL-terminated string.
pub unsafe fn opt_string_from_c(p: *const c_char) -> OptString {
    if p.is_null() {
        None
    } else {
        // SAFETY: p is a valid NUL-terminated string (caller's contract).
        Some(unsafe { CStr::from_ptr(p) }.to_owned())
    }
}

/// A malloc'd copy of a nullable string (NULL for `None`).
pub fn opt_string_to_c(s: &OptString) -> Res<*mut c_char> {
    match s {
        None => Ok(null_mut()),
        Some(s) => malloc_cstr(s),
    }
}

/// Frees a malloc'd string and sets the pointer to NULL.
///
/// # Safety
/// `*p` is NULL or was allocated with `malloc`.
unsafe fn free_str(p: &mut *mut c_char) {
    if !p.is_null() {
        // SAFETY: *p came from malloc (caller's contract) and is freed once.
        unsafe { libc::free(p.cast()) };
        *p = null_mut();
    }
}

/// The bytes of a fixed-size C name buffer, up to its first NUL and at most
/// `max` bytes (a buffer without NUL is truncated, as `PMIX_LOAD_KEY` does).
fn name_bytes(buf: &[c_char], max: usize) -> &[u8] {
    // SAFETY: c_char and u8 have the same size and alignment, and every bit
    // pattern is valid for both.
    let b = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), buf.len()) };
    let b = &b[..b.len().min(max)];
    match b.iter().position(|&c| c == 0) {
        Some(n) => &b[..n],
        None => b,
    }
}

/// Reads a `pmix_key_t`.
pub fn key_from_c(k: &pmix_key_t) -> Key {
    Key::new(name_bytes(k, PMIX_MAX_KEYLEN).to_vec()).unwrap_or_default()
}

/// Reads a key from a `char *` (NULL gives the empty key; longer than
/// `PMIX_MAX_KEYLEN` is truncated, as `PMIX_LOAD_KEY` does).
///
/// # Safety
/// `p` is NULL or a valid NUL-terminated string.
pub unsafe fn key_from_ptr(p: *const c_char) -> Key {
    if p.is_null() {
        return Key::default();
    }
    // SAFETY: p is a valid NUL-terminated string (caller's contract).
    Key::truncated(unsafe { CStr::from_ptr(p) })
}

/// Writes a key into a `pmix_key_t`, NUL-padded.
pub fn key_to_c(key: &Key, out: &mut pmix_key_t) {
    copy_name(key.as_bytes(), out);
}

/// Reads a `pmix_nspace_t`.
pub fn nspace_from_c(n: &pmix_nspace_t) -> Nspace {
    Nspace::new(name_bytes(n, PMIX_MAX_NSLEN).to_vec()).unwrap_or_default()
}

/// Writes a namespace into a `pmix_nspace_t`, NUL-padded.
pub fn nspace_to_c(ns: &Nspace, out: &mut pmix_nspace_t) {
    copy_name(ns.as_bytes(), out);
}

fn copy_name(src: &[u8], out: &mut [c_char]) {
    out.fill(0);
    let n = src.len().min(out.len() - 1);
    for (o, &b) in out.iter_mut().zip(&src[..n]) {
        *o = b as c_char;
    }
}

/// Reads a `pmix_proc_t`.
pub fn proc_from_c(p: &pmix_proc_t) -> Proc {
    Proc::new(nspace_from_c(&p.nspace), Rank(p.rank))
}

/// Builds a `pmix_proc_t`.
pub fn proc_to_c(p: &Proc) -> pmix_proc_t {
    let mut out = pmix_proc_t::default();
    nspace_to_c(&p.nspace, &mut out.nspace);
    out.rank = p.rank.0;
    out
}

/// Copies `size` bytes at `bytes` (NULL or size 0 give an empty vector).
///
/// # Safety
/// `bytes` is NULL or points to `size` readable bytes.
pub unsafe fn bytes_from_c(bytes: *const c_char, size: usize) -> Vec<u8> {
    if bytes.is_null() || size == 0 {
        Vec::new()
    } else {
        // SAFETY: bytes points to size readable bytes (caller's contract).
        unsafe { std::slice::from_raw_parts(bytes.cast::<u8>(), size) }.to_vec()
    }
}

/// A malloc'd copy of `b` (NULL for an empty slice).
pub fn bytes_to_c(b: &[u8]) -> Res<*mut c_char> {
    if b.is_empty() {
        return Ok(null_mut());
    }
    let p = malloc_bytes(b.len())?;
    // SAFETY: p holds b.len() fresh bytes; the regions are distinct.
    unsafe { ptr::copy_nonoverlapping(b.as_ptr(), p, b.len()) };
    Ok(p.cast())
}

/// Reads a `pmix_byte_object_t`.
pub fn bo_from_c(bo: &pmix_byte_object_t) -> Vec<u8> {
    // SAFETY: a byte object's bytes point to size bytes (or are NULL).
    unsafe { bytes_from_c(bo.bytes, bo.size) }
}

/// Builds a `pmix_byte_object_t` holding a malloc'd copy of `b`.
pub fn bo_to_c(b: &[u8]) -> Res<pmix_byte_object_t> {
    Ok(pmix_byte_object_t {
        bytes: bytes_to_c(b)?,
        size: b.len(),
    })
}

/// Frees a byte object's bytes and zeroes it.
///
/// # Safety
/// `bo.bytes` is NULL or malloc'd.
pub unsafe fn bo_destruct(bo: &mut pmix_byte_object_t) {
    // SAFETY: bytes is NULL or malloc'd (caller's contract).
    unsafe { free_str(&mut bo.bytes) };
    bo.size = 0;
}

/// Copies a NULL-terminated `char **` argv (NULL gives an empty vector).
///
/// # Safety
/// `p` is NULL or a NULL-terminated array of valid strings.
pub unsafe fn argv_from_c(p: *const *mut c_char) -> Vec<CString> {
    let mut out = Vec::new();
    if p.is_null() {
        return out;
    }
    let mut i = 0;
    loop {
        // SAFETY: the array is NULL-terminated, so every index up to and
        // including the terminator is readable.
        let s = unsafe { *p.add(i) };
        if s.is_null() {
            break;
        }
        // SAFETY: s is a valid NUL-terminated string.
        out.push(unsafe { CStr::from_ptr(s) }.to_owned());
        i += 1;
    }
    out
}

/// A malloc'd NULL-terminated argv copy of `v` (NULL for an empty vector).
pub fn argv_to_c(v: &[CString]) -> Res<*mut *mut c_char> {
    if v.is_empty() {
        return Ok(null_mut());
    }
    let arr = calloc_array::<*mut c_char>(v.len() + 1)?;
    for (i, s) in v.iter().enumerate() {
        match malloc_cstr(s) {
            // SAFETY: arr holds v.len() + 1 slots; i < v.len().
            Ok(c) => unsafe { *arr.add(i) = c },
            Err(e) => {
                // SAFETY: arr is a NULL-terminated argv of malloc'd strings
                // (the unfilled slots are still NULL from calloc).
                unsafe { argv_free(arr) };
                return Err(e);
            }
        }
    }
    Ok(arr)
}

/// Frees a malloc'd NULL-terminated argv and its strings.
///
/// # Safety
/// `p` is NULL or a malloc'd NULL-terminated array of malloc'd strings.
pub unsafe fn argv_free(p: *mut *mut c_char) {
    if p.is_null() {
        return;
    }
    let mut i = 0;
    loop {
        // SAFETY: NULL-terminated array (caller's contract).
        let s = unsafe { *p.add(i) };
        if s.is_null() {
            break;
        }
        // SAFETY: each string is malloc'd and freed once.
        unsafe { libc::free(s.cast()) };
        i += 1;
    }
    // SAFETY: the array itself is malloc'd.
    unsafe { libc::free(p.cast()) };
}

fn timeval_from_c(tv: &timeval) -> Timeval {
    Timeval {
        sec: tv.tv_sec,
        usec: tv.tv_usec,
    }
}

fn timeval_to_c(tv: &Timeval) -> timeval {
    timeval {
        tv_sec: tv.sec,
        tv_usec: tv.usec,
    }
}

// ---------------------------------------------------------------------------
// Item sizes and generic arrays

/// The size in bytes of one item of type `t` in a C array (what
/// `PMIX_DATA_ARRAY_CONSTRUCT` allocates per element, and what
/// `PMIx_Data_pack` reads per item), or `None` for types that have no C
/// item form (`PMIX_UNDEF`, `PMIX_KVAL`).
pub fn item_size(t: DataType) -> Option<usize> {
    use DataType as T;
    Some(match t {
        T::Undef | T::Kval => return None,
        T::Bool => size_of::<bool>(),
        T::Byte
        | T::Int8
        | T::Uint8
        | T::Persist
        | T::Scope
        | T::DataRange
        | T::Command
        | T::ProcState
        | T::AllocDirective
        | T::JobState
        | T::LinkState => 1,
        T::Int16 | T::Uint16 | T::DataType | T::IofChannel | T::LocType | T::StorAccessType => 2,
        T::Int | T::Uint | T::Int32 | T::Uint32 | T::Status | T::ProcRank | T::InfoDirectives => 4,
        T::Pid => size_of::<pid_t>(),
        T::Int64 | T::Uint64 | T::DevType | T::StorMedium | T::StorAccess | T::StorPersist => 8,
        T::Size => size_of::<usize>(),
        T::Float => size_of::<f32>(),
        T::Double => size_of::<f64>(),
        T::Timeval => size_of::<timeval>(),
        T::Time => size_of::<time_t>(),
        T::String | T::Regex | T::Pointer => size_of::<*mut c_void>(),
        T::Value => size_of::<pmix_value_t>(),
        T::Proc => size_of::<pmix_proc_t>(),
        T::App => size_of::<pmix_app_t>(),
        T::Info => size_of::<pmix_info_t>(),
        T::PData => size_of::<pmix_pdata_t>(),
        T::ByteObject | T::CompressedString | T::CompressedByteObject => {
            size_of::<pmix_byte_object_t>()
        }
        T::ProcInfo => size_of::<pmix_proc_info_t>(),
        T::DataArray => size_of::<pmix_data_array_t>(),
        T::Query => size_of::<pmix_query_t>(),
        T::Envar => size_of::<pmix_envar_t>(),
        T::Coord => size_of::<pmix_coord_t>(),
        T::RegAttr => size_of::<pmix_regattr_t>(),
        T::ProcCpuset => size_of::<pmix_cpuset_t>(),
        T::Geometry => size_of::<pmix_geometry_t>(),
        T::DeviceDist => size_of::<pmix_device_distance_t>(),
        T::Endpoint => size_of::<pmix_endpoint_t>(),
        T::Topo => size_of::<pmix_topology_t>(),
        T::ProcNspace => size_of::<pmix_nspace_t>(),
        T::ProcStats => size_of::<pmix_proc_stats_t>(),
        T::DiskStats => size_of::<pmix_disk_stats_t>(),
        T::NetStats => size_of::<pmix_net_stats_t>(),
        T::NodeStats => size_of::<pmix_node_stats_t>(),
        T::DataBuffer => size_of::<pmix_data_buffer_t>(),
    })
}

/// The item size, or the error the reference gives for a type it cannot
/// hold in an array.
fn item_size_or_err(t: DataType) -> Res<usize> {
    match t {
        DataType::Kval => Err(Status::ERR_NOT_SUPPORTED),
        _ => item_size(t).ok_or(Status::ERR_UNKNOWN_DATA_TYPE),
    }
}

/// Reads `n` items of type `t` from the C array at `p` (NULL or `n == 0`
/// give an empty vector).
///
/// # Safety
/// `p` is NULL or points to `n` valid, initialised items of type `t`.
pub unsafe fn read_items(t: DataType, p: *const c_void, n: usize) -> Res<Vec<Value>> {
    let size = item_size_or_err(t)?;
    if p.is_null() || n == 0 {
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(n.min(1 << 16));
    for i in 0..n {
        // SAFETY: p points to n items of `size` bytes each (caller's
        // contract), so item i starts at p + i * size.
        out.push(unsafe { read_item(t, p.cast::<u8>().add(i * size).cast()) }?);
    }
    Ok(out)
}

/// Reads `n` items from a raw data type tag (unknown tags give
/// `PMIX_ERR_UNKNOWN_DATA_TYPE`).
///
/// # Safety
/// As [`read_items`].
pub unsafe fn read_items_raw(t: pmix_data_type_t, p: *const c_void, n: usize) -> Res<Vec<Value>> {
    let t = DataType::try_from(t)?;
    // SAFETY: forwarded contract.
    unsafe { read_items(t, p, n) }
}

/// Writes `items` (each of type `t`) into a freshly calloc'd C array of
/// type `t`; NULL for an empty slice, of any type but `PMIX_KVAL` (an empty
/// `PMIX_UNDEF` array is valid: the reference packs and unpacks it). On
/// error nothing is left allocated. Release the result with [`free_items`].
pub fn write_items(t: DataType, items: &[Value]) -> Res<*mut c_void> {
    if items.is_empty() && t != DataType::Kval {
        return Ok(null_mut());
    }
    let size = item_size_or_err(t)?;
    let total = size.checked_mul(items.len()).ok_or(Status::ERR_NOMEM)?;
    let arr = calloc_array::<u8>(total)?;
    for (i, v) in items.iter().enumerate() {
        // SAFETY: slot i lies inside the zeroed allocation of total bytes.
        let slot = unsafe { arr.add(i * size) }.cast::<c_void>();
        // SAFETY: slot is a zeroed, writable item of type t.
        if let Err(e) = unsafe { write_item(t, v, slot) } {
            // SAFETY: items 0..i were written by write_item; item i was
            // cleaned up by it and the rest are still zero, which
            // destruct_item accepts.
            unsafe { free_items(t, arr.cast(), items.len()) };
            return Err(e);
        }
    }
    Ok(arr.cast())
}

/// Destructs `n` items of type `t` at `p` and frees the array.
///
/// # Safety
/// `p` is NULL or a malloc'd array of `n` items of type `t` whose payloads
/// are malloc'd (as [`write_items`] and the reference produce them).
pub unsafe fn free_items(t: DataType, p: *mut c_void, n: usize) {
    if p.is_null() {
        return;
    }
    // Arrays of cpusets and topologies are released only when the first
    // element's source names hwloc (otherwise the reference treats the
    // whole array as belonging to someone else).
    if n > 0 && matches!(t, DataType::ProcCpuset | DataType::Topo) {
        // SAFETY: both structs start with their `char *source`.
        let source = unsafe { *p.cast::<*const c_char>() };
        // SAFETY: source is NULL or a valid C string.
        if !unsafe { names_hwloc(source) } {
            return;
        }
    }
    // SAFETY: forwarded contract.
    unsafe { destruct_items(t, p, n) };
    // SAFETY: p is malloc'd and freed once.
    unsafe { libc::free(p) };
}

/// Destructs `n` items of type `t` at `p` in place (the array itself is not
/// freed).
///
/// # Safety
/// As [`free_items`].
pub unsafe fn destruct_items(t: DataType, p: *mut c_void, n: usize) {
    let Some(size) = item_size(t) else { return };
    if p.is_null() {
        return;
    }
    for i in 0..n {
        // SAFETY: item i lies inside the array (caller's contract).
        unsafe { destruct_item(t, p.cast::<u8>().add(i * size).cast()) };
    }
}

// ---------------------------------------------------------------------------
// One item

/// Reads a `$t` at `$p`; used inside an `unsafe` block whose caller
/// guarantees `$p` points to a valid item of that C type.
macro_rules! rd {
    ($p:expr, $t:ty) => {
        ptr::read_unaligned($p.cast::<$t>())
    };
}

/// Writes a `$t` at `$p`; used inside an `unsafe` block whose caller
/// guarantees `$p` is a writable item slot of that C type.
macro_rules! wr {
    ($p:expr, $t:ty, $v:expr) => {{
        let v: $t = $v;
        ptr::write_unaligned($p.cast::<$t>(), v)
    }};
}

/// Reads one item of type `t` at `p`.
///
/// # Safety
/// `p` points to a valid, initialised item of type `t` (see [`item_size`]).
pub unsafe fn read_item(t: DataType, p: *const c_void) -> Res<Value> {
    use DataType as T;
    // SAFETY: in every arm, p points to a valid item of the C type that `t`
    // selects (caller's contract); strings and nested pointers in it are
    // NULL or valid. Unaligned reads tolerate packed caller arrays.
    Ok(unsafe {
        match t {
            T::Undef => return Err(Status::ERR_UNKNOWN_DATA_TYPE),
            T::Kval => return Err(Status::ERR_NOT_SUPPORTED),
            T::Bool => Value::Bool(rd!(p, u8) != 0),
            T::Byte => Value::Byte(rd!(p, u8)),
            T::String => {
                let s = rd!(p, *const c_char);
                Value::String(opt_string_from_c(s))
            }
            T::Size => Value::Size(rd!(p, usize)),
            T::Pid => Value::Pid(rd!(p, pid_t)),
            T::Int => Value::Int(rd!(p, c_int)),
            T::Int8 => Value::Int8(rd!(p, i8)),
            T::Int16 => Value::Int16(rd!(p, i16)),
            T::Int32 => Value::Int32(rd!(p, i32)),
            T::Int64 => Value::Int64(rd!(p, i64)),
            T::Uint => Value::Uint(rd!(p, u32)),
            T::Uint8 => Value::Uint8(rd!(p, u8)),
            T::Uint16 => Value::Uint16(rd!(p, u16)),
            T::Uint32 => Value::Uint32(rd!(p, u32)),
            T::Uint64 => Value::Uint64(rd!(p, u64)),
            T::Float => Value::Float(rd!(p, f32)),
            T::Double => Value::Double(rd!(p, f64)),
            T::Timeval => Value::Timeval(timeval_from_c(&rd!(p, timeval))),
            T::Time => Value::Time(rd!(p, time_t)),
            T::Status => Value::Status(rd!(p, pmix_status_t)),
            T::Value => Value::Value(Box::new(value_from_c(p.cast())?)),
            T::Proc => Value::Proc(proc_from_c(&rd!(p, pmix_proc_t))),
            T::App => Value::App(Box::new(app_from_c(p.cast())?)),
            T::Info => Value::Info(Box::new(info_from_c(p.cast())?)),
            T::PData => Value::PData(Box::new(pdata_from_c(p.cast())?)),
            T::ByteObject => Value::ByteObject(bo_from_c(&rd!(p, pmix_byte_object_t))),
            T::CompressedString => Value::CompressedString(bo_from_c(&rd!(p, pmix_byte_object_t))),
            T::CompressedByteObject => {
                Value::CompressedByteObject(bo_from_c(&rd!(p, pmix_byte_object_t)))
            }
            T::Persist => Value::Persist(rd!(p, u8)),
            T::Pointer => Value::Pointer(rd!(p, usize)),
            T::Scope => Value::Scope(rd!(p, u8)),
            T::DataRange => Value::DataRange(rd!(p, u8)),
            T::Command => Value::Command(rd!(p, u8)),
            T::InfoDirectives => Value::InfoDirectives(rd!(p, u32)),
            T::DataType => Value::DataType(rd!(p, u16)),
            T::ProcState => Value::ProcState(rd!(p, u8)),
            T::ProcInfo => Value::ProcInfo(Box::new(proc_info_from_c(p.cast()))),
            T::DataArray => Value::DataArray(Box::new(data_array_from_c(p.cast())?)),
            T::ProcRank => Value::ProcRank(rd!(p, u32)),
            T::Query => Value::Query(Box::new(query_from_c(p.cast())?)),
            T::AllocDirective => Value::AllocDirective(rd!(p, u8)),
            T::IofChannel => Value::IofChannel(rd!(p, u16)),
            T::Envar => Value::Envar(envar_from_c(p.cast())),
            T::Coord => Value::Coord(Box::new(coord_from_c(p.cast()))),
            T::RegAttr => Value::RegAttr(Box::new(regattr_from_c(p.cast()))),
            T::Regex => {
                let s = rd!(p, *const c_char);
                Value::Regex(regex_from_c(s))
            }
            T::JobState => Value::JobState(rd!(p, u8)),
            T::LinkState => Value::LinkState(rd!(p, u8)),
            T::ProcCpuset => Value::Cpuset(Box::new(cpuset_from_c(p.cast())?)),
            T::Geometry => Value::Geometry(Box::new(geometry_from_c(p.cast()))),
            T::DeviceDist => Value::DeviceDist(Box::new(devdist_from_c(p.cast()))),
            T::Endpoint => Value::Endpoint(Box::new(endpoint_from_c(p.cast()))),
            T::Topo => Value::Topology(Box::new(topology_from_c(p.cast())?)),
            T::DevType => Value::DevType(rd!(p, u64)),
            T::LocType => Value::LocType(rd!(p, u16)),
            T::ProcNspace => Value::ProcNspace(nspace_from_c(&rd!(p, pmix_nspace_t))),
            T::ProcStats => Value::ProcStats(Box::new(stats_from_c(p.cast()))),
            T::DiskStats => Value::DiskStats(Box::new(stats_from_c(p.cast()))),
            T::NetStats => Value::NetStats(Box::new(stats_from_c(p.cast()))),
            T::NodeStats => Value::NodeStats(Box::new(stats_from_c(p.cast()))),
            T::DataBuffer => Value::DataBuffer(dbuf_from_c(p.cast())),
            T::StorMedium => Value::StorMedium(rd!(p, u64)),
            T::StorAccess => Value::StorAccess(rd!(p, u64)),
            T::StorPersist => Value::StorPersist(rd!(p, u64)),
            T::StorAccessType => Value::StorAccessType(rd!(p, u16)),
        }
    })
}

/// Writes `v` as one item of type `t` at `slot`, allocating its payload
/// with malloc. `v` must be the variant of `t` (else
/// `PMIX_ERR_TYPE_MISMATCH`). The slot is zeroed first; on error it is left
/// zeroed with nothing allocated.
///
/// # Safety
/// `slot` points to `item_size(t)` writable bytes that hold nothing that
/// needs releasing.
pub unsafe fn write_item(t: DataType, v: &Value, slot: *mut c_void) -> Res<()> {
    if v.data_type() != t {
        return Err(Status::ERR_TYPE_MISMATCH);
    }
    let size = item_size_or_err(t)?;
    // SAFETY: slot holds size writable bytes (caller's contract).
    unsafe { ptr::write_bytes(slot.cast::<u8>(), 0, size) };
    // SAFETY: forwarded contract; slot is zeroed.
    let r = unsafe { write_item_zeroed(v, slot) };
    if r.is_err() {
        // SAFETY: the writers leave the slot in a state destruct_item
        // accepts (fields written so far, the rest zero).
        unsafe { destruct_item(t, slot) };
        // SAFETY: as above, size writable bytes.
        unsafe { ptr::write_bytes(slot.cast::<u8>(), 0, size) };
    }
    r
}

/// # Safety
/// `slot` is a zeroed, writable item of `v.data_type()`.
unsafe fn write_item_zeroed(v: &Value, p: *mut c_void) -> Res<()> {
    // SAFETY: in every arm, p is a zeroed, writable item of the C type of `v`
    // (caller's contract).
    unsafe {
        match v {
            Value::Undef => return Err(Status::ERR_UNKNOWN_DATA_TYPE),
            Value::Kval(_) => return Err(Status::ERR_NOT_SUPPORTED),
            Value::Bool(b) => wr!(p, u8, u8::from(*b)),
            Value::Byte(x) | Value::Uint8(x) => wr!(p, u8, *x),
            Value::String(s) => wr!(p, *mut c_char, opt_string_to_c(s)?),
            Value::Size(x) => wr!(p, usize, *x),
            Value::Pid(x) => wr!(p, pid_t, *x),
            Value::Int(x) | Value::Int32(x) | Value::Status(x) => wr!(p, i32, *x),
            Value::Int8(x) => wr!(p, i8, *x),
            Value::Int16(x) => wr!(p, i16, *x),
            Value::Int64(x) | Value::Time(x) => wr!(p, i64, *x),
            Value::Uint(x) | Value::Uint32(x) | Value::ProcRank(x) | Value::InfoDirectives(x) => {
                wr!(p, u32, *x)
            }
            Value::Uint16(x)
            | Value::DataType(x)
            | Value::IofChannel(x)
            | Value::LocType(x)
            | Value::StorAccessType(x) => wr!(p, u16, *x),
            Value::Uint64(x)
            | Value::DevType(x)
            | Value::StorMedium(x)
            | Value::StorAccess(x)
            | Value::StorPersist(x) => wr!(p, u64, *x),
            Value::Float(x) => wr!(p, f32, *x),
            Value::Double(x) => wr!(p, f64, *x),
            Value::Timeval(tv) => wr!(p, timeval, timeval_to_c(tv)),
            Value::Persist(x)
            | Value::Scope(x)
            | Value::DataRange(x)
            | Value::Command(x)
            | Value::ProcState(x)
            | Value::AllocDirective(x)
            | Value::JobState(x)
            | Value::LinkState(x) => wr!(p, u8, *x),
            Value::Pointer(x) => wr!(p, usize, *x),
            Value::Value(inner) => value_write(inner, p.cast())?,
            Value::Proc(pr) => wr!(p, pmix_proc_t, proc_to_c(pr)),
            Value::App(a) => app_write(a, p.cast())?,
            Value::Info(i) => info_write(i, p.cast())?,
            Value::PData(d) => pdata_write(d, p.cast())?,
            Value::ByteObject(b) | Value::CompressedString(b) | Value::CompressedByteObject(b) => {
                wr!(p, pmix_byte_object_t, bo_to_c(b)?)
            }
            Value::ProcInfo(pi) => proc_info_write(pi, p.cast())?,
            Value::DataArray(d) => data_array_write(d, p.cast())?,
            Value::Query(q) => query_write(q, p.cast())?,
            Value::Envar(e) => envar_write(e, p.cast())?,
            Value::Coord(c) => coord_write(c, p.cast())?,
            Value::RegAttr(r) => regattr_write(r, p.cast())?,
            Value::Regex(r) => wr!(p, *mut c_char, regex_to_c(r)?),
            Value::Cpuset(c) => cpuset_write(c, p.cast())?,
            Value::Geometry(g) => geometry_write(g, p.cast())?,
            Value::DeviceDist(d) => devdist_write(d, p.cast())?,
            Value::Endpoint(e) => endpoint_write(e, p.cast())?,
            Value::Topology(t) => topology_write(t, p.cast())?,
            Value::ProcNspace(ns) => {
                let mut n: pmix_nspace_t = [0; PMIX_MAX_NSLEN + 1];
                nspace_to_c(ns, &mut n);
                wr!(p, pmix_nspace_t, n)
            }
            Value::ProcStats(s) => stats_write(&**s, p.cast())?,
            Value::DiskStats(s) => stats_write(&**s, p.cast())?,
            Value::NetStats(s) => stats_write(&**s, p.cast())?,
            Value::NodeStats(s) => stats_write(&**s, p.cast())?,
            Value::DataBuffer(b) => dbuf_write(b, p.cast())?,
        }
    }
    Ok(())
}

/// Releases the payload of one item of type `t` at `p` (what the
/// reference's `PMIX_*_DESTRUCT` macros and `PMIx_Data_array_destruct` free)
/// and leaves it without dangling pointers.
///
/// # Safety
/// `p` points to a valid item of type `t` whose payload was malloc'd (or is
/// NULL/zero).
pub unsafe fn destruct_item(t: DataType, p: *mut c_void) {
    use DataType as T;
    // SAFETY: in every arm, p points to a valid item of the matching C type
    // whose owned pointers are NULL or malloc'd (caller's contract).
    unsafe {
        match t {
            T::String | T::Regex => free_str(&mut *p.cast::<*mut c_char>()),
            T::Value => value_destruct(p.cast()),
            T::App => app_destruct(p.cast()),
            T::Info => info_destruct(p.cast()),
            T::PData => value_destruct(&mut (*p.cast::<pmix_pdata_t>()).value),
            T::ByteObject | T::CompressedString | T::CompressedByteObject => {
                bo_destruct(&mut *p.cast::<pmix_byte_object_t>())
            }
            T::ProcInfo => proc_info_destruct(p.cast()),
            T::DataArray => data_array_destruct(p.cast()),
            T::Query => query_destruct(p.cast()),
            T::Envar => envar_destruct(p.cast()),
            T::Coord => coord_destruct(p.cast()),
            T::RegAttr => regattr_destruct(p.cast()),
            T::ProcCpuset => cpuset_destruct(p.cast()),
            T::Geometry => geometry_destruct(p.cast()),
            T::DeviceDist => devdist_destruct(p.cast()),
            T::Endpoint => endpoint_destruct(p.cast()),
            T::Topo => topology_destruct(p.cast()),
            T::ProcStats => pstats_destruct(p.cast()),
            T::DiskStats => free_str(&mut (*p.cast::<pmix_disk_stats_t>()).disk),
            T::NetStats => free_str(&mut (*p.cast::<pmix_net_stats_t>()).net_interface),
            T::NodeStats => ndstats_destruct(p.cast()),
            T::DataBuffer => dbuf_destruct(p.cast()),
            _ => {}
        }
    }
}

/// Allocates one zeroed item of type `C` with malloc.
fn alloc_one<C>() -> Res<*mut C> {
    calloc_array::<C>(1)
}

// ---------------------------------------------------------------------------
// pmix_value_t

/// Reads a `pmix_value_t` (deep copy).
///
/// # Safety
/// `v` points to a valid `pmix_value_t` whose payload matches its type.
pub unsafe fn value_from_c(v: *const pmix_value_t) -> Res<Value> {
    use DataType as T;
    // SAFETY: v is valid (caller's contract).
    let v = unsafe { &*v };
    let t = DataType::try_from(v.type_)?;
    let d = &v.data;
    let dp = ptr::addr_of!(v.data).cast::<c_void>();
    // SAFETY: in every arm, the union member read is the one the type tag
    // selects, and pointer members point to one valid item or are NULL
    // (caller's contract).
    unsafe {
        Ok(match t {
            T::Undef => Value::Undef,
            T::Value | T::App | T::Info | T::PData | T::Query | T::Kval => {
                return Err(Status::ERR_NOT_SUPPORTED)
            }
            // Scalars and inline members: the union starts with the item.
            T::Bool
            | T::Byte
            | T::String
            | T::Size
            | T::Pid
            | T::Int
            | T::Int8
            | T::Int16
            | T::Int32
            | T::Int64
            | T::Uint
            | T::Uint8
            | T::Uint16
            | T::Uint32
            | T::Uint64
            | T::Float
            | T::Double
            | T::Timeval
            | T::Time
            | T::Status
            | T::ByteObject
            | T::CompressedString
            | T::CompressedByteObject
            | T::Persist
            | T::Pointer
            | T::Scope
            | T::DataRange
            | T::Command
            | T::InfoDirectives
            | T::DataType
            | T::ProcState
            | T::ProcRank
            | T::AllocDirective
            | T::IofChannel
            | T::Envar
            | T::JobState
            | T::LinkState
            | T::DevType
            | T::LocType
            | T::StorMedium
            | T::StorAccess
            | T::StorPersist
            | T::StorAccessType => read_item(t, dp)?,
            T::Regex => Value::Regex(bo_from_c(&d.bo)),
            T::ProcNspace => Value::ProcNspace(if d.nspace.is_null() {
                Nspace::default()
            } else {
                nspace_from_c(&*d.nspace)
            }),
            T::Proc => Value::Proc(if d.proc_.is_null() {
                Proc::default()
            } else {
                proc_from_c(&*d.proc_)
            }),
            T::ProcInfo => read_ptr_item(t, d.pinfo.cast(), || Value::ProcInfo(Box::default()))?,
            T::DataArray => read_ptr_item(t, d.darray.cast(), || {
                Value::DataArray(Box::new(DataArray {
                    elem_type: DataType::Undef,
                    items: Vec::new(),
                }))
            })?,
            T::Coord => read_ptr_item(t, d.coord.cast(), || Value::Coord(Box::default()))?,
            T::RegAttr => read_ptr_item(t, d.ptr, || Value::RegAttr(Box::default()))?,
            T::ProcCpuset => read_ptr_item(t, d.cpuset.cast(), || Value::Cpuset(Box::default()))?,
            T::Geometry => read_ptr_item(t, d.geometry.cast(), || Value::Geometry(Box::default()))?,
            T::DeviceDist => {
                read_ptr_item(t, d.devdist.cast(), || Value::DeviceDist(Box::default()))?
            }
            T::Endpoint => read_ptr_item(t, d.endpoint.cast(), || Value::Endpoint(Box::default()))?,
            T::Topo => read_ptr_item(t, d.topo.cast(), || Value::Topology(Box::default()))?,
            T::ProcStats => read_ptr_item(t, d.pstats.cast(), || Value::ProcStats(Box::default()))?,
            T::DiskStats => {
                read_ptr_item(t, d.dkstats.cast(), || Value::DiskStats(Box::default()))?
            }
            T::NetStats => read_ptr_item(t, d.netstats.cast(), || Value::NetStats(Box::default()))?,
            T::NodeStats => {
                read_ptr_item(t, d.ndstats.cast(), || Value::NodeStats(Box::default()))?
            }
            T::DataBuffer => read_ptr_item(t, d.dbuf.cast(), || Value::DataBuffer(Vec::new()))?,
        })
    }
}

/// Reads the item a value's pointer member points to, or `empty()` if NULL.
///
/// # Safety
/// `p` is NULL or points to a valid item of type `t`.
unsafe fn read_ptr_item(
    t: DataType,
    p: *const c_void,
    empty: impl FnOnce() -> Value,
) -> Res<Value> {
    if p.is_null() {
        Ok(empty())
    } else {
        // SAFETY: forwarded contract.
        unsafe { read_item(t, p) }
    }
}

/// Writes `v` into the `pmix_value_t` at `out` (type and payload),
/// allocating every payload with malloc so that `PMIx_Value_destruct`
/// releases it. Whatever `out` held before is overwritten, not released. On
/// error `out` is left as `PMIX_UNDEF` with nothing allocated.
///
/// # Safety
/// `out` points to a writable `pmix_value_t`.
pub unsafe fn value_write(v: &Value, out: *mut pmix_value_t) -> Res<()> {
    // SAFETY: out is writable (caller's contract).
    unsafe { out.write(pmix_value_t::default()) };
    // SAFETY: out now holds a zeroed value.
    let r = unsafe { value_write_zeroed(v, out) };
    if r.is_err() {
        // SAFETY: the writer leaves only malloc'd or NULL payloads.
        unsafe { value_destruct(out) };
    }
    r
}

/// Allocates one zeroed item `C`, stores it in the value's pointer member
/// through `set`, and writes `v` into it.
///
/// # Safety
/// `v` is of the item type `C` stands for.
unsafe fn write_ptr_item<C>(v: &Value, set: impl FnOnce(*mut C)) -> Res<()> {
    let p = alloc_one::<C>()?;
    set(p);
    // SAFETY: p is a zeroed item of the C type of v; once stored in the value
    // it is released by value_destruct if this fails.
    unsafe { write_item(v.data_type(), v, p.cast()) }
}

/// # Safety
/// `out` holds a zeroed `pmix_value_t`.
unsafe fn value_write_zeroed(v: &Value, out: *mut pmix_value_t) -> Res<()> {
    // SAFETY: out is valid and exclusively ours (caller's contract).
    let o = unsafe { &mut *out };
    let t = v.data_type();
    o.type_ = t.raw();
    let dp = ptr::addr_of_mut!(o.data).cast::<c_void>();
    // SAFETY: in every arm, the union member written is the one the type tag
    // selects; pointer members receive one freshly allocated item.
    unsafe {
        match v {
            Value::Undef => {}
            Value::Value(_)
            | Value::App(_)
            | Value::Info(_)
            | Value::PData(_)
            | Value::Query(_)
            | Value::Kval(_) => {
                o.type_ = PMIX_UNDEF;
                return Err(Status::ERR_NOT_SUPPORTED);
            }
            Value::Regex(r) => o.data.bo = bo_to_c(r)?,
            Value::ProcNspace(_) => write_ptr_item::<pmix_nspace_t>(v, |p| o.data.nspace = p)?,
            Value::Proc(_) => write_ptr_item::<pmix_proc_t>(v, |p| o.data.proc_ = p)?,
            Value::ProcInfo(_) => write_ptr_item::<pmix_proc_info_t>(v, |p| o.data.pinfo = p)?,
            Value::DataArray(_) => write_ptr_item::<pmix_data_array_t>(v, |p| o.data.darray = p)?,
            Value::Coord(_) => write_ptr_item::<pmix_coord_t>(v, |p| o.data.coord = p)?,
            Value::RegAttr(_) => write_ptr_item::<pmix_regattr_t>(v, |p| o.data.ptr = p.cast())?,
            Value::Cpuset(_) => write_ptr_item::<pmix_cpuset_t>(v, |p| o.data.cpuset = p)?,
            Value::Geometry(_) => write_ptr_item::<pmix_geometry_t>(v, |p| o.data.geometry = p)?,
            Value::DeviceDist(_) => {
                write_ptr_item::<pmix_device_distance_t>(v, |p| o.data.devdist = p)?
            }
            Value::Endpoint(_) => write_ptr_item::<pmix_endpoint_t>(v, |p| o.data.endpoint = p)?,
            Value::Topology(_) => write_ptr_item::<pmix_topology_t>(v, |p| o.data.topo = p)?,
            Value::ProcStats(_) => write_ptr_item::<pmix_proc_stats_t>(v, |p| o.data.pstats = p)?,
            Value::DiskStats(_) => write_ptr_item::<pmix_disk_stats_t>(v, |p| o.data.dkstats = p)?,
            Value::NetStats(_) => write_ptr_item::<pmix_net_stats_t>(v, |p| o.data.netstats = p)?,
            Value::NodeStats(_) => write_ptr_item::<pmix_node_stats_t>(v, |p| o.data.ndstats = p)?,
            Value::DataBuffer(_) => write_ptr_item::<pmix_data_buffer_t>(v, |p| o.data.dbuf = p)?,
            // Everything else is stored inline at the start of the union.
            _ => write_item_zeroed(v, dp)?,
        }
    }
    Ok(())
}

/// Releases the payload of a `pmix_value_t` and resets it to `PMIX_UNDEF`,
/// exactly as much as `PMIx_Value_destruct` does (types without a member in
/// the union, such as `PMIX_INFO`, hold nothing this library owns and are
/// only reset).
///
/// # Safety
/// `v` points to a valid `pmix_value_t` whose payload pointers are NULL or
/// malloc'd.
pub unsafe fn value_destruct(v: *mut pmix_value_t) {
    // SAFETY: v is valid (caller's contract).
    let v = unsafe { &mut *v };
    let d = &mut v.data;
    // SAFETY: in every arm, the member accessed is the one the tag selects and
    // its pointers are NULL or malloc'd (caller's contract).
    unsafe {
        match DataType::from_raw(v.type_) {
            Some(DataType::String) => free_str(&mut d.string),
            Some(DataType::ByteObject)
            | Some(DataType::CompressedString)
            | Some(DataType::CompressedByteObject)
            | Some(DataType::Regex) => bo_destruct(&mut d.bo),
            Some(DataType::Envar) => envar_destruct(&mut d.envar),
            Some(DataType::ProcNspace) => libc::free(d.nspace.cast()),
            Some(DataType::Proc) => libc::free(d.proc_.cast()),
            Some(t @ DataType::ProcInfo) => free_items(t, d.pinfo.cast(), 1),
            Some(t @ DataType::DataArray) => free_items(t, d.darray.cast(), 1),
            Some(t @ DataType::Coord) => free_items(t, d.coord.cast(), 1),
            Some(t @ DataType::RegAttr) => free_items(t, d.ptr, 1),
            Some(t @ DataType::ProcCpuset) => free_items(t, d.cpuset.cast(), 1),
            Some(t @ DataType::Geometry) => free_items(t, d.geometry.cast(), 1),
            Some(t @ DataType::DeviceDist) => free_items(t, d.devdist.cast(), 1),
            Some(t @ DataType::Endpoint) => free_items(t, d.endpoint.cast(), 1),
            Some(t @ DataType::Topo) => free_items(t, d.topo.cast(), 1),
            Some(t @ DataType::ProcStats) => free_items(t, d.pstats.cast(), 1),
            Some(t @ DataType::DiskStats) => free_items(t, d.dkstats.cast(), 1),
            Some(t @ DataType::NetStats) => free_items(t, d.netstats.cast(), 1),
            Some(t @ DataType::NodeStats) => free_items(t, d.ndstats.cast(), 1),
            Some(t @ DataType::DataBuffer) => free_items(t, d.dbuf.cast(), 1),
            _ => {}
        }
    }
    *v = pmix_value_t::default();
}

/// A malloc'd `pmix_value_t` holding `v` (release with
/// `PMIX_VALUE_RELEASE`).
pub fn value_to_c_new(v: &Value) -> Res<*mut pmix_value_t> {
    let p = alloc_one::<pmix_value_t>()?;
    // SAFETY: p is a fresh writable value.
    if let Err(e) = unsafe { value_write(v, p) } {
        // SAFETY: p is malloc'd and value_write left nothing in it.
        unsafe { libc::free(p.cast()) };
        return Err(e);
    }
    Ok(p)
}

// ---------------------------------------------------------------------------
// pmix_info_t, pmix_pdata_t

/// Reads a `pmix_info_t`.
///
/// # Safety
/// `i` points to a valid `pmix_info_t`.
pub unsafe fn info_from_c(i: *const pmix_info_t) -> Res<Info> {
    // SAFETY: i is valid (caller's contract).
    let i = unsafe { &*i };
    Ok(Info {
        key: key_from_c(&i.key),
        flags: InfoDirectives(i.flags),
        // SAFETY: the embedded value is valid.
        value: unsafe { value_from_c(&i.value) }?,
    })
}

/// Writes an info into a zeroed-or-garbage `pmix_info_t` (overwritten, not
/// released).
///
/// # Safety
/// `out` points to a writable `pmix_info_t`.
pub unsafe fn info_write(i: &Info, out: *mut pmix_info_t) -> Res<()> {
    // SAFETY: out is writable (caller's contract).
    let o = unsafe { &mut *out };
    key_to_c(&i.key, &mut o.key);
    o.flags = i.flags.0;
    // SAFETY: o.value is writable.
    unsafe { value_write(&i.value, &mut o.value) }
}

/// `PMIX_INFO_DESTRUCT`: releases the value unless the info is marked
/// `PMIX_INFO_PERSISTENT`.
///
/// # Safety
/// `i` points to a valid `pmix_info_t`.
pub unsafe fn info_destruct(i: *mut pmix_info_t) {
    // SAFETY: i is valid (caller's contract).
    let i = unsafe { &mut *i };
    if i.flags & PMIX_INFO_PERSISTENT == 0 {
        // SAFETY: the embedded value is valid.
        unsafe { value_destruct(&mut i.value) };
    }
}

/// Reads `n` infos.
///
/// # Safety
/// `p` is NULL or points to `n` valid infos.
pub unsafe fn infos_from_c(p: *const pmix_info_t, n: usize) -> Res<Vec<Info>> {
    let mut out = Vec::new();
    if p.is_null() {
        return Ok(out);
    }
    for k in 0..n {
        // SAFETY: k < n.
        out.push(unsafe { info_from_c(p.add(k)) }?);
    }
    Ok(out)
}

/// A calloc'd array of infos (NULL for none); release with [`infos_free`].
pub fn infos_to_c(infos: &[Info]) -> Res<*mut pmix_info_t> {
    if infos.is_empty() {
        return Ok(null_mut());
    }
    let arr = calloc_array::<pmix_info_t>(infos.len())?;
    for (k, i) in infos.iter().enumerate() {
        // SAFETY: k < len; the slot is zeroed.
        if let Err(e) = unsafe { info_write(i, arr.add(k)) } {
            // SAFETY: every slot is a written or zeroed info.
            unsafe { infos_free(arr, infos.len()) };
            return Err(e);
        }
    }
    Ok(arr)
}

/// `PMIX_INFO_FREE`.
///
/// # Safety
/// `p` is NULL or a malloc'd array of `n` valid infos.
pub unsafe fn infos_free(p: *mut pmix_info_t, n: usize) {
    // SAFETY: forwarded contract.
    unsafe { free_items(DataType::Info, p.cast(), n) }
}

/// # Safety
/// `p` points to a valid `pmix_pdata_t`.
unsafe fn pdata_from_c(p: *const pmix_pdata_t) -> Res<PData> {
    // SAFETY: p is valid (caller's contract).
    let p = unsafe { &*p };
    Ok(PData {
        proc: proc_from_c(&p.proc_),
        key: key_from_c(&p.key),
        // SAFETY: the embedded value is valid.
        value: unsafe { value_from_c(&p.value) }?,
    })
}

/// # Safety
/// `out` is a zeroed `pmix_pdata_t`.
unsafe fn pdata_write(d: &PData, out: *mut pmix_pdata_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.proc_ = proc_to_c(&d.proc);
    key_to_c(&d.key, &mut o.key);
    // SAFETY: o.value is writable.
    unsafe { value_write(&d.value, &mut o.value) }
}

// ---------------------------------------------------------------------------
// pmix_app_t, pmix_query_t

/// # Safety
/// `a` points to a valid `pmix_app_t`.
unsafe fn app_from_c(a: *const pmix_app_t) -> Res<App> {
    // SAFETY: a is valid and its pointers are valid or NULL.
    unsafe {
        let a = &*a;
        Ok(App {
            cmd: opt_string_from_c(a.cmd),
            argv: argv_from_c(a.argv),
            env: argv_from_c(a.env),
            cwd: opt_string_from_c(a.cwd),
            maxprocs: a.maxprocs,
            info: infos_from_c(a.info, a.ninfo)?,
        })
    }
}

/// # Safety
/// `out` is a zeroed `pmix_app_t`.
unsafe fn app_write(a: &App, out: *mut pmix_app_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.maxprocs = a.maxprocs;
    o.cmd = opt_string_to_c(&a.cmd)?;
    o.argv = argv_to_c(&a.argv)?;
    o.env = argv_to_c(&a.env)?;
    o.cwd = opt_string_to_c(&a.cwd)?;
    o.info = infos_to_c(&a.info)?;
    o.ninfo = a.info.len();
    Ok(())
}

/// `PMIX_APP_DESTRUCT`.
///
/// # Safety
/// `a` points to a valid app whose pointers are NULL or malloc'd.
unsafe fn app_destruct(a: *mut pmix_app_t) {
    // SAFETY: a is valid (caller's contract).
    unsafe {
        let a = &mut *a;
        free_str(&mut a.cmd);
        argv_free(a.argv);
        a.argv = null_mut();
        argv_free(a.env);
        a.env = null_mut();
        free_str(&mut a.cwd);
        infos_free(a.info, a.ninfo);
        a.info = null_mut();
        a.ninfo = 0;
    }
}

/// # Safety
/// `q` points to a valid `pmix_query_t`.
unsafe fn query_from_c(q: *const pmix_query_t) -> Res<Query> {
    // SAFETY: q is valid and its pointers are valid or NULL.
    unsafe {
        let q = &*q;
        Ok(Query {
            keys: argv_from_c(q.keys),
            qualifiers: infos_from_c(q.qualifiers, q.nqual)?,
        })
    }
}

/// # Safety
/// `out` is a zeroed `pmix_query_t`.
unsafe fn query_write(q: &Query, out: *mut pmix_query_t) -> Res<()> {
    // SAFETY: out is valid (caller's contract).
    let o = unsafe { &mut *out };
    o.keys = argv_to_c(&q.keys)?;
    o.qualifiers = infos_to_c(&q.qualifiers)?;
    o.nqual = q.qualifiers.len();
    Ok(())
}

/// `PMIX_QUERY_DESTRUCT`.
///
/// # Safety
/// `q` points to a valid query whose pointers are NULL or malloc'd.
unsafe fn query_destruct(q: *mut pmix_query_t) {
    // SAFETY: q is valid (caller's contract).
    unsafe {
        let q = &mut *q;
        argv_free(q.keys);
        q.keys = null_mut();
        infos_free(q.qualifiers, q.nqual);
        q.qualifiers = null_mut();
        q.nqual = 0;
    }
}

// ---------------------------------------------------------------------------
// pmix_proc_info_t, pmix_envar_t, pmix_coord_t, pmix_regattr_t

/// # Safety
/// `p` points to a valid `pmix_proc_info_t`.
unsafe fn proc_info_from_c(p: *const pmix_proc_info_t) -> ProcInfo {
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
unsafe fn proc_info_write(pi: &ProcInfo, out: *mut pmix_proc_info_t) -> Res<()> {
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
unsafe fn proc_info_destruct(p: *mut pmix_proc_info_t) {
    // SAFETY: p is valid (caller's contract).
    unsafe {
        free_str(&mut (*p).hostname);
        free_str(&mut (*p).executable_name);
    }
}

/// # Safety
/// `e` points to a valid `pmix_envar_t`.
unsafe fn envar_from_c(e: *const pmix_envar_t) -> Envar {
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
unsafe fn envar_write(e: &Envar, out: *mut pmix_envar_t) -> Res<()> {
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
unsafe fn coord_from_c(c: *const pmix_coord_t) -> Coord {
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
unsafe fn coord_write(c: &Coord, out: *mut pmix_coord_t) -> Res<()> {
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
unsafe fn coord_destruct(c: *mut pmix_coord_t) {
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
unsafe fn regattr_from_c(r: *const pmix_regattr_t) -> RegAttr {
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
unsafe fn regattr_write(r: &RegAttr, out: *mut pmix_regattr_t) -> Res<()> {
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
unsafe fn regattr_destruct(r: *mut pmix_regattr_t) {
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
unsafe fn regex_from_c(s: *const c_char) -> Vec<u8> {
    if s.is_null() {
        Vec::new()
    } else {
        // SAFETY: s is a valid C string.
        unsafe { CStr::from_ptr(s) }.to_bytes_with_nul().to_vec()
    }
}

fn regex_to_c(r: &[u8]) -> Res<*mut c_char> {
    if r.is_empty() {
        return Ok(null_mut());
    }
    let text = r.strip_suffix(&[0]).unwrap_or(r);
    let text = text.split(|&b| b == 0).next().unwrap_or(text);
    let c = CString::new(text).map_err(|_| Status::ERR_BAD_PARAM)?;
    malloc_cstr(&c)
}

// ---------------------------------------------------------------------------
// hwloc-backed: pmix_cpuset_t, pmix_topology_t

/// True if `source` is NULL or names hwloc (`strncasecmp(source, "hwloc", 5)`).
///
/// # Safety
/// `source` is NULL or a valid C string.
unsafe fn is_hwloc(source: *const c_char) -> bool {
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
fn source_or_hwloc(source: &OptString, has_object: bool) -> OptString {
    match source {
        None if has_object => Some(c"hwloc".to_owned()),
        s => s.clone(),
    }
}

/// # Safety
/// `c` points to a valid `pmix_cpuset_t` whose bitmap, if any, is an hwloc
/// bitmap.
unsafe fn cpuset_from_c(c: *const pmix_cpuset_t) -> Res<Cpuset> {
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
unsafe fn cpuset_write(c: &Cpuset, out: *mut pmix_cpuset_t) -> Res<()> {
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
unsafe fn topology_from_c(t: *const pmix_topology_t) -> Res<Topology> {
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
    let mut buf: *mut c_char = null_mut();
    let mut len: c_int = 0;
    // SAFETY: topology is a loaded hwloc topology; buf receives hwloc's
    // buffer, released with hwloc_free_xmlbuffer below.
    let rc = unsafe { hwloc::hwloc_topology_export_xmlbuffer(t.topology, &mut buf, &mut len, 0) };
    if rc != 0 || buf.is_null() {
        return Err(Status::ERROR);
    }
    // SAFETY: buf is a NUL-terminated XML string owned by hwloc.
    let xml = unsafe { CStr::from_ptr(buf) }.to_owned();
    // SAFETY: releases hwloc's buffer once.
    unsafe { hwloc::hwloc_free_xmlbuffer(t.topology, buf) };
    Ok(Topology {
        source,
        xml: Some(xml),
    })
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
unsafe fn topology_write(t: &Topology, out: *mut pmix_topology_t) -> Res<()> {
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
fn hwloc_text(size: usize, f: impl FnOnce(*mut c_char, usize) -> c_int) -> (c_int, String) {
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
unsafe fn print_hwloc_obj(
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

// ---------------------------------------------------------------------------
// pmix_geometry_t, pmix_device_distance_t, pmix_endpoint_t

/// # Safety
/// `g` points to a valid `pmix_geometry_t`.
unsafe fn geometry_from_c(g: *const pmix_geometry_t) -> Geometry {
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
unsafe fn geometry_write(g: &Geometry, out: *mut pmix_geometry_t) -> Res<()> {
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
unsafe fn geometry_destruct(g: *mut pmix_geometry_t) {
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
unsafe fn devdist_from_c(d: *const pmix_device_distance_t) -> DeviceDistance {
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
unsafe fn devdist_write(d: &DeviceDistance, out: *mut pmix_device_distance_t) -> Res<()> {
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
unsafe fn devdist_destruct(d: *mut pmix_device_distance_t) {
    // SAFETY: d is valid (caller's contract).
    unsafe {
        free_str(&mut (*d).uuid);
        free_str(&mut (*d).osname);
    }
}

/// # Safety
/// `e` points to a valid `pmix_endpoint_t`.
unsafe fn endpoint_from_c(e: *const pmix_endpoint_t) -> Endpoint {
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
unsafe fn endpoint_write(e: &Endpoint, out: *mut pmix_endpoint_t) -> Res<()> {
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
unsafe fn endpoint_destruct(e: *mut pmix_endpoint_t) {
    // SAFETY: e is valid (caller's contract).
    unsafe {
        free_str(&mut (*e).uuid);
        free_str(&mut (*e).osname);
        bo_destruct(&mut (*e).endpt);
    }
}

// ---------------------------------------------------------------------------
// Statistics

// The statistics structs between their C form and the core's, expanded
// from their one field list (`pmix_core::value::stats_structs`) through
// [`StatsC`], which converts one field type. A list (`[count: n]` in the
// field list) is a pointer and a count in C: [`list_from_c`] and
// [`list_write_c`].

/// A statistics struct, or a field type of one, read from and written to
/// its C form.
trait StatsC: CForm + Sized {
    /// # Safety
    /// `c` is a valid C value: its strings NUL-terminated or NULL, its
    /// lists NULL or of their stated count.
    unsafe fn from_c(c: &Self::C) -> Self;

    /// Writes `self` into `out` (zeroed). What it allocates (strings,
    /// lists) is `out`'s, for its destructor to free, also when it fails
    /// part way.
    fn write_c(&self, out: &mut Self::C) -> Res<()>;
}

impl StatsC for OptString {
    unsafe fn from_c(c: &*mut c_char) -> Self {
        // SAFETY: the caller's contract: NULL or NUL-terminated.
        unsafe { opt_string_from_c(*c) }
    }
    fn write_c(&self, out: &mut *mut c_char) -> Res<()> {
        *out = opt_string_to_c(self)?;
        Ok(())
    }
}

impl StatsC for Proc {
    unsafe fn from_c(c: &Self::C) -> Self {
        proc_from_c(c)
    }
    fn write_c(&self, out: &mut Self::C) -> Res<()> {
        *out = proc_to_c(self);
        Ok(())
    }
}

impl StatsC for Timeval {
    unsafe fn from_c(c: &Self::C) -> Self {
        timeval_from_c(c)
    }
    fn write_c(&self, out: &mut Self::C) -> Res<()> {
        *out = timeval_to_c(self);
        Ok(())
    }
}

impl StatsC for u8 {
    unsafe fn from_c(c: &c_char) -> Self {
        *c as u8
    }
    fn write_c(&self, out: &mut c_char) -> Res<()> {
        *out = *self as c_char;
        Ok(())
    }
}

macro_rules! same_in_c {
    ($($t:ty),*) => {$(
        impl StatsC for $t {
            unsafe fn from_c(c: &$t) -> Self {
                *c
            }
            fn write_c(&self, out: &mut $t) -> Res<()> {
                *out = *self;
                Ok(())
            }
        }
    )*};
}
same_in_c!(u16, i32, u64, f32);

/// The `n` elements at `p` (none if `p` is NULL).
///
/// # Safety
/// `p` is NULL or points to `n` valid elements (as [`StatsC::from_c`]).
unsafe fn list_from_c<T: StatsC>(p: *const T::C, n: usize) -> Vec<T> {
    if p.is_null() {
        return Vec::new();
    }
    // SAFETY: k < n elements at p, each valid (the caller's contract).
    (0..n).map(|k| unsafe { T::from_c(&*p.add(k)) }).collect()
}

/// Writes `v` as a new zeroed array in `ptr` and its length in `n`
/// (nothing for an empty list).
fn list_write_c<T: StatsC>(v: &[T], ptr: &mut *mut T::C, n: &mut usize) -> Res<()> {
    if v.is_empty() {
        return Ok(());
    }
    let arr = calloc_array::<T::C>(v.len())?;
    *ptr = arr;
    *n = v.len();
    for (k, x) in v.iter().enumerate() {
        // SAFETY: k < len of the array just allocated; the slot is zeroed,
        // a valid statistics struct (NULL pointers, zero numbers).
        x.write_c(unsafe { &mut *arr.add(k) })?;
    }
    Ok(())
}

macro_rules! field_from_c {
    ($c:ident . $f:ident) => {
        StatsC::from_c(&$c.$f)
    };
    ($c:ident . $f:ident [$n:ident]) => {
        list_from_c($c.$f, $c.$n)
    };
}

macro_rules! field_write_c {
    ($s:ident, $o:ident . $f:ident) => {
        $s.$f.write_c(&mut $o.$f)?
    };
    ($s:ident, $o:ident . $f:ident [$n:ident]) => {
        list_write_c(&$s.$f, &mut $o.$f, &mut $o.$n)?
    };
}

macro_rules! c_stats_conversions {
    ($( $core:ident / $stored:ident / $c:ident [$($eq:ident)?] {
        $( $f:ident : $t:ty $([count: $n:ident])? ),* $(,)?
    } )*) => {$(
        impl StatsC for $core {
            unsafe fn from_c(c: &$c) -> Self {
                // SAFETY: every field is valid (the caller's contract).
                unsafe { $core { $( $f: field_from_c!(c . $f $([$n])?), )* } }
            }
            fn write_c(&self, out: &mut $c) -> Res<()> {
                $( field_write_c!(self, out . $f $([$n])?); )*
                Ok(())
            }
        }
    )*};
}

pmix_core::value::stats_structs!(c_stats_conversions);

/// A statistics struct read from C.
///
/// # Safety
/// `p` points to a valid C statistics struct (as [`StatsC::from_c`]).
unsafe fn stats_from_c<T: StatsC>(p: *const T::C) -> T {
    // SAFETY: the caller's contract.
    unsafe { T::from_c(&*p) }
}

/// Writes a statistics struct into C.
///
/// # Safety
/// `out` points to a zeroed C statistics struct.
unsafe fn stats_write<T: StatsC>(s: &T, out: *mut T::C) -> Res<()> {
    // SAFETY: the caller's contract.
    s.write_c(unsafe { &mut *out })
}

/// # Safety
/// `s` points to valid proc stats whose strings are NULL or malloc'd.
unsafe fn pstats_destruct(s: *mut pmix_proc_stats_t) {
    // SAFETY: s is valid (caller's contract).
    unsafe {
        free_str(&mut (*s).node);
        free_str(&mut (*s).cmd);
    }
}

/// `PMIX_NODE_STATS_DESTRUCT`.
///
/// # Safety
/// `s` points to valid node stats whose pointers are NULL or malloc'd.
unsafe fn ndstats_destruct(s: *mut pmix_node_stats_t) {
    // SAFETY: s is valid (caller's contract).
    unsafe {
        let s = &mut *s;
        free_str(&mut s.node);
        free_items(DataType::DiskStats, s.diskstats.cast(), s.ndiskstats);
        s.diskstats = null_mut();
        s.ndiskstats = 0;
        free_items(DataType::NetStats, s.netstats.cast(), s.nnetstats);
        s.netstats = null_mut();
        s.nnetstats = 0;
    }
}

// ---------------------------------------------------------------------------
// pmix_data_buffer_t

/// The unread bytes of a data buffer (from `unpack_ptr` to the end of the
/// used region).
///
/// # Safety
/// `b` points to a valid data buffer whose pointers lie in one allocation.
unsafe fn dbuf_from_c(b: *const pmix_data_buffer_t) -> Vec<u8> {
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
unsafe fn dbuf_write(bytes: &[u8], out: *mut pmix_data_buffer_t) -> Res<()> {
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

// ---------------------------------------------------------------------------
// pmix_data_array_t

/// Reads a `pmix_data_array_t` (deep copy).
///
/// # Safety
/// `d` points to a valid data array: `array` is NULL or holds `size` valid
/// items of type `type`.
pub unsafe fn data_array_from_c(d: *const pmix_data_array_t) -> Res<DataArray> {
    // SAFETY: d is valid (caller's contract).
    let d = unsafe { &*d };
    let elem_type = DataType::try_from(d.type_)?;
    if d.size == 0 || d.array.is_null() {
        return Ok(DataArray {
            elem_type,
            items: Vec::new(),
        });
    }
    Ok(DataArray {
        elem_type,
        // SAFETY: forwarded contract.
        items: unsafe { read_items(elem_type, d.array, d.size) }?,
    })
}

/// Writes a data array into the `pmix_data_array_t` at `out` (overwritten,
/// not released); the element array is calloc'd.
///
/// # Safety
/// `out` points to a writable `pmix_data_array_t`.
pub unsafe fn data_array_write(d: &DataArray, out: *mut pmix_data_array_t) -> Res<()> {
    if d.items.iter().any(|v| v.data_type() != d.elem_type) {
        return Err(Status::ERR_TYPE_MISMATCH);
    }
    let array = write_items(d.elem_type, &d.items)?;
    // SAFETY: out is writable (caller's contract).
    unsafe {
        *out = pmix_data_array_t {
            type_: d.elem_type.raw(),
            size: d.items.len(),
            array,
        };
    }
    Ok(())
}

/// A malloc'd `pmix_data_array_t` (release with `PMIX_DATA_ARRAY_FREE`).
pub fn data_array_to_c_new(d: &DataArray) -> Res<*mut pmix_data_array_t> {
    let p = alloc_one::<pmix_data_array_t>()?;
    // SAFETY: p is a fresh writable data array.
    if let Err(e) = unsafe { data_array_write(d, p) } {
        // SAFETY: p is malloc'd and holds nothing.
        unsafe { libc::free(p.cast()) };
        return Err(e);
    }
    Ok(p)
}

/// `PMIx_Data_array_destruct`: releases the elements and the element array
/// and resets the array to `PMIX_UNDEF`, size 0. Unknown element types only
/// have their array freed.
///
/// # Safety
/// `d` points to a valid data array whose element array and payloads are
/// NULL or malloc'd.
pub unsafe fn data_array_destruct(d: *mut pmix_data_array_t) {
    // SAFETY: d is valid (caller's contract).
    let d = unsafe { &mut *d };
    let t = DataType::from_raw(d.type_);
    // SAFETY: read only for arrays of cpusets and topologies, which start
    // with their `char *source`, holding size > 0 of them.
    let sourceless = matches!(t, Some(DataType::ProcCpuset | DataType::Topo))
        && d.size > 0
        && !d.array.is_null()
        && unsafe { *d.array.cast::<*const c_char>() }.is_null();
    match t {
        Some(t @ (DataType::ProcCpuset | DataType::Topo)) if sourceless => {
            // Constructed elements (PMIx_Data_array_create's): the element
            // array is the data array's own, released as OpenPMIx 5 does.
            // SAFETY: forwarded contract; the array is malloc'd.
            unsafe {
                destruct_items(t, d.array, d.size);
                libc::free(d.array);
            }
        }
        // SAFETY: forwarded contract.
        Some(t) => unsafe { free_items(t, d.array, d.size) },
        None => {
            if !d.array.is_null() {
                // SAFETY: malloc'd element array.
                unsafe { libc::free(d.array) };
            }
        }
    }
    *d = pmix_data_array_t::default();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cs(s: &str) -> CString {
        CString::new(s).unwrap()
    }

    fn sample_values() -> Vec<Value> {
        let proc = Proc::new(Nspace::new("ns").unwrap(), Rank(3));
        let info = Info::new(Key::new("pmix.k").unwrap(), Value::Uint32(7));
        vec![
            Value::Bool(true),
            Value::Byte(9),
            Value::String(Some(cs("hello"))),
            Value::String(None),
            Value::Size(12),
            Value::Pid(-4),
            Value::Int(-5),
            Value::Int8(-6),
            Value::Int16(-7),
            Value::Int32(-8),
            Value::Int64(-9),
            Value::Uint(10),
            Value::Uint8(11),
            Value::Uint16(12),
            Value::Uint32(13),
            Value::Uint64(14),
            Value::Float(1.5),
            Value::Double(2.25),
            Value::Timeval(Timeval { sec: 3, usec: 4 }),
            Value::Time(99),
            Value::Status(-27),
            Value::Proc(proc.clone()),
            Value::ByteObject(vec![1, 2, 0, 3]),
            Value::Persist(2),
            Value::Pointer(0x1234),
            Value::Scope(1),
            Value::DataRange(3),
            Value::Command(4),
            Value::InfoDirectives(0x11),
            Value::DataType(3),
            Value::ProcState(5),
            Value::ProcInfo(Box::new(ProcInfo {
                proc: proc.clone(),
                hostname: Some(cs("host")),
                executable_name: None,
                pid: 42,
                exit_code: 1,
                state: 20,
            })),
            Value::DataArray(Box::new(DataArray {
                elem_type: DataType::Info,
                items: vec![Value::Info(Box::new(info.clone()))],
            })),
            Value::ProcRank(17),
            Value::CompressedString(vec![5, 6]),
            Value::AllocDirective(2),
            Value::IofChannel(3),
            Value::Envar(Envar {
                envar: Some(cs("PATH")),
                value: Some(cs("/bin")),
                separator: b':',
            }),
            Value::Coord(Box::new(Coord {
                view: 1,
                coord: vec![1, 2, 3],
            })),
            Value::RegAttr(Box::new(RegAttr {
                name: Some(cs("PMIX_RANK")),
                string: Key::new("pmix.rank").unwrap(),
                data_type: 40,
                description: vec![cs("a"), cs("b")],
            })),
            Value::Regex(b"pmix[a]\0".to_vec()),
            Value::JobState(3),
            Value::LinkState(2),
            Value::Cpuset(Box::new(Cpuset {
                source: Some(cs("hwloc")),
                bitmap: Some(cs("0-3,8")),
            })),
            Value::Geometry(Box::new(Geometry {
                fabric: 2,
                uuid: Some(cs("u")),
                osname: None,
                coordinates: vec![Coord {
                    view: 2,
                    coord: vec![4],
                }],
            })),
            Value::DeviceDist(Box::new(DeviceDistance {
                uuid: None,
                osname: Some(cs("eth0")),
                dev_type: 4,
                mindist: 1,
                maxdist: 9,
            })),
            Value::Endpoint(Box::new(Endpoint {
                uuid: Some(cs("x")),
                osname: None,
                endpt: vec![7, 7],
            })),
            Value::DevType(8),
            Value::LocType(0x40),
            Value::CompressedByteObject(vec![9]),
            Value::ProcNspace(Nspace::new("nspace-x").unwrap()),
            Value::ProcStats(Box::new(ProcStats {
                node: Some(cs("n")),
                cmd: Some(cs("c")),
                proc,
                pid: 1,
                state: b'R',
                ..Default::default()
            })),
            Value::DiskStats(Box::new(DiskStats {
                disk: Some(cs("sda")),
                num_reads_completed: 5,
                ..Default::default()
            })),
            Value::NetStats(Box::new(NetStats {
                net_interface: Some(cs("lo")),
                num_send_errs: 2,
                ..Default::default()
            })),
            Value::NodeStats(Box::new(NodeStats {
                node: Some(cs("node")),
                la: 0.5,
                diskstats: vec![DiskStats::default()],
                netstats: vec![NetStats::default(), NetStats::default()],
                ..Default::default()
            })),
            Value::DataBuffer(vec![1, 2, 3]),
            Value::StorMedium(1),
            Value::StorAccess(2),
            Value::StorPersist(4),
            Value::StorAccessType(3),
            Value::Value(Box::new(Value::Uint8(1))),
            Value::Info(Box::new(info.clone())),
            Value::App(Box::new(App {
                cmd: Some(cs("hostname")),
                argv: vec![cs("hostname"), cs("-f")],
                env: vec![cs("A=1")],
                cwd: None,
                maxprocs: 2,
                info: vec![info.clone()],
            })),
            Value::PData(Box::default()),
            Value::Query(Box::new(Query {
                keys: vec![cs("k1")],
                qualifiers: vec![info],
            })),
        ]
    }

    fn in_value_form(v: &Value) -> bool {
        !matches!(
            v,
            Value::Value(_)
                | Value::Info(_)
                | Value::App(_)
                | Value::PData(_)
                | Value::Query(_)
                | Value::Kval(_)
        )
    }

    #[test]
    fn items_round_trip() {
        for v in sample_values() {
            let t = v.data_type();
            let arr = write_items(t, &[v.clone(), v.clone()]).unwrap();
            // SAFETY: arr holds two items of type t written above.
            let back = unsafe { read_items(t, arr, 2) }.unwrap();
            // SAFETY: as above.
            unsafe { free_items(t, arr, 2) };
            assert_eq!(back, vec![v.clone(), v], "{t:?}");
        }
    }

    #[test]
    fn values_round_trip() {
        for v in sample_values().into_iter().filter(in_value_form) {
            let mut c = pmix_value_t::default();
            // SAFETY: c is a writable value.
            unsafe { value_write(&v, &mut c) }.unwrap();
            assert_eq!(c.type_, v.data_type().raw());
            // SAFETY: c was written above.
            let back = unsafe { value_from_c(&c) }.unwrap();
            // SAFETY: as above.
            unsafe { value_destruct(&mut c) };
            assert_eq!(c.type_, PMIX_UNDEF);
            assert_eq!(back, v);
        }
    }

    #[test]
    fn refused_in_value_form() {
        for v in sample_values().into_iter().filter(|v| !in_value_form(v)) {
            let mut c = pmix_value_t::default();
            // SAFETY: c is a writable value.
            let r = unsafe { value_write(&v, &mut c) };
            assert_eq!(r, Err(Status::ERR_NOT_SUPPORTED));
            assert_eq!(c.type_, PMIX_UNDEF);
        }
    }

    #[test]
    fn mismatched_item_is_refused() {
        let mut slot = 0u32;
        // SAFETY: slot is a writable 4-byte item.
        let r = unsafe {
            write_item(
                DataType::Uint32,
                &Value::Int32(1),
                (&mut slot as *mut u32).cast(),
            )
        };
        assert_eq!(r, Err(Status::ERR_TYPE_MISMATCH));
        // SAFETY: a NULL array with no items is valid.
        let r = unsafe { read_items_raw(1000, null_mut(), 0) };
        assert_eq!(r, Err(Status::ERR_UNKNOWN_DATA_TYPE));
        assert_eq!(
            write_items(DataType::Kval, &[]),
            Err(Status::ERR_NOT_SUPPORTED)
        );
    }

    #[test]
    fn topology_survives_xml() {
        let mut topo: hwloc::hwloc_topology_t = null_mut();
        // SAFETY: creates and loads this machine's topology.
        unsafe {
            assert_eq!(hwloc::hwloc_topology_init(&mut topo), 0);
            assert_eq!(hwloc::hwloc_topology_load(topo), 0);
        }
        let mut c = pmix_topology_t {
            source: malloc_cstr(&cs("hwloc")).unwrap(),
            topology: topo,
        };
        // SAFETY: c is a valid hwloc topology.
        let t = unsafe { topology_from_c(&c) }.unwrap();
        assert!(t.xml.as_ref().unwrap().to_bytes().starts_with(b"<?xml"));
        let v = Value::Topology(Box::new(t));
        let mut cv = pmix_value_t::default();
        // SAFETY: cv is writable; then read back and released.
        unsafe {
            value_write(&v, &mut cv).unwrap();
            let back = value_from_c(&cv).unwrap();
            value_destruct(&mut cv);
            // A re-imported topology exports the same XML.
            let again = Value::Topology(Box::new(match back {
                Value::Topology(t) => *t,
                _ => unreachable!(),
            }));
            value_write(&again, &mut cv).unwrap();
            assert_eq!(value_from_c(&cv).unwrap(), again);
            value_destruct(&mut cv);
            topology_destruct(&mut c);
        }
    }
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod proptests;
