//! Interoperability: software nobody here wrote, built against OpenPMIx
//! 4.2.2, runs unmodified on our `libpmix.so.2` (issue #5).
//!
//! - Open MPI 4.1 (`openmpi-bin`, `libopenmpi-dev`): MPI programs from
//!   `tests/interop/` built with Debian's `mpicc`, run under Open MPI's own
//!   `mpirun` (which embeds the PMIx *server*) and launched directly by our
//!   `pmixrun`, with `LD_LIBRARY_PATH` pointing at our library.
//! - `python3-pmix`: `PMIxClient` scripts under `pmixrun`, and a
//!   `PMIxServer` written in Python hosting C clients.
//!
//! Nothing is installed here (`scripts/deps.sh` does that): when a package
//! is missing the test prints a `SKIPPED` line, or panics under
//! `PMIX_REQUIRE_REFERENCE=1` as CI runs it. Every program runs under a
//! hard time limit: a hang is a failure naming the command, and whatever
//! the run left behind (even processes that left its process group, such
//! as Open MPI's singleton `orted`) is killed, found by a marker variable
//! in its environment. Each run checks from `/proc/<pid>/maps` that the
//! processes mapped OUR library, not the reference.
//!
//! What runs and what each case found on the way: docs/INTEROP.md.

mod common;

use common::serial;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

/// The interop programs' sources.
fn src_dir() -> PathBuf {
    common::root().join("tests/interop")
}

// ---------------------------------------------------------------------------
// Prerequisites

/// True when every package is there; otherwise prints why the caller
/// skips, or panics under `PMIX_REQUIRE_REFERENCE=1`.
fn require(pkgs: &[&str]) -> bool {
    let missing: Vec<&str> = pkgs
        .iter()
        .copied()
        .filter(|p| !common::installed(p))
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var("PMIX_REQUIRE_REFERENCE").as_deref() != Ok("1"),
        "PMIX_REQUIRE_REFERENCE=1 but {missing:?} not installed (scripts/deps.sh installs them)"
    );
    eprintln!(
        "SKIPPED: {} not installed (apt-get install -y {})",
        missing.join(", "),
        missing.join(" ")
    );
    false
}

fn have_mpi() -> bool {
    require(&["openmpi-bin", "libopenmpi-dev"])
}

fn have_python_pmix() -> bool {
    require(&["python3-pmix"])
}

/// Our library, resolved (what `/proc/<pid>/maps` shows).
fn our_lib() -> PathBuf {
    std::fs::canonicalize(common::ffi_lib_dir().join("libpmix.so.2")).unwrap()
}

// ---------------------------------------------------------------------------
// Building

/// Builds `tests/interop/<name>.c` with `mpicc` (once) and returns the
/// binary.
fn mpi_program(name: &str) -> PathBuf {
    common::orte::mpi_program(&format!("tests/interop/{name}.c"))
}

/// The plain PMIx C client of the Python-server test, built on our
/// headers and library.
fn pmix_client() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let out = common::orte::build_dir().join("pmix_client");
        common::compile_c(
            &[&src_dir().join("pmix_client.c")],
            &out,
            &common::include_dir(),
            common::ffi_lib_dir(),
            &[],
        );
        out
    })
    .clone()
}

// ---------------------------------------------------------------------------
// Running with a hard limit

/// One bounded run ([`common::orte::run_marked`]).
type Run = common::orte::MarkedRun;

impl Run {
    /// Panics with everything known unless the run exited 0.
    fn assert_ok(&self) {
        assert!(
            !self.timed_out,
            "HANG: `{}` did not finish within its limit and was killed\n--- stdout\n{}\n--- stderr\n{}",
            self.what,
            self.stdout,
            self.stderr
        );
        assert_eq!(
            self.code,
            Some(0),
            "`{}` failed\n--- stdout\n{}\n--- stderr\n{}",
            self.what,
            self.stdout,
            self.stderr
        );
    }

