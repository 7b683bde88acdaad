//! The tracker's rules, on made-up participants (no server, no host).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use mio::Token;

use super::tracker::{includes, normalize, Arrival, Call, Collectives, Stage};
use super::Kind;
use crate::server::clients::connections::Caller;
use crate::server::timers::{TimerKey, Timers};
use crate::{Nspace, Proc, Rank, Status};

fn p(ns: &str, r: u32) -> Proc {
    Proc::new(Nspace::new(ns).unwrap(), Rank(r))
}

fn caller(n: usize) -> Caller {
    Caller {
        token: Token(n),
        id: n as u32,
    }
}

fn call(kind: Kind, procs: Vec<Proc>, deadline: Option<Instant>) -> Call {
    Call {
        kind,
        procs,
        infos: Vec::new(),
        collect: false,
        deadline,
        group: None,
        groups: Vec::new(),
    }
}

/// Local processes: ranks 0..3 of "a".
fn local(set: &[Proc]) -> BTreeSet<Proc> {
    let mut out = BTreeSet::new();
    for q in set {
        if q.rank == Rank::WILDCARD {
            out.extend((0..3).map(|r| Proc::new(q.nspace.clone(), Rank(r))));
        } else {
            out.insert(q.clone());
        }
    }
    out
}

fn all_a() -> Vec<Proc> {
    vec![Proc::new(Nspace::new("a").unwrap(), Rank::WILDCARD)]
}

#[test]
fn sets_normalize_to_sorted_unique() {
    let caller = p("a", 1);
    assert_eq!(
        normalize(vec![p("b", 2), p("a", 1), p("b", 2)], &caller),
        vec![p("a", 1), p("b", 2)]
    );
    assert_eq!(normalize(vec![], &caller), all_a());
}

#[test]
fn wildcard_includes_every_rank_of_its_namespace() {
    let set = all_a();
    assert!(includes(&set, &p("a", 5)));
    assert!(!includes(&set, &p("b", 5)));
}

/// An engine over namespace "a" (ranks 0..3 local), with the processes
/// in `gone` departed.
#[derive(Default)]
struct Engine {
    c: Collectives,
    t: Timers,
    gone: Vec<Proc>,
}

impl Engine {
    /// Rank `r` of "a" (on connection `token`) calls `kind` over the
    /// whole of "a".
    fn arrive_on(&mut self, token: usize, r: u32, kind: Kind, dl: Option<Instant>) -> Arrival {
        let gone = self.gone.clone();
        let departed = move |q: &Proc| gone.contains(q);
        let call = call(kind, all_a(), dl);
        self.c.arrive(
            caller(token),
            &p("a", r),
            call,
            local,
            departed,
            &mut self.t,
        )
    }

    fn arrive(&mut self, r: u32, kind: Kind) -> Arrival {
        self.arrive_on(r as usize, r, kind, None)
    }
}

#[test]
fn ready_once_every_local_participant_arrived_and_kinds_do_not_mix() {
    for kind in [Kind::Fence, Kind::Connect, Kind::Disconnect] {
        let mut e = Engine::default();
        for r in 0..2 {
            assert!(matches!(e.arrive(r, kind), Arrival::Waiting));
        }
        // The same set in another kind is another collective.
        let other = if kind == Kind::Fence {
            Kind::Connect
        } else {
            Kind::Fence
        };
        assert!(matches!(e.arrive_on(9, 2, other, None), Arrival::Waiting));
        let Arrival::Ready(cid) = e.arrive(2, kind) else {
            panic!("not ready")
        };
        e.c.at_host(cid, 7);
        assert!(matches!(e.c.stage(cid), Some(Stage::AtHost(7))));
        // At the host, a new call over the set is a new collective.
        assert!(matches!(e.arrive(0, kind), Arrival::Waiting));
        let done = e.c.finish(cid, &mut e.t).unwrap();
        assert_eq!(done.callers().count(), 3);
        assert!(e.c.stage(cid).is_none());
    }
}

#[test]
fn a_duplicate_arrival_or_a_caller_outside_the_set_is_refused() {
    let mut e = Engine::default();
    assert!(matches!(e.arrive(0, Kind::Fence), Arrival::Waiting));
    let refused = |a| matches!(a, Arrival::Refused(s) if s == Status::ERR_BAD_PARAM);
    assert!(refused(e.arrive(0, Kind::Fence)));
    let outside = call(Kind::Fence, all_a(), None);
    let none = |_: &Proc| false;
    assert!(refused(e.c.arrive(
        caller(5),
        &p("b", 0),
        outside,
        local,
        none,
        &mut e.t
    )));
}

