//! `PMIx_Session_control` (OpenPMIx 5.0) end to end: a client's request
//! crosses the control plane to `pmixrun`'s host, which signals every rank
//! of its session (`tests/c/session_client.c`); refusals come back as
//! statuses. The host-module side (a C host's 5.0 `session_control` slot,
//! and a 4.2.2-sized module that has none) is in `ffi`'s `module_level`
//! unit tests and `tests/c/session_host.c`.

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
