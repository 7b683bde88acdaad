//! Load and endurance (issue 13, item 5): `tests/c/load_client.c` under
//! `pmixrun`, with the launcher (the server's process) sampled after
//! warm-up and at the end: its resident memory, open descriptors and
//! mappings must not grow (beyond a small allowance for allocator
//! slack), and every rank checks what it exchanged.
//!
//! - 256 ranks × 100 fences collecting 64 bytes each;
//! - 10,000 publish/lookup pairs; 10,000 events;
//! - 10,000 unauthenticated connections to the server's socket (connect,
//!   a few garbage bytes, close), while a job runs, which then still
//!   fences;
//! - a job of 100,000 fences (2 ranks; `PMIX_LOAD_SCALE` scales every
//!   count down for a quick run, e.g. 0.1).
//!
//! Each case prints its figures (`load: ...`); `docs/RELIABILITY.md` has
//! them from a release build (`cargo test --release --test load -- --nocapture`).

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use common::pmixrun_job::PmixrunJob;

/// What is sampled of the launcher.
#[derive(Debug, Clone, Copy)]
struct Sample {
    rss_kib: u64,
    fds: usize,
    maps: usize,
}

fn sample(pid: u32) -> Sample {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss_kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count());
    let maps =
        std::fs::read_to_string(format!("/proc/{pid}/maps")).map_or(0, |m| m.lines().count());
    Sample { rss_kib, fds, maps }
}

