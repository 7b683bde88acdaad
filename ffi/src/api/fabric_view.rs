//! The library's own fabric view, for `PMIx_Fabric_register` when no host
//! describes a fabric (no server, or a host without the `fabric` module
//! function): this node's NICs as hwloc lists them, seen as one fabric.
//!
//! What it holds (the `info` of the registered `pmix_fabric_t`):
//! - `PMIX_FABRIC_VENDOR`: `"unknown"` (a node's NICs may come from several
//!   vendors, and no fabric manager names one);
//! - `PMIX_FABRIC_IDENTIFIER`: `"node:<hostname>"`;
//! - `PMIX_FABRIC_NUM_DEVICES` (`size_t`): the number of NICs, the side of
//!   the cost matrix;
//! - `PMIX_FABRIC_COST_MATRIX` (pointer, when there is at least one NIC):
//!   a `malloc`ed row-major square array of `uint16_t`, 0 on the diagonal
//!   and 1 elsewhere: every pair of NICs of one node is one hop apart
//!   (through the host), which is all that is known without a fabric
//!   manager;
//! - `PMIX_FABRIC_DEVICES` (when there are NICs): one `PMIX_FABRIC_DEVICE`
//!   each, as the node inventory gives them (`PMIX_DEVICE_ID`,
//!   `PMIX_FABRIC_DEVICE_NAME`), plus its `PMIX_FABRIC_DEVICE_INDEX`, its
//!   row in the cost matrix.
//!
//! No coordinates: hwloc knows none (`PMIX_FABRIC_DIMS` is not given).
//!
//! Invariant: the cost matrix is owned by its [`CostMatrix`], freed once,
//! when that is dropped; the infos only point at it.

use pmix_core::value::DataArray;
use pmix_core::{keys as k, DataType, Info, Status, Value};

use crate::api::inventory::{fabric_devices, info};
use crate::api::locality::node_topology;

/// A `malloc`ed `n`×`n` `uint16_t` cost matrix, freed on drop.
pub(crate) struct CostMatrix(*mut u16);

// SAFETY: the matrix is a plain allocation this value alone owns; the C
// caller only reads it.
unsafe impl Send for CostMatrix {}

impl CostMatrix {
    /// The uniform matrix of `n` devices (`n` > 0): 0 on the diagonal, 1
    /// elsewhere.
    fn uniform(n: usize) -> Result<CostMatrix, Status> {
        let len = n.checked_mul(n).ok_or(Status::ERR_NOMEM)?;
        let p = crate::boundary::calloc_array::<u16>(len)?;
        // SAFETY: p holds len zeroed u16s.
        let cells = unsafe { std::slice::from_raw_parts_mut(p, len) };
        for (i, c) in cells.iter_mut().enumerate() {
            *c = u16::from(i / n != i % n);
        }
        Ok(CostMatrix(p))
    }
}

impl Drop for CostMatrix {
    fn drop(&mut self) {
        // SAFETY: a calloc'd block (or NULL) owned by this value alone.
        unsafe { libc::free(self.0.cast()) }
    }
}

/// This node's fabric view (see the module doc) and the cost matrix its
/// infos point at (`None` with no NICs).
pub(crate) fn node_fabric() -> Result<(Vec<Info>, Option<CostMatrix>), Status> {
    let topo = node_topology()?;
    let host = pmix_core::server::local_hostname();
    // SAFETY: the node topology is loaded.
    let devices = unsafe { fabric_devices(topo, &host) }?;
    let devices = devices.map(indexed).unwrap_or_default();
    let n = devices.len();
    let mut out = vec![
        info(k::FABRIC_VENDOR, Value::string("unknown"))?,
        info(k::FABRIC_IDENTIFIER, Value::string(&format!("node:{host}")))?,
        info(k::FABRIC_NUM_DEVICES, Value::Size(n))?,
    ];
    if n == 0 {
        return Ok((out, None));
    }
    let cost = CostMatrix::uniform(n)?;
    out.push(info(
        k::FABRIC_COST_MATRIX,
        Value::Pointer(cost.0 as usize),
    )?);
    out.push(info(
        k::FABRIC_DEVICES,
        Value::DataArray(Box::new(DataArray {
            elem_type: DataType::Info,
            items: devices,
        })),
    )?);
    Ok((out, Some(cost)))
}

/// The `PMIX_FABRIC_DEVICE` items of `devices`, each given its
/// `PMIX_FABRIC_DEVICE_INDEX` (its position).
fn indexed(devices: Value) -> Vec<Value> {
    let Value::DataArray(arr) = devices else {
        return Vec::new();
    };
    let mut items = arr.items;
    for (n, item) in items.iter_mut().enumerate() {
        let Value::Info(dev) = item else { continue };
        let Value::DataArray(fields) = &mut dev.value else {
            continue;
        };
        if let Some(i) = Info::keyed(k::FABRIC_DEVICE_INDEX, Value::Uint32(n as u32)) {
            fields.items.push(Value::Info(Box::new(i)));
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::CostMatrix;

    /// The uniform matrix: 0 on the diagonal, 1 elsewhere, row-major.
    #[test]
    fn uniform_cost_matrix_is_zero_on_the_diagonal_only() {
        let m = CostMatrix::uniform(3).unwrap();
        // SAFETY: 3 x 3 cells.
        let cells = unsafe { std::slice::from_raw_parts(m.0, 9) };
        assert_eq!(cells, &[0, 1, 1, 1, 0, 1, 1, 1, 0]);
        let one = CostMatrix::uniform(1).unwrap();
        // SAFETY: one cell.
        assert_eq!(unsafe { *one.0 }, 0);
    }
}
