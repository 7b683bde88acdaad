//! Group membership outside collectives: `PMIx_Group_invite`,
//! `PMIx_Group_join` and `PMIx_Group_leave` on the server.
//!
//! An invitation lives on the server of its leader (see [`Groups`]). The
//! invitees get `PMIX_GROUP_INVITED` (source: the leader, `PMIX_GROUP_ID`,
//! non-default); each answers with a join, which the leader hears of as
//! `PMIX_GROUP_INVITE_ACCEPTED` or `_DECLINED` (`PMIX_EVENT_AFFECTED_PROC`:
//! the invitee). An invitee that departs unanswered, or has not answered
//! by the leader's `PMIX_TIMEOUT`, has failed: the leader gets
//! `PMIX_GROUP_INVITE_FAILED`. Once every invitee answered:
//! - if all accepted, or `PMIX_GROUP_OPTIONAL` was given, the group is the
//!   leader and the accepters (a context id from the host's `group` when
//!   `PMIX_GROUP_ASSIGN_CONTEXT_ID` was given); the leader's invite and
//!   every accepter's join return it with `PMIX_SUCCESS`, also when
//!   someone declined or failed (as OpenPMIx; the membership says who is
//!   in), the leader gets `PMIX_GROUP_INVITE_FAILED` for each decliner
//!   too (as OpenPMIx master), and every member gets
//!   `PMIX_GROUP_CONSTRUCT_COMPLETE` (`PMIX_GROUP_ID`,
//!   `PMIX_GROUP_MEMBERSHIP`, `PMIX_GROUP_CONTEXT_ID`);
//! - otherwise it is aborted: the invite returns
//!   `PMIX_GROUP_CONSTRUCT_ABORT`, so does every accepter's join, and every
//!   invitee and the leader get the `PMIX_GROUP_CONSTRUCT_ABORT` event.
//!
//! The events of a completion or an abort are sent before the answers, so
//! that the leader's and members' handlers have run by the time their
//! calls return (as OpenPMIx's single progress thread orders them). A leader that
//!   departs aborts its invitations the same way.
//!
//! A leave removes the caller from the group and returns once the other
//! members were sent `PMIX_GROUP_LEFT` (`PMIX_EVENT_AFFECTED_PROC`: the
//! leaver, `PMIX_GROUP_ID`) and `PMIX_GROUP_MEMBERSHIP_UPDATE`
//! (`PMIX_GROUP_MEMBERSHIP`: the remaining members). Every server of the
//! group shrinks its record when it learns of the leave (here, or through
//! the host's `PMIX_GROUP_LEFT`), and so do the fences and connects over
//! the whole group gathering there (see `Collectives::member_left`).
//!
//! A client that notifies `PMIX_GROUP_CONSTRUCT_ABORT` for a group (as
//! the client library does when a handler of a member's failure or of an
//! invitee's answer returns that status) aborts the invitation it leads
//! and the group's constructs in progress on this server.
//!
//! Invariant: the leader's invite and every accepter's join are answered
//! exactly once, by the invitation's completion or abort; a decline is
//! answered at once.
//!
//! [`Groups`]: super::room::Groups

use super::collective::{group_call, host_directives, is_nspace_name, member_request};
use super::room::{Group, Invite};
use crate::group::{self, events as codes, GroupOp, GroupOpt, GroupResult};
use crate::server::clients::connections::Caller;
use crate::server::collective::{self, Kind};
use crate::server::events::{event_infos, raise, raise_from_server};
use crate::server::host::{take_result, OpResult};
use crate::server::ops::PendingOp;
use crate::server::state::State;
use crate::wire::group as body;
use crate::{keys, Info, Proc, Rank, Status, Value};

