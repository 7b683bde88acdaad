//! The PMIx server library: the Rust API a host (our `pmixrun`, or the C
//! layer behind `PMIx_server_*`) drives.
//!
//! ```text
//!  host threads                    progress thread (event_loop)
//!  ------------                    -----------------------------
//!  register_nspace  --builds job segment, stores it in the Registry
//!  register_client  --Registry (uid, gid, secret)
//!  setup_fork       --env with URI + secret
//!                                   accept -> handshake (SO_PEERCRED +
//!                                   secret vs Registry) -> job/modex fds
//!                                   commit / fence / dmodex / abort /
//!                                   finalize; host callbacks
//!  Completion::complete (any thread) --channel + mio::Waker--> loop
//!    (on the loop thread itself: channel only, drained in the same pass)
//!  dmodex_request   --channel + mio::Waker--> loop
//! ```
//!
//! Invariants:
//! - Only the progress thread touches connections, committed data, fence
//!   trackers and modex generations; host threads reach it through the
//!   command channel. The [`Registry`](registry) (namespaces, clients,
//!   secrets) is shared under a mutex held only for lookups and inserts.
//! - A client is served only after its handshake proved the identity it
//!   claims: the connection's `SO_PEERCRED` uid/gid equal what the host
//!   registered for that process, and it presented the secret `setup_fork`
//!   generated for it. Anything else is refused and the connection closed.
//! - Segments handed to clients are sealed memfds; the server keeps each
//!   namespace's job segment and the modex generations not superseded by
//!   a later one (see `modex`) open so that clients connecting later
//!   receive them too.
//! - Commands sent from the loop thread (a host completing an operation
//!   inside the callback that started it) do not wake the loop: it drains
//!   the command channel after handling events and after firing timers,
//!   before it polls again.
//! - A connection is registered for writability only while output is
//!   queued for it (else every read by the client would wake the loop).
//! - Every pending operation ends: released by its completion, failed when
//!   a participant's connection is lost, or failed at its `PMIX_TIMEOUT`.

mod census;
mod clients;
mod collective;
mod command;
mod connect;
mod control;
mod credential;
mod departures;
mod event_loop;
mod events;
mod groups;
mod host;
mod host_events;
mod host_side;
mod iof;
mod modex;
mod ops;
mod psets;
mod pubsub;
mod query;
mod registry;
mod resources;
mod services;
mod spawn;
mod state;
mod timers;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::unbounded;

use crate::net::{Listener, RendezvousDir};
use crate::{keys, Info, Nspace, Proc, Rank, Status, Value};

pub use crate::wire::pubsub::PublishedValue;
pub use census::Census;
pub use control::{job_ctrl, log_locally, log_source, log_text, log_timestamp, session_ctrl};
pub use events::NotifyCallback;
pub use host::{Completion, DmodexCallback, HostModule, NoHost, OpOutput, StartedProc};
pub use host_side::app_setup::{application_setup, EnvChange, EnvEdit};
pub use host_side::env::{SECRET_ENV, URI_ENV_VARS};
pub use host_side::own_store;
pub use host_side::published::{DataRange, LookupDone, Participant, Persistence, PublishedData};
pub use iof::service::{DEFAULT_CACHE as IOF_DEFAULT_CACHE, IOF_DROPPED};
pub use query::ServerQueryCallback;

use command::{Command, Notifier};
use registry::Registry;

