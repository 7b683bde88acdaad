//! What the server holds for a namespace once the host deregistered it:
//! nothing. Regression tests of the session fuzzer's finding "the
//! server's memory grows with each hostile input": collectives that had
//! failed were kept for ever for participants that could no longer
//! arrive, collectives waited for ranks that never connected after the
//! host deregistered them, and groups outlived their members' namespaces.
//!
//! A server in this process (no host) and ranks speaking the protocol by
//! hand (`common::raw_client`) on its real socket; the server's own
//! [`Census`] of its rooms is compared with the one taken before the
//! namespaces were registered. The handshake deadlines (kept until they
//! pass, 10 s) are left out of the comparison. Every wait is bounded.

mod common;

use std::sync::Arc;

use common::raw_client::Raw;
use pmix::server::{Census, NoHost, Server, ServerConfig};
use pmix::wire::{self, group, FenceRequest, Message, Op, Request};
use pmix::{keys, Nspace, Proc, Rank, Status, Value};

fn start() -> Server {
    Server::start(ServerConfig::default(), Arc::new(NoHost)).expect("server starts")
}

fn register(server: &Server, ns: &str, size: u32) -> Nspace {
    let ns = Nspace::new(ns).unwrap();
    common::register_local_job(server, &ns, size, Vec::new());
    ns
}

fn join(server: &Server, ns: &Nspace, rank: u32) -> Raw {
    let info = common::connect_info(server, &Proc::new(ns.clone(), Rank(rank)));
    Raw::join(&info).expect("joins").0
}

/// The answer to request `id`, skipping anything else the server sends.
fn reply(raw: &mut Raw, id: u32) -> Message {
    loop {
        let (got, m, _) = raw.answer().expect("an answer");
        if got == id {
            return m;
        }
    }
}

fn status_of(m: &Message) -> Status {
    match m {
        Message::FenceRelease(r) => r.status,
        Message::Response(r) => r.status,
        other => panic!("unexpected answer {other:?}"),
    }
}

fn fence(raw: &mut Raw, id: u32, procs: Vec<Proc>) {
    let m = Message::FenceRequest(FenceRequest {
        procs,
        infos: Vec::new(),
    });
    raw.send(id, &m).expect("fence sent");
}

fn construct(raw: &mut Raw, id: u32, group_id: &str, procs: &[Proc]) {
    let body = group::encode_construct(group_id, procs, &[]).unwrap();
    let m = Message::Request(Request {
        op: Op::GROUP_CONSTRUCT,
        body,
    });
    raw.send(id, &m).expect("construct sent");
}

/// The census without the rows that change with time alone.
fn census(server: &Server) -> Census {
    server.census().expect("server running")
}

/// Fails with every row of `now` that grew since `before` (the
/// handshake deadlines excepted).
fn assert_nothing_kept(before: &Census, now: &Census) {
    let kept: Vec<_> = now
        .grown_since(before)
        .into_iter()
        .filter(|(name, _, _)| *name != "timers.handshakes" && *name != "groups.retired")
        .collect();
    assert!(
        kept.is_empty(),
        "the deregistered namespaces left (row, before, now): {kept:?}\nnow: {now}"
    );
}

fn wild(ns: &Nspace) -> Proc {
    Proc::new(ns.clone(), Rank::WILDCARD)
}

#[test]
fn a_failed_fence_waiting_for_a_live_rank_is_forgotten_with_the_namespaces() {
    let server = start();
    let before = census(&server);
    let a = register(&server, "census.a", 2);
    let b = register(&server, "census.b", 1);
    // a:0 fences over a and b:0, then leaves without finalizing: the
    // fence fails, and is kept for a:1 (never connected) and b:0 (alive)
    // to be told of it if they come.
    let set = vec![wild(&a), Proc::new(b.clone(), Rank(0))];
    let mut a0 = join(&server, &a, 0);
    fence(&mut a0, 2, set.clone());
    let mut b0 = join(&server, &b, 0);
    a0.hang_up().unwrap();
    // b:0 arrives late: the failure at once (so it had failed).
    fence(&mut b0, 3, set);
    assert_eq!(
        status_of(&reply(&mut b0, 3)),
        Status::ERR_LOST_CONNECTION,
        "a late arrival at the failed fence"
    );
    assert_eq!(census(&server).get("collectives.active"), Some(1));
    server.deregister_nspace(&a);
    server.deregister_nspace(&b);
    assert_nothing_kept(&before, &census(&server));
    assert!(b0.expect_closed().is_ok(), "b:0 disconnected by the host");
    server.finalize();
}