/// An `Op::GROUP_INVITE` request from the leader `proc`.
pub(in crate::server) fn invite(st: &mut State, caller: Caller, proc: &Proc, req: &[u8]) {
    let (id, procs, infos) = match body::decode_construct(req) {
        Ok(x) => x,
        Err(s) => return st.respond(caller, Err(s)),
    };
    if st.groups().in_use(&id) || is_nspace_name(st, &id) {
        return st.respond(caller, Err(Status::ERR_EXISTS));
    }
    let mut invitees: Vec<Proc> = procs.into_iter().filter(|p| p != proc).collect();
    invitees.sort();
    invitees.dedup();
    if invitees.is_empty() || invitees.iter().any(|p| p.rank.0 > Rank::VALID.0) {
        return st.respond(caller, Err(Status::ERR_BAD_PARAM));
    }
    let g = group_call(id.clone(), &infos, true);
    let invite = Invite::new(
        id.clone(),
        proc.clone(),
        caller,
        invitees.clone(),
        g.flags,
        infos,
        g.info,
    );
    let n = st.start_invite(invite);
    let mut ev = event_infos(&id, None);
    ev.extend(Info::keyed(keys::EVENT_NON_DEFAULT, Value::Bool(true)));
    raise(st, codes::INVITED, proc, &invitees, ev);
    // Invitees already gone have failed.
    let gone: Vec<Proc> = invitees
        .into_iter()
        .filter(|p| st.conns().departed(p))
        .collect();
    for p in gone {
        fail_invitee(st, n, &p);
    }
    maybe_complete(st, n);
}

/// An `Op::GROUP_JOIN` request from the invitee `proc`.
pub(in crate::server) fn join(st: &mut State, caller: Caller, proc: &Proc, req: &[u8]) {
    let (id, leader, opt, infos) = match body::decode_join(req) {
        Ok(x) => x,
        Err(s) => return st.respond(caller, Err(s)),
    };
    let Some(n) = st.groups().invite_of(&id, &leader) else {
        return join_remote(st, caller, proc, &id, &leader, opt);
    };
    let Some(inv) = st.groups_mut().invite_mut(n) else {
        return;
    };
    if !inv.awaits(proc) {
        return st.respond(caller, Err(Status::ERR_BAD_PARAM));
    }
    let code = match opt {
        GroupOpt::Accept => {
            let mine = group_call(id.clone(), &infos, true).info;
            inv.accept(proc, Some(caller), mine);
            codes::INVITE_ACCEPTED
        }
        GroupOpt::Decline => {
            inv.decline(proc);
            st.respond(caller, Ok(Vec::new()));
            codes::INVITE_DECLINED
        }
    };
    raise(st, code, proc, &[leader], event_infos(&id, Some(proc)));
    maybe_complete(st, n);
}

/// `proc` answers an invitation this server does not hold: a remote
/// leader's, whose server hears of the answer through the host (the event
/// the leader gets anyway), or a local stock leader's, whose library
/// counts the answers itself; an acceptance then waits for the group's
/// completion or abort to come back the same way (or, from a stock
/// leader, as its notification: see [`notified`]).
fn join_remote(
    st: &mut State,
    caller: Caller,
    proc: &Proc,
    id: &str,
    leader: &Proc,
    opt: GroupOpt,
) {
    if !is_stock(st, leader) && (st.registry().is_local(leader) || st.host().fences_are_local()) {
        return st.respond(caller, Err(Status::ERR_NOT_FOUND));
    }
    let code = match opt {
        GroupOpt::Accept => {
            st.groups_mut().await_remote(id, proc, caller);
            codes::INVITE_ACCEPTED
        }
        GroupOpt::Decline => {
            st.respond(caller, Ok(Vec::new()));
            codes::INVITE_DECLINED
        }
    };
    raise(
        st,
        code,
        proc,
        std::slice::from_ref(leader),
        event_infos(id, Some(proc)),
    );
}

/// An event from the host (another node's, or this node's own coming
/// back): what it says about the invitations and groups here. A remote
/// invitee's answer or loss counts for the invitation it was sent; a
/// remote invitation's completion or abort answers the local acceptances
/// waiting for it (and records the group); a member's leave shrinks the
/// group. This node's own events are already accounted for.
pub(in crate::server) fn from_host(st: &mut State, e: &crate::events::Event) {
    let id = group::id_in(&e.infos);
    let local_source = st.registry().is_local(&e.source) || &e.source == st.server_proc();
    let lost = [
        Status::ERR_LOST_CONNECTION,
        crate::events::codes::ERR_PROC_ABORTED,
        crate::events::codes::ERR_PROC_TERM_WO_SYNC,
    ];
    if lost.contains(&e.status) {
        let mut gone = e.affected();
        gone.push(e.source.clone());
        let registry = st.registry().clone();
        gone.retain(|p| !registry.is_local(p));
        for p in &gone {
            for n in st.groups().invites_involving(p) {
                fail_invitee(st, n, p);
                maybe_complete(st, n);
            }
        }
        return;
    }
    let Some(id) = id else { return };
    if local_source {
        return;
    }
    match e.status {
        s if s == codes::INVITE_ACCEPTED || s == codes::INVITE_DECLINED => {
            let Some(n) = st.groups().invite_for(&id, &e.source) else {
                return;
            };
            let Some(inv) = st.groups_mut().invite_mut(n) else {
                return;
            };
            if !inv.awaits(&e.source) {
                return;
            }
            if s == codes::INVITE_ACCEPTED {
                inv.accept(&e.source, None, Vec::new());
            } else {
                inv.decline(&e.source);
            }
            maybe_complete(st, n);
        }
        s if s == codes::CONSTRUCT_COMPLETE => {
            let members = group::membership_in(&e.infos).unwrap_or_default();
            held_elsewhere_completed(st, &id, e, members);
        }
        s if s == codes::CONSTRUCT_ABORT => held_elsewhere_aborted(st, &id),
        s if s == codes::LEFT => {
            for p in e.affected() {
                member_left(st, &id, &p);
            }
        }
        _ => {}
    }
}

