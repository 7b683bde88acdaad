//! A server in the test process and clients in real child processes (this
//! test binary re-executed, the role chosen by `PMIX_TEST_ROLE`): wire-up,
//! job data, put/commit/fence/get in every scope, direct modex, fence
//! subsets, processes dying around fences, refused connections, and a
//! two-node job (two servers in this process, the host doing the
//! inter-node exchange).
//!
//! Waits on children are bounded (a watchdog kills them and fails the
//! test); nothing sleeps to synchronize.

#[path = "../examples/support/client_checks.rs"]
mod client_checks;
mod common;

use common::two_servers::{two_servers, TwoServers, PER_NODE};

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pmix::client::{Client, ConnectInfo, Scope};
use pmix::server::{Completion, HostModule, Server, ServerConfig};
use pmix::{keys, Info, Nspace, Proc, Rank, Status, Value};

const ROLE: &str = "PMIX_TEST_ROLE";
const SIZE: &str = "PMIX_TEST_SIZE";
/// Longest a whole job may take before the watchdog fails the test.
const JOB_LIMIT: Duration = Duration::from_secs(180);

// ----------------------------------------------------------------------
// Child side

/// The entry point of every child: does nothing in the parent's run.
#[test]
fn child_process() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let code = match child::run(&role) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("child {role} rank {:?}: {msg}", std::env::var("PMIX_RANK"));
            1
        }
    };
    std::process::exit(code);
}

mod child {
    use super::*;

    use client_checks::{check, collect, key, optional, R};

    fn env_u32(name: &str) -> u32 {
        std::env::var(name).unwrap().parse().unwrap()
    }

    fn wait_for_parent() {
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
    }

    pub fn run(role: &str) -> R {
        let t = std::time::Instant::now();
        let c = Client::init(&[]).map_err(|s| format!("init: {s}"))?;
        let init = t.elapsed();
        let n = env_u32(SIZE);
        match role {
            "measure" => measure(&c, n, init)?,
            "wireup" => wireup(&c, n)?,
            "dmodex" => dmodex(&c, n)?,
            "subsets" => client_checks::subset_fences(&c, n)?,
            "rounds" => rounds(&c, n)?,
            "big" => big(&c, n)?,
            "exit_early" => std::process::exit(0),
            "finalize_at_once" => {}
            "block" => wait_for_parent(),
            "fence_after_signal" => {
                wait_for_parent();
                let r = c.fence(&[], &collect());
                check(
                    "fence with a dead peer",
                    r,
                    Err(Status::ERR_LOST_CONNECTION),
                )?;
            }
            "announce_then_fence" => {
                println!("entering fence");
                std::io::stdout().flush().unwrap();
                let r = c.fence(&[], &collect());
                check(
                    "fence with a killed peer",
                    r,
                    Err(Status::ERR_LOST_CONNECTION),
                )?;
            }
            "fence_timeout" => {
                let infos = vec![Info::new(key(keys::TIMEOUT), Value::Int32(1))];
                check(
                    "fence timeout",
                    c.fence(&[], &infos),
                    Err(Status::ERR_TIMEOUT),
                )?;
            }
            "abort" => {
                let r = c.abort(Status(-7), Some("test abort"), &[]);
                check("abort answer", r, Ok(()))?;
            }
            other => return Err(format!("unknown role {other}")),
        }
        c.finalize().map_err(|s| format!("finalize: {s}"))
    }

    fn peers_here(c: &Client) -> Result<Vec<u32>, String> {
        let ns = c.proc().nspace.clone();
        let peers = c
            .resolve_peers(None, Some(&ns))
            .map_err(|s| format!("resolve_peers: {s}"))?;
        Ok(peers.iter().map(|p| p.rank.0).collect())
    }

