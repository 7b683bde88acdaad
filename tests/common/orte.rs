//! Open MPI 4.1's `mpirun` across several nodes simulated on this machine,
//! on our `libpmix.so.2` or on the reference OpenPMIx 4.2.2 (issue #9).
//!
//! `mpirun` (the HNP) runs in the test's own namespaces. It starts one
//! `orted` per node through its rsh launcher, with
//! `tests/cluster/orted-agent.sh` in place of ssh: the agent runs the
//! daemon's command line as node `nK` of `tests/cluster/node.sh` (its own
//! UTS and mount namespaces, host name `nK`, a private `/dev/shm`), on this
//! machine's network. The node names need not resolve (with
//! `if_base_do_not_resolve`, below, nothing looks them up; the daemons call
//! back over loopback). Which library every process
//! loads is chosen by `LD_LIBRARY_PATH` (a directory holding our
//! `libpmix.so.2`, or unset for the reference), which the agent, the
//! daemons and the ranks inherit.
//!
//! The options that make it work ([`Job::command`]): `plm_rsh_no_tree_spawn`
//! (the HNP starts every daemon itself; they daemonize), `oob_tcp_if_include
//! lo` (the daemons reach the HNP on loopback), `btl tcp,self,vader` with
//! `btl_tcp_if_include lo` (TCP between nodes on loopback, which the tcp
//! BTL excludes by default; shared memory within a node, whose ranks share
//! its `/dev/shm`), and `if_base_do_not_resolve` (mpirun otherwise asks DNS
//! about `n1`, `n2`... a dozen times per run, to learn whether a host is
//! itself; a lost reply cost 5 s, the resolver's retry, in about one run in
//! 20).
//!
//! Every run is bounded ([`Job::limit`]). Its processes carry a marker
//! variable ([`MARK`]); the daemons call `setsid` and are reparented away
//! from the test, so once `mpirun` has ended (or been killed at the limit)
//! whatever still carries the marker is given a grace period to exit on its
//! own (waited for through pidfds, not sleeps), then killed and reported
//! ([`Run::leftovers`]): a clean run leaves nothing. At the limit, the
//! marked processes' stacks are taken with gdb (when installed) before they
//! are killed, into the run's stderr. Each run has its own `TMPDIR` (the
//! session directories), removed afterwards.
//!
//! The programs report which libpmix they and their parent (the node's
//! `orted`) mapped with `tests/interop/maps.h` (`<who> libpmix: PATH`
//! lines), checked by [`Run::assert_lib`], or with
//! `tests/multinode/libpmix_id.h` (`libpmix-id` lines: the file's device and
//! inode), checked by [`Run::assert_lib_ids`]; `mpirun`'s own maps are read
//! when the first line of output arrives ([`Run::mpirun_lib`]).
//!
//! Prerequisites: root (namespaces), Debian's `openmpi-bin`,
//! `libopenmpi-dev` and `libpmix-dev`; without them [`available`] prints
//! `SKIPPED: ...`, or panics under `PMIX_REQUIRE_REFERENCE=1` (CI).

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// Debian's OpenPMIx 4.2.2: the headers every PMIx program here is built
/// against, and the reference library.
pub const REF_PREFIX: &str = "/usr/lib/x86_64-linux-gnu/pmix2";

/// The variable that marks every process of one run.
pub const MARK: &str = "PMIX_ORTE_RUN";

/// How long the daemons of a finished run may take to exit on their own.
const GRACE: Duration = Duration::from_secs(10);

/// Which `libpmix.so.2` a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lib {
    /// Ours, through `LD_LIBRARY_PATH`.
    Ours,
    /// Debian's OpenPMIx 4.2.2, found by the normal library search.
    Reference,
}

impl Lib {
    /// The library file, resolved (as `/proc/<pid>/maps` shows it).
    pub fn path(self) -> PathBuf {
        let p = match self {
            Lib::Ours => super::ffi_lib_dir().join("libpmix.so.2"),
            Lib::Reference => Path::new(REF_PREFIX).join("lib/libpmix.so.2"),
        };
        std::fs::canonicalize(&p).unwrap_or_else(|e| panic!("resolve {}: {e}", p.display()))
    }

