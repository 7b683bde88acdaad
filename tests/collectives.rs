//! The failure paths of the server's collective engine, once for every
//! collective that runs on it: a fence without data, a collecting fence,
//! a connect and a disconnect each meet
//!
//! - a participant that exits before the others call (`LOST_CONNECTION`),
//! - a participant killed while the others wait in the call
//!   (`LOST_CONNECTION`),
//! - a participant that never calls, with a `PMIX_TIMEOUT` (`TIMEOUT`),
//! - a host that refuses the call (its status), fails it later from another
//!   thread (its status), drops its completion (`PMIX_ERROR`), or never
//!   answers while a `PMIX_TIMEOUT` runs (`TIMEOUT`),
//!
//! with a server in this process and clients in real child processes (this
//! binary re-executed). Every survivor must get the status named, within
//! the job's time limit; nothing sleeps to synchronize (the victim is
//! killed once every survivor announced it is entering the call).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pmix::client::Client;
use pmix::server::{Completion, HostModule, Server, ServerConfig};
use pmix::{keys, Info, Nspace, Proc, Rank, Status, Value};

const ROLE: &str = "PMIX_TEST_ROLE";
/// Longest one case may take before the watchdog fails it.
const LIMIT: Duration = Duration::from_secs(60);
/// Ranks per job: one victim and two survivors.
const SIZE: u32 = 3;

/// The collectives on the engine.
const KINDS: [&str; 4] = ["fence", "fence_collect", "connect", "disconnect"];

// ----------------------------------------------------------------------
// Child side

/// The entry point of every child: does nothing in the parent's run.
#[test]
fn child_process() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let code = match run_child(&role) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("child {role} rank {:?}: {msg}", std::env::var("PMIX_RANK"));
            1
        }
    };
    std::process::exit(code);
}

/// Roles: `exit`, `idle` (waits for its stdin to close, then finalizes),
/// and `KIND:STATUS[:timeout]` (waits for a line on stdin, announces, calls
/// KIND over its namespace, checks it fails with STATUS).
fn run_child(role: &str) -> Result<(), String> {
    let c = Client::init(&[]).map_err(|s| format!("init: {s}"))?;
    let mut parts = role.split(':');
    let kind = parts.next().unwrap_or_default();
    match kind {
        "exit" => std::process::exit(0),
        "idle" => {
            let _ = std::io::stdin().lines().count();
            return c.finalize().map_err(|s| format!("finalize: {s}"));
        }
        _ => {}
    }
    let want: i32 = parts
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or("no status")?;
    let mut infos = Vec::new();
    if parts.next() == Some("timeout") {
        infos.push(common::info(keys::TIMEOUT, Value::Int32(1)));
    }
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    println!("entering");
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    let all = [Proc::new(c.proc().nspace.clone(), Rank::WILDCARD)];
    let r = match kind {
        "fence" => c.fence(&all, &infos),
        "fence_collect" => {
            infos.push(common::info(keys::COLLECT_DATA, Value::Bool(true)));
            c.fence(&all, &infos)
        }
        "connect" => c.connect_procs(&all, &infos),
        "disconnect" => c.disconnect_procs(&all, &infos),
        other => return Err(format!("unknown kind {other}")),
    };
    if r != Err(Status(want)) {
        return Err(format!("{kind}: {r:?}, expected {}", Status(want)));
    }
    // Finalizing after a failed collective must not hang either.
    let _ = c.finalize();
    Ok(())
}

// ----------------------------------------------------------------------
// Host side

/// What the host does with a collective handed to it.
#[derive(Clone, Copy, Debug)]
enum HostDoes {
    /// Has no such callback: a single-node collective completes locally.
    Nothing,
    Refuse(Status),
    FailLater(Status),
    DropCompletion,
    /// Keeps the completion without answering.
    Hold,
}

struct Host {
    does: HostDoes,
    held: Mutex<Vec<Box<dyn std::any::Any + Send>>>,
}

