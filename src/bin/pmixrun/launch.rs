//! Starting the ranks: each is a child in its own process group (so that
//! signals reach whatever it starts too), with the launcher's environment,
//! the server's `setup_fork` variables and the `-x` ones, stdin from
//! `/dev/null`, and stdout/stderr on pipes for [`crate::iof`].

use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use crate::cli::Context;

/// A started rank.
pub struct Started {
    pub pid: i32,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
}

/// Starts one rank of `ctx`.
pub fn start(ctx: &Context, env: &[(String, String)]) -> io::Result<Started> {
    let mut cmd = Command::new(&ctx.argv[0]);
    cmd.args(&ctx.argv[1..])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(d) = &ctx.wdir {
        cmd.current_dir(d);
    }
    let mut child = cmd.spawn()?;
    let stdout = child.stdout.take().expect("piped").into();
    let stderr = child.stderr.take().expect("piped").into();
    // The child is reaped by the main loop (waitpid on SIGCHLD), never
    // through `child`, which is simply forgotten.
    Ok(Started {
        pid: child.id() as i32,
        stdout,
        stderr,
    })
}
