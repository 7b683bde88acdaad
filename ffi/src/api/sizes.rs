//! `PMIx_Value_get_size` and `PMIx_Info_get_size`: the memory a value or
//! an info occupies, counted as OpenPMIx 5.0 counts it.
//!
//! The count is the C struct, plus every string it owns (its length and
//! NUL; a NULL string counts one byte), every byte object's bytes, every
//! coordinate's `uint32_t`s and the entries of a data array. Invariants
//! kept from OpenPMIx, quirks included, because callers see them:
//! * `*size` is an accumulator where OpenPMIx leaves it one: a value of
//!   `PMIX_UNDEF` (which fails with `PMIX_ERR_UNKNOWN_DATA_TYPE`) or of a
//!   type without a rule, and a data array of infos, of `PMIX_UNDEF`, of
//!   data arrays or of a type without a rule, add to what `*size` held;
//!   `sizeof(pmix_value_t)` is added even when the answer is an error;
//! * a data array of `PMIX_UNDEF` or of data arrays succeeds, adding only
//!   the array's own struct;
//! * a cpuset counts hwloc's weight of a full bitmap, which is -1
//!   (infinite): the size wraps around, as `size_t` does in C.
//!
//! Where OpenPMIx dereferences a NULL payload (a NULL `pmix_proc_info_t*`,
//! data array or hwloc object, a NULL array with entries) we answer
//! `PMIX_ERR_BAD_PARAM`; where it calls a compressor function it lacks
//! (compressed strings and byte objects) we count the decompressed bytes.

use std::ffi::{c_char, c_void, CStr};
use std::mem::size_of;

use pmix_core::codec::compress;
use pmix_core::Status;

use crate::api::args::c_array_bytes;
use crate::boundary::guard;
use crate::sys::*;

type Res<T> = Result<T, Status>;

/// hwloc's weight of a full (infinite) bitmap, -1, as a `size_t`.
const FULL_BITMAP_WEIGHT: usize = usize::MAX;

/// The bytes a C string occupies: its length and NUL (one byte for NULL).
///
/// # Safety
/// `s` is NULL or a C string.
unsafe fn string_bytes(s: *const c_char) -> usize {
    if s.is_null() {
        1
    } else {
        // SAFETY: a C string (contract).
        1 + unsafe { CStr::from_ptr(s) }.to_bytes().len()
    }
}

/// The length of what a compressed byte object decompresses to (0 when it
/// does not decompress); `as_string` stops at the first NUL.
fn decompressed_len(bo: &pmix_byte_object_t, as_string: bool) -> usize {
    let data = crate::convert::bo_from_c(bo);
    match compress::decompress(&data) {
        Some(d) if as_string => d.iter().position(|&b| b == 0).unwrap_or(d.len()),
        Some(d) => d.len(),
        None => 0,
    }
}

/// The size of one element of a fixed-size type (no owned memory).
fn fixed_size(t: pmix_data_type_t) -> Option<usize> {
    Some(match t {
        PMIX_BOOL | PMIX_BYTE | PMIX_INT8 | PMIX_UINT8 => 1,
        PMIX_SIZE => size_of::<usize>(),
        PMIX_PID => size_of::<pid_t>(),
        PMIX_INT | PMIX_UINT => size_of::<i32>(),
        PMIX_INT16 | PMIX_UINT16 | PMIX_STOR_ACCESS_TYPE => 2,
        PMIX_INT32 | PMIX_UINT32 => 4,
        PMIX_INT64 | PMIX_UINT64 | PMIX_STOR_MEDIUM | PMIX_STOR_ACCESS | PMIX_STOR_PERSIST => 8,
        PMIX_FLOAT => size_of::<f32>(),
        PMIX_DOUBLE => size_of::<f64>(),
        PMIX_TIMEVAL => size_of::<timeval>(),
        PMIX_TIME => size_of::<time_t>(),
        PMIX_STATUS => size_of::<pmix_status_t>(),
        PMIX_PROC_RANK => size_of::<pmix_rank_t>(),
        PMIX_PROC_NSPACE => PMIX_MAX_NSLEN,
        PMIX_PROC => size_of::<pmix_proc_t>(),
        PMIX_PERSIST => size_of::<pmix_persistence_t>(),
        PMIX_SCOPE => size_of::<pmix_scope_t>(),
        PMIX_DATA_RANGE => size_of::<pmix_data_range_t>(),
        PMIX_PROC_STATE => size_of::<pmix_proc_state_t>(),
        PMIX_POINTER => size_of::<*mut c_void>(),
        PMIX_ALLOC_DIRECTIVE => size_of::<pmix_alloc_directive_t>(),
        PMIX_LINK_STATE => size_of::<pmix_link_state_t>(),
        PMIX_JOB_STATE => size_of::<pmix_job_state_t>(),
        PMIX_LOCTYPE => size_of::<pmix_locality_t>(),
        PMIX_DEVTYPE => size_of::<pmix_device_type_t>(),
        _ => return None,
    })
}