impl Host {
    fn new(does: HostDoes) -> Arc<Host> {
        Arc::new(Host {
            does,
            held: Mutex::new(Vec::new()),
        })
    }

    fn handle<T: Send + 'static>(&self, done: Completion<T>) -> Result<(), Status> {
        match self.does {
            HostDoes::Nothing => Err(Status::ERR_NOT_SUPPORTED),
            HostDoes::Refuse(s) => Err(s),
            HostDoes::FailLater(s) => {
                std::thread::spawn(move || done.complete(Err(s)));
                Ok(())
            }
            HostDoes::DropCompletion => Ok(()),
            HostDoes::Hold => {
                self.held.lock().unwrap().push(Box::new(done));
                Ok(())
            }
        }
    }
}

impl HostModule for Host {
    fn fence_nb(
        &self,
        _: &[Proc],
        infos: &[Info],
        _: Vec<u8>,
        done: Completion<Vec<u8>>,
    ) -> Result<(), Status> {
        // A failure report (the collective failed before reaching us) is
        // not an operation to hold.
        if infos
            .iter()
            .any(|i| i.key.as_bytes() == keys::LOCAL_COLLECTIVE_STATUS.as_bytes())
        {
            return Err(Status::ERR_NOT_SUPPORTED);
        }
        self.handle(done)
    }

    fn connect(&self, _: &[Proc], _: &[Info], done: Completion<()>) -> Result<(), Status> {
        self.handle(done)
    }

    fn disconnect(&self, _: &[Proc], _: &[Info], done: Completion<()>) -> Result<(), Status> {
        self.handle(done)
    }
}

// ----------------------------------------------------------------------
// Parent side

struct Job {
    server: Server,
    nspace: Nspace,
}

impl Job {
    fn new(name: &str, host: Arc<dyn HostModule>) -> Job {
        let server = Server::start(ServerConfig::default(), host).expect("server starts");
        let nspace = Nspace::new(format!("{name}-{}", std::process::id())).unwrap();
        common::register_local_job(&server, &nspace, SIZE, Vec::new());
        Job { server, nspace }
    }

    fn spawn(&self, rank: u32, role: &str) -> Child {
        let proc = Proc::new(self.nspace.clone(), Rank(rank));
        let mut cmd = common::child_process_command(&self.server, &proc);
        cmd.env(ROLE, role)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        cmd.spawn().expect("child starts")
    }
}

/// How the victim (rank 0) takes part.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Victim {
    /// Exits without finalizing before the survivors call.
    ExitsBefore,
    /// Killed once the survivors announced they are entering.
    KilledDuring,
    /// Never calls (finalizes after the survivors are done).
    Idle,
    /// Calls like the survivors.
    Joins,
}

