//! The devices of an hwloc topology that PMIx reports (GPUs, network and
//! OpenFabrics NICs, coprocessors, and block devices when asked for), named
//! as OpenPMIx names them, and their distances from a set of PUs
//! (`pmix_device_distance_t`).
//!
//! Naming (OpenPMIx's): a network device is `ipv4://<Address>` (its
//! hardware address has 5 colons) or `ipv6://<Address>` (19 colons); an
//! OpenFabrics device `fab://<NodeGUID>::<SysImageGUID>`; a GPU or a
//! coprocessor `gpu://<host>::<osname>`; a block device
//! `blk://<host>::<osname>`. A GPU named `card*` is the display side of a
//! GPU listed again under another name, so it is not reported; a device
//! whose name cannot be formed (no address, an unknown address form) is
//! skipped (OpenPMIx 5.0.11 fails the whole call there; its master skips).
//!
//! Order: by type (GPU, network, OpenFabrics, coprocessor, block), then in
//! the topology's order.
//!
//! Distance rule: a device sits at its nearest ancestor that has a cpuset
//! (I/O objects have none). For each PU of the set, with `D` the
//! topology's depth and `A` the common ancestor of the PU and that object,
//! the distance is `D - depth(A)` when `A` is below the machine, and
//! `depth(PU) + D` (further than anything sharing more than the machine)
//! when only the machine is shared. `mindist`/`maxdist` are the least and
//! greatest over the set's PUs (OpenPMIx master; 5.0.11 takes one common
//! ancestor for the whole set, so min = max, which agrees for a set under
//! one object of the device's locality). A set no single object below the
//! machine covers is refused, as OpenPMIx refuses it.
//!
//! Invariant: the topology is only read, and nothing returned borrows it.

use std::ffi::{c_char, c_int, c_uint, CStr, CString};

use pmix_core::value::DeviceDistance;
use pmix_core::{Info, Status, Value};

use crate::sys::hwloc::{self as hw, hwloc_bitmap_t, hwloc_obj, hwloc_topology_t};
use crate::sys::{
    PMIX_DEVTYPE_BLOCK, PMIX_DEVTYPE_COPROC, PMIX_DEVTYPE_DMA, PMIX_DEVTYPE_GPU,
    PMIX_DEVTYPE_NETWORK, PMIX_DEVTYPE_OPENFABRICS,
};

/// hwloc's OS device type and the PMIx device type it reports as, in the
/// order devices are reported.
const KINDS: [(c_int, u64); 5] = [
    (hw::HWLOC_OBJ_OSDEV_GPU, PMIX_DEVTYPE_GPU),
    (hw::HWLOC_OBJ_OSDEV_NETWORK, PMIX_DEVTYPE_NETWORK),
    (hw::HWLOC_OBJ_OSDEV_OPENFABRICS, PMIX_DEVTYPE_OPENFABRICS),
    (hw::HWLOC_OBJ_OSDEV_COPROC, PMIX_DEVTYPE_COPROC),
    (hw::HWLOC_OBJ_OSDEV_BLOCK, PMIX_DEVTYPE_BLOCK),
];

/// Every PMIx device type (`PMIX_DEVTYPE_*`); a type asked for with any
/// other bit is unknown. DMA engines are known but never reported (they
/// have no name form).
const KNOWN_TYPES: u64 = PMIX_DEVTYPE_BLOCK
    | PMIX_DEVTYPE_GPU
    | PMIX_DEVTYPE_NETWORK
    | PMIX_DEVTYPE_OPENFABRICS
    | PMIX_DEVTYPE_DMA
    | PMIX_DEVTYPE_COPROC;

/// The types reported when the caller names none: the devices a process
/// computes or communicates through.
pub(crate) const DEFAULT_TYPES: u64 =
    PMIX_DEVTYPE_GPU | PMIX_DEVTYPE_NETWORK | PMIX_DEVTYPE_OPENFABRICS | PMIX_DEVTYPE_COPROC;

