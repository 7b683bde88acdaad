//! A real Slurm 22.05 cluster on this one machine, for tests that run
//! unmodified Slurm jobs (`srun --mpi=pmix`) on our library or on the
//! reference OpenPMIx.
//!
//! [`SlurmCluster::start`] writes a configuration into a fresh temporary
//! directory (passed to every Slurm command through `SLURM_CONF`; nothing
//! under `/etc` is read or changed), then starts `slurmctld -D` and one
//! `slurmd -D -N NAME` per node as children of the test. Every daemon runs
//! through `tests/cluster/node.sh`: its own UTS and mount namespaces, the
//! node's name as host name, a private `/dev/shm`, and, for a node of a
//! partition with a library, that file bind-mounted over the one Debian's
//! `libpmix.so` resolves to — which is what Slurm's `mpi_pmix_v4.so`
//! `dlopen`s by absolute path in `slurmd` and `slurmstepd`, and what every
//! program linked against `libpmix.so.2` loads. The configuration:
//! `auth/none`, `cred/none` (no munge), `proctrack/linuxproc`,
//! `task/none`, no cgroups, no accounting, `SlurmUser=root`,
//! `MpiDefault=none`, all nodes on 127.0.0.1 each with its own `Port=`,
//! `SlurmdSpoolDir`, `TmpFS` and log file (`%n`), `SlurmdDebug=debug`.
//!
//! A cluster is made of partitions: [`SlurmCluster::start`]`(n, lib)` has
//! one, `n` with nodes `n1`..`nN`; [`SlurmCluster::start_partitions`]
//! gives several, each with its own library, so that one cluster runs the
//! same jobs on both libraries side by side (`srun -p NAME`). Node `k` of
//! partition `p` is named `p` + `k` (`ref1`, `ours2`).
//!
//! Every wait is bounded: start-up polls `sinfo` until every node is idle
//! (about a second), [`SlurmCluster::srun`] runs under a hard limit (at
//! which the job is cancelled and `srun` killed), and
//! [`SlurmCluster::wait_idle`] waits, with a deadline, until no process
//! but `slurmd` is left on any node (a `slurmstepd` that does not end is
//! reported and killed). Dropping the cluster — also when a test panics —
//! stops the daemons by pid and kills, by pid, every process left in the
//! nodes' UTS namespaces (the `slurmstepd`s, which `slurmd` forks away, and
//! their tasks); the directory is removed unless [`SlurmCluster::keep`]
//! was called or `PMIX_SLURM_KEEP=1` (it then holds the logs).
//!
//! Needs root (namespaces, `SlurmUser=root`) and Debian's `slurmd`,
//! `slurmctld`, `slurm-client` and `libpmix-dev`: see [`unavailable`].
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The link every program built against Debian's OpenPMIx resolves; what
/// `node.sh` binds another library over.
pub const REFERENCE_LIBPMIX: &str = "/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so";

/// Slurm's PMIx plugin for OpenPMIx 4 (Debian `slurmd`).
pub const SLURM_PMIX_PLUGIN: &str = "/usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix_v4.so";

/// The commands the cluster runs.
const COMMANDS: [&str; 7] = [
    "slurmctld",
    "slurmd",
    "srun",
    "sinfo",
    "scontrol",
    "scancel",
    "unshare",
];

/// How long start-up may take before the test fails.
const START_LIMIT: Duration = Duration::from_secs(30);

/// How long a daemon may take to stop after SIGTERM before SIGKILL.
const STOP_LIMIT: Duration = Duration::from_secs(5);

/// Limit of the short Slurm commands (`sinfo`, `scontrol`, `scancel`).
const COMMAND_LIMIT: Duration = Duration::from_secs(10);

/// Why a cluster cannot run on this machine, or `None` when it can: needs
/// root and the Slurm daemons, clients and PMIx plugin, and the reference
/// OpenPMIx (whose file `node.sh` binds over).
pub fn unavailable() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root (namespaces and SlurmUser=root need it)".into());
    }
    let missing: Vec<&str> = COMMANDS
        .iter()
        .copied()
        .filter(|c| find_command(c).is_none())
        .collect();
    if !missing.is_empty() {
        return Some(format!(
            "{} not found (apt-get install slurmd slurmctld slurm-client)",
            missing.join(", ")
        ));
    }
    for f in [SLURM_PMIX_PLUGIN, REFERENCE_LIBPMIX] {
        if !Path::new(f).exists() {
            return Some(format!("{f} missing (apt-get install slurmd libpmix-dev)"));
        }
    }
    // node.sh needs new UTS and mount namespaces (a container without
    // CAP_SYS_ADMIN refuses them).
    let probe = run_bounded(
        {
            let mut c = Command::new("unshare");
            c.args(["--uts", "--mount", "--propagation", "private", "true"]);
            c
        },
        COMMAND_LIMIT,
        Duration::ZERO,
        || {},
    );
    if !probe.success() {
        return Some(format!(
            "cannot create UTS and mount namespaces: {}",
            probe.stderr.trim()
        ));
    }
    None
}

