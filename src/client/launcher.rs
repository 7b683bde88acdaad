//! A launcher tool's host (`PMIX_LAUNCHER`, see [`super::tool`]): the
//! server a launcher runs for the tools that attach to it answers what it
//! knows itself, and hands the rest of their queries, log requests, job
//! control and spawns to the launcher's own server, through the
//! launcher's connection, as the launcher.
//!
//! Invariant: the host holds the launcher's connection weakly; once the
//! launcher's client is gone (finalized and dropped), forwarded requests
//! fail with `PMIX_ERR_UNREACH`. Every forwarded request completes its
//! `Completion` exactly once, from the connection's progress thread (or
//! at once if it cannot be sent).

use std::sync::Weak;

use super::{Client, Inner};
use crate::server::{Completion, HostModule};
use crate::value::{App, Query};
use crate::{Info, Nspace, Proc, Status};

/// Forwards a launcher's tools' requests upstream.
pub(super) struct Upstream {
    /// The launcher's connection.
    pub(super) inner: Weak<Inner>,
    /// Whether it is connected to no server (see [`Client::is_singleton`]).
    pub(super) unconnected: bool,
}

impl Upstream {
    /// A handle on the launcher's connection (it owns no thread: dropping
    /// it leaves the connection alone).
    fn client(&self) -> Result<Client, Status> {
        let inner = self.inner.upgrade().ok_or(Status::ERR_UNREACH)?;
        Ok(Client::handle(inner, self.unconnected))
    }
}

impl HostModule for Upstream {
    fn query(
        &self,
        _proc: &Proc,
        queries: &[Query],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        self.client()?.query_nb(
            queries,
            Box::new(move |r| done.complete(r.map(|(_, infos)| infos))),
        )
    }

    fn log(
        &self,
        _proc: &Proc,
        data: &[Info],
        directives: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        self.client()?.log_nb(
            data,
            directives,
            Box::new(move |s| done.complete(s.into_result())),
        )
    }

    fn job_control(
        &self,
        _proc: &Proc,
        targets: &[Proc],
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        self.client()?
            .job_control_nb(targets, directives, Box::new(move |r| done.complete(r)))
    }

    fn session_control(
        &self,
        _proc: &Proc,
        session: u32,
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        self.client()?
            .session_control_nb(session, directives, Box::new(move |r| done.complete(r)))
    }

    fn spawn(
        &self,
        _requestor: &Proc,
        job_info: &[Info],
        apps: &[App],
        done: Completion<Nspace>,
    ) -> Result<(), Status> {
        self.client()?
            .spawn_nb(job_info, apps, Box::new(move |r| done.complete(r)))
    }
}
