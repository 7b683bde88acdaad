//! `pmixrun`: a single-node launcher hosting a PMIx server.
//!
//! ```text
//! pmixrun [--tag-output] [--timeout SECS] [--stdin none|all|RANKS]
//!         [-x VAR[=val]] [--wdir DIR] [--stop-in-init] [--stop-on-exec]
//!         [--recoverable] [--system-server] [--pset NAME]
//!         -n N PROGRAM [ARGS...] [: -n M PROGRAM2 [ARGS...]]...
//! ```
//!
//! Registers one namespace (each program context is an application,
//! `PMIX_APPNUM` 0, 1, ...) with the full single-node job description,
//! registers every rank as a client, starts the ranks with `setup_fork`'s
//! environment, forwards their output and the signals it receives, and
//! exits with the job's status: 0 if every rank exited 0; otherwise the
//! first failure's (a rank's exit code, 128 + a killing signal, the status
//! passed to `PMIx_Abort`, 124 for `--timeout`), after a message on
//! stderr naming the rank. When a rank fails, aborts, or exits without
//! `PMIx_Finalize` while others run (judged when the server sees its
//! connection close, not when it is reaped: the survivors its departure
//! failed may be reaped first), the rest get `SIGTERM`, then `SIGKILL`
//! after a grace period. With `--recoverable` a rank's failure (non-zero
//! exit, a killing signal, an exit without `PMIx_Finalize`) ends nothing:
//! the others get `PMIX_ERR_PROC_ABORTED` (and the server fails the
//! collectives it was in), run on, and `pmixrun` exits with the first
//! failure's status once every rank ended, as PRRTE's `--rtos
//! recoverable`; `PMIx_Abort`, `--timeout` and signals still end the job.
//!
//! A rank's `PMIx_Spawn` starts a new job on this node: a namespace of
//! its own (`pmixrun-PID@2`, `@3`, ...) with the full job description plus
//! `PMIX_PARENT_ID` (the requestor) and `PMIX_SPAWNED` (true), one
//! application per `pmix_app_t` (`maxprocs` ranks of `cmd` with `argv`,
//! `env` added to the environment, in `cwd`); its ranks are started,
//! forwarded and reaped like the first job's and count for the exit
//! status, and the requestor's call returns the namespace once they are
//! started. When one cannot be started (no such program...), the spawn
//! alone fails: the call returns `PMIX_ERR_JOB_FAILED_TO_LAUNCH`, the
//! new job's ranks that did start are killed (their ends fail nothing)
//! and the job goes on, as under PRRTE. `PMIX_WDIR` (the app's, else the job's) overrides the app's
//! `cwd`; other spawn directives (mapping, IOF, ...) are ignored.
//!
//! `--pset NAME`: the context's ranks form the process set NAME, carried
//! in the job registration and defined with `PMIX_PROCESS_SET_DEFINE`
//! (see [`define_psets`]).
//!
//! Output and stdin: see [`iof`] (the ranks' output also reaches tools
//! through the server's IOF; `--stdin` ranks read a pipe fed by
//! `pmixrun`'s stdin and tools' pushes).
//!
//! Tools find `pmixrun` by its pid, its namespace or as the session's
//! server; with `--system-server` also as this node's system server
//! (`pmix.sys.<host>` in the system temporary directory: `$TMPDIR`, else
//! `/tmp`), refused while another one serves; the file goes with
//! `pmixrun`.
//!
//! Debuggers (see [`debug`]): `--stop-in-init`, `--stop-on-exec` and the
//! same requests in a spawn hold the ranks until a
//! `PMIX_DEBUGGER_RELEASE`; a spawn of debugger daemons starts them beside
//! their target, outside the exit status.
//!
//! Everything happens in one `poll` loop: the ranks' output pipes, the
//! stdin pipes and `pmixrun`'s own stdin (with `--stdin`), and a
//! self-pipe fed by the signal handlers (`SIGCHLD` included) and by the
//! host module. The PMIx server runs its own progress thread.

