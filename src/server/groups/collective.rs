//! `PMIx_Group_construct` and `PMIx_Group_destruct` on the server: group
//! collectives on the collective engine ([`Kind::GroupConstruct`],
//! [`Kind::GroupDestruct`], keyed by the group id), what a departed member
//! does to them and to the groups that exist, and the group events.
//!
//! Once every local participant arrived (see the engine's module doc for
//! leaders, added members and bootstraps) the server either completes the
//! collective itself or hands it to the host's `group` once for this node:
//! - itself when no context id is asked for and the group cannot span
//!   nodes: `PMIX_GROUP_LOCAL_ONLY`, a host that leaves collectives to the
//!   server (`fences_are_local`), or members all local; also when the
//!   host has no `group` and the members are all local;
//! - through the host otherwise, with the sorted membership, the first
//!   caller's directives (less `PMIX_TIMEOUT`: the server keeps that one)
//!   plus `PMIX_SORTED_PROC_ARRAY`, `PMIX_LOCAL_COLLECTIVE_STATUS` and this
//!   server's `PMIX_GROUP_ENDPT_DATA`. The host's answer brings the
//!   context id, every server's endpoint data (the posted data of remote
//!   members is kept for direct modex, their `PMIX_GROUP_INFO` goes to
//!   every member) and possibly the membership.
//!
//! A member that departs before contributing fails the construct with
//! `PMIX_GROUP_CONSTRUCT_ABORT`, unless the group tolerates it
//! (`PMIX_GROUP_OPTIONAL` or `PMIX_GROUP_FT_COLLECTIVE`): then it is
//! dropped and the result is `PMIX_ERR_PARTIAL_SUCCESS` with the reduced
//! membership. With `PMIX_GROUP_NOTIFY_TERMINATION` its leader
//! (`PMIX_GROUP_LEADER`), else every participant that arrived, first gets
//! `PMIX_GROUP_MEMBER_FAILED`; a handler of it that returns
//! `PMIX_GROUP_CONSTRUCT_ABORT` aborts the construct for everyone (see
//! `groups::members::notified`). A member that contributed and then
//! departs does not change the construct. A group member lost
//! later is marked failed; with `PMIX_GROUP_NOTIFY_TERMINATION` the other
//! members get the event and the destruct does not wait for it, else the
//! destruct fails with `PMIX_ERR_LOST_CONNECTION`.
//!
//! Invariant: every participant is answered once (the engine's); a group
//! is recorded by the completion of its construct and forgotten by the
//! completion of its destruct.

use super::room::Group as GroupRecord;
use crate::group::{events as codes, GroupOp, GroupResult};
use crate::server::clients::connections::Caller;
use crate::server::collective::{
    self, Call, GroupCall, GroupFlags, HostCall, Kind, Outcome, Plan, Rules,
};
use crate::server::events::{event_infos, raise_from_server};
use crate::server::state::State;
use crate::wire::group::{self as body, Endpoint};
use crate::wire::{flag, int, Directives};
use crate::{keys, Info, Proc, Status, Value};

/// The group directives of a participant's call.
pub(in crate::server) fn group_call(id: String, infos: &[Info], solo: bool) -> GroupCall {
    let mut g = GroupCall {
        id,
        solo,
        ..Default::default()
    };
    // attrs begin: PMIx_Group_construct PMIx_Group_construct_nb PMIx_Group_invite PMIx_Group_invite_nb
    for i in infos {
        let k = i.key.as_bytes();
        let is = |s: &str| k == s.as_bytes();
        if is(keys::GROUP_OPTIONAL) {
            g.flags.optional = flag(&i.value);
        } else if is(keys::GROUP_FT_COLLECTIVE) {
            g.flags.ft = flag(&i.value);
        } else if is(keys::GROUP_NOTIFY_TERMINATION) {
            g.flags.notify_termination = flag(&i.value);
        } else if is(keys::GROUP_ASSIGN_CONTEXT_ID) {
            g.flags.assign_cid = flag(&i.value);
        } else if is(keys::GROUP_LOCAL_ONLY) {
            g.flags.local_only = flag(&i.value);
        } else if is(keys::GROUP_LEADER) {
            g.leader_flag = flag(&i.value);
        } else if is(keys::GROUP_BOOTSTRAP) {
            g.bootstrap = int(&i.value).filter(|&n| n > 0).map(|n| n as usize);
        } else if is(keys::GROUP_ADD_MEMBERS) {
            g.add = i.value.procs().unwrap_or_default();
        } else if is(keys::GROUP_INFO) {
            g.info = info_array(&i.value);
        }
    }
    // attrs end
    g
}

