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
//! Invariants:
//! - A connection is registered for writability only while output is
//!   queued for it (a permanent write interest would wake the loop each
//!   time the client reads what it was sent).
//! - `by_proc` maps a process to the one connection that authenticated as
//!   it; a second handshake for the same process is refused.
//! - A process is in `departed` from the moment it finalized or its
//!   connection was lost until it connects again (or is forgotten); a
//!   connection closed without `PMIx_Finalize` queues one [`Departure`],
//!   which the loop takes with [`Connections::take_departure`] and fans out
//!   (collectives, waiters, the host, events) before it polls again.

use std::collections::{HashMap, HashSet, VecDeque};
use std::os::fd::OwnedFd;

use mio::{Interest, Token};

use crate::net::{Listener, PeerCredentials};
use crate::wire::{self, Connection, Frame, Message, ReadState};
use crate::{Nspace, Proc};

/// Where a request came from: the connection and the request id to answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Caller {
    pub(crate) token: Token,
    pub(crate) id: u32,
}

/// Token of the listening socket in the loop's poll.
pub(super) const LISTENER: Token = Token(0);
/// Token of the loop's waker.
pub(super) const WAKER: Token = Token(1);
const FIRST_PEER: usize = 2;

/// Where a connection stands in the handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum PeerState {
    AwaitHandshake,
    Connecting(Proc),
    Ready(Proc),
}

struct Peer {
    conn: Connection,
    state: PeerState,
    creds: PeerCredentials,
    /// `PMIx_Finalize` received: its closing is expected.
    finalized: bool,
    /// Close once the output queue is written.
    closing: bool,
    /// Registered for writability too.
    write_interest: bool,
}

/// A process whose connection closed without `PMIx_Finalize`.
pub(super) struct Departure(pub(super) Proc);

/// The connections of this server.
pub(super) struct Connections {
    registry: mio::Registry,
    max_body: u32,
    peers: HashMap<Token, Peer>,
    next_token: usize,
    by_proc: HashMap<Proc, Token>,
    departed: HashSet<Proc>,
    departures: VecDeque<Departure>,
}

impl Connections {
    /// Connections registered with `registry` (a clone of the loop's poll
    /// registry); `max_body` is the frame limit once authenticated.
    pub(super) fn new(registry: mio::Registry, max_body: u32) -> Connections {
        Connections {
            registry,
            max_body,
            peers: HashMap::new(),
            next_token: FIRST_PEER,
            by_proc: HashMap::new(),
            departed: HashSet::new(),
            departures: VecDeque::new(),
        }
    }