/// Errors starting a server.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The rendezvous directory or the listening socket could not be made.
    #[error("cannot create the rendezvous socket: {0}")]
    Rendezvous(#[source] std::io::Error),
    /// The event loop could not be set up.
    #[error("cannot start the progress thread: {0}")]
    Loop(#[source] std::io::Error),
    /// The URI could not be written where `PMIX_TCP_REPORT_URI` says.
    #[error("cannot report the server's URI: {0}")]
    ReportUri(#[source] std::io::Error),
}

impl ServerError {
    /// The status reported by `PMIx_server_init`.
    pub fn status(&self) -> Status {
        Status::ERR_INIT
    }
}

impl From<ServerError> for Status {
    fn from(e: ServerError) -> Status {
        e.status()
    }
}

/// How to start a server.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The server's own identity (`PMIX_SERVER_NSPACE`/`PMIX_SERVER_RANK`).
    pub nspace: Nspace,
    /// The server's rank.
    pub rank: Rank,
    /// Where the rendezvous directory is created (`PMIX_SERVER_TMPDIR`);
    /// default `$TMPDIR` (if at most 64 bytes long) or `/tmp`.
    pub tmpdir: PathBuf,
    /// The system temporary directory (`PMIX_SYSTEM_TMPDIR`).
    pub system_tmpdir: PathBuf,
    /// This node's name (`PMIX_HOSTNAME`); default the kernel's hostname.
    pub hostname: String,
    /// Largest message body accepted from an authenticated client.
    pub max_message: u32,
    /// Uid and gid to give the rendezvous directory and socket to, when
    /// the clients run as another user than the server (a root server
    /// launching a user's job); `None`: the server's own.
    pub rendezvous_owner: Option<(u32, u32)>,
    /// The locality string of a cpuset (hwloc list syntax) on this node's
    /// topology, for the local ranks whose cpuset a registration gives but
    /// whose `PMIX_LOCALITY_STRING` it does not (the C library sets it to
    /// its hwloc generator); `None`: such ranks keep a NULL string.
    pub locality: Option<fn(&str) -> Option<String>>,
    /// `PMIX_SERVER_TOOL_SUPPORT`: tools may connect; the server writes
    /// its rendezvous files for them in `tmpdir`, named after its pid and
    /// its namespace (see [`crate::net::tool_files`]).
    pub tool_support: bool,
    /// `PMIX_SERVER_SESSION_SUPPORT`: the session's server; tools that
    /// name no server find it by `pmix.<host>.tool` in `tmpdir` (tools
    /// may connect too).
    pub session_support: bool,
    /// `PMIX_SERVER_SYSTEM_SUPPORT`: the system server, whose rendezvous
    /// file is in `system_tmpdir` (tools may connect too).
    pub system_support: bool,
    /// `PMIX_TCP_REPORT_URI`: where the server's URI is written once it
    /// listens (see [`report_uri`]); `None`: nowhere.
    pub report_uri: Option<String>,
    /// `PMIX_IOF_LOCAL_OUTPUT`: output handed to
    /// [`Server::iof_deliver_nb`] is also written to this process's own
    /// stdout (stdout channel) or stderr (the others). `None`: not given
    /// (the Rust API's default is not to; the C library's follows
    /// OpenPMIx, see `PMIx_server_init`).
    pub local_output: Option<bool>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        // A socket path must fit `sockaddr_un` (107 bytes): a $TMPDIR too
        // long to hold the rendezvous directory falls back to /tmp.
        let tmp = std::env::var_os("TMPDIR")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute() && p.as_os_str().len() <= 64)
            .unwrap_or_else(|| PathBuf::from("/tmp"));
        ServerConfig {
            nspace: Nspace::new(format!("pmix-server.{}", std::process::id())).expect("short name"),
            rank: Rank(0),
            tmpdir: tmp.clone(),
            system_tmpdir: tmp,
            hostname: local_hostname(),
            max_message: crate::wire::DEFAULT_MAX_BODY,
            rendezvous_owner: None,
            locality: None,
            tool_support: false,
            session_support: false,
            system_support: false,
            report_uri: None,
            local_output: None,
        }
    }
}

impl ServerConfig {
    /// The defaults, overridden by the `PMIx_server_init` attributes it
    /// understands: `PMIX_SERVER_NSPACE`, `PMIX_SERVER_RANK`,
    /// `PMIX_SERVER_TMPDIR`, `PMIX_SYSTEM_TMPDIR`, `PMIX_HOSTNAME`, the
    /// three `PMIX_SERVER_*_SUPPORT` flags, `PMIX_TCP_REPORT_URI` and
    /// `PMIX_IOF_LOCAL_OUTPUT`.
    pub fn from_infos(infos: &[Info]) -> Result<ServerConfig, Status> {
        let mut c = ServerConfig::default();
        // attrs begin: PMIx_server_init
        for i in infos {
            match (i.key.to_string_lossy().as_ref(), &i.value) {
                (keys::SERVER_NSPACE, Value::String(Some(s))) => {
                    c.nspace = Nspace::from_cstring(s.clone())?
                }
                (keys::SERVER_RANK, v) => {
                    c.rank = Rank(v.as_u32().ok_or(Status::ERR_BAD_PARAM)?);
                }
                (keys::SERVER_TMPDIR, Value::String(Some(s))) => {
                    c.tmpdir = PathBuf::from(s.to_string_lossy().into_owned())
                }
                (keys::SYSTEM_TMPDIR, Value::String(Some(s))) => {
                    c.system_tmpdir = PathBuf::from(s.to_string_lossy().into_owned())
                }
                (keys::HOSTNAME, Value::String(Some(s))) => {
                    c.hostname = s.to_string_lossy().into_owned()
                }
                (keys::SERVER_TOOL_SUPPORT, v) => c.tool_support = crate::wire::flag(v),
                (keys::SERVER_SYSTEM_SUPPORT, v) => c.system_support = crate::wire::flag(v),
                (keys::SERVER_SESSION_SUPPORT, v) => c.session_support = crate::wire::flag(v),
                (keys::TCP_REPORT_URI, Value::String(Some(s))) => {
                    c.report_uri = Some(s.to_string_lossy().into_owned())
                }
                (keys::IOF_LOCAL_OUTPUT, v) => c.local_output = Some(crate::wire::flag(v)),
                _ => {}
            }
        }
        // attrs end
        Ok(c)
    }
}

