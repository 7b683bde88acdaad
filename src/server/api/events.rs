//! Events and process sets from the host: the server process's own event
//! handlers; `PMIx_Notify_event` in the server's process, whose event
//! first tells this server's groups and invitations what it says (see
//! [`group_members::from_host`]), then goes to the local clients in range
//! and the server process's handlers (see [`deliver_from_host`]);
//! `PMIx_server_define_process_set` and `_delete_process_set`.

use std::sync::Arc;

use super::Server;
use crate::events::{Event, EventHandler, EventHandlers};
use crate::server::events::{define_pset, delete_pset, deliver_from_host, NotifyCallback};
use crate::server::groups::members as group_members;
use crate::server::state::State;
use crate::{Info, Proc, Status};

impl Server {
    /// `PMIx_Notify_event` from the host: delivers `event` to the local
    /// clients in its range and to the server process's handlers (see
    /// the module documentation). `done` runs on the progress thread once
    /// the clients' notifications are queued.
    pub fn notify_event(&self, event: Event, done: Option<NotifyCallback>) -> Result<(), Status> {
        if !event.range.is_valid() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let ok = self.run_on_loop(move |el| {
            group_members::from_host(el, &event);
            deliver_from_host(el, event);
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

    /// `PMIx_server_define_process_set`: defines (or redefines) the
    /// process set `name` and tells the local clients (see the module
    /// documentation). An empty name is `PMIX_ERR_BAD_PARAM`.
    pub fn define_process_set(&self, name: &str, members: Vec<Proc>) -> Result<(), Status> {
        if name.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let name = name.to_owned();
        self.pset_change(move |st| define_pset(st, &name, members))
    }

    /// `PMIx_server_delete_process_set`: deletes the process set `name`
    /// and tells the local clients. `PMIX_ERR_NOT_FOUND` if there is no
    /// such set, `PMIX_ERR_BAD_PARAM` for an empty name.
    pub fn delete_process_set(&self, name: &str) -> Result<(), Status> {
        if name.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let name = name.to_owned();
        self.pset_change(move |st| delete_pset(st, &name))
    }

    /// Runs `change` on the loop and waits for its result; on the loop's
    /// own thread (from a host callback) it is queued and reported done,
    /// since waiting there would never end.
    fn pset_change(
        &self,
        change: impl FnOnce(&mut State) -> Result<(), Status> + Send + 'static,
    ) -> Result<(), Status> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let queued = self.run_on_loop(move |st| {
            let _ = tx.send(change(st));
        });
        if !queued {
            return Err(Status::ERR_INIT);
        }
        if self.notifier.on_loop_thread() {
            return Ok(());
        }
        // A loop that stops drops the task, and with it the sender.
        rx.recv().unwrap_or(Err(Status::ERR_INIT))
    }
}
