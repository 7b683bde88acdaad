//! The collective engine: one participant-set tracker for every
//! collective the server runs (fence, connect, disconnect, group construct
//! and destruct).
//!
//! A collective is identified by its kind and its participant set, sorted
//! and without duplicates (`PMIX_RANK_WILDCARD` standing for a whole
//! namespace), or, for a group, by its kind and the group's id: the local
//! processes that call it with the same set (id) join the same tracker. Its expected participants are the local processes of the
//! set (wildcards expanded when the tracker is made), plus any caller.
//! Directives merge: data is collected if any participant asked for it,
//! the shortest `PMIX_TIMEOUT` applies. Once every expected participant
//! arrived the tracker leaves the by-set index (a later call over the same
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

use super::connections::Caller;
use super::timers::{TimerKey, Timers};
use crate::wire::{FenceRelease, Message, Response};
use crate::{Info, Nspace, Proc, Rank, Status};

/// Which collective.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum Kind {
    Fence,
    Connect,
    Disconnect,
    GroupConstruct,
    GroupDestruct,
}

impl Kind {
    /// The answer to a participant when the collective fails with
    /// `status` (or its call is refused).
    pub(super) fn failure(self, status: Status) -> Message {
        match self {
            Kind::Fence => Message::FenceRelease(FenceRelease {
                status,
                segments: Vec::new(),
            }),
            _ => Message::Response(Response {
                status,
                body: Vec::new(),
            }),
        }
    }

    /// A group kind.
    pub(super) fn is_group(self) -> bool {
        matches!(self, Kind::GroupConstruct | Kind::GroupDestruct)
    }

    /// The status a participant's loss fails the collective with.
    pub(super) fn lost(self) -> Status {
        match self {
            Kind::GroupConstruct => crate::group::events::CONSTRUCT_ABORT,
            _ => Status::ERR_LOST_CONNECTION,
        }
    }
}

/// The group directives that merge across participants (any one that sets
/// a flag sets it for the collective).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct GroupFlags {
    /// `PMIX_GROUP_OPTIONAL`.
    pub(super) optional: bool,
    /// `PMIX_GROUP_FT_COLLECTIVE`.
    pub(super) ft: bool,
    /// `PMIX_GROUP_NOTIFY_TERMINATION`.
    pub(super) notify_termination: bool,
    /// `PMIX_GROUP_ASSIGN_CONTEXT_ID`.
    pub(super) assign_cid: bool,
    /// `PMIX_GROUP_LOCAL_ONLY`.
    pub(super) local_only: bool,
}

impl GroupFlags {
    fn merge(&mut self, o: GroupFlags) {
        self.optional |= o.optional;
        self.ft |= o.ft;
        self.notify_termination |= o.notify_termination;
        self.assign_cid |= o.assign_cid;
        self.local_only |= o.local_only;
    }

    /// A departed member is dropped rather than failing the collective.
    pub(super) fn tolerant(&self) -> bool {
        self.optional || self.ft
    }
}

/// What a group participant's call adds to [`Call`].
#[derive(Clone, Debug, Default)]
pub(super) struct GroupCall {
    pub(super) id: String,
    /// `PMIX_GROUP_ADD_MEMBERS`.
    pub(super) add: Vec<Proc>,
    /// `pmix.grp.btstrp`: the number of leaders.
    pub(super) bootstrap: Option<usize>,
    pub(super) flags: GroupFlags,
    /// `PMIX_GROUP_LEADER` was set.
    pub(super) leader_flag: bool,
    /// Its `PMIX_GROUP_INFO` contribution.
    pub(super) info: Vec<Info>,
    /// The server completes the group alone (see the module doc).
    pub(super) solo: bool,
}

