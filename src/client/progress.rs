//! The client's progress thread and the request path.
//!
//! The progress thread reads replies and events and runs their handlers
//! (and the callbacks of `_nb` calls). A caller writes its request itself,
//! under the connection's lock, after registering the handler for its
//! request id; this saves a thread hop per request (the thread would
//! otherwise have to wake up only to write). A write the socket cannot
//! take at once stays queued and the progress thread finishes it when the
//! socket becomes writable.
//!
//! A caller blocked on its reply (`call`, `call_with`: `PMIx_Fence`,
//! direct modex, finalize, ...) reads the socket itself when no one else
//! does, which saves the progress thread's wake-up between the reply and
//! the caller: it takes the *read role*, withdraws the progress thread's
//! read interest, and `poll(2)`s the socket until its reply came. Frames
//! that are not its reply go to the progress thread, in order; its own
//! reply's handler runs on the caller's thread only when nothing read
//! before it still waits for the progress thread (so events and replies
//! are still handled in arrival order). A caller that cannot take the
//! role parks on a condition variable its handler signals.
//!
//! Invariants:
//! - Every handler runs exactly once: with the reply, or with
//!   `PMIX_ERR_LOST_CONNECTION` when the connection ends (the server went
//!   away, or the client shut down) or its request could not be sent.
//!   A handler is registered before its request is written, and a caller
//!   that registers one re-checks the connection afterwards, so a handler
//!   is never stranded by a close racing with it.
//! - One reader at a time: whoever holds the read role (the progress
//!   thread in `socket_ready`, or a caller in `read_for`). The progress
//!   thread first dispatches what callers forwarded, then reads. A caller
//!   gives the role back before it restores the progress thread's read
//!   interest (re-registering reports data already waiting, and the
//!   thread must then be able to take the role), and wakes the thread if
//!   it forwarded anything.
//! - Handlers of `_nb` calls and event sinks run on the progress thread
//!   only; a caller's thread runs its own blocking call's handler at most,
//!   and takes the modex offers it reads (see `fast_fence`) itself.
//! - The connection's lock is never held while a handler runs.

use std::collections::{HashMap, VecDeque};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{unbounded, Receiver, Sender};
use mio::{Events, Interest, Poll, Token};
use parking_lot::{Condvar, Mutex};

use crate::sys;
use crate::wire::{Connection, Frame, Kind, Message, ReadState};
use crate::Status;

const SOCKET: Token = Token(0);
const WAKER: Token = Token(1);

/// How many events read before the first event sink was set are kept for
/// it.
const EARLY_EVENTS_MAX: usize = 512;

/// What a reply handler receives.
pub(crate) type Reply = Result<(Message, Vec<OwnedFd>), Status>;
/// Runs on the progress thread with the reply to one request.
pub(crate) type ReplyHandler = Box<dyn FnOnce(Reply) + Send + 'static>;
/// Runs on the progress thread with the body of each event notification
/// the server sends.
pub type EventSink = Arc<dyn Fn(Vec<u8>) + Send + Sync + 'static>;

/// Receives the server's modex offers (see [`crate::wire::ModexOffer`])
/// with their descriptors, on the progress thread.
pub(crate) type OfferSink =
    Arc<dyn Fn(crate::wire::ModexOffer, Vec<OwnedFd>) + Send + Sync + 'static>;

