//! Debugger support: stopping a job for a debugger, releasing it, and
//! debugger daemons beside it.
//!
//! - **Requests.** `--stop-in-init` / `--stop-on-exec` on the command
//!   line, or `PMIX_DEBUG_STOP_IN_INIT` / `PMIX_DEBUG_STOP_ON_EXEC` /
//!   `PMIX_DEBUG_STOP_IN_APP` among a `PMIx_Spawn`'s job infos or an
//!   app's infos (then for that app's ranks only), are registered in the
//!   job's data (`PMIX_DEBUG_STOP_IN_INIT` as given, or as the procs of
//!   the apps that asked; `PMIX_DEBUG_STOP_ON_EXEC` true), so that the
//!   clients' `PMIx_Init` stops (`pmix::client`'s `debug` module) and the
//!   application can read them.
//! - **Ready.** Each rank stopped in init raises `PMIX_READY_FOR_DEBUG`
//!   to this server; each rank held at exec (see [`crate::launch`]) counts
//!   as ready once held. When every rank that stops is ready, `pmixrun`
//!   raises `PMIX_READY_FOR_DEBUG` itself, as PRRTE does: source this
//!   server, with `PMIX_NSPACE` (the job), the apps' `PMIX_APP_ARGV`,
//!   `PMIX_BREAKPOINT` (`"pmix-init"` for a stop in init), a
//!   `PMIX_EVENT_TIMESTAMP` and `PMIX_EVENT_NON_DEFAULT`; aimed at the
//!   tool that spawned the job (`PMIX_RANGE_CUSTOM`), or, for the command
//!   line's job, at every local process (`PMIX_RANGE_LOCAL`).
//! - **Release.** A `PMIX_DEBUGGER_RELEASE` (from a tool, a daemon, any
//!   client) reaches the clients stopped in init through the server (its
//!   range: `PMIX_EVENT_CUSTOM_RANGE` naming the job, usually); `pmixrun`
//!   sees it too, sends `SIGCONT` to the ranks it holds at exec among the
//!   targets (its custom range and affected procs; none named: every
//!   job), and remembers the jobs released: a rank of a released job that
//!   reports ready later (the release overtook it) gets a release of its
//!   own at once.
//! - **Daemons.** A spawn with `PMIX_DEBUGGER_DAEMONS` and
//!   `PMIX_DEBUG_TARGET` (among the job's infos or an app's) starts each
//!   app as `PMIX_DEBUG_DAEMONS_PER_NODE` ranks (this launcher has one
//!   node) or `PMIX_DEBUG_DAEMONS_PER_PROC` ranks per target process
//!   (neither: one per target process, as the standard says; both, or a
//!   zero count: `PMIX_ERR_BAD_PARAM`, as PRRTE); their job data carries
//!   `PMIX_DEBUG_TARGET` and (a spawn of daemons only)
//!   `PMIX_DEBUGGER_DAEMONS`. Without a target (a co-spawn of an app and
//!   its daemons) a daemon app keeps its `maxprocs`. They do not count
//!   for `pmixrun`'s exit status; once every other rank is gone, the
//!   daemons still running are terminated and reaped.
//!
//! Invariant: a rank held at exec is continued by a release naming it or
//! by the job's teardown (which sends `SIGCONT` after its signal); a
//! ready report of a released job is answered with a release, so no rank
//! waits for a release that came before it was ready.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pmix::events::{codes, proc_matches, Event, EventHandler, Range};
use pmix::server::Server;
use pmix::{keys, Info, Nspace, Proc, Rank, Status, Value};

use pmix::value::App;

use crate::cli::Context;
use crate::signals;

/// How many debugger daemons a spawn asks for, and beside whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DaemonPlan {
    pub target: Proc,
    /// `PMIX_DEBUG_DAEMONS_PER_NODE`: this many on this node.
    pub per_node: Option<u32>,
    /// `PMIX_DEBUG_DAEMONS_PER_PROC`: this many per target process (1
    /// when neither count is given, as the standard says).
    pub per_proc: u32,
}

