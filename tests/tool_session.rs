//! A Rust tool's session over several servers (`pmix::client::tool_session::ToolSession`,
//! issue 22 item 3): attached to two `pmixrun` servers under one identity,
//! it lists both, switches its primary (queries then go there), hands the
//! primary over when it is disconnected, keeps the last connection
//! (closed) when every server is gone, and an unconnected tool attaches
//! later, waiting for a server by namespace. The same rules as the C API's
//! (tests/tools.rs `a_c_tool_attaches_to_two_servers_and_switches_between_them`,
//! `a_c_tool_starts_unconnected_and_attaches_later`).
//!
//! Every wait is bounded: the jobs sleep 60 s at most and are killed at
//! the end; `set_server`'s wait has a `PMIX_TIMEOUT`.

mod common;

use std::sync::Arc;

use pmix::client::tool_session::ToolSession;
use pmix::client::Client;
use pmix::value::Query;
use pmix::{keys, Info, Proc, Status, Value};

use common::pmixrun_job::PmixrunJob;

fn info(k: &str, v: Value) -> Info {
    common::info(k, v)
}

/// The namespaces `t`'s server knows (its `PMIX_QUERY_NAMESPACES`).
fn namespaces(t: &Client) -> Result<Vec<String>, Status> {
    let q = Query {
        keys: vec![std::ffi::CString::new(keys::QUERY_NAMESPACES).unwrap()],
        qualifiers: vec![],
    };
    let (_, answers) = t.query(&[q])?;
    let names = answers
        .iter()
        .find(|i| i.key.as_bytes() == keys::QUERY_NAMESPACES.as_bytes())
        .and_then(|i| i.value.as_str().map(str::to_owned))
        .ok_or(Status::ERR_NOT_FOUND)?;
    Ok(names.split(',').map(str::to_owned).collect())
}

/// Whether the session's primary server hosts `job`.
fn primary_hosts(s: &ToolSession, job: &PmixrunJob) -> bool {
    let p = s.primary().expect("a primary");
    namespaces(&p)
        .expect("namespaces query")
        .iter()
        .any(|n| n == job.nspace())
}

fn two_jobs(tag: &str) -> (PmixrunJob, PmixrunJob) {
    let a = PmixrunJob::sleeping(&format!("toolsess-{tag}a"));
    let b = PmixrunJob::sleeping(&format!("toolsess-{tag}b"));
    a.wait_serving();
    b.wait_serving();
    (a, b)
}

#[test]
fn a_rust_tool_attaches_to_two_servers_switches_and_disconnects() {
    let (mut a, mut b) = two_jobs("two");
    let s = ToolSession::init(&a.tool_infos()).expect("tool of a");
    let first = s.primary().unwrap();
    let me = first.proc().clone();
    let srv_a = first.server().clone();
    assert_eq!(s.servers(), vec![srv_a.clone()]);

    // Attached under the same identity, even when asked for another; the
    // primary (open) stays.
    let mut to_b = b.tool_infos();
    to_b.push(info(keys::TOOL_NSPACE, Value::string("another-name")));
    let cb = s.attach(&to_b).expect("attach to b");
    assert_eq!(cb.proc(), &me);
    let srv_b = cb.server().clone();
    assert_ne!(srv_a, srv_b);
    assert_eq!(s.servers(), vec![srv_a.clone(), srv_b.clone()]);
    assert!(Arc::ptr_eq(&s.primary().unwrap(), &first));
    assert!(primary_hosts(&s, &a) && !primary_hosts(&s, &b));

    // Switching: the calls go to b now.
    let p = s.set_server(&srv_b, &[]).expect("set b primary");
    assert!(Arc::ptr_eq(&p, &cb));
    assert!(primary_hosts(&s, &b) && !primary_hosts(&s, &a));
    let nowhere = Proc::new(pmix::Nspace::new("nowhere").unwrap(), pmix::Rank(0));
    assert_eq!(
        s.set_server(&nowhere, &[]).err(),
        Some(Status::ERR_NOT_FOUND)
    );

    // Back to a, then a disconnected while primary: b takes over.
    s.set_server(&srv_a, &[]).expect("set a primary");
    assert!(primary_hosts(&s, &a));
    s.disconnect(&srv_a).expect("disconnect a");
    assert!(!first.is_initialized());
    assert_eq!(s.disconnect(&srv_a), Err(Status::ERR_NOT_FOUND));
    assert_eq!(s.servers(), vec![srv_b.clone()]);
    assert!(Arc::ptr_eq(&s.primary().unwrap(), &cb));
    assert!(primary_hosts(&s, &b));

    // The last one disconnected stays, closed: calls fail until finalize.
    s.disconnect(&srv_b).expect("disconnect b");
    assert!(s.servers().is_empty());
    assert_eq!(s.connections().len(), 1);
    let last = s.primary().unwrap();
    assert!(Arc::ptr_eq(&last, &cb));
    assert_eq!(namespaces(&last).err(), Some(Status::ERR_INIT));
    s.finalize();
    assert!(s.primary().is_none());
    a.end();
    b.end();
}

#[test]
fn primary_server_asked_for_and_an_unconnected_tool_attaching() {
    let (mut a, mut b) = two_jobs("prim");
    // PMIX_PRIMARY_SERVER: the attached server becomes primary at once.
    let s = ToolSession::init(&a.tool_infos()).expect("tool of a");
    let mut to_b = b.tool_infos();
    to_b.push(info(keys::PRIMARY_SERVER, Value::Bool(true)));
    let cb = s.attach(&to_b).expect("attach to b as primary");
    assert!(Arc::ptr_eq(&s.primary().unwrap(), &cb));
    assert!(primary_hosts(&s, &b));
    s.finalize();
    assert!(!cb.is_initialized());

    // Unconnected: no server listed; the first attached becomes primary
    // without asking; set_server waits for a server by its namespace.
    let s = ToolSession::init(&[
        info(keys::TOOL_DO_NOT_CONNECT, Value::Bool(true)),
        info(keys::TOOL_NSPACE, Value::string("toolsess-unconnected")),
    ])
    .expect("unconnected tool");
    assert!(s.servers().is_empty());
    let private = s.primary().unwrap();
    let ca = s.attach(&a.tool_infos()).expect("attach to a");
    assert_eq!(ca.proc(), private.proc());
    assert!(Arc::ptr_eq(&s.primary().unwrap(), &ca));
    assert!(primary_hosts(&s, &a));
    let srv_b = Proc::new(
        pmix::Nspace::new(format!("pmix-server.{}", b.pid())).unwrap(),
        pmix::Rank(0),
    );
    let wait = [
        info(keys::WAIT_FOR_CONNECTION, Value::Bool(true)),
        info(keys::TIMEOUT, Value::Int(20)),
        info(
            keys::SERVER_TMPDIR,
            Value::string(b.tmp().to_str().unwrap()),
        ),
    ];
    let cb = s.set_server(&srv_b, &wait).expect("wait for b");
    assert_eq!(cb.server(), &srv_b);
    assert!(primary_hosts(&s, &b));
    assert_eq!(s.servers(), vec![ca.server().clone(), srv_b]);
    s.finalize();
    assert!(!private.is_initialized() && !ca.is_initialized() && !cb.is_initialized());
    a.end();
    b.end();
}
