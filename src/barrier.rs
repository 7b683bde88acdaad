//! The job barrier: a shared page through which the processes of a job
//! wholly on one node agree on a fence without the server in between,
//! when the server's host does not take part in such fences (`pmixrun`,
//! a C host without `fence_nb`).
//!
//! A server that may use it creates one page per such namespace and hands
//! it (read-write) to the namespace's own clients only, at the handshake.
//! Every `PMIx_Fence` over the caller's whole namespace then goes through
//! the page first, so that all participants decide alike whatever their
//! directives: each adds itself to `count` and ORs in whether it needs the
//! server (it asked to collect data, gave directives other than a
//! timeout, or committed since its last fence through the server); the
//! last arrival resets the count, publishes the verdict and advances the
//! generation in the futex word, then wakes everyone with one call. On
//! "released" the fence is done (no data moved, none was asked for, and
//! everyone's commits had reached the server before); on "server" every
//! participant makes the same fence through the server.
//!
//! A collecting fence completes on the page too when every participant
//! already holds the data it would collect: each arrival that asks to
//! collect votes, before it counts itself, for the newest modex generation
//! of the job it holds (or was offered, see `wire::ModexOffer`); the first
//! vote of a barrier is kept, and a vote for another generation means
//! "needs the server". On "released" every voter holds the same newest
//! generation, and with it everyone's committed data. A process that
//! needs the server knows the verdict: it does not wait for the others at
//! the page but goes on to the server at once (a first collecting fence,
//! where everyone committed, costs each process one atomic add).
//!
//! Failure: the server fails the page when a process of the namespace
//! departs (`PMIX_ERR_LOST_CONNECTION`), a waiter whose `PMIX_TIMEOUT`
//! passes fails it with `PMIX_ERR_TIMEOUT`; both set the failed bit of the
//! futex word (which wakes every waiter, none can miss it) with the
//! generation that failed. A process gets that failure once (waiting, or
//! arriving late at that generation); after that its fences go through
//! the server, as every other process's do once they have seen it, so
//! the processes still agree. A waiter also gives up when its connection
//! to the server is gone. Nothing waits without a bound: waits are sliced
//! (100 ms) and look at the word, the deadline and the connection each
//! time.
//!
//! The page is writable by every process of the job (the same user): a
//! process can break its own job's fences through it, as it can by never
//! calling them; nothing else reads it, and every value read from it is
//! checked (an impossible count fails the page).

use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::{sys, Status};

const MAGIC: u32 = 0x504d_4252; // "PMBR"
/// The page's size (one page; the fields use the first 40 bytes).
pub const PAGE_LEN: usize = 4096;
/// Most participants a page serves.
pub const MAX_PARTICIPANTS: u32 = 1 << 24;
const FAILED: u32 = 1;
const SLICE: Duration = Duration::from_millis(100);

/// The verdict of a completed barrier.
const RELEASED: u32 = 0;
const TO_SERVER: u32 = 1;

/// The shared fields (at the start of the page).
#[repr(C)]
struct Fields {
    magic: AtomicU32,
    /// Participants of every barrier (the job's size).
    size: AtomicU32,
    /// `generation << 1 | failed`: the futex word.
    word: AtomicU32,
    /// Arrivals at the current generation.
    count: AtomicU32,
    /// Whether an arrival of the current generation needs the server.
    to_server: AtomicU32,
    /// The verdict of the last completed generation.
    verdict: AtomicU32,
    /// With the failed bit: the status, and the generation that failed.
    fail_status: AtomicI32,
    fail_generation: AtomicU32,
    /// The current barrier's first vote plus one (0: no vote yet).
    vote: AtomicU64,
}

/// One process's mapping of a job's barrier page.
pub struct BarrierPage {
    ptr: *mut u8,
    fd: OwnedFd,
}

// SAFETY: the mapping is shared memory accessed only through atomics; the
// pointer stays valid until drop.
unsafe impl Send for BarrierPage {}
// SAFETY: as above: every access is atomic.
unsafe impl Sync for BarrierPage {}

