//! The tracker: the collectives in progress on this server, of every
//! kind, and where each stands (gathering, at the host, failed).
//!
//! A collective is identified by its kind and its participant set, sorted
//! and without duplicates (`PMIX_RANK_WILDCARD` standing for a whole
//! namespace), or, for a group, by its kind and the group's id: the local
//! processes that call it with the same set (id) join the same
//! collective. Its expected participants are the local processes of the
//! set (wildcards expanded when the collective is made), plus any caller.
//! Directives merge: data is collected if any participant asked for it,
//! the shortest `PMIX_TIMEOUT` applies. Once every expected participant
//! arrived the collective leaves the by-set index (a later call over the same
//! set is a new collective) and goes to the host, once for this node.
//!
//! Invariants:
//! - Every participant that arrived is answered exactly once: with the
//!   collective's result when it finishes ([`Collectives::finish`]), or
//!   with the failure status at the moment the collective fails, or at
//!   once on arrival if it had failed already.
//! - A collective fails, before it reaches the host, when an expected
//!   participant departs without having arrived (or, lost rather than
//!   finalized, after arriving), or its deadline passes. A failed
//!   collective stays in the index, failed, until every expected
//!   participant arrived or departed, so that late arrivals fail at once
//!   (a caller that already got the failure and calls again starts a new
//!   one). At the host, it ends with the host's answer or its deadline.
//! - A collective's deadline is armed in the loop's timers exactly while
//!   it is active and not failed.
//!
//! Groups add to this (see [`GroupCall`]): leaders name the members they
//! know (a bootstrap leader only itself and the number of leaders);
//! members added by a leader (`PMIX_GROUP_ADD_MEMBERS`) call with no
//! procs and join the tracker of the id. When the server completes the
//! group alone (`solo`: its host leaves groups to it), the added members
//! are expected too and the group is ready only once a leader (for a
//! bootstrap, every leader) arrived; otherwise added members are not
//! waited for (they ride along, or go to the host alone). A leader whose
//! set differs from the tracker's (not a bootstrap) is refused: two sets
//! never complete as one group. With `PMIX_GROUP_OPTIONAL` or
//! `PMIX_GROUP_FT_COLLECTIVE` a departed member is dropped, not fatal.

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

use super::group_state::{GroupCall, GroupState};
use super::kind::Kind;
use crate::server::clients::connections::Caller;
use crate::server::timers::{TimerKey, Timers};
use crate::{Info, Nspace, Proc, Rank, Status};

/// How a collective is found by its participants.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum CollKey {
    Set(Kind, Vec<Proc>),
    Group(Kind, String),
}

/// One participant's call.
pub(in crate::server) struct Call {
    pub(in crate::server) kind: Kind,
    /// The participant set, normalized (see [`normalize`]).
    pub(in crate::server) procs: Vec<Proc>,
    pub(in crate::server) infos: Vec<Info>,
    /// `PMIX_COLLECT_DATA`.
    pub(in crate::server) collect: bool,
    /// From its `PMIX_TIMEOUT`.
    pub(in crate::server) deadline: Option<Instant>,
    /// For a group collective.
    pub(in crate::server) group: Option<GroupCall>,
    /// The groups whose members `procs` holds because the caller named
    /// them whole (`{grp, PMIX_RANK_WILDCARD}`; a fence or a connect).
    pub(in crate::server) groups: Vec<String>,
}

/// One collective in progress. Its fields change only through the
/// tracker ([`Collectives`]); a handler reads them.
pub(in crate::server) struct Collective {
    kind: Kind,
    procs: Vec<Proc>,
    /// Directives of the first participant, passed to the host.
    infos: Vec<Info>,
    collect: bool,
    /// The local processes that must arrive.
    expected: BTreeSet<Proc>,
    /// Those that did, and where to answer them.
    arrived: Vec<(Proc, Caller)>,
    deadline: Option<Instant>,
    host_op: Option<u64>,
    failed: Option<Status>,
    /// For a group collective.
    group: Option<GroupState>,
    /// The groups named whole by the first caller (see [`Call::groups`]).
    groups: Vec<String>,
}

impl Collective {
    /// Its kind.
    pub(in crate::server) fn kind(&self) -> Kind {
        self.kind
    }

    /// Its participant set (for a group, the members named so far).
    pub(in crate::server) fn procs(&self) -> &[Proc] {
        &self.procs
    }