    /// Job keys, then a put in every scope, a collecting fence, and a get
    /// of every peer's data answered from the modex segment.
    fn wireup(c: &Client, n: u32) -> R {
        let me = c.proc().clone();
        let ns = me.nspace.clone();
        let wild = Proc::new(ns.clone(), Rank::WILDCARD);
        let size = c
            .get(&wild, keys::JOB_SIZE, &[])
            .map_err(|s| s.to_string())?;
        check("job size", size.as_u32(), Some(n))?;
        let here = peers_here(c)?;
        if !here.contains(&me.rank.0) {
            return Err(format!("local peers {here:?} miss me"));
        }
        let lsize = c
            .get(&wild, keys::LOCAL_SIZE, &[])
            .map_err(|s| s.to_string())?;
        check("local size", lsize.as_u32(), Some(here.len() as u32))?;
        let host = c.get(&me, keys::HOSTNAME, &[]).map_err(|s| s.to_string())?;
        if host.as_str().is_none() {
            return Err(format!("hostname {host:?}"));
        }
        let lrank = c
            .get(&me, keys::LOCAL_RANK, &[])
            .map_err(|s| s.to_string())?;
        let pos = here.iter().position(|&r| r == me.rank.0).unwrap() as u32;
        check("local rank", lrank.as_u32(), Some(pos))?;
        let nodes = c.resolve_nodes(None).map_err(|s| s.to_string())?;
        if nodes.is_empty() {
            return Err("no nodes".into());
        }

        let r = me.rank.0;
        c.put(Scope::Local, "t.local", Value::Uint32(r * 10 + 1))
            .map_err(|s| s.to_string())?;
        c.put(Scope::Remote, "t.remote", Value::Uint32(r * 10 + 2))
            .map_err(|s| s.to_string())?;
        c.put(Scope::Global, "t.global", Value::string(&format!("g-{r}")))
            .map_err(|s| s.to_string())?;
        c.put(Scope::Internal, "t.internal", Value::Int64(-5))
            .map_err(|s| s.to_string())?;
        c.commit().map_err(|s| s.to_string())?;
        c.fence(&[], &collect())
            .map_err(|s| format!("fence: {s}"))?;

        for peer in 0..n {
            let p = Proc::new(ns.clone(), Rank(peer));
            // PMIX_OPTIONAL: only what the modex segment delivered counts.
            let g = c.get(&p, "t.global", &optional());
            check(
                &format!("global of {peer}"),
                g,
                Ok(Value::string(&format!("g-{peer}"))),
            )?;
            let (seen, hidden, v) = if here.contains(&peer) {
                ("t.local", "t.remote", peer * 10 + 1)
            } else {
                ("t.remote", "t.local", peer * 10 + 2)
            };
            if peer == me.rank.0 {
                // A process reads back everything it put.
                check(
                    "own local",
                    c.get(&p, "t.local", &[]),
                    Ok(Value::Uint32(r * 10 + 1)),
                )?;
                client_checks::own_remote_and_internal(c, &p)?;
                continue;
            }
            check(
                &format!("{seen} of {peer}"),
                c.get(&p, seen, &optional()),
                Ok(Value::Uint32(v)),
            )?;
            client_checks::not_found(c, &p, hidden, &optional())?;
            // Without PMIX_OPTIONAL the server is asked, and agrees.
            client_checks::not_found(c, &p, hidden, &[])?;
            client_checks::not_found(c, &p, "t.internal", &[])?;
        }
        client_checks::last_fence(c)
    }

    /// Gets of peers' data with no fence: the server answers (waiting for
    /// peers that have not committed yet).
    fn dmodex(c: &Client, n: u32) -> R {
        client_checks::dmodex_gets(c, n)?;
        let me = c.proc().clone();
        // The non-blocking form, answered locally and through the server
        // (callbacks may come in any order).
        let (tx, rx) = std::sync::mpsc::channel();
        for key in ["d.key", "d.other"] {
            let tx = tx.clone();
            let last = Proc::new(me.nspace.clone(), Rank(n - 1));
            c.get_nb(
                &last,
                key,
                &[],
                Box::new(move |r| tx.send((key, r)).unwrap()),
            )
            .map_err(|s| s.to_string())?;
        }
        let mut got: Vec<_> = (0..2).map(|_| rx.recv().unwrap()).collect();
        got.sort_by_key(|(k, _)| *k);
        check(
            "get_nb",
            got,
            vec![
                ("d.key", Ok(Value::Uint64(1000 + u64::from(n - 1)))),
                ("d.other", Err(Status::ERR_NOT_FOUND)),
            ],
        )?;
        Ok(())
    }

