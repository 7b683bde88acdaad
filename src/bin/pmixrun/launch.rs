//! Starting the ranks: each is a child in its own process group (so that
//! signals reach whatever it starts too), with the launcher's environment,
//! the server's `setup_fork` variables and the `-x` ones, and stdout/stderr
//! on pipes for [`crate::iof`]. Stdin is what [`Stdin`] says: by default
//! rank 0 reads the launcher's stdin when that is not a terminal (a rank
//! in its own process group cannot read the terminal) and every other rank
//! reads `/dev/null`; with `--stdin`, the ranks it names read a pipe the
//! launcher feeds ([`crate::iof::StdinRouter`]).
//!
//! Many ranks start at once ([`start_many`]): `Command::spawn` returns
//! only once its child has exec'd, and on a busy node the child may wait
//! long for a cpu before it gets that far, so a few threads spawn ranks
//! side by side ([`STARTERS`]); the results come back in the ranks'
//! order, and after a rank that could not start no further one is tried.
//!
//! Stop on exec (`--stop-on-exec`, `PMIX_DEBUG_STOP_ON_EXEC`), as PRRTE
//! does it: the child asks to be traced (`PTRACE_TRACEME`) before its
//! exec, so the kernel stops it with `SIGTRAP` at the new program's first
//! instruction; the launcher waits for that stop and detaches delivering
//! `SIGSTOP`, which leaves the rank stopped, untraced, for a debugger to
//! attach to, until someone sends it `SIGCONT`. Where ptrace is not
//! permitted the child's exec fails with that error, and the rank with it.
//! Only the thread that started a traced child may detach it: a batch
//! with a rank to stop on exec is started on the calling thread, one by
//! one.

use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::cli::Context;
use crate::{signals, sys};

/// What Open MPI 4.1 needs to take a direct launch by a PMIx server that
/// is neither its own runtime nor a resource manager it knows: its
/// `schizo/orte` component declares every other process a singleton
/// (`orte_process_info.my_daemon_uri` unset: `ORTE_SCHIZO_UNMANAGED_SINGLETON`,
/// which forces `ess=singleton` and forks a private `orted`), so it is
/// excluded (`OMPI_MCA_schizo=^orte`); then `ess/pmi` is selected and
/// everything else comes from PMIx. Harmless to any other program, and
/// left alone when the caller set `OMPI_MCA_schizo` (`-x` overrides it
/// too). See docs/INTEROP.md.
pub fn open_mpi_env() -> Vec<(String, String)> {
    if std::env::var_os("OMPI_MCA_schizo").is_some() {
        return Vec::new();
    }
    vec![("OMPI_MCA_schizo".into(), "^orte".into())]
}

/// A started rank.
pub struct Started {
    pub pid: i32,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
    /// The write end of its stdin ([`Stdin::Pipe`]).
    pub stdin: Option<OwnedFd>,
    /// Stop on exec: `Some(true)` stopped at its first instruction,
    /// `Some(false)` not stopped (a signal came first: delivered, and the
    /// rank runs); `None` when not asked.
    pub held: Option<bool>,
    /// The wait status of a rank that ended before it could be held
    /// (already reaped).
    pub ended: Option<libc::c_int>,
}

/// What a rank reads as stdin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stdin {
    /// The launcher's stdin, unless that is a terminal (then `/dev/null`).
    Inherit,
    /// `/dev/null`.
    Null,
    /// A pipe the launcher feeds.
    Pipe,
}

/// Waits for the exec stop of the traced `pid` and detaches leaving it
/// stopped (see the module documentation): whether it is held, or how it
/// ended.
fn hold_at_exec(pid: libc::pid_t) -> io::Result<Result<bool, libc::c_int>> {
    let status = sys::wait_pid(pid, 0)?;
    Ok(match sys::stopped_by(status) {
        Some(libc::SIGTRAP) => {
            sys::ptrace_detach(pid, libc::SIGSTOP)?;
            // Detached, the rank runs until it takes the SIGSTOP: wait for
            // that stop, so that it is held (state T) before anyone is
            // told it is.
            let stopped = sys::wait_pid(pid, libc::WUNTRACED)?;
            match sys::stopped_by(stopped) {
                Some(_) => Ok(true),
                None => Err(stopped),
            }
        }
        Some(sig) => {
            // Another signal reached it first: let it have it, untraced.
            sys::ptrace_detach(pid, sig)?;
            Ok(false)
        }
        None => Err(status),
    })
}