fn scale(n: u64) -> u64 {
    let f: f64 = std::env::var("PMIX_LOAD_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    ((n as f64 * f) as u64).max(1)
}

fn client() -> PathBuf {
    common::build_c(
        "tests/c/load_client.c",
        &format!("load_{}", std::process::id()),
        "load_client",
        &common::include_dir(),
        &["-pthread"],
    )
}

/// Runs `load_client ARGS` as `n` ranks; `during` runs once the job is
/// warm (with the job). Returns the rate rank 0 measured and the samples
/// at warm-up and at the end.
fn run(
    tag: &str,
    n: u32,
    args: &[&str],
    during: impl FnOnce(&PmixrunJob),
) -> (f64, Sample, Sample) {
    let exe = client();
    let np = n.to_string();
    let mut cmd: Vec<&str> = vec!["-n", &np, exe.to_str().unwrap()];
    cmd.extend_from_slice(args);
    let t0 = Instant::now();
    let mut job = PmixrunJob::start(tag, &cmd);
    job.out.wait_for("warm");
    let warm = sample(job.pid());
    during(&job);
    let rate: f64 = job
        .out
        .wait_for("rate ")
        .split_whitespace()
        .nth(1)
        .and_then(|r| r.parse().ok())
        .expect("a rate");
    job.out.wait_for("done");
    // Connections the server has still to notice closed (a flood's) are
    // shed shortly: sample once the descriptors are back, or after 10 s.
    let settle = Instant::now() + std::time::Duration::from_secs(10);
    let mut end = sample(job.pid());
    while end.fds > warm.fds && Instant::now() < settle {
        std::thread::sleep(std::time::Duration::from_millis(20));
        end = sample(job.pid());
    }
    job.stdin().write_all(b"go\n").unwrap();
    assert_eq!(job.wait(), Some(0), "{tag}: the job failed");
    println!(
        "load: {tag}: {n} ranks, {args:?}: {rate:.0}/s, {:.1} s in all; launcher RSS {} -> {} KiB, fds {} -> {}, maps {} -> {}",
        t0.elapsed().as_secs_f64(),
        warm.rss_kib,
        end.rss_kib,
        warm.fds,
        end.fds,
        warm.maps,
        end.maps
    );
    (rate, warm, end)
}

/// No growth after warm-up: descriptors equal, mappings within a few
/// (the server keeps the latest modex generation of each job mapped),
/// resident memory within `slack_kib`.
fn assert_steady(tag: &str, warm: Sample, end: Sample, slack_kib: u64) {
    assert!(
        end.fds <= warm.fds,
        "{tag}: descriptors grew: {warm:?} -> {end:?}"
    );
    assert!(
        end.maps <= warm.maps + 4,
        "{tag}: mappings grew: {warm:?} -> {end:?}"
    );
    assert!(
        end.rss_kib <= warm.rss_kib + slack_kib,
        "{tag}: resident memory grew: {warm:?} -> {end:?}"
    );
}

#[test]
fn many_ranks_fence_with_data() {
    let iters = scale(100).to_string();
    let (_, warm, end) = run("fence256", 256, &["fences", &iters, "64"], |_| {});
    assert_steady("fence256", warm, end, 4096);
}

#[test]
fn a_long_job_of_fences() {
    let iters = scale(100_000).to_string();
    let (_, warm, end) = run("fences", 2, &["fences", &iters, "0"], |_| {});
    assert_steady("fences", warm, end, 2048);
}

#[test]
fn publish_lookup_pairs() {
    let iters = scale(10_000).to_string();
    let (_, warm, end) = run("pubsub", 2, &["pubsub", &iters], |_| {});
    // pmixrun keeps what was published (until the publisher's job ends):
    // 10,000 small records are expected to stay.
    assert_steady("pubsub", warm, end, 8192);
}

#[test]
fn events_to_a_namespace() {
    let iters = scale(10_000).to_string();
    let (_, warm, end) = run("events", 4, &["events", &iters], |_| {});
    assert_steady("events", warm, end, 4096);
}

/// 10,000 connections that never authenticate (connect, garbage, close)
/// while a job runs, twice: the server holds at most 4096 of them at once
/// (the rest are closed on arrival), so its descriptors and memory stay
/// bounded during the flood (at most 4096 more descriptors, 32 MiB more
/// resident memory) and nothing is left after it; the job still fences
/// and checks its data.
#[test]
fn a_flood_of_unauthenticated_connections() {
    let conns = scale(10_000);
    let iters = scale(2000).to_string();
    let during_flood = std::cell::RefCell::new(Vec::new());
    let (_, warm, end) = run("flood", 2, &["fences", &iters, "16"], |job| {
        // Our URI: the file's unix line (its first is the stock door's).
        let uri = pmix::net::tool_files::read_uri(&job.rendezvous_file());
        let path = uri
            .as_deref()
            .and_then(|u| u.split_once("unix://"))
            .map(|(_, p)| PathBuf::from(p))
            .expect("a unix socket URI");
        for round in 0..2 {
            let t0 = Instant::now();
            let mut refused = 0u64;
            for i in 0..conns {
                match std::os::unix::net::UnixStream::connect(&path) {
                    Ok(mut s) => {
                        if i % 2 == 0 {
                            let _ = s.write_all(b"\xff\xffnot a frame");
                        }
                    }
                    Err(_) => refused += 1,
                }
            }
            let now = sample(job.pid());
            println!(
                "load: flood {round}: {conns} connections in {:.2} s ({refused} refused at connect); launcher {now:?}",
                t0.elapsed().as_secs_f64()
            );
            during_flood.borrow_mut().push(now);
        }
    });
    for s in during_flood.borrow().iter() {
        assert!(
            s.fds <= warm.fds + 4096 + 16,
            "flood: unbounded descriptors: {s:?}"
        );
        assert!(
            s.rss_kib <= warm.rss_kib + 32 * 1024,
            "flood: unbounded memory: {s:?}"
        );
    }
    assert!(
        end.fds <= warm.fds,
        "flood: descriptors left: {warm:?} -> {end:?}"
    );
    assert!(
        end.maps <= warm.maps + 4,
        "flood: mappings grew: {warm:?} -> {end:?}"
    );
    assert!(
        end.rss_kib <= warm.rss_kib + 32 * 1024,
        "flood: memory left: {warm:?} -> {end:?}"
    );
}
