//! `PMIx_Value_load`, `_unload`, `_xfer`, `_compare`, `_destruct` and
//! `PMIx_Value_string`, with OpenPMIx 4.2's semantics for every data type.
//!
//! Copies go through the core data model ([`crate::convert`]): the source is
//! read into a [`Value`] and written back as freshly malloc'd C memory, so a
//! copy never shares memory with its source, except where the reference
//! shares on purpose (`PMIx_Value_unload` of byte objects hands out the
//! value's own bytes; `PMIX_POINTER` copies the pointer; cpusets and
//! topologies whose `source` is not hwloc are copied by pointer).
//!
//! Reference behaviours kept on purpose, because callers can observe them:
//! * `PMIx_Value_load` always returns `PMIX_SUCCESS`; a type the union has
//!   no member for (`PMIX_INFO`, `PMIX_APP`, ...) only sets the type.
//! * `PMIx_Value_load` of a `pmix_proc_info_t` does not copy its `state`;
//!   every copy of a `pmix_proc_stats_t` drops `percent_cpu`.
//! * Arrays of types the reference cannot copy (`PMIX_PROC_STATE`,
//!   `PMIX_JOB_STATE`, `PMIX_DATA_ARRAY`, ...) are not copied: load leaves a
//!   NULL array, xfer fails with the reference's status.
//! * `PMIx_Value_xfer` of a type without a union member fails with
//!   `PMIX_ERROR`.
//!
//! Where the reference crashes (NULL arguments, NULL payload pointers) these
//! functions return `PMIX_ERR_BAD_PARAM` or treat the payload as empty.

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::{self, null_mut};

use pmix_core::compare::{compare_with, Comparison};
use pmix_core::{print, DataType, Status, Value};

use crate::boundary::{calloc_array, guard, guard_or, malloc_bytes, malloc_cstr};
use crate::convert::{self, FfiHwloc};
use crate::nonnull;
use crate::sys::*;

type Res<T> = Result<T, Status>;

/// Types a `pmix_value_t` has no union member for: load only sets the type,
/// xfer fails.
fn no_member(t: pmix_data_type_t) -> bool {
    use DataType as T;
    match DataType::from_raw(t) {
        None => true,
        Some(t) => matches!(
            t,
            T::Value
                | T::App
                | T::Info
                | T::PData
                | T::Kval
                | T::Query
                | T::Command
                | T::InfoDirectives
                | T::DataType
                | T::IofChannel
        ),
    }
}

/// What the reference's data-array copy answers for an element type:
/// `Ok` if it copies such arrays.
pub(crate) fn array_copy_status(elem: pmix_data_type_t) -> Res<()> {
    use DataType as T;
    match DataType::from_raw(elem) {
        Some(T::DataArray) => Err(Status::ERR_NOT_SUPPORTED),
        Some(
            T::Uint8
            | T::Int8
            | T::Byte
            | T::Uint16
            | T::Int16
            | T::Uint32
            | T::Int32
            | T::Uint64
            | T::Int64
            | T::Bool
            | T::Size
            | T::Pid
            | T::String
            | T::Int
            | T::Uint
            | T::Float
            | T::Double
            | T::Timeval
            | T::Time
            | T::Status
            | T::Value
            | T::Proc
            | T::ProcRank
            | T::App
            | T::Info
            | T::PData
            | T::ByteObject
            | T::CompressedString
            | T::Kval
            | T::Persist
            | T::Pointer
            | T::Scope
            | T::DataRange
            | T::Command
            | T::InfoDirectives
            | T::ProcInfo
            | T::Query
            | T::Envar
            | T::Coord
            | T::RegAttr
            | T::ProcCpuset
            | T::Geometry
            | T::DeviceDist
            | T::Endpoint
            | T::ProcNspace
            | T::ProcStats
            | T::DiskStats
            | T::NetStats
            | T::NodeStats,
        ) => Ok(()),
        _ => Err(Status::ERR_UNKNOWN_DATA_TYPE),
    }
}

