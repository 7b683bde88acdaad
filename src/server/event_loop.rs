//! The server's progress thread: one `mio` loop over the listening socket,
//! every client connection and the command channel (woken by a
//! `mio::Waker`), plus the timers of operations with a `PMIX_TIMEOUT`.
//!
//! State machine of a connection: `AwaitHandshake` (small frame limit, only
//! a `Handshake` accepted) -> `Connecting` (authenticated, waiting for the
//! host's `client_connected`) -> `Ready` (full protocol) -> closed. A
//! refused handshake is answered with its status, then the connection is
//! closed once the answer is written.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Receiver;
use mio::{Events, Interest, Poll, Token};
use pmix_shmem::Scopes;

use super::fence::{self, Arrival, Tracker};
use super::host::{
    take_result, Command, Completion, DmodexCallback, HostModule, Notifier, OpResult,
};
use super::modex::{self, ModexSegment};
use super::registry::{NsRecord, Registry};
use super::services::{Caller, Encoder};
use crate::net::{Listener, PeerCredentials};
use crate::wire::{
    self, blob, Connection, Directives, DmodexReply, DmodexRequest, FenceRelease, FenceRequest,
    Frame, HandshakeReply, Message, Posted, ReadState, SegmentKind, SegmentRef, WireError,
};
use crate::{keys, Info, Key, Nspace, Proc, Rank, Status, Value};

pub(super) const LISTENER: Token = Token(0);
pub(super) const WAKER: Token = Token(1);
const FIRST_PEER: usize = 2;

enum PeerState {
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
    /// Registered for writability too (only while output is queued: a
    /// permanent write interest would wake the loop each time the client
    /// reads what it was sent).
    write_interest: bool,
}

impl Peer {
    fn proc(&self) -> Option<&Proc> {
        match &self.state {
            PeerState::AwaitHandshake => None,
            PeerState::Connecting(p) | PeerState::Ready(p) => Some(p),
        }
    }
}

/// Who waits for a process's data.
enum WaiterTo {
    /// A local client's `DmodexRequest`.
    Client { token: Token, id: u32 },
    /// The host's `dmodex_request`.
    Host(DmodexCallback),
}

struct Waiter {
    id: u64,
    to: WaiterTo,
}

pub(crate) enum PendingOp {
    Connect {
        token: Token,
        id: u32,
    },
    Finalize {
        token: Token,
        id: u32,
    },
    Abort {
        token: Token,
        id: u32,
    },
    Fence(u64),
    DirectModex(Proc),
    /// A connect or disconnect handed to the host (see `connect`).
    Collective(u64),
    /// A fence reported failed to the host; its answer is not needed.
    Ignored,
    /// A service request handed to the host (see `services`).
    #[allow(dead_code)]
    Service {
        caller: Caller,
        encoder: Encoder,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) enum TimerKey {
    Fence(u64),
    Waiter(u64),
    /// A connect or disconnect's `PMIX_TIMEOUT`.
    Collective(u64),
}

pub(crate) struct EventLoop {
    poll: Poll,
    listener: Listener,
    rx: Receiver<Command>,
    notifier: Notifier,
    registry: Arc<Registry>,
    host: Arc<dyn HostModule>,
    server: Proc,
    max_body: u32,
    peers: HashMap<Token, Peer>,
    next_token: usize,
    by_proc: HashMap<Proc, Token>,
    committed: HashMap<Proc, Vec<Posted>>,
    /// Local processes that finalized or whose connection was lost.
    pub(super) departed: HashSet<Proc>,
    pub(super) modex: HashMap<Nspace, Vec<ModexSegment>>,
    /// Connects and disconnects in progress.
    pub(super) collectives: super::connect::Collectives,
    /// What the kept modex generations hold of each local process's
    /// committed data (for delta generations, see `modex`).
    fenced: HashMap<Proc, modex::Fenced>,
    fences_by_set: HashMap<Vec<Proc>, u64>,
    fences: HashMap<u64, Tracker>,
    next_fence: u64,
    /// Waiting for a local process's first commit.
    local_waiters: HashMap<Proc, Vec<Waiter>>,
    /// Waiting for the host's `direct_modex` answer about a remote process.
    remote_waiters: HashMap<Proc, Vec<Waiter>>,
    next_waiter: u64,
    ops: HashMap<u64, PendingOp>,
    next_op: u64,
    pub(super) timers: BTreeSet<(Instant, TimerKey)>,
    /// The server process's own event handlers.
    pub(super) events: Arc<crate::events::EventHandlers>,
}

impl EventLoop {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        poll: Poll,
        mut listener: Listener,
        rx: Receiver<Command>,
        notifier: Notifier,
        registry: Arc<Registry>,
        host: Arc<dyn HostModule>,
        server: Proc,
        max_body: u32,
        events: Arc<crate::events::EventHandlers>,
    ) -> std::io::Result<EventLoop> {
        poll.registry()
            .register(&mut listener, LISTENER, Interest::READABLE)?;
        Ok(EventLoop {
            poll,
            listener,
            rx,
            notifier,
            registry,
            host,
            server,
            max_body,
            peers: HashMap::new(),
            next_token: FIRST_PEER,
            by_proc: HashMap::new(),
            committed: HashMap::new(),
            departed: HashSet::new(),
            modex: HashMap::new(),
            collectives: Default::default(),
            fenced: HashMap::new(),
            fences_by_set: HashMap::new(),
            fences: HashMap::new(),
            next_fence: 1,
            local_waiters: HashMap::new(),
            remote_waiters: HashMap::new(),
            next_waiter: 1,
            ops: HashMap::new(),
            next_op: 1,
            timers: BTreeSet::new(),
            events,
        })
    }

