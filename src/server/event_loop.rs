//! The server's progress thread: one `mio` loop over the listening socket,
//! every client connection and the command channel (woken by a
//! `mio::Waker`), with the earliest deadline as its timeout. It owns the
//! [`State`] and dispatches: frames to their handlers, host completions to
//! what waits for them, deadlines to what they end. The handlers and the
//! state's rooms do the work.
//!
//! Invariants:
//! - Every pass handles the ready sockets, then the commands, then the
//!   expired deadlines, then the commands those produced, and fans out
//!   every departure queued by a closed connection before it polls again
//!   (so a command sent from the loop's own thread, which does not wake
//!   it, is handled in the same pass).
//! - Nothing but a `Handshake` is read from a connection that has not
//!   authenticated, nothing at all while the host decides on it, and
//!   nothing after a `Finalize`; a frame that breaks these rules or does
//!   not decode closes the connection, with one log line naming the peer
//!   and the error; so does a connection that has not sent its handshake
//!   within `HANDSHAKE_LIMIT` of being accepted.

use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a stopping server keeps writing forwarded output to tools.
const LINGER: Duration = Duration::from_secs(1);

use crossbeam_channel::Receiver;
use mio::{Events, Interest, Poll, Token};

use super::clients::connections::{
    Caller, Connections, PeerState, HANDSHAKE_LIMIT, LISTENER, STOCK_V4, STOCK_V6, WAKER,
};
use super::clients::lifecycle as clients;
use super::command::{Command, Notifier};
use super::host::{HostModule, OpResult};
use super::modex::{dmodex, fence};
use super::ops::PendingOp;
use super::registry::Registry;
use super::state::{State, Wiring};
use super::timers::TimerKey;
use super::{collective, connect, departures, groups, monitor, services};
use crate::net::Listener;
use crate::wire::{Frame, Message, WireError};
use crate::{Proc, Status};

