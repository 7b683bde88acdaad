//! Event notification end to end, with real processes:
//! - the Rust API: a server in this process and clients in child
//!   processes (this test binary re-executed): a client's namespace-wide
//!   notification goes through the host's `notify_event` (which hands it
//!   back, as Open MPI's host does) to every client, the server's reaches
//!   its clients, an RM-range one reaches the server's handlers, and a client leaving without finalizing raises
//!   `PMIX_ERR_LOST_CONNECTION` in the server, and a client whose server
//!   goes away hears it too;
//! - the C API under `pmixrun` (`tests/c/events_client.c`): chain order,
//!   results, deregistration, `PMIX_RANGE_PROC_LOCAL`;
//! - the C server API (`tests/c/events_host.c`): handlers in the server
//!   process, registration callbacks, the host's `notify_event`;
//! - `pmixrun` telling the surviving ranks that one died.
//!
//! Every wait is bounded (watchdogs, `pmixrun --timeout`); nothing sleeps
//! to synchronize.

mod common;

use std::io::{BufRead, BufReader, Write};

use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use pmix::client::Client;
use pmix::events::{Event, HandlerCall, Range};
use pmix::server::{Completion, HostModule, Server, ServerConfig};
use pmix::{keys, Info, Key, Nspace, Proc, Rank, Status, Value};

const ROLE: &str = "PMIX_EVENTS_TEST_ROLE";
const LIMIT: Duration = Duration::from_secs(120);
const CODE: Status = Status(-3101);
const FROM_SERVER: Status = Status(-3102);
const TO_RM: Status = Status(-3103);

// ----------------------------------------------------------------------
// Child side

#[test]
fn child_process() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let code = match child(&role) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("child {role}: {e}");
            1
        }
    };
    std::process::exit(code);
}

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

fn child(role: &str) -> Result<(), String> {
    if role == "orphan" {
        return orphan();
    }
    let c = Client::init(&[]).map_err(|s| format!("init {s:?}"))?;
    let me = c.proc().clone();
    let (handler, rx) = common::event_forwarder();
    let id = c
        .register_event_handler(&[CODE, FROM_SERVER, TO_RM], &[], handler)
        .map_err(|s| format!("register {s:?}"))?;
    c.fence(&[], &[]).map_err(|s| format!("fence {s:?}"))?;
    if me.rank == Rank(0) {
        let info = Info::new(key("ev.payload"), Value::string("hi"));
        c.notify_event(CODE, None, Range::NAMESPACE, &[info], None)
            .map_err(|s| format!("notify {s:?}"))?;
        c.notify_event(TO_RM, None, Range::RM, &[], None)
            .map_err(|s| format!("notify rm {s:?}"))?;
    }
    let (st, src, infos) = rx.recv_timeout(LIMIT).map_err(|e| e.to_string())?;
    if st != CODE || src.rank != Rank(0) || src.nspace != me.nspace {
        return Err(format!("first event {st:?} from {src:?}"));
    }
    if !infos
        .iter()
        .any(|i| i.key.as_bytes() == b"ev.payload" && i.value.as_str() == Some("hi"))
    {
        return Err(format!("payload missing: {infos:?}"));
    }
    // Tell the server this rank is ready for its notification.
    println!("got");
    std::io::stdout().flush().unwrap();
    let (st, _, _) = rx.recv_timeout(LIMIT).map_err(|e| e.to_string())?;
    if st != FROM_SERVER {
        return Err(format!("second event {st:?}"));
    }
    c.deregister_event_handler(id)
        .map_err(|s| format!("deregister {s:?}"))?;
    if role == "vanish" {
        // Leave without finalizing: the server raises LOST_CONNECTION.
        std::process::exit(0);
    }
    c.finalize().map_err(|s| format!("finalize {s:?}"))
}

