//! What the registry and its dispatcher thread share: the registrations
//! ([`Registration`], grouped by category in [`Handlers`]), the jobs sent
//! to the dispatcher ([`Job`]), a chain in progress ([`Chain`]), the state
//! both sides hold ([`Shared`]), and what a handler receives
//! ([`HandlerCall`], [`EventDone`]).
//!
//! Invariants: an [`EventDone`] sends exactly one `Continue` for its chain
//! (dropping it sends success with no results); [`Shared::count_started`]
//! is the only place that counts started events.

use std::collections::VecDeque;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use crossbeam_channel::Sender;
use parking_lot::{Condvar, Mutex};

use super::event::{proc_matches, Event, Range};
use crate::{Info, Proc, Status};

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
    pub(super) chain: u64,
    pub(super) tx: Option<Sender<Job>>,
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

/// One registration.
pub(super) struct Registration {
    pub(super) id: usize,
    pub(super) name: Option<String>,
    pub(super) codes: Vec<Status>,
    pub(super) handler: EventHandler,
    /// Only events whose source is within this range of us.
    pub(super) range: Option<Range>,
    /// With `range == CUSTOM`: the accepted sources.
    pub(super) custom: Vec<Proc>,
    /// Only events affecting one of these.
    pub(super) affected: Vec<Proc>,
    pub(super) return_object: Option<usize>,
}

impl Registration {
    pub(super) fn accepts(&self, e: &Event, me: Option<&Proc>, non_default: bool) -> bool {
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
pub(super) struct Handlers {
    pub(super) next_id: usize,
    pub(super) first: Option<Arc<Registration>>,
    pub(super) last: Option<Arc<Registration>>,
    pub(super) single: Vec<Arc<Registration>>,
    pub(super) multi: Vec<Arc<Registration>>,
    pub(super) default: Vec<Arc<Registration>>,
}

impl Handlers {
    pub(super) fn find_name(&self, name: &str) -> bool {
        self.all().any(|r| r.name.as_deref() == Some(name))
    }

    pub(super) fn all(&self) -> impl Iterator<Item = &Arc<Registration>> {
        self.first
            .iter()
            .chain(self.single.iter())
            .chain(self.multi.iter())
            .chain(self.default.iter())
            .chain(self.last.iter())
    }
}

pub(super) enum Job {
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

pub(super) struct Chain {
    pub(super) event: Event,
    pub(super) rest: VecDeque<Arc<Registration>>,
    pub(super) results: Vec<Info>,
    pub(super) current: Option<Arc<Registration>>,
    /// The first status a handler completed with other than
    /// `PMIX_SUCCESS` and `PMIX_EVENT_ACTION_COMPLETE` (the chain's
    /// verdict; success if none).
    pub(super) verdict: Status,
    /// A kept event given to a late handler: its verdict was told when no
    /// handler took it, and is not told again.
    pub(super) replay: bool,
}

pub(super) struct Shared {
    pub(super) handlers: Mutex<Handlers>,
    pub(super) me: Mutex<Option<Proc>>,
    /// Told of each chain's verdict on its event (see
    /// [`EventHandlers::set_verdict_hook`]).
    pub(super) verdicts: Mutex<Option<VerdictHook>>,
    /// The events no handler took, oldest first; `None`: none are kept.
    pub(super) unclaimed: Mutex<Option<VecDeque<Event>>>,
    /// How many events were delivered, and how many of them the
    /// dispatcher has started (under `started`'s lock, which
    /// `started_cv` waits on): see [`EventHandlers::settle`].
    pub(super) delivered: AtomicU64,
    pub(super) started: Mutex<u64>,
    pub(super) started_cv: Condvar,
}

impl Shared {
    /// The dispatcher started one more event.
    pub(super) fn count_started(&self) {
        *self.started.lock() += 1;
        self.started_cv.notify_all();
    }
}

/// Receives an event, its chain's verdict and the chain's results once
/// the chain ended.
pub type VerdictHook = Arc<dyn Fn(&Event, Status, &[Info]) + Send + Sync + 'static>;
