//! Starting the ranks: each is a child in its own process group (so that
//! signals reach whatever it starts too), with the launcher's environment,
//! the server's `setup_fork` variables and the `-x` ones, and stdout/stderr
//! on pipes for [`crate::iof`]. Stdin is what [`Stdin`] says: by default
//! rank 0 reads the launcher's stdin when that is not a terminal (a rank
//! in its own process group cannot read the terminal) and every other rank
//! reads `/dev/null`; with `--stdin`, the ranks it names read a pipe the
//! launcher feeds ([`crate::iof::StdinRouter`]).

use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use crate::cli::Context;
use crate::sys;

/// What Open MPI 4.1 needs to take a direct launch by a PMIx server that
/// is neither its own runtime nor a resource manager it knows: its
/// `schizo/orte` component declares every other process a singleton
/// (`orte_process_info.my_daemon_uri` unset: `ORTE_SCHIZO_UNMANAGED_SINGLETON`,
/// which forces `ess=singleton` and forks a private `orted`), so it is
/// excluded (`OMPI_MCA_schizo=^orte`); then `ess/pmi` is selected and
/// everything else comes from PMIx. Harmless to any other program, and
/// left alone when the caller set `OMPI_MCA_schizo` (`-x` overrides it
/// too). See docs/INTEROP.md.
pub fn open_mpi_env() -> Vec<(String, String)> {
    if std::env::var_os("OMPI_MCA_schizo").is_some() {
        return Vec::new();
    }
    vec![("OMPI_MCA_schizo".into(), "^orte".into())]
}

/// A started rank.
pub struct Started {
    pub pid: i32,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
    /// The write end of its stdin ([`Stdin::Pipe`]).
    pub stdin: Option<OwnedFd>,
}

/// What a rank reads as stdin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stdin {
    /// The launcher's stdin, unless that is a terminal (then `/dev/null`).
    Inherit,
    /// `/dev/null`.
    Null,
    /// A pipe the launcher feeds.
    Pipe,
}

/// Starts one rank of `ctx` reading `stdin_from`.
pub fn start(ctx: &Context, env: &[(String, String)], stdin_from: Stdin) -> io::Result<Started> {
    let mut cmd = Command::new(&ctx.argv[0]);
    let stdin = match stdin_from {
        Stdin::Inherit if !sys::isatty(0) => Stdio::inherit(),
        Stdin::Inherit | Stdin::Null => Stdio::null(),
        Stdin::Pipe => Stdio::piped(),
    };
    cmd.args(&ctx.argv[1..])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(d) = &ctx.wdir {
        cmd.current_dir(d);
    }
    let mut child = cmd.spawn()?;
    let stdout = child.stdout.take().expect("piped").into();
    let stderr = child.stderr.take().expect("piped").into();
    let stdin = child.stdin.take().map(OwnedFd::from);
    // The child is reaped by the main loop (waitpid on SIGCHLD), never
    // through `child`, which is simply forgotten.
    Ok(Started {
        pid: child.id() as i32,
        stdout,
        stderr,
        stdin,
    })
}