/// Waits for the loss of its server, reported to its handlers.
fn orphan() -> Result<(), String> {
    let c = Client::init(&[]).map_err(|s| format!("init {s:?}"))?;
    let server = c.server().clone();
    let (tx, rx) = mpsc::channel::<(Status, Proc)>();
    let tx = Mutex::new(tx);
    c.register_event_handler(
        &[Status::ERR_LOST_CONNECTION],
        &[],
        Arc::new(move |call: HandlerCall| {
            let _ = tx.lock().unwrap().send((call.status, call.source.clone()));
            call.done.complete(Status::SUCCESS, Vec::new());
        }),
    )
    .map_err(|s| format!("register {s:?}"))?;
    println!("ready");
    std::io::stdout().flush().unwrap();
    let (st, src) = rx.recv_timeout(LIMIT).map_err(|e| e.to_string())?;
    if st != Status::ERR_LOST_CONNECTION || src != server {
        return Err(format!("event {st:?} from {src:?}"));
    }
    Ok(())
}

// ----------------------------------------------------------------------
// Server side

/// One `notify_event` upcall: code, source, range, infos.
type Upcall = (Status, Proc, Range, Vec<Info>);

/// Records the host's `notify_event` upcalls and, as Open MPI's and
/// PRRTE's hosts do, hands each event back to the server for its node.
#[derive(Default)]
struct NotifyHost {
    calls: Mutex<Vec<Upcall>>,
    echo: OnceLock<Weak<Server>>,
}

impl HostModule for NotifyHost {
    fn notify_event(
        &self,
        status: Status,
        source: &Proc,
        range: Range,
        infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        self.calls
            .lock()
            .unwrap()
            .push((status, source.clone(), range, infos.to_vec()));
        if let Some(server) = self.echo.get().and_then(Weak::upgrade) {
            let event = Event {
                status,
                source: source.clone(),
                range,
                infos: infos.to_vec(),
            };
            server.notify_event(event, None)?;
        }
        done.complete(Ok(()));
        Ok(())
    }
}

fn spawn(server: &Server, proc: &Proc, role: &str) -> Child {
    common::child_process_command(server, proc)
        .env(ROLE, role)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("child starts")
}

/// Kills `pids` if the test outlives [`LIMIT`]; drop the sender to stop.
fn watchdog(pids: Vec<u32>) -> mpsc::Sender<()> {
    let (tx, rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(LIMIT) {
            for p in pids {
                // SAFETY: kill(2) has no memory preconditions.
                unsafe { libc::kill(p as libc::pid_t, libc::SIGKILL) };
            }
        }
    });
    tx
}

