//! Fences over this process's whole namespace through the job barrier
//! page, when the server handed one over (see [`crate::barrier`]).
//!
//! Every fence over the caller's namespace (no processes named, or only
//! its wildcard) of a process that holds the page arrives at the page, so
//! that the processes of the job decide alike; it goes on to the server
//! when any participant needs the server: it asked to collect data, gave
//! directives other than `PMIX_TIMEOUT`, or committed since its last fence
//! through the server (a fence must not complete before the server has
//! every commit made before it: direct-modex gets after it read them).
//!
//! Invariants:
//! - A process whose connection to the server is closed does not arrive:
//!   its fence fails with `PMIX_ERR_LOST_CONNECTION` (the server, which
//!   fails the page when a participant leaves, is gone). It asks the
//!   socket, not only the progress thread's flag: a server killed just
//!   before is then known gone even if that thread has not read the end
//!   of the stream yet.
//! - One arrival per process and fence: a fence over the page while
//!   another of this process is at it is refused (`PMIX_ERR_BAD_PARAM`),
//!   as the server refuses a second arrival.
//! - `commits` counts this process's commits, `synced` the count a fence
//!   through the server covered; they differ exactly while a commit may
//!   not have reached the server before a fence.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use parking_lot::Mutex;

use super::Inner;
use crate::barrier::{BarrierPage, Outcome};
use crate::wire::Directives;
use crate::{keys, Info, Proc, Rank, Status};

/// This process's side of the job barrier.
#[derive(Default)]
pub(super) struct FastFence {
    page: std::sync::OnceLock<std::sync::Arc<BarrierPage>>,
    /// Held while this process is at the page; whether it saw the page's
    /// failure.
    turn: Mutex<bool>,
    commits: AtomicU64,
    synced: AtomicU64,
}

/// What to do with a fence.
pub(super) enum Route {
    /// Done (released by the page, or failed there).
    Done(Result<(), Status>),
    /// Through the server; on success, the commits up to this count are
    /// known to have reached it.
    Server(u64),
}

impl FastFence {
    /// The page the server handed over (the first one is kept); `None`
    /// if one was kept already, else the page, for its waiter to be woken
    /// when the server is lost.
    pub(super) fn set_page(&self, page: BarrierPage) -> Option<std::sync::Arc<BarrierPage>> {
        let page = std::sync::Arc::new(page);
        self.page.set(page.clone()).ok().map(|_| page)
    }

    /// A commit was sent.
    pub(super) fn committed(&self) {
        self.commits.fetch_add(1, Ordering::AcqRel);
    }

    /// A fence through the server, begun when the commit count was
    /// `commits`, succeeded.
    pub(super) fn synced(&self, commits: u64) {
        self.synced.fetch_max(commits, Ordering::AcqRel);
    }

    /// The commits sent so far.
    pub(super) fn commits(&self) -> u64 {
        self.commits.load(Ordering::Acquire)
    }

    /// True if a fence of `me` over `procs` goes to the page first.
    pub(super) fn applies(&self, me: &Proc, procs: &[Proc]) -> bool {
        self.page.get().is_some() && whole_namespace(me, procs)
    }

    /// Decides the route of a fence of `me` over `procs` with `infos`,
    /// arriving at the page (and waiting there) when it applies.
    pub(super) fn route(&self, inner: &Inner, procs: &[Proc], infos: &[Info]) -> Route {
        let commits = self.commits.load(Ordering::Acquire);
        let Some(page) = self
            .page
            .get()
            .filter(|_| whole_namespace(&inner.proc, procs))
        else {
            return Route::Server(commits);
        };
        let Some(mut seen_failure) = self.turn.try_lock() else {
            return Route::Done(Err(Status::ERR_BAD_PARAM));
        };
        let d = Directives::parse_for(infos, crate::wire::directives::FENCE);
        let other_directives = infos.iter().any(|i| {
            let k = i.key.as_bytes();
            k != keys::TIMEOUT.as_bytes() && k != keys::COLLECT_DATA.as_bytes()
        });
        let to_server =
            d.collect || other_directives || commits != self.synced.load(Ordering::Acquire);
        let deadline = d.timeout.map(|t| Instant::now() + t);
        let connected = || inner.requester.server_alive();
        // A process that lost its server neither arrives (its arrival
        // would release the others, which lost it too) nor reports a
        // release that came while it was losing it.
        if !connected() {
            return Route::Done(Err(Status::ERR_LOST_CONNECTION));
        }
        match page.arrive(to_server, deadline, &mut seen_failure, connected) {
            Outcome::Released if !connected() => Route::Done(Err(Status::ERR_LOST_CONNECTION)),
            Outcome::Released => Route::Done(Ok(())),
            Outcome::Failed(s) => Route::Done(Err(s)),
            Outcome::ToServer | Outcome::Unusable => Route::Server(commits),
        }
    }
}

/// True if `procs` names the whole namespace of `me` and nothing else.
fn whole_namespace(me: &Proc, procs: &[Proc]) -> bool {
    procs.is_empty()
        || procs
            .iter()
            .all(|p| p.nspace == me.nspace && p.rank == Rank::WILDCARD)
}
