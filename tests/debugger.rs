//! Debuggers (issue 12, item 4): jobs stopped in `PMIx_Init` or at exec
//! for a debugger, the proc table a debugger attaches with, debugger
//! daemons beside a job, and the release.
//!
//! - A C debugger (`tests/c/debugger_tool.c`, on our headers and on
//!   Debian's) attaches to a `pmixrun` whose own job is `cat` (it lives
//!   until the test closes pmixrun's stdin), spawns a job stopped in init,
//!   gets `PMIX_READY_FOR_DEBUG`, checks the proc table, launches one
//!   daemon per target process (`tests/c/debugger_daemon.c`, which
//!   queries the target's local proc table) and, on the test's go-ahead,
//!   releases the job, which completes.
//! - `pmixrun --stop-in-init`: the ranks wait in init until a Rust-API
//!   tool releases them.
//! - `pmixrun --stop-on-exec`: the ranks are stopped (`T` in
//!   `/proc/PID/stat`) until released; a stopped job can be killed.
//! - python3-pmix's `PMIxTool` releases a job stopped in init.
//! - A tool spawns a job stopped on exec (an app's directive), hears
//!   `PMIX_READY_FOR_DEBUG` and releases it; daemons neither hold nor fail
//!   `pmixrun`; bad daemon directives are refused; a rank waiting in init
//!   ends when its server dies.
//!
//! The job's program (`tests/c/debugger_target.c`) prints "before init
//! RANK" and "after init RANK" around `PMIx_Init`. No sleep synchronises
//! anything: the tests wait for lines, events and process states, each
//! wait bounded.

mod common;

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::pmixrun_job::{poll_until, Lines, PmixrunJob};

use pmix::client::Client;
use pmix::events::{codes, Range};
use pmix::value::Query;
use pmix::{keys, Info, Nspace, Proc, Rank, Status, Value};

const LIMIT: Duration = Duration::from_secs(60);

/// Builds one of the test's C programs against `include`.
fn build(src: &str, name: &str, tag: &str, include: &Path) -> PathBuf {
    common::build_c(
        &format!("tests/c/{src}"),
        &format!("debugger_{tag}_{name}_{}", std::process::id()),
        name,
        include,
        &["-pthread"],
    )
}

/// The state letter of `pid` in `/proc/PID/stat` (None once it is gone).
fn proc_state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) S ...": the state follows the last ')'.
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// The answer to one query of `key` (qualified by `qualifiers`).
fn query(tool: &Client, key: &str, qualifiers: Vec<Info>) -> Result<Vec<Info>, Status> {
    let q = Query {
        keys: vec![std::ffi::CString::new(key).unwrap()],
        qualifiers,
    };
    let (tx, rx) = mpsc::channel();
    tool.query_nb(
        &[q],
        Box::new(move |r| {
            let _ = tx.send(r);
        }),
    )?;
    let (s, infos) = rx.recv_timeout(LIMIT).expect("query answered")?;
    if s != Status::SUCCESS {
        return Err(s);
    }
    Ok(infos)
}

/// The proc table of `nspace` through `tool`; empty while the namespace
/// is not registered yet (a tool may attach between pmixrun writing its
/// rendezvous file and registering its job: every caller polls).
fn proc_table(tool: &Client, nspace: &str) -> Vec<pmix::value::ProcInfo> {
    let q = vec![common::info(keys::NSPACE, Value::string(nspace))];
    let infos = match query(tool, keys::QUERY_PROC_TABLE, q) {
        Err(Status::ERR_NOT_FOUND) => return Vec::new(),
        r => r.expect("proc table"),
    };
    match &infos[0].value {
        Value::DataArray(a) => a
            .items
            .iter()
            .filter_map(|v| match v {
                Value::ProcInfo(p) => Some((**p).clone()),
                _ => None,
            })
            .collect(),
        other => panic!("proc table: {other:?}"),
    }
}

/// `PMIX_DEBUGGER_RELEASE` from `tool` to every rank of `nspace`.
fn release(tool: &Client, nspace: &str) {
    let job = Proc::new(Nspace::new(nspace).unwrap(), Rank::WILDCARD);
    tool.notify_event(
        codes::DEBUGGER_RELEASE,
        None,
        Range::CUSTOM,
        &[
            common::info(keys::EVENT_CUSTOM_RANGE, Value::Proc(job)),
            common::info(keys::EVENT_NON_DEFAULT, Value::Bool(true)),
        ],
        None,
    )
    .expect("release sent");
}

