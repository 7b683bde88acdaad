//! The server's client connections: accepting, reading frames, writing
//! with write interest only while output is queued, the handshake states,
//! and which processes left.
//!
//! State machine of a connection: `AwaitHandshake` (small frame limit, only
//! a `Handshake` accepted) -> `Connecting` (authenticated, waiting for the
//! host's `client_connected`) -> `Ready` (full protocol) -> closed. A
//! refused handshake is answered with its status, then the connection is
//! closed once the answer is written.
//!
//! A connection's transport is a [`Link`]: our protocol on the Unix
//! socket, or a stock OpenPMIx peer's on the TCP door
//! (`crate::server::stock`), whose link translates both ways; everything
//! here treats the two alike.
//!
//! Invariants:
//! - A connection is registered for writability only while output is
//!   queued for it (a permanent write interest would wake the loop each
//!   time the client reads what it was sent).
//! - A peer whose queued output is over the limit (bytes or descriptors)
//!   is throttled: its frames already read wait, nothing more is read from
//!   it, until its output drains.
//! - `by_proc` maps a process to the one connection that authenticated as
//!   it; a second handshake for the same process is refused.
//! - A process is in `departed` from the moment it finalized or its
//!   connection was lost until it connects again (or is forgotten); a
//!   connection closed without `PMIx_Finalize` queues one [`Departure`],
//!   which the loop takes with [`Connections::take_departure`] and fans out
//!   (collectives, waiters, the host, events) before it polls again.
//! - At most [`MAX_UNAUTHENTICATED`] connections await their handshake at
//!   once (`unauthenticated` counts them); beyond that a new connection is
//!   closed as soon as it is accepted, so a flood of connections that
//!   never authenticate holds a bounded amount of the server's memory and
//!   descriptors.

use std::collections::{HashMap, HashSet, VecDeque};
use std::os::fd::OwnedFd;

use mio::{Interest, Token};

use crate::net::{Listener, PeerCredentials};
use crate::server::stock::link::{peer_credentials, Link, StockLink};
use crate::wire::{self, Connection, Frame, Message, ReadState};
use crate::{Nspace, Proc};

/// Where a request came from: the connection and the request id to answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Caller {
    pub(crate) token: Token,
    pub(crate) id: u32,
}

/// Longest an accepted connection may take to send its handshake: one
/// that has not by then (silent, or half a frame) is closed, so that
/// peers cannot hold the server's descriptors without authenticating.
pub(in crate::server) const HANDSHAKE_LIMIT: std::time::Duration =
    std::time::Duration::from_secs(10);

/// Output queued for a peer (bytes, descriptors) past which its next
/// frames wait until it read some: a client that sends requests and never
/// reads their answers stalls itself, not the server (whose memory and
/// descriptors the queued answers would otherwise exhaust).
const OUTPUT_LIMIT_BYTES: usize = 16 << 20;
const OUTPUT_LIMIT_FDS: usize = 256;

/// Token of the listening socket in the loop's poll.
pub(in crate::server) const LISTENER: Token = Token(0);
/// Token of the loop's waker.
pub(in crate::server) const WAKER: Token = Token(1);
/// Tokens of the stock door's IPv4 and IPv6 listeners.
pub(in crate::server) const STOCK_V4: Token = Token(2);
pub(in crate::server) const STOCK_V6: Token = Token(3);
const FIRST_PEER: usize = 4;
/// Most connections awaiting their handshake at once (see the module
/// invariants): about 5 KiB each.
pub(in crate::server) const MAX_UNAUTHENTICATED: usize = 4096;

/// Where a connection stands in the handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::server) enum PeerState {
    AwaitHandshake,
    Connecting(Proc),
    Ready(Proc),
}

struct Peer {
    /// Ours, or a stock OpenPMIx peer's (see `crate::server::stock`).
    conn: Link,
    state: PeerState,
    creds: PeerCredentials,
    /// `PMIx_Finalize` received: its closing is expected.
    finalized: bool,
    /// Close once the output queue is written.
    closing: bool,
    /// Registered for writability too.
    write_interest: bool,
    /// Frames read and not yet served (while the output is over the
    /// limit), then how the reading ended if it did: `Ok` the peer's end
    /// of stream, `Err` a protocol error.
    held: VecDeque<Frame>,
    end: Option<Result<(), wire::WireError>>,
    /// Over the output limit: nothing more is read or served until the
    /// output drains.
    throttled: bool,
}

impl Peer {
    /// The socket's credentials, a stock peer's pid looked up if needed.
    fn creds_with_pid(&self) -> PeerCredentials {
        match self.conn.stock_pid() {
            Some(pid) => PeerCredentials { pid, ..self.creds },
            None => self.creds,
        }
    }
}

