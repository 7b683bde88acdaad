//! Starting ranks ([`Launcher`]): registering a namespace and its ranks
//! with the server, starting one rank with `setup_fork`'s environment
//! and its pipes, and serving a rank's `PMIx_Spawn` as a new job.
//!
//! Invariants: every namespace registered is listed in `namespaces`
//! (deregistered at the end); a spawn that cannot start every rank kills
//! those that did and fails alone.

use std::path::PathBuf;

use pmix::job::{AppContext, SingleNodeJob};
use pmix::server::Server;
use pmix::{keys, Info, Key, Nspace, Proc, Rank, Status, Value};

use crate::host::{RunHost, SpawnRequest};
use crate::iof::{Kind, Stream};
use crate::job::{Job, Origin, RankState};
use crate::{cli, debug, launch};

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

    /// Starts `proc` running `c` with `app_env` added; when it cannot be
    /// started, fails the job (a command-line rank) or says so on stderr
    /// (a spawned rank: its spawn fails), and returns false.
    pub(crate) fn start(
        &self,
        job: &mut Job,
        streams: &mut Vec<Stream>,
        proc: &Proc,
        c: &cli::Context,
        app_env: &[(String, String)],
        origin: Origin,
    ) -> Result<bool, String> {
        let spawned = origin.spawned;
        let rank = proc.rank.0;
        let mut env: Vec<(String, String)> = app_env.to_vec();
        env.extend(
            self.server
                .setup_fork(proc)
                .map_err(|s| format!("setup_fork for rank {rank}: {s}"))?,
        );
        env.extend(self.extra_env.iter().cloned());
        let stdin = match &self.stdin {
            _ if spawned => launch::Stdin::Null,
            None if rank == 0 => launch::Stdin::Inherit,
            Some(r) if r.has(rank) => launch::Stdin::Pipe,
            _ => launch::Stdin::Null,
        };
        match launch::start(c, &env, stdin, origin.stop_on_exec) {
            Ok(s) => {
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
                    program: c.argv[0].clone(),
                    running: true,
                    spawned,
                    daemon: origin.daemon,
                });
                job.running += 1;
                job.ends.started(&proc.nspace, 2);
                if origin.daemon {
                    job.daemons_running += 1;
                }
                let exe = debug::resolve_program(&c.argv[0], c.wdir.as_deref());
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
                Ok(true)
            }
            Err(e) if spawned => {
                // The spawn fails, not the job (as under PRRTE, where
                // MPI_Comm_spawn returns an error and the job goes on).
                eprintln!(
                    "pmixrun: cannot start spawned rank {rank} of {} ({}): {e}; the spawn fails",
                    proc.nspace, c.argv[0]
                );
                Ok(false)
            }
            Err(e) => {
                job.fail(
                    format!("cannot start rank {rank} ({}): {e}", c.argv[0]),
                    if e.kind() == std::io::ErrorKind::NotFound {
                        127
                    } else {
                        126
                    },
                );
                Ok(false)
            }
        }
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
        let mut rank = 0u32;
        for (app, (c, env)) in contexts.iter().enumerate() {
            let origin = Origin {
                spawned: true,
                daemon: dbg.is_daemon_app(app),
                stop_on_exec: dbg.stop_on_exec.get(app).copied().unwrap_or(false),
            };
            for _ in 0..c.np {
                let p = Proc::new(nspace.clone(), Rank(rank));
                match self.start(job, streams, &p, c, env, origin) {
                    Ok(true) => {}
                    Ok(false) => {
                        job.abandon_spawn(&nspace);
                        return Err(Status::ERR_JOB_FAILED_TO_LAUNCH);
                    }
                    Err(e) => {
                        job.fail(e, 1);
                        return Err(Status::ERROR);
                    }
                }
                rank += 1;
            }
        }
        Ok(nspace)
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
