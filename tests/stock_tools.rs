//! Tools and singletons on their own OpenPMIx library at our server's
//! stock door (issue 23).
//!
//! - `tests/c/tool_client.c`, built against Debian's 4.2.2 headers, on
//!   Debian's `libpmix.so.2` and on the wheel's 5.0.11: attaches to a
//!   running `pmixrun` by its pid (`PMIX_SERVER_PIDINFO`: the
//!   `pmix.<host>.tool.<pid>` file, whose first line is the door's URI),
//!   gets a `tool.` name from the server, finds the job in the
//!   namespaces query, reads its size, finalizes.
//! - python3-pmix's `PMIxTool` on Debian's library (`tests/python/
//!   stock_tool.py`): the same attach, the namespaces query, the job's
//!   proc table, and its size and rank 1's local rank and node by get.
//! - A singleton (`tests/c/stock_singleton.c`: no server in its
//!   environment) on either library finds `pmixrun --system-server` by
//!   `pmix.sys.<host>` and is answered by it (a 4.2 singleton reads a
//!   tool's handshake answer, a 5.0 one a client's).
//! - A C host on our library (`tests/c/tool_host.c`) names a stock tool
//!   through its `tool_connected`.
//! - Raw tool connect messages at a server of this test: a tool asking for
//!   a name gets one with the server's name; one claiming a name of a
//!   registered job, or on a server without tool support, is refused in
//!   the tool's answer layout and the connection closed.
//!
//! Every run is bounded (watchdogs, `pmixrun --timeout`, read timeouts).

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::pmixrun_job::{PmixrunJob, LIMIT};
use common::stock_door::{closed, open, read_answer, server_with_job_config, v41};
use pmix::openpmix::handshake::{Identity, PeerKind};
use pmix::openpmix::{ConnectMessage, ToolReply};
use pmix::server::ServerConfig;
use pmix::{Nspace, Proc, Rank, Status};

/// `tests/c/NAME.c` on Debian's headers, in a directory of its own.
fn stock_program(name: &str) -> Option<(PathBuf, PathBuf)> {
    common::stock_door::stock_program(name, &format!("stock-tools-{name}"))
}

/// The libraries a stock program runs on here: Debian's, and the wheel's
/// when installed.
fn stock_libs(debian: &Path) -> Vec<PathBuf> {
    let mut v = vec![debian.to_path_buf()];
    v.extend(common::ompi5().map(|w| w.pmix_lib_dir()));
    v
}

/// Runs `cmd` under a watchdog; its stdout, failing the test unless it
/// succeeded.
fn run_ok(cmd: &mut Command, what: &str) -> String {
    let out = common::run_with_watchdog(
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped()),
        LIMIT,
        what,
    );
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{what}:\n{o}\n{e}");
    o
}

#[test]
fn a_stock_c_tool_attaches_to_pmixrun_by_pid() {
    let Some((tool, debian)) = stock_program("tool_client") else {
        return;
    };
    let mut job = PmixrunJob::sleeping("stock-tool-c");
    job.wait_serving();
    let first = std::fs::read_to_string(job.rendezvous_file()).unwrap();
    assert!(
        first.lines().next().unwrap().contains(";tcp4://127.0.0.1:"),
        "the door's URI comes first:\n{first}"
    );
    for lib in stock_libs(&debian) {
        let out = run_ok(
            Command::new(&tool)
                .args([job.pid().to_string(), job.nspace().to_owned()])
                .env("TMPDIR", job.tmp())
                .env("LD_LIBRARY_PATH", &lib),
            "stock tool",
        );
        assert!(out.contains("tool ok"), "{}: {out}", lib.display());
    }
    job.end();
}