#[test]
fn a_departed_participant_fails_the_collective_and_late_arrivals_fail_at_once() {
    let mut e = Engine::default();
    assert!(matches!(e.arrive(0, Kind::Connect), Arrival::Waiting));
    // Rank 1 is lost before arriving.
    let ids = e.c.blocked_by(&p("a", 1), false);
    assert_eq!(ids.len(), 1);
    let f =
        e.c.fail(ids[0], Status::ERR_LOST_CONNECTION, &mut e.t)
            .unwrap();
    assert_eq!(f.arrived, vec![caller(0)]);
    assert!(
        e.c.fail(ids[0], Status::ERR_TIMEOUT, &mut e.t).is_none(),
        "fails once"
    );
    e.gone.push(p("a", 1));
    let gone = |q: &Proc| q == &p("a", 1);
    e.c.retire(ids[0], gone);
    assert!(e.c.stage(ids[0]).is_some(), "rank 2 may still arrive");
    let late = e.arrive(2, Kind::Connect);
    assert!(matches!(late, Arrival::Late(_, s) if s == Status::ERR_LOST_CONNECTION));
    e.c.retire(ids[0], gone);
    assert!(e.c.stage(ids[0]).is_none(), "everyone accounted for");
}

#[test]
fn arriving_after_a_departure_fails_and_a_finalized_arrival_does_not_block() {
    let mut e = Engine {
        gone: vec![p("a", 1)],
        ..Default::default()
    };
    let a = e.arrive(0, Kind::Fence);
    assert!(matches!(a, Arrival::Fail(_, s) if s == Status::ERR_LOST_CONNECTION));
    let mut e = Engine::default();
    e.arrive(0, Kind::Fence);
    assert!(
        e.c.blocked_by(&p("a", 0), true).is_empty(),
        "finalized after arriving"
    );
    assert_eq!(
        e.c.blocked_by(&p("a", 0), false).len(),
        1,
        "lost after arriving"
    );
}

#[test]
fn the_shortest_deadline_is_armed_and_disarmed_when_the_collective_ends() {
    let mut e = Engine::default();
    let now = Instant::now();
    e.arrive_on(0, 0, Kind::Fence, Some(now + Duration::from_secs(10)));
    e.arrive_on(1, 1, Kind::Fence, Some(now + Duration::from_secs(1)));
    assert_eq!(e.t.next_in(now), Some(Duration::from_secs(1)));
    let cid = 1;
    let later = now + Duration::from_secs(2);
    assert_eq!(e.t.pop_expired(later), Some(TimerKey::Collective(cid)));
    assert_eq!(e.t.pop_expired(later), None, "the longer one was disarmed");
    assert!(e.c.fail(cid, Status::ERR_TIMEOUT, &mut e.t).is_some());
    assert_eq!(e.t.next_in(later), None);
}

#[test]
fn a_member_that_leaves_a_group_is_no_longer_waited_for() {
    let mut e = Engine::default();
    let members = vec![p("a", 0), p("a", 1), p("a", 2)];
    let over_group = |procs: Vec<Proc>| Call {
        groups: vec!["g".into()],
        ..call(Kind::Fence, procs, None)
    };
    let no = |_: &Proc| false;
    let a = e.c.arrive(
        caller(0),
        &p("a", 0),
        over_group(members.clone()),
        local,
        no,
        &mut e.t,
    );
    assert!(matches!(a, Arrival::Waiting));
    // Another group's leave, or a process outside the set: nothing.
    assert!(e.c.member_left("h", &p("a", 1)).is_empty());
    assert!(e.c.member_left("g", &p("a", 5)).is_empty());
    assert!(
        e.c.member_left("g", &p("a", 1)).is_empty(),
        "rank 2 is still expected"
    );
    // Rank 2 arrives over the shrunken set: the same collective.
    let a = e.c.arrive(
        caller(2),
        &p("a", 2),
        over_group(vec![p("a", 0), p("a", 2)]),
        local,
        no,
        &mut e.t,
    );
    let Arrival::Ready(cid) = a else {
        panic!("not ready")
    };
    assert_eq!(e.c.get(cid).unwrap().procs(), vec![p("a", 0), p("a", 2)]);
    // A set named explicitly (no group) does not follow the group.
    let mut e = Engine::default();
    e.c.arrive(
        caller(0),
        &p("a", 0),
        call(Kind::Fence, members, None),
        local,
        no,
        &mut e.t,
    );
    assert!(e.c.member_left("g", &p("a", 1)).is_empty());
    assert_eq!(e.c.get(1).unwrap().procs().len(), 3);
}
