//! A stock connection's transport: OpenPMIx frames in, our [`Message`]s
//! out to the loop; our answers in, OpenPMIx replies out to the peer.
//!
//! The loop sees a stock peer exactly as one of ours: it reads
//! [`wire::Frame`]s (built here from the peer's commands by
//! [`super::inbound`]) and sends [`Message`]s (turned here into the reply
//! the peer's command expects by [`super::outbound`]).
//!
//! Invariants:
//! - Each request we hand the loop gets a fresh id of ours, remembered
//!   with the peer's tag and what the peer asked ([`Pending`]) until the
//!   loop's answer comes; an answer to an unknown id is dropped.
//! - Requests the loop does not answer (commit) or that we do not serve
//!   are answered here, in the peer's order of requests for that tag; so
//!   is a request whose translation our own decoder would refuse
//!   (`PMIX_ERR_BAD_PARAM`): the loop only gets frames it can read.
//! - Output is a byte queue written as the socket takes it; the
//!   handshake's answer is raw (not framed), every later one framed in
//!   network order with the peer's index.
//! - Descriptors the loop attaches (segments) are used here to read the
//!   job segment, never forwarded: TCP carries none.

use std::collections::{HashMap, VecDeque};
use std::io::{self, Write};
use std::os::fd::OwnedFd;

use mio::net::TcpStream;
use mio::{Interest, Token};

use super::inbound::{self, Inbound};
use super::outbound;
use super::request::{ConnectAnswer, Peer, Pending};
use crate::openpmix::header::{self, Frame as StockFrame, FrameReader, Header, Order};
use crate::wire::{self, Connection, Message, ReadState, WireError};
use crate::Status;

/// A stock peer's connection.
pub(in crate::server) struct StockLink {
    stream: TcpStream,
    reader: FrameReader,
    out: VecDeque<u8>,
    /// Set by the connect message.
    pub(in crate::server) peer: Option<Peer>,
    pindex: u32,
    next_id: u32,
    pending: HashMap<u32, (u32, Pending)>,
    hostname: String,
    /// The kernel's record of the peer's socket (its uid is checked at
    /// the handshake).
    owner: crate::openpmix::peer::PeerProcess,
    /// The pid holding the peer's socket (0: none visible), looked up the
    /// first time it is asked for: the lookup scans processes'
    /// descriptors, milliseconds in the server's loop, which a client's
    /// connection does not need.
    pid: std::cell::OnceCell<i32>,
}

impl StockLink {
    /// A link over an accepted `stream`; `pindex` is the index the peer
    /// will be told, `hostname` this node's name (for the job data).
    pub(in crate::server) fn new(
        stream: TcpStream,
        pindex: u32,
        hostname: String,
        owner: crate::openpmix::peer::PeerProcess,
    ) -> StockLink {
        // Replies go out as soon as they are queued, as OpenPMIx's own
        // server sets on its accepted sockets: Nagle's wait for an ACK
        // (a delayed one: up to 40 ms) would stall a reply whose frame
        // leaves in two writes. A socket that refuses still works.
        let _ = stream.set_nodelay(true);
        StockLink {
            stream,
            reader: FrameReader::server(header::MAX_CRED_SIZE),
            out: VecDeque::new(),
            peer: None,
            pindex,
            next_id: 1,
            pending: HashMap::new(),
            hostname,
            owner,
            pid: std::cell::OnceCell::new(),
        }
    }

    /// The pid of the process holding the peer's socket, 0 if none is
    /// visible (looked up once, when first asked).
    pub(in crate::server) fn owner_pid(&self) -> i32 {
        *self.pid.get_or_init(|| self.owner.pid().unwrap_or(0))
    }

    /// The socket, for the poll's registration.
    pub(in crate::server) fn stream_mut(&mut self) -> &mut TcpStream {
        &mut self.stream
    }

    /// Reads what came and translates each complete command into our
    /// frames (appended to `frames`); commands answered here queue their
    /// answer. An error ends the connection.
    pub(in crate::server) fn read_frames(
        &mut self,
        frames: &mut Vec<wire::Frame>,
    ) -> Result<ReadState, WireError> {
        let read = self.reader.read_from(&mut self.stream);
        // The frames completed before an error are served first.
        while let Some(f) = self.reader.next_frame() {
            self.translate(f, frames)?;
        }
        match read {
            Ok(header::ReadState::Open) => Ok(ReadState::Open),
            Ok(header::ReadState::Closed) => Ok(ReadState::Closed),
            // A reset or failed socket ends the connection quietly, as
            // on the Unix socket.
            Err(crate::openpmix::WireError::Io(e)) => Err(WireError::Io(e)),
            Err(e) => Err(self.refused(e)),
        }
    }

