//! The client's progress thread: it owns the socket. Callers hand it
//! requests through a channel (waking it with a `mio::Waker`); it assigns
//! request ids, writes the frames, reads replies and runs each reply's
//! handler on this thread.
//!
//! Invariants:
//! - Every handler runs exactly once: with the reply, or with
//!   `PMIX_ERR_LOST_CONNECTION` when the connection ends (the server went
//!   away, or the client shut down) or its request could not be sent.
//! - Requests arriving after the connection ended fail the same way, so a
//!   caller blocked on a reply never hangs on a dead server.

use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{unbounded, Receiver, Sender};
use mio::{Events, Interest, Poll, Token};

use crate::wire::{Connection, Message, ReadState};
use crate::Status;

const SOCKET: Token = Token(0);
const WAKER: Token = Token(1);

/// What a reply handler receives.
pub(crate) type Reply = Result<(Message, Vec<OwnedFd>), Status>;
/// Runs on the progress thread with the reply to one request.
pub(crate) type ReplyHandler = Box<dyn FnOnce(Reply) + Send + 'static>;

pub(crate) enum Request {
    /// Send `msg`; `reply` receives the answer (none for one-way messages).
    Send {
        msg: Message,
        reply: Option<ReplyHandler>,
    },
    /// Run a closure on the progress thread (callbacks of `_nb` calls
    /// answered without the server).
    Run(Box<dyn FnOnce() + Send + 'static>),
    /// Close the connection and end the thread.
    Shutdown,
}

/// The caller side: submits requests.
#[derive(Clone)]
pub(crate) struct Requester {
    tx: Sender<Request>,
    waker: Arc<mio::Waker>,
}

impl Requester {
    /// Submits `msg`; `reply` runs on the progress thread. If the thread
    /// is gone, `reply` runs here with `PMIX_ERR_LOST_CONNECTION`.
    pub(crate) fn submit(&self, msg: Message, reply: Option<ReplyHandler>) {
        if let Err(e) = self.tx.send(Request::Send { msg, reply }) {
            if let Request::Send { reply: Some(r), .. } = e.0 {
                r(Err(Status::ERR_LOST_CONNECTION));
            }
            return;
        }
        let _ = self.waker.wake();
    }

    /// Runs `f` on the progress thread (here, if the thread is gone).
    pub(crate) fn run_there(&self, f: Box<dyn FnOnce() + Send + 'static>) {
        match self.tx.send(Request::Run(f)) {
            Ok(()) => {
                let _ = self.waker.wake();
            }
            Err(e) => {
                if let Request::Run(f) = e.0 {
                    f();
                }
            }
        }
    }

    /// Sends `msg` and blocks until its reply (or the connection's end).
    pub(crate) fn call(&self, msg: Message) -> Reply {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.submit(
            msg,
            Some(Box::new(move |r| {
                let _ = tx.send(r);
            })),
        );
        rx.recv().unwrap_or(Err(Status::ERR_LOST_CONNECTION))
    }

    /// Asks the thread to close the connection and stop.
    pub(crate) fn shutdown(&self) {
        if self.tx.send(Request::Shutdown).is_ok() {
            let _ = self.waker.wake();
        }
    }
}

/// The thread's state.
pub(crate) struct Progress {
    poll: Poll,
    conn: Connection,
    rx: Receiver<Request>,
    pending: HashMap<u32, ReplyHandler>,
    next_id: u32,
    open: bool,
}

impl Progress {
    /// Sets up the loop over `conn`; returns it with its requester.
    pub(crate) fn new(mut conn: Connection) -> std::io::Result<(Progress, Requester)> {
        let poll = Poll::new()?;
        poll.registry().register(
            conn.stream_mut(),
            SOCKET,
            Interest::READABLE | Interest::WRITABLE,
        )?;
        let waker = Arc::new(mio::Waker::new(poll.registry(), WAKER)?);
        let (tx, rx) = unbounded();
        Ok((
            Progress {
                poll,
                conn,
                rx,
                pending: HashMap::new(),
                next_id: 1,
                open: true,
            },
            Requester { tx, waker },
        ))
    }