/// What a process's arrival at the barrier ended with.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Everyone arrived and no one needed the server: the fence is done.
    Released,
    /// Everyone arrived and someone needs the server: make the fence
    /// there.
    ToServer,
    /// This process has seen the page's failure already: make the fence
    /// through the server.
    Unusable,
    /// The barrier failed (a participant left, a timeout, the connection
    /// to the server is gone): the fence fails with this status.
    Failed(Status),
}

impl BarrierPage {
    /// A new page for a job of `size` processes (the server's).
    pub fn create(size: u32) -> std::io::Result<BarrierPage> {
        if size == 0 || size > MAX_PARTICIPANTS {
            return Err(std::io::ErrorKind::InvalidInput.into());
        }
        let fd = sys::memfd(c"pmix-barrier", PAGE_LEN)?;
        let page = BarrierPage::map(fd)?;
        let f = page.fields();
        f.size.store(size, Ordering::Relaxed);
        f.magic.store(MAGIC, Ordering::Release);
        Ok(page)
    }

    /// Maps the page a server handed over, checking its size and header.
    pub fn from_fd(fd: OwnedFd) -> std::io::Result<BarrierPage> {
        if sys::file_len(fd.as_fd())? != PAGE_LEN as u64 {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
        let page = BarrierPage::map(fd)?;
        let f = page.fields();
        let size = f.size.load(Ordering::Relaxed);
        if f.magic.load(Ordering::Acquire) != MAGIC || size == 0 || size > MAX_PARTICIPANTS {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
        Ok(page)
    }

    fn map(fd: OwnedFd) -> std::io::Result<BarrierPage> {
        let ptr = sys::map_shared_rw(fd.as_fd(), PAGE_LEN)?;
        Ok(BarrierPage { ptr, fd })
    }

    fn fields(&self) -> &Fields {
        // SAFETY: `ptr` is a live, page-aligned mapping of PAGE_LEN bytes
        // (more than `Fields`), whose every field is an atomic (valid for
        // any bit pattern, shared-memory safe).
        unsafe { &*(self.ptr as *const Fields) }
    }

    /// The descriptor, to hand to a client.
    pub fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// The job's size.
    pub fn size(&self) -> u32 {
        self.fields().size.load(Ordering::Relaxed)
    }

    /// Fails the page with `status` (a participant left, a timeout) and
    /// wakes every waiter; the first failure's status stays.
    pub fn fail(&self, status: Status) {
        let f = self.fields();
        let w = f.word.load(Ordering::Acquire);
        if w & FAILED != 0 {
            return;
        }
        f.fail_status.store(status.code(), Ordering::Relaxed);
        f.fail_generation.store(w >> 1, Ordering::Relaxed);
        f.word.fetch_or(FAILED, Ordering::AcqRel);
        sys::futex_wake_all(&f.word);
    }

    /// Wakes whoever waits at the page (in any process) to look again:
    /// this process lost its server, and its waiter must notice at once.
    /// The others find nothing changed and wait on.
    pub fn wake(&self) {
        sys::futex_wake_all(&self.fields().word);
    }

    /// This process arrives at the barrier, needing the server or not
    /// (and, collecting, voting for the newest generation it holds), and
    /// waits for the others until `deadline` (then fails the page with
    /// `PMIX_ERR_TIMEOUT`) or while `connected()` holds. `seen_failure`
    /// is this process's memory of the page's failure (set once it got
    /// it, see the module documentation).
    pub fn arrive(
        &self,
        mut to_server: bool,
        vote: Option<u64>,
        deadline: Option<Instant>,
        seen_failure: &mut bool,
        connected: impl Fn() -> bool,
    ) -> Outcome {
        let f = self.fields();
        let w = f.word.load(Ordering::Acquire);
        if w & FAILED != 0 {
            return self.failed_once(seen_failure);
        }
        let generation = w >> 1;
        let size = f.size.load(Ordering::Relaxed);
        if let Some(v) = vote.filter(|_| !to_server) {
            let mine = v.wrapping_add(1).max(1);
            match f
                .vote
                .compare_exchange(0, mine, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => {}
                Err(first) => to_server = first != mine,
            }
        }
        if to_server {
            f.to_server.fetch_or(1, Ordering::AcqRel);
        }
        let arrived = f.count.fetch_add(1, Ordering::AcqRel).wrapping_add(1);
        if arrived == 0 || arrived > size {
            // Not a count this protocol makes.
            self.fail(Status::ERROR);
            return self.failed_once(seen_failure);
        }
        if arrived == size {
            f.count.store(0, Ordering::Relaxed);
            f.vote.store(0, Ordering::Relaxed);
            let verdict = if f.to_server.swap(0, Ordering::AcqRel) != 0 {
                TO_SERVER
            } else {
                RELEASED
            };
            f.verdict.store(verdict, Ordering::Relaxed);
            // The next generation (the failed bit, if set meanwhile,
            // stays), published with everything above.
            f.word.fetch_add(2, Ordering::AcqRel);
            sys::futex_wake_all(&f.word);
            return verdict_of(verdict);
        }
        if to_server {
            // The verdict cannot be "released": go on to the server now,
            // where the others will come (this fence there ends only
            // after they all passed the page, so this process cannot be
            // back here before the generation is complete).
            return Outcome::ToServer;
        }
        loop {
            let cur = f.word.load(Ordering::Acquire);
            if cur >> 1 != generation {
                return verdict_of(f.verdict.load(Ordering::Relaxed));
            }
            if cur & FAILED != 0 {
                return self.failed_once(seen_failure);
            }
            if !connected() {
                return Outcome::Failed(Status::ERR_LOST_CONNECTION);
            }
            let mut slice = SLICE;
            if let Some(d) = deadline {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    self.fail(Status::ERR_TIMEOUT);
                    continue;
                }
                slice = slice.min(left);
            }
            sys::futex_wait(&f.word, cur, slice);
        }
    }

    /// The page failed: this process gets the failure once, then uses the
    /// server.
    fn failed_once(&self, seen_failure: &mut bool) -> Outcome {
        if *seen_failure {
            return Outcome::Unusable;
        }
        *seen_failure = true;
        Outcome::Failed(Status(self.fields().fail_status.load(Ordering::Relaxed)))
    }
}

fn verdict_of(v: u32) -> Outcome {
    if v == TO_SERVER {
        Outcome::ToServer
    } else {
        Outcome::Released
    }
}

impl Drop for BarrierPage {
    fn drop(&mut self) {
        // SAFETY: the mapping was made by `map` and is used by nothing
        // else once this owner goes.
        unsafe { sys::unmap(self.ptr, PAGE_LEN) };
    }
}

impl std::fmt::Debug for BarrierPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BarrierPage")
            .field("size", &self.size())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn pages(n: u32) -> Vec<Arc<BarrierPage>> {
        let server = BarrierPage::create(n).unwrap();
        (0..n)
            .map(|_| {
                let fd = server.fd().try_clone_to_owned().unwrap();
                Arc::new(BarrierPage::from_fd(fd).unwrap())
            })
            .collect()
    }