/// The infos of a data array of infos (or of one info).
fn info_array(v: &Value) -> Vec<Info> {
    match v {
        Value::Info(i) => vec![(**i).clone()],
        _ => v.infos().unwrap_or_default(),
    }
}

/// Sorted and without duplicates (an empty set stays empty: an added
/// member).
fn sorted(mut procs: Vec<Proc>) -> Vec<Proc> {
    procs.sort();
    procs.dedup();
    procs
}

/// An `Op::GROUP_CONSTRUCT` request from `proc`.
pub(in crate::server) fn construct(st: &mut State, caller: Caller, proc: &Proc, req: &[u8]) {
    let (id, procs, infos) = match body::decode_construct(req) {
        Ok(x) => x,
        Err(s) => return st.respond(caller, Err(s)),
    };
    if st.groups().in_use(&id) || is_nspace_name(st, &id) {
        return st.respond(caller, Err(Status::ERR_EXISTS));
    }
    let solo = st.host().fences_are_local();
    let d = Directives::parse_for(&infos, crate::wire::directives::TIMEOUT_ONLY);
    let group = group_call(id, &infos, solo);
    if procs.is_empty() && group.bootstrap.is_some() {
        return st.respond(caller, Err(Status::ERR_BAD_PARAM));
    }
    let call = Call {
        kind: Kind::GroupConstruct,
        procs: sorted(procs),
        collect: false,
        deadline: d.deadline(),
        infos,
        group: Some(group),
        groups: Vec::new(),
    };
    collective::enter(st, caller, proc, call, &Group);
}

/// A request about an existing group from one of its members (destruct,
/// leave): its id, directives and the group; `PMIX_ERR_NOT_FOUND` for an
/// unknown group, `PMIX_ERR_BAD_PARAM` for a non-member.
pub(in crate::server) fn member_request(
    st: &State,
    proc: &Proc,
    req: &[u8],
) -> Result<(String, Vec<Info>, GroupRecord), Status> {
    let (id, infos) = body::decode_id(req)?;
    let g = st.groups().get(&id).ok_or(Status::ERR_NOT_FOUND)?;
    if !g.has_member(proc) {
        return Err(Status::ERR_BAD_PARAM);
    }
    let g = g.clone();
    Ok((id, infos, g))
}

/// An `Op::GROUP_DESTRUCT` request from `proc`.
pub(in crate::server) fn destruct(st: &mut State, caller: Caller, proc: &Proc, req: &[u8]) {
    let (id, infos, g) = match member_request(st, proc, req) {
        Ok(x) => x,
        Err(s) => return st.respond(caller, Err(s)),
    };
    let members = g.members().to_vec();
    let flags = GroupFlags {
        ft: g.notify_termination(),
        ..Default::default()
    };
    let d = Directives::parse_for(&infos, crate::wire::directives::TIMEOUT_ONLY);
    let call = Call {
        kind: Kind::GroupDestruct,
        procs: members,
        collect: false,
        deadline: d.deadline(),
        infos,
        group: Some(GroupCall {
            id,
            flags,
            solo: st.host().fences_are_local(),
            ..Default::default()
        }),
        groups: Vec::new(),
    };
    collective::enter(st, caller, proc, call, &Group);
}

pub(in crate::server) fn is_nspace_name(st: &State, id: &str) -> bool {
    crate::Nspace::new(id).is_ok_and(|ns| st.registry().nspace(&ns).is_some())
}

/// The membership of group collective `cid` as this server knows it:
/// named members (wildcards expanded) less the dropped, sorted.
fn membership(st: &State, cid: u64) -> Vec<Proc> {
    let Some(c) = st.collectives().get(cid) else {
        return Vec::new();
    };
    let Some(g) = c.group() else {
        return Vec::new();
    };
    let named: Vec<Proc> = g.named().iter().cloned().collect();
    let mut m = st.registry().expand(&named);
    m.retain(|p| !g.dropped().contains(p));
    m
}

