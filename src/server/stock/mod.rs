//! The stock door: processes that carry their own OpenPMIx library
//! (Open MPI 5's bundled one, a container's, Debian's) connect to this
//! server over TCP loopback, as OpenPMIx clients only can (issue 23).
//!
//! A stock connection is a peer of the same `conns` room as ours, with
//! another [`link::Link`]: its bytes are OpenPMIx frames, translated into our
//! [`Message`](crate::wire::Message)s on the way in ([`inbound`]) and back on the way out
//! ([`outbound`]) by its [`link::StockLink`]. The loop's one `frame` match
//! serves both doors, so there is one fence, one modex and one event
//! system whichever door a process came through. The commands of one
//! subject are translated both ways in a module of their own:
//! [`control`] (spawn, job control, monitor, allocation, credentials),
//! [`groups`], [`iof`], [`resolve`]; [`fields`] decodes what they share.
//!
//! Invariants:
//! - The listeners are bound to loopback only (`127.0.0.1`, and `[::1]`
//!   where the host has it), on ports the kernel picks.
//! - A stock client is admitted only as a registered process, when the
//!   uid that owns its socket (from the kernel, [`crate::openpmix::peer`];
//!   its credential's word is not taken) is the uid the host registered
//!   for that process, and no other connection holds that process; then
//!   the host's `client_connected` decides, as for ours. A stock tool or
//!   singleton goes through the same tool check as ours (tool support,
//!   a name not of a registered job nor connected, the host's
//!   `tool_connected`). Refusals are logged as on the Unix socket and the
//!   connection closed.
//! - A stock rank's fence over its whole namespace arrives at the job's
//!   barrier page (if the job has one) on the rank's behalf, saying it
//!   needs the server: every rank of the job then fences through the
//!   server, where the stock rank waits.

pub(in crate::server) mod control;
pub(crate) mod decode_check;
pub(in crate::server) mod fields;
pub(in crate::server) mod groups;
pub(in crate::server) mod inbound;
pub(in crate::server) mod iof;
pub(in crate::server) mod link;
pub(in crate::server) mod outbound;
pub(in crate::server) mod request;
pub(in crate::server) mod resolve;

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};

use mio::net::TcpListener;

use super::clients::connections::Caller;
use super::state::State;
use crate::wire::FenceRequest;
use crate::{Proc, Rank, Status};

/// The door's listening sockets and the URI stock clients are given.
pub(crate) struct StockListeners {
    /// The IPv4 loopback listener.
    pub(in crate::server) v4: TcpListener,
    /// The IPv6 loopback listener, if the host has `::1`.
    pub(in crate::server) v6: Option<TcpListener>,
    /// `<nspace>.<rank>;tcp4://127.0.0.1:PORT`.
    pub(crate) uri: String,
    /// This node's name (the job data's node entries).
    pub(in crate::server) hostname: String,
}

impl StockListeners {
    /// Binds the loopback listeners of `server`'s door; an error if IPv4
    /// loopback cannot be bound (the server then runs without the door).
    pub(crate) fn bind(server: &Proc, hostname: &str) -> std::io::Result<StockListeners> {
        let v4 = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
        let v6 = TcpListener::bind(SocketAddr::from((Ipv6Addr::LOCALHOST, 0))).ok();
        let port = v4.local_addr()?.port();
        Ok(StockListeners {
            v4,
            v6,
            uri: format!(
                "{}.{};tcp4://127.0.0.1:{port}",
                server.nspace, server.rank.0
            ),
            hostname: hostname.to_owned(),
        })
    }
}

/// A stock client's handshake for `proc` on `caller`: refused unless the
/// process is registered with the socket owner's uid; then admitted as
/// ours are (not already connected, the host's word).
pub(in crate::server) fn handshake(st: &mut State, caller: Caller, proc: Proc) {
    let Some(creds) = st.conns().creds(caller.token) else {
        return;
    };
    match st.registry().ids_of(&proc) {
        None => super::clients::lifecycle::refuse(st, caller, &proc, Status::ERR_INVALID_CRED),
        Some((uid, _)) if uid != creds.uid => {
            super::clients::lifecycle::refuse(st, caller, &proc, Status::ERR_NO_PERMISSIONS)
        }
        Some(_) => super::clients::lifecycle::admit(st, caller, proc),
    }
}

/// Before a stock rank's fence `req` enters the collective: over its
/// whole namespace, it arrives at the job's barrier page (if any) saying
/// it needs the server, so that every rank comes to the server.
pub(in crate::server) fn fence_arrival(
    st: &mut State,
    caller: Caller,
    proc: &Proc,
    req: &FenceRequest,
) {
    if !st.conns().is_stock(caller.token) {
        return;
    }
    let whole = req.procs.is_empty()
        || (req.procs.len() == 1
            && req.procs[0].nspace == proc.nspace
            && req.procs[0].rank == Rank::WILDCARD);
    if !whole {
        return;
    }
    let Some(rec) = st.registry().nspace(&proc.nspace) else {
        return;
    };
    if let Some((page, _)) = rec.barrier() {
        let mut seen = false;
        // With "needs server" the page never waits: it returns at once.
        let _ = page.arrive(true, None, None, &mut seen, || true);
    }
}
