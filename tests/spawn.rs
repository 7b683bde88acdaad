//! Process management end to end: `PMIx_Spawn`, `PMIx_Connect`,
//! `PMIx_Disconnect`, and gets of another namespace's data.
//!
//! - A C client (`tests/c/spawn_client.c`) under `pmixrun`: the parent
//!   spawns two copies of itself, which read `PMIX_PARENT_ID`,
//!   `PMIX_SPAWNED` and a key the parent posted; the parent reads the
//!   children's job size; all connect, read each other's posted data and
//!   job data, disconnect; a child's exit status is the job's. Also built
//!   against the reference OpenPMIx headers (the `pmix_app_t` ABI).
//! - The same client under a C host on the server API
//!   (`tests/c/spawn_host.c`) whose spawn, connect and disconnect upcalls
//!   carry the operations out.
//! - The Rust API with the server in this process and a Rust host whose
//!   `spawn` starts this test binary again; a connect failing when a
//!   participant dies, and when its `PMIX_TIMEOUT` passes.
//!
//! Every job is bounded (`pmixrun --timeout`, or a watchdog killing the
//! process group); nothing sleeps to synchronize.

mod common;

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use pmix::client::{Client, Scope};
use pmix::server::{Completion, HostModule, Server, ServerConfig};
use pmix::value::App;
use pmix::{keys, Info, Key, Nspace, Proc, Rank, Status, Value};

const LIMIT: Duration = Duration::from_secs(120);
const ROLE: &str = "PMIX_SPAWN_TEST_ROLE";

fn unique(tag: &str) -> String {
    format!("spawn_{tag}_{}", std::process::id())
}

// ----------------------------------------------------------------------
// C client under pmixrun

fn c_client(include: &Path, tag: &str) -> PathBuf {
    common::build_c(
        "tests/c/spawn_client.c",
        &unique(tag),
        "spawn_client",
        include,
        &["-pthread"],
    )
}

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn pmixrun(exe: &Path, args: &[&str]) -> Out {
    let o = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", "120", "-n", "1"])
        .arg(exe)
        .args(args)
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .stdin(Stdio::null())
        .output()
        .expect("pmixrun starts");
    Out {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// The lines every successful run prints, whatever the namespaces.
fn assert_spawn_lines(out: &str, parent_ns_prefix: &str) {
    let want = [
        "spawn: parent sees child job size 2",
        "spawn: parent connected",
        "spawn: parent got child-key of 0: child-0",
        "spawn: parent got child-key of 1: child-1",
        "spawn: parent disconnected",
        "spawn: child 0 got parent-key: hello-from-parent",
        "spawn: child 1 got parent-key: hello-from-parent",
        "spawn: child 0 got sibling key: child-1",
        "spawn: child 1 got sibling key: child-0",
        "spawn: child 0 sees parent job size 1",
        "spawn: child 1 sees parent job size 1",
    ];
    for w in want {
        assert!(out.contains(w), "missing {w:?} in\n{out}");
    }
    for r in 0..2 {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("spawn: child {r} parent ")))
            .unwrap_or_else(|| panic!("no parent line of child {r} in\n{out}"));
        assert!(
            line.contains(&format!("parent {parent_ns_prefix}"))
                && line.contains(":0 spawned 1 env from-app-env"),
            "{line}"
        );
    }
}