#[test]
fn notifications_between_rust_clients_the_server_and_its_host() {
    let host = Arc::new(NotifyHost::default());
    let server = Arc::new(Server::start(ServerConfig::default(), host.clone()).expect("server"));
    host.echo.set(Arc::downgrade(&server)).unwrap();
    let nspace = Nspace::new(format!("events-{}", std::process::id())).unwrap();
    let n = 3u32;
    common::register_local_job(&server, &nspace, n, Vec::new());
    let procs: Vec<Proc> = (0..n).map(|r| Proc::new(nspace.clone(), Rank(r))).collect();
    // The server process's own handler: RM-range events and lost clients.
    let (tx, rx) = mpsc::channel::<(Status, Proc)>();
    let tx = Mutex::new(tx);
    server
        .register_event_handler(
            &[TO_RM, Status::ERR_LOST_CONNECTION],
            &[],
            Arc::new(move |call: HandlerCall| {
                let _ = tx.lock().unwrap().send((call.status, call.source.clone()));
                call.done.complete(Status::SUCCESS, Vec::new());
            }),
        )
        .unwrap();

    let mut kids: Vec<Child> = procs
        .iter()
        .map(|p| {
            spawn(
                &server,
                p,
                if p.rank == Rank(2) { "vanish" } else { "stay" },
            )
        })
        .collect();
    let dog = watchdog(kids.iter().map(Child::id).collect());
    let mut outs: Vec<_> = kids
        .iter_mut()
        .map(|k| BufReader::new(k.stdout.take().unwrap()))
        .collect();
    for (r, o) in outs.iter_mut().enumerate() {
        // The child's test harness prints its own words first, on the
        // same line ("test child_process ... ").
        let mut line = String::new();
        while !line.trim_end().ends_with("got") {
            line.clear();
            assert!(o.read_line(&mut line).unwrap() > 0, "rank {r} ended early");
        }
    }
    // Every client heard rank 0; now the server speaks to the namespace.
    let (dtx, drx) = mpsc::channel();
    server
        .notify_event(
            Event {
                status: FROM_SERVER,
                source: Proc::new(nspace.clone(), Rank::WILDCARD),
                range: Range::NAMESPACE,
                infos: Vec::new(),
            },
            Some(Box::new(move |s| {
                let _ = dtx.send(s);
            })),
        )
        .unwrap();
    assert_eq!(drx.recv_timeout(LIMIT).unwrap(), Status::SUCCESS);
    for (r, k) in kids.iter_mut().enumerate() {
        let st = k.wait().unwrap();
        assert!(st.success(), "rank {r}: {st}");
    }
    drop(dog);

    let mut heard = Vec::new();
    while heard.len() < 2 {
        heard.push(rx.recv_timeout(LIMIT).expect("server handler"));
    }
    assert!(heard.contains(&(TO_RM, procs[0].clone())), "{heard:?}");
    assert!(
        heard.contains(&(Status::ERR_LOST_CONNECTION, procs[2].clone())),
        "{heard:?}"
    );
    let up = host.calls.lock().unwrap();
    let rm = up
        .iter()
        .find(|(s, ..)| *s == TO_RM)
        .expect("host notify_event for the RM event");
    assert_eq!(rm.1, procs[0]);
    assert_eq!(rm.2, Range::RM);
    assert!(
        rm.3.iter()
            .any(|i| i.key.as_bytes() == keys::EVENT_PROXY.as_bytes()
                && i.value == Value::Proc(server.proc())),
        "{:?}",
        rm.3
    );
    // The namespace event left the node too (the host's business).
    assert!(up
        .iter()
        .any(|(s, _, r, _)| *s == CODE && *r == Range::NAMESPACE));
}

#[test]
fn a_client_hears_that_it_lost_its_server() {
    let server = Server::start(ServerConfig::default(), Arc::new(NotifyHost::default())).unwrap();
    let nspace = Nspace::new(format!("orphan-{}", std::process::id())).unwrap();
    common::register_local_job(&server, &nspace, 1, Vec::new());
    let p = Proc::new(nspace.clone(), Rank(0));
    let mut kid = spawn(&server, &p, "orphan");
    let dog = watchdog(vec![kid.id()]);
    let mut out = BufReader::new(kid.stdout.take().unwrap());
    let mut line = String::new();
    while !line.trim_end().ends_with("ready") {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "child ended early");
    }
    // The server goes away under its client.
    server.finalize();
    let st = kid.wait().unwrap();
    drop(dog);
    assert!(st.success(), "{st}");
}

// ----------------------------------------------------------------------
// C programs

fn pmixrun_c(exe: &std::path::Path, n: u32) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", "120", "-n", &n.to_string()])
        .arg(exe)
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .stdin(Stdio::null())
        .output()
        .expect("pmixrun starts")
}

fn c_program(name: &str, tag: &str) -> std::path::PathBuf {
    c_program_with(name, tag, &common::include_dir())
}

/// [`c_program`] against the headers in `include`.
fn c_program_with(name: &str, tag: &str, include: &std::path::Path) -> std::path::PathBuf {
    common::build_c(
        &format!("tests/c/{name}.c"),
        &format!("events_{name}_{tag}_{}", std::process::id()),
        name,
        include,
        &["-pthread"],
    )
}

