//! Tests of the publish/lookup datastore.

use super::*;
use crate::Rank;
use std::sync::mpsc;

fn who(ns: &str, r: u32) -> Participant {
    Participant::local(Proc::new(Nspace::new(ns).unwrap(), Rank(r)))
}
fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}
fn info(k: &str, v: Value) -> Info {
    Info::new(key(k), v)
}
fn lookup(
    d: &PublishedData,
    w: &Participant,
    k: &[&str],
    infos: &[Info],
) -> Result<Vec<PublishedValue>, Status> {
    let (tx, rx) = mpsc::channel();
    let keys: Vec<Key> = k.iter().map(|s| key(s)).collect();
    d.lookup(w, &keys, infos, Box::new(move |r| tx.send(r).unwrap()));
    rx.recv().unwrap()
}

#[test]
fn publish_then_lookup_returns_the_publisher() {
    let d = PublishedData::new();
    let a = who("a", 0);
    d.publish(&a, &[info("svc", Value::Int(5))]).unwrap();
    let got = lookup(&d, &who("a", 1), &["svc"], &[]).unwrap();
    assert_eq!(got[0].publisher, a.proc);
    assert_eq!(got[0].value, Value::Int(5));
    assert_eq!(
        lookup(&d, &who("a", 1), &["nope"], &[]),
        Err(Status::ERR_NOT_FOUND)
    );
}

#[test]
fn a_duplicate_key_on_the_same_range_is_refused_whole() {
    let d = PublishedData::new();
    d.publish(&who("a", 0), &[info("k", Value::Int(1))])
        .unwrap();
    let r = d.publish(
        &who("a", 1),
        &[info("j", Value::Int(2)), info("k", Value::Int(3))],
    );
    assert_eq!(r, Err(Status::ERR_DUPLICATE_KEY));
    assert_eq!(d.len(), 1);
    // Another range is another set of processes.
    let ns = info(keys::RANGE, Value::DataRange(3));
    d.publish(&who("a", 1), &[info("k", Value::Int(3)), ns.clone()])
        .unwrap();
    d.publish(&who("b", 0), &[info("k", Value::Int(4)), ns])
        .unwrap();
}

#[test]
fn ranges_constrain_both_sides() {
    let d = PublishedData::new();
    let ns = info(keys::RANGE, Value::DataRange(3));
    d.publish(&who("a", 0), &[info("k", Value::Int(1)), ns])
        .unwrap();
    assert!(lookup(&d, &who("a", 1), &["k"], &[]).is_ok());
    assert_eq!(
        lookup(&d, &who("b", 0), &["k"], &[]),
        Err(Status::ERR_NOT_FOUND)
    );
    let pl = info(keys::RANGE, Value::DataRange(7));
    assert_eq!(
        lookup(&d, &who("a", 1), &["k"], &[pl]),
        Err(Status::ERR_NOT_FOUND)
    );
}

#[test]
fn access_ids_are_checked() {
    let d = PublishedData::new();
    let uid = |u: u32| info(keys::USERID, Value::Uint32(u));
    d.publish(&who("a", 0), &[info("k", Value::Int(1)), uid(10)])
        .unwrap();
    assert_eq!(
        lookup(&d, &who("a", 1), &["k"], &[uid(11)]),
        Err(Status::ERR_NO_PERMISSIONS)
    );
    assert!(lookup(&d, &who("a", 1), &["k"], &[uid(10)]).is_ok());
}

#[test]
fn a_waiting_lookup_is_answered_by_the_publish() {
    let d = PublishedData::new();
    let (tx, rx) = mpsc::channel();
    let w = info(keys::WAIT, Value::Int(0));
    d.lookup(
        &who("a", 1),
        &[key("x"), key("y")],
        &[w],
        Box::new(move |r| tx.send(r).unwrap()),
    );
    d.publish(&who("a", 0), &[info("x", Value::Int(1))])
        .unwrap();
    assert!(rx.try_recv().is_err());
    d.publish(&who("a", 0), &[info("y", Value::Int(2))])
        .unwrap();
    assert_eq!(rx.try_recv().unwrap().unwrap().len(), 2);
}

#[test]
fn a_lookup_waiting_for_n_keys_is_answered_at_n() {
    let d = PublishedData::new();
    let (tx, rx) = mpsc::channel();
    let w = info(keys::WAIT, Value::Int(1));
    d.lookup(
        &who("a", 1),
        &[key("x"), key("y")],
        &[w],
        Box::new(move |r| tx.send(r).unwrap()),
    );
    assert!(rx.try_recv().is_err());
    d.publish(&who("b", 0), &[info("y", Value::Int(2))])
        .unwrap();
    let got = rx.try_recv().unwrap().unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].key, key("y"));
}

#[test]
fn a_lookup_of_a_terminated_requester_is_dropped() {
    let d = PublishedData::new();
    let (tx, rx) = mpsc::channel::<Result<Vec<PublishedValue>, Status>>();
    let w = info(keys::WAIT, Value::Bool(true));
    d.lookup(
        &who("a", 1),
        &[key("x")],
        &[w],
        Box::new(move |r| tx.send(r).unwrap()),
    );
    d.proc_terminated(&who("a", 1).proc);
    // The callback was dropped unanswered: the channel is closed.
    assert!(rx.recv().is_err());
}

#[test]
fn a_waiting_lookup_times_out() {
    let d = PublishedData::new();
    let infos = [
        info(keys::WAIT, Value::Bool(true)),
        info(keys::TIMEOUT, Value::Int(1)),
    ];
    assert_eq!(
        lookup(&d, &who("a", 0), &["never"], &infos),
        Err(Status::ERR_TIMEOUT)
    );
}

#[test]
fn first_read_and_persistence_and_unpublish() {
    let d = PublishedData::new();
    let fr = info(keys::PERSISTENCE, Value::Persist(1));
    d.publish(&who("a", 0), &[info("once", Value::Int(1)), fr])
        .unwrap();
    assert!(lookup(&d, &who("a", 1), &["once"], &[]).is_ok());
    assert_eq!(
        lookup(&d, &who("a", 1), &["once"], &[]),
        Err(Status::ERR_NOT_FOUND)
    );
    let pp = info(keys::PERSISTENCE, Value::Persist(2));
    d.publish(&who("a", 0), &[info("p", Value::Int(1)), pp])
        .unwrap();
    d.publish(&who("a", 0), &[info("q", Value::Int(1))])
        .unwrap();
    d.proc_terminated(&who("a", 0).proc);
    assert_eq!(d.len(), 1);
    d.unpublish(&who("a", 1), None, &[]).unwrap();
    assert_eq!(d.len(), 1, "only the owner unpublishes");
    d.unpublish(&who("a", 0), Some(&[key("q")]), &[]).unwrap();
    assert!(d.is_empty());
}