/// The size of a struct type that owns memory, and a reader of what one
/// element owns beyond the struct.
type Owned = (usize, unsafe fn(*const c_void) -> usize);

/// The struct types whose elements own strings, coordinates or bytes
/// (counted the same way alone and in an array).
fn owned(t: pmix_data_type_t) -> Option<Owned> {
    /// Reads `*p` as a `T`.
    ///
    /// # Safety
    /// `p` points to a valid `T`.
    unsafe fn at<'a, T>(p: *const c_void) -> &'a T {
        // SAFETY: the caller's contract.
        unsafe { &*p.cast::<T>() }
    }
    /// # Safety
    /// `p` points to a valid element of the type.
    unsafe fn proc_info(p: *const c_void) -> usize {
        // SAFETY: the caller's contract, and valid strings within.
        unsafe {
            let i = at::<pmix_proc_info_t>(p);
            string_bytes(i.hostname) + string_bytes(i.executable_name)
        }
    }
    /// # Safety
    /// As above.
    unsafe fn envar(p: *const c_void) -> usize {
        // SAFETY: as above.
        unsafe {
            let e = at::<pmix_envar_t>(p);
            string_bytes(e.envar) + string_bytes(e.value)
        }
    }
    /// # Safety
    /// As above.
    unsafe fn coord(p: *const c_void) -> usize {
        // SAFETY: as above.
        unsafe { at::<pmix_coord_t>(p) }.dims * size_of::<u32>()
    }
    /// # Safety
    /// As above.
    unsafe fn geometry(p: *const c_void) -> usize {
        // SAFETY: as above; ncoords coordinates when non-NULL.
        unsafe {
            let g = at::<pmix_geometry_t>(p);
            let coords = if g.coordinates.is_null() {
                0
            } else {
                g.ncoords
            };
            (0..coords).fold(string_bytes(g.uuid) + string_bytes(g.osname), |n, k| {
                n + size_of::<pmix_coord_t>() + coord(g.coordinates.add(k).cast())
            })
        }
    }
    /// # Safety
    /// As above.
    unsafe fn devdist(p: *const c_void) -> usize {
        // SAFETY: as above.
        unsafe {
            let d = at::<pmix_device_distance_t>(p);
            string_bytes(d.uuid) + string_bytes(d.osname)
        }
    }
    /// # Safety
    /// As above.
    unsafe fn endpoint(p: *const c_void) -> usize {
        // SAFETY: as above.
        unsafe {
            let e = at::<pmix_endpoint_t>(p);
            string_bytes(e.uuid) + string_bytes(e.osname) + e.endpt.size
        }
    }
    /// # Safety
    /// As above.
    unsafe fn regattr(p: *const c_void) -> usize {
        // SAFETY: as above; the description is a NULL-terminated argv.
        unsafe {
            let r = at::<pmix_regattr_t>(p);
            let desc = crate::api::argv::count(r.description);
            (0..desc).fold(string_bytes(r.name), |n, k| {
                n + string_bytes(*r.description.add(k))
            })
        }
    }
    /// # Safety
    /// As above.
    unsafe fn pstats(p: *const c_void) -> usize {
        // SAFETY: as above.
        unsafe {
            let s = at::<pmix_proc_stats_t>(p);
            string_bytes(s.node) + string_bytes(s.cmd)
        }
    }
    /// # Safety
    /// As above.
    unsafe fn dkstats(p: *const c_void) -> usize {
        // SAFETY: as above.
        unsafe { string_bytes(at::<pmix_disk_stats_t>(p).disk) }
    }
    /// # Safety
    /// As above.
    unsafe fn netstats(p: *const c_void) -> usize {
        // SAFETY: as above.
        unsafe { string_bytes(at::<pmix_net_stats_t>(p).net_interface) }
    }
    /// # Safety
    /// As above.
    unsafe fn ndstats(p: *const c_void) -> usize {
        // SAFETY: as above; the counted arrays when non-NULL.
        unsafe {
            let s = at::<pmix_node_stats_t>(p);
            let disks = if s.diskstats.is_null() {
                0
            } else {
                s.ndiskstats
            };
            let nets = if s.netstats.is_null() { 0 } else { s.nnetstats };
            let n = (0..disks).fold(string_bytes(s.node), |n, k| {
                n + size_of::<pmix_disk_stats_t>() + dkstats(s.diskstats.add(k).cast())
            });
            (0..nets).fold(n, |n, k| {
                n + size_of::<pmix_net_stats_t>() + netstats(s.netstats.add(k).cast())
            })
        }
    }
    Some(match t {
        PMIX_PROC_INFO => (size_of::<pmix_proc_info_t>(), proc_info),
        PMIX_ENVAR => (size_of::<pmix_envar_t>(), envar),
        PMIX_COORD => (size_of::<pmix_coord_t>(), coord),
        PMIX_GEOMETRY => (size_of::<pmix_geometry_t>(), geometry),
        PMIX_DEVICE_DIST => (size_of::<pmix_device_distance_t>(), devdist),
        PMIX_ENDPOINT => (size_of::<pmix_endpoint_t>(), endpoint),
        PMIX_REGATTR => (size_of::<pmix_regattr_t>(), regattr),
        PMIX_PROC_STATS => (size_of::<pmix_proc_stats_t>(), pstats),
        PMIX_DISK_STATS => (size_of::<pmix_disk_stats_t>(), dkstats),
        PMIX_NET_STATS => (size_of::<pmix_net_stats_t>(), netstats),
        PMIX_NODE_STATS => (size_of::<pmix_node_stats_t>(), ndstats),
        _ => return None,
    })
}