/// The path of `name` in `PATH` (or the sbin directories, which a
/// non-login shell's `PATH` may lack).
fn find_command(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    let found = path
        .split(':')
        .chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin"])
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file());
    found
}

/// `tests/cluster/node.sh`.
fn node_sh() -> PathBuf {
    super::root().join("tests/cluster/node.sh")
}

// ---------------------------------------------------------------------------
// File identities

/// A file's identity as `/proc/<pid>/maps` shows it (device and inode),
/// which is how a test tells which library a process mapped when both
/// appear under Debian's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    pub major: u32,
    pub minor: u32,
    pub ino: u64,
}

impl FileId {
    /// The identity of `path` (symbolic links followed).
    pub fn of(path: &Path) -> FileId {
        let m = fs::metadata(path).unwrap_or_else(|e| panic!("stat {}: {e}", path.display()));
        let dev = m.dev();
        FileId {
            major: libc::major(dev),
            minor: libc::minor(dev),
            ino: m.ino(),
        }
    }

    /// From the maps file's `MAJ:MIN` (hexadecimal) and inode columns.
    pub fn from_maps(dev: &str, ino: &str) -> Option<FileId> {
        let (maj, min) = dev.split_once(':')?;
        Some(FileId {
            major: u32::from_str_radix(maj, 16).ok()?,
            minor: u32::from_str_radix(min, 16).ok()?,
            ino: ino.parse().ok()?,
        })
    }

    /// The `libpmix.so*` file process `pid` has mapped, if any.
    pub fn mapped_libpmix(pid: u32) -> Option<FileId> {
        let maps = fs::read_to_string(format!("/proc/{pid}/maps")).ok()?;
        maps.lines().find_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() >= 6 && f[5].contains("/libpmix.so") {
                FileId::from_maps(f[3], f[4])
            } else {
                None
            }
        })
    }
}

impl fmt::Display for FileId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:02x}:{:02x} inode {}",
            self.major, self.minor, self.ino
        )
    }
}

/// Checks the `libpmix-id` lines (`tests/multinode/libpmix_id.h`) a job of
/// `ntasks` tasks printed: for every rank a `task` line and a `parent`
/// line whose process is `slurmstepd`, both with the file `want` mapped.
pub fn check_libpmix_ids(stdout: &str, ntasks: u32, want: FileId) -> Result<(), String> {
    check_libpmix_ids_under(stdout, ntasks, want, "slurmstepd")
}

/// [`check_libpmix_ids`] with the parent's process name `parent` (the
/// PMIx server: `slurmstepd`, `orted`).
pub fn check_libpmix_ids_under(
    stdout: &str,
    ntasks: u32,
    want: FileId,
    parent: &str,
) -> Result<(), String> {
    check_libpmix_ids_split(stdout, ntasks, want, want, parent)
}