/// A group collective's own state.
#[derive(Debug, Default)]
pub(super) struct GroupState {
    pub(super) id: String,
    /// The members named by the leaders (procs and added members).
    pub(super) named: BTreeSet<Proc>,
    /// The set of the first leader (checked against later leaders').
    leader_set: Vec<Proc>,
    pub(super) bootstrap: Option<usize>,
    leaders_in: usize,
    pub(super) flags: GroupFlags,
    /// Who set `PMIX_GROUP_LEADER`.
    pub(super) leader: Option<Proc>,
    /// The participants' `PMIX_GROUP_INFO` contributions.
    pub(super) info: Vec<(Proc, Vec<Info>)>,
    /// Members dropped because they departed (tolerant groups).
    pub(super) dropped: Vec<Proc>,
    /// Local processes told of a member's failure whose verdict the
    /// collective waits for.
    awaiting: BTreeSet<Proc>,
    solo: bool,
}

/// How a collective is found by its participants.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum CollKey {
    Set(Kind, Vec<Proc>),
    Group(Kind, String),
}

/// One participant's call.
pub(super) struct Call {
    pub(super) kind: Kind,
    /// The participant set, normalized (see [`normalize`]).
    pub(super) procs: Vec<Proc>,
    pub(super) infos: Vec<Info>,
    /// `PMIX_COLLECT_DATA`.
    pub(super) collect: bool,
    /// From its `PMIX_TIMEOUT`.
    pub(super) deadline: Option<Instant>,
    /// For a group collective.
    pub(super) group: Option<GroupCall>,
    /// The groups whose members `procs` holds because the caller named
    /// them whole (`{grp, PMIX_RANK_WILDCARD}`; a fence or a connect).
    pub(super) groups: Vec<String>,
}

/// One collective in progress.
pub(super) struct Collective {
    pub(super) kind: Kind,
    pub(super) procs: Vec<Proc>,
    /// Directives of the first participant, passed to the host.
    pub(super) infos: Vec<Info>,
    pub(super) collect: bool,
    /// The local processes that must arrive.
    pub(super) expected: BTreeSet<Proc>,
    /// Those that did, and where to answer them.
    pub(super) arrived: Vec<(Proc, Caller)>,
    deadline: Option<Instant>,
    host_op: Option<u64>,
    failed: Option<Status>,
    /// For a group collective.
    pub(super) group: Option<GroupState>,
    /// The groups named whole by the first caller (see [`Call::groups`]).
    groups: Vec<String>,
}

impl Collective {
    fn has_arrived(&self, proc: &Proc) -> bool {
        self.arrived.iter().any(|(p, _)| p == proc)
    }

    fn key(&self) -> CollKey {
        match &self.group {
            Some(g) => CollKey::Group(self.kind, g.id.clone()),
            None => CollKey::Set(self.kind, self.procs.clone()),
        }
    }

    fn ready(&self) -> bool {
        let leaders = match &self.group {
            Some(g) if g.solo => g.leaders_in >= g.bootstrap.unwrap_or(1).max(1),
            _ => true,
        };
        let verdicts = self.group.as_ref().map_or(true, |g| g.awaiting.is_empty());
        leaders && verdicts && self.expected.iter().all(|p| self.has_arrived(p))
    }

    /// True if a departed member is dropped rather than fatal.
    fn tolerant(&self) -> bool {
        self.group.as_ref().is_some_and(|g| g.flags.tolerant())
    }
}

impl Collective {
    fn drop_member(&mut self, p: &Proc) {
        self.expected.remove(p);
        if let Some(g) = self.group.as_mut() {
            if !g.dropped.contains(p) {
                g.dropped.push(p.clone());
            }
        }
    }
}

impl GroupState {
    /// `proc` joins with its `procs` (empty: an added member) and `call`:
    /// merges what it brings; refuses a leader whose set differs from the
    /// first leader's (unless a bootstrap, where each names itself).
    fn join(
        &mut self,
        proc: &Proc,
        procs: &[Proc],
        call: GroupCall,
        local: &impl Fn(&[Proc]) -> BTreeSet<Proc>,
        expected: &mut BTreeSet<Proc>,
    ) -> Result<(), Status> {
        if !procs.is_empty() {
            if self.bootstrap.is_none() && call.bootstrap.is_none() {
                if self.leader_set.is_empty() {
                    self.leader_set = procs.to_vec();
                } else if self.leader_set != procs {
                    return Err(Status::ERR_BAD_PARAM);
                }
            }
            if call.bootstrap.is_some() {
                self.bootstrap = call.bootstrap;
            }
            self.leaders_in += 1;
            self.named.extend(procs.iter().cloned());
            expected.extend(local(procs));
        }
        self.named.extend(call.add.iter().cloned());
        self.named.insert(proc.clone());
        if self.solo {
            expected.extend(local(&call.add));
        }
        self.flags.merge(call.flags);
        if call.leader_flag && self.leader.is_none() {
            self.leader = Some(proc.clone());
        }
        if !call.info.is_empty() {
            self.info.push((proc.clone(), call.info));
        }
        Ok(())
    }
}

