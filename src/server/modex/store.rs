//! The server's posted data: each local process's committed values, what
//! the kept modex generations of each namespace hold of them, and those
//! generations (see `modex` for the scope and delta rules).
//!
//! Invariants:
//! - `committed[p]` is the union of `p`'s commits (a later value for the
//!   same scope and key replaces the earlier one, `PMIX_INTERNAL` never
//!   arrives here).
//! - `fenced[p].len` counts the values of `committed[p]`, in order, that
//!   the kept generations of `p`'s namespace hold; `overwritten` is set
//!   when a commit since replaced one of them (the next generation must
//!   then be a full one).
//! - `generations[ns]` are the sealed generations a client of `ns` must
//!   map, oldest first: a full one, then at most `MAX_DELTAS` deltas; a
//!   full generation drops every earlier one whose ranks all took part.
//! - `speculative[ns]`, when present, is the generation the next
//!   collecting fence over exactly its `local` processes (all of `ns`'s,
//!   the job wholly on this node) would build: built and sealed when the
//!   last of them committed, while they still compute, so that the fence
//!   only hands it out. Any commit of a process of `ns`, any new
//!   generation of `ns` and any forgetting drops it (its generation number
//!   is then left unused: numbers need only be unique).
//! - `speculated` holds the namespaces that had a speculative generation
//!   since their last new generation: at most one is built per fence, so
//!   that processes committing several times before it do not make the
//!   server rebuild at each commit.
//! - With `offer` (the job has a barrier page, see `crate::barrier`), the
//!   generation built when the last local process committed is kept at
//!   once, as a fence's would be, and offered to the processes
//!   (`wire::ModexOffer`): a collecting fence over them that they all
//!   hold it for completes on the page, and one through the server that
//!   finds nothing new builds nothing (the processes publish the offered
//!   generation when its release comes).
//! - `commits[p]` counts `p`'s commit messages, empty ones too (what the
//!   process counts; an offer tells each process how many it covers).
//! - `remote[p]` is the direct-modex record of remote process `p` that a
//!   group construct's endpoint data brought; direct modex answers from it
//!   without asking the host.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::os::fd::OwnedFd;
use std::sync::Arc;

use pmix_shmem::{Scope, Scopes, SealedSegment};

use super::committed::{self, ModexSegment};
use crate::wire::{self, blob, Posted, SegmentRef};
use crate::{Key, Nspace, Proc, Status};

/// A collecting fence's new generations, ready to hand to its
/// participants.
pub(in crate::server) struct NewGenerations {
    pub(in crate::server) refs: Vec<SegmentRef>,
    pub(in crate::server) sealed: Vec<Arc<SealedSegment>>,
}

/// Committed data and modex generations.
#[derive(Default)]
pub(in crate::server) struct ModexStore {
    committed: HashMap<Proc, Vec<Posted>>,
    fenced: HashMap<Proc, committed::Fenced>,
    generations: HashMap<Nspace, Vec<ModexSegment>>,
    speculative: HashMap<Nspace, Speculation>,
    speculated: HashSet<Nspace>,
    commits: HashMap<Proc, u64>,
    remote: HashMap<Proc, Vec<u8>>,
}

/// A generation built ahead of its fence (see the module documentation).
struct Speculation {
    /// The local participants it was built for.
    local: BTreeSet<Proc>,
    /// Whether it is a delta.
    delta: bool,
    segment: ModexSegment,
}

impl ModexStore {
    /// Counts this room's entries (see [`Census`](crate::server::census::Census)).
    pub(in crate::server) fn count(&self, c: &mut crate::server::census::Census) {
        c.add("modex.committed", self.committed.len());
        c.add("modex.fenced", self.fenced.len());
        c.add(
            "modex.generations",
            self.generations.values().map(Vec::len).sum(),
        );
        c.add("modex.speculative", self.speculative.len());
        c.add("modex.speculated", self.speculated.len());
        c.add("modex.commits", self.commits.len());
        c.add("modex.remote", self.remote.len());
    }

