//! The C test programs under valgrind (issue 13, item 6): memcheck with
//! `--leak-check=full --errors-for-leak-kinds=definite` must report 0
//! errors and 0 bytes definitely lost in every process of each run:
//! `tests/c/stubs_smoke.c`; the bad-input table (`tests/c/bad_input.c`)
//! before init, as a server, as a client under `pmixrun`, and as a tool
//! attached to a running `pmixrun`;
//! `tests/c/pmixrun_client.c` as 2 ranks of `pmixrun`; the C host
//! `tests/c/server_host.c` with 2 `tests/c/client_basic.c` clients (all
//! three processes under valgrind); the tool `tests/c/tool_client.c`
//! attached to a running `pmixrun` job. No suppressions are needed.
//! Skipped (with a line saying so) where valgrind is missing.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use common::pmixrun_job::{private_tmp, PmixrunJob};

const LIMIT: Duration = Duration::from_secs(180);

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

/// valgrind's arguments, each process logging to `logs/vg.<pid>.log`.
fn valgrind_args(logs: &Path) -> Vec<String> {
    vec![
        "--error-exitcode=9".into(),
        "--leak-check=full".into(),
        "--errors-for-leak-kinds=definite".into(),
        "--trace-children=yes".into(),
        format!("--log-file={}/vg.%p.log", logs.display()),
    ]
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

/// A run's scratch: its TMPDIR and valgrind's log directory.
struct Run {
    tmp: PathBuf,
    logs: PathBuf,
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.tmp);
    }
}

impl Run {
    fn new(what: &str) -> Run {
        let tag = format!("valgrind-{}", what.replace(' ', "-"));
        let tmp = private_tmp(&tag);
        let logs = common::scratch(&format!("{tag}-logs"));
        Run { tmp, logs }
    }

    /// `valgrind ARGS exe args`.
    fn valgrind(&self, exe: &Path, args: &[&str]) -> Command {
        let mut c = Command::new("valgrind");
        c.args(valgrind_args(&self.logs)).arg(exe).args(args);
        c
    }

    /// Runs `cmd` under the watchdog; fails unless it exits 0 and every
    /// valgrind log (at least `processes`) says 0 errors, 0 bytes
    /// definitely lost.
    fn check(&self, mut cmd: Command, what: &str, processes: usize) {
        cmd.env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .env("TMPDIR", &self.tmp)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let out = common::run_with_watchdog(&mut cmd, LIMIT, what);
        assert!(
            out.status.success(),
            "{what}: {}\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        self.check_logs(what, processes);
    }

    fn check_logs(&self, what: &str, processes: usize) {
        let mut n = 0;
        for e in std::fs::read_dir(&self.logs).unwrap() {
            let path = e.unwrap().path();
            let log = std::fs::read_to_string(&path).unwrap();
            // A process that exec'd another program leaves a log without
            // a summary; the program it became logs under the same pid.
            let Some(errors) = log.lines().find(|l| l.contains("ERROR SUMMARY")) else {
                continue;
            };
            n += 1;
            let lost = log
                .lines()
                .find(|l| l.contains("definitely lost:"))
                .unwrap_or("no leak summary (nothing allocated at exit)");
            println!("{what}: {} | {}", errors.trim(), lost.trim());
            assert!(
                errors.contains("ERROR SUMMARY: 0 errors")
                    && (lost.contains("definitely lost: 0 bytes") || !lost.contains("definitely")),
                "{what}: {}\n{log}",
                path.display()
            );
        }
        assert!(
            n >= processes,
            "{what}: {n} valgrind logs, want {processes}"
        );
    }
}

#[test]
fn stubs_smoke_is_clean() {
    if !have_valgrind() {
        return;
    }
    let exe = program("tests/c/stubs_smoke.c", "stubs_smoke");
    let run = Run::new("stubs_smoke");
    run.check(run.valgrind(&exe, &[]), "stubs_smoke", 1);
}

#[test]
fn bad_input_table_before_init_is_clean() {
    if !have_valgrind() {
        return;
    }
    let run = Run::new("bad_input pre");
    run.check(run.valgrind(table(), &["pre"]), "bad_input pre", 1);
}

#[test]
fn bad_input_table_as_a_server_is_clean() {
    if !have_valgrind() {
        return;
    }
    let run = Run::new("bad_input server");
    run.check(run.valgrind(table(), &["server"]), "bad_input server", 1);
}

#[test]
fn bad_input_table_as_a_client_is_clean() {
    if !have_valgrind() {
        return;
    }
    let run = Run::new("bad_input client");
    let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    c.args(["--timeout", "150", "-n", "1", "valgrind"])
        .args(valgrind_args(&run.logs))
        .arg(table())
        .arg("client");
    run.check(c, "bad_input client", 1);
}

#[test]
fn two_pmixrun_ranks_are_clean() {
    if !have_valgrind() {
        return;
    }
    let exe = program("tests/c/pmixrun_client.c", "pmixrun_client");
    let run = Run::new("pmixrun_client");
    let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    c.args(["--timeout", "150", "-n", "2", "valgrind"])
        .args(valgrind_args(&run.logs))
        .arg(exe);
    run.check(c, "pmixrun_client x2", 2);
}

#[test]
fn c_host_and_two_clients_are_clean() {
    if !have_valgrind() {
        return;
    }
    let host = program("tests/c/server_host.c", "server_host");
    let client = program("tests/c/client_basic.c", "client_basic");
    let run = Run::new("server_host");
    let c = run.valgrind(&host, &["2", client.to_str().unwrap(), "vgns"]);
    run.check(c, "server_host + 2 client_basic", 3);
}

#[test]
fn bad_input_table_as_a_tool_is_clean() {
    if !have_valgrind() {
        return;
    }
    let mut job = PmixrunJob::sleeping("valgrind-tool-table");
    let run = Run {
        tmp: job.tmp().to_path_buf(),
        logs: common::scratch("valgrind-tool-table-logs"),
    };
    let c = run.valgrind(table(), &["tool", &job.pid().to_string()]);
    run.check(c, "bad_input tool", 1);
    job.end();
}

#[test]
fn c_tool_attached_to_pmixrun_is_clean() {
    if !have_valgrind() {
        return;
    }
    let tool = program("tests/c/tool_client.c", "tool_client");
    let mut job = PmixrunJob::sleeping("valgrind-tool");
    let run = Run {
        tmp: job.tmp().to_path_buf(),
        logs: common::scratch("valgrind-tool-logs"),
    };
    let c = run.valgrind(&tool, &[&job.pid().to_string(), job.nspace()]);
    run.check(c, "tool_client", 1);
    job.end();
}