/// Applies what the reference's copy functions lose: `percent_cpu` of
/// process statistics, at any depth.
fn reference_copy(v: &mut Value) {
    match v {
        Value::ProcStats(s) => s.percent_cpu = 0.0,
        Value::DataArray(d) => d.items.iter_mut().for_each(reference_copy),
        Value::Value(inner) => reference_copy(inner),
        Value::Info(i) => reference_copy(&mut i.value),
        Value::PData(p) => reference_copy(&mut p.value),
        Value::App(a) => a.info.iter_mut().for_each(|i| reference_copy(&mut i.value)),
        Value::Query(q) => q
            .qualifiers
            .iter_mut()
            .for_each(|i| reference_copy(&mut i.value)),
        _ => {}
    }
}

/// Deep-copies a data array as the reference does: an empty one (size 0)
/// of any element type, a non-empty one of the types it can copy.
///
/// # Safety
/// `d` is NULL or a valid data array.
unsafe fn copy_darray(d: *const pmix_data_array_t) -> Res<*mut pmix_data_array_t> {
    if d.is_null() {
        return Ok(null_mut());
    }
    // SAFETY: d is valid (caller's contract).
    let src = unsafe { &*d };
    if src.size == 0 {
        let out = calloc_array::<pmix_data_array_t>(1)?;
        // SAFETY: out is a fresh, zeroed data array (size 0, array NULL).
        unsafe { (*out).type_ = src.type_ };
        return Ok(out);
    }
    array_copy_status(src.type_)?;
    // SAFETY: as above.
    let mut arr = unsafe { convert::data_array_from_c(d) }?;
    arr.items.iter_mut().for_each(reference_copy);
    convert::data_array_to_c_new(&arr)
}

/// A `pmix_cpuset_t*` for a value: a deep copy of an hwloc cpuset, the
/// caller's pointer itself for any other (the reference cannot copy those),
/// NULL for an hwloc cpuset without a bitmap.
///
/// # Safety
/// `c` is NULL or a valid cpuset.
unsafe fn copy_cpuset(c: *mut pmix_cpuset_t) -> Res<*mut pmix_cpuset_t> {
    if c.is_null() {
        return Ok(null_mut());
    }
    // SAFETY: c is valid (caller's contract).
    let src = unsafe { &*c };
    // SAFETY: source is NULL or a C string.
    if !unsafe { convert::names_hwloc(src.source) } {
        return Ok(c);
    }
    if src.bitmap.is_null() {
        return Ok(null_mut());
    }
    let out = calloc_array::<pmix_cpuset_t>(1)?;
    // SAFETY: bitmap is an hwloc bitmap; out is a fresh cpuset.
    unsafe {
        (*out).bitmap = hwloc::hwloc_bitmap_dup(src.bitmap);
        (*out).source = malloc_cstr(c"hwloc").unwrap_or(null_mut());
    }
    Ok(out)
}

/// As [`copy_cpuset`], for topologies (duplicated with hwloc).
///
/// # Safety
/// `t` is NULL or a valid topology.
unsafe fn copy_topology(t: *mut pmix_topology_t) -> Res<*mut pmix_topology_t> {
    if t.is_null() {
        return Ok(null_mut());
    }
    // SAFETY: t is valid (caller's contract).
    let src = unsafe { &*t };
    // SAFETY: source is NULL or a C string.
    if !unsafe { convert::names_hwloc(src.source) } {
        return Ok(t);
    }
    let out = calloc_array::<pmix_topology_t>(1)?;
    // SAFETY: out is a fresh topology; src.topology is a loaded topology.
    unsafe {
        (*out).source = malloc_cstr(c"hwloc").unwrap_or(null_mut());
        if !src.topology.is_null()
            && hwloc::hwloc_topology_dup(&mut (*out).topology, src.topology) != 0
        {
            (*out).topology = null_mut();
        }
    }
    Ok(out)
}