/// A process whose connection closed without `PMIx_Finalize`.
pub(in crate::server) struct Departure(pub(in crate::server) Proc);

/// The connections of this server.
pub(in crate::server) struct Connections {
    registry: mio::Registry,
    max_body: u32,
    peers: HashMap<Token, Peer>,
    next_token: usize,
    by_proc: HashMap<Proc, Token>,
    departed: HashSet<Proc>,
    departures: VecDeque<Departure>,
    /// Connections in [`PeerState::AwaitHandshake`].
    unauthenticated: usize,
    /// The refusal log's rate limit (see [`Connections::log_refusal`]).
    log_window: std::cell::Cell<(std::time::Instant, u32, u64)>,
}

/// Most refusal lines logged per second; the rest are counted, and the
/// count is said with the next line logged.
const REFUSALS_LOGGED_PER_SECOND: u32 = 20;

impl Connections {
    /// Counts this room's entries (see [`Census`](crate::server::census::Census)).
    pub(in crate::server) fn count(&self, c: &mut crate::server::census::Census) {
        c.add("conns.peers", self.peers.len());
        c.add(
            "conns.held",
            self.peers.values().map(|p| p.held.len()).sum(),
        );
        c.add("conns.by_proc", self.by_proc.len());
        c.add("conns.departed", self.departed.len());
        c.add("conns.departures", self.departures.len());
    }

    /// Connections registered with `registry` (a clone of the loop's poll
    /// registry); `max_body` is the frame limit once authenticated.
    pub(in crate::server) fn new(registry: mio::Registry, max_body: u32) -> Connections {
        Connections {
            registry,
            max_body,
            peers: HashMap::new(),
            next_token: FIRST_PEER,
            by_proc: HashMap::new(),
            departed: HashSet::new(),
            departures: VecDeque::new(),
            unauthenticated: 0,
            log_window: std::cell::Cell::new((std::time::Instant::now(), 0, 0)),
        }
    }

    /// Accepts every pending connection; returns their tokens (bytes may
    /// already wait on them: the registration is edge-triggered).
    pub(in crate::server) fn accept(&mut self, listener: &Listener) -> Vec<Token> {
        let mut new = Vec::new();
        loop {
            let stream = match listener.accept() {
                Ok(Some(s)) => s,
                Ok(None) => return new,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                // Out of descriptors or similar: try again on the next
                // event rather than spin.
                Err(_) => return new,
            };
            if self.unauthenticated >= MAX_UNAUTHENTICATED {
                // Flooded: this one is closed at once (dropped).
                continue;
            }
            let Ok(creds) = stream.peer_credentials() else {
                continue;
            };
            let conn = Connection::new(stream, wire::HANDSHAKE_MAX_BODY, 0, true);
            if let Some(t) = self.admit(Link::Ours(conn), creds) {
                new.push(t);
            }
        }
    }

    /// Accepts every pending connection of a stock door's `listener`
    /// (see `crate::server::stock`); `hostname` is this node's name.
    pub(in crate::server) fn accept_stock(
        &mut self,
        listener: &mio::net::TcpListener,
        hostname: &str,
    ) -> Vec<Token> {
        let mut new = Vec::new();
        loop {
            let stream = match listener.accept() {
                Ok((s, _)) => s,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return new,
            };
            if self.unauthenticated >= MAX_UNAUTHENTICATED {
                continue;
            }
            // The kernel's owner of the peer's socket: none found, the
            // connection is not served.
            let Some((creds, owner)) = peer_credentials(&stream) else {
                continue;
            };
            let pindex = u32::try_from(self.next_token).unwrap_or(u32::MAX);
            let link = StockLink::new(stream, pindex, hostname.to_owned(), owner);
            if let Some(t) = self.admit(Link::Stock(Box::new(link)), creds) {
                new.push(t);
            }
        }
    }

    /// Registers a new connection awaiting its handshake.
    fn admit(&mut self, mut conn: Link, creds: PeerCredentials) -> Option<Token> {
        let token = Token(self.next_token);
        self.next_token += 1;
        conn.register(&self.registry, token, Interest::READABLE)
            .ok()?;
        self.unauthenticated += 1;
        self.peers.insert(
            token,
            Peer {
                conn,
                state: PeerState::AwaitHandshake,
                creds,
                finalized: false,
                closing: false,
                write_interest: false,
                held: VecDeque::new(),
                end: None,
                throttled: false,
            },
        );
        Some(token)
    }