/// The kernel's hostname (no libc call needed).
pub fn local_hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_owned())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

/// True if `host` names this node: `localhost`, or its name (see
/// [`local_hostname`]), whole or its first label (compared without case).
pub fn names_this_host(host: &str) -> bool {
    let me = local_hostname();
    let short = me.split('.').next().unwrap_or(&me);
    host.eq_ignore_ascii_case("localhost")
        || host.eq_ignore_ascii_case(&me)
        || host.eq_ignore_ascii_case(short)
}

/// A running PMIx server: a listening socket in a private directory and a
/// progress thread. Dropping it (or [`Server::finalize`]) stops the thread,
/// closes every client connection and removes the directory.
pub struct Server {
    registry: Arc<Registry>,
    notifier: Notifier,
    thread: Option<JoinHandle<()>>,
    uri: String,
    config: ServerConfig,
    dir: RendezvousDir,
    /// Environment directives of `setup_local_support`, per namespace.
    local_support: parking_lot::Mutex<std::collections::HashMap<Nspace, Vec<EnvEdit>>>,
    /// The server process's own event handlers (see [`events`]).
    events: Arc<crate::events::EventHandlers>,
    /// What `register_resources` gave (see [`resources`]).
    resources: parking_lot::Mutex<Vec<Info>>,
    /// The rendezvous files tools find this server by (tool or system
    /// support); removed with the server.
    _tool_files: Option<crate::net::tool_files::ToolFiles>,
}

impl Server {
    /// Creates the rendezvous socket and starts the progress thread.
    /// First removes what servers of this user that died without
    /// cleaning up (killed by `SIGKILL`) left in `tmpdir`: their
    /// rendezvous directories and tool files (see
    /// [`crate::net::remove_stale_dirs`]).
    pub fn start(config: ServerConfig, host: Arc<dyn HostModule>) -> Result<Server, ServerError> {
        crate::net::remove_stale_dirs(&config.tmpdir, "pmix-rs");
        crate::net::tool_files::remove_stale(&config.tmpdir, &config.hostname);
        let dir =
            RendezvousDir::create(&config.tmpdir, "pmix-rs").map_err(ServerError::Rendezvous)?;
        let listener = Listener::bind(&dir.socket_path()).map_err(ServerError::Rendezvous)?;
        if let Some((uid, gid)) = config.rendezvous_owner {
            dir.give_to(uid, gid).map_err(ServerError::Rendezvous)?;
        }
        let uri = format!(
            "{}.{};unix://{}",
            config.nspace,
            config.rank.0,
            dir.socket_path().display()
        );
        if let Some(target) = &config.report_uri {
            host_side::report_uri::report(target, &uri).map_err(ServerError::ReportUri)?;
        }
        let registry = Arc::new(Registry::new(host.fences_are_local()));
        let poll = mio::Poll::new().map_err(ServerError::Loop)?;
        let waker = Arc::new(
            mio::Waker::new(poll.registry(), clients::connections::WAKER)
                .map_err(ServerError::Loop)?,
        );
        let (tx, rx) = unbounded();
        let notifier = Notifier::new(tx, waker);
        let server_proc = Proc::new(config.nspace.clone(), config.rank);
        let events = Arc::new(crate::events::EventHandlers::new(Some(server_proc.clone())));
        let tools = config.tool_support || config.session_support || config.system_support;
        let tool_files = if tools {
            use crate::net::tool_files as tf;
            let host_name = &config.hostname;
            let mut paths = Vec::new();
            if config.tool_support {
                paths.push(tf::by_pid(&config.tmpdir, host_name, std::process::id()));
                paths.push(tf::by_nspace(
                    &config.tmpdir,
                    host_name,
                    &config.nspace.to_string_lossy(),
                ));
            }
            if config.session_support {
                paths.push(tf::session(&config.tmpdir, host_name));
            }
            if config.system_support {
                paths.push(tf::system(&config.system_tmpdir, host_name));
            }
            Some(
                crate::net::tool_files::ToolFiles::write(&uri, paths)
                    .map_err(ServerError::Rendezvous)?,
            )
        } else {
            None
        };
        let el = event_loop::EventLoop::new(
            poll,
            listener,
            rx,
            notifier.clone(),
            registry.clone(),
            host,
            server_proc,
            config.max_message,
            events.clone(),
            tools,
        )
        .map_err(ServerError::Loop)?;
        let thread = std::thread::Builder::new()
            .name("pmix-server".into())
            .spawn(move || el.run())
            .map_err(ServerError::Loop)?;
        Ok(Server {
            registry,
            notifier,
            thread: Some(thread),
            uri,
            config,
            dir,
            local_support: Default::default(),
            events,
            resources: Default::default(),
            _tool_files: tool_files,
        })
    }

