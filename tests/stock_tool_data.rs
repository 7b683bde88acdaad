//! A tool on its own OpenPMIx library, attached to a running `pmixrun`
//! through the stock door, reads the job it watches and pulls its output
//! (issue 23).
//!
//! - `tests/c/stock_tool_data.c`, built against Debian's 4.2.2 headers,
//!   on Debian's `libpmix.so.2` and on the wheel's 5.0.11: attaches by
//!   pmixrun's pid to a 2-rank job, reads its own job data (its library
//!   makes it: one process), finds the job in the namespaces query, gets
//!   its size, local peers and rank 1's local rank, node rank, app number
//!   and node, reads its proc table and local proc table, pulls its ranks'
//!   stdout and stderr and pushes them the line that starts their numbered
//!   lines, sees every line in order, then the line that ends them.
//!   (A 4.2 tool asks for another job's rank key at the WILDCARD rank, a
//!   5.0 one at the rank, or at UNDEF for a node key: the door answers
//!   each with the job's whole data, which OpenPMIx's server sends with
//!   any question about another job's rank.)
//! - python3-pmix's job data reads are in `tests/stock_tools.rs`. Its
//!   output pull on Debian's library is not tested: python3-pmix 4.2.2
//!   reads a payload as a C string (to a NUL byte, not its size) and an
//!   OpenPMIx library's payloads have no NUL, so what its handler gets
//!   carries stray bytes, and its deferred handler calls sometimes never
//!   come.
//!
//! The ranks wait for lines of stdin (the tool's pushes): no sleeps.
//! Every run is bounded (`pmixrun --timeout`, watchdogs, the programs'
//! own alarms).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::pmixrun_job::{PmixrunJob, LIMIT};

/// Numbered lines each rank prints on each channel.
const NLINES: u32 = 5;

/// The ranks' program: their namespace, `ready`, a line of stdin, the
/// numbered lines on stdout and stderr, another line of stdin, `bye R`.
const NUMBERED: &str = "echo \"ns $PMIX_NAMESPACE\"; echo ready; read x; i=1; \
while [ $i -le 5 ]; do echo \"out $PMIX_RANK $i\"; echo \"err $PMIX_RANK $i\" >&2; \
i=$((i+1)); done; read y; echo \"bye $PMIX_RANK\"";

/// Starts `pmixrun --stdin all -n 2 sh -c SCRIPT` (its stderr, where
/// the ranks' stderr goes, discarded); returns once both ranks said
/// `ready`, the job's namespace read from their first line.
fn ready_job(tag: &str, script: &str) -> PmixrunJob {
    let argv = ["--stdin", "all", "-n", "2", "sh", "-c", script];
    let mut job = PmixrunJob::start_with_stderr(&format!("stock-tool-data-{tag}"), &argv, false);
    job.out.wait_for_count("ready", 2);
    job.read_nspace("ns ");
    job
}

/// Waits (bounded) until each rank said `bye R`, then for pmixrun's
/// success.
fn both_said_bye(job: &mut PmixrunJob) {
    let mut seen = [false; 2];
    while !seen.iter().all(|s| *s) {
        let line = job.out.next_line("a rank's bye");
        for (r, s) in seen.iter_mut().enumerate() {
            *s |= line == format!("bye {r}");
        }
    }
    assert_eq!(job.wait(), Some(0), "the job failed");
}

/// Debian's library directory and the wheel's, when installed.
fn stock_libs(debian: &Path) -> Vec<PathBuf> {
    let mut v = vec![debian.to_path_buf()];
    v.extend(common::ompi5().map(|w| w.pmix_lib_dir()));
    v
}

#[test]
fn a_stock_c_tool_reads_the_job_it_watches_and_pulls_its_output() {
    let Some((tool, debian)) =
        common::stock_door::stock_program_with("stock_tool_data", "stock-tool-data", &["-pthread"])
    else {
        return;
    };
    let host = pmix::server::local_hostname();
    for (i, lib) in stock_libs(&debian).iter().enumerate() {
        let mut job = ready_job(&format!("c{i}"), NUMBERED);
        let out = common::run_with_watchdog(
            Command::new(&tool)
                .args([
                    job.pid().to_string(),
                    job.nspace().to_owned(),
                    "2".to_owned(),
                    NLINES.to_string(),
                ])
                .env("TMPDIR", job.tmp())
                .env("LD_LIBRARY_PATH", lib)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
            LIMIT,
            "stock tool",
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        let on = lib.display();
        assert!(out.status.success(), "{on}:\n{text}\n{err}");
        for want in [
            "own size 1 rank 0".to_owned(),
            "job size 2".to_owned(),
            "job local peers 0,1".to_owned(),
            format!("rank 1 on {host}"),
            "pmix.qry.ptable 2 ranks".to_owned(),
            "pmix.qry.lptable 2 ranks".to_owned(),
            format!("pulled {} lines of 2 ranks", 2 * 2 * NLINES),
            "stock tool data ok".to_owned(),
        ] {
            assert!(
                text.lines().any(|l| l.starts_with(&want)),
                "{on}: no \"{want}\" in\n{text}\n{err}"
            );
        }
        // The tool's last push reached both ranks.
        both_said_bye(&mut job);
    }
}
