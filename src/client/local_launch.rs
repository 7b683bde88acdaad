//! `PMIx_Spawn` in a launcher connected to no server (`PMIX_LAUNCHER`
//! with `PMIX_TOOL_DO_NOT_CONNECT`, or optional connection that found
//! none): the launcher forks and execs the job itself, as OpenPMIx's
//! launchers default to.
//!
//! What it does, as OpenPMIx 4.2/5.0 does:
//! - the new namespace is `<launcher's namespace>:<n>`, `n` counting the
//!   jobs this process started from 1; ranks count from 0 across the
//!   applications, `maxprocs` processes each (none at all:
//!   `PMIX_ERR_BAD_PARAM`);
//! - each process gets the application's environment, completed with this
//!   process's variables the application does not set, then
//!   `PMIX_NAMESPACE`/`PMIX_SERVER_NSPACE` (the new namespace),
//!   `PMIX_RANK`/`PMIX_SERVER_RANK` (its rank), `PMIX_HOSTNAME` and `PWD`
//!   (the working directory);
//! - it runs in the application's working directory (the caller's when
//!   none is given; one that cannot be entered:
//!   `PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE`), in a process group of its own; a
//!   bare command is looked for in that environment's `PATH`
//!   (`PMIX_ERR_JOB_EXE_NOT_FOUND`), a path must be executable
//!   (`PMIX_ERR_EXE_NOT_ACCESSIBLE`); `argv[0]` is the application's;
//! - the spawn completes (its callback runs) once every process is
//!   started, not once they end; when the last of them has ended, the
//!   launcher's own handlers get `PMIX_ERR_JOB_TERMINATED` (range
//!   `PMIX_RANGE_PROC_LOCAL`, with `PMIX_EVENT_NON_DEFAULT` and the job as
//!   `PMIX_EVENT_AFFECTED_PROC`).
//!
//! Differences, on purpose: the processes write to the launcher's own
//! stdout and stderr (OpenPMIx reads them through pipes and writes them
//! there) and read nothing (`/dev/null`: OpenPMIx gives a pipe nothing is
//! forwarded to); OpenPMIx's own wire settings (`PMIX_SECURITY_MODE`,
//! `PMIX_BFROP_BUFFER_TYPE`, `PMIX_VERSION`, its server URIs) and its
//! keepalive pipe (`PMIX_KEEPALIVE_PIPE`) are not passed, nor is
//! `PMIX_FORKEXEC_AGENT` honoured; the new namespace is not registered
//! with the launcher's own server. Only this process's children are
//! reaped (OpenPMIx reaps any child of the process).
//!
//! Invariant: every process started is waited for (by the job's thread),
//! and the spawn's callback runs exactly once, from that thread.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Weak};

use super::SpawnCallback;
use super::{Client, Inner};
use crate::events::{codes, Range};
use crate::value::App;
use crate::{keys, Info, Nspace, Proc, Rank, Status, Value};

/// The number of the next job this process starts.
static NEXT_JOB: AtomicU32 = AtomicU32::new(1);

/// Starts `apps` (already completed by the spawn's checks: a command, an
/// argv and a working directory each) as a new job of children of this
/// process, on a thread of its own; `done` gets the new namespace once
/// they are all started, or the first failure.
pub(super) fn spawn(inner: &Arc<Inner>, apps: Vec<App>, done: SpawnCallback) -> Result<(), Status> {
    let total: i64 = apps.iter().map(|a| i64::from(a.maxprocs)).sum();
    if total == 0 {
        return Err(Status::ERR_BAD_PARAM);
    }
    let n = NEXT_JOB.fetch_add(1, Ordering::Relaxed);
    let nspace = Nspace::new(format!("{}:{n}", inner.proc.nspace.to_string_lossy()))?;
    let weak = Arc::downgrade(inner);
    std::thread::Builder::new()
        .name("pmix-launch".into())
        .spawn(move || run_job(&weak, &nspace, &apps, done))
        .map(|_| ())
        .map_err(|_| Status::ERR_OUT_OF_RESOURCE)
}

