//! Process sets end to end with the C APIs: `tests/c/pset_host.c`, a host
//! built on `PMIx_server_*`, registers a job whose application carries a
//! `PMIX_PSET_NAME`, forks three clients (`tests/c/pset_client.c`),
//! defines and deletes a set of two of them; the clients check the
//! non-default `PMIX_PROCESS_SET_DEFINE`/`DELETE` events and the pset
//! queries (number, names, membership, refusals) before and after.
//!
//! `pmixrun --pset NAME` (a program context's ranks form a set) with the
//! same client. Also the Rust API in this process: define, redefine, delete, the
//! server's own handlers, host-registered sets and the queries.
//!
//! The C run is bounded by a watchdog that kills the host's process group;
//! every wait inside the programs is bounded too.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

fn unique(tag: &str) -> String {
    format!("psets_{tag}_{}", std::process::id())
}

#[test]
fn c_host_defines_and_deletes_a_process_set() {
    let inc = common::include_dir();
    let host = common::build_c(
        "tests/c/pset_host.c",
        &unique("host"),
        "pset_host",
        &inc,
        &["-pthread"],
    );
    let client = common::build_c(
        "tests/c/pset_client.c",
        &unique("client"),
        "pset_client",
        &inc,
        &["-pthread"],
    );
    let tmp = common::scratch(&unique("tmp"));
    let stdout = common::run_c_host(&host, &[client.as_os_str()], &tmp, LIMIT, "pset host ok");
    for r in 0..3 {
        assert!(stdout.contains(&format!("pset client {r} ok")), "{stdout}");
    }
}

#[test]
fn pmixrun_pset_makes_each_context_a_set() {
    let client = common::build_c(
        "tests/c/pset_client.c",
        &unique("pmixrun_client"),
        "pset_client",
        &common::include_dir(),
        &["-pthread"],
    );
    let c = client.to_str().unwrap();
    let out = common::run_with_watchdog(
        Command::new(env!("CARGO_BIN_EXE_pmixrun"))
            .args([
                "--timeout",
                "120",
                "--pset",
                "left",
                "-n",
                "2",
                c,
                "pmixrun",
                "left",
            ])
            .args([":", "--pset", "right", "-n", "1", c, "pmixrun", "right"])
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit()),
        LIMIT,
        "pmixrun --pset",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "pmixrun failed: {}\n{stdout}",
        out.status
    );
    for r in 0..3 {
        assert!(stdout.contains(&format!("pset client {r} ok")), "{stdout}");
    }
}

// ----------------------------------------------------------------------
// The Rust API, in this process (no clients).

use std::ffi::CString;
use std::sync::Arc;

use pmix::events::codes;
use pmix::server::{NoHost, Server, ServerConfig};
use pmix::value::{DataArray, Query};
use pmix::{keys, DataType, Info, Key, Nspace, Proc, Rank, Status, Value};

fn query(server: &Server, key: &str, pset: Option<&str>) -> Result<(Status, Vec<Info>), Status> {
    let q = Query {
        keys: vec![CString::new(key).unwrap()],
        qualifiers: pset
            .map(|n| {
                vec![Info::new(
                    Key::new(keys::PSET_NAME).unwrap(),
                    Value::string(n),
                )]
            })
            .unwrap_or_default(),
    };
    common::server_query(server, q, LIMIT)
}

fn procs(v: &Value) -> Vec<Proc> {
    match v {
        Value::DataArray(a) => a
            .items
            .iter()
            .filter_map(|v| match v {
                Value::Proc(p) => Some(p.clone()),
                _ => None,
            })
            .collect(),
        _ => panic!("not a data array: {v:?}"),
    }
}