    /// Accepts every pending connection; returns their tokens (bytes may
    /// already wait on them: the registration is edge-triggered).
    pub(super) fn accept(&mut self, listener: &Listener) -> Vec<Token> {
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
            let Ok(creds) = stream.peer_credentials() else {
                continue;
            };
            let token = Token(self.next_token);
            self.next_token += 1;
            let mut conn = Connection::new(stream, wire::HANDSHAKE_MAX_BODY, 0, true);
            if self
                .registry
                .register(conn.stream_mut(), token, Interest::READABLE)
                .is_err()
            {
                continue;
            }
            self.peers.insert(
                token,
                Peer {
                    conn,
                    state: PeerState::AwaitHandshake,
                    creds,
                    finalized: false,
                    closing: false,
                    write_interest: false,
                },
            );
            new.push(token);
        }
    }

    /// Reads what `token` sent: its complete frames, and false if the
    /// connection ended (the caller closes it after handling the frames).
    /// `hung_up`: the readiness event reported the peer's hang-up (its end
    /// of stream is then read, else a short read ends the reading, see
    /// [`Connection::read_frames_until`]).
    pub(super) fn read(&mut self, token: Token, hung_up: bool) -> (Vec<Frame>, bool) {
        let mut frames = Vec::new();
        let open = match self.peers.get_mut(&token) {
            Some(p) => matches!(
                p.conn.read_frames_until(&mut frames, !hung_up),
                Ok(ReadState::Open)
            ),
            None => false,
        };
        (frames, open)
    }

    /// Writes what is queued for `token`.
    pub(super) fn flush(&mut self, token: Token) {
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
    pub(super) fn send(&mut self, token: Token, id: u32, msg: &Message, fds: Vec<OwnedFd>) {
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
        if self
            .registry
            .reregister(p.conn.stream_mut(), token, interest)
            .is_err()
        {
            return self.close(token);
        }
        p.write_interest = want;
    }

    /// Sends `msg`, then closes the connection once it is written.
    pub(super) fn send_and_close(&mut self, token: Token, id: u32, msg: &Message) {
        self.send(token, id, msg, Vec::new());
        if let Some(p) = self.peers.get_mut(&token) {
            p.closing = true;
            if !p.conn.has_pending_output() {
                self.close(token);
            }
        }
    }

    /// Closes `token`. A process that had not finalized departs.
    pub(super) fn close(&mut self, token: Token) {
        let Some(mut peer) = self.peers.remove(&token) else {
            return;
        };
        let _ = self.registry.deregister(peer.conn.stream_mut());
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
    pub(super) fn take_departure(&mut self) -> Option<Departure> {
        self.departures.pop_front()
    }

    /// Bytes queued for `token` and not yet written; `None` if it is
    /// closed.
    pub(super) fn pending_output(&self, token: Token) -> Option<usize> {
        self.peers.get(&token).map(|p| p.conn.pending_output_len())
    }

    /// Where `token` stands, if it is open.
    pub(super) fn state(&self, token: Token) -> Option<&PeerState> {
        self.peers.get(&token).map(|p| &p.state)
    }

    /// The kernel's credentials of `token`'s peer.
    pub(super) fn creds(&self, token: Token) -> Option<PeerCredentials> {
        self.peers.get(&token).map(|p| p.creds)
    }

    /// True if a connection authenticated as `proc` already.
    pub(super) fn is_claimed(&self, proc: &Proc) -> bool {
        self.by_proc.contains_key(proc)
    }

    /// `token` authenticated as `proc`: waits for the host's word, with
    /// the full frame limit.
    pub(super) fn authenticated(&mut self, token: Token, proc: &Proc) {
        if let Some(p) = self.peers.get_mut(&token) {
            self.by_proc.insert(proc.clone(), token);
            p.state = PeerState::Connecting(proc.clone());
            p.conn.set_max_body(self.max_body);
        }
    }

    /// The host refused `token`'s process: it never joined (not a
    /// departure).
    pub(super) fn unauthenticated(&mut self, token: Token) {
        let Some(p) = self.peers.get_mut(&token) else {
            return;
        };
        if let PeerState::Connecting(proc) = &p.state {
            if self.by_proc.get(proc) == Some(&token) {
                self.by_proc.remove(proc);
            }
        }
        p.state = PeerState::AwaitHandshake;
    }

    /// `token`'s process joined: it is served from now on.
    pub(super) fn ready(&mut self, token: Token) {
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
    pub(super) fn finalized(&mut self, token: Token, proc: &Proc) {
        if let Some(p) = self.peers.get_mut(&token) {
            p.finalized = true;
        }
        self.departed.insert(proc.clone());
    }

    /// The host reports that its local process `proc` ended. One with no
    /// connection here (it died before connecting, or before its
    /// handshake ended) that has not departed departs now, as if its
    /// connection had been lost: nothing waits for it any longer. A
    /// connected one departs when its connection closes.
    pub(super) fn terminated(&mut self, proc: &Proc) {
        let has_connection = self.peers.values().any(
            |p| matches!(&p.state, PeerState::Connecting(q) | PeerState::Ready(q) if q == proc),
        );
        if has_connection || self.departed.contains(proc) {
            return;
        }
        self.departed.insert(proc.clone());
        self.departures.push_back(Departure(proc.clone()));
    }

    /// True if `proc` finalized or its connection was lost.
    pub(super) fn departed(&self, proc: &Proc) -> bool {
        self.departed.contains(proc)
    }

    /// The connection of the (ready) client `proc`, if connected.
    pub(super) fn token_of(&self, proc: &Proc) -> Option<Token> {
        self.by_proc.get(proc).copied().filter(|t| {
            self.peers
                .get(t)
                .is_some_and(|p| matches!(p.state, PeerState::Ready(_)))
        })
    }

    /// The kernel's credentials (pid, uid, gid) of the connected client
    /// `proc`'s socket.
    pub(super) fn peer_creds(&self, proc: &Proc) -> Option<PeerCredentials> {
        let t = self.token_of(proc)?;
        self.peers.get(&t).map(|p| p.creds)
    }

    /// Every connected, ready client.
    pub(super) fn connected_procs(&self) -> Vec<Proc> {
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
    pub(super) fn send_event(&mut self, proc: &Proc, body: Vec<u8>) -> bool {
        match self.token_of(proc) {
            Some(token) => {
                self.send(token, 0, &Message::Event(body), Vec::new());
                true
            }
            None => false,
        }
    }

    /// The host deregistered `proc`: closes its connection and forgets it.
    pub(super) fn forget(&mut self, proc: &Proc) {
        if let Some(t) = self.by_proc.get(proc).copied() {
            self.close(t);
        }
        self.departed.remove(proc);
    }

    /// The host deregistered namespace `ns`.
    pub(super) fn forget_nspace(&mut self, ns: &Nspace) {
        self.departed.retain(|p| &p.nspace != ns);
    }
}
