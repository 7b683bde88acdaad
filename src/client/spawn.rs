//! Process management on the client: `PMIx_Spawn`, `PMIx_Connect`,
//! `PMIx_Disconnect`, and access to other namespaces' job data.
//!
//! A client maps its own namespace's segments at init. Another namespace
//! (one it spawned, its parent's, one it connected to) is asked of the
//! server the first time a get names it (`NspaceRequest`): the server
//! answers with that namespace's job segment and modex generations, which
//! are mapped and validated like the client's own. A successful connect
//! refreshes the segments of every namespace involved. Posted data of
//! processes of other namespaces that no mapped segment holds comes by
//! direct modex, as for peers of the client's own namespace.
//!
//! `spawn` returns once the host has started the new job's processes (not
//! once they have called `PMIx_Init`), as the standard and OpenPMIx do.
//! A launcher connected to no server starts the job itself (see
//! `super::local_launch`).

use std::ffi::{CStr, CString};
use std::sync::Arc;

use crate::value::App;
use crate::wire::{process_mgmt, Message, Op};
use crate::{Info, Nspace, Proc, Status};

use super::progress::Reply;
use super::{Client, Inner, SpawnCallback, StatusCallback};

impl Inner {
    /// True if no segment of `ns` is mapped here.
    fn nspace_unknown(&self, ns: &Nspace) -> bool {
        !self.mapped.lock().0.contains(ns)
    }

    /// Maps the segments a `NspaceReply` brought.
    fn take_nspace_reply(&self, r: Reply) -> Result<(), Status> {
        match r? {
            (Message::NspaceReply(rep), fds) => {
                rep.status.into_result()?;
                self.map_segments(&rep.segments, fds)
            }
            _ => Err(Status::ERR_COMM_FAILURE),
        }
    }
}

/// Asks for the segments of each namespace of `list` in turn, then runs
/// `done` (on the progress thread). Failures are not reported: a
/// namespace the server does not know simply stays unmapped.
fn refresh_nb(inner: Arc<Inner>, mut list: Vec<Nspace>, done: Box<dyn FnOnce() + Send>) {
    let Some(ns) = list.pop() else {
        return done();
    };
    let again = inner.clone();
    inner.requester.submit(
        Message::NspaceRequest(ns),
        Some(Box::new(move |r: Reply| {
            let _ = again.take_nspace_reply(r);
            refresh_nb(again, list, done);
        })),
    );
}

/// The last path component of `p`.
fn basename(p: &CStr) -> CString {
    let b = p.to_bytes();
    let tail = b.rsplit(|&c| c == b'/').next().unwrap_or(b);
    CString::new(tail).unwrap_or_default()
}

/// Completes an application as OpenPMIx's client does before sending it:
/// something to run is required (`cmd` or `argv`); a missing `cwd` is the
/// caller's; `argv[0]` is the command's name (prepended when the argv
/// starts with another program's name), `cmd` defaults to `argv[0]`.
pub fn normalize_app(a: &App) -> Result<App, Status> {
    let mut a = a.clone();
    let cmd = match (&a.cmd, a.argv.first()) {
        (Some(c), _) if !c.is_empty() => c.clone(),
        (_, Some(first)) if !first.is_empty() => first.clone(),
        _ => return Err(Status::ERR_BAD_PARAM),
    };
    let name = basename(&cmd);
    match a.argv.first() {
        None => a.argv = vec![name],
        Some(first) if basename(first) != name => a.argv.insert(0, name),
        Some(_) => {}
    }
    a.cmd = Some(cmd);
    if a.cwd.is_none() {
        a.cwd = std::env::current_dir()
            .ok()
            .and_then(|d| CString::new(d.into_os_string().into_encoded_bytes()).ok());
    }
    Ok(a)
}

/// The namespaces of `procs` other than `own`, without duplicates.
fn other_nspaces(procs: &[Proc], own: &Nspace) -> Vec<Nspace> {
    let mut v: Vec<Nspace> = procs
        .iter()
        .map(|p| p.nspace.clone())
        .filter(|n| n != own)
        .collect();
    v.sort();
    v.dedup();
    v
}

impl Client {
    /// Maps the job segment and modex generations of `ns` from the server
    /// (blocking; not from the progress thread). `PMIX_ERR_NOT_FOUND` if
    /// the server does not know `ns`.
    pub fn fetch_nspace(&self, ns: &Nspace) -> Result<(), Status> {
        self.inner.check_active()?;
        let r = self
            .inner
            .requester
            .call(Message::NspaceRequest(ns.clone()));
        self.inner.take_nspace_reply(r)
    }

