//! I/O forwarding (issue 12's third part): a tool attached to a running
//! `pmixrun` job pulls its ranks' stdout and stderr live, tagged, in
//! order per rank and channel, and pushes their stdin (the C API on our
//! headers and on Debian's, the Rust API, python3-pmix's `PMIxTool`);
//! `pmixrun --stdin` forwards its own stdin; a tool that stops reading
//! does not hold the job up (its output is dropped, and it is told how
//! much); a C host's `PMIx_server_IOF_deliver` reaches a tool that pulled,
//! and a tool's push reaches the host's `push_stdin`.
//!
//! Synchronisation is by lines: the ranks print `ready` and wait for a
//! line on stdin; the test reads `pmixrun`'s output for those lines
//! before it starts a tool. Every wait is bounded.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use pmix::client::IofChunk;
use pmix::wire::iof::channel;
use pmix::{keys, Nspace, Proc, Rank, Value};

use common::pmixrun_job::{private_tmp, Lines, PmixrunJob};

const LIMIT: Duration = Duration::from_secs(60);
/// Numbered lines each rank prints on each channel.
const NLINES: u32 = 5;

/// The ranks' program of the pull-and-push scenario: `ready`, a line of
/// stdin, numbered lines on stdout and stderr, the rest of stdin, `bye`.
const PULL_PUSH: &str = "echo ready; read x; i=1; while [ $i -le 5 ]; do \
echo \"out $PMIX_RANK $i\"; echo \"err $PMIX_RANK $i\" >&2; i=$((i+1)); done; \
cat >/dev/null; echo \"bye $PMIX_RANK\"";

/// Starts `pmixrun ARGS -n N sh -c SCRIPT` whose ranks print their
/// namespace (`ns NSPACE`) first; returns once every rank printed
/// `ready`.
fn ready_job(tag: &str, args: &[&str], n: u32, script: &str, show_stderr: bool) -> PmixrunJob {
    let n_ranks = n.to_string();
    let script = format!("echo \"ns $PMIX_NAMESPACE\"; {script}");
    let mut argv = args.to_vec();
    argv.extend(["-n", &n_ranks, "sh", "-c", &script]);
    let mut job = PmixrunJob::start_with_stderr(&format!("iof-{tag}"), &argv, show_stderr);
    job.out.wait_for_count("ready", n as usize);
    job.read_nspace("ns ");
    job
}

/// Pulls `channels` of `all` (a job's wildcard proc) through the tool
/// `t` into `handler`, with `dirs`; the registration's id.
fn pull(
    t: &pmix::client::Client,
    all: &Proc,
    channels: u16,
    dirs: &[pmix::Info],
    handler: pmix::client::IofHandler,
) -> u64 {
    t.iof_pull(std::slice::from_ref(all), channels, dirs, Some(handler))
        .expect("pull")
}

/// The C tool, built on `include` (our headers or Debian's), pulls and
/// pushes a 2-rank job.
fn c_tool_scenario(tag: &str, include: &std::path::Path) {
    let tool = common::build_c(
        "tests/c/iof_tool.c",
        &format!("iof_{tag}"),
        "iof_tool",
        include,
        &["-pthread"],
    );
    let mut job = ready_job(tag, &["--stdin", "all"], 2, PULL_PUSH, true);
    let out = common::run_with_watchdog(
        Command::new(&tool)
            .args(["job", &job.pid().to_string(), job.nspace(), "2", "5"])
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .env("TMPDIR", job.tmp())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit()),
        LIMIT,
        "iof_tool",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("iof tool ok"),
        "{text}"
    );
    // The tool's end of input reached both ranks.
    let mut byes = 0;
    while byes < 2 {
        byes += usize::from(job.out.next_line("bye").starts_with("bye "));
    }
    assert_eq!(job.wait(), Some(0), "the job failed");
}

#[test]
fn a_c_tool_pulls_tagged_output_and_pushes_stdin_on_our_headers() {
    c_tool_scenario("ours", &common::include_dir());
}

#[test]
fn a_c_tool_pulls_tagged_output_and_pushes_stdin_on_debians_headers() {
    let Some((inc, _)) = common::reference_pmix() else {
        return;
    };
    c_tool_scenario("deb", &inc);
}

/// What a Rust handler saw, per (rank, channel): the text (tags
/// included) and whether the stream ended.
#[derive(Default)]
struct Seen {
    text: std::collections::HashMap<(u32, u16), String>,
    ended: std::collections::HashSet<(u32, u16)>,
    dropped: u64,
    bytes: usize,
}