enum Request {
    /// Run a closure on the progress thread (callbacks of `_nb` calls
    /// answered without the server).
    Run(Box<dyn FnOnce() + Send + 'static>),
    /// A caller's write failed: close the connection.
    Close,
    /// Close the connection and end the thread.
    Shutdown,
}

/// The connection and its registration with the progress thread's poll.
///
/// The socket is registered for reading while the progress thread is the
/// one to read it (not while a caller reads its own reply), and for
/// writing only while output is queued: a permanent write interest would
/// wake the progress thread each time the server reads a request.
/// Registering (again) makes epoll report readiness that is already
/// there, so no data or write space is missed across a change.
struct Io {
    conn: Connection,
    /// The progress thread reads (no caller holds the read role).
    progress_reads: bool,
    /// The interests registered (`None`: not registered).
    registered: Option<Interest>,
    /// Closed: deregistered for good.
    closed: bool,
}

impl Io {
    /// Makes the registration match the state.
    fn sync(&mut self, registry: &mio::Registry) {
        if self.closed {
            return;
        }
        let want = match (self.progress_reads, self.conn.has_pending_output()) {
            (true, true) => Some(Interest::READABLE | Interest::WRITABLE),
            (true, false) => Some(Interest::READABLE),
            (false, true) => Some(Interest::WRITABLE),
            (false, false) => None,
        };
        if want == self.registered {
            return;
        }
        let stream = self.conn.stream_mut();
        let r = match (self.registered, want) {
            (None, Some(i)) => registry.register(stream, SOCKET, i),
            (Some(_), Some(i)) => registry.reregister(stream, SOCKET, i),
            (Some(_), None) => registry.deregister(stream),
            (None, None) => Ok(()),
        };
        // A failure leaves the old registration; a broken socket shows up
        // on the next read or write anyway.
        if r.is_ok() {
            self.registered = want;
        }
    }

    /// Flushes queued output, then reads every complete frame.
    fn flush_and_read(
        &mut self,
        registry: &mio::Registry,
        frames: &mut Vec<Frame>,
        short_read_ends: bool,
    ) -> Result<ReadState, crate::wire::WireError> {
        let r = match self.conn.flush() {
            Ok(_) => self.conn.read_frames_until(frames, short_read_ends),
            Err(e) => Err(e),
        };
        self.sync(registry);
        r
    }
}

/// State shared by the callers and the progress thread.
struct Shared {
    conn: Mutex<Io>,
    /// The progress thread's poll registry: the socket's interests change
    /// with who reads and whether output is queued (see [`Io`]).
    registry: mio::Registry,
    pending: Mutex<HashMap<u32, ReplyHandler>>,
    next_id: AtomicU32,
    open: AtomicBool,
    /// Receives unsolicited `Event` messages (none: they are dropped,
    /// but for those read before the first sink is set).
    events: Mutex<Option<EventSink>>,
    /// The events read before the first sink was set (the handshake's
    /// read may bring those the server sent right after its reply), at
    /// most [`EARLY_EVENTS_MAX`], for that sink; `None` once it is set.
    early_events: Mutex<Option<Vec<Vec<u8>>>>,
    /// Receives forwarded output (`Iof` messages; none: dropped).
    iof: Mutex<Option<EventSink>>,
    /// Receives modex offers (none: dropped, their descriptors closed).
    offers: Mutex<Option<OfferSink>>,
    /// The read role: whoever holds it (the progress thread, or a caller
    /// waiting for its reply) is the one reading the socket.
    reading: Mutex<()>,
    /// Frames a caller read that are not its reply, in arrival order, for
    /// the progress thread to dispatch before it reads anything else.
    forwarded: Mutex<VecDeque<Frame>>,
    /// `Segments` sent ahead of the handshake reply, until the handshake
    /// takes them (`None` afterwards: later ones are dropped).
    early_segments: Mutex<Option<EarlySegments>>,
    /// Runs once if the server closes the connection (not on shutdown).
    lost: Mutex<Option<LostHook>>,
    /// Run, each, when the connection is lost (see
    /// [`Requester::on_loss`]).
    on_loss: Mutex<Vec<LossWaker>>,
}

/// Runs on the progress thread when the connection to the server is
/// lost; kept (it may run again for a later connection's loss).
pub(crate) type LossWaker = Box<dyn Fn() + Send + Sync + 'static>;

/// Segments received ahead of the handshake reply, in arrival order.
pub(crate) type EarlySegments = Vec<(Vec<crate::wire::SegmentRef>, Vec<OwnedFd>)>;

/// Runs on the progress thread when the connection to the server is lost.
pub(crate) type LostHook = Box<dyn FnOnce() + Send + 'static>;

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
        self.send_id(msg, reply).0
    }

    /// [`send`](Self::send), also returning the request's id when its
    /// handler is registered and the request written.
    fn send_id(&self, msg: &Message, reply: Option<ReplyHandler>) -> (bool, Option<u32>) {
        if !self.open.load(Ordering::SeqCst) {
            if let Some(r) = reply {
                r(Err(Status::ERR_LOST_CONNECTION));
            }
            return (true, None);
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
                    return (true, None);
                }
                id
            }
            None => 0,
        };
        let ok = {
            let mut io = self.conn.lock();
            let ok = io.conn.send(id, msg, Vec::new()).is_ok();
            io.sync(&self.registry);
            ok
        };
        (ok, (ok && id != 0).then_some(id))
    }

    /// Runs the handlers of `frames` (replies and events, in order).
    /// Returns false on a frame that does not decode (the connection must
    /// be closed).
    fn dispatch(&self, frames: Vec<Frame>) -> bool {
        for f in frames {
            let id = f.header.id;
            match f.message() {
                // Before the generic arm: they carry the handshake's id.
                Ok(Message::Segments(refs)) => {
                    if let Some(v) = self.early_segments.lock().as_mut() {
                        v.push((refs, f.fds));
                    }
                }
                Ok(Message::Event(body)) if id == 0 => {
                    let sink = {
                        let sink = self.events.lock();
                        if sink.is_none() {
                            if let Some(early) = self.early_events.lock().as_mut() {
                                if early.len() < EARLY_EVENTS_MAX {
                                    early.push(body);
                                }
                            }
                            continue;
                        }
                        sink.clone()
                    };
                    if let Some(sink) = sink {
                        sink(body);
                    }
                }
                Ok(Message::Iof(body)) if id == 0 => {
                    let sink = self.iof.lock().clone();
                    if let Some(sink) = sink {
                        sink(body);
                    }
                }
                Ok(Message::ModexOffer(offer)) if id == 0 => {
                    let sink = self.offers.lock().clone();
                    if let Some(sink) = sink {
                        sink(offer, f.fds);
                    }
                }
                Ok(msg) => {
                    let h = self.pending.lock().remove(&id);
                    // A reply nobody waits for is dropped (its fds close).
                    if let Some(h) = h {
                        h(Ok((msg, f.fds)));
                    }
                }
                Err(_) => return false,
            }
        }
        true
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

    /// True once the value (or the sender's drop) arrived.
    pub(crate) fn is_ready(&self) -> bool {
        let st = self.state.lock();
        st.0.is_some() || st.1
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
    /// The socket, for a caller's `poll(2)`.
    fd: RawFd,
}

/// Restores the progress thread's reading when a caller stops.
struct ReadTurn<'a> {
    req: &'a Requester,
    role: Option<parking_lot::MutexGuard<'a, ()>>,
}

