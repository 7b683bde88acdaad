//! Process groups in a client: `PMIx_Group_construct`, `_destruct`,
//! `_invite`, `_join`, `_leave` and the client's view of the groups it
//! belongs to.
//!
//! Every call is a request to the server, which runs the collective or
//! the invitation (see the server's `groups::collective` and
//! `groups::members`) and answers with the group's result. The
//! client keeps the groups it is a member of ([`GroupTable`]): their
//! membership, so that `{grp, r}` names member `r` of group `grp` in a
//! get, and what each member contributed with `PMIX_GROUP_INFO`, which a
//! get qualified by the group's `PMIX_GROUP_CONTEXT_ID` reads. The table
//! follows the group's life: a construct, an invite or a join that
//! completes adds it, `PMIX_GROUP_CONSTRUCT_COMPLETE` (an invited group)
//! adds it, `PMIX_GROUP_LEFT` removes the leaver, a destruct or a leave
//! removes it. A leave can be told before the call that adds the group has
//! recorded it (the event comes right after the call's answer, and the
//! caller's thread records the answer): it is kept until then and applied
//! to what is recorded.
//!
//! Order of checks (as OpenPMIx): not initialized → `PMIX_ERR_INIT`, a
//! singleton → `PMIX_ERR_UNREACH`, then the arguments → `PMIX_ERR_BAD_PARAM`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use super::{Client, Inner, StatusCallback};
use crate::events::Event;
use crate::group::{self, events as codes, GroupCallback, GroupOpt, GroupResult};
use crate::wire::{group as body, Op};
use crate::{Info, Proc, Rank, Status, Value};

/// Groups whose early leaves [`GroupTable`] keeps at most.
const MAX_LEFT_EARLY: usize = 64;

/// The groups this process belongs to, by id.
#[derive(Default)]
pub(crate) struct GroupTable {
    groups: Mutex<HashMap<String, GroupResult>>,
    /// Members told gone (`PMIX_GROUP_LEFT`) from groups not recorded
    /// yet, by group id; taken when the group is recorded.
    left_early: Mutex<HashMap<String, Vec<Proc>>>,
    /// True once a group was recorded: gets skip the table until then.
    any: AtomicBool,
}

/// What a get's target and qualifiers come to, given the groups this
/// process knows (see [`Client::group_member`]).
#[derive(Debug)]
pub enum GroupTarget {
    /// The target names no group: look it up as it is.
    NotAGroup,
    /// `{grp, r}`: look up member `r` instead.
    Proc(Proc),
    /// A member's `PMIX_GROUP_INFO` contribution (the get was qualified
    /// by the group's `PMIX_GROUP_CONTEXT_ID`).
    Value(Value),
    /// `{grp, r}` with `r` beyond the group (`PMIX_ERR_BAD_PARAM`).
    Error(Status),
}

impl GroupTable {
    fn insert(&self, g: &GroupResult) {
        let gone = self.left_early.lock().remove(&g.id).unwrap_or_default();
        if !g.members.is_empty() {
            let mut g = g.clone();
            g.members.retain(|m| !gone.contains(m));
            self.groups.lock().insert(g.id.clone(), g);
            self.any.store(true, Ordering::Release);
        }
    }

    fn remove(&self, id: &str) {
        self.groups.lock().remove(id);
        self.left_early.lock().remove(id);
    }

    /// The group `id`, as this process knows it.
    pub(crate) fn get(&self, id: &str) -> Option<GroupResult> {
        self.groups.lock().get(id).cloned()
    }

    /// `{grp, r}` as the process it names: `None` if `proc` names no
    /// group this process knows, `PMIX_ERR_BAD_PARAM` for a rank beyond
    /// the group's size.
    pub(crate) fn translate(&self, proc: &Proc) -> Option<Result<Proc, Status>> {
        let groups = self.groups.lock();
        let g = groups.get(std::str::from_utf8(proc.nspace.as_bytes()).ok()?)?;
        if proc.rank == Rank::WILDCARD || proc.rank.0 > Rank::VALID.0 {
            return Some(Err(Status::ERR_BAD_PARAM));
        }
        Some(
            g.members
                .get(proc.rank.0 as usize)
                .cloned()
                .ok_or(Status::ERR_BAD_PARAM),
        )
    }

    /// What `proc` contributed with `PMIX_GROUP_INFO` under `key`, in the
    /// group whose context id is `cid`.
    pub(crate) fn contributed(&self, cid: u64, proc: &Proc, key: &str) -> Option<Value> {
        let groups = self.groups.lock();
        let g = groups.values().find(|g| g.context_id == Some(cid))?;
        let (_, infos) = g.info.iter().find(|(p, _)| p == proc)?;
        crate::info::value_of(infos, key).cloned()
    }