#[test]
fn deregistering_a_client_that_never_connected_fails_the_fence_waiting_for_it() {
    let server = start();
    let before = census(&server);
    let a = register(&server, "census.c", 2);
    let mut a0 = join(&server, &a, 0);
    // No timeout: only a:1 could end it, and a:1 never connects.
    fence(&mut a0, 2, vec![wild(&a)]);
    // The fence is in (a ping, an unknown operation, is answered after
    // it on the same connection).
    let ping = Message::Request(Request {
        op: Op(0x7fff),
        body: Vec::new(),
    });
    a0.send(3, &ping).unwrap();
    assert_eq!(status_of(&reply(&mut a0, 3)), Status::ERR_NOT_SUPPORTED);
    assert_eq!(census(&server).get("collectives.active"), Some(1));
    server.deregister_client(&Proc::new(a.clone(), Rank(1)));
    assert_eq!(
        status_of(&reply(&mut a0, 2)),
        Status::ERR_LOST_CONNECTION,
        "the fence waiting for a deregistered rank"
    );
    // a:0 is still served.
    a0.send(4, &ping).unwrap();
    assert_eq!(status_of(&reply(&mut a0, 4)), Status::ERR_NOT_SUPPORTED);
    server.deregister_nspace(&a);
    assert_nothing_kept(&before, &census(&server));
    server.finalize();
}

#[test]
fn a_group_of_a_deregistered_namespace_is_forgotten() {
    let server = start();
    let before = census(&server);
    let a = register(&server, "census.d", 2);
    let members = [Proc::new(a.clone(), Rank(0)), Proc::new(a.clone(), Rank(1))];
    let mut ranks: Vec<Raw> = (0..2).map(|r| join(&server, &a, r)).collect();
    for r in ranks.iter_mut() {
        construct(r, 2, "census.g", &members);
    }
    for r in ranks.iter_mut() {
        assert_eq!(status_of(&reply(r, 2)), Status::SUCCESS, "construct");
    }
    assert_eq!(census(&server).get("groups.groups"), Some(1));
    // Both leave without destructing it; then the job is deregistered.
    for r in ranks {
        r.hang_up().unwrap();
    }
    server.deregister_nspace(&a);
    assert_nothing_kept(&before, &census(&server));
    // The id is free again: a new job builds a group of that name.
    let b = register(&server, "census.e", 1);
    let mut b0 = join(&server, &b, 0);
    construct(&mut b0, 2, "census.g", &[Proc::new(b.clone(), Rank(0))]);
    assert_eq!(
        status_of(&reply(&mut b0, 2)),
        Status::SUCCESS,
        "the id again"
    );
    server.finalize();
}

/// The fuzzer's renewal in small: ranks commit, fence, publish, connect
/// and leave without finalizing, in namespaces replaced ten times; the
/// census after each replacement is what it was before the first.
#[test]
fn namespaces_replaced_again_and_again_leave_nothing_behind() {
    let server = start();
    let before = census(&server);
    let timeout = common::info(keys::TIMEOUT, Value::Int32(1));
    for round in 0..10 {
        let ns = register(&server, &format!("census.r{round}"), 4);
        let other = register(&server, &format!("census.o{round}"), 1);
        let mut r0 = join(&server, &ns, 0);
        let mut r1 = join(&server, &ns, 1);
        let posted = wire::Posted {
            scope: pmix::client::Scope::Global,
            key: pmix::Key::new("census.k").unwrap(),
            value: Value::Uint64(round),
        };
        r0.send(2, &Message::Commit(vec![posted])).unwrap();
        // A fence over the namespace (ranks 2 and 3 never come), one over
        // the other job too, a connect with a short timeout.
        fence(&mut r0, 3, vec![wild(&ns)]);
        fence(&mut r1, 3, vec![wild(&ns), wild(&other)]);
        let body =
            wire::process_mgmt::encode_collective(&[wild(&ns)], std::slice::from_ref(&timeout));
        let connect = Message::Request(Request {
            op: Op::CONNECT,
            body: body.unwrap(),
        });
        r1.send(4, &connect).unwrap();
        r0.hang_up().unwrap();
        assert_eq!(status_of(&reply(&mut r1, 3)), Status::ERR_LOST_CONNECTION);
        drop(r1);
        server.deregister_nspace(&ns);
        server.deregister_nspace(&other);
        assert_nothing_kept(&before, &census(&server));
    }
    server.finalize();
}
