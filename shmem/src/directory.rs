//! The per-namespace directory of current segments, and its generations.
//!
//! Each namespace has a slot whose state (the job segment and the modex
//! segments published so far) is an immutable value behind a
//! `crossbeam_epoch::Atomic`. Publishing builds the next state and swaps it
//! in with one atomic store; the superseded state is destroyed by the epoch
//! collector only after every reader that could have loaded it has unpinned.
//!
//! Readers never lock: a [`Reader`] is a pinned epoch guard, and a get is an
//! atomic load of the namespace map, a hash lookup of the namespace, an
//! atomic load of its state, and lookups in the segments.
//!
//! Unmapping never happens on a reader's thread. Every published segment is
//! also held by the writer side; destroying a superseded state (which may
//! run on any thread that pins) only drops reference counts, and the writer
//! unmaps a segment in [`Directory::reclaim`] (run by every publish) once it
//! holds the last reference.

use std::ffi::CStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crossbeam_epoch::{self as epoch, Atomic, Guard, Owned, Shared};
use parking_lot::Mutex;

use crate::dict::{same_bytes, LookupKey};
use crate::error::Corrupt;
use crate::reader::{NodeSel, Realm, RowEntries, Segment};
use crate::types::{Scope, Scopes, RANK_WILDCARD};
use crate::value::ValueRef;

/// The namespaces, copied on write: a short list searched linearly (the
/// usual case: a client sees a handful of namespaces), with a hash index
/// once there are many.
#[derive(Clone, Default)]
struct NsMap {
    list: Vec<(Box<[u8]>, Arc<NsSlot>)>,
    index: Option<std::collections::HashMap<Box<[u8]>, usize, ahash::RandomState>>,
}

/// Up to this many namespaces, no hash index.
const NS_LINEAR: usize = 8;

impl NsMap {
    #[inline(always)]
    fn get(&self, name: &[u8]) -> Option<&Arc<NsSlot>> {
        match &self.index {
            None => self
                .list
                .iter()
                .find(|(n, _)| same_bytes(n, name))
                .map(|(_, s)| s),
            Some(ix) => ix.get(name).map(|&i| &self.list[i].1),
        }
    }

    fn contains_key(&self, name: &[u8]) -> bool {
        self.get(name).is_some()
    }

    fn reindex(&mut self) {
        self.index = (self.list.len() > NS_LINEAR).then(|| {
            self.list
                .iter()
                .enumerate()
                .map(|(i, (n, _))| (n.clone(), i))
                .collect()
        });
    }

    fn insert(&mut self, name: &[u8], slot: Arc<NsSlot>) {
        self.list.push((name.into(), slot));
        self.reindex();
    }

    fn remove(&mut self, name: &[u8]) {
        self.list.retain(|(n, _)| **n != *name);
        self.reindex();
    }
}

/// What a namespace currently has: one immutable generation.
pub struct NsState {
    generation: u64,
    job: Option<Arc<Segment>>,
    /// Modex segments, oldest first (later fences win).
    modex: Vec<Arc<Segment>>,
}

/// One namespace's slot.
pub struct NsSlot {
    state: Atomic<NsState>,
    /// The current state's generation (0 before the first), stored after
    /// each swap: read without pinning (see [`NsHandle::generation`]).
    generation: AtomicU64,
}

impl Drop for NsSlot {
    fn drop(&mut self) {
        // SAFETY: `&mut self` and the slot being dropped mean no reader holds
        // it any more (readers reach a slot through the epoch-protected map,
        // destroyed only after they unpin, or through an `NsHandle`, which
        // keeps the slot alive), so the current state is ours to free.
        unsafe {
            let s = self.state.load(Ordering::Relaxed, epoch::unprotected());
            if !s.is_null() {
                drop(s.into_owned());
            }
        }
    }
}

/// A handle on a namespace that saves the name lookup on each get (see
/// [`Reader::view`]).
#[derive(Clone)]
pub struct NsHandle(Arc<NsSlot>);

impl NsHandle {
    /// The generation of the namespace's current state, without pinning
    /// (0 before anything was published). It may lag a publish running
    /// meanwhile by one generation, never run ahead of it: a cache keyed
    /// by generation can answer from it as a get made just before that
    /// publish would have.
    #[inline]
    pub fn generation(&self) -> u64 {
        self.0.generation.load(Ordering::Acquire)
    }
}

struct WriterSide {
    /// Every segment published and not yet unmapped.
    live: Vec<Arc<Segment>>,
    next_generation: u64,
}

