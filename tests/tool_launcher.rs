//! What tools and launchers built on OpenPMIx rely on (issue 21, items 6,
//! 8 and 17), through `tests/c/tool_launcher.c` on our headers and, when
//! installed, on Debian's OpenPMIx 4.2.2 headers:
//!
//! - a tool's `PMIX_QUERY_NAMESPACE_INFO` is answered in PRRTE's shape (an
//!   array of infos, one per namespace, each an array of infos starting
//!   with `PMIX_NSPACE`), so that a program copying it with
//!   `PMIX_INFO_XFER` sees the running job;
//! - a launcher that connects to no server (`PMIX_LAUNCHER` with
//!   `PMIX_TOOL_DO_NOT_CONNECT`) forks and execs what it spawns itself;
//! - such a launcher's `PMIx_server_setup_application` answers as a
//!   server's does.
//!
//! Every run is bounded by a watchdog; the C program bounds its own waits.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::pmixrun_job::PmixrunJob;

const LIMIT: Duration = Duration::from_secs(60);

/// The header directories the C program is built against: ours, and
/// Debian's OpenPMIx 4.2.2 headers when installed.
fn both_headers() -> Vec<(&'static str, PathBuf)> {
    let mut v = vec![("ours", common::include_dir())];
    if let Some((inc, _)) = common::reference_pmix() {
        v.push(("ref", inc));
    }
    v
}

/// Builds `tests/c/tool_launcher.c` against `include` and runs it with
/// `args` (rendezvous files in `tmp`); asserts it printed "tool ok".
fn run(include: &Path, tag: &str, args: &[&str], tmp: &Path) {
    let exe = common::build_c(
        "tests/c/tool_launcher.c",
        &format!("tool_launcher_{tag}_{}", std::process::id()),
        "tool_launcher",
        include,
        &["-pthread"],
    );
    let out = common::run_with_watchdog(
        Command::new(&exe)
            .args(args)
            .env("TMPDIR", tmp)
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        LIMIT,
        "tool_launcher",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("tool ok"),
        "tool_launcher {args:?} ({tag}): {:?}\n{stdout}\n{stderr}",
        out.status
    );
}

/// Item 6: the namespaces and their command lines, as PRRTE answers them.
#[test]
fn namespace_info_is_an_array_of_info_arrays_starting_with_the_namespace() {
    let mut job = PmixrunJob::sleeping("tool-launcher-nsinfo");
    let pid = job.pid().to_string();
    for (h, inc) in both_headers() {
        run(
            &inc,
            &format!("nsinfo_{h}"),
            &["nsinfo", &pid, job.nspace()],
            job.tmp(),
        );
    }
    job.end();
}

/// Item 8: an unconnected launcher's spawn forks and execs the processes
/// itself, in the working directory and with the environment it was
/// given, and raises `PMIX_ERR_JOB_TERMINATED` when they are all gone.
#[test]
fn an_unconnected_launcher_forks_and_execs_what_it_spawns() {
    for (h, inc) in both_headers() {
        let dir = common::scratch(&format!("tool_launcher_fork_{h}_{}", std::process::id()))
            .canonicalize()
            .unwrap();
        let tmp = dir.join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        run(
            &inc,
            &format!("fork_{h}"),
            &["fork", dir.to_str().unwrap()],
            &tmp,
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Item 17: `PMIx_server_setup_application` in a launcher tool harvests
/// the environment as in a server.
#[test]
fn a_launcher_tool_sets_up_an_application() {
    for (h, inc) in both_headers() {
        let tmp = common::scratch(&format!("tool_launcher_setup_{h}_{}", std::process::id()));
        run(&inc, &format!("setup_{h}"), &["setup"], &tmp);
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