    /// A protocol error of the peer's, as our error (with a best-effort
    /// refusal status to a peer still in its handshake).
    fn refused(&mut self, e: crate::openpmix::WireError) -> WireError {
        if self.peer.is_none() {
            let reply = crate::openpmix::ClientReply {
                status: e.status().0,
                pindex: 0,
            };
            // Best effort: the connection closes right after.
            let _ = self.stream.write(&reply.encode());
        }
        WireError::Invalid {
            kind: "OpenPMIx message",
            what: stock_reason(&e),
        }
    }

    fn translate(&mut self, f: StockFrame, frames: &mut Vec<wire::Frame>) -> Result<(), WireError> {
        if f.header.tag == header::TAG_HEARTBEAT && self.peer.is_some() {
            // Request 0: the loop's answer finds nothing pending and is
            // dropped, as OpenPMIx's server answers no beat.
            frames.extend(loop_frame(0, &inbound::heartbeat()));
            return Ok(());
        }
        let step = match &self.peer {
            None => inbound::connect(&f.payload).map_err(|e| self.refused(e))?,
            Some(p) => inbound::command(p, &f.payload),
        };
        let (msg, pending) = match step {
            Inbound::Connected(peer, msg, answer) => {
                // Until the loop admits the peer, frames stay small.
                self.reader = FrameReader::new(header::MAX_CRED_SIZE);
                self.peer = Some(peer);
                (msg, Pending::Connect(answer))
            }
            Inbound::Forward(msg, pending) => {
                let id = self.next_id;
                let Some(frame) = loop_frame(id, &msg) else {
                    let bad = outbound::status_only(self.format(), Status::ERR_BAD_PARAM);
                    self.reply(f.header.tag, bad);
                    return Ok(());
                };
                self.next_id = self.next_id.wrapping_add(1).max(1);
                self.pending.insert(id, (f.header.tag, pending));
                frames.push(frame);
                return Ok(());
            }
            Inbound::Ignore => return Ok(()),
            Inbound::Refused(reply, why) => {
                // Best effort: the connection closes right after.
                let _ = self.stream.write(&reply);
                return Err(WireError::Invalid {
                    kind: "OpenPMIx connect message",
                    what: why,
                });
            }
            Inbound::Answer(status) => {
                self.reply(f.header.tag, outbound::status_only(self.format(), status));
                return Ok(());
            }
            Inbound::ForwardAndAnswer(msg, status) => {
                let frame = loop_frame(0, &msg);
                let status = if frame.is_some() {
                    status
                } else {
                    Status::ERR_BAD_PARAM
                };
                self.reply(f.header.tag, outbound::status_only(self.format(), status));
                frames.extend(frame);
                return Ok(());
            }
        };
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        self.pending.insert(id, (f.header.tag, pending));
        frames.push(frame_of(id, &msg)?);
        Ok(())
    }

    fn format(&self) -> crate::codec::Format {
        self.peer
            .as_ref()
            .map(|p| p.format.codec())
            .unwrap_or(crate::codec::Format::DATA_PACK)
    }

    /// Queues a framed reply on `tag`.
    fn reply(&mut self, tag: u32, payload: Vec<u8>) {
        let f = StockFrame {
            header: Header {
                pindex: self.pindex as i32,
                tag,
                nbytes: payload.len() as u32,
            },
            payload,
        };
        self.out.extend(f.encode(Order::Network));
    }

    /// Our answer `msg` to request `id` (descriptors `fds`), translated
    /// for the peer; an event (id 0) becomes a notification on tag 0,
    /// forwarded output messages on the IOF tag.
    pub(in crate::server) fn send(&mut self, id: u32, msg: &Message, fds: Vec<OwnedFd>) {
        if let Message::Segments(_) = msg {
            // Ahead of a handshake reply: not needed by a stock peer.
            return;
        }
        if let (0, Message::Event(body), Some(peer)) = (id, msg, &self.peer) {
            if let Some(payload) = outbound::notify(peer.format.codec(), body) {
                self.reply(header::TAG_NOTIFY, payload);
            }
            return;
        }
        if let (0, Message::Iof(body), Some(peer)) = (id, msg, &self.peer) {
            for payload in super::iof::deliveries(peer.format.codec(), body) {
                self.reply(header::TAG_IOF, payload);
            }
            return;
        }
        let Some((tag, pending)) = self.pending.remove(&id) else {
            return;
        };
        if let Pending::Connect(answer) = pending {
            self.answer_connect(answer, msg);
            return;
        }
        let Some(peer) = self.peer.clone() else {
            return;
        };
        let payload = outbound::reply(&peer, &self.hostname, &pending, msg, &fds);
        self.reply(tag, payload);
    }

