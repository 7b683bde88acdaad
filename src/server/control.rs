//! The server's side of `PMIx_Log` (`Op::LOG`), `PMIx_Job_control`
//! (`Op::JOB_CONTROL`), `PMIx_Process_monitor` (`Op::MONITOR`),
//! `PMIx_Allocation_request` (`Op::ALLOCATE`) and the credential calls
//! (`Op::GET_CREDENTIAL`, `Op::VALIDATE_CREDENTIAL`).
//!
//! Each is handed to the host's callback of the same name. A log request
//! the host does not handle (no callback, or `PMIX_ERR_NOT_SUPPORTED`) is
//! logged by the server itself with [`log_locally`]: `PMIX_LOG_STDERR`,
//! `PMIX_LOG_STDOUT` and the syslog channels. Credentials fall back on the
//! server's native ones ([`super::credential`]). Job control, monitoring
//! and allocation have no server default: without the host they fail with
//! `PMIX_ERR_NOT_SUPPORTED`.
//!
//! The server's own process reaches the host the same way for log,
//! job control and session control ([`Server::log_nb`],
//! [`Server::job_control_nb`], [`Server::session_control_nb`]).
//!
//! Invariant: every log, job-control, monitor, allocation and credential
//! request gets exactly one answer: the host's, the server's default, or
//! `PMIX_ERR_NOT_SUPPORTED`.

use std::ffi::CString;
use std::io::Write;

use super::clients::connections::Caller;
use super::query::{Tap, NOBODY};
use super::state::State;
use super::Server;
use crate::info::value_of;
use crate::wire::rm;
use crate::{keys, Info, Proc, Status, Value};

// attrs begin: PMIx_Log PMIx_Log_nb
/// `PMIX_LOG_ONCE`: the first channel that takes the message ends it.
const LOG_ONCE: &str = keys::LOG_ONCE;
/// `PMIX_LOG_SYSLOG_PRI`.
const LOG_SYSLOG_PRI: &str = keys::LOG_SYSLOG_PRI;
/// `PMIX_LOG_TIMESTAMP`.
const LOG_TIMESTAMP: &str = keys::LOG_TIMESTAMP;
/// `PMIX_LOG_GENERATE_TIMESTAMP`.
const LOG_GENERATE_TIMESTAMP: &str = keys::LOG_GENERATE_TIMESTAMP;
/// `PMIX_LOG_TIMESTAMP_OUTPUT`.
const LOG_TIMESTAMP_OUTPUT: &str = keys::LOG_TIMESTAMP_OUTPUT;
/// `PMIX_LOG_TAG_OUTPUT`.
const LOG_TAG_OUTPUT: &str = keys::LOG_TAG_OUTPUT;
/// `PMIX_LOG_SOURCE`.
pub const LOG_SOURCE: &str = keys::LOG_SOURCE;
/// `PMIX_LOG_STDERR`.
pub const LOG_STDERR: &str = keys::LOG_STDERR;
/// `PMIX_LOG_STDOUT`.
pub const LOG_STDOUT: &str = keys::LOG_STDOUT;
/// `PMIX_LOG_SYSLOG`, `PMIX_LOG_LOCAL_SYSLOG`, `PMIX_LOG_GLOBAL_SYSLOG`.
const LOG_SYSLOGS: [&str; 3] = [
    keys::LOG_SYSLOG,
    keys::LOG_LOCAL_SYSLOG,
    keys::LOG_GLOBAL_SYSLOG,
];
// attrs end

fn flag(infos: &[Info], key: &str) -> bool {
    match value_of(infos, key) {
        Some(Value::Bool(b)) => *b,
        Some(Value::Undef) => true,
        _ => false,
    }
}

/// The source a log request names (`PMIX_LOG_SOURCE`), else `requester`.
pub fn log_source(requester: &Proc, directives: &[Info]) -> Proc {
    match value_of(directives, LOG_SOURCE) {
        Some(Value::Proc(p)) => p.clone(),
        _ => requester.clone(),
    }
}

/// The timestamp a log request asks for (`PMIX_LOG_TIMESTAMP`, or now
/// under `PMIX_LOG_GENERATE_TIMESTAMP`), in seconds since the epoch.
pub fn log_timestamp(directives: &[Info]) -> Option<i64> {
    match value_of(directives, LOG_TIMESTAMP) {
        Some(Value::Time(t)) | Some(Value::Int64(t)) => return Some(*t),
        Some(Value::Uint64(t)) => return i64::try_from(*t).ok(),
        _ => {}
    }
    if flag(directives, LOG_GENERATE_TIMESTAMP) {
        return std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .and_then(|d| i64::try_from(d.as_secs()).ok());
    }
    None
}