impl WriterSide {
    fn track(&mut self, seg: &Arc<Segment>) {
        if !self.live.iter().any(|l| Arc::ptr_eq(l, seg)) {
            self.live.push(seg.clone());
        }
    }
}

/// The directory of current segments of every namespace.
pub struct Directory {
    map: Atomic<NsMap>,
    writer: Mutex<WriterSide>,
}

impl Default for Directory {
    fn default() -> Self {
        Directory::new()
    }
}

impl Drop for Directory {
    fn drop(&mut self) {
        // SAFETY: `&mut self`: no `Reader` borrows the directory any more.
        unsafe {
            let m = self.map.load(Ordering::Relaxed, epoch::unprotected());
            if !m.is_null() {
                drop(m.into_owned());
            }
        }
    }
}

/// What to change in a namespace's state.
enum Change {
    Job(Arc<Segment>),
    Modex(Arc<Segment>),
    ReplaceModex(Vec<Arc<Segment>>),
}

impl Directory {
    /// An empty directory.
    pub fn new() -> Self {
        Directory {
            map: Atomic::new(NsMap::default()),
            writer: Mutex::new(WriterSide {
                live: Vec::new(),
                next_generation: 1,
            }),
        }
    }

    /// Pins the current epoch: gets through the returned reader see a
    /// consistent set of segments, none of which is unmapped while it lives.
    /// Cheap (no lock, no syscall); keep it short-lived.
    #[inline]
    pub fn reader(&self) -> Reader<'_> {
        Reader {
            dir: self,
            guard: epoch::pin(),
        }
    }

    /// A handle on namespace `nspace`, if registered.
    pub fn handle(&self, nspace: &str) -> Option<NsHandle> {
        let g = epoch::pin();
        self.slot(nspace.as_bytes(), &g)
            .map(|s| NsHandle(s.clone()))
    }

    fn slot<'g>(&self, nspace: &[u8], g: &'g Guard) -> Option<&'g Arc<NsSlot>> {
        let m = self.map.load(Ordering::Acquire, g);
        // SAFETY: the map pointer is never null after `new`, was published
        // with Release, and is destroyed only via `defer_destroy` after
        // being replaced, i.e. after every guard that could see it unpins;
        // `g` is such a guard.
        let m = unsafe { m.deref() };
        m.get(nspace)
    }

    fn change(&self, nspace: &str, change: Change) {
        let mut w = self.writer.lock();
        let g = epoch::pin();
        let slot = match self.slot(nspace.as_bytes(), &g) {
            Some(s) => s.clone(),
            None => {
                // Copy-on-write of the namespace map (writers are serialized
                // by the mutex).
                let cur = self.map.load(Ordering::Acquire, &g);
                // SAFETY: as in `slot`.
                let mut next = unsafe { cur.deref() }.clone();
                let s = Arc::new(NsSlot {
                    state: Atomic::null(),
                    generation: AtomicU64::new(0),
                });
                next.insert(nspace.as_bytes(), s.clone());
                let old = self.map.swap(Owned::new(next), Ordering::AcqRel, &g);
                // SAFETY: `old` is unreachable from the directory now; readers
                // that loaded it are protected until they unpin.
                unsafe { g.defer_destroy(old) };
                s
            }
        };
        let cur = slot.state.load(Ordering::Acquire, &g);
        // SAFETY: states are destroyed only via `defer_destroy` after being
        // replaced; `g` protects `cur`.
        let (job, mut modex) = match unsafe { cur.as_ref() } {
            Some(s) => (s.job.clone(), s.modex.clone()),
            None => (None, Vec::new()),
        };
        let job = match change {
            Change::Job(seg) => {
                w.track(&seg);
                Some(seg)
            }
            Change::Modex(seg) => {
                w.track(&seg);
                modex.push(seg);
                job
            }
            Change::ReplaceModex(segs) => {
                segs.iter().for_each(|s| w.track(s));
                modex = segs;
                job
            }
        };
        let generation = w.next_generation;
        w.next_generation += 1;
        let old = slot.state.swap(
            Owned::new(NsState {
                generation,
                job,
                modex,
            }),
            Ordering::AcqRel,
            &g,
        );
        slot.generation.store(generation, Ordering::Release);
        if !old.is_null() {
            // SAFETY: `old` was just replaced, so no new reader can load it.
            unsafe { g.defer_destroy(old) };
        }
        drop(g);
        Self::reclaim_locked(&mut w);
    }

    /// Publishes `seg` as the job segment of `nspace` (a new generation;
    /// registers the namespace if new).
    pub fn publish_job(&self, nspace: &str, seg: Arc<Segment>) {
        self.change(nspace, Change::Job(seg));
    }

    /// Adds a completed modex segment to `nspace` (later ones win).
    pub fn publish_modex(&self, nspace: &str, seg: Arc<Segment>) {
        self.change(nspace, Change::Modex(seg));
    }

    /// Replaces all modex segments of `nspace` (for example by one that
    /// merges them).
    pub fn replace_modex(&self, nspace: &str, segs: Vec<Arc<Segment>>) {
        self.change(nspace, Change::ReplaceModex(segs));
    }

    /// Removes a namespace (deregistration).
    pub fn remove(&self, nspace: &str) -> bool {
        let mut w = self.writer.lock();
        let g = epoch::pin();
        let cur = self.map.load(Ordering::Acquire, &g);
        // SAFETY: as in `slot`.
        let cur_ref = unsafe { cur.deref() };
        if !cur_ref.contains_key(nspace.as_bytes()) {
            return false;
        }
        let mut next = cur_ref.clone();
        next.remove(nspace.as_bytes());
        let old = self.map.swap(Owned::new(next), Ordering::AcqRel, &g);
        // SAFETY: `old` is unreachable now; see `change`.
        unsafe { g.defer_destroy(old) };
        drop(g);
        Self::reclaim_locked(&mut w);
        true
    }

    fn reclaim_locked(w: &mut WriterSide) -> usize {
        // Let the collector run deferred destructions that are due.
        for _ in 0..2 {
            epoch::pin().flush();
        }
        // A segment whose only reference is ours is in no state any reader
        // can reach: unmap it here, on the writer's thread.
        w.live.retain(|s| Arc::strong_count(s) > 1);
        w.live.len()
    }

    /// Unmaps superseded segments that no reader can reach any more;
    /// returns how many segments remain mapped. Publishing calls it too.
    pub fn reclaim(&self) -> usize {
        Self::reclaim_locked(&mut self.writer.lock())
    }

    /// Number of segments mapped by the directory (current and not yet
    /// reclaimed).
    pub fn mapped_segments(&self) -> usize {
        self.writer.lock().live.len()
    }
}