/// [`check_libpmix_ids_under`] with the tasks mapping `task` and their
/// parent (the server) `server`: a stock task on its own OpenPMIx served
/// by another library through the stock door.
pub fn check_libpmix_ids_split(
    stdout: &str,
    ntasks: u32,
    task: FileId,
    server: FileId,
    parent: &str,
) -> Result<(), String> {
    let mut seen: BTreeSet<(String, u32)> = BTreeSet::new();
    for line in stdout.lines() {
        let Some(rest) = line.strip_prefix("libpmix-id ") else {
            continue;
        };
        let field = |k: &str| {
            rest.split_whitespace()
                .find_map(|kv| kv.strip_prefix(k).and_then(|v| v.strip_prefix('=')))
                .unwrap_or("")
        };
        let who = field("who");
        let rank: u32 = field("rank")
            .parse()
            .map_err(|_| format!("bad line {line:?}"))?;
        let got = FileId::from_maps(field("dev"), field("ino"));
        let want = if who == "parent" { server } else { task };
        if got != Some(want) {
            return Err(format!(
                "rank {rank}: the {who} ({}, pid {}) mapped {} instead of {want}: {line:?}",
                field("comm"),
                field("pid"),
                got.map_or("no libpmix".to_string(), |g| g.to_string())
            ));
        }
        if who == "parent" && field("comm") != parent {
            return Err(format!(
                "rank {rank}: parent is {:?}, not {parent}: {line:?}",
                field("comm")
            ));
        }
        seen.insert((who.to_string(), rank));
    }
    for r in 0..ntasks {
        for who in ["task", "parent"] {
            if !seen.contains(&(who.to_string(), r)) {
                return Err(format!("no libpmix-id line for the {who} of rank {r}"));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Configuration

/// A partition of the cluster: `nodes` nodes named `name1`..`nameN`, each
/// running `lib` (`None`: the reference OpenPMIx).
#[derive(Clone, Debug)]
pub struct Partition {
    pub name: String,
    pub nodes: usize,
    pub lib: Option<PathBuf>,
}

impl Partition {
    pub fn new(name: &str, nodes: usize, lib: Option<&Path>) -> Partition {
        Partition {
            name: name.to_string(),
            nodes,
            lib: lib.map(Path::to_path_buf),
        }
    }

    /// The identity of the file this partition's nodes map as libpmix.
    pub fn lib_id(&self) -> FileId {
        FileId::of(self.lib.as_deref().unwrap_or(Path::new(REFERENCE_LIBPMIX)))
    }
}

/// One node of a running cluster.
#[derive(Clone, Debug)]
pub struct NodeInfo {
    pub name: String,
    pub partition: String,
    /// The library bound over the reference (`None`: the reference).
    pub lib: Option<PathBuf>,
    pub port: u16,
    /// `slurmd`'s log (`SlurmdLogFile`).
    pub log: PathBuf,
}

/// CPUs each node declares (`SlurmdParameters=config_overrides`: more
/// than the machine has, so that 8 tasks fit on one node).
const CPUS_PER_NODE: u32 = 16;

/// The configuration. `TreeWidth=2`: Slurm 22.05's PMIx tree collective
/// (`pmixp_coll_tree_init`) lays its tree out with `reverse_tree_info`,
/// which makes every node a root without children when `TreeWidth` is
/// larger than the number of nodes (the default 50 always is here): each
/// node's "tree" fence would then complete with its own ranks only, no
/// barrier across nodes and no data from other nodes (a remote get then
/// quietly falls back to a direct modex). With a width of 2 the tree is
/// real from 2 nodes on.
fn slurm_conf(dir: &Path, ctl_port: u16, nodes: &[NodeInfo], parts: &[Partition]) -> String {
    let d = dir.display();
    let mut s = format!(
        "# Written by tests/common/slurm.rs for one test run.
ClusterName=pmixtest
SlurmctldHost=slurmctl(127.0.0.1)
SlurmctldPort={ctl_port}
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool/%n
TmpFS={d}/tmp/%n
SlurmctldPidFile={d}/run/slurmctld.pid
SlurmdPidFile={d}/run/slurmd.%n.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=debug
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
TreeWidth=2
InactiveLimit=0
KillWait=2
MessageTimeout=10
"
    );
    for n in nodes {
        s.push_str(&format!(
            "NodeName={} NodeAddr=127.0.0.1 Port={} CPUs={CPUS_PER_NODE} State=UNKNOWN\n",
            n.name, n.port
        ));
    }
    for (i, p) in parts.iter().enumerate() {
        let list: Vec<String> = (1..=p.nodes).map(|k| format!("{}{k}", p.name)).collect();
        s.push_str(&format!(
            "PartitionName={} Nodes={} Default={} MaxTime=10 State=UP\n",
            p.name,
            list.join(","),
            if i == 0 { "YES" } else { "NO" }
        ));
    }
    s
}

/// Removes the directories of clusters whose test process died without
/// dropping them (`pmix-slurm.PID.N` with no process PID).
fn remove_stale_dirs() {
    let Ok(dir) = fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("pmix-slurm.")
            .and_then(|r| r.split('.').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// `n` TCP ports free on this machine, below the ephemeral range (so that
/// no outgoing connection takes one before the daemon binds it).
fn free_ports(n: usize) -> Vec<u16> {
    let start = 20000 + (std::process::id() % 500) as u16 * 20;
    let mut ports = Vec::new();
    let mut p = start;
    while ports.len() < n {
        assert!(p < 32000, "no free TCP ports from {start}");
        if TcpListener::bind(("0.0.0.0", p)).is_ok() && TcpListener::bind(("127.0.0.1", p)).is_ok()
        {
            ports.push(p);
        }
        p += 1;
    }
    ports
}

// ---------------------------------------------------------------------------
// Running commands with a bound

/// What a bounded command produced.
#[derive(Debug)]
pub struct Bounded {
    pub command: String,
    pub status: Option<ExitStatus>,
    pub timed_out: bool,
    pub elapsed: Duration,
    pub stdout: String,
    pub stderr: String,
}

impl Bounded {
    /// Exit status 0 within the limit.
    pub fn success(&self) -> bool {
        !self.timed_out && self.status.is_some_and(|s| s.success())
    }

    /// The exit code, if it exited.
    pub fn code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }

    /// The command, how it ended, and its output: for failure messages.
    pub fn report(&self) -> String {
        let how = if self.timed_out {
            format!(
                "did not finish within its limit ({:.1?}; killed)",
                self.elapsed
            )
        } else {
            match self.status {
                Some(s) => format!("ended with {s} after {:.1?}", self.elapsed),
                None => "could not be waited for".to_string(),
            }
        };
        format!(
            "`{}` {how}\n--- stdout\n{}--- stderr\n{}",
            self.command, self.stdout, self.stderr
        )
    }
}

/// Runs `cmd` in its own process group with stdin closed and its output
/// captured; at `limit`, calls `on_timeout` (e.g. to cancel a job), gives
/// the process `grace` to end, then kills its group.
fn run_bounded(
    mut cmd: Command,
    limit: Duration,
    grace: Duration,
    on_timeout: impl FnOnce(),
) -> Bounded {
    let command = format!("{cmd:?}");
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let start = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Bounded {
                command,
                status: None,
                timed_out: false,
                elapsed: start.elapsed(),
                stdout: String::new(),
                stderr: format!("cannot start: {e}"),
            }
        }
    };
    let pgid = child.id() as i32;
    let reader = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = r.read_to_end(&mut b);
            String::from_utf8_lossy(&b).into_owned()
        })
    };
    let out = reader(Box::new(child.stdout.take().unwrap()));
    let err = reader(Box::new(child.stderr.take().unwrap()));
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let st = child.wait();
        let _ = tx.send(());
        st
    });
    let mut timed_out = false;
    if rx.recv_timeout(limit).is_err() {
        timed_out = true;
        on_timeout();
        if rx.recv_timeout(grace).is_err() {
            // SAFETY: kill(2) on the process group of our own child.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
    }
    let status = waiter.join().unwrap().ok();
    let elapsed = start.elapsed();
    Bounded {
        command,
        status,
        timed_out,
        elapsed,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

// ---------------------------------------------------------------------------
// The cluster

/// A daemon started by the cluster.
struct Daemon {
    name: String,
    child: Child,
    /// Its UTS namespace (`uts:[N]`), once known and not the test's own.
    uts: Option<String>,
    /// That namespace, held open: the kernel reuses a freed namespace's
    /// number at once, and another test's node made meanwhile (a
    /// concurrent `mpirun_nodes` run) would then look like one of ours to
    /// the clean-up that kills whatever is left in our namespaces.
    _uts_held: Option<fs::File>,
}

impl Daemon {
    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Records the daemon's UTS namespace once it has left ours (before
    /// that, the child is still `node.sh` on its way to `unshare`).
    fn learn_namespace(&mut self) {
        if self.uts.is_some() || !self.alive() {
            return;
        }
        let Ok(mine) = fs::read_link("/proc/self/ns/uts") else {
            return;
        };
        let path = format!("/proc/{}/ns/uts", self.child.id());
        // Opened first: the name read afterwards is then the held one's.
        let held = fs::File::open(&path);
        if let (Ok(ns), Ok(held)) = (fs::read_link(&path), held) {
            if ns != mine {
                self.uts = Some(ns.display().to_string());
                self._uts_held = Some(held);
            }
        }
    }
}

/// Processes whose UTS namespace is one of `namespaces`: `(pid, comm)`.
fn processes_in(namespaces: &BTreeSet<String>) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    if namespaces.is_empty() {
        return found;
    }
    let Ok(dir) = fs::read_dir("/proc") else {
        return found;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(ns) = fs::read_link(format!("/proc/{pid}/ns/uts")) else {
            continue;
        };
        if namespaces.contains(&ns.display().to_string()) {
            let comm = fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            found.push((pid, comm.trim().to_string()));
        }
    }
    found
}

/// A process's threads with their names and kernel wait channels: what a
/// stuck `slurmstepd` is doing.
fn describe_threads(pid: u32) -> String {
    let mut s = String::new();
    let Ok(dir) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return s;
    };
    let mut tids: Vec<u32> = dir
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|t| t.parse().ok()))
        .collect();
    tids.sort_unstable();
    for t in tids {
        let rd = |f: &str| {
            fs::read_to_string(format!("/proc/{pid}/task/{t}/{f}"))
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        s.push_str(&format!(
            "    thread {t} {:<16} waits in {}\n",
            rd("comm"),
            rd("wchan")
        ));
    }
    s
}

