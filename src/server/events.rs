//! Event notification in the server: the server process's own handlers,
//! `PMIx_Notify_event` called by the host, notifications from clients
//! (`Op::NOTIFY_EVENT`) and the events the server raises itself.
//!
//! Delivery of one event:
//! - to each connected local client the range reaches (see
//!   [`Event::reaches`]), except the client that notified it (it
//!   delivered it to itself);
//! - to the server process's handlers for `PMIX_RANGE_RM`, or when the
//!   range reaches the server's own identity (`PMIX_RANGE_PROC_LOCAL`
//!   from the host: only them);
//! - from a client, with a range beyond this node (namespace, session,
//!   global, RM, custom), to the host's `notify_event` with
//!   `PMIX_EVENT_PROXY` set to this server; an event coming back from the
//!   host with that proxy is not delivered to the clients again.
//!
//! A client whose connection closes before it finalized makes the server
//! raise `PMIX_ERR_LOST_CONNECTION` (source: that client, range
//! `PMIX_RANGE_PROC_LOCAL`) to its own handlers, as OpenPMIx does.

use std::sync::Arc;

use super::event_loop::EventLoop;
use super::host::OpResult;
use super::services::Caller;
use super::Server;
use crate::events::{decode_event, encode_event, Event, EventHandler, EventHandlers, Range};
use crate::{keys, Info, Key, Proc, Status, Value};

/// Callback of [`Server::notify_event`].
pub type NotifyCallback = Box<dyn FnOnce(Status) + Send + 'static>;

impl Server {
    /// The server process's own event handlers.
    pub fn events(&self) -> &Arc<EventHandlers> {
        &self.events
    }

    /// `PMIx_Register_event_handler` in the server process.
    pub fn register_event_handler(
        &self,
        codes: &[Status],
        infos: &[Info],
        handler: EventHandler,
    ) -> Result<usize, Status> {
        self.events.register(codes, infos, handler)
    }

    /// `PMIx_Deregister_event_handler` in the server process.
    pub fn deregister_event_handler(&self, id: usize) -> Result<(), Status> {
        self.events.deregister(id)
    }

    /// `PMIx_Notify_event` from the host: delivers `event` to the local
    /// clients in its range and to the server process's handlers (see
    /// the module documentation). `done` runs on the progress thread once
    /// the clients' notifications are queued.
    pub fn notify_event(&self, event: Event, done: Option<NotifyCallback>) -> Result<(), Status> {
        if !event.range.is_valid() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let ok = self.run_on_loop(move |el| {
            el.deliver_from_host(event);
            if let Some(d) = done {
                d(Status::SUCCESS);
            }
        });
        if ok {
            Ok(())
        } else {
            Err(Status::ERR_INIT)
        }
    }
}

impl EventLoop {
    /// Sends `event` to every connected local client it reaches, except
    /// `skip`.
    fn push_to_clients(&mut self, event: &Event, skip: Option<&Proc>) {
        let Ok(body) = encode_event(event) else {
            return;
        };
        for p in self.connected_procs() {
            if Some(&p) != skip && event.reaches(&p) {
                self.send_event(&p, body.clone());
            }
        }
    }

    /// A host's notification.
    pub(super) fn deliver_from_host(&mut self, event: Event) {
        let own = match event.range {
            Range::PROC_LOCAL | Range::RM => true,
            _ => event.reaches(self.server_proc()),
        };
        let mine = event.proxy().as_ref() == Some(self.server_proc());
        if event.range != Range::PROC_LOCAL && !mine {
            self.push_to_clients(&event, None);
        }
        if own {
            self.events.deliver(event);
        }
    }

    /// `Op::NOTIFY_EVENT` from the local client `proc`.
    pub(super) fn notify_from_client(&mut self, caller: Caller, proc: &Proc, body: &[u8]) {
        let event = match decode_event(body) {
            Ok(e) if e.range != Range::PROC_LOCAL => e,
            _ => return self.respond(caller, Err(Status::ERR_BAD_PARAM)),
        };
        if event.range != Range::RM {
            self.push_to_clients(&event, Some(proc));
        }
        if event.range == Range::RM || event.reaches(self.server_proc()) {
            self.events.deliver(event.clone());
        }
        if matches!(event.range, Range::LOCAL) {
            return self.respond(caller, Ok(Vec::new()));
        }
        // Beyond this node: the host's business.
        let mut infos = event.infos.clone();
        if let Ok(k) = Key::new(keys::EVENT_PROXY) {
            infos.push(Info::new(k, Value::Proc(self.server_proc().clone())));
        }
        let (op, done) = self.host_op::<()>(caller, |()| Ok(Vec::new()));
        let r =
            self.host_module()
                .notify_event(event.status, &event.source, event.range, &infos, done);
        if let Err(s) = r {
            // Without the host the event reached everyone it can.
            let result: OpResult = if s == Status::ERR_NOT_SUPPORTED {
                Ok(Box::new(()))
            } else {
                Err(s)
            };
            self.finish_op(op, result);
        }
    }

    /// A client left without finalizing.
    pub(super) fn client_lost_event(&mut self, proc: &Proc) {
        self.events.deliver(Event {
            status: Status::ERR_LOST_CONNECTION,
            source: proc.clone(),
            range: Range::PROC_LOCAL,
            infos: Vec::new(),
        });
    }
}