    /// Sends `msg` and waits for its reply on the calling thread, before
    /// the loop runs (the handshake). `None` timeout waits for the reply
    /// or the connection's end.
    pub(crate) fn roundtrip(&mut self, msg: &Message, timeout: Option<Duration>) -> Reply {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.send(
            msg,
            Some(Box::new(move |r| {
                let _ = tx.send(r);
            })),
        );
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut events = Events::with_capacity(8);
        loop {
            if let Ok(r) = rx.try_recv() {
                return r;
            }
            if !self.open {
                return Err(Status::ERR_LOST_CONNECTION);
            }
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if left == Some(Duration::ZERO) {
                return Err(Status::ERR_TIMEOUT);
            }
            match self.poll.poll(&mut events, left) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return Err(Status::ERR_LOST_CONNECTION),
            }
            self.socket_ready();
        }
    }

    /// The loop; returns when shut down or the connection ends and no
    /// requester remains.
    pub(crate) fn run(mut self) {
        let mut events = Events::with_capacity(64);
        loop {
            if let Err(e) = self.poll.poll(&mut events, None) {
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                self.close();
                return;
            }
            let mut socket = false;
            for ev in events.iter() {
                if ev.token() == SOCKET {
                    socket = true;
                }
            }
            if socket {
                self.socket_ready();
            }
            loop {
                match self.rx.try_recv() {
                    Ok(Request::Send { msg, reply }) => self.send(&msg, reply),
                    Ok(Request::Run(f)) => f(),
                    Ok(Request::Shutdown) => {
                        self.close();
                        return;
                    }
                    Err(crossbeam_channel::TryRecvError::Empty) => break,
                    Err(crossbeam_channel::TryRecvError::Disconnected) => {
                        self.close();
                        return;
                    }
                }
            }
        }
    }

    fn send(&mut self, msg: &Message, reply: Option<ReplyHandler>) {
        if !self.open {
            if let Some(r) = reply {
                r(Err(Status::ERR_LOST_CONNECTION));
            }
            return;
        }
        let id = match reply {
            Some(r) => {
                let id = self.next_id;
                // Zero is never used, so one-way messages are recognizable.
                self.next_id = self.next_id.checked_add(1).unwrap_or(1);
                self.pending.insert(id, r);
                id
            }
            None => 0,
        };
        if self.conn.send(id, msg, Vec::new()).is_err() {
            self.close();
        }
    }

    fn socket_ready(&mut self) {
        if !self.open {
            return;
        }
        if self.conn.flush().is_err() {
            return self.close();
        }
        let mut frames = Vec::new();
        let res = self.conn.read_frames(&mut frames);
        for f in frames {
            let id = f.header.id;
            match f.message() {
                Ok(msg) => {
                    if let Some(h) = self.pending.remove(&id) {
                        h(Ok((msg, f.fds)));
                    }
                    // A reply nobody waits for is dropped (its fds close).
                }
                Err(_) => return self.close(),
            }
        }
        match res {
            Ok(ReadState::Open) => {}
            Ok(ReadState::Closed) | Err(_) => self.close(),
        }
    }

    fn close(&mut self) {
        if !self.open {
            return;
        }
        self.open = false;
        let _ = self.poll.registry().deregister(self.conn.stream_mut());
        for (_, h) in self.pending.drain() {
            h(Err(Status::ERR_LOST_CONNECTION));
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.close();
        // Requests still queued get their answer too.
        while let Ok(r) = self.rx.try_recv() {
            match r {
                Request::Send { reply: Some(h), .. } => h(Err(Status::ERR_LOST_CONNECTION)),
                Request::Run(f) => f(),
                _ => {}
            }
        }
    }
}