    /// Adds `proc`'s commit (`PMIX_INTERNAL` values are dropped: they stay
    /// in the process that put them).
    pub(in crate::server) fn commit(&mut self, proc: &Proc, items: Vec<Posted>) {
        *self.commits.entry(proc.clone()).or_default() += 1;
        let items: Vec<Posted> = items
            .into_iter()
            .filter(|p| p.scope != Scope::Internal)
            .collect();
        let n = items.len();
        if n == 0 {
            return;
        }
        self.speculative.remove(&proc.nspace);
        let committed = self.committed.entry(proc.clone()).or_default();
        let before = committed.len();
        wire::merge_posted(committed, items);
        if committed.len() != before + n {
            // A value already committed was replaced: a delta generation
            // would miss it.
            if let Some(f) = self.fenced.get_mut(proc) {
                f.overwritten = true;
            }
        }
    }

    /// How many commit messages `proc` sent.
    pub(in crate::server) fn commit_count(&self, proc: &Proc) -> u64 {
        self.commits.get(proc).copied().unwrap_or(0)
    }

    /// `proc`'s committed data as a modex record of what `scopes` lets
    /// through; `None` if it has not committed.
    pub(in crate::server) fn record(
        &self,
        proc: &Proc,
        scopes: Scopes,
    ) -> Option<Result<Vec<u8>, Status>> {
        let posted = self.committed.get(proc)?;
        let mut out = Vec::new();
        Some(committed::put_record(&mut out, proc, posted, scopes).map(|()| out))
    }

    /// This node's contribution to a collecting fence: the records of
    /// `local` (its local participants) that other nodes may see.
    pub(in crate::server) fn contribution(
        &self,
        local: &BTreeSet<Proc>,
    ) -> Result<Vec<u8>, Status> {
        let mut data = Vec::new();
        for p in local {
            let posted = self.committed.get(p).map(Vec::as_slice).unwrap_or(&[]);
            committed::put_record(&mut data, p, posted, Scopes::REMOTE_PEER)?;
        }
        Ok(data)
    }

    /// Builds and keeps the generations of a collecting fence whose local
    /// participants are `local`: their committed data and, unless
    /// `all_local`, the other nodes' records in `remote` (the host's
    /// answer; records of processes `is_local` says are here are skipped).
    pub(in crate::server) fn fence_generations(
        &mut self,
        local: &BTreeSet<Proc>,
        all_local: bool,
        remote: &[u8],
        is_local: impl Fn(&Proc) -> bool,
        generation: impl FnMut() -> u64,
    ) -> Result<NewGenerations, Status> {
        for p in local {
            self.speculated.remove(&p.nspace);
        }
        if let Some(ready) = self.take_speculation(local, all_local) {
            let ns = ready.segment_ns.clone();
            return Ok(self.keep(local, vec![(ns, ready.segment)], ready.delta));
        }
        if all_local && self.delta_allowed(local) && !local.iter().any(|p| self.fresh(p)) {
            // Every participant holds the kept generations (offered, or
            // from earlier fences over exactly them) and committed nothing
            // since: an empty delta would add nothing.
            return Ok(NewGenerations {
                refs: Vec::new(),
                sealed: Vec::new(),
            });
        }
        for p in local {
            self.speculative.remove(&p.nspace);
        }
        let (segs, delta) = self.build(local, all_local, remote, is_local, generation)?;
        for (ns, _) in &segs {
            self.speculative.remove(ns);
            self.speculated.remove(ns);
        }
        Ok(self.keep(local, segs, delta))
    }

    /// The speculative generation built for a fence over exactly `local`
    /// (all local), if any.
    fn take_speculation(&mut self, local: &BTreeSet<Proc>, all_local: bool) -> Option<Ready> {
        if !all_local {
            return None;
        }
        let ns = single_nspace(local)?.clone();
        let s = self.speculative.remove(&ns)?;
        (s.local == *local).then_some(Ready {
            segment_ns: ns,
            delta: s.delta,
            segment: s.segment,
        })
    }

