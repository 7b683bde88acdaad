//! The groups this server knows and the invitations in progress.
//!
//! A group is recorded when its construct (collective, bootstrap or
//! invitation) completes on this server, and forgotten when its destruct
//! completes, or when the host deregistered the namespaces of all its
//! members; its id may then be used again. Its membership is sorted (see
//! [`crate::group`]); a member that leaves is removed; a member whose
//! connection is lost is marked failed (it stays a member until the
//! destruct, which does not wait for it when the group was built with
//! `PMIX_GROUP_NOTIFY_TERMINATION`).
//!
//! An invitation belongs to the server of its leader; it is answered once
//! every invitee accepted, declined or failed (departed, or silent past the
//! deadline).
//!
//! Invariants:
//! - A group id names at most one group and at most one invitation, never
//!   both, and never a registered namespace's name.
//! - Every invitation's deadline is armed in the loop's timers exactly
//!   while it waits for answers: the room arms it when the invitation
//!   starts and disarms it when the last answer comes
//!   ([`Groups::answered_invite`]) or the invitation ends
//!   ([`Groups::take_invite`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::time::Instant;

use crate::server::clients::connections::Caller;
use crate::server::collective::GroupFlags;
use crate::server::timers::{TimerKey, Timers};
use crate::wire::directives::TIMEOUT_ONLY;
use crate::wire::Directives;
use crate::{Info, Proc, Rank, Status};

/// How many destructed group ids are remembered (a job that builds groups
/// for ever keeps a bounded table).
const RETIRED_KEPT: usize = 4096;

/// A group that exists.
#[derive(Clone, Debug)]
pub(in crate::server) struct Group {
    /// Sorted.
    members: Vec<Proc>,
    /// `PMIX_GROUP_NOTIFY_TERMINATION` was set at construct.
    notify_termination: bool,
    /// Who constructed it with `PMIX_GROUP_LEADER` (or invited).
    leader: Option<Proc>,
    /// Members whose connection was lost.
    failed: BTreeSet<Proc>,
}

impl Group {
    /// A group of `members` (sorted), none failed yet.
    pub(in crate::server) fn new(
        members: Vec<Proc>,
        notify_termination: bool,
        leader: Option<Proc>,
    ) -> Group {
        Group {
            members,
            notify_termination,
            leader,
            failed: BTreeSet::new(),
        }
    }

    /// Its members, sorted.
    pub(in crate::server) fn members(&self) -> &[Proc] {
        &self.members
    }

    /// True if `proc` is a member.
    pub(in crate::server) fn has_member(&self, proc: &Proc) -> bool {
        self.members.contains(proc)
    }

    /// Its members whose connection was not lost, sorted.
    pub(in crate::server) fn live_members(&self) -> Vec<Proc> {
        self.members
            .iter()
            .filter(|m| !self.failed.contains(*m))
            .cloned()
            .collect()
    }

    /// True if member `proc`'s connection was lost.
    pub(in crate::server) fn has_failed(&self, proc: &Proc) -> bool {
        self.failed.contains(proc)
    }

    /// `PMIX_GROUP_NOTIFY_TERMINATION` was set at construct.
    pub(in crate::server) fn notify_termination(&self) -> bool {
        self.notify_termination
    }

    /// Its leader (`None`: none was named, or it was lost).
    pub(in crate::server) fn leader(&self) -> Option<&Proc> {
        self.leader.as_ref()
    }
}

/// An invitee's answer.
pub(in crate::server) enum Answer {
    /// Accepted; its join waits on this caller (a local invitee's), or on
    /// its own server (a remote invitee's).
    Accepted(Option<Caller>),
    Declined,
    /// Departed or silent past the deadline.
    Failed,
}