impl DaemonPlan {
    /// The daemons of one app, given the target job's size.
    pub fn count(&self, target_size: u32) -> u32 {
        match self.per_node {
            Some(n) => n,
            None if self.target.rank == Rank::WILDCARD => self.per_proc * target_size,
            None => self.per_proc,
        }
    }
}

/// The debugger directives of one job.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobDebug {
    /// `PMIX_DEBUG_STOP_IN_INIT` as the job data will carry it.
    pub stop_in_init: Option<Value>,
    /// Per app: its ranks are held at exec.
    pub stop_on_exec: Vec<bool>,
    /// `PMIX_DEBUG_STOP_IN_APP`, passed on for the application to read.
    pub stop_in_app: Option<Value>,
    /// Per app: its ranks are debugger daemons (`PMIX_DEBUGGER_DAEMONS`
    /// or a daemon count among the job's infos or the app's).
    pub daemon_apps: Vec<bool>,
    /// Where the daemon apps go, when a target is named.
    pub daemons: Option<DaemonPlan>,
}

fn flag(infos: &[Info], key: &str) -> bool {
    pmix::info::flag_in(infos, key)
}

fn count_in(infos: &[Info], key: &str) -> Result<Option<u32>, Status> {
    match pmix::info::value_of(infos, key) {
        None => Ok(None),
        Some(v) => match v.as_u32() {
            Some(0) | None => Err(Status::ERR_BAD_PARAM),
            Some(n) => Ok(Some(n)),
        },
    }
}

impl JobDebug {
    /// The command line's `--stop-in-init` / `--stop-on-exec` for a job of
    /// `napps` apps.
    pub fn from_command_line(stop_in_init: bool, stop_on_exec: bool, napps: usize) -> JobDebug {
        JobDebug {
            stop_in_init: stop_in_init.then_some(Value::Bool(true)),
            stop_on_exec: vec![stop_on_exec; napps],
            ..JobDebug::default()
        }
    }

    /// A spawn's directives: `job_info`, and each app's infos with the
    /// ranks it will have (`ranks[i]`: the first rank and the count). The
    /// daemon directives may be in the job infos or an app's (the
    /// standard allows both), the job's first.
    pub fn from_spawn(
        nspace: &Nspace,
        job_info: &[Info],
        apps: &[(&[Info], u32, u32)],
    ) -> Result<JobDebug, Status> {
        let mut d = JobDebug::default();
        let job_exec = flag(job_info, keys::DEBUG_STOP_ON_EXEC);
        d.stop_on_exec = apps
            .iter()
            .map(|(infos, _, _)| job_exec || flag(infos, keys::DEBUG_STOP_ON_EXEC))
            .collect();
        d.stop_in_init = match pmix::info::value_of(job_info, keys::DEBUG_STOP_IN_INIT) {
            // A bare key (OpenPMIx loads NULL bools as true) stops all.
            Some(Value::Undef) => Some(Value::Bool(true)),
            Some(v) => Some(v.clone()),
            None => {
                let procs: Vec<Proc> = apps
                    .iter()
                    .filter(|(infos, _, _)| flag(infos, keys::DEBUG_STOP_IN_INIT))
                    .flat_map(|&(_, first, n)| {
                        (first..first + n).map(|r| Proc::new(nspace.clone(), Rank(r)))
                    })
                    .collect();
                (!procs.is_empty()).then(|| Value::proc_array(&procs))
            }
        };
        d.stop_in_app = pmix::info::value_of(job_info, keys::DEBUG_STOP_IN_APP).cloned();
        // Daemon directives: the job's infos first, then each app's.
        let all: Vec<Info> = job_info
            .iter()
            .chain(apps.iter().flat_map(|(infos, _, _)| infos.iter()))
            .cloned()
            .collect();
        let target = match pmix::info::value_of(&all, keys::DEBUG_TARGET) {
            Some(Value::Proc(p)) => Some(p.clone()),
            Some(_) => return Err(Status::ERR_BAD_PARAM),
            None => None,
        };
        let per_node = count_in(&all, keys::DEBUG_DAEMONS_PER_NODE)?;
        let per_proc = count_in(&all, keys::DEBUG_DAEMONS_PER_PROC)?;
        if per_node.is_some() && per_proc.is_some() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let asks = |infos: &[Info]| {
            flag(infos, keys::DEBUGGER_DAEMONS)
                || pmix::info::value_of(infos, keys::DEBUG_DAEMONS_PER_NODE).is_some()
                || pmix::info::value_of(infos, keys::DEBUG_DAEMONS_PER_PROC).is_some()
        };
        let all_apps = asks(job_info);
        d.daemon_apps = apps
            .iter()
            .map(|(infos, _, _)| all_apps || asks(infos))
            .collect();
        let asked = d.daemon_apps.iter().any(|&b| b);
        d.daemons = match (asked, target) {
            (true, Some(target)) => Some(DaemonPlan {
                target,
                per_node,
                per_proc: per_proc.unwrap_or(1),
            }),
            // Colocation needs a target (PRRTE refuses it too).
            (true, None) if per_node.is_some() || per_proc.is_some() => {
                return Err(Status::ERR_BAD_PARAM)
            }
            _ => None,
        };
        Ok(d)
    }

