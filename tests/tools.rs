//! Tools attaching to a running `pmixrun` job (issue 12's first part):
//! `pmixrun` serves tools (`PMIX_SERVER_TOOL_SUPPORT`) and writes its
//! rendezvous files; a tool (this test process, through the Rust API, and
//! `tests/c/tool_client.c` through the C API on our headers) finds it by
//! pid, by its namespace or as the session's server, gets an identity, queries
//! the namespaces and reads the job's data. A server without tool support
//! refuses tools; the files go when `pmixrun` ends. A C tool attached to
//! two jobs' servers lists them, switches its primary server and
//! disconnects from one. python3-pmix's `PMIxTool` attaches and queries.
//! `pmix-ps` lists the job.
//!
//! The job's ranks print `ready <namespace>` and wait; the test reads that
//! line (so the server is up), then kills `pmixrun` when done. Every wait
//! is bounded.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use pmix::client::Client;
use pmix::server::{NoHost, Server, ServerConfig};
use pmix::value::Query;
use pmix::{keys, Info, Nspace, Proc, Rank, Status, Value};

use common::pmixrun_job::{private_tmp, Lines, PmixrunJob};

const LIMIT: Duration = Duration::from_secs(60);

/// A sleeping job for tools (see [`PmixrunJob::sleeping`]).
fn sleeping_job(tag: &str) -> PmixrunJob {
    PmixrunJob::sleeping(&format!("tools-{tag}"))
}

fn info(k: &str, v: Value) -> Info {
    common::info(k, v)
}

fn tmpdir(tmp: &Path) -> Info {
    info(keys::SERVER_TMPDIR, Value::string(tmp.to_str().unwrap()))
}

/// What a connected tool checks: the namespaces query names the job, and
/// the job's size is read from its job data.
fn check_tool(t: &Client, nspace: &str) {
    let q = Query {
        keys: vec![std::ffi::CString::new(keys::QUERY_NAMESPACES).unwrap()],
        qualifiers: vec![],
    };
    let (_, answers) = t.query(&[q]).expect("namespaces query");
    let names = answers
        .iter()
        .find(|i| i.key.as_bytes() == keys::QUERY_NAMESPACES.as_bytes())
        .and_then(|i| i.value.as_str().map(str::to_owned))
        .expect("a namespaces answer");
    assert!(names.split(',').any(|n| n == nspace), "{names}");
    let job = Proc::new(Nspace::new(nspace).unwrap(), Rank::WILDCARD);
    let size = t.get(&job, keys::JOB_SIZE, &[]).expect("the job's size");
    assert_eq!(size.as_u32(), Some(2));
    // The ABI versions (OpenPMIx 5.0.11's "5.0").
    let q = Query {
        keys: [
            keys::QUERY_STABLE_ABI_VERSION,
            keys::QUERY_PROVISIONAL_ABI_VERSION,
        ]
        .iter()
        .map(|k| std::ffi::CString::new(*k).unwrap())
        .collect(),
        qualifiers: vec![],
    };
    let (status, answers) = t.query(&[q]).expect("ABI versions");
    assert_eq!(status, Status::SUCCESS);
    assert_eq!(answers.len(), 2);
    assert!(
        answers.iter().all(|i| i.value.as_str() == Some("5.0")),
        "{answers:?}"
    );
}

