//! Fence trackers: which local processes a fence waits for, who arrived,
//! and the directives that apply.
//!
//! A fence is identified by its participant set, sorted and without
//! duplicates (`PMIX_RANK_WILDCARD` standing for a whole namespace): the
//! local processes that call `PMIx_Fence` with the same set join the same
//! tracker. Directives are merged: data is collected if any participant
//! asked for it, and the shortest `PMIX_TIMEOUT` applies. Once every local
//! participant arrived, the tracker leaves the by-set index (a later fence
//! over the same set is a new one) and goes to the host. A fence that fails
//! before that (a participant left, its timeout passed) stays in the index,
//! failed, until every local participant arrived or left: late arrivals
//! then fail at once and the host hears of the failure once.

use std::collections::BTreeSet;
use std::time::Instant;

use mio::Token;

use crate::{Info, Proc, Rank, Status};

/// A participant that arrived: who, on which connection, with which
/// request id.
#[derive(Clone, Debug)]
pub(super) struct Arrival {
    pub(super) proc: Proc,
    pub(super) token: Token,
    pub(super) id: u32,
}

/// One fence in progress on this server.
#[derive(Debug)]
pub(super) struct Tracker {
    /// The participant set, normalized.
    pub(super) procs: Vec<Proc>,
    /// Directives of the first participant, passed to the host.
    pub(super) infos: Vec<Info>,
    /// Collect data (`PMIX_COLLECT_DATA` from any participant).
    pub(super) collect: bool,
    /// The local processes that must arrive.
    pub(super) expected: BTreeSet<Proc>,
    /// Those that did.
    pub(super) arrived: Vec<Arrival>,
    /// When the fence fails with `PMIX_ERR_TIMEOUT`.
    pub(super) deadline: Option<Instant>,
    /// The host operation, once handed to the host.
    pub(super) host_op: Option<u64>,
    /// Failed before reaching the host (a participant left, or the
    /// timeout passed): later arrivals fail at once with this status.
    pub(super) failed: Option<Status>,
}

impl Tracker {
    /// True once every expected local participant arrived.
    pub(super) fn complete(&self) -> bool {
        self.expected
            .iter()
            .all(|p| self.arrived.iter().any(|a| &a.proc == p))
    }

    /// True if `proc` is one of the local participants.
    pub(super) fn involves(&self, proc: &Proc) -> bool {
        self.expected.contains(proc)
    }
}

/// Sorted, deduplicated participant set; an empty list means the caller's
/// whole namespace.
pub(super) fn normalize(procs: Vec<Proc>, caller: &Proc) -> Vec<Proc> {
    let mut procs = if procs.is_empty() {
        vec![Proc::new(caller.nspace.clone(), Rank::WILDCARD)]
    } else {
        procs
    };
    procs.sort();
    procs.dedup();
    procs
}

/// True if `set` includes `proc` (by rank or by its namespace's wildcard).
pub(super) fn includes(set: &[Proc], proc: &Proc) -> bool {
    set.iter()
        .any(|p| p.nspace == proc.nspace && (p.rank == proc.rank || p.rank == Rank::WILDCARD))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Nspace;

    fn p(ns: &str, r: u32) -> Proc {
        Proc::new(Nspace::new(ns).unwrap(), Rank(r))
    }

    #[test]
    fn sets_normalize_to_sorted_unique() {
        let caller = p("a", 1);
        assert_eq!(
            normalize(vec![p("b", 2), p("a", 1), p("b", 2)], &caller),
            vec![p("a", 1), p("b", 2)]
        );
        assert_eq!(
            normalize(vec![], &caller),
            vec![Proc::new(caller.nspace.clone(), Rank::WILDCARD)]
        );
    }

    #[test]
    fn wildcard_includes_every_rank_of_its_namespace() {
        let set = vec![Proc::new(Nspace::new("a").unwrap(), Rank::WILDCARD)];
        assert!(includes(&set, &p("a", 5)));
        assert!(!includes(&set, &p("b", 5)));
    }
}
