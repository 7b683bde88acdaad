//! The item form: one element of a C array of a PMIx data type
//! ([`item_size`]), read, written and destructed one at a time
//! ([`read_item`], [`write_item`], [`destruct_item`]) or as arrays
//! ([`read_items`], [`write_items`], [`free_items`]).
//!
//! Invariants: a writer starts from a zeroed slot and, on error, destructs
//! what it wrote; `PMIX_POINTER` items are `void *`, `PMIX_REGEX` items
//! `char *`.

use std::ffi::{c_char, c_int, c_void};
use std::mem::size_of;
use std::ptr::{self, null_mut};

use pmix_core::{DataType, Status, Value};

use super::data_array::*;
use super::hwloc::*;
use super::info::*;
use super::names::*;
use super::records::*;
use super::stats::*;
use super::value::*;
use crate::boundary::calloc_array;
use crate::sys::*;

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
pub(super) fn item_size_or_err(t: DataType) -> Res<usize> {
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
pub(super) unsafe fn write_item_zeroed(v: &Value, p: *mut c_void) -> Res<()> {
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
pub(super) fn alloc_one<C>() -> Res<*mut C> {
    calloc_array::<C>(1)
}
