//! `PMIx_Compute_distances` and `PMIx_Compute_distances_nb`: the
//! distances from a process's PUs to the GPUs and NICs of a topology
//! (rule and naming: [`super::os_devices`]).
//!
//! Arguments: a NULL `topo` is this node's topology (the standard's "NULL
//! indicates the local node"); a given one must say `hwloc` (a NULL source
//! or topology is `PMIX_ERR_BAD_PARAM`, another source
//! `PMIX_ERR_NOT_SUPPORTED`). A NULL `cpuset` is the PUs this process is
//! bound to (as OpenPMIx does); a given one must say `hwloc` and hold at
//! least one PU (`PMIX_ERR_BAD_PARAM`). Directives: `PMIX_DEVICE_TYPE`
//! (an unknown type is `PMIX_ERR_BAD_PARAM`) and `PMIX_DEVICE_ID`. No
//! device found is `PMIX_ERR_NOT_FOUND`; a set only the machine covers
//! `PMIX_ERR_NOT_AVAILABLE`.
//!
//! Both need initialization (`PMIX_ERR_INIT` before, as OpenPMIx's
//! blocking form), then check their arguments before computing.
//!
//! Invariants: the blocking form's array is `malloc`ed (the caller frees
//! it with `PMIX_DEVICE_DIST_FREE`), NULL with a count of 0 on failure;
//! the non-blocking form computes before returning, reports any failure
//! as its return value, and calls back only after returning, on a thread
//! of its own, with an array that stays the library's until the callback
//! calls its `release_fn`.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_int, c_void};
use std::ptr::null_mut;

use pmix_core::value::{DataArray, DeviceDistance};
use pmix_core::{DataType, Status, Value};

use crate::api::args::check_array;
use crate::api::locality::{bound_pus, node_topology};
use crate::api::os_devices::{self, DeviceFilter};
use crate::api::state::require_init;
use crate::boundary::{guard, guard_or, run_later, SendPtr};
use crate::convert;
use crate::nonnull;
use crate::sys::hwloc::{hwloc_bitmap_free, hwloc_topology_t, HWLOC_CPUBIND_PROCESS};
use crate::sys::{
    pmix_cpuset_t, pmix_device_dist_cbfunc_t, pmix_device_distance_t, pmix_info_t, pmix_topology_t,
};

/// The topology a call names: `topo`'s, or this node's for NULL.
///
/// # Safety
/// `topo` is NULL or a valid `pmix_topology_t`.
unsafe fn topology_of(topo: *const pmix_topology_t) -> Result<hwloc_topology_t, Status> {
    // SAFETY: per the contract.
    let Some(t) = (unsafe { topo.as_ref() }) else {
        return node_topology();
    };
    nonnull!(t.source, t.topology);
    // SAFETY: a non-NULL source is a C string (C API).
    if !unsafe { convert::names_hwloc(t.source) } {
        return Err(Status::ERR_NOT_SUPPORTED);
    }
    Ok(t.topology)
}

/// Computes the distances of a call, with `cpuset`'s bitmap or, for NULL,
/// this process's binding.
///
/// # Safety
/// The arguments are valid per the C API (`info` checked by the caller).
unsafe fn compute(
    topo: *const pmix_topology_t,
    cpuset: *const pmix_cpuset_t,
    info: *const pmix_info_t,
    ninfo: usize,
) -> Result<Vec<DeviceDistance>, Status> {
    // SAFETY: info holds ninfo infos (checked by the caller).
    let directives = unsafe { convert::infos_from_c(info, ninfo) }?;
    let filter = DeviceFilter::from_infos(&directives)?;
    // SAFETY: per the contract.
    let topology = unsafe { topology_of(topo) }?;
    let host = pmix_core::server::local_hostname();
    // SAFETY: per the contract.
    match unsafe { cpuset.as_ref() } {
        Some(c) => {
            nonnull!(c.source, c.bitmap);
            // SAFETY: a non-NULL source is a C string (C API).
            if !unsafe { convert::names_hwloc(c.source) } {
                return Err(Status::ERR_NOT_SUPPORTED);
            }
            // SAFETY: an hwloc topology and bitmap per the C API.
            Ok(unsafe { os_devices::distances(topology, c.bitmap, &filter, &host) }?)
        }
        None => {
            let own = bound_pus(HWLOC_CPUBIND_PROCESS)?;
            // SAFETY: own is a valid bitmap, topology loaded.
            let r = unsafe { os_devices::distances(topology, own, &filter, &host) };
            // SAFETY: own is ours, freed once.
            unsafe { hwloc_bitmap_free(own) };
            Ok(r?)
        }
    }
}

