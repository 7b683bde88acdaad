//! Process groups end to end with the C API: `tests/c/group_client.c` runs
//! one scenario as every rank of a `pmixrun` job (at 2, 4 and 8 ranks where
//! the size matters); each test here is one scenario, named after the item
//! of `shared/spec/groups-behaviour.md` (the checklist) it checks:
//!
//! | test | checklist |
//! |---|---|
//! | `c01_*` | 1, 2: entry checks (not initialized, singleton, bad arguments; no callback after an immediate error) |
//! | `c03_collective_construct_in_any_order` | 3 (wildcard, explicit lists in rank-dependent orders, two disjoint groups at once) |
//! | `c04_results_context_id_first_then_membership` | 4 (both forms; no results on error) |
//! | `c05_context_ids_equal_on_members_distinct_across_groups` | 5 |
//! | `c06_membership_order_is_the_same_everywhere` | 6 (sorted by namespace, rank; `{grp, i}` names the same process everywhere) |
//! | `c07_fence_on_a_group_id` | 7 |
//! | `c08_members_data_through_the_group` | 7, 8 |
//! | `c09_group_info_is_shared_by_context_id` | 9 |
//! | `c11_concurrent_groups_and_caller_not_in_its_list` | 11 |
//! | `c13_bootstrap_leaders_and_members` | 13 (our headers only: `pmix.grp.btstrp` is beyond 4.2.2) |
//! | `c14_add_members_in_a_collective_construct` | 14 |
//! | `c15_*` | 15 (construct, destruct and invite timeouts; late arrivals) |
//! | `c16_*` | 16 (a member dies before contributing: abort; OPTIONAL; NOTIFY_TERMINATION alone, with FT_COLLECTIVE, and a leader's handler answering abort) |
//! | `c17_member_contributed_then_died_still_counts` | 17 |
//! | `c18_*` | 18 (destruct with a member that dies meanwhile, with and without NOTIFY_TERMINATION) |
//! | `c20_destruct_then_not_found_and_fence_errs` | 20 |
//! | `c21_invite_and_join`, `c22_invite_nb_announces_completion` | 21, 22 |
//! | `c23_*` | 23 (decline, with and without `PMIX_GROUP_OPTIONAL`; an invitee that dies) |
//! | `c24_leave_notifies_and_shrinks_the_group` | 24 |
//! | `c26_group_names_of_a_process` | 26 |
//! | `c27_group_queries` | 27 |
//!
//! The client is built against our headers and, for every scenario but the
//! bootstrap, also against OpenPMIx 4.2.2's (Debian), run once at the
//! smallest size; both link our `libpmix.so.2`.
//!
//! In the fault scenarios the last rank leaves with `_exit(0)` without
//! finalizing; `pmixrun` then fails the job (naming that rank) and tears it
//! down, SIGTERM then SIGKILL after three seconds. The survivors ignore
//! SIGTERM and finish within that grace; the test wants every survivor's
//! "ok" and no failure line, and accepts `pmixrun`'s failure when it names
//! the victim.
//!
//! Under a C host too (`tests/c/group_host.c`, `c_host_*` tests): the
//! non-fault scenarios run as clients of a host built on
//! `PMIx_server_init` whose `pmix_server_module_t.group` assigns the
//! context ids (answering from inside the upcall and from a thread of its
//! own, alternately) and checks the upcall's arguments.
//!
//! Also `tests/python/group_client.py`: python3-pmix (OpenPMIx 4.2.2's own
//! bindings) constructing, using and destructing a group on our library.
//!
//! `GROUP_CLIENT_TRACE=1` (pass it with `pmixrun -x`) makes the client
//! print every event it gets.
//!
//! Every run is bounded three ways: the client's own timed waits and
//! `alarm(45)`, `pmixrun --timeout 60`, and a watchdog here.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// `pmixrun --timeout` for one job (the client's alarm is 45 s).
const JOB_TIMEOUT: &str = "60";
/// The watchdog's bound on one run.
const LIMIT: Duration = Duration::from_secs(90);
/// What every rank prints when its scenario passed: `{TAG} {rank} ok`.
const TAG: &str = "group client";

fn unique(tag: &str) -> String {
    format!("groups_{tag}_{}", std::process::id())
}