/// The target program (built for `tag`) as `n` ranks under `pmixrun
/// HOLD` (`--stop-in-init` or `--stop-on-exec`): the program and the run.
fn held_job(tag: &str, hold: &str, n: &str) -> (PathBuf, PmixrunJob) {
    let target = build("debugger_target.c", "target", tag, &common::include_dir());
    let args = [hold, "-n", n, target.to_str().unwrap()];
    let run = PmixrunJob::start(&format!("dbg-{tag}"), &args);
    (target, run)
}

/// Releases the 2 ranks of `nspace` through `tool`, which finalizes at
/// once (the server handles the release first: one connection, in order;
/// finalizing later could find the server gone with the job): both ranks
/// get past init and pmixrun succeeds.
fn release_and_finish(mut run: PmixrunJob, tool: Client, nspace: &str) {
    release(&tool, nspace);
    tool.finalize().unwrap();
    run.out.wait_for("after init 0");
    run.out.wait_for("after init 1");
    assert_eq!(run.wait(), Some(0));
}

fn c_debugger(tag: &str, include: &Path) {
    let target = build("debugger_target.c", "target", tag, include);
    let daemon = build("debugger_daemon.c", "daemon", tag, include);
    let tool = build("debugger_tool.c", "tool", tag, include);
    let exe = std::fs::canonicalize(&target).unwrap();
    let exe = exe.to_str().unwrap();
    let mut run = PmixrunJob::start(&format!("dbg-{tag}"), &["-n", "1", "cat"]);
    run.wait_serving();
    let mut dbg = Command::new(&tool)
        .arg(run.pid().to_string())
        .arg(&target)
        .arg(&daemon)
        .env("TMPDIR", run.tmp())
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0)
        .spawn()
        .expect("the debugger starts");
    let mut go = dbg.stdin.take();
    let mut lines = Lines::of(&mut dbg);

    let nspace = lines.wait_for("ready ")["ready ".len()..].to_owned();
    // Both ranks are in PMIx_Init, and none got past it.
    run.out.wait_for("before init 0");
    run.out.wait_for("before init 1");
    let early: Vec<_> = run
        .out
        .so_far()
        .iter()
        .filter(|l| l.starts_with("after init"))
        .cloned()
        .collect();
    assert!(
        early.is_empty(),
        "ranks left init before the release: {early:?}"
    );
    // The proc table: live pids running the program's absolute path.
    let mut pids = Vec::new();
    for r in 0..2 {
        let l = lines.wait_for(&format!("proc {r} "));
        let f: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(f[3], exe, "{l}");
        let pid: i32 = f[2].parse().unwrap();
        let running = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap();
        assert_eq!(running.to_str(), Some(exe), "{l}");
        pids.push(pid);
    }
    let daemons = lines.wait_for("daemons done ");
    assert!(daemons.contains("pmixrun-"), "{daemons}");
    // Each daemon saw the job's two ranks with their pids.
    for d in 0..2 {
        let l = format!("daemon {d} target {nspace} procs 2");
        assert!(run.out.so_far().contains(&l), "{l}: {:?}", run.out.seen());
        for (r, pid) in pids.iter().enumerate() {
            let l = format!("daemon {d} sees {r} {pid} {exe}");
            assert!(run.out.seen().contains(&l), "{l}: {:?}", run.out.seen());
        }
    }
    writeln!(go.as_mut().unwrap(), "go").unwrap();
    lines.wait_for("tool ok");
    drop(go.take());
    let (waiter, timed_out) = common::wait_at_most(dbg, LIMIT);
    assert!(!timed_out, "the debugger did not end");
    assert!(waiter.join().unwrap().unwrap().success());
    run.out.wait_for("after init 0");
    run.out.wait_for("after init 1");
    assert_eq!(run.wait(), Some(0), "{:?}", run.out.rest());
}

#[test]
fn a_c_debugger_starts_a_job_stopped_in_init_and_daemons_beside_it() {
    c_debugger("own", &common::include_dir());
}

#[test]
fn a_c_debugger_on_the_reference_headers_does_the_same() {
    let Some((include, _)) = common::reference_pmix() else {
        return;
    };
    c_debugger("ref", &include);
}

#[test]
fn pmixrun_stop_in_init_waits_for_a_rust_tool_release() {
    let (_, mut run) = held_job("init", "--stop-in-init", "2");
    let nspace = run.nspace().to_owned();
    let tool = run.tool();
    // Both ranks connected: they are in (or past) PMIx_Init's stop.
    poll_until("both ranks connected", || {
        let t = proc_table(&tool, &nspace);
        t.len() == 2 && t.iter().all(|p| p.state == 6)
    });
    run.out.wait_for("before init 0");
    run.out.wait_for("before init 1");
    assert!(
        !run.out.so_far().iter().any(|l| l.starts_with("after init")),
        "{:?}",
        run.out.seen()
    );
    release_and_finish(run, tool, &nspace);
}