    /// A spawn's directives and each app's number of ranks (its
    /// `maxprocs`, or the daemons' count); `target_size` tells how many
    /// ranks a namespace of this launcher has (0: none of ours).
    pub fn for_spawn(
        nspace: &Nspace,
        job_info: &[Info],
        apps: &[App],
        target_size: impl Fn(&Nspace) -> usize,
    ) -> Result<(JobDebug, Vec<u32>), Status> {
        let mut nps: Vec<u32> = apps.iter().map(|a| a.maxprocs.max(1) as u32).collect();
        let parse = |nps: &[u32]| {
            let mut first = 0;
            let ranges: Vec<(&[Info], u32, u32)> = apps
                .iter()
                .zip(nps)
                .map(|(a, &n)| {
                    first += n;
                    (a.info.as_slice(), first - n, n)
                })
                .collect();
            JobDebug::from_spawn(nspace, job_info, &ranges)
        };
        let mut dbg = parse(&nps)?;
        if let Some(plan) = &dbg.daemons {
            let size = target_size(&plan.target.nspace) as u32;
            if size == 0 {
                return Err(Status::ERR_NOT_FOUND);
            }
            let n = plan.count(size);
            for (app, np) in nps.iter_mut().enumerate() {
                if dbg.is_daemon_app(app) {
                    *np = n;
                }
            }
            dbg = parse(&nps)?;
        }
        Ok((dbg, nps))
    }

    /// The job infos to register.
    pub fn job_infos(&self) -> Vec<Info> {
        let mut v = Vec::new();
        if let Some(s) = &self.stop_in_init {
            v.extend(Info::keyed(keys::DEBUG_STOP_IN_INIT, s.clone()));
        }
        if self.stop_on_exec.iter().any(|&b| b) {
            v.extend(Info::keyed(keys::DEBUG_STOP_ON_EXEC, Value::Bool(true)));
        }
        if let Some(s) = &self.stop_in_app {
            v.extend(Info::keyed(keys::DEBUG_STOP_IN_APP, s.clone()));
        }
        if let Some(d) = &self.daemons {
            v.extend(Info::keyed(
                keys::DEBUG_TARGET,
                Value::Proc(d.target.clone()),
            ));
        }
        // A job of daemons only (not a co-spawn of an app and its daemons).
        if !self.daemon_apps.is_empty() && self.daemon_apps.iter().all(|&b| b) {
            v.extend(Info::keyed(keys::DEBUGGER_DAEMONS, Value::Bool(true)));
        }
        v
    }