/// The client built against our headers.
fn ours() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        common::build_c(
            "tests/c/group_client.c",
            &unique("ours"),
            "group_client",
            &common::include_dir(),
            &["-pthread"],
        )
    })
}

/// The client built against OpenPMIx 4.2.2's headers, if installed.
fn reference() -> Option<&'static Path> {
    static EXE: OnceLock<Option<PathBuf>> = OnceLock::new();
    EXE.get_or_init(|| {
        common::reference_pmix().map(|(inc, _lib)| {
            common::build_c(
                "tests/c/group_client.c",
                &unique("reference"),
                "group_client",
                &inc,
                &["-pthread"],
            )
        })
    })
    .as_deref()
}

/// Runs `program` as `n` ranks under pmixrun and the watchdog: (exit
/// success, stdout, stderr).
fn pmixrun(n: u32, program: &[&std::ffi::OsStr], what: &str) -> (bool, String, String) {
    let out = common::pmixrun_watched(n, JOB_TIMEOUT, program, LIMIT, what);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What a run must show.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expect {
    /// Every rank passes, the job succeeds.
    AllOk,
    /// The last rank dies on purpose: every other rank passes.
    LastRankDies,
}

fn check_run(what: &str, n: u32, expect: Expect, ok: bool, out: &str, err: &str) {
    let ctx = || format!("{what}\n--- stdout:\n{out}\n--- stderr:\n{err}");
    let survivors = match expect {
        Expect::AllOk => {
            assert!(ok, "the job failed: {}", ctx());
            n
        }
        Expect::LastRankDies => {
            let victim = n - 1;
            if !ok {
                assert!(
                    err.contains(&format!("pmixrun: rank {victim} (pid")),
                    "the job failed, but not (first) because of the victim, rank {victim}: {}",
                    ctx()
                );
            }
            assert!(
                !out.contains(&format!("{TAG} {victim} ok")),
                "the victim, rank {victim}, finished: {}",
                ctx()
            );
            victim
        }
    };
    for r in 0..survivors {
        assert!(
            out.contains(&format!("{TAG} {r} ok")),
            "rank {r} did not pass: {}",
            ctx()
        );
        assert!(
            !err.contains(&format!("{TAG} {r}: ")),
            "rank {r} reported a failure: {}",
            ctx()
        );
    }
}

/// Runs `scenario` with the client built against our headers at each of
/// `sizes`, then (if `with_reference`) against OpenPMIx 4.2.2's at the
/// first size.
fn scenario(name: &str, sizes: &[u32], expect: Expect, with_reference: bool) {
    let mut runs: Vec<(&Path, u32, &str)> = sizes.iter().map(|&n| (ours(), n, "ours")).collect();
    if with_reference {
        if let Some(exe) = reference() {
            runs.push((exe, sizes[0], "4.2.2 headers"));
        }
    }
    for (exe, n, headers) in runs {
        let what = format!("{name} at {n} ranks (client built with {headers})");
        let (ok, out, err) = pmixrun(n, &[exe.as_os_str(), name.as_ref()], &what);
        check_run(&what, n, expect, ok, &out, &err);
    }
}

const ALL: &[u32] = &[2, 4, 8];
const SMALL: &[u32] = &[2, 4];

// ----------------------------------------------------------------------
// 1, 2: entry

#[test]
fn c01_calls_before_init_and_bad_arguments_are_refused() {
    scenario("c01_entry", &[2], Expect::AllOk, true);
}

#[test]
fn c01_a_singleton_is_unreachable() {
    let mut exes = vec![(ours(), "ours", "singleton_ours")];
    if let Some(exe) = reference() {
        exes.push((exe, "4.2.2 headers", "singleton_reference"));
    }
    for (exe, headers, dir) in exes {
        let tmp = common::scratch(&unique(dir));
        let mut cmd = Command::new(exe);
        cmd.arg("c01_singleton")
            .env("LD_LIBRARY_PATH", common::ffi_lib_dir())
            .env("TMPDIR", &tmp)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("PMIX_") {
                cmd.env_remove(k);
            }
        }
        let what = format!("c01_singleton (client built with {headers})");
        let out = common::run_with_watchdog(&mut cmd, LIMIT, &what);
        check_run(
            &what,
            1,
            Expect::AllOk,
            out.status.success(),
            &String::from_utf8_lossy(&out.stdout),
            &String::from_utf8_lossy(&out.stderr),
        );
    }
}