/// The `PMIX_DEVICE_DISTANCES` of a local rank bound to the PUs in `list`
/// (hwloc list syntax), for the server's registration
/// ([`pmix_core::server::ServerConfig::device_distances`]): a data array
/// of the default types' distances on this node's topology; `None` for an
/// unreadable or empty list, no topology, or no device.
pub(crate) fn distances_of_list(list: &str) -> Option<Value> {
    let list = std::ffi::CString::new(list).ok()?;
    let topo = node_topology().ok()?;
    let bitmap = convert::bitmap_from_list(&list).ok()?;
    let host = pmix_core::server::local_hostname();
    // SAFETY: topo is loaded, bitmap valid and ours, freed once here.
    let dists = unsafe {
        let d = os_devices::distances(topo, bitmap, &DeviceFilter::all(), &host);
        hwloc_bitmap_free(bitmap);
        d
    };
    let items = dists
        .ok()?
        .into_iter()
        .map(|d| Value::DeviceDist(Box::new(d)))
        .collect();
    Some(Value::DataArray(Box::new(DataArray {
        elem_type: DataType::DeviceDist,
        items,
    })))
}

/// A `malloc`ed C array of `dists` (NULL when empty).
fn to_c(dists: Vec<DeviceDistance>) -> Result<(*mut pmix_device_distance_t, usize), Status> {
    let n = dists.len();
    let items: Vec<Value> = dists
        .into_iter()
        .map(|d| Value::DeviceDist(Box::new(d)))
        .collect();
    let arr = convert::write_items(DataType::DeviceDist, &items)?;
    Ok((arr.cast(), if arr.is_null() { 0 } else { n }))
}

/// `PMIx_Compute_distances`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances(
    topo: *mut pmix_topology_t,
    cpuset: *mut pmix_cpuset_t,
    info: *mut pmix_info_t,
    ninfo: usize,
    distances: *mut *mut pmix_device_distance_t,
    ndist: *mut usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(distances, ndist);
        // SAFETY: non-NULL out-parameters, the caller's.
        unsafe {
            *distances = null_mut();
            *ndist = 0;
        }
        check_array(info, ninfo)?;
        // SAFETY: arguments valid per the C API; info checked.
        let (arr, n) = to_c(unsafe { compute(topo, cpuset, info, ninfo) }?)?;
        // SAFETY: as above.
        unsafe {
            *distances = arr;
            *ndist = n;
        }
        Ok(())
    })
}

/// A distance array handed to a callback, freed by [`release_distances`].
struct DistanceArray(*mut pmix_device_distance_t, usize);

/// The `release_fn` of the non-blocking form's callback.
unsafe extern "C" fn release_distances(cbdata: *mut c_void) {
    guard_or((), || {
        if cbdata.is_null() {
            return;
        }
        // SAFETY: cbdata is the box the callback was given, released once.
        let a = unsafe { Box::from_raw(cbdata.cast::<DistanceArray>()) };
        // SAFETY: the array came from write_items with this count.
        unsafe { convert::free_items(DataType::DeviceDist, a.0.cast(), a.1) };
    })
}

/// `PMIx_Compute_distances_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances_nb(
    topo: *mut pmix_topology_t,
    cpuset: *mut pmix_cpuset_t,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_device_dist_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        let f = cbfunc.ok_or(Status::ERR_BAD_PARAM)?;
        // SAFETY: arguments valid per the C API; info checked.
        let (arr, n) = to_c(unsafe { compute(topo, cpuset, info, ninfo) }?)?;
        let rel = SendPtr(Box::into_raw(Box::new(DistanceArray(arr, n))).cast());
        let data = SendPtr(cbdata);
        run_later(move || {
            let (rel, data) = (rel, data);
            // SAFETY: rel is the box leaked above, alive until release_fn.
            let (arr, n) = unsafe {
                (
                    (*rel.0.cast::<DistanceArray>()).0,
                    (*rel.0.cast::<DistanceArray>()).1,
                )
            };
            // SAFETY: the caller's callback with its cbdata; the array
            // stays valid until it calls release_fn with `rel`.
            guard_or((), || unsafe {
                f(
                    Status::SUCCESS.0,
                    arr,
                    n,
                    data.0,
                    Some(release_distances),
                    rel.0,
                )
            });
        });
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use pmix_core::{DataType, Value};

    /// The registration's derivation: nothing for an unreadable or empty
    /// list; for PU 0 of this machine either nothing (no GPU or NIC
    /// hwloc can name) or a data array of device distances.
    #[test]
    fn registration_distances() {
        assert_eq!(super::distances_of_list("not a list"), None);
        assert_eq!(super::distances_of_list(""), None);
        match super::distances_of_list("0") {
            None => {}
            Some(Value::DataArray(a)) => {
                assert_eq!(a.elem_type, DataType::DeviceDist);
                assert!(!a.items.is_empty());
                assert!(a.items.iter().all(|v| matches!(v,
                    Value::DeviceDist(d) if d.uuid.is_some() && d.mindist <= d.maxdist)));
            }
            Some(other) => panic!("not a data array: {other:?}"),
        }
    }
}
