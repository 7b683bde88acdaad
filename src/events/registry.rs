//! The registry a process owns ([`EventHandlers`]): registering and
//! deregistering handlers with their directives (name, place in the
//! chain, range, affected processes), delivering events to the dispatcher
//! thread, and waiting for them to start ([`EventHandlers::settle`]).
//!
//! Invariants: at most one first and one last handler; a handler placed
//! before or after another names a registered one; the dispatcher thread
//! starts on first use and never again after [`EventHandlers::shutdown`].

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{unbounded, Sender};
use parking_lot::{Condvar, Mutex};

use super::chain::{EventHandler, Handlers, Job, Registration, Shared, VerdictHook};
use super::dispatch::dispatch;
use super::event::{codes, info_true, procs_of, Event, Range};
use crate::{keys, Info, Proc, Status, Value};

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

/// A process's registered event handlers and their dispatcher thread.
pub struct EventHandlers {
    shared: Arc<Shared>,
    tx: Mutex<Option<Sender<Job>>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Set by [`EventHandlers::shutdown`]: no dispatcher starts again.
    stopped: std::sync::atomic::AtomicBool,
    /// Told of each registration and deregistration (see
    /// [`EventHandlers::set_registration_hook`]).
    registrations: Mutex<Option<RegistrationHook>>,
}

/// Hears a handler's registration (its reference and codes) or, with no
/// codes given, its deregistration; runs in the caller's thread, no lock
/// of the registry held.
pub type RegistrationHook = Arc<dyn Fn(usize, Option<&[Status]>) + Send + Sync + 'static>;

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
            registrations: Mutex::new(None),
        }
    }

    /// Sets what hears each registration and deregistration (a client
    /// whose server sends only the codes it registered forwards them).
    pub fn set_registration_hook(&self, hook: Option<RegistrationHook>) {
        *self.registrations.lock() = hook;
    }

    fn tell_registration(&self, id: usize, codes: Option<&[Status]>) {
        let hook = self.registrations.lock().clone();
        if let Some(hook) = hook {
            hook(id, codes);
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
        self.tell_registration(id, Some(codes));
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
        drop(h);
        self.tell_registration(id, None);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::chain::HandlerCall;
    use crate::events::dispatch::UNCLAIMED_MAX;
    use crate::events::wire::{decode_event, encode_event};
    use crate::{Key, Rank};
    use crossbeam_channel::bounded;
    use crossbeam_channel::Receiver;

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

    #[test]
    fn the_registration_hook_hears_each_registration_and_deregistration() {
        let h = EventHandlers::new(None);
        let (tx, rx) = bounded::<(usize, Option<Vec<Status>>)>(8);
        h.set_registration_hook(Some(Arc::new(move |id, codes| {
            let _ = tx.send((id, codes.map(<[Status]>::to_vec)));
        })));
        let (log, _seen) = bounded(8);
        let x = Status(-3077);
        let a = recorder(&h, &[x], vec![], "a", Status::SUCCESS, &log).unwrap();
        let b = recorder(&h, &[], vec![], "b", Status::SUCCESS, &log).unwrap();
        // A refused registration is not told.
        let first = vec![info(keys::EVENT_HDLR_FIRST, Value::Bool(true))];
        recorder(&h, &[x], first.clone(), "c", Status::SUCCESS, &log).unwrap();
        assert!(recorder(&h, &[x], first, "d", Status::SUCCESS, &log).is_err());
        h.deregister(a).unwrap();
        assert!(h.deregister(a).is_err());
        let told: Vec<_> = rx.try_iter().collect();
        assert_eq!(
            told,
            [
                (a, Some(vec![x])),
                (b, Some(vec![])),
                (b + 1, Some(vec![x])),
                (a, None),
            ]
        );
    }
}
