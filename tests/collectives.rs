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
//! — and the fences again with a host that leaves fences of jobs wholly on
//! the node to the server, so that they go through the job's barrier page
//! (`crate::barrier`) —; and a host that completes the call at once
//! (`PMIX_OPERATION_SUCCEEDED`) completes it with success for every kind,
//! a group destruct included. A server runs in this process and clients
//! in real child processes (this binary re-executed). Every survivor must
//! get the status named, within the job's time limit; nothing sleeps to
//! synchronize (the victim is killed once every survivor announced it is
//! entering the call).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pmix::client::Client;
use pmix::server::{Completion, HostModule, OpOutput, Server, ServerConfig};
use pmix::{keys, Info, Nspace, Proc, Rank, Status, Value};

const ROLE: &str = "PMIX_TEST_ROLE";
/// Longest one case may take before the watchdog fails it.
const LIMIT: Duration = Duration::from_secs(60);
/// Ranks per job: one victim and two survivors.
const SIZE: u32 = 3;

/// The collectives on the engine.
const KINDS: [&str; 5] = ["fence", "fence_collect", "connect", "disconnect", "group"];

/// What a lost participant fails a `kind` collective with.
fn lost(kind: &str) -> Status {
    if kind == "group" {
        pmix::group::events::CONSTRUCT_ABORT
    } else {
        Status::ERR_LOST_CONNECTION
    }
}

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

fn offer_then_collect(c: &Client, all: &[Proc], mut infos: Vec<Info>) -> Result<(), Status> {
    let me = c.proc().rank.0;
    c.put(
        pmix::client::Scope::Global,
        "offer.k",
        Value::Uint32(me * 10),
    )?;
    c.commit()?;
    c.fence(all, &infos)?;
    infos.push(common::info(keys::COLLECT_DATA, Value::Bool(true)));
    c.fence(all, &infos)?;
    for r in 0..SIZE {
        let p = Proc::new(c.proc().nspace.clone(), Rank(r));
        if c.get(&p, "offer.k", &[])? != Value::Uint32(r * 10) {
            return Err(Status::ERR_NOT_FOUND);
        }
    }
    Ok(())
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
            // Connected: it may now be killed as a connected rank.
            println!("ready");
            std::io::stdout().flush().map_err(|e| e.to_string())?;
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
        // Commits, fences without data (the server then has every commit
        // and, with a barrier page, has offered the generation holding
        // them before it released the fence), then collects: each reads
        // every rank's value.
        "offer" => offer_then_collect(&c, &all, infos),
        "connect" => c.connect_procs(&all, &infos),
        "disconnect" => c.disconnect_procs(&all, &infos),
        // Without a context id: a server completes an all-local group
        // alone, host or no host.
        "group_local" => c.group_construct("g", &all, &infos).map(|_| ()),
        // With a context id, so that the host has a part in it.
        "group" => {
            infos.push(common::info(
                keys::GROUP_ASSIGN_CONTEXT_ID,
                Value::Bool(true),
            ));
            c.group_construct("g", &all, &infos).map(|_| ())
        }
        // A group with a member on no node of this server, so that its
        // destruct, too, goes to the host; the construct must succeed.
        "group_destruct" => {
            let elsewhere = Nspace::new("elsewhere").map_err(|e| e.to_string())?;
            let members = [all[0].clone(), Proc::new(elsewhere, Rank(0))];
            let cid = [common::info(
                keys::GROUP_ASSIGN_CONTEXT_ID,
                Value::Bool(true),
            )];
            c.group_construct("g", &members, &cid)
                .map_err(|s| format!("construct: {s}"))?;
            c.group_destruct("g", &infos)
        }
        other => return Err(format!("unknown kind {other}")),
    };
    let expected = if want == 0 { Ok(()) } else { Err(Status(want)) };
    if r != expected {
        return Err(format!("{kind}: {r:?}, expected {expected:?}"));
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
    /// Leaves fences of jobs wholly on the node to the server (which then
    /// gives the job a barrier page).
    local_fences: bool,
    held: Mutex<Vec<Box<dyn std::any::Any + Send>>>,
    /// `fence_nb` calls (failure reports excluded).
    fences: std::sync::atomic::AtomicU32,
    /// Operations handed to it (failure reports excluded).
    calls: std::sync::atomic::AtomicU32,
}

impl Host {
    fn new(does: HostDoes, local_fences: bool) -> Arc<Host> {
        Arc::new(Host {
            does,
            local_fences,
            held: Mutex::new(Vec::new()),
            fences: Default::default(),
            calls: Default::default(),
        })
    }

    fn handle<T: OpOutput>(&self, done: Completion<T>) -> Result<(), Status> {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
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
    fn fences_are_local(&self) -> bool {
        self.local_fences
    }

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
        self.fences
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.handle(done)
    }

    fn connect(&self, _: &[Proc], _: &[Info], done: Completion<()>) -> Result<(), Status> {
        self.handle(done)
    }

    fn disconnect(&self, _: &[Proc], _: &[Info], done: Completion<()>) -> Result<(), Status> {
        self.handle(done)
    }