/// Group construct's and destruct's rules on the collective engine.
pub(in crate::server) struct Group;

impl Rules for Group {
    /// Completes here, or hands the group to the host (see the module
    /// doc); a group that needs a context id never completes here.
    fn host_call(&self, st: &mut State, cid: u64) -> Result<Plan, Status> {
        let c = st.collectives().get(cid).ok_or(Status::ERROR)?;
        let g = c.group().ok_or(Status::ERROR)?;
        let (kind, id, flags) = (c.kind(), g.id().to_owned(), g.flags());
        let members = membership(st, cid);
        let all_local = st.registry().all_local(&members);
        let need_cid = kind == Kind::GroupConstruct && flags.assign_cid;
        let alone = flags.local_only || st.host().fences_are_local() || all_local;
        if alone && !need_cid {
            return Ok(Plan::Here);
        }
        let mut infos = host_directives(c.infos());
        let op = if kind == Kind::GroupConstruct {
            let eps = body::encode_endpoints(&endpoints(st, cid))?;
            infos.extend(Info::keyed(keys::GROUP_ENDPT_DATA, Value::ByteObject(eps)));
            GroupOp::Construct
        } else {
            GroupOp::Destruct
        };
        Ok(Plan::Host {
            call: HostCall::Group {
                op,
                id,
                procs: members,
                infos,
            },
            local: all_local && !need_cid,
        })
    }

    fn succeeded(&self, st: &mut State, cid: u64, out: Outcome) {
        finished(st, cid, out.infos());
    }
}

/// What the host's `group` gets besides the members: the caller's
/// directives less `PMIX_TIMEOUT` (the server keeps that one), plus
/// `PMIX_SORTED_PROC_ARRAY` and a successful `PMIX_LOCAL_COLLECTIVE_STATUS`.
pub(in crate::server) fn host_directives(infos: &[Info]) -> Vec<Info> {
    let mut out: Vec<Info> = infos
        .iter()
        .filter(|i| i.key.as_bytes() != keys::TIMEOUT.as_bytes())
        .cloned()
        .collect();
    out.extend(Info::keyed(keys::SORTED_PROC_ARRAY, Value::Bool(true)));
    out.extend(Info::keyed(
        keys::LOCAL_COLLECTIVE_STATUS,
        Value::Status(Status::SUCCESS.code()),
    ));
    out
}

/// This server's participants' endpoint data: their posted remote data
/// and `PMIX_GROUP_INFO` contributions.
fn endpoints(st: &State, cid: u64) -> Vec<Endpoint> {
    let Some(c) = st.collectives().get(cid) else {
        return Vec::new();
    };
    let info = c.group().map(|g| g.info()).unwrap_or(&[]);
    c.participants()
        .map(|p| Endpoint {
            proc: p.clone(),
            record: st
                .modex()
                .record(p, pmix_shmem::Scopes::REMOTE_PEER)
                .and_then(Result::ok)
                .unwrap_or_default(),
            info: info
                .iter()
                .find(|(q, _)| q == p)
                .map(|(_, i)| i.clone())
                .unwrap_or_default(),
        })
        .collect()
}

