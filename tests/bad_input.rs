//! Every exported `PMIx_*` function under bad input (issue 13, item 6):
//! `tests/c/bad_input.c` is a table of rows (function, bad-input pattern,
//! expected status per state), run before any initialization, as a client
//! under `pmixrun` then after its finalize, as a server
//! (`PMIx_server_init`) then after its finalize, and as a tool attached to
//! a running `pmixrun` then after its finalize. Every row must return its
//! status and nothing may crash; the rows must name every function the
//! library exports. Every run is bounded by a watchdog.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

/// The table, built once (the tests run in parallel).
fn table_program() -> &'static PathBuf {
    static EXE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    EXE.get_or_init(|| {
        common::build_c(
            "tests/c/bad_input.c",
            "bad-input",
            "bad_input",
            &common::include_dir(),
            &[],
        )
    })
}

/// Runs the table in `state` (`pre`, `server`, or `client` under a
/// one-rank `pmixrun`) and fails on any failed row; returns its output,
/// every row's status listed (`ok <state> <function> <pattern>: <status>`).
fn run_table(state: &str, tag: &str) -> String {
    let tmp = common::pmixrun_job::private_tmp(&format!("bad-input-{tag}"));
    run_table_in(state, &[], &tmp)
}

/// [`run_table`] with more arguments, in the rendezvous directory `tmp`
/// (emptied and removed after, failing the test if anything was left).
fn run_table_in(state: &str, args: &[&str], tmp: &std::path::Path) -> String {
    let exe = table_program();
    let mut cmd = if state == "client" {
        let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
        c.args(["--timeout", "100", "-n", "1"]).arg(exe);
        c
    } else {
        Command::new(exe)
    };
    cmd.arg(state)
        .args(args)
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .env("TMPDIR", tmp)
        .env("BAD_INPUT_LIST", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = common::run_with_watchdog(&mut cmd, LIMIT, &format!("bad_input {state}"));
    if state != "tool" {
        let left: Vec<_> = std::fs::read_dir(tmp)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        let _ = std::fs::remove_dir_all(tmp);
        assert!(left.is_empty(), "bad_input {state} left {left:?}");
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(&format!("bad_input {state}: ")),
        "bad_input {state}: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" 0 failures"), "{stdout}");
    stdout.into_owned()
}

/// Fails unless the table's output has the row line `line`.
fn assert_row(out: &str, line: &str) {
    assert!(out.lines().any(|l| l == line), "no {line:?} in\n{out}");
}

#[test]
fn table_before_init() {
    run_table("pre", "pre");
}

#[test]
fn table_in_a_server_and_after_its_finalize() {
    let out = run_table("server", "server");
    assert!(out.contains("post: "), "{out}");
}

#[test]
fn table_in_a_client_and_after_its_finalize() {
    let out = run_table("client", "client");
    assert!(out.contains("post: "), "{out}");
}

#[test]
fn table_in_a_tool_and_after_its_finalize() {
    let mut job = common::pmixrun_job::PmixrunJob::sleeping("bad-input-tool");
    let pid = job.pid().to_string();
    let out = run_table_in("tool", &[&pid], job.tmp());
    assert!(out.contains("post: "), "{out}");
    job.end();
}

/// The rows name every `PMIx_*` function the library exports.
#[test]
fn table_covers_every_export() {
    let lib = common::ffi_lib_dir().join("libpmix.so.2");
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&lib)
        .output()
        .expect("run nm (binutils)");
    assert!(out.status.success());
    let exported: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|s| s.starts_with("PMIx_"))
        .map(String::from)
        .collect();
    assert!(exported.len() >= 141, "{} exports", exported.len());
    let src = std::fs::read_to_string(common::root().join("tests/c/bad_input.c")).unwrap();
    // A row names its function; FAMILY_ROWS(T) stands for the rows of
    // PMIx_T_create, _construct, _destruct and _free.
    let rows: BTreeSet<String> = src
        .lines()
        .flat_map(|l| {
            let l = l.trim_start();
            if let Some(t) = l
                .strip_prefix("FAMILY_ROWS(")
                .and_then(|r| r.strip_suffix(");"))
            {
                return ["create", "construct", "destruct", "free"]
                    .map(|f| format!("PMIx_{t}_{f}"))
                    .to_vec();
            }
            l.strip_prefix("ROW(\"")
                .or_else(|| l.strip_prefix("VROW(\""))
                .and_then(|rest| rest.split('"').next())
                .map(String::from)
                .into_iter()
                .collect()
        })
        .collect();
    let missing: Vec<_> = exported.difference(&rows).collect();
    assert!(missing.is_empty(), "functions without a row: {missing:?}");
}

/// A construct naming no procs (a member a leader will add) waits for its
/// leader; with PMIX_TIMEOUT it ends with PMIX_ERR_TIMEOUT (-24), not
/// never.
#[test]
fn a_construct_waiting_for_its_leader_ends_at_its_timeout() {
    let out = run_table("client", "group");
    assert_row(
        &out,
        "ok client PMIx_Group_construct no procs, 1 s timeout: -24",
    );
}

/// Finding: in a server process `PMIx_Store_internal` stored under a key
/// longer than PMIX_MAX_KEYLEN and `PMIx_Get` looked one up; both are
/// PMIX_ERR_BAD_PARAM (-27) now, as in a client.
#[test]
fn a_server_process_refuses_an_overlong_key() {
    let out = run_table("server", "key");
    assert_row(
        &out,
        "ok server PMIx_Store_internal key > PMIX_MAX_KEYLEN: -27",
    );
    assert_row(&out, "ok server PMIx_Get key > PMIX_MAX_KEYLEN: -27");
}
