//! Process groups whose members sit on two servers: the two [`Server`]s
//! of `common::two_servers` in this test process ("node a" holds ranks 0
//! and 1 of a four-rank job, "node b" ranks 2 and 3), joined by its
//! `Fabric`, which does what a resource manager's daemons do between
//! nodes (fences, group constructs and destructs with context ids and
//! endpoint data, direct modex, events).
//!
//! The clients are this test binary (`child_process` with
//! `PMIX_TEST_GROUPS2` naming the scenario), two per server. Scenarios:
//! - `collective`: a construct over the four ranks with a context id and
//!   `PMIX_GROUP_INFO`; the same id everywhere, the sorted membership, a
//!   peer's posted data on the other server through `{grp, r}` (from the
//!   endpoint data, no direct modex) and its `PMIX_GROUP_LOCAL_CID`
//!   through a get qualified by the context id, a fence over the group,
//!   the destruct, then data committed after the group read across nodes
//!   (through the host's `direct_modex`: the endpoint data a server kept
//!   does not answer for keys it lacks);
//! - `leave`: direct modex across nodes before any group, then a group
//!   that rank 3 leaves: the others get `PMIX_GROUP_LEFT` (carried by the
//!   host's `notify_event`) and fence over the three that remain;
//! - `lost`: rank 3 dies before contributing: rank 2 (its server's
//!   collective fails) and ranks 0 and 1 (their server hears it from the
//!   host, which had the failure from server b's `group` upcall with
//!   `PMIX_LOCAL_COLLECTIVE_STATUS`) get `PMIX_GROUP_CONSTRUCT_ABORT`,
//!   quickly, not at their `PMIX_TIMEOUT`;
//! - `invite`: rank 0 invites the others with `PMIX_GROUP_OPTIONAL`, rank 3
//!   declines: the invite and both joins (one on each server) succeed, the
//!   three members fence over the group at once and read rank 2 through
//!   it; then rank 1 leaves and ranks 0 and 2 fence over the group again
//!   (server b learnt of the leave from the host).
//!
//! Every wait is bounded: the clients' calls by `PMIX_TIMEOUT` or
//! `recv_timeout`, each job by a watchdog that kills its processes.

mod common;

use common::two_servers::{is, two_servers, TwoServers, PER_NODE};
use common::{affected, check, err, timeout};

use std::process::{ExitStatus, Stdio};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pmix::client::{Client, Scope};
use pmix::group::{events as ev, GroupOp, GroupOpt};
use pmix::{keys, Info, Nspace, Proc, Rank, Status, Value};

const ROLE: &str = "PMIX_TEST_GROUPS2";

/// How long one job (four clients) may take.
const JOB_LIMIT: Duration = Duration::from_secs(40);

fn info(k: &str, v: Value) -> Info {
    common::info(k, v)
}

/// A client's exit status and what it printed.
struct Outcome {
    status: ExitStatus,
    out: String,
}

/// Runs the four clients of `job` in scenario `role`, each forked with its
/// own server's `setup_fork`; kills them and fails if they outlive
/// [`JOB_LIMIT`].
fn run_clients(job: &TwoServers, role: &str) -> Vec<Outcome> {
    let (tx, rx) = mpsc::channel();
    let mut pids = Vec::new();
    for r in 0..2 * PER_NODE {
        let server = &job.servers[(r / PER_NODE) as usize];
        let mut cmd =
            common::child_process_command(server, &Proc::new(job.nspace.clone(), Rank(r)));
        cmd.env(ROLE, role)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("client starts");
        pids.push(child.id());
        let out = common::read_in_thread(child.stdout.take().unwrap());
        let tx = tx.clone();
        std::thread::spawn(move || {
            let status = child.wait();
            let out = out.join().unwrap_or_default();
            let _ = tx.send((r as usize, status, out));
        });
    }
    let deadline = Instant::now() + JOB_LIMIT;
    let mut done: Vec<Option<Outcome>> = (0..pids.len()).map(|_| None).collect();
    for _ in 0..pids.len() {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok((r, status, out)) => {
                done[r] = Some(Outcome {
                    status: status.expect("wait for a client"),
                    out,
                })
            }
            Err(_) => {
                for (r, pid) in pids.iter().enumerate() {
                    if done[r].is_none() {
                        // SAFETY: kill has no memory preconditions; the
                        // pid is our own child, not yet reaped.
                        unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
                    }
                }
                panic!("{role}: the clients did not finish in {JOB_LIMIT:?}");
            }
        }
    }
    done.into_iter().map(Option::unwrap).collect()
}