    /// Follows the group events the server pushes.
    pub(crate) fn observe(&self, e: &Event) {
        let Some(id) = group::id_in(&e.infos) else {
            return;
        };
        if e.status == codes::CONSTRUCT_COMPLETE {
            let members = group::membership_in(&e.infos).unwrap_or_default();
            let context_id = group::context_id_in(&e.infos);
            self.any.store(true, Ordering::Release);
            let mut groups = self.groups.lock();
            groups.entry(id.clone()).or_insert(GroupResult {
                context_id,
                members,
                ..GroupResult::empty(&id)
            });
        } else if e.status == codes::LEFT {
            let gone = e.affected();
            match self.groups.lock().get_mut(&id) {
                Some(g) => g.members.retain(|m| !gone.contains(m)),
                None => {
                    let mut early = self.left_early.lock();
                    // Bounded: leaves of groups this process never
                    // records (it is not told of those) stop here.
                    if early.len() < MAX_LEFT_EARLY || early.contains_key(&id) {
                        early.entry(id).or_default().extend(gone);
                    }
                }
            }
        }
    }
}

/// This process's handlers of a group event ended with `status` and
/// `results`: the server hears the verdict on a member's or the leader's
/// failure (a construct waits for it; `PMIX_GROUP_LEADER` among the
/// results of a leader-failed event claims the leadership), and a
/// `PMIX_GROUP_CONSTRUCT_ABORT` verdict on an invitee's answer (which
/// aborts the invitation): the standard lets a handler returning that
/// status abort the construct for every participant.
pub(super) fn verdict(inner: &Inner, e: &Event, status: Status, results: &[Info]) {
    let answers = [
        codes::INVITE_ACCEPTED,
        codes::INVITE_DECLINED,
        codes::INVITE_FAILED,
    ];
    let failures = [codes::MEMBER_FAILED, codes::LEADER_FAILED];
    let wanted = failures.contains(&e.status)
        || (status == codes::CONSTRUCT_ABORT && answers.contains(&e.status));
    if !wanted {
        return;
    }
    let Some(id) = group::id_in(&e.infos) else {
        return;
    };
    let leads = e.status == codes::LEADER_FAILED
        && results.iter().any(|i| {
            i.key.as_bytes() == crate::keys::GROUP_LEADER.as_bytes() && crate::wire::flag(&i.value)
        });
    if let Ok(body) = body::encode_verdict(&id, status, leads) {
        inner.requester.submit(
            crate::wire::Message::Request(crate::wire::Request {
                op: Op::GROUP_VERDICT,
                body,
            }),
            None,
        );
    }
}

/// What a group request's answer is turned into.
#[derive(Clone, Copy)]
enum Expect {
    /// A group result (construct, invite; a join's acceptance).
    Group,
    /// A join: a result, or nothing (declined).
    Join,
    /// Nothing (destruct, leave): the group is forgotten on success.
    Forget,
}

impl Inner {
    /// Makes the group request's response `r` into its result, and keeps
    /// this process's group table in step.
    fn group_answer(
        &self,
        what: Expect,
        id: &str,
        r: Result<Vec<u8>, Status>,
    ) -> Result<GroupResult, Status> {
        let b = r?;
        let g = match what {
            Expect::Join if b.is_empty() => GroupResult::empty(id),
            Expect::Forget => {
                self.groups.remove(id);
                return Ok(GroupResult::empty(id));
            }
            _ => body::decode_result(&b)?,
        };
        self.groups.insert(&g);
        Ok(g)
    }
}

/// How long a blocking group call waits at most for the handlers of the
/// events that came before its answer to start.
const EVENTS_SETTLE: std::time::Duration = std::time::Duration::from_secs(2);