// ----------------------------------------------------------------------
// 3-11: collective construct

#[test]
fn c03_collective_construct_in_any_order() {
    scenario("c03_collective", ALL, Expect::AllOk, true);
}

#[test]
fn c04_results_context_id_first_then_membership() {
    scenario("c04_results_order", SMALL, Expect::AllOk, true);
}

#[test]
fn c05_context_ids_equal_on_members_distinct_across_groups() {
    scenario("c05_context_ids", ALL, Expect::AllOk, true);
}

#[test]
fn c06_membership_order_is_the_same_everywhere() {
    scenario("c06_membership_order", ALL, Expect::AllOk, true);
}

#[test]
fn c07_fence_on_a_group_id() {
    scenario("c07_group_fence", ALL, Expect::AllOk, true);
}

#[test]
fn c08_members_data_through_the_group() {
    scenario("c08_group_data", ALL, Expect::AllOk, true);
}

#[test]
fn c09_group_info_is_shared_by_context_id() {
    scenario("c09_group_info", SMALL, Expect::AllOk, true);
}

#[test]
fn c11_concurrent_groups_and_caller_not_in_its_list() {
    scenario("c11_concurrent_groups", ALL, Expect::AllOk, true);
}

// ----------------------------------------------------------------------
// 13, 14: bootstrap and add-members

#[test]
fn c13_bootstrap_leaders_and_members() {
    scenario("c13_bootstrap", ALL, Expect::AllOk, false);
}

#[test]
fn c14_add_members_in_a_collective_construct() {
    scenario("c14_add_members", ALL, Expect::AllOk, true);
}

// ----------------------------------------------------------------------
// 15-18: timeouts and faults

#[test]
fn c15_construct_timeout_and_a_late_arrival() {
    scenario("c15_construct_timeout", SMALL, Expect::AllOk, true);
}

#[test]
fn c15_destruct_timeout() {
    scenario("c15_destruct_timeout", SMALL, Expect::AllOk, true);
}

#[test]
fn c15_invite_timeout_counts_as_invite_failed() {
    scenario("c15_invite_timeout", SMALL, Expect::AllOk, true);
}

#[test]
fn c16_member_dies_before_contributing_aborts() {
    scenario("c16_member_dies_abort", SMALL, Expect::LastRankDies, true);
}

#[test]
fn c16_member_dies_before_contributing_optional_is_partial_success() {
    scenario(
        "c16_member_dies_optional",
        SMALL,
        Expect::LastRankDies,
        true,
    );
}

/// `PMIX_GROUP_NOTIFY_TERMINATION` alone: the event, then the abort (a
/// documented choice: the flag without OPTIONAL/FT_COLLECTIVE still aborts).
#[test]
fn c16_member_dies_notify_termination_event_then_abort() {
    scenario("c16_member_dies_notify", SMALL, Expect::LastRankDies, true);
}

#[test]
fn c16_member_dies_notify_termination_and_ft_collective_is_partial_success() {
    scenario(
        "c16_member_dies_notify_ft",
        SMALL,
        Expect::LastRankDies,
        true,
    );
}

#[test]
fn c16_member_failed_handler_answering_abort_aborts_for_all() {
    scenario(
        "c16_notify_handler_abort",
        SMALL,
        Expect::LastRankDies,
        true,
    );
}

#[test]
fn c17_member_contributed_then_died_still_counts() {
    scenario(
        "c17_contributed_then_dies",
        SMALL,
        Expect::LastRankDies,
        true,
    );
}

#[test]
fn c18_destruct_with_a_dead_member_and_notify_termination_succeeds() {
    scenario(
        "c18_destruct_dead_notify",
        SMALL,
        Expect::LastRankDies,
        true,
    );
}

#[test]
fn c18_destruct_with_a_dead_member_without_notify_fails() {
    scenario("c18_destruct_dead_plain", SMALL, Expect::LastRankDies, true);
}

// ----------------------------------------------------------------------
// 20: destruct

#[test]
fn c20_destruct_then_not_found_and_fence_errs() {
    scenario("c20_destruct", ALL, Expect::AllOk, true);
}

// ----------------------------------------------------------------------
// 21-24: invite, join, leave

#[test]
fn c21_invite_and_join() {
    scenario("c21_invite_join", ALL, Expect::AllOk, true);
}