/// Why distances could not be computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DistanceError {
    /// `PMIX_DEVICE_TYPE` with a bit no `PMIX_DEVTYPE_*` has, or not of
    /// type `PMIX_DEVTYPE`; `PMIX_DEVICE_ID` not a string.
    BadDirective,
    /// The cpuset has no PU.
    EmptyCpuset,
    /// Only the whole machine covers the cpuset.
    Unlocated,
    /// No device of the types (and ids) asked for.
    NoDevice,
}

impl From<DistanceError> for Status {
    fn from(e: DistanceError) -> Status {
        match e {
            DistanceError::BadDirective | DistanceError::EmptyCpuset => Status::ERR_BAD_PARAM,
            DistanceError::Unlocated => Status::ERR_NOT_AVAILABLE,
            DistanceError::NoDevice => Status::ERR_NOT_FOUND,
        }
    }
}

/// Which devices a caller asks for: `PMIX_DEVICE_TYPE` (a mask, the
/// default types when absent; several are or'ed) and `PMIX_DEVICE_ID`
/// (an osname or uuid, compared without case; any of several matches).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeviceFilter {
    pub(crate) types: u64,
    pub(crate) ids: Vec<String>,
}

impl DeviceFilter {
    /// The filter of a call's directives; other keys are ignored.
    pub(crate) fn from_infos(infos: &[Info]) -> Result<Self, DistanceError> {
        use pmix_core::keys as k;
        let mut types = 0;
        let mut ids = Vec::new();
        for i in infos {
            match i.key.as_bytes() {
                b if b == k::DEVICE_TYPE.as_bytes() => match i.value {
                    Value::DevType(t) if t != 0 && t & !KNOWN_TYPES == 0 => types |= t,
                    _ => return Err(DistanceError::BadDirective),
                },
                b if b == k::DEVICE_ID.as_bytes() => match &i.value {
                    Value::String(Some(s)) => ids.push(s.to_string_lossy().into_owned()),
                    _ => return Err(DistanceError::BadDirective),
                },
                _ => {}
            }
        }
        Ok(DeviceFilter {
            types: if types == 0 { DEFAULT_TYPES } else { types },
            ids,
        })
    }

    /// The default types, any id.
    pub(crate) fn all() -> Self {
        DeviceFilter {
            types: DEFAULT_TYPES,
            ids: Vec::new(),
        }
    }

    fn wants(&self, osname: &str, uuid: &str) -> bool {
        self.ids.is_empty()
            || self
                .ids
                .iter()
                .any(|id| id.eq_ignore_ascii_case(osname) || id.eq_ignore_ascii_case(uuid))
    }
}

/// One reported device.
pub(crate) struct OsDevice {
    /// `PMIX_DEVTYPE_*`.
    pub(crate) kind: u64,
    pub(crate) osname: String,
    pub(crate) uuid: String,
    /// The nearest ancestor with a cpuset, where the device's distances
    /// are measured from; NULL if it has none.
    locus: *mut hwloc_obj,
}

/// A C string of hwloc's, lossily; "" for NULL.
///
/// # Safety
/// `p` is NULL or a valid C string.
unsafe fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: per the contract.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The value of the info `name` of `obj` (compared without case).
///
/// # Safety
/// `obj` is an object of a loaded topology.
unsafe fn obj_info(obj: &hwloc_obj, name: &str) -> Option<String> {
    if obj.infos.is_null() {
        return None;
    }
    // SAFETY: hwloc keeps `infos_count` infos at `infos`.
    let infos = unsafe { std::slice::from_raw_parts(obj.infos, obj.infos_count as usize) };
    infos.iter().find_map(|i| {
        // SAFETY: hwloc's info strings are valid C strings.
        let n = unsafe { text(i.name) };
        // SAFETY: as above.
        n.eq_ignore_ascii_case(name)
            .then(|| unsafe { text(i.value) })
    })
}

