//! `PMIx_Spawn` called by the host in the server process.

use super::Server;
use crate::server::query::{Tap, NOBODY};
use crate::server::spawn::spawn_for;
use crate::value::App;
use crate::wire::process_mgmt;
use crate::{Info, Nspace, Status};

impl Server {
    /// `PMIx_Spawn_nb` in the server's own process: the host's `spawn`
    /// gets the request with this server's process as the requestor and
    /// the caller's job infos as they are (OpenPMIx adds nothing to its
    /// own requests) and `apps` as given (the C library completes them as
    /// a client's, with `crate::client::normalize_app`); `done` gets the
    /// new namespace, on the progress thread.
    pub fn spawn_nb(
        &self,
        infos: Vec<Info>,
        apps: Vec<App>,
        done: Box<dyn FnOnce(Result<Nspace, Status>) + Send + 'static>,
    ) -> Result<(), Status> {
        if apps.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let me = self.proc();
        let tap: Tap =
            Box::new(move |r| done(r.clone().and_then(|b| process_mgmt::decode_nspace(&b))));
        if self.run_on_loop(move |st| spawn_for(st, NOBODY, &me, infos, apps, Some(tap))) {
            Ok(())
        } else {
            Err(Status::ERR_INIT)
        }
    }
}
