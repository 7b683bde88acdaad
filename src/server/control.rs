//! The server's side of `PMIx_Log` (`Op::LOG`), `PMIx_Job_control`
//! (`Op::JOB_CONTROL`), `PMIx_Process_monitor` (`Op::MONITOR`),
//! `PMIx_Allocation_request` (`Op::ALLOCATE`), the credential calls
//! (`Op::GET_CREDENTIAL`, `Op::VALIDATE_CREDENTIAL`) and the fabric
//! requests of `PMIx_Fabric_register`/`_update` (`Op::FABRIC`).
//!
//! Each is handed to the host's callback of the same name. A log request
//! the host does not handle (no callback, or `PMIX_ERR_NOT_SUPPORTED`) is
//! logged by the server itself with [`log_locally`]: `PMIX_LOG_STDERR`,
//! `PMIX_LOG_STDOUT` and the syslog channels. Credentials fall back on the
//! server's native ones ([`super::credential`]). Monitoring the host does
//! not serve is the library's ([`super::monitor`]). Job control,
//! allocation and fabric requests have no server default: without the host they fail with
//! `PMIX_ERR_NOT_SUPPORTED`.
//!
//! The server's own process reaches the host the same way for log,
//! job control and session control ([`Server::log_nb`](crate::server::Server::log_nb),
//! [`Server::job_control_nb`](crate::server::Server::job_control_nb), [`Server::session_control_nb`](crate::server::Server::session_control_nb)).
//!
//! Invariant: every log, job-control, monitor, allocation and credential
//! request gets exactly one answer: the host's, the server's default, or
//! `PMIX_ERR_NOT_SUPPORTED`.

use super::clients::connections::Caller;
use super::host::{Completion, HostModule};
use super::host_side::local_log::{log_locally, log_source, LOG_SOURCE};
use super::query::Tap;
use super::state::State;
use crate::info::value_of;
use crate::wire::rm;
use crate::{Info, Proc, Status, Value};

/// Handles `Op::LOG` from `proc`.
pub(super) fn log(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    match rm::get_two_lists(body) {
        Ok((data, directives)) => log_for(st, caller, proc, data, directives, None),
        Err(e) => st.respond(caller, Err(e.status())),
    }
}

/// Logs `data` for `proc`, answering `caller` and `tap` (see
/// [`super::query`]).
pub(super) fn log_for(
    st: &mut State,
    caller: Caller,
    proc: &Proc,
    data: Vec<Info>,
    mut directives: Vec<Info>,
    tap: Option<Tap>,
) {
    if value_of(&directives, LOG_SOURCE).is_none() {
        if let Ok(k) = crate::Key::new(LOG_SOURCE) {
            directives.push(Info::new(k, Value::Proc(proc.clone())));
        }
    }
    let source = log_source(proc, &directives);
    let (d, dirs) = (data.clone(), directives.clone());
    let (op, done) = st.host_op_or_fallback(caller, move |r: Result<(), Status>| {
        let r = match r {
            Ok(()) => Ok(Vec::new()),
            Err(Status::ERR_NOT_SUPPORTED) => {
                let prefix = format!("[{}:{}] ", source.nspace.to_string_lossy(), source.rank.0);
                log_locally(&prefix, &d, &dirs).map(|()| Vec::new())
            }
            Err(s) => Err(s),
        };
        if let Some(t) = tap {
            t(&r);
        }
        r
    });
    let host = st.host();
    if let Err(s) = host.log(proc, &data, &directives, done) {
        st.finish_service(op, Err(s));
    }
}

/// Handles `Op::JOB_CONTROL` from `proc`.
pub(super) fn job_control(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    let (targets, directives) = match rm::get_job_control(body) {
        Ok(v) => v,
        Err(e) => return st.respond(caller, Err(e.status())),
    };
    job_control_for(st, caller, proc, targets, directives, None);
}

/// Hands `proc`'s job-control request to the host, answering `caller`
/// and `tap` (see [`super::query`]).
pub(super) fn job_control_for(
    st: &mut State,
    caller: Caller,
    proc: &Proc,
    targets: Vec<Proc>,
    directives: Vec<Info>,
    tap: Option<Tap>,
) {
    host_list_call(st, caller, tap, |host, done| {
        host.job_control(proc, &targets, &directives, done)
    });
}

/// Handles `Op::SESSION_CONTROL` from `proc`.
pub(super) fn session_control(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    match rm::get_session_control(body) {
        Ok((session, directives)) => {
            session_control_for(st, caller, proc, session, directives, None)
        }
        Err(e) => st.respond(caller, Err(e.status())),
    }
}

/// Hands `proc`'s session-control request to the host, answering
/// `caller` and `tap` (see [`super::query`]).
pub(super) fn session_control_for(
    st: &mut State,
    caller: Caller,
    proc: &Proc,
    session: u32,
    directives: Vec<Info>,
    tap: Option<Tap>,
) {
    host_list_call(st, caller, tap, |host, done| {
        host.session_control(proc, session, &directives, done)
    });
}

