//! `PMIx_server_register_resources` and `_deregister_resources`: data the
//! host gives the server for every job it serves (OpenPMIx keeps it in
//! its server's "global data" and adds it to each namespace's job-level
//! data when the namespace is registered).
//!
//! Invariants: one value per key, the latest registered; a namespace
//! registered afterwards gets each held key as job-level data unless its
//! own registration gives that key (the namespace's value wins);
//! deregistering drops the keys for namespaces registered afterwards
//! (those already registered keep what they got, as in OpenPMIx).

use super::Server;
use crate::Info;

impl Server {
    /// `PMIx_server_register_resources`: keeps `infos` for the namespaces
    /// registered from now on (a key given again replaces its value).
    pub fn register_resources(&self, infos: &[Info]) {
        let mut held = self.resources.lock();
        for i in infos {
            match held.iter_mut().find(|h| h.key == i.key) {
                Some(h) => *h = i.clone(),
                None => held.push(i.clone()),
            }
        }
    }

    /// `PMIx_server_deregister_resources`: forgets the keys of `infos`
    /// (their values do not matter).
    pub fn deregister_resources(&self, infos: &[Info]) {
        self.resources
            .lock()
            .retain(|h| !infos.iter().any(|i| i.key == h.key));
    }

    /// A registration's `infos` with the held resources whose keys it
    /// does not give appended.
    pub(super) fn with_resources(&self, infos: &[Info]) -> Vec<Info> {
        let mut all = infos.to_vec();
        let held = self.resources.lock();
        all.extend(
            held.iter()
                .filter(|h| !infos.iter().any(|i| i.key == h.key))
                .cloned(),
        );
        all
    }
}