/// A rank waiting in init for a release does not outlive its server: the
/// lost connection ends the wait (its `PMIx_Init` fails).
#[test]
fn a_rank_stopped_in_init_ends_when_its_server_dies() {
    let (_, mut run) = held_job("lost", "--stop-in-init", "1");
    let nspace = run.nspace().to_owned();
    let tool = run.tool();
    let mut pid = 0;
    poll_until("the rank connected", || {
        let t = proc_table(&tool, &nspace);
        pid = t.first().map_or(0, |p| p.pid);
        t.len() == 1 && t[0].state == 6
    });
    tool.finalize().unwrap();
    run.signal(libc::SIGKILL);
    assert_eq!(run.wait(), None, "killed by a signal");
    // Orphaned, it ends (gone, or a zombie nobody reaps here).
    poll_until(
        "the rank ended",
        || !matches!(proc_state(pid), Some(s) if s != 'Z'),
    );
}

/// The pids of `nspace`'s ranks once pmixrun has started them all.
fn started_pids(tool: &Client, nspace: &str, n: usize) -> Vec<i32> {
    let mut pids = Vec::new();
    poll_until("the ranks started", || {
        let t = proc_table(tool, nspace);
        pids = t.iter().map(|p| p.pid).filter(|&p| p > 0).collect();
        pids.len() == n
    });
    pids
}

#[test]
fn pmixrun_stop_on_exec_holds_ranks_stopped_until_released() {
    let (target, mut run) = held_job("exec", "--stop-on-exec", "2");
    let nspace = run.nspace().to_owned();
    let tool = run.tool();
    let pids = started_pids(&tool, &nspace, 2);
    for &pid in &pids {
        assert_eq!(proc_state(pid), Some('T'), "rank pid {pid}");
        // Stopped at its first instruction: the program is already ours.
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap();
        assert_eq!(exe, std::fs::canonicalize(&target).unwrap());
    }
    assert!(run.out.so_far().is_empty(), "{:?}", run.out.seen());
    release_and_finish(run, tool, &nspace);
}

#[test]
fn a_job_stopped_on_exec_can_be_killed() {
    let (_, mut run) = held_job("kill", "--stop-on-exec", "2");
    let nspace = run.nspace().to_owned();
    let tool = run.tool();
    let pids = started_pids(&tool, &nspace, 2);
    for &pid in &pids {
        assert_eq!(proc_state(pid), Some('T'), "rank pid {pid}");
    }
    drop(tool);
    assert_eq!(run.end(), Some(128 + libc::SIGTERM));
    for &pid in &pids {
        // Reaped by pmixrun: gone (or a zombie of nobody's, never stopped).
        assert!(!matches!(proc_state(pid), Some('T')), "rank pid {pid}");
    }
}

#[test]
fn a_spawn_with_bad_daemon_directives_is_refused() {
    let mut run = PmixrunJob::start("dbg-bad", &["-n", "1", "cat"]);
    let tool = run.tool();
    let nspace = run.nspace().to_owned();
    let target = Proc::new(Nspace::new(nspace.as_str()).unwrap(), Rank::WILDCARD);
    let app = pmix::value::App {
        cmd: Some(std::ffi::CString::new("/bin/true").unwrap()),
        argv: vec![std::ffi::CString::new("/bin/true").unwrap()],
        maxprocs: 1,
        ..Default::default()
    };
    let both = [
        common::info(keys::DEBUGGER_DAEMONS, Value::Bool(true)),
        common::info(keys::DEBUG_TARGET, Value::Proc(target.clone())),
        common::info(keys::DEBUG_DAEMONS_PER_NODE, Value::Uint16(1)),
        common::info(keys::DEBUG_DAEMONS_PER_PROC, Value::Uint16(1)),
    ];
    assert_eq!(
        tool.spawn(&both, std::slice::from_ref(&app)).err(),
        Some(Status::ERR_BAD_PARAM)
    );
    let unknown = Proc::new(Nspace::new("no.such.job").unwrap(), Rank::WILDCARD);
    let nowhere = [
        common::info(keys::DEBUGGER_DAEMONS, Value::Bool(true)),
        common::info(keys::DEBUG_TARGET, Value::Proc(unknown)),
    ];
    assert_eq!(
        tool.spawn(&nowhere, std::slice::from_ref(&app)).err(),
        Some(Status::ERR_NOT_FOUND)
    );
    // What pmixrun supports for debuggers.
    let infos = query(&tool, keys::QUERY_DEBUG_SUPPORT, Vec::new()).unwrap();
    let text = infos[0].value.as_str().unwrap_or_default().to_owned();
    assert!(text.contains(keys::DEBUG_STOP_IN_INIT), "{text}");
    assert!(text.contains(keys::DEBUG_STOP_ON_EXEC), "{text}");
    tool.finalize().unwrap();
    assert_eq!(run.wait(), Some(0));
}