    /// The URI clients connect to (`PMIX_SERVER_URI*`).
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The rendezvous directory (`PMIX_SERVER_TMPDIR`).
    pub fn rendezvous_dir(&self) -> &Path {
        self.dir.path()
    }

    /// The server's identity.
    pub fn proc(&self) -> Proc {
        Proc::new(self.config.nspace.clone(), self.config.rank)
    }

    /// The configuration the server runs with.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// True on the server's progress thread (inside an upcall), where a
    /// call waiting for the server would wait for itself.
    pub fn on_progress_thread(&self) -> bool {
        self.notifier.on_loop_thread()
    }

    /// `PMIx_server_register_nspace`: describes a job with `nlocalprocs`
    /// processes on this node. Builds the namespace's job segment (every
    /// form of job description the standard allows, see
    /// [`crate::job::JobDescription`]); clients of the namespace receive it
    /// when they connect. Registering an existing namespace replaces its
    /// description for clients that connect afterwards. The process sets
    /// the registration carries (an application's `PMIX_PSET_NAME`, as
    /// PRRTE registers `--pset`) join the server's table, without events.
    /// What [`Server::register_resources`] holds joins the job-level data.
    pub fn register_nspace(
        &self,
        nspace: &Nspace,
        nlocalprocs: u32,
        infos: &[Info],
    ) -> Result<(), Status> {
        let infos = self.with_resources(infos);
        let psets = self.registry.register_nspace(
            nspace,
            nlocalprocs,
            &infos,
            &self.config.hostname,
            self.config.locality,
        )?;
        if !psets.is_empty() {
            self.run_on_loop(move |st| {
                for (name, members) in psets {
                    let _ = st.psets.define(&name, members);
                }
            });
        }
        Ok(())
    }

    /// `PMIx_server_deregister_nspace`: forgets the namespace, its clients,
    /// its committed data and its segments.
    pub fn deregister_nspace(&self, nspace: &Nspace) {
        self.local_support.lock().remove(nspace);
        let clients = self.registry.deregister_nspace(nspace);
        for p in clients {
            self.notifier.send(Command::ClientGone(p));
        }
        self.notifier.send(Command::NspaceGone(nspace.clone()));
    }