#[test]
fn c_parent_spawns_children_that_read_its_data_and_connect() {
    let exe = c_client(&common::include_dir(), "ours");
    let o = pmixrun(&exe, &[]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert_spawn_lines(&o.stdout, "pmixrun-");
    // pmixrun honours the app's PMIX_WDIR.
    for r in 0..2 {
        let line = format!("spawn: child {r} cwd /\n");
        assert!(
            o.stdout.contains(&line),
            "missing {line:?} in\n{}",
            o.stdout
        );
    }
    // The children's namespace is a new one.
    assert!(
        o.stdout.contains("spawn: parent spawned pmixrun-"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("@2\n"), "{}", o.stdout);
}

#[test]
fn c_parent_spawns_with_spawn_nb() {
    let exe = c_client(&common::include_dir(), "nb");
    let o = pmixrun(&exe, &["nb"]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert_spawn_lines(&o.stdout, "pmixrun-");
}

#[test]
fn a_failing_spawned_child_decides_the_exit_status() {
    let exe = c_client(&common::include_dir(), "fail");
    let o = pmixrun(&exe, &["fail"]);
    assert_eq!(o.code, Some(3), "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stderr.contains("rank 1 of spawned job") && o.stderr.contains("exited with status 3"),
        "{}",
        o.stderr
    );
}

#[test]
fn a_parent_abort_tears_down_its_spawned_children() {
    let exe = c_client(&common::include_dir(), "abort");
    let o = pmixrun(&exe, &["abort"]);
    // pmixrun returns only once every process it started was reaped.
    assert_eq!(o.code, Some(5), "{}\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("spawn: parent spawned"), "{}", o.stdout);
    assert!(
        o.stderr.contains("called PMIx_Abort with status 5"),
        "{}",
        o.stderr
    );
}

/// A spawn one of whose programs cannot start fails alone, with
/// `PMIX_ERR_JOB_FAILED_TO_LAUNCH`, as under PRRTE (Open MPI's
/// `MPI_Comm_spawn` then returns an error): the job goes on and ends 0,
/// and the new job's rank that did start (`/bin/sleep 60`) is killed at
/// once (the job ends long before the sleep would).
#[test]
fn a_spawn_of_a_missing_program_fails_alone() {
    let exe = c_client(&common::include_dir(), "missing");
    let start = std::time::Instant::now();
    let o = pmixrun(&exe, &["missing"]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stdout.contains("spawn: missing program: -181"),
        "{}\n{}",
        o.stdout,
        o.stderr
    );
    assert!(o.stderr.contains("/nonexistent/program"), "{}", o.stderr);
    assert!(
        start.elapsed() < Duration::from_secs(50),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn c_spawn_client_built_against_the_reference_headers() {
    let Some((inc, _lib)) = common::reference_pmix() else {
        return;
    };
    let exe = c_client(&inc, "reference");
    let o = pmixrun(&exe, &[]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert_spawn_lines(&o.stdout, "pmixrun-");
}

// ----------------------------------------------------------------------
// C host on the server API

#[test]
fn c_host_spawn_connect_and_disconnect_upcalls() {
    let host = common::build_c(
        "tests/c/spawn_host.c",
        &unique("host"),
        "spawn_host",
        &common::include_dir(),
        &["-pthread"],
    );
    let dir = host.parent().unwrap();
    let client = c_client(&common::include_dir(), "for_host");
    let o = common::run_with_watchdog(
        Command::new(&host)
            .arg(&client)
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .env("TMPDIR", dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit()),
        LIMIT,
        "spawn_host",
    );
    let (status, out) = (o.status, String::from_utf8_lossy(&o.stdout).into_owned());
    assert!(status.success(), "spawn_host failed: {status}\n{out}");
    assert_spawn_lines(&out, "c-spawn-parent");
    assert!(out.contains("spawn: parent spawned c-spawn-child"), "{out}");
}

// ----------------------------------------------------------------------
// Rust API, server in this process

/// The entry point of the client processes; nothing in the test's run.
#[test]
fn client_process() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    common::exit_with(&format!("client {role}"), role_main(&role));
}

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

fn check<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}"))
    }
}

fn self_cmd() -> Vec<String> {
    common::this_test_as_program("client_process")
}

fn role_main(role: &str) -> Result<(), String> {
    let c = Client::init(&[]).map_err(|s| format!("init: {s}"))?;
    let me = c.proc().clone();
    let wild = |ns: &Nspace| Proc::new(ns.clone(), Rank::WILDCARD);
    let e = |what: &'static str| move |s: Status| format!("{what}: {s}");
    match role {
        "spawner" => {
            c.put(Scope::Global, "parent-key", Value::string("from-parent"))
                .map_err(e("put"))?;
            c.commit().map_err(e("commit"))?;
            let argv: Vec<CString> = self_cmd()
                .into_iter()
                .map(|s| CString::new(s).unwrap())
                .collect();
            let app = App {
                cmd: Some(argv[0].clone()),
                argv,
                env: vec![CString::new(format!("{ROLE}=spawned")).unwrap()],
                cwd: None,
                maxprocs: 2,
                info: vec![],
            };
            check(
                "spawn without apps",
                c.spawn(&[], &[]).err(),
                Some(Status::ERR_BAD_PARAM),
            )?;
            let ns = c.spawn(&[], &[app]).map_err(e("spawn"))?;
            let size = c.get(&wild(&ns), keys::JOB_SIZE, &[]).map_err(e("size"))?;
            check("child job size", size, Value::Uint32(2))?;
            let set = [wild(&me.nspace), wild(&ns)];
            c.connect_procs(&set, &[]).map_err(e("connect"))?;
            for r in 0..2 {
                let v = c
                    .get(&Proc::new(ns.clone(), Rank(r)), "child-key", &[])
                    .map_err(e("child-key"))?;
                check("child-key", v, Value::string(&format!("c{r}")))?;
            }
            c.disconnect_procs(&set, &[]).map_err(e("disconnect"))?;
        }
        "spawned" => {
            let parent = match c.get(&wild(&me.nspace), keys::PARENT_ID, &[]) {
                Ok(Value::Proc(p)) => p,
                other => return Err(format!("PMIX_PARENT_ID: {other:?}")),
            };
            check(
                "PMIX_SPAWNED",
                c.get(&me, keys::SPAWNED, &[]),
                Ok(Value::Bool(true)),
            )?;
            check(
                "parent-key",
                c.get(&parent, "parent-key", &[]),
                Ok(Value::string("from-parent")),
            )?;
            c.put(
                Scope::Global,
                "child-key",
                Value::string(&format!("c{}", me.rank.0)),
            )
            .map_err(e("put"))?;
            c.commit().map_err(e("commit"))?;
            let set = [wild(&parent.nspace), wild(&me.nspace)];
            let (tx, rx) = mpsc::channel();
            c.connect_procs_nb(
                &set,
                &[],
                Box::new(move |s| {
                    let _ = tx.send(s);
                }),
            )
            .map_err(e("connect_nb"))?;
            check("connect_nb", rx.recv().ok(), Some(Status::SUCCESS))?;
            // A non-blocking get of the parent's job data.
            let (tx, rx) = mpsc::channel();
            c.get_nb(
                &wild(&parent.nspace),
                keys::JOB_SIZE,
                &[],
                Box::new(move |r| {
                    let _ = tx.send(r);
                }),
            )
            .map_err(e("get_nb"))?;
            check("parent size", rx.recv().ok(), Some(Ok(Value::Uint32(1))))?;
            c.disconnect_procs(&set, &[]).map_err(e("disconnect"))?;
        }
        "exit_early" => std::process::exit(0),
        "connect_lost" => {
            check(
                "connect with a dead peer",
                c.connect_procs(&[wild(&me.nspace)], &[]),
                Err(Status::ERR_LOST_CONNECTION),
            )?;
        }
        "connect_timeout" => {
            let t = [Info::new(key(keys::TIMEOUT), Value::Int32(1))];
            check(
                "connect timeout",
                c.connect_procs(&[wild(&me.nspace)], &t),
                Err(Status::ERR_TIMEOUT),
            )?;
        }
        other => return Err(format!("unknown role {other}")),
    }
    c.finalize().map_err(e("finalize"))
}

/// A host whose `spawn` registers the new job and starts its ranks from a
/// thread of its own (server API calls must not run in the callback).
#[derive(Default)]
struct TestHost {
    server: OnceLock<Weak<Server>>,
    children: Arc<Mutex<Vec<Child>>>,
    connects: Mutex<u32>,
    disconnects: Mutex<u32>,
}

/// Starts rank `r` of `ns` running `argv` with `env` added.
fn start(server: &Server, ns: &Nspace, r: u32, argv: &[String], env: &[(String, String)]) -> Child {
    let env_fork = server.setup_fork(&Proc::new(ns.clone(), Rank(r))).unwrap();
    Command::new(&argv[0])
        .args(&argv[1..])
        .envs(env.iter().cloned())
        .envs(env_fork)
        .stdin(Stdio::null())
        .spawn()
        .expect("start a client")
}

/// Starts rank `r` of `ns` as this test binary in `role`.
fn start_role(server: &Server, ns: &Nspace, r: u32, role: &str) -> Child {
    start(server, ns, r, &self_cmd(), &[(ROLE.into(), role.into())])
}

impl HostModule for TestHost {
    fn spawn(
        &self,
        requestor: &Proc,
        _job_info: &[Info],
        apps: &[App],
        done: Completion<Nspace>,
    ) -> Result<(), Status> {
        let server = self
            .server
            .get()
            .and_then(Weak::upgrade)
            .ok_or(Status::ERROR)?;
        let (requestor, app) = (requestor.clone(), apps[0].clone());
        let children = self.children.clone();
        std::thread::spawn(move || {
            let ns = Nspace::new("rust-spawned").unwrap();
            let extra = vec![
                Info::new(key(keys::PARENT_ID), Value::Proc(requestor)),
                Info::new(key(keys::SPAWNED), Value::Bool(true)),
            ];
            common::register_local_job(&server, &ns, app.maxprocs as u32, extra);
            let argv: Vec<String> = app
                .argv
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            let env: Vec<(String, String)> = app
                .env
                .iter()
                .filter_map(|e| {
                    let (k, v) = e.to_str().ok()?.split_once('=')?;
                    Some((k.to_owned(), v.to_owned()))
                })
                .collect();
            for r in 0..app.maxprocs as u32 {
                let child = start(&server, &ns, r, &argv, &env);
                children.lock().unwrap().push(child);
            }
            done.complete(Ok(ns));
        });
        Ok(())
    }

    fn connect(
        &self,
        _procs: &[Proc],
        _infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        count_and_complete(&self.connects, done)
    }

    fn disconnect(
        &self,
        _procs: &[Proc],
        _infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        count_and_complete(&self.disconnects, done)
    }
}

/// A connect or disconnect the host agrees to: counted in `counter`,
/// completed at once.
fn count_and_complete(counter: &Mutex<u32>, done: Completion<()>) -> Result<(), Status> {
    *counter.lock().unwrap() += 1;
    done.complete(Ok(()));
    Ok(())
}

/// Waits for `children` (taken from `list` until it stays empty), each
/// bounded by a watchdog; returns whether each exited 0.
fn wait_all(list: &Mutex<Vec<Child>>) -> Vec<bool> {
    let mut ok = Vec::new();
    loop {
        let next = list.lock().unwrap().pop();
        let Some(mut child) = next else {
            return ok;
        };
        let pid = child.id() as i32;
        let (tx, rx) = mpsc::channel::<()>();
        let watchdog = std::thread::spawn(move || {
            if rx.recv_timeout(LIMIT).is_err() {
                // SAFETY: kill has no memory preconditions.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        });
        let status = child.wait().unwrap();
        let _ = tx.send(());
        watchdog.join().unwrap();
        ok.push(status.success());
    }
}

fn start_server(host: Arc<TestHost>) -> Arc<Server> {
    let server = Arc::new(Server::start(ServerConfig::default(), host.clone()).unwrap());
    let _ = host.server.set(Arc::downgrade(&server));
    server
}

#[test]
fn rust_api_spawn_connect_disconnect() {
    let host = Arc::new(TestHost::default());
    let server = start_server(host.clone());
    let ns = Nspace::new("rust-parent").unwrap();
    common::register_local_job(&server, &ns, 1, vec![]);
    let parent = start_role(&server, &ns, 0, "spawner");
    host.children.lock().unwrap().push(parent);
    let ok = wait_all(&host.children);
    assert_eq!(ok, vec![true; 3], "parent and two children exit 0");
    assert_eq!(*host.connects.lock().unwrap(), 1);
    assert_eq!(*host.disconnects.lock().unwrap(), 1);
}

/// A server with a [`TestHost`] and a registered job `name` of 2 ranks.
fn two_rank_job(name: &str) -> (Arc<TestHost>, Arc<Server>, Nspace) {
    let host = Arc::new(TestHost::default());
    let server = start_server(host.clone());
    let ns = Nspace::new(name).unwrap();
    common::register_local_job(&server, &ns, 2, vec![]);
    (host, server, ns)
}

#[test]
fn a_connect_fails_when_a_participant_dies() {
    let (host, server, ns) = two_rank_job("rust-lost");
    let a = start_role(&server, &ns, 0, "connect_lost");
    let b = start_role(&server, &ns, 1, "exit_early");
    host.children.lock().unwrap().extend([a, b]);
    assert_eq!(wait_all(&host.children), vec![true, true]);
    assert_eq!(*host.connects.lock().unwrap(), 0);
}

#[test]
fn a_connect_times_out() {
    // Rank 1 is registered but never started.
    let (host, server, ns) = two_rank_job("rust-timeout");
    let a = start_role(&server, &ns, 0, "connect_timeout");
    host.children.lock().unwrap().push(a);
    assert_eq!(wait_all(&host.children), vec![true]);
}
