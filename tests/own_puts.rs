//! Gets of this process's own puts through the Rust API
//! (`Client::get_with`), in ranks of this test binary under `pmixrun`:
//! - the core answers them itself ([`Answer::Own`]), borrowing the value
//!   (no copy) before any commit, with a version that grows at each put
//!   of the key (`Client::own_put`, `None` for a reserved key, which the
//!   job data answers, and for another process);
//! - threads that get a key while another thread puts it again and again
//!   never see a value older than one they saw before, nor a torn one;
//! - after a collecting fence the newest put is still the answer here,
//!   and the peer reads the same value.
//!
//! Every job runs under `pmixrun --timeout`; readers stop at a deadline;
//! nothing sleeps to synchronize.

mod common;

use std::time::{Duration, Instant};

use pmix::client::{Answer, Client, ProcRef, Scope};
use pmix::{keys, Info, Proc, Rank, Value};

const LIMIT: &str = "120";
const ROLE: &str = "OWN_PUTS_TEST_ROLE";
const KEY: &str = "own.race";
/// Puts of `KEY` by the writer thread.
const PUTS: u64 = 20_000;
const READERS: usize = 3;

/// The value of the `i`-th put: `i`, then filler bytes all equal to a
/// function of `i` (a torn value would not agree with itself).
fn value(i: u64) -> Value {
    let mut b = i.to_le_bytes().to_vec();
    b.resize(24 + (i % 48) as usize, (i % 251) as u8);
    Value::ByteObject(b)
}

/// The `i` of a whole value of [`value`], else `None`.
fn index_of(v: &Value) -> Option<u64> {
    let Value::ByteObject(b) = v else {
        return None;
    };
    let i = u64::from_le_bytes(b.get(..8)?.try_into().ok()?);
    (b.len() == 24 + (i % 48) as usize && b[8..].iter().all(|&x| x == (i % 251) as u8)).then_some(i)
}

/// `KEY`'s answer here: its index and version, read in place.
fn own(c: &Client, me: &Proc) -> Result<(u64, u64), String> {
    c.get_with(me, KEY, &[], |a| match a {
        Answer::Own { value, version } => index_of(value)
            .map(|i| (i, version))
            .ok_or_else(|| format!("torn value {value:?}")),
        _ => Err("not answered by the own puts".to_owned()),
    })
    .map_err(|s| format!("get: {s:?}"))?
}

/// The version of the put that answers a get of `key` for `target`.
fn version(c: &Client, target: &Proc, key: &str) -> Option<u64> {
    c.own_put(ProcRef::from(target), key.as_bytes())
        .map(|k| k.version())
}

/// Gets `KEY` until it shows the last put (or the deadline passes),
/// checking that it never goes back.
fn reader(c: &Client, me: &Proc, deadline: Instant) -> Result<u64, String> {
    let (mut last, mut gets) = (0u64, 0u64);
    while last < PUTS {
        if Instant::now() > deadline {
            return Err(format!("reader stuck at {last} after {gets} gets"));
        }
        let (i, _) = own(c, me)?;
        if i < last {
            return Err(format!("went back from put {last} to put {i}"));
        }
        last = i;
        gets += 1;
    }
    Ok(gets)
}

fn rank() -> Result<(), String> {
    let c = Client::init(&[]).map_err(|s| format!("init: {s:?}"))?;
    let me = c.proc().clone();
    let size = c.job_size().map_err(|s| format!("job size: {s:?}"))?;
    let put = |k: &str, v: Value| {
        c.put(Scope::Global, k, v)
            .map_err(|s| format!("put: {s:?}"))
    };

    // Before any commit: the put is the answer, borrowed, and its version
    // grows with each put of the key.
    if version(&c, &me, KEY).is_some() {
        return Err("a version before any put".into());
    }
    put(KEY, value(0))?;
    let (i0, v0) = own(&c, &me)?;
    if i0 != 0 || version(&c, &me, KEY) != Some(v0) {
        return Err(format!("first put: index {i0}, version {v0}"));
    }
    put("own.other", Value::Uint32(7))?;
    put(KEY, value(0))?;
    let (_, v1) = own(&c, &me)?;
    if v1 <= v0 || version(&c, &me, KEY) != Some(v1) {
        return Err(format!("a new put kept version {v0} (now {v1})"));
    }
    // Not for another process's gets.
    let peer = Proc::new(me.nspace.clone(), Rank((me.rank.0 + 1) % size));
    if version(&c, &peer, KEY).is_some() {
        return Err("a put answers for a peer".into());
    }
    // A reserved key is the job data's, whatever this process puts.
    c.put(
        Scope::Internal,
        keys::HOSTNAME,
        Value::string("not-the-host"),
    )
    .map_err(|s| format!("put: {s:?}"))?;
    if version(&c, &me, keys::HOSTNAME).is_some() {
        return Err("a put answers a reserved key".into());
    }

    // Readers racing a writer.
    let deadline = Instant::now() + Duration::from_secs(60);
    let gets = std::thread::scope(|s| {
        let readers: Vec<_> = (0..READERS)
            .map(|_| s.spawn(|| reader(&c, &me, deadline)))
            .collect();
        for i in 1..=PUTS {
            c.put(Scope::Global, KEY, value(i))
                .map_err(|s| format!("put {i}: {s:?}"))?;
        }
        readers
            .into_iter()
            .map(|h| h.join().map_err(|_| "reader panicked".to_owned())?)
            .sum::<Result<u64, String>>()
    })?;
    if own(&c, &me)?.0 != PUTS {
        return Err("the last put is not the answer".into());
    }

    // A collecting fence: the newest put stays the answer here, and the
    // peer sees it too.
    c.commit().map_err(|s| format!("commit: {s:?}"))?;
    let collect = [Info::new(
        pmix::Key::new(keys::COLLECT_DATA).unwrap(),
        Value::Bool(true),
    )];
    c.fence(&[], &collect)
        .map_err(|s| format!("fence: {s:?}"))?;
    if own(&c, &me)?.0 != PUTS {
        return Err("after the fence, not the last put".into());
    }
    let theirs = c
        .get(&peer, KEY, &[])
        .map_err(|s| format!("peer get: {s:?}"))?;
    if index_of(&theirs) != Some(PUTS) {
        return Err(format!("the peer's value: {:?}", index_of(&theirs)));
    }
    c.fence(&[], &[]).map_err(|s| format!("fence: {s:?}"))?;
    c.finalize().map_err(|s| format!("finalize: {s:?}"))?;
    println!("own puts {} ok ({gets} racing gets)", me.rank.0);
    Ok(())
}

/// The rank's entry point when this binary runs under `pmixrun`.
#[test]
fn rank_entry() {
    if std::env::var(ROLE).as_deref() == Ok("rank") {
        common::exit_with("own puts", rank());
    }
}

#[test]
fn own_puts_are_answered_in_place_and_never_go_back() {
    let program = common::this_test_as_program("rank_entry");
    let (ok, out, err) = common::pmixrun_job(2, &program, &[(ROLE, "rank")], LIMIT);
    common::assert_ranks_ok(2, ok, &out, &err, "own puts");
}
