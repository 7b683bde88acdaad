//! Process groups through the Rust API, with real processes: each test
//! runs this binary as the ranks of a `pmixrun` job (`child_process` with
//! `PMIX_TEST_GROUPS` naming the scenario), which check what the group
//! calls return and print `groups <rank> ok`.
//!
//! Scenarios: a collective construct with a context id (results, order,
//! the id as a namespace for fence and get, `PMIX_GROUP_INFO` read back by
//! context id, `PMIX_GROUP_NAMES`, the group queries, destruct and what
//! follows it); invite and join (accepted, declined, optional); leave; a
//! member lost before contributing (abort, optional); a timeout.
//!
//! Every call that waits is bounded by `PMIX_TIMEOUT` or by the job's
//! `pmixrun --timeout`; each job by a watchdog.

mod common;

use common::{affected, check, err, timeout};

use std::sync::mpsc;
use std::time::Duration;

use pmix::client::Client;
use pmix::group::{events as ev, GroupOpt};
use pmix::value::Query;
use pmix::{keys, Info, Nspace, Proc, Rank, Status, Value};

const ROLE: &str = "PMIX_TEST_GROUPS";

#[test]
fn child_process() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    common::exit_with("groups", run(&role));
}

fn info(k: &str, v: Value) -> Info {
    common::info(k, v)
}

/// A handler forwarding the events of `codes` to a channel.
fn listen(c: &Client, codes: &[Status]) -> Result<mpsc::Receiver<common::SeenEvent>, String> {
    let (h, rx) = common::event_forwarder();
    c.register_event_handler(codes, &[], h)
        .map_err(err("register"))?;
    Ok(rx)
}