/// The thread that forks the daemons. A daemon's `PR_SET_PDEATHSIG` fires
/// when the *thread* that forked it ends, not the process: forking from a
/// thread that lives as long as the cluster lets a test thread start a
/// cluster that outlives it (a cluster shared by the tests of a binary),
/// while the daemons still get SIGTERM when the test process dies without
/// dropping the cluster (killed, or a static never dropped).
struct Spawner {
    tx: Option<mpsc::Sender<(Command, mpsc::Sender<std::io::Result<Child>>)>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Spawner {
    fn new() -> Spawner {
        let (tx, rx) = mpsc::channel::<(Command, mpsc::Sender<std::io::Result<Child>>)>();
        let thread = std::thread::Builder::new()
            .name("slurm-spawner".into())
            .spawn(move || {
                for (mut cmd, back) in rx {
                    let _ = back.send(cmd.spawn());
                }
            })
            .expect("start the spawner thread");
        Spawner {
            tx: Some(tx),
            thread: Some(thread),
        }
    }

    fn spawn(&self, cmd: Command) -> std::io::Result<Child> {
        let (back, result) = mpsc::channel();
        self.tx
            .as_ref()
            .unwrap()
            .send((cmd, back))
            .expect("the spawner thread is gone");
        result.recv().expect("the spawner thread is gone")
    }
}

impl Drop for Spawner {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Positions in the cluster's log files, to show what a case logged.
#[derive(Clone, Debug)]
pub struct LogMarks(Vec<(PathBuf, u64)>);

/// A running cluster; dropping it stops everything it started.
pub struct SlurmCluster {
    dir: PathBuf,
    conf: PathBuf,
    partitions: Vec<Partition>,
    nodes: Vec<NodeInfo>,
    /// `slurmctld` first, then one `slurmd` per node (same order as
    /// `nodes`).
    daemons: Vec<Daemon>,
    keep: bool,
    jobs: AtomicU32,
    started_in: Duration,
    /// Dropped after `daemons` are stopped (field order).
    spawner: Spawner,
}

impl SlurmCluster {
    /// A cluster of `nnodes` nodes `n1`..`nN` in partition `n` (the
    /// default), all running `lib` (`None`: the reference OpenPMIx).
    pub fn start(nnodes: usize, lib: Option<&Path>) -> SlurmCluster {
        SlurmCluster::start_partitions(&[Partition::new("n", nnodes, lib)])
    }

