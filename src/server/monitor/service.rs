//! `Op::MONITOR` on the progress thread: who serves a request (the host
//! or the library), the looks the timers bring, and departures.
//!
//! Order, for each kind of request ([`Kind`]):
//! - a monitor (`PMIX_MONITOR_HEARTBEAT`, `PMIX_MONITOR_FILE`) or any
//!   other kind goes to the host's `monitor` first; if the host has none
//!   or answers `PMIX_ERR_NOT_SUPPORTED` (at once or later), the library
//!   runs the monitor itself (an unknown kind stays
//!   `PMIX_ERR_NOT_SUPPORTED`);
//! - a beat (`PMIX_SEND_HEARTBEAT`) of a process the library watches is
//!   counted here; any other beat goes to the host, whose monitors it may
//!   feed, and is answered with success whatever the host says of it (a
//!   beat nobody watches is no error);
//! - a cancel naming a monitor the library runs ends it here; one naming
//!   none of them goes to the host (`PMIX_ERR_NOT_FOUND` if the host has
//!   no monitor either); a cancel of all ends the library's and goes to
//!   the host too.
//!
//! An alert goes, as OpenPMIx's server raises it, to the local clients in
//! its range and the server's own handlers (the host's, in its process) —
//! and to the monitored process itself, which did not raise it (see
//! [`events::raise_about`]).
//!
//! Invariant: every request gets one answer (see [`State::respond`]); a
//! request at the host is answered by the host's completion or by the
//! library after it ([`host_done`]).

use std::time::Instant;

use super::request::{Asked, Kind, Spec};
use crate::server::clients::connections::Caller;
use crate::server::events;
use crate::server::host::{take_result, OpResult};
use crate::server::ops::PendingOp;
use crate::server::state::State;
use crate::wire::rm;
use crate::{Info, Proc, Status};

/// Handles `Op::MONITOR` from `proc`.
pub(in crate::server) fn serve(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    let (monitor, error, directives) = match rm::get_monitor(body) {
        Ok(v) => v,
        Err(e) => return st.respond(caller, Err(e.status())),
    };
    let asked = Asked {
        caller,
        proc: proc.clone(),
        monitor,
        error,
        directives,
    };
    let kind = match super::request::classify(&asked.monitor) {
        Ok(k) => k,
        Err(e) => return st.respond(caller, Err(e.status())),
    };
    match kind {
        Kind::Beat if st.monitors().watches_beats_of(proc) => {
            st.monitors_mut().beat(proc);
            answer(st, caller, Ok(Vec::new()));
        }
        Kind::Cancel(Some(name)) if st.monitors().has(proc, &name) => {
            st.cancel_monitors(proc, Some(&name));
            answer(st, caller, Ok(Vec::new()));
        }
        Kind::Cancel(None) => {
            st.cancel_monitors(proc, None);
            to_host(st, asked);
        }
        _ => to_host(st, asked),
    }
}

/// Hands `asked` to the host; a host without monitoring leaves it to the
/// library at once.
fn to_host(st: &mut State, asked: Asked) {
    let a = asked.clone();
    let (_, r) = st.upcall::<Vec<Info>>(PendingOp::Monitor(Box::new(asked)), |h, done| {
        h.monitor(&a.proc, &a.monitor, a.error, &a.directives, done)
    });
    match r {
        Ok(()) => {}
        Err(Status::ERR_NOT_SUPPORTED) => by_library(st, a),
        Err(s) => answer(st, a.caller, Err(s)),
    }
}

/// The host completed `asked`.
pub(in crate::server) fn host_done(st: &mut State, asked: Asked, result: OpResult) {
    match take_result::<Vec<Info>>(result) {
        Err(Status::ERR_NOT_SUPPORTED) => by_library(st, asked),
        // A beat is answered with success whatever the host made of it.
        r => {
            let r = match super::request::classify(&asked.monitor) {
                Ok(Kind::Beat) => Ok(Vec::new()),
                _ => r,
            };
            answer(st, asked.caller, r)
        }
    }
}

/// Serves `asked`, which the host does not: the library's own monitors.
fn by_library(st: &mut State, asked: Asked) {
    let r = match super::request::classify(&asked.monitor) {
        Ok(Kind::Beat) | Ok(Kind::Cancel(None)) => Ok(Vec::new()),
        Ok(Kind::Cancel(Some(_))) => Err(Status::ERR_NOT_FOUND),
        Ok(Kind::Sensor) => match Spec::read(&asked.monitor, asked.error, &asked.directives) {
            Ok(spec) => {
                st.start_monitor(asked.proc.clone(), spec, Instant::now());
                Ok(Vec::new())
            }
            Err(e) => Err(e.status()),
        },
        Ok(Kind::Other) => Err(Status::ERR_NOT_SUPPORTED),
        Err(e) => Err(e.status()),
    };
    answer(st, asked.caller, r);
}

fn answer(st: &mut State, caller: Caller, r: Result<Vec<Info>, Status>) {
    let r = r.and_then(|infos| rm::put_list(&infos).map_err(Status::from));
    st.respond(caller, r);
}

/// Monitor `n`'s look is due: raises its alert if it has one.
pub(in crate::server) fn tick(st: &mut State, n: u64) {
    if let Some(alert) = st.tick_monitor(n, Instant::now()) {
        events::raise_about(st, alert);
    }
}

/// `proc` departed: its monitors end.
pub(in crate::server) fn departed(st: &mut State, proc: &Proc) {
    st.cancel_monitors(proc, None);
}
