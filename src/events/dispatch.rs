//! The dispatcher thread: starts a chain for each delivered event, moves
//! it on as handlers complete, keeps the events no handler took (the
//! unclaimed cache, at most [`UNCLAIMED_MAX`]) and replays them to a late
//! handler.
//!
//! Invariants: the dispatcher owns the chains; only the registrations are
//! shared. A panicking handler does not stop it. A kept event is given
//! once, to one handler.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender};

use super::chain::{Chain, EventDone, HandlerCall, Job, Registration, Shared};
use super::event::{codes, Event};
use crate::{keys, Info, Key, Status, Value};

/// How many events no handler took a registry keeps for later handlers
/// (see [`EventHandlers::keep_unclaimed`]; OpenPMIx's cache holds 512).
pub const UNCLAIMED_MAX: usize = 512;

/// The dispatcher thread: starts chains and moves them on as handlers
/// complete. It owns the chains; only the registrations are shared.
pub(super) fn dispatch(shared: Arc<Shared>, rx: Receiver<Job>, tx: Sender<Job>) {
    let mut chains = Chains {
        shared: &shared,
        tx: &tx,
        live: HashMap::new(),
        next: 1,
    };
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
                chains.start(event, rest, false);
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
                    chains.start(event, VecDeque::from([reg.clone()]), true);
                }
            }
            Job::Continue {
                chain,
                status,
                results,
            } => {
                let Some(c) = chains.live.get_mut(&chain) else {
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
                    if let Some(c) = chains.live.remove(&chain).filter(|c| !c.replay) {
                        tell_verdict(&shared, &c.event, c.verdict, &c.results);
                    }
                } else {
                    chains.advance(chain);
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

/// Hands `event`'s verdict and results to the hook, if one is set.
fn tell_verdict(shared: &Shared, event: &Event, verdict: Status, results: &[Info]) {
    let hook = shared.verdicts.lock().clone();
    if let Some(h) = hook {
        h(event, verdict, results);
    }
}

/// The chains in progress, by number, with what moving one on needs: the
/// shared registrations and the dispatcher's own queue (where a handler's
/// completion comes back).
struct Chains<'d> {
    shared: &'d Shared,
    tx: &'d Sender<Job>,
    live: HashMap<u64, Chain>,
    next: u64,
}

impl Chains<'_> {
    /// Starts a chain of `event` through the handlers `rest` (`replay`:
    /// a kept event given to a late handler, whose verdict nobody waits
    /// for).
    fn start(&mut self, event: Event, rest: VecDeque<Arc<Registration>>, replay: bool) {
        let id = self.next;
        self.next += 1;
        self.live.insert(
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
        self.advance(id);
    }

    /// Hands chain `id`'s event to its next handler, or ends the chain.
    fn advance(&mut self, id: u64) {
        let Some(c) = self.live.get_mut(&id) else {
            return;
        };
        let Some(reg) = c.rest.pop_front() else {
            if let Some(c) = self.live.remove(&id).filter(|c| !c.replay) {
                tell_verdict(self.shared, &c.event, c.verdict, &c.results);
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
                tx: Some(self.tx.clone()),
            },
        };
        c.current = Some(reg.clone());
        let h = reg.handler.clone();
        // A panicking handler must not take the dispatcher down: its
        // completion (dropped while unwinding) moves the chain on.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h(call)));
    }
}