    /// Runs until a `Shutdown` command (or the channel closes).
    pub(super) fn run(mut self) {
        let mut events = Events::with_capacity(256);
        // Commands sent from this thread do not wake the loop: every pass
        // drains the channel after its work (see `Notifier::send`).
        self.notifier.enter_loop();
        loop {
            let timeout = self
                .timers
                .first()
                .map(|(t, _)| t.saturating_duration_since(Instant::now()));
            if let Err(e) = self.poll.poll(&mut events, timeout) {
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return;
            }
            for ev in events.iter() {
                match ev.token() {
                    LISTENER => self.accept(),
                    WAKER => {}
                    t => {
                        if ev.is_readable() || ev.is_read_closed() || ev.is_error() {
                            self.read(t);
                        }
                        if ev.is_writable() {
                            self.flush(t);
                        }
                    }
                }
            }
            if !self.drain_commands() {
                return;
            }
            self.fire_timers();
            // What the timers' host callbacks completed at once.
            if !self.drain_commands() {
                return;
            }
        }
    }

    fn drain_commands(&mut self) -> bool {
        while let Ok(cmd) = self.rx.try_recv() {
            match cmd {
                Command::OpDone { op, result } => self.op_done(op, result),
                Command::HostDmodex { proc, done } => self.host_dmodex(proc, done),
                Command::NspaceGone(ns) => self.nspace_gone(&ns),
                Command::ClientGone(p) => {
                    if let Some(t) = self.by_proc.get(&p).copied() {
                        self.close(t);
                    }
                    self.departed.remove(&p);
                    self.committed.remove(&p);
                    self.fenced.remove(&p);
                }
                Command::Run(task) => task(self),
                Command::Defer(f) => f(),
                Command::Shutdown => return false,
            }
        }
        true
    }

    // ------------------------------------------------------------------
    // Connections

    fn accept(&mut self) {
        loop {
            let stream = match self.listener.accept() {
                Ok(Some(s)) => s,
                Ok(None) => return,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                // Out of descriptors or similar: try again on the next
                // event rather than spin.
                Err(_) => return,
            };
            let Ok(creds) = stream.peer_credentials() else {
                continue;
            };
            let token = Token(self.next_token);
            self.next_token += 1;
            let mut conn = Connection::new(stream, wire::HANDSHAKE_MAX_BODY, 0, true);
            if self
                .poll
                .registry()
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
            // Bytes may already be waiting (edge-triggered registration).
            self.read(token);
        }
    }

    fn read(&mut self, token: Token) {
        let mut frames = Vec::new();
        let res = match self.peers.get_mut(&token) {
            Some(p) => p.conn.read_frames(&mut frames),
            None => return,
        };
        for f in frames {
            if !self.peers.contains_key(&token) {
                return;
            }
            if let Err(_e) = self.frame(token, f) {
                self.close(token);
                return;
            }
        }
        match res {
            Ok(ReadState::Open) => {}
            Ok(ReadState::Closed) | Err(_) => self.close(token),
        }
    }

    fn flush(&mut self, token: Token) {
        let Some(p) = self.peers.get_mut(&token) else {
            return;
        };
        match p.conn.flush() {
            Ok(true) if p.closing => self.close(token),
            Ok(_) => self.update_write_interest(token),
            Err(_) => self.close(token),
        }
    }

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

