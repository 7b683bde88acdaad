//! `pmixrun` starting many ranks at once (issue 25): every rank is forked
//! before the exec of any is waited for, so these check what that must
//! keep: a large job starts whole, a rank that cannot exec stops the start
//! and takes the ranks forked after it along (none left running), a bare
//! program name is looked up in the rank's own `PATH`, and a rank starts
//! with default signal dispositions and nothing blocked.
//!
//! Every job runs under `pmixrun --timeout` and a watchdog; nothing
//! sleeps to synchronise (the `sleep` ranks below are what must be
//! killed).

mod common;

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const WATCHDOG: Duration = Duration::from_secs(240);

/// `pmixrun --timeout 120 ARGS...` on our library, stdin closed, under a
/// watchdog.
fn pmixrun<S: AsRef<OsStr>>(args: &[S], what: &str) -> Output {
    common::run_with_watchdog(
        Command::new(env!("CARGO_BIN_EXE_pmixrun"))
            .args(["--timeout", "120"])
            .args(args)
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        WATCHDOG,
        what,
    )
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn write_program(path: &Path, body: &[u8]) {
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Whether `pid` is a live process (not gone, not a zombie).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // "pid (comm) S ...": the state follows the last ')'.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

#[test]
fn sixty_four_ranks_start_and_all_initialise() {
    let client = common::build_c(
        "tests/c/pmixrun_client.c",
        "pmixrun_launch",
        "pmixrun_client",
        &common::include_dir(),
        &[],
    );
    let o = pmixrun(
        &["-n".as_ref(), "64".as_ref(), client.as_os_str()],
        "64 ranks",
    );
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(
        o.status.success(),
        "{}\nstdout:\n{out}\nstderr:\n{err}",
        o.status
    );
    for r in 0..64 {
        let line = format!("c client {r} of 64 ok");
        assert!(
            out.contains(&line),
            "missing {line:?} in\n{out}\nstderr:\n{err}"
        );
    }
}

#[test]
fn a_rank_that_cannot_exec_stops_the_start_and_kills_the_ranks_forked_after_it() {
    let dir = common::scratch("pmixrun_launch_exec_failure");
    // Executable, so found and let through to its exec, which fails with
    // ENOEXEC (neither ELF nor `#!`).
    let bad = dir.join("not_a_program");
    write_program(&bad, b"\x01\x02 not a program\n");
    let pids = dir.join("pids");
    let good = format!(
        "echo $$ >> {}; echo rank $PMIX_RANK up; exec sleep 100",
        pids.display()
    );
    let bad = bad.display().to_string();
    let args = [
        "-n", "2", "sh", "-c", &good, ":", "-n", "1", &bad, ":", "-n", "20", "sh", "-c", &good,
    ];
    let o = pmixrun(&args, "a rank that cannot exec");
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(126), "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        err.contains("cannot start rank 2 (") && err.contains("Exec format error"),
        "{err}"
    );
    // Ranks 3.. were never started as far as the job goes: not a word of
    // theirs is forwarded...
    for r in 3..23 {
        assert!(
            !out.contains(&format!("rank {r} up")),
            "rank {r} ran:\n{out}"
        );
    }
    // ...and none of the processes is left (each `sleep 100` would be).
    let listed = std::fs::read_to_string(&pids).unwrap_or_default();
    for pid in listed.lines().filter_map(|l| l.trim().parse::<u32>().ok()) {
        assert!(!alive(pid), "pid {pid} still runs after pmixrun ended");
    }
}

#[test]
fn a_bare_program_name_is_found_in_the_ranks_path() {
    let dir = common::scratch("pmixrun_launch_path");
    write_program(
        &dir.join("launch_path_probe"),
        b"#!/bin/sh\necho found $PMIX_RANK\n",
    );
    let path = format!("PATH={}:/usr/bin:/bin", dir.display());
    let o = pmixrun(&["-x", &path, "-n", "3", "launch_path_probe"], "-x PATH");
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "stdout:\n{out}\nstderr:\n{err}");
    for r in 0..3 {
        assert!(out.contains(&format!("found {r}\n")), "{out}");
    }
    // Not in the launcher's own PATH.
    let o = pmixrun(&["-n", "3", "launch_path_probe"], "no PATH");
    assert_eq!(o.status.code(), Some(127), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("cannot start rank 0 (launch_path_probe)"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn ranks_start_with_default_signal_dispositions_and_nothing_blocked() {
    // `yes` dies of SIGPIPE silently when `head` is done, unless SIGPIPE
    // is ignored (Rust's runtime ignores it in pmixrun): then it reports
    // the broken pipe.
    let script = "grep -E '^Sig(Blk|Ign):' /proc/self/status; yes | head -n 1 >/dev/null";
    let o = pmixrun(&["-n", "2", "sh", "-c", script], "signal state");
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "stdout:\n{out}\nstderr:\n{err}");
    assert!(!err.contains("Broken pipe"), "{err}");
    let field = |name: &str| -> Vec<u64> {
        out.lines()
            .filter_map(|l| l.strip_prefix(name))
            .map(|v| u64::from_str_radix(v.trim(), 16).unwrap())
            .collect()
    };
    let blocked = field("SigBlk:");
    assert_eq!(blocked, vec![0, 0], "{out}");
    let ignored = field("SigIgn:");
    assert_eq!(ignored.len(), 2, "{out}");
    for mask in ignored {
        assert_eq!(
            mask & (1 << (libc::SIGPIPE - 1)),
            0,
            "SIGPIPE ignored: {out}"
        );
    }
}
