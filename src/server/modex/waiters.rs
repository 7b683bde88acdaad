//! Who waits for a process's posted data (direct modex): local clients'
//! `DmodexRequest`s and the host's `dmodex_request`s, waiting for a local
//! process's first commit or for the host's answer about a remote one.
//!
//! Invariant: a waiter is in exactly one list (local or remote, under the
//! process it waits for) until it is taken out to be answered, once: by
//! the commit or departure it waited for, the host's answer, or its
//! deadline, whichever comes first (the others then find nothing).

use std::collections::HashMap;
use std::time::Instant;

use crate::server::clients::connections::Caller;
use crate::server::host::DmodexCallback;
use crate::Proc;

/// Who waits.
pub(in crate::server) enum WaiterTo {
    /// A local client's `DmodexRequest`.
    Client(Caller),
    /// The host's `dmodex_request`.
    Host(DmodexCallback),
}

/// One waiter.
pub(in crate::server) struct Waiter {
    pub(in crate::server) id: u64,
    pub(in crate::server) to: WaiterTo,
    /// Its `PMIX_TIMEOUT`, armed in the loop's timers.
    pub(in crate::server) deadline: Option<Instant>,
}

/// The waiters, by the process whose data they wait for.
pub(in crate::server) struct Waiters {
    local: HashMap<Proc, Vec<Waiter>>,
    remote: HashMap<Proc, Vec<Waiter>>,
    next: u64,
}

impl Default for Waiters {
    fn default() -> Self {
        Waiters {
            local: HashMap::new(),
            remote: HashMap::new(),
            next: 1,
        }
    }
}

impl Waiters {
    /// Counts this room's entries (see [`Census`](crate::server::census::Census)).
    pub(in crate::server) fn count(&self, c: &mut crate::server::census::Census) {
        c.add("waiters.local", self.local.values().map(Vec::len).sum());
        c.add("waiters.remote", self.remote.values().map(Vec::len).sum());
        c.add("waiters.procs", self.local.len() + self.remote.len());
    }

    fn new_waiter(&mut self, to: WaiterTo, deadline: Option<Instant>) -> Waiter {
        let id = self.next;
        self.next += 1;
        Waiter { id, to, deadline }
    }

    /// Waits for local `proc`'s first commit; returns the waiter's number.
    pub(in crate::server) fn wait_local(
        &mut self,
        proc: Proc,
        to: WaiterTo,
        dl: Option<Instant>,
    ) -> u64 {
        let w = self.new_waiter(to, dl);
        let id = w.id;
        self.local.entry(proc).or_default().push(w);
        id
    }

    /// Waits for the host's answer about remote `proc`; returns the
    /// waiter's number and true if it is the first (the host must be
    /// asked).
    pub(in crate::server) fn wait_remote(
        &mut self,
        proc: Proc,
        to: WaiterTo,
        dl: Option<Instant>,
    ) -> (u64, bool) {
        let w = self.new_waiter(to, dl);
        let id = w.id;
        let list = self.remote.entry(proc).or_default();
        list.push(w);
        (id, list.len() == 1)
    }

    /// Everyone waiting for local `proc`.
    pub(in crate::server) fn take_local(&mut self, proc: &Proc) -> Vec<Waiter> {
        self.local.remove(proc).unwrap_or_default()
    }

    /// Everyone waiting for the host's answer about `proc`.
    pub(in crate::server) fn take_remote(&mut self, proc: &Proc) -> Vec<Waiter> {
        self.remote.remove(proc).unwrap_or_default()
    }

    /// Waiter `id`, wherever it waits.
    pub(in crate::server) fn take(&mut self, id: u64) -> Option<Waiter> {
        take_from(&mut self.local, id).or_else(|| take_from(&mut self.remote, id))
    }
}

fn take_from(map: &mut HashMap<Proc, Vec<Waiter>>, id: u64) -> Option<Waiter> {
    let (proc, i) = map
        .iter()
        .find_map(|(p, l)| l.iter().position(|w| w.id == id).map(|i| (p.clone(), i)))?;
    let list = map.get_mut(&proc)?;
    let w = list.remove(i);
    if list.is_empty() {
        map.remove(&proc);
    }
    Some(w)
}