mod cli;
mod debug;
mod host;
mod iof;
mod job_end;
mod launch;
mod signals;
mod sys;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix::job::{AppContext, SingleNodeJob};
use pmix::server::{Server, ServerConfig};
use pmix::{keys, Info, Key, Nspace, Proc, Rank, Status, Value};

use host::{RunHost, SpawnRequest};
use iof::{Kind, StdinRouter, Stream};
use signals::SignalPipe;

/// Between `SIGTERM` and `SIGKILL` when tearing a job down.
const GRACE: Duration = Duration::from_secs(3);
/// How long output pipes may stay open once every rank has exited (a
/// process the ranks left behind may hold them).
const DRAIN: Duration = Duration::from_secs(1);
/// Exit status for `--timeout`.
const TIMEOUT_STATUS: i32 = 124;

struct RankState {
    proc: Proc,
    pid: i32,
    program: String,
    running: bool,
    /// Started by a `PMIx_Spawn` (not on the command line).
    spawned: bool,
    /// A debugger daemon: not counted for the exit status (see
    /// [`debug`]).
    daemon: bool,
}

/// How a rank is started.
#[derive(Clone, Copy, Default)]
struct Origin {
    /// By a `PMIx_Spawn`.
    spawned: bool,
    /// As a debugger daemon.
    daemon: bool,
    /// Held at its first instruction for a debugger.
    stop_on_exec: bool,
}

/// The jobs as the main loop tracks them: the command line's and those
/// its ranks spawned.
struct Job<'s> {
    /// Tells the surviving ranks about a failed one before the teardown.
    server: &'s Server,
    ranks: Vec<RankState>,
    by_pid: HashMap<i32, usize>,
    running: usize,
    host: Arc<RunHost>,
    /// Exit status of the first failure, once there is one.
    failure: Option<i32>,
    /// `--recoverable`: a rank's failure does not tear the job down.
    recoverable: bool,
    tearing_down: bool,
    kill_at: Option<Instant>,
    killed: bool,
    aborts_seen: usize,
    /// The ranks' fed stdin (`--stdin`).
    stdin: StdinRouter,
    /// Debugger daemons still running (counted in `running` too).
    daemons_running: usize,
    /// The jobs stopped for a debugger.
    debugger: debug::Debugger,
    /// The namespaces whose end is still to be announced.
    ends: job_end::JobEnds,
    /// Spawned namespaces whose launch failed: their ranks that did
    /// start are killed, and their ends do not fail the job.
    failed_spawns: HashSet<Nspace>,
}