/// Starts one rank of `ctx` reading `stdin_from`; `stop_on_exec`: held
/// at its first instruction.
pub fn start(
    ctx: &Context,
    env: &[(String, String)],
    stdin_from: Stdin,
    stop_on_exec: bool,
) -> io::Result<Started> {
    let mut cmd = Command::new(&ctx.argv[0]);
    let stdin = match stdin_from {
        Stdin::Inherit if !sys::isatty(0) => Stdio::inherit(),
        Stdin::Inherit | Stdin::Null => Stdio::null(),
        Stdin::Pipe => Stdio::piped(),
    };
    cmd.args(&ctx.argv[1..])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(d) = &ctx.wdir {
        cmd.current_dir(d);
    }
    if stop_on_exec {
        // SAFETY: the closure runs in the child between fork and exec; it
        // only calls ptrace(2), which is async-signal-safe, and allocates
        // nothing (an OS error is built from errno alone).
        unsafe {
            cmd.pre_exec(sys::ptrace_traceme);
        }
    }
    let mut child = cmd.spawn()?;
    let stdout = child.stdout.take().expect("piped").into();
    let stderr = child.stderr.take().expect("piped").into();
    let stdin = child.stdin.take().map(OwnedFd::from);
    let pid = child.id() as i32;
    // `spawn` returned after the exec: the stop is there or imminent.
    let (held, ended) = if stop_on_exec {
        match hold_at_exec(pid)? {
            Ok(h) => (Some(h), None),
            Err(status) => (None, Some(status)),
        }
    } else {
        (None, None)
    };
    // The child is reaped by the main loop (waitpid on SIGCHLD), never
    // through `child`, which is simply forgotten.
    Ok(Started {
        pid,
        stdout,
        stderr,
        stdin,
        held,
        ended,
    })
}

/// How many threads spawn the ranks of a batch ([`start_many`]): enough
/// that a child waiting for a cpu before its exec holds up few others.
pub const STARTERS: usize = 4;

/// One rank to start: [`start`]'s arguments.
pub struct StartRequest<'a> {
    pub ctx: &'a Context,
    pub env: &'a [(String, String)],
    pub stdin: Stdin,
    pub stop_on_exec: bool,
}

/// Starts the ranks `reqs` asks for, up to [`STARTERS`] at a time (on
/// the calling thread alone if one of them is to stop on exec): each
/// rank's outcome in the order of `reqs`, `None` for those not tried
/// because one before them could not start. A rank after the first one
/// that could not start may have started all the same (it was under way):
/// the caller [`abandons`](Started::abandon) it.
pub fn start_many(reqs: &[StartRequest<'_>]) -> Vec<Option<io::Result<Started>>> {
    let one = |r: &StartRequest| start(r.ctx, r.env, r.stdin, r.stop_on_exec);
    if reqs.len() <= 1 || reqs.iter().any(|r| r.stop_on_exec) {
        let mut out: Vec<Option<io::Result<Started>>> = Vec::with_capacity(reqs.len());
        for r in reqs {
            let failed = matches!(out.last(), Some(Some(Err(_))) | Some(None));
            out.push((!failed).then(|| one(r)));
        }
        return out;
    }
    let failed = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    let out: Vec<Mutex<Option<io::Result<Started>>>> =
        reqs.iter().map(|_| Mutex::new(None)).collect();
    let starter = || {
        // Checked before a rank is claimed: every rank before the first
        // failure was claimed before it, so it is tried.
        while !failed.load(Ordering::Acquire) {
            let i = next.fetch_add(1, Ordering::AcqRel);
            let Some(r) = reqs.get(i) else { return };
            let result = one(r);
            if result.is_err() {
                failed.store(true, Ordering::Release);
            }
            *out[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
        }
    };
    std::thread::scope(|s| {
        for _ in 0..STARTERS.min(reqs.len()) {
            s.spawn(starter);
        }
    });
    out.into_iter()
        .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect()
}

impl Started {
    /// Undoes the start of a rank that is not to run after all (one
    /// before it could not start): kills it (and its process group) and
    /// reaps it.
    pub fn abandon(self) {
        signals::send_group(self.pid, libc::SIGKILL);
        let _ = sys::kill(self.pid, libc::SIGKILL);
        if self.ended.is_some() {
            return;
        }
        while let Ok(status) = sys::wait_pid(self.pid, 0) {
            if sys::stopped_by(status).is_none() {
                break;
            }
        }
    }
}