    /// Prints timings (run by the ignored `measure_latencies` test).
    pub fn measure(c: &Client, n: u32, init: Duration) -> R {
        use std::time::Instant;
        let me = c.proc().clone();
        let wild = Proc::new(me.nspace.clone(), Rank::WILDCARD);
        let iters = 100_000u32;
        let t = Instant::now();
        for _ in 0..iters {
            let r = c.reader();
            let v = c.lookup(&r, &wild, keys::JOB_SIZE, &Default::default());
            std::hint::black_box(v.and_then(|v| v.as_u32()));
        }
        let lookup = t.elapsed() / iters;
        let t = Instant::now();
        for _ in 0..iters {
            std::hint::black_box(c.get(&me, keys::LOCAL_RANK, &[]).ok());
        }
        let get = t.elapsed() / iters;
        let rounds = 1000u32;
        c.fence(&[], &[]).map_err(|s| s.to_string())?;
        let t = Instant::now();
        for _ in 0..rounds {
            c.fence(&[], &[]).map_err(|s| s.to_string())?;
        }
        let fence = t.elapsed() / rounds;
        for k in 0..100 {
            c.put(Scope::Global, &format!("m.{k}"), Value::Uint64(k))
                .map_err(|s| s.to_string())?;
        }
        c.commit().map_err(|s| s.to_string())?;
        let t = Instant::now();
        c.fence(&[], &collect()).map_err(|s| s.to_string())?;
        let modex = t.elapsed();
        let peer = Proc::new(me.nspace.clone(), Rank((me.rank.0 + 1) % n));
        let t = Instant::now();
        for _ in 0..iters {
            let r = c.reader();
            std::hint::black_box(c.lookup(&r, &peer, "m.7", &Default::default()).is_some());
        }
        let posted = t.elapsed() / iters;
        if me.rank.0 == 0 {
            eprintln!(
                "N={n}: init {init:?}, lookup(job key) {lookup:?}, get(proc key, owned) {get:?}, \
                 fence {fence:?}, 100-key modex fence {modex:?}, lookup(posted key) {posted:?}"
            );
        }
        c.fence(&[], &[]).map_err(|s| s.to_string())
    }

    /// Commits larger than a socket buffer (written in pieces while the
    /// caller waits for its fence), collected and read back.
    fn big(c: &Client, n: u32) -> R {
        let me = c.proc().clone();
        let r = me.rank.0;
        let blob = |p: u32, k: u32| -> Vec<u8> {
            (0..3_000_000u32).map(|i| (i ^ (p * 7 + k)) as u8).collect()
        };
        for k in 0..2u32 {
            c.put(
                Scope::Global,
                &format!("big.{k}"),
                Value::ByteObject(blob(r, k)),
            )
            .map_err(|s| s.to_string())?;
            c.commit().map_err(|s| s.to_string())?;
            c.fence(&[], &collect())
                .map_err(|s| format!("fence {k}: {s}"))?;
            for p in 0..n {
                let proc = Proc::new(me.nspace.clone(), Rank(p));
                for j in 0..=k {
                    let got = c.get(&proc, &format!("big.{j}"), &optional());
                    if got != Ok(Value::ByteObject(blob(p, j))) {
                        return Err(format!("big.{j} of {p} after fence {k} differs"));
                    }
                }
            }
        }
        c.fence(&[], &[]).map_err(|s| format!("last fence: {s}"))
    }