/// Copies the payload of `src` (whose type is already in `dest`) into
/// `dest`, the way load and xfer share.
///
/// # Safety
/// `src` is a valid value; `dest` is writable.
unsafe fn copy_payload(dest: *mut pmix_value_t, src: *const pmix_value_t) -> Res<()> {
    // SAFETY: valid pointers (caller's contract); the union member read is
    // the one the type selects.
    unsafe {
        let t = (*src).type_;
        match DataType::from_raw(t) {
            Some(DataType::Pointer) => (*dest).data.ptr = (*src).data.ptr,
            Some(DataType::ProcCpuset) => {
                (*dest).data.cpuset = copy_cpuset((*src).data.cpuset)?;
            }
            Some(DataType::Topo) => {
                (*dest).data.topo = copy_topology((*src).data.topo)?;
            }
            Some(DataType::DataArray) => {
                (*dest).data.darray = null_mut();
                (*dest).data.darray = copy_darray((*src).data.darray)?;
            }
            _ => {
                let mut v = convert::value_from_c(src)?;
                reference_copy(&mut v);
                convert::value_write(&v, dest)?;
            }
        }
    }
    Ok(())
}

/// `pmix_status_t PMIx_Value_load(pmix_value_t *val, const void *data,
/// pmix_data_type_t type)`: deep-copies the datum at `data` (for
/// `PMIX_STRING` and `PMIX_REGEX`, the string `data`; for `PMIX_POINTER`,
/// the pointer `data` itself) into `val`.
///
/// # Safety
/// `val` is NULL or writable; `data` is NULL or points to a valid datum of
/// `type`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_load(
    val: *mut pmix_value_t,
    data: *const c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    guard(|| {
        nonnull!(val);
        // SAFETY: val is writable (C contract).
        unsafe { (*val).type_ = type_ };
        if data.is_null() {
            // SAFETY: as above.
            unsafe {
                (*val).data = pmix_value_t::default().data;
                if type_ == PMIX_BOOL {
                    (*val).data.flag = true;
                }
            }
            return Ok(());
        }
        if no_member(type_) || type_ == PMIX_UNDEF {
            return Ok(());
        }
        // SAFETY: data points to a datum of type_ (C contract).
        let r = unsafe { load(val, data, type_) };
        if r.is_err() {
            // The reference reports success and leaves the payload unset.
            // SAFETY: val is writable.
            unsafe {
                (*val).data = pmix_value_t::default().data;
                (*val).type_ = type_;
            }
        }
        Ok(())
    })
}

/// # Safety
/// As [`PMIx_Value_load`], with `data` non-NULL and `type_` one with a
/// union member.
unsafe fn load(val: *mut pmix_value_t, data: *const c_void, type_: pmix_data_type_t) -> Res<()> {
    let t = DataType::try_from(type_)?;
    // SAFETY: data points to a datum of type t (caller's contract); val is
    // writable.
    unsafe {
        match t {
            DataType::String => {
                (*val).data.string = malloc_cstr(CStr::from_ptr(data.cast()))?;
            }
            DataType::Pointer => (*val).data.ptr = data.cast_mut(),
            DataType::Regex => {
                let s = CStr::from_ptr(data.cast::<c_char>());
                (*val).data.bo = convert::bo_to_c(s.to_bytes_with_nul())?;
            }
            DataType::ProcCpuset => {
                (*val).data.cpuset = copy_cpuset(data.cast_mut().cast())?;
            }
            DataType::Topo => {
                (*val).data.topo = copy_topology(data.cast_mut().cast())?;
            }
            DataType::DataArray => {
                (*val).data.darray = null_mut();
                (*val).data.darray = copy_darray(data.cast())?;
            }
            _ => {
                let mut v = convert::read_item(t, data)?;
                reference_copy(&mut v);
                if let Value::ProcInfo(pi) = &mut v {
                    // The reference's load does not copy the state.
                    pi.state = 0;
                }
                convert::value_write(&v, val)?;
            }
        }
    }
    Ok(())
}

