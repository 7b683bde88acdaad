//! `PMIx_Session_control` (OpenPMIx 5.0) end to end: a client's request
//! crosses the control plane to `pmixrun`'s host, which signals every rank
//! of its session (`tests/c/session_client.c`); refusals come back as
//! statuses. The host-module side (a C host's 5.0 `session_control` slot,
//! and a 4.2.2-sized module that has none) is in `ffi`'s `module_level`
//! unit tests and `tests/c/session_host.c`, run here built against our
//! headers and against Debian's 4.2.2 ones.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn a_client_signals_its_session_through_pmixrun() {
    let exe = common::build_c(
        "tests/c/session_client.c",
        "session_control",
        "session_client",
        &common::include_dir(),
        &["-pthread"],
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    cmd.args(["--timeout", "60", "-n", "2"])
        .arg(&exe)
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let o = common::run_with_watchdog(&mut cmd, Duration::from_secs(90), "session_client");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{:?}\n{out}\n{err}", o.status);
    for line in [
        "before init: -31",
        "unknown session: -46",
        "unsupported directive: -47",
        "NULL directives, ndirs 1: -27",
        "blocking signal: 0",
        "non-blocking signal: 0",
        "callback: 0",
        "rank 0: signalled twice",
        "rank 1: signalled twice",
    ] {
        assert!(
            out.lines().any(|l| l == line),
            "missing {line:?} in\n{out}\n{err}"
        );
    }
}

/// Runs `host` (a build of `tests/c/session_host.c`) with the client in
/// its "host" mode, `args` after; the host's and the client's output.
fn run_host(host: &std::path::Path, client: &std::path::Path, args: &[&str], tag: &str) -> String {
    let tmp = common::scratch(&format!("session_host_tmp_{tag}_{}", std::process::id()));
    let mut cmd = Command::new(host);
    cmd.arg(client)
        .args(args)
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let o = common::run_with_watchdog(&mut cmd, Duration::from_secs(90), "session_host");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "{tag}: {:?}\n{out}\n{err}", o.status);
    out
}

/// A host built against our (5.0) headers gets the client's and its own
/// session-control requests in its module's `session_control`, and its
/// result reaches the client; a host built against Debian's 4.2.2
/// headers passes the shorter module, followed by another variable or by
/// an unreadable page: the library reads no function out of either, and
/// both requests are refused with `PMIX_ERR_NOT_SUPPORTED` (no crash).
#[test]
fn a_5_0_host_module_answers_and_a_4_2_module_is_not_read_past() {
    let client = common::build_c(
        "tests/c/session_client.c",
        "session_control",
        "session_client",
        &common::include_dir(),
        &["-pthread"],
    );
    let host50 = common::build_c(
        "tests/c/session_host.c",
        "session_control_host50",
        "session_host",
        &common::include_dir(),
        &["-pthread"],
    );
    for mode in [&[][..], &["edge"][..]] {
        let out = run_host(&host50, &client, mode, &format!("5.0 {mode:?}"));
        assert!(
            out.contains("client: status 0, result granted-to=session-ns"),
            "{out}"
        );
        assert!(out.contains("session host ok: 2 upcalls"), "{out}");
    }
    let Some((ref_inc, _)) = common::reference_pmix() else {
        return;
    };
    let host42 = common::build_c(
        "tests/c/session_host.c",
        "session_control_host42",
        "session_host",
        &ref_inc,
        &["-pthread", "-DMODULE_4_2"],
    );
    for mode in [&[][..], &["edge"][..]] {
        let out = run_host(&host42, &client, mode, &format!("4.2 {mode:?}"));
        assert!(out.contains("client: status -47, result none"), "{out}");
        assert!(out.contains("session host ok: 0 upcalls"), "{out}");
    }
}