    fn group(
        &self,
        _: pmix::group::GroupOp,
        _: &str,
        _: &[Proc],
        infos: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        // As for fences: a failure report is not an operation to hold.
        let report = infos.iter().any(|i| {
            i.key.as_bytes() == keys::LOCAL_COLLECTIVE_STATUS.as_bytes()
                && i.value != Value::Status(0)
        });
        if report {
            return Err(Status::ERR_NOT_SUPPORTED);
        }
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
    /// Calls the same collective as the survivors, with the role's
    /// directives (`KIND:STATUS`), which may differ from theirs.
    JoinsAs(&'static str),
}

/// Runs one case: rank 0 as `victim`, ranks 1 and 2 calling `kind` and
/// expecting `want`; fails the test on a wrong status or a hang.
fn case(kind: &str, victim: Victim, host: HostDoes, timeout: bool, want: Status) {
    case_on(kind, victim, Host::new(host, false), timeout, want)
}

/// As [`case`], the job with a barrier page: a fence over the job goes
/// through the page (a collecting one then through the server).
fn case_local_fences(kind: &str, victim: Victim, timeout: bool, want: Status) {
    case_on(
        kind,
        victim,
        Host::new(HostDoes::Nothing, true),
        timeout,
        want,
    )
}

fn case_on(kind: &str, victim: Victim, host: Arc<Host>, timeout: bool, want: Status) {
    let what = format!(
        "{kind} / {victim:?} / host {:?}{} / timeout {timeout}",
        host.does,
        if host.local_fences {
            " (local fences)"
        } else {
            ""
        }
    );
    let job = Job::new(&kind.replace('_', "-"), host);
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
            Victim::JoinsAs(r) => r,
        },
    );
    let mut survivors: Vec<Child> = (1..SIZE).map(|r| job.spawn(r, &role)).collect();
    if victim == Victim::ExitsBefore {
        assert!(v.wait().unwrap().success(), "{what}: the victim failed");
    }
    let mut all: Vec<&mut Child> = survivors.iter_mut().collect();
    if matches!(victim, Victim::Joins | Victim::JoinsAs(_)) {
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
        // Killed once connected (its line follows libtest's own on the
        // same line; a rank killed before it connects is
        // waited for until its host reports it: `tests/chaos.rs`).
        let out = v.stdout.take().unwrap();
        let ready = BufReader::new(out)
            .lines()
            .map_while(Result::ok)
            .any(|l| l.trim_end().ends_with("ready"));
        assert!(ready, "{what}: the victim did not connect");
        v.kill().unwrap();
    }
    // Every survivor must end, with success (it checked the status); then
    // the victim (an idle one finalizes once its stdin closes).
    // The victim killed is the only rank that may end in failure.
    let killed = (victim == Victim::KilledDuring).then(|| v.id());
    let mut ends = vec![survivors];
    if matches!(victim, Victim::Joins | Victim::JoinsAs(_)) {
        ends[0].push(v);
    } else {
        ends.push(vec![v]);
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
            lost(kind),
        );
    }
    for kind in ["fence", "fence_collect"] {
        let s = Status::ERR_LOST_CONNECTION;
        case_local_fences(kind, Victim::ExitsBefore, false, s);
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
            lost(kind),
        );
    }
    for kind in ["fence", "fence_collect"] {
        let s = Status::ERR_LOST_CONNECTION;
        case_local_fences(kind, Victim::KilledDuring, false, s);
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

#[test]
fn a_job_with_a_barrier_page_fences_without_the_host_unless_data_is_collected() {
    // A collecting fence completes on the page too when every process
    // holds all there is to collect: here, nobody committed; in `offer`,
    // after the fence without data that the commits send to the server
    // (one host call), the generation the server offered.
    for (kind, local, calls) in [
        ("fence", true, 0),
        ("fence_collect", true, 0),
        ("fence", false, 1),
        ("fence_collect", false, 1),
        ("offer", true, 1),
        ("offer", false, 2),
    ] {
        let host = Host::new(HostDoes::Nothing, local);
        case_on(kind, Victim::Joins, host.clone(), false, Status::SUCCESS);
        let got = host.fences.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(got, calls, "{kind}, local fences {local}: fence_nb calls");
    }
}

#[test]
fn processes_that_differ_in_directives_still_meet_at_the_barrier_page() {
    // Rank 0 collects, the others do not (and the other way round): every
    // one ends in the same fence, here on the page, as there is nothing
    // to collect (`a_job_with_a_barrier_page_...`'s `offer` case has the
    // processes meet through the server).
    for (victim, others, calls) in [
        ("fence_collect:0", "fence", 0),
        ("fence:0", "fence_collect", 0),
    ] {
        let host = Host::new(HostDoes::Nothing, true);
        case_on(
            others,
            Victim::JoinsAs(victim),
            host.clone(),
            false,
            Status::SUCCESS,
        );
        let got = host.fences.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(got, calls, "{victim} with {others}: fence_nb calls");
    }
}

#[test]
fn c29_a_host_without_group_completes_local_groups_only() {
    // No context id: the server completes the all-local group itself.
    case(
        "group_local",
        Victim::Joins,
        HostDoes::Nothing,
        false,
        Status::SUCCESS,
    );
    // A context id needs the host's `group`, which this host lacks.
    case(
        "group",
        Victim::Joins,
        HostDoes::Nothing,
        false,
        Status::ERR_NOT_SUPPORTED,
    );
}

#[test]
fn a_host_that_completes_at_once_completes_the_call_for_every_participant() {
    // PMIX_OPERATION_SUCCEEDED from the host's call: done now,
    // successfully, with nothing to return (a fence brings no other
    // node's data), for every kind alike.
    for (kind, calls) in [
        ("fence", 1),
        ("fence_collect", 1),
        ("connect", 1),
        ("disconnect", 1),
        ("group", 1),
        ("group_destruct", 2),
    ] {
        let host = Host::new(HostDoes::Refuse(Status::OPERATION_SUCCEEDED), false);
        case_on(kind, Victim::Joins, host.clone(), false, Status::SUCCESS);
        let got = host.calls.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(got, calls, "{kind}: host calls");
    }
}