    /// The first participant's directives, passed to the host.
    pub(in crate::server) fn infos(&self) -> &[Info] {
        &self.infos
    }

    /// True if some participant asked for data to be collected.
    pub(in crate::server) fn collect(&self) -> bool {
        self.collect
    }

    /// The local processes that must arrive.
    pub(in crate::server) fn expected(&self) -> &BTreeSet<Proc> {
        &self.expected
    }

    /// The participants that arrived, in their order.
    pub(in crate::server) fn participants(&self) -> impl Iterator<Item = &Proc> {
        self.arrived.iter().map(|(p, _)| p)
    }

    /// Where to answer the participants that arrived, in their order.
    pub(in crate::server) fn callers(&self) -> impl Iterator<Item = Caller> + '_ {
        self.arrived.iter().map(|(_, c)| *c)
    }

    /// A group collective's own state.
    pub(in crate::server) fn group(&self) -> Option<&GroupState> {
        self.group.as_ref()
    }

    fn has_arrived(&self, proc: &Proc) -> bool {
        self.arrived.iter().any(|(p, _)| p == proc)
    }

    fn key(&self) -> CollKey {
        match &self.group {
            Some(g) => CollKey::Group(self.kind, g.id().to_owned()),
            None => CollKey::Set(self.kind, self.procs.clone()),
        }
    }

    fn ready(&self) -> bool {
        self.group.as_ref().map_or(true, GroupState::ready)
            && self.expected.iter().all(|p| self.has_arrived(p))
    }

    /// True if a departed member is dropped rather than fatal.
    fn tolerant(&self) -> bool {
        self.group.as_ref().is_some_and(|g| g.flags().tolerant())
    }
}

impl Collective {
    fn drop_member(&mut self, p: &Proc) {
        self.expected.remove(p);
        if let Some(g) = self.group.as_mut() {
            g.drop_member(p);
        }
    }
}

/// What a participant's arrival leads to.
pub(in crate::server) enum Arrival {
    /// Others are still expected.
    Waiting,
    /// Every expected participant is in: hand collective `cid` to the host.
    Ready(u64),
    /// The call is refused at once (it is already in this collective).
    Refused(Status),
    /// Collective `cid` cannot complete: fail it with this status.
    Fail(u64, Status),
    /// Collective `cid` had failed with this status: answer the caller so,
    /// then [`Collectives::retire`] it.
    Late(u64, Status),
}

/// Where a collective stands.
pub(in crate::server) enum Stage {
    Gathering,
    /// Handed to the host as operation `op`.
    AtHost(u64),
    Failed,
}

/// A collective that failed before reaching the host.
pub(in crate::server) struct Failure {
    pub(in crate::server) kind: Kind,
    /// Those to answer with the failure.
    pub(in crate::server) arrived: Vec<Caller>,
    pub(in crate::server) procs: Vec<Proc>,
    pub(in crate::server) infos: Vec<Info>,
    /// A group's id.
    pub(in crate::server) group: Option<String>,
}

/// The collectives in progress on this server.
#[derive(Default)]
pub(in crate::server) struct Collectives {
    by_set: HashMap<CollKey, u64>,
    active: HashMap<u64, Collective>,
    next: u64,
}

impl Collectives {
    /// Counts this room's entries (see [`Census`](crate::server::census::Census)).
    pub(in crate::server) fn count(&self, c: &mut crate::server::census::Census) {
        c.add("collectives.by_set", self.by_set.len());
        c.add("collectives.active", self.active.len());
    }