/// `pmix_status_t PMIx_Value_xfer(pmix_value_t *dest, const pmix_value_t
/// *src)`: deep copy.
///
/// # Safety
/// `dest` is NULL or writable; `src` is NULL or a valid value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_xfer(
    dest: *mut pmix_value_t,
    src: *const pmix_value_t,
) -> pmix_status_t {
    guard(|| {
        nonnull!(dest, src);
        // SAFETY: both valid (C contract).
        unsafe { xfer(dest, src) }
    })
}

/// # Safety
/// `dest` is writable; `src` is a valid value.
pub(crate) unsafe fn xfer(dest: *mut pmix_value_t, src: *const pmix_value_t) -> Res<()> {
    // SAFETY: valid pointers (caller's contract).
    let t = unsafe { (*src).type_ };
    // SAFETY: as above.
    unsafe { (*dest).type_ = t };
    if t == PMIX_UNDEF {
        return Ok(());
    }
    if no_member(t) {
        return Err(Status::ERROR);
    }
    // SAFETY: as above.
    unsafe { copy_payload(dest, src) }
}

/// `pmix_status_t PMIx_Value_unload(pmix_value_t *val, void **data, size_t
/// *sz)`: copies the payload out. Scalars (and `PMIX_PROC`,
/// `PMIX_PROC_NSPACE`) are written into the caller's buffer at `*data`;
/// strings are strdup'd into `*data`; byte objects and regexes hand out the
/// value's own bytes; structured types are copied into a new object stored
/// in `*data`. `*data` must be non-NULL except for `PMIX_STRING` and
/// `PMIX_BYTE_OBJECT`.
///
/// # Safety
/// `val` is NULL or valid; `data` is NULL or writable and `*data` is NULL or
/// a buffer large enough for the payload; `sz` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_unload(
    val: *mut pmix_value_t,
    data: *mut *mut c_void,
    sz: *mut usize,
) -> pmix_status_t {
    guard(|| {
        nonnull!(data, val, sz);
        // SAFETY: all three valid (C contract).
        unsafe { unload(val, data, sz) }
    })
}

/// # Safety
/// As [`PMIx_Value_unload`], all pointers non-NULL.
unsafe fn unload(val: *mut pmix_value_t, data: *mut *mut c_void, sz: *mut usize) -> Res<()> {
    use DataType as T;
    // SAFETY: valid pointers (caller's contract); the steps read the union
    // members the type selects; *data is a large enough buffer for the
    // scalar cases.
    unsafe {
        let t = (*val).type_;
        if (*data).is_null() && t != PMIX_STRING && t != PMIX_BYTE_OBJECT {
            return Err(Status::ERR_BAD_PARAM);
        }
        let Some(dt) = DataType::from_raw(t) else {
            return Err(Status::ERROR);
        };
        if dt == T::Undef {
            return Err(Status::ERR_UNKNOWN_DATA_TYPE);
        }
        if let Some(n) = scalar_width(dt) {
            return unload_scalar(val, data, sz, n);
        }
        if let Some((p, size)) = object_of(val, dt) {
            return unload_object(dt, p, size, data, sz);
        }
        unload_held(val, dt, data, sz)
    }
}

/// The width of a scalar type's payload, copied out of the union as is;
/// `None` for the other types.
fn scalar_width(t: DataType) -> Option<usize> {
    use DataType as T;
    Some(match t {
        T::Bool | T::Byte | T::Uint8 | T::Int8 => 1,
        T::Persist | T::Scope | T::DataRange | T::ProcState => 1,
        T::AllocDirective | T::LinkState | T::JobState => 1,
        T::Uint16 | T::Int16 | T::StorAccessType | T::LocType => 2,
        T::Pid | T::Int | T::Uint | T::Int32 | T::Uint32 => 4,
        T::Float | T::Status | T::ProcRank => 4,
        T::Size | T::Int64 | T::Uint64 | T::Double | T::Time | T::DevType => 8,
        T::StorMedium | T::StorAccess | T::StorPersist => 8,
        T::Timeval => std::mem::size_of::<timeval>(),
        _ => return None,
    })
}

