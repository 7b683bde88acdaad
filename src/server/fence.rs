//! `PMIx_Fence` on the server: a collective of kind [`Kind::Fence`] on the
//! collective engine, whose host call carries this node's contribution and
//! whose completion builds the new modex generations.
//!
//! What is particular to a fence (the rest — arrivals, departures,
//! deadlines, failures — is the engine's and [`State`]'s):
//! - When every local participant arrived, a collecting fence's
//!   contribution is the local participants' records that other nodes may
//!   see; the host's `fence_nb` gets it. A host without `fence_nb` can
//!   complete a fence whose participants are all local: the server then
//!   completes it itself.
//! - On success, a collecting fence builds one new modex generation per
//!   namespace (see `modex`) and every participant's release carries the
//!   segments and their descriptors; a fence without data releases with
//!   none.
//!
//! Invariant: a fence's participants are answered by the engine once; on
//! success every one of them gets the same segments (a descriptor each).

use std::os::fd::OwnedFd;

use super::collective::{normalize, Call, Kind};
use super::connections::Caller;
use super::ops::PendingOp;
use super::state::State;
use crate::wire::{Directives, FenceRelease, FenceRequest, Message};
use crate::{Proc, Status};

/// A `FenceRequest` from `proc`.
pub(super) fn enter(st: &mut State, caller: Caller, proc: &Proc, req: FenceRequest) {
    let d = Directives::parse_for(&req.infos, crate::wire::directives::FENCE);
    // A group id names its members.
    let (procs, groups) = match st.expand_groups(req.procs) {
        Ok(p) => p,
        Err(s) => return st.refuse_collective(Kind::Fence, caller, s),
    };
    let call = Call {
        kind: Kind::Fence,
        procs: normalize(procs, proc),
        collect: d.collect,
        deadline: d.deadline(),
        infos: req.infos,
        group: None,
        groups,
    };
    if let Some(cid) = st.enter_collective(caller, proc, call) {
        start(st, cid);
    }
}

/// Every local participant of fence `cid` arrived: hand it to the host, or
/// complete it here.
pub(super) fn start(st: &mut State, cid: u64) {
    let Some(c) = st.collectives.get(cid) else {
        return;
    };
    // When every participant is local the host's answer can only be this
    // node's contribution, which the new generations read from the
    // committed store anyway: the host gets none (a host allgathering it
    // would copy it for nothing).
    let all_local = st.registry().all_local(&c.procs);
    let data = if c.collect && !all_local {
        match st.modex.contribution(&c.expected) {
            Ok(d) => d,
            Err(s) => return st.collective_failed(cid, s),
        }
    } else {
        Vec::new()
    };
    let (procs, infos) = (c.procs.clone(), c.infos.clone());
    let (op, done) = st.start_op(PendingOp::Collective(cid));
    st.collectives.at_host(cid, op);
    match st.host().fence_nb(&procs, &infos, data, done) {
        Ok(()) => {}
        Err(s) if s == Status::ERR_NOT_SUPPORTED && all_local => {
            // Single node: the local participants' data is all there is
            // (the generations are built from the committed store).
            st.ops.take(op);
            done_ok(st, cid, Vec::new());
        }
        Err(s) => st.collective_failed(cid, s),
    }
}

/// The host completed fence `cid` with every node's contribution `data`:
/// builds the new modex generations and releases the local participants.
pub(super) fn done_ok(st: &mut State, cid: u64, data: Vec<u8>) {
    let Some(c) = st.collectives.finish(cid, &mut st.timers) else {
        return;
    };
    let mut status = Status::SUCCESS;
    let mut gens = None;
    if c.collect {
        let registry = st.registry().clone();
        let all_local = registry.all_local(&c.procs);
        match st.modex.fence_generations(
            &c.expected,
            all_local,
            &data,
            |p| registry.is_local(p),
            || registry.next_generation(),
        ) {
            Ok(g) => gens = Some(g),
            Err(s) => status = s,
        }
    }
    for (_, caller) in &c.arrived {
        let (m, fds) = match &gens {
            None => (release(status, Vec::new()), Vec::new()),
            Some(g) => {
                let fds: Result<Vec<OwnedFd>, _> = g
                    .sealed
                    .iter()
                    .map(|s| s.fd().try_clone_to_owned())
                    .collect();
                match fds {
                    Ok(fds) => (release(status, g.refs.clone()), fds),
                    Err(_) => (release(Status::ERR_OUT_OF_RESOURCE, Vec::new()), Vec::new()),
                }
            }
        };
        st.conns.send(caller.token, caller.id, &m, fds);
    }
}

fn release(status: Status, segments: Vec<crate::wire::SegmentRef>) -> Message {
    Message::FenceRelease(FenceRelease { status, segments })
}
