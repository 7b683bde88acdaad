//! Event notification inside one process: the registered handlers, the
//! order in which an event visits them, and the thread they run on. The
//! client ([`crate::client`]), the server ([`crate::server`]) and a tool
//! each own one [`EventHandlers`]; how events travel between processes is
//! theirs (the wire body is [`encode_event`] / [`decode_event`]).
//!
//! Order of a chain (as OpenPMIx 4.2 orders it): the handler registered
//! with `PMIX_EVENT_HDLR_FIRST`, then the single-code handlers, then the
//! multi-code handlers, then the default handlers (registered with no
//! code; skipped for an event marked `PMIX_EVENT_NON_DEFAULT`), then the
//! one registered with `PMIX_EVENT_HDLR_LAST`. Within a category a new
//! handler goes first unless it asks for `PMIX_EVENT_HDLR_APPEND`, or for
//! a place `PMIX_EVENT_HDLR_BEFORE`/`AFTER` a named handler.
//!
//! Invariants:
//! - Handlers run on the registry's own dispatcher thread, never on the
//!   thread that notified or registered, and never on a progress thread:
//!   a handler may call blocking PMIx functions.
//! - Each handler of a chain runs once the previous one completed its
//!   [`EventDone`]; a handler completing with `PMIX_EVENT_ACTION_COMPLETE`
//!   ends the chain. Each completion appends one `PMIX_STATUS` info (named
//!   after the handler, `UNKNOWN` if unnamed), then the handler's results,
//!   to the results the next handler receives.
//! - A chain is built when its event is dispatched: a handler registered
//!   or deregistered meanwhile changes later events only.
//! - Events are started in the order they were delivered, and
//!   [`EventHandlers::settle`] lets a caller wait until every event
//!   delivered so far was started: a blocking call whose reply came after
//!   an event returns after that event's first handler ran, as OpenPMIx's
//!   single progress thread orders them.
//! - With [`EventHandlers::keep_unclaimed`] (a client's handlers), an event
//!   no handler took is kept (at most [`UNCLAIMED_MAX`], the oldest
//!   dropped first) and given, once, to the first handler registered
//!   later that accepts it, alone (a chain of that handler only), as
//!   OpenPMIx's client caches events for late registrations: an event the
//!   server sent before the program registered for it is not lost.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{unbounded, Receiver, Sender};
use parking_lot::{Condvar, Mutex};

use crate::codec::Reader;
use crate::wire::body::{get_infos, get_proc, get_status, get_u8, put_infos, put_proc, put_status};
use crate::wire::WireError;
use crate::{keys, Info, Key, Proc, Rank, Status, Value};

/// How many events no handler took a registry keeps for later handlers
/// (see [`EventHandlers::keep_unclaimed`]; OpenPMIx's cache holds 512).
pub const UNCLAIMED_MAX: usize = 512;

/// `pmix_data_range_t`: which processes an event reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Range(pub u8);

impl Range {
    /// `PMIX_RANGE_UNDEF`.
    pub const UNDEF: Range = Range(0);
    /// `PMIX_RANGE_RM`: the resource manager (the host) only.
    pub const RM: Range = Range(1);
    /// `PMIX_RANGE_LOCAL`: the processes on this node.
    pub const LOCAL: Range = Range(2);
    /// `PMIX_RANGE_NAMESPACE`: the source's namespace.
    pub const NAMESPACE: Range = Range(3);
    /// `PMIX_RANGE_SESSION`: the source's session.
    pub const SESSION: Range = Range(4);
    /// `PMIX_RANGE_GLOBAL`: everyone.
    pub const GLOBAL: Range = Range(5);
    /// `PMIX_RANGE_CUSTOM`: the processes of `PMIX_EVENT_CUSTOM_RANGE`.
    pub const CUSTOM: Range = Range(6);
    /// `PMIX_RANGE_PROC_LOCAL`: this process only.
    pub const PROC_LOCAL: Range = Range(7);

    /// True for a range the standard defines.
    pub fn is_valid(self) -> bool {
        self.0 <= 7
    }
}

/// Event codes and statuses the event machinery uses.
pub mod codes {
    use crate::Status;
    /// `PMIX_EVENT_ACTION_COMPLETE`: a handler ends the chain.
    pub const ACTION_COMPLETE: Status = Status(-334);
    /// `PMIX_ERR_EVENT_REGISTRATION`: a placement cannot be honoured.
    pub const ERR_EVENT_REGISTRATION: Status = Status(-144);
    /// `PMIX_ERR_PROC_ABORTED`.
    pub const ERR_PROC_ABORTED: Status = Status(-7);
    /// `PMIX_ERR_PROC_TERM_WO_SYNC`.
    pub const ERR_PROC_TERM_WO_SYNC: Status = Status(-200);
    /// `PMIX_EVENT_JOB_END`.
    pub const JOB_END: Status = Status(-145);
    /// `PMIX_DEBUGGER_RELEASE`: a debugger releases stopped processes.
    pub const DEBUGGER_RELEASE: Status = Status(-3);
    /// `PMIX_READY_FOR_DEBUG`: processes wait for a debugger.
    pub const READY_FOR_DEBUG: Status = Status(-58);
    /// `PMIX_PROCESS_SET_DEFINE`.
    pub const PROCESS_SET_DEFINE: Status = Status(-55);
    /// `PMIX_PROCESS_SET_DELETE`.
    pub const PROCESS_SET_DELETE: Status = Status(-56);
}

