//! `PMIx_server_register_nspace` at scale: parsing a registration into a
//! job description (maps, layout, derived keys) and writing the job
//! segment, for namespaces of up to a million ranks at 64 ranks per node.
//! Figures and how to run: docs/PERFORMANCE.md, "Job registration".
//!
//! `JOB_BENCH_SIZES=1024,1000000` chooses the namespace sizes (default:
//! 1024, 65536, 1000000); `JOB_BENCH_PROC_DATA=N` also measures a
//! registration of N ranks that carries one `PMIX_PROC_DATA` array per
//! rank, as Slurm's plugin sends (default 65536; 0 skips it).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pmix::job::JobDescription;
use pmix::regex::{generate_node_regex, generate_ppn};
use pmix::{keys, Info, Key, Nspace, Value};

const PPN: u32 = 64;

fn info(key: &str, v: Value) -> Info {
    Info::new(Key::new(key).unwrap(), v)
}

fn sizes() -> Vec<u32> {
    std::env::var("JOB_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1024, 65536, 1_000_000])
}

fn hostname(n: u32) -> String {
    format!("node{n:05}")
}

/// What an `mpirun`-like host passes for `nranks` ranks, 64 per node, in
/// two applications: the maps as `PMIx_generate_regex`/`_generate_ppn`
/// make them, job-level keys, an application array per application and
/// this node's array.
fn registration(nranks: u32) -> Vec<Info> {
    let nnodes = nranks.div_ceil(PPN);
    let names: Vec<String> = (0..nnodes).map(hostname).collect();
    let ppn: Vec<String> = (0..nnodes)
        .map(|n| {
            let first = n * PPN;
            let last = ((n + 1) * PPN).min(nranks) - 1;
            format!("{first}-{last}")
        })
        .collect();
    let half = nranks / 2;
    let app = |n: u32, size: u32| {
        let items = vec![
            info(keys::APPNUM, Value::Uint32(n)),
            info(keys::APP_SIZE, Value::Uint32(size)),
            info(keys::APP_ARGV, Value::string("./bench --flag")),
        ];
        info(keys::APP_INFO_ARRAY, Value::info_array(items))
    };
    vec![
        info(
            keys::NODE_MAP,
            Value::string(&generate_node_regex(&names.join(","))),
        ),
        info(keys::PROC_MAP, Value::string(&generate_ppn(&ppn.join(";")))),
        info(keys::JOBID, Value::string("bench.1")),
        info(keys::JOB_SIZE, Value::Uint32(nranks)),
        info(keys::UNIV_SIZE, Value::Uint32(nranks)),
        info(keys::TMPDIR, Value::string("/tmp/pmix-bench")),
        app(0, half),
        app(1, nranks - half),
    ]
}

/// One `PMIX_PROC_DATA` array per rank (rank, application, local and node
/// ranks, hostname, node id), plus the maps.
fn registration_proc_data(nranks: u32) -> Vec<Info> {
    let mut v = registration(nranks);
    v.truncate(4);
    for r in 0..nranks {
        let items = vec![
            info(keys::RANK, Value::ProcRank(r)),
            info(keys::APPNUM, Value::Uint32(0)),
            info(keys::APP_RANK, Value::ProcRank(r)),
            info(keys::GLOBAL_RANK, Value::ProcRank(r)),
            info(keys::LOCAL_RANK, Value::Uint16((r % PPN) as u16)),
            info(keys::NODE_RANK, Value::Uint16((r % PPN) as u16)),
            info(keys::NODEID, Value::Uint32(r / PPN)),
            info(keys::HOSTNAME, Value::string(&hostname(r / PPN))),
        ];
        v.push(info(keys::PROC_DATA, Value::info_array(items)));
    }
    v
}

fn local_host(nranks: u32) -> String {
    // A node in the middle of the map.
    hostname(nranks.div_ceil(PPN) / 2)
}

fn register(ns: &Nspace, nranks: u32, infos: &[Info], host: &str) -> JobDescription {
    let nlocal = PPN.min(nranks);
    JobDescription::from_registration(ns, nlocal, infos, host).unwrap()
}

fn bench(c: &mut Criterion) {
    let ns = Nspace::new("bench.1").unwrap();
    let mut g = c.benchmark_group("job_registration");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(5));
    for n in sizes() {
        let infos = registration(n);
        let host = local_host(n);
        // One timed pass, reported on stderr with the segment size.
        let t0 = Instant::now();
        let d = register(&ns, n, &infos, &host);
        let t1 = Instant::now();
        let img = d.build_segment().unwrap();
        let t2 = Instant::now();
        eprintln!(
            "job_registration n={n}: describe {:.3} s, segment {:.3} s, total {:.3} s; \
             segment {} bytes = {:.1} B/rank",
            (t1 - t0).as_secs_f64(),
            (t2 - t1).as_secs_f64(),
            (t2 - t0).as_secs_f64(),
            img.len(),
            img.len() as f64 / f64::from(n)
        );
        drop(img);
        g.bench_with_input(BenchmarkId::new("describe", n), &n, |b, &n| {
            b.iter(|| black_box(register(&ns, n, &infos, &host)))
        });
        g.bench_with_input(BenchmarkId::new("build_segment", n), &n, |b, _| {
            b.iter(|| black_box(d.build_segment().unwrap()))
        });
        g.bench_with_input(BenchmarkId::new("describe_and_segment", n), &n, |b, &n| {
            b.iter(|| black_box(register(&ns, n, &infos, &host).build_segment().unwrap()))
        });
    }
    let n: u32 = std::env::var("JOB_BENCH_PROC_DATA")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(65536);
    if n > 0 {
        let infos = registration_proc_data(n);
        let host = local_host(n);
        g.bench_with_input(BenchmarkId::new("describe_proc_data", n), &n, |b, &n| {
            b.iter(|| black_box(register(&ns, n, &infos, &host)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