    pub fn name(self) -> &'static str {
        match self {
            Lib::Ours => "ours",
            Lib::Reference => "reference",
        }
    }
}

// ---------------------------------------------------------------------------
// Prerequisites

/// Why multi-node `mpirun` jobs cannot run here, if they cannot.
fn missing() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root (the nodes need namespaces)".into());
    }
    let works = |prog: &str, arg: &str| {
        Command::new(prog)
            .arg(arg)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    if !works("mpirun", "--version") || !works("mpicc", "--version") {
        return Some(
            "Open MPI not installed (apt-get install -y openmpi-bin libopenmpi-dev)".into(),
        );
    }
    if !Path::new(REF_PREFIX).join("include/pmix.h").exists() {
        return Some(
            "the reference OpenPMIx not installed (apt-get install -y libpmix-dev)".into(),
        );
    }
    let node = super::root().join("tests/cluster/node.sh");
    let mut probe = Command::new("/bin/sh");
    probe
        .arg(&node)
        .args(["orte-probe", "", "--", "/bin/true"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let o = super::run_with_watchdog(&mut probe, Duration::from_secs(30), "node.sh probe");
    if !o.status.success() {
        return Some(format!(
            "tests/cluster/node.sh cannot make a node here: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ));
    }
    None
}

/// True when multi-node `mpirun` jobs can run; otherwise prints why the
/// caller skips, or panics under `PMIX_REQUIRE_REFERENCE=1`.
pub fn available() -> bool {
    static WHY: OnceLock<Option<String>> = OnceLock::new();
    let Some(why) = WHY.get_or_init(missing) else {
        return true;
    };
    assert!(
        std::env::var("PMIX_REQUIRE_REFERENCE").as_deref() != Ok("1"),
        "PMIX_REQUIRE_REFERENCE=1 but multi-node mpirun cannot run: {why}"
    );
    eprintln!("SKIPPED: {why}");
    false
}

// ---------------------------------------------------------------------------
// Building

/// Where the programs are built, once per test binary.
pub fn build_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| super::scratch("orte-build"))
}

/// Builds `src` (relative to the workspace root) once into
/// `build_dir()/<file stem>` with `compile(src, out)`.
fn build_once(src: &str, compile: impl FnOnce(&Path, &Path) -> Command) -> PathBuf {
    static BUILT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let src = super::root().join(src);
    let stem = src.file_stem().unwrap().to_str().unwrap().to_string();
    let out = build_dir().join(&stem);
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !built.contains(&out) {
        let mut cmd = compile(&src, &out);
        let o = cmd
            .output()
            .unwrap_or_else(|e| panic!("compile {stem}: {e}"));
        assert!(
            o.status.success(),
            "{cmd:?} failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        built.push(out.clone());
    }
    out
}

/// An MPI program (`src` relative to the workspace root) built with
/// Debian's `mpicc`, with `tests/interop` (maps.h) on the include path.
pub fn mpi_program(src: &str) -> PathBuf {
    build_once(src, |src, out| {
        let mut c = Command::new("mpicc");
        c.args(["-Wall", "-Werror", "-O1", "-I"])
            .arg(super::root().join("tests/interop"))
            .arg(src)
            .arg("-o")
            .arg(out);
        c
    })
}

/// A PMIx client (`src` relative to the workspace root) built against the
/// reference headers and linked against `libpmix.so.2` without an rpath:
/// it runs on the reference, or on ours through `LD_LIBRARY_PATH`.
pub fn pmix_program(src: &str) -> PathBuf {
    build_once(src, |src, out| {
        let mut c = Command::new("cc");
        c.args(["-std=gnu11", "-Wall", "-Werror", "-O1", "-I"])
            .arg(Path::new(REF_PREFIX).join("include"))
            .arg("-I")
            .arg(super::root().join("tests/interop"))
            .arg(src)
            .arg("-o")
            .arg(out)
            .arg("-L")
            .arg(Path::new(REF_PREFIX).join("lib"))
            .args(["-lpmix", "-pthread"]);
        c
    })
}

// ---------------------------------------------------------------------------
// Marked processes

/// The paths of the `<who> libpmix: PATH` lines in `stdout` (the text may
/// follow another process's unterminated output on the same line).
pub fn libpmix_lines<'a>(stdout: &'a str, who: &str) -> Vec<&'a str> {
    let prefix = format!("{who} libpmix: ");
    stdout
        .lines()
        .filter_map(|l| l.find(&prefix).map(|i| &l[i + prefix.len()..]))
        .collect()
}

/// The pids of the live processes whose environment holds `var=value`.
pub fn marked(var: &str, value: &str) -> Vec<i32> {
    let needle = format!("{var}={value}");
    let mut pids = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return pids;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        // A zombie's environment reads empty: it is dead already.
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        if env.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
            pids.push(pid);
        }
    }
    pids
}