/// The bytes of a topology's shared-memory image (`PMIX_ERROR`, with the
/// size zeroed, when hwloc cannot tell).
///
/// # Safety
/// `t` is a valid topology whose object, if any, is an hwloc topology.
unsafe fn topology_size(t: &pmix_topology_t, sz: &mut usize) -> Res<()> {
    *sz = 0;
    if t.topology.is_null() {
        return Err(Status::ERROR);
    }
    // SAFETY: an hwloc topology (contract); sz is writable.
    match unsafe { hwloc::hwloc_shmem_topology_get_length(t.topology, sz, 0) } {
        0 => Ok(()),
        _ => {
            *sz = 0;
            Err(Status::ERROR)
        }
    }
}

/// Reads a value's pointer payload, `PMIX_ERR_BAD_PARAM` for NULL.
fn payload<'a, T>(p: *const T) -> Res<&'a T> {
    // SAFETY: a value's pointer member is NULL or valid.
    unsafe { p.as_ref() }.ok_or(Status::ERR_BAD_PARAM)
}

/// The size of a data array's entries into `sz` (see the module doc for
/// the types that add to it).
///
/// # Safety
/// `d` is a valid data array.
unsafe fn array_size(d: &pmix_data_array_t, sz: &mut usize) -> Res<()> {
    let n = d.size;
    let arr = d.array as *const c_void;
    if let Some(each) = fixed_size(d.type_) {
        *sz = n * each;
        return Ok(());
    }
    let reads_entries = owned(d.type_).is_some()
        || matches!(
            d.type_,
            PMIX_STRING
                | PMIX_INFO
                | PMIX_BYTE_OBJECT
                | PMIX_REGEX
                | PMIX_COMPRESSED_STRING
                | PMIX_COMPRESSED_BYTE_OBJECT
                | PMIX_TOPO
                | PMIX_DATA_BUFFER
        );
    if reads_entries && n > 0 && arr.is_null() {
        return Err(Status::ERR_BAD_PARAM);
    }
    /// The k-th element of the array as a `T`.
    ///
    /// # Safety
    /// `arr` holds more than `k` valid `T`s.
    unsafe fn nth<'a, T>(arr: *const c_void, k: usize) -> &'a T {
        // SAFETY: the caller's contract.
        unsafe { &*arr.cast::<T>().add(k) }
    }
    let ptr = size_of::<*mut c_void>();
    // SAFETY: the array holds n valid elements of its type (contract),
    // checked non-NULL above where any is read.
    unsafe {
        if let Some((each, extra)) = owned(d.type_) {
            *sz = (0..n).fold(n * each, |s, k| {
                s + extra(arr.cast::<u8>().add(k * each).cast())
            });
            return Ok(());
        }
        match d.type_ {
            PMIX_STRING => {
                *sz = (0..n).fold(n * ptr, |s, k| {
                    s + string_bytes(*nth::<*mut c_char>(arr, k))
                })
            }
            PMIX_INFO => {
                for k in 0..n {
                    let mut one = 0;
                    info_size(nth::<pmix_info_t>(arr, k), &mut one)?;
                    *sz = sz.wrapping_add(one);
                }
            }
            PMIX_BYTE_OBJECT | PMIX_REGEX => {
                let each = size_of::<pmix_byte_object_t>();
                *sz = (0..n).fold(n * each, |s, k| s + nth::<pmix_byte_object_t>(arr, k).size)
            }
            PMIX_COMPRESSED_STRING | PMIX_COMPRESSED_BYTE_OBJECT => {
                let as_string = d.type_ == PMIX_COMPRESSED_STRING;
                *sz = (0..n).fold(n * ptr, |s, k| {
                    s + decompressed_len(nth::<pmix_byte_object_t>(arr, k), as_string)
                })
            }
            PMIX_TOPO => {
                *sz = n * size_of::<pmix_topology_t>();
                for k in 0..n {
                    let mut one = 0;
                    topology_size(nth::<pmix_topology_t>(arr, k), &mut one)?;
                    *sz = sz.wrapping_add(one);
                }
            }
            PMIX_PROC_CPUSET => {
                *sz = (0..n).fold(n * size_of::<pmix_cpuset_t>(), |s, _| {
                    s.wrapping_add(FULL_BITMAP_WEIGHT)
                })
            }
            PMIX_DATA_BUFFER => {
                let each = size_of::<pmix_data_buffer_t>();
                *sz = (0..n).fold(n * each, |s, k| {
                    s + nth::<pmix_data_buffer_t>(arr, k).bytes_used
                })
            }
            // PMIX_UNDEF, nested arrays and types without a rule: unchanged.
            _ => {}
        }
    }
    Ok(())
}