/// Runs one case: rank 0 as `victim`, ranks 1 and 2 calling `kind` and
/// expecting `want`; fails the test on a wrong status or a hang.
fn case(kind: &str, victim: Victim, host: HostDoes, timeout: bool, want: Status) {
    let what = format!("{kind} / {victim:?} / host {host:?} / timeout {timeout}");
    let job = Job::new(&kind.replace('_', "-"), Host::new(host));
    let role = format!(
        "{kind}:{}{}",
        want.code(),
        if timeout { ":timeout" } else { "" }
    );
    let mut v = job.spawn(
        0,
        match victim {
            Victim::ExitsBefore => "exit",
            Victim::KilledDuring | Victim::Idle => "idle",
            Victim::Joins => &role,
        },
    );
    let mut survivors: Vec<Child> = (1..SIZE).map(|r| job.spawn(r, &role)).collect();
    if victim == Victim::ExitsBefore {
        assert!(v.wait().unwrap().success(), "{what}: the victim failed");
    }
    let mut all: Vec<&mut Child> = survivors.iter_mut().collect();
    if victim == Victim::Joins {
        all.push(&mut v);
    }
    // Release the callers; wait until each announced it is entering.
    let (tx, rx) = std::sync::mpsc::channel();
    for c in all.iter_mut() {
        writeln!(c.stdin.as_mut().unwrap(), "go").unwrap();
        let out = c.stdout.take().unwrap();
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if line.trim_end().ends_with("entering") {
                    let _ = tx.send(());
                }
            }
        });
    }
    let callers = all.len();
    let pids: Vec<u32> = survivors.iter().map(Child::id).chain([v.id()]).collect();
    let kill_all = || {
        for pid in &pids {
            // SAFETY: kill(2) has no memory preconditions; the pids are
            // children of this process, reaped or not.
            unsafe { libc::kill(*pid as libc::pid_t, libc::SIGKILL) };
        }
    };
    for _ in 0..callers {
        if rx.recv_timeout(LIMIT).is_err() {
            kill_all();
            panic!("{what}: the callers did not reach the call within {LIMIT:?}");
        }
    }
    if victim == Victim::KilledDuring {
        v.kill().unwrap();
    }
    // Every survivor must end, with success (it checked the status); then
    // the victim (an idle one finalizes once its stdin closes).
    // The victim killed is the only rank that may end in failure.
    let killed = (victim == Victim::KilledDuring).then(|| v.id());
    let mut ends = vec![survivors];
    if victim != Victim::Joins {
        ends.push(vec![v]);
    } else {
        ends[0].push(v);
    }
    for group in ends {
        let (tx, rx) = std::sync::mpsc::channel();
        let n = group.len();
        for mut c in group {
            let tx = tx.clone();
            std::thread::spawn(move || {
                drop(c.stdin.take());
                let _ = tx.send((c.id(), c.wait().unwrap()));
            });
        }
        for _ in 0..n {
            match rx.recv_timeout(LIMIT) {
                Ok((pid, _)) if Some(pid) == killed => {}
                Ok((_, st)) => assert!(st.success(), "{what}: a rank failed: {st}"),
                Err(_) => {
                    kill_all();
                    panic!("{what}: the job did not end within {LIMIT:?}");
                }
            }
        }
    }
}

#[test]
fn a_participant_that_exits_before_the_call_fails_it() {
    for kind in KINDS {
        case(
            kind,
            Victim::ExitsBefore,
            HostDoes::Nothing,
            false,
            Status::ERR_LOST_CONNECTION,
        );
    }
}

#[test]
fn a_participant_killed_during_the_call_fails_it() {
    for kind in KINDS {
        case(
            kind,
            Victim::KilledDuring,
            HostDoes::Nothing,
            false,
            Status::ERR_LOST_CONNECTION,
        );
    }
}

#[test]
fn a_participant_that_never_calls_times_the_call_out() {
    for kind in KINDS {
        case(
            kind,
            Victim::Idle,
            HostDoes::Nothing,
            true,
            Status::ERR_TIMEOUT,
        );
    }
}

#[test]
fn a_host_that_refuses_fails_the_call_with_its_status() {
    for kind in KINDS {
        let s = Status::ERR_UNREACH;
        case(kind, Victim::Joins, HostDoes::Refuse(s), false, s);
    }
}

#[test]
fn a_host_that_fails_later_fails_the_call_with_its_status() {
    for kind in KINDS {
        let s = Status::ERR_COMM_FAILURE;
        case(kind, Victim::Joins, HostDoes::FailLater(s), false, s);
    }
}

#[test]
fn a_host_that_drops_its_completion_fails_the_call() {
    for kind in KINDS {
        case(
            kind,
            Victim::Joins,
            HostDoes::DropCompletion,
            false,
            Status::ERROR,
        );
    }
}

#[test]
fn a_host_that_never_answers_is_timed_out() {
    for kind in KINDS {
        case(
            kind,
            Victim::Joins,
            HostDoes::Hold,
            true,
            Status::ERR_TIMEOUT,
        );
    }
}