    /// True if `token` is a stock OpenPMIx peer.
    pub(in crate::server) fn is_stock(&self, token: Token) -> bool {
        self.peers.get(&token).is_some_and(|p| p.conn.is_stock())
    }

    /// Reads what `token` sent: its complete frames, and false if the
    /// connection ended (the caller closes it after handling the frames).
    /// `hung_up`: the readiness event reported the peer's hang-up (its end
    /// of stream is then read, else a short read ends the reading, see
    /// [`Connection::read_frames_until`]).
    /// A frame that broke the protocol (not a socket error) is the
    /// `Err`, after the frames that came before it.
    pub(in crate::server) fn read(
        &mut self,
        token: Token,
        hung_up: bool,
    ) -> (Vec<Frame>, Result<bool, wire::WireError>) {
        let mut frames = Vec::new();
        let open = match self.peers.get_mut(&token) {
            Some(p) => match p.conn.read_frames_until(&mut frames, !hung_up) {
                Ok(s) => Ok(s == ReadState::Open),
                Err(wire::WireError::Io(_) | wire::WireError::Closed) => Ok(false),
                Err(e) => Err(e),
            },
            None => Ok(false),
        };
        // A stock link answers some requests itself while reading.
        if self
            .peers
            .get(&token)
            .is_some_and(|p| p.conn.has_pending_output() && !p.write_interest)
        {
            self.flush(token);
        }
        (frames, open)
    }

    /// Keeps `frames` read from `token` and how the reading ended, to be
    /// served in order ([`Connections::next_held`]).
    pub(in crate::server) fn hold(
        &mut self,
        token: Token,
        frames: Vec<Frame>,
        open: Result<bool, wire::WireError>,
    ) {
        if let Some(p) = self.peers.get_mut(&token) {
            p.held.extend(frames);
            match open {
                Ok(true) => {}
                Ok(false) => p.end = Some(Ok(())),
                Err(e) => p.end = Some(Err(e)),
            }
        }
    }

    /// The next frame of `token` to serve.
    pub(in crate::server) fn next_held(&mut self, token: Token) -> Option<Frame> {
        self.peers.get_mut(&token)?.held.pop_front()
    }

    /// How `token`'s reading ended, once its frames are served.
    pub(in crate::server) fn take_end(
        &mut self,
        token: Token,
    ) -> Option<Result<(), wire::WireError>> {
        self.peers.get_mut(&token)?.end.take()
    }

    /// True if `token`'s queued output is over the limit.
    pub(in crate::server) fn over_output_limit(&self, token: Token) -> bool {
        self.peers.get(&token).is_some_and(|p| {
            p.conn.pending_output_len() > OUTPUT_LIMIT_BYTES
                || p.conn.pending_output_fds() > OUTPUT_LIMIT_FDS
        })
    }

    /// Marks `token` as waiting for its output to drain (or not).
    pub(in crate::server) fn set_throttled(&mut self, token: Token, on: bool) {
        if let Some(p) = self.peers.get_mut(&token) {
            p.throttled = on;
        }
    }

    /// True if `token` waits for its output to drain.
    pub(in crate::server) fn is_throttled(&self, token: Token) -> bool {
        self.peers.get(&token).is_some_and(|p| p.throttled)
    }

    /// Writes what is queued for `token`.
    pub(in crate::server) fn flush(&mut self, token: Token) {
        let Some(p) = self.peers.get_mut(&token) else {
            return;
        };
        match p.conn.flush() {
            Ok(true) if p.closing => self.close(token),
            Ok(_) => self.update_write_interest(token),
            Err(_) => self.close(token),
        }
    }

    /// Sends `msg` (and `fds`) on `token` as the answer to request `id`
    /// (0 for unsolicited messages); a connection that fails is closed.
    pub(in crate::server) fn send(
        &mut self,
        token: Token,
        id: u32,
        msg: &Message,
        fds: Vec<OwnedFd>,
    ) {
        let Some(p) = self.peers.get_mut(&token) else {
            return;
        };
        if p.conn.send(id, msg, fds).is_err() {
            self.close(token);
        } else {
            self.update_write_interest(token);
        }
    }

    fn update_write_interest(&mut self, token: Token) {
        let Some(p) = self.peers.get_mut(&token) else {
            return;
        };
        let want = p.conn.has_pending_output();
        if want == p.write_interest {
            return;
        }
        let interest = if want {
            Interest::READABLE | Interest::WRITABLE
        } else {
            Interest::READABLE
        };
        if p.conn.reregister(&self.registry, token, interest).is_err() {
            return self.close(token);
        }
        p.write_interest = want;
    }

