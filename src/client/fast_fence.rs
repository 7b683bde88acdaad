//! Fences over this process's whole namespace through the job barrier
//! page, when the server handed one over (see [`crate::barrier`]).
//!
//! Every fence over the caller's namespace (no processes named, or only
//! its wildcard) of a process that holds the page arrives at the page, so
//! that the processes of the job decide alike; it goes on to the server
//! when any participant needs the server: it gave directives other than
//! `PMIX_TIMEOUT` and `PMIX_COLLECT_DATA`, committed since the server last
//! confirmed its commits (a fence must not complete before the server has
//! every commit made before it: direct-modex gets after it read them), or
//! asks to collect data it does not hold yet, or holds another newest
//! generation than the others (see `collected` below).
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
//!   through the server or a modex offer covered; they differ exactly
//!   while a commit may not have reached the server before a fence.
//! - `collected` is the count of commits whose data is in a generation of
//!   the job this process holds or was offered (a collecting fence through
//!   the server, or an offer); `newest` the newest such generation. A
//!   collecting fence whose participants all hold all their own commits'
//!   data and the same newest generation completes on the page: everyone
//!   then holds everyone's data (see `crate::barrier`).
//! - An offered generation is mapped, checked and published by the thread
//!   that reads it (the progress thread, or a caller reading its reply),
//!   before `collected` and `newest` count it: what a fence on the page
//!   releases is readable when it returns, and the mapping is not in the
//!   fence's time. Its data is readable from then on, before the fence
//!   too, as direct modex would have answered a get of it then.
//!   `offered` holds those that did not map, for the next fence to map
//!   (on the page or with a server's release, which the server sends
//!   after its offers) or fail with.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use parking_lot::Mutex;

use std::os::fd::OwnedFd;

use super::Inner;
use crate::barrier::{BarrierPage, Outcome};
use crate::wire::{Directives, ModexOffer, SegmentKind, SegmentRef};
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
    collected: AtomicU64,
    newest: AtomicU64,
    offered: Mutex<Vec<(SegmentRef, OwnedFd)>>,
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

    /// A collecting fence through the server, begun when the commit count
    /// was `commits`, succeeded: this process holds their data.
    pub(super) fn collected(&self, commits: u64) {
        self.collected.fetch_max(commits, Ordering::AcqRel);
    }

    /// A modex generation of this process's job is held now.
    pub(super) fn holds(&self, generation: u64) {
        self.newest.fetch_max(generation, Ordering::AcqRel);
    }

    /// True if `offer`, with `nfds` descriptors, lists one descriptor per
    /// segment and only modex generations (the server sends no other).
    pub(super) fn offer_fits(offer: &ModexOffer, nfds: usize) -> bool {
        offer.segments.len() == nfds
            && offer
                .segments
                .iter()
                .all(|r| matches!(r.kind, SegmentKind::Modex | SegmentKind::ModexReplace))
    }

    /// An offered generation that did not map: kept for the next fence to
    /// map (and fail with, if it still does not).
    pub(super) fn keep_unmapped(&self, r: SegmentRef, fd: OwnedFd) {
        let g = r.generation;
        self.offered.lock().push((r, fd));
        self.holds(g);
    }

    /// An offer covering this process's first `commits` commits is held.
    pub(super) fn covered(&self, commits: u64) {
        self.synced.fetch_max(commits, Ordering::AcqRel);
        self.collected.fetch_max(commits, Ordering::AcqRel);
    }

    /// The offered generations that did not map, oldest first.
    pub(super) fn take_unmapped(&self) -> Vec<(SegmentRef, OwnedFd)> {
        std::mem::take(&mut *self.offered.lock())
    }

    /// True if a fence of `me` over `procs` goes to the page first.
    pub(super) fn applies(&self, me: &Proc, procs: &[Proc]) -> bool {
        self.page.get().is_some() && whole_namespace(me, procs)
    }

    /// Decides the route of a fence of `me` over `procs` with `infos`
    /// (`d`, parsed), arriving at the page (and waiting there) when it
    /// applies.
    pub(super) fn route(
        &self,
        inner: &Inner,
        procs: &[Proc],
        infos: &[Info],
        d: &Directives,
    ) -> Route {
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
        let other_directives = infos.iter().any(|i| {
            let k = i.key.as_bytes();
            k != keys::TIMEOUT.as_bytes() && k != keys::COLLECT_DATA.as_bytes()
        });
        // Read before the newest generation: an offer arriving in between
        // can only make this process vote for a newer one than it needs.
        let uncollected = d.collect && self.collected.load(Ordering::Acquire) < commits;
        let to_server =
            uncollected || other_directives || commits != self.synced.load(Ordering::Acquire);
        let vote = d.collect.then(|| self.newest.load(Ordering::Acquire));
        let deadline = d.timeout.map(|t| Instant::now() + t);
        let connected = || inner.requester.server_alive();
        // A process that lost its server neither arrives (its arrival
        // would release the others, which lost it too) nor reports a
        // release that came while it was losing it.
        if !connected() {
            return Route::Done(Err(Status::ERR_LOST_CONNECTION));
        }
        match page.arrive(to_server, vote, deadline, &mut seen_failure, connected) {
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