/// One event: its code, who raised it, how far it goes and what it says.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The event's code.
    pub status: Status,
    /// The process the event is about or came from.
    pub source: Proc,
    /// Who it reaches.
    pub range: Range,
    /// Its description (`PMIX_EVENT_AFFECTED_PROC`, custom range, ...).
    pub infos: Vec<Info>,
}

impl Event {
    // attrs begin: PMIx_Notify_event
    /// The processes `PMIX_EVENT_AFFECTED_PROC(S)` name.
    pub fn affected(&self) -> Vec<Proc> {
        procs_of(
            &self.infos,
            &[keys::EVENT_AFFECTED_PROC, keys::EVENT_AFFECTED_PROCS],
        )
    }

    /// The processes `PMIX_EVENT_CUSTOM_RANGE` names.
    pub fn custom_range(&self) -> Vec<Proc> {
        procs_of(&self.infos, &[keys::EVENT_CUSTOM_RANGE])
    }

    /// True if `PMIX_EVENT_NON_DEFAULT` is set: default handlers skip it.
    pub fn non_default(&self) -> bool {
        self.infos
            .iter()
            .any(|i| key_is(i, keys::EVENT_NON_DEFAULT) && info_true(i))
    }

    /// The `PMIX_EVENT_PROXY` the event carries, if any.
    pub fn proxy(&self) -> Option<Proc> {
        self.infos
            .iter()
            .find(|i| key_is(i, keys::EVENT_PROXY))
            .and_then(|i| match &i.value {
                Value::Proc(p) => Some(p.clone()),
                _ => None,
            })
    }
    // attrs end

    /// Whether the local process `target` is within the event's range.
    /// `PMIX_RANGE_RM` reaches no application process.
    pub fn reaches(&self, target: &Proc) -> bool {
        match self.range {
            Range::PROC_LOCAL => target == &self.source,
            Range::NAMESPACE => target.nspace == self.source.nspace,
            Range::CUSTOM => self.custom_range().iter().any(|p| proc_matches(p, target)),
            Range::RM => false,
            _ => true,
        }
    }
}

/// True if `pattern` names `p` (a wildcard rank names its whole namespace).
pub fn proc_matches(pattern: &Proc, p: &Proc) -> bool {
    pattern.nspace == p.nspace
        && (pattern.rank == p.rank || pattern.rank == Rank::WILDCARD || p.rank == Rank::WILDCARD)
}

fn key_is(i: &Info, k: &str) -> bool {
    i.key.as_bytes() == k.as_bytes()
}

/// `PMIX_INFO_TRUE`: a true bool, or no value at all.
fn info_true(i: &Info) -> bool {
    matches!(i.value, Value::Bool(true) | Value::Undef)
}

fn procs_of(infos: &[Info], wanted: &[&str]) -> Vec<Proc> {
    let mut out = Vec::new();
    for i in infos.iter().filter(|i| wanted.iter().any(|k| key_is(i, k))) {
        match &i.value {
            Value::Proc(p) => out.push(p.clone()),
            Value::DataArray(a) => out.extend(a.items.iter().filter_map(|v| match v {
                Value::Proc(p) => Some(p.clone()),
                _ => None,
            })),
            _ => {}
        }
    }
    out
}

/// Encodes an event for the wire: status, source, range, infos.
pub fn encode_event(e: &Event) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_status(&mut out, e.status);
    put_proc(&mut out, &e.source).map_err(|_| Status::ERR_BAD_PARAM)?;
    out.push(e.range.0);
    put_infos(&mut out, &e.infos).map_err(|_| Status::ERR_BAD_PARAM)?;
    Ok(out)
}

/// Decodes (and validates) what [`encode_event`] wrote.
pub fn decode_event(body: &[u8]) -> Result<Event, WireError> {
    let kind = "Event";
    let b = |source| WireError::Body { kind, source };
    let mut r = Reader::new(body);
    let status = get_status(&mut r).map_err(b)?;
    let source = get_proc(&mut r).map_err(b)?;
    let range = Range(get_u8(&mut r).map_err(b)?);
    if !range.is_valid() {
        return Err(WireError::Invalid {
            kind,
            what: "unknown range",
        });
    }
    let infos = get_infos(&mut r).map_err(b)?;
    if r.remaining() != 0 {
        return Err(WireError::Invalid {
            kind,
            what: "trailing bytes",
        });
    }
    Ok(Event {
        status,
        source,
        range,
        infos,
    })
}

