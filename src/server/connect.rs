//! `PMIx_Connect` / `PMIx_Disconnect` on the server, and the delivery of
//! other namespaces' segments to a client.
//!
//! A connect (or disconnect) is a collective of kind [`Kind::Connect`]
//! ([`Kind::Disconnect`]) on the collective engine, over a participant set
//! that may span namespaces (arrivals, departures, deadlines, failures and
//! the host's immediate answer are the engine's). Once every local participant
//! arrived, the host's `connect` (`disconnect`) is called once for this
//! node, and its completion releases them all. Without the callback, a set
//! whose participants are all local (ranks of this node, or tools
//! connected here) completes at once. The timeout is the
//! server's alone: it is not passed to the host (the standard's advice
//! against competing timeouts), and a host answer after it is ignored. A
//! disconnect is not checked against earlier connects (OpenPMIx 4.2's
//! client does not either).
//!
//! After a connect, participants read each other's job data from the
//! other namespaces' job segments, which a client asks for with a
//! `NspaceRequest` (see [`nspace_segments`]), and their posted data by
//! direct modex, which serves any local process whatever its namespace.
//!
//! Invariant: a process gets another namespace's segments only through a
//! `NspaceRequest` (never that namespace's barrier page); every connect or
//! disconnect call gets exactly one answer (through the collective engine).

use super::clients::connections::Caller;
use super::collective::{self, normalize, Call, HostCall, Kind, Outcome, Plan, Rules};
use super::state::State;
use crate::wire::{process_mgmt, Directives, Message, NspaceReply, Op};
use crate::{keys, Info, Nspace, Proc, Status};

/// A connect or disconnect request from `proc`.
pub(super) fn enter(st: &mut State, caller: Caller, proc: &Proc, op: Op, body: &[u8]) {
    let (procs, infos) = match process_mgmt::decode_collective(body) {
        Ok(x) => x,
        Err(s) => return st.respond(caller, Err(s)),
    };
    if procs.is_empty() {
        return st.respond(caller, Err(Status::ERR_BAD_PARAM));
    }
    // A group id names its members.
    let (procs, groups) = match st.expand_groups(procs) {
        Ok(p) => p,
        Err(s) => return st.respond(caller, Err(s)),
    };
    let d = Directives::parse_for(&infos, crate::wire::directives::TIMEOUT_ONLY);
    let call = Call {
        kind: if op == Op::CONNECT {
            Kind::Connect
        } else {
            Kind::Disconnect
        },
        procs: normalize(procs, proc),
        collect: false,
        deadline: d.deadline(),
        infos,
        group: None,
        groups,
    };
    collective::enter(st, caller, proc, call, &ConnectOrDisconnect);
}

/// Connect's and disconnect's rules on the collective engine.
pub(super) struct ConnectOrDisconnect;

impl Rules for ConnectOrDisconnect {
    /// The host's `connect` (`disconnect`) once for this node; a set whose
    /// participants are all served here may complete here.
    fn host_call(&self, st: &mut State, cid: u64) -> Result<Plan, Status> {
        let c = st.collectives().get(cid).ok_or(Status::ERROR)?;
        // The server keeps PMIX_TIMEOUT itself: the host gets no competing
        // timeout (as the standard advises).
        let infos: Vec<Info> = c
            .infos()
            .iter()
            .filter(|i| i.key.as_bytes() != keys::TIMEOUT.as_bytes())
            .cloned()
            .collect();
        let procs = c.procs().to_vec();
        let local = st.all_local(&procs);
        let call = if c.kind() == Kind::Connect {
            HostCall::Connect { procs, infos }
        } else {
            HostCall::Disconnect { procs, infos }
        };
        Ok(Plan::Host { call, local })
    }

    /// Answers every participant.
    fn succeeded(&self, st: &mut State, cid: u64, _: Outcome) {
        if let Some(c) = st.finish_collective(cid) {
            for caller in c.callers() {
                st.respond(caller, Ok(Vec::new()));
            }
        }
    }
}

/// Answers a `NspaceRequest`: the job segment and modex generations of
/// `ns`, or `PMIX_ERR_NOT_FOUND` if it is not registered here.
pub(super) fn nspace_segments(st: &mut State, caller: Caller, ns: &Nspace) {
    let (status, segments, fds) = match st.nspace_segments(ns, false) {
        Ok((refs, fds)) => (Status::SUCCESS, refs, fds),
        Err(s) => (s, Vec::new(), Vec::new()),
    };
    let m = Message::NspaceReply(NspaceReply { status, segments });
    st.conns_mut().send(caller.token, caller.id, &m, fds);
}