/// The uuid of an OS device of hwloc type `osdev_type`, `None` if it has
/// no name form (see the module doc).
///
/// # Safety
/// `obj` is an OS device of a loaded topology.
unsafe fn uuid_of(obj: &hwloc_obj, osdev_type: c_int, osname: &str, host: &str) -> Option<String> {
    match osdev_type {
        hw::HWLOC_OBJ_OSDEV_NETWORK => {
            // SAFETY: forwarded contract.
            let addr = unsafe { obj_info(obj, "Address") }?;
            match addr.matches(':').count() {
                5 => Some(format!("ipv4://{addr}")),
                19 => Some(format!("ipv6://{addr}")),
                _ => None,
            }
        }
        hw::HWLOC_OBJ_OSDEV_OPENFABRICS => {
            // SAFETY: forwarded contract.
            let (node, sys) = unsafe { (obj_info(obj, "NodeGUID"), obj_info(obj, "SysImageGUID")) };
            Some(format!("fab://{}::{}", node?, sys?))
        }
        hw::HWLOC_OBJ_OSDEV_GPU | hw::HWLOC_OBJ_OSDEV_COPROC => {
            Some(format!("gpu://{host}::{osname}"))
        }
        hw::HWLOC_OBJ_OSDEV_BLOCK => Some(format!("blk://{host}::{osname}")),
        _ => None,
    }
}

/// The devices of `topo` that `filter` asks for, named for node `host`.
///
/// # Safety
/// `topo` is a loaded topology that outlives the result.
pub(crate) unsafe fn devices(
    topo: hwloc_topology_t,
    host: &str,
    filter: &DeviceFilter,
) -> Vec<OsDevice> {
    // SAFETY: topo is loaded; the OS device level is a virtual depth.
    let n = unsafe { hw::hwloc_get_nbobjs_by_depth(topo, hw::HWLOC_TYPE_DEPTH_OS_DEVICE) };
    let objs: Vec<&hwloc_obj> = (0..n)
        .filter_map(|i: c_uint| {
            // SAFETY: i is below the level's width; objects live as long
            // as the topology.
            unsafe { hw::hwloc_get_obj_by_depth(topo, hw::HWLOC_TYPE_DEPTH_OS_DEVICE, i).as_ref() }
        })
        .collect();
    let mut out = Vec::new();
    for (osdev_type, kind) in KINDS {
        if filter.types & kind == 0 {
            continue;
        }
        for &obj in &objs {
            // SAFETY: an OS device's attr points to hwloc's attribute
            // union, whose osdev member starts with the device type.
            if obj.attr.is_null() || unsafe { *obj.attr.cast::<c_int>() } != osdev_type {
                continue;
            }
            // SAFETY: hwloc's object name: NULL or a C string.
            let osname = unsafe { text(obj.name) };
            if osdev_type == hw::HWLOC_OBJ_OSDEV_GPU
                && osname.len() >= 4
                && osname[..4].eq_ignore_ascii_case("card")
            {
                continue;
            }
            // SAFETY: obj is an OS device of topo.
            let Some(uuid) = (unsafe { uuid_of(obj, osdev_type, &osname, host) }) else {
                continue;
            };
            if !filter.wants(&osname, &uuid) {
                continue;
            }
            let mut locus = obj.parent;
            // SAFETY: parents of topo's objects are topo's objects or NULL.
            while let Some(p) = unsafe { locus.as_ref() } {
                if !p.cpuset.is_null() {
                    break;
                }
                locus = p.parent;
            }
            out.push(OsDevice {
                kind,
                osname,
                uuid,
                locus,
            });
        }
    }
    out
}

/// hwloc's common ancestor of two normal objects of one topology.
///
/// # Safety
/// Both are objects (with cpusets) of one loaded topology.
unsafe fn common_ancestor(mut a: *mut hwloc_obj, mut b: *mut hwloc_obj) -> *mut hwloc_obj {
    // SAFETY: normal objects have non-negative depths and parents up to
    // the machine (depth 0), the one object that is its own answer.
    unsafe {
        while a != b {
            while (*a).depth > (*b).depth {
                a = (*a).parent;
            }
            while (*b).depth > (*a).depth {
                b = (*b).parent;
            }
            if a != b && (*a).depth == (*b).depth {
                a = (*a).parent;
                b = (*b).parent;
            }
        }
    }
    a
}