/// An invitation in progress: who was invited, who answered what, and
/// whether it is at the host for a context id. Its answers change only
/// through [`Invite::accept`], [`Invite::decline`] and [`Invite::fail`];
/// each invitee answers at most once (a failure may follow an
/// acceptance: the accepter departed).
pub(in crate::server) struct Invite {
    id: String,
    leader: Proc,
    /// The leader's invite call.
    caller: Caller,
    /// Sorted, without duplicates, without the leader.
    invitees: Vec<Proc>,
    answers: BTreeMap<Proc, Answer>,
    flags: GroupFlags,
    /// The leader's directives.
    directives: Vec<Info>,
    /// From the leader's `PMIX_TIMEOUT`; armed while answers are awaited.
    deadline: Option<Instant>,
    /// At the host for a context id, as this operation.
    host_op: Option<u64>,
    /// `PMIX_GROUP_INFO` of the leader and the accepters.
    contributed: BTreeMap<Proc, Vec<Info>>,
}

/// What an ended invitation leaves to answer.
pub(in crate::server) struct Ended {
    /// The leader's invite call.
    pub(in crate::server) caller: Caller,
    /// The local accepters' joins.
    pub(in crate::server) accepters: Vec<Caller>,
    /// `PMIX_GROUP_INFO` of the leader and the accepters, by process.
    pub(in crate::server) contributed: Vec<(Proc, Vec<Info>)>,
}

impl Invite {
    /// `leader`'s invitation `id` (called on `caller`) of `invitees`
    /// (sorted, without duplicates, without the leader), with its
    /// `directives` (its deadline is their `PMIX_TIMEOUT`) and its own
    /// `PMIX_GROUP_INFO`.
    pub(in crate::server) fn new(
        id: String,
        leader: Proc,
        caller: Caller,
        invitees: Vec<Proc>,
        flags: GroupFlags,
        directives: Vec<Info>,
        info: Vec<Info>,
    ) -> Invite {
        let deadline = Directives::parse_for(&directives, TIMEOUT_ONLY).deadline();
        let mut contributed = BTreeMap::new();
        if !info.is_empty() {
            contributed.insert(leader.clone(), info);
        }
        Invite {
            id,
            leader,
            caller,
            invitees,
            answers: BTreeMap::new(),
            flags,
            directives,
            deadline,
            host_op: None,
            contributed,
        }
    }

    /// The group id.
    pub(in crate::server) fn id(&self) -> &str {
        &self.id
    }

    /// The leader.
    pub(in crate::server) fn leader(&self) -> &Proc {
        &self.leader
    }

    /// The invitees, sorted.
    pub(in crate::server) fn invitees(&self) -> &[Proc] {
        &self.invitees
    }

    /// The merged group directives.
    pub(in crate::server) fn flags(&self) -> GroupFlags {
        self.flags
    }

    /// The leader's directives.
    pub(in crate::server) fn directives(&self) -> &[Info] {
        &self.directives
    }

    /// True if `proc` is invited and has not answered.
    pub(in crate::server) fn awaits(&self, proc: &Proc) -> bool {
        self.invitees.contains(proc) && !self.answers.contains_key(proc)
    }

    /// The invitees that have not answered.
    pub(in crate::server) fn silent(&self) -> Vec<Proc> {
        self.invitees
            .iter()
            .filter(|p| !self.answers.contains_key(*p))
            .cloned()
            .collect()
    }