impl Drop for ReadTurn<'_> {
    fn drop(&mut self) {
        // Release the role first: the re-registration below makes epoll
        // report data already waiting, and the progress thread must then
        // be able to take the role to read it.
        drop(self.role.take());
        self.req.set_progress_reading(true);
        if !self.req.shared.forwarded.lock().is_empty() {
            let _ = self.req.waker.wake();
        }
    }
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

    /// True while the connection to the server is open.
    pub(crate) fn is_open(&self) -> bool {
        self.shared.open.load(Ordering::SeqCst)
    }

    /// True while the connection is open and the server has not hung
    /// up, asking the socket itself (one `poll(2)`): for what is decided
    /// without the server (the job barrier page), which must not outlive
    /// a dead server by the time the progress thread takes to read the
    /// end of the stream.
    pub(crate) fn server_alive(&self) -> bool {
        if !self.is_open() {
            return false;
        }
        let gone = libc::POLLHUP | libc::POLLRDHUP | libc::POLLERR | libc::POLLNVAL;
        // An interrupted poll decides nothing: the flag above stands.
        sys::poll_one(self.fd, libc::POLLRDHUP, 0).map_or(true, |ev| ev & gone == 0)
    }

    /// Sends `msg` and blocks until its reply (or the connection's end).
    pub(crate) fn call(&self, msg: Message) -> Reply {
        self.call_with(msg, |r| r)
            .unwrap_or(Err(Status::ERR_LOST_CONNECTION))
    }

    /// Sends `msg`, blocks until its reply, and returns what `handle`
    /// makes of it. `handle` runs on this thread when this thread read the
    /// reply itself, else on the progress thread. `None` only if the
    /// handler was lost (it never is, see the module invariants).
    pub(crate) fn call_with<T: Send + 'static>(
        &self,
        msg: Message,
        handle: impl FnOnce(Reply) -> T + Send + 'static,
    ) -> Option<T> {
        let (rx, tx) = Oneshot::new();
        let (ok, id) = self
            .shared
            .send_id(&msg, Some(Box::new(move |r| tx.send(handle(r)))));
        if !ok {
            if self.notify(Request::Close).is_err() {
                self.shared.close();
            }
        } else if let Some(id) = id {
            self.read_for(id, &rx);
        }
        rx.recv()
    }

    /// Takes or gives back the progress thread's read interest in the
    /// socket (its write interest stays). Fails quietly once the
    /// connection is closed (deregistered).
    fn set_progress_reading(&self, on: bool) {
        let mut io = self.shared.conn.lock();
        io.progress_reads = on;
        io.sync(&self.shared.registry);
    }

    /// Reads the socket on this thread until the reply to request `id`
    /// arrived (`rx` is ready), if no one else is reading: this saves the
    /// progress thread's wake-up on the way to the caller. Frames that are
    /// not the reply go to the progress thread, in order; the reply's
    /// handler runs here only when nothing read before it still waits for
    /// the progress thread (else it is forwarded too, and this thread waits
    /// on `rx`).
    fn read_for<T>(&self, id: u32, rx: &Oneshot<T>) {
        let Some(role) = self.shared.reading.try_lock() else {
            return;
        };
        let _turn = ReadTurn {
            req: self,
            role: Some(role),
        };
        self.set_progress_reading(false);
        loop {
            if rx.is_ready() || !self.shared.open.load(Ordering::SeqCst) {
                return;
            }
            // Wait first: a reply already in the socket makes `poll` return
            // at once (a reply read by the progress thread before this
            // thread took the role has made `rx` ready).
            // While this thread holds the role it also finishes queued
            // writes (the progress thread does not while it cannot read).
            let pending = self.shared.conn.lock().conn.has_pending_output();
            let events = if pending {
                libc::POLLIN | libc::POLLOUT
            } else {
                libc::POLLIN
            };
            // A bounded wait: the connection's end also wakes it (the
            // progress thread shuts the socket down), the bound is a
            // safety net. The socket stays open while `self.shared` lives
            // (it is closed only when the connection is dropped). Whatever
            // the wait ends with (ready, timeout, interrupted), the
            // connection is read next and tells.
            let _ = sys::poll_one(self.fd, events, 100);
            let mut frames = Vec::new();
            let res = self
                .shared
                .conn
                .lock()
                // `poll` is level-triggered: what a short read leaves (a
                // hang-up) is reported again.
                .flush_and_read(&self.shared.registry, &mut frames, true);
            let mut mine = None;
            let mut offers = Vec::new();
            {
                let mut fwd = self.shared.forwarded.lock();
                for f in frames {
                    if f.header.id == id && fwd.is_empty() && mine.is_none() {
                        mine = Some(f);
                    } else if f.header.id == 0 && f.header.kind == Kind::ModexOffer {
                        offers.push(f);
                    } else {
                        fwd.push_back(f);
                    }
                }
            }
            // Offers are taken here, before the reply: a fence's release
            // publishes what came before it (see `fast_fence`), and the
            // progress thread's wake-up is saved.
            if !offers.is_empty() && !self.shared.dispatch(offers) {
                if self.notify(Request::Close).is_err() {
                    self.shared.close();
                }
                return;
            }
            if let Some(f) = mine {
                match f.message() {
                    Ok(msg) => {
                        let h = self.shared.pending.lock().remove(&id);
                        if let Some(h) = h {
                            h(Ok((msg, f.fds)));
                        }
                    }
                    // The progress thread closes the connection on it.
                    Err(_) => self.shared.forwarded.lock().push_back(f),
                }
            }
            match res {
                Ok(ReadState::Open) => {}
                Ok(ReadState::Closed) | Err(_) => {
                    if self.notify(Request::Close).is_err() {
                        self.shared.close();
                    }
                    return;
                }
            }
            if rx.is_ready() || !self.shared.forwarded.lock().is_empty() {
                // Done, or the reply is (or may be) behind frames the
                // progress thread must dispatch first.
                return;
            }
        }
    }

    /// Sets the receiver of event notifications (replacing any earlier
    /// one); the first one set also receives, in order, those read before.
    pub(crate) fn set_event_sink(&self, sink: Option<EventSink>) {
        let early = {
            let mut current = self.shared.events.lock();
            *current = sink.clone();
            self.shared.early_events.lock().take()
        };
        if let (Some(sink), Some(early)) = (sink, early) {
            for body in early {
                sink(body);
            }
        }
    }

    /// Sets the receiver of forwarded output (replacing any earlier one).
    pub(crate) fn set_iof_sink(&self, sink: Option<EventSink>) {
        *self.shared.iof.lock() = sink;
    }

    /// Sets the receiver of modex offers.
    pub(crate) fn set_offer_sink(&self, sink: OfferSink) {
        *self.shared.offers.lock() = Some(sink);
    }

    /// Sets what runs (once, on the progress thread) if the server closes
    /// the connection or it fails; not run on [`Self::shutdown`].
    pub(crate) fn set_lost_hook(&self, hook: Option<LostHook>) {
        *self.shared.lost.lock() = hook;
    }

    /// Adds `w` to what runs when the connection is lost (the server
    /// closed it or it failed): something that must not wait for a
    /// server that is gone (the barrier page's waiter).
    pub(crate) fn on_loss(&self, w: LossWaker) {
        self.shared.on_loss.lock().push(w);
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
        poll.registry()
            .register(conn.stream_mut(), SOCKET, Interest::READABLE)?;
        let waker = Arc::new(mio::Waker::new(poll.registry(), WAKER)?);
        let registry = poll.registry().try_clone()?;
        let fd = conn.stream().as_raw_fd();
        let (tx, rx) = unbounded();
        let shared = Arc::new(Shared {
            conn: Mutex::new(Io {
                conn,
                progress_reads: true,
                registered: Some(Interest::READABLE),
                closed: false,
            }),
            registry,
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU32::new(1),
            open: AtomicBool::new(true),
            events: Mutex::new(None),
            early_events: Mutex::new(Some(Vec::new())),
            iof: Mutex::new(None),
            offers: Mutex::new(None),
            reading: Mutex::new(()),
            forwarded: Mutex::new(VecDeque::new()),
            early_segments: Mutex::new(Some(Vec::new())),
            lost: Mutex::new(None),
            on_loss: Mutex::new(Vec::new()),
        });
        Ok((
            Progress {
                poll,
                shared: shared.clone(),
                rx,
            },
            Requester {
                shared,
                tx,
                waker,
                fd,
            },
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

    /// The segments that arrived ahead of the handshake reply; later
    /// ones are dropped.
    pub(crate) fn take_early_segments(&mut self) -> EarlySegments {
        self.shared.early_segments.lock().take().unwrap_or_default()
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
            if events.iter().any(|ev| ev.token() == SOCKET)
                || !self.shared.forwarded.lock().is_empty()
            {
                self.socket_ready();
            }
            loop {
                match self.rx.try_recv() {
                    Ok(Request::Run(f)) => f(),
                    Ok(Request::Close) => self.lose(),
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
        // A caller holding the role reads; it gives the socket back (and
        // wakes this thread for what it forwarded) when it stops.
        let Some(_role) = self.shared.reading.try_lock() else {
            return;
        };
        let mut frames: Vec<Frame> = self.shared.forwarded.lock().drain(..).collect();
        let res = self
            .shared
            .conn
            .lock()
            .flush_and_read(&self.shared.registry, &mut frames, false);
        let decoded = self.shared.dispatch(frames);
        drop(_role);
        if !decoded || !matches!(res, Ok(ReadState::Open)) {
            self.lose();
        }
    }

    /// Closes a connection that failed or that the server closed, and
    /// runs the lost hook.
    fn lose(&mut self) {
        let was_open = self.shared.open.load(Ordering::SeqCst);
        self.close();
        if was_open {
            for w in self.shared.on_loss.lock().iter() {
                w();
            }
            let hook = self.shared.lost.lock().take();
            if let Some(h) = hook {
                h();
            }
        }
    }

    fn close(&mut self) {
        if self.shared.open.load(Ordering::SeqCst) {
            let mut io = self.shared.conn.lock();
            if io.registered.is_some() {
                let _ = self.poll.registry().deregister(io.conn.stream_mut());
            }
            io.closed = true;
            io.registered = None;
            let _ = io.conn.stream().shutdown();
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
