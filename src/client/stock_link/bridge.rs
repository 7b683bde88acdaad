//! The bridge thread: our protocol on one side, the stock server's on
//! the other (see the parent module's table).

use std::collections::HashMap;
use std::ffi::CString;
use std::io::{self, Write};
use std::time::{Duration, Instant};

use crate::codec::{Buffer, CodecError, Format};
use crate::openpmix::header::{Frame, Order, TAG_DYNAMIC, TAG_HEARTBEAT, TAG_IOF, TAG_NOTIFY};
use crate::openpmix::{Command, FrameReader};
use crate::wire::{
    self, Connection, DmodexReply, FenceRelease, Message, NspaceReply, Op, Response,
};
use crate::{DataType, Nspace, Proc, Status, Value};

use super::invite::{self, Invitation};
use super::payloads::{get_reply, notification, pack_commit};
use super::registration;
use super::services::{self, pack_infos, LinkState, NotSent, ReplyLayout};
use super::{deadline, nspace};

enum Waiting {
    /// Nothing (a commit).
    Nothing,
    Finalize(u32),
    Fence(u32),
    Get(u32),
    Abort(u32),
    /// A service request's response (status, no body).
    Response(u32),
    /// A service request's response, read as the layout says.
    Service(u32, ReplyLayout),
    /// Another namespace's job data (see [`nspace`]).
    Nspace(u32, Nspace),
    /// The server's status for an invitation's `PMIX_GROUP_INVITED`
    /// (the client's request): a failure ends the invitation.
    Invited(u32),
}

/// The handler id under which the bridge registers the codes of the
/// answers its invitations wait for (the client's handlers count from 0).
const INVITATIONS: u64 = u64::MAX;

/// What the bridge links: the client's connection and the stock server's,
/// past the handshake and init.
pub(super) struct Ends {
    pub(super) me: Proc,
    pub(super) fmt: Format,
    pub(super) pindex: i32,
    /// The client's connection, seen from the server's side.
    pub(super) ours: Connection,
    pub(super) tcp: mio::net::TcpStream,
    /// The server's frames (it may hold what came after init's reply).
    pub(super) reader: FrameReader,
    /// What the service requests keep (the server's release line first).
    pub(super) state: LinkState,
    /// This node's name (other jobs' segments count their local ranks).
    pub(super) hostname: String,
}

struct Bridge {
    ends: Ends,
    /// Bytes for the server not written yet.
    out: Vec<u8>,
    next_tag: u32,
    /// What each tag sent awaits, and until when (see [`deadline`]).
    pending: HashMap<u32, (Waiting, Option<Instant>)>,
    /// The wait for the reply to the request being translated.
    bound: Option<Duration>,
    /// The codes each of the client's handlers registered (by handler).
    handlers: HashMap<u64, Vec<Status>>,
    /// How many handlers registered each code with the server.
    codes: HashMap<Status, usize>,
    /// The generation of the next segment made here (see [`nspace`]).
    next_generation: u64,
    /// The invitations this process leads, oldest first.
    invitations: Vec<Invitation>,
}

/// The bridge's end: either side closed, or sent what does not parse;
/// the bridge then drops both connections.
struct Closed;

fn closed<E>(_: E) -> Closed {
    Closed
}

/// Starts the bridge thread between the `ends`.
pub(super) fn spawn(ends: Ends) -> io::Result<()> {
    let bridge = Bridge {
        ends,
        out: Vec::new(),
        next_tag: TAG_DYNAMIC + 1,
        pending: HashMap::new(),
        bound: None,
        handlers: HashMap::new(),
        codes: HashMap::new(),
        next_generation: 2,
        invitations: Vec::new(),
    };
    std::thread::Builder::new()
        .name("pmix-stock-link".into())
        .spawn(move || bridge.run())
        .map(drop)
}

const OURS: mio::Token = mio::Token(0);
const TCP: mio::Token = mio::Token(1);

