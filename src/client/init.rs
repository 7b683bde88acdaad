//! Making a [`Client`]: `PMIx_Init` (from the environment, else as a
//! singleton), connecting to a named server or as a tool, and assembling
//! the handle from the server's handshake reply (its segments mapped).
//!
//! Invariants: a client is handed out only once its handshake succeeded
//! and its segments are mapped; a refused handshake fails with the
//! server's status.

use std::collections::HashSet;
use std::os::fd::OwnedFd;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use pmix_shmem::Directory;

use crate::wire::{self, Connection, Directives, Handshake, Message, SegmentRef};
use crate::{keys, Info, Proc, Status};

use super::progress::{Progress, Requester};
use super::singleton;
use super::stock_link;
use super::{Client, ConnectInfo, Inner, LocalData};

/// Connects to the socket at `path`: the progress machinery of the new
/// connection (not running yet).
fn open(path: &std::path::Path) -> Result<(Progress, Requester), Status> {
    let stream = crate::net::Stream::connect(path).map_err(|_| Status::ERR_UNREACH)?;
    let conn = Connection::new(
        stream,
        crate::wire::DEFAULT_MAX_BODY,
        wire::frame::MAX_FDS_PER_FRAME,
        false,
    );
    Progress::new(conn).map_err(|_| Status::ERR_INIT)
}

impl Client {
    /// `PMIx_Init`: connects to the server named by the environment that
    /// `setup_fork` set ([`ConnectInfo::from_env`]). `infos` may hold
    /// `PMIX_TIMEOUT` (for the handshake). When the environment names no
    /// server (no `PMIX_SERVER_URI*`), the process becomes a singleton (see [`singleton`] and
    /// [`is_singleton`](Self::is_singleton)). Fails with
    /// `PMIX_ERR_INVALID_CRED`/`PMIX_ERR_NO_PERMISSIONS` when the server
    /// refuses this process.
    pub fn init(infos: &[Info]) -> Result<Client, Status> {
        let no_server = crate::server::URI_ENV_VARS
            .iter()
            .all(|v| std::env::var_os(v).is_none());
        if no_server {
            return Client::singleton(infos);
        }
        if stock_link::names_stock_server(|k| std::env::var(k).ok()) {
            return Client::connect_stock(infos);
        }
        let c = Client::connect(&ConnectInfo::from_env()?, infos)?;
        // A debugger may have asked the job to wait for it here.
        c.stop_in_init_if_asked()?;
        Ok(c)
    }

    /// Connects to the OpenPMIx server the environment names (see
    /// [`stock_link`]); `infos` may hold `PMIX_TIMEOUT` (seconds, for the
    /// whole init exchange, else [`stock_link::INIT_BOUND`]).
    pub(super) fn connect_stock(infos: &[Info]) -> Result<Client, Status> {
        let d = Directives::parse_for(infos, crate::wire::directives::TIMEOUT_ONLY);
        let bound = d.timeout.unwrap_or(stock_link::INIT_BOUND);
        let l = stock_link::connect(|k| std::env::var(k).ok(), bound)?;
        Client::from_stock_link(l)
    }

    /// Connects as a tool to the OpenPMIx server at `uri` (see
    /// [`stock_link::connect_tool`]); `infos` may hold `PMIX_TIMEOUT`
    /// (seconds, for the whole exchange, else [`stock_link::INIT_BOUND`])
    /// and go to the server's host.
    pub(super) fn connect_stock_tool(
        uri: &crate::openpmix::ServerUri,
        version: Option<&str>,
        requested: Option<Proc>,
        infos: &[Info],
    ) -> Result<Client, Status> {
        let d = Directives::parse_for(infos, crate::wire::directives::TIMEOUT_ONLY);
        let bound = d.timeout.unwrap_or(stock_link::INIT_BOUND);
        let l = stock_link::connect_tool(uri, version, requested, infos, bound)?;
        Client::from_stock_link(l)
    }

    /// A client over a stock server's link.
    fn from_stock_link(l: stock_link::Linked) -> Result<Client, Status> {
        let c = Client::assemble(l.progress, &l.me, &l.server, &l.segments, l.fds)?;
        c.inner
            .stock_link
            .store(true, std::sync::atomic::Ordering::Release);
        Ok(c)
    }

    /// A singleton: rank 0 of a job of one served by a private server in
    /// this process (see [`singleton`]).
    pub fn singleton(infos: &[Info]) -> Result<Client, Status> {
        Client::private(None, infos)
    }

