//! Starting ranks ([`Launcher`]): registering a namespace and its ranks
//! with the server, starting a job's ranks (several at a time, see
//! [`launch::start_many`]) with `setup_fork`'s environment and their
//! pipes, and serving a rank's `PMIx_Spawn` as a new job.
//!
//! Invariants: every namespace registered is listed in `namespaces`
//! (deregistered at the end); ranks are recorded in the job in rank
//! order, and none after the first that could not start (those already
//! under way are killed unrecorded); a spawn that cannot start every rank
//! kills those that did and fails alone.

use std::path::PathBuf;

use pmix::job::{AppContext, SingleNodeJob};
use pmix::server::Server;
use pmix::{keys, Info, Key, Nspace, Proc, Rank, Status, Value};

use crate::host::{RunHost, SpawnRequest};
use crate::iof::{Kind, Stream};
use crate::job::{Job, Origin, RankState};
use crate::{cli, debug, launch};

/// One rank to start: which, running what, with what added to its
/// environment, for whom.
pub(crate) struct RankStart<'c> {
    pub(crate) proc: Proc,
    pub(crate) context: &'c cli::Context,
    pub(crate) app_env: &'c [(String, String)],
    pub(crate) origin: Origin,
}

impl<'c> RankStart<'c> {
    /// The ranks of `nspace`, numbered from 0 through `apps` in order
    /// (each its context's `np` ranks).
    pub(crate) fn each(
        nspace: &Nspace,
        apps: impl IntoIterator<Item = (&'c cli::Context, &'c [(String, String)], Origin)>,
    ) -> impl Iterator<Item = RankStart<'c>> {
        let nspace = nspace.clone();
        apps.into_iter()
            .flat_map(|(c, env, o)| std::iter::repeat((c, env, o)).take(c.np as usize))
            .zip(0u32..)
            .map(move |((context, app_env, origin), r)| RankStart {
                proc: Proc::new(nspace.clone(), Rank(r)),
                context,
                app_env,
                origin,
            })
    }
}

/// What starting a rank needs besides the rank itself.
pub(crate) struct Launcher<'a> {
    pub(crate) server: &'a Server,
    pub(crate) host: &'a RunHost,
    pub(crate) hostname: String,
    pub(crate) tmpdir: PathBuf,
    pub(crate) extra_env: Vec<(String, String)>,
    pub(crate) tag_output: bool,
    /// `--stdin`.
    pub(crate) stdin: Option<cli::StdinRanks>,
    /// Namespaces registered, in order (deregistered at the end).
    pub(crate) namespaces: Vec<Nspace>,
}