#[test]
fn a_tool_attaches_to_pmixrun_by_pid_namespace_and_session() {
    let mut job = sleeping_job("find");
    let t = Client::tool_init(&job.tool_infos()).expect("tool by pid");
    assert!(t.proc().nspace.to_string_lossy().starts_with("tool."));
    check_tool(&t, job.nspace());
    t.finalize().unwrap();

    // By the server's namespace (pmixrun's default: `pmix-server.<pid>`).
    let server_ns = format!("pmix-server.{}", job.pid());
    let by_ns = [
        info(keys::SERVER_NSPACE, Value::string(&server_ns)),
        tmpdir(job.tmp()),
        info(keys::TOOL_NSPACE, Value::string("mytool")),
        info(keys::TOOL_RANK, Value::Uint32(7)),
    ];
    let t = Client::tool_init(&by_ns).expect("tool by namespace");
    assert_eq!(
        t.proc(),
        &Proc::new(Nspace::new("mytool").unwrap(), Rank(7))
    );
    check_tool(&t, job.nspace());
    // The same identity twice at once is refused.
    assert_eq!(Client::tool_init(&by_ns).err(), Some(Status::ERR_EXISTS));
    t.finalize().unwrap();

    let t = Client::tool_init(&[tmpdir(job.tmp())]).expect("tool of the session");
    check_tool(&t, job.nspace());
    t.finalize().unwrap();

    // A tool may not claim a job's identity.
    let claim = [
        tmpdir(job.tmp()),
        info(keys::TOOL_NSPACE, Value::string(job.nspace())),
    ];
    assert_eq!(Client::tool_init(&claim).err(), Some(Status::ERR_BAD_PARAM));

    job.end();
    let left: Vec<_> = std::fs::read_dir(job.tmp())
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.iter()
            .all(|n| !n.to_string_lossy().starts_with("pmix.")),
        "rendezvous files left: {left:?}"
    );
}

