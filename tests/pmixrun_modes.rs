//! `pmixrun`'s modes for what real programs test (issue 21):
//! - `--recoverable`: a rank leaves (exit without finalize, non-zero
//!   status, killed) while the others construct a group; they hear of it
//!   (`PMIX_ERR_PROC_ABORTED`), the construct fails, and they go on (fence,
//!   finalize); `pmixrun` exits with the status the failure would give
//!   without the flag (`tests/c/recoverable_rank.c`);
//! - `--pset NAME`: every rank gets `PMIX_PROCESS_SET_DEFINE` for each set,
//!   also through a handler it registers after init, then queries the
//!   sets (`tests/c/pset_event.c`);
//! - `--system-server`: the system rendezvous file, a tool attached with
//!   `PMIX_CONNECT_TO_SYSTEM`, asking for the `PMIX_SERVER_URI` of the node
//!   by its host name, and connecting with `PMIX_SERVER_URI` (that URI,
//!   `file:PATH`, naming the host by its name, `file://localhost/PATH`),
//!   another `pmixrun --system-server` refused, nothing left behind
//!   (`tests/c/system_tool.c`).
//!
//! Every job runs under `pmixrun --timeout` and a watchdog; every wait in
//! the C programs is bounded.

mod common;

use std::process::{Command, Output, Stdio};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

fn unique(tag: &str) -> String {
    format!("pmixrun_modes_{tag}_{}", std::process::id())
}

/// Runs `pmixrun --timeout 100 ARGS` on our library (stdout piped,
/// stderr piped) under a watchdog, `TMPDIR` set to `tmp` if given.
/// Builds `tests/c/NAME.c` against our headers, with `flags`.
fn build(name: &str, flags: &[&str]) -> std::path::PathBuf {
    common::build_c(
        &format!("tests/c/{name}.c"),
        &unique(name),
        name,
        &common::include_dir(),
        flags,
    )
}

fn pmixrun(args: &[&str], tmp: Option<&std::path::Path>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    c.args(["--timeout", "100"])
        .args(args)
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(t) = tmp {
        c.env("TMPDIR", t);
    }
    common::run_with_watchdog(&mut c, LIMIT, "pmixrun")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

// ----------------------------------------------------------------------
// --recoverable

fn recoverable_job(mode: &str, want_status: i32) {
    let prog = build("recoverable_rank", &["-pthread"]);
    let o = pmixrun(
        &["--recoverable", "-n", "3", prog.to_str().unwrap(), mode],
        None,
    );
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(
        o.status.code(),
        Some(want_status),
        "stdout:\n{out}\nstderr:\n{err}"
    );
    for r in [0, 2] {
        assert!(
            out.contains(&format!("survivor {r} ok")),
            "rank {r} did not go on; stdout:\n{out}\nstderr:\n{err}"
        );
    }
    assert!(err.contains("rank 1 "), "the failure is named: {err}");
    assert!(err.contains("--recoverable"), "{err}");
}

#[test]
fn recoverable_survivors_go_on_after_an_exit_without_finalize() {
    // Without the flag: 1 (an exit without finalize while others ran).
    recoverable_job("exit", 1);
}

#[test]
fn recoverable_survivors_go_on_after_a_failing_status() {
    recoverable_job("status", 3);
}

#[test]
fn recoverable_survivors_go_on_after_a_rank_is_killed() {
    recoverable_job("kill", 128 + libc::SIGKILL);
}

#[test]
fn without_recoverable_the_job_still_ends_at_the_first_failure() {
    let prog = build("recoverable_rank", &["-pthread"]);
    let o = pmixrun(&["-n", "3", prog.to_str().unwrap(), "status"], None);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("--recoverable"));
}

// ----------------------------------------------------------------------
// --pset

#[test]
fn pset_definitions_reach_every_rank_also_a_handler_registered_late() {
    let prog = build("pset_event", &["-pthread"]);
    let p = prog.to_str().unwrap();
    let o = pmixrun(
        &[
            "--pset", "left", "-n", "2", p, ":", "--pset", "right", "-n", "1", p,
        ],
        None,
    );
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "stdout:\n{out}\nstderr:\n{err}");
    for r in 0..3 {
        assert!(
            out.contains(&format!("pset event {r} ok")),
            "stdout:\n{out}\nstderr:\n{err}"
        );
    }
}

// ----------------------------------------------------------------------
// --system-server

use common::pmixrun_job::{poll_until, PmixrunJob};

/// Runs `tests/c/system_tool.c` with `args` under a watchdog; fails the
/// test unless it prints its ok line. Returns its stdout.
fn system_tool(args: &[&str]) -> String {
    let tool = build("system_tool", &[]);
    let o = common::run_with_watchdog(
        Command::new(&tool)
            .args(args)
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        LIMIT,
        "system tool",
    );
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(
        o.status.success() && out.contains("system tool ok"),
        "{args:?}: {}\nstdout:\n{out}\nstderr:\n{err}",
        o.status
    );
    out
}

#[test]
fn system_server_serves_tools_refuses_a_second_one_and_leaves_nothing() {
    let mut job = PmixrunJob::sleeping_with("sys", &["--system-server"]);
    let tmp = job.tmp().to_path_buf();
    let host = pmix::server::local_hostname();
    let sys_file = tmp.join(format!("pmix.sys.{host}"));
    poll_until("the system rendezvous file", || sys_file.exists());
    let ns = job.nspace().to_owned();

    // PMIX_CONNECT_TO_SYSTEM (in this system temporary directory); the
    // server's URI asked for by the node's host name, then used.
    let out = system_tool(&["system", tmp.to_str().unwrap(), &ns, &host]);
    let asked = out
        .lines()
        .find_map(|l| l.strip_prefix("server uri: "))
        .unwrap_or_else(|| panic!("no server uri in {out}"))
        .to_owned();
    system_tool(&["uri", &asked, &ns]);
    // PMIX_SERVER_URI as file:PATH.
    let by_file = format!("file:{}", sys_file.display());
    system_tool(&["uri", &by_file, &ns]);
    // PMIX_SERVER_URI naming this node by its host name, and as
    // localhost in a file URL.
    // (Our URI: the file's unix line; its first is the stock door's.)
    let uri = pmix::net::tool_files::read_uri(&sys_file).unwrap();
    let uri = uri.as_str();
    assert_eq!(uri, asked);
    let by_host = uri.replacen("unix://", &format!("unix://{host}"), 1);
    assert_ne!(by_host, uri);
    system_tool(&["uri", &by_host, &ns]);
    let by_localhost = format!("file://localhost{}", sys_file.display());
    system_tool(&["uri", &by_localhost, &ns]);

    // A second system server on the node is refused, the first untouched.
    let o = pmixrun(&["--system-server", "-n", "1", "true"], Some(tmp.as_path()));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("another system server"), "{err}");
    system_tool(&["system", tmp.to_str().unwrap(), &ns]);

    // Gone with pmixrun: nothing of it is left in the directory.
    job.end();
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_system_file_left_by_a_killed_server_is_replaced() {
    let tmp = common::pmixrun_job::private_tmp("sysstale");
    let host = pmix::server::local_hostname();
    let sys_file = tmp.join(format!("pmix.sys.{host}"));
    std::fs::write(
        &sys_file,
        format!(
            "dead.0;unix://{}/gone/sock\n4.2.2\n999999999\n",
            tmp.display()
        ),
    )
    .unwrap();
    let o = pmixrun(&["--system-server", "-n", "1", "true"], Some(tmp.as_path()));
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        !sys_file.exists(),
        "the stale file is replaced, then removed"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
