//! [`ServerConfig`]: how a server is set up, read from the infos of
//! `PMIx_server_init`; [`ServerError`]; which names mean this host.

use std::path::PathBuf;

use crate::{keys, Info, Nspace, Rank, Status, Value};

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
    /// The `PMIX_DEVICE_DISTANCES` of a cpuset (hwloc list syntax): the
    /// distances from those PUs to this node's GPUs and NICs, for the
    /// local ranks whose cpuset a registration gives but whose distances
    /// it does not (the C library sets it to its hwloc computation);
    /// `None`: such ranks have none.
    pub device_distances: Option<fn(&str) -> Option<crate::Value>>,
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
    /// listens (see `host_side::report_uri`); `None`: nowhere.
    pub report_uri: Option<String>,
    /// Open the stock door (`crate::server::stock`): a TCP loopback
    /// listener for processes carrying their own OpenPMIx library, and
    /// `setup_fork` names it in `PMIX_SERVER_URI*` (our clients then find
    /// the Unix socket in `PMIX_RS_SERVER_URI`). Default off; `pmixrun`
    /// and the C library's `PMIx_server_init` turn it on. If TCP loopback
    /// cannot be bound, the server runs without it.
    pub stock_door: bool,
    /// `PMIX_IOF_LOCAL_OUTPUT`: output handed to
    /// [`Server::iof_deliver_nb`](super::Server::iof_deliver_nb) is also written to this process's own
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
            device_distances: None,
            tool_support: false,
            session_support: false,
            system_support: false,
            report_uri: None,
            stock_door: false,
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
