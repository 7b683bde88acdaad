//! Process monitoring by the server library (issue 26): `pmixrun` has no
//! `monitor` upcall, so `PMIx_Process_monitor` of heartbeats and files is
//! served by the library's own monitors, which raise
//! `PMIX_MONITOR_HEARTBEAT_ALERT` / `PMIX_MONITOR_FILE_ALERT`.
//!
//! `tests/c/monitor_client.c` as 2 ranks under `pmixrun`:
//! - a rank that beats then stops is reported (to itself and the other
//!   rank) within the set time, one that keeps beating is not, and a
//!   cancelled monitor stays quiet;
//! - a file that grows then stops raises the file alert, naming it; a
//!   monitor cancelled by its `PMIX_MONITOR_ID` does not;
//! - bad requests get a clear status;
//! - the heartbeat run again with the client built against the reference
//!   headers and running on a stock OpenPMIx (Debian's 4.2.2, the
//!   wheel's 5.0.11), whose beats come through the stock door on
//!   OpenPMIx's heartbeat tag.
//!
//! Every run is bounded (`pmixrun --timeout` and a watchdog); the client's
//! waits for alerts are bounded too.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(90);

fn client() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        common::build_c(
            "tests/c/monitor_client.c",
            "monitor_client",
            "monitor_client",
            &common::include_dir(),
            &["-pthread"],
        )
    })
}

/// The client built against Debian's OpenPMIx 4.2.2 headers (linked
/// with its library), if installed: (executable, Debian's lib dir).
fn stock_client() -> Option<(PathBuf, PathBuf)> {
    static EXE: OnceLock<Option<(PathBuf, PathBuf)>> = OnceLock::new();
    EXE.get_or_init(|| {
        let (inc, lib) = common::reference_pmix()?;
        let exe = common::build_once("monitor_stock_client", "monitor_client", |exe| {
            let src = common::root().join("tests/c/monitor_client.c");
            common::compile_c(&[&src], exe, &inc, &lib, &["-pthread"]);
        });
        Some((exe, lib))
    })
    .clone()
}

/// Runs the client in `mode` as 2 ranks; fails unless both say ok.
fn run(mode: &str) {
    run_on(client(), common::ffi_lib_dir(), mode, mode);
}

/// Runs `exe` in `mode` as 2 ranks on the libpmix of `libdir` (`tag`
/// naming its scratch directory); fails unless both say ok.
fn run_on(exe: &std::path::Path, libdir: &std::path::Path, mode: &str, tag: &str) {
    let dir = common::scratch(&format!("monitor_{tag}"));
    let o = common::run_with_watchdog(
        Command::new(env!("CARGO_BIN_EXE_pmixrun"))
            .args(["--timeout", "60", "-n", "2"])
            .arg(exe)
            .arg(mode)
            .env("LD_LIBRARY_PATH", libdir)
            .env("MONITOR_TEST_DIR", &dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        LIMIT,
        &format!("monitor_client {mode}"),
    );
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    common::assert_ranks_ok(
        2,
        o.status.success(),
        &out,
        &err,
        &format!("monitor {mode}"),
    );
}

#[test]
fn a_rank_that_stops_beating_is_reported_and_one_that_beats_is_not() {
    run("heartbeat");
}

#[test]
fn a_file_that_stops_growing_is_reported_and_a_cancelled_monitor_is_not() {
    run("file");
}

#[test]
fn bad_monitor_requests_get_a_clear_status() {
    run("bad");
}

#[test]
fn debian_4_2_2_clients_beat_through_the_stock_door() {
    let Some((exe, lib)) = stock_client() else {
        return;
    };
    run_on(&exe, &lib, "heartbeat", "heartbeat_debian");
}

#[test]
fn wheel_5_0_11_clients_beat_through_the_stock_door() {
    let Some((exe, _)) = stock_client() else {
        return;
    };
    let Some(w) = common::ompi5() else {
        return;
    };
    run_on(&exe, &w.pmix_lib_dir(), "heartbeat", "heartbeat_wheel");
}