#[test]
fn no_server_or_no_tool_support_is_a_clear_refusal() {
    let tmp = private_tmp("tools-none");
    // Nobody there.
    let none = [info(keys::SERVER_PIDINFO, Value::Pid(1)), tmpdir(&tmp)];
    assert_eq!(Client::tool_init(&none).err(), Some(Status::ERR_UNREACH));
    // A server without tool support, reached by its URI: refused.
    let server = Server::start(
        ServerConfig {
            tmpdir: tmp.clone(),
            ..ServerConfig::default()
        },
        std::sync::Arc::new(NoHost),
    )
    .unwrap();
    let by_uri = [info(keys::SERVER_URI, Value::string(server.uri()))];
    assert_eq!(
        Client::tool_init(&by_uri).err(),
        Some(Status::ERR_NOT_SUPPORTED)
    );
    // The server process's own query of the ABI versions.
    let q = Query {
        keys: vec![std::ffi::CString::new(keys::QUERY_STABLE_ABI_VERSION).unwrap()],
        qualifiers: vec![],
    };
    let (_, answers) = common::server_query(&server, q, LIMIT).unwrap();
    assert_eq!(answers[0].value.as_str(), Some("5.0"));
    server.finalize();
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Builds `tests/c/PROGRAM.c` against `include` and runs it with `args`
/// (rendezvous files in `tmp`); asserts it printed "tool ok".
fn run_c_program(program: &str, include: &Path, tag: &str, args: &[String], tmp: &Path) {
    let tool = common::build_c(
        &format!("tests/c/{program}.c"),
        &format!("tools_{tag}_{}", std::process::id()),
        program,
        include,
        &[],
    );
    let out = common::run_with_watchdog(
        Command::new(&tool)
            .args(args)
            .env("TMPDIR", tmp)
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit()),
        LIMIT,
        program,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{program} {args:?}: {stdout}");
    assert!(stdout.contains("tool ok"), "{stdout}");
}

/// `tests/c/tool_client.c` on our headers.
fn run_c_tool(tag: &str, args: &[String], tmp: &Path) {
    run_c_program("tool_client", &common::include_dir(), tag, args, tmp);
}

/// The header directories a C tool is built against: ours, and Debian's
/// OpenPMIx 4.2.2 headers when installed.
fn both_headers() -> Vec<(&'static str, PathBuf)> {
    let mut v = vec![("ours", common::include_dir())];
    if let Some((inc, _)) = common::reference_pmix() {
        v.push(("ref", inc));
    }
    v
}

/// The server identity of a pmixrun (its default server namespace).
fn pmixrun_server(job: &PmixrunJob) -> String {
    format!("pmix-server.{}", job.pid())
}

/// A tool initialized with `PMIX_TOOL_CONNECT_OPTIONAL` and no server is
/// initialized unconnected; with `PMIX_TOOL_DO_NOT_CONNECT` it is too,
/// and later attaches through `PMIx_tool_set_server` with
/// `PMIX_WAIT_FOR_CONNECTION` (after timing out on a server that never
/// comes). On our headers and on Debian's.
#[test]
fn a_c_tool_starts_unconnected_and_attaches_later() {
    let mut job = sleeping_job("late");
    for (h, inc) in both_headers() {
        // A pid no server has: this test's own.
        let optional = ["optional".to_owned(), std::process::id().to_string()];
        run_c_program(
            "tool_modes",
            &inc,
            &format!("opt_{h}"),
            &optional,
            job.tmp(),
        );
        let late = [
            "late".to_owned(),
            pmixrun_server(&job),
            job.nspace().to_owned(),
        ];
        run_c_program("tool_modes", &inc, &format!("late_{h}"), &late, job.tmp());
    }
    job.end();
}

/// The Rust API: an unconnected tool has its identity and no server;
/// `PMIX_TOOL_CONNECT_OPTIONAL` connects when the server is there.
#[test]
fn an_unconnected_tool_has_its_identity_and_no_server() {
    let t = Client::tool_init(&[
        info(keys::TOOL_DO_NOT_CONNECT, Value::Bool(true)),
        info(keys::TOOL_NSPACE, Value::string("lonely")),
        info(keys::TOOL_RANK, Value::Uint32(2)),
    ])
    .expect("an unconnected tool");
    assert_eq!(
        t.proc(),
        &Proc::new(Nspace::new("lonely").unwrap(), Rank(2))
    );
    assert!(t.is_singleton());
    let q = Query {
        keys: vec![std::ffi::CString::new(keys::QUERY_NAMESPACES).unwrap()],
        qualifiers: vec![],
    };
    assert_eq!(t.query(&[q]).err(), Some(Status::ERR_UNREACH));
    let me = t
        .get(t.proc(), keys::NSPACE, &[])
        .expect("its own namespace");
    assert_eq!(me.as_str(), Some("lonely"));
    t.finalize().unwrap();

    let mut job = sleeping_job("opt");
    let t = Client::tool_init(&[
        info(keys::TOOL_CONNECT_OPTIONAL, Value::Bool(true)),
        info(keys::SERVER_PIDINFO, Value::Pid(job.pid() as i32)),
        tmpdir(job.tmp()),
    ])
    .expect("an optional connection that succeeds");
    assert!(!t.is_singleton());
    check_tool(&t, job.nspace());
    t.finalize().unwrap();
    job.end();
}

/// A launcher tool (`PMIX_LAUNCHER`) connects to the server that
/// `PMIX_LAUNCHER_RNDZ_URI` names and serves tools itself: another tool
/// attaches to it by its namespace and reads the job's proc table through
/// it; its rendezvous files go when it ends.
#[test]
fn a_launcher_tool_serves_other_tools() {
    launcher_serves_a_tool(false);
}

/// The same launcher given a module of its own
/// (`PMIx_tool_set_server_module`): its tools' queries go to that module,
/// not on to the launcher's server.
#[test]
fn a_launcher_given_a_server_module_answers_through_it() {
    launcher_serves_a_tool(true);
}

/// Runs `tests/c/tool_modes.c` as a launcher (`hosted`: with its own
/// module) beside a sleeping job, attaches a tool to it and queries the
/// job's proc table through it.
fn launcher_serves_a_tool(hosted: bool) {
    let mut job = sleeping_job(if hosted { "hosted" } else { "launch" });
    let host = pmix::server::local_hostname();
    // Our URI: the file's unix line (its first is the stock door's).
    let uri =
        pmix::net::tool_files::read_uri(&job.rendezvous_file()).expect("pmixrun's rendezvous file");
    let launcher = common::build_c(
        "tests/c/tool_modes.c",
        &format!("tools_launcher_{}", std::process::id()),
        "tool_modes",
        &common::include_dir(),
        &[],
    );
    let mut child = Command::new(&launcher)
        .arg(if hosted { "hosted" } else { "launcher" })
        .env("TMPDIR", job.tmp())
        .env("PMIX_LAUNCHER_RNDZ_URI", &uri)
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut lines = Lines::of(&mut child);
    let up = lines.next_line("the launcher's first");
    let ns = up
        .strip_prefix("launcher up ")
        .unwrap_or_else(|| panic!("{up}"))
        .trim()
        .to_owned();
    let t = Client::tool_init(&[
        info(keys::SERVER_NSPACE, Value::string(&ns)),
        tmpdir(job.tmp()),
    ])
    .expect("a tool attaches to the launcher");
    assert_eq!(t.server().nspace.to_string_lossy(), ns);
    // What the launcher does not know goes on to its host: its own
    // server (the job's proc table), or the module it was given.
    let q = Query {
        keys: vec![std::ffi::CString::new(keys::QUERY_PROC_TABLE).unwrap()],
        qualifiers: vec![info(keys::NSPACE, Value::string(job.nspace()))],
    };
    let (_, answers) = t
        .query(&[q])
        .expect("the job's proc table through the launcher");
    if hosted {
        let by = answers.iter().find(|i| i.key.as_bytes() == b"answered-by");
        assert_eq!(
            by.and_then(|i| i.value.as_str()),
            Some("the launcher's module"),
            "{answers:?}"
        );
    } else {
        match &answers[0].value {
            Value::DataArray(a) => assert_eq!(a.items.len(), 2, "{a:?}"),
            other => panic!("{other:?}"),
        }
    }
    t.finalize().unwrap();
    let pid_file = job.tmp().join(format!("pmix.{host}.tool.{}", child.id()));
    assert!(pid_file.exists(), "the launcher's rendezvous file");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"done\n").unwrap();
    let (waiter, timed_out) = common::wait_at_most(child, LIMIT);
    assert!(!timed_out, "the launcher did not end");
    let status = waiter.join().unwrap().unwrap();
    assert!(status.success(), "{status:?}");
    let rest = lines.rest();
    assert!(rest.iter().any(|l| l.contains("tool ok")), "{rest:?}");
    if hosted {
        assert!(
            rest.iter().any(|l| l.contains("module answered 1 queries")),
            "{rest:?}"
        );
    }
    assert!(!pid_file.exists(), "the launcher's rendezvous file stays");
    job.end();
}