    /// Many collecting fences (full and delta modex generations, a value
    /// replaced, a fence over a subset between them): every peer's every
    /// key is read back from the segments after each fence.
    fn rounds(c: &Client, n: u32) -> R {
        let me = c.proc().clone();
        let r = me.rank.0;
        let e = |s: pmix::Status| s.to_string();
        for round in 0..12u32 {
            c.put(
                Scope::Global,
                &format!("round.{round}"),
                Value::Uint32(r * 1000 + round),
            )
            .map_err(e)?;
            if round % 5 == 3 {
                // Replaces a value already collected.
                c.put(Scope::Global, "latest", Value::Uint32(round))
                    .map_err(e)?;
            }
            c.commit().map_err(e)?;
            if round == 7 {
                let half = client_checks::my_half(&me, n);
                c.fence(&half, &collect())
                    .map_err(|s| format!("subset fence: {s}"))?;
            } else {
                c.fence(&[], &collect())
                    .map_err(|s| format!("fence {round}: {s}"))?;
            }
            let peers: Vec<u32> = if round == 7 {
                (0..n).filter(|x| x % 2 == r % 2).collect()
            } else {
                (0..n).collect()
            };
            for p in peers {
                let proc = Proc::new(me.nspace.clone(), Rank(p));
                for k in 0..=round {
                    check(
                        &format!("round.{k} of {p} after fence {round}"),
                        c.get(&proc, &format!("round.{k}"), &optional()),
                        Ok(Value::Uint32(p * 1000 + k)),
                    )?;
                }
                if round >= 3 {
                    let latest = if round >= 8 { 8 } else { 3 };
                    check(
                        &format!("latest of {p} after fence {round}"),
                        c.get(&proc, "latest", &optional()),
                        Ok(Value::Uint32(latest)),
                    )?;
                }
            }
        }
        c.fence(&[], &[]).map_err(|s| format!("last fence: {s}"))
    }
}

// ----------------------------------------------------------------------
// Parent side

/// What the host saw.
#[derive(Default)]
struct Recorder {
    events: Mutex<Vec<String>>,
}

impl Recorder {
    fn push(&self, e: String) {
        self.events.lock().unwrap().push(e);
    }
    fn events(&self) -> Vec<String> {
        self.events.lock().unwrap().clone()
    }
}

/// A single-node host: records callbacks, completes at once, has no
/// `fence_nb` (the server completes fences locally).
struct LocalHost(Arc<Recorder>);

impl HostModule for LocalHost {
    fn client_connected(&self, proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        self.0.push(format!("connected {}", proc.rank.0));
        done.complete(Ok(()));
        Ok(())
    }
    fn client_finalized(&self, proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        self.0.push(format!("finalized {}", proc.rank.0));
        done.complete(Ok(()));
        Ok(())
    }
    fn abort(
        &self,
        proc: &Proc,
        status: Status,
        message: Option<&str>,
        _procs: &[Proc],
        done: Completion<()>,
    ) -> Result<(), Status> {
        self.0.push(format!(
            "abort {} {} {}",
            proc.rank.0,
            status.code(),
            message.unwrap_or("")
        ));
        // Completed from another thread, as a host may.
        std::thread::spawn(move || done.complete(Ok(())));
        Ok(())
    }
    fn client_lost(&self, proc: &Proc) {
        self.0.push(format!("lost {}", proc.rank.0));
    }
}

fn my_ids() -> (u32, u32) {
    pmix::net::my_ids()
}

struct Job {
    server: Arc<Server>,
    nspace: Nspace,
    size: u32,
}

impl Job {
    fn single(name: &str, size: u32, host: Arc<dyn HostModule>) -> Job {
        let server = Server::start(ServerConfig::default(), host).expect("server starts");
        let nspace = Nspace::new(format!("{name}-{}", std::process::id())).unwrap();
        common::register_local_job(&server, &nspace, size, Vec::new());
        Job {
            server: Arc::new(server),
            nspace,
            size,
        }
    }

    fn proc(&self, r: u32) -> Proc {
        Proc::new(self.nspace.clone(), Rank(r))
    }
}

struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
}