/// What one handler receives for one event.
pub struct HandlerCall {
    /// The handler's registration reference.
    pub id: usize,
    /// The event's code.
    pub status: Status,
    /// The event's source.
    pub source: Proc,
    /// The event's infos, plus the handler's `PMIX_EVENT_HDLR_NAME` and
    /// `PMIX_EVENT_RETURN_OBJECT` if it registered them.
    pub infos: Vec<Info>,
    /// What the handlers before it reported.
    pub results: Vec<Info>,
    /// Lets the chain go on; must be completed (dropping it completes it
    /// with `PMIX_SUCCESS` and no results).
    pub done: EventDone,
}

/// An event handler. It runs on the dispatcher thread and completes
/// [`HandlerCall::done`], at once or later from any thread.
pub type EventHandler = Arc<dyn Fn(HandlerCall) + Send + Sync + 'static>;

/// The handle through which a handler reports that it is done with an
/// event: its status (`PMIX_EVENT_ACTION_COMPLETE` ends the chain) and
/// results.
pub struct EventDone {
    chain: u64,
    tx: Option<Sender<Job>>,
}

impl EventDone {
    /// Completes the handler's part of the chain.
    pub fn complete(mut self, status: Status, results: Vec<Info>) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(Job::Continue {
                chain: self.chain,
                status,
                results,
            });
        }
    }
}

impl Drop for EventDone {
    fn drop(&mut self) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(Job::Continue {
                chain: self.chain,
                status: Status::SUCCESS,
                results: Vec::new(),
            });
        }
    }
}

impl std::fmt::Debug for EventDone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventDone")
            .field("chain", &self.chain)
            .finish()
    }
}

/// Where a new handler goes in its category.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Placement {
    Prepend,
    Append,
    First,
    Last,
    Before(String),
    After(String),
}

/// One registration.
struct Registration {
    id: usize,
    name: Option<String>,
    codes: Vec<Status>,
    handler: EventHandler,
    /// Only events whose source is within this range of us.
    range: Option<Range>,
    /// With `range == CUSTOM`: the accepted sources.
    custom: Vec<Proc>,
    /// Only events affecting one of these.
    affected: Vec<Proc>,
    return_object: Option<usize>,
}

impl Registration {
    fn accepts(&self, e: &Event, me: Option<&Proc>, non_default: bool) -> bool {
        if self.codes.is_empty() {
            if non_default {
                return false;
            }
        } else if !self.codes.contains(&e.status) {
            return false;
        }
        if let Some(r) = self.range {
            let ok = match (r, me) {
                (Range::PROC_LOCAL, Some(me)) => &e.source == me,
                (Range::NAMESPACE, Some(me)) => e.source.nspace == me.nspace,
                (Range::CUSTOM, _) => self.custom.iter().any(|p| proc_matches(p, &e.source)),
                _ => true,
            };
            if !ok {
                return false;
            }
        }
        if !self.affected.is_empty() {
            let affected = e.affected();
            if !affected
                .iter()
                .any(|a| self.affected.iter().any(|m| proc_matches(m, a)))
            {
                return false;
            }
        }
        true
    }
}

#[derive(Default)]
struct Handlers {
    next_id: usize,
    first: Option<Arc<Registration>>,
    last: Option<Arc<Registration>>,
    single: Vec<Arc<Registration>>,
    multi: Vec<Arc<Registration>>,
    default: Vec<Arc<Registration>>,
}

impl Handlers {
    fn find_name(&self, name: &str) -> bool {
        self.all().any(|r| r.name.as_deref() == Some(name))
    }

    fn all(&self) -> impl Iterator<Item = &Arc<Registration>> {
        self.first
            .iter()
            .chain(self.single.iter())
            .chain(self.multi.iter())
            .chain(self.default.iter())
            .chain(self.last.iter())
    }
}

enum Job {
    Start(Event),
    Continue {
        chain: u64,
        status: Status,
        results: Vec<Info>,
    },
    Run(Box<dyn FnOnce() + Send + 'static>),
    /// Handler `id` was registered: it gets the kept events it accepts.
    Replay(usize),
    Stop,
}

struct Chain {
    event: Event,
    rest: VecDeque<Arc<Registration>>,
    results: Vec<Info>,
    current: Option<Arc<Registration>>,
    /// The first status a handler completed with other than
    /// `PMIX_SUCCESS` and `PMIX_EVENT_ACTION_COMPLETE` (the chain's
    /// verdict; success if none).
    verdict: Status,
    /// A kept event given to a late handler: its verdict was told when no
    /// handler took it, and is not told again.
    replay: bool,
}

struct Shared {
    handlers: Mutex<Handlers>,
    me: Mutex<Option<Proc>>,
    /// Told of each chain's verdict on its event (see
    /// [`EventHandlers::set_verdict_hook`]).
    verdicts: Mutex<Option<VerdictHook>>,
    /// The events no handler took, oldest first; `None`: none are kept.
    unclaimed: Mutex<Option<VecDeque<Event>>>,
    /// How many events were delivered, and how many of them the
    /// dispatcher has started (under `started`'s lock, which
    /// `started_cv` waits on): see [`EventHandlers::settle`].
    delivered: AtomicU64,
    started: Mutex<u64>,
    started_cv: Condvar,
}

impl Shared {
    /// The dispatcher started one more event.
    fn count_started(&self) {
        *self.started.lock() += 1;
        self.started_cv.notify_all();
    }
}

/// Receives an event, its chain's verdict and the chain's results once
/// the chain ended.
pub type VerdictHook = Arc<dyn Fn(&Event, Status, &[Info]) + Send + Sync + 'static>;

/// A process's registered event handlers and their dispatcher thread.
pub struct EventHandlers {
    shared: Arc<Shared>,
    tx: Mutex<Option<Sender<Job>>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Set by [`EventHandlers::shutdown`]: no dispatcher starts again.
    stopped: std::sync::atomic::AtomicBool,
}

impl Default for EventHandlers {
    fn default() -> Self {
        Self::new(None)
    }
}

impl std::fmt::Debug for EventHandlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventHandlers").finish_non_exhaustive()
    }
}

