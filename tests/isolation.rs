//! Impersonation and isolation across users and jobs, with real
//! processes: a server (in a child of this test, so that its log lines
//! can be read) serves job A, of root, and job B, of `nobody`; processes
//! run as `nobody` (`CommandExt::uid`) try to pass for A's rank, present
//! a stale secret (of a rank finalized and deregistered) or a forged one,
//! and read A's data. The server's socket directory is given to `nobody`
//! (`ServerConfig::rendezvous_owner`), so that only the server's own
//! checks stand in the way. Needs root; otherwise SKIPPED.
//!
//! A tool of another user: see `tests/tools.rs`
//! (`a_tool_of_another_user_is_refused_unless_the_host_admits_it`).
//! Sealed segments a client received: see `tests/hostile.rs` (the
//! attacker rank tries write, pwrite, ftruncate, fallocate, writable
//! mmap, mprotect and a read-write reopen on each).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use common::raw_client::Raw;
use pmix::client::{Client, ConnectInfo, Scope};
use pmix::server::{NoHost, Server, ServerConfig};
use pmix::wire::{DmodexRequest, Message};
use pmix::{Nspace, Proc, Rank, Status, Value};

const ROLE: &str = "PMIX_ISOLATION_ROLE";
const NOBODY: u32 = 65534;
const LIMIT: Duration = Duration::from_secs(120);

type R = Result<(), String>;

/// The entry point of every child process of these tests.
#[test]
fn isolation_child() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let r = match role.as_str() {
        "server" => server_side(),
        "owner" => owner(),
        "intruder" => intruder(),
        "stale" => stale(),
        other => Err(format!("unknown role {other}")),
    };
    common::exit_with(&role, r);
}

fn child(role: &str) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", "isolation_child", "--nocapture", "--quiet"])
        .env(ROLE, role);
    c
}

fn as_nobody(c: &mut Command) -> &mut Command {
    c.uid(NOBODY).gid(NOBODY)
}

/// Job A's rank 0 (root): puts a secret value, then waits for its parent.
fn owner() -> R {
    let c = Client::init(&[]).map_err(common::err("init"))?;
    c.put(Scope::Global, "a.secret", Value::Uint64(0x5ec7e7))
        .map_err(common::err("put"))?;
    c.commit().map_err(common::err("commit"))?;
    println!("owner ready");
    std::io::stdout().flush().unwrap();
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
    c.finalize().map_err(common::err("finalize"))
}

/// As `nobody`, with job B rank 0's environment, and A's rank 0 secret in
/// `PMIX_ISOLATION_A_SECRET`.
fn intruder() -> R {
    let info = ConnectInfo::from_env().map_err(common::err("env"))?;
    let a_ns = Nspace::new(std::env::var("PMIX_ISOLATION_A").unwrap()).unwrap();
    let a0 = Proc::new(a_ns.clone(), Rank(0));
    let a_secret = std::env::var("PMIX_ISOLATION_A_SECRET").unwrap();
    // Another user's rank, with its true secret: the uid gives it away.
    let mut r = Raw::connect(&info)?;
    let j = r.handshake(&a0, a_secret.as_bytes())?;
    println!("claim A rank 0 with its secret: status {}", j.status.0);
    common::check(j.status == Status::ERR_NO_PERMISSIONS, || {
        format!("A's rank as nobody: {:?}", j.status)
    })?;
    // A forged secret for my own rank.
    let mut r = Raw::connect(&info)?;
    let j = r.handshake(&info.proc, b"forged-secret-0123456789abcdef")?;
    println!("forged secret: status {}", j.status.0);
    common::check(j.status == Status::ERR_INVALID_CRED, || {
        format!("forged: {:?}", j.status)
    })?;
    // My own identity: admitted; then A's data, asked for directly.
    let (mut r, _) = Raw::join(&info)?;
    r.send(
        2,
        &Message::DmodexRequest(DmodexRequest {
            proc: a0.clone(),
            key: None,
            infos: vec![],
        }),
    )?;
    let (_, m, _) = r.answer()?;
    let Message::DmodexReply(d) = m else {
        return Err(format!("dmodex: {m:?}"));
    };
    println!(
        "direct modex of A rank 0 from B: status {} ({} bytes)",
        d.status.0,
        d.data.len()
    );
    r.send(3, &Message::NspaceRequest(a_ns))?;
    let (_, m, fds) = r.answer()?;
    let Message::NspaceReply(n) = m else {
        return Err(format!("nspace: {m:?}"));
    };
    println!(
        "segments of A from B: status {} ({} descriptors)",
        n.status.0,
        fds.len()
    );
    r.send(4, &Message::Finalize)?;
    r.answer()?;
    println!("intruder done");
    Ok(())
}