fn spawn(server: &Server, proc: &Proc, role: &str, size: u32) -> Running {
    let mut cmd = common::child_process_command(server, proc);
    cmd.env(ROLE, role)
        .env(SIZE, size.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = cmd.spawn().expect("child starts");
    Running {
        stdin: child.stdin.take(),
        stdout: child.stdout.take(),
        child,
    }
}

/// Waits for every child, killing all of them and failing if the job
/// outlives [`JOB_LIMIT`]. Returns exit statuses by index.
fn wait_all(children: Vec<Running>) -> Vec<ExitStatus> {
    let (tx, rx) = std::sync::mpsc::channel();
    let mut pids = Vec::new();
    let n = children.len();
    for (i, mut r) in children.into_iter().enumerate() {
        pids.push(r.child.id());
        let tx = tx.clone();
        std::thread::spawn(move || {
            // Drain stdout so a chatty child never blocks on a full pipe.
            if let Some(out) = r.stdout.take() {
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut BufReader::new(out), &mut std::io::sink());
                });
            }
            drop(r.stdin.take());
            let st = r.child.wait().expect("wait");
            let _ = tx.send((i, st));
        });
    }
    let mut out: Vec<Option<ExitStatus>> = vec![None; n];
    for _ in 0..n {
        match rx.recv_timeout(JOB_LIMIT) {
            Ok((i, st)) => out[i] = Some(st),
            Err(_) => {
                for pid in &pids {
                    kill(*pid);
                }
                panic!("job did not finish within {JOB_LIMIT:?}");
            }
        }
    }
    out.into_iter().map(Option::unwrap).collect()
}

fn kill(pid: u32) {
    // SAFETY: kill(2) has no memory preconditions; `pid` is a child of
    // this process that may or may not have been reaped already.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGKILL);
    }
}

fn run_all(job: &Job, role: &str) -> Vec<ExitStatus> {
    let kids = (0..job.size)
        .map(|r| spawn(&job.server, &job.proc(r), role, job.size))
        .collect();
    wait_all(kids)
}

/// A job of `n` ranks on one server with `host`, every rank running
/// `role`; all must succeed.
fn run_single(name: &str, n: u32, host: Arc<dyn HostModule>, role: &str) {
    assert_all_ok(&run_all(&Job::single(name, n, host), role));
}

fn assert_all_ok(st: &[ExitStatus]) {
    for (r, s) in st.iter().enumerate() {
        assert!(s.success(), "rank {r} failed: {s}");
    }
}

fn wireup(n: u32) {
    let rec = Arc::new(Recorder::default());
    let job = Job::single("wireup", n, Arc::new(LocalHost(rec.clone())));
    assert_all_ok(&run_all(&job, "wireup"));
    let ev = rec.events();
    for r in 0..n {
        assert!(ev.contains(&format!("connected {r}")), "{ev:?}");
        assert!(ev.contains(&format!("finalized {r}")), "{ev:?}");
    }
    assert!(!ev.iter().any(|e| e.starts_with("lost")), "{ev:?}");
}

/// One `#[test]` per line: `name(args)` calls `$run(args)`.
macro_rules! tests_of {
    ($run:ident: $($test:ident($($arg:expr),*);)*) => {$(
        #[test]
        fn $test() {
            $run($($arg),*);
        }
    )*};
}

tests_of! { wireup:
    wireup_job_keys_and_collected_modex_n1(1);
    wireup_job_keys_and_collected_modex_n2(2);
    wireup_job_keys_and_collected_modex_n4(4);
    wireup_job_keys_and_collected_modex_n16(16);
}

/// Timings for the record (`cargo test --release --test server_client --
/// --ignored --nocapture measure`); asserts nothing about them.
#[test]
#[ignore]
fn measure_latencies() {
    for n in [1, 4] {
        let job = Job::single("measure", n, Arc::new(pmix::server::NoHost));
        assert_all_ok(&run_all(&job, "measure"));
    }
}

/// A job of `n` ranks playing `role` on a server without a host.
fn hostless(role: &str, n: u32) {
    run_single(role, n, Arc::new(pmix::server::NoHost), role);
}

tests_of! { hostless:
    direct_modex_without_fence_n4("dmodex", 4);
    many_collecting_fences_keep_every_value_n4("rounds", 4);
    commits_larger_than_a_socket_buffer_n3("big", 3);
    fences_over_subsets_n4("subsets", 4);
}

#[test]
fn many_collecting_fences_keep_every_value_through_a_host_n3() {
    let rec = Arc::new(Recorder::default());
    run_single("rounds", 3, Arc::new(LocalHost(rec)), "rounds");
}

