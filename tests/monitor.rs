//! Process monitoring by the server library (issue 26): `pmixrun` has no
//! `monitor` upcall, so `PMIx_Process_monitor` of heartbeats and files is
//! served by the library's own monitors, which raise
//! `PMIX_MONITOR_HEARTBEAT_ALERT` / `PMIX_MONITOR_FILE_ALERT`.
//!
//! `tests/c/monitor_client.c` as 2 ranks under `pmixrun`:
//! - a rank that beats then stops is reported (to itself and the other
//!   rank) within the set time, one that keeps beating is not, and a
//!   cancelled monitor stays quiet;
//! - a file that grows then stops raises the file alert, naming it; a
//!   monitor cancelled by its `PMIX_MONITOR_ID` does not;
//! - bad requests get a clear status;
//! - the heartbeat run again with the client built against the reference
//!   headers and running on a stock OpenPMIx (Debian's 4.2.2, the
//!   wheel's 5.0.11), whose beats come through the stock door on
//!   OpenPMIx's heartbeat tag.
//!
//! And the server's side, with a process speaking the protocol by hand
//! and the server's census: a finalized rank's monitors are gone; a host
//! that answers `PMIX_ERR_NOT_SUPPORTED` after returning leaves the
//! monitor to the library; a host that monitors wins.
//!
//! Every run is bounded (`pmixrun --timeout` and a watchdog); the client's
//! waits for alerts are bounded too.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use common::raw_client::Raw;
use pmix::server::{Completion, HostModule, NoHost, Server, ServerConfig};
use pmix::wire::{rm, Message, Op, Request};
use pmix::{keys, Info, Nspace, Proc, Rank, Status, Value};

const LIMIT: Duration = Duration::from_secs(90);

fn client() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        common::build_c(
            "tests/c/monitor_client.c",
            "monitor_client",
            "monitor_client",
            &common::include_dir(),
            &["-pthread"],
        )
    })
}

/// The client built against Debian's OpenPMIx 4.2.2 headers (linked
/// with its library), if installed: (executable, Debian's lib dir).
fn stock_client() -> Option<(PathBuf, PathBuf)> {
    static EXE: OnceLock<Option<(PathBuf, PathBuf)>> = OnceLock::new();
    EXE.get_or_init(|| {
        let (inc, lib) = common::reference_pmix()?;
        let exe = common::build_once("monitor_stock_client", "monitor_client", |exe| {
            let src = common::root().join("tests/c/monitor_client.c");
            common::compile_c(&[&src], exe, &inc, &lib, &["-pthread"]);
        });
        Some((exe, lib))
    })
    .clone()
}

/// Runs the client in `mode` as 2 ranks; fails unless both say ok.
fn run(mode: &str) {
    run_on(client(), common::ffi_lib_dir(), mode, mode);
}