    fn run(pages: &[Arc<BarrierPage>], to_server: &[bool]) -> Vec<Outcome> {
        let handles: Vec<_> = pages
            .iter()
            .zip(to_server)
            .map(|(p, &s)| {
                let p = p.clone();
                std::thread::spawn(move || {
                    let mut seen = false;
                    p.arrive(
                        s,
                        None,
                        Some(Instant::now() + Duration::from_secs(20)),
                        &mut seen,
                        || true,
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    }

    #[test]
    fn everyone_is_released_together_many_times() {
        let p = pages(4);
        for _ in 0..200 {
            assert!(run(&p, &[false; 4]).iter().all(|o| *o == Outcome::Released));
        }
    }

    #[test]
    fn one_process_needing_the_server_sends_everyone_there() {
        let p = pages(3);
        let out = run(&p, &[false, true, false]);
        assert!(out.iter().all(|o| *o == Outcome::ToServer), "{out:?}");
        // The next barrier starts afresh.
        assert!(run(&p, &[false; 3]).iter().all(|o| *o == Outcome::Released));
    }

    #[test]
    fn a_process_needing_the_server_does_not_wait_for_the_others() {
        let p = pages(3);
        // Alone at the page, and yet sent on at once.
        assert_eq!(
            p[1].arrive(true, None, None, &mut false, || true),
            Outcome::ToServer
        );
        // The others then meet it there.
        let out = run(&[p[0].clone(), p[2].clone()], &[false, false]);
        assert!(out.iter().all(|o| *o == Outcome::ToServer), "{out:?}");
        assert!(run(&p, &[false; 3]).iter().all(|o| *o == Outcome::Released));
    }

    #[test]
    fn a_failure_reaches_waiters_and_late_arrivals_once_then_the_server_is_used() {
        let p = pages(3);
        let waiter = {
            let p = p[0].clone();
            std::thread::spawn(move || {
                let mut seen = false;
                let o = p.arrive(false, None, None, &mut seen, || true);
                (o, p.arrive(false, None, None, &mut seen, || true))
            })
        };
        // The server fails the page while rank 0 waits (rank 1 left).
        while p[0].fields().count.load(Ordering::Acquire) == 0 {
            std::thread::yield_now();
        }
        p[2].fail(Status::ERR_LOST_CONNECTION);
        let (first, second) = waiter.join().unwrap();
        assert_eq!(first, Outcome::Failed(Status::ERR_LOST_CONNECTION));
        assert_eq!(second, Outcome::Unusable);
        let mut seen = false;
        assert_eq!(
            p[2].arrive(false, None, None, &mut seen, || true),
            Outcome::Failed(Status::ERR_LOST_CONNECTION),
            "a late arrival gets the failure"
        );
        assert_eq!(
            p[2].arrive(false, None, None, &mut seen, || true),
            Outcome::Unusable
        );
    }

    #[test]
    fn a_deadline_fails_the_barrier_for_everyone_and_a_lost_server_ends_the_wait() {
        let p = pages(3);
        let other = {
            let p = p[1].clone();
            std::thread::spawn(move || p.arrive(false, None, None, &mut false, || true))
        };
        let mut seen = false;
        let soon = Some(Instant::now() + Duration::from_millis(50));
        assert_eq!(
            p[0].arrive(false, None, soon, &mut seen, || true),
            Outcome::Failed(Status::ERR_TIMEOUT)
        );
        assert_eq!(other.join().unwrap(), Outcome::Failed(Status::ERR_TIMEOUT));
        let p = pages(2);
        assert_eq!(
            p[0].arrive(false, None, None, &mut false, || false),
            Outcome::Failed(Status::ERR_LOST_CONNECTION)
        );
    }

    fn run_votes(pages: &[Arc<BarrierPage>], votes: &[Option<u64>]) -> Vec<Outcome> {
        let handles: Vec<_> = pages
            .iter()
            .zip(votes)
            .map(|(p, &v)| {
                let p = p.clone();
                std::thread::spawn(move || {
                    let soon = Some(Instant::now() + Duration::from_secs(20));
                    p.arrive(false, v, soon, &mut false, || true)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    }

    #[test]
    fn collecting_arrivals_are_released_only_when_their_votes_agree() {
        let p = pages(3);
        let all = |out: Vec<Outcome>, want: Outcome| {
            assert!(out.iter().all(|o| *o == want), "{out:?}");
        };
        all(
            run_votes(&p, &[Some(7), Some(7), Some(7)]),
            Outcome::Released,
        );
        all(
            run_votes(&p, &[Some(7), Some(8), Some(7)]),
            Outcome::ToServer,
        );
        // Generation 0 is a vote like any other; not voting agrees.
        all(run_votes(&p, &[Some(0), None, Some(0)]), Outcome::Released);
        all(run_votes(&p, &[Some(0), Some(1), None]), Outcome::ToServer);
        // Every barrier starts with no vote.
        all(
            run_votes(&p, &[Some(9), Some(9), Some(9)]),
            Outcome::Released,
        );
    }

    #[test]
    fn a_page_of_another_size_or_kind_is_refused() {
        let fd = sys::memfd(c"other", 100).unwrap();
        assert!(BarrierPage::from_fd(fd).is_err());
        let fd = sys::memfd(c"zero", PAGE_LEN).unwrap();
        assert!(BarrierPage::from_fd(fd).is_err());
        assert!(BarrierPage::create(0).is_err());
    }
}