/// As `nobody`, with job B rank 1's environment, after B's rank 1
/// finalized and was deregistered: its secret is stale.
fn stale() -> R {
    let info = ConnectInfo::from_env().map_err(common::err("env"))?;
    let mut r = Raw::connect(&info)?;
    let j = r.handshake(&info.proc, info.secret.as_bytes())?;
    println!("stale secret: status {}", j.status.0);
    common::check(j.status == Status::ERR_INVALID_CRED, || {
        format!("stale: {:?}", j.status)
    })
}

fn run_bounded(c: &mut Command, what: &str) -> String {
    let o = common::run_with_watchdog(
        c.stdout(Stdio::piped()).stderr(Stdio::inherit()),
        LIMIT,
        what,
    );
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{what}: {out}");
    print!("{out}");
    out
}

/// The server's side, in a child of the test: jobs A (root) and B
/// (nobody) and the processes above.
fn server_side() -> R {
    let config = ServerConfig {
        rendezvous_owner: Some((NOBODY, NOBODY)),
        ..ServerConfig::default()
    };
    let server = Server::start(config, Arc::new(NoHost)).map_err(common::err("server"))?;
    let a = Nspace::new("iso-job-a").unwrap();
    let b = Nspace::new("iso-job-b").unwrap();
    common::register_local_job(&server, &a, 1, vec![]);
    let job_b = pmix::job::SingleNodeJob::new(&b, &server.config().hostname)
        .app(pmix::job::AppContext::new(2));
    server
        .register_nspace(&b, 2, &job_b.infos().unwrap())
        .map_err(common::err("register B"))?;
    for r in 0..2 {
        server
            .register_client(&Proc::new(b.clone(), Rank(r)), NOBODY, NOBODY)
            .map_err(common::err("register B client"))?;
    }
    let a0 = Proc::new(a.clone(), Rank(0));
    let a_env = server.setup_fork(&a0).map_err(common::err("setup_fork"))?;
    let a_secret = a_env
        .iter()
        .find(|(k, _)| k == pmix::server::SECRET_ENV)
        .map(|(_, v)| v.clone())
        .unwrap();
    // A's owner, connected and holding its data.
    let mut owner = child("owner")
        .envs(a_env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(common::err("owner"))?;
    let mut lines = BufReader::new(owner.stdout.take().unwrap()).lines();
    // Its first lines are the test harness's.
    let ready = lines
        .by_ref()
        .map_while(Result::ok)
        .any(|l| l == "owner ready");
    common::check(ready, || "owner did not start".into())?;
    let b0 = Proc::new(b.clone(), Rank(0));
    let mut c = child("intruder");
    as_nobody(&mut c)
        .envs(server.setup_fork(&b0).map_err(common::err("fork B0"))?)
        .env("PMIX_ISOLATION_A", "iso-job-a")
        .env("PMIX_ISOLATION_A_SECRET", &a_secret);
    run_bounded(&mut c, "intruder");
    // B's rank 1: its environment, then it is gone (deregistered).
    let b1 = Proc::new(b.clone(), Rank(1));
    let b1_env = server.setup_fork(&b1).map_err(common::err("fork B1"))?;
    server.deregister_client(&b1);
    let mut c = child("stale");
    as_nobody(&mut c).envs(b1_env);
    run_bounded(&mut c, "stale");
    drop(owner.stdin.take());
    let st = owner.wait().map_err(common::err("owner wait"))?;
    drop(lines);
    common::check(st.success(), || "owner failed".into())?;
    server.finalize();
    Ok(())
}

#[test]
fn impersonation_by_another_user_is_refused_and_logged() {
    // SAFETY: geteuid(2) has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: needs root to run processes as nobody");
        return;
    }
    let o = common::run_with_watchdog(
        child("server")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        LIMIT,
        "isolation server",
    );
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    eprintln!("--- stdout\n{out}--- stderr\n{err}");
    assert!(o.status.success());
    let refusals: Vec<&str> = err.lines().filter(|l| l.contains("refused pid")).collect();
    let line = |who: &str, why: &str| {
        refusals
            .iter()
            .any(|l| l.contains(&format!("uid {NOBODY} gid {NOBODY} as {who}")) && l.contains(why))
    };
    assert!(line(
        "\"iso-job-a\":0",
        "uid/gid are not the registered ones (status -23)"
    ));
    assert!(line("\"iso-job-b\":0", "wrong secret (status -12)"));
    assert!(line("\"iso-job-b\":1", "wrong secret (status -12)"));
    assert_eq!(refusals.len(), 3, "{err}");
    // Isolation between jobs, as OpenPMIx: a process of job B may read
    // job A's data (direct modex and job segments) - the server does not
    // restrict it (see docs/FEATURES.md).
    assert!(out.contains("direct modex of A rank 0 from B: status 0"));
    assert!(out.contains("segments of A from B: status 0"));
}