    /// A cluster of the given partitions (the first is the default).
    /// Panics, after stopping whatever it started, if the cluster is not
    /// up within 30 s or a node maps another libpmix than its partition's.
    pub fn start_partitions(parts: &[Partition]) -> SlurmCluster {
        static SEQ: AtomicU32 = AtomicU32::new(0);
        if let Some(why) = unavailable() {
            panic!("cannot start a Slurm cluster: {why}");
        }
        let t0 = Instant::now();
        remove_stale_dirs();
        // A short directory: socket paths under it must fit in sun_path.
        let dir = std::env::temp_dir().join(format!(
            "pmix-slurm.{}.{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        let total: usize = parts.iter().map(|p| p.nodes).sum();
        let ports = free_ports(total + 1);
        let mut nodes = Vec::new();
        for p in parts {
            assert!(p.nodes > 0, "partition {} has no nodes", p.name);
            if let Some(lib) = &p.lib {
                assert!(lib.is_file(), "{} is not a file", lib.display());
            }
            for k in 1..=p.nodes {
                let name = format!("{}{k}", p.name);
                nodes.push(NodeInfo {
                    log: dir.join(format!("log/slurmd.{name}.log")),
                    port: ports[nodes.len() + 1],
                    partition: p.name.clone(),
                    lib: p.lib.as_deref().map(|l| fs::canonicalize(l).unwrap()),
                    name,
                });
            }
        }
        for sub in ["state", "log", "run"] {
            fs::create_dir_all(dir.join(sub)).unwrap();
        }
        for n in &nodes {
            fs::create_dir_all(dir.join("spool").join(&n.name)).unwrap();
            fs::create_dir_all(dir.join("tmp").join(&n.name)).unwrap();
        }
        let conf = dir.join("slurm.conf");
        fs::write(&conf, slurm_conf(&dir, ports[0], &nodes, parts)).unwrap();

        let mut cluster = SlurmCluster {
            dir,
            conf,
            partitions: parts.to_vec(),
            nodes,
            daemons: Vec::new(),
            keep: std::env::var("PMIX_SLURM_KEEP").as_deref() == Ok("1"),
            jobs: AtomicU32::new(0),
            started_in: Duration::ZERO,
            spawner: Spawner::new(),
        };
        // From here on a panic drops `cluster`, which stops what started.
        cluster.spawn_daemon("slurmctl", None, &["slurmctld", "-D"]);
        for i in 0..cluster.nodes.len() {
            let n = cluster.nodes[i].clone();
            cluster.spawn_daemon(&n.name, n.lib.as_deref(), &["slurmd", "-D", "-N", &n.name]);
        }
        cluster.wait_ready(t0 + START_LIMIT);
        cluster.started_in = t0.elapsed();
        cluster
    }

    /// Starts `argv` as node `name` through node.sh, output to
    /// `log/NAME.out`, killed (SIGTERM) should the test process die.
    fn spawn_daemon(&mut self, name: &str, lib: Option<&Path>, argv: &[&str]) {
        let out = fs::File::create(self.dir.join(format!("log/{name}.out"))).unwrap();
        let mut cmd = Command::new("/bin/sh");
        cmd.arg(node_sh())
            .arg(name)
            .arg(lib.map(|l| l.display().to_string()).unwrap_or_default())
            .arg("--")
            .args(argv)
            .env("SLURM_CONF", &self.conf)
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out);
        // SAFETY: prctl(2) only, which is async-signal-safe, between fork
        // and exec. PR_SET_PDEATHSIG survives the execs of node.sh,
        // unshare and sh into the daemon; it fires when the forking thread
        // ends, which is the cluster's spawner thread (see `Spawner`).
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                Ok(())
            });
        }
        let child = self
            .spawner
            .spawn(cmd)
            .unwrap_or_else(|e| panic!("start {name} ({argv:?}): {e}"));
        self.daemons.push(Daemon {
            name: name.to_string(),
            child,
            uts: None,
            _uts_held: None,
        });
    }