/// The size of a value's payload into `sz`, without the value itself.
///
/// # Safety
/// `v` is a valid value.
unsafe fn payload_size(v: &pmix_value_t, sz: &mut usize) -> Res<()> {
    let t = v.type_;
    if let Some(n) = fixed_size(t) {
        *sz = n;
        return Ok(());
    }
    // SAFETY: the member of the union the type names (contract).
    let d = &v.data;
    if let Some((each, extra)) = owned(t) {
        // SAFETY: the member the type names (a regattr is kept in `ptr`).
        let p: *const c_void = unsafe {
            match t {
                PMIX_PROC_INFO => d.pinfo.cast(),
                PMIX_ENVAR => (&d.envar as *const pmix_envar_t).cast(),
                PMIX_COORD => d.coord.cast(),
                PMIX_GEOMETRY => d.geometry.cast(),
                PMIX_DEVICE_DIST => d.devdist.cast(),
                PMIX_ENDPOINT => d.endpoint.cast(),
                PMIX_PROC_STATS => d.pstats.cast(),
                PMIX_DISK_STATS => d.dkstats.cast(),
                PMIX_NET_STATS => d.netstats.cast(),
                PMIX_NODE_STATS => d.ndstats.cast(),
                _ => d.ptr,
            }
        };
        payload(p)?;
        // SAFETY: a valid element of the type.
        *sz = each + unsafe { extra(p) };
        return Ok(());
    }
    // SAFETY: each arm reads the member of the union its type names
    // (contract); pointers are refused when NULL (`payload`).
    unsafe {
        match t {
            PMIX_UNDEF => return Err(Status::ERR_UNKNOWN_DATA_TYPE),
            PMIX_STRING => *sz = string_bytes(d.string),
            PMIX_BYTE_OBJECT => {
                let bo = &d.bo;
                *sz =
                    size_of::<pmix_byte_object_t>() + if bo.bytes.is_null() { 0 } else { bo.size };
            }
            PMIX_REGEX => *sz = size_of::<pmix_byte_object_t>() + d.bo.size,
            PMIX_COMPRESSED_STRING => *sz = decompressed_len(&d.bo, true),
            PMIX_COMPRESSED_BYTE_OBJECT => *sz = decompressed_len(&d.bo, false),
            PMIX_DATA_ARRAY => {
                array_size(payload(d.darray)?, sz)?;
                *sz = sz.wrapping_add(size_of::<pmix_data_array_t>());
            }
            PMIX_TOPO => {
                topology_size(payload(d.topo)?, sz)?;
                *sz = sz.wrapping_add(size_of::<pmix_topology_t>());
            }
            // The cpuset itself is not read.
            PMIX_PROC_CPUSET => *sz = FULL_BITMAP_WEIGHT.wrapping_add(size_of::<pmix_cpuset_t>()),
            PMIX_DATA_BUFFER => {
                *sz = size_of::<pmix_data_buffer_t>() + payload(d.dbuf)?.bytes_used;
            }
            // Types without a rule: unchanged.
            _ => {}
        }
    }
    Ok(())
}

