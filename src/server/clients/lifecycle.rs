//! A client's life on the server: handshake, the host's
//! `client_connected`, `PMIx_Abort`, `PMIx_Finalize`.
//!
//! A handshake is served only once it proved the identity it claims: the
//! connection's `SO_PEERCRED` uid/gid equal what the host registered for
//! that process, and it presented the secret `setup_fork` generated for
//! it; a second connection for the same process is refused. The host then
//! hears of the client (`client_connected`; a host without it accepts
//! everyone), and the reply carries the namespace's job segment and modex
//! generations. A refused handshake is answered with its status and the
//! connection closed.
//!
//! Invariant: a connection is served only once it authenticated and the
//! host accepted it; every handshake, abort and finalize gets exactly one
//! answer (the host's, or at once when the host has no callback or
//! refuses).

use super::connections::{Caller, PeerState};
use crate::server::host::OpResult;
use crate::server::ops::PendingOp;
use crate::server::state::State;
use crate::wire::{self, Abort, HandshakeReply, Message};
use crate::{keys, Info, Proc, Status, Value};

/// Why a handshake was refused with `status`, for the log line.
fn reason(status: Status) -> &'static str {
    match status {
        Status::ERR_NOT_SUPPORTED => "unsupported protocol version",
        Status::ERR_INVALID_CRED => "not a registered process, or a wrong secret",
        Status::ERR_NO_PERMISSIONS => "the socket's uid/gid are not the registered ones",
        Status::ERR_EXISTS => "that process is connected already",
        Status::ERR_NOT_FOUND => "its namespace is not registered",
        _ => "the host refused it",
    }
}

/// Refuses a client's handshake with `status`: one log line (see
/// [`super::connections::Connections::log_refusal`]), the answer, then
/// the connection closes.
pub(in crate::server) fn refuse(st: &mut State, caller: Caller, claimed: &Proc, status: Status) {
    let why = format!("handshake: {} (status {})", reason(status), status.0);
    st.conns()
        .log_refusal(st.server_proc(), caller.token, Some(claimed), &why);
    let m = Message::HandshakeReply(HandshakeReply {
        status,
        server: st.server_proc().clone(),
        segments: Vec::new(),
    });
    st.conns_mut().send_and_close(caller.token, caller.id, &m);
}

/// A handshake on a connection that has not authenticated yet.
pub(in crate::server) fn handshake(st: &mut State, caller: Caller, h: wire::Handshake) {
    if h.version != u32::from(wire::PROTOCOL_VERSION) {
        return refuse(st, caller, &h.proc, Status::ERR_NOT_SUPPORTED);
    }
    let Some(creds) = st.conns().creds(caller.token) else {
        return;
    };
    if let Err(s) = st.registry().authenticate(&h.proc, &creds, &h.secret) {
        return refuse(st, caller, &h.proc, s);
    }
    admit(st, caller, h.proc);
}

/// A client that proved it is `proc` (by either door): refused if
/// another connection holds `proc`, else the host decides.
pub(in crate::server) fn admit(st: &mut State, caller: Caller, proc: Proc) {
    if st.conns().is_claimed(&proc) {
        return refuse(st, caller, &proc, Status::ERR_EXISTS);
    }
    st.conns_mut().authenticated(caller.token, &proc);
    let (_, r) = st.upcall(PendingOp::Connect(caller), |h, done| {
        h.client_connected(&proc, done)
    });
    if let Err(s) = r {
        connected(st, caller, unsupported_is_ok(s));
    }
}