/// Invitation `id`, held by another server or by a stock leader's own
/// library, completed with `members` (the event `e` said so): the local
/// acceptances waiting for it are answered and the group recorded.
fn held_elsewhere_completed(
    st: &mut State,
    id: &str,
    e: &crate::events::Event,
    members: Vec<Proc>,
) {
    let context_id = group::context_id_in(&e.infos);
    let joins = st.groups_mut().take_remote(id);
    if joins.is_empty() || members.is_empty() {
        return;
    }
    st.groups_mut().insert(
        id,
        Group::new(members.clone(), false, Some(e.source.clone())),
    );
    let result = GroupResult {
        context_id,
        members: members.clone(),
        ..GroupResult::empty(id)
    };
    let r = body::encode_result(&result);
    for j in joins {
        let r = if members.contains(&j.proc) {
            r.clone()
        } else {
            Err(codes::CONSTRUCT_ABORT)
        };
        st.respond(j.caller, r);
    }
}

/// Invitation `id`, held elsewhere, was aborted: so are the local
/// acceptances waiting for it.
fn held_elsewhere_aborted(st: &mut State, id: &str) {
    for j in st.groups_mut().take_remote(id) {
        st.respond(j.caller, Err(codes::CONSTRUCT_ABORT));
    }
}

/// True if `proc` is a local process on OpenPMIx's own library (the stock
/// door): its invitations live in its library, not on this server.
fn is_stock(st: &State, proc: &Proc) -> bool {
    st.conns()
        .token_of(proc)
        .is_some_and(|t| st.conns().is_stock(t))
}

/// Invitee `p` of invitation `n` failed (departed or silent): the leader
/// hears of it.
fn fail_invitee(st: &mut State, n: u64, p: &Proc) {
    let Some(inv) = st.groups_mut().invite_mut(n) else {
        return;
    };
    if !inv.fail(p) {
        return;
    }
    let (leader, id) = (inv.leader().clone(), inv.id().to_owned());
    raise_from_server(
        st,
        codes::INVITE_FAILED,
        &[leader],
        event_infos(&id, Some(p)),
    );
}

/// Completes or aborts invitation `n` once every invitee answered.
fn maybe_complete(st: &mut State, n: u64) {
    let Some(inv) = st.answered_invite(n) else {
        return;
    };
    if !inv.all_accepted() && !inv.flags().optional {
        return abort(st, n, codes::CONSTRUCT_ABORT);
    }
    if !inv.flags().assign_cid {
        return complete(st, n, Vec::new());
    }
    let (id, members) = (inv.id().to_owned(), inv.members());
    let directives = host_directives(inv.directives());
    let (op, r) = st.upcall::<Vec<Info>>(PendingOp::GroupInvite(n), |h, done| {
        h.group(GroupOp::Construct, &id, &members, &directives, done)
    });
    match r {
        Ok(()) => {
            if let Some(inv) = st.groups_mut().invite_mut(n) {
                inv.sent_to_host(op);
            }
        }
        Err(s) if s == Status::OPERATION_SUCCEEDED => complete(st, n, Vec::new()),
        Err(s) => abort(st, n, s),
    }
}

/// The host answered invitation `n`'s context-id request.
pub(in crate::server) fn host_done(st: &mut State, n: u64, result: OpResult) {
    match take_result::<Vec<Info>>(result) {
        Ok(infos) => complete(st, n, infos),
        Err(s) => abort(st, n, s),
    }
}

