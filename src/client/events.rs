//! Event notification in a client: `PMIx_Register_event_handler`,
//! `PMIx_Deregister_event_handler`, `PMIx_Notify_event`.
//!
//! The handlers live in this process ([`EventHandlers`], created on first
//! use, which also starts listening to the events the server pushes).
//! The server pushes every event whose range reaches this process; the
//! handlers' codes are matched here (the server does not filter).
//!
//! A notification with `PMIX_RANGE_PROC_LOCAL` stays in this process.
//! Any other goes to the server (`Op::NOTIFY_EVENT`), which delivers it to
//! the other local processes in range and hands what leaves the node to
//! its host; this process's own handlers receive it here when the range
//! includes it (the server does not send it back).
//!
//! When the server closes the connection before `PMIx_Finalize`, the
//! handlers receive `PMIX_ERR_LOST_CONNECTION` with the server as source.
//!
//! A programming model that names itself at init (`PMIx_Init` with
//! `PMIX_PROGRAMMING_MODEL` and the like, as Open MPI does once MPI is up)
//! is announced to this process's handlers as `PMIX_MODEL_DECLARED`
//! ([`Client::declare_model`]), so that the libraries of one process learn
//! of each other.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use super::{Client, Inner, StatusCallback};
use crate::events::{decode_event, encode_event, Event, EventHandler, EventHandlers, Range};
use crate::info::InfoItem;
use crate::wire::Op;
use crate::{keys, Info, Proc, Status, Value};

/// The keys by which a programming model declares itself at init, in the
/// order [`Client::declare_model`] passes them on.
const MODEL_KEYS: [&str; 4] = [
    keys::PROGRAMMING_MODEL,
    keys::MODEL_LIBRARY_NAME,
    keys::MODEL_LIBRARY_VERSION,
    keys::THREADING_MODEL,
];

/// An OpenPMIx server sends a client only the codes it registered (none
/// for a default handler, as with its own clients): through a stock link,
/// each handler's codes go to the bridge, and its deregistration. The
/// answer changes nothing here.
fn tell_stock_server(inner: &Inner, id: usize, codes: Option<&[Status]>) {
    if !inner.stock_link.load(Ordering::Acquire) || inner.finalized.load(Ordering::Acquire) {
        return;
    }
    let (op, codes) = match codes {
        Some([]) => return,
        Some(c) => (Op::REGISTER_EVENTS, c),
        None => (Op::DEREGISTER_EVENTS, &[][..]),
    };
    let body = super::stock_link::registration_body(id, codes);
    inner.requester.submit(
        crate::wire::Message::Request(crate::wire::Request { op, body }),
        None,
    );
}

impl Client {
    /// This process's event handlers (set up when the connection is made,
    /// before anything the server sends is read: from then on the events
    /// the server pushes, and the loss of the server, reach them; those
    /// no handler takes are kept for handlers registered later).
    pub fn events(&self) -> &Arc<EventHandlers> {
        self.inner.events.get_or_init(|| {
            let handlers = Arc::new(EventHandlers::new(Some(self.inner.proc.clone())));
            // What the server sent before the program registered for it
            // waits for a handler (as OpenPMIx's client caches it).
            handlers.keep_unclaimed();
            let h = handlers.clone();
            let weak: Weak<Inner> = Arc::downgrade(&self.inner);
            self.set_event_sink(Some(Arc::new(move |body: Vec<u8>| {
                // A malformed event is dropped: the server is trusted
                // for nothing it sends, and one bad event is no reason
                // to lose the connection.
                if let Ok(e) = decode_event(&body) {
                    if let Some(inner) = weak.upgrade() {
                        inner.groups.observe(&e);
                    }
                    h.deliver(e);
                }
            })));
            let weak: Weak<Inner> = Arc::downgrade(&self.inner);
            handlers.set_verdict_hook(Some(Arc::new(
                move |e: &Event, s: Status, results: &[Info]| {
                    if let Some(inner) = weak.upgrade() {
                        super::group::verdict(&inner, e, s, results);
                    }
                },
            )));
            let weak: Weak<Inner> = Arc::downgrade(&self.inner);
            handlers.set_registration_hook(Some(Arc::new(move |id, codes| {
                if let Some(inner) = weak.upgrade() {
                    tell_stock_server(&inner, id, codes);
                }
            })));
            let weak: Weak<Inner> = Arc::downgrade(&self.inner);
            let h = handlers.clone();
            self.inner.requester.set_lost_hook(Some(Box::new(move || {
                let Some(inner) = weak.upgrade() else { return };
                // Finalizing closes the connection on purpose.
                if inner.finalized.load(Ordering::Acquire) {
                    return;
                }
                h.deliver(Event {
                    status: Status::ERR_LOST_CONNECTION,
                    source: inner.server.clone(),
                    range: Range::PROC_LOCAL,
                    infos: Vec::new(),
                });
            })));
            handlers
        })
    }