fn assert_ok(role: &str, o: &[Outcome], ranks: impl IntoIterator<Item = u32>) {
    for r in ranks {
        let c = &o[r as usize];
        assert!(
            c.status.success(),
            "{role} rank {r}: {}\n{}",
            c.status,
            c.out
        );
        let line = format!("grp2 {r} ok");
        assert!(
            c.out.contains(&line),
            "{role} rank {r}: no {line:?} in\n{}",
            c.out
        );
    }
}

fn assert_fabric_clean(job: &TwoServers) {
    let seen = job.fabric.seen.lock().unwrap();
    assert!(seen.errors.is_empty(), "{:?}", seen.errors);
    drop(seen);
    assert!(job.fabric.idle(), "a collective was left half gathered");
}

/// The `PMIX_GROUP_CONTEXT_ID` rank lines `cid <rank> <id>` report.
fn printed_cids(o: &[Outcome]) -> Vec<u64> {
    o.iter()
        .map(|c| {
            // libtest's "test child_process ... " may lead the line.
            c.out
                .split_once("cid ")
                .and_then(|(_, l)| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no cid line in\n{}", c.out))
        })
        .collect()
}

#[test]
fn collective_construct_across_two_servers() {
    let job = two_servers("coll");
    let o = run_clients(&job, "collective");
    assert_ok("collective", &o, 0..4);
    let cids = printed_cids(&o);
    let assigned = job.fabric.seen.lock().unwrap().cids.get("xgrp").copied();
    assert!(assigned.is_some(), "the host assigned no context id");
    assert!(
        cids.iter().all(|c| Some(*c) == assigned),
        "context ids {cids:?}, host gave {assigned:?}"
    );
    // "ep" came with the endpoint data; "post", committed after the
    // group, through the host: one direct modex per rank.
    let dmodex = job.fabric.dmodex.load(Ordering::Relaxed);
    assert_eq!(dmodex, 4, "direct modex requests to the host");
    let seen = job.fabric.seen.lock().unwrap();
    for op in [GroupOp::Construct, GroupOp::Destruct] {
        for node in 0..2 {
            let n = seen
                .groups
                .iter()
                .filter(|g| g.0 == node && g.1 == op && g.2 == "xgrp")
                .count();
            assert_eq!(n, 1, "node {node} {op:?} upcalls: {:?}", seen.groups);
        }
    }
    drop(seen);
    assert_fabric_clean(&job);
}

#[test]
fn leave_is_told_across_two_servers() {
    let job = two_servers("leave");
    let o = run_clients(&job, "leave");
    assert_ok("leave", &o, 0..4);
    // The cross-node gets before the group went through the host.
    assert!(job.fabric.dmodex.load(Ordering::Relaxed) > 0);
    let seen = job.fabric.seen.lock().unwrap();
    assert!(
        seen.events.contains(&(1, ev::LEFT)),
        "server b did not hand PMIX_GROUP_LEFT to its host: {:?}",
        seen.events
    );
    drop(seen);
    assert_fabric_clean(&job);
}

#[test]
fn member_lost_on_one_server_aborts_on_both() {
    let job = two_servers("lost");
    let t0 = Instant::now();
    let o = run_clients(&job, "lost");
    assert!(
        !o[3].status.success(),
        "rank 3 was to die: {}\n{}",
        o[3].status,
        o[3].out
    );
    assert_ok("lost", &o, 0..3);
    assert!(t0.elapsed() < Duration::from_secs(15), "{:?}", t0.elapsed());
    let seen = job.fabric.seen.lock().unwrap();
    let gone: Vec<_> = seen.groups.iter().filter(|g| g.2 == "gone").collect();
    assert!(
        gone.iter()
            .any(|g| g.0 == 1 && g.1 == GroupOp::Construct && g.3 == ev::CONSTRUCT_ABORT),
        "server b did not report the failure: {gone:?}"
    );
    assert!(
        gone.iter().any(|g| g.0 == 0 && g.3 == Status::SUCCESS),
        "server a did not hand its part to the host: {gone:?}"
    );
    drop(seen);
    assert_fabric_clean(&job);
}

/// An invitation with `PMIX_GROUP_OPTIONAL` across the servers, one
/// invitee declining (issue 21, items 2 and 3): the leader's invite and
/// the joins (local and remote) succeed, the members fence over the group
/// at once and read a remote member through it; then a member of node a
/// leaves and the others, one on each node, fence over the group again:
/// server b knows of the leave.
#[test]
fn invite_with_a_decline_then_a_leave_across_two_servers() {
    let job = two_servers("invite");
    let o = run_clients(&job, "invite");
    assert_ok("invite", &o, 0..4);
    assert_fabric_clean(&job);
}

// ---------------------------------------------------------------------
// The clients.
// ---------------------------------------------------------------------

#[test]
fn child_process() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    common::exit_with("grp2", client(&role));
}

