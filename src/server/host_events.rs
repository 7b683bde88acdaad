//! Events the host delivers to this server (`PMIx_Notify_event` in the
//! server's process): first what they say about this server's groups and
//! invitations (see [`group_members::from_host`]), then delivery to the
//! local clients in range and the server process's handlers (see
//! [`deliver_from_host`]).

use super::events::{deliver_from_host, NotifyCallback};
use super::groups::members as group_members;
use super::Server;
use crate::events::Event;
use crate::Status;

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