/// One bounded run of a command whose processes carry a marker variable
/// ([`run_marked`]).
pub struct MarkedRun {
    /// The exit code; `None` when killed (the limit, or a signal).
    pub code: Option<i32>,
    /// Whether the limit passed first (the run was killed).
    pub timed_out: bool,
    /// How long the run took.
    pub took: Duration,
    pub stdout: String,
    pub stderr: String,
    /// The command, for reports.
    pub what: String,
}

impl MarkedRun {
    /// The command, how it ended and its output, for a failure's message.
    pub fn report(&self) -> String {
        format!(
            "`{}` (exit {:?}, {:?}{})\n--- stdout\n{}\n--- stderr\n{}",
            self.what,
            self.code,
            self.took,
            if self.timed_out { ", TIMED OUT" } else { "" },
            self.stdout,
            self.stderr
        )
    }
}

/// Runs `cmd` in its own process group with `var=<a fresh mark>` in its
/// environment and stdin closed, for at most `limit`: at the limit the
/// group is killed; then every process still carrying the mark (daemons
/// that left the group keep the pipes open) is killed before the output
/// is collected, and named in its stderr. With `ours`, `LD_LIBRARY_PATH`
/// names our library, else it is removed. `tag` prefixes the messages.
pub fn run_marked(
    mut cmd: Command,
    var: &str,
    ours: bool,
    limit: Duration,
    tag: &str,
) -> MarkedRun {
    static SEQ: AtomicU32 = AtomicU32::new(0);
    let mark = format!(
        "{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    );
    let what = format!("{cmd:?}");
    cmd.env(var, &mark)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if ours {
        cmd.env("LD_LIBRARY_PATH", super::ffi_lib_dir());
    } else {
        cmd.env_remove("LD_LIBRARY_PATH");
    }
    let start = Instant::now();
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("spawn {what}: {e}"));
    let pgid = child.id() as i32;
    let t_out = super::read_in_thread(child.stdout.take().unwrap());
    let t_err = super::read_in_thread(child.stderr.take().unwrap());
    let (waiter, timed_out) = super::wait_at_most(child, limit);
    if timed_out {
        // SAFETY: kill(2) on our own child's process group.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
    }
    let status = waiter.join().unwrap().expect("wait");
    let took = start.elapsed();
    let leftovers = kill_marked(var, &mark);
    let stdout = t_out.join().unwrap();
    let mut stderr = t_err.join().unwrap();
    if leftovers > 0 {
        stderr.push_str(&format!(
            "\n[{tag}: killed {leftovers} process(es) the run left behind]\n"
        ));
    }
    eprintln!("{tag}: {what} took {took:?}");
    MarkedRun {
        code: status.code(),
        timed_out,
        took,
        stdout,
        stderr,
        what,
    }
}

/// Kills (SIGKILL) every process whose environment holds `var=value`;
/// returns how many there were.
pub fn kill_marked(var: &str, value: &str) -> usize {
    let pids = marked(var, value);
    for &pid in &pids {
        // SAFETY: kill(2) has no memory preconditions; the process carries
        // the caller's own marker.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    pids.len()
}

/// Waits, at most `limit`, until every process in `pids` has exited (or
/// become a zombie), through pidfds; returns whether they all did.
pub fn wait_exited(pids: &[i32], limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    let mut fds: Vec<libc::pollfd> = Vec::new();
    for &pid in pids {
        // SAFETY: pidfd_open takes a pid and flags and returns a new fd.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as i32;
        if fd >= 0 {
            fds.push(libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            });
        }
    }
    let mut pending: Vec<libc::pollfd> = fds.clone();
    while !pending.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        // SAFETY: `pending` is a valid array of pollfds for its length.
        let n = unsafe {
            libc::poll(
                pending.as_mut_ptr(),
                pending.len() as libc::nfds_t,
                left.as_millis().min(i32::MAX as u128) as i32,
            )
        };
        if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break;
        }
        pending.retain(|p| p.revents == 0);
    }
    for p in &fds {
        // SAFETY: each fd was opened above and is closed once.
        unsafe { libc::close(p.fd) };
    }
    pending.is_empty()
}