/// A tool whose server is gone finalizes with success, as OpenPMIx's
/// does (it was `PMIX_ERR_LOST_CONNECTION`; issue 21).
#[test]
fn a_tool_finalizes_after_its_server_is_gone() {
    let mut job = sleeping_job("orphan");
    let exe = common::build_c(
        "tests/c/tool_modes.c",
        &format!("tools_orphan_{}", std::process::id()),
        "tool_modes",
        &common::include_dir(),
        &[],
    );
    let mut child = Command::new(&exe)
        .args(["orphan", &job.pid().to_string()])
        .env("TMPDIR", job.tmp())
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = Lines::of(&mut child);
    assert_eq!(lines.next_line("the tool's first"), "attached");
    job.end();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"gone\n").unwrap();
    let err = common::read_in_thread(child.stderr.take().unwrap());
    let (waiter, timed_out) = common::wait_at_most(child, LIMIT);
    assert!(!timed_out, "the tool did not end");
    let status = waiter.join().unwrap().unwrap();
    let err = err.join().unwrap();
    assert!(status.success(), "{status:?}: {err}");
    let rest = lines.rest();
    assert!(rest.iter().any(|l| l.contains("tool ok")), "{rest:?} {err}");
}

#[test]
fn a_c_tool_attaches_to_two_servers_and_switches_between_them() {
    let mut a = sleeping_job("c2a");
    let mut b = sleeping_job("c2b");
    // One TMPDIR for the tool: both jobs' files are found by pid there.
    for f in std::fs::read_dir(b.tmp()).unwrap().filter_map(Result::ok) {
        let name = f.file_name();
        if name
            .to_string_lossy()
            .contains(&format!(".tool.{}", b.pid()))
        {
            std::fs::copy(f.path(), a.tmp().join(&name)).unwrap();
        }
    }
    let args = [
        a.pid().to_string(),
        a.nspace().to_owned(),
        b.pid().to_string(),
        b.nspace().to_owned(),
    ];
    run_c_tool("two", &args, a.tmp());
    a.end();
    b.end();
}