/// A `ToolHandshake` on `caller`: a tool asks to connect. Refused with
/// `PMIX_ERR_NOT_SUPPORTED` by a server without tool support, with
/// `PMIX_ERR_BAD_PARAM` for an identity in a registered namespace (a
/// tool is no client) and `PMIX_ERR_EXISTS` for one already connected.
/// The identity is the one asked for, else `tool.<host>.<pid>` rank 0.
/// The host's `tool_connected` then decides, told the tool's
/// `PMIX_USERID` and `PMIX_GRPID` (from the socket's credentials, as
/// OpenPMIx tells it). Without the callback, a tool of this server's user
/// (or root) is admitted and one of another user refused with
/// `PMIX_ERR_NO_PERMISSIONS`: only a host that says so admits other users.
pub(in crate::server) fn tool_handshake(st: &mut State, caller: Caller, t: wire::ToolHandshake) {
    if t.version != u32::from(wire::PROTOCOL_VERSION) || !st.tools_allowed() {
        return refuse_tool(st, caller, None, Status::ERR_NOT_SUPPORTED);
    }
    let Some(creds) = st.conns().creds_with_pid(caller.token) else {
        return;
    };
    let (uid, _) = crate::net::my_ids();
    let foreign = creds.uid != uid && creds.uid != 0;
    let requested = t.proc.is_some();
    let proc = match t.proc {
        Some(p) => p,
        None => {
            let ns = format!("tool.{}.{}", crate::server::local_hostname(), creds.pid);
            match crate::Nspace::new(ns) {
                Ok(ns) => Proc::new(ns, crate::Rank(0)),
                Err(s) => return refuse_tool(st, caller, None, s),
            }
        }
    };
    if proc.rank.0 > crate::Rank::VALID.0 || st.registry().nspace(&proc.nspace).is_some() {
        return refuse_tool(st, caller, Some(&proc), Status::ERR_BAD_PARAM);
    }
    if st.conns().is_claimed(&proc) {
        return refuse_tool(st, caller, Some(&proc), Status::ERR_EXISTS);
    }
    st.conns_mut().authenticated(caller.token, &proc);
    let mut infos = t.infos;
    infos.extend(Info::keyed(keys::USERID, Value::Uint32(creds.uid)));
    infos.extend(Info::keyed(keys::GRPID, Value::Uint32(creds.gid)));
    let (_, r) = st.upcall(PendingOp::ToolConnect(caller), |h, done| {
        h.tool_connected(&proc, requested, &infos, done)
    });
    if let Err(s) = r {
        let r = match s {
            Status::ERR_NOT_SUPPORTED if foreign => Err(Status::ERR_NO_PERMISSIONS),
            Status::ERR_NOT_SUPPORTED => Ok(proc),
            s => Err(s),
        };
        tool_connected(st, caller, r);
    }
}

/// The host's word on a tool that connected on `caller`: the identity it
/// gets (the host may have given another than the server's).
fn tool_connected(st: &mut State, caller: Caller, result: Result<Proc, Status>) {
    let Some(PeerState::Connecting(tentative)) = st.conns().state(caller.token).cloned() else {
        return;
    };
    let proc = match result {
        Ok(p) => p,
        Err(s) => {
            st.conns_mut().unauthenticated(caller.token);
            return refuse_tool(st, caller, Some(&tentative), s);
        }
    };
    if proc != tentative {
        st.conns_mut().unauthenticated(caller.token);
        if st.conns().is_claimed(&proc) {
            return refuse_tool(st, caller, Some(&proc), Status::ERR_EXISTS);
        }
        st.conns_mut().authenticated(caller.token, &proc);
    }
    st.conns_mut().ready(caller.token);
    let m = Message::ToolHandshakeReply(wire::ToolHandshakeReply {
        status: Status::SUCCESS,
        server: st.server_proc().clone(),
        tool: proc.clone(),
    });
    st.conns_mut().send(caller.token, caller.id, &m, Vec::new());
    crate::server::events::tell_defined_psets(st, &proc);
}

/// Refuses a tool's handshake with `status`; the connection closes once
/// the answer is out.
fn refuse_tool(st: &mut State, caller: Caller, claimed: Option<&Proc>, status: Status) {
    let why = match status {
        Status::ERR_NOT_SUPPORTED => "no tool support, or an unsupported protocol version",
        Status::ERR_BAD_PARAM => "an identity of a registered namespace or an invalid rank",
        Status::ERR_EXISTS => "that identity is connected already",
        Status::ERR_NO_PERMISSIONS => "a tool of another user, not admitted by the host",
        _ => "the host refused it",
    };
    let why = format!("tool handshake: {why} (status {})", status.0);
    st.conns()
        .log_refusal(st.server_proc(), caller.token, claimed, &why);
    let m = Message::ToolHandshakeReply(wire::ToolHandshakeReply {
        status,
        server: st.server_proc().clone(),
        tool: st.server_proc().clone(),
    });
    st.conns_mut().send_and_close(caller.token, caller.id, &m);
}

