//! A server process calling the PMIx API on itself, as OpenPMIx serves it
//! (issue 21, items 10 to 13 and 15), with the C host
//! `tests/c/server_self_host.c` on our library:
//! - `PMIx_server_register_resources` succeeds and its infos become
//!   job-level data of the namespaces registered afterwards (the
//!   deregistered ones do not);
//! - `PMIx_Get` of its own `PMIX_PROCID`, `PMIX_NSPACE`, `PMIX_RANK`
//!   answers its server identity;
//! - `PMIx_Spawn`(`_nb`), `PMIx_Job_control`(`_nb`) and `PMIx_IOF_push`
//!   reach its own host's upcalls, the server being the requester, and
//!   so does its stdin under `PMIX_IOF_PUSH_STDIN`;
//! - `PMIX_IOF_LOCAL_OUTPUT`: delivered output is written to the server's
//!   own stdout/stderr, and not when it is false;
//! - `PMIX_TCP_REPORT_URI`: the URI goes to a file or to stdout (`-`).

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::pmixrun_job::private_tmp;

const LIMIT: Duration = Duration::from_secs(60);

/// Runs the host with `uridest` and `local`; its stdout and stderr, once
/// it succeeded.
fn run_host(tag: &str, uridest: &str, local: bool) -> (String, String) {
    let tmp = private_tmp(tag);
    let host = common::build_c(
        "tests/c/server_self_host.c",
        "server_self_host",
        "server_self_host",
        &common::include_dir(),
        &["-pthread"],
    );
    let uridest = if uridest == "file" {
        tmp.join("uri").to_string_lossy().into_owned()
    } else {
        uridest.to_owned()
    };
    // The host forwards its stdin to its own `push_stdin`.
    let input = tmp.join("input");
    std::fs::write(&input, "typed line\n").unwrap();
    let out = common::run_with_watchdog(
        Command::new(&host)
            .stdin(std::fs::File::open(&input).unwrap())
            .args(["host", &uridest, if local { "1" } else { "0" }])
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .env("TMPDIR", &tmp)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        LIMIT,
        "server_self_host",
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success() && stdout.contains("server self host ok"),
        "{}\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("self client ok"), "{stdout}\n{stderr}");
    if uridest.starts_with('/') {
        let text = std::fs::read_to_string(&uridest).expect("the URI file");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].starts_with("selfsrv.3;unix://"), "{text}");
        assert!(lines[1].starts_with('v'), "{text}");
    }
    let _ = std::fs::remove_dir_all(&tmp);
    (stdout, stderr)
}

#[test]
fn a_servers_own_calls_reach_its_host_and_its_uri_goes_to_a_file() {
    let (stdout, stderr) = run_host("self-file", "file", true);
    assert!(stdout.contains("local out\n"), "{stdout}");
    assert!(stderr.contains("local err\n"), "{stderr}");
    assert!(!stdout.contains("unix://"), "{stdout}");
}

#[test]
fn without_local_output_delivered_output_stays_off_the_servers_stdout() {
    let (stdout, stderr) = run_host("self-stdout", "-", false);
    assert!(!stdout.contains("local out"), "{stdout}");
    assert!(!stderr.contains("local err"), "{stderr}");
    // `-`: the URI on the server's stdout.
    assert!(
        stdout.lines().any(|l| l.starts_with("selfsrv.3;unix://")),
        "{stdout}"
    );
}

#[test]
fn the_uri_goes_to_stderr_with_plus() {
    let (stdout, stderr) = run_host("self-stderr", "+", true);
    assert!(
        stderr.lines().any(|l| l.starts_with("selfsrv.3;unix://")),
        "{stderr}"
    );
    assert!(!stdout.contains("unix://"), "{stdout}");
}
