//! The value form: `pmix_value_t` and its `data` union read
//! ([`value_from_c`]), written ([`value_write`], [`value_to_c_new`]) and
//! destructed ([`value_destruct`]).
//!
//! Invariants: structured types are held through a pointer to one
//! malloc'd item; a failed write leaves a zeroed `PMIX_UNDEF` value and
//! leaks nothing.

use std::ffi::c_void;
use std::ptr::{self};

use pmix_core::value::DataArray;
use pmix_core::{DataType, Nspace, Proc, Status, Value};

use super::item::*;
use super::names::*;
use super::records::*;
use crate::sys::*;

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
pub(super) unsafe fn read_ptr_item(
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
pub(super) unsafe fn write_ptr_item<C>(v: &Value, set: impl FnOnce(*mut C)) -> Res<()> {
    let p = alloc_one::<C>()?;
    set(p);
    // SAFETY: p is a zeroed item of the C type of v; once stored in the value
    // it is released by value_destruct if this fails.
    unsafe { write_item(v.data_type(), v, p.cast()) }
}

/// # Safety
/// `out` holds a zeroed `pmix_value_t`.
pub(super) unsafe fn value_write_zeroed(v: &Value, out: *mut pmix_value_t) -> Res<()> {
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