    /// How many entries each room of the server's state holds now (see
    /// [`Census`]); `None` once the server has stopped. For finding state
    /// that outlives its owner; waits for the progress thread.
    pub fn census(&self) -> Option<Census> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        if !self.run_on_loop(move |st| {
            let _ = tx.send(st.census());
        }) {
            return None;
        }
        rx.recv_timeout(std::time::Duration::from_secs(10)).ok()
    }

    /// `PMIx_server_register_client`: a local process of a registered
    /// namespace and the uid/gid it will run as. Its connection is
    /// accepted only from a process with those ids.
    pub fn register_client(&self, proc: &Proc, uid: u32, gid: u32) -> Result<(), Status> {
        self.registry.register_client(proc, uid, gid)
    }

    /// The host's word that its local process `proc` ended (a launcher
    /// reaped it). A process that never connected (it died starting up)
    /// then departs as a lost connection does: the collectives and
    /// waits that expect it fail instead of waiting for it. A connected
    /// process departs when its connection closes; this changes nothing
    /// for it.
    pub fn client_terminated(&self, proc: &Proc) {
        let p = proc.clone();
        self.notifier
            .send(Command::Run(Box::new(move |st| st.conns.terminated(&p))));
    }

    /// `PMIx_server_deregister_client`: forgets the client and closes its
    /// connection if open.
    pub fn deregister_client(&self, proc: &Proc) {
        self.registry.deregister_client(proc);
        self.notifier.send(Command::ClientGone(proc.clone()));
    }

    /// `PMIx_server_setup_fork`: the environment variables the child that
    /// will be `proc` needs (see [`env`](self) for the list), in a stable
    /// order. Generates the process's secret if it has none yet. The
    /// namespace's `setup_local_support` directives (which may unset or
    /// extend existing variables) come with
    /// [`setup_fork_changes`](Self::setup_fork_changes) instead.
    pub fn setup_fork(&self, proc: &Proc) -> Result<Vec<(String, String)>, Status> {
        if proc.rank.0 > Rank::VALID.0 {
            return Err(Status::ERR_BAD_PARAM);
        }
        let secret = self.registry.secret_for(proc)?;
        Ok(host_side::env::client_env(
            proc,
            &self.uri,
            self.dir.path(),
            &self.config,
            &secret,
        ))
    }

    /// `PMIx_server_setup_fork` as changes to an existing environment
    /// (whose current values `current` returns): the variables of
    /// [`setup_fork`](Self::setup_fork), then the environment directives
    /// [`setup_local_support`](Self::setup_local_support) kept for the
    /// process's namespace.
    pub fn setup_fork_changes(
        &self,
        proc: &Proc,
        current: impl Fn(&str) -> Option<String>,
    ) -> Result<Vec<EnvChange>, Status> {
        let vars = self.setup_fork(proc)?;
        let mut edits: Vec<EnvEdit> = vars
            .into_iter()
            .map(|(name, value)| EnvEdit::Set { name, value })
            .collect();
        if let Some(more) = self.local_support.lock().get(&proc.nspace) {
            edits.extend(more.iter().cloned());
        }
        Ok(host_side::app_setup::apply(&edits, current))
    }

    /// `PMIx_server_setup_application`: the application-specific setup
    /// of job `nspace` for the launcher to hand to every node's
    /// [`setup_local_support`](Self::setup_local_support) (see
    /// [`app_setup`] for what it holds: the harvested environment).
    /// Reads this process's environment; the same as
    /// [`application_setup`], which needs no server.
    pub fn setup_application(&self, nspace: &Nspace, infos: &[Info]) -> Result<Vec<Info>, Status> {
        application_setup(nspace, infos)
    }

    /// `PMIx_server_setup_local_support`: keeps the environment directives
    /// among `infos` (`PMIX_SET_ENVAR`, `PMIX_UNSET_ENVAR`,
    /// `PMIX_PREPEND_ENVAR`, `PMIX_APPEND_ENVAR`, as returned by
    /// [`setup_application`](Self::setup_application)) for namespace
    /// `nspace`, replacing earlier ones; [`setup_fork_changes`]
    /// (Self::setup_fork_changes) applies them. The namespace need not be
    /// registered yet.
    pub fn setup_local_support(&self, nspace: &Nspace, infos: &[Info]) -> Result<(), Status> {
        if nspace.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let edits = host_side::app_setup::edits_of(infos)?;
        self.local_support.lock().insert(nspace.clone(), edits);
        Ok(())
    }

    /// `PMIx_server_dmodex_request`: the data local process `proc` posted
    /// (its remote and global scopes, as a modex blob), for the host to
    /// forward to the server that asked. `done` runs on the progress
    /// thread once `proc` has committed (never before this returns).
    /// `PMIX_ERR_NOT_FOUND` (and `done` is not called) if `proc` is not a
    /// local process of a registered namespace.
    pub fn dmodex_request(&self, proc: &Proc, done: DmodexCallback) -> Result<(), Status> {
        if proc.rank.0 > Rank::VALID.0 {
            return Err(Status::ERR_BAD_PARAM);
        }
        if !self.registry.is_local(proc) {
            return Err(Status::ERR_NOT_FOUND);
        }
        if !self.notifier.send(Command::HostDmodex {
            proc: proc.clone(),
            done,
        }) {
            return Err(Status::ERR_INIT);
        }
        Ok(())
    }

    /// Runs `f` on the progress thread, after what is queued there now;
    /// gives `f` back if the server has stopped. For work that must not
    /// run in the caller's thread: a host that calls back while holding a
    /// lock its own release function takes (Slurm 22.05's fence) gets that
    /// release function called from here, after its callback returned.
    pub fn defer(&self, f: Box<dyn FnOnce() + Send>) -> Result<(), Box<dyn FnOnce() + Send>> {
        match self.notifier.try_send(Command::Defer(f)) {
            Err(Command::Defer(f)) => Err(f),
            _ => {
                // A loop that cannot be woken is stopping; what it had
                // queued is dropped with it.
                self.notifier.wake();
                Ok(())
            }
        }
    }

    /// `PMIx_server_finalize`: stops the server.
    pub fn finalize(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.notifier.send(Command::Shutdown);
            let _ = t.join();
        }
        self.events.shutdown();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("uri", &self.uri).finish()
    }
}
