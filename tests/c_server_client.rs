//! The C server and client APIs end to end: `tests/c/server_host.c`, a
//! single-node host built on `PMIx_server_*`, forks N clients
//! (`tests/c/client_basic.c`) with the environment of
//! `PMIx_server_setup_fork`; the clients exchange data through
//! put/commit/fence and read it back with every get flavour. Also runs the
//! client built, unchanged, against the reference OpenPMIx headers.
//!
//! Every run is bounded by a watchdog that kills the host's whole process
//! group; nothing sleeps to synchronize.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

/// A scratch directory name of this test process (concurrent runs of this
/// test, e.g. by other checkouts sharing the target directory, must not
/// replace each other's programs).
fn unique(tag: &str) -> String {
    format!("c_server_client_{tag}_{}", std::process::id())
}

/// The host, built once against our headers.
fn host() -> &'static Path {
    static HOST: OnceLock<PathBuf> = OnceLock::new();
    HOST.get_or_init(|| {
        common::build_c(
            "tests/c/server_host.c",
            &unique("host"),
            "server_host",
            &common::include_dir(),
            &["-pthread"],
        )
    })
}

/// The client built against `include`.
fn client(include: &Path, tag: &str) -> PathBuf {
    common::build_c(
        "tests/c/client_basic.c",
        &unique(tag),
        "client_basic",
        include,
        &["-pthread"],
    )
}

/// Runs the host with `n` clients, failing the test on a nonzero exit or
/// when it outlives [`LIMIT`].
fn run(n: u32, client: &Path, nspace: &str) {
    run_host(n, client, nspace, &[]);
}

/// [`run`] with extra environment for the host.
fn run_host(n: u32, client: &Path, nspace: &str, env: &[(&str, &str)]) {
    let tmp = common::scratch(&unique(&format!("tmp_{nspace}")));
    let out = common::run_with_watchdog(
        Command::new(host())
            .envs(env.iter().copied())
            .arg(n.to_string())
            .arg(client)
            .arg(nspace)
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .env("TMPDIR", &tmp)
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit()),
        LIMIT,
        &format!("server_host with {n} clients"),
    );
    assert!(
        out.status.success(),
        "server_host with {n} clients failed: {}",
        out.status
    );
}

#[test]
fn c_host_runs_one_client() {
    run(1, &client(&common::include_dir(), "ours1"), "c-job-1");
}

#[test]
fn c_host_runs_two_clients() {
    run(2, &client(&common::include_dir(), "ours2"), "c-job-2");
}

#[test]
fn c_host_runs_four_clients() {
    run(4, &client(&common::include_dir(), "ours4"), "c-job-4");
}

/// A host whose `client_connected` returns success and never calls back
/// (Slurm 22.05's mpi_pmix_v4): the clients' init must not wait for it,
/// as OpenPMIx 4.2 passes no callback and does not wait.
#[test]
fn c_host_client_connected_without_callback() {
    run_host(
        2,
        &client(&common::include_dir(), "ours_v1"),
        "c-job-v1",
        &[("HOST_CONNECTED_V1", "1")],
    );
}

/// A client compiled against the reference headers runs on our library.
#[test]
fn reference_built_client_runs_on_our_library() {
    let Some((inc, _lib)) = common::reference_pmix() else {
        return;
    };
    run(2, &client(&inc, "reference"), "c-job-ref");
}