impl Job<'_> {
    /// Tears the job down for `msg`; the exit status is `status` unless
    /// an earlier failure (of a recoverable job) set one.
    fn fail(&mut self, msg: String, status: i32) {
        if self.tearing_down {
            return;
        }
        eprintln!("pmixrun: {msg}");
        self.failure.get_or_insert(status);
        self.teardown(libc::SIGTERM);
    }

    /// A rank failed (`msg`, exit status `status`): the job is torn down,
    /// unless it is recoverable (then the failure is only recorded).
    fn rank_failed(&mut self, msg: String, status: i32) {
        if !self.recoverable {
            return self.fail(msg, status);
        }
        eprintln!("pmixrun: {msg}; the job goes on (--recoverable)");
        self.failure.get_or_insert(status);
    }

    /// `PMIX_ERR_PROC_ABORTED` about `proc` to the rest of its namespace,
    /// with `PMIX_EVENT_AFFECTED_PROC`, queued on the ranks' connections
    /// before they are signalled.
    fn notify_aborted(&self, proc: &Proc) {
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
    fn left_unfinalized(&self, proc: &Proc) -> bool {
        let st = self.host.state.lock().unwrap_or_else(|e| e.into_inner());
        st.connected.contains(proc) && !st.finalized.contains(proc)
    }

    /// True if `proc` left without finalizing while other ranks ran:
    /// when its connection closed (see `JobState::left_early`), or, for
    /// a rank whose loss the server has not reported, now.
    fn left_while_others_ran(&self, proc: &Proc) -> bool {
        let early = {
            let st = self.host.state.lock().unwrap_or_else(|e| e.into_inner());
            st.left_early.contains(proc)
        };
        early || self.running > 0 && self.left_unfinalized(proc)
    }

    fn signal_all(&self, sig: i32) {
        for r in self.ranks.iter().filter(|r| r.running) {
            signals::send_group(r.pid, sig);
        }
    }

    fn teardown(&mut self, sig: i32) {
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
    fn end_lone_daemons(&mut self) {
        if self.daemons_running > 0 && self.running == self.daemons_running && !self.tearing_down {
            self.teardown(libc::SIGTERM);
        }
    }

    fn describe(&self, idx: usize) -> String {
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

    fn reap(&mut self) {
        loop {
            let Ok(Some((pid, status))) = sys::wait_any_nohang() else {
                return;
            };
            if let Some(&idx) = self.by_pid.get(&pid) {
                self.exited(idx, status);
            }
        }
    }

    fn exited(&mut self, idx: usize, status: i32) {
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
    fn abandon_spawn(&mut self, ns: &Nspace) {
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
    fn check_controls(&mut self) {
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

    fn check_aborts(&mut self) {
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match cli::parse(&args) {
        Ok(cli::Parsed::Run(o)) => o,
        Ok(cli::Parsed::Help) => {
            println!("{}", cli::USAGE);
            return;
        }
        Err(e) => {
            eprintln!("pmixrun: {e}\n{}", cli::USAGE);
            std::process::exit(2);
        }
    };
    match run(opts) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("pmixrun: {e}");
            std::process::exit(1);
        }
    }
}

/// Raises the soft limit on open files to the hard one: two pipes per
/// rank plus the server's connections.
fn raise_fd_limit() {
    if let Ok((soft, hard)) = sys::nofile_limit() {
        if soft < hard {
            let _ = sys::set_nofile_limit(hard, hard);
        }
    }
}

/// The cpus this launcher may run its ranks on (its affinity mask, as
/// `taskset` or a batch system's cgroup leave it): the node's slots, past
/// which a job oversubscribes it.
fn cpus() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| u32::try_from(n.get()).unwrap_or(u32::MAX))
}

/// The `PMIX_WDIR` among `infos`, if one.
fn wdir(infos: &[Info]) -> Option<PathBuf> {
    infos
        .iter()
        .find(|i| i.key.as_bytes() == keys::WDIR.as_bytes())
        .and_then(|i| match &i.value {
            Value::String(Some(s)) => Some(PathBuf::from(s.to_string_lossy().into_owned())),
            _ => None,
        })
}

/// `--system-server`: fails if this node's system server (the one whose
/// `pmix.sys.<host>` is in the system temporary directory) still serves;
/// a file a killed one left is replaced.
fn refuse_a_second_system_server(config: &ServerConfig) -> Result<(), String> {
    let dir = &config.system_tmpdir;
    match pmix::net::tool_files::running_system_server(dir, &config.hostname) {
        None => Ok(()),
        Some(f) => Err(format!(
            "--system-server: another system server runs on this node ({}{}; {}); \
             not starting",
            f.nspace,
            f.pid.map(|p| format!(", pid {p}")).unwrap_or_default(),
            pmix::net::tool_files::system(dir, &config.hostname).display()
        )),
    }
}

/// Defines the sets `--pset` names (each its context's ranks), as PRRTE
/// does with `PMIx_server_define_process_set` once the job is registered:
/// every rank hears of them by `PMIX_PROCESS_SET_DEFINE` (those that
/// connect later right after their handshake).
fn define_psets(server: &Server, nspace: &Nspace, contexts: &[cli::Context]) -> Result<(), String> {
    let mut first = 0u32;
    for c in contexts {
        if let Some(name) = &c.pset {
            let members = (first..first + c.np)
                .map(|r| Proc::new(nspace.clone(), Rank(r)))
                .collect();
            server
                .define_process_set(name, members)
                .map_err(|s| format!("cannot define process set {name}: {s}"))?;
        }
        first += c.np;
    }
    Ok(())
}

/// What starting a rank needs besides the rank itself.
struct Launcher<'a> {
    server: &'a Server,
    host: &'a RunHost,
    hostname: String,
    tmpdir: PathBuf,
    extra_env: Vec<(String, String)>,
    tag_output: bool,
    /// `--stdin`.
    stdin: Option<cli::StdinRanks>,
    /// Namespaces registered, in order (deregistered at the end).
    namespaces: Vec<Nspace>,
}

impl Launcher<'_> {
    /// Registers `nspace` (its description `desc`) and its ranks.
    fn register(&mut self, nspace: &Nspace, desc: &SingleNodeJob) -> Result<(), String> {
        let size = desc.size();
        let infos = desc.infos().map_err(|s| format!("job description: {s}"))?;
        self.host
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .namespaces
            .insert(nspace.clone());
        self.server
            .register_nspace(nspace, size, &infos)
            .map_err(|s| format!("cannot register the job: {s}"))?;
        self.namespaces.push(nspace.clone());
        let (uid, gid) = pmix::net::my_ids();
        let nsdir = self.tmpdir.join(nspace.to_string());
        for r in 0..size {
            let p = Proc::new(nspace.clone(), Rank(r));
            self.server
                .register_client(&p, uid, gid)
                .map_err(|s| format!("cannot register rank {r}: {s}"))?;
            // PMIX_PROCDIR (and PMIX_NSDIR above it) exist for the ranks.
            let _ = std::fs::create_dir_all(nsdir.join(r.to_string()));
        }
        Ok(())
    }

    /// Starts `proc` running `c` with `app_env` added; when it cannot be
    /// started, fails the job (a command-line rank) or says so on stderr
    /// (a spawned rank: its spawn fails), and returns false.
    fn start(
        &self,
        job: &mut Job,
        streams: &mut Vec<Stream>,
        proc: &Proc,
        c: &cli::Context,
        app_env: &[(String, String)],
        origin: Origin,
    ) -> Result<bool, String> {
        let spawned = origin.spawned;
        let rank = proc.rank.0;
        let mut env: Vec<(String, String)> = app_env.to_vec();
        env.extend(
            self.server
                .setup_fork(proc)
                .map_err(|s| format!("setup_fork for rank {rank}: {s}"))?,
        );
        env.extend(self.extra_env.iter().cloned());
        let stdin = match &self.stdin {
            _ if spawned => launch::Stdin::Null,
            None if rank == 0 => launch::Stdin::Inherit,
            Some(r) if r.has(rank) => launch::Stdin::Pipe,
            _ => launch::Stdin::Null,
        };
        match launch::start(c, &env, stdin, origin.stop_on_exec) {
            Ok(s) => {
                if let Some(fd) = s.stdin {
                    job.stdin
                        .add(proc, fd)
                        .map_err(|e| format!("stdin pipe of rank {rank}: {e}"))?;
                }
                let idx = job.ranks.len();
                job.by_pid.insert(s.pid, idx);
                job.ranks.push(RankState {
                    proc: proc.clone(),
                    pid: s.pid,
                    program: c.argv[0].clone(),
                    running: true,
                    spawned,
                    daemon: origin.daemon,
                });
                job.running += 1;
                job.ends.started(&proc.nspace, 2);
                if origin.daemon {
                    job.daemons_running += 1;
                }
                let exe = debug::resolve_program(&c.argv[0], c.wdir.as_deref());
                self.host.record_start(proc, s.pid, exe);
                if s.held == Some(true) {
                    job.debugger.held(self.server, proc, s.pid);
                }
                if let Some(status) = s.ended {
                    job.exited(idx, status);
                }
                for (fd, kind) in [(s.stdout, Kind::Stdout), (s.stderr, Kind::Stderr)] {
                    let st = Stream::new(fd, kind, proc, self.tag_output)
                        .map_err(|e| format!("output pipe of rank {rank}: {e}"))?;
                    streams.push(st);
                }
                Ok(true)
            }
            Err(e) if spawned => {
                // The spawn fails, not the job (as under PRRTE, where
                // MPI_Comm_spawn returns an error and the job goes on).
                eprintln!(
                    "pmixrun: cannot start spawned rank {rank} of {} ({}): {e}; the spawn fails",
                    proc.nspace, c.argv[0]
                );
                Ok(false)
            }
            Err(e) => {
                job.fail(
                    format!("cannot start rank {rank} ({}): {e}", c.argv[0]),
                    if e.kind() == std::io::ErrorKind::NotFound {
                        127
                    } else {
                        126
                    },
                );
                Ok(false)
            }
        }
    }

    /// Carries out a `PMIx_Spawn`: registers the new namespace, starts
    /// its ranks, answers the requestor with the namespace.
    fn spawn(
        &mut self,
        job: &mut Job,
        streams: &mut Vec<Stream>,
        req: &SpawnRequest,
        seq: u32,
    ) -> Result<Nspace, Status> {
        if job.tearing_down {
            return Err(Status::ERROR);
        }
        let nspace = Nspace::new(format!("pmixrun-{}@{seq}", std::process::id()))?;
        let target_size = |ns: &Nspace| job.ranks.iter().filter(|r| &r.proc.nspace == ns).count();
        let (dbg, nps) =
            debug::JobDebug::for_spawn(&nspace, &req.job_info, &req.apps, target_size)?;
        let mut desc = SingleNodeJob::new(&nspace, &self.hostname).tmpdir(&self.tmpdir);
        let mut contexts = Vec::new();
        for (a, &np) in req.apps.iter().zip(&nps) {
            let lossy = |c: &std::ffi::CString| c.to_string_lossy().into_owned();
            let argv: Vec<String> = a.argv.iter().map(lossy).collect();
            let cmd = match (&a.cmd, argv.first()) {
                (Some(c), _) if !c.is_empty() => lossy(c),
                (_, Some(first)) => first.clone(),
                _ => return Err(Status::ERR_BAD_PARAM),
            };
            // PMIX_WDIR of the app, else of the job, else the app's cwd.
            let cwd = wdir(&a.info)
                .or_else(|| wdir(&req.job_info))
                .or_else(|| a.cwd.as_ref().map(|c| PathBuf::from(lossy(c))));
            let mut app = AppContext::new(np).argv(if argv.is_empty() {
                vec![cmd.clone()]
            } else {
                argv.clone()
            });
            if let Some(d) = &cwd {
                app = app.cwd(d);
            }
            desc = desc.app(app);
            let mut run_argv = vec![cmd];
            run_argv.extend(argv.iter().skip(1).cloned());
            let env: Vec<(String, String)> = a
                .env
                .iter()
                .filter_map(|e| {
                    let e = lossy(e);
                    let (k, v) = e.split_once('=')?;
                    Some((k.to_owned(), v.to_owned()))
                })
                .collect();
            contexts.push((
                cli::Context {
                    np,
                    argv: run_argv,
                    wdir: cwd,
                    pset: None,
                },
                env,
            ));
        }
        desc = desc
            .job_info(Info::new(
                Key::new(keys::PARENT_ID)?,
                Value::Proc(req.requestor.clone()),
            ))
            .job_info(Info::new(Key::new(keys::SPAWNED)?, Value::Bool(true)));
        for i in dbg.job_infos() {
            desc = desc.job_info(i);
        }
        if let Err(e) = self.register(&nspace, &desc) {
            eprintln!(
                "pmixrun: spawn requested by rank {}: {e}",
                req.requestor.rank.0
            );
            return Err(Status::ERR_OUT_OF_RESOURCE);
        }
        let apps: Vec<&cli::Context> = contexts.iter().map(|(c, _)| c).collect();
        job.debugger
            .watch(&nspace, &dbg, Some(req.requestor.clone()), &apps);
        let mut rank = 0u32;
        for (app, (c, env)) in contexts.iter().enumerate() {
            let origin = Origin {
                spawned: true,
                daemon: dbg.is_daemon_app(app),
                stop_on_exec: dbg.stop_on_exec.get(app).copied().unwrap_or(false),
            };
            for _ in 0..c.np {
                let p = Proc::new(nspace.clone(), Rank(rank));
                match self.start(job, streams, &p, c, env, origin) {
                    Ok(true) => {}
                    Ok(false) => {
                        job.abandon_spawn(&nspace);
                        return Err(Status::ERR_JOB_FAILED_TO_LAUNCH);
                    }
                    Err(e) => {
                        job.fail(e, 1);
                        return Err(Status::ERROR);
                    }
                }
                rank += 1;
            }
        }
        Ok(nspace)
    }
}