fn collector() -> (Arc<(Mutex<Seen>, Condvar)>, pmix::client::IofHandler) {
    let seen = Arc::new((Mutex::new(Seen::default()), Condvar::new()));
    let s = seen.clone();
    let handler: pmix::client::IofHandler = Arc::new(move |c: &IofChunk<'_>| {
        let mut g = s.0.lock().unwrap();
        let key = (c.source.rank.0, c.channel);
        g.text
            .entry(key)
            .or_default()
            .push_str(&String::from_utf8_lossy(c.data));
        g.bytes += c.data.len();
        for i in c.infos {
            let k = i.key.as_bytes();
            if k == keys::IOF_COMPLETE.as_bytes() {
                g.ended.insert(key);
            } else if k == pmix::server::IOF_DROPPED.as_bytes() {
                if let Value::Uint64(n) = i.value {
                    g.dropped += n;
                }
            }
        }
        s.1.notify_all();
    });
    (seen, handler)
}

fn wait_seen(seen: &(Mutex<Seen>, Condvar), what: &str, cond: impl Fn(&Seen) -> bool) {
    let g = seen.0.lock().unwrap();
    let (g, t) = seen.1.wait_timeout_while(g, LIMIT, |s| !cond(s)).unwrap();
    if t.timed_out() {
        let short: Vec<(&(u32, u16), String)> = g
            .text
            .iter()
            .map(|(k, v)| {
                (
                    k,
                    v.chars()
                        .rev()
                        .take(300)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect(),
                )
            })
            .collect();
        panic!(
            "timed out waiting for {what}: ended {:?}, tails {short:?}",
            g.ended
        );
    }
}

#[test]
fn a_rust_tool_pulls_tagged_output_and_pushes_stdin() {
    let mut job = ready_job("rust", &["--stdin", "all"], 2, PULL_PUSH, true);
    let t = job.tool();
    let all = Proc::new(Nspace::new(job.nspace()).unwrap(), Rank::WILDCARD);
    let (seen, handler) = collector();
    let tag = [common::info(keys::IOF_TAG_OUTPUT, Value::Bool(true))];
    let id = pull(&t, &all, channel::STDOUT | channel::STDERR, &tag, handler);
    // A push to nobody who reads a fed stdin is refused; stdin cannot be
    // pulled.
    let nobody = Proc::new(Nspace::new("nobody").unwrap(), Rank(0));
    assert_eq!(
        t.iof_push(&[nobody], Some(b"x"), &[]).err(),
        Some(pmix::Status::ERR_NOT_FOUND)
    );
    assert_eq!(
        t.iof_pull(std::slice::from_ref(&all), channel::STDIN, &[], None)
            .err(),
        Some(pmix::Status::ERR_NOT_SUPPORTED)
    );
    t.iof_push(std::slice::from_ref(&all), Some(b"go\n"), &[])
        .expect("push");
    let jobid = job.nspace().rsplit('@').next().unwrap().to_owned();
    let expected = |r: u32, c: u16| -> String {
        let (name, word) = if c == channel::STDOUT {
            ("stdout", "out")
        } else {
            ("stderr", "err")
        };
        (1..=NLINES)
            .map(|i| format!("[{jobid},{r}]<{name}>: {word} {r} {i}\n"))
            .collect()
    };
    wait_seen(&seen, "the numbered lines", |s| {
        (0..2).all(|r| {
            [channel::STDOUT, channel::STDERR].iter().all(|&c| {
                s.text
                    .get(&(r, c))
                    .is_some_and(|t| t.contains(&expected(r, c)))
            })
        })
    });
    t.iof_deregister(id, &[]).expect("deregister");
    assert_eq!(
        t.iof_deregister(id, &[]).err(),
        Some(pmix::Status::ERR_BAD_PARAM)
    );
    // The end of input: the ranks say bye, their streams end (seen by
    // the tagged registration above up to its end, and by this one).
    let (ends, handler) = collector();
    let id2 = pull(&t, &all, channel::STDOUT, &[], handler);
    assert_ne!(id2, id);
    t.iof_push(std::slice::from_ref(&all), None, &[])
        .expect("push the end");
    wait_seen(&ends, "bye and the ends of the streams", |s| {
        (0..2).all(|r| {
            s.text
                .get(&(r, channel::STDOUT))
                .is_some_and(|t| t.ends_with(&format!("bye {r}\n")))
                && s.ended.contains(&(r, channel::STDOUT))
        })
    });
    {
        // The deregistered handler got exactly the lines written before,
        // in order, and nothing after.
        let g = seen.0.lock().unwrap();
        for r in 0..2 {
            let out = &g.text[&(r, channel::STDOUT)];
            assert_eq!(
                out,
                &format!(
                    "[{jobid},{r}]<stdout>: ns {ns}\n[{jobid},{r}]<stdout>: ready\n{}",
                    expected(r, channel::STDOUT),
                    ns = job.nspace()
                )
            );
            assert_eq!(
                &g.text[&(r, channel::STDERR)],
                &expected(r, channel::STDERR)
            );
        }
    }
    assert_eq!(job.wait(), Some(0), "the job failed");
    // The server is gone with the job.
    let _ = t.finalize();
}

