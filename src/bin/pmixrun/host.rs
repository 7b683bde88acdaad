//! The host module `pmixrun` gives its server. One node: a fence has no
//! other node to exchange with, so `fence_nb` completes at once with this
//! node's data, and so do `connect` and `disconnect` (every participant is
//! local). What the main loop must act on (aborts, finalizes, lost
//! clients, spawn requests) is recorded in [`JobState`] and announced with
//! [`signals::wake`].

use std::collections::HashSet;
use std::sync::Mutex;

use pmix::server::{Completion, HostModule};
use pmix::value::App;
use pmix::{Info, Nspace, Proc, Status};

use crate::signals;

/// A rank's call to `PMIx_Abort`.
pub struct AbortRequest {
    pub proc: Proc,
    pub status: Status,
    pub message: Option<String>,
    /// Answered (dropped) only when the job is gone: the caller's
    /// `PMIx_Abort` does not return, as the standard says when the host
    /// terminates it.
    pub _done: Completion<()>,
}

/// A rank's call to `PMIx_Spawn`, for the main loop to carry out.
pub struct SpawnRequest {
    pub requestor: Proc,
    /// Job-level directives: only `PMIX_WDIR` is used (mapping, IOF, ...
    /// do not apply: everything runs here and every output is forwarded).
    pub job_info: Vec<Info>,
    pub apps: Vec<App>,
    /// Completed with the new namespace once its ranks are started.
    pub done: Completion<Nspace>,
}

/// What the host saw of the jobs' clients.
#[derive(Default)]
pub struct JobState {
    /// The namespaces this launcher registered (the job and what it
    /// spawned).
    pub namespaces: HashSet<Nspace>,
    pub connected: HashSet<Proc>,
    pub finalized: HashSet<Proc>,
    pub aborts: Vec<AbortRequest>,
    pub spawns: Vec<SpawnRequest>,
}

pub struct RunHost {
    pub state: Mutex<JobState>,
}

impl RunHost {
    pub fn new(nspace: Nspace) -> RunHost {
        let mut st = JobState::default();
        st.namespaces.insert(nspace);
        RunHost {
            state: Mutex::new(st),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, JobState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn ours(&self, proc: &Proc) -> bool {
        self.state().namespaces.contains(&proc.nspace)
    }
}

impl HostModule for RunHost {
    fn client_connected(&self, proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        if self.ours(proc) {
            self.state().connected.insert(proc.clone());
        }
        done.complete(Ok(()));
        Ok(())
    }

    fn client_finalized(&self, proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        if self.ours(proc) {
            self.state().finalized.insert(proc.clone());
        }
        done.complete(Ok(()));
        Ok(())
    }

    fn abort(
        &self,
        proc: &Proc,
        status: Status,
        message: Option<&str>,
        _procs: &[Proc],
        done: Completion<()>,
    ) -> Result<(), Status> {
        if !self.ours(proc) {
            return Err(Status::ERR_NOT_SUPPORTED);
        }
        // The whole job is torn down whichever processes were named: a
        // single-node launcher has no partial-job recovery.
        self.state().aborts.push(AbortRequest {
            proc: proc.clone(),
            status,
            message: message.map(str::to_owned),
            _done: done,
        });
        signals::wake();
        Ok(())
    }

    fn fence_nb(
        &self,
        _procs: &[Proc],
        _infos: &[Info],
        data: Vec<u8>,
        done: Completion<Vec<u8>>,
    ) -> Result<(), Status> {
        // Every participant is on this node: its data is everyone's.
        done.complete(Ok(data));
        Ok(())
    }

    fn client_lost(&self, proc: &Proc) {
        if self.ours(proc) {
            signals::wake();
        }
    }

    fn spawn(
        &self,
        requestor: &Proc,
        job_info: &[Info],
        apps: &[App],
        done: Completion<Nspace>,
    ) -> Result<(), Status> {
        self.state().spawns.push(SpawnRequest {
            requestor: requestor.clone(),
            job_info: job_info.to_vec(),
            apps: apps.to_vec(),
            done,
        });
        signals::wake();
        Ok(())
    }

    fn connect(
        &self,
        _procs: &[Proc],
        _infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        // Every participant is on this node: the server gathered them all.
        done.complete(Ok(()));
        Ok(())
    }

    fn disconnect(
        &self,
        _procs: &[Proc],
        _infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        done.complete(Ok(()));
        Ok(())
    }
}