    /// The invitees that declined.
    pub(in crate::server) fn decliners(&self) -> Vec<Proc> {
        self.answers
            .iter()
            .filter(|(_, a)| matches!(a, Answer::Declined))
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// `proc` accepts (its join waits on `caller`; `None`: a remote
    /// invitee's), contributing `info`.
    pub(in crate::server) fn accept(
        &mut self,
        proc: &Proc,
        caller: Option<Caller>,
        info: Vec<Info>,
    ) {
        self.answers.insert(proc.clone(), Answer::Accepted(caller));
        if !info.is_empty() {
            self.contributed.insert(proc.clone(), info);
        }
    }

    /// `proc` declines.
    pub(in crate::server) fn decline(&mut self, proc: &Proc) {
        self.answers.insert(proc.clone(), Answer::Declined);
    }

    /// `proc` failed (departed or silent): false if it had declined or
    /// failed already.
    pub(in crate::server) fn fail(&mut self, proc: &Proc) -> bool {
        if matches!(
            self.answers.get(proc),
            Some(Answer::Declined | Answer::Failed)
        ) {
            return false;
        }
        self.answers.insert(proc.clone(), Answer::Failed);
        self.contributed.remove(proc);
        true
    }

    /// True once every invitee answered.
    pub(in crate::server) fn answered(&self) -> bool {
        self.answers.len() == self.invitees.len()
    }

    /// True if every invitee accepted.
    pub(in crate::server) fn all_accepted(&self) -> bool {
        self.answers
            .values()
            .all(|a| matches!(a, Answer::Accepted(_)))
    }

    /// The host operation it waits for (a context id), if any.
    pub(in crate::server) fn host_op(&self) -> Option<u64> {
        self.host_op
    }

    /// It went to the host for a context id, as operation `op`.
    pub(in crate::server) fn sent_to_host(&mut self, op: u64) {
        self.host_op = Some(op);
    }

    /// The members once complete: the leader and the accepters, sorted.
    pub(in crate::server) fn members(&self) -> Vec<Proc> {
        let mut m: Vec<Proc> = self
            .answers
            .iter()
            .filter(|(_, a)| matches!(a, Answer::Accepted(_)))
            .map(|(p, _)| p.clone())
            .collect();
        m.push(self.leader.clone());
        m.sort();
        m
    }

    /// Who is left to answer, and what they contributed.
    pub(in crate::server) fn end(self) -> Ended {
        let accepters = self
            .answers
            .into_values()
            .filter_map(|a| match a {
                Answer::Accepted(caller) => caller,
                _ => None,
            })
            .collect();
        Ended {
            caller: self.caller,
            accepters,
            contributed: self.contributed.into_iter().collect(),
        }
    }
}

/// A local invitee's acceptance of a remote leader's invitation, waiting
/// for the group's completion (or abort) to come back from the host.
pub(in crate::server) struct RemoteJoin {
    pub(in crate::server) id: String,
    pub(in crate::server) proc: Proc,
    pub(in crate::server) caller: Caller,
}

/// The groups room.
#[derive(Default)]
pub(in crate::server) struct Groups {
    remote_joins: Vec<RemoteJoin>,
    groups: HashMap<String, Group>,
    /// Ids of the last [`RETIRED_KEPT`] destructed groups (a fence over
    /// one fails rather than waiting for a namespace that will never
    /// exist), oldest first in `retired_order`.
    retired: HashSet<String>,
    retired_order: VecDeque<String>,
    invites: HashMap<u64, Invite>,
    next_invite: u64,
}

impl Groups {
    /// Counts this room's entries (see [`Census`](crate::server::census::Census)).
    pub(in crate::server) fn count(&self, c: &mut crate::server::census::Census) {
        c.add("groups.groups", self.groups.len());
        c.add("groups.retired", self.retired.len());
        c.add("groups.invites", self.invites.len());
        c.add("groups.remote_joins", self.remote_joins.len());
    }

    /// Group `id`, if it exists.
    pub(in crate::server) fn get(&self, id: &str) -> Option<&Group> {
        self.groups.get(id)
    }

    /// True if `id` names a group or an invitation in progress.
    pub(in crate::server) fn in_use(&self, id: &str) -> bool {
        self.groups.contains_key(id) || self.invites.values().any(|i| i.id == id)
    }

    /// Records group `id` (replacing what a construct of another batch of
    /// this server's participants recorded).
    pub(in crate::server) fn insert(&mut self, id: &str, g: Group) {
        if self.retired.remove(id) {
            self.retired_order.retain(|r| r != id);
        }
        self.groups.insert(id.to_owned(), g);
    }

    /// Forgets group `id`.
    pub(in crate::server) fn remove(&mut self, id: &str) -> Option<Group> {
        let g = self.groups.remove(id);
        if g.is_some() && self.retired.insert(id.to_owned()) {
            self.retired_order.push_back(id.to_owned());
            if self.retired_order.len() > RETIRED_KEPT {
                if let Some(old) = self.retired_order.pop_front() {
                    self.retired.remove(&old);
                }
            }
        }
        g
    }

    /// Group `id` has a new leader (`None`: its leader was lost).
    pub(in crate::server) fn set_leader(&mut self, id: &str, leader: Option<Proc>) {
        if let Some(g) = self.groups.get_mut(id) {
            g.leader = leader;
        }
    }