fn run(role: &str) -> Result<(), String> {
    let c = Client::init(&[]).map_err(err("init"))?;
    let me = c.proc().clone();
    let ns = me.nspace.clone();
    let size = c.job_size().map_err(err("size"))?;
    let all = vec![Proc::new(ns.clone(), Rank::WILDCARD)];
    let grp = |r: u32| Proc::new(Nspace::new("grpA").unwrap(), Rank(r));
    match role {
        "collective" => {
            c.put(
                pmix::client::Scope::Global,
                "ep",
                Value::Uint32(100 + me.rank.0),
            )
            .map_err(err("put"))?;
            c.commit().map_err(err("commit"))?;
            let mine = vec![info(
                keys::GROUP_LOCAL_CID,
                Value::Size(1000 + me.rank.0 as usize),
            )];
            let dirs = vec![
                info(keys::GROUP_ASSIGN_CONTEXT_ID, Value::Bool(true)),
                info(keys::GROUP_INFO, Value::info_array(mine)),
                timeout(20),
            ];
            // Each rank lists the members in its own order.
            let mut procs: Vec<Proc> = (0..size).map(|r| Proc::new(ns.clone(), Rank(r))).collect();
            procs.rotate_left(me.rank.0 as usize);
            let g = c
                .group_construct("grpA", &procs, &dirs)
                .map_err(err("construct"))?;
            let cid = g.context_id.ok_or("no context id")?;
            let sorted: Vec<Proc> = (0..size).map(|r| Proc::new(ns.clone(), Rank(r))).collect();
            check(g.members == sorted, || format!("members {:?}", g.members))?;
            let infos = g.to_infos();
            check(
                infos[0].key.as_bytes() == keys::GROUP_CONTEXT_ID.as_bytes(),
                || "context id not first".into(),
            )?;
            // A second group at the same time gets another id.
            let g2 = c
                .group_construct("grpB", &all, &dirs[..1])
                .map_err(err("construct B"))?;
            check(
                g2.context_id.is_some() && g2.context_id != Some(cid),
                || format!("ids {cid} {:?}", g2.context_id),
            )?;
            // The id is a namespace.
            let allg = [Proc::new(Nspace::new("grpA").unwrap(), Rank::WILDCARD)];
            c.fence(&allg, &[timeout(20)]).map_err(err("group fence"))?;
            check(
                c.fence(&[grp(size)], &[timeout(5)]) == Err(Status::ERR_BAD_PARAM),
                || "fence beyond the group".into(),
            )?;
            let peer = (me.rank.0 + 1) % size;
            let v = c
                .get(&grp(peer), "ep", &[timeout(10)])
                .map_err(err("get {grp,r}"))?;
            check(v == Value::Uint32(100 + peer), || format!("ep {v:?}"))?;
            let qual = [info(keys::GROUP_CONTEXT_ID, Value::Size(cid as usize))];
            let v = c
                .get(
                    &Proc::new(ns.clone(), Rank(peer)),
                    keys::GROUP_LOCAL_CID,
                    &qual,
                )
                .map_err(err("get local cid"))?;
            check(v == Value::Size(1000 + peer as usize), || {
                format!("lcid {v:?}")
            })?;
            let names = c
                .get(&me, keys::GROUP_NAMES, &[])
                .map_err(err("group names"))?;
            check(names.as_str() == Some("grpA,grpB"), || {
                format!("names {names:?}")
            })?;
            let q = |k: &str, quals: Vec<Info>| Query {
                keys: vec![std::ffi::CString::new(k).unwrap()],
                qualifiers: quals,
            };
            let (_, a) = c
                .query(&[q(keys::QUERY_NUM_GROUPS, vec![])])
                .map_err(err("query num"))?;
            check(a.first().map(|i| &i.value) == Some(&Value::Size(2)), || {
                format!("num {a:?}")
            })?;
            let (_, a) = c
                .query(&[q(
                    keys::QUERY_GROUP_MEMBERSHIP,
                    vec![info(keys::GROUP_ID, Value::string("grpA"))],
                )])
                .map_err(err("query membership"))?;
            check(
                a.first().and_then(|i| i.value.procs()) == Some(sorted),
                || format!("membership {a:?}"),
            )?;
            check(
                c.query(&[q(keys::QUERY_GROUP_MEMBERSHIP, vec![])]).is_err(),
                || "membership without id".into(),
            )?;
            c.group_destruct("grpB", &[timeout(20)])
                .map_err(err("destruct B"))?;
            c.group_destruct("grpA", &[timeout(20)])
                .map_err(err("destruct"))?;
            check(
                c.group_destruct("grpA", &[]) == Err(Status::ERR_NOT_FOUND),
                || "second destruct".into(),
            )?;
            check(c.fence(&allg, &[timeout(5)]).is_err(), || {
                "fence on a destructed group".into()
            })?;
        }
        "invite" | "decline" | "optional" => {
            let leader = Proc::new(ns.clone(), Rank(0));
            if me.rank.0 == 0 {
                let answers = listen(&c, &[ev::INVITE_ACCEPTED, ev::INVITE_DECLINED])?;
                let complete = listen(&c, &[ev::CONSTRUCT_COMPLETE])?;
                c.fence(&all, &[]).map_err(err("fence"))?;
                let others: Vec<Proc> = (1..size).map(|r| Proc::new(ns.clone(), Rank(r))).collect();
                let mut dirs = vec![timeout(20)];
                if role == "optional" {
                    dirs.push(info(keys::GROUP_OPTIONAL, Value::Bool(true)));
                }
                let r = c.group_invite("inv", &others, &dirs);
                // Every invitee's answer reached the leader as an event.
                for k in 0..others.len() {
                    answers
                        .recv_timeout(Duration::from_secs(10))
                        .map_err(|_| format!("{k} answers"))?;
                }
                match role {
                    "invite" => {
                        let g = r.map_err(err("invite"))?;
                        check(g.members.len() == size as usize, || format!("{g:?}"))?;
                        complete
                            .recv_timeout(Duration::from_secs(10))
                            .map_err(err("complete event"))?;
                        c.fence(
                            &[Proc::new(Nspace::new("inv").unwrap(), Rank::WILDCARD)],
                            &[timeout(20)],
                        )
                        .map_err(err("fence inv"))?;
                    }
                    "decline" => check(r.as_ref().err() == Some(&ev::CONSTRUCT_ABORT), || {
                        format!("decline: {r:?}")
                    })?,
                    _ => {
                        // Success, as OpenPMIx's; the membership says
                        // who is in.
                        let g = r.map_err(err("optional"))?;
                        check(g.status == Status::SUCCESS, || format!("{g:?}"))?;
                        check(!g.members.contains(&Proc::new(ns.clone(), Rank(1))), || {
                            format!("{g:?}")
                        })?;
                    }
                }
            } else {
                let invited = listen(&c, &[ev::INVITED])?;
                let aborted = listen(&c, &[ev::CONSTRUCT_ABORT])?;
                c.fence(&all, &[]).map_err(err("fence"))?;
                let e = invited
                    .recv_timeout(Duration::from_secs(20))
                    .map_err(err("invited"))?;
                check(e.1 == leader, || format!("source {:?}", e.1))?;
                let opt = if role != "invite" && me.rank.0 == 1 {
                    GroupOpt::Decline
                } else {
                    GroupOpt::Accept
                };
                let r = c.group_join("inv", &leader, opt, &[]);
                match (role, opt) {
                    (_, GroupOpt::Decline) => {
                        let g = r.map_err(err("decline"))?;
                        check(g.members.is_empty(), || format!("{g:?}"))?;
                        if role == "decline" {
                            aborted
                                .recv_timeout(Duration::from_secs(20))
                                .map_err(err("abort event"))?;
                        }
                    }
                    ("decline", _) => {
                        check(r.as_ref().err() == Some(&ev::CONSTRUCT_ABORT), || {
                            format!("join: {r:?}")
                        })?
                    }
                    ("invite", _) => {
                        let g = r.map_err(err("join"))?;
                        check(g.members.len() == size as usize, || format!("{g:?}"))?;
                        c.fence(
                            &[Proc::new(Nspace::new("inv").unwrap(), Rank::WILDCARD)],
                            &[timeout(20)],
                        )
                        .map_err(err("fence inv"))?;
                    }
                    _ => {
                        // It joined: success.
                        let g = r.map_err(err("join"))?;
                        check(g.status == Status::SUCCESS, || format!("{g:?}"))?;
                    }
                }
            }
        }
        "leave" => {
            let left = listen(&c, &[ev::LEFT])?;
            c.group_construct("lv", &all, &[timeout(20)])
                .map_err(err("construct"))?;
            let last = Proc::new(ns.clone(), Rank(size - 1));
            if me == last {
                c.group_leave("lv", &[]).map_err(err("leave"))?;
                check(c.group_leave("lv", &[]).is_err(), || "second leave".into())?;
            } else {
                let e = left
                    .recv_timeout(Duration::from_secs(20))
                    .map_err(err("left event"))?;
                check(affected(&e.2) == Some(last.clone()), || format!("{e:?}"))?;
                let survivors = [Proc::new(Nspace::new("lv").unwrap(), Rank::WILDCARD)];
                c.fence(&survivors, &[timeout(20)])
                    .map_err(err("fence after leave"))?;
                check(
                    c.group("lv").map(|g| g.members.len()) == Some(size as usize - 1),
                    || "table after leave".into(),
                )?;
            }
        }
        "lost" | "lost_optional" => {
            if me.rank.0 == size - 1 {
                // Leaves the job before contributing (finalized: pmixrun
                // lets a rank that finalized go).
                c.fence(&all, &[]).map_err(err("fence"))?;
                c.finalize().map_err(err("finalize"))?;
                std::process::exit(0);
            }
            c.fence(&all, &[]).map_err(err("fence"))?;
            let mut dirs = vec![timeout(20)];
            if role == "lost_optional" {
                dirs.push(info(keys::GROUP_OPTIONAL, Value::Bool(true)));
            }
            let r = c.group_construct("gone", &all, &dirs);
            if role == "lost" {
                check(r.as_ref().err() == Some(&ev::CONSTRUCT_ABORT), || {
                    format!("{r:?}")
                })?;
            } else {
                let g = r.map_err(err("optional"))?;
                check(g.status == Status::ERR_PARTIAL_SUCCESS, || format!("{g:?}"))?;
                check(g.members.len() == size as usize - 1, || format!("{g:?}"))?;
            }
        }
        "timeout" => {
            if me.rank.0 == 0 {
                let r = c.group_construct("late", &all, &[timeout(1)]);
                check(r.as_ref().err() == Some(&Status::ERR_TIMEOUT), || {
                    format!("{r:?}")
                })?;
                c.fence(&all, &[]).map_err(err("fence"))?;
            } else {
                c.fence(&all, &[]).map_err(err("fence"))?;
                // Late: fails at once, forms nothing.
                let r = c.group_construct("late", &all, &[timeout(5)]);
                check(r.is_err(), || format!("late: {r:?}"))?;
            }
        }
        "bootstrap" => {
            // Ranks 0 and 1 lead, each knowing only the number of leaders;
            // rank 0 adds the others, who call with no procs.
            let mut dirs = vec![timeout(20), info(keys::GROUP_BOOTSTRAP, Value::Size(2))];
            let g = if me.rank.0 < 2 {
                if me.rank.0 == 0 {
                    let added: Vec<Proc> =
                        (2..size).map(|r| Proc::new(ns.clone(), Rank(r))).collect();
                    dirs.push(info(keys::GROUP_ADD_MEMBERS, Value::proc_array(&added)));
                }
                c.group_construct("boot", std::slice::from_ref(&me), &dirs)
            } else {
                c.group_construct("boot", &[], &[timeout(20)])
            }
            .map_err(err("bootstrap"))?;
            check(g.members.len() == size as usize, || format!("{g:?}"))?;
            c.group_destruct("boot", &[timeout(20)])
                .map_err(err("destruct"))?;
        }
        "add_members" => {
            // A collective of ranks 0 and 1, who add the others.
            let leaders = [
                Proc::new(ns.clone(), Rank(0)),
                Proc::new(ns.clone(), Rank(1)),
            ];
            let added: Vec<Proc> = (2..size).map(|r| Proc::new(ns.clone(), Rank(r))).collect();
            let g = if me.rank.0 < 2 {
                let dirs = [
                    timeout(20),
                    info(keys::GROUP_ADD_MEMBERS, Value::proc_array(&added)),
                ];
                c.group_construct("add", &leaders, &dirs)
            } else {
                c.group_construct("add", &[], &[timeout(20)])
            }
            .map_err(err("add members"))?;
            check(g.members.len() == size as usize, || format!("{g:?}"))?;
        }
        "mismatch" => {
            // Rank 0 starts "mx" over {0,1}; while it gathers, rank 2
            // claims "mx" over {1,2}: refused, never mixed in; then rank 1
            // completes "mx" with rank 0.
            let set01 = [
                Proc::new(ns.clone(), Rank(0)),
                Proc::new(ns.clone(), Rank(1)),
            ];
            match me.rank.0 {
                0 => {
                    let (tx, rx) = mpsc::channel();
                    c.group_construct_nb(
                        "mx",
                        &set01,
                        &[timeout(20)],
                        Box::new(move |r| {
                            let _ = tx.send(r.map(|g| g.members.len()));
                        }),
                    )
                    .map_err(err("construct"))?;
                    c.fence(&all, &[]).map_err(err("fence"))?;
                    c.fence(&all, &[]).map_err(err("fence"))?;
                    let r = rx
                        .recv_timeout(Duration::from_secs(20))
                        .map_err(err("wait"))?;
                    check(r == Ok(2), || format!("mx: {r:?}"))?;
                }
                1 => {
                    c.fence(&all, &[]).map_err(err("fence"))?;
                    c.fence(&all, &[]).map_err(err("fence"))?;
                    let r = c.group_construct("mx", &set01, &[timeout(20)]);
                    check(r.as_ref().map(|g| g.members.len()) == Ok(2), || {
                        format!("mx: {r:?}")
                    })?;
                }
                _ => {
                    c.fence(&all, &[]).map_err(err("fence"))?;
                    let set = [
                        Proc::new(ns.clone(), Rank(1)),
                        Proc::new(ns.clone(), Rank(2)),
                    ];
                    let r = c.group_construct("mx", &set, &[timeout(3)]);
                    check(r.as_ref().err() == Some(&Status::ERR_BAD_PARAM), || {
                        format!("mixed in: {r:?}")
                    })?;
                    c.fence(&all, &[]).map_err(err("fence"))?;
                }
            }
            let other = [Proc::new(ns.clone(), Rank(5 + size))];
            check(
                c.group_construct("nm", &other, &[]).err() == Some(Status::ERR_BAD_PARAM),
                || "a caller outside its own set".into(),
            )?;
        }
        "notify_abort" => {
            // Rank 0 (the leader) is in the construct when the last rank
            // finalizes; the leader's handler of PMIX_GROUP_MEMBER_FAILED
            // returns PMIX_GROUP_CONSTRUCT_ABORT, which aborts it for
            // everyone: rank 1, calling after the abort, fails too.
            let dirs = [
                timeout(20),
                info(keys::GROUP_NOTIFY_TERMINATION, Value::Bool(true)),
                info(keys::GROUP_FT_COLLECTIVE, Value::Bool(true)),
                info(keys::GROUP_LEADER, Value::Bool(me.rank.0 == 0)),
            ];
            match me.rank.0 {
                0 => {
                    c.register_event_handler(
                        &[ev::MEMBER_FAILED],
                        &[],
                        std::sync::Arc::new(|call: pmix::events::HandlerCall| {
                            call.done.complete(ev::CONSTRUCT_ABORT, Vec::new());
                        }),
                    )
                    .map_err(err("register"))?;
                    let (tx, rx) = mpsc::channel();
                    c.group_construct_nb(
                        "na",
                        &all,
                        &dirs,
                        Box::new(move |r| {
                            let _ = tx.send(r.map(|_| ()));
                        }),
                    )
                    .map_err(err("construct"))?;
                    c.fence(&all, &[]).map_err(err("fence"))?;
                    let r = rx
                        .recv_timeout(Duration::from_secs(20))
                        .map_err(err("wait"))?;
                    check(r == Err(ev::CONSTRUCT_ABORT), || format!("leader: {r:?}"))?;
                }
                1 => {
                    let aborted = listen(&c, &[ev::CONSTRUCT_ABORT])?;
                    c.fence(&all, &[]).map_err(err("fence"))?;
                    aborted
                        .recv_timeout(Duration::from_secs(20))
                        .map_err(err("abort event"))?;
                    let r = c.group_construct("na", &all, &dirs);
                    check(r.as_ref().err() == Some(&ev::CONSTRUCT_ABORT), || {
                        format!("{r:?}")
                    })?;
                }
                _ => {
                    c.fence(&all, &[]).map_err(err("fence"))?;
                    c.finalize().map_err(err("finalize"))?;
                    println!("groups {} ok", me.rank.0);
                    std::process::exit(0);
                }
            }
        }
        "destruct_lost" | "destruct_lost_notified" => {
            let mut dirs = vec![timeout(20)];
            if role == "destruct_lost_notified" {
                dirs.push(info(keys::GROUP_NOTIFY_TERMINATION, Value::Bool(true)));
            }
            c.group_construct("dl", &all, &dirs)
                .map_err(err("construct"))?;
            if me.rank.0 == size - 1 {
                c.finalize().map_err(err("finalize"))?;
                println!("groups {} ok", me.rank.0);
                std::process::exit(0);
            }
            let r = c.group_destruct("dl", &[timeout(20)]);
            if role == "destruct_lost" {
                check(r == Err(Status::ERR_LOST_CONNECTION), || format!("{r:?}"))?;
            } else {
                r.map_err(err("destruct"))?;
            }
        }
        "invite_timeout" => {
            let leader = Proc::new(ns.clone(), Rank(0));
            if me.rank.0 == 0 {
                let failed = listen(&c, &[ev::INVITE_FAILED])?;
                c.fence(&all, &[]).map_err(err("fence"))?;
                let others: Vec<Proc> = (1..size).map(|r| Proc::new(ns.clone(), Rank(r))).collect();
                let r = c.group_invite("it", &others, &[timeout(1)]);
                check(r.as_ref().err() == Some(&ev::CONSTRUCT_ABORT), || {
                    format!("{r:?}")
                })?;
                failed
                    .recv_timeout(Duration::from_secs(10))
                    .map_err(err("invite failed event"))?;
                c.fence(&all, &[]).map_err(err("fence"))?;
            } else {
                // Never answers.
                c.fence(&all, &[]).map_err(err("fence"))?;
                c.fence(&all, &[]).map_err(err("fence"))?;
                let late = c.group_join("it", &leader, GroupOpt::Accept, &[]);
                check(late.is_err(), || format!("late join: {late:?}"))?;
            }
        }
        "local_only_nb" => {
            let (tx, rx) = mpsc::channel();
            let tx2 = tx.clone();
            c.group_construct_nb(
                "n1",
                &all,
                &[info(keys::GROUP_LOCAL_ONLY, Value::Bool(true)), timeout(20)],
                Box::new(move |r| {
                    let _ = tx.send(r.map(|g| g.members.len()));
                }),
            )
            .map_err(err("nb 1"))?;
            c.group_construct_nb(
                "n2",
                &all,
                &[timeout(20)],
                Box::new(move |r| {
                    let _ = tx2.send(r.map(|g| g.members.len()));
                }),
            )
            .map_err(err("nb 2"))?;
            for _ in 0..2 {
                let r = rx
                    .recv_timeout(Duration::from_secs(20))
                    .map_err(err("nb wait"))?;
                check(r == Ok(size as usize), || format!("{r:?}"))?;
            }
            check(rx.recv_timeout(Duration::from_millis(100)).is_err(), || {
                "called back twice".into()
            })?;
        }
        "leader_fails" => {
            // Rank 0 leads a construct (PMIX_GROUP_LEADER) and leaves the
            // job after contributing; rank 1's handler of
            // PMIX_GROUP_LEADER_FAILED claims the leadership; the
            // participants get PMIX_GROUP_LEADER_SELECTED; the construct
            // completes with rank 2 (rank 0's contribution stands).
            let dirs = |lead: bool| {
                vec![
                    timeout(20),
                    info(keys::GROUP_FT_COLLECTIVE, Value::Bool(true)),
                    info(keys::GROUP_LEADER, Value::Bool(lead)),
                ]
            };
            let pair = [
                Proc::new(ns.clone(), Rank(1)),
                Proc::new(ns.clone(), Rank(2)),
            ];
            match me.rank.0 {
                0 => {
                    c.group_construct_nb("lf", &all, &dirs(true), Box::new(|_| {}))
                        .map_err(err("construct"))?;
                    c.fence(&all, &[]).map_err(err("fence"))?;
                    c.finalize().map_err(err("finalize"))?;
                    println!("groups 0 ok");
                    std::process::exit(0);
                }
                1 => {
                    c.register_event_handler(
                        &[ev::LEADER_FAILED],
                        &[],
                        std::sync::Arc::new(|call: pmix::events::HandlerCall| {
                            let claim = common::info(keys::GROUP_LEADER, Value::Bool(true));
                            call.done.complete(Status::SUCCESS, vec![claim]);
                        }),
                    )
                    .map_err(err("register"))?;
                    let selected = listen(&c, &[ev::LEADER_SELECTED])?;
                    let (tx, rx) = mpsc::channel();
                    c.group_construct_nb(
                        "lf",
                        &all,
                        &dirs(false),
                        Box::new(move |r| {
                            let _ = tx.send(r.map(|g| g.members.len()));
                        }),
                    )
                    .map_err(err("construct"))?;
                    c.fence(&all, &[]).map_err(err("fence"))?;
                    let e = selected
                        .recv_timeout(Duration::from_secs(20))
                        .map_err(err("leader selected"))?;
                    check(affected(&e.2) == Some(me.clone()), || format!("{e:?}"))?;
                    c.fence(&pair, &[timeout(20)]).map_err(err("fence 1,2"))?;
                    let r = rx
                        .recv_timeout(Duration::from_secs(20))
                        .map_err(err("wait"))?;
                    check(r == Ok(size as usize), || format!("construct: {r:?}"))?;
                }
                _ => {
                    c.fence(&all, &[]).map_err(err("fence"))?;
                    c.fence(&pair, &[timeout(20)]).map_err(err("fence 1,2"))?;
                    let g = c
                        .group_construct("lf", &all, &dirs(false))
                        .map_err(err("construct"))?;
                    check(g.members.len() == size as usize, || format!("{g:?}"))?;
                }
            }
        }
        other => return Err(format!("unknown scenario {other}")),
    }
    println!("groups {} ok", me.rank.0);
    c.finalize().map_err(err("finalize"))
}