#[test]
fn rust_api_defines_deletes_and_answers_queries() {
    let server = Server::start(ServerConfig::default(), Arc::new(NoHost)).unwrap();
    let ns = Nspace::new("psets-rust").unwrap();
    let p = |r| Proc::new(ns.clone(), Rank(r));

    // No set: the counts the fallback gave before.
    let (_, a) = query(&server, keys::QUERY_NUM_PSETS, None).unwrap();
    assert_eq!(a[0].value, Value::Size(0));
    let (_, a) = query(&server, keys::QUERY_PSET_NAMES, None).unwrap();
    assert_eq!(a[0].value.as_str(), Some(""));

    // A registration whose application names a set: its ranks.
    let app = Value::DataArray(Box::new(DataArray {
        elem_type: DataType::Info,
        items: vec![
            Value::Info(Box::new(Info::new(
                Key::new(keys::APPNUM).unwrap(),
                Value::Uint32(0),
            ))),
            Value::Info(Box::new(Info::new(
                Key::new(keys::PSET_NAME).unwrap(),
                Value::string("job-set"),
            ))),
        ],
    }));
    let infos = vec![
        Info::new(Key::new(keys::JOB_SIZE).unwrap(), Value::Uint32(2)),
        Info::new(Key::new(keys::APP_INFO_ARRAY).unwrap(), app),
    ];
    server.register_nspace(&ns, 2, &infos).unwrap();

    let (handler, rx) = common::event_forwarder();
    server
        .register_event_handler(
            &[codes::PROCESS_SET_DEFINE, codes::PROCESS_SET_DELETE],
            &[],
            handler,
        )
        .unwrap();

    assert_eq!(
        server.define_process_set("", vec![]),
        Err(Status::ERR_BAD_PARAM)
    );
    assert_eq!(
        server.delete_process_set("nope"),
        Err(Status::ERR_NOT_FOUND)
    );
    server.define_process_set("s1", vec![p(1)]).unwrap();
    let (code, source, infos) = rx.recv_timeout(LIMIT).unwrap();
    assert_eq!(code, codes::PROCESS_SET_DEFINE);
    assert_eq!(source, server.proc());
    let get = |k: &str| {
        infos
            .iter()
            .find(|i| i.key.as_bytes() == k.as_bytes())
            .map(|i| i.value.clone())
    };
    assert_eq!(get(keys::PSET_NAME).unwrap().as_str(), Some("s1"));
    assert_eq!(procs(&get(keys::PSET_MEMBERS).unwrap()), vec![p(1)]);
    assert_eq!(get(keys::EVENT_NON_DEFAULT), Some(Value::Bool(true)));

    let (_, a) = query(&server, keys::QUERY_NUM_PSETS, None).unwrap();
    assert_eq!(a[0].value, Value::Size(2));
    let (_, a) = query(&server, keys::QUERY_PSET_NAMES, None).unwrap();
    assert_eq!(a[0].value.as_str(), Some("job-set,s1"));
    let (_, a) = query(&server, keys::QUERY_PSET_MEMBERSHIP, Some("job-set")).unwrap();
    assert_eq!(procs(&a[0].value), vec![p(0), p(1)]);
    assert_eq!(
        query(&server, keys::QUERY_PSET_MEMBERSHIP, None).err(),
        Some(Status::ERR_BAD_PARAM)
    );
    assert_eq!(
        query(&server, keys::QUERY_PSET_MEMBERSHIP, Some("zz")).err(),
        Some(Status::ERR_NOT_FOUND)
    );

    // Redefinition replaces; deletion tells and forgets.
    server.define_process_set("s1", vec![p(0)]).unwrap();
    let _ = rx.recv_timeout(LIMIT).unwrap();
    let (_, a) = query(&server, keys::QUERY_PSET_MEMBERSHIP, Some("s1")).unwrap();
    assert_eq!(procs(&a[0].value), vec![p(0)]);
    server.delete_process_set("s1").unwrap();
    let (code, _, infos) = rx.recv_timeout(LIMIT).unwrap();
    assert_eq!(code, codes::PROCESS_SET_DELETE);
    assert!(infos
        .iter()
        .all(|i| i.key.as_bytes() != keys::PSET_MEMBERS.as_bytes()));
    let (_, a) = query(&server, keys::QUERY_NUM_PSETS, None).unwrap();
    assert_eq!(a[0].value, Value::Size(1));
}
