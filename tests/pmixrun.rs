//! `pmixrun` end to end: real jobs of the probe client (the
//! `pmix_client_probe` example's code, run by re-executing this test binary
//! as the program, its mode in `PMIXRUN_PROBE_ARGS`) and of plain shell
//! commands.
//!
//! Every job runs under `pmixrun --timeout`, so a hang ends in a failed
//! assertion naming the timeout rather than a stuck test; nothing sleeps
//! to synchronize.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, ExitStatus, Stdio};

#[path = "../examples/pmix_client_probe.rs"]
mod probe;

const PROBE_ARGS: &str = "PMIXRUN_PROBE_ARGS";
/// The safety net of every job: far above what any of them needs.
const LIMIT: &str = "120";

/// The probe's entry point when this binary is a rank; nothing otherwise.
#[test]
fn probe_entry() {
    let Ok(args) = std::env::var(PROBE_ARGS) else {
        return;
    };
    let args: Vec<String> = args.split_whitespace().map(String::from).collect();
    common::exit_with("probe", probe::run(&args));
}

/// The command line of one probe rank.
fn probe_cmd() -> Vec<String> {
    common::this_test_as_program("probe_entry")
}

fn pmixrun() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    c.stdin(Stdio::null());
    c
}

struct Out {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

fn run(mut cmd: Command) -> Out {
    let o = cmd.output().expect("pmixrun starts");
    Out {
        status: o.status,
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// `pmixrun --timeout LIMIT -n n PROBE` with the probe in `mode`.
fn probe_job(n: u32, mode: &str) -> Out {
    let mut c = pmixrun();
    c.args(["--timeout", LIMIT, "-n", &n.to_string()])
        .args(probe_cmd())
        .env(PROBE_ARGS, mode);
    run(c)
}

fn assert_ok(o: &Out, n: u32, mode: &str) {
    assert!(
        o.status.success(),
        "{}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        o.stdout,
        o.stderr
    );
    for r in 0..n {
        let line = format!("probe rank {r} of {n}: {mode} ok");
        assert!(
            o.stdout.contains(&line),
            "missing {line:?} in\n{}",
            o.stdout
        );
    }
}

/// A failed job: its exit code, and a report on stderr naming `rank`
/// with each of `words`.
fn assert_failed(o: &Out, code: i32, rank: u32, words: &[&str]) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        o.stdout,
        o.stderr
    );
    assert!(!o.stderr.contains("--timeout"), "{}", o.stderr);
    let line = o
        .stderr
        .lines()
        .find(|l| l.starts_with("pmixrun: ") && l.contains(&format!("rank {rank} ")))
        .unwrap_or_else(|| panic!("no report naming rank {rank} in\n{}", o.stderr));
    for w in words {
        assert!(line.contains(w), "{line:?} lacks {w:?}");
    }
}

// ----------------------------------------------------------------------
// Wire-up: every reserved key, posted data in every scope, fences.

#[test]
fn wireup_n1() {
    assert_ok(&probe_job(1, "wireup"), 1, "wireup");
}

#[test]
fn wireup_n2() {
    assert_ok(&probe_job(2, "wireup"), 2, "wireup");
}

#[test]
fn wireup_n4() {
    assert_ok(&probe_job(4, "wireup"), 4, "wireup");
}

/// Oversubscribed: more ranks than cores.
#[test]
fn wireup_n16() {
    assert_ok(&probe_job(16, "wireup"), 16, "wireup");
}

#[test]
fn direct_modex_without_a_fence_n4() {
    assert_ok(&probe_job(4, "dmodex"), 4, "dmodex");
}

#[test]
fn fences_over_subsets_n4() {
    assert_ok(&probe_job(4, "subsets"), 4, "subsets");
}

/// `-n 2 a : -n 3 b`: one namespace, two applications.
#[test]
fn two_program_contexts_are_two_apps() {
    let mut c = pmixrun();
    c.args(["--timeout", LIMIT, "-n", "2"])
        .args(probe_cmd())
        .args([":", "-n", "3"])
        .args(probe_cmd())
        .env(PROBE_ARGS, "wireup --apps 2,3");
    assert_ok(&run(c), 5, "wireup");
}

// ----------------------------------------------------------------------
// Failures tear the job down and are reported.

#[test]
fn a_rank_killed_before_the_fence_fails_the_job() {
    let o = probe_job(4, "die-before-fence 1");
    assert_failed(&o, 128 + 9, 1, &["SIGKILL"]);
}

#[test]
fn a_rank_killed_during_the_fence_fails_the_job() {
    let n = 4;
    let victim = n - 1;
    let mut c = pmixrun();
    c.args(["--timeout", LIMIT, "-n", &n.to_string()])
        .args(probe_cmd())
        .env(PROBE_ARGS, format!("fence-victim {victim}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut entering = 0;
    let mut pid = None;
    while entering < n - 1 || pid.is_none() {
        let line = lines
            .next()
            .expect("the job ended before the fence")
            .unwrap();
        if line == "entering fence" {
            entering += 1;
        } else if let Some(p) = line.strip_prefix("victim pid=") {
            pid = Some(p.parse::<i32>().unwrap());
        }
    }
    // SAFETY: kill(2) has no memory preconditions; the victim is blocked
    // until the job ends, so the pid is still its own.
    unsafe {
        libc::kill(pid.unwrap(), libc::SIGKILL);
    }
    let mut stdout = String::new();
    for l in lines {
        stdout.push_str(&l.unwrap());
        stdout.push('\n');
    }
    let status = child.wait().unwrap();
    let o = Out {
        status,
        stdout,
        stderr: err.join().unwrap(),
    };
    assert_failed(&o, 128 + 9, victim, &["SIGKILL"]);
}

#[test]
fn a_rank_calling_abort_tears_the_job_down() {
    let o = probe_job(3, "abort 1");
    assert_failed(&o, 5, 1, &["PMIx_Abort", "status 5", "probe abort"]);
}

#[test]
fn a_rank_exiting_without_finalize_tears_the_job_down() {
    let o = probe_job(3, "no-finalize 0");
    assert_failed(&o, 1, 0, &["without calling PMIx_Finalize"]);
}

#[test]
fn timeout_kills_the_job() {
    let mut c = pmixrun();
    c.args(["--timeout", "1", "-n", "2"])
        .args(probe_cmd())
        .env(PROBE_ARGS, "block");
    let o = run(c);
    assert_eq!(o.status.code(), Some(124), "{}", o.stderr);
    assert!(o.stderr.contains("--timeout"), "{}", o.stderr);
}

/// Sends `sig` to `pmixrun` once both probe ranks are blocked; returns
/// its exit status and stderr.
fn signal_blocked_job(sig: i32) -> (ExitStatus, String) {
    let mut c = pmixrun();
    c.args(["--timeout", LIMIT, "-n", "2"])
        .args(probe_cmd())
        .env(PROBE_ARGS, "block")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut blocking = 0;
    while blocking < 2 {
        let line = lines.next().expect("the job ended early").unwrap();
        if line == "blocking" {
            blocking += 1;
        }
    }
    // SAFETY: kill(2) has no memory preconditions; `child` is not reaped.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
    for l in lines {
        l.unwrap();
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap(), err)
}

#[test]
fn sigterm_is_forwarded_and_ends_the_job() {
    let (status, err) = signal_blocked_job(libc::SIGTERM);
    assert_eq!(status.code(), Some(128 + 15), "{err}");
    assert!(err.contains("received SIGTERM"), "{err}");
    assert!(!err.contains("--timeout"), "{err}");
}

/// SIGUSR1 is forwarded as is: the ranks die of it (its default action),
/// which fails the job.
#[test]
fn sigusr1_is_forwarded() {
    let (status, err) = signal_blocked_job(libc::SIGUSR1);
    assert_eq!(status.code(), Some(128 + libc::SIGUSR1), "{err}");
    assert!(err.contains("killed by SIGUSR1"), "{err}");
}

/// Ranks ignoring SIGTERM are killed after the grace period.
#[test]
fn teardown_escalates_to_sigkill() {
    let mut c = pmixrun();
    c.args([
        "--timeout",
        "1",
        "-n",
        "2",
        "sh",
        "-c",
        "trap '' TERM; sleep 1000",
    ]);
    let o = run(c);
    assert_eq!(o.status.code(), Some(124), "{}", o.stderr);
    assert!(o.stderr.contains("--timeout"), "{}", o.stderr);
}

// ----------------------------------------------------------------------
// Plain programs: exit status, output, environment, working directory.

fn sh_job(args: &[&str], script: &str) -> Out {
    let mut c = pmixrun();
    c.args(["--timeout", LIMIT])
        .args(args)
        .args(["sh", "-c", script]);
    run(c)
}

#[test]
fn exit_status_of_a_failing_rank_is_the_job_status() {
    let o = sh_job(&["-n", "3"], r#"if [ "$PMIX_RANK" = 1 ]; then exit 7; fi"#);
    assert_failed(&o, 7, 1, &["exited with status 7"]);
}

#[test]
fn all_ranks_succeeding_is_success() {
    let o = sh_job(&["-n", "3"], "exit 0");
    assert!(o.status.success(), "{}", o.stderr);
    assert_eq!(o.stderr, "");
}

#[test]
fn a_missing_program_fails() {
    let mut c = pmixrun();
    c.args(["-n", "2", "/nonexistent/program"]);
    let o = run(c);
    assert_eq!(o.status.code(), Some(127));
    assert!(o.stderr.contains("/nonexistent/program"), "{}", o.stderr);
}

#[test]
fn tag_output_prefixes_every_line() {
    let mut c = pmixrun();
    c.args(["--timeout", LIMIT, "--tag-output", "-n", "2"])
        .args([
            "sh",
            "-c",
            r#"echo "out $PMIX_RANK"; echo "err $PMIX_RANK" >&2; printf "partial $PMIX_RANK""#,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = c.spawn().unwrap();
    let ns = format!("pmixrun-{}@1", child.id());
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    for r in 0..2 {
        for (text, stream, line) in [
            (&out, "stdout", "out"),
            (&out, "stdout", "partial"),
            (&err, "stderr", "err"),
        ] {
            let want = format!("[{ns},{r}]<{stream}>: {line} {r}\n");
            assert!(text.contains(&want), "{want:?} not in\n{text}");
        }
    }
    assert_eq!(out.lines().count(), 4, "{out}");
    assert_eq!(err.lines().count(), 2, "{err}");
}

#[test]
fn output_is_forwarded_untagged_by_default() {
    let o = sh_job(&["-n", "2"], "echo hello");
    assert!(o.status.success());
    assert_eq!(o.stdout, "hello\nhello\n");
}

#[test]
fn environment_and_working_directory() {
    let dir = std::env::temp_dir().canonicalize().unwrap();
    let d = dir.display().to_string();
    let o = sh_job(
        &["-x", "PMIXRUN_T=a b", "--wdir", &d, "-n", "1"],
        r#"echo "$PMIXRUN_T"; pwd -P; echo "$PMIX_NAMESPACE" "$PMIX_RANK""#,
    );
    assert!(o.status.success(), "{}", o.stderr);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines[0], "a b");
    assert_eq!(lines[1], d);
    assert!(lines[2].starts_with("pmixrun-") && lines[2].ends_with("@1 0"));
}

#[test]
fn rank_0_reads_the_launcher_stdin() {
    let mut c = pmixrun();
    c.args(["--timeout", LIMIT, "-n", "2", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = c.spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"one line\n").unwrap();
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap(), "one line\n");
}

// ----------------------------------------------------------------------
// A C client on our libpmix.so.2, built against our headers and against
// the reference OpenPMIx headers.

mod common;

fn c_client(include: &std::path::Path, tag: &str) -> std::path::PathBuf {
    // Per test process: concurrent runs (other checkouts sharing the
    // target directory) must not replace each other's programs.
    let dir = common::scratch(&format!("pmixrun_c_{tag}_{}", std::process::id()));
    let exe = dir.join("pmixrun_client");
    let src = common::root().join("tests/c/pmixrun_client.c");
    common::compile_c(&[&src], &exe, include, common::ffi_lib_dir(), &[]);
    exe
}

fn c_job(exe: &std::path::Path, n: u32) {
    let mut c = pmixrun();
    c.args(["--timeout", LIMIT, "-n", &n.to_string()])
        .arg(exe)
        .env("LD_LIBRARY_PATH", common::ffi_lib_dir());
    let o = run(c);
    assert!(o.status.success(), "{}\n{}", o.stdout, o.stderr);
    for r in 0..n {
        let line = format!("c client {r} of {n} ok");
        assert!(
            o.stdout.contains(&line),
            "missing {line:?} in\n{}",
            o.stdout
        );
    }
}

#[test]
fn c_clients_n1_n4_n16() {
    let exe = c_client(&common::include_dir(), "ours");
    for n in [1, 4, 16] {
        c_job(&exe, n);
    }
}

#[test]
fn c_client_built_against_the_reference_headers() {
    let Some((inc, _lib)) = common::reference_pmix() else {
        return;
    };
    c_job(&c_client(&inc, "reference"), 4);
}

// ----------------------------------------------------------------------
// The node's slots.

const OVERSUB_CHILD: &str = "PMIXRUN_OVERSUB_CHILD";

/// A rank of [`a_job_beyond_the_launchers_cpus_is_oversubscribed`]:
/// prints what `PMIX_NODE_OVERSUBSCRIBED` of its job (wildcard rank) is.
#[test]
fn oversubscribed_entry() {
    if std::env::var_os(OVERSUB_CHILD).is_none() {
        return;
    }
    let result = (|| {
        let c = pmix::client::Client::init(&[]).map_err(common::err("init"))?;
        let me = c.proc().clone();
        let wild = pmix::Proc::new(me.nspace.clone(), pmix::Rank::WILDCARD);
        let got = c.get(&wild, pmix::keys::NODE_OVERSUBSCRIBED, &[]);
        println!("oversubscribed rank {}: {got:?}", me.rank.0);
        c.finalize().map_err(common::err("finalize"))
    })();
    common::exit_with("oversubscribed", result);
}

/// `pmixrun` confined to one cpu (its affinity mask): a job of two ranks
/// oversubscribes the node, which the ranks read as
/// `PMIX_NODE_OVERSUBSCRIBED` true (Open MPI then has its ranks yield when
/// idle); a job of one does not, and the key is absent.
#[test]
fn a_job_beyond_the_launchers_cpus_is_oversubscribed() {
    for (n, want) in [(2u32, "Ok(Bool(true))"), (1, "Err(Status(-46))")] {
        let mut c = pmixrun();
        c.args(["--timeout", LIMIT, "-n", &n.to_string()])
            .args(common::this_test_as_program("oversubscribed_entry"))
            .env(OVERSUB_CHILD, "1");
        common::pin_to_cpu0(&mut c);
        let o = run(c);
        assert!(o.status.success(), "{}\n{}", o.stdout, o.stderr);
        for r in 0..n {
            let line = format!("oversubscribed rank {r}: {want}");
            assert!(o.stdout.contains(&line), "no {line:?} in\n{}", o.stdout);
        }
    }
}

/// A `$TMPDIR` whose parents do not exist yet is created, as OpenPMIx
/// creates its temporary directories (it was `ENOENT`; issue 21).
#[test]
fn a_tmpdir_that_does_not_exist_yet_is_created() {
    let top = std::path::PathBuf::from(format!("/tmp/pmix-rs-mkdirp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&top);
    let tmp = top.join("a/b");
    let mut c = pmixrun();
    c.args(["--timeout", LIMIT, "-n", "1", "/bin/true"])
        .env("TMPDIR", &tmp);
    let o = run(c);
    let made = tmp.is_dir();
    let _ = std::fs::remove_dir_all(&top);
    assert!(
        o.status.success(),
        "{:?}\n{}{}",
        o.status,
        o.stdout,
        o.stderr
    );
    assert!(made, "{} was not created", tmp.display());
}
