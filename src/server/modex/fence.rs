//! `PMIx_Fence` on the server: a collective of kind [`Kind::Fence`] on the
//! collective engine, whose host call carries this node's contribution and
//! whose completion builds the new modex generations.
//!
//! What is particular to a fence (its [`Rules`]; the rest — arrivals,
//! departures, deadlines, failures, the host's immediate answer — is the
//! engine's):
//! - When every local participant arrived, a collecting fence's
//!   contribution is the local participants' records that other nodes may
//!   see; the host's `fence_nb` gets it. A host without `fence_nb` can
//!   complete a fence whose participants are all local: the server then
//!   completes it itself. A host that completes it at once
//!   (`PMIX_OPERATION_SUCCEEDED`) gives no other node's data: the new
//!   generations hold the local participants' only.
//! - On success, a collecting fence builds one new modex generation per
//!   namespace (see `modex`) and every participant's release carries the
//!   segments and their descriptors; a fence without data releases with
//!   none.
//!
//! Invariant: a fence's participants are answered by the engine once; on
//! success every one of them gets the same segments (a descriptor each).

use std::os::fd::OwnedFd;

use crate::server::clients::connections::Caller;
use crate::server::collective::{self, normalize, Call, HostCall, Kind, Outcome, Plan, Rules};
use crate::server::state::State;
use crate::wire::{Directives, FenceRelease, FenceRequest, Message};
use crate::{Proc, Status};

/// A `FenceRequest` from `proc`.
pub(in crate::server) fn enter(st: &mut State, caller: Caller, proc: &Proc, req: FenceRequest) {
    let d = Directives::parse_for(&req.infos, crate::wire::directives::FENCE);
    // A group id names its members.
    let (procs, groups) = match st.expand_groups(req.procs) {
        Ok(p) => p,
        Err(s) => return collective::refuse(st, Kind::Fence, caller, s),
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
    collective::enter(st, caller, proc, call, &Fence);
}

/// Fence's rules on the collective engine.
pub(in crate::server) struct Fence;

impl Rules for Fence {
    /// A collecting fence over other nodes gives the host this node's
    /// contribution; one whose participants are all local may complete
    /// here.
    fn host_call(&self, st: &mut State, cid: u64) -> Result<Plan, Status> {
        let c = st.collectives().get(cid).ok_or(Status::ERROR)?;
        // When every participant is local the host's answer can only be
        // this node's contribution, which the new generations read from
        // the committed store anyway: the host gets none (a host
        // allgathering it would copy it for nothing).
        let local = st.registry().all_local(c.procs());
        let data = if c.collect() && !local {
            st.modex().contribution(c.expected())?
        } else {
            Vec::new()
        };
        let (procs, infos) = (c.procs().to_vec(), c.infos().to_vec());
        Ok(Plan::Host {
            call: HostCall::Fence { procs, infos, data },
            local,
        })
    }

    fn succeeded(&self, st: &mut State, cid: u64, out: Outcome) {
        done_ok(st, cid, out.data());
    }
}

/// Fence `cid` completed with every other node's contribution `data`
/// (none: the local participants' data is all there is): builds the new
/// modex generations and releases the local participants.
fn done_ok(st: &mut State, cid: u64, data: Vec<u8>) {
    let Some(c) = st.finish_collective(cid) else {
        return;
    };
    let mut status = Status::SUCCESS;
    let mut gens = None;
    if c.collect() {
        let registry = st.registry().clone();
        let all_local = registry.all_local(c.procs());
        match st.modex_mut().fence_generations(
            c.expected(),
            all_local,
            &data,
            |p| registry.is_local(p),
            || registry.next_generation(),
        ) {
            Ok(g) => gens = Some(g),
            Err(s) => status = s,
        }
    }
    for caller in c.callers() {
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
        st.conns_mut().send(caller.token, caller.id, &m, fds);
    }
}

fn release(status: Status, segments: Vec<crate::wire::SegmentRef>) -> Message {
    Message::FenceRelease(FenceRelease { status, segments })
}
