//! What a group collective adds to the tracker: the directives that merge
//! across participants, one participant's group call, and the group's
//! own state while it gathers (see the engine's module doc for leaders,
//! added members and bootstraps).
//!
//! Invariant: a leader whose set differs from the first leader's (not a
//! bootstrap) is refused, so two sets never complete as one group.

use std::collections::BTreeSet;

use crate::{Info, Proc, Status};

/// The group directives that merge across participants (any one that sets
/// a flag sets it for the collective).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::server) struct GroupFlags {
    /// `PMIX_GROUP_OPTIONAL`.
    pub(in crate::server) optional: bool,
    /// `PMIX_GROUP_FT_COLLECTIVE`.
    pub(in crate::server) ft: bool,
    /// `PMIX_GROUP_NOTIFY_TERMINATION`.
    pub(in crate::server) notify_termination: bool,
    /// `PMIX_GROUP_ASSIGN_CONTEXT_ID`.
    pub(in crate::server) assign_cid: bool,
    /// `PMIX_GROUP_LOCAL_ONLY`.
    pub(in crate::server) local_only: bool,
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
    pub(in crate::server) fn tolerant(&self) -> bool {
        self.optional || self.ft
    }
}

/// What a group participant's call adds to [`Call`].
#[derive(Clone, Debug, Default)]
pub(in crate::server) struct GroupCall {
    pub(in crate::server) id: String,
    /// `PMIX_GROUP_ADD_MEMBERS`.
    pub(in crate::server) add: Vec<Proc>,
    /// `pmix.grp.btstrp`: the number of leaders.
    pub(in crate::server) bootstrap: Option<usize>,
    pub(in crate::server) flags: GroupFlags,
    /// `PMIX_GROUP_LEADER` was set.
    pub(in crate::server) leader_flag: bool,
    /// Its `PMIX_GROUP_INFO` contribution.
    pub(in crate::server) info: Vec<Info>,
    /// The server completes the group alone (see the module doc).
    pub(in crate::server) solo: bool,
}

/// A group collective's own state.
#[derive(Debug, Default)]
pub(in crate::server) struct GroupState {
    id: String,
    /// The members named by the leaders (procs and added members).
    named: BTreeSet<Proc>,
    /// The set of the first leader (checked against later leaders').
    leader_set: Vec<Proc>,
    bootstrap: Option<usize>,
    leaders_in: usize,
    flags: GroupFlags,
    /// Who set `PMIX_GROUP_LEADER`.
    leader: Option<Proc>,
    /// The participants' `PMIX_GROUP_INFO` contributions.
    info: Vec<(Proc, Vec<Info>)>,
    /// Members dropped because they departed (tolerant groups).
    dropped: Vec<Proc>,
    /// Local processes told of a member's failure whose verdict the
    /// collective waits for.
    awaiting: BTreeSet<Proc>,
    solo: bool,
}

impl GroupState {
    /// The state of a group collective `first` opens (before it joins).
    pub(super) fn new(first: &GroupCall) -> GroupState {
        GroupState {
            id: first.id.clone(),
            bootstrap: first.bootstrap,
            solo: first.solo,
            ..Default::default()
        }
    }

    /// The group id.
    pub(in crate::server) fn id(&self) -> &str {
        &self.id
    }

    /// The members named by the leaders (procs and added members).
    pub(in crate::server) fn named(&self) -> &BTreeSet<Proc> {
        &self.named
    }

    /// The merged group directives.
    pub(in crate::server) fn flags(&self) -> GroupFlags {
        self.flags
    }

    /// Who set `PMIX_GROUP_LEADER` (`None`: nobody, or it was lost).
    pub(in crate::server) fn leader(&self) -> Option<&Proc> {
        self.leader.as_ref()
    }

    /// The participants' `PMIX_GROUP_INFO` contributions.
    pub(in crate::server) fn info(&self) -> &[(Proc, Vec<Info>)] {
        &self.info
    }

    /// Members dropped because they departed (tolerant groups).
    pub(in crate::server) fn dropped(&self) -> &[Proc] {
        &self.dropped
    }

    /// The group has a new leader (`None`: its leader was lost).
    pub(super) fn set_leader(&mut self, leader: Option<Proc>) {
        self.leader = leader;
    }

    /// Member `p` departed and is dropped (a tolerant group).
    pub(super) fn drop_member(&mut self, p: &Proc) {
        if !self.dropped.contains(p) {
            self.dropped.push(p.clone());
        }
    }

    /// The collective waits for the verdicts of `procs`.
    pub(super) fn await_verdicts(&mut self, procs: impl IntoIterator<Item = Proc>) {
        self.awaiting.extend(procs);
    }

    /// `proc`'s verdict came: true if it was awaited.
    pub(super) fn verdict(&mut self, proc: &Proc) -> bool {
        self.awaiting.remove(proc)
    }

    /// True if the collective waits for `proc`'s verdict.
    pub(super) fn awaits_verdict_of(&self, proc: &Proc) -> bool {
        self.awaiting.contains(proc)
    }

    /// True once nothing of the group's own holds the collective back: no
    /// verdict is awaited and, when the server completes the group alone,
    /// a leader (for a bootstrap, every leader) arrived.
    pub(super) fn ready(&self) -> bool {
        let leaders = !self.solo || self.leaders_in >= self.bootstrap.unwrap_or(1).max(1);
        leaders && self.awaiting.is_empty()
    }

    /// `proc` joins with its `procs` (empty: an added member) and `call`:
    /// merges what it brings; refuses a leader whose set differs from the
    /// first leader's (unless a bootstrap, where each names itself).
    pub(super) fn join(
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
