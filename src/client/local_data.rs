//! What the client keeps outside the segments: what was put since the
//! last commit, the internal store (`PMIx_Store_internal`, `PMIX_INTERNAL`
//! puts, the client's identity keys) and peers' data fetched by direct
//! modex (the only copy of a peer's posted data on a server that does not
//! collect it into segments, e.g. an OpenPMIx server).
//!
//! Both stores are found by a process's namespace bytes and rank, and the
//! internal store by the key's bytes, with `foldhash`: a get looks here
//! without building a `Proc` or a `Key` (each an allocation) and without
//! SipHash over them, which cost a get of fetched data about 3000
//! instructions.
//!
//! Invariants: `LocalData` lives behind the client's `local` lock (one
//! owner); a fetched process's values keep their arrival order (newest
//! last, merged by scope and key), so the newest value of a key is the
//! last one with that key.

use std::collections::HashMap;

use crate::wire::{self, Posted};
use crate::{keys, Key, Proc, Value};

type Fast = foldhash::fast::RandomState;

/// Values kept per process, found by its namespace's bytes and rank.
struct ByProc<T> {
    map: HashMap<Box<[u8]>, HashMap<u32, T, Fast>, Fast>,
}

impl<T> Default for ByProc<T> {
    fn default() -> Self {
        ByProc {
            map: HashMap::default(),
        }
    }
}

impl<T: Default> ByProc<T> {
    fn get(&self, nspace: &[u8], rank: u32) -> Option<&T> {
        self.map.get(nspace)?.get(&rank)
    }

    fn get_mut(&mut self, nspace: &[u8], rank: u32) -> Option<&mut T> {
        self.map.get_mut(nspace)?.get_mut(&rank)
    }

    fn entry(&mut self, proc: &Proc) -> &mut T {
        // Called per store, not per get: the boxed name may be dropped.
        self.map
            .entry(proc.nspace.as_bytes().into())
            .or_default()
            .entry(proc.rank.0)
            .or_default()
    }
}

/// One process's internal store: key bytes to the key and its value.
type Internal = HashMap<Box<[u8]>, (Key, Value), Fast>;

/// What the client keeps outside the segments (see the module doc).
#[derive(Default)]
pub(super) struct LocalData {
    /// Posted since the last commit (never `PMIX_INTERNAL`).
    pub(super) uncommitted: Vec<Posted>,
    internal: ByProc<Internal>,
    fetched: ByProc<Vec<Posted>>,
}

impl LocalData {
    /// The keys about this process that the client itself answers, as
    /// OpenPMIx's client stores them at init: `PMIX_RANK` (a
    /// `PMIX_PROC_RANK`), `PMIX_SERVER_NSPACE` and `PMIX_SERVER_RANK`.
    pub(super) fn with_identity(me: &Proc, server: &Proc) -> LocalData {
        let mut d = LocalData::default();
        let mut add = |k: &str, v: Value| {
            if let Ok(k) = Key::new(k) {
                d.store_internal(me, k, v);
            }
        };
        add(keys::RANK, Value::ProcRank(me.rank.0));
        add(
            keys::SERVER_NSPACE,
            Value::string(&server.nspace.to_string_lossy()),
        );
        add(keys::SERVER_RANK, Value::ProcRank(server.rank.0));
        d
    }

    /// Keeps `value` for `(proc, key)` in the internal store.
    pub(super) fn store_internal(&mut self, proc: &Proc, key: Key, value: Value) {
        self.internal
            .entry(proc)
            .insert(key.as_bytes().into(), (key, value));
    }

    /// Drops `key` of `proc` from the internal store.
    pub(super) fn forget_internal(&mut self, proc: &Proc, key: &str) {
        let ns = proc.nspace.as_bytes();
        if let Some(m) = self.internal.get_mut(ns, proc.rank.0) {
            m.remove(key.as_bytes());
        }
    }