#[test]
fn buffered_output_waits_for_its_size_or_its_time() {
    let script = "echo ready; read x; echo hello; cat >/dev/null";
    let mut job = ready_job("buf", &["--stdin", "all"], 1, script, true);
    let t = job.tool();
    let all = Proc::new(Nspace::new(job.nspace()).unwrap(), Rank::WILDCARD);
    let (seen, handler) = collector();
    // Far more bytes than the job writes: only the time lets them out.
    let dirs = [
        common::info(keys::IOF_BUFFERING_SIZE, Value::Uint32(1 << 20)),
        common::info(keys::IOF_BUFFERING_TIME, Value::Uint32(1)),
    ];
    pull(&t, &all, channel::STDOUT, &dirs, handler);
    job.stdin().write_all(b"go\n").unwrap();
    wait_seen(&seen, "the buffered line", |s| {
        s.text
            .get(&(0, channel::STDOUT))
            .is_some_and(|t| t.ends_with("ready\nhello\n"))
    });
    assert!(
        seen.0.lock().unwrap().ended.is_empty(),
        "the stream is open"
    );
    t.finalize().unwrap();
    assert_eq!(job.wait(), Some(0), "the job failed");
}

#[test]
fn pmixrun_stdin_feeds_the_named_ranks() {
    let script = "echo ready; if read x; then echo \"rank $PMIX_RANK read $x\"; \
else echo \"rank $PMIX_RANK read nothing\"; fi";
    let mut job = ready_job("stdin", &["--stdin", "1,2"], 3, script, true);
    job.stdin()
        .write_all(b"hello\n")
        .expect("write pmixrun's stdin");
    job.close_stdin();
    let mut got = Vec::new();
    while got.len() < 3 {
        let l = job.out.next_line("rank ... read");
        if l.starts_with("rank ") {
            got.push(l);
        }
    }
    got.sort();
    assert_eq!(
        got,
        [
            "rank 0 read nothing",
            "rank 1 read hello",
            "rank 2 read hello"
        ]
    );
    assert_eq!(job.wait(), Some(0), "the job failed");
}

#[test]
fn a_tool_that_stops_reading_does_not_block_the_job() {
    // One rank writes 5.6 MB once told to, then closes its stdout (its
    // end reaches the tool as PMIX_IOF_COMPLETE, which is never dropped)
    // and waits for the end of its stdin; the tool's handler stops at the
    // first of those lines until the rank is done writing.
    const LINE: &str = "0123456789012345678901234567890123456789012345678901234567890123456789";
    const N: usize = 80_000;
    let script = format!(
        "echo ready; read x; yes {LINE} | head -n {N}; echo done; exec >&-; cat >/dev/null"
    );
    let mut job = ready_job("slow", &["--stdin", "all"], 1, &script, false);
    let t = job.tool();
    let all = Proc::new(Nspace::new(job.nspace()).unwrap(), Rank::WILDCARD);
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    let (seen, inner) = collector();
    let g2 = gate.clone();
    let handler: pmix::client::IofHandler = Arc::new(move |c: &IofChunk<'_>| {
        inner(c);
        if c.data.starts_with(LINE.as_bytes()) {
            let open = g2.0.lock().unwrap();
            let _ = g2.1.wait_timeout_while(open, LIMIT, |o| !*o).unwrap();
        }
    });
    let dirs = [
        common::info(keys::IOF_CACHE_SIZE, Value::Uint32(64 << 10)),
        common::info(keys::IOF_DROP_NEWEST, Value::Bool(true)),
    ];
    pull(&t, &all, channel::STDOUT, &dirs, handler);
    // pmixrun's own stdin starts the flood (--stdin all).
    job.stdin().write_all(b"go\n").unwrap();
    // The rank writes everything although the tool reads nothing
    // meanwhile.
    let mut done = false;
    while !done {
        done = job.out.next_line("done") == "done";
    }
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    wait_seen(&seen, "the end of the stream", |s| {
        s.ended.contains(&(0, channel::STDOUT))
    });
    let g = seen.0.lock().unwrap();
    let total =
        format!("ns {}\nready\n", job.nspace()).len() + N * (LINE.len() + 1) + "done\n".len();
    assert!(g.dropped > 0, "nothing was dropped");
    assert_eq!(
        g.bytes as u64 + g.dropped,
        total as u64,
        "what arrived and what was dropped add up to what was written"
    );
    // What arrived is whole lines, in order.
    let text = &g.text[&(0, channel::STDOUT)];
    assert!(text.starts_with("ns ") && text.ends_with('\n'));
    assert!(text
        .lines()
        .all(|l| l.starts_with("ns ") || l == "ready" || l == "done" || l == LINE));
    drop(g);
    t.finalize().unwrap();
    // The end of pmixrun's stdin ends the rank and the job.
    assert_eq!(job.wait(), Some(0), "the job failed");
}

