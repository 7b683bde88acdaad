//! The host module `pmixrun` gives its server. One node: a fence has no
//! other node to exchange with, so `fence_nb` completes at once with this
//! node's data. What the main loop must act on (aborts, finalizes, lost
//! clients) is recorded in [`JobState`] and announced with
//! [`signals::wake`]. Published data lives in a [`PublishedData`] store:
//! one node, one session, so every namespace `pmixrun` runs (and later
//! spawns) shares it.

use std::collections::HashSet;
use std::sync::Mutex;

use pmix::server::{Completion, HostModule, Participant, PublishedData, PublishedValue};
use pmix::{Info, Key, Nspace, Proc, Status};

use crate::signals;

/// A rank's call to `PMIx_Abort`.
pub struct AbortRequest {
    pub rank: u32,
    pub status: Status,
    pub message: Option<String>,
    /// Answered (dropped) only when the job is gone: the caller's
    /// `PMIx_Abort` does not return, as the standard says when the host
    /// terminates it.
    pub _done: Completion<()>,
}

/// What the host saw of the job's clients.
#[derive(Default)]
pub struct JobState {
    pub connected: HashSet<u32>,
    pub finalized: HashSet<u32>,
    pub aborts: Vec<AbortRequest>,
}

pub struct RunHost {
    nspace: Nspace,
    pub state: Mutex<JobState>,
    published: PublishedData,
}

impl RunHost {
    pub fn new(nspace: Nspace) -> RunHost {
        RunHost {
            nspace,
            state: Mutex::new(JobState::default()),
            published: PublishedData::new(),
        }
    }

    fn ours(&self, proc: &Proc) -> bool {
        proc.nspace == self.nspace
    }

    fn state(&self) -> std::sync::MutexGuard<'_, JobState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl HostModule for RunHost {
    fn client_connected(&self, proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        if self.ours(proc) {
            self.state().connected.insert(proc.rank.0);
        }
        done.complete(Ok(()));
        Ok(())
    }

    fn client_finalized(&self, proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        if self.ours(proc) {
            self.state().finalized.insert(proc.rank.0);
        }
        self.published.proc_terminated(proc);
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
            rank: proc.rank.0,
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
        self.published.proc_terminated(proc);
        if self.ours(proc) {
            signals::wake();
        }
    }

    fn publish(&self, proc: &Proc, infos: &[Info], done: Completion<()>) -> Result<(), Status> {
        done.complete(
            self.published
                .publish(&Participant::local(proc.clone()), infos),
        );
        Ok(())
    }

    fn lookup(
        &self,
        proc: &Proc,
        keys: &[Key],
        infos: &[Info],
        done: Completion<Vec<PublishedValue>>,
    ) -> Result<(), Status> {
        self.published.lookup(
            &Participant::local(proc.clone()),
            keys,
            infos,
            Box::new(move |r| done.complete(r)),
        );
        Ok(())
    }

    fn unpublish(
        &self,
        proc: &Proc,
        keys: &[Key],
        infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        let keys = (!keys.is_empty()).then_some(keys);
        done.complete(
            self.published
                .unpublish(&Participant::local(proc.clone()), keys, infos),
        );
        Ok(())
    }
}