/// Copies the first `n` bytes of the union into the caller's buffer.
///
/// # Safety
/// As [`unload`]; `*data` holds at least `n` bytes.
unsafe fn unload_scalar(
    val: *mut pmix_value_t,
    data: *mut *mut c_void,
    sz: *mut usize,
    n: usize,
) -> Res<()> {
    // SAFETY: the caller's contract: the union has n bytes of payload and
    // *data room for them.
    unsafe {
        ptr::copy_nonoverlapping(
            ptr::addr_of!((*val).data).cast::<u8>(),
            (*data).cast::<u8>(),
            n,
        );
        *sz = n;
    }
    Ok(())
}

/// The C object of a structured type handed out as a deep copy (in item
/// form) and its size; `None` for the other types.
///
/// # Safety
/// `val` is valid and of type `t`.
unsafe fn object_of(val: *mut pmix_value_t, t: DataType) -> Option<(*const c_void, usize)> {
    use std::mem::size_of;
    use DataType as T;
    // SAFETY: the caller's contract; the member read is the one `t` selects.
    unsafe {
        let d = &(*val).data;
        Some(match t {
            T::Envar => (
                ptr::addr_of!((*val).data.envar).cast::<c_void>(),
                size_of::<pmix_envar_t>(),
            ),
            T::ProcInfo => (d.pinfo.cast(), size_of::<pmix_proc_info_t>()),
            T::Coord => (d.coord.cast(), size_of::<pmix_coord_t>()),
            T::Geometry => (d.geometry.cast(), size_of::<pmix_geometry_t>()),
            T::DeviceDist => (d.devdist.cast(), size_of::<pmix_device_distance_t>()),
            T::Endpoint => (d.endpoint.cast(), size_of::<pmix_endpoint_t>()),
            T::RegAttr => (d.ptr, size_of::<pmix_regattr_t>()),
            T::DataBuffer => (d.dbuf.cast(), size_of::<pmix_data_buffer_t>()),
            T::ProcStats => (d.pstats.cast(), size_of::<pmix_proc_stats_t>()),
            T::DiskStats => (d.dkstats.cast(), size_of::<pmix_disk_stats_t>()),
            T::NetStats => (d.netstats.cast(), size_of::<pmix_net_stats_t>()),
            T::NodeStats => (d.ndstats.cast(), size_of::<pmix_node_stats_t>()),
            _ => return None,
        })
    }
}

/// Hands out a deep copy of the object `p` of type `t` (`size` bytes) in
/// a new malloc'd object stored in `*data`.
///
/// # Safety
/// As [`unload`]; `p` is NULL or a valid object of type `t`.
unsafe fn unload_object(
    t: DataType,
    p: *const c_void,
    size: usize,
    data: *mut *mut c_void,
    sz: *mut usize,
) -> Res<()> {
    if p.is_null() {
        return Err(Status::ERR_BAD_PARAM);
    }
    // SAFETY: p is a valid object of type t; out is a fresh allocation of
    // its size; data and sz are writable (caller's contract).
    unsafe {
        let mut v = convert::read_item(t, p)?;
        reference_copy(&mut v);
        let out = malloc_bytes(size)?.cast::<c_void>();
        if let Err(e) = convert::write_item(t, &v, out) {
            libc::free(out);
            return Err(e);
        }
        *data = out;
        *sz = size;
    }
    Ok(())
}

