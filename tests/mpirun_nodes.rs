//! Open MPI 4.1's `mpirun` across several nodes simulated on this machine,
//! on our `libpmix.so.2` (issue #9): one `orted` per node, each in its own
//! UTS and mount namespaces with its own host name and `/dev/shm`, started
//! by `tests/cluster/orted-agent.sh` in place of ssh; `mpirun` hosts the
//! PMIx server of no rank, every node's `orted` that of its ranks (the
//! fixture: `tests/common/orte.rs`).
//!
//! At 2 nodes (`--host n1:2,n2:2`) and 4 (`n1:2,...,n4:2`), on ours:
//!
//! 1. MPI: `tests/interop/mpi_hello.c` (MPI_Init, Allreduce, Finalize),
//!    `tests/multinode/mpi_nodes.c` (the same with every rank's host name,
//!    and every rank's and every orted's libpmix), `tests/interop/mpi_ring.c`,
//!    `tests/interop/mpi_split.c`, `tests/multinode/mpi_split_node.c`
//!    (`MPI_Comm_split_type` SHARED: each node communicator must be the
//!    ranks of that node);
//! 2. the PMIx client `tests/multinode/pmix_wireup.c --ours` (shared with
//!    the Slurm tests): put, commit, fence with and without data collection,
//!    every peer's data and reserved keys (of remote ranks too), local
//!    procs, locality strings, and which libpmix every rank and its orted
//!    mapped, by device and inode;
//! 3. events across nodes (`tests/multinode/orte_event.c`): the last rank
//!    (on the last node) calls `PMIx_Abort`: mpirun must end the job with
//!    the abort's status, without a hang; rank 0 notifies a custom event
//!    with `PMIX_RANGE_SESSION`, which every other rank, on every node,
//!    must receive in its handler, with its payload;
//! 4. `tests/interop/mpi_pubsub.c`: MPI_Publish_name / Lookup_name through
//!    mpirun's data server and Comm_accept / connect, its 2 ranks on 2
//!    nodes (of 2, of 4).
//!
//! The same cases on the reference OpenPMIx 4.2.2 at 2 nodes prove the
//! fixture and each case's expectations right (`reference_*`; the same
//! `pmix_wireup.c`, without `--ours`: it then reads a remote rank's
//! `PMIX_NODEID` where given, which OpenPMIx 4.2 under mpirun does not,
//! and no local procs or locality strings, which mpirun does not
//! register), except one that the reference cannot pass, kept `#[ignore]`d
//! to show why: the custom event (OpenPMIx 4.2's server deadlocks on a
//! client's non-local event under mpirun: see `reference_custom_event_*`).
//!
//! Every run is bounded, leaves nothing behind (the daemons, which leave
//! the test's process group, are found by a marker variable) and checks
//! from `/proc/<pid>/maps` which libpmix the ranks, the orteds and mpirun
//! mapped. Without root or the Debian packages each test prints
//! `SKIPPED: ...` (and panics under `PMIX_REQUIRE_REFERENCE=1`).
//!
//! `cargo test --release --test mpirun_nodes bench -- --ignored --nocapture`
//! measures instead (see [`bench`]).

mod common;

use common::orte::{self, Job, Lib};

/// Ranks per node.
const PER_NODE: u32 = 2;

fn hosts(nodes: u32) -> Vec<String> {
    (1..=nodes).map(|i| format!("n{i}")).collect()
}

/// The node of rank `r` (mpirun fills each node's slots in turn).
fn node_of(r: u32) -> String {
    format!("n{}", 1 + r / PER_NODE)
}

// ---------------------------------------------------------------------------
// 1. MPI programs

fn mpi_hello(lib: Lib, nodes: u32) {
    if !orte::available() {
        return;
    }
    let n = nodes * PER_NODE;
    let prog = orte::mpi_program("tests/interop/mpi_hello.c");
    let r = Job::new(lib, nodes, PER_NODE, &prog).run();
    r.assert_ok();
    r.assert_line(&format!(
        "hello ok: {n} ranks, allreduce {}",
        n * (n - 1) / 2
    ));
    // Rank 0 and its parent: the orted of n1.
    r.assert_lib(&["rank", "launcher"], Some(1));
}

