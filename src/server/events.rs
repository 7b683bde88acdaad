//! Event notification in the server: the server process's own handlers,
//! `PMIx_Notify_event` called by the host, notifications from clients
//! (`Op::NOTIFY_EVENT`) and the events the server raises itself.
//!
//! Delivery, as OpenPMIx 4.2 does it:
//! - from the host (`PMIx_Notify_event` in the server process): to each
//!   connected local client the range reaches (see [`Event::reaches`])
//!   except the event's source, and to the server process's handlers
//!   (their own range filters apply); `PMIX_RANGE_PROC_LOCAL` reaches the
//!   server's handlers only;
//! - from a client with `PMIX_RANGE_LOCAL`: the same, at once;
//! - from a client with any other range: handed to the host's
//!   `notify_event` (with `PMIX_EVENT_PROXY` naming this server), which
//!   distributes it, to this node too, by calling `PMIx_Notify_event`
//!   here; a host without `notify_event` makes this node the whole range
//!   and the server delivers it as from the host.
//!
//! A client whose connection closes before it finalized makes the server
//! raise `PMIX_ERR_LOST_CONNECTION` (source: that client, range
//! `PMIX_RANGE_PROC_LOCAL`) to its own handlers, as OpenPMIx does.
//!
//! Process sets: [`Server::define_process_set`](crate::server::Server::define_process_set) and
//! [`Server::delete_process_set`](crate::server::Server::delete_process_set) change the table (`psets.rs`) and raise
//! `PMIX_PROCESS_SET_DEFINE` (`PMIX_PSET_NAME`, `PMIX_PSET_MEMBERS`) /
//! `PMIX_PROCESS_SET_DELETE` (`PMIX_PSET_NAME`), source the server,
//! `PMIX_RANGE_LOCAL`, marked `PMIX_EVENT_NON_DEFAULT` (default handlers do
//! not get them), to every connected local client and the server's own
//! handlers, as OpenPMIx 4.2 does. A client or tool that connects later
//! gets `PMIX_PROCESS_SET_DEFINE` for each set so defined that still
//! exists, right after its handshake (OpenPMIx keeps such notifications
//! for processes that register later; the client library keeps events
//! no handler took for handlers registered later).
//!
//! Invariant: an event reaches each local client in its range at most once
//! and never its source (which delivered it to itself); every client
//! notification request gets one answer.

use super::clients::connections::Caller;
use super::host::{OpResult, OpValue};
use super::ops::PendingOp;
use super::state::State;
use crate::events::codes::{PROCESS_SET_DEFINE, PROCESS_SET_DELETE};
use crate::events::{decode_event, encode_event, Event, Range};
use crate::{keys, Info, Key, Proc, Status, Value};

/// Callback of [`Server::notify_event`](crate::server::Server::notify_event).
pub type NotifyCallback = Box<dyn FnOnce(Status) + Send + 'static>;

/// Sends `event` to every connected local client it reaches, except
/// its source (which delivered it to itself).
fn push_to_clients(st: &mut State, event: &Event) {
    let Ok(body) = encode_event(event) else {
        return;
    };
    for p in st.conns().connected_procs() {
        if p != event.source && event.reaches(&p) {
            st.conns_mut().send_event(&p, body.clone());
        }
    }
}

/// A host's notification (or the server's own): the local clients in
/// range, and this process's handlers.
pub(super) fn deliver_from_host(st: &mut State, event: Event) {
    if event.range != Range::PROC_LOCAL {
        push_to_clients(st, &event);
    }
    st.events().deliver(event);
}

/// `Op::NOTIFY_EVENT` from the local client `proc`.
pub(super) fn notify_from_client(st: &mut State, caller: Caller, _proc: &Proc, body: &[u8]) {
    let event = match decode_event(body) {
        Ok(e) if e.range != Range::PROC_LOCAL => e,
        _ => return st.respond(caller, Err(Status::ERR_BAD_PARAM)),
    };
    // The notifying client has delivered it to itself already.
    if event.range == Range::LOCAL {
        push_to_clients(st, &event);
        st.events().deliver(event);
        return st.respond(caller, Ok(Vec::new()));
    }
    // Beyond this node: the host distributes it, back to this server
    // too (through `PMIx_Notify_event`), as OpenPMIx relies on.
    let mut infos = event.infos.clone();
    if let Ok(k) = Key::new(keys::EVENT_PROXY) {
        infos.push(Info::new(k, Value::Proc(st.server_proc().clone())));
    }
    let (op, done) = st.host_op::<()>(caller, |()| Ok(Vec::new()));
    let r = st
        .host()
        .notify_event(event.status, &event.source, event.range, &infos, done);
    if let Err(s) = r {
        // A host without event support: this node is all there is.
        let result: OpResult = if s == Status::ERR_NOT_SUPPORTED {
            deliver_from_host(st, event);
            Ok(OpValue::Unit)
        } else {
            Err(s)
        };
        st.finish_service(op, result);
    }
}