    /// Panics unless a line of stdout is exactly `line`.
    fn assert_line(&self, line: &str) {
        assert!(
            self.stdout.lines().any(|l| l.trim_end() == line),
            "`{}`: no line {line:?} in\n--- stdout\n{}\n--- stderr\n{}",
            self.what,
            self.stdout,
            self.stderr
        );
    }

    /// Panics unless every `<who> libpmix: <path>` line names our library
    /// (and at least one such line per `who` is there). The text may
    /// follow another process's unterminated output on the same line
    /// (python3-pmix prints "CLIENT STARTING THREAD" without a newline).
    fn assert_our_lib(&self, whos: &[&str]) {
        let ours = our_lib();
        for who in whos {
            let prefix = format!("{who} libpmix: ");
            let paths = common::orte::libpmix_lines(&self.stdout, who);
            assert!(
                !paths.is_empty(),
                "`{}`: no `{prefix}` line\n--- stdout\n{}",
                self.what,
                self.stdout
            );
            for p in paths {
                let p = std::fs::canonicalize(p.trim()).unwrap_or_else(|_| PathBuf::from(p));
                assert_eq!(
                    p,
                    ours,
                    "`{}`: {who} mapped {} instead of our library {}",
                    self.what,
                    p.display(),
                    ours.display()
                );
            }
        }
    }
}

/// The variable that marks every process of one run, so that what a run
/// leaves behind can be found and killed even outside its process group.
const MARK: &str = "PMIX_INTEROP_RUN";

/// Runs `cmd` (in its own process group, marked) with a hard limit; at
/// the limit the group and every marked process are killed. With `ours`,
/// `LD_LIBRARY_PATH` points at our library.
fn run(mut cmd: Command, limit: Duration, ours: bool) -> Run {
    cmd.env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    common::orte::run_marked(cmd, MARK, ours, limit, "interop")
}

/// `mpirun --allow-run-as-root --oversubscribe -n N program args`.
fn mpirun(n: u32, program: &Path, args: &[&str], ours: bool) -> Run {
    let mut c = Command::new("mpirun");
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-n",
        &n.to_string(),
    ])
    .arg(program)
    .args(args)
    // Open MPI 4.1's progress thread binds `event_base_loop` lazily while
    // MPI_Init closes the components it did not select: once in a CI run
    // a rank crashed inside the loader (`_dl_fixup` -> `do_lookup_x`,
    // reading a freed link map) on either library. Binding at load time
    // takes that race away; it changes nothing else the tests look at.
    .env("LD_BIND_NOW", "1");
    run(c, limit_for(n), ours)
}

/// `pmixrun -n N program args` (pmixrun's own timeout below ours).
fn pmixrun(n: u32, program: &Path, args: &[&str], extra: &[&str]) -> Run {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    let limit = limit_for(n);
    c.args(["--timeout", &(limit.as_secs() - 10).to_string()])
        .args(extra)
        .args(["-n", &n.to_string()])
        .arg(program)
        .args(args);
    run(c, limit, true)
}

/// The hard limit of a job of `n` ranks: far above what it needs (the
/// reference takes about 1 s at 16 ranks).
fn limit_for(n: u32) -> Duration {
    Duration::from_secs(40 + 2 * u64::from(n))
}

// ---------------------------------------------------------------------------
// Open MPI under its own mpirun

/// The harness itself, on the reference library: mpirun + mpi_hello work
/// and the maps check sees the reference (so a pass on ours means ours).
#[test]
fn reference_mpirun_hello_sees_reference_library() {
    if !have_mpi() {
        return;
    }
    let _g = serial();
    let r = mpirun(2, &mpi_program("mpi_hello"), &[], false);
    r.assert_ok();
    r.assert_line("hello ok: 2 ranks, allreduce 1");
    let ours = our_lib();
    for l in r.stdout.lines().filter(|l| l.contains("libpmix: ")) {
        assert!(
            !l.contains(ours.to_str().unwrap()),
            "reference run mapped our library: {l}"
        );
    }
}