fn client(role: &str) -> Result<(), String> {
    let c = Client::init(&[]).map_err(err("init"))?;
    let me = c.proc().clone();
    let r = me.rank.0;
    let ns = me.nspace.clone();
    let size = c.job_size().map_err(err("size"))?;
    check(size == 4, || format!("size {size}"))?;
    let rank = |n: u32| Proc::new(ns.clone(), Rank(n));
    let everyone: Vec<Proc> = (0..size).map(rank).collect();
    // A peer on the other server.
    let remote = (r + PER_NODE) % size;
    match role {
        "collective" => {
            let grp = |n: u32| Proc::new(Nspace::new("xgrp").unwrap(), Rank(n));
            c.put(Scope::Global, "ep", Value::Uint32(100 + r))
                .map_err(err("put"))?;
            c.commit().map_err(err("commit"))?;
            let mine = vec![info(keys::GROUP_LOCAL_CID, Value::Size(1000 + r as usize))];
            let dirs = [
                info(keys::GROUP_ASSIGN_CONTEXT_ID, Value::Bool(true)),
                info(keys::GROUP_INFO, Value::info_array(mine)),
                timeout(20),
            ];
            // Each rank lists the members in its own order.
            let mut procs = everyone.clone();
            procs.rotate_left(r as usize);
            let g = c
                .group_construct("xgrp", &procs, &dirs)
                .map_err(err("construct"))?;
            let cid = g.context_id.ok_or("no context id")?;
            println!("cid {r} {cid}");
            check(g.status == Status::SUCCESS, || format!("{g:?}"))?;
            check(g.members == everyone, || format!("members {:?}", g.members))?;
            check(g.info.len() == everyone.len(), || {
                format!("contributions {:?}", g.info)
            })?;
            // The remote peer's posted data, by its group rank: its
            // server's endpoint data brought it.
            let v = c
                .get(&grp(remote), "ep", &[timeout(10)])
                .map_err(err("get {grp,r}"))?;
            check(v == Value::Uint32(100 + remote), || format!("ep {v:?}"))?;
            let qual = [info(keys::GROUP_CONTEXT_ID, Value::Size(cid as usize))];
            let v = c
                .get(&rank(remote), keys::GROUP_LOCAL_CID, &qual)
                .map_err(err("get local cid"))?;
            check(v == Value::Size(1000 + remote as usize), || {
                format!("local cid {v:?}")
            })?;
            c.fence(
                &[grp(Rank::WILDCARD.0)],
                &[info(keys::COLLECT_DATA, Value::Bool(true)), timeout(20)],
            )
            .map_err(err("group fence"))?;
            c.group_destruct("xgrp", &[timeout(20)])
                .map_err(err("destruct"))?;
            check(c.group("xgrp").is_none(), || "still a member".into())?;
            // Data committed after the group, fetched from the other node.
            c.put(Scope::Global, "post", Value::Uint32(200 + r))
                .map_err(err("put post"))?;
            c.commit().map_err(err("commit post"))?;
            c.fence(&[], &[timeout(20)]).map_err(err("job fence"))?;
            let v = c
                .get(&rank(remote), "post", &[timeout(10)])
                .map_err(err("get post"))?;
            check(v == Value::Uint32(200 + remote), || format!("post {v:?}"))?;
        }
        "leave" => {
            // Direct modex across nodes, through the host.
            c.put(Scope::Global, "pre", Value::Uint32(300 + r))
                .map_err(err("put"))?;
            c.commit().map_err(err("commit"))?;
            c.fence(&[], &[timeout(20)]).map_err(err("job fence"))?;
            let v = c
                .get(&rank(remote), "pre", &[timeout(10)])
                .map_err(err("get pre"))?;
            check(v == Value::Uint32(300 + remote), || format!("pre {v:?}"))?;
            let (h, left) = common::event_forwarder();
            c.register_event_handler(&[ev::LEFT], &[], h)
                .map_err(err("register"))?;
            let lv = |n: u32| Proc::new(Nspace::new("lv").unwrap(), Rank(n));
            c.group_construct("lv", &everyone, &[timeout(20)])
                .map_err(err("construct"))?;
            // Everyone has the group before anyone leaves it.
            c.fence(&[lv(Rank::WILDCARD.0)], &[timeout(20)])
                .map_err(err("group fence"))?;
            let last = rank(size - 1);
            if me == last {
                c.group_leave("lv", &[timeout(20)]).map_err(err("leave"))?;
                check(c.group("lv").is_none(), || "still a member".into())?;
            } else {
                let e = left
                    .recv_timeout(Duration::from_secs(20))
                    .map_err(err("left event"))?;
                check(affected(&e.2) == Some(last.clone()), || format!("{e:?}"))?;
                let id = e.2.iter().find(|i| is(i, keys::GROUP_ID));
                check(id.and_then(|i| i.value.as_str()) == Some("lv"), || {
                    format!("{e:?}")
                })?;
                check(
                    c.group("lv").map(|g| g.members.len()) == Some(size as usize - 1),
                    || format!("table after leave: {:?}", c.group("lv")),
                )?;
                c.fence(&[lv(Rank::WILDCARD.0)], &[timeout(20)])
                    .map_err(err("fence after leave"))?;
                c.group_destruct("lv", &[timeout(20)])
                    .map_err(err("destruct"))?;
            }
        }
        "lost" => {
            // Everyone is up before rank 3 dies.
            c.fence(&[], &[timeout(20)]).map_err(err("job fence"))?;
            if me == rank(size - 1) {
                // SAFETY: kill has no memory preconditions; this process
                // dies as a crashed rank would, without a word to its
                // server.
                unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
            }
            let t0 = Instant::now();
            let res = c.group_construct("gone", &everyone, &[timeout(20)]);
            check(res.as_ref().err() == Some(&ev::CONSTRUCT_ABORT), || {
                format!("construct: {res:?}")
            })?;
            check(t0.elapsed() < Duration::from_secs(10), || {
                format!("aborted after {:?}", t0.elapsed())
            })?;
        }
        "invite" => {
            // Rank 0 (node a) invites the others with PMIX_GROUP_OPTIONAL;
            // rank 3 (node b) declines, ranks 1 (a) and 2 (b) accept.
            let iv = |n: u32| Proc::new(Nspace::new("iv").unwrap(), Rank(n));
            c.put(Scope::Global, "iv", Value::Uint32(400 + r))
                .map_err(err("put"))?;
            c.commit().map_err(err("commit"))?;
            let (h, invited) = common::event_forwarder();
            c.register_event_handler(&[ev::INVITED], &[], h)
                .map_err(err("register invited"))?;
            let (h, left) = common::event_forwarder();
            c.register_event_handler(&[ev::LEFT], &[], h)
                .map_err(err("register left"))?;
            // Every handler is in place before the invitation.
            c.fence(&[], &[timeout(20)]).map_err(err("job fence"))?;
            let members = vec![rank(0), rank(1), rank(2)];
            let decliner = rank(3);
            if r == 0 {
                let dirs = [info(keys::GROUP_OPTIONAL, Value::Bool(true)), timeout(20)];
                let g = c
                    .group_invite("iv", &everyone[1..], &dirs)
                    .map_err(err("invite"))?;
                check(g.status == Status::SUCCESS, || {
                    format!("invite status {:?}, want success", g.status)
                })?;
                check(g.members == members, || format!("invite {g:?}"))?;
            } else {
                let e = invited
                    .recv_timeout(Duration::from_secs(20))
                    .map_err(err("invited event"))?;
                let opt = if me == decliner {
                    GroupOpt::Decline
                } else {
                    GroupOpt::Accept
                };
                let g = c
                    .group_join("iv", &e.1, opt, &[timeout(20)])
                    .map_err(err("join"))?;
                if me != decliner {
                    check(g.status == Status::SUCCESS, || {
                        format!("join status {:?}, want success", g.status)
                    })?;
                    check(g.members == members, || format!("join {g:?}"))?;
                }
            }
            if me != decliner {
                // At once, across the two servers: the decliner is not
                // waited for.
                c.fence(&[iv(Rank::WILDCARD.0)], &[timeout(10)])
                    .map_err(err("group fence after the decline"))?;
                let v = c
                    .get(&iv(2), "iv", &[timeout(10)])
                    .map_err(err("get {iv, 2}"))?;
                check(v == Value::Uint32(402), || format!("iv {v:?}"))?;
                // Every member read it before anyone leaves.
                c.fence(&[iv(Rank::WILDCARD.0)], &[timeout(10)])
                    .map_err(err("second group fence"))?;
                // Rank 1 (node a) leaves: server b must know it.
                if r == 1 {
                    c.group_leave("iv", &[timeout(20)]).map_err(err("leave"))?;
                } else {
                    let e = left
                        .recv_timeout(Duration::from_secs(20))
                        .map_err(err("left event"))?;
                    check(affected(&e.2) == Some(rank(1)), || format!("{e:?}"))?;
                    c.fence(&[iv(Rank::WILDCARD.0)], &[timeout(10)])
                        .map_err(err("group fence after the leave"))?;
                    c.group_destruct("iv", &[timeout(20)])
                        .map_err(err("destruct"))?;
                }
            }
            c.fence(&[], &[timeout(20)])
                .map_err(err("last job fence"))?;
        }
        other => return Err(format!("unknown scenario {other}")),
    }
    println!("grp2 {r} ok");
    c.finalize().map_err(err("finalize"))
}