/// Records set `name` and raises `PMIX_PROCESS_SET_DEFINE`.
pub(super) fn define_pset(st: &mut State, name: &str, members: Vec<Proc>) -> Result<(), Status> {
    let value = Value::proc_array(&members);
    st.psets_mut().define(name, members)?;
    st.psets_mut().announce(name);
    raise_pset_event(st, PROCESS_SET_DEFINE, name, Some(value));
    Ok(())
}

/// Forgets set `name` and raises `PMIX_PROCESS_SET_DELETE`.
pub(super) fn delete_pset(st: &mut State, name: &str) -> Result<(), Status> {
    st.psets_mut().delete(name)?;
    raise_pset_event(st, PROCESS_SET_DELETE, name, None);
    Ok(())
}

fn raise_pset_event(st: &mut State, code: Status, name: &str, members: Option<Value>) {
    let event = pset_event(st, code, name, members);
    deliver_from_host(st, event);
}

/// Tells `proc`, which has just connected, of the process sets defined
/// with an event before it came (`PMIX_PROCESS_SET_DEFINE` for each, as at
/// their definition): OpenPMIx's server keeps its notifications for the
/// processes that register later, and a launcher defines its sets
/// (PRRTE's `--pset`) before its processes start.
pub(super) fn tell_defined_psets(st: &mut State, proc: &Proc) {
    let sets: Vec<(String, Value)> = st
        .psets()
        .announced()
        .into_iter()
        .map(|(n, m)| (n.to_owned(), Value::proc_array(m)))
        .collect();
    for (name, members) in sets {
        let event = pset_event(st, PROCESS_SET_DEFINE, &name, Some(members));
        if let Ok(body) = encode_event(&event) {
            st.conns_mut().send_event(proc, body);
        }
    }
}

/// A process-set event from this server.
fn pset_event(st: &State, code: Status, name: &str, members: Option<Value>) -> Event {
    let mut infos = Vec::with_capacity(3);
    let mut add = |k: &str, v: Value| {
        if let Ok(k) = Key::new(k) {
            infos.push(Info::new(k, v));
        }
    };
    add(keys::EVENT_NON_DEFAULT, Value::Bool(true));
    add(keys::PSET_NAME, Value::string(name));
    if let Some(m) = members {
        add(keys::PSET_MEMBERS, m);
    }
    Event {
        status: code,
        source: st.server_proc().clone(),
        range: Range::LOCAL,
        infos,
    }
}

/// Raises group event `code` from `source` to `targets`, with `infos`:
/// the local ones get it here; when some are elsewhere, the host carries
/// it to every node (this one too), as for any event.
pub(super) fn raise(
    st: &mut State,
    code: Status,
    source: &Proc,
    targets: &[Proc],
    mut infos: Vec<Info>,
) {
    infos.extend(Info::keyed(
        keys::EVENT_CUSTOM_RANGE,
        Value::proc_array(targets),
    ));
    let event = Event {
        status: code,
        source: source.clone(),
        range: Range::CUSTOM,
        infos,
    };
    let registry = st.registry().clone();
    let host = st.host();
    // The source hears of it too when it is a target (it did not raise
    // it itself: the server did, on its behalf).
    let to_source = |st: &mut State, event: &Event| {
        if targets.contains(source) {
            if let Ok(body) = encode_event(event) {
                st.conns_mut().send_event(source, body);
            }
        }
    };
    if host.fences_are_local() || targets.iter().all(|t| registry.is_local(t)) {
        to_source(st, &event);
        return deliver_from_host(st, event);
    }
    // The host brings it back to this node for the other local targets.
    to_source(st, &event);
    let (_, r) = st.upcall::<()>(PendingOp::Ignored, |h, done| {
        h.notify_event(code, source, Range::CUSTOM, &event.infos, done)
    });
    if let Err(s) = r {
        if s == Status::ERR_NOT_SUPPORTED {
            deliver_from_host(st, event);
        }
    }
}

/// An event the server raises about local process `event.source` (a
/// monitor's alert): as from the host (see [`deliver_from_host`]), and to
/// the source itself when its range reaches it, since the source did not
/// raise it. Nothing goes to the host's `notify_event`: as OpenPMIx's
/// sensors, the alert stays on this node (the host's handlers in the
/// server process hear it).
pub(super) fn raise_about(st: &mut State, event: Event) {
    if event.reaches(&event.source) {
        if let Ok(body) = encode_event(&event) {
            st.conns_mut().send_event(&event.source, body);
        }
    }
    deliver_from_host(st, event);
}

/// As [`raise`], with the server as the event's source.
pub(super) fn raise_from_server(st: &mut State, code: Status, targets: &[Proc], infos: Vec<Info>) {
    let me = st.server_proc().clone();
    raise(st, code, &me, targets, infos);
}

/// The infos of a group event about `id` (and `affected`).
pub(super) fn event_infos(id: &str, affected: Option<&Proc>) -> Vec<Info> {
    let mut v = Vec::with_capacity(3);
    v.extend(Info::keyed(keys::GROUP_ID, Value::string(id)));
    if let Some(p) = affected {
        v.extend(Info::keyed(
            keys::EVENT_AFFECTED_PROC,
            Value::Proc(p.clone()),
        ));
    }
    v
}