    /// Registers the connection for writability while it has output
    /// queued, and only then.
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
            .poll
            .registry()
            .reregister(p.conn.stream_mut(), token, interest)
            .is_err()
        {
            return self.close(token);
        }
        p.write_interest = want;
    }

    /// Sends `msg` then closes the connection once it is written.
    fn send_and_close(&mut self, token: Token, id: u32, msg: &Message) {
        self.send(token, id, msg, Vec::new());
        if let Some(p) = self.peers.get_mut(&token) {
            p.closing = true;
            if !p.conn.has_pending_output() {
                self.close(token);
            }
        }
    }

    fn close(&mut self, token: Token) {
        let Some(mut peer) = self.peers.remove(&token) else {
            return;
        };
        let _ = self.poll.registry().deregister(peer.conn.stream_mut());
        let Some(proc) = peer.proc().cloned() else {
            return;
        };
        if self.by_proc.get(&proc) == Some(&token) {
            self.by_proc.remove(&proc);
        }
        if peer.finalized {
            return;
        }
        // The process left without finalizing: whatever waits on it fails.
        self.departed.insert(proc.clone());
        self.fail_fences_of(&proc, Status::ERR_LOST_CONNECTION, false);
        self.collectives_proc_left(&proc);
        self.release_local_waiters(&proc);
        self.host.client_lost(&proc);
        self.client_lost_event(&proc);
    }

    // ------------------------------------------------------------------
    // Messages

    fn frame(&mut self, token: Token, f: Frame) -> Result<(), WireError> {
        let id = f.header.id;
        let msg = f.message()?;
        let state = match self.peers.get(&token) {
            Some(p) => match &p.state {
                PeerState::AwaitHandshake => None,
                PeerState::Connecting(_) => {
                    // Nothing may come before the handshake's answer.
                    return Err(WireError::UnknownKind(msg.kind() as u16));
                }
                PeerState::Ready(proc) => Some(proc.clone()),
            },
            None => return Ok(()),
        };
        let Some(proc) = state else {
            return match msg {
                Message::Handshake(h) => {
                    self.handshake(token, id, h);
                    Ok(())
                }
                other => Err(WireError::UnknownKind(other.kind() as u16)),
            };
        };
        match msg {
            Message::Commit(items) => self.commit(&proc, items),
            Message::Request(q) => self.service(Caller { token, id }, &proc, q),
            Message::FenceRequest(f) => self.fence_enter(token, id, &proc, f),
            Message::DmodexRequest(d) => self.dmodex(token, id, &proc, d),
            Message::NspaceRequest(ns) => self.nspace_segments(token, id, &ns),
            Message::Abort(a) => {
                let op = self.new_op(PendingOp::Abort { token, id });
                let msg = a.message.as_ref().map(|m| m.to_string_lossy().into_owned());
                let r = self.host.abort(
                    &proc,
                    a.status,
                    msg.as_deref(),
                    &a.procs,
                    Completion::new(op, self.notifier.clone()),
                );
                if let Err(s) = r {
                    self.op_done(op, Err(s));
                }
            }
            Message::Finalize => {
                if let Some(p) = self.peers.get_mut(&token) {
                    p.finalized = true;
                }
                self.departed.insert(proc.clone());
                self.release_local_waiters(&proc);
                // A fence it never entered cannot complete any more.
                self.fail_fences_of(&proc, Status::ERR_LOST_CONNECTION, true);
                self.collectives_proc_left(&proc);
                let op = self.new_op(PendingOp::Finalize { token, id });
                let r = self
                    .host
                    .client_finalized(&proc, Completion::new(op, self.notifier.clone()));
                if let Err(s) = r {
                    self.op_done(
                        op,
                        unsupported_is_ok(s)
                            .map(|()| Box::new(()) as Box<dyn std::any::Any + Send>),
                    );
                }
            }
            other => return Err(WireError::UnknownKind(other.kind() as u16)),
        }
        Ok(())
    }

    fn refuse(&mut self, token: Token, id: u32, status: Status) {
        let m = Message::HandshakeReply(HandshakeReply {
            status,
            server: self.server.clone(),
            segments: Vec::new(),
        });
        self.send_and_close(token, id, &m);
    }

    fn handshake(&mut self, token: Token, id: u32, h: wire::Handshake) {
        if h.version != u32::from(wire::PROTOCOL_VERSION) {
            return self.refuse(token, id, Status::ERR_NOT_SUPPORTED);
        }
        let Some(creds) = self.peers.get(&token).map(|p| p.creds) else {
            return;
        };
        if let Err(s) = self.registry.authenticate(&h.proc, &creds, &h.secret) {
            return self.refuse(token, id, s);
        }
        if self.by_proc.contains_key(&h.proc) {
            return self.refuse(token, id, Status::ERR_EXISTS);
        }
        let proc = h.proc;
        self.by_proc.insert(proc.clone(), token);
        if let Some(p) = self.peers.get_mut(&token) {
            p.state = PeerState::Connecting(proc.clone());
            p.conn.set_max_body(self.max_body);
        }
        let op = self.new_op(PendingOp::Connect { token, id });
        let r = self
            .host
            .client_connected(&proc, Completion::new(op, self.notifier.clone()));
        if let Err(s) = r {
            self.op_done(
                op,
                unsupported_is_ok(s).map(|()| Box::new(()) as Box<dyn std::any::Any + Send>),
            );
        }
    }

    fn finish_connect(&mut self, token: Token, id: u32, result: Result<(), Status>) {
        let Some(proc) = self.peers.get(&token).and_then(|p| match &p.state {
            PeerState::Connecting(p) => Some(p.clone()),
            _ => None,
        }) else {
            return;
        };
        if let Err(s) = result {
            if self.by_proc.get(&proc) == Some(&token) {
                self.by_proc.remove(&proc);
            }
            // Not a departure: the process never joined.
            if let Some(p) = self.peers.get_mut(&token) {
                p.state = PeerState::AwaitHandshake;
            }
            return self.refuse(token, id, s);
        }
        let Some(ns) = self.registry.nspace(&proc.nspace) else {
            if let Some(p) = self.peers.get_mut(&token) {
                p.state = PeerState::AwaitHandshake;
            }
            self.by_proc.remove(&proc);
            return self.refuse(token, id, Status::ERR_NOT_FOUND);
        };
        self.departed.remove(&proc);
        let mut segments = Vec::new();
        let mut fds = Vec::new();
        let ok = push_job_segment(&proc.nspace, &ns, &mut segments, &mut fds)
            && self
                .modex
                .get(&proc.nspace)
                .into_iter()
                .flatten()
                .all(|m| push_modex(&proc.nspace, m, &mut segments, &mut fds));
        let status = if ok {
            Status::SUCCESS
        } else {
            segments.clear();
            fds.clear();
            Status::ERR_OUT_OF_RESOURCE
        };
        if let Some(p) = self.peers.get_mut(&token) {
            p.state = PeerState::Ready(proc);
        }
        // One frame carries a bounded number of descriptors: what does
        // not fit the reply's frame goes ahead of it.
        while segments.len() > wire::frame::MAX_FDS_PER_FRAME {
            let rest_s = segments.split_off(wire::frame::MAX_FDS_PER_FRAME);
            let rest_f = fds.split_off(wire::frame::MAX_FDS_PER_FRAME);
            let head = Message::Segments(std::mem::replace(&mut segments, rest_s));
            let head_fds = std::mem::replace(&mut fds, rest_f);
            self.send(token, id, &head, head_fds);
        }
        let m = Message::HandshakeReply(HandshakeReply {
            status,
            server: self.server.clone(),
            segments,
        });
        self.send(token, id, &m, fds);
    }

    fn commit(&mut self, proc: &Proc, items: Vec<Posted>) {
        // PMIX_INTERNAL stays in the process that put it.
        let items = items
            .into_iter()
            .filter(|p| p.scope != pmix_shmem::Scope::Internal)
            .collect();
        let items: Vec<Posted> = items;
        let n = items.len();
        let committed = self.committed.entry(proc.clone()).or_default();
        let before = committed.len();
        wire::merge_posted(committed, items);
        if committed.len() != before + n {
            // A value already committed was replaced: a delta generation
            // would miss it.
            if let Some(f) = self.fenced.get_mut(proc) {
                f.overwritten = true;
            }
        }
        self.release_local_waiters(proc);
    }

    // ------------------------------------------------------------------
    // Fences

    /// Local participants of `procs`: every local rank of a wildcard's
    /// namespace, and the listed ranks that are local.
    pub(super) fn local_participants(&self, procs: &[Proc]) -> BTreeSet<Proc> {
        let mut out = BTreeSet::new();
        for p in procs {
            let Some(ns) = self.registry.nspace(&p.nspace) else {
                continue;
            };
            if p.rank == Rank::WILDCARD {
                out.extend(
                    ns.local_ranks
                        .iter()
                        .map(|&r| Proc::new(p.nspace.clone(), Rank(r))),
                );
            } else if ns.is_local(p.rank.0) {
                out.insert(p.clone());
            }
        }
        out
    }

    /// True if every process of `procs` runs on this node.
    pub(super) fn all_local(&self, procs: &[Proc]) -> bool {
        procs.iter().all(|p| {
            self.registry.nspace(&p.nspace).is_some_and(|ns| {
                if p.rank == Rank::WILDCARD {
                    ns.all_local()
                } else {
                    ns.is_local(p.rank.0)
                }
            })
        })
    }

    fn release_fence_one(&mut self, token: Token, id: u32, status: Status) {
        let m = Message::FenceRelease(FenceRelease {
            status,
            segments: Vec::new(),
        });
        self.send(token, id, &m, Vec::new());
    }

    fn fence_enter(&mut self, token: Token, id: u32, caller: &Proc, req: FenceRequest) {
        let procs = fence::normalize(req.procs, caller);
        if !fence::includes(&procs, caller) {
            return self.release_fence_one(token, id, Status::ERR_BAD_PARAM);
        }
        let d = Directives::parse(&req.infos);
        let existing = self.fences_by_set.get(&procs).copied().filter(|f| {
            // A failed fence the caller already left is over for it: a new
            // attempt over the same set starts afresh.
            let stale = self
                .fences
                .get(f)
                .is_some_and(|t| t.failed.is_some() && t.arrived.iter().any(|a| &a.proc == caller));
            if stale {
                self.fences.remove(f);
            }
            !stale
        });
        let fid = match existing {
            Some(f) => f,
            None => {
                let expected = self.local_participants(&procs);
                let fid = self.next_fence;
                self.next_fence += 1;
                self.fences_by_set.insert(procs.clone(), fid);
                self.fences.insert(
                    fid,
                    Tracker {
                        procs,
                        infos: req.infos,
                        collect: false,
                        expected,
                        arrived: Vec::new(),
                        deadline: None,
                        host_op: None,
                        failed: None,
                    },
                );
                fid
            }
        };
        let Some(t) = self.fences.get_mut(&fid) else {
            return;
        };
        if t.arrived.iter().any(|a| &a.proc == caller) {
            return self.release_fence_one(token, id, Status::ERR_BAD_PARAM);
        }
        t.expected.insert(caller.clone());
        t.arrived.push(Arrival {
            proc: caller.clone(),
            token,
            id,
        });
        if let Some(s) = t.failed {
            self.release_fence_one(token, id, s);
            return self.retire_failed(fid);
        }
        let gone = |p: &Proc| self.departed.contains(p) && !t.arrived.iter().any(|a| &a.proc == p);
        if t.expected.iter().any(gone) {
            return self.fail_fence(fid, Status::ERR_LOST_CONNECTION);
        }
        t.collect |= d.collect;
        if let Some(dl) = d.deadline() {
            if t.deadline.map_or(true, |old| dl < old) {
                if let Some(old) = t.deadline {
                    self.timers.remove(&(old, TimerKey::Fence(fid)));
                }
                t.deadline = Some(dl);
                self.timers.insert((dl, TimerKey::Fence(fid)));
            }
        }
        if t.complete() {
            self.fence_start(fid);
        }
    }

    /// Fails a fence that has not reached the host: releases the
    /// participants that arrived with `status` and tells the host (with
    /// `PMIX_LOCAL_COLLECTIVE_STATUS`), so the servers of other nodes in
    /// the fence do not wait for this node's contribution forever. The
    /// tracker stays, failed, until every local participant arrived or
    /// left, so that late arrivals fail at once and the host hears of the
    /// failure only once.
    fn fail_fence(&mut self, fid: u64, status: Status) {
        let Some(t) = self.fences.get_mut(&fid) else {
            return;
        };
        if t.failed.is_some() || t.host_op.is_some() {
            return;
        }
        t.failed = Some(status);
        if let Some(dl) = t.deadline.take() {
            self.timers.remove(&(dl, TimerKey::Fence(fid)));
        }
        let arrived: Vec<(Token, u32)> = t.arrived.iter().map(|a| (a.token, a.id)).collect();
        let procs = t.procs.clone();
        let mut infos = t.infos.clone();
        if let Ok(k) = Key::new(keys::LOCAL_COLLECTIVE_STATUS) {
            infos.push(Info::new(k, Value::Status(status.code())));
        }
        for (token, id) in arrived {
            self.release_fence_one(token, id, status);
        }
        let op = self.new_op(PendingOp::Ignored);
        let r = self.host.fence_nb(
            &procs,
            &infos,
            Vec::new(),
            Completion::new(op, self.notifier.clone()),
        );
        if r.is_err() {
            self.ops.remove(&op);
        }
        self.retire_failed(fid);
    }

    /// Forgets a failed tracker once no local participant can still arrive.
    fn retire_failed(&mut self, fid: u64) {
        let Some(t) = self.fences.get(&fid) else {
            return;
        };
        let done = t
            .expected
            .iter()
            .all(|p| self.departed.contains(p) || t.arrived.iter().any(|a| &a.proc == p));
        if done {
            self.fences_by_set.remove(&t.procs);
            self.fences.remove(&fid);
        }
    }

    /// Every local participant arrived: hand the fence to the host, or
    /// complete it here.
    fn fence_start(&mut self, fid: u64) {
        let Some(t) = self.fences.get(&fid) else {
            return;
        };
        self.fences_by_set.remove(&t.procs);
        // This node's contribution: what other nodes may see of each local
        // participant.
        let mut data = Vec::new();
        if t.collect {
            for p in &t.expected {
                let posted = self.committed.get(p).map(Vec::as_slice).unwrap_or(&[]);
                if let Err(s) = modex::put_record(&mut data, p, posted, Scopes::REMOTE_PEER) {
                    return self.fence_done(fid, Err(s));
                }
            }
        }
        let procs = t.procs.clone();
        let infos = t.infos.clone();
        let op = self.new_op(PendingOp::Fence(fid));
        if let Some(t) = self.fences.get_mut(&fid) {
            t.host_op = Some(op);
        }
        let r = self.host.fence_nb(
            &procs,
            &infos,
            data,
            Completion::new(op, self.notifier.clone()),
        );
        match r {
            Ok(()) => {}
            Err(s) if s == Status::ERR_NOT_SUPPORTED && self.all_local(&procs) => {
                // Single node: the local participants' data is all there is
                // (fence_done reads it from the committed store).
                self.ops.remove(&op);
                self.fence_done(fid, Ok(Vec::new()));
            }
            Err(s) => {
                self.ops.remove(&op);
                self.fence_done(fid, Err(s));
            }
        }
    }

    /// The fence's collective part finished with `result` (every node's
    /// contribution): build the new modex generation and release the local
    /// participants.
    fn fence_done(&mut self, fid: u64, result: Result<Vec<u8>, Status>) {
        let Some(t) = self.fences.remove(&fid) else {
            return;
        };
        if let Some(dl) = t.deadline {
            self.timers.remove(&(dl, TimerKey::Fence(fid)));
        }
        let mut segments = Vec::new();
        let status = match result {
            Ok(data) if t.collect => match self.build_modex(&t, &data) {
                Ok(segs) => {
                    segments = segs;
                    // The generations now hold everything they committed.
                    for p in &t.expected {
                        let len = self.committed.get(p).map_or(0, Vec::len);
                        self.fenced.insert(
                            p.clone(),
                            modex::Fenced {
                                len,
                                overwritten: false,
                            },
                        );
                    }
                    Status::SUCCESS
                }
                Err(s) => s,
            },
            Ok(_) => Status::SUCCESS,
            Err(s) => s,
        };
        let mut refs: Vec<SegmentRef> = Vec::with_capacity(segments.len());
        let mut sealed = Vec::with_capacity(segments.len());
        for (ns, m) in segments {
            let kept = self.modex.entry(ns.clone()).or_default();
            modex::push_generation(kept, m);
            let m = kept.last().expect("just pushed");
            refs.push(m.seg_ref(&ns));
            sealed.push(m.sealed.clone());
        }
        for a in &t.arrived {
            let fds: Result<Vec<OwnedFd>, _> =
                sealed.iter().map(|s| s.fd().try_clone_to_owned()).collect();
            let (m, fds) = match fds {
                Ok(fds) => (
                    Message::FenceRelease(FenceRelease {
                        status,
                        segments: refs.clone(),
                    }),
                    fds,
                ),
                Err(_) => (
                    Message::FenceRelease(FenceRelease {
                        status: Status::ERR_OUT_OF_RESOURCE,
                        segments: Vec::new(),
                    }),
                    Vec::new(),
                ),
            };
            self.send(a.token, a.id, &m, fds);
        }
    }

    fn build_modex(&self, t: &Tracker, data: &[u8]) -> Result<Vec<(Nspace, ModexSegment)>, Status> {
        // When every participant is local the host's answer can only hold
        // this node's own contribution, which is read from the committed
        // store below: do not decode it again.
        let all_local = self.all_local(&t.procs);
        let remote = if all_local {
            Vec::new()
        } else {
            blob::decode(data).map_err(|_| Status::ERR_UNPACK_FAILURE)?
        };
        let delta = all_local && self.delta_allowed(t);
        let empty = Vec::new();
        let mut records: Vec<(&Proc, &Posted)> = Vec::new();
        let mut participants: Vec<&Proc> = t.expected.iter().collect();
        for p in &t.expected {
            let posted = self.committed.get(p).unwrap_or(&empty);
            // A delta: only what was committed since the kept generations.
            let from = if delta {
                self.fenced.get(p).map_or(0, |f| f.len.min(posted.len()))
            } else {
                0
            };
            records.extend(
                posted[from..]
                    .iter()
                    .filter(|x| Scopes::LOCAL_PEER.contains(x.scope))
                    .map(|x| (p, x)),
            );
        }
        for rec in &remote {
            if t.expected.contains(&rec.proc) || self.registry.is_local(&rec.proc) {
                continue;
            }
            participants.push(&rec.proc);
            records.extend(
                rec.posted
                    .iter()
                    .filter(|x| Scopes::REMOTE_PEER.contains(x.scope))
                    .map(|x| (&rec.proc, x)),
            );
        }
        let reg = &self.registry;
        let mut segs = modex::build_segments(participants, records, || reg.next_generation())?;
        for (_, m) in &mut segs {
            m.delta = delta;
        }
        Ok(segs)
    }

    /// True if the collecting fence `t` (all local) may build a delta
    /// generation: one namespace, whose current full generation has
    /// exactly these participants, and none of them replaced a value
    /// since (see `modex`).
    fn delta_allowed(&self, t: &Tracker) -> bool {
        let mut nss = t.expected.iter().map(|p| &p.nspace);
        let Some(ns) = nss.next() else {
            return false;
        };
        if !nss.all(|n| n == ns) {
            return false;
        }
        let Some(kept) = self.modex.get(ns) else {
            return false;
        };
        let ranks: BTreeSet<u32> = t.expected.iter().map(|p| p.rank.0).collect();
        modex::delta_allowed(kept, &ranks)
            && t.expected.iter().all(|p| {
                self.fenced.get(p).is_some_and(|f| {
                    !f.overwritten && f.len <= self.committed.get(p).map_or(0, Vec::len)
                })
            })
    }

    /// `proc` left: fences it belongs to (with `only_missing`, those it
    /// has not entered) and that have not reached the host fail.
    fn fail_fences_of(&mut self, proc: &Proc, status: Status, only_missing: bool) {
        let ids: Vec<u64> = self
            .fences
            .iter()
            .filter(|(_, t)| {
                t.host_op.is_none()
                    && t.involves(proc)
                    && !(only_missing && t.arrived.iter().any(|a| &a.proc == proc))
            })
            .map(|(&id, _)| id)
            .collect();
        for fid in ids {
            self.fail_fence(fid, status);
            self.retire_failed(fid);
        }
    }

    // ------------------------------------------------------------------
    // Direct modex

    fn dmodex(&mut self, token: Token, id: u32, _caller: &Proc, req: DmodexRequest) {
        let d = Directives::parse(&req.infos);
        let target = req.proc;
        if target.rank.0 > Rank::VALID.0 {
            return self.reply_dmodex(token, id, Err(Status::ERR_BAD_PARAM));
        }
        let waiter_id = self.next_waiter;
        self.next_waiter += 1;
        let w = Waiter {
            id: waiter_id,
            to: WaiterTo::Client { token, id },
        };
        if self.registry.is_local(&target) {
            if let Some(posted) = self.committed.get(&target) {
                let r = record_of(&target, posted, Scopes::LOCAL_PEER);
                return self.reply_dmodex(token, id, r);
            }
            if self.departed.contains(&target) || d.immediate {
                return self.reply_dmodex(token, id, Err(Status::ERR_NOT_FOUND));
            }
            self.local_waiters.entry(target).or_default().push(w);
        } else {
            let first = !self.remote_waiters.contains_key(&target);
            self.remote_waiters
                .entry(target.clone())
                .or_default()
                .push(w);
            if first {
                let op = self.new_op(PendingOp::DirectModex(target.clone()));
                let r = self.host.direct_modex(
                    &target,
                    &req.infos,
                    Completion::new(op, self.notifier.clone()),
                );
                if let Err(s) = r {
                    let s = if s == Status::ERR_NOT_SUPPORTED {
                        Status::ERR_NOT_FOUND
                    } else {
                        s
                    };
                    self.op_done(op, Err(s));
                    return;
                }
            }
        }
        if let Some(dl) = d.deadline() {
            self.timers.insert((dl, TimerKey::Waiter(waiter_id)));
        }
    }

    fn host_dmodex(&mut self, proc: Proc, done: DmodexCallback) {
        if !self.registry.is_local(&proc) {
            return done(Err(Status::ERR_NOT_FOUND));
        }
        if let Some(posted) = self.committed.get(&proc) {
            return done(record_of(&proc, posted, Scopes::REMOTE_PEER));
        }
        if self.departed.contains(&proc) {
            return done(Err(Status::ERR_NOT_FOUND));
        }
        let id = self.next_waiter;
        self.next_waiter += 1;
        self.local_waiters.entry(proc).or_default().push(Waiter {
            id,
            to: WaiterTo::Host(done),
        });
    }

    /// `proc` committed, finalized or left: answer whoever waits for its
    /// data.
    fn release_local_waiters(&mut self, proc: &Proc) {
        let Some(waiters) = self.local_waiters.remove(proc) else {
            return;
        };
        for w in waiters {
            let scopes = match w.to {
                WaiterTo::Client { .. } => Scopes::LOCAL_PEER,
                WaiterTo::Host(_) => Scopes::REMOTE_PEER,
            };
            let r = match self.committed.get(proc) {
                Some(posted) => record_of(proc, posted, scopes),
                None => Err(Status::ERR_NOT_FOUND),
            };
            self.answer(w, r);
        }
    }

    fn answer(&mut self, w: Waiter, r: Result<Vec<u8>, Status>) {
        self.timers.retain(|(_, k)| *k != TimerKey::Waiter(w.id));
        match w.to {
            WaiterTo::Client { token, id } => self.reply_dmodex(token, id, r),
            WaiterTo::Host(done) => done(r),
        }
    }

    fn reply_dmodex(&mut self, token: Token, id: u32, r: Result<Vec<u8>, Status>) {
        let m = Message::DmodexReply(match r {
            Ok(data) => DmodexReply {
                status: Status::SUCCESS,
                data,
            },
            Err(status) => DmodexReply {
                status,
                data: Vec::new(),
            },
        });
        self.send(token, id, &m, Vec::new());
    }

    // ------------------------------------------------------------------
    // Accessors for the services (`services.rs` and the modules it calls)

    /// The registered namespaces and clients.
    #[allow(dead_code)]
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The host module.
    #[allow(dead_code)]
    pub(crate) fn host(&self) -> &Arc<dyn HostModule> {
        &self.host
    }

    /// The command channel to this loop.
    #[allow(dead_code)]
    pub(crate) fn notifier(&self) -> &Notifier {
        &self.notifier
    }

    /// The server's own identity.
    #[allow(dead_code)]
    pub(crate) fn server_proc(&self) -> &Proc {
        &self.server
    }

    /// The connection of the (authenticated) client `proc`, if connected.
    #[allow(dead_code)]
    pub(crate) fn token_of(&self, proc: &Proc) -> Option<Token> {
        self.by_proc.get(proc).copied().filter(|t| {
            self.peers
                .get(t)
                .is_some_and(|p| matches!(p.state, PeerState::Ready(_)))
        })
    }

    /// The kernel's credentials (pid, uid, gid) of the connected client
    /// `proc`'s socket.
    pub(crate) fn peer_creds(&self, proc: &Proc) -> Option<crate::net::PeerCredentials> {
        let t = self.token_of(proc)?;
        self.peers.get(&t).map(|p| p.creds)
    }

    /// Every connected, authenticated client.
    #[allow(dead_code)]
    pub(crate) fn connected_procs(&self) -> Vec<Proc> {
        self.peers
            .values()
            .filter_map(|p| match &p.state {
                PeerState::Ready(proc) => Some(proc.clone()),
                _ => None,
            })
            .collect()
    }

    /// Sends a message without descriptors to a connection.
    #[allow(dead_code)]
    pub(crate) fn send_msg(&mut self, token: Token, id: u32, msg: &Message) {
        self.send(token, id, msg, Vec::new());
    }

    /// Records a pending operation; returns its number.
    #[allow(dead_code)]
    pub(crate) fn new_pending(&mut self, op: PendingOp) -> u64 {
        self.new_op(op)
    }

    /// Forgets a pending operation without resolving it (its answer, if
    /// one comes, is ignored).
    pub(crate) fn take_pending(&mut self, op: u64) -> Option<PendingOp> {
        self.ops.remove(&op)
    }

    /// Resolves a pending operation with `result`.
    #[allow(dead_code)]
    pub(crate) fn finish_op(&mut self, op: u64, result: OpResult) {
        self.op_done(op, result);
    }

    // ------------------------------------------------------------------
    // Host completions, timers, teardown

    fn new_op(&mut self, op: PendingOp) -> u64 {
        let id = self.next_op;
        self.next_op += 1;
        self.ops.insert(id, op);
        id
    }

    fn op_done(&mut self, op: u64, result: OpResult) {
        let Some(pending) = self.ops.remove(&op) else {
            // Already resolved (refused synchronously, timed out, or a
            // dropped completion after an explicit one).
            return;
        };
        let unit = |r: OpResult| r.map(|_| ());
        let data = |r: OpResult| take_result::<Vec<u8>>(r);
        match pending {
            PendingOp::Connect { token, id } => self.finish_connect(token, id, unit(result)),
            PendingOp::Finalize { token, id } => {
                let s = unit(result).err().unwrap_or(Status::SUCCESS);
                self.send(token, id, &Message::FinalizeReply(s), Vec::new());
            }
            PendingOp::Abort { token, id } => {
                let s = unit(result).err().unwrap_or(Status::SUCCESS);
                self.send(token, id, &Message::AbortReply(s), Vec::new());
            }
            PendingOp::Fence(fid) => self.fence_done(fid, data(result)),
            PendingOp::DirectModex(proc) => {
                let r = data(result);
                for w in self.remote_waiters.remove(&proc).unwrap_or_default() {
                    self.answer(w, r.clone());
                }
            }
            PendingOp::Collective(cid) => self.collective_done(cid, unit(result)),
            PendingOp::Ignored => {}
            PendingOp::Service { caller, encoder } => {
                let r = encoder(result);
                self.respond(caller, r);
            }
        }
    }

    fn fire_timers(&mut self) {
        let now = Instant::now();
        while let Some(&(t, key)) = self.timers.first() {
            if t > now {
                break;
            }
            self.timers.remove(&(t, key));
            match key {
                TimerKey::Fence(fid) => match self.fences.get(&fid).and_then(|t| t.host_op) {
                    // At the host: its answer, when it comes, is ignored.
                    Some(op) => {
                        self.ops.remove(&op);
                        self.fence_done(fid, Err(Status::ERR_TIMEOUT));
                    }
                    None => self.fail_fence(fid, Status::ERR_TIMEOUT),
                },
                TimerKey::Collective(cid) => self.collective_timeout(cid),
                TimerKey::Waiter(wid) => {
                    let w = take_waiter(&mut self.local_waiters, wid)
                        .or_else(|| take_waiter(&mut self.remote_waiters, wid));
                    if let Some(w) = w {
                        self.answer(w, Err(Status::ERR_TIMEOUT));
                    }
                }
            }
        }
    }

    fn nspace_gone(&mut self, ns: &Nspace) {
        self.modex.remove(ns);
        self.fenced.retain(|p, _| p.nspace != *ns);
        self.committed.retain(|p, _| &p.nspace != ns);
        self.departed.retain(|p| &p.nspace != ns);
    }
}

