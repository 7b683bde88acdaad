//! The key-value store of a *server* process: `PMIx_Store_internal` and
//! `PMIx_Get` called by the host after `PMIx_server_init` (without
//! `PMIx_Init`), as Open MPI's `mpirun` does with its own contact URI
//! (`opal.puri`, `orte/mca/oob/base/oob_base_stubs.c`) — it refuses to
//! start when that store fails.
//!
//! OpenPMIx keeps such values in the server's own datastore; here they
//! live in an [`OwnStore`] the C layer keeps beside its running server,
//! read back by `PMIx_Get` in the same process. A key stored for no
//! process of the store is `PMIX_ERR_NOT_FOUND`. All of a process's
//! values ([`OwnStore::get_all`], a NULL-key get) come in the order first
//! stored, as the client's NULL-key get returns them: Open MPI's `mpirun`
//! reads its own that way to send it to the daemons of other nodes
//! (`orte/mca/odls/base/odls_base_default_fns.c`); a process with none is
//! `PMIX_ERR_NOT_FOUND`. The client paths are not involved: a process
//! that called `PMIx_Init` uses its client's store.
//!
//! The server process's own identity answers too, when not stored
//! ([`identity`]): `PMIX_PROCID`, `PMIX_NSPACE` and `PMIX_RANK` of its own
//! process (`PMIX_SERVER_NSPACE`/`PMIX_SERVER_RANK`), as a client's get
//! answers its own (OpenPMIx answers `PMIX_PROCID` for a NULL process and
//! `PMIX_RANK` for its namespace with an undefined rank the same way).
//!
//! Invariant: one value per (process, key), the latest stored; a key
//! stored again keeps its place in its process's order.

use std::collections::HashMap;

use parking_lot::Mutex;

use crate::{Info, Key, Proc, Rank, Status, Value};

/// One process's stored values, in the order their keys were first
/// stored.
type Stored = Vec<(String, Value)>;

/// Values stored by a server process, by process.
#[derive(Default)]
pub struct OwnStore {
    map: Mutex<HashMap<Proc, Stored>>,
}

impl OwnStore {
    /// An empty store.
    pub fn new() -> OwnStore {
        OwnStore::default()
    }

    /// `PMIx_Store_internal`: keeps `value` for (`proc`, `key`).
    pub fn store(&self, proc: Proc, key: &str, value: Value) {
        let mut g = self.map.lock();
        let kvs = g.entry(proc).or_default();
        match kvs.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => kvs.push((key.to_owned(), value)),
        }
    }

    /// `PMIx_Get` of `key` for `proc`: `PMIX_ERR_NOT_FOUND` if not stored.
    pub fn get(&self, proc: &Proc, key: &str) -> Result<Value, Status> {
        self.map
            .lock()
            .get(proc)
            .and_then(|kvs| kvs.iter().find(|(k, _)| k == key))
            .map(|(_, v)| v.clone())
            .ok_or(Status::ERR_NOT_FOUND)
    }

    /// `PMIx_Get` with a NULL key: every value stored for `proc`, one info
    /// each, in the order first stored (`PMIX_ERR_NOT_FOUND` if none).
    pub fn get_all(&self, proc: &Proc) -> Result<Vec<Info>, Status> {
        match self.map.lock().get(proc) {
            Some(kvs) if !kvs.is_empty() => kvs
                .iter()
                .map(|(k, v)| Ok(Info::new(Key::new(k.as_str())?, v.clone())))
                .collect(),
            _ => Err(Status::ERR_NOT_FOUND),
        }
    }
}

/// The value of `key` when it names `me`'s identity and `asked` is `me`
/// (or `me`'s namespace with an undefined or invalid rank); `None`
/// otherwise.
pub fn identity(me: &Proc, asked: &Proc, key: &str) -> Option<Value> {
    let own = asked.nspace == me.nspace
        && (asked.rank == me.rank || asked.rank == Rank::UNDEF || asked.rank == Rank::INVALID);
    if !own {
        return None;
    }
    match key {
        crate::keys::PROCID => Some(Value::Proc(me.clone())),
        crate::keys::NSPACE => Some(Value::String(Some(me.nspace.as_c_str().to_owned()))),
        crate::keys::RANK => Some(Value::ProcRank(me.rank.0)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Nspace;

    #[test]
    fn the_identity_answers_for_its_own_process_only() {
        let me = Proc::new(Nspace::new("srv").unwrap(), Rank(3));
        let other = Proc::new(Nspace::new("job").unwrap(), Rank(3));
        assert_eq!(
            identity(&me, &me, crate::keys::PROCID),
            Some(Value::Proc(me.clone()))
        );
        assert_eq!(
            identity(&me, &me, crate::keys::RANK),
            Some(Value::ProcRank(3))
        );
        let undef = Proc::new(me.nspace.clone(), Rank::UNDEF);
        assert_eq!(
            identity(&me, &undef, crate::keys::NSPACE),
            Some(Value::string("srv"))
        );
        assert_eq!(identity(&me, &other, crate::keys::PROCID), None);
        assert_eq!(identity(&me, &me, crate::keys::JOB_SIZE), None);
    }

    #[test]
    fn values_keep_their_first_place() {
        let s = OwnStore::new();
        let p = Proc::new(Nspace::new("srv").unwrap(), Rank(0));
        assert_eq!(s.get(&p, "a"), Err(Status::ERR_NOT_FOUND));
        assert_eq!(s.get_all(&p), Err(Status::ERR_NOT_FOUND));
        s.store(p.clone(), "a", Value::Uint32(1));
        s.store(p.clone(), "b", Value::string("x"));
        s.store(p.clone(), "a", Value::Uint32(2));
        assert_eq!(s.get(&p, "a"), Ok(Value::Uint32(2)));
        let keys: Vec<_> = s
            .get_all(&p)
            .unwrap()
            .into_iter()
            .map(|i| (i.key.to_string(), i.value))
            .collect();
        assert_eq!(
            keys,
            [
                ("a".to_owned(), Value::Uint32(2)),
                ("b".to_owned(), Value::string("x"))
            ]
        );
    }
}
