//! The C test programs under valgrind (issue 13, item 6): memcheck with
//! `--leak-check=full --errors-for-leak-kinds=definite` must report 0
//! errors and 0 bytes definitely lost for `tests/c/stubs_smoke.c` and the
//! bad-input table (`tests/c/bad_input.c`) before init, as a server, and
//! as a client under `pmixrun` (valgrind runs as the rank). No suppressions
//! are needed. Skipped (with a line saying so) where valgrind is missing.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(180);
const VALGRIND: [&str; 4] = [
    "valgrind",
    "--error-exitcode=9",
    "--leak-check=full",
    "--errors-for-leak-kinds=definite",
];

fn have_valgrind() -> bool {
    let ok = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        println!("SKIPPED: valgrind not installed (apt-get install valgrind)");
    }
    ok
}

fn program(src: &str, name: &str) -> PathBuf {
    common::build_c(
        src,
        &format!("valgrind-{name}"),
        name,
        &common::include_dir(),
        &["-pthread"],
    )
}

fn table() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| program("tests/c/bad_input.c", "bad_input"))
}

/// Runs `cmd` (valgrind in front of a program, possibly under pmixrun)
/// and fails unless it exits 0 with no memcheck error.
fn run_clean(mut cmd: Command, what: &str) {
    let tmp = common::pmixrun_job::private_tmp(&format!("valgrind-{}", what.replace(' ', "-")));
    cmd.env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = common::run_with_watchdog(&mut cmd, LIMIT, what);
    let err = String::from_utf8_lossy(&out.stderr);
    let summary: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("ERROR SUMMARY") || l.contains("definitely lost:"))
        .collect();
    println!("{what}: {}", summary.join(" | "));
    assert!(
        out.status.success()
            && summary
                .iter()
                .any(|l| l.contains("ERROR SUMMARY: 0 errors")),
        "{what}: {}\n{}\n{err}",
        out.status,
        String::from_utf8_lossy(&out.stdout)
    );
}

fn under_valgrind(exe: &PathBuf, args: &[&str]) -> Command {
    let mut c = Command::new(VALGRIND[0]);
    c.args(&VALGRIND[1..]).arg(exe).args(args);
    c
}

#[test]
fn stubs_smoke_is_clean() {
    if !have_valgrind() {
        return;
    }
    let exe = program("tests/c/stubs_smoke.c", "stubs_smoke");
    run_clean(under_valgrind(&exe, &[]), "stubs_smoke");
}

#[test]
fn bad_input_table_before_init_is_clean() {
    if !have_valgrind() {
        return;
    }
    run_clean(under_valgrind(table(), &["pre"]), "bad_input pre");
}

#[test]
fn bad_input_table_as_a_server_is_clean() {
    if !have_valgrind() {
        return;
    }
    run_clean(under_valgrind(table(), &["server"]), "bad_input server");
}

#[test]
fn bad_input_table_as_a_client_is_clean() {
    if !have_valgrind() {
        return;
    }
    let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    c.args(["--timeout", "150", "-n", "1"])
        .args(VALGRIND)
        .arg(table())
        .arg("client");
    run_clean(c, "bad_input client");
}