/// The job's thread: starts every process, answers the spawn, waits for
/// them all, then tells the launcher's handlers the job ended.
fn run_job(inner: &Weak<Inner>, nspace: &Nspace, apps: &[App], done: SpawnCallback) {
    let mut children = Vec::new();
    let started = start_all(nspace, apps, &mut children);
    let ok = started.is_ok();
    done(started.map(|()| nspace.clone()));
    for mut c in children {
        let _ = c.wait();
    }
    if ok {
        job_ended(inner, nspace);
    }
}

/// Starts the processes of `apps` in rank order, pushing each onto
/// `children`; stops at the first failure.
fn start_all(nspace: &Nspace, apps: &[App], children: &mut Vec<Child>) -> Result<(), Status> {
    let host = crate::server::local_hostname();
    let mut rank = 0u32;
    for app in apps {
        let cwd = working_dir(app)?;
        let env = environment(app, &cwd);
        let program = program(app, &cwd, &env)?;
        for _ in 0..app.maxprocs {
            let mut cmd = command(app, &program, &cwd, &env);
            let r = rank.to_string();
            cmd.env("PMIX_NAMESPACE", OsStr::from_bytes(nspace.as_bytes()))
                .env("PMIX_SERVER_NSPACE", OsStr::from_bytes(nspace.as_bytes()))
                .env("PMIX_RANK", &r)
                .env("PMIX_SERVER_RANK", &r)
                .env("PMIX_HOSTNAME", &host);
            children.push(cmd.spawn().map_err(|e| launch_error(&e))?);
            rank += 1;
        }
    }
    Ok(())
}

/// The application's working directory (the caller's when it names
/// none), which must be a directory this process can enter.
fn working_dir(app: &App) -> Result<PathBuf, Status> {
    let dir = match &app.cwd {
        Some(d) => PathBuf::from(OsStr::from_bytes(d.as_bytes())),
        None => std::env::current_dir().map_err(|_| Status::ERR_JOB_WDIR_NOT_ACCESSIBLE)?,
    };
    let enterable =
        std::fs::metadata(&dir).is_ok_and(|m| m.is_dir()) && std::fs::read_dir(&dir).is_ok();
    if enterable {
        Ok(dir)
    } else {
        Err(Status::ERR_JOB_WDIR_NOT_ACCESSIBLE)
    }
}

/// The application's variables, then this process's that it does not
/// set, then `PWD`.
fn environment(app: &App, cwd: &Path) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut env: Vec<(Vec<u8>, Vec<u8>)> = app
        .env
        .iter()
        .filter_map(|e| {
            let b = e.as_bytes();
            let eq = b.iter().position(|&c| c == b'=')?;
            Some((b[..eq].to_vec(), b[eq + 1..].to_vec()))
        })
        .collect();
    for (k, v) in std::env::vars_os() {
        if !env.iter().any(|(n, _)| n.as_slice() == k.as_bytes()) {
            env.push((k.as_bytes().to_vec(), v.as_bytes().to_vec()));
        }
    }
    env.retain(|(n, _)| n.as_slice() != b"PWD");
    env.push((b"PWD".to_vec(), cwd.as_os_str().as_bytes().to_vec()));
    env
}

/// The executable to run: a bare command name looked for in the `PATH`
/// of `env` (relative entries from `cwd`), a path (relative to `cwd`)
/// as it is.
fn program(app: &App, cwd: &Path, env: &[(Vec<u8>, Vec<u8>)]) -> Result<PathBuf, Status> {
    let cmd = app.cmd.as_deref().ok_or(Status::ERR_BAD_PARAM)?;
    let cmd = Path::new(OsStr::from_bytes(cmd.to_bytes()));
    if cmd.components().count() > 1 || cmd.is_absolute() {
        let p = cwd.join(cmd);
        return if executable(&p) {
            Ok(p)
        } else {
            Err(Status::ERR_EXE_NOT_ACCESSIBLE)
        };
    }
    let path = env
        .iter()
        .find(|(n, _)| n.as_slice() == b"PATH")
        .map(|(_, v)| v.as_slice())
        .unwrap_or_default();
    path.split(|&c| c == b':')
        .map(|d| cwd.join(OsStr::from_bytes(d)).join(cmd))
        .find(|p| executable(p))
        .ok_or(Status::ERR_JOB_EXE_NOT_FOUND)
}