/// True if an object just below the machine covers every PU of `set`
/// (OpenPMIx's test: its search for the set's object stops at once if
/// the first level below the machine has none).
///
/// # Safety
/// `topo` is loaded, `set` a valid bitmap.
unsafe fn located(topo: hwloc_topology_t, set: hwloc_bitmap_t) -> bool {
    // SAFETY: topo is loaded; level 1 exists below the machine (PUs are
    // never at the machine's level).
    let width = unsafe { hw::hwloc_get_nbobjs_by_depth(topo, 1) };
    (0..width).any(|w| {
        // SAFETY: w is below the level's width.
        let obj = unsafe { hw::hwloc_get_obj_by_depth(topo, 1, w) };
        // SAFETY: obj is NULL or topo's; its cpuset NULL or valid.
        unsafe { obj.as_ref() }.is_some_and(|o| {
            !o.cpuset.is_null()
                // SAFETY: both valid bitmaps.
                && unsafe { hw::hwloc_bitmap_isincluded(set, o.cpuset) } != 0
        })
    })
}

/// The distances from the PUs of `set` to the devices of `topo` that
/// `filter` asks for, GPUs named for node `host`.
///
/// # Safety
/// `topo` is a loaded topology and `set` a valid hwloc bitmap.
pub(crate) unsafe fn distances(
    topo: hwloc_topology_t,
    set: hwloc_bitmap_t,
    filter: &DeviceFilter,
    host: &str,
) -> Result<Vec<DeviceDistance>, DistanceError> {
    // SAFETY: set is a valid bitmap.
    if unsafe { hw::hwloc_bitmap_iszero(set) } != 0 {
        return Err(DistanceError::EmptyCpuset);
    }
    // SAFETY: topo loaded, set valid.
    if !unsafe { located(topo, set) } {
        return Err(DistanceError::Unlocated);
    }
    // SAFETY: topo is loaded.
    let (depth, pu_depth) = unsafe {
        (
            hw::hwloc_topology_get_depth(topo),
            hw::hwloc_get_type_depth(topo, hw::HWLOC_OBJ_PU),
        )
    };
    // SAFETY: topo is loaded; pu_depth is its PU level.
    let npu = unsafe { hw::hwloc_get_nbobjs_by_depth(topo, pu_depth) };
    let pus: Vec<*mut hwloc_obj> = (0..npu)
        // SAFETY: w is below the level's width.
        .map(|w| unsafe { hw::hwloc_get_obj_by_depth(topo, pu_depth, w) })
        .filter(|&pu| {
            // SAFETY: pu is NULL or topo's; cpuset NULL or valid.
            unsafe { pu.as_ref() }.is_some_and(|p| {
                !p.cpuset.is_null()
                    // SAFETY: both valid bitmaps.
                    && unsafe { hw::hwloc_bitmap_intersects(p.cpuset, set) } != 0
            })
        })
        .collect();
    // SAFETY: forwarded contract.
    let devs = unsafe { devices(topo, host, filter) };
    if devs.is_empty() {
        return Err(DistanceError::NoDevice);
    }
    Ok(devs
        .into_iter()
        .map(|d| {
            let (mut min, mut max) = (u16::MAX, 0u16);
            if !d.locus.is_null() {
                for &pu in &pus {
                    // SAFETY: pu and the locus are normal objects of topo.
                    let (anc, pu_d) =
                        unsafe { ((*common_ancestor(pu, d.locus)).depth, (*pu).depth) };
                    let dist = if anc == 0 { pu_d + depth } else { depth - anc };
                    let dist = u16::try_from(dist).unwrap_or(u16::MAX);
                    min = min.min(dist);
                    max = max.max(dist);
                }
            }
            if min == u16::MAX {
                max = u16::MAX;
            }
            DeviceDistance {
                uuid: CString::new(d.uuid).ok(),
                osname: CString::new(d.osname).ok(),
                dev_type: d.kind,
                mindist: min,
                maxdist: max,
            }
        })
        .collect())
}