    /// A client of a private server in this process, as `me` (or as the
    /// singleton's rank 0): a singleton, or a tool that is not connected
    /// to any server. Operations that need a server fail with
    /// `PMIX_ERR_UNREACH`.
    pub(crate) fn private(me: Option<Proc>, infos: &[Info]) -> Result<Client, Status> {
        let (server, info) = singleton::start(me)?;
        let mut c = Client::connect(&info, infos)?;
        // Nobody else will connect: the socket's name can go now, so that
        // a singleton that never finalizes leaves nothing behind.
        singleton::unlink_rendezvous(&server, &info);
        c.is_singleton = true;
        *c.own_server.get_mut() = Some(server);
        // There is no server to name: forget the private one's identity.
        let me = c.inner.proc.clone();
        let mut local = c.inner.local.write();
        for k in [keys::SERVER_NSPACE, keys::SERVER_RANK] {
            local.forget_internal(&me, k);
        }
        drop(local);
        Ok(c)
    }

    /// Connects with explicit parameters.
    pub fn connect(info: &ConnectInfo, infos: &[Info]) -> Result<Client, Status> {
        let d = Directives::parse_for(infos, crate::wire::directives::TIMEOUT_ONLY);
        let mut progress = open(&info.socket)?;
        let hello = Message::Handshake(Handshake {
            version: u32::from(wire::PROTOCOL_VERSION),
            proc: info.proc.clone(),
            secret: info.secret.as_bytes().to_vec(),
        });
        let (reply, fds) = progress.0.roundtrip(&hello, d.timeout)?;
        let Message::HandshakeReply(reply) = reply else {
            return Err(Status::ERR_COMM_FAILURE);
        };
        reply.status.into_result()?;
        Client::assemble(progress, &info.proc, &reply.server, &reply.segments, fds)
    }

    /// Connects as a tool to the server listening on `socket`, asking for
    /// identity `requested` (else the server gives one); `infos` go to the
    /// host's `tool_connected` (and may hold `PMIX_TIMEOUT`).
    pub fn connect_tool(
        socket: &std::path::Path,
        requested: Option<Proc>,
        infos: &[Info],
    ) -> Result<Client, Status> {
        let d = Directives::parse_for(infos, crate::wire::directives::TIMEOUT_ONLY);
        let mut progress = open(socket)?;
        let hello = Message::ToolHandshake(wire::ToolHandshake {
            version: u32::from(wire::PROTOCOL_VERSION),
            proc: requested,
            infos: infos.to_vec(),
        });
        let (reply, _) = progress.0.roundtrip(&hello, d.timeout)?;
        let Message::ToolHandshakeReply(reply) = reply else {
            return Err(Status::ERR_COMM_FAILURE);
        };
        reply.status.into_result()?;
        Client::assemble(progress, &reply.tool, &reply.server, &[], Vec::new())
    }

    /// A client over an accepted connection: identity `proc`, served by
    /// `server`, mapping `segments` (and those that came ahead of the
    /// reply); starts the progress thread.
    fn assemble(
        (mut progress, requester): (Progress, Requester),
        proc: &Proc,
        server: &Proc,
        segments: &[SegmentRef],
        fds: Vec<OwnedFd>,
    ) -> Result<Client, Status> {
        let inner = Arc::new(Inner {
            proc: proc.clone(),
            server: server.clone(),
            directory: Directory::new(),
            requester,
            local: RwLock::new(LocalData::with_identity(proc, server)),
            own: Default::default(),
            mapped: Mutex::new((Vec::new(), HashSet::new())),
            finalized: AtomicBool::new(false),
            events: std::sync::OnceLock::new(),
            fast: Default::default(),
            groups: Default::default(),
            iof: Default::default(),
            stock_link: AtomicBool::new(false),
        });
        for (refs, early) in progress.take_early_segments() {
            inner.map_segments(&refs, early)?;
        }
        let weak = Arc::downgrade(&inner);
        inner.requester.set_offer_sink(Arc::new(move |offer, fds| {
            if let Some(inner) = weak.upgrade() {
                inner.take_offer(offer, fds);
            }
        }));
        inner.map_segments(segments, fds)?;
        let client = Client {
            inner,
            thread: Mutex::new(None),
            own_server: Mutex::new(None),
            is_singleton: false,
            launcher: false,
        };
        // Events the server sends from the start (e.g. the process sets
        // its host defined) are read by the progress thread: the handlers
        // receive (or keep) them from its first read on.
        client.events();
        let thread = std::thread::Builder::new()
            .name("pmix-client".into())
            .spawn(move || progress.run())
            .map_err(|_| Status::ERR_INIT)?;
        *client.thread.lock() = Some(thread);
        Ok(client)
    }
}