/// Invitees answer from their `PMIX_GROUP_INVITED` handler with
/// `PMIx_Group_join_nb` and no callback (OpenPMIx accepts it; it was
/// `PMIX_ERR_BAD_PARAM`, issue 21): they join, and learn it from
/// `PMIX_GROUP_CONSTRUCT_COMPLETE`.
#[test]
fn c21_join_nb_without_a_callback() {
    scenario("c21_join_nb_without_callback", SMALL, Expect::AllOk, true);
}

#[test]
fn c22_invite_nb_announces_completion() {
    scenario("c22_invite_nb", SMALL, Expect::AllOk, true);
}

#[test]
fn c23_decline_without_optional_aborts() {
    scenario("c23_decline_aborts", SMALL, Expect::AllOk, true);
}

#[test]
fn c23_decline_with_optional_succeeds_on_the_accepters() {
    scenario("c23_decline_optional", SMALL, Expect::AllOk, true);
}

#[test]
fn c23_invitee_dies_invite_failed() {
    scenario("c23_invitee_dies", SMALL, Expect::LastRankDies, true);
}

#[test]
fn c24_leave_notifies_and_shrinks_the_group() {
    scenario("c24_leave", ALL, Expect::AllOk, true);
}

// ----------------------------------------------------------------------
// 26, 27: names and queries

#[test]
fn c26_group_names_of_a_process() {
    scenario("c26_group_names", SMALL, Expect::AllOk, true);
}

#[test]
fn c27_group_queries() {
    scenario("c27_queries", ALL, Expect::AllOk, true);
}

// ----------------------------------------------------------------------
// python3-pmix

/// python3-pmix (OpenPMIx 4.2's own bindings) on our library:
/// `group_construct`, a fence and a get through the group, `group_destruct`.
#[test]
fn python_bindings_construct_use_and_destruct_a_group() {
    let Some(python) = common::python_with_bindings() else {
        return;
    };
    let script = common::root().join("tests/python/group_client.py");
    for n in [2, 4] {
        let what = format!("python group_client.py at {n} ranks");
        let (ok, out, err) = pmixrun(
            n,
            &[
                python.as_ref(),
                "-W".as_ref(),
                "ignore".as_ref(),
                script.as_os_str(),
            ],
            &what,
        );
        assert!(
            ok,
            "{what}: the job failed\n--- stdout:\n{out}\n--- stderr:\n{err}"
        );
        for r in 0..n {
            assert!(
                out.contains(&format!("py group {r} ok")),
                "{what}: rank {r} did not pass\n--- stdout:\n{out}\n--- stderr:\n{err}"
            );
        }
    }
}

/// The C host, built against our headers.
fn c_host() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        common::build_c(
            "tests/c/group_host.c",
            &unique("host"),
            "group_host",
            &common::include_dir(),
            &["-pthread"],
        )
    })
}

/// Runs `scenario` as `n` clients of the C host; returns how many
/// constructs reached its `group` upcall.
fn under_c_host(scenario: &str, n: u32) -> u32 {
    let tmp = common::scratch(&unique(&format!("host_{scenario}_{n}")));
    let n_arg = n.to_string();
    let args = [
        std::ffi::OsStr::new(&n_arg),
        ours().as_os_str(),
        std::ffi::OsStr::new(scenario),
    ];
    let out = common::run_c_host(c_host(), &args, &tmp, LIMIT, "group host ok");
    for r in 0..n {
        assert!(
            out.contains(&format!("{TAG} {r} ok")),
            "{scenario} at {n} under the C host:\n{out}"
        );
    }
    out.lines()
        .find_map(|l| l.strip_prefix("group host upcalls "))
        .and_then(|v| v.trim().parse().ok())
        .expect("the host reports its upcalls")
}

#[test]
fn c_host_context_ids_come_from_the_group_upcall() {
    for n in [2, 4] {
        let upcalls = under_c_host("c05_context_ids", n);
        assert!(upcalls > 0, "no construct reached the group upcall");
    }
}

#[test]
fn c_host_runs_the_collective_scenarios() {
    for scenario in [
        "c03_collective",
        "c07_group_fence",
        "c08_group_data",
        "c09_group_info",
        "c20_destruct",
        "c21_invite_join",
        "c24_leave",
        "c27_queries",
    ] {
        under_c_host(scenario, 4);
    }
}
