//! Publish / lookup / unpublish end to end, with real processes:
//! - C clients (`tests/c/pubsub_client.c`) under `pmixrun`, whose host
//!   keeps the data in `pmix::server::PublishedData`: rank 0 publishes,
//!   the others look up with `PMIX_WAIT`, duplicates, partial lookups,
//!   `_nb` forms, a timed-out wait, `PMIX_RANGE_PROC_LOCAL`, unpublish;
//!   also built against the reference OpenPMIx headers;
//! - the same client under a C host (`tests/c/pubsub_host.c`) whose
//!   module's `publish`/`lookup`/`unpublish` are the datastore;
//! - the Rust API (`Client::publish`, `lookup_published`, ...) in ranks
//!   of this test binary under `pmixrun`.
//!
//! Every job runs under `pmixrun --timeout` or a watchdog; nothing sleeps
//! to synchronize.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use pmix::client::Client;
use pmix::{keys, Info, Key, Status, Value};

const LIMIT: &str = "120";
const ROLE: &str = "PUBSUB_TEST_ROLE";

fn unique(tag: &str) -> String {
    format!("pubsub_{tag}_{}", std::process::id())
}

fn compile(src: &str, name: &str, include: &Path, tag: &str) -> PathBuf {
    common::build_c(src, &unique(tag), name, include, &["-pthread"])
}

fn c_job(exe: &Path, n: u32) {
    let (ok, out, err) = common::pmixrun_job(n, &[exe.display().to_string()], &[], LIMIT);
    common::assert_ranks_ok(n, ok, &out, &err, "pubsub rank");
}

#[test]
fn c_clients_publish_wait_lookup_and_unpublish_under_pmixrun() {
    let exe = compile(
        "tests/c/pubsub_client.c",
        "pubsub_client",
        &common::include_dir(),
        "c",
    );
    c_job(&exe, 3);
}

/// The client compiled against OpenPMIx's own headers: the pdata layout
/// and the macros (`PMIX_PDATA_CREATE`/`_FREE`/`_XFER`) agree.
#[test]
fn c_client_built_against_the_reference_headers() {
    let Some((inc, _lib)) = common::reference_pmix() else {
        return;
    };
    let exe = compile("tests/c/pubsub_client.c", "pubsub_client", &inc, "ref");
    c_job(&exe, 2);
}

/// A C host's publish/lookup/unpublish module functions serve the clients.
#[test]
fn c_host_module_serves_publish_and_lookup() {
    let include = common::include_dir();
    let host = compile("tests/c/pubsub_host.c", "pubsub_host", &include, "host");
    let client = compile(
        "tests/c/pubsub_client.c",
        "pubsub_client",
        &include,
        "hostc",
    );
    let tmp = common::scratch(&unique("hosttmp"));
    let out = common::run_with_watchdog(
        Command::new(&host)
            .arg("3")
            .arg(&client)
            .arg("c-pubsub-job")
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .env("TMPDIR", &tmp)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit()),
        Duration::from_secs(120),
        "pubsub_host",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    common::assert_ranks_ok(3, out.status.success(), &stdout, "", "pubsub rank");
}

// ----------------------------------------------------------------------
// The Rust API

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

fn info(k: &str, v: Value) -> Info {
    Info::new(key(k), v)
}

