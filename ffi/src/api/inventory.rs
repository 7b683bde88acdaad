//! `PMIx_server_collect_inventory` and `PMIx_server_deliver_inventory`.
//!
//! Collecting gathers this node's inventory from its hwloc topology, as
//! infos a host can ship to another node's server: `PMIX_HOSTNAME`,
//! `PMIX_HWLOC_XML_V2` (the topology's XML export: packages, caches,
//! cores, PUs, NUMA nodes, GPUs and NICs), `PMIX_AVAIL_PHYS_MEMORY` (when
//! hwloc knows the node's memory) and `PMIX_FABRIC_DEVICES` (when the node
//! has NICs hwloc can name: one `PMIX_FABRIC_DEVICE` each, its
//! `PMIX_DEVICE_ID` — the uuid of [`super::os_devices`] — first, then its
//! `PMIX_FABRIC_DEVICE_NAME`). Directives are ignored. OpenPMIx 5.0.11
//! gathers nothing here (its only inventory plugin reports nothing).
//!
//! Delivering keeps another node's inventory in the server
//! ([`pmix_core::server::Server::deliver_inventory`]): namespaces registered
//! afterwards give their clients its memory and fabric devices as that
//! node's data.
//!
//! Invariants: both need initialization; collect calls back (from another
//! thread, after returning) with the infos, valid until `release_fn`, and
//! refuses a NULL callback (nothing could receive the inventory); deliver
//! needs a server, and without a callback returns
//! `PMIX_OPERATION_SUCCEEDED` once stored (as OpenPMIx).
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_int, c_void};

use pmix_core::value::DataArray;
use pmix_core::{keys as k, DataType, Info, Status, Value};

use crate::api::args::{check_array, infos_in};
use crate::api::locality::node_topology;
use crate::api::os_devices::{self, DeviceFilter};
use crate::api::results::infos_cb;
use crate::api::server::answer_done;
use crate::api::state::{require_init, server};
use crate::boundary::{guard, run_later};
use crate::convert;
use crate::sys::hwloc::{self as hw, hwloc_topology_t};
use crate::sys::{
    pmix_info_cbfunc_t, pmix_info_t, pmix_op_cbfunc_t, PMIX_DEVTYPE_NETWORK,
    PMIX_DEVTYPE_OPENFABRICS,
};

/// An info of a key the library knows.
pub(crate) fn info(key: &str, value: Value) -> Result<Info, Status> {
    Info::keyed(key, value).ok_or(Status::ERROR)
}

/// `PMIX_FABRIC_DEVICES` of `topo`'s NICs, `None` if it has none.
///
/// # Safety
/// `topo` is a loaded topology.
pub(crate) unsafe fn fabric_devices(
    topo: hwloc_topology_t,
    host: &str,
) -> Result<Option<Value>, Status> {
    let nics = DeviceFilter {
        types: PMIX_DEVTYPE_NETWORK | PMIX_DEVTYPE_OPENFABRICS,
        ids: Vec::new(),
    };
    // SAFETY: per the contract.
    let devs = unsafe { os_devices::devices(topo, host, &nics) };
    if devs.is_empty() {
        return Ok(None);
    }
    let items = devs
        .into_iter()
        .map(|d| {
            let fields = vec![
                Value::Info(Box::new(info(k::DEVICE_ID, Value::string(&d.uuid))?)),
                Value::Info(Box::new(info(
                    k::FABRIC_DEVICE_NAME,
                    Value::string(&d.osname),
                )?)),
            ];
            let device = info_array(fields);
            Ok(Value::Info(Box::new(info(k::FABRIC_DEVICE, device)?)))
        })
        .collect::<Result<Vec<_>, Status>>()?;
    Ok(Some(info_array(items)))
}

fn info_array(items: Vec<Value>) -> Value {
    Value::DataArray(Box::new(DataArray {
        elem_type: DataType::Info,
        items,
    }))
}

/// This node's inventory (see the module doc).
pub(crate) fn node_inventory() -> Result<Vec<Info>, Status> {
    let topo = node_topology()?;
    let host = pmix_core::server::local_hostname();
    let mut out = vec![info(k::HOSTNAME, Value::string(&host))?];
    // SAFETY: the node topology is loaded.
    let xml = unsafe { convert::topology_xml(topo) }?;
    out.push(info(k::HWLOC_XML_V2, Value::String(Some(xml)))?);
    // SAFETY: the node topology is loaded; its root is the machine.
    let memory = unsafe { hw::hwloc_get_obj_by_depth(topo, 0, 0).as_ref() }
        .map_or(0, |root| root.total_memory);
    if memory > 0 {
        out.push(info(k::AVAIL_PHYS_MEMORY, Value::Uint64(memory))?);
    }
    // SAFETY: as above.
    if let Some(devs) = unsafe { fabric_devices(topo, &host) }? {
        out.push(info(k::FABRIC_DEVICES, devs)?);
    }
    Ok(out)
}

/// `PMIx_server_collect_inventory`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_collect_inventory(
    directives: *mut pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        require_init()?;
        check_array(directives, ndirs)?;
        if cbfunc.is_none() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let inventory = node_inventory()?;
        let done = infos_cb(cbfunc, cbdata);
        run_later(move || done(Ok(inventory)));
        Ok(())
    })
}

/// `PMIx_server_deliver_inventory`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deliver_inventory(
    info: *mut pmix_info_t,
    ninfo: usize,
    directives: *mut pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        check_array(directives, ndirs)?;
        // SAFETY: info holds ninfo infos (C contract, checked above).
        let infos = unsafe { infos_in(info, ninfo) }?;
        server()?.server.deliver_inventory(&infos)?;
        answer_done(cbfunc, cbdata)
    })
}