    /// Called after a commit of a process of `ns`, whose local processes
    /// are `local` (`all_local`: the job runs wholly on this node): when
    /// each of them committed data the kept generations do not hold yet,
    /// builds the generation the next collecting fence over them would
    /// (see the module documentation). With `offer` it is kept at once and
    /// returned, to be offered to them; otherwise it waits for its fence.
    /// A failed build is no error: the fence builds its own.
    pub(in crate::server) fn speculate(
        &mut self,
        ns: &Nspace,
        all_local: bool,
        offer: bool,
        local: impl FnOnce() -> BTreeSet<Proc>,
        generation: impl FnMut() -> u64,
    ) -> Option<(BTreeSet<Proc>, NewGenerations)> {
        if !all_local || (!offer && self.speculated.contains(ns)) {
            return None;
        }
        let local = local();
        if local.is_empty() || local.iter().any(|p| p.nspace != *ns) {
            return None;
        }
        if !local.iter().all(|p| self.fresh(p)) {
            return None;
        }
        let (mut segs, delta) = self.build(&local, true, &[], |_| true, generation).ok()?;
        if offer {
            let gens = self.keep(&local, segs, delta);
            return Some((local, gens));
        }
        self.speculated.insert(ns.clone());
        if let (Some((_, segment)), true) = (segs.pop(), segs.is_empty()) {
            self.speculative.insert(
                ns.clone(),
                Speculation {
                    local,
                    delta,
                    segment,
                },
            );
        }
        None
    }

    /// True if `p` committed data the kept generations do not hold.
    fn fresh(&self, p: &Proc) -> bool {
        self.committed
            .get(p)
            .is_some_and(|c| match self.fenced.get(p) {
                None => !c.is_empty(),
                Some(f) => f.overwritten || c.len() > f.len,
            })
    }

    /// Builds the generations of a collecting fence (see
    /// [`fence_generations`](Self::fence_generations)) and whether they
    /// are deltas, without keeping them.
    fn build(
        &self,
        local: &BTreeSet<Proc>,
        all_local: bool,
        remote: &[u8],
        is_local: impl Fn(&Proc) -> bool,
        generation: impl FnMut() -> u64,
    ) -> Result<(Vec<(Nspace, ModexSegment)>, bool), Status> {
        // When every participant is local the host's answer can only hold
        // this node's own contribution, which is read from the committed
        // store: do not decode it again.
        let remote = if all_local {
            Vec::new()
        } else {
            blob::decode(remote).map_err(|_| Status::ERR_UNPACK_FAILURE)?
        };
        let delta = all_local && self.delta_allowed(local);
        let mut records: Vec<(&Proc, &Posted)> = Vec::new();
        let mut participants: Vec<&Proc> = local.iter().collect();
        for p in local {
            let posted = self.committed.get(p).map(Vec::as_slice).unwrap_or(&[]);
            // A delta: only what was committed since the kept generations.
            let from = if delta {
                self.fenced.get(p).map_or(0, |f| f.len.min(posted.len()))
            } else {
                0
            };
            records.extend(
                posted[from..]
                    .iter()
                    .filter(|x| Scopes::LOCAL_PEER.contains(x.scope))
                    .map(|x| (p, x)),
            );
        }
        for rec in &remote {
            if local.contains(&rec.proc) || is_local(&rec.proc) {
                continue;
            }
            participants.push(&rec.proc);
            records.extend(
                rec.posted
                    .iter()
                    .filter(|x| Scopes::REMOTE_PEER.contains(x.scope))
                    .map(|x| (&rec.proc, x)),
            );
        }
        let segs = committed::build_segments(participants, records, generation)?;
        Ok((segs, delta))
    }

    /// Keeps the new generations `segs` of a collecting fence over `local`
    /// (deltas if `delta`) and returns what its participants get.
    fn keep(
        &mut self,
        local: &BTreeSet<Proc>,
        segs: Vec<(Nspace, ModexSegment)>,
        delta: bool,
    ) -> NewGenerations {
        // The generations now hold everything the participants committed.
        for p in local {
            let len = self.committed.get(p).map_or(0, Vec::len);
            self.fenced.insert(
                p.clone(),
                committed::Fenced {
                    len,
                    overwritten: false,
                },
            );
        }
        let mut out = NewGenerations {
            refs: Vec::with_capacity(segs.len()),
            sealed: Vec::with_capacity(segs.len()),
        };
        for (ns, mut m) in segs {
            m.delta = delta;
            let kept = self.generations.entry(ns.clone()).or_default();
            committed::push_generation(kept, m);
            let m = kept.last().expect("just pushed");
            out.refs.push(m.seg_ref(&ns));
            out.sealed.push(m.sealed.clone());
        }
        out
    }