/// A host's refusal of a notification: without the callback, the
/// operation (connect, finalize) simply succeeds.
fn unsupported_is_ok(s: Status) -> Result<(), Status> {
    if s == Status::ERR_NOT_SUPPORTED {
        Ok(())
    } else {
        Err(s)
    }
}

fn take_waiter(map: &mut HashMap<Proc, Vec<Waiter>>, id: u64) -> Option<Waiter> {
    let mut found = None;
    for list in map.values_mut() {
        if let Some(i) = list.iter().position(|w| w.id == id) {
            found = Some(list.remove(i));
            break;
        }
    }
    map.retain(|_, l| !l.is_empty());
    found
}

fn record_of(proc: &Proc, posted: &[Posted], scopes: Scopes) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    modex::put_record(&mut out, proc, posted, scopes)?;
    Ok(out)
}

pub(super) fn push_job_segment(
    nspace: &Nspace,
    ns: &NsRecord,
    segments: &mut Vec<SegmentRef>,
    fds: &mut Vec<OwnedFd>,
) -> bool {
    match ns.job_segment.fd().try_clone_to_owned() {
        Ok(fd) => {
            segments.push(SegmentRef {
                nspace: nspace.clone(),
                kind: SegmentKind::Job,
                generation: ns.generation,
            });
            fds.push(fd);
            true
        }
        Err(_) => false,
    }
}

pub(super) fn push_modex(
    nspace: &Nspace,
    m: &ModexSegment,
    segments: &mut Vec<SegmentRef>,
    fds: &mut Vec<OwnedFd>,
) -> bool {
    match m.sealed.fd().try_clone_to_owned() {
        Ok(fd) => {
            segments.push(m.seg_ref(nspace));
            fds.push(fd);
            true
        }
        Err(_) => false,
    }
}