fn mpi_nodes(lib: Lib, nodes: u32) {
    if !orte::available() {
        return;
    }
    let n = nodes * PER_NODE;
    let prog = orte::mpi_program("tests/multinode/mpi_nodes.c");
    let r = Job::new(lib, nodes, PER_NODE, &prog).run();
    r.assert_ok();
    for rank in 0..n {
        r.assert_line(&format!(
            "mpi_nodes rank {rank} of {n} on {}",
            node_of(rank)
        ));
    }
    r.assert_line(&format!(
        "mpi_nodes ok: {n} ranks on {nodes} nodes ({}), allreduce {}",
        hosts(nodes).join(" "),
        n * (n - 1) / 2
    ));
    r.assert_lib(&["rank", "orted"], Some(n as usize));
}

fn mpi_simple(lib: Lib, nodes: u32, src: &str, line: &str) {
    if !orte::available() {
        return;
    }
    let r = Job::new(lib, nodes, PER_NODE, &orte::mpi_program(src)).run();
    r.assert_ok();
    r.assert_line(line);
    r.assert_lib(&[], None);
}

fn mpi_ring(lib: Lib, nodes: u32) {
    let n = nodes * PER_NODE;
    let line = format!("ring ok: {n} ranks, token {}", n * (n - 1) / 2);
    mpi_simple(lib, nodes, "tests/interop/mpi_ring.c", &line);
}

fn mpi_split(lib: Lib, nodes: u32) {
    let n = nodes * PER_NODE;
    let line = format!("split ok: {n} ranks in {n} checks");
    mpi_simple(lib, nodes, "tests/interop/mpi_split.c", &line);
}

fn mpi_split_node(lib: Lib, nodes: u32) {
    let n = nodes * PER_NODE;
    let line = format!("split_node ok: {n} ranks on {nodes} nodes");
    mpi_simple(lib, nodes, "tests/multinode/mpi_split_node.c", &line);
}

// ---------------------------------------------------------------------------
// 2. PMIx clients

/// `tests/multinode/pmix_wireup.c` (the multi-node client, shared with the
/// Slurm tests); `--ours` on ours, which derives more than mpirun gives.
fn pmix_wireup(lib: Lib, nodes: u32, collect: bool) {
    if !orte::available() {
        return;
    }
    let n = nodes * PER_NODE;
    let prog = orte::pmix_program("tests/multinode/pmix_wireup.c");
    let mut args = Vec::new();
    if lib == Lib::Ours {
        args.push("--ours");
    }
    if !collect {
        args.push("--no-collect");
    }
    let r = Job::new(lib, nodes, PER_NODE, &prog).args(&args).run();
    r.assert_ok();
    for rank in 0..n {
        let prefix = format!("wireup rank {rank} of {n} on {} (node ", node_of(rank));
        assert!(
            r.lines_with(&prefix).any(|l| l.ends_with("): ok")),
            "no `{prefix}...): ok` line\n{}",
            r.report()
        );
    }
    r.assert_line(&format!("wireup: {n} ranks on {nodes} nodes"));
    r.assert_lib(&[], None);
    r.assert_lib_ids(n);
}

// ---------------------------------------------------------------------------
// 3. Events across nodes

/// The last rank (on the last node) calls PMIx_Abort(40 + rank) while the
/// others wait in a fence: mpirun ends the job with that status (naming the
/// rank), nobody hangs, nothing is left.
fn abort_crosses_nodes(lib: Lib, nodes: u32) {
    if !orte::available() {
        return;
    }
    let n = nodes * PER_NODE;
    let who = n - 1;
    let prog = orte::pmix_program("tests/multinode/orte_event.c");
    let r = Job::new(lib, nodes, PER_NODE, &prog)
        .args(&["abort", &who.to_string()])
        .run();
    r.assert_bounded();
    r.assert_line(&format!("orte_event rank {who} aborting"));
    assert_eq!(
        r.code,
        Some(40 + who as i32),
        "mpirun's status is not the abort's (40 + rank {who})\n{}",
        r.report()
    );
    // No fence completes without the aborted rank.
    assert!(
        !r.stdout.contains("fence after the abort returned SUCCESS"),
        "a fence completed without the aborted rank\n{}",
        r.report()
    );
    // The abort may cut the other ranks' output short: one line suffices.
    r.assert_lib(&["rank", "orted"], None);
}