/// Group collective `cid` completed, with the host's `infos` (none when
/// the server completed it): records or forgets the group and answers
/// every participant.
fn finished(st: &mut State, cid: u64, infos: Vec<Info>) {
    let mut members = membership(st, cid);
    let Some(c) = st.finish_collective(cid) else {
        return;
    };
    let Some(g) = c.group() else {
        return;
    };
    if c.kind() == Kind::GroupDestruct {
        st.groups_mut().remove(g.id());
        for caller in c.callers() {
            st.respond(caller, Ok(Vec::new()));
        }
        return;
    }
    let context_id = crate::group::context_id_in(&infos);
    if let Some(m) = crate::group::membership_in(&infos).filter(|m| !m.is_empty()) {
        members = st.registry().expand(&m);
    }
    let mut contributed = g.info().to_vec();
    let endpoints = infos
        .iter()
        .filter(|i| i.key.as_bytes() == keys::GROUP_ENDPT_DATA.as_bytes());
    for i in endpoints {
        // Another server's endpoint data: checked, then kept.
        let Value::ByteObject(b) = &i.value else {
            continue;
        };
        let Ok(eps) = body::decode_endpoints(b) else {
            continue;
        };
        for e in eps {
            if st.registry().is_local(&e.proc) {
                continue;
            }
            if !e.record.is_empty() {
                st.modex_mut().keep_remote(&e.proc, e.record);
            }
            if !e.info.is_empty() && !contributed.iter().any(|(p, _)| p == &e.proc) {
                contributed.push((e.proc, e.info));
            }
        }
    }
    contributed.sort_by(|a, b| a.0.cmp(&b.0));
    let status = if g.dropped().is_empty() {
        Status::SUCCESS
    } else {
        Status::ERR_PARTIAL_SUCCESS
    };
    st.groups_mut().insert(
        g.id(),
        GroupRecord::new(
            members.clone(),
            g.flags().notify_termination,
            g.leader().cloned(),
        ),
    );
    let result = GroupResult {
        status,
        id: g.id().to_owned(),
        context_id,
        members,
        info: contributed,
    };
    let r = body::encode_result(&result);
    let local: Vec<Proc> = c.participants().cloned().collect();
    for caller in c.callers() {
        st.respond(caller, r.clone());
    }
    if !g.dropped().is_empty() {
        // The group is not the one its leaders named.
        let mut infos = event_infos(g.id(), None);
        infos.extend(Info::keyed(
            keys::GROUP_MEMBERSHIP,
            Value::proc_array(&result.members),
        ));
        raise_from_server(st, codes::MEMBERSHIP_UPDATE, &local, infos);
    }
}

/// `proc` departed (`finalized`, or lost): the groups it belongs to hear
/// of it first (so that a destruct it ends still has its group), then the
/// constructs it leads or whose verdict they wait for, then those
/// notifying termination tell of its failure; what its departure does to
/// the group collectives that expect it is then the engine's (dropped or
/// failed, see `collective::departed`).
pub(in crate::server) fn departed(st: &mut State, proc: &Proc, finalized: bool) {
    if !finalized {
        member_lost(st, proc);
    }
    for cid in st.collectives().led_by(proc) {
        leader_lost(st, cid, proc);
    }
    for cid in st.collectives().awaiting_verdict_of(proc) {
        if st.collectives_mut().verdict(cid, proc) {
            collective::start(st, cid, &Group);
        }
    }
    for cid in st.collectives().blocked_by(proc, finalized) {
        member_failed(st, cid, proc);
    }
}

/// Group construct `cid` is blocked by `proc`'s departure: with
/// `PMIX_GROUP_NOTIFY_TERMINATION` its leader (else every other
/// participant that arrived) gets `PMIX_GROUP_MEMBER_FAILED` and, if the
/// construct tolerates the departure, it waits for their verdicts (a
/// handler may abort it, see [`verdict`]).
fn member_failed(st: &mut State, cid: u64, proc: &Proc) {
    let Some(c) = st.collectives().get(cid) else {
        return;
    };
    let Some(g) = c.group() else {
        return;
    };
    if c.kind() != Kind::GroupConstruct || !g.flags().notify_termination {
        return;
    }
    let (id, leader) = (g.id().to_owned(), g.leader().cloned());
    let others = c.participants().filter(|p| *p != proc).cloned().collect();
    let told = member_failed_event(st, &id, proc, leader.as_ref(), others);
    if st.collectives().tolerates(cid) {
        await_verdicts(st, cid, told);
    }
}

/// Group `id`'s member `lost` failed: its `leader`, else (no leader, or
/// the leader is the one lost) the `others`, get
/// `PMIX_GROUP_MEMBER_FAILED`. Returns who was told.
fn member_failed_event(
    st: &mut State,
    id: &str,
    lost: &Proc,
    leader: Option<&Proc>,
    others: Vec<Proc>,
) -> Vec<Proc> {
    let told = match leader {
        Some(l) if l != lost => vec![l.clone()],
        _ => others,
    };
    raise_from_server(st, codes::MEMBER_FAILED, &told, event_infos(id, Some(lost)));
    told
}

/// Group construct `cid` waits for the verdicts of those of `told` that
/// are local and still connected (a remote process's handlers answer its
/// own server).
fn await_verdicts(st: &mut State, cid: u64, told: Vec<Proc>) {
    let registry = st.registry().clone();
    let local: Vec<Proc> = told
        .into_iter()
        .filter(|p| registry.is_local(p) && !st.conns().departed(p))
        .collect();
    st.collectives_mut().await_verdicts(cid, local);
}