fn run(opts: cli::Options) -> Result<i32, String> {
    raise_fd_limit();
    let sigpipe =
        SignalPipe::install().map_err(|e| format!("cannot install signal handlers: {e}"))?;
    let nspace = Nspace::new(format!("pmixrun-{}@1", std::process::id()))
        .map_err(|s| format!("namespace: {s}"))?;
    let host = Arc::new(RunHost::new(nspace.clone()));
    // Tools (debuggers, monitors) find the job by pmixrun's pid or
    // namespace, or as the session's server.
    let config = ServerConfig {
        tool_support: true,
        session_support: true,
        system_support: opts.system_server,
        ..ServerConfig::default()
    };
    if opts.system_server {
        refuse_a_second_system_server(&config)?;
    }
    let server = Server::start(config, host.clone())
        .map_err(|e| format!("cannot start the PMIx server: {e}"))?;
    host.set_server_uri(server.uri());
    host::register_attributes();
    let hostname = server.config().hostname.clone();
    let tmpdir: PathBuf = server.rendezvous_dir().to_path_buf();
    let inbox =
        debug::Inbox::install(&server).map_err(|s| format!("cannot watch for debuggers: {s}"))?;
    let dbg = debug::JobDebug::from_command_line(
        opts.stop_in_init,
        opts.stop_on_exec,
        opts.contexts.len(),
    );

    let mut job_desc = SingleNodeJob::new(&nspace, &hostname)
        .tmpdir(&tmpdir)
        .slots(cpus());
    for c in &opts.contexts {
        let mut app = AppContext::new(c.np).argv(c.argv.iter().cloned());
        let cwd = match &c.wdir {
            Some(d) => Some(d.clone()),
            None => std::env::current_dir().ok(),
        };
        if let Some(d) = cwd {
            app = app.cwd(d);
        }
        if let Some(name) = &c.pset {
            app = app.pset(name.clone());
        }
        job_desc = job_desc.app(app);
    }
    for i in dbg.job_infos() {
        job_desc = job_desc.job_info(i);
    }
    let mut extra_env: Vec<(String, String)> = launch::open_mpi_env();
    extra_env.extend(opts.env.iter().filter_map(|(k, v)| match v {
        Some(v) => Some((k.clone(), v.clone())),
        None => std::env::var(k).ok().map(|v| (k.clone(), v)),
    }));
    let mut launcher = Launcher {
        server: &server,
        host: &host,
        hostname,
        tmpdir: tmpdir.clone(),
        extra_env,
        tag_output: opts.tag_output,
        stdin: opts.stdin.clone(),
        namespaces: Vec::new(),
    };
    launcher.register(&nspace, &job_desc)?;
    define_psets(&server, &nspace, &opts.contexts)?;

    let mut job = Job {
        server: &server,
        ranks: Vec::new(),
        by_pid: HashMap::new(),
        running: 0,
        host: host.clone(),
        failure: None,
        recoverable: opts.recoverable,
        tearing_down: false,
        kill_at: None,
        killed: false,
        aborts_seen: 0,
        failed_spawns: HashSet::new(),
        stdin: StdinRouter::new(opts.stdin.is_some()),
        daemons_running: 0,
        debugger: debug::Debugger::new(inbox),
        ends: job_end::JobEnds::default(),
    };
    let apps: Vec<&cli::Context> = opts.contexts.iter().collect();
    job.debugger.watch(&nspace, &dbg, None, &apps);
    let origin = Origin {
        stop_on_exec: opts.stop_on_exec,
        ..Origin::default()
    };
    let mut streams: Vec<Stream> = Vec::new();
    let mut rank = 0u32;
    'start: for c in &opts.contexts {
        for _ in 0..c.np {
            let p = Proc::new(nspace.clone(), Rank(rank));
            if !launcher.start(&mut job, &mut streams, &p, c, &[], origin)? {
                break 'start;
            }
            rank += 1;
        }
    }

    let deadline = opts
        .timeout
        .map(|t| Instant::now() + Duration::from_secs(t));
    let mut drain_until: Option<Instant> = None;
    let mut spawn_seq = 1u32;
    loop {
        job.reap();
        job.check_aborts();
        job.check_controls();
        job.debugger.process(&server);
        job.end_lone_daemons();
        let spawns =
            std::mem::take(&mut host.state.lock().unwrap_or_else(|e| e.into_inner()).spawns);
        for req in spawns {
            spawn_seq += 1;
            let r = launcher.spawn(&mut job, &mut streams, &req, spawn_seq);
            req.done.complete(r);
        }
        let pushes = std::mem::take(
            &mut host
                .state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .stdin_pushes,
        );
        for p in pushes {
            job.stdin.push(p);
        }
        let now = Instant::now();
        if let Some(d) = deadline {
            if now >= d && !job.tearing_down {
                job.fail(
                    format!(
                        "the job did not finish within {} seconds (--timeout); terminating it",
                        opts.timeout.unwrap_or(0)
                    ),
                    TIMEOUT_STATUS,
                );
            }
        }
        if let Some(k) = job.kill_at {
            if now >= k && !job.killed {
                job.killed = true;
                job.signal_all(libc::SIGKILL);
            }
        }
        if job.running == 0 {
            let until = *drain_until.get_or_insert(now + DRAIN);
            if streams.is_empty() || now >= until {
                break;
            }
        }

        let mut wake_at: Option<Instant> = drain_until;
        for t in [
            deadline.filter(|_| !job.tearing_down),
            job.kill_at.filter(|_| !job.killed),
        ]
        .into_iter()
        .flatten()
        {
            wake_at = Some(wake_at.map_or(t, |w| w.min(t)));
        }
        let timeout_ms: libc::c_int = match wake_at {
            None => -1,
            Some(t) => {
                let d = t.saturating_duration_since(Instant::now());
                (d.as_millis().min(i32::MAX as u128) as libc::c_int).saturating_add(1)
            }
        };
        let mut fds: Vec<libc::pollfd> = std::iter::once(sigpipe.fd())
            .chain(streams.iter().map(Stream::fd))
            .map(|fd| libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let (stdin_fds, stdin_what) = job.stdin.poll_fds();
        let first_stdin = fds.len();
        fds.extend(stdin_fds);
        match sys::poll(&mut fds, timeout_ms) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("poll: {e}")),
        }
        // Output first, so that a rank's last words precede the report
        // of its exit.
        let mut i = 0;
        let mut keep = Vec::with_capacity(streams.len());
        for mut s in streams.drain(..) {
            i += 1;
            let ready = fds[i].revents != 0;
            if !ready || s.pump(&server) {
                keep.push(s);
            } else {
                job.ends.pipe_closed(&server, &s.proc().nspace);
            }
        }
        streams = keep;
        job.stdin.ready(&fds[first_stdin..], &stdin_what);
        if fds[0].revents != 0 {
            for b in sigpipe.drain() {
                let sig = i32::from(b);
                if signals::FORWARDED.contains(&sig) {
                    job.signal_all(sig);
                    if matches!(sig, libc::SIGINT | libc::SIGTERM | libc::SIGHUP) {
                        if !job.tearing_down {
                            eprintln!(
                                "pmixrun: received {}; terminating the job",
                                signals::name(sig)
                            );
                            job.failure.get_or_insert(128 + sig);
                        }
                        job.teardown(sig);
                    }
                }
            }
        }
    }
    // Flush what the pipes still hold (a rank's leftovers).
    for mut s in streams {
        s.pump(&server);
        job.ends.pipe_closed(&server, &s.proc().nspace);
    }

    let failure = job.failure;
    drop(job);
    let aborts = std::mem::take(&mut host.state.lock().unwrap_or_else(|e| e.into_inner()).aborts);
    for ns in std::mem::take(&mut launcher.namespaces) {
        server.deregister_nspace(&ns);
        let _ = std::fs::remove_dir_all(tmpdir.join(ns.to_string()));
    }
    drop(launcher);
    server.finalize();
    drop(aborts);
    Ok(failure.unwrap_or(0))
}
