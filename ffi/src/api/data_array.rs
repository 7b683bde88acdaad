//! `PMIx_Data_array_destruct`, `PMIx_Cpuset_destruct` and
//! `PMIx_Topology_destruct`.
//!
//! The reference's cpuset and topology destructors do nothing before
//! `PMIx_Init`; these always release (a leak is the only difference a caller
//! could otherwise see). As in the reference, only objects whose `source`
//! names hwloc are released: anything else belongs to its creator.

use crate::boundary::guard_or;
use crate::convert;
use crate::sys::*;

/// `void PMIx_Data_array_destruct(pmix_data_array_t *d)`: releases the
/// elements and the element array; the array is left `PMIX_UNDEF`, empty.
///
/// # Safety
/// `d` is NULL or a valid data array whose element array and payloads were
/// allocated with malloc.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_destruct(d: *mut pmix_data_array_t) {
    guard_or((), || {
        if !d.is_null() {
            // SAFETY: d is valid (C contract).
            unsafe { convert::data_array_destruct(d) };
        }
    })
}

/// `void PMIx_Cpuset_destruct(pmix_cpuset_t *cpuset)`.
///
/// # Safety
/// `cpuset` is NULL or a valid cpuset.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Cpuset_destruct(cpuset: *mut pmix_cpuset_t) {
    guard_or((), || {
        if !cpuset.is_null() {
            // SAFETY: cpuset is valid (C contract).
            unsafe { convert::cpuset_destruct(cpuset) };
        }
    })
}

/// `void PMIx_Topology_destruct(pmix_topology_t *topo)`.
///
/// # Safety
/// `topo` is NULL or a valid topology.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Topology_destruct(topo: *mut pmix_topology_t) {
    guard_or((), || {
        if !topo.is_null() {
            // SAFETY: topo is valid (C contract).
            unsafe { convert::topology_destruct(topo) };
        }
    })
}
