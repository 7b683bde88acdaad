//! `PMIX_GET_REFRESH_CACHE` (found by the control-plane fuzzer's session
//! target): a peer re-posts a key after the value was fetched by direct
//! modex; a get with the qualifier reads the new value from the server,
//! in the Rust API and through the C library's `PMIx_Get` path (the same
//! core path: the C fast path steps aside for the qualifier).
//!
//! Two ranks of this test binary under `pmixrun`; each waits for nothing
//! but its fences (no sleep), the job bounded by `pmixrun --timeout`.

mod common;

use pmix::client::{Client, Scope};
use pmix::{keys, Proc, Rank, Value};

const ROLE: &str = "PMIX_REFRESH_TEST_ROLE";
const KEY: &str = "refresh.key";

#[test]
fn a_get_with_refresh_cache_reads_a_peers_new_value() {
    let prog = common::this_test_as_program("refresh_rank");
    let (ok, out, err) = common::pmixrun_job(2, &prog, &[(ROLE, "1")], "60");
    assert!(ok, "--- stdout\n{out}\n--- stderr\n{err}");
    for r in 0..2 {
        assert!(out.contains(&format!("refresh ok {r}")), "{out}\n{err}");
    }
}

/// The ranks' program (runs only under the test above).
#[test]
fn refresh_rank() {
    if std::env::var(ROLE).is_err() {
        return;
    }
    common::exit_with("refresh", rank());
}

fn rank() -> Result<(), String> {
    let c = Client::init(&[]).map_err(common::err("init"))?;
    let me = c.proc().clone();
    let peer = Proc::new(me.nspace.clone(), Rank(1 - me.rank.0));
    let read = |quals: &[pmix::Info]| -> Result<Option<u32>, String> {
        Ok(c.get(&peer, KEY, quals)
            .map_err(common::err("get"))?
            .as_u32())
    };
    // Round 1: posted, fenced without collecting, fetched by direct modex.
    c.put(Scope::Global, KEY, Value::Uint32(1))
        .map_err(common::err("put"))?;
    c.commit().map_err(common::err("commit"))?;
    c.fence(&[], &[]).map_err(common::err("fence"))?;
    let got = read(&[])?;
    common::check(got == Some(1), || format!("round 1: {got:?}"))?;
    // Both read round 1 before either re-posts (a peer's round-2 commit
    // served before this rank's direct modex would answer it with 2).
    c.fence(&[], &[]).map_err(common::err("fence"))?;
    // Round 2: re-posted; the fetched round-1 value is held here.
    c.put(Scope::Global, KEY, Value::Uint32(2))
        .map_err(common::err("put"))?;
    c.commit().map_err(common::err("commit"))?;
    c.fence(&[], &[]).map_err(common::err("fence"))?;
    let refresh = [common::info(keys::GET_REFRESH_CACHE, Value::Bool(true))];
    let got = read(&refresh)?;
    common::check(got == Some(2), || format!("refreshed: {got:?}"))?;
    // And what is held is the new value from then on.
    let got = read(&[])?;
    common::check(got == Some(2), || format!("after the refresh: {got:?}"))?;
    c.fence(&[], &[]).map_err(common::err("last fence"))?;
    c.finalize().map_err(common::err("finalize"))?;
    println!("refresh ok {}", me.rank.0);
    Ok(())
}