/// Invitation `n` completed: records the group and answers the leader and
/// the accepters.
fn complete(st: &mut State, n: u64, host: Vec<Info>) {
    let Some(inv) = st.take_invite(n) else {
        return;
    };
    let members = inv.members();
    let (id, leader) = (inv.id().to_owned(), inv.leader().clone());
    let context_id = group::context_id_in(&host);
    // Each decliner is reported to the leader as failed too, before its
    // invite returns, as OpenPMIx master does (those that failed otherwise
    // were reported when they did).
    for p in inv.decliners() {
        raise_from_server(
            st,
            codes::INVITE_FAILED,
            std::slice::from_ref(&leader),
            event_infos(&id, Some(&p)),
        );
    }
    st.groups_mut().insert(
        &id,
        Group::new(
            members.clone(),
            inv.flags().notify_termination,
            Some(leader.clone()),
        ),
    );
    let mut ev = event_infos(&id, None);
    ev.extend(Info::keyed(
        keys::GROUP_MEMBERSHIP,
        Value::proc_array(&members),
    ));
    if let Some(c) = context_id {
        ev.extend(Info::keyed(keys::GROUP_CONTEXT_ID, Value::Size(c as usize)));
    }
    raise(st, codes::CONSTRUCT_COMPLETE, &leader, &members, ev);
    // The events go out before the answers, so that a handler has run by
    // the time the call it is about returns.
    // Success for everyone, the leader too, as OpenPMIx's: who declined
    // or failed is in the leader's events, who is in, in the membership.
    let ended = inv.end();
    let result = GroupResult {
        status: Status::SUCCESS,
        id,
        context_id,
        members: members.clone(),
        info: ended.contributed,
    };
    let r = body::encode_result(&result);
    st.respond(ended.caller, r.clone());
    for caller in ended.accepters {
        st.respond(caller, r.clone());
    }
}

/// Invitation `n` is aborted with `status` (for the leader; the accepters'
/// joins and the event say `PMIX_GROUP_CONSTRUCT_ABORT`).
fn abort(st: &mut State, n: u64, status: Status) {
    let Some(inv) = st.take_invite(n) else {
        return;
    };
    if let Some(op) = inv.host_op() {
        st.forget_op(op);
    }
    // Every invited participant hears of it, the leader too (it is a
    // member of the group it tried to form), as OpenPMIx master does.
    let mut targets = inv.invitees().to_vec();
    targets.push(inv.leader().clone());
    raise(
        st,
        codes::CONSTRUCT_ABORT,
        inv.leader(),
        &targets,
        event_infos(inv.id(), None),
    );
    // The events go out before the answers, as in `complete`.
    let ended = inv.end();
    st.respond(ended.caller, Err(status));
    for caller in ended.accepters {
        st.respond(caller, Err(codes::CONSTRUCT_ABORT));
    }
}

/// Invitation `n`'s deadline passed: whoever has not answered failed.
pub(in crate::server) fn timed_out(st: &mut State, n: u64) {
    for p in st.groups_mut().invite_timed_out(n) {
        fail_invitee(st, n, &p);
    }
    maybe_complete(st, n);
}

/// `proc` departed: the invitations it leads abort, those it was invited
/// to count it as failed.
pub(in crate::server) fn departed(st: &mut State, proc: &Proc) {
    st.groups_mut().forget_remote_joins_of(proc);
    for n in st.groups().invites_involving(proc) {
        let leads = st
            .groups_mut()
            .invite_mut(n)
            .is_some_and(|inv| inv.leader() == proc);
        if leads {
            abort(st, n, codes::CONSTRUCT_ABORT);
        } else {
            fail_invitee(st, n, proc);
            maybe_complete(st, n);
        }
    }
}

/// An `Op::GROUP_VERDICT` from `proc` (one-way: no answer): its handlers
/// of an event about a group ended with that status (and maybe claimed
/// the leadership). An abort ends the invitation it leads; the group's
/// constructs and the group itself hear of any verdict (see
/// `groups::collective::verdict`).
pub(in crate::server) fn verdict(st: &mut State, proc: &Proc, req: &[u8]) {
    let Ok((id, status, leads)) = body::decode_verdict(req) else {
        return;
    };
    if status == codes::CONSTRUCT_ABORT {
        if let Some(n) = st.groups().invite_of(&id, proc) {
            abort(st, n, codes::CONSTRUCT_ABORT);
        }
    }
    super::collective::verdict(st, proc, &id, status, leads);
}