    /// Queues the raw answer to the connect message from the loop's
    /// handshake reply `msg`, in the layout `answer`; a tool learns the
    /// name the loop gave it.
    fn answer_connect(&mut self, answer: ConnectAnswer, msg: &Message) {
        let (status, server, named) = match msg {
            Message::HandshakeReply(r) => (r.status, &r.server, None),
            Message::ToolHandshakeReply(r) => (r.status, &r.server, Some(&r.tool)),
            _ => return,
        };
        if let (Status::SUCCESS, Some(p), Some(peer)) = (status, named, self.peer.as_mut()) {
            peer.proc = p.clone();
        }
        let bytes = match answer {
            ConnectAnswer::Client => crate::openpmix::ClientReply {
                status: status.0,
                pindex: self.pindex,
            }
            .encode(),
            ConnectAnswer::Tool { .. } if status != Status::SUCCESS => {
                crate::openpmix::ToolReply::encode_refusal(status.0)
            }
            ConnectAnswer::Tool { needs_id } => crate::openpmix::ToolReply {
                assigned: needs_id.then(|| named.cloned()).flatten(),
                server: server.clone(),
                final_status: 0,
            }
            .encode(),
        };
        self.out.extend(bytes);
    }

    /// Writes what the socket takes: true if all is written.
    pub(in crate::server) fn flush(&mut self) -> Result<bool, WireError> {
        while !self.out.is_empty() {
            let (head, _) = self.out.as_slices();
            match self.stream.write(head) {
                Ok(0) => return Err(WireError::Closed),
                Ok(n) => {
                    self.out.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(WireError::Io(e)),
            }
        }
        Ok(true)
    }

    /// Bytes queued.
    pub(in crate::server) fn pending_output_len(&self) -> usize {
        self.out.len()
    }

    /// The peer was admitted: its messages may hold up to `max` bytes.
    /// (Its library sends nothing before the handshake's answer, so the
    /// reader is between frames — every complete frame was translated
    /// when read; one that is not keeps its small limit.)
    pub(in crate::server) fn set_max_message(&mut self, max: u32) {
        if self.peer.is_some() && self.reader.is_idle() {
            self.reader = FrameReader::new(max);
        }
    }
}

/// Our frame holding `msg` as request `id`, if the loop can read it
/// back: a translation our decoder would refuse (an info with an empty
/// key, say) is answered `PMIX_ERR_BAD_PARAM` by the door, not handed to
/// the loop (which would end the connection).
pub(in crate::server) fn loop_frame(id: u32, msg: &Message) -> Option<wire::Frame> {
    let f = frame_of(id, msg).ok()?;
    f.message().ok()?;
    Some(f)
}

/// Our frame holding `msg` as request `id`.
fn frame_of(id: u32, msg: &Message) -> Result<wire::Frame, WireError> {
    let mut body = Vec::new();
    msg.encode_body(&mut body)
        .map_err(|source| WireError::Body {
            kind: msg.kind().name(),
            source,
        })?;
    Ok(wire::Frame {
        header: wire::Header {
            kind: msg.kind(),
            nfds: 0,
            id,
            len: body.len() as u32,
        },
        body,
        fds: Vec::new(),
    })
}

/// A short reason for the log line (our error type holds a static text).
fn stock_reason(e: &crate::openpmix::WireError) -> &'static str {
    use crate::openpmix::WireError as E;
    match e {
        E::UnsupportedPsec(_) => "only munge (or another unsupported psec) offered: refused",
        E::UnsupportedBfrops(_) => "a buffer format other than v3/v4/v41: refused",
        E::TooLarge { .. } => "an OpenPMIx message over its size limit",
        E::UnknownFlag(_) => "an unknown peer type flag",
        E::Codec(_) => "an OpenPMIx buffer that does not decode",
        _ => "a malformed OpenPMIx connect message",
    }
}

/// A connection's transport: ours (Unix socket, our frames) or a stock
/// peer's (TCP, OpenPMIx frames translated).
pub(in crate::server) enum Link {
    /// Our own protocol.
    Ours(Connection),
    /// OpenPMIx's protocol.
    Stock(Box<StockLink>),
}