/// What a participant's arrival leads to.
pub(super) enum Arrival {
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
pub(super) enum Stage {
    Gathering,
    /// Handed to the host as operation `op`.
    AtHost(u64),
    Failed,
}

/// A collective that failed before reaching the host.
pub(super) struct Failure {
    pub(super) kind: Kind,
    /// Those to answer with the failure.
    pub(super) arrived: Vec<Caller>,
    pub(super) procs: Vec<Proc>,
    pub(super) infos: Vec<Info>,
    /// A group's id.
    pub(super) group: Option<String>,
}

/// The collectives in progress on this server.
#[derive(Default)]
pub(super) struct Collectives {
    by_set: HashMap<CollKey, u64>,
    active: HashMap<u64, Collective>,
    next: u64,
}

impl Collectives {
    /// Counts this room's entries (see [`Census`](super::census::Census)).
    pub(super) fn count(&self, c: &mut super::census::Census) {
        c.add("collectives.by_set", self.by_set.len());
        c.add("collectives.active", self.active.len());
    }

    /// `proc` calls `call` (on `caller`). `local` expands a set to its
    /// local processes; `departed` says which processes left.
    pub(super) fn arrive(
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
                let group = call.group.as_ref().map(|g| GroupState {
                    id: g.id.clone(),
                    bootstrap: g.bootstrap,
                    solo: g.solo,
                    ..Default::default()
                });
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
            c.procs = g.named.iter().cloned().collect();
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
    pub(super) fn drop_member(&mut self, cid: u64, proc: &Proc) -> bool {
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
    pub(super) fn member_left(&mut self, id: &str, proc: &Proc) -> Vec<u64> {
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
    pub(super) fn of_group(&self, kind: Kind, id: &str) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .active
            .iter()
            .filter(|(_, c)| {
                c.kind == kind && c.failed.is_none() && c.group.as_ref().is_some_and(|g| g.id == id)
            })
            .map(|(&cid, _)| cid)
            .collect();
        v.sort_unstable();
        v
    }

    /// True if a group collective over `id` is gathering.
    pub(super) fn group_busy(&self, id: &str) -> bool {
        self.active
            .values()
            .any(|c| c.failed.is_none() && c.group.as_ref().is_some_and(|g| g.id == id))
    }

    /// Group collective `cid` waits for the verdicts of `procs` (told of a
    /// member's failure) before it completes.
    pub(super) fn await_verdicts(&mut self, cid: u64, procs: impl IntoIterator<Item = Proc>) {
        if let Some(g) = self.active.get_mut(&cid).and_then(|c| c.group.as_mut()) {
            g.awaiting.extend(procs);
        }
    }

    /// `proc`'s verdict on group collective `cid` came (or it departed):
    /// true if the collective is now ready.
    pub(super) fn verdict(&mut self, cid: u64, proc: &Proc) -> bool {
        match self.active.get_mut(&cid) {
            Some(c) if c.failed.is_none() && c.host_op.is_none() => {
                let removed = c.group.as_mut().is_some_and(|g| g.awaiting.remove(proc));
                removed && c.ready() && !c.arrived.is_empty()
            }
            _ => false,
        }
    }

    /// Sets group collective `cid`'s leader; `None` if it is over.
    pub(super) fn set_leader(&mut self, cid: u64, leader: Option<Proc>) -> Option<()> {
        self.active.get_mut(&cid)?.group.as_mut()?.leader = leader;
        Some(())
    }

    /// The group collectives (not failed) whose leader is `proc`.
    pub(super) fn led_by(&self, proc: &Proc) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .active
            .iter()
            .filter(|(_, c)| {
                c.failed.is_none()
                    && c.group
                        .as_ref()
                        .is_some_and(|g| g.leader.as_ref() == Some(proc))
            })
            .map(|(&cid, _)| cid)
            .collect();
        v.sort_unstable();
        v
    }

    /// The group collectives waiting for `proc`'s verdict.
    pub(super) fn awaiting_verdict_of(&self, proc: &Proc) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .active
            .iter()
            .filter(|(_, c)| c.group.as_ref().is_some_and(|g| g.awaiting.contains(proc)))
            .map(|(&cid, _)| cid)
            .collect();
        v.sort_unstable();
        v
    }

