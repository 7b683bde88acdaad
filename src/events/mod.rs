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
//!
//! Parts: [`event`] (what an event is), [`wire`] (its wire body),
//! [`registry`] (registrations and their directives, delivery), [`chain`]
//! (what the registry and the dispatcher share), [`dispatch`] (the
//! dispatcher thread: chains, the unclaimed cache).

mod chain;
mod dispatch;
mod event;
mod registry;
mod wire;

pub use chain::{EventDone, EventHandler, HandlerCall, VerdictHook};
pub use dispatch::UNCLAIMED_MAX;
pub use event::{codes, proc_matches, Event, Range};
pub use registry::{EventHandlers, RegistrationHook};
pub use wire::{decode_event, encode_event};