/// The host's word on a client that authenticated on `caller`.
pub(in crate::server) fn connected(st: &mut State, caller: Caller, result: Result<(), Status>) {
    let Some(PeerState::Connecting(proc)) = st.conns().state(caller.token).cloned() else {
        return;
    };
    if let Err(s) = result {
        st.conns_mut().unauthenticated(caller.token);
        return refuse(st, caller, &proc, s);
    }
    let (status, mut segments, mut fds) = match st.nspace_segments(&proc.nspace, true) {
        Ok((refs, fds)) => (Status::SUCCESS, refs, fds),
        Err(Status::ERR_NOT_FOUND) => {
            st.conns_mut().unauthenticated(caller.token);
            return refuse(st, caller, &proc, Status::ERR_NOT_FOUND);
        }
        Err(s) => (s, Vec::new(), Vec::new()),
    };
    st.conns_mut().ready(caller.token);
    // One frame carries a bounded number of descriptors: what does not
    // fit the reply's frame goes ahead of it.
    while segments.len() > wire::frame::MAX_FDS_PER_FRAME {
        let rest_s = segments.split_off(wire::frame::MAX_FDS_PER_FRAME);
        let rest_f = fds.split_off(wire::frame::MAX_FDS_PER_FRAME);
        let head = Message::Segments(std::mem::replace(&mut segments, rest_s));
        let head_fds = std::mem::replace(&mut fds, rest_f);
        st.conns_mut()
            .send(caller.token, caller.id, &head, head_fds);
    }
    let m = Message::HandshakeReply(HandshakeReply {
        status,
        server: st.server_proc().clone(),
        segments,
    });
    st.conns_mut().send(caller.token, caller.id, &m, fds);
    if status == Status::SUCCESS {
        crate::server::events::tell_defined_psets(st, &proc);
    }
}

/// `PMIx_Abort` from `proc`: the host decides.
pub(in crate::server) fn abort(st: &mut State, caller: Caller, proc: &Proc, a: Abort) {
    let msg = a.message.as_ref().map(|m| m.to_string_lossy().into_owned());
    let (_, r) = st.upcall(PendingOp::Abort(caller), |h, done| {
        h.abort(proc, a.status, msg.as_deref(), &a.procs, done)
    });
    if let Err(s) = r {
        answer(st, caller, Message::AbortReply(s));
    }
}

/// `PMIx_Finalize` from `proc`: it departs (what it never entered fails),
/// then the host hears of it.
pub(in crate::server) fn finalize(st: &mut State, caller: Caller, proc: &Proc) {
    st.conns_mut().finalized(caller.token, proc);
    crate::server::departures::departed(st, proc, true);
    let (_, r) = st.upcall(PendingOp::Finalize(caller), |h, done| {
        h.client_finalized(proc, done)
    });
    if let Err(s) = r {
        let s = unsupported_is_ok(s).err().unwrap_or(Status::SUCCESS);
        answer(st, caller, Message::FinalizeReply(s));
    }
}

/// The host completed a client's connect, abort or finalize.
pub(in crate::server) fn host_done(st: &mut State, op: PendingOp, result: OpResult) {
    if let PendingOp::ToolConnect(caller) = op {
        return tool_connected(st, caller, crate::server::host::take_result::<Proc>(result));
    }
    let unit = result.map(|_| ());
    match op {
        PendingOp::Connect(caller) => connected(st, caller, unit),
        PendingOp::Finalize(caller) => {
            let s = unit.err().unwrap_or(Status::SUCCESS);
            answer(st, caller, Message::FinalizeReply(s));
        }
        PendingOp::Abort(caller) => {
            let s = unit.err().unwrap_or(Status::SUCCESS);
            answer(st, caller, Message::AbortReply(s));
        }
        _ => {}
    }
}

fn answer(st: &mut State, caller: Caller, m: Message) {
    st.conns_mut().send(caller.token, caller.id, &m, Vec::new());
}

/// A host's refusal of a notification: without the callback, the
/// operation (connect, finalize) simply succeeds.
fn unsupported_is_ok(s: Status) -> Result<(), Status> {
    if s == Status::ERR_NOT_SUPPORTED {
        Ok(())
    } else {
        Err(s)
    }
}