/// True for a regular file with an execute bit.
fn executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The command for one process of `app`, before its identity.
fn command(app: &App, program: &Path, cwd: &Path, env: &[(Vec<u8>, Vec<u8>)]) -> Command {
    let mut cmd = Command::new(program);
    if let Some(first) = app.argv.first() {
        cmd.arg0(OsStr::from_bytes(first.as_bytes()));
    }
    cmd.args(
        app.argv
            .iter()
            .skip(1)
            .map(|a| OsStr::from_bytes(a.as_bytes())),
    )
    .env_clear()
    .envs(
        env.iter()
            .map(|(k, v)| (OsStr::from_bytes(k), OsStr::from_bytes(v))),
    )
    .current_dir(cwd)
    .process_group(0)
    .stdin(Stdio::null())
    .stdout(Stdio::inherit())
    .stderr(Stdio::inherit());
    cmd
}

/// The status of a process that could not be started.
fn launch_error(e: &std::io::Error) -> Status {
    match e.kind() {
        std::io::ErrorKind::NotFound => Status::ERR_JOB_EXE_NOT_FOUND,
        std::io::ErrorKind::PermissionDenied => Status::ERR_EXE_NOT_ACCESSIBLE,
        _ => Status::ERR_JOB_FAILED_TO_LAUNCH,
    }
}

/// Raises `PMIX_ERR_JOB_TERMINATED` for `nspace` to this process's own
/// handlers (nothing if the launcher has finalized meanwhile).
fn job_ended(inner: &Weak<Inner>, nspace: &Nspace) {
    let Some(inner) = inner.upgrade() else { return };
    let infos = [
        Info::keyed(keys::EVENT_NON_DEFAULT, Value::Bool(true)),
        Info::keyed(
            keys::EVENT_AFFECTED_PROC,
            Value::Proc(Proc::new(nspace.clone(), Rank::WILDCARD)),
        ),
    ];
    let infos: Vec<Info> = infos.into_iter().flatten().collect();
    let _ = Client::handle(inner, true).notify_event(
        codes::JOB_END,
        None,
        Range::PROC_LOCAL,
        &infos,
        None,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;

    fn app(cmd: &str) -> App {
        App {
            cmd: Some(CString::new(cmd).unwrap()),
            argv: vec![CString::new(cmd).unwrap()],
            maxprocs: 1,
            ..App::default()
        }
    }

    #[test]
    fn a_bare_command_is_found_in_the_given_path_and_a_missing_one_is_not_found() {
        let env = vec![(b"PATH".to_vec(), b"/nonexistent:/bin:/usr/bin".to_vec())];
        let p = program(&app("sh"), Path::new("/"), &env).unwrap();
        assert!(p.ends_with("sh") && executable(&p));
        assert_eq!(
            program(&app("no-such-program-here"), Path::new("/"), &env),
            Err(Status::ERR_JOB_EXE_NOT_FOUND)
        );
        assert_eq!(
            program(&app("/nonexistent/x"), Path::new("/"), &env),
            Err(Status::ERR_EXE_NOT_ACCESSIBLE)
        );
    }

    #[test]
    fn the_application_s_variables_win_and_pwd_is_the_working_directory() {
        let mut a = app("sh");
        a.env = vec![CString::new("PATH=/only/this").unwrap()];
        let env = environment(&a, Path::new("/some/dir"));
        let get = |k: &[u8]| {
            env.iter()
                .filter(|(n, _)| n.as_slice() == k)
                .map(|(_, v)| v.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(get(b"PATH"), vec![b"/only/this".to_vec()]);
        assert_eq!(get(b"PWD"), vec![b"/some/dir".to_vec()]);
    }

    #[test]
    fn a_missing_working_directory_is_refused() {
        let mut a = app("sh");
        a.cwd = Some(CString::new("/nonexistent/dir").unwrap());
        assert_eq!(working_dir(&a), Err(Status::ERR_JOB_WDIR_NOT_ACCESSIBLE));
    }
}
