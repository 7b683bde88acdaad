//! Queries, logging, job control, monitoring, allocation and credentials
//! end to end, with `tests/c/rm_client.c`:
//!
//! - under `pmixrun` (its host: logs tagged with the rank, job control by
//!   signals, the rest refused), where queries are answered by the
//!   client's own data, by the server, or not at all;
//! - under `tests/c/rm_host.c`, a C server host whose `query`, `log`,
//!   `job_control`, `monitor`, `allocate`, `get_credential` and
//!   `validate_credential` callbacks answer, so that every upcall crosses
//!   the C module bridge.
//!
//! Every job is bounded (`pmixrun --timeout`, a watchdog for the C host);
//! nothing sleeps to synchronize.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

const LIMIT: &str = "120";

fn build_with(src: &str, name: &str, include: &Path, extra: &[&str]) -> PathBuf {
    let dir = format!("query_log_{name}_{}", std::process::id());
    common::build_c(src, &dir, name, include, extra)
}

fn build(src: &str, name: &str, extra: &[&str]) -> PathBuf {
    build_with(src, name, &common::include_dir(), extra)
}

/// The client, built once per test process.
fn client() -> &'static Path {
    static CLIENT: OnceLock<PathBuf> = OnceLock::new();
    CLIENT.get_or_init(|| build("tests/c/rm_client.c", "rm_client", &["-pthread"]))
}

fn pmixrun(exe: &Path, mode: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", LIMIT, "-n", "2"])
        .arg(exe)
        .arg(mode)
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .stdin(Stdio::null())
        .output()
        .expect("pmixrun starts")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Queries answered locally, by the server and not at all; logs on
/// pmixrun's streams tagged with the rank; rank 0 pauses, resumes and
/// signals rank 1; monitor, allocation and credentials refused.
#[test]
fn queries_logs_and_job_control_under_pmixrun() {
    let o = pmixrun(client(), "pmixrun");
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    for r in 0..2 {
        assert!(out.contains(&format!("rm client {r} ok")), "{out}\n{err}");
        assert!(
            err.contains(&format!("[rank {r}] log to stderr from {r}")),
            "{err}"
        );
        assert!(
            out.contains(&format!("[rank {r}] log to stdout from {r}")),
            "{out}"
        );
    }
    assert!(
        out.contains(&format!("rm client 1 got signal {}", libc::SIGUSR1)),
        "{out}"
    );
}

/// The same client built, unchanged, against the reference OpenPMIx
/// headers (their `pmix_query_t`, `pmix_info_t`, callback types and
/// macros) runs on our library.
#[test]
fn reference_built_client_queries_and_logs() {
    let Some((inc, _lib)) = common::reference_pmix() else {
        return;
    };
    let exe = build_with("tests/c/rm_client.c", "rm_client_ref", &inc, &["-pthread"]);
    let o = pmixrun(&exe, "pmixrun");
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    assert!(
        out.contains("rm client 0 ok") && out.contains("rm client 1 ok"),
        "{out}\n{err}"
    );
}

/// `PMIX_JOB_CTRL_KILL` of rank 1 by rank 0: pmixrun kills it and reports
/// the job failed by that signal.
#[test]
fn job_control_kill_under_pmixrun() {
    let o = pmixrun(client(), "kill");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(128 + libc::SIGKILL), "{err}");
    assert!(err.contains("rank 1") && err.contains("SIGKILL"), "{err}");
}

/// Runs `tests/c/rm_host.c` (with `args`) and its client; its output.
fn c_host(args: &[&str]) -> (String, String) {
    static HOST: OnceLock<PathBuf> = OnceLock::new();
    let host = HOST.get_or_init(|| build("tests/c/rm_host.c", "rm_host", &["-pthread"]));
    // One directory per host: two servers must not share a rendezvous.
    let tag = args.first().copied().unwrap_or("plain");
    let tmp = common::scratch(&format!("query_log_tmp_{tag}_{}", std::process::id()));
    let o = common::run_with_watchdog(
        Command::new(host)
            .arg(client())
            .args(args)
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .env("TMPDIR", &tmp)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        Duration::from_secs(120),
        "rm_host",
    );
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("rm client 0 ok"), "{out}\n{err}");
    (out, err)
}

/// Every upcall through the C module: the host's answers reach the client,
/// its log callback gets the message.
#[test]
fn c_host_callbacks_answer_clients() {
    let (out, err) = c_host(&[]);
    assert!(
        out.contains("host logged: pmix.log.stderr=host log from 0"),
        "{out}\n{err}"
    );
    assert!(
        out.contains("host query: test.nobody.knows"),
        "{out}\n{err}"
    );
    // The host process's own PMIx_Log reaches its log function too.
    assert!(
        out.contains("host logged: pmix.log.stderr=the server's own log"),
        "{out}\n{err}"
    );
}

/// A host without a log function: the server writes the messages (its
/// client's and its own process's) to its stderr, naming the source.
#[test]
fn server_logs_itself_without_a_host_log() {
    let (out, err) = c_host(&["nolog"]);
    assert!(
        err.contains("[rm-host-job:0] host log from 0"),
        "{out}\n{err}"
    );
    assert!(!out.contains("host logged"), "{out}");
    assert!(err.contains("] the server's own log"), "{out}\n{err}");
}

/// A host completing every upcall at once (`PMIX_OPERATION_SUCCEEDED`, no
/// callback): spawn, publish, unpublish, job control, allocation and
/// credentials succeed with no data (a spawn's namespace empty, as with
/// OpenPMIx's server), a lookup or query finds nothing; a host that calls
/// back and then returns an error is answered by its callback.
#[test]
fn host_operation_succeeded_from_every_upcall() {
    let (out, err) = c_host(&["succeeded"]);
    assert!(!err.contains("line "), "{out}\n{err}");
}