#[test]
fn python3_pmix_tool_on_debians_library_reads_namespaces_and_proc_table() {
    let Some(python) = common::python_with_bindings() else {
        return;
    };
    let Some((_, lib)) = common::reference_pmix() else {
        return;
    };
    let mut job = PmixrunJob::sleeping("stock-tool-py");
    job.wait_serving();
    let out = run_ok(
        Command::new(python)
            .args(["-W", "ignore"])
            .arg(common::root().join("tests/python/stock_tool.py"))
            .args([
                job.pid().to_string(),
                job.nspace().to_owned(),
                job.tmp().display().to_string(),
            ])
            .env("TMPDIR", job.tmp())
            .env("LD_LIBRARY_PATH", &lib),
        "python stock tool",
    );
    assert!(out.contains("stockpy tool ok"), "{out}");
    // The job's data by get: a 4.2 tool asks for rank 1's keys at the
    // WILDCARD rank, and finds them in the job's whole data.
    let want = format!(
        "stockpy tool size 2 lrank 1 host {}",
        pmix::server::local_hostname()
    );
    assert!(out.lines().any(|l| l == want), "{want}:\n{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("stockpy tool lib "))
        .unwrap_or_else(|| panic!("no lib line:\n{out}"));
    let path = Path::new(line.rsplit(' ').next().unwrap());
    assert_eq!(
        path.canonicalize().unwrap(),
        lib.join("libpmix.so.2").canonicalize().unwrap(),
        "{line}"
    );
    job.end();
}

#[test]
fn a_stock_singleton_finds_the_system_server_and_is_served() {
    let Some((exe, debian)) = stock_program("stock_singleton") else {
        return;
    };
    let mut job = PmixrunJob::sleeping_with("stock-singleton", &["--system-server"]);
    job.wait_serving();
    for lib in stock_libs(&debian) {
        let out = run_ok(
            Command::new(&exe)
                .env_clear()
                .env("PATH", "/usr/bin:/bin")
                .env("TMPDIR", job.tmp())
                .env("LD_LIBRARY_PATH", &lib),
            "stock singleton",
        );
        // Connected: init succeeds (PMIX_ERR_UNREACH alone) and the
        // server answers the query with pmixrun's job.
        assert!(out.contains("singleton init 0 singleton."), "{out}");
        let want = format!("singleton namespaces 0 {}", job.nspace());
        assert!(
            out.lines().any(|l| l.starts_with(&want)),
            "{}: {out}",
            lib.display()
        );
        assert!(out.contains("singleton done 0"), "{out}");
    }
    job.end();
}

/// A tool's connect message of `kind` (named `proc` if the kind carries
/// a name), as 5.0.11 sends it.
fn tool_message(kind: PeerKind, proc: Option<Proc>) -> ConnectMessage {
    let (uid, gid) = pmix::net::my_ids();
    let placeholder = Proc::new(Nspace::new("x").unwrap(), Rank(0));
    let mut m = ConnectMessage::client(placeholder, uid, gid, "5.0.11", v41());
    m.kind = kind;
    m.identity = Identity {
        ids: Some((uid, gid)),
        proc,
    };
    m
}

#[test]
fn raw_tools_are_named_or_refused_in_the_tool_answer_layout() {
    let ns = Nspace::new("stock-tools-raw").unwrap();
    let config = ServerConfig {
        tool_support: true,
        tmpdir: common::pmixrun_job::private_tmp("stock-tools-raw"),
        ..ServerConfig::default()
    };
    let (server, uri) = server_with_job_config(config, &ns, pmix::net::my_ids().0);
    let server_proc = Proc::new(server.config().nspace.clone(), server.config().rank);

    // A tool asking for a name gets `tool.<host>.<pid>` and the server's.
    let mut s = open(&uri);
    let m = tool_message(PeerKind::ToolNeedsId, None);
    s.write_all(&m.encode().unwrap()).unwrap();
    let r = read_answer(&mut s, |b| ToolReply::parse(b, true)).expect("named");
    let named = r.assigned.expect("a name");
    let want = format!("tool.{}.{}", server.config().hostname, std::process::id());
    assert_eq!(named.nspace.to_string_lossy(), want);
    assert_eq!(r.server, server_proc);

    // The same name again, claimed by a second tool: connected already.
    let mut s2 = open(&uri);
    let m = tool_message(PeerKind::ToolGivenId, Some(named.clone()));
    s2.write_all(&m.encode().unwrap()).unwrap();
    let r = read_answer(&mut s2, |b| ToolReply::parse(b, false));
    assert_eq!(r.unwrap_err(), Status::ERR_EXISTS.0);
    assert!(closed(&mut s2), "a refused tool is closed");

    // A name in a registered job: a tool is no client.
    let mut s3 = open(&uri);
    let m = tool_message(PeerKind::ToolGivenId, Some(Proc::new(ns.clone(), Rank(0))));
    s3.write_all(&m.encode().unwrap()).unwrap();
    let r = read_answer(&mut s3, |b| ToolReply::parse(b, false));
    assert_eq!(r.unwrap_err(), Status::ERR_BAD_PARAM.0);
    assert!(closed(&mut s3));
    drop(s);
}

#[test]
fn a_server_without_tool_support_refuses_stock_tools() {
    let ns = Nspace::new("stock-no-tools").unwrap();
    let (_server, uri) =
        server_with_job_config(ServerConfig::default(), &ns, pmix::net::my_ids().0);
    let mut s = open(&uri);
    let m = tool_message(PeerKind::ToolNeedsId, None);
    s.write_all(&m.encode().unwrap()).unwrap();
    let r = read_answer(&mut s, |b| ToolReply::parse(b, true));
    assert_eq!(r.unwrap_err(), Status::ERR_NOT_SUPPORTED.0);
    assert!(closed(&mut s));
}

/// A C host on our library (`PMIx_server_init` with
/// `PMIX_SERVER_TOOL_SUPPORT`, `tests/c/tool_host.c`) serves a stock tool
/// too: Debian's tool finds it by pid through the files it wrote, and
/// the host's `tool_connected` names it.
#[test]
fn a_c_host_names_a_stock_tool() {
    let Some((tool, debian)) = stock_program("tool_client") else {
        return;
    };
    let tmp = common::pmixrun_job::private_tmp("stock-tool-host");
    let host = common::build_c(
        "tests/c/tool_host.c",
        &format!("stock_tool_host_{}", std::process::id()),
        "tool_host",
        &common::include_dir(),
        &["-pthread"],
    );
    // The host runs its tool with our library's path: the wrapper puts
    // Debian's first.
    let wrapper = tool.with_file_name("stock_tool.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nLD_LIBRARY_PATH={} exec {} \"$@\"\n",
            debian.display(),
            tool.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = common::run_c_host(&host, &[wrapper.as_os_str()], &tmp, LIMIT, "tool host ok");
    assert!(out.contains("tool ok"), "{out}");
    let _ = std::fs::remove_dir_all(&tmp);
}