/// Group member `proc` was lost: marked failed in its groups; with
/// `PMIX_GROUP_NOTIFY_TERMINATION` their leader (else the other members)
/// gets `PMIX_GROUP_MEMBER_FAILED`.
fn member_lost(st: &mut State, proc: &Proc) {
    for id in st.groups_mut().member_lost(proc) {
        let Some(g) = st.groups().get(&id) else {
            continue;
        };
        // `proc` is among the failed already.
        let others = g.live_members();
        if g.leader() == Some(proc) {
            // The others may select a new leader (see `verdict`).
            st.groups_mut().set_leader(&id, None);
            raise_from_server(
                st,
                codes::LEADER_FAILED,
                &others,
                event_infos(&id, Some(proc)),
            );
            continue;
        }
        if !g.notify_termination() {
            continue;
        }
        let leader = g.leader().cloned();
        member_failed_event(st, &id, proc, leader.as_ref(), others);
    }
}

/// Group construct `cid` lost its leader `proc`: the participants that
/// arrived get `PMIX_GROUP_LEADER_FAILED` and the construct waits for
/// their verdicts (one may claim the leadership, any may abort).
fn leader_lost(st: &mut State, cid: u64, proc: &Proc) {
    let Some(c) = st.collectives().get(cid) else {
        return;
    };
    let Some(id) = c.group().map(|g| g.id().to_owned()) else {
        return;
    };
    let told: Vec<Proc> = c.participants().filter(|p| *p != proc).cloned().collect();
    st.collectives_mut().set_leader(cid, None);
    raise_from_server(
        st,
        codes::LEADER_FAILED,
        &told,
        event_infos(&id, Some(proc)),
    );
    await_verdicts(st, cid, told);
}

/// `proc` claims the leadership of group `id` (or of its construct) that
/// lost its leader: the first claim wins, and the participants (members)
/// get `PMIX_GROUP_LEADER_SELECTED` (`PMIX_EVENT_AFFECTED_PROC`: the new
/// leader).
fn leader_claimed(st: &mut State, proc: &Proc, id: &str) {
    for cid in st.collectives().of_group(Kind::GroupConstruct, id) {
        let Some(c) = st.collectives().get(cid) else {
            continue;
        };
        let vacant = c.group().is_some_and(|g| g.leader().is_none());
        if !vacant || !c.participants().any(|p| p == proc) {
            continue;
        }
        let told: Vec<Proc> = c.participants().cloned().collect();
        st.collectives_mut().set_leader(cid, Some(proc.clone()));
        raise_from_server(
            st,
            codes::LEADER_SELECTED,
            &told,
            event_infos(id, Some(proc)),
        );
    }
    let Some(g) = st.groups().get(id) else {
        return;
    };
    if g.leader().is_some() || !g.has_member(proc) || g.has_failed(proc) {
        return;
    }
    let told = g.live_members();
    st.groups_mut().set_leader(id, Some(proc.clone()));
    raise_from_server(
        st,
        codes::LEADER_SELECTED,
        &told,
        event_infos(id, Some(proc)),
    );
}

/// `proc`'s handlers of an event about group `id` ended with `status`
/// (`Op::GROUP_VERDICT`, one-way), claiming its leadership if `leads`:
/// `PMIX_GROUP_CONSTRUCT_ABORT` aborts the group's constructs here for
/// every participant (who also get the event); any other verdict lets a
/// construct waiting for it go on.
pub(in crate::server) fn verdict(
    st: &mut State,
    proc: &Proc,
    id: &str,
    status: Status,
    leads: bool,
) {
    if leads && status != codes::CONSTRUCT_ABORT {
        leader_claimed(st, proc, id);
    }
    for cid in st.collectives().of_group(Kind::GroupConstruct, id) {
        if status == codes::CONSTRUCT_ABORT {
            // Every member hears of it, also those yet to call.
            let told = membership(st, cid);
            raise_from_server(st, codes::CONSTRUCT_ABORT, &told, event_infos(id, None));
            collective::failed(st, cid, codes::CONSTRUCT_ABORT);
        } else if st.collectives_mut().verdict(cid, proc) {
            collective::start(st, cid, &Group);
        }
    }
}
