//! The C benchmark client `benches/c/pmix_bench.c` (run by
//! `benches/c/run.sh`) builds against our headers and completes under
//! `pmixrun` with N=2 and small iteration counts, printing every result
//! line. No timing is asserted: this only keeps the harness working.

use std::process::{Command, Stdio};

mod common;

const METRICS: &[&str] = &[
    "init",
    "get_job_ptr",
    "get_job_copy",
    "get_peer_ptr",
    "get_peer_copy",
    "get_post_ptr",
    "get_post_copy",
    "fence",
    "fence_collect",
    "modex100",
    "modex100_first",
    "maxrss",
];

/// Builds `benches/c/pmix_bench.c` against our library (per test process:
/// concurrent runs sharing the target directory must not replace each
/// other's program) and runs it with `args` as 2 ranks under `pmixrun`;
/// its standard output, once it succeeded.
fn run_bench(tag: &str, args: &[&str]) -> String {
    let dir = common::scratch(&format!("bench_harness_{tag}_{}", std::process::id()));
    let exe = dir.join("pmix_bench");
    let src = common::root().join("benches/c/pmix_bench.c");
    let lib = common::ffi_lib_dir();
    common::compile_c(&[&src], &exe, &common::include_dir(), lib, &[]);
    let o = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", "120", "-n", "2"])
        .arg(&exe)
        .args(args)
        .env("LD_LIBRARY_PATH", lib)
        .stdin(Stdio::null())
        .output()
        .expect("pmixrun starts");
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{}\n{stdout}\n{stderr}", o.status);
    stdout
}

/// The value of `field` (`median=`, ...) on metric `m`'s result line.
fn field(stdout: &str, m: &str, field: &str) -> f64 {
    let prefix = format!("pmix_bench result={m} unit=");
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("missing {m} in\n{stdout}"));
    line.split_whitespace()
        .find_map(|f| f.strip_prefix(field))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in {line}"))
}

#[test]
fn pmix_bench_runs_under_pmixrun() {
    let stdout = run_bench("all", &["-g", "1000", "-f", "20", "-m", "2"]);
    let header = stdout
        .lines()
        .find(|l| l.starts_with("pmix_bench lib="))
        .unwrap_or_else(|| panic!("no lib= line in\n{stdout}"));
    assert!(header.contains("libpmix.so"), "{header}");
    assert!(header.contains(" ranks=2 "), "{header}");
    for m in METRICS {
        for f in ["min=", "median=", "max="] {
            let v = field(&stdout, m, f);
            assert!(v.is_finite() && v >= 0.0, "{m} {f}{v}");
        }
    }
    assert!(
        stdout.lines().any(|l| l == "pmix_bench done"),
        "no done line in\n{stdout}"
    );
}

/// `--first`: the first collecting fence after init (32 values of 1 KiB
/// per rank) and a get of a peer's value after it, in a job of its own.
#[test]
fn pmix_bench_first_fence_runs_under_pmixrun() {
    let stdout = run_bench("first", &["--first", "-g", "1000"]);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("pmix_bench lib=") && l.contains(" mode=first ")),
        "{stdout}"
    );
    for m in ["modex32k_first", "modex32k_get"] {
        let median = field(&stdout, m, "median=");
        assert!(median.is_finite() && median > 0.0, "{m} median={median}");
    }
    assert!(stdout.lines().any(|l| l == "pmix_bench done"), "{stdout}");
}

/// `--first-commit`: the same, the commit timed with the fence.
#[test]
fn pmix_bench_first_commit_fence_runs_under_pmixrun() {
    let stdout = run_bench("first_commit", &["--first-commit", "-g", "1000"]);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("pmix_bench lib=") && l.contains(" mode=first-commit ")),
        "{stdout}"
    );
    for m in ["modex32k_commit_fence", "modex32k_get"] {
        let median = field(&stdout, m, "median=");
        assert!(median.is_finite() && median > 0.0, "{m} median={median}");
    }
}