/// The blocking and `_nb` forms of a group call naming procs (construct,
/// invite), sent as `$op`.
macro_rules! members_calls {
    (
        $op:expr;
        $(#[$doc:meta])* $blocking:ident;
        $(#[$doc_nb:meta])* $nb:ident
    ) => {
        $(#[$doc])*
        pub fn $blocking(
            &self,
            id: &str,
            procs: &[Proc],
            directives: &[Info],
        ) -> Result<GroupResult, Status> {
            let req = self.members_request($op, id, procs, directives)?;
            self.group_call($op, Expect::Group, id, req)
        }

        $(#[$doc_nb])*
        pub fn $nb(
            &self,
            id: &str,
            procs: &[Proc],
            directives: &[Info],
            done: GroupCallback,
        ) -> Result<(), Status> {
            let req = self.members_request($op, id, procs, directives)?;
            self.group_call_nb($op, Expect::Group, id, req, done)
        }
    };
}

impl Client {
    /// The checks before a group request: initialized, not a singleton,
    /// a valid id.
    fn group_checks(&self, op: Op, id: &str) -> Result<(), Status> {
        self.inner.check_active()?;
        self.check_reachable(op)?;
        if !body::valid_id(id) {
            return Err(Status::ERR_BAD_PARAM);
        }
        // Group events update the table (see `events`).
        let _ = self.events();
        Ok(())
    }

    /// Sends group request `req` and waits for its answer; the caller's
    /// thread reads it (no hop through the progress thread). The group
    /// events the server sent before the answer (a decliner reported as
    /// failed, the construct's completion or abort) have reached their
    /// first handlers when this returns, as with OpenPMIx.
    fn group_call(
        &self,
        op: Op,
        what: Expect,
        id: &str,
        req: Vec<u8>,
    ) -> Result<GroupResult, Status> {
        let r = self.request(op, req);
        self.events().settle(EVENTS_SETTLE);
        self.inner.group_answer(what, id, r)
    }

    /// Sends group request `req`; `done` gets its answer on the progress
    /// thread.
    fn group_call_nb(
        &self,
        op: Op,
        what: Expect,
        id: &str,
        req: Vec<u8>,
        done: GroupCallback,
    ) -> Result<(), Status> {
        let inner = self.inner.clone();
        let id = id.to_owned();
        self.request_nb(
            op,
            req,
            Box::new(move |r| done(inner.group_answer(what, &id, r))),
        )
    }

    /// The request of a construct or an invite (`op`); an invite names at
    /// least one proc, and no wildcard.
    fn members_request(
        &self,
        op: Op,
        id: &str,
        procs: &[Proc],
        dirs: &[Info],
    ) -> Result<Vec<u8>, Status> {
        self.group_checks(op, id)?;
        let invite = op == Op::GROUP_INVITE;
        if invite && (procs.is_empty() || procs.iter().any(|p| p.rank == Rank::WILDCARD)) {
            return Err(Status::ERR_BAD_PARAM);
        }
        body::encode_construct(id, procs, dirs)
    }

    fn join_request(
        &self,
        id: &str,
        leader: &Proc,
        opt: GroupOpt,
        dirs: &[Info],
    ) -> Result<Vec<u8>, Status> {
        self.group_checks(Op::GROUP_JOIN, id)?;
        if leader.rank == Rank::WILDCARD || leader == &self.inner.proc {
            return Err(Status::ERR_BAD_PARAM);
        }
        body::encode_join(id, leader, opt, dirs)
    }

    fn id_request(&self, op: Op, id: &str, dirs: &[Info]) -> Result<Vec<u8>, Status> {
        self.group_checks(op, id)?;
        body::encode_id(id, dirs)
    }

    /// A request of a member about group `id` after which this process
    /// is no longer in it (`op`: destruct or leave), waited for.
    fn forget_call(&self, op: Op, id: &str, directives: &[Info]) -> Result<(), Status> {
        let req = self.id_request(op, id, directives)?;
        self.group_call(op, Expect::Forget, id, req).map(drop)
    }

    /// [`Self::forget_call`], `done` running on the progress thread.
    fn forget_call_nb(
        &self,
        op: Op,
        id: &str,
        directives: &[Info],
        done: StatusCallback,
    ) -> Result<(), Status> {
        let req = self.id_request(op, id, directives)?;
        self.group_call_nb(op, Expect::Forget, id, req, status_of(done))
    }

    members_calls! {
        Op::GROUP_CONSTRUCT;
        /// `PMIx_Group_construct`: a collective of every process of `procs`
        /// (the leaders; `PMIX_RANK_WILDCARD` for a whole namespace) with
        /// group id `id`; returns the group once every participant called
        /// it. A process added by a leader (`PMIX_GROUP_ADD_MEMBERS`), or a
        /// member of a bootstrap (`pmix.grp.btstrp`), passes no procs.
        group_construct;
        /// `PMIx_Group_construct_nb`: `done` runs on the progress thread.
        group_construct_nb
    }

    /// `PMIx_Group_destruct`: a collective of the group's members; the
    /// group is forgotten once every member called it.
    pub fn group_destruct(&self, id: &str, directives: &[Info]) -> Result<(), Status> {
        self.forget_call(Op::GROUP_DESTRUCT, id, directives)
    }

    /// `PMIx_Group_destruct_nb`: `done` runs on the progress thread.
    pub fn group_destruct_nb(
        &self,
        id: &str,
        directives: &[Info],
        done: StatusCallback,
    ) -> Result<(), Status> {
        self.forget_call_nb(Op::GROUP_DESTRUCT, id, directives, done)
    }

    members_calls! {
        Op::GROUP_INVITE;
        /// `PMIx_Group_invite`: this process (the leader) invites `procs` to
        /// group `id`; returns once every invitee answered (or failed).
        group_invite;
        /// `PMIx_Group_invite_nb`: `done` runs on the progress thread.
        group_invite_nb
    }

    /// `PMIx_Group_join`: answers `leader`'s invitation to group `id`. An
    /// acceptance returns once the group is complete (with its result); a
    /// decline returns at once (with no members).
    pub fn group_join(
        &self,
        id: &str,
        leader: &Proc,
        opt: GroupOpt,
        directives: &[Info],
    ) -> Result<GroupResult, Status> {
        let req = self.join_request(id, leader, opt, directives)?;
        self.group_call(Op::GROUP_JOIN, Expect::Join, id, req)
    }

    /// `PMIx_Group_join_nb`: `done` runs on the progress thread.
    pub fn group_join_nb(
        &self,
        id: &str,
        leader: &Proc,
        opt: GroupOpt,
        directives: &[Info],
        done: GroupCallback,
    ) -> Result<(), Status> {
        let req = self.join_request(id, leader, opt, directives)?;
        self.group_call_nb(Op::GROUP_JOIN, Expect::Join, id, req, done)
    }

    /// `PMIx_Group_leave`: this process leaves group `id`; returns once
    /// the other members were told (`PMIX_GROUP_LEFT`).
    pub fn group_leave(&self, id: &str, directives: &[Info]) -> Result<(), Status> {
        self.forget_call(Op::GROUP_LEAVE, id, directives)
    }

    /// `PMIx_Group_leave_nb`: `done` runs on the progress thread.
    pub fn group_leave_nb(
        &self,
        id: &str,
        directives: &[Info],
        done: StatusCallback,
    ) -> Result<(), Status> {
        self.forget_call_nb(Op::GROUP_LEAVE, id, directives, done)
    }

    /// What a get of `key` about `proc` with `qualifiers` comes to, given
    /// the groups this process belongs to: `{grp, r}` is member `r` of
    /// group `grp`; a get qualified by `PMIX_GROUP_CONTEXT_ID` reads what
    /// the process contributed to that group with `PMIX_GROUP_INFO`.
    pub fn group_member(&self, proc: &Proc, key: &str, qualifiers: &[Info]) -> GroupTarget {
        let t = &self.inner.groups;
        if !t.any.load(Ordering::Acquire) {
            return GroupTarget::NotAGroup;
        }
        let proc = match t.translate(proc) {
            None => proc.clone(),
            Some(Ok(p)) => p,
            Some(Err(s)) => return GroupTarget::Error(s),
        };
        let cid = group::context_id_in(qualifiers);
        if let Some(v) = cid.and_then(|c| t.contributed(c, &proc, key)) {
            return GroupTarget::Value(v);
        }
        GroupTarget::Proc(proc)
    }

    /// True once this process belongs, or belonged, to a group (a get's
    /// target may then be a group id).
    pub fn has_groups(&self) -> bool {
        self.inner.groups.any.load(Ordering::Acquire)
    }

    /// The group `id` as this process knows it (a member only).
    pub fn group(&self, id: &str) -> Option<GroupResult> {
        self.inner.groups.get(id)
    }
}

/// A status callback as a group callback (destruct, leave).
fn status_of(done: StatusCallback) -> GroupCallback {
    Box::new(move |r| done(r.map_or_else(|s| s, |_| Status::SUCCESS)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{Event, Range};
    use crate::{keys, Nspace};

    fn p(r: u32) -> Proc {
        Proc::new(Nspace::new("job").unwrap(), Rank(r))
    }

    fn left(id: &str, who: Proc) -> Event {
        Event {
            status: codes::LEFT,
            source: p(9),
            range: Range::SESSION,
            infos: vec![
                Info::new(keys::GROUP_ID.try_into().unwrap(), Value::string(id)),
                Info::new(
                    keys::EVENT_AFFECTED_PROC.try_into().unwrap(),
                    Value::Proc(who),
                ),
            ],
        }
    }

    fn group(id: &str, n: u32) -> GroupResult {
        GroupResult {
            members: (0..n).map(p).collect(),
            ..GroupResult::empty(id)
        }
    }

    /// The race of a leave told between a construct's answer and the
    /// caller recording it: the recorded group still loses the leaver.
    #[test]
    fn a_leave_told_before_the_group_is_recorded_still_counts() {
        let t = GroupTable::default();
        t.observe(&left("lv", p(2)));
        t.insert(&group("lv", 3));
        assert_eq!(t.get("lv").unwrap().members, [p(0), p(1)]);
        // Taken once: the same id recorded again keeps its members.
        t.remove("lv");
        t.insert(&group("lv", 3));
        assert_eq!(t.get("lv").unwrap().members.len(), 3);
        // Told after recording, as before.
        t.observe(&left("lv", p(0)));
        assert_eq!(t.get("lv").unwrap().members, [p(1), p(2)]);
        // A destruct forgets early leaves too.
        t.observe(&left("other", p(1)));
        t.remove("other");
        t.insert(&group("other", 2));
        assert_eq!(t.get("other").unwrap().members.len(), 2);
    }
}