/// python3-pmix's `PMIxTool` releases a job stopped in init (sending the
/// release as soon as it attaches: a rank that reaches init later is
/// released when it reports ready).
#[test]
fn python_tool_releases_a_job_stopped_in_init() {
    let Some(python) = common::python_with_bindings() else {
        return;
    };
    let (_, mut run) = held_job("py", "--stop-in-init", "2");
    run.wait_serving();
    run.run_python_tool(python, "debugger_release.py", "py release ok");
    run.out.wait_for("after init 0");
    run.out.wait_for("after init 1");
    assert_eq!(run.wait(), Some(0));
}

/// An app of `np` ranks of `argv`, with `info`.
fn app(argv: &[&str], np: i32, info: Vec<Info>) -> pmix::value::App {
    let c = |s: &str| std::ffi::CString::new(s).unwrap();
    pmix::value::App {
        cmd: Some(c(argv[0])),
        argv: argv.iter().map(|a| c(a)).collect(),
        maxprocs: np,
        info,
        ..Default::default()
    }
}

/// A tool spawns a job whose app asks to stop on exec: the tool hears
/// `PMIX_READY_FOR_DEBUG` (naming the job) once both ranks are held, finds
/// them stopped, and releases them.
#[test]
fn a_tool_spawns_a_job_stopped_on_exec_and_releases_it() {
    let target = build(
        "debugger_target.c",
        "target",
        "sexec",
        &common::include_dir(),
    );
    let run = PmixrunJob::start("dbg-sexec", &["-n", "1", "cat"]);
    let tool = run.tool();
    let (handler, events) = common::event_forwarder();
    tool.register_event_handler(&[codes::READY_FOR_DEBUG], &[], handler)
        .unwrap();
    let exec = common::info(keys::DEBUG_STOP_ON_EXEC, Value::Bool(true));
    let job = tool
        .spawn(&[], &[app(&[target.to_str().unwrap()], 2, vec![exec])])
        .expect("spawned");
    let (code, _, infos) = events.recv_timeout(LIMIT).expect("ready for debug");
    assert_eq!(code, codes::READY_FOR_DEBUG);
    let named = pmix::info::value_of(&infos, keys::NSPACE).and_then(Value::as_str);
    assert_eq!(named, Some(job.to_string_lossy().as_ref()));
    let ns = job.to_string_lossy().into_owned();
    let pids = started_pids(&tool, &ns, 2);
    for &pid in &pids {
        assert_eq!(proc_state(pid), Some('T'), "rank pid {pid}");
    }
    release_and_finish(run, tool, &ns);
}

/// Debugger daemons do not count for pmixrun's exit status, and those
/// still running when everything else has ended are ended with it.
#[test]
fn daemons_do_not_hold_or_fail_the_run() {
    let mut run = PmixrunJob::start("dbg-dmn", &["-n", "1", "cat"]);
    let tool = run.tool();
    let target = Proc::new(Nspace::new(run.nspace()).unwrap(), Rank::WILDCARD);
    let daemons = || {
        vec![
            common::info(keys::DEBUGGER_DAEMONS, Value::Bool(true)),
            common::info(keys::DEBUG_TARGET, Value::Proc(target.clone())),
        ]
    };
    // One per target process by default (the app's maxprocs does not
    // count): the target, `cat`, has one rank.
    let failing = tool
        .spawn(
            &daemons(),
            &[app(&["/bin/sh", "-c", "exit 3"], 4, Vec::new())],
        )
        .unwrap();
    let lingering = tool
        .spawn(
            &daemons(),
            &[app(&["/bin/sh", "-c", "exec sleep 600"], 4, Vec::new())],
        )
        .unwrap();
    poll_until("the failing daemon ended", || {
        let t = proc_table(&tool, &failing.to_string_lossy());
        // PMIX_PROC_STATE_TERM_NON_ZERO (the exit code does not travel:
        // OpenPMIx packs none).
        t.len() == 1 && t[0].state == 62
    });
    let pid = started_pids(&tool, &lingering.to_string_lossy(), 1)[0];
    tool.finalize().unwrap();
    // cat ends with pmixrun's stdin; the sleeping daemon is ended then.
    assert_eq!(run.wait(), Some(0));
    assert!(
        !matches!(proc_state(pid), Some(s) if s != 'Z'),
        "daemon {pid} left running"
    );
}