/// One rank of the Rust-API job.
fn rust_rank() -> Result<(), String> {
    let c = Client::init(&[]).map_err(|s| format!("init: {s:?}"))?;
    let me = c.proc().clone();
    let check = |cond: bool, what: &str| if cond { Ok(()) } else { Err(what.to_string()) };
    if me.rank.0 == 0 {
        c.publish(&[info("rust-svc", Value::String(Some(c"addr-0".to_owned())))])
            .map_err(|s| format!("publish: {s:?}"))?;
        let dup = c.publish(&[info("rust-svc", Value::Int(1))]);
        check(dup == Err(Status::ERR_DUPLICATE_KEY), "duplicate publish")?;
    }
    let wait = info(keys::WAIT, Value::Int(0));
    let found = c
        .lookup_published(&[key("rust-svc")], &[wait])
        .map_err(|s| format!("lookup: {s:?}"))?;
    check(found.len() == 1, "one value")?;
    check(found[0].publisher.rank.0 == 0, "publisher is rank 0")?;
    check(
        found[0].value == Value::String(Some(c"addr-0".to_owned())),
        "value",
    )?;
    // Non-blocking, partial.
    let (tx, rx) = mpsc::channel();
    c.lookup_published_nb(
        &[key("rust-svc"), key("rust-none")],
        &[],
        Box::new(move |r| tx.send(r).unwrap()),
    )
    .map_err(|s| format!("lookup_nb: {s:?}"))?;
    let r = rx.recv().map_err(|e| e.to_string())?;
    check(matches!(&r, Ok(v) if v.len() == 1), "partial lookup_nb")?;
    // A namespace-range item is invisible to a process-local lookup of
    // another rank, visible to its own.
    let pl = info(keys::RANGE, Value::DataRange(7));
    let mine = format!("rust-own-{}", me.rank.0);
    c.publish(&[info(&mine, Value::Uint32(me.rank.0)), pl.clone()])
        .map_err(|s| format!("own publish: {s:?}"))?;
    let own = c.lookup_published(&[key(&mine)], &[]);
    check(
        matches!(&own, Ok(v) if v[0].value == Value::Uint32(me.rank.0)),
        "own item",
    )?;
    c.fence(&[], &[]).map_err(|s| format!("fence: {s:?}"))?;
    let other = format!("rust-own-{}", 1 - me.rank.0.min(1));
    if other != mine {
        let r = c.lookup_published(&[key(&other)], &[]);
        check(r == Err(Status::ERR_NOT_FOUND), "another's proc-local item")?;
    }
    c.fence(&[], &[]).map_err(|s| format!("fence: {s:?}"))?;
    if me.rank.0 == 0 {
        let (tx, rx) = mpsc::channel();
        c.unpublish_nb(None, &[], Box::new(move |s| tx.send(s).unwrap()))
            .map_err(|s| format!("unpublish_nb: {s:?}"))?;
        check(
            rx.recv().ok() == Some(Status::SUCCESS),
            "unpublish_nb status",
        )?;
    }
    c.fence(&[], &[]).map_err(|s| format!("fence: {s:?}"))?;
    let gone = c.lookup_published(&[key("rust-svc")], &[]);
    check(gone == Err(Status::ERR_NOT_FOUND), "unpublished")?;
    let timeout = [
        info(keys::WAIT, Value::Bool(true)),
        info(keys::TIMEOUT, Value::Int(1)),
    ];
    let never = c.lookup_published(&[key("rust-never")], &timeout);
    check(never == Err(Status::ERR_TIMEOUT), "timeout")?;
    c.finalize().map_err(|s| format!("finalize: {s:?}"))?;
    println!("pubsub rank {} ok", me.rank.0);
    Ok(())
}

/// The rank's entry point when this binary runs under `pmixrun`.
#[test]
fn rust_rank_entry() {
    if std::env::var(ROLE).as_deref() == Ok("rank") {
        common::exit_with("rust pubsub", rust_rank());
    }
}

#[test]
fn rust_api_publish_lookup_unpublish_under_pmixrun() {
    let program = common::this_test_as_program("rust_rank_entry");
    let (ok, out, err) = common::pmixrun_job(2, &program, &[(ROLE, "rank")], LIMIT);
    common::assert_ranks_ok(2, ok, &out, &err, "pubsub rank");
}

/// python3-pmix (OpenPMIx 4.2's own bindings) on our library.
#[test]
fn python_bindings_publish_and_lookup_under_pmixrun() {
    let Some(python) = common::python_with_bindings() else {
        return;
    };
    let script = common::root().join("tests/python/pubsub_client.py");
    let program = vec![
        python.to_string(),
        "-W".into(),
        "ignore".into(),
        script.display().to_string(),
    ];
    let (ok, out, err) = common::pmixrun_job(2, &program, &[], LIMIT);
    common::assert_ranks_ok(2, ok, &out, &err, "pubsub rank");
}