pub(crate) struct EventLoop {
    poll: Poll,
    listener: Listener,
    /// The stock door's listeners (see `super::stock`), if it is open.
    stock: Option<super::stock::StockListeners>,
    rx: Receiver<Command>,
    notifier: Notifier,
    st: State,
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
        tools: bool,
        mut stock: Option<super::stock::StockListeners>,
    ) -> std::io::Result<EventLoop> {
        poll.registry()
            .register(&mut listener, LISTENER, Interest::READABLE)?;
        if let Some(s) = &mut stock {
            poll.registry()
                .register(&mut s.v4, STOCK_V4, Interest::READABLE)?;
            if let Some(v6) = &mut s.v6 {
                poll.registry().register(v6, STOCK_V6, Interest::READABLE)?;
            }
        }
        let conns = Connections::new(poll.registry().try_clone()?, max_body);
        let sink = Arc::new(notifier.clone());
        let wiring = Wiring {
            registry,
            host,
            sink,
            server,
            events,
            tools,
        };
        let st = State::new(conns, wiring);
        Ok(EventLoop {
            poll,
            listener,
            stock,
            rx,
            notifier,
            st,
        })
    }

    /// Runs until a `Shutdown` command (or the channel closes).
    pub(super) fn run(mut self) {
        let mut events = Events::with_capacity(256);
        self.notifier.enter_loop();
        super::modex::store::warm_up();
        loop {
            let timeout = self.st.timers().next_in(Instant::now());
            if let Err(e) = self.poll.poll(&mut events, timeout) {
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return;
            }
            for ev in events.iter() {
                match ev.token() {
                    LISTENER => {
                        for t in self.st.conns_mut().accept(&self.listener) {
                            let dl = Instant::now() + HANDSHAKE_LIMIT;
                            self.st.timers_mut().set(dl, TimerKey::Handshake(t));
                            // Bytes may already wait (edge-triggered), or
                            // the peer's end: read it all.
                            self.read(t, true);
                        }
                    }
                    WAKER => {}
                    STOCK_V4 | STOCK_V6 => self.accept_stock(ev.token()),
                    t => {
                        let hung_up = ev.is_read_closed() || ev.is_error();
                        if ev.is_readable() || hung_up {
                            self.read(t, hung_up);
                        }
                        if ev.is_writable() {
                            self.st.conns_mut().flush(t);
                            super::iof::service::drained(&mut self.st, t);
                            self.resume(t);
                        }
                    }
                }
                self.departures();
            }
            if !self.drain_commands() {
                return self.linger();
            }
            self.fire_timers();
            // What the timers' host callbacks completed at once.
            if !self.drain_commands() {
                return self.linger();
            }
        }
    }

    /// At shutdown: forwarded output still queued for tools is written
    /// out, for at most [`LINGER`], so that a job's last lines reach the
    /// tools attached to it (a tool that does not read loses them).
    fn linger(&mut self) {
        let deadline = Instant::now() + LINGER;
        let mut events = Events::with_capacity(64);
        // Writes what the sockets take now (a writability edge may have
        // passed already); then waits for room, only while output waits.
        for t in super::iof::service::tokens(&self.st) {
            self.st.conns_mut().flush(t);
            super::iof::service::drained(&mut self.st, t);
        }
        while super::iof::service::unsent(&self.st) {
            let now = Instant::now();
            if now >= deadline {
                return;
            }
            if let Err(e) = self.poll.poll(&mut events, Some(deadline - now)) {
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return;
            }
            for ev in events.iter() {
                let t = ev.token();
                if t == LISTENER || t == WAKER || t == STOCK_V4 || t == STOCK_V6 {
                    continue;
                }
                if ev.is_read_closed() || ev.is_error() {
                    self.st.conns_mut().close(t);
                } else if ev.is_writable() {
                    self.st.conns_mut().flush(t);
                    super::iof::service::drained(&mut self.st, t);
                }
            }
        }
    }

    /// Accepts the stock door's pending connections on `which` listener;
    /// each then has [`HANDSHAKE_LIMIT`] to send its connect message.
    fn accept_stock(&mut self, which: Token) {
        let Some(s) = &self.stock else {
            return;
        };
        let listener = match (which, &s.v6) {
            (STOCK_V6, Some(v6)) => v6,
            _ => &s.v4,
        };
        for t in self.st.conns_mut().accept_stock(listener, &s.hostname) {
            let dl = Instant::now() + HANDSHAKE_LIMIT;
            self.st.timers_mut().set(dl, TimerKey::Handshake(t));
            self.read(t, true);
        }
    }

    fn drain_commands(&mut self) -> bool {
        while let Ok(cmd) = self.rx.try_recv() {
            match cmd {
                Command::OpDone { op, result } => self.op_done(op, result),
                Command::HostDmodex { proc, done } => {
                    dmodex::host_request(&mut self.st, proc, done)
                }
                Command::NspaceGone(ns) => departures::nspace_deregistered(&mut self.st, &ns),
                Command::ClientGone(p) => departures::deregistered(&mut self.st, &p),
                Command::Run(task) => task(&mut self.st),
                Command::Defer(f) => f(),
                Command::Shutdown => return false,
            }
            self.departures();
        }
        true
    }

    /// Fans out the departures of connections closed since the last call.
    fn departures(&mut self) {
        departures::fan_out(&mut self.st);
    }

    fn read(&mut self, token: Token, hung_up: bool) {
        // A throttled peer is read again when its output drained.
        if self.st.conns().is_throttled(token) {
            return;
        }
        let (frames, open) = self.st.conns_mut().read(token, hung_up);
        self.st.conns_mut().hold(token, frames, open);
        self.serve(token);
    }

    /// Serves `token`'s frames read so far, in order, while its output
    /// is under the limit; then ends it if its reading ended.
    fn serve(&mut self, token: Token) {
        loop {
            if self.st.conns().state(token).is_none() {
                return;
            }
            if self.st.conns().over_output_limit(token) {
                return self.st.conns_mut().set_throttled(token, true);
            }
            let Some(f) = self.st.conns_mut().next_held(token) else {
                break;
            };
            if let Err(e) = self.frame(token, f) {
                return self.protocol_error(token, &e);
            }
        }
        match self.st.conns_mut().take_end(token) {
            None => {}
            Some(Ok(())) => self.st.conns_mut().close(token),
            Some(Err(e)) => self.protocol_error(token, &e),
        }
    }

    /// After `token`'s output was written: a throttled peer whose output
    /// is back under the limit is served and read again.
    fn resume(&mut self, token: Token) {
        if !self.st.conns().is_throttled(token) || self.st.conns().over_output_limit(token) {
            return;
        }
        self.st.conns_mut().set_throttled(token, false);
        self.serve(token);
        // Reads what came meanwhile (its readiness edges were skipped),
        // up to the end of stream if there is one.
        self.read(token, true);
    }

    /// `token`'s handshake deadline passed: closed (one log line) if it
    /// still has not sent a complete handshake.
    fn handshake_overdue(&mut self, token: Token) {
        if self.st.conns().state(token) != Some(&PeerState::AwaitHandshake) {
            return;
        }
        let why = format!("no handshake within {HANDSHAKE_LIMIT:?}, connection closed");
        self.st
            .conns()
            .log_refusal(self.st.server_proc(), token, None, &why);
        self.st.conns_mut().close(token);
    }

    /// `token` broke the protocol: one log line, and its connection is
    /// closed (a client that had not finalized departs).
    fn protocol_error(&mut self, token: Token, e: &WireError) {
        if self.st.conns().state(token).is_none() {
            return;
        }
        let why = format!("protocol error, connection closed: {e}");
        self.st
            .conns()
            .log_refusal(self.st.server_proc(), token, None, &why);
        self.st.conns_mut().close(token);
    }

    fn frame(&mut self, token: Token, f: Frame) -> Result<(), WireError> {
        let caller = Caller {
            token,
            id: f.header.id,
        };
        let msg = f.message()?;
        let proc = match self.st.conns().state(token) {
            None => return Ok(()),
            Some(PeerState::AwaitHandshake) => {
                return match msg {
                    Message::Handshake(h) if self.st.conns().is_stock(token) => {
                        super::stock::handshake(&mut self.st, caller, h.proc);
                        Ok(())
                    }
                    Message::Handshake(h) => {
                        clients::handshake(&mut self.st, caller, h);
                        Ok(())
                    }
                    Message::ToolHandshake(t) => {
                        clients::tool_handshake(&mut self.st, caller, t);
                        Ok(())
                    }
                    other => Err(WireError::UnknownKind(other.kind() as u16)),
                };
            }
            // Nothing may come before the handshake's answer.
            Some(PeerState::Connecting(_)) => {
                return Err(WireError::UnknownKind(msg.kind() as u16))
            }
            Some(PeerState::Ready(p)) => p.clone(),
        };
        // A client that finalized has departed: nothing more may come,
        // but for a group verdict its library may still send (one-way,
        // from an event handler that ended while it finalized): dropped.
        if self.st.conns().is_finalized(token) {
            if matches!(&msg, Message::Request(q) if q.op == crate::wire::Op::GROUP_VERDICT) {
                return Ok(());
            }
            return Err(WireError::Invalid {
                kind: msg.kind().name(),
                what: "message after PMIx_Finalize",
            });
        }
        let st = &mut self.st;
        match msg {
            Message::Commit(items) => dmodex::commit(st, &proc, items),
            Message::Request(q) => services::dispatch(st, caller, &proc, q),
            Message::FenceRequest(f) => {
                super::stock::fence_arrival(st, caller, &proc, &f);
                fence::enter(st, caller, &proc, f)
            }
            Message::DmodexRequest(d) => dmodex::client_request(st, caller, d),
            Message::NspaceRequest(ns) => connect::nspace_segments(st, caller, &ns),
            Message::Abort(a) => clients::abort(st, caller, &proc, a),
            Message::Finalize => clients::finalize(st, caller, &proc),
            other => return Err(WireError::UnknownKind(other.kind() as u16)),
        }
        Ok(())
    }

    /// The host completed operation `op`.
    fn op_done(&mut self, op: u64, result: OpResult) {
        let Some(pending) = self.st.ops_mut().take(op) else {
            // Already resolved (refused synchronously, timed out, or a
            // dropped completion after an explicit one).
            return;
        };
        let st = &mut self.st;
        match pending {
            PendingOp::Collective(cid) => collective::host_done(st, cid, result),
            PendingOp::DirectModex(proc) => dmodex::host_answer(st, &proc, result),
            PendingOp::Service { caller, encoder } => {
                let r = encoder(result);
                st.respond(caller, r);
            }
            PendingOp::GroupInvite(n) => groups::members::host_done(st, n, result),
            PendingOp::Monitor(asked) => monitor::service::host_done(st, *asked, result),
            PendingOp::Ignored => {}
            p @ (PendingOp::Connect(_)
            | PendingOp::ToolConnect(_)
            | PendingOp::Finalize(_)
            | PendingOp::Abort(_)) => clients::host_done(st, p, result),
        }
    }

    fn fire_timers(&mut self) {
        let now = Instant::now();
        while let Some(key) = self.st.timers_mut().pop_expired(now) {
            match key {
                TimerKey::Collective(cid) => {
                    collective::failed(&mut self.st, cid, Status::ERR_TIMEOUT)
                }
                TimerKey::Waiter(id) => dmodex::timed_out(&mut self.st, id),
                TimerKey::Invite(n) => groups::members::timed_out(&mut self.st, n),
                TimerKey::Handshake(t) => self.handshake_overdue(t),
                TimerKey::Monitor(n) => monitor::service::tick(&mut self.st, n),
            }
            self.departures();
        }
    }
}
