//! The host module `pmixrun` gives its server. One node: a fence has no
//! other node to exchange with, so `fence_nb` completes at once with this
//! node's data. It has no `connect`/`disconnect`: every participant is
//! local, and the server completes an all-local set itself. What the main loop must act on (aborts, finalizes, lost
//! clients, spawn and job-control requests) is recorded in [`JobState`]
//! and announced with [`signals::wake`]. Published data lives in a
//! [`PublishedData`] store: one node, one session, so every namespace
//! `pmixrun` runs (and spawns) shares it.
//!
//! Groups: the server completes them itself (every member is local); the
//! host's `group` only assigns context ids, from a counter, so that no two
//! groups of this launcher's life share one.
//!
//! `PMIx_Log` messages go to `pmixrun`'s own stderr/stdout (or syslog),
//! each line prefixed with `[rank N] `. `PMIx_Job_control` acts on ranks of
//! the launched job (not of spawned ones): `PMIX_JOB_CTRL_KILL` (SIGKILL),
//! `PMIX_JOB_CTRL_TERMINATE` (SIGTERM), `PMIX_JOB_CTRL_SIGNAL` (the given
//! signal), `PMIX_JOB_CTRL_PAUSE`/`RESUME` (SIGSTOP/SIGCONT), sent by the
//! main loop to each target's process group. Queries are left to the
//! server's own answers (but for debug support, below), credentials to
//! the server's native ones; monitoring and allocation are refused with
//! `PMIX_ERR_NOT_SUPPORTED` (one node, no resource manager behind it).
//!
//! The proc tables come from [`JobState::started`] (`started_proc`: the
//! pid, absolute executable, state and exit code the main loop records);
//! the host's `query` answers `PMIX_QUERY_DEBUG_SUPPORT`, and
//! `PMIX_SERVER_URI` (the server's URI; with a `PMIX_HOSTNAME` qualifier
//! only for this node, as PRRTE answers for the node named).
//!
//! `push_stdin` (a tool's `PMIx_IOF_push`) is queued for the main loop,
//! which writes it to the targets' stdin pipes (see
//! [`crate::iof::StdinRouter`]). There is no `iof_pull`: every rank's
//! output goes to the server's `iof_deliver` anyway.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use pmix::group::GroupOp;
use pmix::keys;
use pmix::proc::state as proc_state;
use pmix::server::{
    Completion, HostModule, Participant, PublishedData, PublishedValue, StartedProc,
};
use pmix::value::App;
use pmix::{Info, Key, Nspace, Proc, Rank, Status, Value};

use crate::iof::StdinPush;
use crate::signals;

/// A rank's call to `PMIx_Abort`.
pub struct AbortRequest {
    pub proc: Proc,
    pub status: Status,
    pub message: Option<String>,
    /// Answered (dropped) only when the job is gone: the caller's
    /// `PMIx_Abort` does not return, as the standard says when the host
    /// terminates it.
    pub _done: Completion<()>,
}

/// A rank's call to `PMIx_Spawn`, for the main loop to carry out.
pub struct SpawnRequest {
    pub requestor: Proc,
    /// Job-level directives: only `PMIX_WDIR` is used (mapping, IOF, ...
    /// do not apply: everything runs here and every output is forwarded).
    pub job_info: Vec<Info>,
    pub apps: Vec<App>,
    /// Completed with the new namespace once its ranks are started.
    pub done: Completion<Nspace>,
}

/// A `PMIx_Job_control` request for the main loop: send `signal` to
/// `ranks` (`None`: every rank), then complete `done`.
pub struct ControlRequest {
    pub ranks: Option<Vec<u32>>,
    pub signal: i32,
    pub done: Completion<Vec<Info>>,
}