/// The text of a logged datum: a string, or a byte object read as text.
pub fn log_text(v: &Value) -> Option<String> {
    match v {
        Value::String(Some(s)) => Some(s.to_string_lossy().into_owned()),
        Value::ByteObject(b) => Some(String::from_utf8_lossy(b).into_owned()),
        _ => None,
    }
}

/// How [`log_locally`] writes a line to a standard stream.
fn stream_line(prefix: &str, channel: &str, tag: bool, stamp: Option<i64>, text: &str) -> String {
    let mut line = String::new();
    if let Some(t) = stamp {
        line.push_str(&format!("[{t}] "));
    }
    if tag {
        line.push_str(channel);
        line.push_str(": ");
    }
    line.push_str(prefix);
    line.push_str(text.trim_end_matches('\n'));
    line.push('\n');
    line
}

/// Logs `data` the way a server without a logging host does: to this
/// process's stderr (`PMIX_LOG_STDERR`), stdout (`PMIX_LOG_STDOUT`) or
/// syslog (`PMIX_LOG_SYSLOG`, at `PMIX_LOG_SYSLOG_PRI`, default
/// `LOG_ERR`), each line prefixed with `prefix`. Honours `PMIX_LOG_ONCE`
/// (only the first channel that succeeds), `PMIX_LOG_TAG_OUTPUT` and the
/// timestamp directives. `PMIX_ERR_NOT_SUPPORTED` if no datum names a
/// channel it knows, `PMIX_ERR_PARTIAL_SUCCESS` if some do not.
pub fn log_locally(prefix: &str, data: &[Info], directives: &[Info]) -> Result<(), Status> {
    let once = flag(directives, LOG_ONCE) || flag(data, LOG_ONCE);
    let tag = flag(directives, LOG_TAG_OUTPUT);
    let stamp = if flag(directives, LOG_TIMESTAMP_OUTPUT)
        || value_of(directives, LOG_TIMESTAMP).is_some()
    {
        log_timestamp(directives)
    } else {
        None
    };
    let pri = match value_of(directives, LOG_SYSLOG_PRI) {
        Some(Value::Int(p)) | Some(Value::Int32(p)) => *p,
        _ => libc::LOG_ERR,
    };
    let (mut done, mut skipped) = (0usize, 0usize);
    for d in data {
        let key = d.key.as_c_str().to_bytes();
        if key == LOG_ONCE.as_bytes() {
            continue;
        }
        let Some(text) = log_text(&d.value) else {
            skipped += 1;
            continue;
        };
        let ok = if key == LOG_STDERR.as_bytes() {
            let line = stream_line(prefix, "stderr", tag, stamp, &text);
            std::io::stderr().write_all(line.as_bytes()).is_ok()
        } else if key == LOG_STDOUT.as_bytes() {
            let line = stream_line(prefix, "stdout", tag, stamp, &text);
            let mut out = std::io::stdout().lock();
            out.write_all(line.as_bytes()).is_ok() && out.flush().is_ok()
        } else if LOG_SYSLOGS.iter().any(|s| s.as_bytes() == key) {
            syslog(pri, &format!("{prefix}{text}"))
        } else {
            false
        };
        if ok {
            done += 1;
            if once {
                return Ok(());
            }
        } else {
            skipped += 1;
        }
    }
    match (done, skipped) {
        (0, _) => Err(Status::ERR_NOT_SUPPORTED),
        (_, 0) => Ok(()),
        _ => Err(Status::ERR_PARTIAL_SUCCESS),
    }
}

fn syslog(pri: i32, msg: &str) -> bool {
    let Ok(m) = CString::new(msg.replace('\0', " ")) else {
        return false;
    };
    crate::sys::syslog(pri, &m);
    true
}

impl Server {
    /// `PMIx_Log_nb` in the server's own process: handed to the host's
    /// `log` with the server as the source, else logged by the server
    /// ([`log_locally`]). `cb` runs on the server's progress thread.
    pub fn log_nb(
        &self,
        data: Vec<Info>,
        directives: Vec<Info>,
        cb: Box<dyn FnOnce(Status) + Send + 'static>,
    ) -> Result<(), Status> {
        if data.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let me = self.proc();
        let tap: Tap = Box::new(move |r| cb(r.as_ref().err().copied().unwrap_or(Status::SUCCESS)));
        if self.run_on_loop(move |el| log_for(el, NOBODY, &me, data, directives, Some(tap))) {
            Ok(())
        } else {
            Err(Status::ERR_INIT)
        }
    }
}

