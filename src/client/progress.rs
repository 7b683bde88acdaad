//! The client's progress thread and the request path.
//!
//! The progress thread is the only reader of the socket: it reads replies
//! and runs each reply's handler (and the callbacks of `_nb` calls). A
//! caller writes its request itself, under the connection's lock, after
//! registering the handler for its request id; this saves a thread hop per
//! request (the thread would otherwise have to wake up only to write). A
//! write the socket cannot take at once stays queued and the progress
//! thread finishes it when the socket becomes writable.
//!
//! Invariants:
//! - Every handler runs exactly once: with the reply, or with
//!   `PMIX_ERR_LOST_CONNECTION` when the connection ends (the server went
//!   away, or the client shut down) or its request could not be sent.
//!   A handler is registered before its request is written, and a caller
//!   that registers one re-checks the connection afterwards, so a handler
//!   is never stranded by a close racing with it.
//! - The connection's lock is never held while a handler runs.

use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{unbounded, Receiver, Sender};
use mio::{Events, Interest, Poll, Token};
use parking_lot::{Condvar, Mutex};

use crate::wire::{Connection, Message, ReadState};
use crate::Status;

const SOCKET: Token = Token(0);
const WAKER: Token = Token(1);

/// What a reply handler receives.
pub(crate) type Reply = Result<(Message, Vec<OwnedFd>), Status>;
/// Runs on the progress thread with the reply to one request.
pub(crate) type ReplyHandler = Box<dyn FnOnce(Reply) + Send + 'static>;
/// Runs on the progress thread with the body of each event notification
/// the server sends.
pub type EventSink = Arc<dyn Fn(Vec<u8>) + Send + Sync + 'static>;

enum Request {
    /// Run a closure on the progress thread (callbacks of `_nb` calls
    /// answered without the server).
    Run(Box<dyn FnOnce() + Send + 'static>),
    /// A caller's write failed: close the connection.
    Close,
    /// Close the connection and end the thread.
    Shutdown,
}

/// State shared by the callers and the progress thread.
struct Shared {
    conn: Mutex<Connection>,
    pending: Mutex<HashMap<u32, ReplyHandler>>,
    next_id: AtomicU32,
    open: AtomicBool,
    /// Receives unsolicited `Event` messages (none: they are dropped).
    events: Mutex<Option<EventSink>>,
}

impl Shared {
    /// Marks the connection closed and fails every pending request.
    fn close(&self) {
        self.open.store(false, Ordering::SeqCst);
        let handlers: Vec<ReplyHandler> = self.pending.lock().drain().map(|(_, h)| h).collect();
        for h in handlers {
            h(Err(Status::ERR_LOST_CONNECTION));
        }
    }

    /// Registers `reply` (if any) and writes `msg`. Returns false if the
    /// write failed (the connection must be closed).
    fn send(&self, msg: &Message, reply: Option<ReplyHandler>) -> bool {
        if !self.open.load(Ordering::SeqCst) {
            if let Some(r) = reply {
                r(Err(Status::ERR_LOST_CONNECTION));
            }
            return true;
        }
        let id = match reply {
            Some(r) => {
                // Zero is never used: one-way messages carry it.
                let mut id = self.next_id.fetch_add(1, Ordering::Relaxed);
                if id == 0 {
                    id = self.next_id.fetch_add(1, Ordering::Relaxed);
                }
                self.pending.lock().insert(id, r);
                if !self.open.load(Ordering::SeqCst) {
                    // Closed meanwhile: answer it unless the close did.
                    if let Some(r) = self.pending.lock().remove(&id) {
                        r(Err(Status::ERR_LOST_CONNECTION));
                    }
                    return true;
                }
                id
            }
            None => 0,
        };
        self.conn.lock().send(id, msg, Vec::new()).is_ok()
    }
}

/// A one-value channel for a caller blocked on a reply: the waiting
/// thread parks at once on a futex-backed condition variable (a channel
/// receiver spins and yields first, which on oversubscribed cores takes
/// the time of the very threads the caller waits for).
pub(crate) struct Oneshot<T> {
    state: Mutex<(Option<T>, bool)>,
    ready: Condvar,
}

/// The sending half of a [`Oneshot`]; dropping it unsent wakes the
/// receiver with `None`.
pub(crate) struct OneshotSender<T>(Option<Arc<Oneshot<T>>>);

impl<T> Oneshot<T> {
    /// A new channel: the receiver and the sender.
    pub(crate) fn new() -> (Arc<Oneshot<T>>, OneshotSender<T>) {
        let o = Arc::new(Oneshot {
            state: Mutex::new((None, false)),
            ready: Condvar::new(),
        });
        (o.clone(), OneshotSender(Some(o)))
    }