/// The types with a rule of their own: strings (strdup'd), names (written
/// into the caller's buffer), byte objects and pointers (handed out as
/// they are), data arrays, cpusets and topologies (copied).
///
/// # Safety
/// As [`unload`], the value of type `t`.
unsafe fn unload_held(
    val: *mut pmix_value_t,
    t: DataType,
    data: *mut *mut c_void,
    sz: *mut usize,
) -> Res<()> {
    use DataType as T;
    // SAFETY: the caller's contract; the union member read is the one `t`
    // selects; *data is large enough for a name or a proc.
    unsafe {
        let d = &(*val).data;
        match t {
            T::String => {
                if !d.string.is_null() {
                    let s = CStr::from_ptr(d.string);
                    *data = malloc_cstr(s)?.cast();
                    *sz = s.to_bytes().len();
                }
            }
            T::ProcNspace => {
                let out = (*data).cast::<pmix_nspace_t>();
                let ns = if d.nspace.is_null() {
                    pmix_core::Nspace::default()
                } else {
                    convert::nspace_from_c(&*d.nspace)
                };
                let mut buf: pmix_nspace_t = [0; PMIX_MAX_NSLEN + 1];
                convert::nspace_to_c(&ns, &mut buf);
                ptr::write_unaligned(out, buf);
                *sz = ns.as_bytes().len();
            }
            T::Proc => {
                let p = if d.proc_.is_null() {
                    pmix_core::Proc::default()
                } else {
                    convert::proc_from_c(&*d.proc_)
                };
                ptr::write_unaligned((*data).cast::<pmix_proc_t>(), convert::proc_to_c(&p));
                *sz = std::mem::size_of::<pmix_proc_t>();
            }
            T::ByteObject | T::CompressedString | T::CompressedByteObject | T::Regex => {
                if !d.bo.bytes.is_null() && d.bo.size > 0 {
                    *data = d.bo.bytes.cast();
                    *sz = d.bo.size;
                } else {
                    *data = null_mut();
                    *sz = 0;
                }
            }
            T::Pointer => {
                *data = d.ptr;
                *sz = std::mem::size_of::<*mut c_void>();
            }
            T::DataArray => {
                if d.darray.is_null() {
                    return Err(Status::ERR_BAD_PARAM);
                }
                *data = copy_darray(d.darray)?.cast();
                *sz = std::mem::size_of::<pmix_data_array_t>();
            }
            T::ProcCpuset => {
                let c = d.cpuset;
                if c.is_null() {
                    return Err(Status::ERR_BAD_PARAM);
                }
                if convert::names_hwloc((*c).source) {
                    *data = copy_cpuset(c)?.cast();
                } else {
                    // The reference hands out a shallow copy of the struct.
                    let out = calloc_array::<pmix_cpuset_t>(1)?;
                    *out = *c;
                    *data = out.cast();
                }
                *sz = std::mem::size_of::<pmix_cpuset_t>();
            }
            T::Topo => {
                let tp = d.topo;
                if tp.is_null() {
                    return Err(Status::ERR_BAD_PARAM);
                }
                if convert::names_hwloc((*tp).source) {
                    *data = copy_topology(tp)?.cast();
                } else {
                    let out = calloc_array::<pmix_topology_t>(1)?;
                    *out = *tp;
                    *data = out.cast();
                }
                *sz = std::mem::size_of::<pmix_topology_t>();
            }
            _ => return Err(Status::ERROR),
        }
    }
    Ok(())
}

/// `void PMIx_Value_destruct(pmix_value_t *val)`: releases the payload and
/// resets the value to `PMIX_UNDEF`.
///
/// # Safety
/// `val` is NULL or a valid value whose payload was allocated with malloc
/// (or hwloc, for cpusets and topologies).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_destruct(val: *mut pmix_value_t) {
    guard_or((), || {
        if !val.is_null() {
            // SAFETY: val is valid (C contract).
            unsafe { convert::value_destruct(val) };
        }
    })
}

/// `pmix_value_cmp_t PMIx_Value_compare(pmix_value_t *v1, pmix_value_t
/// *v2)`.
///
/// # Safety
/// `v1` and `v2` are NULL or valid values.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_compare(
    v1: *mut pmix_value_t,
    v2: *mut pmix_value_t,
) -> pmix_value_cmp_t {
    guard_or(PMIX_VALUE_COMPARISON_NOT_AVAIL, || {
        if v1.is_null() || v2.is_null() {
            return PMIX_VALUE_COMPARISON_NOT_AVAIL;
        }
        // SAFETY: both valid (C contract).
        (unsafe { compare(v1, v2) }) as pmix_value_cmp_t
    })
}

