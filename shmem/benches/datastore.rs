//! Benchmarks of the shared-memory datastore: get latency, segment build
//! time and size, client map + first get. See docs/PERFORMANCE.md for the
//! figures and how to run them.
//!
//! `SHMEM_BENCH_SIZES=16,1024` limits the namespace sizes measured
//! (default: 16, 1024, 100000, 1000000).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pmix_shmem::*;

/// Processes per node of the synthetic jobs.
const PPN: u32 = 64;

/// The reserved process-level keys every rank gets (15).
const PROC_KEYS: [&str; 15] = [
    "pmix.rank",
    "pmix.grank",
    "pmix.apprank",
    "pmix.lrank",
    "pmix.nrank",
    "pmix.pkgrank",
    "pmix.appnum",
    "pmix.nodeid",
    "pmix.hname",
    "pmix.locstr",
    "pmix.cpuset",
    "pmix.reinc",
    "pmix.spawned",
    "pmix.ppid",
    "pmix.proc.state",
];

/// A job segment as a server would write it: job, app and node realms and
/// the 15 reserved keys per rank (2 apps, 64 ranks per node, two 32-core
/// sockets per node).
fn job_builder(nranks: u32) -> SegmentBuilder {
    let mut b = SegmentBuilder::new("bench-job").unwrap();
    if let Some(s) = std::env::var("SHMEM_BENCH_SHIFT")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        b.rank_block_shift(s);
    }
    let nnodes = nranks.div_ceil(PPN);
    b.job("pmix.job.size", StoredValue::Uint32(nranks)).unwrap();
    b.job("pmix.univ.size", StoredValue::Uint32(nranks))
        .unwrap();
    b.job("pmix.max.size", StoredValue::Uint32(nranks)).unwrap();
    b.job("pmix.num.nodes", StoredValue::Uint32(nnodes))
        .unwrap();
    b.job("pmix.nsdir", StoredValue::string("/tmp/pmix/bench-job"))
        .unwrap();
    b.job("pmix.jobid", StoredValue::string("bench-job"))
        .unwrap();
    b.session("pmix.session.id", StoredValue::Uint32(1))
        .unwrap();
    for app in 0..2 {
        b.app(app, "pmix.app.size", StoredValue::Uint32(nranks / 2))
            .unwrap();
        b.app(app, "pmix.apldr", StoredValue::ProcRank(app * (nranks / 2)))
            .unwrap();
    }
    for n in 0..nnodes {
        let host = format!("nid{n:06}");
        b.node_hostname(n, &host).unwrap();
        b.node(n, "pmix.local.size", StoredValue::Uint32(PPN))
            .unwrap();
        b.node(
            n,
            "pmix.lpeers",
            StoredValue::string(&format!("{}-{}", n * PPN, n * PPN + PPN - 1)),
        )
        .unwrap();
        b.node(n, "pmix.lldr", StoredValue::ProcRank(n * PPN))
            .unwrap();
    }
    let keys: Vec<KeyId> = PROC_KEYS.iter().map(|k| b.key(k).unwrap()).collect();
    let locstr: Vec<String> = (0..PPN)
        .map(|l| {
            let (sk, core) = (l / 32, l % 32);
            format!(
                "SK{sk}:L3{sk}:L2{core}:L1{core}:CR{l}:HT{}-{}",
                2 * l,
                2 * l + 1
            )
        })
        .collect();
    let cpuset: Vec<String> = (0..PPN)
        .map(|l| format!("{},{}", 2 * l, 2 * l + 1))
        .collect();
    for r in 0..nranks {
        let (node, l) = (r / PPN, r % PPN);
        let app = u32::from(r >= nranks / 2);
        let vals = [
            StoredValue::ProcRank(r),
            StoredValue::ProcRank(r),
            StoredValue::ProcRank(r - app * (nranks / 2)),
            StoredValue::Uint16(l as u16),
            StoredValue::Uint16(l as u16),
            StoredValue::Uint16((l % 32) as u16),
            StoredValue::Uint32(app),
            StoredValue::Uint32(node),
            StoredValue::string(&format!("nid{node:06}")),
            StoredValue::string(&locstr[l as usize]),
            StoredValue::string(&cpuset[l as usize]),
            StoredValue::Uint32(0),
            StoredValue::Bool(false),
            StoredValue::Pid(10_000 + l as i32),
            StoredValue::ProcState(3),
        ];
        for (k, v) in keys.iter().zip(vals) {
            b.proc_kv(r, *k, v).unwrap();
        }
    }
    b
}

/// A modex segment: every rank posted an endpoint blob and two small keys.
fn modex_builder(nranks: u32) -> SegmentBuilder {
    let mut b = SegmentBuilder::new("bench-job").unwrap();
    let ep = b.key("btl.tcp.addr").unwrap();
    let port = b.key("btl.tcp.port").unwrap();
    let shm = b.key("btl.sm.seg").unwrap();
    for r in 0..nranks {
        let mut blob = vec![0u8; 24];
        blob[..4].copy_from_slice(&r.to_le_bytes());
        b.posted_kv(r, Scope::Global, ep, StoredValue::ByteObject(blob))
            .unwrap();
        b.posted_kv(
            r,
            Scope::Remote,
            port,
            StoredValue::Uint16(40_000 + (r % 1000) as u16),
        )
        .unwrap();
        b.posted_kv(
            r,
            Scope::Local,
            shm,
            StoredValue::string(&format!("/dev/shm/sm.{r}")),
        )
        .unwrap();
    }
    b
}