    /// Waits for the value; `None` if the sender was dropped unsent.
    pub(crate) fn recv(&self) -> Option<T> {
        let mut st = self.state.lock();
        loop {
            if let Some(v) = st.0.take() {
                return Some(v);
            }
            if st.1 {
                return None;
            }
            self.ready.wait(&mut st);
        }
    }
}

impl<T> OneshotSender<T> {
    /// Delivers `v` and wakes the receiver.
    pub(crate) fn send(mut self, v: T) {
        if let Some(o) = self.0.take() {
            let mut st = o.state.lock();
            st.0 = Some(v);
            st.1 = true;
            o.ready.notify_one();
        }
    }
}

impl<T> Drop for OneshotSender<T> {
    fn drop(&mut self) {
        if let Some(o) = self.0.take() {
            o.state.lock().1 = true;
            o.ready.notify_one();
        }
    }
}

/// The caller side: submits requests.
#[derive(Clone)]
pub(crate) struct Requester {
    shared: Arc<Shared>,
    tx: Sender<Request>,
    waker: Arc<mio::Waker>,
}

impl Requester {
    fn notify(&self, r: Request) -> Result<(), Request> {
        self.tx.send(r).map_err(|e| e.0)?;
        let _ = self.waker.wake();
        Ok(())
    }

    /// Writes `msg`; `reply` runs on the progress thread with the answer
    /// (here, at once, if the connection is gone).
    pub(crate) fn submit(&self, msg: Message, reply: Option<ReplyHandler>) {
        if !self.shared.send(&msg, reply) && self.notify(Request::Close).is_err() {
            self.shared.close();
        }
    }

    /// Runs `f` on the progress thread (here, if the thread is gone).
    pub(crate) fn run_there(&self, f: Box<dyn FnOnce() + Send + 'static>) {
        if let Err(Request::Run(f)) = self.notify(Request::Run(f)) {
            f();
        }
    }

    /// Sends `msg` and blocks until its reply (or the connection's end).
    pub(crate) fn call(&self, msg: Message) -> Reply {
        let (rx, tx) = Oneshot::new();
        self.submit(msg, Some(Box::new(move |r| tx.send(r))));
        rx.recv().unwrap_or(Err(Status::ERR_LOST_CONNECTION))
    }

    /// Sets the receiver of event notifications (replacing any earlier one).
    pub(crate) fn set_event_sink(&self, sink: Option<EventSink>) {
        *self.shared.events.lock() = sink;
    }

    /// Asks the thread to close the connection and stop.
    pub(crate) fn shutdown(&self) {
        let _ = self.notify(Request::Shutdown);
    }
}

/// The thread's state.
pub(crate) struct Progress {
    poll: Poll,
    shared: Arc<Shared>,
    rx: Receiver<Request>,
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
        let shared = Arc::new(Shared {
            conn: Mutex::new(conn),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU32::new(1),
            open: AtomicBool::new(true),
            events: Mutex::new(None),
        });
        Ok((
            Progress {
                poll,
                shared: shared.clone(),
                rx,
            },
            Requester { shared, tx, waker },
        ))
    }

    /// Sends `msg` and waits for its reply on the calling thread, before
    /// the loop runs (the handshake). `None` timeout waits for the reply
    /// or the connection's end.
    pub(crate) fn roundtrip(&mut self, msg: &Message, timeout: Option<Duration>) -> Reply {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let sent = self.shared.send(
            msg,
            Some(Box::new(move |r| {
                let _ = tx.send(r);
            })),
        );
        if !sent {
            self.close();
        }
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut events = Events::with_capacity(8);
        loop {
            if let Ok(r) = rx.try_recv() {
                return r;
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

    /// The loop; returns when shut down (or every requester is gone).
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
            if events.iter().any(|ev| ev.token() == SOCKET) {
                self.socket_ready();
            }
            loop {
                match self.rx.try_recv() {
                    Ok(Request::Run(f)) => f(),
                    Ok(Request::Close) => self.close(),
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

    fn socket_ready(&mut self) {
        if !self.shared.open.load(Ordering::SeqCst) {
            return;
        }
        let mut frames = Vec::new();
        let res = {
            let mut conn = self.shared.conn.lock();
            match conn.flush() {
                Ok(_) => conn.read_frames(&mut frames),
                Err(e) => Err(e),
            }
        };
        for f in frames {
            let id = f.header.id;
            match f.message() {
                Ok(crate::wire::Message::Event(body)) if id == 0 => {
                    let sink = self.shared.events.lock().clone();
                    if let Some(sink) = sink {
                        sink(body);
                    }
                }
                Ok(msg) => {
                    let h = self.shared.pending.lock().remove(&id);
                    // A reply nobody waits for is dropped (its fds close).
                    if let Some(h) = h {
                        h(Ok((msg, f.fds)));
                    }
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
        if self.shared.open.load(Ordering::SeqCst) {
            let mut conn = self.shared.conn.lock();
            let _ = self.poll.registry().deregister(conn.stream_mut());
            let _ = conn.stream().shutdown();
        }
        self.shared.close();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.close();
        // Closures still queued run too.
        while let Ok(r) = self.rx.try_recv() {
            if let Request::Run(f) = r {
                f();
            }
        }
    }
}