/// # Safety
/// Both values are valid.
unsafe fn compare(v1: *const pmix_value_t, v2: *const pmix_value_t) -> Comparison {
    // SAFETY: valid values (caller's contract).
    let (a, b) = unsafe { (&*v1, &*v2) };
    if a.type_ != b.type_ {
        return Comparison::TypeDifferent;
    }
    if a.type_ == PMIX_POINTER {
        // The reference compares the first eight bytes the pointers point to.
        // SAFETY: the union member the type selects.
        let (p, q) = unsafe { (a.data.ptr, b.data.ptr) };
        if p.is_null() || q.is_null() {
            return if p == q {
                Comparison::Equal
            } else {
                Comparison::NotAvailable
            };
        }
        // SAFETY: the caller gave pointers to at least a pointer's worth of
        // memory, as the reference requires.
        let (x, y) = unsafe {
            (
                ptr::read_unaligned(p.cast::<[u8; 8]>()),
                ptr::read_unaligned(q.cast::<[u8; 8]>()),
            )
        };
        return match x.cmp(&y) {
            std::cmp::Ordering::Less => Comparison::Value2Greater,
            std::cmp::Ordering::Equal => Comparison::Equal,
            std::cmp::Ordering::Greater => Comparison::Value1Greater,
        };
    }
    // SAFETY: valid values.
    match unsafe { (convert::value_from_c(a), convert::value_from_c(b)) } {
        (Ok(x), Ok(y)) => compare_with(&x, &y, &FfiHwloc),
        _ => Comparison::NotAvailable,
    }
}

/// The reference's text of a value, `None` where it returns NULL.
///
/// # Safety
/// `v` is a valid value.
pub(crate) unsafe fn value_text(v: *const pmix_value_t, prefix: Option<&[u8]>) -> Option<Vec<u8>> {
    // SAFETY: v is valid (caller's contract).
    let t = unsafe { (*v).type_ };
    if no_member(t) {
        // Not readable into a Value; the reference prints none of them.
        let payload = print::Style::value_string(&FfiHwloc).unprintable(t);
        return Some(print::value_line(prefix, &payload));
    }
    if t == PMIX_TOPO {
        // Printed from the topology itself, without an XML round trip.
        // SAFETY: the member the type selects; NULL or a valid topology.
        let tp = unsafe { (*v).data.topo };
        if tp.is_null() {
            return None;
        }
        // SAFETY: valid topology.
        let tp = unsafe { &*tp };
        // SAFETY: source is NULL or a C string.
        if tp.topology.is_null() || !unsafe { convert::names_hwloc(tp.source) } {
            return None;
        }
        // SAFETY: an hwloc topology.
        let tree = unsafe { convert::topology_tree(tp.topology) }?;
        return Some(print::value_line(
            prefix,
            &print::topology_line(None, &tree),
        ));
    }
    // SAFETY: v is valid.
    let value = unsafe { convert::value_from_c(v) }.ok()?;
    print::value_with(prefix, &value, &FfiHwloc)
}

/// A malloc'd C copy of `text` (NULL on failure; interior NULs dropped).
pub(crate) fn malloc_text(text: impl Into<Vec<u8>>) -> *mut c_char {
    let mut bytes = text.into();
    bytes.retain(|&b| b != 0);
    CString::new(bytes)
        .ok()
        .and_then(|c| malloc_cstr(&c).ok())
        .unwrap_or(null_mut())
}

/// `char* PMIx_Value_string(const pmix_value_t *value)`: malloc'd, freed by
/// the caller; NULL where the reference cannot print the value.
///
/// # Safety
/// `value` is NULL or a valid value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_string(value: *const pmix_value_t) -> *mut c_char {
    guard_or(null_mut(), || {
        if value.is_null() {
            return malloc_text(" Data type: PMIX_VALUE\tValue: NULL pointer");
        }
        // SAFETY: value is valid (C contract).
        match unsafe { value_text(value, None) } {
            Some(s) => malloc_text(s),
            None => null_mut(),
        }
    })
}
