//! How a collective of any kind fails: who is answered, what the host
//! hears, when a failed collective is forgotten, and what a departed
//! participant does to the collectives that expect it.
//!
//! Invariants:
//! - Every participant that arrived at a failed collective gets the
//!   failure once, in its kind's answer ([`Kind::failure`]): at the
//!   failure, or on arrival if it came late.
//! - A collective that fails before reaching the host stays, failed, until
//!   every expected participant arrived or can no longer arrive; the host
//!   hears of the failure when the kind needs that (a fence, a group
//!   construct the host runs across nodes), so that other nodes do not
//!   wait for this one. One that fails at the host is forgotten at once:
//!   the host's answer, if it still comes, is ignored.
//! - A departed participant fails every collective it blocks with its
//!   kind's loss status, unless the collective tolerates departures (a
//!   group with `PMIX_GROUP_OPTIONAL` or `PMIX_GROUP_FT_COLLECTIVE`):
//!   then it is dropped.

use super::host_call::HostCall;
use super::{Failure, Kind, Stage};
use crate::group::GroupOp;
use crate::server::clients::connections::{Caller, Connections};
use crate::server::ops::PendingOp;
use crate::server::registry::Registry;
use crate::server::state::{is_tool, State};
use crate::{keys, Info, Proc, Status, Value};

/// Collective `cid` fails with `status` (a participant departed, its
/// deadline passed, the host failed it): every participant that arrived
/// gets the failure (see the module doc).
pub(in crate::server) fn failed(st: &mut State, cid: u64, status: Status) {
    match st.collectives().stage(cid) {
        None | Some(Stage::Failed) => {}
        Some(Stage::AtHost(op)) => {
            st.forget_op(op);
            if let Some(c) = st.finish_collective(cid) {
                send(st, c.kind(), c.callers(), status);
            }
        }
        Some(Stage::Gathering) => {
            let Some(mut f) = st.fail_collective(cid, status) else {
                return;
            };
            send(st, f.kind, std::mem::take(&mut f.arrived), status);
            report(st, f, status);
            retire(st, cid);
        }
    }
}

/// Answers `caller` of a `kind` collective with `status` at once.
pub(in crate::server) fn refuse(st: &mut State, kind: Kind, caller: Caller, status: Status) {
    send(st, kind, [caller], status);
}

/// A late arrival at failed collective `cid` gets its failure.
pub(super) fn late(st: &mut State, cid: u64, caller: Caller, status: Status) {
    if let Some(kind) = st.collectives().get(cid).map(|c| c.kind()) {
        send(st, kind, [caller], status);
    }
    retire(st, cid);
}

/// Answers `callers` of a `kind` collective with its failure `status`.
fn send(st: &mut State, kind: Kind, callers: impl IntoIterator<Item = Caller>, status: Status) {
    let m = kind.failure(status);
    for caller in callers {
        st.conns_mut().send(caller.token, caller.id, &m, Vec::new());
    }
}

/// Collective `f` failed here, before reaching the host: the host hears
/// of it (with `PMIX_LOCAL_COLLECTIVE_STATUS`), so that the servers of
/// other nodes do not wait for this node forever: a fence through
/// `fence_nb`, a group construct through `group` (when the host runs
/// groups across nodes). Its answer is not needed; other kinds are not
/// reported.
fn report(st: &mut State, f: Failure, status: Status) {
    let mut infos = f.infos;
    infos.extend(Info::keyed(
        keys::LOCAL_COLLECTIVE_STATUS,
        Value::Status(status.code()),
    ));
    let procs = f.procs;
    let call = match (f.kind, f.group) {
        (Kind::Fence, _) => HostCall::Fence {
            procs,
            infos,
            data: Vec::new(),
        },
        (Kind::GroupConstruct, Some(id)) if !st.host().fences_are_local() => HostCall::Group {
            op: GroupOp::Construct,
            id,
            procs,
            infos,
        },
        _ => return,
    };
    // Whatever the host answers, the failure stands.
    let _ = call.call(st, PendingOp::Ignored);
}

/// Forgets failed collective `cid` once its participants all arrived or
/// are gone (see [`gone`]).
pub(super) fn retire(st: &mut State, cid: u64) {
    let registry = st.registry().clone();
    let (collectives, conns, _) = st.collectives_with_conns();
    collectives.retire(cid, |p| gone(&registry, conns, p));
}

/// Retires those of failed collectives `cids` none of whose participants
/// can still arrive (after the host deregistered some).
pub(in crate::server) fn retire_all(st: &mut State, cids: Vec<u64>) {
    for cid in cids {
        retire(st, cid);
    }
}

/// `proc` departed (`finalized`, or its connection was lost): each
/// collective it blocks fails with its kind's loss status, or, if it
/// tolerates departures, drops it; failed collectives it was expected in
/// are retired if they can be. Returns the collectives now ready (to be
/// started by their kinds).
pub(in crate::server) fn departed(st: &mut State, proc: &Proc, finalized: bool) -> Vec<u64> {
    let mut ready = Vec::new();
    for cid in st.collectives().blocked_by(proc, finalized) {
        let Some(kind) = st.collectives().get(cid).map(|c| c.kind()) else {
            continue;
        };
        if !st.collectives().tolerates(cid) {
            failed(st, cid, kind.lost());
        } else if st.collectives_mut().drop_member(cid, proc) {
            ready.push(cid);
        }
    }
    for cid in st.collectives().failed_with(proc) {
        retire(st, cid);
    }
    ready
}

/// True if `p` can no longer arrive at a collective: it departed, or it
/// is neither a registered client nor a tool connected here (the host
/// deregistered it, or its namespace).
fn gone(registry: &Registry, conns: &Connections, p: &Proc) -> bool {
    conns.departed(p) || (registry.ids_of(p).is_none() && !is_tool(registry, conns, p))
}