/// Rank 0 (on n1) notifies a custom event with PMIX_RANGE_SESSION: every
/// other rank, on its node and on the others, receives it in its handler
/// with the notifier as source and the payload intact.
fn custom_event_crosses_nodes(lib: Lib, nodes: u32) {
    if !orte::available() {
        return;
    }
    let n = nodes * PER_NODE;
    let prog = orte::pmix_program("tests/multinode/orte_event.c");
    let r = Job::new(lib, nodes, PER_NODE, &prog)
        .args(&["notify", "session"])
        .run();
    r.assert_ok();
    for rank in 1..n {
        r.assert_line(&format!(
            "orte_event rank {rank} on {}: event -3077 from rank 0 payload 'custom event from rank 0 on n1'",
            node_of(rank)
        ));
    }
    r.assert_line(&format!("orte_event notify ok: {n} ranks"));
    r.assert_lib(&["rank", "orted"], Some(n as usize));
}

// ---------------------------------------------------------------------------
// 4. Publish / lookup

/// mpi_pubsub's 2 ranks on n1 and n2 (one slot per node; at 4 nodes the
/// other two daemons run too).
fn publish_lookup(lib: Lib, nodes: u32) {
    if !orte::available() {
        return;
    }
    let prog = orte::mpi_program("tests/interop/mpi_pubsub.c");
    let r = Job::new(lib, nodes, 1, &prog).np(2).run();
    r.assert_ok();
    r.assert_line("pubsub ok: published, looked up, connected, received 42");
    r.assert_lib(&[], None);
}

// ---------------------------------------------------------------------------
// The cases