/// `PMIx_Value_get_size` into `sz`: the payload, then the value itself
/// (added even when the payload's size fails).
///
/// # Safety
/// `v` is a valid value.
unsafe fn value_size(v: &pmix_value_t, sz: &mut usize) -> Res<()> {
    // SAFETY: the caller's contract.
    let r = unsafe { payload_size(v, sz) };
    *sz = sz.wrapping_add(size_of::<pmix_value_t>());
    r
}

/// `PMIx_Info_get_size` into `sz`: the value, the key (`PMIX_MAX_KEYLEN`
/// bytes for a full key, else its length and NUL) and the info itself.
///
/// # Safety
/// `i` is a valid info.
unsafe fn info_size(i: &pmix_info_t, sz: &mut usize) -> Res<()> {
    // SAFETY: the caller's contract.
    unsafe { value_size(&i.value, sz) }?;
    let key = c_array_bytes(&i.key[..PMIX_MAX_KEYLEN]).len();
    let key = if key == PMIX_MAX_KEYLEN { key } else { key + 1 };
    *sz = sz.wrapping_add(key + size_of::<pmix_info_t>());
    Ok(())
}

/// `pmix_status_t PMIx_Value_get_size(const pmix_value_t *val, size_t
/// *size)`.
///
/// # Safety
/// `val` is NULL or a valid value; `size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_get_size(
    val: *const pmix_value_t,
    size: *mut usize,
) -> pmix_status_t {
    guard(|| {
        crate::nonnull!(val, size);
        // SAFETY: valid pointers (C contract).
        unsafe { value_size(&*val, &mut *size) }
    })
}

/// `pmix_status_t PMIx_Info_get_size(const pmix_info_t *val, size_t
/// *size)`.
///
/// # Safety
/// `val` is NULL or a valid info; `size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_get_size(
    val: *const pmix_info_t,
    size: *mut usize,
) -> pmix_status_t {
    guard(|| {
        crate::nonnull!(val, size);
        // SAFETY: valid pointers (C contract).
        unsafe { info_size(&*val, &mut *size) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size_of_value(v: &pmix_value_t, start: usize) -> (Res<()>, usize) {
        let mut sz = start;
        // SAFETY: a valid value.
        let r = unsafe { value_size(v, &mut sz) };
        (r, sz)
    }

    #[test]
    fn a_string_counts_its_bytes_its_nul_and_the_value() {
        let mut v = pmix_value_t {
            type_: PMIX_STRING,
            ..Default::default()
        };
        v.data.string = c"abc".as_ptr().cast_mut();
        assert_eq!(
            size_of_value(&v, 7),
            (Ok(()), 4 + size_of::<pmix_value_t>())
        );
    }

    #[test]
    fn undef_fails_but_still_adds_the_value_to_what_was_there() {
        let v = pmix_value_t::default();
        assert_eq!(
            size_of_value(&v, 100),
            (
                Err(Status::ERR_UNKNOWN_DATA_TYPE),
                100 + size_of::<pmix_value_t>()
            )
        );
    }
}
