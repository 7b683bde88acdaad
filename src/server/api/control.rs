//! Log, job control, session control and fabric requests asked by the
//! host for its own process (`PMIx_Log_nb`, `PMIx_Job_control_nb`,
//! `PMIx_Session_control`, `PMIx_Fabric_register`/`_update` in the server
//! process): the same path as a
//! client's request, with no connection to answer.

use super::Server;
use crate::server::control::{fabric_for, job_control_for, log_for, session_control_for};
use crate::server::query::{Tap, NOBODY};
use crate::wire::rm;
use crate::{Info, Proc, Status};

impl Server {
    /// `PMIx_Log_nb` in the server's own process: handed to the host's
    /// `log` with the server as the source, else logged by the server
    /// ([`log_locally`](crate::server::log_locally)). `cb` runs on the server's progress thread.
    pub fn log_nb(
        &self,
        data: Vec<Info>,
        directives: Vec<Info>,
        cb: Box<dyn FnOnce(Status) + Send + 'static>,
    ) -> Result<(), Status> {
        if data.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let me = self.proc();
        let tap: Tap = Box::new(move |r| cb(r.as_ref().err().copied().unwrap_or(Status::SUCCESS)));
        if self.run_on_loop(move |el| log_for(el, NOBODY, &me, data, directives, Some(tap))) {
            Ok(())
        } else {
            Err(Status::ERR_INIT)
        }
    }
}

impl Server {
    /// `PMIx_Job_control_nb` in the server's own process: the host's
    /// `job_control` gets the request as from this server's process
    /// (OpenPMIx hands it over the same way); `cb` gets its answer, on
    /// the progress thread.
    pub fn job_control_nb(
        &self,
        targets: Vec<Proc>,
        directives: Vec<Info>,
        cb: Box<dyn FnOnce(Result<Vec<Info>, Status>) + Send + 'static>,
    ) -> Result<(), Status> {
        let me = self.proc();
        let tap = decoded_list(cb);
        if self
            .run_on_loop(move |el| job_control_for(el, NOBODY, &me, targets, directives, Some(tap)))
        {
            Ok(())
        } else {
            Err(Status::ERR_INIT)
        }
    }
}

impl Server {
    /// `PMIx_Session_control` in the server's own process: the host's
    /// `session_control` gets the request as from this server's process;
    /// `cb` gets its answer.
    pub fn session_control_nb(
        &self,
        session: u32,
        directives: Vec<Info>,
        cb: Box<dyn FnOnce(Result<Vec<Info>, Status>) + Send + 'static>,
    ) -> Result<(), Status> {
        let me = self.proc();
        let tap = decoded_list(cb);
        if self.run_on_loop(move |el| {
            session_control_for(el, NOBODY, &me, session, directives, Some(tap))
        }) {
            Ok(())
        } else {
            Err(Status::ERR_INIT)
        }
    }
}

impl Server {
    /// A fabric request (`PMIx_Fabric_register`/`_update`) in the server's
    /// own process: the host's `fabric` gets `op` and `directives` as from
    /// this server's process; `cb` gets its answer, on the server's
    /// progress thread.
    pub fn fabric_nb(
        &self,
        op: u8,
        directives: Vec<Info>,
        cb: Box<dyn FnOnce(Result<Vec<Info>, Status>) + Send + 'static>,
    ) -> Result<(), Status> {
        let me = self.proc();
        let tap = decoded_list(cb);
        if self.run_on_loop(move |el| fabric_for(el, NOBODY, &me, op, directives, Some(tap))) {
            Ok(())
        } else {
            Err(Status::ERR_INIT)
        }
    }
}

/// The tap that hands a list answer, decoded, to `cb`.
fn decoded_list(cb: Box<dyn FnOnce(Result<Vec<Info>, Status>) + Send + 'static>) -> Tap {
    Box::new(move |r| {
        cb(r.clone()
            .and_then(|b| rm::get_list(&b).map_err(|_| Status::ERR_UNPACK_FAILURE)))
    })
}