    /// Sends `msg`, then closes the connection once it is written.
    pub(in crate::server) fn send_and_close(&mut self, token: Token, id: u32, msg: &Message) {
        self.send(token, id, msg, Vec::new());
        if let Some(p) = self.peers.get_mut(&token) {
            p.closing = true;
            if !p.conn.has_pending_output() {
                self.close(token);
            }
        }
    }

    /// Closes `token`. A process that had not finalized departs.
    pub(in crate::server) fn close(&mut self, token: Token) {
        let Some(mut peer) = self.peers.remove(&token) else {
            return;
        };
        if peer.state == PeerState::AwaitHandshake {
            self.unauthenticated -= 1;
        }
        peer.conn.deregister(&self.registry);
        let (PeerState::Connecting(proc) | PeerState::Ready(proc)) = peer.state else {
            return;
        };
        if self.by_proc.get(&proc) == Some(&token) {
            self.by_proc.remove(&proc);
        }
        if !peer.finalized {
            self.departed.insert(proc.clone());
            self.departures.push_back(Departure(proc));
        }
    }

    /// The next process that left without finalizing, to fan out.
    pub(in crate::server) fn take_departure(&mut self) -> Option<Departure> {
        self.departures.pop_front()
    }

    /// Bytes queued for `token` and not yet written; `None` if it is
    /// closed.
    pub(in crate::server) fn pending_output(&self, token: Token) -> Option<usize> {
        self.peers.get(&token).map(|p| p.conn.pending_output_len())
    }

    /// Where `token` stands, if it is open.
    pub(in crate::server) fn state(&self, token: Token) -> Option<&PeerState> {
        self.peers.get(&token).map(|p| &p.state)
    }

    /// The kernel's credentials of `token`'s peer.
    pub(in crate::server) fn creds(&self, token: Token) -> Option<PeerCredentials> {
        self.peers.get(&token).map(|p| p.creds)
    }

    /// [`creds`](Self::creds) with the pid filled in: a stock peer's is
    /// looked up now if it was not yet (a scan of processes' descriptors).
    pub(in crate::server) fn creds_with_pid(&self, token: Token) -> Option<PeerCredentials> {
        self.peers.get(&token).map(Peer::creds_with_pid)
    }

    /// Writes one line on stderr for a refused handshake or a connection
    /// closed for breaking the protocol: this server, the socket's pid,
    /// uid and gid (from the kernel), the identity the peer claimed or
    /// holds (escaped: its bytes come from the peer), and why. At most
    /// [`REFUSALS_LOGGED_PER_SECOND`] lines a second (a flood of bad
    /// connections does not flood the log): the others are counted and
    /// the next line logged says how many were not.
    pub(in crate::server) fn log_refusal(
        &self,
        server: &Proc,
        token: Token,
        claimed: Option<&Proc>,
        why: &dyn std::fmt::Display,
    ) {
        let Some(p) = self.peers.get(&token) else {
            return;
        };
        let held = match &p.state {
            PeerState::Connecting(q) | PeerState::Ready(q) => Some(q),
            PeerState::AwaitHandshake => None,
        };
        let (start, logged, suppressed) = self.log_window.get();
        let now = std::time::Instant::now();
        let (start, logged) = if now.duration_since(start).as_secs() >= 1 {
            (now, 0)
        } else {
            (start, logged)
        };
        if logged >= REFUSALS_LOGGED_PER_SECOND {
            self.log_window.set((start, logged, suppressed + 1));
            return;
        }
        self.log_window.set((start, logged + 1, 0));
        let who = match claimed.or(held) {
            Some(q) => format!(" as {:?}:{}", q.nspace.to_string_lossy(), q.rank.0),
            None => String::new(),
        };
        let more = if suppressed > 0 {
            format!(" ({suppressed} earlier refusals not logged)")
        } else {
            String::new()
        };
        eprintln!(
            "pmix-rs server {}:{}: refused pid {} uid {} gid {}{who}: {why}{more}",
            server.nspace,
            server.rank.0,
            p.creds_with_pid().pid,
            p.creds.uid,
            p.creds.gid
        );
    }

    /// True if a connection authenticated as `proc` already.
    pub(in crate::server) fn is_claimed(&self, proc: &Proc) -> bool {
        self.by_proc.contains_key(proc)
    }

    /// `token` authenticated as `proc`: waits for the host's word, with
    /// the full frame limit.
    pub(in crate::server) fn authenticated(&mut self, token: Token, proc: &Proc) {
        if let Some(p) = self.peers.get_mut(&token) {
            self.by_proc.insert(proc.clone(), token);
            if p.state == PeerState::AwaitHandshake {
                self.unauthenticated -= 1;
            }
            p.state = PeerState::Connecting(proc.clone());
            p.conn.set_max_body(self.max_body);
        }
    }