    /// `proc` calls `call` (on `caller`). `local` expands a set to its
    /// local processes; `departed` says which processes left.
    pub(in crate::server) fn arrive(
        &mut self,
        caller: Caller,
        proc: &Proc,
        call: Call,
        local: impl Fn(&[Proc]) -> BTreeSet<Proc>,
        departed: impl Fn(&Proc) -> bool,
        timers: &mut Timers,
    ) -> Arrival {
        // An added member calls with no procs; anyone else is in its set.
        let added_member = call.procs.is_empty() && call.group.is_some();
        if !added_member && !includes(&call.procs, proc) {
            return Arrival::Refused(Status::ERR_BAD_PARAM);
        }
        let key = match &call.group {
            Some(g) => CollKey::Group(call.kind, g.id.clone()),
            None => CollKey::Set(call.kind, call.procs.clone()),
        };
        let existing = self.by_set.get(&key).copied().filter(|cid| {
            // A failed collective the caller already left is over for it:
            // a new attempt over the same set starts afresh.
            let stale = self
                .active
                .get(cid)
                .is_some_and(|c| c.failed.is_some() && c.has_arrived(proc));
            if stale {
                self.active.remove(cid);
            }
            !stale
        });
        let cid = match existing {
            Some(cid) => cid,
            None => {
                self.next += 1;
                let cid = self.next;
                let expected = if call.group.is_some() {
                    BTreeSet::new()
                } else {
                    local(&call.procs)
                };
                let group = call.group.as_ref().map(GroupState::new);
                self.active.insert(
                    cid,
                    Collective {
                        kind: call.kind,
                        procs: call.procs.clone(),
                        infos: call.infos.clone(),
                        collect: false,
                        expected,
                        arrived: Vec::new(),
                        deadline: None,
                        host_op: None,
                        failed: None,
                        group,
                        groups: call.groups.clone(),
                    },
                );
                self.by_set.insert(key, cid);
                cid
            }
        };
        let Some(c) = self.active.get_mut(&cid) else {
            return Arrival::Refused(Status::ERROR);
        };
        if c.has_arrived(proc) {
            return Arrival::Refused(Status::ERR_BAD_PARAM);
        }
        if let (Some(g), Some(gc)) = (c.group.as_mut(), call.group) {
            if let Err(s) = g.join(proc, &call.procs, gc, &local, &mut c.expected) {
                return Arrival::Refused(s);
            }
            c.procs = g.named().iter().cloned().collect();
        }
        c.expected.insert(proc.clone());
        c.arrived.push((proc.clone(), caller));
        if let Some(s) = c.failed {
            return Arrival::Late(cid, s);
        }
        let gone: Vec<Proc> = c
            .expected
            .iter()
            .filter(|p| departed(p) && !c.has_arrived(p))
            .cloned()
            .collect();
        if !gone.is_empty() {
            if !c.tolerant() {
                return Arrival::Fail(cid, c.kind.lost());
            }
            for p in gone {
                c.drop_member(&p);
            }
        }
        c.collect |= call.collect;
        if let Some(dl) = call.deadline {
            if c.deadline.map_or(true, |old| dl < old) {
                if let Some(old) = c.deadline {
                    timers.cancel(old, TimerKey::Collective(cid));
                }
                c.deadline = Some(dl);
                timers.set(dl, TimerKey::Collective(cid));
            }
        }
        if c.ready() {
            Arrival::Ready(cid)
        } else {
            Arrival::Waiting
        }
    }

    /// `proc` departed and collective `cid` tolerates it: it is no longer
    /// expected. True if the collective is now ready.
    pub(in crate::server) fn drop_member(&mut self, cid: u64, proc: &Proc) -> bool {
        match self.active.get_mut(&cid) {
            Some(c) if c.failed.is_none() && c.host_op.is_none() && c.tolerant() => {
                c.drop_member(proc);
                c.ready() && !c.arrived.is_empty()
            }
            _ => false,
        }
    }

    /// `proc` left group `id`: the collectives still gathering over a set
    /// that holds it because their callers named the group whole no longer
    /// wait for it (it can never take part in them as a member again).
    /// Returns those now ready. One that `proc` arrived at already, or
    /// whose reduced set is another collective's, is left as it is.
    pub(in crate::server) fn member_left(&mut self, id: &str, proc: &Proc) -> Vec<u64> {
        let mut ready = Vec::new();
        let mut cids: Vec<u64> = self
            .active
            .iter()
            .filter(|(_, c)| {
                c.failed.is_none()
                    && c.host_op.is_none()
                    && c.group.is_none()
                    && c.groups.iter().any(|g| g == id)
                    && c.procs.contains(proc)
                    && !c.has_arrived(proc)
            })
            .map(|(&cid, _)| cid)
            .collect();
        cids.sort_unstable();
        for cid in cids {
            let Some(c) = self.active.get_mut(&cid) else {
                continue;
            };
            let procs: Vec<Proc> = c.procs.iter().filter(|p| *p != proc).cloned().collect();
            let new_key = CollKey::Set(c.kind, procs.clone());
            if procs.is_empty() || self.by_set.contains_key(&new_key) {
                continue;
            }
            let old_key = c.key();
            if self.by_set.get(&old_key) == Some(&cid) {
                self.by_set.remove(&old_key);
            }
            c.procs = procs;
            c.expected.remove(proc);
            self.by_set.insert(new_key, cid);
            if c.ready() && !c.arrived.is_empty() {
                ready.push(cid);
            }
        }
        ready
    }

