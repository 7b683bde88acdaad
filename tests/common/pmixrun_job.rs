//! A running `pmixrun` job for the tests that attach tools to one
//! (`debugger`, `iof`, `tools`, `attributes`): its rendezvous files in a
//! private temporary directory, its stdin held open, its stdout read line
//! by line ([`Lines`]), a tool attached to it, and every wait bounded by
//! [`LIMIT`]. Dropping a job kills and reaps `pmixrun` and removes the
//! directory.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use pmix::client::Client;
use pmix::{keys, Info, Value};

/// The bound of every wait here.
pub const LIMIT: Duration = Duration::from_secs(60);

/// An empty directory `/tmp/pmix-TAG-PID` for one test's rendezvous files
/// (short: a socket path in it must fit in 107 bytes).
pub fn private_tmp(tag: &str) -> PathBuf {
    let tmp = PathBuf::from(format!("/tmp/pmix-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    tmp
}

/// Polls (bounded) until `cond` holds.
pub fn poll_until(what: &str, mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + LIMIT;
    while !cond() {
        assert!(Instant::now() < end, "{what}: not within {LIMIT:?}");
        std::thread::yield_now();
        // A polling interval, not a synchronisation.
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The lines of a pipe (a child's stdout or stderr), read on a thread of
/// its own (which drains the pipe to its end) and kept: every line seen
/// stays searchable ([`Lines::wait_for`]), and [`Lines::next_line`] walks
/// them in order, each once.
pub struct Lines {
    rx: Receiver<String>,
    seen: Vec<String>,
    /// How many of `seen` `next_line` has returned.
    taken: usize,
}

impl Lines {
    /// The lines of `r`.
    pub fn new<R: Read + Send + 'static>(r: R) -> Lines {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(r).lines().map_while(Result::ok) {
                // Read on when nobody listens: the writer never blocks.
                let _ = tx.send(line);
            }
        });
        Lines {
            rx,
            seen: Vec::new(),
            taken: 0,
        }
    }

    /// The lines of `child`'s (piped) stdout.
    pub fn of(child: &mut Child) -> Lines {
        Lines::new(child.stdout.take().expect("piped stdout"))
    }

    /// Receives one more line before `end`.
    fn recv_by(&mut self, end: Instant) -> Result<&String, RecvTimeoutError> {
        let left = end.saturating_duration_since(Instant::now());
        let l = self.rx.recv_timeout(left)?;
        self.seen.push(l);
        Ok(self.seen.last().unwrap())
    }

    /// Waits (bounded) for a line starting with `prefix`, seen before or
    /// not; returns it.
    pub fn wait_for(&mut self, prefix: &str) -> String {
        if let Some(l) = self.seen.iter().find(|l| l.starts_with(prefix)) {
            return l.clone();
        }
        let end = Instant::now() + LIMIT;
        loop {
            match self.recv_by(end) {
                Ok(l) if l.starts_with(prefix) => return l.clone(),
                Ok(_) => {}
                Err(_) => panic!("no line {prefix:?} within {LIMIT:?}; saw {:?}", self.seen),
            }
        }
    }

    /// Waits (bounded) until `n` lines are `line`, seen before or not.
    pub fn wait_for_count(&mut self, line: &str, n: usize) {
        let mut count = self.seen.iter().filter(|l| *l == line).count();
        let end = Instant::now() + LIMIT;
        while count < n {
            match self.recv_by(end) {
                Ok(l) => count += usize::from(l == line),
                Err(_) => panic!(
                    "{count} of {n} lines {line:?} within {LIMIT:?}; saw {:?}",
                    self.seen
                ),
            }
        }
    }

    /// The next line `next_line` has not returned yet, waiting (bounded)
    /// for it; `what` says what the caller waits for.
    pub fn next_line(&mut self, what: &str) -> String {
        if self.taken == self.seen.len() {
            let end = Instant::now() + LIMIT;
            if self.recv_by(end).is_err() {
                panic!("no {what} line within {LIMIT:?}");
            }
        }
        self.taken += 1;
        self.seen[self.taken - 1].clone()
    }

    /// The lines seen so far (without waiting).
    pub fn so_far(&mut self) -> &[String] {
        while let Ok(l) = self.rx.try_recv() {
            self.seen.push(l);
        }
        &self.seen
    }

    /// The lines seen so far, without reading more (for messages).
    pub fn seen(&self) -> &[String] {
        &self.seen
    }

    /// Every line until the end of the output (bounded).
    pub fn rest(&mut self) -> &[String] {
        let end = Instant::now() + LIMIT;
        loop {
            match self.recv_by(end) {
                Ok(_) => {}
                Err(RecvTimeoutError::Disconnected) => return &self.seen,
                Err(_) => panic!("output did not end within {LIMIT:?}: {:?}", self.seen),
            }
        }
    }
}

/// A running `pmixrun --timeout 90 ARGS` on our library (the built
/// `pmixrun`), its rendezvous files in [`private_tmp`], its stdin a pipe
/// held open until [`PmixrunJob::close_stdin`] or a wait, its stdout
/// read by [`Lines`] (`out`).
pub struct PmixrunJob {
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    /// `pmixrun`'s stdout (its ranks' output).
    pub out: Lines,
    tmp: PathBuf,
    /// The job's namespace (see [`PmixrunJob::nspace`]).
    nspace: String,
}

impl PmixrunJob {
    /// Starts `pmixrun` with `args` (its stderr on the test's), its
    /// directory `private_tmp(tag)`.
    pub fn start(tag: &str, args: &[&str]) -> PmixrunJob {
        PmixrunJob::start_with_stderr(tag, args, true)
    }

    /// As [`PmixrunJob::start`]; pmixrun's stderr on the test's if
    /// `shown`, else discarded.
    pub fn start_with_stderr(tag: &str, args: &[&str], shown: bool) -> PmixrunJob {
        let tmp = private_tmp(tag);
        let mut child = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
            .args(["--timeout", "90"])
            .args(args)
            .env("TMPDIR", &tmp)
            .env("LD_LIBRARY_PATH", super::ffi_lib_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if shown {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .spawn()
            .expect("pmixrun starts");
        PmixrunJob {
            stdin: child.stdin.take(),
            out: Lines::of(&mut child),
            nspace: format!("pmixrun-{}@1", child.id()),
            child: Some(child),
            tmp,
        }
    }

    /// pmixrun's pid (0 once it was waited for).
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// Its `TMPDIR`, where its rendezvous files are.
    pub fn tmp(&self) -> &Path {
        &self.tmp
    }

    /// The namespace of pmixrun's own (first) job: what its ranks said
    /// (see [`PmixrunJob::read_nspace`]), else the name pmixrun gives it,
    /// `pmixrun-PID@1`.
    pub fn nspace(&self) -> &str {
        &self.nspace
    }

    /// A job of 2 ranks that print `ready NAMESPACE` and sleep (60 s), for
    /// tools to attach to; returns once the first said so (the namespace
    /// read, see [`PmixrunJob::read_nspace`]).
    pub fn sleeping(tag: &str) -> PmixrunJob {
        PmixrunJob::sleeping_with(tag, &[])
    }

    /// [`PmixrunJob::sleeping`] with pmixrun's `options` before the job.
    pub fn sleeping_with(tag: &str, options: &[&str]) -> PmixrunJob {
        let job = [
            "-n",
            "2",
            "sh",
            "-c",
            "echo ready $PMIX_NAMESPACE; exec sleep 60",
        ];
        let args: Vec<&str> = options.iter().copied().chain(job).collect();
        let mut job = PmixrunJob::start(tag, &args);
        job.read_nspace("ready ");
        job
    }

    /// Waits (bounded) for a line `PREFIX NSPACE` from a rank and takes
    /// NSPACE as the job's namespace.
    pub fn read_nspace(&mut self, prefix: &str) {
        let line = self.out.wait_for(prefix);
        self.nspace = line[prefix.len()..].trim().to_owned();
    }

    /// pmixrun's rendezvous file for tools, `pmix.HOST.tool.PID`.
    pub fn rendezvous_file(&self) -> PathBuf {
        let host = pmix::server::local_hostname();
        self.tmp.join(format!("pmix.{host}.tool.{}", self.pid()))
    }

    /// Waits (bounded) until pmixrun serves tools: its rendezvous file is
    /// there.
    pub fn wait_serving(&self) {
        poll_until("pmixrun's rendezvous file", || {
            self.rendezvous_file().exists()
        });
    }

    /// What a tool attaches to this pmixrun with: its pid and `TMPDIR`.
    pub fn tool_infos(&self) -> Vec<Info> {
        vec![
            super::info(keys::SERVER_PIDINFO, Value::Pid(self.pid() as i32)),
            super::info(
                keys::SERVER_TMPDIR,
                Value::string(self.tmp.to_str().unwrap()),
            ),
        ]
    }

    /// A Rust-API tool attached to this pmixrun by pid, once it serves.
    pub fn tool(&self) -> Client {
        self.wait_serving();
        Client::tool_init(&self.tool_infos()).expect("the tool attaches")
    }

    /// Runs python3-pmix's tool script `tests/python/SCRIPT` with `python`
    /// on this job (its pid, namespace and `TMPDIR` as arguments) under a
    /// watchdog; fails the test unless it succeeds printing `ok_line`.
    pub fn run_python_tool(&self, python: &str, script: &str, ok_line: &str) {
        let out = super::run_with_watchdog(
            Command::new(python)
                .args(["-W", "ignore"])
                .arg(super::root().join("tests/python").join(script))
                .args([
                    self.pid().to_string(),
                    self.nspace.clone(),
                    self.tmp.display().to_string(),
                ])
                .env("LD_LIBRARY_PATH", super::ffi_lib_dir())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
            LIMIT,
            "python tool",
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stdout}\n{stderr}");
        assert!(stdout.contains(ok_line), "{stdout}\n{stderr}");
    }

    /// pmixrun's stdin (panics once it is closed).
    pub fn stdin(&mut self) -> &mut ChildStdin {
        self.stdin.as_mut().expect("pmixrun's stdin is open")
    }

    /// Closes pmixrun's stdin.
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Sends `sig` to pmixrun.
    pub fn signal(&self, sig: libc::c_int) {
        let pid = self.child.as_ref().expect("running").id();
        // SAFETY: kill(2) has no memory preconditions; the pid is our
        // unreaped child.
        unsafe { libc::kill(pid as libc::pid_t, sig) };
    }

    /// Closes pmixrun's stdin and waits (bounded) for its exit code (None
    /// if a signal ended it); kills it and fails the test if it outlives
    /// [`LIMIT`].
    pub fn wait(&mut self) -> Option<i32> {
        self.close_stdin();
        let child = self.child.take().expect("running");
        let pid = child.id();
        let (waiter, timed_out) = super::wait_at_most(child, LIMIT);
        if timed_out {
            // SAFETY: kill(2) has no memory preconditions; the pid is our
            // child, which the waiter reaps once it dies.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
            panic!("pmixrun did not end within {LIMIT:?}");
        }
        waiter.join().unwrap().unwrap().code()
    }

    /// Ends the job (SIGTERM to pmixrun, which ends its ranks) and waits
    /// as [`PmixrunJob::wait`] does.
    pub fn end(&mut self) -> Option<i32> {
        self.signal(libc::SIGTERM);
        self.wait()
    }
}

impl Drop for PmixrunJob {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_dir_all(&self.tmp);
    }
}