/// Of a job of `n` ranks, each started by `start(rank, role)`, rank 0
/// plays `first_role` and is gone (exited 0) before the others enter a
/// fence, which must fail for them.
fn rank_0_gone_before_the_fence(n: u32, first_role: &str, start: impl Fn(u32, &str) -> Running) {
    let mut first = start(0, first_role);
    let mut others: Vec<Running> = (1..n).map(|r| start(r, "fence_after_signal")).collect();
    // Rank 0 is gone (and its connection with it) before the others enter.
    assert!(first.child.wait().unwrap().success());
    drop(first.stdin.take());
    for o in &mut others {
        writeln!(o.stdin.as_mut().unwrap(), "go").unwrap();
    }
    assert_all_ok(&wait_all(others));
}

/// [`rank_0_gone_before_the_fence`] in a job of 3 ranks on one server;
/// what its host saw.
fn rank_0_gone_on_one_node(name: &str, first_role: &str) -> Vec<String> {
    let rec = Arc::new(Recorder::default());
    let job = Job::single(name, 3, Arc::new(LocalHost(rec.clone())));
    rank_0_gone_before_the_fence(3, first_role, |r, role| {
        spawn(&job.server, &job.proc(r), role, 3)
    });
    rec.events()
}

#[test]
fn a_rank_dead_before_the_fence_fails_it_for_the_others() {
    let ev = rank_0_gone_on_one_node("dead-before", "exit_early");
    assert!(ev.contains(&"lost 0".to_string()), "{ev:?}");
}

#[test]
fn a_rank_that_finalized_without_the_fence_fails_it_for_the_others() {
    let ev = rank_0_gone_on_one_node("finalized-before", "finalize_at_once");
    assert!(ev.contains(&"finalized 0".to_string()), "{ev:?}");
    assert!(!ev.contains(&"lost 0".to_string()), "{ev:?}");
}

#[test]
fn a_rank_killed_during_the_fence_fails_it_for_the_others() {
    let rec = Arc::new(Recorder::default());
    let job = Job::single("killed-during", 4, Arc::new(LocalHost(rec.clone())));
    let mut victim = spawn(&job.server, &job.proc(0), "block", 4);
    let mut others: Vec<Running> = (1..4)
        .map(|r| spawn(&job.server, &job.proc(r), "announce_then_fence", 4))
        .collect();
    // Each announces (on stdout) that it is about to enter the fence.
    let (tx, rx) = std::sync::mpsc::channel();
    for o in &mut others {
        let out = o.stdout.take().unwrap();
        let tx = tx.clone();
        std::thread::spawn(move || {
            // The child's test harness prints on the same line first.
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if line.trim_end().ends_with("entering fence") {
                    let _ = tx.send(());
                }
            }
        });
    }
    for _ in 0..others.len() {
        if rx.recv_timeout(JOB_LIMIT).is_err() {
            for o in &others {
                kill(o.child.id());
            }
            kill(victim.child.id());
            panic!("the ranks did not reach the fence within {JOB_LIMIT:?}");
        }
    }
    victim.child.kill().unwrap();
    victim.child.wait().unwrap();
    assert_all_ok(&wait_all(others));
    assert!(rec.events().contains(&"lost 0".to_string()));
}

#[test]
fn a_fence_missing_a_rank_times_out() {
    let job = Job::single("timeout", 3, Arc::new(pmix::server::NoHost));
    let idle = spawn(&job.server, &job.proc(0), "block", 3);
    let others: Vec<Running> = (1..3)
        .map(|r| spawn(&job.server, &job.proc(r), "fence_timeout", 3))
        .collect();
    assert_all_ok(&wait_all(others));
    // Closing its stdin lets the idle rank finalize.
    assert_all_ok(&wait_all(vec![idle]));
}

#[test]
fn abort_reaches_the_host() {
    let rec = Arc::new(Recorder::default());
    let job = Job::single("abort", 1, Arc::new(LocalHost(rec.clone())));
    assert_all_ok(&run_all(&job, "abort"));
    assert!(
        rec.events().contains(&"abort 0 -7 test abort".to_string()),
        "{:?}",
        rec.events()
    );
}

/// A connection with `info` is refused with `why`.
fn assert_refused(info: &ConnectInfo, why: Status) {
    assert_eq!(Client::connect(info, &[]).map(|_| ()), Err(why));
}