    /// `proc` left group `id`: true if it was a member.
    pub(in crate::server) fn remove_member(&mut self, id: &str, proc: &Proc) -> bool {
        match self.groups.get_mut(id) {
            Some(g) => {
                let before = g.members.len();
                g.members.retain(|m| m != proc);
                g.failed.remove(proc);
                before != g.members.len()
            }
            None => false,
        }
    }

    /// The host deregistered namespace `ns`: its processes are no longer
    /// members of any group, and a group left without members is
    /// forgotten as a destructed one is.
    pub(in crate::server) fn forget_nspace(&mut self, ns: &crate::Nspace) {
        for g in self.groups.values_mut() {
            g.members.retain(|m| &m.nspace != ns);
            g.failed.retain(|m| &m.nspace != ns);
            if g.leader.as_ref().is_some_and(|l| &l.nspace == ns) {
                g.leader = None;
            }
        }
        let empty: Vec<String> = self
            .groups
            .iter()
            .filter(|(_, g)| g.members.is_empty())
            .map(|(id, _)| id.clone())
            .collect();
        for id in empty {
            self.remove(&id);
        }
    }

    /// `proc`'s connection was lost: marks it failed in every group it is
    /// a member of; returns those groups' ids.
    pub(in crate::server) fn member_lost(&mut self, proc: &Proc) -> Vec<String> {
        let mut ids: Vec<String> = self
            .groups
            .iter_mut()
            .filter(|(_, g)| g.members.contains(proc))
            .map(|(id, g)| {
                g.failed.insert(proc.clone());
                id.clone()
            })
            .collect();
        ids.sort();
        ids
    }

    /// The set `procs` with every process of a group id replaced by what
    /// it names: `{grp, WILDCARD}` every member, `{grp, r}` member `r`
    /// (`PMIX_ERR_BAD_PARAM` beyond the group's size); the id of a
    /// destructed group is `PMIX_ERR_NOT_FOUND`. `is_nspace` says which
    /// names are registered namespaces (they are never group ids). `None`
    /// if no process names a group.
    pub(in crate::server) fn expand(
        &self,
        procs: &[Proc],
        is_nspace: impl Fn(&Proc) -> bool,
    ) -> Option<Result<Vec<Proc>, Status>> {
        // What each process names; `is_nspace` is asked only of the
        // names that are group ids, current or destructed (a fence of a
        // job without groups pays for nothing else).
        enum Named<'g> {
            Process,
            Group(&'g Group),
            Retired,
        }
        let named = |p: &Proc| {
            let Ok(id) = std::str::from_utf8(p.nspace.as_bytes()) else {
                return Named::Process;
            };
            let group = self.groups.get(id);
            if group.is_none() && !self.retired.contains(id) || is_nspace(p) {
                return Named::Process;
            }
            group.map_or(Named::Retired, Named::Group)
        };
        let names: Vec<Named<'_>> = procs.iter().map(named).collect();
        if names.iter().any(|n| matches!(n, Named::Retired)) {
            return Some(Err(Status::ERR_NOT_FOUND));
        }
        if !names.iter().any(|n| matches!(n, Named::Group(_))) {
            return None;
        }
        let mut out = Vec::new();
        for (p, n) in procs.iter().zip(&names) {
            match n {
                Named::Process | Named::Retired => out.push(p.clone()),
                Named::Group(g) if p.rank == Rank::WILDCARD => {
                    out.extend(g.members.iter().cloned())
                }
                Named::Group(g) => match g.members.get(p.rank.0 as usize) {
                    Some(m) if p.rank.0 <= Rank::VALID.0 => out.push(m.clone()),
                    _ => return Some(Err(Status::ERR_BAD_PARAM)),
                },
            }
        }
        out.sort();
        out.dedup();
        Some(Ok(out))
    }