/// What a local client's notification says about groups here; the event
/// itself then goes on as any other.
/// - `PMIX_GROUP_CONSTRUCT_ABORT` for a group (a handler's verdict, or
///   its own decision): the invitation it leads and the constructs of
///   that id in progress here are aborted for every participant.
/// - `PMIX_GROUP_INVITE_ACCEPTED` or `_DECLINED`: how an OpenPMIx library
///   joins (it notifies the leader, `PMIX_EVENT_CUSTOM_RANGE`, without
///   the group's id, and does not wait for the group): it answers the
///   invitations here that await `proc` from that leader (or the one with
///   that id, when named), as our clients' `GROUP_JOIN` does, with no
///   call to answer at the end.
pub(in crate::server) fn notified(st: &mut State, proc: &Proc, body: &[u8]) {
    let Ok(e) = crate::events::decode_event(body) else {
        return;
    };
    if e.status == codes::INVITE_ACCEPTED || e.status == codes::INVITE_DECLINED {
        return notified_answer(st, proc, &e);
    }
    if is_stock(st, proc) {
        // A stock leader's library announces the end of its invitation.
        let Some(id) = group::id_in(&e.infos) else {
            return;
        };
        if e.status == codes::CONSTRUCT_COMPLETE {
            let mut members = group::membership_in(&e.infos).unwrap_or_else(|| e.custom_range());
            if !members.contains(proc) {
                members.insert(0, proc.clone());
            }
            held_elsewhere_completed(st, &id, &e, members);
        } else if e.status == codes::CONSTRUCT_ABORT {
            held_elsewhere_aborted(st, &id);
        }
    }
    if e.status != codes::CONSTRUCT_ABORT {
        return;
    }
    let Some(id) = group::id_in(&e.infos) else {
        return;
    };
    if let Some(n) = st.groups().invite_of(&id, proc) {
        abort(st, n, codes::CONSTRUCT_ABORT);
    }
    for cid in st.collectives().of_group(Kind::GroupConstruct, &id) {
        collective::failed(st, cid, codes::CONSTRUCT_ABORT);
    }
}

/// A notified answer to invitations (see [`notified`]).
fn notified_answer(st: &mut State, proc: &Proc, e: &crate::events::Event) {
    let id = group::id_in(&e.infos);
    let pending = st
        .groups()
        .awaiting_answer(proc, id.as_deref(), &e.custom_range());
    for n in pending {
        let Some(inv) = st.groups_mut().invite_mut(n) else {
            continue;
        };
        if e.status == codes::INVITE_ACCEPTED {
            inv.accept(proc, None, Vec::new());
        } else {
            inv.decline(proc);
        }
        maybe_complete(st, n);
    }
}

/// An `Op::GROUP_LEAVE` request from `proc`.
pub(in crate::server) fn leave(st: &mut State, caller: Caller, proc: &Proc, req: &[u8]) {
    let (id, _infos, _) = match member_request(st, proc, req) {
        Ok(x) => x,
        Err(s) => return st.respond(caller, Err(s)),
    };
    if st.collectives().group_busy(&id) {
        // A destruct is gathering: leaving now would strand it.
        return st.respond(caller, Err(Status::ERR_RESOURCE_BUSY));
    }
    member_left(st, &id, proc);
    let remaining: Vec<Proc> = st
        .groups()
        .get(&id)
        .map(|g| g.members().to_vec())
        .unwrap_or_default();
    if remaining.is_empty() {
        st.groups_mut().remove(&id);
    } else {
        raise(
            st,
            codes::LEFT,
            proc,
            &remaining,
            event_infos(&id, Some(proc)),
        );
        let mut update = event_infos(&id, None);
        update.extend(Info::keyed(
            keys::GROUP_MEMBERSHIP,
            Value::proc_array(&remaining),
        ));
        raise_from_server(st, codes::MEMBERSHIP_UPDATE, &remaining, update);
    }
    st.respond(caller, Ok(Vec::new()));
}

/// `proc` is no longer a member of group `id` (it left, here or on
/// another node): the group shrinks, and so do the fences and connects
/// gathering over the whole group, which then may complete without it.
fn member_left(st: &mut State, id: &str, proc: &Proc) {
    if !st.groups_mut().remove_member(id, proc) {
        return;
    }
    for cid in st.collectives_mut().member_left(id, proc) {
        collective::start_any(st, cid);
    }
}
