//! The jobs as the main loop tracks them ([`Job`]): the command line's
//! and those its ranks spawned, each rank's state ([`RankState`]), how it
//! was started ([`Origin`]), and what a rank's end, an abort or a
//! control request does to the rest (failure, teardown, `SIGKILL` after
//! [`GRACE`]).
//!
//! Invariants: `running` counts the ranks not yet reaped (debugger
//! daemons included, also counted in `daemons_running`); the first
//! failure's status is kept; a teardown sends `SIGKILL` once.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix::server::Server;
use pmix::{keys, Info, Key, Nspace, Proc, Value};

use crate::host::RunHost;
use crate::iof::StdinRouter;
use crate::{debug, job_end, signals, sys};

/// Between `SIGTERM` and `SIGKILL` when tearing a job down.
pub(crate) const GRACE: Duration = Duration::from_secs(3);

pub(crate) struct RankState {
    pub(crate) proc: Proc,
    pub(crate) pid: i32,
    pub(crate) program: String,
    pub(crate) running: bool,
    /// Started by a `PMIx_Spawn` (not on the command line).
    pub(crate) spawned: bool,
    /// A debugger daemon: not counted for the exit status (see
    /// [`debug`]).
    pub(crate) daemon: bool,
}

/// How a rank is started.
#[derive(Clone, Copy, Default)]
pub(crate) struct Origin {
    /// By a `PMIx_Spawn`.
    pub(crate) spawned: bool,
    /// As a debugger daemon.
    pub(crate) daemon: bool,
    /// Held at its first instruction for a debugger.
    pub(crate) stop_on_exec: bool,
}

/// The jobs as the main loop tracks them: the command line's and those
/// its ranks spawned.
pub(crate) struct Job<'s> {
    /// Tells the surviving ranks about a failed one before the teardown.
    pub(crate) server: &'s Server,
    pub(crate) ranks: Vec<RankState>,
    pub(crate) by_pid: HashMap<i32, usize>,
    pub(crate) running: usize,
    pub(crate) host: Arc<RunHost>,
    /// Exit status of the first failure, once there is one.
    pub(crate) failure: Option<i32>,
    /// `--recoverable`: a rank's failure does not tear the job down.
    pub(crate) recoverable: bool,
    pub(crate) tearing_down: bool,
    pub(crate) kill_at: Option<Instant>,
    pub(crate) killed: bool,
    pub(crate) aborts_seen: usize,
    /// The ranks' fed stdin (`--stdin`).
    pub(crate) stdin: StdinRouter,
    /// Debugger daemons still running (counted in `running` too).
    pub(crate) daemons_running: usize,
    /// The jobs stopped for a debugger.
    pub(crate) debugger: debug::Debugger,
    /// The namespaces whose end is still to be announced.
    pub(crate) ends: job_end::JobEnds,
    /// Spawned namespaces whose launch failed: their ranks that did
    /// start are killed, and their ends do not fail the job.
    pub(crate) failed_spawns: HashSet<Nspace>,
}