fn mpirun_hello(n: u32) {
    if !have_mpi() {
        return;
    }
    let _g = serial();
    let r = mpirun(n, &mpi_program("mpi_hello"), &[], true);
    r.assert_ok();
    r.assert_our_lib(&["rank", "launcher"]);
    r.assert_line(&format!(
        "hello ok: {n} ranks, allreduce {}",
        n * (n - 1) / 2
    ));
}

#[test]
fn mpirun_hello_1() {
    mpirun_hello(1);
}

#[test]
fn mpirun_hello_2() {
    mpirun_hello(2);
}

#[test]
fn mpirun_hello_4() {
    mpirun_hello(4);
}

#[test]
fn mpirun_hello_16() {
    mpirun_hello(16);
}

fn mpirun_simple(name: &str, n: u32, line: &str) {
    if !have_mpi() {
        return;
    }
    let _g = serial();
    let r = mpirun(n, &mpi_program(name), &[], true);
    r.assert_ok();
    r.assert_line(line);
}

#[test]
fn mpirun_ring_4() {
    mpirun_simple("mpi_ring", 4, "ring ok: 4 ranks, token 6");
}

#[test]
fn mpirun_ring_16() {
    mpirun_simple("mpi_ring", 16, "ring ok: 16 ranks, token 120");
}

#[test]
fn mpirun_split_4() {
    mpirun_simple("mpi_split", 4, "split ok: 4 ranks in 4 checks");
}

#[test]
fn mpirun_split_16() {
    mpirun_simple("mpi_split", 16, "split ok: 16 ranks in 16 checks");
}

#[test]
fn mpirun_comm_spawn() {
    mpirun_simple(
        "mpi_spawn",
        2,
        "spawn ok: 2 parents + 2 children, merged size 4",
    );
}

#[test]
fn mpirun_publish_lookup_connect_accept() {
    mpirun_simple(
        "mpi_pubsub",
        2,
        "pubsub ok: published, looked up, connected, received 42",
    );
}

// ---------------------------------------------------------------------------
// Open MPI launched directly by pmixrun

/// The direct launch of an MPI program by `pmixrun` (see docs/INTEROP.md:
/// Open MPI 4.1's ess/pmi takes a generic PMIx server's launch once
/// `pmixrun` excludes the schizo/orte component, which otherwise declares
/// the process a singleton).
fn direct_hello(n: u32) -> Run {
    pmixrun(n, &mpi_program("mpi_hello"), &[], &[])
}

#[test]
fn pmixrun_direct_launch_mpi_hello_4() {
    if !have_mpi() {
        return;
    }
    let _g = serial();
    let r = direct_hello(4);
    r.assert_ok();
    r.assert_our_lib(&["rank"]);
    r.assert_line("hello ok: 4 ranks, allreduce 6");
}

/// `pmixrun` gives its ranks `OMPI_MCA_schizo=^orte` (so that Open MPI's
/// ess/pmi, not ess/singleton, takes the launch), and leaves a value the
/// caller set alone.
#[test]
fn pmixrun_excludes_open_mpi_schizo_orte_unless_set() {
    let env_of = |preset: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
        c.args(["--timeout", "30", "-n", "1", "/usr/bin/env"]);
        c.env_remove("OMPI_MCA_schizo");
        if let Some(v) = preset {
            c.env("OMPI_MCA_schizo", v);
        }
        let r = run(c, Duration::from_secs(60), true);
        r.assert_ok();
        r.stdout
            .lines()
            .filter(|l| l.starts_with("OMPI_MCA_schizo="))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(env_of(None), ["OMPI_MCA_schizo=^orte"]);
    assert_eq!(env_of(Some("slurm")), ["OMPI_MCA_schizo=slurm"]);
}