impl Launcher<'_> {
    /// Registers `nspace` (its description `desc`) and its ranks.
    pub(crate) fn register(&mut self, nspace: &Nspace, desc: &SingleNodeJob) -> Result<(), String> {
        let size = desc.size();
        let infos = desc.infos().map_err(|s| format!("job description: {s}"))?;
        self.host
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .namespaces
            .insert(nspace.clone());
        self.server
            .register_nspace(nspace, size, &infos)
            .map_err(|s| format!("cannot register the job: {s}"))?;
        self.namespaces.push(nspace.clone());
        let (uid, gid) = pmix::net::my_ids();
        let nsdir = self.tmpdir.join(nspace.to_string());
        for r in 0..size {
            let p = Proc::new(nspace.clone(), Rank(r));
            self.server
                .register_client(&p, uid, gid)
                .map_err(|s| format!("cannot register rank {r}: {s}"))?;
            // PMIX_PROCDIR (and PMIX_NSDIR above it) exist for the ranks.
            let _ = std::fs::create_dir_all(nsdir.join(r.to_string()));
        }
        Ok(())
    }

    /// Starts `ranks` in order, several at a time
    /// ([`launch::start_many`]), until one cannot start: that one fails
    /// the job (a command-line rank) or is reported on stderr (a spawned
    /// rank: its spawn fails), and those after it that started all the
    /// same are killed unseen, as if never started. Whether every rank
    /// started.
    pub(crate) fn start_all<'c>(
        &self,
        job: &mut Job,
        streams: &mut Vec<Stream>,
        ranks: impl IntoIterator<Item = RankStart<'c>>,
    ) -> Result<bool, String> {
        let ranks: Vec<RankStart> = ranks.into_iter().collect();
        let envs = ranks
            .iter()
            .map(|r| self.environment(r))
            .collect::<Result<Vec<_>, String>>()?;
        let reqs: Vec<launch::StartRequest> = ranks
            .iter()
            .zip(&envs)
            .map(|(r, env)| launch::StartRequest {
                ctx: r.context,
                env,
                stdin: self.stdin_of(r),
                stop_on_exec: r.origin.stop_on_exec,
            })
            .collect();
        let mut outcome = Ok(true);
        for (r, result) in ranks.iter().zip(launch::start_many(&reqs)) {
            match (result, &outcome) {
                (Some(Ok(s)), Ok(true)) => {
                    if let Err(e) = self.record(job, streams, r, s) {
                        outcome = Err(e);
                    }
                }
                (Some(Ok(s)), _) => s.abandon(),
                (Some(Err(e)), Ok(true)) => outcome = self.not_started(job, r, e),
                _ => {}
            }
        }
        outcome
    }

    /// What `r`'s environment gets: its application's, `setup_fork`'s,
    /// then the launcher's (Open MPI's, `-x`).
    fn environment(&self, r: &RankStart) -> Result<Vec<(String, String)>, String> {
        let mut env: Vec<(String, String)> = r.app_env.to_vec();
        env.extend(
            self.server
                .setup_fork(&r.proc)
                .map_err(|s| format!("setup_fork for rank {}: {s}", r.proc.rank.0))?,
        );
        env.extend(self.extra_env.iter().cloned());
        Ok(env)
    }

    /// What `r` reads as stdin.
    fn stdin_of(&self, r: &RankStart) -> launch::Stdin {
        let rank = r.proc.rank.0;
        match &self.stdin {
            _ if r.origin.spawned => launch::Stdin::Null,
            None if rank == 0 => launch::Stdin::Inherit,
            Some(s) if s.has(rank) => launch::Stdin::Pipe,
            _ => launch::Stdin::Null,
        }
    }

    /// Records the started rank `s` (`r`) in `job`, its output in
    /// `streams`.
    fn record(
        &self,
        job: &mut Job,
        streams: &mut Vec<Stream>,
        r: &RankStart,
        s: launch::Started,
    ) -> Result<(), String> {
        let proc = &r.proc;
        let rank = proc.rank.0;
        if let Some(fd) = s.stdin {
            job.stdin
                .add(proc, fd)
                .map_err(|e| format!("stdin pipe of rank {rank}: {e}"))?;
        }
        let idx = job.ranks.len();
        job.by_pid.insert(s.pid, idx);
        job.ranks.push(RankState {
            proc: proc.clone(),
            pid: s.pid,
            program: r.context.argv[0].clone(),
            running: true,
            spawned: r.origin.spawned,
            daemon: r.origin.daemon,
        });
        job.running += 1;
        job.ends.started(&proc.nspace, 2);
        if r.origin.daemon {
            job.daemons_running += 1;
        }
        let exe = debug::resolve_program(&r.context.argv[0], r.context.wdir.as_deref());
        self.host.record_start(proc, s.pid, exe);
        if s.held == Some(true) {
            job.debugger.held(self.server, proc, s.pid);
        }
        if let Some(status) = s.ended {
            job.exited(idx, status);
        }
        for (fd, kind) in [(s.stdout, Kind::Stdout), (s.stderr, Kind::Stderr)] {
            let st = Stream::new(fd, kind, proc, self.tag_output)
                .map_err(|e| format!("output pipe of rank {rank}: {e}"))?;
            streams.push(st);
        }
        Ok(())
    }

    /// `r` could not start (`e`): fails the job (a command-line rank) or
    /// says so on stderr (a spawned rank: its spawn fails). False.
    fn not_started(&self, job: &mut Job, r: &RankStart, e: std::io::Error) -> Result<bool, String> {
        let rank = r.proc.rank.0;
        let program = &r.context.argv[0];
        if r.origin.spawned {
            // The spawn fails, not the job (as under PRRTE, where
            // MPI_Comm_spawn returns an error and the job goes on).
            eprintln!(
                "pmixrun: cannot start spawned rank {rank} of {} ({program}): {e}; the spawn fails",
                r.proc.nspace
            );
        } else {
            job.fail(
                format!("cannot start rank {rank} ({program}): {e}"),
                if e.kind() == std::io::ErrorKind::NotFound {
                    127
                } else {
                    126
                },
            );
        }
        Ok(false)
    }

    /// Carries out a `PMIx_Spawn`: registers the new namespace, starts
    /// its ranks, answers the requestor with the namespace.
    pub(crate) fn spawn(
        &mut self,
        job: &mut Job,
        streams: &mut Vec<Stream>,
        req: &SpawnRequest,
        seq: u32,
    ) -> Result<Nspace, Status> {
        if job.tearing_down {
            return Err(Status::ERROR);
        }
        let nspace = Nspace::new(format!("pmixrun-{}@{seq}", std::process::id()))?;
        let target_size = |ns: &Nspace| job.ranks.iter().filter(|r| &r.proc.nspace == ns).count();
        let (dbg, nps) =
            debug::JobDebug::for_spawn(&nspace, &req.job_info, &req.apps, target_size)?;
        let mut desc = SingleNodeJob::new(&nspace, &self.hostname).tmpdir(&self.tmpdir);
        let mut contexts = Vec::new();
        for (a, &np) in req.apps.iter().zip(&nps) {
            let lossy = |c: &std::ffi::CString| c.to_string_lossy().into_owned();
            let argv: Vec<String> = a.argv.iter().map(lossy).collect();
            let cmd = match (&a.cmd, argv.first()) {
                (Some(c), _) if !c.is_empty() => lossy(c),
                (_, Some(first)) => first.clone(),
                _ => return Err(Status::ERR_BAD_PARAM),
            };
            // PMIX_WDIR of the app, else of the job, else the app's cwd.
            let cwd = wdir(&a.info)
                .or_else(|| wdir(&req.job_info))
                .or_else(|| a.cwd.as_ref().map(|c| PathBuf::from(lossy(c))));
            let mut app = AppContext::new(np).argv(if argv.is_empty() {
                vec![cmd.clone()]
            } else {
                argv.clone()
            });
            if let Some(d) = &cwd {
                app = app.cwd(d);
            }
            desc = desc.app(app);
            let mut run_argv = vec![cmd];
            run_argv.extend(argv.iter().skip(1).cloned());
            let env: Vec<(String, String)> = a
                .env
                .iter()
                .filter_map(|e| {
                    let e = lossy(e);
                    let (k, v) = e.split_once('=')?;
                    Some((k.to_owned(), v.to_owned()))
                })
                .collect();
            contexts.push((
                cli::Context {
                    np,
                    argv: run_argv,
                    wdir: cwd,
                    pset: None,
                },
                env,
            ));
        }
        desc = desc
            .job_info(Info::new(
                Key::new(keys::PARENT_ID)?,
                Value::Proc(req.requestor.clone()),
            ))
            .job_info(Info::new(Key::new(keys::SPAWNED)?, Value::Bool(true)));
        for i in dbg.job_infos() {
            desc = desc.job_info(i);
        }
        if let Err(e) = self.register(&nspace, &desc) {
            eprintln!(
                "pmixrun: spawn requested by rank {}: {e}",
                req.requestor.rank.0
            );
            return Err(Status::ERR_OUT_OF_RESOURCE);
        }
        let apps: Vec<&cli::Context> = contexts.iter().map(|(c, _)| c).collect();
        job.debugger
            .watch(&nspace, &dbg, Some(req.requestor.clone()), &apps);
        let origins = (0..contexts.len()).map(|app| Origin {
            spawned: true,
            daemon: dbg.is_daemon_app(app),
            stop_on_exec: dbg.stop_on_exec.get(app).copied().unwrap_or(false),
        });
        let ranks = RankStart::each(
            &nspace,
            contexts
                .iter()
                .zip(origins)
                .map(|((c, env), o)| (c, &env[..], o)),
        );
        match self.start_all(job, streams, ranks) {
            Ok(true) => Ok(nspace),
            Ok(false) => {
                job.abandon_spawn(&nspace);
                Err(Status::ERR_JOB_FAILED_TO_LAUNCH)
            }
            Err(e) => {
                job.fail(e, 1);
                Err(Status::ERROR)
            }
        }
    }
}

/// The `PMIX_WDIR` among `infos`, if one.
fn wdir(infos: &[Info]) -> Option<PathBuf> {
    infos
        .iter()
        .find(|i| i.key.as_bytes() == keys::WDIR.as_bytes())
        .and_then(|i| match &i.value {
            Value::String(Some(s)) => Some(PathBuf::from(s.to_string_lossy().into_owned())),
            _ => None,
        })
}