/// The stacks of the processes `pids` (gdb, when installed), each bounded.
fn stacks(pids: &[i32]) -> String {
    let mut out = String::new();
    if Command::new("gdb").arg("--version").output().is_err() {
        return out;
    }
    for &pid in pids.iter().take(8) {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
            .unwrap_or_default();
        let mut gdb = Command::new("gdb");
        gdb.args([
            "-p",
            &pid.to_string(),
            "-batch",
            "-ex",
            "thread apply all bt",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
        let o = super::run_with_watchdog(&mut gdb, Duration::from_secs(30), "gdb");
        out.push_str(&format!(
            "--- pid {pid}: {}\n",
            cmdline.chars().take(120).collect::<String>()
        ));
        for l in String::from_utf8_lossy(&o.stdout).lines() {
            if l.starts_with('#') || l.starts_with("Thread ") {
                out.push_str(l);
                out.push('\n');
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Jobs

/// One `mpirun` job across `nodes` nodes (`n1`..`nN`) with `per_node`
/// slots each.
#[derive(Clone, Debug)]
pub struct Job {
    lib: Lib,
    nodes: u32,
    per_node: u32,
    np: u32,
    program: PathBuf,
    args: Vec<String>,
    mpirun_args: Vec<String>,
    env: Vec<(String, String)>,
    limit: Duration,
}

impl Job {
    /// `nodes * per_node` ranks of `program` on `lib`.
    pub fn new(lib: Lib, nodes: u32, per_node: u32, program: &Path) -> Job {
        let np = nodes * per_node;
        Job {
            lib,
            nodes,
            per_node,
            np,
            program: program.to_path_buf(),
            args: Vec::new(),
            mpirun_args: Vec::new(),
            env: Vec::new(),
            limit: Duration::from_secs(30 + 2 * u64::from(np)),
        }
    }

    /// The program's arguments.
    pub fn args(mut self, args: &[&str]) -> Job {
        self.args.extend(args.iter().map(|s| s.to_string()));
        self
    }

    /// The number of ranks (default: every slot).
    pub fn np(mut self, np: u32) -> Job {
        self.np = np;
        self
    }

    /// More `mpirun` options, before the program.
    pub fn mpirun_args(mut self, args: &[&str]) -> Job {
        self.mpirun_args.extend(args.iter().map(|s| s.to_string()));
        self
    }

    /// A variable in `mpirun`'s environment (hence the daemons' and the
    /// ranks').
    pub fn env(mut self, k: &str, v: &str) -> Job {
        self.env.push((k.into(), v.into()));
        self
    }

    /// The hard limit of the run.
    pub fn limit(mut self, limit: Duration) -> Job {
        self.limit = limit;
        self
    }

    pub fn lib(&self) -> Lib {
        self.lib
    }

    /// `n1:S,n2:S,...`
    pub fn hosts(&self) -> String {
        (1..=self.nodes)
            .map(|i| format!("n{i}:{}", self.per_node))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The `mpirun` command line, without the environment.
    pub fn command(&self) -> Command {
        let agent = super::root().join("tests/cluster/orted-agent.sh");
        let mut c = Command::new("mpirun");
        c.args(["--allow-run-as-root", "--host", &self.hosts()])
            .args(["-n", &self.np.to_string()])
            .args(["--mca", "plm_rsh_agent"])
            .arg(format!("/bin/sh {}", agent.display()))
            .args(["--mca", "plm_rsh_no_tree_spawn", "1"])
            .args(["--mca", "oob_tcp_if_include", "lo"])
            .args(["--mca", "btl", "tcp,self,vader"])
            .args(["--mca", "btl_tcp_if_include", "lo"])
            .args(["--mca", "if_base_do_not_resolve", "1"])
            .args(&self.mpirun_args)
            .arg(&self.program)
            .args(&self.args)
            // See `mpirun` in tests/interop.rs: Open MPI's lazy binding
            // race with its own component unloading.
            .env("LD_BIND_NOW", "1");
        c
    }

    /// Runs the job (one at a time in this test binary) and returns what
    /// it did; never hangs past the limit, leaves nothing behind.
    pub fn run(&self) -> Run {
        let _one = serial();
        static SEQ: AtomicU32 = AtomicU32::new(0);
        let mark = format!(
            "{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        );
        let tmp = PathBuf::from(format!("/tmp/orte-{mark}"));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).unwrap();

        let mut cmd = self.command();
        let what = format!(
            "[{}] {}",
            self.lib.name(),
            format!("{cmd:?}").replace('"', "")
        );
        cmd.env(MARK, &mark)
            .env("TMPDIR", &tmp)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        match self.lib {
            Lib::Ours => cmd.env("LD_LIBRARY_PATH", super::ffi_lib_dir()),
            Lib::Reference => cmd.env_remove("LD_LIBRARY_PATH"),
        };

        let start = Instant::now();
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("spawn {what}: {e}"));
        let pid = child.id() as i32;
        let mut out = child.stdout.take().unwrap();
        let err = child.stderr.take().unwrap();
        // mpirun's maps, read when the first line of output arrives (the
        // HNP has loaded libpmix long before any rank runs).
        let hnp_lib: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
        let hnp = hnp_lib.clone();
        let t_out = std::thread::spawn(move || {
            let mut s = String::new();
            let mut r = BufReader::new(&mut out);
            let mut line = String::new();
            while r.read_line(&mut line).unwrap_or(0) > 0 {
                if s.is_empty() {
                    *hnp.lock().unwrap() = libpmix_of(pid);
                }
                s.push_str(&line);
                line.clear();
            }
            s
        });
        let t_err = super::read_in_thread(err);
        let (waiter, timed_out) = super::wait_at_most(child, self.limit);
        let mut notes = String::new();
        if timed_out {
            let pids = marked(MARK, &mark);
            notes.push_str(&format!(
                "\n[orte: HANG: killed at the limit of {:?}; stacks of the {} marked process(es)]\n{}",
                self.limit,
                pids.len(),
                stacks(&pids)
            ));
            // SAFETY: kill(2) on our own child's process group.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
        let status = waiter.join().unwrap().expect("wait for mpirun");
        let elapsed = start.elapsed();
        // The daemons (and ranks) outlive mpirun briefly: let them exit on
        // their own, then kill whatever is left.
        let lingering = marked(MARK, &mark);
        if !timed_out && !lingering.is_empty() && !wait_exited(&lingering, GRACE) {
            notes.push_str(&format!(
                "\n[orte: still running {GRACE:?} after mpirun ended: {}]\n",
                describe(&marked(MARK, &mark))
            ));
        }
        let leftovers = kill_marked(MARK, &mark);
        if leftovers > 0 {
            notes.push_str(&format!(
                "\n[orte: killed {leftovers} process(es) the run left behind]\n"
            ));
        }
        let stdout = t_out.join().unwrap();
        let mut stderr = t_err.join().unwrap();
        stderr.push_str(&notes);
        let _ = std::fs::remove_dir_all(&tmp);
        eprintln!("orte: {what} took {elapsed:?}");
        let mpirun_lib = hnp_lib.lock().unwrap().take();
        Run {
            lib: self.lib,
            code: status.code(),
            timed_out,
            leftovers,
            elapsed,
            stdout,
            stderr,
            what,
            mpirun_lib,
        }
    }
}

/// One `mpirun` job at a time in a test binary: 2 cores.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The libpmix file process `pid` mapped, if any (None when unreadable).
fn libpmix_of(pid: i32) -> Option<String> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).ok()?;
    maps.lines()
        .filter_map(|l| l.find('/').map(|i| &l[i..]))
        .find(|f| f.contains("/libpmix.so"))
        .map(String::from)
}

/// `pid (command)` for each process.
fn describe(pids: &[i32]) -> String {
    pids.iter()
        .map(|p| {
            let cmd = std::fs::read(format!("/proc/{p}/cmdline"))
                .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
                .unwrap_or_default();
            format!("{p} ({})", cmd.chars().take(60).collect::<String>().trim())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a run did.
#[derive(Debug)]
pub struct Run {
    pub lib: Lib,
    /// `mpirun`'s exit code; `None` when killed.
    pub code: Option<i32>,
    pub timed_out: bool,
    /// Marked processes still alive after `mpirun` ended and the grace
    /// period (killed).
    pub leftovers: usize,
    pub elapsed: Duration,
    pub stdout: String,
    pub stderr: String,
    pub what: String,
    /// The libpmix `mpirun` had mapped when the first line of output
    /// arrived (None: no output, or `mpirun` was gone already).
    pub mpirun_lib: Option<String>,
}

impl Run {
    /// Everything known, for a failure message.
    pub fn report(&self) -> String {
        format!(
            "`{}`: exit {:?}{}, {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.what,
            self.code,
            if self.timed_out {
                " (HANG, killed)"
            } else {
                ""
            },
            self.elapsed,
            self.stdout,
            self.stderr
        )
    }

    /// Panics unless the run ended by itself (no hang) and left nothing
    /// behind.
    pub fn assert_bounded(&self) {
        assert!(
            !self.timed_out,
            "HANG: did not finish within its limit\n{}",
            self.report()
        );
        assert_eq!(
            self.leftovers,
            0,
            "processes left behind\n{}",
            self.report()
        );
    }

    /// Panics unless `mpirun` exited 0, in time, leaving nothing behind.
    pub fn assert_ok(&self) {
        self.assert_bounded();
        assert_eq!(self.code, Some(0), "mpirun failed\n{}", self.report());
    }

    /// Panics unless a line of stdout is exactly `line`.
    pub fn assert_line(&self, line: &str) {
        assert!(
            self.stdout.lines().any(|l| l.trim_end() == line),
            "no line {line:?}\n{}",
            self.report()
        );
    }

    /// The lines of stdout starting with `prefix`.
    pub fn lines_with<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.stdout.lines().filter(move |l| l.starts_with(prefix))
    }

    /// Panics unless, for each of the `ntasks` ranks, the `libpmix-id`
    /// lines of `tests/multinode/libpmix_id.h` show the rank and its parent
    /// `orted` with the run's library mapped (by device and inode).
    pub fn assert_lib_ids(&self, ntasks: u32) {
        let want = super::slurm::FileId::of(&self.lib.path());
        if let Err(e) = super::slurm::check_libpmix_ids_under(&self.stdout, ntasks, want, "orted") {
            panic!("{e}\n{}", self.report());
        }
    }

    /// Panics unless there are `count` `<who> libpmix: PATH` lines for
    /// each `who` (at least one when `count` is None), every one naming
    /// the run's library; and unless `mpirun` mapped it too (when its maps
    /// could be read).
    pub fn assert_lib(&self, whos: &[&str], count: Option<usize>) {
        let want = self.lib.path();
        for who in whos {
            let paths = libpmix_lines(&self.stdout, who);
            match count {
                Some(n) => assert_eq!(
                    paths.len(),
                    n,
                    "{n} `{who} libpmix:` lines expected\n{}",
                    self.report()
                ),
                None => assert!(
                    !paths.is_empty(),
                    "no `{who} libpmix:` line\n{}",
                    self.report()
                ),
            }
            for p in paths {
                let got = std::fs::canonicalize(p.trim()).unwrap_or_else(|_| PathBuf::from(p));
                assert_eq!(
                    got,
                    want,
                    "{who} mapped {} instead of the {} library {}\n{}",
                    got.display(),
                    self.lib.name(),
                    want.display(),
                    self.report()
                );
            }
        }
        if let Some(p) = &self.mpirun_lib {
            let got = std::fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p));
            assert_eq!(
                got,
                want,
                "mpirun mapped {} instead of the {} library\n{}",
                got.display(),
                self.lib.name(),
                self.report()
            );
        }
    }
}