    /// For a get: maps `ns` if nothing of it is mapped yet; true if it
    /// was fetched now.
    pub(super) fn fetch_if_unknown(&self, ns: &Nspace) -> bool {
        self.inner.nspace_unknown(ns) && self.fetch_nspace(ns).is_ok()
    }

    /// As [`fetch_if_unknown`](Self::fetch_if_unknown), without blocking:
    /// `then` runs on the progress thread once `ns` is mapped (or could
    /// not be), at once if it already is.
    pub(super) fn fetch_if_unknown_nb(&self, ns: &Nspace, then: Box<dyn FnOnce() + Send>) {
        if !self.inner.nspace_unknown(ns) {
            return then();
        }
        refresh_nb(self.inner.clone(), vec![ns.clone()], then);
    }

    /// `PMIx_Spawn`: asks the host to start `apps` as a new job with the
    /// job-level directives `job_info`; returns the new namespace once its
    /// processes are started.
    pub fn spawn(&self, job_info: &[Info], apps: &[App]) -> Result<Nspace, Status> {
        super::wait_for(|cb| self.spawn_nb(job_info, apps, cb))?
    }

    /// `PMIx_Spawn_nb`: as [`spawn`](Self::spawn); `done` runs on the
    /// progress thread.
    pub fn spawn_nb(
        &self,
        job_info: &[Info],
        apps: &[App],
        done: SpawnCallback,
    ) -> Result<(), Status> {
        self.inner.check_active()?;
        if apps.is_empty() || apps.iter().any(|a| a.maxprocs < 0) {
            return Err(Status::ERR_BAD_PARAM);
        }
        let apps = apps
            .iter()
            .map(normalize_app)
            .collect::<Result<Vec<_>, _>>()?;
        if self.launcher && self.is_singleton {
            // No server to ask: a launcher starts the job itself.
            return super::local_launch::spawn(&self.inner, apps, done);
        }
        let body = process_mgmt::encode_spawn(job_info, &apps)?;
        self.request_nb(
            Op::SPAWN,
            body,
            Box::new(move |r| done(r.and_then(|b| process_mgmt::decode_nspace(&b)))),
        )
    }

    /// `PMIx_Connect`: a collective over `procs` (processes of one or more
    /// namespaces, `PMIX_RANK_WILDCARD` for all of one); returns once
    /// every participant called it. Afterwards each participant reads the
    /// others' job data and posted data. `PMIX_TIMEOUT` bounds the wait; a
    /// participant that dies fails it.
    pub fn connect_procs(&self, procs: &[Proc], infos: &[Info]) -> Result<(), Status> {
        self.collective(Op::CONNECT, procs, infos)
    }

    /// `PMIx_Connect_nb`: `done` runs on the progress thread.
    pub fn connect_procs_nb(
        &self,
        procs: &[Proc],
        infos: &[Info],
        done: StatusCallback,
    ) -> Result<(), Status> {
        self.collective_nb(Op::CONNECT, procs, infos, done)
    }

    /// `PMIx_Disconnect`: the collective ending a connection.
    pub fn disconnect_procs(&self, procs: &[Proc], infos: &[Info]) -> Result<(), Status> {
        self.collective(Op::DISCONNECT, procs, infos)
    }

    /// `PMIx_Disconnect_nb`: `done` runs on the progress thread.
    pub fn disconnect_procs_nb(
        &self,
        procs: &[Proc],
        infos: &[Info],
        done: StatusCallback,
    ) -> Result<(), Status> {
        self.collective_nb(Op::DISCONNECT, procs, infos, done)
    }

    fn collective(&self, op: Op, procs: &[Proc], infos: &[Info]) -> Result<(), Status> {
        super::wait_for(|cb| self.collective_nb(op, procs, infos, cb))?.into_result()
    }

    fn collective_nb(
        &self,
        op: Op,
        procs: &[Proc],
        infos: &[Info],
        done: StatusCallback,
    ) -> Result<(), Status> {
        self.inner.check_active()?;
        if procs.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let body = process_mgmt::encode_collective(procs, infos)?;
        let refresh = if op == Op::CONNECT {
            other_nspaces(procs, &self.inner.proc.nspace)
        } else {
            Vec::new()
        };
        let inner = self.inner.clone();
        self.request_nb(
            op,
            body,
            Box::new(move |r| match r {
                Ok(_) => refresh_nb(inner, refresh, Box::new(move || done(Status::SUCCESS))),
                Err(s) => done(s),
            }),
        )
    }
}