    /// The internal store's value of `key` for the process `rank` of
    /// `nspace`.
    pub(super) fn internal(&self, nspace: &[u8], rank: u32, key: &[u8]) -> Option<&Value> {
        Some(&self.internal.get(nspace, rank)?.get(key)?.1)
    }

    /// Every key of `proc` in the internal store, sorted by key.
    pub(super) fn internal_of(&self, proc: &Proc) -> Vec<(&Key, &Value)> {
        let mut out: Vec<(&Key, &Value)> = self
            .internal
            .get(proc.nspace.as_bytes(), proc.rank.0)
            .map(|m| m.values().map(|(k, v)| (k, v)).collect())
            .unwrap_or_default();
        out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        out
    }

    /// Adds what a direct-modex reply brought for `proc`.
    pub(super) fn merge_fetched(&mut self, proc: &Proc, posted: Vec<Posted>) {
        wire::merge_posted(self.fetched.entry(proc), posted);
    }

    /// Everything fetched for the process `rank` of `nspace`, oldest
    /// first.
    pub(super) fn fetched(&self, nspace: &[u8], rank: u32) -> Option<&[Posted]> {
        self.fetched.get(nspace, rank).map(Vec::as_slice)
    }

    /// The newest fetched value of `key` for the process `rank` of
    /// `nspace`.
    pub(super) fn latest_fetched(&self, nspace: &[u8], rank: u32, key: &[u8]) -> Option<&Value> {
        self.fetched(nspace, rank)?
            .iter()
            .rev()
            .find(|p| p.key.as_bytes() == key)
            .map(|p| &p.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Nspace, Rank};
    use pmix_shmem::Scope;

    fn proc(ns: &str, r: u32) -> Proc {
        Proc::new(Nspace::new(ns).unwrap(), Rank(r))
    }

    fn posted(key: &str, v: i32) -> Posted {
        Posted {
            scope: Scope::Global,
            key: Key::new(key).unwrap(),
            value: Value::Int32(v),
        }
    }

    #[test]
    fn identity_keys_and_internal_values_are_found_by_bytes() {
        let me = proc("job", 3);
        let server = proc("srv", 0);
        let mut d = LocalData::with_identity(&me, &server);
        assert_eq!(
            d.internal(b"job", 3, keys::RANK.as_bytes()),
            Some(&Value::ProcRank(3))
        );
        assert_eq!(d.internal(b"job", 4, keys::RANK.as_bytes()), None);
        assert_eq!(d.internal(b"jo", 3, keys::RANK.as_bytes()), None);
        d.store_internal(&me, Key::new("a").unwrap(), Value::Int32(1));
        d.store_internal(&me, Key::new("a").unwrap(), Value::Int32(2));
        assert_eq!(d.internal(b"job", 3, b"a"), Some(&Value::Int32(2)));
        let keys: Vec<&[u8]> = d
            .internal_of(&me)
            .iter()
            .map(|(k, _)| k.as_bytes())
            .collect();
        assert_eq!(
            keys,
            vec![
                b"a".as_slice(),
                keys::RANK.as_bytes(),
                keys::SERVER_NSPACE.as_bytes(),
                keys::SERVER_RANK.as_bytes()
            ]
        );
        d.forget_internal(&me, keys::SERVER_RANK);
        assert_eq!(d.internal(b"job", 3, keys::SERVER_RANK.as_bytes()), None);
    }

    #[test]
    fn the_newest_fetched_value_answers() {
        let mut d = LocalData::default();
        let peer = proc("job", 1);
        d.merge_fetched(&peer, vec![posted("k", 1), posted("j", 5)]);
        d.merge_fetched(&peer, vec![posted("k", 2)]);
        assert_eq!(d.latest_fetched(b"job", 1, b"k"), Some(&Value::Int32(2)));
        assert_eq!(d.latest_fetched(b"job", 1, b"j"), Some(&Value::Int32(5)));
        assert_eq!(d.latest_fetched(b"job", 2, b"k"), None);
        assert_eq!(d.fetched(b"job", 1).map(<[Posted]>::len), Some(2));
    }
}