fn sizes() -> Vec<u32> {
    std::env::var("SHMEM_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![16, 1024, 100_000, 1_000_000])
}

fn open(s: &SealedSegment) -> Arc<Segment> {
    Arc::new(Segment::from_fd(s.fd()).unwrap())
}

/// Cheap deterministic pseudo-random ranks.
fn random_ranks(n: u32, count: usize) -> Vec<u32> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..count)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % u64::from(n)) as u32
        })
        .collect()
}

fn bench_get(c: &mut Criterion) {
    let n = 1024;
    let job = job_builder(n).build().unwrap().seal().unwrap();
    let modex = modex_builder(n).build().unwrap().seal().unwrap();
    let dir = Directory::new();
    dir.publish_job("bench-job", open(&job));
    dir.publish_modex("bench-job", open(&modex));
    let mut g = c.benchmark_group("get_hot");
    g.measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    let cases: [(&str, u32, &str); 3] = [
        ("job_level", RANK_WILDCARD, "pmix.job.size"),
        ("peer_proc_level", 517, "pmix.locstr"),
        ("posted", 517, "btl.tcp.addr"),
    ];
    for (name, rank, key) in cases {
        assert!(dir.reader().get("bench-job", rank, key).is_some(), "{name}");
        // What one PMIx_Get costs: pin, namespace lookup, lookup.
        g.bench_function(BenchmarkId::new("pin_and_get", name), |b| {
            b.iter(|| {
                let r = dir.reader();
                black_box(
                    r.get(black_box("bench-job"), black_box(rank), black_box(key))
                        .is_some(),
                )
            })
        });
        // Within an already pinned reader and resolved namespace.
        let r = dir.reader();
        let ns = r.namespace("bench-job").unwrap();
        g.bench_function(BenchmarkId::new("in_view", name), |b| {
            b.iter(|| black_box(ns.get(black_box(rank), black_box(key)).is_some()))
        });
    }
    g.finish();
}

fn bench_random_rank(c: &mut Criterion) {
    let n = 1_000_000;
    if !sizes().contains(&n) {
        return;
    }
    let job = job_builder(n).build().unwrap().seal().unwrap();
    let dir = Directory::new();
    let seg = open(&job);
    seg.validate_all().unwrap();
    dir.publish_job("bench-job", seg);
    let ranks = random_ranks(n, 1 << 16);
    let mut g = c.benchmark_group("get_random_rank_1M");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    for key in ["pmix.locstr", "pmix.lrank"] {
        let mut i = 0usize;
        g.bench_function(BenchmarkId::new("pin_and_get", key), |b| {
            b.iter(|| {
                i = (i + 1) & (ranks.len() - 1);
                let r = dir.reader();
                black_box(r.get("bench-job", ranks[i], key).is_some())
            })
        });
    }
    g.finish();
}

fn bench_build_and_open(c: &mut Criterion) {
    let mut g = c.benchmark_group("segment");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(200));
    for n in sizes() {
        // Size and one-shot figures, printed for docs/PERFORMANCE.md.
        let t = Instant::now();
        let b = job_builder(n);
        let t_collect = t.elapsed();
        let t = Instant::now();
        let img = b.build().unwrap();
        let t_build = t.elapsed();
        let t = Instant::now();
        let sealed = img.seal().unwrap();
        let t_seal = t.elapsed();
        let t = Instant::now();
        let seg = Segment::from_fd(sealed.fd()).unwrap();
        let v = seg
            .proc_value(n / 2, &"pmix.hname".into())
            .unwrap()
            .is_some();
        let t_first = t.elapsed();
        assert!(v);
        let t = Instant::now();
        seg.validate_all().unwrap();
        let t_all = t.elapsed();
        eprintln!(
            "ranks {n}: segment {} B ({:.1} B/rank), {} blocks; collect {:?}, build {:?}, seal {:?}; \
             map+first get {:?}; validating all blocks {:?}",
            img.len(),
            img.len() as f64 / f64::from(n),
            seg.block_count(),
            t_collect,
            t_build,
            t_seal,
            t_first,
            t_all,
        );
        drop(seg);
        drop(img);

        // Build = collect + serialize + seal, what a server pays per job.
        g.bench_function(BenchmarkId::new("build_and_seal", n), |b| {
            b.iter(|| black_box(job_builder(n).build().unwrap().seal().unwrap().len()))
        });
        // A client's map + header/index validation + first get (which
        // validates the key dictionary and one rank block) + unmap.
        let ranks = random_ranks(n, 64);
        let mut i = 0;
        g.bench_function(BenchmarkId::new("map_and_first_get", n), |b| {
            b.iter(|| {
                i = (i + 1) % ranks.len();
                let seg = Segment::from_fd(sealed.fd()).unwrap();
                black_box(
                    seg.proc_value(ranks[i], &"pmix.hname".into())
                        .unwrap()
                        .is_some(),
                )
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_get, bench_random_rank, bench_build_and_open);
criterion_main!(benches);
