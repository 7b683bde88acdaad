//! `PMIx_Get` with a NULL key (all of a process's data) end to end:
//! - the C client `tests/c/get_all.c` under `pmixrun` (2 and 3 ranks):
//!   its own data, a peer's (blocking, non-blocking, into the caller's
//!   storage), the shape OpenPMIx 4.2 returns (one `PMIX_DATA_ARRAY` of
//!   `PMIX_INFO`, the last flagged `PMIX_INFO_ARRAY_END`), released with
//!   `PMIX_VALUE_RELEASE`, and the refusals (NULL proc, wildcard rank,
//!   rank outside the job);
//! - the same client built against the reference OpenPMIx headers;
//! - the Rust API (`Client::get_all`) in ranks of this test binary.
//!
//! Every job runs under `pmixrun --timeout`; nothing sleeps to
//! synchronize.

mod common;

use std::path::{Path, PathBuf};

use pmix::client::{Client, Scope};
use pmix::{keys, Info, Proc, Rank, Status, Value};

const LIMIT: &str = "120";
const ROLE: &str = "GET_ALL_TEST_ROLE";

fn compile(include: &Path, tag: &str) -> PathBuf {
    let dir = common::scratch(&format!("get_all_{tag}_{}", std::process::id()));
    let exe = dir.join("get_all");
    let src = common::root().join("tests/c/get_all.c");
    common::compile_c(&[&src], &exe, include, common::ffi_lib_dir(), &["-pthread"]);
    exe
}

#[test]
fn c_client_gets_all_of_its_own_and_a_peers_data() {
    let exe = compile(&common::include_dir(), "own");
    for n in [2, 3] {
        let (ok, out, err) = common::pmixrun_job(n, &[exe.display().to_string()], &[], LIMIT);
        common::assert_ranks_ok(n, ok, &out, &err, "get_all");
    }
}

#[test]
fn c_client_built_against_the_reference_headers() {
    let Some((include, _)) = common::reference_pmix() else {
        return;
    };
    let exe = compile(&include, "ref");
    let (ok, out, err) = common::pmixrun_job(2, &[exe.display().to_string()], &[], LIMIT);
    common::assert_ranks_ok(2, ok, &out, &err, "get_all");
}

// ----------------------------------------------------------------------
// The Rust API

fn find<'a>(infos: &'a [Info], key: &str) -> Option<&'a Value> {
    infos
        .iter()
        .find(|i| i.key.as_bytes() == key.as_bytes())
        .map(|i| &i.value)
}

/// One rank of the Rust-API job.
fn rust_rank() -> Result<(), String> {
    let c = Client::init(&[]).map_err(|s| format!("init: {s:?}"))?;
    let me = c.proc().clone();
    let size = c.job_size().map_err(|s| format!("job size: {s:?}"))?;
    c.put(Scope::Global, "r.str", Value::string("rust"))
        .map_err(|s| format!("put: {s:?}"))?;
    c.put(Scope::Local, "r.rank", Value::Uint32(me.rank.0 * 10))
        .map_err(|s| format!("put: {s:?}"))?;
    let own = c.get_all(&me, &[]).map_err(|s| format!("own: {s:?}"))?;
    if find(&own, "r.str") != Some(&Value::string("rust"))
        || find(&own, "r.rank") != Some(&Value::Uint32(me.rank.0 * 10))
    {
        return Err(format!("own data: {own:?}"));
    }
    c.commit().map_err(|s| format!("commit: {s:?}"))?;
    // No data collection: under pmixrun the peer's posts are not in the
    // segments after this fence, so get_all fetches them by direct modex.
    c.fence(&[], &[]).map_err(|s| format!("fence: {s:?}"))?;
    let peer = Proc::new(me.nspace.clone(), Rank((me.rank.0 + 1) % size));
    let all = c.get_all(&peer, &[]).map_err(|s| format!("peer: {s:?}"))?;
    if find(&all, "r.str") != Some(&Value::string("rust"))
        || find(&all, "r.rank") != Some(&Value::Uint32(peer.rank.0 * 10))
        || find(&all, keys::LOCAL_RANK) != Some(&Value::Uint16(peer.rank.0 as u16))
    {
        return Err(format!("peer data: {all:?}"));
    }
    let wc = Proc::new(me.nspace.clone(), Rank::WILDCARD);
    if c.get_all(&wc, &[]) != Err(Status::ERR_BAD_PARAM) {
        return Err("wildcard accepted".into());
    }
    let outside = Proc::new(me.nspace.clone(), Rank(size + 1));
    if c.get_all(&outside, &[]) != Err(Status(-17)) {
        return Err("rank outside the job".into());
    }
    c.fence(&[], &[]).map_err(|s| format!("fence: {s:?}"))?;
    c.finalize().map_err(|s| format!("finalize: {s:?}"))?;
    println!("rust get_all {} ok", me.rank.0);
    Ok(())
}

/// The rank's entry point when this binary runs under `pmixrun`.
#[test]
fn rust_rank_entry() {
    if std::env::var(ROLE).as_deref() == Ok("rank") {
        common::exit_with("rust get_all", rust_rank());
    }
}

#[test]
fn rust_api_get_all_under_pmixrun() {
    let program = common::this_test_as_program("rust_rank_entry");
    let (ok, out, err) = common::pmixrun_job(2, &program, &[(ROLE, "rank")], LIMIT);
    common::assert_ranks_ok(2, ok, &out, &err, "rust get_all");
}
