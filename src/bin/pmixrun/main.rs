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
mod job;
mod job_end;
mod launch;
mod launcher;
mod signals;
mod sys;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix::job::{AppContext, SingleNodeJob};
use pmix::server::{Server, ServerConfig};
use pmix::{Nspace, Proc, Rank};

use host::RunHost;
use iof::{StdinRouter, Stream};
use job::{Job, Origin};
use launcher::Launcher;
use signals::SignalPipe;

/// How long output pipes may stay open once every rank has exited (a
/// process the ranks left behind may hold them).
const DRAIN: Duration = Duration::from_secs(1);
/// Exit status for `--timeout`.
const TIMEOUT_STATUS: i32 = 124;

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
        stock_door: true,
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

    let job_desc = job_description(&opts, &nspace, &hostname, &tmpdir, &dbg);
    let extra_env = extra_env(&opts);
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
    start_ranks(
        &mut launcher,
        &mut job,
        &mut streams,
        &nspace,
        &opts.contexts,
        origin,
    )?;

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
        take_host_requests(&host, &mut launcher, &mut job, &mut streams, &mut spawn_seq);
        let now = Instant::now();
        check_timers(&mut job, now, deadline, opts.timeout);
        if job.running == 0 {
            let until = *drain_until.get_or_insert(now + DRAIN);
            if streams.is_empty() || now >= until {
                break;
            }
        }

        let timeout_ms = poll_timeout(&job, deadline, drain_until);
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
        pump_streams(&server, &mut job, &mut streams, &fds);
        job.stdin.ready(&fds[first_stdin..], &stdin_what);
        if fds[0].revents != 0 {
            handle_signals(&mut job, &sigpipe);
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

/// The command line's job: one application per program context, with
/// the debugger's job infos.
fn job_description(
    opts: &cli::Options,
    nspace: &Nspace,
    hostname: &str,
    tmpdir: &std::path::Path,
    dbg: &debug::JobDebug,
) -> SingleNodeJob {
    let mut job_desc = SingleNodeJob::new(nspace, hostname)
        .tmpdir(tmpdir)
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
    job_desc
}

/// The environment every rank gets besides `setup_fork`'s: Open MPI's,
/// then `-x VAR[=val]`.
fn extra_env(opts: &cli::Options) -> Vec<(String, String)> {
    let mut extra_env: Vec<(String, String)> = launch::open_mpi_env();
    extra_env.extend(opts.env.iter().filter_map(|(k, v)| match v {
        Some(v) => Some((k.clone(), v.clone())),
        None => std::env::var(k).ok().map(|v| (k.clone(), v)),
    }));
    extra_env
}

/// Starts the command line's ranks, in order, until one cannot start.
fn start_ranks(
    launcher: &mut Launcher<'_>,
    job: &mut Job<'_>,
    streams: &mut Vec<Stream>,
    nspace: &Nspace,
    contexts: &[cli::Context],
    origin: Origin,
) -> Result<(), String> {
    let apps = contexts.iter().map(|c| (c, &[][..], origin));
    launcher.start_all(job, streams, launcher::RankStart::each(nspace, apps))?;
    Ok(())
}

/// Serves what the host module queued for the main loop: the ranks'
/// spawns (numbered from `spawn_seq`) and the tools' stdin pushes.
fn take_host_requests(
    host: &RunHost,
    launcher: &mut Launcher<'_>,
    job: &mut Job<'_>,
    streams: &mut Vec<Stream>,
    spawn_seq: &mut u32,
) {
    let spawns = std::mem::take(&mut host.state.lock().unwrap_or_else(|e| e.into_inner()).spawns);
    for req in spawns {
        *spawn_seq += 1;
        let r = launcher.spawn(job, streams, &req, *spawn_seq);
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
}

/// At `now`: fails the job past its `--timeout` deadline, and sends
/// `SIGKILL` once a teardown's grace period is over.
fn check_timers(job: &mut Job<'_>, now: Instant, deadline: Option<Instant>, timeout: Option<u64>) {
    if let Some(d) = deadline {
        if now >= d && !job.tearing_down {
            job.fail(
                format!(
                    "the job did not finish within {} seconds (--timeout); terminating it",
                    timeout.unwrap_or(0)
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
}

/// How long `poll` may wait: until the nearest of the drain's end, the
/// `--timeout` deadline and the teardown's `SIGKILL` (-1: no limit).
fn poll_timeout(
    job: &Job<'_>,
    deadline: Option<Instant>,
    drain_until: Option<Instant>,
) -> libc::c_int {
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
    match wake_at {
        None => -1,
        Some(t) => {
            let d = t.saturating_duration_since(Instant::now());
            (d.as_millis().min(i32::MAX as u128) as libc::c_int).saturating_add(1)
        }
    }
}

/// Forwards the output of the streams `poll` found ready (`fds[1..]`,
/// in the streams' order) and drops those that closed.
fn pump_streams(
    server: &Server,
    job: &mut Job<'_>,
    streams: &mut Vec<Stream>,
    fds: &[libc::pollfd],
) {
    let mut i = 0;
    let mut keep = Vec::with_capacity(streams.len());
    for mut s in streams.drain(..) {
        i += 1;
        let ready = fds[i].revents != 0;
        if !ready || s.pump(server) {
            keep.push(s);
        } else {
            job.ends.pipe_closed(server, &s.proc().nspace);
        }
    }
    *streams = keep;
}

/// Forwards the signals `pmixrun` received to the ranks; `SIGINT`,
/// `SIGTERM` and `SIGHUP` also tear the job down.
fn handle_signals(job: &mut Job<'_>, sigpipe: &SignalPipe) {
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