    /// Polls until every node is idle, each daemon is in its own namespace
    /// and each slurmd maps its partition's libpmix; panics at `deadline`
    /// or when a daemon dies.
    fn wait_ready(&mut self, deadline: Instant) {
        loop {
            for i in 0..self.daemons.len() {
                if !self.daemons[i].alive() {
                    panic!(
                        "{} exited during start-up\n{}",
                        self.daemons[i].name,
                        self.daemon_logs(30)
                    );
                }
                self.daemons[i].learn_namespace();
            }
            let states = self.node_states();
            let all_idle = self
                .nodes
                .iter()
                .all(|n| states.iter().any(|(m, s)| *m == n.name && s == "idle"));
            if all_idle && self.daemons.iter().all(|d| d.uts.is_some()) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the cluster was not up within {START_LIMIT:?} (node states {states:?})\n{}",
                self.daemon_logs(30)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        for (i, n) in self.nodes.iter().enumerate() {
            let pid = self.daemons[i + 1].child.id();
            let comm = fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            assert_eq!(
                comm.trim(),
                "slurmd",
                "node {}: pid {pid} is {comm:?}",
                n.name
            );
            let want = self.partition(&n.partition).lib_id();
            if let Some(got) = FileId::mapped_libpmix(pid) {
                assert_eq!(
                    got, want,
                    "node {}: slurmd mapped libpmix {got}, expected {want}",
                    n.name
                );
            }
        }
    }

    /// `(node, state)` as `sinfo` reports them (empty if it fails).
    pub fn node_states(&self) -> Vec<(String, String)> {
        let r = self.run_command("sinfo", &["-h", "-N", "-o", "%N %T"]);
        if !r.success() {
            return Vec::new();
        }
        r.stdout
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(n, s)| (n.to_string(), s.trim().to_string()))
            .collect()
    }