fn job(role: &str, n: u32) {
    let program = common::this_test_as_program("child_process");
    let (ok, out, errs) = common::pmixrun_job(n, &program, &[(ROLE, role)], "60");
    if role.starts_with("lost") || role.starts_with("notify") || role.starts_with("destruct_lost") {
        for r in 0..n - 1 {
            assert!(out.contains(&format!("groups {r} ok")), "{out}\n{errs}");
        }
        return;
    }
    common::assert_ranks_ok(n, ok, &out, &errs, "groups");
}

#[test]
fn collective_construct_with_context_id_at_2_4_8() {
    for n in [2, 4, 8] {
        job("collective", n);
    }
}

#[test]
fn invite_join_accept() {
    job("invite", 4);
}

#[test]
fn invite_decline_aborts() {
    job("decline", 3);
}

#[test]
fn invite_decline_optional_succeeds_on_the_accepters() {
    job("optional", 3);
}

#[test]
fn leave_tells_the_others() {
    job("leave", 3);
}

#[test]
fn member_lost_before_contributing_aborts() {
    job("lost", 3);
}

#[test]
fn member_lost_optional_is_partial() {
    job("lost_optional", 3);
}

#[test]
fn timeout_then_late_arrival() {
    job("timeout", 2);
}

#[test]
fn c13_bootstrap_with_added_members() {
    job("bootstrap", 4);
}

#[test]
fn c14_collective_with_added_members() {
    job("add_members", 4);
}

#[test]
fn c11_two_sets_with_one_id_are_never_mixed() {
    job("mismatch", 3);
}

#[test]
fn c16_a_handler_returning_construct_abort_aborts_for_everyone() {
    job("notify_abort", 3);
}

#[test]
fn c18_destruct_with_a_departed_member() {
    job("destruct_lost", 3);
    job("destruct_lost_notified", 3);
}

#[test]
fn c21_an_invitee_that_never_answers_times_out() {
    job("invite_timeout", 3);
}

#[test]
fn c02_c10_non_blocking_and_local_only_constructs_call_back_once() {
    job("local_only_nb", 4);
}

#[test]
fn c19_a_failed_leader_is_replaced_by_the_one_that_claims_it() {
    job("leader_fails", 3);
}