/// What the host saw of the jobs' clients.
#[derive(Default)]
pub struct JobState {
    /// The namespaces this launcher registered (the job and what it
    /// spawned).
    pub namespaces: HashSet<Nspace>,
    pub connected: HashSet<Proc>,
    pub finalized: HashSet<Proc>,
    pub aborts: Vec<AbortRequest>,
    pub spawns: Vec<SpawnRequest>,
    pub controls: Vec<ControlRequest>,
    /// Tools' `PMIx_IOF_push`es, for the main loop.
    pub stdin_pushes: Vec<StdinPush>,
    /// Every rank started, for the proc tables (pid, executable, state).
    pub started: HashMap<Proc, StartedProc>,
    /// Ranks whose connection closed before they finalized.
    pub lost: HashSet<Proc>,
    /// Those of `lost` that left while another rank still ran (neither
    /// finalized, lost nor exited): judged when the server saw the
    /// connection close, since the survivors that this departure fails
    /// may exit, and be reaped, before the rank that left.
    pub left_early: HashSet<Proc>,
}

/// The spawn attributes `pmixrun` honours: an application's working
/// directory and the debugger's (see [`crate::debug::ATTRS`]).
pub fn spawn_attrs() -> Vec<&'static str> {
    let mut v = vec![keys::WDIR];
    v.extend_from_slice(crate::debug::ATTRS);
    v
}

/// The job-control directives `pmixrun` carries out (see
/// [`control_signal`]).
pub const JOB_CONTROL_ATTRS: &[&str] = &[
    pmix::server::job_ctrl::KILL,
    pmix::server::job_ctrl::TERMINATE,
    pmix::server::job_ctrl::SIGNAL,
    pmix::server::job_ctrl::PAUSE,
    pmix::server::job_ctrl::RESUME,
];

/// Registers what this host's functions honour (`PMIx_Register_attributes`
/// of the Rust API), for `PMIX_QUERY_ATTRIBUTE_SUPPORT` and `pmix-info
/// --host`.
pub fn register_attributes() {
    let names = |keys: &[&str]| -> Vec<String> {
        keys.iter()
            .map(|k| {
                pmix::keys::by_string(k.as_bytes())
                    .map_or_else(|| (*k).to_owned(), |a| a.name.to_owned())
            })
            .collect()
    };
    let _ = pmix::attributes::register_host("spawn", names(&spawn_attrs()));
    let _ = pmix::attributes::register_host("job_control", names(JOB_CONTROL_ATTRS));
    let _ = pmix::attributes::register_host(
        "query",
        names(&[
            keys::QUERY_DEBUG_SUPPORT,
            keys::QUERY_SPAWN_SUPPORT,
            keys::SERVER_URI,
        ]),
    );
}

/// The signal a job-control request asks for.
fn control_signal(directives: &[Info]) -> Option<i32> {
    use pmix::server::job_ctrl;
    signal_of(
        directives,
        &[
            (job_ctrl::KILL, libc::SIGKILL),
            (job_ctrl::TERMINATE, libc::SIGTERM),
            (job_ctrl::PAUSE, libc::SIGSTOP),
            (job_ctrl::RESUME, libc::SIGCONT),
        ],
        job_ctrl::SIGNAL,
    )
}

/// The signal a session-control request asks for (`PMIX_SESSION_PAUSE`,
/// `_RESUME`, `_TERMINATE`, `_SIGNAL`), if it asks for one.
fn session_signal(directives: &[Info]) -> Option<i32> {
    use pmix::server::session_ctrl;
    signal_of(
        directives,
        &[
            (session_ctrl::TERMINATE, libc::SIGTERM),
            (session_ctrl::PAUSE, libc::SIGSTOP),
            (session_ctrl::RESUME, libc::SIGCONT),
        ],
        session_ctrl::SIGNAL,
    )
}