macro_rules! cases {
    ($($(#[$attr:meta])* $name:ident => $f:ident($($arg:expr),*);)*) => {
        $(
            #[test]
            $(#[$attr])*
            fn $name() {
                $f($($arg),*);
            }
        )*
    };
}

cases! {
    mpi_hello_2_nodes => mpi_hello(Lib::Ours, 2);
    mpi_hello_4_nodes => mpi_hello(Lib::Ours, 4);
    mpi_nodes_2_nodes => mpi_nodes(Lib::Ours, 2);
    mpi_nodes_4_nodes => mpi_nodes(Lib::Ours, 4);
    mpi_ring_2_nodes => mpi_ring(Lib::Ours, 2);
    mpi_ring_4_nodes => mpi_ring(Lib::Ours, 4);
    mpi_split_2_nodes => mpi_split(Lib::Ours, 2);
    mpi_split_4_nodes => mpi_split(Lib::Ours, 4);
    mpi_split_node_2_nodes => mpi_split_node(Lib::Ours, 2);
    mpi_split_node_4_nodes => mpi_split_node(Lib::Ours, 4);

    pmix_wireup_collect_2_nodes => pmix_wireup(Lib::Ours, 2, true);
    pmix_wireup_collect_4_nodes => pmix_wireup(Lib::Ours, 4, true);
    pmix_wireup_no_collect_2_nodes => pmix_wireup(Lib::Ours, 2, false);
    pmix_wireup_no_collect_4_nodes => pmix_wireup(Lib::Ours, 4, false);

    abort_crosses_nodes_2_nodes => abort_crosses_nodes(Lib::Ours, 2);
    abort_crosses_nodes_4_nodes => abort_crosses_nodes(Lib::Ours, 4);
    custom_event_crosses_nodes_2_nodes => custom_event_crosses_nodes(Lib::Ours, 2);
    custom_event_crosses_nodes_4_nodes => custom_event_crosses_nodes(Lib::Ours, 4);

    publish_lookup_2_nodes => publish_lookup(Lib::Ours, 2);
    publish_lookup_4_nodes => publish_lookup(Lib::Ours, 4);

    // The fixture and the expectations, on the reference.
    reference_mpi_hello_2_nodes => mpi_hello(Lib::Reference, 2);
    reference_mpi_nodes_2_nodes => mpi_nodes(Lib::Reference, 2);
    reference_mpi_ring_2_nodes => mpi_ring(Lib::Reference, 2);
    reference_mpi_split_2_nodes => mpi_split(Lib::Reference, 2);
    reference_mpi_split_node_2_nodes => mpi_split_node(Lib::Reference, 2);
    reference_pmix_wireup_collect_2_nodes => pmix_wireup(Lib::Reference, 2, true);
    reference_pmix_wireup_no_collect_2_nodes => pmix_wireup(Lib::Reference, 2, false);
    reference_abort_crosses_nodes_2_nodes => abort_crosses_nodes(Lib::Reference, 2);
    reference_publish_lookup_2_nodes => publish_lookup(Lib::Reference, 2);

    /// On the reference the remote node's ranks get the event, but the
    /// notifier's orted deadlocks: OpenPMIx 4.2's `pmix_prm_base_notify`
    /// holds its rollup lock while it calls the host's `notify_event`, and
    /// Open MPI's `pmix_server_notify_event` (orte/orted/pmix/pmix_server_gen.c)
    /// calls the completion callback before returning, which takes that lock
    /// (gdb: the server thread in `__lll_lock_wait` under
    /// `pmix_server_notify_event` ← `pmix_prm_base_notify`). The notifier's
    /// node then neither delivers the event locally nor completes the
    /// notification, and the job hangs until killed.
    #[ignore = "OpenPMIx 4.2 deadlocks on a client's non-local event under mpirun"]
    reference_custom_event_crosses_nodes_2_nodes => custom_event_crosses_nodes(Lib::Reference, 2);
}

// ---------------------------------------------------------------------------
// Measurement

/// Both libraries side by side, under mpirun at 2 and 4 nodes (2 ranks
/// each), `ORTE_BENCH_REPS` repetitions (default 5), the libraries'
/// order alternating between repetitions; prints a table of the medians
/// over the repetitions (and the best) of:
///
/// - `fence`, `modex100`, `modex100_first`, `init`: benches/c/pmix_bench.c
///   (the harness of benches/c/run.sh, built against the reference headers
///   like every client here), `-g 20000 -f 200 -m 10`: a fence without
///   data, put of 100 keys + commit + fence with data collection, PMIx_Init;
///   each run's figure is the bench's own median across ranks;
/// - `dmodex_get`: tests/multinode/pmix_wireup.c `--no-collect --times`: a fence
///   without data collection, then the first get of a key of a rank on
///   another node (the direct-modex round trip through both orteds); each
///   run's figure is the median across ranks;
/// - `mpi_hello`: the wall time of `mpirun` running tests/interop/mpi_hello.c
///   (from spawning mpirun to its exit).
///
/// Build with `--release` for figures of our release build (the table names
/// the profile).
#[test]
#[ignore = "a measurement: cargo test --release --test mpirun_nodes bench -- --ignored --nocapture"]
fn bench() {
    use std::collections::BTreeMap;
    if !orte::available() {
        return;
    }
    let reps: usize = std::env::var("ORTE_BENCH_REPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let pmix_bench = orte::pmix_program("benches/c/pmix_bench.c");
    let wireup = orte::pmix_program("tests/multinode/pmix_wireup.c");
    let hello = orte::mpi_program("tests/interop/mpi_hello.c");
    // (metric, nodes, lib) -> one figure per repetition.
    let mut samples: BTreeMap<(&'static str, u32, &'static str), Vec<f64>> = BTreeMap::new();
    let mut add = |m: &'static str, nodes: u32, lib: Lib, v: f64| {
        samples.entry((m, nodes, lib.name())).or_default().push(v);
    };
    for rep in 0..reps {
        let libs = if rep % 2 == 0 {
            [Lib::Ours, Lib::Reference]
        } else {
            [Lib::Reference, Lib::Ours]
        };
        for nodes in [2, 4] {
            for lib in libs {
                eprintln!(
                    "bench: repetition {}/{reps}, {nodes} nodes, {}",
                    rep + 1,
                    lib.name()
                );
                let r = Job::new(lib, nodes, PER_NODE, &pmix_bench)
                    .args(&["-g", "20000", "-f", "200", "-m", "10"])
                    .run();
                r.assert_ok();
                r.assert_line("pmix_bench done");
                let lib_line = r
                    .lines_with("pmix_bench lib=")
                    .next()
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|w| w.strip_prefix("lib="))
                    .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.into()));
                assert_eq!(lib_line, Some(lib.path()), "{}", r.report());
                for l in r.lines_with("pmix_bench result=") {
                    let kv: BTreeMap<&str, &str> = l
                        .split_whitespace()
                        .filter_map(|w| w.split_once('='))
                        .collect();
                    let m: &'static str = match kv["result"] {
                        "fence" => "fence",
                        "modex100" => "modex100",
                        "modex100_first" => "modex100_first",
                        "init" => "init",
                        _ => continue,
                    };
                    add(m, nodes, lib, kv["median"].parse().unwrap());
                }

                let r = Job::new(lib, nodes, PER_NODE, &wireup)
                    .args(&["--no-collect", "--times"])
                    .run();
                r.assert_ok();
                r.assert_lib_ids(nodes * PER_NODE);
                let mut gets: Vec<f64> = r
                    .lines_with("wireup rank ")
                    .filter_map(|l| l.split_once(" remote_get_us="))
                    .map(|(_, v)| v.trim().parse::<f64>().unwrap())
                    .filter(|v| *v >= 0.0)
                    .collect();
                assert_eq!(gets.len(), (nodes * PER_NODE) as usize, "{}", r.report());
                add("dmodex_get", nodes, lib, median(&mut gets));

                let r = Job::new(lib, nodes, PER_NODE, &hello).run();
                r.assert_ok();
                r.assert_lib(&["rank", "launcher"], Some(1));
                add("mpi_hello", nodes, lib, r.elapsed.as_secs_f64() * 1e3);
            }
        }
    }

    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    let head = std::process::Command::new("git")
        .args([
            "-C",
            common::root().to_str().unwrap(),
            "rev-parse",
            "--short",
            "HEAD",
        ])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "\nmpirun across simulated nodes, {PER_NODE} ranks per node, {reps} repetitions, \
         ours: {profile} build at {head} ({}), reference: {}; {} cores, load {}",
        Lib::Ours.path().display(),
        Lib::Reference.path().display(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("median over the repetitions (best in parentheses)\n");
    println!("| metric | unit | nodes x ranks | ours | reference | reference / ours |");
    println!("|---|---|---|---:|---:|---:|");
    let units = [
        ("fence", "us"),
        ("modex100", "us"),
        ("modex100_first", "us"),
        ("dmodex_get", "us"),
        ("init", "us"),
        ("mpi_hello", "ms"),
    ];
    for (m, unit) in units {
        for nodes in [2, 4] {
            let cell = |lib: Lib| {
                let mut v = samples
                    .get(&(m, nodes, lib.name()))
                    .cloned()
                    .unwrap_or_default();
                let best = v.iter().cloned().fold(f64::INFINITY, f64::min);
                (median(&mut v), best)
            };
            let (om, ob) = cell(Lib::Ours);
            let (rm, rb) = cell(Lib::Reference);
            println!(
                "| {m} | {unit} | {nodes} x {} | {om:.1} ({ob:.1}) | {rm:.1} ({rb:.1}) | {:.2} |",
                nodes * PER_NODE,
                rm / om
            );
        }
    }
}

/// The median of `v` (sorted in place); NaN when empty.
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
