//! `PMIx_Fabric_register/update/deregister` (and their `_nb` forms) end
//! to end: a client's request reaches a C host's `fabric` module function
//! (`tests/c/fabric_host.c`), whose answer fills the client's
//! `pmix_fabric_t`; without one (a C host whose module has no `fabric`,
//! and `pmixrun`) the library's view of this node's NICs does, with its
//! cost matrix. Bad input (NULL fabric, update or deregistration of an
//! unregistered fabric) is checked in `tests/c/fabric_client.c`.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn client() -> PathBuf {
    common::build_c(
        "tests/c/fabric_client.c",
        "fabric",
        "fabric_client",
        &common::include_dir(),
        &["-pthread"],
    )
}

fn host() -> PathBuf {
    common::build_c(
        "tests/c/fabric_host.c",
        "fabric_host",
        "fabric_host",
        &common::include_dir(),
        &["-pthread"],
    )
}

/// Runs `cmd` bounded; its stdout, after asserting it succeeded.
fn run(mut cmd: Command, what: &str) -> String {
    cmd.env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let o: Output = common::run_with_watchdog(&mut cmd, Duration::from_secs(90), what);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{what}: {:?}\n{out}\n{err}", o.status);
    out
}

/// The client's two registers, update and register_nb, and the host's
/// own register, all reach the host's `fabric` (5 upcalls), whose answer
/// (vendor, identifier, devices, index 42) fills the fabric.
#[test]
fn a_host_fabric_function_answers_clients_and_its_own_process() {
    let tmp = common::scratch(&format!("fabric_host_tmp_{}", std::process::id()));
    let mut cmd = Command::new(host());
    cmd.arg(client()).env("TMPDIR", &tmp);
    let out = run(cmd, "fabric_host");
    assert!(out.contains("fabric host ok: 3 devices"), "{out}");
    assert!(out.contains("fabric host ok: 5 upcalls"), "{out}");
}

/// A host whose module has no `fabric`: the library's view answers the
/// client and the host's own process.
#[test]
fn without_a_host_fabric_the_library_describes_the_node() {
    let tmp = common::scratch(&format!("fabric_nohost_tmp_{}", std::process::id()));
    let mut cmd = Command::new(host());
    cmd.arg(client()).arg("nofabric").env("TMPDIR", &tmp);
    let out = run(cmd, "fabric_host nofabric");
    assert!(out.contains("fabric library ok: "), "{out}");
    assert!(out.contains("fabric host ok: 0 upcalls"), "{out}");
}

/// Under `pmixrun` (a Rust host with no fabric) the library's view
/// answers too.
#[test]
fn under_pmixrun_the_library_describes_the_node() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    cmd.args(["--timeout", "60", "-n", "2"])
        .arg(client())
        .arg("library");
    let out = run(cmd, "pmixrun fabric_client");
    assert!(out.contains("fabric library ok: "), "{out}");
}