    /// True if collective `cid` drops departed members (see
    /// [`GroupFlags::tolerant`]).
    pub(super) fn tolerates(&self, cid: u64) -> bool {
        self.active.get(&cid).is_some_and(|c| c.tolerant())
    }

    /// Collective `cid`, if active.
    pub(super) fn get(&self, cid: u64) -> Option<&Collective> {
        self.active.get(&cid)
    }

    /// Where collective `cid` stands; `None` if it is over.
    pub(super) fn stage(&self, cid: u64) -> Option<Stage> {
        let c = self.active.get(&cid)?;
        Some(match (c.failed, c.host_op) {
            (Some(_), _) => Stage::Failed,
            (None, Some(op)) => Stage::AtHost(op),
            (None, None) => Stage::Gathering,
        })
    }

    /// Collective `cid` goes to the host as operation `op`: a later call
    /// over the same set is a new collective.
    pub(super) fn at_host(&mut self, cid: u64, op: u64) {
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
    pub(super) fn finish(&mut self, cid: u64, timers: &mut Timers) -> Option<Collective> {
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
    pub(super) fn fail(
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
            group: c.group.as_ref().map(|g| g.id.clone()),
        })
    }

    /// Forgets failed collective `cid` once no expected participant can
    /// still arrive.
    pub(super) fn retire(&mut self, cid: u64, departed: impl Fn(&Proc) -> bool) {
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
    /// it (it is expected and did not arrive; lost, also if it arrived).
    pub(super) fn blocked_by(&self, proc: &Proc, finalized: bool) -> Vec<u64> {
        // One that finalized after arriving blocks nothing; for a group,
        // what its departure does is the caller's (`drop_member`, or a
        // failure; a construct keeps an arrived member's contribution).
        let mut ids: Vec<u64> = self
            .active
            .iter()
            .filter(|(_, c)| {
                c.host_op.is_none()
                    && c.failed.is_none()
                    && c.expected.contains(proc)
                    && !(finalized && c.has_arrived(proc))
            })
            .map(|(&id, _)| id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The processes of `ns` some collective expects that have not
    /// arrived.
    pub(super) fn expecting_of(&self, ns: &Nspace) -> BTreeSet<Proc> {
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
    pub(super) fn failed(&self) -> Vec<u64> {
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
    pub(super) fn failed_with(&self, proc: &Proc) -> Vec<u64> {
        self.active
            .iter()
            .filter(|(_, c)| c.failed.is_some() && c.expected.contains(proc))
            .map(|(&id, _)| id)
            .collect()
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
    use mio::Token;
    use std::time::Duration;

    fn p(ns: &str, r: u32) -> Proc {
        Proc::new(Nspace::new(ns).unwrap(), Rank(r))
    }

    fn caller(n: usize) -> Caller {
        Caller {
            token: Token(n),
            id: n as u32,
        }
    }

    fn call(kind: Kind, procs: Vec<Proc>, deadline: Option<Instant>) -> Call {
        Call {
            kind,
            procs,
            infos: Vec::new(),
            collect: false,
            deadline,
            group: None,
            groups: Vec::new(),
        }
    }

    /// Local processes: ranks 0..3 of "a".
    fn local(set: &[Proc]) -> BTreeSet<Proc> {
        let mut out = BTreeSet::new();
        for q in set {
            if q.rank == Rank::WILDCARD {
                out.extend((0..3).map(|r| Proc::new(q.nspace.clone(), Rank(r))));
            } else {
                out.insert(q.clone());
            }
        }
        out
    }

    fn all_a() -> Vec<Proc> {
        vec![Proc::new(Nspace::new("a").unwrap(), Rank::WILDCARD)]
    }

    #[test]
    fn sets_normalize_to_sorted_unique() {
        let caller = p("a", 1);
        assert_eq!(
            normalize(vec![p("b", 2), p("a", 1), p("b", 2)], &caller),
            vec![p("a", 1), p("b", 2)]
        );
        assert_eq!(normalize(vec![], &caller), all_a());
    }

    #[test]
    fn wildcard_includes_every_rank_of_its_namespace() {
        let set = all_a();
        assert!(includes(&set, &p("a", 5)));
        assert!(!includes(&set, &p("b", 5)));
    }

    /// An engine over namespace "a" (ranks 0..3 local), with the processes
    /// in `gone` departed.
    #[derive(Default)]
    struct Engine {
        c: Collectives,
        t: Timers,
        gone: Vec<Proc>,
    }

    impl Engine {
        /// Rank `r` of "a" (on connection `token`) calls `kind` over the
        /// whole of "a".
        fn arrive_on(&mut self, token: usize, r: u32, kind: Kind, dl: Option<Instant>) -> Arrival {
            let gone = self.gone.clone();
            let departed = move |q: &Proc| gone.contains(q);
            let call = call(kind, all_a(), dl);
            self.c.arrive(
                caller(token),
                &p("a", r),
                call,
                local,
                departed,
                &mut self.t,
            )
        }

        fn arrive(&mut self, r: u32, kind: Kind) -> Arrival {
            self.arrive_on(r as usize, r, kind, None)
        }
    }

    #[test]
    fn ready_once_every_local_participant_arrived_and_kinds_do_not_mix() {
        for kind in [Kind::Fence, Kind::Connect, Kind::Disconnect] {
            let mut e = Engine::default();
            for r in 0..2 {
                assert!(matches!(e.arrive(r, kind), Arrival::Waiting));
            }
            // The same set in another kind is another collective.
            let other = if kind == Kind::Fence {
                Kind::Connect
            } else {
                Kind::Fence
            };
            assert!(matches!(e.arrive_on(9, 2, other, None), Arrival::Waiting));
            let Arrival::Ready(cid) = e.arrive(2, kind) else {
                panic!("not ready")
            };
            e.c.at_host(cid, 7);
            assert!(matches!(e.c.stage(cid), Some(Stage::AtHost(7))));
            // At the host, a new call over the set is a new collective.
            assert!(matches!(e.arrive(0, kind), Arrival::Waiting));
            let done = e.c.finish(cid, &mut e.t).unwrap();
            assert_eq!(done.arrived.len(), 3);
            assert!(e.c.stage(cid).is_none());
        }
    }

    #[test]
    fn a_duplicate_arrival_or_a_caller_outside_the_set_is_refused() {
        let mut e = Engine::default();
        assert!(matches!(e.arrive(0, Kind::Fence), Arrival::Waiting));
        let refused = |a| matches!(a, Arrival::Refused(s) if s == Status::ERR_BAD_PARAM);
        assert!(refused(e.arrive(0, Kind::Fence)));
        let outside = call(Kind::Fence, all_a(), None);
        let none = |_: &Proc| false;
        assert!(refused(e.c.arrive(
            caller(5),
            &p("b", 0),
            outside,
            local,
            none,
            &mut e.t
        )));
    }

    #[test]
    fn a_departed_participant_fails_the_collective_and_late_arrivals_fail_at_once() {
        let mut e = Engine::default();
        assert!(matches!(e.arrive(0, Kind::Connect), Arrival::Waiting));
        // Rank 1 is lost before arriving.
        let ids = e.c.blocked_by(&p("a", 1), false);
        assert_eq!(ids.len(), 1);
        let f =
            e.c.fail(ids[0], Status::ERR_LOST_CONNECTION, &mut e.t)
                .unwrap();
        assert_eq!(f.arrived, vec![caller(0)]);
        assert!(
            e.c.fail(ids[0], Status::ERR_TIMEOUT, &mut e.t).is_none(),
            "fails once"
        );
        e.gone.push(p("a", 1));
        let gone = |q: &Proc| q == &p("a", 1);
        e.c.retire(ids[0], gone);
        assert!(e.c.stage(ids[0]).is_some(), "rank 2 may still arrive");
        let late = e.arrive(2, Kind::Connect);
        assert!(matches!(late, Arrival::Late(_, s) if s == Status::ERR_LOST_CONNECTION));
        e.c.retire(ids[0], gone);
        assert!(e.c.stage(ids[0]).is_none(), "everyone accounted for");
    }

    #[test]
    fn arriving_after_a_departure_fails_and_a_finalized_arrival_does_not_block() {
        let mut e = Engine {
            gone: vec![p("a", 1)],
            ..Default::default()
        };
        let a = e.arrive(0, Kind::Fence);
        assert!(matches!(a, Arrival::Fail(_, s) if s == Status::ERR_LOST_CONNECTION));
        let mut e = Engine::default();
        e.arrive(0, Kind::Fence);
        assert!(
            e.c.blocked_by(&p("a", 0), true).is_empty(),
            "finalized after arriving"
        );
        assert_eq!(
            e.c.blocked_by(&p("a", 0), false).len(),
            1,
            "lost after arriving"
        );
    }

    #[test]
    fn the_shortest_deadline_is_armed_and_disarmed_when_the_collective_ends() {
        let mut e = Engine::default();
        let now = Instant::now();
        e.arrive_on(0, 0, Kind::Fence, Some(now + Duration::from_secs(10)));
        e.arrive_on(1, 1, Kind::Fence, Some(now + Duration::from_secs(1)));
        assert_eq!(e.t.next_in(now), Some(Duration::from_secs(1)));
        let cid = 1;
        let later = now + Duration::from_secs(2);
        assert_eq!(e.t.pop_expired(later), Some(TimerKey::Collective(cid)));
        assert_eq!(e.t.pop_expired(later), None, "the longer one was disarmed");
        assert!(e.c.fail(cid, Status::ERR_TIMEOUT, &mut e.t).is_some());
        assert_eq!(e.t.next_in(later), None);
    }

    #[test]
    fn a_member_that_leaves_a_group_is_no_longer_waited_for() {
        let mut e = Engine::default();
        let members = vec![p("a", 0), p("a", 1), p("a", 2)];
        let over_group = |procs: Vec<Proc>| Call {
            groups: vec!["g".into()],
            ..call(Kind::Fence, procs, None)
        };
        let no = |_: &Proc| false;
        let a = e.c.arrive(
            caller(0),
            &p("a", 0),
            over_group(members.clone()),
            local,
            no,
            &mut e.t,
        );
        assert!(matches!(a, Arrival::Waiting));
        // Another group's leave, or a process outside the set: nothing.
        assert!(e.c.member_left("h", &p("a", 1)).is_empty());
        assert!(e.c.member_left("g", &p("a", 5)).is_empty());
        assert!(
            e.c.member_left("g", &p("a", 1)).is_empty(),
            "rank 2 is still expected"
        );
        // Rank 2 arrives over the shrunken set: the same collective.
        let a = e.c.arrive(
            caller(2),
            &p("a", 2),
            over_group(vec![p("a", 0), p("a", 2)]),
            local,
            no,
            &mut e.t,
        );
        let Arrival::Ready(cid) = a else {
            panic!("not ready")
        };
        assert_eq!(e.c.get(cid).unwrap().procs, vec![p("a", 0), p("a", 2)]);
        // A set named explicitly (no group) does not follow the group.
        let mut e = Engine::default();
        e.c.arrive(
            caller(0),
            &p("a", 0),
            call(Kind::Fence, members, None),
            local,
            no,
            &mut e.t,
        );
        assert!(e.c.member_left("g", &p("a", 1)).is_empty());
        assert_eq!(e.c.get(1).unwrap().procs.len(), 3);
    }
}
