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
//! - bad requests get a clear status.
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

/// Runs the client in `mode` as 2 ranks; fails unless both say ok.
fn run(mode: &str) {
    let dir = common::scratch(&format!("monitor_{mode}"));
    let o = common::run_with_watchdog(
        Command::new(env!("CARGO_BIN_EXE_pmixrun"))
            .args(["--timeout", "60", "-n", "2"])
            .arg(client())
            .arg(mode)
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
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
