//! Checks shared by the client programs that exercise a server: the
//! `pmix_client_probe` example and the child clients of
//! `tests/server_client.rs` (which includes this file). Each returns
//! `Err(reason)` at the first check that fails, for the program to print.
#![allow(dead_code)]

use pmix::client::{Client, Scope};
use pmix::{keys, Info, Key, Proc, Rank, Status, Value};

pub type R = Result<(), String>;

pub fn key(s: &str) -> Key {
    Key::new(s).expect("valid key")
}

/// Directives of a fence that collects the posted data.
pub fn collect() -> Vec<Info> {
    vec![Info::new(key(keys::COLLECT_DATA), Value::Bool(true))]
}

/// Directives of a get answered only from what this process holds.
pub fn optional() -> Vec<Info> {
    vec![Info::new(key(keys::OPTIONAL), Value::Bool(true))]
}

pub fn check<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> R {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}"))
    }
}

/// A get of `key` of `p` (with directives `q`) that must find nothing.
pub fn not_found(c: &Client, p: &Proc, key: &str, q: &[Info]) -> R {
    check(
        &format!("{key} of {} (directives {q:?})", p.rank.0),
        c.get(p, key, q),
        Err(Status::ERR_NOT_FOUND),
    )
}

/// The fence that ends a program's checks: everyone is done reading
/// before anyone leaves.
pub fn last_fence(c: &Client) -> R {
    c.fence(&[], &[]).map_err(|s| format!("last fence: {s}"))
}

/// A process reads back its own remote and internal puts (`r * 10 + 2`
/// and `-5`, as the wire-up programs put them) although neither is
/// meant for it.
pub fn own_remote_and_internal(c: &Client, me: &Proc) -> R {
    check(
        "own remote",
        c.get(me, "t.remote", &[]),
        Ok(Value::Uint32(me.rank.0 * 10 + 2)),
    )?;
    check(
        "own internal",
        c.get(me, "t.internal", &[]),
        Ok(Value::Int64(-5)),
    )
}

/// Direct modex: this process posts `d.key` (`1000 + rank`) and commits,
/// then gets it from every one of the job's `n` ranks, last rank first,
/// without a fence (the server answers, waiting for peers that have not
/// committed yet), and a key nobody posted.
pub fn dmodex_gets(c: &Client, n: u32) -> R {
    let me = c.proc().clone();
    c.put(
        Scope::Global,
        "d.key",
        Value::Uint64(1000 + u64::from(me.rank.0)),
    )
    .map_err(|s| s.to_string())?;
    c.commit().map_err(|s| s.to_string())?;
    for peer in (0..n).rev() {
        let p = Proc::new(me.nspace.clone(), Rank(peer));
        check(
            &format!("d.key of {peer}"),
            c.get(&p, "d.key", &[]),
            Ok(Value::Uint64(1000 + u64::from(peer))),
        )?;
        not_found(c, &p, "d.none", &[])?;
    }
    Ok(())
}

/// The ranks of the job's `n` of `me`'s parity (`me` among them).
pub fn my_half(me: &Proc, n: u32) -> Vec<Proc> {
    (0..n)
        .filter(|x| x % 2 == me.rank.0 % 2)
        .map(|x| Proc::new(me.nspace.clone(), Rank(x)))
        .collect()
}

/// Even and odd ranks of the job's `n` fence separately, each collecting
/// its half and reading it back; then all fence together.
pub fn subset_fences(c: &Client, n: u32) -> R {
    let me = c.proc().clone();
    let r = me.rank.0;
    c.put(Scope::Global, "s.key", Value::Uint32(r))
        .map_err(|s| s.to_string())?;
    c.commit().map_err(|s| s.to_string())?;
    let half = my_half(&me, n);
    c.fence(&half, &collect())
        .map_err(|s| format!("subset fence: {s}"))?;
    for p in &half {
        check(
            &format!("s.key of {}", p.rank.0),
            c.get(p, "s.key", &optional()),
            Ok(Value::Uint32(p.rank.0)),
        )?;
    }
    c.fence(&[], &[]).map_err(|s| format!("full fence: {s}"))
}