/// What a registration asks for, read from its infos.
struct Directives {
    name: Option<String>,
    placement: Placement,
    range: Option<Range>,
    custom: Vec<Proc>,
    affected: Vec<Proc>,
    return_object: Option<usize>,
}

fn directives(infos: &[Info]) -> Result<Directives, Status> {
    let mut d = Directives {
        name: None,
        placement: Placement::Prepend,
        range: None,
        custom: Vec::new(),
        affected: Vec::new(),
        return_object: None,
    };
    let string = |i: &Info| -> Result<String, Status> {
        i.value
            .as_str()
            .map(str::to_owned)
            .ok_or(Status::ERR_BAD_PARAM)
    };
    // attrs begin: PMIx_Register_event_handler
    for i in infos {
        let k = i.key.to_string_lossy();
        match k.as_ref() {
            keys::EVENT_HDLR_NAME => d.name = Some(string(i)?),
            keys::EVENT_HDLR_FIRST if info_true(i) => d.placement = Placement::First,
            keys::EVENT_HDLR_LAST if info_true(i) => d.placement = Placement::Last,
            keys::EVENT_HDLR_PREPEND | keys::EVENT_HDLR_FIRST_IN_CATEGORY if info_true(i) => {
                d.placement = Placement::Prepend
            }
            keys::EVENT_HDLR_APPEND | keys::EVENT_HDLR_LAST_IN_CATEGORY if info_true(i) => {
                d.placement = Placement::Append
            }
            keys::EVENT_HDLR_BEFORE => d.placement = Placement::Before(string(i)?),
            keys::EVENT_HDLR_AFTER => d.placement = Placement::After(string(i)?),
            keys::RANGE => match i.value {
                Value::DataRange(r) if Range(r).is_valid() => d.range = Some(Range(r)),
                _ => return Err(Status::ERR_BAD_PARAM),
            },
            keys::EVENT_CUSTOM_RANGE => {
                d.custom = procs_of(std::slice::from_ref(i), &[keys::EVENT_CUSTOM_RANGE]);
                d.range = Some(Range::CUSTOM);
            }
            keys::EVENT_AFFECTED_PROC | keys::EVENT_AFFECTED_PROCS => {
                d.affected.extend(procs_of(std::slice::from_ref(i), &[&k]))
            }
            keys::EVENT_RETURN_OBJECT => match i.value {
                Value::Pointer(p) => d.return_object = Some(p),
                _ => return Err(Status::ERR_BAD_PARAM),
            },
            _ => {}
        }
    }
    // attrs end
    Ok(d)
}