/// The first directive of `flags` set (a true or valueless bool) gives
/// its signal, or `signal` with a positive integer gives that one.
fn signal_of(directives: &[Info], flags: &[(&str, i32)], signal: &str) -> Option<i32> {
    directives.iter().find_map(|i| {
        let k = i.key.as_c_str().to_bytes();
        if k == signal.as_bytes() {
            return match i.value {
                Value::Int(n) | Value::Int32(n) if n > 0 => Some(n),
                _ => None,
            };
        }
        flags
            .iter()
            .find(|(name, _)| k == name.as_bytes() && pmix::info::ValueView::of(&i.value).flag())
            .map(|&(_, sig)| sig)
    })
}

pub struct RunHost {
    /// The launched job's namespace (job control acts on it).
    nspace: Nspace,
    /// The server's URI, for `PMIX_SERVER_URI` queries (set once it runs).
    server_uri: std::sync::OnceLock<String>,
    /// The last group context id handed out.
    context_ids: AtomicU64,
    pub state: Mutex<JobState>,
    published: PublishedData,
}

impl RunHost {
    pub fn new(nspace: Nspace) -> RunHost {
        let mut st = JobState::default();
        st.namespaces.insert(nspace.clone());
        RunHost {
            nspace,
            server_uri: std::sync::OnceLock::new(),
            context_ids: AtomicU64::new(0),
            state: Mutex::new(st),
            published: PublishedData::new(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, JobState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn ours(&self, proc: &Proc) -> bool {
        self.state().namespaces.contains(&proc.nspace)
    }

    /// The server runs at `uri` (answered to `PMIX_SERVER_URI` queries).
    pub fn set_server_uri(&self, uri: &str) {
        let _ = self.server_uri.set(uri.to_owned());
    }

    /// The answer to a `PMIX_SERVER_URI` query with `qualifiers`: this
    /// server's URI, if no `PMIX_HOSTNAME` names another node (as PRRTE
    /// answers with the URI of the daemon on the node named).
    fn server_uri_for(&self, qualifiers: &[Info]) -> Option<String> {
        let host = qualifiers
            .iter()
            .find(|i| i.key.as_bytes() == keys::HOSTNAME.as_bytes())
            .map(|i| i.value.as_str().unwrap_or_default());
        if host.is_some_and(|h| !pmix::server::names_this_host(h)) {
            return None;
        }
        self.server_uri.get().cloned()
    }

    /// `proc` runs as `pid`, the program `executable`.
    pub fn record_start(&self, proc: &Proc, pid: i32, executable: Option<String>) {
        let entry = StartedProc {
            pid,
            state: proc_state::RUNNING,
            exit_code: 0,
            executable,
        };
        self.state().started.insert(proc.clone(), entry);
    }

    /// `proc` ended with wait status `status`.
    pub fn record_exit(&self, proc: &Proc, status: i32) {
        if let Some(e) = self.state().started.get_mut(proc) {
            (e.state, e.exit_code) = if libc::WIFSIGNALED(status) {
                (proc_state::ABORTED_BY_SIG, 128 + libc::WTERMSIG(status))
            } else {
                match libc::WEXITSTATUS(status) {
                    0 => (proc_state::TERMINATED, 0),
                    c => (proc_state::TERM_NON_ZERO, c),
                }
            };
        }
    }
}

impl HostModule for RunHost {
    fn push_stdin(
        &self,
        _source: &Proc,
        targets: &[Proc],
        _directives: &[Info],
        data: Option<Vec<u8>>,
        done: Completion<()>,
    ) -> Result<(), Status> {
        self.state().stdin_pushes.push(StdinPush {
            targets: targets.to_vec(),
            data,
            done,
        });
        signals::wake();
        Ok(())
    }

    fn client_connected(&self, proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        if self.ours(proc) {
            let mut st = self.state();
            st.connected.insert(proc.clone());
            // Back after a lost connection: judged by how it ends now.
            st.left_early.remove(proc);
            st.lost.remove(proc);
        }
        done.complete(Ok(()));
        Ok(())
    }

    fn client_finalized(&self, proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        if self.ours(proc) {
            let mut st = self.state();
            st.finalized.insert(proc.clone());
            st.left_early.remove(proc);
        }
        self.published.proc_terminated(proc);
        done.complete(Ok(()));
        Ok(())
    }

    fn abort(
        &self,
        proc: &Proc,
        status: Status,
        message: Option<&str>,
        _procs: &[Proc],
        done: Completion<()>,
    ) -> Result<(), Status> {
        if !self.ours(proc) {
            return Err(Status::ERR_NOT_SUPPORTED);
        }
        // The whole job is torn down whichever processes were named: a
        // single-node launcher has no partial-job recovery.
        self.state().aborts.push(AbortRequest {
            proc: proc.clone(),
            status,
            message: message.map(str::to_owned),
            _done: done,
        });
        signals::wake();
        Ok(())
    }

    fn fences_are_local(&self) -> bool {
        // Every process is on this node and `fence_nb` completes at once.
        true
    }

    fn fence_nb(
        &self,
        _procs: &[Proc],
        _infos: &[Info],
        data: Vec<u8>,
        done: Completion<Vec<u8>>,
    ) -> Result<(), Status> {
        // Every participant is on this node: its data is everyone's.
        done.complete(Ok(data));
        Ok(())
    }

    fn group(
        &self,
        op: GroupOp,
        _id: &str,
        _procs: &[Proc],
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        // A failure report needs no answer; a destruct has nothing to give.
        let failed = directives.iter().any(|i| {
            i.key.as_bytes() == keys::LOCAL_COLLECTIVE_STATUS.as_bytes()
                && !matches!(i.value, Value::Status(0))
        });
        if op == GroupOp::Destruct || failed {
            return Err(Status::OPERATION_SUCCEEDED);
        }
        let id = self.context_ids.fetch_add(1, Ordering::Relaxed) + 1;
        let k = Key::new(keys::GROUP_CONTEXT_ID)?;
        done.complete(Ok(vec![Info::new(k, Value::Size(id as usize))]));
        Ok(())
    }

    fn started_proc(&self, proc: &Proc) -> Option<StartedProc> {
        let st = self.state();
        let mut p = st.started.get(proc).cloned()?;
        // As PRRTE reports a rank that registered with its server.
        if p.state == proc_state::RUNNING
            && st.connected.contains(proc)
            && !st.finalized.contains(proc)
        {
            p.state = proc_state::CONNECTED;
        }
        Some(p)
    }

    fn query(
        &self,
        _proc: &Proc,
        queries: &[pmix::value::Query],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        // The server answered what it knows; this launcher adds what it
        // supports for spawns and debuggers (comma-separated key strings,
        // as PRRTE answers).
        let mut answers = Vec::new();
        for (q, k) in queries
            .iter()
            .flat_map(|q| q.keys.iter().map(move |k| (q, k)))
        {
            let list = match k.to_str() {
                Ok(keys::QUERY_DEBUG_SUPPORT) => crate::debug::ATTRS.to_vec(),
                Ok(keys::QUERY_SPAWN_SUPPORT) => spawn_attrs(),
                Ok(keys::SERVER_URI) => {
                    if let Some(uri) = self.server_uri_for(&q.qualifiers) {
                        answers.push(Info::new(Key::new(keys::SERVER_URI)?, Value::string(&uri)));
                    }
                    continue;
                }
                _ => continue,
            };
            answers.push(Info::new(
                Key::new(k.to_str().unwrap_or(""))?,
                Value::string(&list.join(",")),
            ));
        }
        if answers.is_empty() {
            return Err(Status::ERR_NOT_SUPPORTED);
        }
        done.complete(Ok(answers));
        Ok(())
    }

    fn client_lost(&self, proc: &Proc) {
        self.published.proc_terminated(proc);
        if self.ours(proc) {
            let mut guard = self.state();
            let st = &mut *guard;
            let others_run = st.started.iter().any(|(p, s)| {
                p != proc
                    && s.state == proc_state::RUNNING
                    && !st.finalized.contains(p)
                    && !st.lost.contains(p)
            });
            // One that never connected (a program that does not use
            // PMIx, or died starting up) is judged by its exit status.
            if others_run && st.connected.contains(proc) {
                st.left_early.insert(proc.clone());
            }
            st.lost.insert(proc.clone());
            drop(guard);
            signals::wake();
        }
    }

    fn spawn(
        &self,
        requestor: &Proc,
        job_info: &[Info],
        apps: &[App],
        done: Completion<Nspace>,
    ) -> Result<(), Status> {
        self.state().spawns.push(SpawnRequest {
            requestor: requestor.clone(),
            job_info: job_info.to_vec(),
            apps: apps.to_vec(),
            done,
        });
        signals::wake();
        Ok(())
    }

    fn publish(&self, proc: &Proc, infos: &[Info], done: Completion<()>) -> Result<(), Status> {
        done.complete(
            self.published
                .publish(&Participant::local(proc.clone()), infos),
        );
        Ok(())
    }

    fn lookup(
        &self,
        proc: &Proc,
        keys: &[Key],
        infos: &[Info],
        done: Completion<Vec<PublishedValue>>,
    ) -> Result<(), Status> {
        self.published.lookup(
            &Participant::local(proc.clone()),
            keys,
            infos,
            Box::new(move |r| done.complete(r)),
        );
        Ok(())
    }

    fn unpublish(
        &self,
        proc: &Proc,
        keys: &[Key],
        infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        let keys = (!keys.is_empty()).then_some(keys);
        done.complete(
            self.published
                .unpublish(&Participant::local(proc.clone()), keys, infos),
        );
        Ok(())
    }

    fn log(
        &self,
        proc: &Proc,
        data: &[Info],
        directives: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        let src = pmix::server::log_source(proc, directives);
        let prefix = if src.nspace == self.nspace {
            format!("[rank {}] ", src.rank.0)
        } else {
            format!("[{}:{}] ", src.nspace.to_string_lossy(), src.rank.0)
        };
        done.complete(pmix::server::log_locally(&prefix, data, directives));
        Ok(())
    }

    fn job_control(
        &self,
        proc: &Proc,
        targets: &[Proc],
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        if proc.nspace != self.nspace {
            return Err(Status::ERR_NOT_SUPPORTED);
        }
        let signal = control_signal(directives).ok_or(Status::ERR_NOT_SUPPORTED)?;
        let mut ranks = Some(Vec::new());
        for t in targets {
            if t.nspace != self.nspace {
                return Err(Status::ERR_BAD_PARAM);
            }
            if t.rank == Rank::WILDCARD {
                ranks = None;
                break;
            }
            if let Some(r) = ranks.as_mut() {
                r.push(t.rank.0);
            }
        }
        if targets.is_empty() {
            ranks = None;
        }
        self.state().controls.push(ControlRequest {
            ranks,
            signal,
            done,
        });
        signals::wake();
        Ok(())
    }

    /// `PMIx_Session_control` on pmixrun's one session (id 0, or
    /// `session_ctrl::ALL`): pause, resume, terminate or signal every
    /// rank; other ids are `PMIX_ERR_NOT_FOUND`, other directives
    /// (provisioning, preemption) `PMIX_ERR_NOT_SUPPORTED`.
    fn session_control(
        &self,
        _proc: &Proc,
        session: u32,
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        if session != 0 && session != pmix::server::session_ctrl::ALL {
            return Err(Status::ERR_NOT_FOUND);
        }
        let signal = session_signal(directives).ok_or(Status::ERR_NOT_SUPPORTED)?;
        self.state().controls.push(ControlRequest {
            ranks: None,
            signal,
            done,
        });
        signals::wake();
        Ok(())
    }
}