    /// The ids of the groups that `procs` names whole (`{grp,
    /// PMIX_RANK_WILDCARD}`), sorted: a collective over them follows their
    /// membership while it gathers (see `Collectives::member_left`).
    pub(in crate::server) fn named_whole(
        &self,
        procs: &[Proc],
        is_nspace: impl Fn(&Proc) -> bool,
    ) -> Vec<String> {
        let mut v: Vec<String> = procs
            .iter()
            .filter(|p| p.rank == Rank::WILDCARD)
            .filter_map(|p| {
                std::str::from_utf8(p.nspace.as_bytes())
                    .ok()
                    .map(|id| (p, id))
            })
            .filter(|(p, id)| self.groups.contains_key(*id) && !is_nspace(p))
            .map(|(_, id)| id.to_owned())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The ids of the groups `proc` belongs to, sorted.
    pub(in crate::server) fn groups_of(&self, proc: &Proc) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .groups
            .iter()
            .filter(|(_, g)| {
                g.members.iter().any(|m| {
                    m.nspace == proc.nspace && (m.rank == proc.rank || proc.rank == Rank::WILDCARD)
                })
            })
            .map(|(id, _)| id.as_str())
            .collect();
        v.sort_unstable();
        v
    }

    /// The ids of every group, sorted.
    pub(in crate::server) fn names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.groups.keys().map(String::as_str).collect();
        v.sort_unstable();
        v
    }

    /// The number of groups.
    pub(in crate::server) fn len(&self) -> usize {
        self.groups.len()
    }

    /// Starts an invitation, arming its deadline; returns its number.
    pub(in crate::server) fn start_invite(&mut self, invite: Invite, timers: &mut Timers) -> u64 {
        self.next_invite += 1;
        let n = self.next_invite;
        if let Some(dl) = invite.deadline {
            timers.set(dl, TimerKey::Invite(n));
        }
        self.invites.insert(n, invite);
        n
    }

    /// The invitation `id` led by `leader`.
    pub(in crate::server) fn invite_of(&self, id: &str, leader: &Proc) -> Option<u64> {
        self.invites
            .iter()
            .find(|(_, i)| i.id == id && &i.leader == leader)
            .map(|(&n, _)| n)
    }

    /// Invitation `n`.
    pub(in crate::server) fn invite_mut(&mut self, n: u64) -> Option<&mut Invite> {
        self.invites.get_mut(&n)
    }

    /// Invitation `n` once every invitee answered and it is not at the
    /// host already (to complete or abort): its deadline, if still armed,
    /// is disarmed.
    pub(in crate::server) fn answered_invite(
        &mut self,
        n: u64,
        timers: &mut Timers,
    ) -> Option<&Invite> {
        let inv = self.invites.get_mut(&n)?;
        if !inv.answered() || inv.host_op().is_some() {
            return None;
        }
        if let Some(dl) = inv.deadline.take() {
            timers.cancel(dl, TimerKey::Invite(n));
        }
        Some(inv)
    }

    /// Invitation `n`'s deadline passed (its timer fired): returns the
    /// invitees that have not answered.
    pub(in crate::server) fn invite_timed_out(&mut self, n: u64) -> Vec<Proc> {
        let Some(inv) = self.invites.get_mut(&n) else {
            return Vec::new();
        };
        inv.deadline = None;
        inv.silent()
    }

    /// Ends invitation `n`, disarming its deadline.
    pub(in crate::server) fn take_invite(&mut self, n: u64, timers: &mut Timers) -> Option<Invite> {
        let inv = self.invites.remove(&n)?;
        if let Some(dl) = inv.deadline {
            timers.cancel(dl, TimerKey::Invite(n));
        }
        Some(inv)
    }

    /// The invitation `id` that `invitee` was sent.
    pub(in crate::server) fn invite_for(&self, id: &str, invitee: &Proc) -> Option<u64> {
        self.invites
            .iter()
            .find(|(_, i)| i.id == id && i.invitees.contains(invitee))
            .map(|(&n, _)| n)
    }

    /// Local `proc` accepted remote invitation `id`.
    pub(in crate::server) fn await_remote(&mut self, id: &str, proc: &Proc, caller: Caller) {
        self.remote_joins.push(RemoteJoin {
            id: id.to_owned(),
            proc: proc.clone(),
            caller,
        });
    }