fn connect_in_process(server: &Server, proc: &Proc) -> ConnectInfo {
    common::connect_info(server, proc)
}

#[test]
fn a_wrong_secret_is_refused() {
    let job = Job::single("secret", 2, Arc::new(pmix::server::NoHost));
    let mut info = connect_in_process(&job.server, &job.proc(0));
    info.secret = "0".repeat(info.secret.len());
    assert_refused(&info, Status::ERR_INVALID_CRED);
    // Claiming another rank with one's own secret fails too.
    let mine = connect_in_process(&job.server, &job.proc(0));
    let mut theirs = connect_in_process(&job.server, &job.proc(1));
    theirs.secret = mine.secret;
    assert_refused(&theirs, Status::ERR_INVALID_CRED);
    // The right secret works.
    let ok = Client::connect(&connect_in_process(&job.server, &job.proc(0)), &[]).unwrap();
    ok.finalize().unwrap();
}

#[test]
fn an_unregistered_process_is_refused() {
    let job = Job::single("unreg", 1, Arc::new(pmix::server::NoHost));
    let stranger = job.proc(5);
    let info = connect_in_process(&job.server, &stranger);
    assert_refused(&info, Status::ERR_INVALID_CRED);
}

#[test]
fn a_uid_mismatch_is_refused() {
    let job = Job::single("uid", 1, Arc::new(pmix::server::NoHost));
    let (uid, gid) = my_ids();
    job.server
        .register_client(&job.proc(0), uid.wrapping_add(1), gid)
        .unwrap();
    let info = connect_in_process(&job.server, &job.proc(0));
    assert_refused(&info, Status::ERR_NO_PERMISSIONS);
}

#[test]
fn a_second_connection_for_one_rank_is_refused() {
    let job = Job::single("twice", 1, Arc::new(pmix::server::NoHost));
    let info = connect_in_process(&job.server, &job.proc(0));
    let first = Client::connect(&info, &[]).unwrap();
    assert_refused(&info, Status::ERR_EXISTS);
    first.finalize().unwrap();
}

#[test]
fn calls_after_finalize_fail_and_a_lost_server_fails_calls() {
    let job = Job::single("after", 1, Arc::new(pmix::server::NoHost));
    let c = Client::connect(&connect_in_process(&job.server, &job.proc(0)), &[]).unwrap();
    c.finalize().unwrap();
    assert_eq!(c.commit(), Err(Status::ERR_INIT));
    let job2 = Job::single("lost", 2, Arc::new(pmix::server::NoHost));
    let c = Client::connect(&connect_in_process(&job2.server, &job2.proc(0)), &[]).unwrap();
    let server = Arc::try_unwrap(job2.server).unwrap();
    server.finalize();
    assert_eq!(c.fence(&[], &[]), Err(Status::ERR_LOST_CONNECTION));
}

// ----------------------------------------------------------------------
// Two nodes: two servers in this process, the host exchanging between them.

/// Starts rank `rank` of the two-server job on its server.
fn spawn_on(job: &TwoServers, rank: u32, role: &str) -> Running {
    let s = &job.servers[(rank / PER_NODE) as usize];
    spawn(s, &Proc::new(job.nspace.clone(), Rank(rank)), role, 4)
}

/// Four ranks on two servers, which only the host's fabric joins, run
/// `role`; the fabric saw nothing a host must not see.
fn two_nodes(name: &str, role: &str) {
    let job = two_servers(name);
    let kids = (0..4).map(|r| spawn_on(&job, r, role)).collect();
    assert_all_ok(&wait_all(kids));
    assert_eq!(job.fabric.seen.lock().unwrap().errors, Vec::<String>::new());
}

#[test]
fn two_nodes_collect_through_the_host_fence() {
    two_nodes("two-wireup", "wireup");
}

#[test]
fn two_nodes_direct_modex_through_the_host() {
    two_nodes("two-dmodex", "dmodex");
}

#[test]
fn two_nodes_a_dead_rank_fails_the_fence_on_both_nodes() {
    let job = two_servers("two-dead");
    rank_0_gone_before_the_fence(4, "exit_early", |r, role| spawn_on(&job, r, role));
}