impl EventHandlers {
    /// An empty registry; `me` (the owning process) is what handlers
    /// registered with a `PMIX_RANGE` compare sources with.
    pub fn new(me: Option<Proc>) -> Self {
        EventHandlers {
            shared: Arc::new(Shared {
                handlers: Mutex::new(Handlers::default()),
                me: Mutex::new(me),
                verdicts: Mutex::new(None),
                delivered: AtomicU64::new(0),
                started: Mutex::new(0),
                started_cv: Condvar::new(),
                unclaimed: Mutex::new(None),
            }),
            tx: Mutex::new(None),
            thread: Mutex::new(None),
            stopped: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Sets what hears each chain's verdict, with its event, once the
    /// chain ended (on the dispatcher thread; also for an event no handler
    /// took, with `PMIX_SUCCESS`): how the library acts on a verdict, e.g.
    /// a group handler returning `PMIX_GROUP_CONSTRUCT_ABORT`.
    pub fn set_verdict_hook(&self, hook: Option<VerdictHook>) {
        *self.shared.verdicts.lock() = hook;
    }

    /// From now on, an event no handler takes is kept for the handlers
    /// registered later (see the module documentation).
    pub fn keep_unclaimed(&self) {
        self.shared
            .unclaimed
            .lock()
            .get_or_insert_with(VecDeque::new);
    }

    /// Sets the owning process's identity.
    pub fn set_me(&self, me: Proc) {
        *self.shared.me.lock() = Some(me);
    }

    /// The dispatcher's channel, starting the thread on first use.
    fn sender(&self) -> Option<Sender<Job>> {
        let mut tx = self.tx.lock();
        if let Some(t) = tx.as_ref() {
            return Some(t.clone());
        }
        if self.stopped.load(std::sync::atomic::Ordering::Acquire) {
            return None;
        }
        let (t, rx) = unbounded();
        let shared = self.shared.clone();
        let back = t.clone();
        let handle = std::thread::Builder::new()
            .name("pmix-events".into())
            .spawn(move || dispatch(shared, rx, back))
            .ok()?;
        *self.thread.lock() = Some(handle);
        *tx = Some(t.clone());
        Some(t)
    }

    /// Stops the dispatcher thread once what is queued has run (pending
    /// registration and notification callbacks are called first) and,
    /// unless called from that thread, waits for it to end: when the
    /// process's `PMIx_Finalize` returns, no library thread is still
    /// inside a caller's callback (the caller may unload that code next,
    /// as Open MPI unloads its PMIx component). Later deliveries are
    /// dropped and later callbacks run in the caller's thread.
    pub fn shutdown(&self) {
        self.stopped
            .store(true, std::sync::atomic::Ordering::Release);
        if let Some(tx) = self.tx.lock().take() {
            let _ = tx.send(Job::Stop);
        }
        let handle = self.thread.lock().take();
        if let Some(h) = handle {
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
    }

    /// `PMIx_Register_event_handler`: registers `handler` for `codes`
    /// (none: a default handler) with the directives of `infos`; returns
    /// its reference (numbered from 0, as OpenPMIx numbers them).
    /// `PMIX_ERR_EVENT_REGISTRATION` if a first or last handler already
    /// exists, or the handler to go before or after is unknown.
    pub fn register(
        &self,
        codes: &[Status],
        infos: &[Info],
        handler: EventHandler,
    ) -> Result<usize, Status> {
        let d = directives(infos)?;
        let mut h = self.shared.handlers.lock();
        match &d.placement {
            Placement::First if h.first.is_some() => return Err(codes::ERR_EVENT_REGISTRATION),
            Placement::Last if h.last.is_some() => return Err(codes::ERR_EVENT_REGISTRATION),
            Placement::Before(n) | Placement::After(n) if !h.find_name(n) => {
                return Err(codes::ERR_EVENT_REGISTRATION)
            }
            _ => {}
        }
        let id = h.next_id;
        h.next_id += 1;
        let reg = Arc::new(Registration {
            id,
            name: d.name,
            codes: codes.to_vec(),
            handler,
            range: d.range,
            custom: d.custom,
            affected: d.affected,
            return_object: d.return_object,
        });
        let list = match codes.len() {
            0 => &mut h.default,
            1 => &mut h.single,
            _ => &mut h.multi,
        };
        match d.placement {
            Placement::First => h.first = Some(reg),
            Placement::Last => h.last = Some(reg),
            Placement::Prepend => list.insert(0, reg),
            Placement::Append => list.push(reg),
            Placement::Before(n) => place_near(list, reg, &n, false),
            Placement::After(n) => place_near(list, reg, &n, true),
        }
        drop(h);
        let keeps = self
            .shared
            .unclaimed
            .lock()
            .as_ref()
            .is_some_and(|k| !k.is_empty());
        if keeps {
            if let Some(tx) = self.sender() {
                let _ = tx.send(Job::Replay(id));
            }
        }
        Ok(id)
    }

    /// `PMIx_Deregister_event_handler`: removes the handler `id`;
    /// `PMIX_ERR_NOT_FOUND` if there is none.
    pub fn deregister(&self, id: usize) -> Result<(), Status> {
        let mut h = self.shared.handlers.lock();
        let before = h.all().count();
        if h.first.as_ref().is_some_and(|r| r.id == id) {
            h.first = None;
        }
        if h.last.as_ref().is_some_and(|r| r.id == id) {
            h.last = None;
        }
        h.single.retain(|r| r.id != id);
        h.multi.retain(|r| r.id != id);
        h.default.retain(|r| r.id != id);
        if h.all().count() == before {
            return Err(Status::ERR_NOT_FOUND);
        }
        Ok(())
    }

    /// How many handlers are registered.
    pub fn registered(&self) -> usize {
        self.shared.handlers.lock().all().count()
    }

    /// True if some handler would receive `status`.
    pub fn has_handlers(&self) -> bool {
        self.shared.handlers.lock().all().next().is_some()
    }

    /// Delivers `event` to this process's handlers (asynchronously, on
    /// the dispatcher thread).
    pub fn deliver(&self, event: Event) {
        if let Some(tx) = self.sender() {
            self.shared.delivered.fetch_add(1, Ordering::AcqRel);
            if tx.send(Job::Start(event)).is_err() {
                self.shared.count_started();
            }
        }
    }

    /// Waits until every event delivered before this call was started on
    /// the dispatcher (its first handler ran, or it had none), for at most
    /// `within` (a handler that blocks must not hold the caller forever).
    /// Returns at once on the dispatcher thread itself (a handler's own
    /// blocking call) and when nothing is pending.
    pub fn settle(&self, within: Duration) {
        let target = self.shared.delivered.load(Ordering::Acquire);
        let mut started = self.shared.started.lock();
        if *started >= target {
            return;
        }
        let on_dispatcher = self
            .thread
            .lock()
            .as_ref()
            .is_some_and(|h| h.thread().id() == std::thread::current().id());
        if on_dispatcher {
            return;
        }
        let deadline = Instant::now() + within;
        while *started < target {
            if self
                .shared
                .started_cv
                .wait_until(&mut started, deadline)
                .timed_out()
            {
                return;
            }
        }
    }

    /// Runs `f` on the dispatcher thread, after what was queued before
    /// (callbacks of registrations and notifications).
    pub fn run(&self, f: Box<dyn FnOnce() + Send + 'static>) {
        match self.sender() {
            Some(tx) => {
                if let Err(e) = tx.send(Job::Run(f)) {
                    if let Job::Run(f) = e.0 {
                        f();
                    }
                }
            }
            None => f(),
        }
    }
}

/// Inserts `reg` before or after the handler named `name` (as its
/// directives say) in `list`; a name in another category puts it first.
fn place_near(list: &mut Vec<Arc<Registration>>, reg: Arc<Registration>, name: &str, after: bool) {
    match list.iter().position(|r| r.name.as_deref() == Some(name)) {
        Some(i) if after => list.insert(i + 1, reg),
        Some(i) => list.insert(i, reg),
        None if after => list.push(reg),
        None => list.insert(0, reg),
    }
}

impl Drop for EventHandlers {
    fn drop(&mut self) {
        // Chains still in progress are dropped: their handlers' later
        // completions go nowhere.
        self.shutdown();
    }
}

/// The dispatcher thread: starts chains and moves them on as handlers
/// complete. It owns the chains; only the registrations are shared.
fn dispatch(shared: Arc<Shared>, rx: Receiver<Job>, tx: Sender<Job>) {
    let mut chains: HashMap<u64, Chain> = HashMap::new();
    let mut next_chain = 1u64;
    while let Ok(job) = rx.recv() {
        match job {
            Job::Stop => return,
            Job::Run(f) => f(),
            Job::Start(event) => {
                let me = shared.me.lock().clone();
                let non_default = event.non_default();
                let rest: VecDeque<Arc<Registration>> = {
                    let h = shared.handlers.lock();
                    h.all()
                        .filter(|r| r.accepts(&event, me.as_ref(), non_default))
                        .cloned()
                        .collect()
                };
                if rest.is_empty() {
                    tell_verdict(&shared, &event, Status::SUCCESS, &[]);
                    keep(&shared, event);
                    shared.count_started();
                    continue;
                }
                start_chain(
                    &shared,
                    &mut chains,
                    &mut next_chain,
                    event,
                    rest,
                    false,
                    &tx,
                );
                shared.count_started();
            }
            Job::Replay(id) => {
                let me = shared.me.lock().clone();
                let reg = shared.handlers.lock().all().find(|r| r.id == id).cloned();
                let Some(reg) = reg else { continue };
                let taken: Vec<Event> = {
                    let mut kept = shared.unclaimed.lock();
                    let Some(kept) = kept.as_mut() else { continue };
                    let (take, stay): (VecDeque<Event>, VecDeque<Event>) = kept
                        .drain(..)
                        .partition(|e| reg.accepts(e, me.as_ref(), e.non_default()));
                    *kept = stay;
                    take.into()
                };
                for event in taken {
                    let rest = VecDeque::from([reg.clone()]);
                    start_chain(
                        &shared,
                        &mut chains,
                        &mut next_chain,
                        event,
                        rest,
                        true,
                        &tx,
                    );
                }
            }
            Job::Continue {
                chain,
                status,
                results,
            } => {
                let Some(c) = chains.get_mut(&chain) else {
                    continue;
                };
                // As OpenPMIx: the handler's status, then its results.
                let name = c
                    .current
                    .take()
                    .and_then(|r| r.name.clone())
                    .unwrap_or_else(|| "UNKNOWN".to_owned());
                if let Ok(k) = Key::new(name) {
                    c.results.push(Info::new(k, Value::Status(status.0)));
                }
                c.results.extend(results);
                if status != Status::SUCCESS
                    && status != codes::ACTION_COMPLETE
                    && c.verdict == Status::SUCCESS
                {
                    c.verdict = status;
                }
                if status == codes::ACTION_COMPLETE {
                    if let Some(c) = chains.remove(&chain).filter(|c| !c.replay) {
                        tell_verdict(&shared, &c.event, c.verdict, &c.results);
                    }
                } else {
                    advance(&shared, &mut chains, chain, &tx);
                }
            }
        }
    }
}

/// Keeps `event`, which no handler took, if this registry keeps them.
fn keep(shared: &Shared, event: Event) {
    if let Some(kept) = shared.unclaimed.lock().as_mut() {
        if kept.len() == UNCLAIMED_MAX {
            kept.pop_front();
        }
        kept.push_back(event);
    }
}

/// Starts a chain of `event` through the handlers `rest`.
fn start_chain(
    shared: &Shared,
    chains: &mut HashMap<u64, Chain>,
    next_chain: &mut u64,
    event: Event,
    rest: VecDeque<Arc<Registration>>,
    replay: bool,
    tx: &Sender<Job>,
) {
    let id = *next_chain;
    *next_chain += 1;
    chains.insert(
        id,
        Chain {
            event,
            rest,
            results: Vec::new(),
            current: None,
            verdict: Status::SUCCESS,
            replay,
        },
    );
    advance(shared, chains, id, tx);
}

/// Hands `event`'s verdict and results to the hook, if one is set.
fn tell_verdict(shared: &Shared, event: &Event, verdict: Status, results: &[Info]) {
    let hook = shared.verdicts.lock().clone();
    if let Some(h) = hook {
        h(event, verdict, results);
    }
}

/// Hands chain `id`'s event to its next handler, or ends the chain.
fn advance(shared: &Shared, chains: &mut HashMap<u64, Chain>, id: u64, tx: &Sender<Job>) {
    let Some(c) = chains.get_mut(&id) else {
        return;
    };
    let Some(reg) = c.rest.pop_front() else {
        if let Some(c) = chains.remove(&id).filter(|c| !c.replay) {
            tell_verdict(shared, &c.event, c.verdict, &c.results);
        }
        return;
    };
    let mut infos = c.event.infos.clone();
    if let Some(n) = &reg.name {
        if let Ok(k) = Key::new(keys::EVENT_HDLR_NAME) {
            infos.push(Info::new(k, Value::string(n)));
        }
    }
    if let Some(o) = reg.return_object {
        if let Ok(k) = Key::new(keys::EVENT_RETURN_OBJECT) {
            infos.push(Info::new(k, Value::Pointer(o)));
        }
    }
    let call = HandlerCall {
        id: reg.id,
        status: c.event.status,
        source: c.event.source.clone(),
        infos,
        results: c.results.clone(),
        done: EventDone {
            chain: id,
            tx: Some(tx.clone()),
        },
    };
    c.current = Some(reg.clone());
    let h = reg.handler.clone();
    // A panicking handler must not take the dispatcher down: its
    // completion (dropped while unwinding) moves the chain on.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h(call)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam_channel::bounded;

    fn ns() -> crate::Nspace {
        crate::Nspace::new("ev-test").unwrap()
    }

    fn info(k: &str, v: Value) -> Info {
        Info::new(Key::new(k).unwrap(), v)
    }

    fn named(n: &str) -> Info {
        info(keys::EVENT_HDLR_NAME, Value::string(n))
    }

    /// Registers a handler that records `name` (and completes with
    /// `status`) into `log`.
    fn recorder(
        h: &EventHandlers,
        codes: &[Status],
        mut infos: Vec<Info>,
        name: &'static str,
        status: Status,
        log: &Sender<&'static str>,
    ) -> Result<usize, Status> {
        infos.push(named(name));
        let log = log.clone();
        h.register(
            codes,
            &infos,
            Arc::new(move |c: HandlerCall| {
                let _ = log.send(name);
                c.done.complete(status, Vec::new());
            }),
        )
    }

    fn event(status: Status, infos: Vec<Info>) -> Event {
        Event {
            status,
            source: Proc::new(ns(), Rank(0)),
            range: Range::PROC_LOCAL,
            infos,
        }
    }

    /// Delivers `e` and returns the handlers that ran, once the chain is
    /// over. The handlers here complete at once, so each step of a chain
    /// queues the next one on the dispatcher: a round trip through the
    /// dispatcher during which no handler ran means every chain ended.
    fn run(h: &EventHandlers, e: Event, log: &Receiver<&'static str>) -> Vec<&'static str> {
        h.deliver(e);
        let mut out = Vec::new();
        loop {
            let (tx, rx) = bounded(1);
            h.run(Box::new(move || {
                let _ = tx.send(());
            }));
            rx.recv().unwrap();
            let before = out.len();
            while let Ok(n) = log.try_recv() {
                out.push(n);
            }
            if out.len() == before {
                return out;
            }
        }
    }

    const X: Status = Status(-3001);
    const Y: Status = Status(-3002);

    #[test]
    fn before_and_after_place_a_handler_next_to_a_named_one() {
        let h = EventHandlers::new(None);
        let (tx, rx) = unbounded();
        let s = Status::SUCCESS;
        recorder(&h, &[X], vec![], "a", s, &tx).unwrap();
        recorder(&h, &[X], vec![], "b", s, &tx).unwrap();
        let after = info(keys::EVENT_HDLR_AFTER, Value::string("b"));
        recorder(&h, &[X], vec![after], "c", s, &tx).unwrap();
        let unknown = info(keys::EVENT_HDLR_BEFORE, Value::string("nobody"));
        assert_eq!(
            recorder(&h, &[X], vec![unknown], "d", s, &tx),
            Err(codes::ERR_EVENT_REGISTRATION)
        );
        assert_eq!(run(&h, event(X, vec![]), &rx), ["b", "c", "a"]);
    }

    /// Waits until what is queued on `h`'s dispatcher ran, and returns
    /// the names logged meanwhile (its probe, a non-default event of its
    /// own code, reaches no handler here).
    fn settle(h: &EventHandlers, log: &Receiver<&'static str>) -> Vec<&'static str> {
        let probe = info(keys::EVENT_NON_DEFAULT, Value::Bool(true));
        run(h, event(Status(-9999), vec![probe]), log)
    }

    #[test]
    fn an_unclaimed_event_waits_for_one_late_handler_if_kept() {
        let (tx, log) = crossbeam_channel::unbounded();
        let code = Status(-5001);
        let non_default = info(keys::EVENT_NON_DEFAULT, Value::Bool(true));
        // Not kept: lost.
        let plain = EventHandlers::new(None);
        assert!(run(&plain, event(code, Vec::new()), &log).is_empty());
        recorder(&plain, &[code], vec![], "late", Status::SUCCESS, &tx).unwrap();
        assert!(settle(&plain, &log).is_empty());
        // Kept: the first handler that accepts it gets it, alone, once.
        let h = EventHandlers::new(None);
        h.keep_unclaimed();
        assert!(run(&h, event(code, vec![non_default]), &log).is_empty());
        recorder(&h, &[], vec![], "default", Status::SUCCESS, &tx).unwrap();
        assert!(
            settle(&h, &log).is_empty(),
            "non-default: not to a default handler"
        );
        recorder(&h, &[code], vec![], "first", Status::SUCCESS, &tx).unwrap();
        assert_eq!(settle(&h, &log), vec!["first"]);
        recorder(&h, &[code], vec![], "second", Status::SUCCESS, &tx).unwrap();
        assert!(settle(&h, &log).is_empty(), "given once");
        // The probe events `settle` sent were kept too: bounded.
        for _ in 0..UNCLAIMED_MAX + 10 {
            h.deliver(event(Status(-5002), Vec::new()));
        }
        settle(&h, &log);
        assert!(h.shared.unclaimed.lock().as_ref().unwrap().len() <= UNCLAIMED_MAX);
    }

    #[test]
    fn action_complete_ends_the_chain_and_non_default_skips_defaults() {
        let h = EventHandlers::new(None);
        let (tx, rx) = unbounded();
        recorder(&h, &[], vec![], "default", Status::SUCCESS, &tx).unwrap();
        recorder(&h, &[X, Y], vec![], "multi", codes::ACTION_COMPLETE, &tx).unwrap();
        recorder(&h, &[Y], vec![], "single", Status::SUCCESS, &tx).unwrap();
        assert_eq!(run(&h, event(Y, vec![]), &rx), ["single", "multi"]);
        assert_eq!(run(&h, event(Status(-3003), vec![]), &rx), ["default"]);
        let nd = info(keys::EVENT_NON_DEFAULT, Value::Bool(true));
        assert!(run(&h, event(Status(-3003), vec![nd]), &rx).is_empty());
    }

    #[test]
    fn affected_procs_and_ranges_filter_what_a_handler_hears() {
        let me = Proc::new(ns(), Rank(3));
        let h = EventHandlers::new(Some(me.clone()));
        let (tx, rx) = unbounded();
        let watch = info(
            keys::EVENT_AFFECTED_PROC,
            Value::Proc(Proc::new(ns(), Rank(5))),
        );
        recorder(&h, &[X], vec![watch], "watch5", Status::SUCCESS, &tx).unwrap();
        let mine = info(keys::RANGE, Value::DataRange(Range::PROC_LOCAL.0));
        recorder(&h, &[X], vec![mine], "mine", Status::SUCCESS, &tx).unwrap();
        let about = |r| {
            info(
                keys::EVENT_AFFECTED_PROC,
                Value::Proc(Proc::new(ns(), Rank(r))),
            )
        };
        // From rank 0 (not me), about rank 5.
        assert_eq!(run(&h, event(X, vec![about(5)]), &rx), ["watch5"]);
        assert!(run(&h, event(X, vec![about(4)]), &rx).is_empty());
        let mut from_me = event(X, vec![]);
        from_me.source = me;
        assert_eq!(run(&h, from_me, &rx), ["mine"]);
    }

    #[test]
    fn custom_ranges_reach_the_listed_processes_only() {
        let list = DataArrayValue::procs(&[Proc::new(ns(), Rank(1)), Proc::new(ns(), Rank(2))]);
        let mut e = event(X, vec![info(keys::EVENT_CUSTOM_RANGE, list)]);
        e.range = Range::CUSTOM;
        assert!(e.reaches(&Proc::new(ns(), Rank(2))));
        assert!(!e.reaches(&Proc::new(ns(), Rank(0))));
    }

    #[test]
    fn events_round_trip_and_garbage_is_refused() {
        let e = event(X, vec![named("n")]);
        assert_eq!(decode_event(&encode_event(&e).unwrap()).unwrap(), e);
        let mut bad = encode_event(&e).unwrap();
        bad.push(0);
        assert!(decode_event(&bad).is_err());
        assert!(decode_event(&[1, 2, 3]).is_err());
    }

    /// Builds `PMIX_DATA_ARRAY` values of procs.
    struct DataArrayValue;
    impl DataArrayValue {
        fn procs(p: &[Proc]) -> Value {
            Value::DataArray(Box::new(crate::value::DataArray {
                elem_type: crate::DataType::Proc,
                items: p.iter().cloned().map(Value::Proc).collect(),
            }))
        }
    }
}
