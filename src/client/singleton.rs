//! A singleton: `PMIx_Init` in a process that no server started (no
//! `PMIX_SERVER_URI*` in its environment). As OpenPMIx 4.2 does, the
//! process becomes rank 0 of a job of one, namespace
//! `singleton.<hostname>.<pid>`.
//!
//! The job is served by a private server in this process (its own
//! progress thread and a socket in a private directory), registered with
//! the job description of [`SingleNodeJob`] (job size 1, this node, one
//! application of one process, the argv and working directory of this
//! process, ...). The client connects to it like any other, so gets of job
//! and process keys, put/commit, a fence with itself (with or without data
//! collection) and gets of its own posted data behave as under a launcher.
//! Operations that need a launcher or other processes (publish/lookup,
//! spawn, connect, groups, query, log, job control, allocation,
//! credentials, IOF, abort) fail with `PMIX_ERR_UNREACH`, as OpenPMIx's
//! do; event registration is served locally. The private server's socket
//! and directory are removed once the client is connected (nothing else
//! may connect), and the server stops at `finalize` (or when the client
//! is dropped).

use std::collections::HashMap;
use std::sync::Arc;

use super::ConnectInfo;
use crate::job::{AppContext, SingleNodeJob};
use crate::server::{NoHost, Server, ServerConfig};
use crate::wire::Op;
use crate::{Nspace, Proc, Rank, Status};

/// Starts the private server of a singleton and returns it with what the
/// client needs to connect to it: rank 0 of `singleton.<host>.<pid>`, or
/// the identity `me` (an unconnected tool's, whose job then holds
/// `me.rank + 1` processes of which only `me` exists).
pub(super) fn start(me: Option<Proc>) -> Result<(Server, ConnectInfo), Status> {
    let config = ServerConfig::default();
    let me = match me {
        Some(p) => p,
        None => Proc::new(
            Nspace::new(format!(
                "singleton.{}.{}",
                config.hostname,
                std::process::id()
            ))?,
            Rank(0),
        ),
    };
    let nspace = me.nspace.clone();
    let size = me.rank.0.checked_add(1).ok_or(Status::ERR_BAD_PARAM)?;
    let server = Server::start(config, Arc::new(NoHost)).map_err(|_| Status::ERR_INIT)?;
    let mut app =
        AppContext::new(size).argv(std::env::args_os().map(|a| a.to_string_lossy().into_owned()));
    if let Ok(cwd) = std::env::current_dir() {
        app = app.cwd(cwd);
    }
    let infos = SingleNodeJob::new(&nspace, &server.config().hostname)
        .app(app)
        .infos()?;
    server.register_nspace(&nspace, size, &infos)?;
    let (uid, gid) = crate::net::my_ids();
    server.register_client(&me, uid, gid)?;
    let env: HashMap<String, String> = server.setup_fork(&me)?.into_iter().collect();
    let info = ConnectInfo::from_lookup(|k| env.get(k).cloned())?;
    Ok((server, info))
}

/// Removes the private server's socket and directory from the file
/// system (the listening socket stays open; the server stops at finalize).
pub(super) fn unlink_rendezvous(server: &Server, info: &ConnectInfo) {
    let _ = std::fs::remove_file(&info.socket);
    let _ = std::fs::remove_dir(server.rendezvous_dir());
}

/// True for the service operations a singleton can serve itself (the
/// event registrations); every other needs a launcher.
pub(super) fn serves(op: Op) -> bool {
    matches!(
        op,
        Op::REGISTER_EVENTS | Op::DEREGISTER_EVENTS | Op::NOTIFY_EVENT
    )
}