    /// Whether app `app`'s ranks are debugger daemons.
    pub fn is_daemon_app(&self, app: usize) -> bool {
        self.daemon_apps.get(app).copied().unwrap_or(false)
    }

    /// Whether rank `rank` of `nspace` stops in init.
    pub fn stops_in_init(&self, nspace: &Nspace, rank: u32) -> bool {
        let me = Proc::new(nspace.clone(), Rank(rank));
        self.stop_in_init
            .as_ref()
            .is_some_and(|v| pmix::client::stop_in_init_names(v, &me).unwrap_or(false))
    }
}

/// What the server's event handler saw, for the main loop.
enum Report {
    /// `PMIX_READY_FOR_DEBUG` from this process.
    Ready(Proc),
    /// `PMIX_DEBUGGER_RELEASE` for these processes (empty: everyone).
    Release(Vec<Proc>),
}

/// The reports waiting for the main loop.
#[derive(Default)]
pub struct Inbox {
    reports: Mutex<Vec<Report>>,
}

impl Inbox {
    /// Registers the server-side handler that fills the inbox (and wakes
    /// the main loop).
    pub fn install(server: &Server) -> Result<Arc<Inbox>, Status> {
        let inbox = Arc::new(Inbox::default());
        let me = inbox.clone();
        let handler: EventHandler = Arc::new(move |call| {
            let report = if call.status == codes::READY_FOR_DEBUG {
                Report::Ready(call.source.clone())
            } else {
                let e = Event {
                    status: call.status,
                    source: call.source.clone(),
                    range: Range::CUSTOM,
                    infos: call.infos.clone(),
                };
                let mut targets = e.custom_range();
                targets.extend(e.affected());
                Report::Release(targets)
            };
            me.reports
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(report);
            signals::wake();
            call.done.complete(Status::SUCCESS, Vec::new());
        });
        let name: Vec<Info> = Info::keyed(keys::EVENT_HDLR_NAME, Value::string("pmixrun-debugger"))
            .into_iter()
            .collect();
        server.register_event_handler(
            &[codes::READY_FOR_DEBUG, codes::DEBUGGER_RELEASE],
            &name,
            handler,
        )?;
        Ok(inbox)
    }