    /// `PMIx_Register_event_handler`: `handler` receives the events of
    /// `codes` (none: every event, as a default handler) that reach this
    /// process, with the directives of `infos` (name, placement, range,
    /// affected processes, return object). Returns its reference.
    pub fn register_event_handler(
        &self,
        codes: &[Status],
        infos: &[Info],
        handler: EventHandler,
    ) -> Result<usize, Status> {
        self.inner.check_active()?;
        self.events().register(codes, infos, handler)
    }

    /// `PMIx_Deregister_event_handler`.
    pub fn deregister_event_handler(&self, id: usize) -> Result<(), Status> {
        self.inner.check_active()?;
        self.events().deregister(id)
    }

    /// The init infos `infos` declare a programming model when they hold
    /// any of `PMIX_PROGRAMMING_MODEL`, `PMIX_MODEL_LIBRARY_NAME`,
    /// `PMIX_MODEL_LIBRARY_VERSION`, `PMIX_THREADING_MODEL`: then this
    /// process's handlers receive `PMIX_MODEL_DECLARED` (range
    /// `PMIX_RANGE_PROC_LOCAL`, from this process) with those infos and
    /// `PMIX_EVENT_NON_DEFAULT` (default handlers are not called), as
    /// OpenPMIx raises it at every `PMIx_Init` that carries them.
    pub fn declare_model(&self, infos: &[Info]) -> Result<(), Status> {
        let mut model: Vec<Info> = MODEL_KEYS
            .iter()
            .filter_map(|k| infos.iter().find(|i| i.key_is(k)).cloned())
            .collect();
        if model.is_empty() {
            return Ok(());
        }
        model.extend(Info::keyed(keys::EVENT_NON_DEFAULT, Value::Bool(true)));
        self.notify_event(
            Status::MODEL_DECLARED,
            None,
            Range::PROC_LOCAL,
            &model,
            None,
        )
    }

    /// `PMIx_Notify_event`: raises `status` on behalf of `source` (`None`:
    /// this process) for the processes in `range`. `done` runs on a
    /// library thread once the notification is accepted (by this process
    /// for `PMIX_RANGE_PROC_LOCAL`, else by the server), before or while
    /// handlers run.
    pub fn notify_event(
        &self,
        status: Status,
        source: Option<&Proc>,
        range: Range,
        infos: &[Info],
        done: Option<StatusCallback>,
    ) -> Result<(), Status> {
        self.inner.check_active()?;
        if !range.is_valid() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let event = Event {
            status,
            source: source.cloned().unwrap_or_else(|| self.inner.proc.clone()),
            range,
            infos: infos.to_vec(),
        };
        let events = self.events().clone();
        if range == Range::PROC_LOCAL {
            if let Some(d) = done {
                events.run(Box::new(move || d(Status::SUCCESS)));
            }
            events.deliver(event);
            return Ok(());
        }
        let body = encode_event(&event)?;
        let here = event.reaches(&self.inner.proc);
        self.request_nb(
            Op::NOTIFY_EVENT,
            body,
            Box::new(move |r| {
                if let Some(d) = done {
                    d(r.err().unwrap_or(Status::SUCCESS));
                }
            }),
        )?;
        if here {
            events.deliver(event);
        }
        Ok(())
    }
}