#[test]
fn a_c_tool_attaches_by_pid() {
    let mut job = sleeping_job("c");
    run_c_tool(
        "one",
        &[job.pid().to_string(), job.nspace().to_owned()],
        job.tmp(),
    );
    job.end();
}

/// python3-pmix's `PMIxTool` (OpenPMIx 4.2.2's own bindings) attaching to
/// a running pmixrun through our library.
#[test]
fn python_tool_attaches_and_queries() {
    let Some(python) = common::python_with_bindings() else {
        return;
    };
    let mut job = sleeping_job("py");
    job.run_python_tool(python, "tool_client.py", "py tool ok");
    job.end();
}

/// A C host with tool support names the tool through its `tool_connected`
/// upcall (answered from a thread of its own).
#[test]
fn a_c_hosts_tool_connected_names_the_tool() {
    let tmp = private_tmp("tools-host");
    let tag = format!("tools_host_{}", std::process::id());
    let tool = common::build_c(
        "tests/c/tool_client.c",
        &tag,
        "tool_client",
        &common::include_dir(),
        &[],
    );
    let host = common::build_c(
        "tests/c/tool_host.c",
        &format!("{tag}_h"),
        "tool_host",
        &common::include_dir(),
        &["-pthread"],
    );
    common::run_c_host(&host, &[tool.as_os_str()], &tmp, LIMIT, "tool host ok");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `pmix-ps` lists a running pmixrun job's ranks through the tool path;
/// its exit codes say what went wrong.
#[test]
fn pmix_ps_lists_the_running_job() {
    let mut job = sleeping_job("ps");
    let ps = env!("CARGO_BIN_EXE_pmix-ps");
    let run = |args: &[&str]| {
        common::run_with_watchdog(
            Command::new(ps)
                .args(args)
                .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
            LIMIT,
            "pmix-ps",
        )
    };
    let tmp = job.tmp().display().to_string();
    let out = run(&["--tmpdir", &tmp]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("server {}", job.pid())), "{text}");
    assert!(
        text.contains(&format!("job {}: 2 ranks", job.nspace())),
        "{text}"
    );
    assert!(text.contains("rank 1 "), "{text}");
    assert_eq!(
        run(&["--tmpdir", "/nonexistent/pmix-ps"]).status.code(),
        Some(1)
    );
    assert_eq!(run(&["--bogus"]).status.code(), Some(2));
    assert!(run(&["--help"]).status.success());
    job.end();
}

/// Events between tools: one tool's notification (range global, and a
/// custom range naming the other tool) reaches a handler another tool
/// registered, with the notifier as source and its infos.
#[test]
fn tools_exchange_events() {
    use pmix::events::Range;
    let mut job = sleeping_job("ev");
    // Two tools of one process: each names itself (the default identity
    // is the process's).
    let attach = |name: &str| {
        Client::tool_init(&[
            info(keys::SERVER_PIDINFO, Value::Pid(job.pid() as i32)),
            info(keys::TOOL_NSPACE, Value::string(name)),
            tmpdir(job.tmp()),
        ])
        .expect("a tool attaches")
    };
    let (a, b) = (attach("tool-a"), attach("tool-b"));
    assert_ne!(a.proc(), b.proc());
    let code = Status(-3007); // below PMIX_EXTERNAL_ERR_BASE (-3000)
    let (handler, seen) = common::event_forwarder();
    a.register_event_handler(&[code], &[], handler).unwrap();
    let payload = info("tools.test.key", Value::Uint32(42));
    b.notify_event(
        code,
        None,
        Range::GLOBAL,
        std::slice::from_ref(&payload),
        None,
    )
    .unwrap();
    let (status, source, infos) = seen.recv_timeout(LIMIT).expect("a global event");
    assert_eq!((status, &source), (code, b.proc()));
    assert!(infos.iter().any(|i| i == &payload), "{infos:?}");
    let custom = info(
        keys::EVENT_CUSTOM_RANGE,
        Value::proc_array(std::slice::from_ref(a.proc())),
    );
    b.notify_event(code, None, Range::CUSTOM, &[custom], None)
        .unwrap();
    let (_, source, _) = seen.recv_timeout(LIMIT).expect("a custom-range event");
    assert_eq!(&source, b.proc());
    a.finalize().unwrap();
    b.finalize().unwrap();
    job.end();
}

