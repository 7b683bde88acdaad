//! Reaching the progress thread from a host thread: running a task on
//! it, replacing the host module every later upcall goes to.

use std::sync::Arc;

use super::Server;
use crate::server::command::Command;
use crate::server::host::HostModule;
use crate::server::state::State;
use crate::Status;

impl Server {
    /// Hands every later upcall to `host` in place of the module the
    /// server started with; `PMIX_ERR_INIT` once the server has stopped.
    pub fn replace_host(&self, host: Arc<dyn HostModule>) -> Result<(), Status> {
        if self.run_on_loop(move |st| st.set_host(host)) {
            Ok(())
        } else {
            Err(Status::ERR_INIT)
        }
    }

    /// Runs `task` on the progress thread with the loop's state; false if
    /// the loop has stopped.
    pub(crate) fn run_on_loop(&self, task: impl FnOnce(&mut State) + Send + 'static) -> bool {
        self.notifier.send(Command::Run(Box::new(task)))
    }
}