    /// The group collectives of `kind` over `id` not failed yet.
    pub(in crate::server) fn of_group(&self, kind: Kind, id: &str) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .active
            .iter()
            .filter(|(_, c)| {
                c.kind == kind
                    && c.failed.is_none()
                    && c.group.as_ref().is_some_and(|g| g.id() == id)
            })
            .map(|(&cid, _)| cid)
            .collect();
        v.sort_unstable();
        v
    }

    /// True if a group collective over `id` is gathering.
    pub(in crate::server) fn group_busy(&self, id: &str) -> bool {
        self.active
            .values()
            .any(|c| c.failed.is_none() && c.group.as_ref().is_some_and(|g| g.id() == id))
    }

    /// Group collective `cid` waits for the verdicts of `procs` (told of a
    /// member's failure) before it completes.
    pub(in crate::server) fn await_verdicts(
        &mut self,
        cid: u64,
        procs: impl IntoIterator<Item = Proc>,
    ) {
        if let Some(g) = self.active.get_mut(&cid).and_then(|c| c.group.as_mut()) {
            g.await_verdicts(procs);
        }
    }

    /// `proc`'s verdict on group collective `cid` came (or it departed):
    /// true if the collective is now ready.
    pub(in crate::server) fn verdict(&mut self, cid: u64, proc: &Proc) -> bool {
        match self.active.get_mut(&cid) {
            Some(c) if c.failed.is_none() && c.host_op.is_none() => {
                let removed = c.group.as_mut().is_some_and(|g| g.verdict(proc));
                removed && c.ready() && !c.arrived.is_empty()
            }
            _ => false,
        }
    }

    /// Sets group collective `cid`'s leader; `None` if it is over.
    pub(in crate::server) fn set_leader(&mut self, cid: u64, leader: Option<Proc>) -> Option<()> {
        self.active
            .get_mut(&cid)?
            .group
            .as_mut()?
            .set_leader(leader);
        Some(())
    }

    /// The group collectives (not failed) whose leader is `proc`.
    pub(in crate::server) fn led_by(&self, proc: &Proc) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .active
            .iter()
            .filter(|(_, c)| {
                c.failed.is_none() && c.group.as_ref().is_some_and(|g| g.leader() == Some(proc))
            })
            .map(|(&cid, _)| cid)
            .collect();
        v.sort_unstable();
        v
    }

    /// The group collectives waiting for `proc`'s verdict.
    pub(in crate::server) fn awaiting_verdict_of(&self, proc: &Proc) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .active
            .iter()
            .filter(|(_, c)| c.group.as_ref().is_some_and(|g| g.awaits_verdict_of(proc)))
            .map(|(&cid, _)| cid)
            .collect();
        v.sort_unstable();
        v
    }

    /// True if collective `cid` drops departed members (see
    /// [`GroupFlags::tolerant`]).
    pub(in crate::server) fn tolerates(&self, cid: u64) -> bool {
        self.active.get(&cid).is_some_and(|c| c.tolerant())
    }

    /// Collective `cid`, if active.
    pub(in crate::server) fn get(&self, cid: u64) -> Option<&Collective> {
        self.active.get(&cid)
    }

    /// Where collective `cid` stands; `None` if it is over.
    pub(in crate::server) fn stage(&self, cid: u64) -> Option<Stage> {
        let c = self.active.get(&cid)?;
        Some(match (c.failed, c.host_op) {
            (Some(_), _) => Stage::Failed,
            (None, Some(op)) => Stage::AtHost(op),
            (None, None) => Stage::Gathering,
        })
    }

    /// Collective `cid` goes to the host as operation `op`: a later call
    /// over the same set is a new collective.
    pub(in crate::server) fn at_host(&mut self, cid: u64, op: u64) {
        if let Some(c) = self.active.get_mut(&cid) {
            c.host_op = Some(op);
            let key = c.key();
            if self.by_set.get(&key) == Some(&cid) {
                self.by_set.remove(&key);
            }
        }
    }

    /// Collective `cid` ends (its result is known): returns it, for its
    /// participants to be answered.
    pub(in crate::server) fn finish(
        &mut self,
        cid: u64,
        timers: &mut Timers,
    ) -> Option<Collective> {
        let c = self.active.remove(&cid)?;
        let key = c.key();
        if self.by_set.get(&key) == Some(&cid) {
            self.by_set.remove(&key);
        }
        if let Some(dl) = c.deadline {
            timers.cancel(dl, TimerKey::Collective(cid));
        }
        Some(c)
    }

    /// Collective `cid`, not at the host, fails with `status`: returns who
    /// to answer and what to tell the host. `None` if it failed already,
    /// is at the host, or is over.
    pub(in crate::server) fn fail(
        &mut self,
        cid: u64,
        status: Status,
        timers: &mut Timers,
    ) -> Option<Failure> {
        let c = self.active.get_mut(&cid)?;
        if c.failed.is_some() || c.host_op.is_some() {
            return None;
        }
        c.failed = Some(status);
        if let Some(dl) = c.deadline.take() {
            timers.cancel(dl, TimerKey::Collective(cid));
        }
        Some(Failure {
            kind: c.kind,
            arrived: c.arrived.iter().map(|(_, caller)| *caller).collect(),
            procs: c.procs.clone(),
            infos: c.infos.clone(),
            group: c.group.as_ref().map(|g| g.id().to_owned()),
        })
    }

    /// Forgets failed collective `cid` once no expected participant can
    /// still arrive.
    pub(in crate::server) fn retire(&mut self, cid: u64, departed: impl Fn(&Proc) -> bool) {
        let Some(c) = self.active.get(&cid) else {
            return;
        };
        if c.failed.is_some() && c.expected.iter().all(|p| departed(p) || c.has_arrived(p)) {
            let key = c.key();
            if self.by_set.get(&key) == Some(&cid) {
                self.by_set.remove(&key);
            }
            self.active.remove(&cid);
        }
    }

    /// `proc` departed (`finalized`, or its connection was lost): the
    /// collectives not at the host that can no longer complete because of
    /// it (it is expected and did not arrive; lost, also if it arrived,
    /// but at a group construct).
    pub(in crate::server) fn blocked_by(&self, proc: &Proc, finalized: bool) -> Vec<u64> {
        // One that finalized after arriving blocks nothing, nor does one
        // that arrived at a group construct (its contribution stands).
        let mut ids: Vec<u64> = self
            .active
            .iter()
            .filter(|(_, c)| {
                let kept = finalized || c.kind == Kind::GroupConstruct;
                c.host_op.is_none()
                    && c.failed.is_none()
                    && c.expected.contains(proc)
                    && !(kept && c.has_arrived(proc))
            })
            .map(|(&id, _)| id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The processes of `ns` some collective expects that have not
    /// arrived.
    pub(in crate::server) fn expecting_of(&self, ns: &Nspace) -> BTreeSet<Proc> {
        self.active
            .values()
            .flat_map(|c| {
                c.expected
                    .iter()
                    .filter(|p| &p.nspace == ns && !c.has_arrived(p))
            })
            .cloned()
            .collect()
    }

    /// The failed collectives.
    pub(in crate::server) fn failed(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .active
            .iter()
            .filter(|(_, c)| c.failed.is_some())
            .map(|(&id, _)| id)
            .collect();
        v.sort_unstable();
        v
    }

    /// Failed collectives `proc` is expected in (to retire once it left).
    pub(in crate::server) fn failed_with(&self, proc: &Proc) -> Vec<u64> {
        self.active
            .iter()
            .filter(|(_, c)| c.failed.is_some() && c.expected.contains(proc))
            .map(|(&id, _)| id)
            .collect()
    }
}

/// Sorted, deduplicated participant set; an empty list means the caller's
/// whole namespace.
pub(in crate::server) fn normalize(procs: Vec<Proc>, caller: &Proc) -> Vec<Proc> {
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
pub(in crate::server) fn includes(set: &[Proc], proc: &Proc) -> bool {
    set.iter()
        .any(|p| p.nspace == proc.nspace && (p.rank == proc.rank || p.rank == Rank::WILDCARD))
}