/// Handles `Op::FABRIC` from `proc`.
pub(super) fn fabric(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    match rm::get_fabric(body) {
        Ok((op, directives)) => fabric_for(st, caller, proc, op, directives, None),
        Err(e) => st.respond(caller, Err(e.status())),
    }
}

/// Hands `proc`'s fabric request to the host, answering `caller` and
/// `tap` (see [`super::query`]). No server default: a host without
/// `fabric` answers `PMIX_ERR_NOT_SUPPORTED`, and the calling library
/// then describes its node itself.
pub(super) fn fabric_for(
    st: &mut State,
    caller: Caller,
    proc: &Proc,
    op: u8,
    directives: Vec<Info>,
    tap: Option<Tap>,
) {
    host_list_call(st, caller, tap, |host, done| {
        host.fabric(proc, op, &directives, done)
    });
}

/// Hands a request answered by a list of infos to the host through
/// `call`, answering `caller` with the encoded list, and `tap`; a refusal
/// at once answers with its status.
fn host_list_call(
    st: &mut State,
    caller: Caller,
    tap: Option<Tap>,
    call: impl FnOnce(&dyn HostModule, Completion<Vec<Info>>) -> Result<(), Status>,
) {
    let (op, done) = st.host_op_or_fallback(caller, move |r: Result<Vec<Info>, Status>| {
        let r = r.and_then(|infos| rm::put_list(&infos).map_err(Status::from));
        if let Some(t) = tap {
            t(&r);
        }
        r
    });
    let host = st.host();
    if let Err(s) = call(host.as_ref(), done) {
        st.finish_service(op, Err(s));
    }
}

/// Handles `Op::MONITOR` from `proc`: the host's, else the library's
/// own monitors (see [`super::monitor`]).
pub(super) fn monitor(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    super::monitor::service::serve(st, caller, proc, body);
}

/// Handles `Op::ALLOCATE` from `proc`.
pub(super) fn allocate(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    let (directive, infos) = match rm::get_allocate(body) {
        Ok(v) => v,
        Err(e) => return st.respond(caller, Err(e.status())),
    };
    let (op, done) = st.host_op(caller, |r: Vec<Info>| {
        rm::put_list(&r).map_err(Status::from)
    });
    let host = st.host();
    if let Err(s) = host.allocate(proc, directive, &infos, done) {
        st.finish_service(op, Err(s));
    }
}

/// Handles `Op::GET_CREDENTIAL` from `proc`: the host's credential,
/// else a native one (see [`super::credential`]).
pub(super) fn get_credential(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    let directives = match rm::get_list(body) {
        Ok(v) => v,
        Err(e) => return st.respond(caller, Err(e.status())),
    };
    let native = st
        .conns()
        .peer_creds(proc)
        .map(|c| super::credential::issue(proc, c));
    let (op, done) = st.host_op_or_fallback(
        caller,
        move |r: Result<(Vec<u8>, Vec<Info>), Status>| match r {
            Ok((cred, infos)) => rm::put_credential(&cred, &infos).map_err(Status::from),
            Err(Status::ERR_NOT_SUPPORTED) => {
                let cred = native.ok_or(Status::ERR_NOT_SUPPORTED)?;
                rm::put_credential(&cred, &[]).map_err(Status::from)
            }
            Err(s) => Err(s),
        },
    );
    let host = st.host();
    if let Err(s) = host.get_credential(proc, &directives, done) {
        st.finish_service(op, Err(s));
    }
}

/// Handles `Op::VALIDATE_CREDENTIAL` from `proc`: the host's verdict,
/// else the native check (see [`super::credential`]).
pub(super) fn validate_credential(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    let (cred, directives) = match rm::get_credential(body) {
        Ok(v) => v,
        Err(e) => return st.respond(caller, Err(e.status())),
    };
    let c2 = cred.clone();
    let (op, done) = st.host_op_or_fallback(caller, move |r: Result<Vec<Info>, Status>| {
        let infos = match r {
            Err(Status::ERR_NOT_SUPPORTED) => super::credential::validate(&c2)?,
            r => r?,
        };
        rm::put_list(&infos).map_err(Status::from)
    });
    let host = st.host();
    if let Err(s) = host.validate_credential(proc, &cred, &directives, done) {
        st.finish_service(op, Err(s));
    }
}

/// The keys of the job-control directives `pmixrun` and other hosts act
/// on, re-exported for hosts under short names.
pub mod job_ctrl {
    pub use crate::keys::{
        JOB_CTRL_KILL as KILL, JOB_CTRL_PAUSE as PAUSE, JOB_CTRL_RESUME as RESUME,
        JOB_CTRL_SIGNAL as SIGNAL, JOB_CTRL_TERMINATE as TERMINATE,
    };
}

/// The session-control directives a host acts on by signalling the
/// session's processes, re-exported for hosts under short names, and the
/// session id that names them all.
pub mod session_ctrl {
    pub use crate::keys::{
        SESSION_PAUSE as PAUSE, SESSION_RESUME as RESUME, SESSION_SIGNAL as SIGNAL,
        SESSION_TERMINATE as TERMINATE,
    };
    /// The session id that names every session under the caller's
    /// control (the standard's "NULL" session id).
    pub const ALL: u32 = u32::MAX;
}