impl Job<'_> {
    /// Tears the job down for `msg`; the exit status is `status` unless
    /// an earlier failure (of a recoverable job) set one.
    pub(crate) fn fail(&mut self, msg: String, status: i32) {
        if self.tearing_down {
            return;
        }
        eprintln!("pmixrun: {msg}");
        self.failure.get_or_insert(status);
        self.teardown(libc::SIGTERM);
    }

    /// A rank failed (`msg`, exit status `status`): the job is torn down,
    /// unless it is recoverable (then the failure is only recorded).
    pub(crate) fn rank_failed(&mut self, msg: String, status: i32) {
        if !self.recoverable {
            return self.fail(msg, status);
        }
        eprintln!("pmixrun: {msg}; the job goes on (--recoverable)");
        self.failure.get_or_insert(status);
    }

    /// `PMIX_ERR_PROC_ABORTED` about `proc` to the rest of its namespace,
    /// with `PMIX_EVENT_AFFECTED_PROC`, queued on the ranks' connections
    /// before they are signalled.
    pub(crate) fn notify_aborted(&self, proc: &Proc) {
        let affected = Info::new(
            Key::new(keys::EVENT_AFFECTED_PROC).expect("short key"),
            Value::Proc(proc.clone()),
        );
        let event = pmix::events::Event {
            status: pmix::events::codes::ERR_PROC_ABORTED,
            source: proc.clone(),
            range: pmix::events::Range::NAMESPACE,
            infos: vec![affected],
        };
        let (tx, rx) = std::sync::mpsc::channel();
        let done = Box::new(move |_| {
            let _ = tx.send(());
        });
        if self.server.notify_event(event, Some(done)).is_ok() {
            let _ = rx.recv();
        }
    }

    /// True if `proc` connected and never finalized.
    pub(crate) fn left_unfinalized(&self, proc: &Proc) -> bool {
        let st = self.host.state.lock().unwrap_or_else(|e| e.into_inner());
        st.connected.contains(proc) && !st.finalized.contains(proc)
    }

    /// True if `proc` left without finalizing while other ranks ran:
    /// when its connection closed (see `JobState::left_early`), or, for
    /// a rank whose loss the server has not reported, now.
    pub(crate) fn left_while_others_ran(&self, proc: &Proc) -> bool {
        let early = {
            let st = self.host.state.lock().unwrap_or_else(|e| e.into_inner());
            st.left_early.contains(proc)
        };
        early || self.running > 0 && self.left_unfinalized(proc)
    }

    pub(crate) fn signal_all(&self, sig: i32) {
        for r in self.ranks.iter().filter(|r| r.running) {
            signals::send_group(r.pid, sig);
        }
    }

    pub(crate) fn teardown(&mut self, sig: i32) {
        if !self.tearing_down {
            self.tearing_down = true;
            self.kill_at = Some(Instant::now() + GRACE);
        }
        self.signal_all(sig);
        // A rank stopped for a debugger gets the signal only once running.
        self.signal_all(libc::SIGCONT);
    }

    /// Ends the debugger daemons once nothing else runs (they would wait
    /// for a job that is gone).
    pub(crate) fn end_lone_daemons(&mut self) {
        if self.daemons_running > 0 && self.running == self.daemons_running && !self.tearing_down {
            self.teardown(libc::SIGTERM);
        }
    }

    pub(crate) fn describe(&self, idx: usize) -> String {
        let r = &self.ranks[idx];
        let rank = r.proc.rank.0;
        if r.spawned {
            format!(
                "rank {rank} of spawned job {} (pid {}, {})",
                r.proc.nspace, r.pid, r.program
            )
        } else {
            format!("rank {rank} (pid {}, {})", r.pid, r.program)
        }
    }

    pub(crate) fn reap(&mut self) {
        loop {
            let Ok(Some((pid, status))) = sys::wait_any_nohang() else {
                return;
            };
            if let Some(&idx) = self.by_pid.get(&pid) {
                self.exited(idx, status);
            }
        }
    }

    pub(crate) fn exited(&mut self, idx: usize, status: i32) {
        self.ranks[idx].running = false;
        self.running -= 1;
        // One that died before it connected is waited for no longer.
        self.server.client_terminated(&self.ranks[idx].proc);
        self.host.record_exit(&self.ranks[idx].proc, status);
        self.debugger.ended(self.server, &self.ranks[idx].proc);
        let ns = self.ranks[idx].proc.nspace.clone();
        self.ends.rank_ended(self.server, &ns, status);
        if self.ranks[idx].daemon {
            self.daemons_running -= 1;
            return;
        }
        if self.tearing_down || self.failed_spawns.contains(&ns) {
            return;
        }
        let who = self.describe(idx);
        let proc = self.ranks[idx].proc.clone();
        let clean = sys::exit_code(status) == Some(0);
        let unfinalized = self.left_while_others_ran(&proc);
        if !clean || unfinalized {
            self.notify_aborted(&proc);
        }
        if let Some(sig) = sys::killed_by(status) {
            self.rank_failed(
                format!("{who} was killed by {}", signals::name(sig)),
                128 + sig,
            );
        } else if let Some(code) = sys::exit_code(status).filter(|&c| c != 0) {
            self.rank_failed(format!("{who} exited with status {code}"), code);
        } else if unfinalized {
            self.rank_failed(
                format!(
                    "{who} exited without calling PMIx_Finalize while other ranks \
                     were still running"
                ),
                1,
            );
        }
    }

    /// Gives up the spawned namespace `ns`, one of whose ranks could not
    /// start: kills those that did (their ends do not fail the job).
    pub(crate) fn abandon_spawn(&mut self, ns: &Nspace) {
        self.failed_spawns.insert(ns.clone());
        for r in self
            .ranks
            .iter()
            .filter(|r| r.running && &r.proc.nspace == ns)
        {
            // SAFETY: kill(2) has no memory preconditions; the pid is a
            // child of ours not yet reaped (running).
            unsafe { libc::kill(r.pid, libc::SIGKILL) };
        }
    }

    /// Carries out the job-control requests the host recorded.
    pub(crate) fn check_controls(&mut self) {
        let reqs = std::mem::take(
            &mut self
                .host
                .state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .controls,
        );
        for c in reqs {
            let mut found = false;
            // Job control acts on the command line's job, not on spawned
            // ones (their ranks are numbered from 0 too).
            for r in self.ranks.iter().filter(|r| !r.spawned) {
                let wanted = match &c.ranks {
                    None => true,
                    Some(v) => v.contains(&r.proc.rank.0),
                };
                if wanted && r.running {
                    signals::send_group(r.pid, c.signal);
                    found = true;
                }
            }
            c.done.complete(if found {
                Ok(Vec::new())
            } else {
                Err(pmix::Status::ERR_NOT_FOUND)
            });
        }
    }

    pub(crate) fn check_aborts(&mut self) {
        let first = {
            let st = self.host.state.lock().unwrap_or_else(|e| e.into_inner());
            if st.aborts.len() == self.aborts_seen {
                return;
            }
            self.aborts_seen = st.aborts.len();
            let a = &st.aborts[0];
            (a.proc.clone(), a.status.code(), a.message.clone())
        };
        let (proc, code, message) = first;
        let status = if (1..=255).contains(&code) { code } else { 1 };
        let msg = match message {
            Some(m) if !m.is_empty() => format!(": {m}"),
            _ => String::new(),
        };
        let who = match self.ranks.iter().position(|r| r.proc == proc) {
            Some(idx) => self.describe(idx),
            None => format!("rank {} of {}", proc.rank.0, proc.nspace),
        };
        if !self.tearing_down {
            self.notify_aborted(&proc);
        }
        self.fail(
            format!("{who} called PMIx_Abort with status {code}{msg}; terminating the job"),
            status,
        );
    }
}