/// A pinned view of the directory: values it returns stay valid while it
/// lives. No lock is held.
pub struct Reader<'d> {
    dir: &'d Directory,
    guard: Guard,
}

impl<'d> Reader<'d> {
    /// The epoch guard this reader keeps pinned (the default collector's):
    /// what is retired through that collector after the reader was made
    /// stays allocated while the reader lives, so a caller may keep its
    /// own epoch-managed data readable under the same pin.
    #[inline]
    pub fn guard(&self) -> &Guard {
        &self.guard
    }

    /// The current state of namespace `nspace`.
    #[inline]
    pub fn namespace(&self, nspace: &str) -> Option<NsView<'_>> {
        let slot = self.dir.slot(nspace.as_bytes(), &self.guard)?;
        self.state_of(slot)
    }

    /// The current state of the namespace behind `h`.
    #[inline]
    pub fn view<'a>(&'a self, h: &'a NsHandle) -> Option<NsView<'a>> {
        self.state_of(&h.0)
    }

    #[inline]
    fn state_of<'a>(&'a self, slot: &'a NsSlot) -> Option<NsView<'a>> {
        let s: Shared<'a, NsState> = slot.state.load(Ordering::Acquire, &self.guard);
        // SAFETY: a state is destroyed only through `defer_destroy` after it
        // was replaced, so it outlives this pinned guard; non-null states
        // were fully built before their Release publication.
        unsafe { s.as_ref() }.map(|state| NsView { state })
    }

    /// `PMIx_Get` in shared memory: see [`NsView::get`].
    #[inline]
    pub fn get(&self, nspace: &str, rank: u32, key: &str) -> Option<ValueRef<'_>> {
        self.namespace(nspace)?.get(rank, key)
    }
}

/// One generation of one namespace, borrowed from a [`Reader`].
#[derive(Clone, Copy)]
pub struct NsView<'g> {
    state: &'g NsState,
}

impl<'g> NsView<'g> {
    /// The generation number (increases with every publish).
    pub fn generation(&self) -> u64 {
        self.state.generation
    }