/// Readability, and writability while output waits.
fn interest(output_waits: bool) -> mio::Interest {
    if output_waits {
        mio::Interest::READABLE | mio::Interest::WRITABLE
    } else {
        mio::Interest::READABLE
    }
}

impl Bridge {
    fn run(mut self) {
        let _ = self.serve();
        // Dropping `self` closes both ends: the client's pending and later
        // calls fail with a lost connection.
    }

    fn serve(&mut self) -> Result<(), Closed> {
        let mut poll = mio::Poll::new().map_err(closed)?;
        // Writability only while output waits: an interest in it would
        // wake this thread at every drained buffer (each reply the
        // client reads), on the fence's critical path.
        let r = mio::Interest::READABLE;
        poll.registry()
            .register(self.ends.ours.stream_mut(), OURS, r)
            .map_err(closed)?;
        poll.registry()
            .register(&mut self.ends.tcp, TCP, r)
            .map_err(closed)?;
        let (mut ours_waits, mut tcp_waits) = (false, false);
        let mut events = mio::Events::with_capacity(8);
        // Frames of the init reply's read may already hold more.
        self.server_frames()?;
        loop {
            let now = Instant::now();
            let invitation = self.invitations.iter().filter_map(|i| i.left(now)).min();
            let wake = match (self.next_expiry(), invitation) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            match poll.poll(&mut events, wake) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return Err(Closed),
            }
            self.expire_invitations()?;
            for ev in events.iter() {
                if ev.token() == OURS && (ev.is_readable() || ev.is_read_closed()) {
                    self.client_frames()?;
                }
                if ev.token() == TCP && (ev.is_readable() || ev.is_read_closed()) {
                    match self.ends.reader.read_from(&mut self.ends.tcp) {
                        Ok(crate::openpmix::header::ReadState::Open) => {}
                        _ => {
                            let _ = self.server_frames();
                            let _ = self.finalized_by_close();
                            return Err(Closed);
                        }
                    }
                    self.server_frames()?;
                }
            }
            self.expire()?;
            self.flush_tcp()?;
            let ours_out = self.ends.ours.flush().map_err(closed)?;
            let registry = poll.registry();
            if ours_waits == ours_out {
                ours_waits = !ours_out;
                let stream = self.ends.ours.stream_mut();
                registry
                    .reregister(stream, OURS, interest(ours_waits))
                    .map_err(closed)?;
            }
            if tcp_waits == self.out.is_empty() {
                tcp_waits = !self.out.is_empty();
                registry
                    .reregister(&mut self.ends.tcp, TCP, interest(tcp_waits))
                    .map_err(closed)?;
            }
        }
    }

    /// Ends the invitation of the client's request `id` with `status`
    /// (the server refused, or did not answer, its notification).
    fn invitation_failed(&mut self, id: u32, status: Status) -> Result<(), Closed> {
        match self.invitations.iter().position(|i| i.request == id) {
            Some(at) => self.end_invitation(at, Err(status)),
            None => Ok(()),
        }
    }

    /// How long until the first pending reply's wait ends (`None`: no
    /// wait is bounded).
    fn next_expiry(&self) -> Option<Duration> {
        let now = Instant::now();
        self.pending
            .values()
            .filter_map(|(_, d)| *d)
            .min()
            .map(|d| d.saturating_duration_since(now))
    }

    /// Answers `PMIX_ERR_TIMEOUT` to every request whose wait ended (its
    /// reply, if it comes, is then dropped).
    fn expire(&mut self) -> Result<(), Closed> {
        let now = Instant::now();
        let over: Vec<u32> = self
            .pending
            .iter()
            .filter(|(_, (_, d))| d.is_some_and(|d| d <= now))
            .map(|(t, _)| *t)
            .collect();
        for tag in over {
            match self.pending.remove(&tag) {
                Some((Waiting::Invited(id), _)) => {
                    self.invitation_failed(id, Status::ERR_TIMEOUT)?
                }
                Some((waiting, _)) => {
                    if let Some((id, msg)) = status_reply(waiting, Status::ERR_TIMEOUT) {
                        self.answer(id, &msg)?;
                    }
                }
                None => {}
            }
        }
        Ok(())
    }

    fn flush_tcp(&mut self) -> Result<(), Closed> {
        while !self.out.is_empty() {
            match self.ends.tcp.write(&self.out) {
                Ok(0) => return Err(Closed),
                Ok(n) => {
                    self.out.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Err(Closed),
            }
        }
        Ok(())
    }

    fn client_frames(&mut self) -> Result<(), Closed> {
        let mut frames = Vec::new();
        let state = self.ends.ours.read_frames(&mut frames);
        for f in frames {
            let Ok(msg) = f.message() else {
                return Err(Closed);
            };
            self.request(f.header.id, msg)?;
        }
        match state {
            Ok(wire::ReadState::Open) => Ok(()),
            _ => Err(Closed),
        }
    }

    /// Sends the stock form of the client's request `msg` (id `id`), or
    /// answers it here.
    fn request(&mut self, id: u32, msg: Message) -> Result<(), Closed> {
        let fmt = self.ends.fmt;
        self.bound = deadline::for_message(&msg);
        let packed = match msg {
            Message::Finalize => self
                .command(Command::Finalize, |_| Ok(()))
                .map(|b| (b, Waiting::Finalize(id))),
            Message::Commit(posted) => self
                .command(Command::Commit, |b| pack_commit(fmt, b, &posted))
                .map(|b| (b, Waiting::Nothing)),
            Message::FenceRequest(r) => self
                .command(Command::FenceNb, |b| {
                    // No procs: this process's whole namespace, named (a
                    // stock server refuses an empty list).
                    let all = [Proc::new(
                        self.ends.me.nspace.clone(),
                        crate::Rank::WILDCARD,
                    )];
                    let procs = if r.procs.is_empty() {
                        &all[..]
                    } else {
                        &r.procs[..]
                    };
                    fmt.pack_value(b, &Value::Size(procs.len()))?;
                    let procs: Vec<Value> = procs.iter().cloned().map(Value::Proc).collect();
                    fmt.pack(b, DataType::Proc, &procs)?;
                    pack_infos(fmt, b, &r.infos)
                })
                .map(|b| (b, Waiting::Fence(id))),
            Message::DmodexRequest(r) => self
                .command(Command::GetNb, |b| {
                    let ns = CString::new(r.proc.nspace.as_c_str().to_bytes()).ok();
                    fmt.pack_value(b, &Value::String(ns))?;
                    fmt.pack_value(b, &Value::ProcRank(r.proc.rank.0))?;
                    pack_infos(fmt, b, &r.infos)?;
                    // No key: none packed (see `nspace::pack_request`).
                    match r.key.as_ref().and_then(|k| CString::new(k.as_bytes()).ok()) {
                        Some(k) => fmt.pack_value(b, &Value::String(Some(k))),
                        None => Ok(()),
                    }
                })
                .map(|b| (b, Waiting::Get(id))),
            Message::NspaceRequest(ns) => self
                .command(Command::GetNb, |b| nspace::pack_request(fmt, b, &ns))
                .map(|b| (b, Waiting::Nspace(id, ns))),
            Message::Abort(a) => self
                .command(Command::Abort, |b| {
                    fmt.pack_value(b, &Value::Status(a.status.0))?;
                    fmt.pack_value(b, &Value::String(a.message.clone()))?;
                    fmt.pack_value(b, &Value::Size(a.procs.len()))?;
                    let procs: Vec<Value> = a.procs.iter().cloned().map(Value::Proc).collect();
                    fmt.pack(b, DataType::Proc, &procs)
                })
                .map(|b| (b, Waiting::Abort(id))),
            Message::Request(r) if r.op == Op::NOTIFY_EVENT => {
                let Ok(ev) = crate::events::decode_event(&r.body) else {
                    let bad = Response {
                        status: Status::ERR_BAD_PARAM,
                        body: vec![],
                    };
                    return self.answer(id, &Message::Response(bad));
                };
                self.notify_bytes(&ev).map(|b| (b, Waiting::Response(id)))
            }
            Message::Request(r) if r.op == Op::GROUP_INVITE => return self.invite(id, &r.body),
            Message::Request(r) if r.op == Op::GROUP_JOIN => {
                let me = self.ends.me.clone();
                match invite::join_notice(&me, &r.body) {
                    Ok(ev) => self.notify_bytes(&ev).map(|b| (b, Waiting::Response(id))),
                    Err(s) => return self.respond(id, s),
                }
            }
            Message::Request(r) if services::is_heartbeat(r.op, &r.body) => {
                self.write_frame(TAG_HEARTBEAT, Vec::new())?;
                // Done, with no results.
                let done = Response {
                    status: Status::SUCCESS,
                    body: crate::wire::rm::put_list(&[]).unwrap_or_default(),
                };
                return self.answer(id, &Message::Response(done));
            }
            Message::Request(r) if r.op == Op::REGISTER_EVENTS => {
                return self.register_codes(id, &r.body)
            }
            Message::Request(r) if r.op == Op::DEREGISTER_EVENTS => {
                return self.deregister_codes(id, &r.body)
            }
            Message::Request(r) => {
                match services::request(fmt, &mut self.ends.state, r.op, &r.body) {
                    Ok((bytes, layout)) => Ok((bytes, Waiting::Service(id, layout))),
                    Err(NotSent::Bad(s)) => return self.respond(id, s),
                    Err(NotSent::NotCarried) => return self.answer_here(id, &Message::Request(r)),
                }
            }
            other => return self.answer_here(id, &other),
        };
        match packed {
            Ok((bytes, waiting)) => self.send(bytes, waiting),
            Err(e) => {
                let s = e.status();
                self.answer(
                    id,
                    &Message::Response(Response {
                        status: s,
                        body: vec![],
                    }),
                )
            }
        }
    }

    /// Sends `bytes` to the server on a new tag, its reply awaited as
    /// `waiting`.
    fn send(&mut self, bytes: Vec<u8>, waiting: Waiting) -> Result<(), Closed> {
        let tag = self.next_tag;
        self.next_tag = self.next_tag.checked_add(1).unwrap_or(TAG_DYNAMIC + 1);
        let until = self.bound.map(|b| Instant::now() + b);
        self.pending.insert(tag, (waiting, until));
        self.write_frame(tag, bytes)
    }

    /// Sends `bytes` to the server, which does not answer them.
    fn send_unanswered(&mut self, bytes: Vec<u8>) -> Result<(), Closed> {
        let tag = self.next_tag;
        self.next_tag = self.next_tag.checked_add(1).unwrap_or(TAG_DYNAMIC + 1);
        self.write_frame(tag, bytes)
    }

    fn write_frame(&mut self, tag: u32, bytes: Vec<u8>) -> Result<(), Closed> {
        let frame = Frame::message(self.ends.pindex, tag, bytes);
        self.out.extend_from_slice(&frame.encode(Order::Network));
        self.flush_tcp()
    }

    /// Answers the client's service request `id` with `status` alone.
    fn respond(&mut self, id: u32, status: Status) -> Result<(), Closed> {
        self.answer(
            id,
            &Message::Response(Response {
                status,
                body: vec![],
            }),
        )
    }

    /// A handler's registration (see [`registration::registration_body`]): the
    /// codes no other handler registered yet go to the server
    /// (`PMIX_REGEVENTS_CMD`: count, codes, no infos), whose status
    /// answers the client.
    fn register_codes(&mut self, id: u32, body: &[u8]) -> Result<(), Closed> {
        let Some((handler, codes)) = registration::read_registration(body) else {
            return self.respond(id, Status::ERR_BAD_PARAM);
        };
        match self.add_codes(handler, codes) {
            Ok(None) => self.respond(id, Status::SUCCESS),
            Ok(Some(bytes)) => self.send(bytes, Waiting::Response(id)),
            Err(e) => self.respond(id, e.status()),
        }
    }

    /// Records `handler`'s `codes`; the registration of those no other
    /// handler holds yet, for the server (`None`: nothing new).
    fn add_codes(
        &mut self,
        handler: u64,
        codes: Vec<Status>,
    ) -> Result<Option<Vec<u8>>, CodecError> {
        let mut fresh = Vec::new();
        for c in &codes {
            let n = self.codes.entry(*c).or_insert(0);
            *n += 1;
            if *n == 1 {
                fresh.push(Value::Status(c.0));
            }
        }
        self.handlers.insert(handler, codes);
        if fresh.is_empty() {
            return Ok(None);
        }
        let fmt = self.ends.fmt;
        self.command(Command::RegEvents, |b| {
            fmt.pack_value(b, &Value::Size(fresh.len()))?;
            fmt.pack(b, DataType::Status, &fresh)?;
            fmt.pack_value(b, &Value::Size(0))
        })
        .map(Some)
    }

    /// A handler's deregistration: the codes no handler holds any more
    /// leave the server (`PMIX_DEREGEVENTS_CMD`: the codes, no reply).
    fn deregister_codes(&mut self, id: u32, body: &[u8]) -> Result<(), Closed> {
        let Some((handler, _)) = registration::read_registration(body) else {
            return self.respond(id, Status::ERR_BAD_PARAM);
        };
        self.remove_codes(handler)?;
        self.respond(id, Status::SUCCESS)
    }

    /// Forgets `handler`'s codes; those no handler holds any more leave
    /// the server.
    fn remove_codes(&mut self, handler: u64) -> Result<(), Closed> {
        let mut gone = Vec::new();
        for c in self.handlers.remove(&handler).unwrap_or_default() {
            if let Some(n) = self.codes.get_mut(&c) {
                *n -= 1;
                if *n == 0 {
                    self.codes.remove(&c);
                    gone.push(Value::Status(c.0));
                }
            }
        }
        if !gone.is_empty() {
            let fmt = self.ends.fmt;
            // The server reads one code per pack until the end.
            if let Ok(bytes) = self.command(Command::DeregEvents, |b| {
                gone.iter().try_for_each(|c| fmt.pack_value(b, c))
            }) {
                self.send_unanswered(bytes)?;
            }
        }
        Ok(())
    }

    /// `PMIX_NOTIFY_CMD` of `ev`: status, range, infos.
    fn notify_bytes(&self, ev: &crate::events::Event) -> Result<Vec<u8>, CodecError> {
        let fmt = self.ends.fmt;
        self.command(Command::Notify, |b| {
            fmt.pack_value(b, &Value::Status(ev.status.0))?;
            fmt.pack_value(b, &Value::DataRange(ev.range.0))?;
            pack_infos(fmt, b, &ev.infos)
        })
    }

    /// The client's invite (request `id`): the answers' codes registered
    /// with the server (for the first invitation), the invitation sent.
    fn invite(&mut self, id: u32, body: &[u8]) -> Result<(), Closed> {
        let me = self.ends.me.clone();
        let (inv, invited) = match Invitation::start(&me, id, body) {
            Ok(x) => x,
            Err(s) => return self.respond(id, s),
        };
        let bytes = match self.notify_bytes(&invited) {
            Ok(b) => b,
            Err(e) => return self.respond(id, e.status()),
        };
        if self.invitations.is_empty() {
            match self.add_codes(INVITATIONS, invite::ANSWER_CODES.to_vec()) {
                Ok(Some(reg)) => self.send(reg, Waiting::Nothing)?,
                Ok(None) => {}
                Err(e) => return self.respond(id, e.status()),
            }
        }
        let settled = inv.settled();
        self.invitations.push(inv);
        if settled {
            return self.end_invitation(self.invitations.len() - 1, Ok(()));
        }
        self.send(bytes, Waiting::Invited(id))
    }

    /// Ends invitation `at`: its answer to the client (on success, the
    /// group, and `PMIX_GROUP_CONSTRUCT_COMPLETE` to its members); the
    /// answers' codes leave the server with the last invitation.
    fn end_invitation(&mut self, at: usize, outcome: Result<(), Status>) -> Result<(), Closed> {
        let inv = self.invitations.remove(at);
        if self.invitations.is_empty() {
            self.remove_codes(INVITATIONS)?;
        }
        let request = inv.request;
        if let Err(s) = outcome {
            return self.respond(request, s);
        }
        let me = self.ends.me.clone();
        let id = inv.id.clone();
        let (body, members, done) = inv.complete(&me);
        let body = match body {
            Ok(b) => b,
            Err(s) => return self.respond(request, s),
        };
        if members.iter().any(|p| *p != me) {
            if let Ok(bytes) = self.notify_bytes(&done) {
                self.send(bytes, Waiting::Nothing)?;
            }
        }
        self.ends.state.groups.insert(id, members);
        self.answer(
            request,
            &Message::Response(Response {
                status: Status::SUCCESS,
                body,
            }),
        )
    }

    /// An answer to an invitation (if `ev` is one): the oldest invitation
    /// waiting for its source takes it, and ends if it was the last.
    fn invite_answer(&mut self, ev: &crate::events::Event) -> Result<(), Closed> {
        let Some(at) = self.invitations.iter_mut().position(|i| i.answer(ev)) else {
            return Ok(());
        };
        if self.invitations[at].settled() {
            self.end_invitation(at, Ok(()))?;
        }
        Ok(())
    }

    /// Ends the invitations whose `PMIX_TIMEOUT` passed.
    fn expire_invitations(&mut self) -> Result<(), Closed> {
        let now = std::time::Instant::now();
        while let Some(at) = self.invitations.iter().position(|i| i.expired(now)) {
            self.end_invitation(at, Err(Status::ERR_TIMEOUT))?;
        }
        Ok(())
    }

    /// The payload of `cmd` followed by what `rest` packs.
    fn command(
        &self,
        cmd: Command,
        rest: impl FnOnce(&mut Buffer) -> Result<(), CodecError>,
    ) -> Result<Vec<u8>, CodecError> {
        let mut b = Buffer::new();
        self.ends
            .fmt
            .pack_value(&mut b, &Value::Command(cmd.into()))?;
        rest(&mut b)?;
        Ok(b.into_bytes())
    }

    /// Answers a request the slice does not carry to the server.
    fn answer_here(&mut self, id: u32, msg: &Message) -> Result<(), Closed> {
        let no = Status::ERR_NOT_SUPPORTED;
        let reply = match msg {
            Message::Request(_) => Message::Response(Response {
                status: no,
                body: vec![],
            }),
            _ => return Ok(()),
        };
        self.answer(id, &reply)
    }

    fn answer(&mut self, id: u32, msg: &Message) -> Result<(), Closed> {
        self.ends.ours.send(id, msg, Vec::new()).map_err(closed)?;
        self.ends.ours.flush().map(drop).map_err(closed)
    }

    /// The server closed the connection: a finalize still waiting is
    /// done. A stock server may close before its answer is out (OpenPMIx
    /// 3.2 under Open MPI 4.1's `mpirun` does, after a connect or a
    /// spawn), and OpenPMIx's own clients take the close, like the answer,
    /// as the end of their finalize; every other waiting call fails with
    /// the lost connection.
    fn finalized_by_close(&mut self) -> Result<(), Closed> {
        let ids: Vec<u32> = self
            .pending
            .values()
            .filter_map(|(w, _)| match w {
                Waiting::Finalize(id) => Some(*id),
                _ => None,
            })
            .collect();
        for id in ids {
            self.answer(id, &Message::FinalizeReply(Status::SUCCESS))?;
        }
        Ok(())
    }

    fn server_frames(&mut self) -> Result<(), Closed> {
        while let Some(f) = self.ends.reader.next_frame() {
            if f.header.tag == TAG_NOTIFY {
                if let Some(ev) = notification(self.ends.fmt, f.payload) {
                    self.invite_answer(&ev)?;
                    if let Ok(body) = crate::events::encode_event(&ev) {
                        self.answer(0, &Message::Event(body))?;
                    }
                }
                continue;
            }
            if f.header.tag == TAG_IOF {
                if let Some(out) = services::iof_delivery(self.ends.fmt, f.payload) {
                    self.answer(0, &out)?;
                }
                continue;
            }
            let Some((waiting, _)) = self.pending.remove(&f.header.tag) else {
                continue;
            };
            let mut b = Buffer::from_bytes(f.payload);
            let status = match self.ends.fmt.unpack_value(&mut b, DataType::Status) {
                // A server's way of saying done at once.
                Ok(Value::Status(s)) if Status(s) == Status::OPERATION_SUCCEEDED => Status::SUCCESS,
                Ok(Value::Status(s)) => Status(s),
                _ => Status::ERR_UNPACK_FAILURE,
            };
            let reply = match waiting {
                Waiting::Invited(id) => {
                    if status != Status::SUCCESS {
                        self.invitation_failed(id, status)?;
                    }
                    continue;
                }
                Waiting::Get(id) => (id, get_reply(self.ends.fmt, status, &mut b)),
                Waiting::Nspace(id, ns) => {
                    let generation = self.next_generation;
                    self.next_generation += 1;
                    let (msg, fds) = nspace::reply(
                        self.ends.fmt,
                        &ns,
                        status,
                        &mut b,
                        &self.ends.hostname,
                        generation,
                    );
                    self.ends.ours.send(id, &msg, fds).map_err(closed)?;
                    self.ends.ours.flush().map_err(closed)?;
                    continue;
                }
                Waiting::Service(id, layout) => (
                    id,
                    Message::Response(services::response(
                        self.ends.fmt,
                        &mut self.ends.state,
                        layout,
                        status,
                        &mut b,
                    )),
                ),
                // The rest carry the status alone.
                other => match status_reply(other, status) {
                    Some(r) => r,
                    None => continue,
                },
            };
            self.answer(reply.0, &reply.1)?;
        }
        Ok(())
    }
}

/// The answer carrying `status` alone to the client's request that
/// `waiting` stands for: its reply's when the reply is a status, every
/// kind's when the request fails without a reply (`None`: nothing is
/// awaited, or an invitation's status, which the bridge handles).
fn status_reply(waiting: Waiting, status: Status) -> Option<(u32, Message)> {
    let response = |id| {
        (
            id,
            Message::Response(Response {
                status,
                body: vec![],
            }),
        )
    };
    Some(match waiting {
        Waiting::Nothing | Waiting::Invited(_) => return None,
        Waiting::Finalize(id) => (id, Message::FinalizeReply(status)),
        Waiting::Abort(id) => (id, Message::AbortReply(status)),
        Waiting::Fence(id) => (
            id,
            Message::FenceRelease(FenceRelease {
                status,
                segments: vec![],
            }),
        ),
        Waiting::Get(id) => (
            id,
            Message::DmodexReply(DmodexReply {
                status,
                data: vec![],
            }),
        ),
        Waiting::Nspace(id, _) => (
            id,
            Message::NspaceReply(NspaceReply {
                status,
                segments: vec![],
            }),
        ),
        Waiting::Response(id) | Waiting::Service(id, _) => response(id),
    })
}