#[test]
fn c_handler_chains_built_against_the_reference_headers() {
    let Some((inc, _lib)) = common::reference_pmix() else {
        return;
    };
    let exe = c_program_with("events_client", "reference", &inc);
    let o = pmixrun_c(&exe, 3);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for r in 0..3 {
        assert!(out.contains(&format!("events client {r} of 3 ok")), "{out}");
    }
}

#[test]
fn c_handler_chains_deregistration_and_proc_local_under_pmixrun() {
    let exe = c_program("events_client", "pmixrun");
    for n in [1u32, 4] {
        let o = pmixrun_c(&exe, n);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{out}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        for r in 0..n {
            assert!(
                out.contains(&format!("events client {r} of {n} ok")),
                "{out}"
            );
        }
    }
}

#[test]
fn c_server_process_handlers_and_host_notify_event() {
    let host = c_program("events_host", "host");
    let client = c_program("events_client", "host");
    let tmp = common::scratch(&format!("events_host_tmp_{}", std::process::id()));
    common::run_c_host(
        &host,
        &["2".as_ref(), client.as_os_str()],
        &tmp,
        LIMIT,
        "events host ok",
    );
}

#[test]
fn pmixrun_tells_the_survivors_that_a_rank_died() {
    // Rank 1 dies; rank 0 waits for PMIX_ERR_PROC_ABORTED about it.
    let dir = common::scratch(&format!("events_survivor_{}", std::process::id()));
    let exe = dir.join("survivor");
    let src = dir.join("survivor.c");
    std::fs::write(&src, SURVIVOR).unwrap();
    common::compile_c(
        &[&src],
        &exe,
        &common::include_dir(),
        common::ffi_lib_dir(),
        &["-pthread"],
    );
    let o = pmixrun_c(&exe, 2);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success());
    assert!(
        out.contains("rank 0 heard that rank 1 aborted"),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

const SURVIVOR: &str = r#"
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int heard = -1;
static void h(size_t id, pmix_status_t st, const pmix_proc_t *src, pmix_info_t *info, size_t ninfo,
              pmix_info_t *res, size_t nres, pmix_event_notification_cbfunc_fn_t cb, void *cbd)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (0 == strcmp(info[i].key, PMIX_EVENT_AFFECTED_PROC) && PMIX_PROC == info[i].value.type) {
            pthread_mutex_lock(&mu);
            heard = (int) info[i].value.data.proc->rank;
            pthread_cond_signal(&cv);
            pthread_mutex_unlock(&mu);
        }
    }
    if (cb) cb(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbd);
}
int main(void)
{
    pmix_proc_t me;
    pmix_status_t code = PMIX_ERR_PROC_ABORTED;
    /* outlive the teardown's SIGTERM long enough to report */
    signal(SIGTERM, SIG_IGN);
    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) return 2;
    if (PMIx_Register_event_handler(&code, 1, NULL, 0, h, NULL, NULL) < 0) return 3;
    if (PMIX_SUCCESS != PMIx_Fence(NULL, 0, NULL, 0)) return 4;
    if (1 == me.rank) exit(7);
    pthread_mutex_lock(&mu);
    while (heard < 0) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    printf("rank 0 heard that rank %d aborted\n", heard);
    fflush(stdout);
    return 0;
}
"#;

/// `PMIx_Init` with a programming model's infos (`PMIX_PROGRAMMING_MODEL`,
/// ..., as Open MPI 5 calls it once MPI is up) raises `PMIX_MODEL_DECLARED`
/// in this process, with those infos and `PMIX_EVENT_NON_DEFAULT`; an init
/// without them raises nothing (`tests/c/model_declared.c`).
#[test]
fn c_init_with_a_programming_model_raises_model_declared() {
    let exe = c_program("model_declared", "pmixrun");
    let o = pmixrun_c(&exe, 2);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for r in 0..2 {
        assert!(out.contains(&format!("model declared {r} ok")), "{out}");
    }
}