    /// The job segment.
    pub fn job_segment(&self) -> Option<&'g Arc<Segment>> {
        self.state.job.as_ref()
    }

    /// The modex segments, oldest first.
    pub fn modex_segments(&self) -> &'g [Arc<Segment>] {
        &self.state.modex
    }

    /// `PMIx_Get(nspace, rank, key)` for data in shared memory.
    ///
    /// `PMIX_RANK_WILDCARD` reads the job realm. Any other rank reads its
    /// process realm, then what it posted (newest modex first, every scope
    /// present: the server puts in a node's segments only what that node
    /// may see), then the job realm (job-level reserved keys asked with a
    /// rank). `None` if absent or if the segment holding it is corrupt (see
    /// [`try_get`](Self::try_get) for the error).
    #[inline]
    pub fn get(&self, rank: u32, key: &str) -> Option<ValueRef<'g>> {
        self.try_get(rank, &LookupKey::from(key)).ok().flatten()
    }

    /// [`get`](Self::get), reporting corrupt segments.
    #[inline(always)]
    pub fn try_get(&self, rank: u32, key: &LookupKey<'_>) -> Result<Option<ValueRef<'g>>, Corrupt> {
        let job = self.state.job.as_deref();
        if rank == RANK_WILDCARD {
            return match job {
                Some(j) => j.job_value(key),
                None => Ok(None),
            };
        }
        // The key's id in the job segment, looked up once for both the
        // process and the job realm.
        let job = match job {
            Some(j) => j.key_id(key)?.map(|k| (j, k)),
            None => None,
        };
        if let Some((j, k)) = job {
            if let Some(v) = j.proc_value_by_id(rank, k)? {
                return Ok(Some(v));
            }
        }
        if let Some(v) = self.try_posted(rank, Scopes::ALL, key)? {
            return Ok(Some(v));
        }
        match job {
            Some((j, k)) => j.job_value_by_id(k),
            None => Ok(None),
        }
    }

    /// A value `rank` posted with one of `scopes`, newest modex first.
    pub fn try_posted(
        &self,
        rank: u32,
        scopes: Scopes,
        key: &LookupKey<'_>,
    ) -> Result<Option<ValueRef<'g>>, Corrupt> {
        for m in self.state.modex.iter().rev() {
            if let Some(v) = m.posted_value(rank, scopes, key)? {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    /// A value `rank` posted with one of `scopes`.
    pub fn posted(&self, rank: u32, scopes: Scopes, key: &str) -> Option<ValueRef<'g>> {
        self.try_posted(rank, scopes, &LookupKey::from(key))
            .ok()
            .flatten()
    }

    /// A job-realm value.
    pub fn job(&self, key: &str) -> Option<ValueRef<'g>> {
        self.state
            .job
            .as_ref()?
            .job_value(&key.into())
            .ok()
            .flatten()
    }

    /// A session-realm value.
    pub fn session(&self, key: &str) -> Option<ValueRef<'g>> {
        self.state
            .job
            .as_ref()?
            .session_value(&key.into())
            .ok()
            .flatten()
    }

    /// A value of application `appnum` (`PMIX_APP_INFO`).
    pub fn app(&self, appnum: u32, key: &str) -> Option<ValueRef<'g>> {
        self.state
            .job
            .as_ref()?
            .app_value(appnum, &key.into())
            .ok()
            .flatten()
    }

    /// A value of a node (`PMIX_NODE_INFO`, by `PMIX_NODEID` or
    /// `PMIX_HOSTNAME`).
    pub fn node(&self, node: NodeSel<'_>, key: &str) -> Option<ValueRef<'g>> {
        self.state
            .job
            .as_ref()?
            .node_value(node, &key.into())
            .ok()
            .flatten()
    }

    /// Every key the segments hold for `rank` (a get with no key): what
    /// it posted, every scope present (newest modex first, so a re-post
    /// hides the older value), then its process realm, each key once (the
    /// first found wins). Empty for `RANK_WILDCARD` or an unknown rank.
    pub fn rank_entries(&self, rank: u32) -> Result<Vec<(&'g CStr, ValueRef<'g>)>, Corrupt> {
        let mut out: Vec<(&'g CStr, ValueRef<'g>)> = Vec::new();
        if rank == RANK_WILDCARD {
            return Ok(out);
        }
        let mut add = |entries: RowEntries<'g>| -> Result<(), Corrupt> {
            for e in entries {
                let (k, v) = e?;
                if !out.iter().any(|(o, _)| *o == k) {
                    out.push((k, v));
                }
            }
            Ok(())
        };
        for m in self.state.modex.iter().rev() {
            for s in Scope::ALL {
                add(m.row_entries(Realm::Posted(rank, s))?)?;
            }
        }
        if let Some(j) = self.state.job.as_deref() {
            add(j.row_entries(Realm::Proc(rank))?)?;
        }
        Ok(out)
    }
}
