//! A group's membership after a decline and after a leave, with real
//! processes: `tests/c/group_membership.c` under `pmixrun` (issue 21,
//! items 2 and 3). An invitation with `PMIX_GROUP_OPTIONAL` that one rank
//! declines completes with `PMIX_SUCCESS` for the leader and for every
//! accepter's join; the members then fence, get and connect over the
//! group id at once (the decliner is not waited for); a fence over the
//! group that the server has when a member leaves completes without it;
//! and after the leave the others fence over the group again. Before the
//! fix, the joins and the invite said `PMIX_ERR_PARTIAL_SUCCESS` and the
//! fence begun before the leave waited for the leaver until its timeout.
//!
//! The client is built against our headers and against OpenPMIx 4.2.2's
//! (Debian), when installed; both link our `libpmix.so.2`. Every run is
//! bounded: the client's own timed waits and `alarm(50)`, `pmixrun
//! --timeout 60`, and a watchdog here.

mod common;

use std::path::PathBuf;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(90);

fn build(include: &std::path::Path, tag: &str) -> PathBuf {
    common::build_c(
        "tests/c/group_membership.c",
        &format!("group_membership_{tag}_{}", std::process::id()),
        "group_membership",
        include,
        &["-pthread"],
    )
}

fn run(exe: &std::path::Path, n: u32, what: &str) {
    let out = common::pmixrun_watched(n, "60", &[exe.as_os_str()], LIMIT, what);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    let ctx = format!("{what}\n--- stdout:\n{stdout}\n--- stderr:\n{stderr}");
    assert!(out.status.success(), "the job failed: {ctx}");
    for r in 0..n {
        assert!(
            stdout.contains(&format!("gm {r} ok")),
            "rank {r} did not pass: {ctx}"
        );
    }
}

#[test]
fn a_decliner_and_a_leaver_are_not_members() {
    let exe = build(&common::include_dir(), "ours");
    for n in [3, 4] {
        run(&exe, n, &format!("group_membership at {n} ranks"));
    }
    if let Some((inc, _lib)) = common::reference_pmix() {
        let exe = build(&inc, "reference");
        run(&exe, 4, "group_membership at 4 ranks (4.2.2 headers)");
    }
}