/// Runs `exe` in `mode` as 2 ranks on the libpmix of `libdir` (`tag`
/// naming its scratch directory); fails unless both say ok.
fn run_on(exe: &std::path::Path, libdir: &std::path::Path, mode: &str, tag: &str) {
    let dir = common::scratch(&format!("monitor_{tag}"));
    let o = common::run_with_watchdog(
        Command::new(env!("CARGO_BIN_EXE_pmixrun"))
            .args(["--timeout", "60", "-n", "2"])
            .arg(exe)
            .arg(mode)
            .env("LD_LIBRARY_PATH", libdir)
            .env("MONITOR_TEST_DIR", &dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        LIMIT,
        &format!("monitor_client {mode}"),
    );
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    common::assert_ranks_ok(
        2,
        o.status.success(),
        &out,
        &err,
        &format!("monitor {mode}"),
    );
}

#[test]
fn a_rank_that_stops_beating_is_reported_and_one_that_beats_is_not() {
    run("heartbeat");
}

#[test]
fn a_file_that_stops_growing_is_reported_and_a_cancelled_monitor_is_not() {
    run("file");
}

#[test]
fn bad_monitor_requests_get_a_clear_status() {
    run("bad");
}

#[test]
fn debian_4_2_2_clients_beat_through_the_stock_door() {
    let Some((exe, lib)) = stock_client() else {
        return;
    };
    run_on(&exe, &lib, "heartbeat", "heartbeat_debian");
}

#[test]
fn wheel_5_0_11_clients_beat_through_the_stock_door() {
    let Some((exe, _)) = stock_client() else {
        return;
    };
    let Some(w) = common::ompi5() else {
        return;
    };
    run_on(&exe, &w.pmix_lib_dir(), "heartbeat", "heartbeat_wheel");
}

// ----------------------------------------------------------------------
// The server's side, seen by a process speaking the protocol by hand
// (`common::raw_client`) and the server's census of its rooms.

/// A host whose `monitor` answers, after returning, with `answer`.
struct LateHost {
    answer: Result<Vec<Info>, Status>,
}

impl HostModule for LateHost {
    fn monitor(
        &self,
        _proc: &Proc,
        _monitor: &Info,
        _error: Status,
        _directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        let answer = self.answer.clone();
        std::thread::spawn(move || done.complete(answer));
        Ok(())
    }
}

/// A server with `host` and one connected rank of a job of 1.
fn server_and_rank(host: Arc<dyn HostModule>, ns: &str) -> (Server, Raw) {
    let server = Server::start(ServerConfig::default(), host).expect("server starts");
    let ns = Nspace::new(ns).unwrap();
    common::register_local_job(&server, &ns, 1, Vec::new());
    let info = common::connect_info(&server, &Proc::new(ns, Rank(0)));
    let raw = Raw::join(&info).expect("joins").0;
    (server, raw)
}

/// Sends request `id` and returns its answer's status and infos.
fn ask(raw: &mut Raw, id: u32, monitor: Info, directives: &[Info]) -> (Status, Vec<Info>) {
    let body = rm::put_monitor(&monitor, Status::SUCCESS, directives).unwrap();
    let m = Message::Request(Request {
        op: Op::MONITOR,
        body,
    });
    raw.send(id, &m).expect("sent");
    loop {
        match raw.answer().expect("an answer") {
            (got, Message::Response(r), _) if got == id => {
                let infos = if r.body.is_empty() {
                    Vec::new()
                } else {
                    rm::get_list(&r.body).expect("infos")
                };
                return (r.status, infos);
            }
            _ => continue,
        }
    }
}

fn heartbeat_request() -> (Info, Vec<Info>) {
    (
        common::info(keys::MONITOR_HEARTBEAT, Value::Undef),
        vec![common::info(keys::MONITOR_HEARTBEAT_TIME, Value::Uint32(5))],
    )
}

fn trackers(server: &Server) -> (usize, usize) {
    let c = server.census().expect("server running");
    (
        c.get("monitors.trackers").unwrap_or(0),
        c.get("timers.monitors").unwrap_or(0),
    )
}

#[test]
fn a_finalized_rank_leaves_no_monitor_behind() {
    let (server, mut raw) = server_and_rank(Arc::new(NoHost), "mon-depart");
    let (monitor, dirs) = heartbeat_request();
    assert_eq!(ask(&mut raw, 1, monitor, &dirs).0, Status::SUCCESS);
    assert_eq!(trackers(&server), (1, 1));
    raw.send(2, &Message::Finalize).expect("finalize sent");
    loop {
        if let (2, Message::FinalizeReply(s), _) = raw.answer().expect("an answer") {
            assert_eq!(s, Status::SUCCESS);
            break;
        }
    }
    assert_eq!(trackers(&server), (0, 0));
}

#[test]
fn a_host_that_later_refuses_leaves_the_monitor_to_the_library() {
    let host = LateHost {
        answer: Err(Status::ERR_NOT_SUPPORTED),
    };
    let (server, mut raw) = server_and_rank(Arc::new(host), "mon-late");
    let (monitor, dirs) = heartbeat_request();
    assert_eq!(ask(&mut raw, 1, monitor, &dirs).0, Status::SUCCESS);
    assert_eq!(trackers(&server), (1, 1));
    // A bad one is refused by the library then.
    let (monitor, _) = heartbeat_request();
    assert_eq!(ask(&mut raw, 2, monitor, &[]).0, Status::ERR_BAD_PARAM);
}

#[test]
fn a_host_that_monitors_wins_and_the_library_runs_nothing() {
    let done = common::info("test.monitored", Value::Bool(true));
    let host = LateHost {
        answer: Ok(vec![done.clone()]),
    };
    let (server, mut raw) = server_and_rank(Arc::new(host), "mon-host");
    let (monitor, dirs) = heartbeat_request();
    assert_eq!(
        ask(&mut raw, 1, monitor, &dirs),
        (Status::SUCCESS, vec![done])
    );
    assert_eq!(trackers(&server), (0, 0));
}