    /// The local acceptances of remote invitation `id`, taken out.
    pub(in crate::server) fn take_remote(&mut self, id: &str) -> Vec<RemoteJoin> {
        let (out, keep) = std::mem::take(&mut self.remote_joins)
            .into_iter()
            .partition(|j| j.id == id);
        self.remote_joins = keep;
        out
    }

    /// `proc` departed: its acceptances waiting on remote invitations go.
    pub(in crate::server) fn forget_remote_joins_of(&mut self, proc: &Proc) {
        self.remote_joins.retain(|j| &j.proc != proc);
    }

    /// The invitations awaiting `invitee`'s answer, of group `id` if
    /// given, led by one of `leaders` if any are given, oldest first.
    pub(in crate::server) fn awaiting_answer(
        &self,
        invitee: &Proc,
        id: Option<&str>,
        leaders: &[Proc],
    ) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .invites
            .iter()
            .filter(|(_, i)| {
                i.awaits(invitee)
                    && id.map_or(true, |id| i.id == id)
                    && (leaders.is_empty() || leaders.contains(&i.leader))
            })
            .map(|(&n, _)| n)
            .collect();
        v.sort_unstable();
        v
    }

    /// The invitations `proc` leads or is invited to (and has not
    /// answered, or accepted), by number.
    pub(in crate::server) fn invites_involving(&self, proc: &Proc) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .invites
            .iter()
            .filter(|(_, i)| {
                &i.leader == proc
                    || (i.invitees.contains(proc)
                        && !matches!(i.answers.get(proc), Some(Answer::Declined | Answer::Failed)))
            })
            .map(|(&n, _)| n)
            .collect();
        v.sort_unstable();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Nspace;

    fn p(ns: &str, r: u32) -> Proc {
        Proc::new(Nspace::new(ns).unwrap(), Rank(r))
    }

    fn group(members: Vec<Proc>) -> Group {
        Group::new(members, false, None)
    }

    #[test]
    fn a_group_id_names_its_members_in_a_set() {
        let mut g = Groups::default();
        g.insert("grp", group(vec![p("a", 1), p("b", 0)]));
        let nspace = |q: &Proc| q.nspace.as_bytes() == b"a";
        assert!(g.expand(&[p("a", 0)], nspace).is_none());
        let all = Proc::new(Nspace::new("grp").unwrap(), Rank::WILDCARD);
        assert_eq!(
            g.expand(&[all, p("a", 0)], nspace).unwrap().unwrap(),
            vec![p("a", 0), p("a", 1), p("b", 0)]
        );
        assert_eq!(
            g.expand(&[p("grp", 1)], nspace).unwrap().unwrap(),
            vec![p("b", 0)]
        );
        assert_eq!(
            g.expand(&[p("grp", 2)], nspace).unwrap(),
            Err(Status::ERR_BAD_PARAM)
        );
        assert_eq!(g.groups_of(&p("b", 0)), vec!["grp"]);
        assert!(g.remove_member("grp", &p("b", 0)));
        assert!(g.groups_of(&p("b", 0)).is_empty());
        assert_eq!(g.member_lost(&p("a", 1)), vec!["grp".to_string()]);
        assert!(g.get("grp").unwrap().has_failed(&p("a", 1)));
        g.remove("grp");
        assert_eq!(
            g.expand(&[p("grp", 0)], nspace).unwrap(),
            Err(Status::ERR_NOT_FOUND)
        );
    }

    #[test]
    fn destructed_ids_are_remembered_within_a_bound() {
        let mut g = Groups::default();
        for i in 0..RETIRED_KEPT + 10 {
            let id = format!("g{i}");
            g.insert(&id, group(vec![p("a", 0)]));
            g.remove(&id);
        }
        assert_eq!(g.retired.len(), RETIRED_KEPT);
        assert_eq!(g.retired_order.len(), RETIRED_KEPT);
        assert!(!g.retired.contains("g0"));
        // An id used again leaves the list, and comes back last.
        let last = format!("g{}", RETIRED_KEPT + 9);
        g.insert(&last, group(vec![p("a", 0)]));
        assert!(!g.retired.contains(&last));
        g.remove(&last);
        assert_eq!(g.retired_order.back(), Some(&last));
        assert_eq!(g.retired.len(), g.retired_order.len());
    }
}
