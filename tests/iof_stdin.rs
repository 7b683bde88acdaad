//! `PMIX_IOF_PUSH_STDIN` through the Rust API (issue 22 item 3): a Rust
//! tool forwards its own stdin to a `pmixrun` job's ranks with
//! `Client::iof_push_stdin`, ending with the end of input; the ranks print
//! each line they read and `eof` when their stdin closes. A second
//! forwarding while the first runs is refused. `PushRequest::of` says
//! which pushes ask for it (the rule the C API's `PMIx_IOF_push` uses).
//!
//! The tool is this test binary run again (`stdin_pusher`), its stdin a
//! pipe the test writes and closes. Every wait is bounded.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use pmix::client::{Client, PushRequest};
use pmix::{keys, Nspace, Proc, Rank, Status, Value};

use common::pmixrun_job::PmixrunJob;

const LIMIT: Duration = Duration::from_secs(60);

/// The ranks: their namespace, `ready`, each line of stdin as
/// `got RANK LINE`, then `eof RANK`.
const ECHO: &str = "echo \"ns $PMIX_NAMESPACE\"; echo ready; \
while read l; do echo \"got $PMIX_RANK $l\"; done; echo \"eof $PMIX_RANK\"";

#[test]
fn push_request_names_what_a_push_asks_for() {
    let stdin = [common::info(keys::IOF_PUSH_STDIN, Value::Bool(true))];
    let off = [common::info(keys::IOF_PUSH_STDIN, Value::Bool(false))];
    assert_eq!(PushRequest::of(None, &stdin), PushRequest::OwnStdin);
    assert_eq!(PushRequest::of(None, &off), PushRequest::EndOfInput);
    assert_eq!(PushRequest::of(None, &[]), PushRequest::EndOfInput);
    assert_eq!(
        PushRequest::of(Some(b"x"), &stdin),
        PushRequest::Bytes(b"x")
    );
}

/// The tool (run by `a_rust_tool_forwards_its_stdin_to_the_ranks`): with
/// `TOOLSESS_PID`, `TOOLSESS_TMP` and `TOOLSESS_NS` set, attaches to that
/// pmixrun, forwards its stdin to every rank of `TOOLSESS_NS`, and waits
/// (bounded) for the job's end or the server's loss. Without them: nothing.
#[test]
fn stdin_pusher() {
    let (Ok(pid), Ok(tmp), Ok(ns)) = (
        std::env::var("TOOLSESS_PID"),
        std::env::var("TOOLSESS_TMP"),
        std::env::var("TOOLSESS_NS"),
    ) else {
        return;
    };
    let r = (|| -> Result<(), String> {
        let t = Client::tool_init(&[
            common::info(keys::SERVER_PIDINFO, Value::Pid(pid.parse().unwrap())),
            common::info(keys::SERVER_TMPDIR, Value::string(&tmp)),
        ])
        .map_err(|s| format!("tool_init: {s:?}"))?;
        let (tx, rx) = mpsc::channel::<()>();
        let tx = std::sync::Mutex::new(tx);
        let handler: pmix::events::EventHandler = std::sync::Arc::new(move |call| {
            let _ = tx.lock().unwrap().send(());
            call.done.complete(Status::SUCCESS, Vec::new());
        });
        t.register_event_handler(
            &[Status::ERR_LOST_CONNECTION, Status::EVENT_JOB_END],
            &[],
            handler,
        )
        .map_err(|s| format!("events: {s:?}"))?;
        let all = [Proc::new(Nspace::new(ns).unwrap(), Rank::WILDCARD)];
        t.iof_push_stdin(&all, &[])
            .map_err(|s| format!("iof_push_stdin: {s:?}"))?;
        // One forwarding of the process's stdin at a time.
        if t.iof_push_stdin(&all, &[]) != Err(Status::ERR_BAD_PARAM) {
            return Err("a second forwarding was not refused".into());
        }
        rx.recv_timeout(LIMIT)
            .map_err(|_| "no end of the job".to_string())?;
        let _ = t.finalize();
        Ok(())
    })();
    common::exit_with("stdin_pusher", r);
}

#[test]
fn a_rust_tool_forwards_its_stdin_to_the_ranks() {
    let mut job = PmixrunJob::start("iofstdin", &["--stdin", "all", "-n", "2", "sh", "-c", ECHO]);
    job.out.wait_for_count("ready", 2);
    job.read_nspace("ns ");
    job.wait_serving();
    let argv = common::this_test_as_program("stdin_pusher");
    let mut tool = Command::new(&argv[0])
        .args(&argv[1..])
        .env("TOOLSESS_PID", job.pid().to_string())
        .env("TOOLSESS_TMP", job.tmp())
        .env("TOOLSESS_NS", job.nspace())
        .stdin(Stdio::piped())
        .spawn()
        .expect("the tool starts");
    {
        let mut to_tool = tool.stdin.take().unwrap();
        to_tool.write_all(b"hello\nworld\n").unwrap();
    } // closed: the tool's stdin ends, so does the ranks'.
      // Every line reaches every rank, then the end of input.
    for r in 0..2 {
        for l in ["got {r} hello", "got {r} world", "eof {r}"] {
            job.out.wait_for(&l.replace("{r}", &r.to_string()));
        }
    }
    let (waiter, timed_out) = common::wait_at_most(tool, LIMIT);
    assert!(!timed_out, "the tool did not end");
    let status = waiter.join().unwrap().unwrap();
    assert!(status.success(), "{status:?}");
    job.end();
}