    /// The host refused `token`'s process: it never joined (not a
    /// departure).
    pub(in crate::server) fn unauthenticated(&mut self, token: Token) {
        let Some(p) = self.peers.get_mut(&token) else {
            return;
        };
        if let PeerState::Connecting(proc) = &p.state {
            if self.by_proc.get(proc) == Some(&token) {
                self.by_proc.remove(proc);
            }
        }
        if p.state != PeerState::AwaitHandshake {
            self.unauthenticated += 1;
        }
        p.state = PeerState::AwaitHandshake;
    }

    /// `token`'s process joined: it is served from now on.
    pub(in crate::server) fn ready(&mut self, token: Token) {
        let Some(p) = self.peers.get_mut(&token) else {
            return;
        };
        if let PeerState::Connecting(proc) = &p.state {
            self.departed.remove(proc);
            p.state = PeerState::Ready(proc.clone());
        }
    }

    /// `proc` (on `token`) called `PMIx_Finalize`: it departs, and its
    /// connection's closing is expected.
    pub(in crate::server) fn finalized(&mut self, token: Token, proc: &Proc) {
        if let Some(p) = self.peers.get_mut(&token) {
            p.finalized = true;
        }
        self.departed.insert(proc.clone());
    }

    /// True if the client on `token` called `PMIx_Finalize`.
    pub(in crate::server) fn is_finalized(&self, token: Token) -> bool {
        self.peers.get(&token).is_some_and(|p| p.finalized)
    }

    /// The host reports that its local process `proc` ended. One with no
    /// connection here (it died before connecting, or before its
    /// handshake ended) that has not departed departs now, as if its
    /// connection had been lost: nothing waits for it any longer. A
    /// connected one departs when its connection closes.
    pub(in crate::server) fn terminated(&mut self, proc: &Proc) {
        // `by_proc` holds exactly the connections that authenticated as a
        // process (Connecting or Ready): no scan of every peer.
        if self.is_claimed(proc) || self.departed.contains(proc) {
            return;
        }
        self.departed.insert(proc.clone());
        self.departures.push_back(Departure(proc.clone()));
    }

    /// The host deregistered `proc`: its connection, if any, closes (a
    /// departure unless it finalized). One with no connection that has
    /// not departed is marked departed, without a departure to fan out
    /// (the host knows it is gone): returns true then, for the caller to
    /// end what waits for it.
    pub(in crate::server) fn deregistered(&mut self, proc: &Proc) -> bool {
        if let Some(t) = self.by_proc.get(proc).copied() {
            self.close(t);
            return false;
        }
        self.departed.insert(proc.clone())
    }

    /// True if `proc` finalized or its connection was lost.
    pub(in crate::server) fn departed(&self, proc: &Proc) -> bool {
        self.departed.contains(proc)
    }

    /// The connection of the (ready) client `proc`, if connected.
    pub(in crate::server) fn token_of(&self, proc: &Proc) -> Option<Token> {
        self.by_proc.get(proc).copied().filter(|t| {
            self.peers
                .get(t)
                .is_some_and(|p| matches!(p.state, PeerState::Ready(_)))
        })
    }

    /// The kernel's credentials (pid, uid, gid) of the connected client
    /// `proc`'s socket.
    pub(in crate::server) fn peer_creds(&self, proc: &Proc) -> Option<PeerCredentials> {
        self.creds_with_pid(self.token_of(proc)?)
    }

    /// Every connected, ready client.
    pub(in crate::server) fn connected_procs(&self) -> Vec<Proc> {
        self.peers
            .values()
            .filter_map(|p| match &p.state {
                PeerState::Ready(proc) => Some(proc.clone()),
                _ => None,
            })
            .collect()
    }

    /// Sends an event notification to the connected client `proc`; false
    /// if it is not connected.
    pub(in crate::server) fn send_event(&mut self, proc: &Proc, body: Vec<u8>) -> bool {
        match self.token_of(proc) {
            Some(token) => {
                self.send(token, 0, &Message::Event(body), Vec::new());
                true
            }
            None => false,
        }
    }

    /// The host deregistered `proc` and what it ended was fanned out (its
    /// connection closed by [`Connections::deregistered`]): forgets it.
    pub(in crate::server) fn forget(&mut self, proc: &Proc) {
        self.departed.remove(proc);
    }

    /// The host deregistered namespace `ns`.
    pub(in crate::server) fn forget_nspace(&mut self, ns: &Nspace) {
        self.departed.retain(|p| &p.nspace != ns);
    }
}