#[test]
fn a_c_tool_forwards_its_own_stdin_to_the_ranks() {
    let tool = common::build_c(
        "tests/c/iof_tool.c",
        "iof_stdin",
        "iof_tool",
        &common::include_dir(),
        &["-pthread"],
    );
    let script = "echo ready; while read l; do echo \"echo $l\"; done; echo \"bye $PMIX_RANK\"";
    let mut job = ready_job("fwd", &["--stdin", "all"], 2, script, true);
    let mut child = Command::new(&tool)
        .args(["stdin", &job.pid().to_string(), job.nspace(), "2", "3"])
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .env("TMPDIR", job.tmp())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("iof_tool starts");
    // Three lines, then the end of the tool's stdin.
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"one\ntwo\nthree\n")
        .unwrap();
    let out = child.stdout.take().unwrap();
    let text = common::read_in_thread(out);
    let (waiter, timed_out) = common::wait_at_most(child, LIMIT);
    assert!(!timed_out, "iof_tool did not end");
    let text = text.join().unwrap();
    assert!(
        waiter.join().unwrap().unwrap().success() && text.contains("iof tool ok"),
        "{text}"
    );
    let mut echoed = Vec::new();
    while echoed.len() < 6 {
        let l = job.out.next_line("echo");
        if let Some(e) = l.strip_prefix("echo ") {
            echoed.push(e.to_owned());
        }
    }
    echoed.sort();
    assert_eq!(echoed, ["one", "one", "three", "three", "two", "two"]);
    assert_eq!(job.wait(), Some(0), "the job failed");
}

#[test]
fn a_c_hosts_delivered_output_reaches_a_tool_and_its_push_reaches_the_host() {
    let tmp = private_tmp("iof-host");
    let tool = common::build_c(
        "tests/c/iof_tool.c",
        "iof_host_t",
        "iof_tool",
        &common::include_dir(),
        &["-pthread"],
    );
    let host = common::build_c(
        "tests/c/iof_host.c",
        "iof_host_h",
        "iof_host",
        &common::include_dir(),
        &["-pthread"],
    );
    common::run_c_host(&host, &[tool.as_os_str()], &tmp, LIMIT, "iof host ok");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn python_tool_pulls_output() {
    let Some(python) = common::python_with_bindings() else {
        return;
    };
    let script =
        "echo ready; read x; echo \"line $PMIX_RANK\"; echo \"bye $PMIX_RANK\"; cat >/dev/null";
    let mut job = ready_job("py", &["--stdin", "all"], 2, script, true);
    let mut tool = Command::new(python)
        .arg(common::root().join("tests/python/iof_tool.py"))
        .args([
            &job.pid().to_string(),
            job.nspace(),
            job.tmp().to_str().unwrap(),
        ])
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python starts");
    let mut lines = Lines::of(&mut tool);
    // Once the tool pulled, pmixrun's stdin starts the ranks.
    let first = lines.next_line("the python tool's first");
    assert_eq!(first, "pulled");
    job.stdin().write_all(b"go\n").unwrap();
    let last = lines.next_line("the python tool's verdict");
    assert_eq!(last, "py iof ok");
    let (waiter, timed_out) = common::wait_at_most(tool, LIMIT);
    assert!(!timed_out, "the python tool did not end");
    assert!(waiter.join().unwrap().unwrap().success());
    // The end of pmixrun's stdin ends the ranks.
    assert_eq!(job.wait(), Some(0), "the job failed");
}