impl Link {
    /// Reads complete frames (see [`Connection::read_frames_until`]).
    pub(in crate::server) fn read_frames_until(
        &mut self,
        frames: &mut Vec<wire::Frame>,
        stop_short: bool,
    ) -> Result<ReadState, WireError> {
        match self {
            Link::Ours(c) => c.read_frames_until(frames, stop_short),
            Link::Stock(s) => s.read_frames(frames),
        }
    }

    /// Sends `msg` as the answer to `id`: written at once as far as the
    /// socket takes it (the rest waits for writability), on both kinds
    /// of link, so that a reply costs no round of the poll and no change
    /// of the socket's interest.
    pub(in crate::server) fn send(
        &mut self,
        id: u32,
        msg: &Message,
        fds: Vec<OwnedFd>,
    ) -> Result<(), WireError> {
        match self {
            Link::Ours(c) => c.send(id, msg, fds),
            Link::Stock(s) => {
                s.send(id, msg, fds);
                s.flush().map(|_| ())
            }
        }
    }

    /// Writes what is queued: true if all is out.
    pub(in crate::server) fn flush(&mut self) -> Result<bool, WireError> {
        match self {
            Link::Ours(c) => c.flush(),
            Link::Stock(s) => s.flush(),
        }
    }

    /// Bytes queued.
    pub(in crate::server) fn pending_output_len(&self) -> usize {
        match self {
            Link::Ours(c) => c.pending_output_len(),
            Link::Stock(s) => s.pending_output_len(),
        }
    }

    /// Descriptors queued (none on a stock link).
    pub(in crate::server) fn pending_output_fds(&self) -> usize {
        match self {
            Link::Ours(c) => c.pending_output_fds(),
            Link::Stock(_) => 0,
        }
    }

    /// True if output is queued.
    pub(in crate::server) fn has_pending_output(&self) -> bool {
        self.pending_output_len() > 0
    }

    /// The frame limit once authenticated.
    pub(in crate::server) fn set_max_body(&mut self, max: u32) {
        match self {
            Link::Ours(c) => c.set_max_body(max),
            Link::Stock(s) => s.set_max_message(max),
        }
    }

    /// True for a stock peer.
    pub(in crate::server) fn is_stock(&self) -> bool {
        matches!(self, Link::Stock(_))
    }

    /// A stock peer's pid, looked up when first asked (see
    /// [`StockLink::owner_pid`]); `None` for ours (the socket's
    /// credentials carry it).
    pub(in crate::server) fn stock_pid(&self) -> Option<i32> {
        match self {
            Link::Ours(_) => None,
            Link::Stock(s) => Some(s.owner_pid()),
        }
    }

    /// The socket, as the poll registers it.
    fn source(&mut self) -> &mut dyn mio::event::Source {
        match self {
            Link::Ours(c) => c.stream_mut(),
            Link::Stock(s) => s.stream_mut(),
        }
    }

    /// Registers the socket with `registry`.
    pub(in crate::server) fn register(
        &mut self,
        registry: &mio::Registry,
        token: Token,
        interest: Interest,
    ) -> std::io::Result<()> {
        registry.register(self.source(), token, interest)
    }

    /// Changes the socket's interest.
    pub(in crate::server) fn reregister(
        &mut self,
        registry: &mio::Registry,
        token: Token,
        interest: Interest,
    ) -> std::io::Result<()> {
        registry.reregister(self.source(), token, interest)
    }

    /// Removes the socket from `registry`.
    pub(in crate::server) fn deregister(&mut self, registry: &mio::Registry) {
        let _ = registry.deregister(self.source());
    }
}

/// The kernel's word on who owns the socket of an accepted stock
/// connection: its uid (the pid is left 0, looked up only when asked: see
/// [`StockLink::owner_pid`]; the gid is not known this way: `u32::MAX`,
/// not checked), and the socket's record.
pub(in crate::server) fn peer_credentials(
    stream: &mio::net::TcpStream,
) -> Option<(
    crate::net::PeerCredentials,
    crate::openpmix::peer::PeerProcess,
)> {
    let (local, remote) = (stream.local_addr().ok()?, stream.peer_addr().ok()?);
    let p = crate::openpmix::peer::lookup(local, remote).ok()?;
    let creds = crate::net::PeerCredentials {
        pid: 0,
        uid: p.uid,
        gid: u32::MAX,
    };
    Some((creds, p))
}