    fn take(&self) -> Vec<Report> {
        std::mem::take(&mut *self.reports.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// One job that stops for a debugger.
struct Stopped {
    /// Who hears the job is ready (the spawning tool); `None`: every
    /// local process.
    announce_to: Option<Proc>,
    /// The ranks that stop (in init or at exec).
    stopping: HashSet<u32>,
    ready: HashSet<u32>,
    announced: bool,
    released: bool,
    in_init: bool,
    argv: Vec<String>,
    /// Ranks held at exec, not continued yet: rank → pid.
    held: HashMap<u32, i32>,
}

/// The jobs stopped for a debugger, as the main loop tracks them.
pub struct Debugger {
    inbox: Arc<Inbox>,
    jobs: HashMap<Nspace, Stopped>,
}

impl Debugger {
    pub fn new(inbox: Arc<Inbox>) -> Debugger {
        Debugger {
            inbox,
            jobs: HashMap::new(),
        }
    }

    /// Starts tracking `nspace`, whose `apps` (in rank order) were asked
    /// for `dbg`, if any of its ranks stops; `requestor` hears when it is
    /// ready.
    pub fn watch(
        &mut self,
        nspace: &Nspace,
        dbg: &JobDebug,
        requestor: Option<Proc>,
        apps: &[&Context],
    ) {
        let mut stopping = HashSet::new();
        let mut rank = 0u32;
        for (app, c) in apps.iter().enumerate() {
            for _ in 0..c.np {
                let at_exec = dbg.stop_on_exec.get(app).copied().unwrap_or(false);
                if at_exec || dbg.stops_in_init(nspace, rank) {
                    stopping.insert(rank);
                }
                rank += 1;
            }
        }
        if stopping.is_empty() {
            return;
        }
        let in_init = dbg.stop_in_init.is_some();
        let argv = apps.iter().map(|c| c.argv.join(" ")).collect();
        self.jobs.insert(
            nspace.clone(),
            Stopped {
                announce_to: requestor,
                stopping,
                ready: HashSet::new(),
                announced: false,
                released: false,
                in_init,
                argv,
                held: HashMap::new(),
            },
        );
    }

    /// Rank `proc` (pid `pid`) is held at exec.
    pub fn held(&mut self, server: &Server, proc: &Proc, pid: i32) {
        let Some(j) = self.jobs.get_mut(&proc.nspace) else {
            return;
        };
        if j.released {
            signals::send_group(pid, libc::SIGCONT);
        } else {
            j.held.insert(proc.rank.0, pid);
        }
        j.ready.insert(proc.rank.0);
        Self::announce_if_ready(server, &proc.nspace, j);
    }

    /// A rank that stopped has ended (it no longer holds the job back).
    pub fn ended(&mut self, server: &Server, proc: &Proc) {
        if let Some(j) = self.jobs.get_mut(&proc.nspace) {
            j.held.remove(&proc.rank.0);
            if j.stopping.contains(&proc.rank.0) {
                j.ready.insert(proc.rank.0);
                Self::announce_if_ready(server, &proc.nspace, j);
            }
        }
    }

    /// Acts on what the event handler saw.
    pub fn process(&mut self, server: &Server) {
        for r in self.inbox.take() {
            match r {
                Report::Ready(p) => self.ready(server, &p),
                Report::Release(targets) => self.release(&targets),
            }
        }
    }

    fn ready(&mut self, server: &Server, p: &Proc) {
        let Some(j) = self.jobs.get_mut(&p.nspace) else {
            return;
        };
        if j.released {
            // The release overtook this rank: it gets one of its own.
            notify(
                server,
                codes::DEBUGGER_RELEASE,
                Range::CUSTOM,
                vec![
                    Info::keyed(keys::EVENT_CUSTOM_RANGE, Value::Proc(p.clone())),
                    Info::keyed(keys::EVENT_NON_DEFAULT, Value::Bool(true)),
                ],
            );
            return;
        }
        j.ready.insert(p.rank.0);
        Self::announce_if_ready(server, &p.nspace, j);
    }

    fn release(&mut self, targets: &[Proc]) {
        for (ns, j) in self.jobs.iter_mut() {
            let names = |r: u32| {
                let p = Proc::new(ns.clone(), Rank(r));
                targets.is_empty() || targets.iter().any(|t| proc_matches(t, &p))
            };
            if !j.stopping.iter().any(|&r| names(r)) {
                continue;
            }
            j.released = true;
            j.held.retain(|&r, &mut pid| {
                if names(r) {
                    signals::send_group(pid, libc::SIGCONT);
                    false
                } else {
                    true
                }
            });
        }
    }

    fn announce_if_ready(server: &Server, nspace: &Nspace, j: &mut Stopped) {
        if j.announced || !j.stopping.is_subset(&j.ready) {
            return;
        }
        j.announced = true;
        let mut infos = vec![Info::keyed(
            keys::NSPACE,
            Value::string(&nspace.to_string_lossy()),
        )];
        infos.extend(
            j.argv
                .iter()
                .map(|a| Info::keyed(keys::APP_ARGV, Value::string(a))),
        );
        if j.in_init {
            infos.push(Info::keyed(keys::BREAKPOINT, Value::string("pmix-init")));
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        infos.push(Info::keyed(keys::EVENT_TIMESTAMP, Value::Time(now)));
        infos.push(Info::keyed(keys::EVENT_NON_DEFAULT, Value::Bool(true)));
        let range = match &j.announce_to {
            Some(tool) => {
                infos.push(Info::keyed(
                    keys::EVENT_CUSTOM_RANGE,
                    Value::Proc(tool.clone()),
                ));
                Range::CUSTOM
            }
            None => Range::LOCAL,
        };
        notify(server, codes::READY_FOR_DEBUG, range, infos);
    }
}

/// Raises `code` from this server (without waiting for it to go out).
fn notify(server: &Server, code: Status, range: Range, infos: Vec<Option<Info>>) {
    let event = Event {
        status: code,
        source: server.proc(),
        range,
        infos: infos.into_iter().flatten().collect(),
    };
    let _ = server.notify_event(event, None);
}

/// The program `argv0` would run from `cwd`: an absolute path (through
/// `PATH` for a bare name), what a debugger attaches to.
pub fn resolve_program(argv0: &str, cwd: Option<&Path>) -> Option<String> {
    let base = || {
        cwd.map(Path::to_path_buf)
            .or_else(|| std::env::current_dir().ok())
    };
    let found: PathBuf = if argv0.contains('/') {
        let p = Path::new(argv0);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            base()?.join(p)
        }
    } else {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .map(|d| {
                if d.is_absolute() {
                    d
                } else {
                    base().unwrap_or_default().join(d)
                }
            })
            .map(|d| d.join(argv0))
            .find(|c| is_executable(c))?
    };
    let clean = found.canonicalize().unwrap_or(found);
    Some(clean.to_string_lossy().into_owned())
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The debugger attributes `pmixrun` honours in a job's or a spawn's
/// directives (read above; a unit test checks each is): the answer to
/// `PMIX_QUERY_DEBUG_SUPPORT`, comma-separated (as PRRTE answers).
pub const ATTRS: &[&str] = &[
    keys::DEBUG_STOP_IN_INIT,
    keys::DEBUG_STOP_ON_EXEC,
    keys::DEBUG_STOP_IN_APP,
    keys::DEBUGGER_DAEMONS,
    keys::DEBUG_TARGET,
    keys::DEBUG_DAEMONS_PER_NODE,
    keys::DEBUG_DAEMONS_PER_PROC,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every attribute [`ATTRS`] claims is read by this module's code
    /// (outside the list and the tests).
    #[test]
    fn the_claimed_attributes_are_read() {
        let src = include_str!("debug.rs");
        let code = &src[..src.find("pub const ATTRS").unwrap()];
        for (name, value) in [
            ("DEBUG_STOP_IN_INIT", keys::DEBUG_STOP_IN_INIT),
            ("DEBUG_STOP_ON_EXEC", keys::DEBUG_STOP_ON_EXEC),
            ("DEBUG_STOP_IN_APP", keys::DEBUG_STOP_IN_APP),
            ("DEBUGGER_DAEMONS", keys::DEBUGGER_DAEMONS),
            ("DEBUG_TARGET", keys::DEBUG_TARGET),
            ("DEBUG_DAEMONS_PER_NODE", keys::DEBUG_DAEMONS_PER_NODE),
            ("DEBUG_DAEMONS_PER_PROC", keys::DEBUG_DAEMONS_PER_PROC),
        ] {
            assert!(ATTRS.contains(&value), "{name}");
            assert!(
                code.contains(&format!("keys::{name})")),
                "{name} is not read"
            );
        }
        assert_eq!(ATTRS.len(), 7);
    }

    fn info(k: &str, v: Value) -> Info {
        Info::keyed(k, v).unwrap()
    }

    fn ns(s: &str) -> Nspace {
        Nspace::new(s).unwrap()
    }

    #[test]
    fn spawn_directives_per_job_and_per_app() {
        let n = ns("job");
        let none: &[Info] = &[];
        let exec = [info(keys::DEBUG_STOP_ON_EXEC, Value::Bool(true))];
        let init = [info(keys::DEBUG_STOP_IN_INIT, Value::Undef)];
        let d = JobDebug::from_spawn(&n, &init, &[(none, 0, 2)]).unwrap();
        assert_eq!(d.stop_in_init, Some(Value::Bool(true)));
        assert!(d.stops_in_init(&n, 1));
        let d = JobDebug::from_spawn(&n, none, &[(&exec, 0, 1), (&init, 1, 2)]).unwrap();
        assert_eq!(d.stop_on_exec, vec![true, false]);
        assert!(!d.stops_in_init(&n, 0));
        assert!(d.stops_in_init(&n, 2));
        assert_eq!(d.job_infos().len(), 2);
    }

    #[test]
    fn daemon_counts_follow_prrte() {
        let n = ns("d");
        let none: &[Info] = &[];
        let target = Proc::new(ns("job"), Rank::WILDCARD);
        let base = vec![
            info(keys::DEBUGGER_DAEMONS, Value::Bool(true)),
            info(keys::DEBUG_TARGET, Value::Proc(target.clone())),
        ];
        // Neither count: one per target process.
        let d = JobDebug::from_spawn(&n, &base, &[(none, 0, 1)]).unwrap();
        assert_eq!(d.daemons.as_ref().unwrap().count(4), 4);
        let mut per_node = base.clone();
        per_node.push(info(keys::DEBUG_DAEMONS_PER_NODE, Value::Uint16(2)));
        let d = JobDebug::from_spawn(&n, &per_node, &[(none, 0, 1)]).unwrap();
        assert_eq!(d.daemons.unwrap().count(4), 2);
        // In an app's infos.
        let d = JobDebug::from_spawn(&n, none, &[(&base, 0, 1)]).unwrap();
        assert_eq!(d.daemons.unwrap().target, target);
        let mut per_proc = base.clone();
        per_proc.push(info(keys::DEBUG_DAEMONS_PER_PROC, Value::Uint16(2)));
        let d = JobDebug::from_spawn(&n, &per_proc, &[(none, 0, 1)]).unwrap();
        assert_eq!(d.daemons.unwrap().count(3), 6);
        let mut both = per_proc.clone();
        both.push(info(keys::DEBUG_DAEMONS_PER_NODE, Value::Uint16(1)));
        assert_eq!(
            JobDebug::from_spawn(&n, &both, &[(none, 0, 1)]),
            Err(Status::ERR_BAD_PARAM)
        );
        let zero = vec![
            info(keys::DEBUG_TARGET, Value::Proc(target)),
            info(keys::DEBUG_DAEMONS_PER_NODE, Value::Uint16(0)),
        ];
        assert_eq!(
            JobDebug::from_spawn(&n, &zero, &[(none, 0, 1)]),
            Err(Status::ERR_BAD_PARAM)
        );
        let no_target = vec![info(keys::DEBUG_DAEMONS_PER_NODE, Value::Uint16(1))];
        assert_eq!(
            JobDebug::from_spawn(&n, &no_target, &[(none, 0, 1)]),
            Err(Status::ERR_BAD_PARAM)
        );
    }

    #[test]
    fn a_cospawn_marks_only_the_daemon_app() {
        let n = ns("job");
        let none: &[Info] = &[];
        let daemon = [info(keys::DEBUGGER_DAEMONS, Value::Bool(true))];
        let init = [info(keys::DEBUG_STOP_IN_INIT, Value::Bool(true))];
        let d = JobDebug::from_spawn(&n, none, &[(&init, 0, 2), (&daemon, 2, 1)]).unwrap();
        assert_eq!(d.daemon_apps, vec![false, true]);
        assert!(d.daemons.is_none());
        assert!(d.stops_in_init(&n, 1) && !d.stops_in_init(&n, 2));
        // No PMIX_DEBUGGER_DAEMONS for the whole job.
        assert!(!d
            .job_infos()
            .iter()
            .any(|i| i.key.as_bytes() == keys::DEBUGGER_DAEMONS.as_bytes()));
    }

    #[test]
    fn programs_resolve_to_absolute_paths() {
        let sh = resolve_program("sh", None).unwrap();
        assert!(sh.starts_with('/') && sh.ends_with("sh"), "{sh}");
        assert_eq!(
            resolve_program("/bin/../bin/sh", None),
            resolve_program("/bin/sh", None)
        );
        assert_eq!(resolve_program("no-such-program-here", None), None);
    }
}
