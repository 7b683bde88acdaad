//! `PMIx_server_deliver_inventory`: other nodes' inventories (as their
//! servers' `PMIx_server_collect_inventory` gathered them) kept by the
//! hostname they carry.
//!
//! Invariants: one inventory per node, the latest delivered (a key given
//! again replaces its value, others stay); an inventory names its node
//! with `PMIX_HOSTNAME` (a string) or is refused; a namespace registered
//! afterwards gets, for each of its nodes that has an inventory, the
//! inventory's node-realm keys ([`NODE_KEYS`]) its registration does not
//! give for that node, as node-level data its clients read with a
//! `PMIX_HOSTNAME` or `PMIX_NODEID` qualifier.

use super::Server;
use crate::keys as k;
use crate::{Info, Status, Value};

/// The inventory keys that describe a node and so join its node-level
/// data.
pub const NODE_KEYS: [&str; 2] = [k::AVAIL_PHYS_MEMORY, k::FABRIC_DEVICES];

impl Server {
    /// `PMIx_server_deliver_inventory`: keeps `infos`, the inventory of
    /// the node their `PMIX_HOSTNAME` names (`PMIX_ERR_BAD_PARAM` without
    /// one).
    pub fn deliver_inventory(&self, infos: &[Info]) -> Result<(), Status> {
        let host = infos
            .iter()
            .find(|i| i.key.as_bytes() == k::HOSTNAME.as_bytes())
            .and_then(|i| match &i.value {
                Value::String(Some(s)) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .ok_or(Status::ERR_BAD_PARAM)?;
        let mut held = self.inventory.lock();
        let node = held.entry(host).or_default();
        for i in infos {
            match node.iter_mut().find(|h| h.key == i.key) {
                Some(h) => *h = i.clone(),
                None => node.push(i.clone()),
            }
        }
        Ok(())
    }

    /// The inventory delivered for node `host`, if any.
    pub fn inventory_of(&self, host: &str) -> Option<Vec<Info>> {
        self.inventory.lock().get(host).cloned()
    }

    /// Every node's node-realm inventory keys, for a registration.
    pub(super) fn node_inventories(&self) -> Vec<(String, Vec<Info>)> {
        self.inventory
            .lock()
            .iter()
            .map(|(h, infos)| {
                let keep = infos
                    .iter()
                    .filter(|i| NODE_KEYS.iter().any(|n| i.key.as_bytes() == n.as_bytes()))
                    .cloned()
                    .collect();
                (h.clone(), keep)
            })
            .collect()
    }
}