/// Handles `Op::LOG` from `proc`.
pub(super) fn log(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    match rm::get_two_lists(body) {
        Ok((data, directives)) => log_for(st, caller, proc, data, directives, None),
        Err(e) => st.respond(caller, Err(e.status())),
    }
}

/// Logs `data` for `proc`, answering `caller` and `tap` (see
/// [`super::query`]).
fn log_for(
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
fn job_control_for(
    st: &mut State,
    caller: Caller,
    proc: &Proc,
    targets: Vec<Proc>,
    directives: Vec<Info>,
    tap: Option<Tap>,
) {
    let (op, done) = st.host_op_or_fallback(caller, move |r: Result<Vec<Info>, Status>| {
        let r = r.and_then(|infos| rm::put_list(&infos).map_err(Status::from));
        if let Some(t) = tap {
            t(&r);
        }
        r
    });
    let host = st.host();
    if let Err(s) = host.job_control(proc, &targets, &directives, done) {
        st.finish_service(op, Err(s));
    }
}

impl Server {
    /// `PMIx_Job_control_nb` in the server's own process: the host's
    /// `job_control` gets the request as from this server's process
    /// (OpenPMIx hands it over the same way); `cb` gets its answer, on
    /// the progress thread.
    pub fn job_control_nb(
        &self,
        targets: Vec<Proc>,
        directives: Vec<Info>,
        cb: Box<dyn FnOnce(Result<Vec<Info>, Status>) + Send + 'static>,
    ) -> Result<(), Status> {
        let me = self.proc();
        let tap: Tap = Box::new(move |r| {
            cb(r.clone()
                .and_then(|b| rm::get_list(&b).map_err(|_| Status::ERR_UNPACK_FAILURE)))
        });
        if self
            .run_on_loop(move |el| job_control_for(el, NOBODY, &me, targets, directives, Some(tap)))
        {
            Ok(())
        } else {
            Err(Status::ERR_INIT)
        }
    }
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
fn session_control_for(
    st: &mut State,
    caller: Caller,
    proc: &Proc,
    session: u32,
    directives: Vec<Info>,
    tap: Option<Tap>,
) {
    let (op, done) = st.host_op_or_fallback(caller, move |r: Result<Vec<Info>, Status>| {
        let r = r.and_then(|infos| rm::put_list(&infos).map_err(Status::from));
        if let Some(t) = tap {
            t(&r);
        }
        r
    });
    let host = st.host();
    if let Err(s) = host.session_control(proc, session, &directives, done) {
        st.finish_service(op, Err(s));
    }
}

impl Server {
    /// `PMIx_Session_control` in the server's own process: the host's
    /// `session_control` gets the request as from this server's process;
    /// `cb` gets its answer.
    pub fn session_control_nb(
        &self,
        session: u32,
        directives: Vec<Info>,
        cb: Box<dyn FnOnce(Result<Vec<Info>, Status>) + Send + 'static>,
    ) -> Result<(), Status> {
        let me = self.proc();
        let tap: Tap = Box::new(move |r| {
            cb(r.clone()
                .and_then(|b| rm::get_list(&b).map_err(|_| Status::ERR_UNPACK_FAILURE)))
        });
        if self.run_on_loop(move |el| {
            session_control_for(el, NOBODY, &me, session, directives, Some(tap))
        }) {
            Ok(())
        } else {
            Err(Status::ERR_INIT)
        }
    }
}

/// Handles `Op::MONITOR` from `proc`.
pub(super) fn monitor(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    let (monitor, error, directives) = match rm::get_monitor(body) {
        Ok(v) => v,
        Err(e) => return st.respond(caller, Err(e.status())),
    };
    let (op, done) = st.host_op(caller, |r: Vec<Info>| {
        rm::put_list(&r).map_err(Status::from)
    });
    let host = st.host();
    if let Err(s) = host.monitor(proc, &monitor, error, &directives, done) {
        st.finish_service(op, Err(s));
    }
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
        .conns
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Key;

    #[test]
    fn unknown_channels_are_not_supported() {
        let d = vec![Info::new(
            Key::new("pmix.log.email").unwrap(),
            Value::string("x"),
        )];
        assert_eq!(log_locally("", &d, &[]), Err(Status::ERR_NOT_SUPPORTED));
    }

    #[test]
    fn stream_lines_carry_tag_and_timestamp() {
        assert_eq!(
            stream_line("[j:1] ", "stderr", true, Some(5), "hi\n"),
            "[5] stderr: [j:1] hi\n"
        );
    }
}