/// `PMIX_QUERY_AVAIL_SERVERS`: the servers a tool could attach to, read
/// from the rendezvous files (namespace, rank, pid, user, version), here
/// by an unconnected tool.
#[test]
fn a_tool_lists_the_available_servers() {
    let mut job = sleeping_job("avail");
    let t = Client::tool_init(&[
        info(keys::TOOL_DO_NOT_CONNECT, Value::Bool(true)),
        info(keys::TOOL_NSPACE, Value::string("lister")),
    ])
    .unwrap();
    let dir = Value::string(job.tmp().to_str().unwrap());
    let q = Query {
        keys: vec![std::ffi::CString::new(keys::QUERY_AVAIL_SERVERS).unwrap()],
        qualifiers: vec![
            info(keys::SERVER_TMPDIR, dir.clone()),
            info(keys::SYSTEM_TMPDIR, dir),
        ],
    };
    let (status, answers) = t.query(&[q]).expect("available servers");
    assert_eq!(status, Status::SUCCESS);
    let servers = answers[0].value.infos().expect("an array of servers");
    assert_eq!(servers.len(), 1, "{servers:?}");
    assert_eq!(
        servers[0].key.as_bytes(),
        keys::SERVER_INFO_ARRAY.as_bytes()
    );
    let one = servers[0].value.infos().expect("the server's infos");
    let get = |k: &str| pmix::info::value_of(&one, k).cloned();
    assert_eq!(
        get(keys::SERVER_NSPACE).and_then(|v| v.as_str().map(str::to_owned)),
        Some(pmixrun_server(&job))
    );
    assert_eq!(
        get(keys::SERVER_PIDINFO).and_then(|v| v.as_u32()),
        Some(job.pid())
    );
    // SAFETY: geteuid(2) has no preconditions.
    let uid = unsafe { libc::geteuid() };
    assert_eq!(get(keys::USERID).and_then(|v| v.as_u32()), Some(uid));
    assert!(get(keys::VERSION_INFO).is_some());
    t.finalize().unwrap();
    job.end();
}

/// A tool and a job's rank connect (`PMIx_Connect` over both) and
/// disconnect: the rank waits for the tool's event, whose source names
/// the tool, then both call; the rank finalizes only once the tool did
/// (its stdin closed by the wait), so that the tool's server is there.
#[test]
fn a_tool_and_a_job_rank_connect() {
    let peer = common::build_c(
        "tests/c/tool_peer.c",
        &format!("tools_peer_{}", std::process::id()),
        "tool_peer",
        &common::include_dir(),
        &["-pthread"],
    );
    let mut job = PmixrunJob::start("tools-peer", &["-n", "1", peer.to_str().unwrap()]);
    let ready = job.out.next_line("the rank's ready");
    let ns = ready
        .strip_prefix("ready ")
        .expect("ready line")
        .trim()
        .to_owned();
    let t = job.tool();
    let rank = Proc::new(Nspace::new(ns.as_str()).unwrap(), Rank(0));
    t.notify_event(
        Status(-3009),
        None,
        pmix::events::Range::CUSTOM,
        &[info(
            keys::EVENT_CUSTOM_RANGE,
            Value::proc_array(std::slice::from_ref(&rank)),
        )],
        None,
    )
    .unwrap();
    let both = [rank, t.proc().clone()];
    t.connect_procs(&both, &[common::timeout(30)])
        .expect("the tool connects with the rank");
    t.disconnect_procs(&both, &[common::timeout(30)])
        .expect("and disconnects");
    t.finalize().unwrap();
    let code = job.wait();
    let out = job.out.rest();
    assert_eq!(code, Some(0), "{out:?}");
    assert!(
        out.iter().any(|l| l.starts_with("connected tool.")),
        "{out:?}"
    );
    assert!(out.iter().any(|l| l == "peer ok"), "{out:?}");
}