    /// True if the collecting fence over `local` (all local) may build a
    /// delta generation: one namespace, whose current full generation has
    /// exactly these participants, and none of them replaced a value
    /// since.
    fn delta_allowed(&self, local: &BTreeSet<Proc>) -> bool {
        let Some(ns) = single_nspace(local) else {
            return false;
        };
        let Some(kept) = self.generations.get(ns) else {
            return false;
        };
        let ranks: BTreeSet<u32> = local.iter().map(|p| p.rank.0).collect();
        committed::delta_allowed(kept, &ranks)
            && local.iter().all(|p| {
                self.fenced.get(p).is_some_and(|f| {
                    !f.overwritten && f.len <= self.committed.get(p).map_or(0, Vec::len)
                })
            })
    }

    /// Appends the kept generations of `ns` (and a descriptor of each) for
    /// a client; false if a descriptor could not be duplicated.
    pub(in crate::server) fn push_generations(
        &self,
        ns: &Nspace,
        refs: &mut Vec<SegmentRef>,
        fds: &mut Vec<OwnedFd>,
    ) -> bool {
        for m in self.generations.get(ns).into_iter().flatten() {
            match m.sealed.fd().try_clone_to_owned() {
                Ok(fd) => {
                    refs.push(m.seg_ref(ns));
                    fds.push(fd);
                }
                Err(_) => return false,
            }
        }
        true
    }

    /// Keeps remote `proc`'s record from a group's endpoint data.
    pub(in crate::server) fn keep_remote(&mut self, proc: &Proc, record: Vec<u8>) {
        self.remote.insert(proc.clone(), record);
    }

    /// Remote `proc`'s record, if a group construct brought it and it
    /// holds `key` (any record when no key is asked for): a key posted
    /// after the construct is fetched through the host, as OpenPMIx's
    /// server does when its store lacks the requested key.
    pub(in crate::server) fn remote_record(
        &self,
        proc: &Proc,
        key: Option<&Key>,
    ) -> Option<Vec<u8>> {
        let r = self.remote.get(proc)?;
        let holds = key.map_or(true, |k| {
            blob::decode(r).is_ok_and(|recs| {
                recs.iter()
                    .any(|rec| rec.posted.iter().any(|p| &p.key == k))
            })
        });
        holds.then(|| r.clone())
    }

    /// The host deregistered `proc`.
    pub(in crate::server) fn forget(&mut self, proc: &Proc) {
        self.speculative.remove(&proc.nspace);
        self.commits.remove(proc);
        self.committed.remove(proc);
        self.fenced.remove(proc);
    }

    /// The host deregistered namespace `ns`.
    pub(in crate::server) fn forget_nspace(&mut self, ns: &Nspace) {
        self.speculative.remove(ns);
        self.speculated.remove(ns);
        self.generations.remove(ns);
        self.fenced.retain(|p, _| p.nspace != *ns);
        self.committed.retain(|p, _| &p.nspace != ns);
        self.commits.retain(|p, _| &p.nspace != ns);
        self.remote.retain(|p, _| &p.nspace != ns);
    }
}

/// A speculative generation taken for its fence.
struct Ready {
    segment_ns: Nspace,
    delta: bool,
    segment: ModexSegment,
}

/// The one namespace of `procs`, `None` if they are none or of several.
fn single_nspace(procs: &BTreeSet<Proc>) -> Option<&Nspace> {
    let mut nss = procs.iter().map(|p| &p.nspace);
    let ns = nss.next()?;
    nss.all(|n| n == ns).then_some(ns)
}

/// Prepares this thread's allocator for the first collecting fence, whose
/// segment is built from buffers of the size of the data collected: one
/// large allocation freed (the C library then serves allocations up to
/// its size from the thread's heap instead of fresh mappings), then one
/// block of the heap written page by page and freed (its pages stay with
/// the heap). Without it the first fence pays a page fault per 4 KiB of
/// every buffer (about half its time on this machine, see
/// docs/PERFORMANCE.md).
pub(in crate::server) fn warm_up() {
    warm_allocator();
    rehearse();
}