/// Whatever the state of the other features, a direct launch ends: with
/// the right result, or with pmixrun's clear message naming its timeout
/// (never a hang, never a silent wrong answer such as N singletons).
#[test]
fn pmixrun_direct_launch_ends_with_result_or_clear_message() {
    if !have_mpi() {
        return;
    }
    let _g = serial();
    let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    c.args(["--timeout", "15", "-n", "2"])
        .arg(mpi_program("mpi_hello"));
    let r = run(c, Duration::from_secs(60), true);
    assert!(
        !r.timed_out,
        "pmixrun did not end on its own --timeout:\n{}",
        r.stderr
    );
    // N singletons would each print "1 ranks".
    assert!(
        !r.stdout.contains("hello ok: 1 ranks"),
        "the ranks ran as singletons:\n{}",
        r.stdout
    );
    if r.code == Some(0) {
        r.assert_line("hello ok: 2 ranks, allreduce 1");
        r.assert_our_lib(&["rank"]);
    } else {
        assert_eq!(r.code, Some(124), "unexpected failure:\n{}", r.stderr);
        assert!(
            r.stderr
                .contains("the job did not finish within 15 seconds (--timeout)"),
            "no clear message:\n{}",
            r.stderr
        );
    }
}

// ---------------------------------------------------------------------------
// python3-pmix

fn python_client(n: u32, args: &[&str]) -> Run {
    let script = src_dir().join("py_client.py");
    let mut all = vec!["-W", "ignore", script.to_str().unwrap()];
    all.extend_from_slice(args);
    pmixrun(n, Path::new("/usr/bin/python3"), &all, &[])
}

fn python_client_basic(n: u32) {
    if !have_python_pmix() {
        return;
    }
    let _g = serial();
    let r = python_client(n, &[]);
    r.assert_ok();
    r.assert_our_lib(&["python"]);
    for rank in 0..n {
        r.assert_line(&format!("python client {rank} of {n} ok"));
    }
}

#[test]
fn python_client_under_pmixrun_1() {
    python_client_basic(1);
}

#[test]
fn python_client_under_pmixrun_2() {
    python_client_basic(2);
}

#[test]
fn python_client_under_pmixrun_4() {
    python_client_basic(4);
}

#[test]
fn python_client_publish_lookup_under_pmixrun() {
    if !have_python_pmix() {
        return;
    }
    let _g = serial();
    let r = python_client(3, &["--pubsub"]);
    r.assert_ok();
    for rank in 1..3 {
        assert!(
            r.stdout.contains(&format!("rank {rank} lookup: ")) && r.stdout.contains("port-7"),
            "no lookup result for rank {rank}:\n{}",
            r.stdout
        );
    }
}

/// python3-pmix publish/lookup with Open MPI's `mpirun` as the host (its
/// data server answers the `publish`/`lookup` upcalls).
#[test]
fn python_client_publish_lookup_under_mpirun() {
    if !have_python_pmix() || !have_mpi() {
        return;
    }
    let _g = serial();
    let script = src_dir().join("py_client.py");
    let r = mpirun(
        3,
        Path::new("/usr/bin/python3"),
        &["-W", "ignore", script.to_str().unwrap(), "--pubsub"],
        true,
    );
    r.assert_ok();
    r.assert_our_lib(&["python"]);
    for rank in 0..3 {
        r.assert_line(&format!("python client {rank} of 3 ok"));
    }
    assert!(
        r.stdout.contains("port-7"),
        "no lookup result:\n{}",
        r.stdout
    );
}

fn python_server(n: u32) {
    if !have_python_pmix() {
        return;
    }
    let _g = serial();
    let client = pmix_client();
    let mut c = Command::new("/usr/bin/python3");
    c.args(["-W", "ignore"])
        .arg(src_dir().join("py_server.py"))
        .arg(n.to_string())
        .arg(&client)
        .env("TMPDIR", common::scratch(&format!("interop-pyserver-{n}")));
    let r = run(c, limit_for(n), true);
    r.assert_ok();
    r.assert_our_lib(&["server", "client"]);
    for rank in 0..n {
        r.assert_line(&format!("c client {rank} of {n} ok"));
    }
    let all: Vec<String> = (0..n).map(|r| r.to_string()).collect();
    r.assert_line(&format!(
        "python server: {n} clients, 0 failed, connected [{}]",
        all.join(", ")
    ));
}

#[test]
fn python_server_hosts_c_clients_1() {
    python_server(1);
}

#[test]
fn python_server_hosts_c_clients_3() {
    python_server(3);
}