/// `pmix-attach` attaches to a running pmixrun job by pid, forwards its
/// own stdin to the ranks and streams their tagged output until the job
/// ends (its server goes away); its usage and refusals have their exit
/// codes.
#[test]
fn pmix_attach_streams_a_running_jobs_output() {
    let attach = env!("CARGO_BIN_EXE_pmix-attach");
    // The ranks wait for a line on stdin (which only the tool gives:
    // pmixrun's own stdin stays open and silent), then write to both
    // channels and end.
    let mut job = PmixrunJob::start_with_stderr(
        "tools-attach",
        &[
            "--stdin",
            "all",
            "-n",
            "2",
            "sh",
            "-c",
            "echo ready $PMIX_NAMESPACE; read line; echo \"rank $PMIX_RANK got $line\"; echo \"rank $PMIX_RANK err\" >&2",
        ],
        false,
    );
    for _ in 0..2 {
        let l = job.out.next_line("the ranks' ready");
        assert!(l.starts_with("ready "), "{l}");
    }
    let mut tool = Command::new(attach)
        .args(["--pid", &job.pid().to_string(), "--tmpdir"])
        .arg(job.tmp())
        .args(["--tag-output", "--stdin", "all"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = Lines::of(&mut tool);
    let mut err = Lines::new(tool.stderr.take().unwrap());
    let following = err.next_line("pmix-attach's first");
    assert!(following.contains("following pmixrun-"), "{following}");
    use std::io::Write;
    let mut to_tool = tool.stdin.take().unwrap();
    to_tool.write_all(b"go\n").unwrap();
    drop(to_tool);
    let (waiter, timed_out) = common::wait_at_most(tool, LIMIT);
    assert!(!timed_out, "pmix-attach did not end with the job");
    let status = waiter.join().unwrap().unwrap();
    let lines = out.rest();
    let errs = err.rest();
    assert!(status.success(), "{status:?} {lines:?} {errs:?}");
    for r in 0..2 {
        let want = format!("<stdout>: rank {r} got go");
        assert!(
            lines.iter().any(|l| l.ends_with(&want)),
            "{want}: {lines:?}"
        );
        let want = format!("<stderr>: rank {r} err");
        assert!(errs.iter().any(|l| l.ends_with(&want)), "{want}: {errs:?}");
    }
    assert_eq!(job.wait(), Some(0));

    // No server there: exit 1 with the reason; a bad argument: 2.
    let none = Command::new(attach)
        .args(["--pid", "999999", "--tmpdir"])
        .arg(job.tmp())
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no PMIx server"));
    let usage = Command::new(attach).arg("--bogus").output().unwrap();
    assert_eq!(usage.status.code(), Some(2));
    let help = Command::new(attach).arg("--help").output().unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("usage: pmix-attach"));
}

/// A tool that spawns a job through pmixrun hears of its end
/// (`PMIX_EVENT_JOB_END`, the job's namespace as the affected process,
/// `PMIX_JOB_TERM_STATUS` 0), while the launcher's own job runs on; the
/// launcher says what its spawns support (`PMIX_QUERY_SPAWN_SUPPORT`).
#[test]
fn a_tool_hears_of_the_end_of_the_job_it_spawned() {
    use pmix::value::App;
    let mut job = sleeping_job("end");
    let t = job.tool();
    let (handler, seen) = common::event_forwarder();
    t.register_event_handler(&[Status::EVENT_JOB_END], &[], handler)
        .unwrap();
    let cstr = |s: &str| std::ffi::CString::new(s).unwrap();
    let app = App {
        cmd: Some(cstr("sh")),
        argv: vec![cstr("sh"), cstr("-c"), cstr("echo spawned; exit 0")],
        maxprocs: 2,
        ..Default::default()
    };
    let ns = t.spawn(&[], &[app]).expect("a spawned job");
    let (status, _, infos) = seen.recv_timeout(LIMIT).expect("the job's end");
    assert_eq!(status, Status::EVENT_JOB_END);
    let affected = common::affected(&infos).expect("the ended job");
    assert_eq!(affected, Proc::new(ns, Rank::WILDCARD));
    assert_eq!(
        pmix::info::value_of(&infos, keys::JOB_TERM_STATUS),
        Some(&Value::Status(0))
    );
    // The launcher's own job still runs: the tool still reaches it, and
    // asks what its spawns support.
    check_tool(&t, job.nspace());
    let q = Query {
        keys: vec![std::ffi::CString::new(keys::QUERY_SPAWN_SUPPORT).unwrap()],
        qualifiers: vec![],
    };
    let (_, answers) = t.query(&[q]).expect("spawn support");
    let list = answers[0].value.as_str().expect("a list").to_owned();
    for k in [keys::WDIR, keys::DEBUG_STOP_IN_INIT, keys::DEBUGGER_DAEMONS] {
        assert!(list.split(',').any(|a| a == k), "{k}: {list}");
    }
    t.finalize().unwrap();
    job.end();
}

/// A tool of another user: refused (`PMIX_ERR_NO_PERMISSIONS`) by a
/// server whose host has no `tool_connected`; a host that admits it (told
/// the tool's `PMIX_USERID`) lets it in. Needs root (to run the tool as
/// `nobody`); the server's socket is given to `nobody` so that only the
/// server's own check stands between them.
#[test]
fn a_tool_of_another_user_is_refused_unless_the_host_admits_it() {
    use pmix::server::{Completion, HostModule};
    use std::os::unix::process::CommandExt;
    // SAFETY: geteuid(2) has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: needs root to run a tool as another user");
        return;
    }
    const NOBODY: u32 = 65534;
    /// Admits every tool, noting the user it was told.
    struct Admit(std::sync::Mutex<Option<u32>>);
    impl HostModule for Admit {
        fn tool_connected(
            &self,
            tool: &Proc,
            _requested: bool,
            infos: &[Info],
            done: Completion<Proc>,
        ) -> Result<(), Status> {
            let uid = pmix::info::value_of(infos, keys::USERID).and_then(Value::as_u32);
            *self.0.lock().unwrap() = uid;
            done.complete(Ok(tool.clone()));
            Ok(())
        }
    }
    let exe = common::build_c(
        "tests/c/tool_modes.c",
        &format!("tools_foreign_{}", std::process::id()),
        "tool_modes",
        &common::include_dir(),
        &[],
    );
    let admit = std::sync::Arc::new(Admit(std::sync::Mutex::new(None)));
    let hosts: [(std::sync::Arc<dyn HostModule>, Status); 2] = [
        (std::sync::Arc::new(NoHost), Status(-23)), // PMIX_ERR_NO_PERMISSIONS
        (admit.clone(), Status::SUCCESS),
    ];
    for (host, expect) in hosts {
        let config = ServerConfig {
            tool_support: true,
            rendezvous_owner: Some((NOBODY, NOBODY)),
            ..ServerConfig::default()
        };
        let server = Server::start(config, host).expect("a server");
        let out = common::run_with_watchdog(
            Command::new(&exe)
                .args(["uri", server.uri(), &expect.0.to_string()])
                .uid(NOBODY)
                .gid(NOBODY)
                .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit()),
            LIMIT,
            "a tool of another user",
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("tool ok"),
            "{expect:?}: {stdout}"
        );
        server.finalize();
    }
    assert_eq!(*admit.0.lock().unwrap(), Some(NOBODY));
}