    /// A Slurm command of this cluster (`SLURM_CONF` set, nothing of an
    /// outer Slurm job or PMIx launcher in its environment).
    pub fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        for (k, _) in std::env::vars_os() {
            let k = k.to_string_lossy().into_owned();
            if ["SLURM_", "SLURMD_", "PMIX_", "OMPI_", "PRTE_"]
                .iter()
                .any(|p| k.starts_with(p))
            {
                c.env_remove(k);
            }
        }
        c.env("SLURM_CONF", &self.conf);
        c
    }

    /// Runs a short Slurm command (`sinfo`, `scontrol`, ...) under a
    /// 10-second limit.
    pub fn run_command(&self, program: &str, args: &[&str]) -> Bounded {
        let mut c = self.command(program);
        c.args(args);
        run_bounded(c, COMMAND_LIMIT, Duration::ZERO, || {})
    }

    /// `srun ARGS` under a 60-second limit.
    pub fn srun(&self, args: &[&str]) -> Bounded {
        self.srun_env(args, &[], Duration::from_secs(60))
    }

    /// `srun ARGS` with `env` added, under `limit`: the job gets a unique
    /// name and a Slurm time limit above `limit`; at `limit` it is
    /// cancelled (`scancel`) and `srun` killed if it has not ended 10 s
    /// later.
    pub fn srun_env(&self, args: &[&str], env: &[(&str, &str)], limit: Duration) -> Bounded {
        let job = format!("pmixtest-{}", self.jobs.fetch_add(1, Ordering::Relaxed));
        let minutes = limit.as_secs() / 60 + 2;
        let mut c = self.command("srun");
        c.arg(format!("--job-name={job}"))
            .arg(format!("--time={minutes}"))
            .args(args)
            .envs(env.iter().copied());
        run_bounded(c, limit, Duration::from_secs(10), || {
            let _ = self.run_command("scancel", &["--name", &job]);
        })
    }

    /// Waits up to `limit` until no process but `slurmd` is left on any
    /// node and every node is idle. Otherwise describes what is left (with
    /// the threads of each process), kills it, and returns that
    /// description as the error (after bringing the nodes back to idle).
    pub fn wait_idle(&mut self, limit: Duration) -> Result<(), String> {
        let deadline = Instant::now() + limit;
        loop {
            let stray = self.stray_processes();
            let states = self.node_states();
            let idle = self
                .nodes
                .iter()
                .all(|n| states.iter().any(|(m, s)| *m == n.name && s == "idle"));
            if stray.is_empty() && idle {
                return Ok(());
            }
            if Instant::now() >= deadline {
                let mut msg = format!(
                    "{} s after the step, {} process(es) still running on the nodes, node states {states:?}:\n",
                    limit.as_secs(),
                    stray.len()
                );
                for (pid, comm, node) in &stray {
                    msg.push_str(&format!("  pid {pid} {comm} on {node}\n"));
                    msg.push_str(&describe_threads(*pid));
                }
                for (pid, _, _) in &stray {
                    // SAFETY: kill(2); the pid is a process of one of our
                    // own nodes (its UTS namespace is the node's).
                    unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
                }
                self.recover_nodes(Duration::from_secs(20));
                return Err(msg);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// After processes were killed under Slurm's feet: cancels every job,
    /// resumes nodes that went down or drained, and waits (bounded) for all
    /// to be idle again.
    fn recover_nodes(&self, limit: Duration) {
        let _ = self.run_command("scancel", &["--user=root"]);
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            let states = self.node_states();
            if !states.is_empty() && states.iter().all(|(_, s)| s == "idle") {
                return;
            }
            for (n, s) in &states {
                if s.starts_with("down") || s.starts_with("drain") || s.contains("fail") {
                    let _ = self.run_command(
                        "scontrol",
                        &["update", &format!("nodename={n}"), "state=resume"],
                    );
                }
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Processes on the nodes other than the `slurmd`s: `(pid, comm, node)`.
    pub fn stray_processes(&mut self) -> Vec<(u32, String, String)> {
        let mut out = Vec::new();
        for d in self.daemons.iter_mut().skip(1) {
            d.learn_namespace();
            let Some(ns) = d.uts.clone() else { continue };
            let me = d.child.id();
            for (pid, comm) in processes_in(&BTreeSet::from([ns])) {
                if pid != me {
                    out.push((pid, comm, d.name.clone()));
                }
            }
        }
        out
    }

    /// Where the configuration, logs, spool and tmp directories are.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `SLURM_CONF`.
    pub fn conf(&self) -> &Path {
        &self.conf
    }

    pub fn nodes(&self) -> &[NodeInfo] {
        &self.nodes
    }

    pub fn partitions(&self) -> &[Partition] {
        &self.partitions
    }

    /// The partition called `name`.
    pub fn partition(&self, name: &str) -> &Partition {
        self.partitions
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no partition {name}"))
    }

    /// How long start-up took.
    pub fn started_in(&self) -> Duration {
        self.started_in
    }

    /// Keep the directory (logs) when the cluster is dropped.
    pub fn keep(&mut self) {
        self.keep = true;
    }

    /// The current end of every log file.
    pub fn log_marks(&self) -> LogMarks {
        let mut v = Vec::new();
        if let Ok(dir) = fs::read_dir(self.dir.join("log")) {
            for e in dir.flatten() {
                let len = e.metadata().map(|m| m.len()).unwrap_or(0);
                v.push((e.path(), len));
            }
        }
        v.sort();
        LogMarks(v)
    }

    /// What the log files got since `marks`, keeping the lines `keep`
    /// accepts, at most `max` lines per file (the last ones).
    pub fn logs_since(&self, marks: &LogMarks, keep: impl Fn(&str) -> bool, max: usize) -> String {
        let mut s = String::new();
        for (path, len) in self.log_marks().0 {
            // A daemon's stdout and stderr (`NAME.out`) repeat its log
            // file, save for start-up failures (shown from the start).
            if !marks.0.is_empty() && path.extension().is_some_and(|e| e == "out") {
                continue;
            }
            let from = marks
                .0
                .iter()
                .find(|(p, _)| *p == path)
                .map_or(0, |(_, l)| *l);
            if len <= from {
                continue;
            }
            let Ok(mut f) = fs::File::open(&path) else {
                continue;
            };
            let mut buf = Vec::new();
            let _ = std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(from));
            let _ = f.read_to_end(&mut buf);
            let text = String::from_utf8_lossy(&buf);
            let lines: Vec<&str> = text.lines().filter(|l| keep(l)).collect();
            if lines.is_empty() {
                continue;
            }
            s.push_str(&format!(
                "--- {} ({} line(s){})\n",
                path.file_name().unwrap().to_string_lossy(),
                lines.len(),
                if lines.len() > max {
                    ", the last shown"
                } else {
                    ""
                }
            ));
            for l in &lines[lines.len().saturating_sub(max)..] {
                s.push_str(l);
                s.push('\n');
            }
        }
        s
    }

    /// The last `n` lines of every daemon's output and log.
    fn daemon_logs(&self, n: usize) -> String {
        let empty = LogMarks(Vec::new());
        self.logs_since(&empty, |_| true, n)
    }

    /// Stops everything: SIGTERM to each daemon (by pid), SIGKILL to those
    /// still there after 5 s, then SIGKILL to every process left in the
    /// daemons' namespaces (slurmstepds, tasks, slurmscriptd), checked
    /// until none is left (bounded). Returns what had to be killed in the
    /// namespaces, as `(pid, comm)`.
    pub fn stop(&mut self) -> Vec<(u32, String)> {
        for d in &mut self.daemons {
            d.learn_namespace();
        }
        let namespaces: BTreeSet<String> =
            self.daemons.iter().filter_map(|d| d.uts.clone()).collect();
        for d in &mut self.daemons {
            if d.alive() {
                // SAFETY: kill(2) on our own child's pid.
                unsafe { libc::kill(d.child.id() as i32, libc::SIGTERM) };
            }
        }
        let deadline = Instant::now() + STOP_LIMIT;
        while self.daemons.iter_mut().any(Daemon::alive) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        for d in &mut self.daemons {
            if d.alive() {
                let _ = d.child.kill();
            }
            let _ = d.child.wait();
        }
        let mut killed = Vec::new();
        let deadline = Instant::now() + STOP_LIMIT;
        loop {
            let left = processes_in(&namespaces);
            if left.is_empty() {
                break;
            }
            if Instant::now() >= deadline {
                eprintln!("slurm cluster: processes left after stopping: {left:?}");
                break;
            }
            for (pid, comm) in left {
                // SAFETY: kill(2); the process is in one of the namespaces
                // our own daemons created.
                unsafe { libc::kill(pid as i32, libc::SIGKILL) };
                if !killed.iter().any(|(p, _)| *p == pid) {
                    killed.push((pid, comm));
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.daemons.clear();
        killed
    }
}

impl Drop for SlurmCluster {
    fn drop(&mut self) {
        let killed = self.stop();
        if !killed.is_empty() {
            eprintln!("slurm cluster: killed what the nodes still ran: {killed:?}");
        }
        if self.keep {
            eprintln!("slurm cluster: logs kept in {}", self.dir.display());
        } else {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}