fn warm_allocator() {
    const LARGE: usize = 4 << 20;
    const WARM: usize = 2 << 20;
    drop(std::hint::black_box(Vec::<u8>::with_capacity(LARGE)));
    let mut v = Vec::<u8>::with_capacity(WARM);
    let spare = v.spare_capacity_mut();
    for i in (0..spare.len()).step_by(4096) {
        spare[i].write(0);
    }
    drop(std::hint::black_box(v));
}

/// Builds, seals and reads back a small generation and drops it: the code
/// of a fence's build (serialization, checksums, sealing, lookups) is then
/// in memory, where the first collecting fence would otherwise fault it
/// in page by page while its participants wait (a third of that fence on
/// this machine).
fn rehearse() {
    let (Ok(ns), Ok(key)) = (
        Nspace::new("pmix-rehearsal"),
        crate::Key::new("pmix.rehearsal"),
    ) else {
        return;
    };
    let proc = Proc::new(ns, crate::Rank(0));
    let posted = [
        Posted {
            scope: Scope::Global,
            key: key.clone(),
            value: crate::Value::ByteObject(vec![7; 1024]),
        },
        Posted {
            scope: Scope::Local,
            key,
            value: crate::Value::Uint32(7),
        },
    ];
    let records = posted.iter().map(|p| (&proc, p));
    if let Ok(segs) = committed::build_segments([&proc], records, || 0) {
        for (_, m) in segs {
            if let Ok(seg) = m.sealed.open() {
                let _ = seg.posted_value(0, Scopes::ALL, &"pmix.rehearsal".into());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Key, Rank, Value};

    fn put(k: &str, v: u32) -> Vec<Posted> {
        vec![Posted {
            scope: Scope::Global,
            key: Key::new(k).unwrap(),
            value: Value::Uint32(v),
        }]
    }

    fn value(g: &NewGenerations, rank: u32, k: &str) -> Option<u32> {
        let seg = g.sealed.last()?.open().ok()?;
        let v = seg.posted_value(rank, Scopes::ALL, &k.into()).ok()??;
        v.as_u32()
    }

    #[test]
    fn a_speculative_generation_serves_its_fence_unless_a_commit_follows() {
        let ns = Nspace::new("ns").unwrap();
        let procs: BTreeSet<Proc> = (0..2).map(|r| Proc::new(ns.clone(), Rank(r))).collect();
        let all = || procs.clone();
        let mut next = 0;
        let mut gen = || {
            next += 1;
            next
        };
        let mut m = ModexStore::default();
        let p: Vec<&Proc> = procs.iter().collect();
        m.commit(p[0], put("a", 1));
        m.speculate(&ns, true, false, all, &mut gen);
        assert!(m.speculative.is_empty(), "rank 1 has not committed");
        m.commit(p[1], put("b", 2));
        m.speculate(&ns, true, false, all, &mut gen);
        assert!(m.speculative.contains_key(&ns));
        // An empty commit changes nothing.
        m.commit(p[1], Vec::new());
        assert!(m.speculative.contains_key(&ns));
        let g = m
            .fence_generations(&procs, true, &[], |_| true, &mut gen)
            .unwrap();
        assert_eq!(g.refs[0].generation, 1, "the speculative one");
        assert_eq!((value(&g, 0, "a"), value(&g, 1, "b")), (Some(1), Some(2)));

        // A commit after the speculation: the fence builds its own.
        m.commit(p[0], put("c", 3));
        m.commit(p[1], put("d", 4));
        m.speculate(&ns, true, false, all, &mut gen);
        m.commit(p[1], put("d", 5));
        m.speculate(&ns, true, false, all, &mut gen);
        assert!(m.speculative.is_empty(), "one speculation per fence");
        let g = m
            .fence_generations(&procs, true, &[], |_| true, &mut gen)
            .unwrap();
        assert_eq!(g.refs[0].generation, 3);
        assert_eq!(value(&g, 1, "d"), Some(5));
        assert!(m.speculative.is_empty());

        // A fence over other participants discards it.
        m.commit(p[0], put("e", 6));
        m.commit(p[1], put("f", 7));
        m.speculate(&ns, true, false, all, &mut gen);
        let one: BTreeSet<Proc> = [p[0].clone()].into();
        let g = m
            .fence_generations(&one, true, &[], |_| true, &mut gen)
            .unwrap();
        assert_eq!(g.refs[0].generation, 5);
        assert!(m.speculative.is_empty());
    }
}
