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

use std::collections::{BTreeSet, HashMap};
use std::os::fd::OwnedFd;
use std::sync::Arc;

use pmix_shmem::{Scope, Scopes, SealedSegment};

use super::modex::{self, ModexSegment};
use crate::wire::{self, blob, Posted, SegmentRef};
use crate::{Nspace, Proc, Status};

/// A collecting fence's new generations, ready to hand to its
/// participants.
pub(super) struct NewGenerations {
    pub(super) refs: Vec<SegmentRef>,
    pub(super) sealed: Vec<Arc<SealedSegment>>,
}

/// Committed data and modex generations.
#[derive(Default)]
pub(super) struct ModexStore {
    committed: HashMap<Proc, Vec<Posted>>,
    fenced: HashMap<Proc, modex::Fenced>,
    generations: HashMap<Nspace, Vec<ModexSegment>>,
}

impl ModexStore {
    /// Adds `proc`'s commit (`PMIX_INTERNAL` values are dropped: they stay
    /// in the process that put them).
    pub(super) fn commit(&mut self, proc: &Proc, items: Vec<Posted>) {
        let items: Vec<Posted> = items
            .into_iter()
            .filter(|p| p.scope != Scope::Internal)
            .collect();
        let n = items.len();
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

    /// `proc`'s committed data as a modex record of what `scopes` lets
    /// through; `None` if it has not committed.
    pub(super) fn record(&self, proc: &Proc, scopes: Scopes) -> Option<Result<Vec<u8>, Status>> {
        let posted = self.committed.get(proc)?;
        let mut out = Vec::new();
        Some(modex::put_record(&mut out, proc, posted, scopes).map(|()| out))
    }

    /// This node's contribution to a collecting fence: the records of
    /// `local` (its local participants) that other nodes may see.
    pub(super) fn contribution(&self, local: &BTreeSet<Proc>) -> Result<Vec<u8>, Status> {
        let mut data = Vec::new();
        for p in local {
            let posted = self.committed.get(p).map(Vec::as_slice).unwrap_or(&[]);
            modex::put_record(&mut data, p, posted, Scopes::REMOTE_PEER)?;
        }
        Ok(data)
    }

    /// Builds and keeps the generations of a collecting fence whose local
    /// participants are `local`: their committed data and, unless
    /// `all_local`, the other nodes' records in `remote` (the host's
    /// answer; records of processes `is_local` says are here are skipped).
    pub(super) fn fence_generations(
        &mut self,
        local: &BTreeSet<Proc>,
        all_local: bool,
        remote: &[u8],
        is_local: impl Fn(&Proc) -> bool,
        generation: impl FnMut() -> u64,
    ) -> Result<NewGenerations, Status> {
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
        let segs = modex::build_segments(participants, records, generation)?;
        // The generations now hold everything the participants committed.
        for p in local {
            let len = self.committed.get(p).map_or(0, Vec::len);
            self.fenced.insert(
                p.clone(),
                modex::Fenced {
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
            modex::push_generation(kept, m);
            let m = kept.last().expect("just pushed");
            out.refs.push(m.seg_ref(&ns));
            out.sealed.push(m.sealed.clone());
        }
        Ok(out)
    }

    /// True if the collecting fence over `local` (all local) may build a
    /// delta generation: one namespace, whose current full generation has
    /// exactly these participants, and none of them replaced a value
    /// since.
    fn delta_allowed(&self, local: &BTreeSet<Proc>) -> bool {
        let mut nss = local.iter().map(|p| &p.nspace);
        let Some(ns) = nss.next() else {
            return false;
        };
        if !nss.all(|n| n == ns) {
            return false;
        }
        let Some(kept) = self.generations.get(ns) else {
            return false;
        };
        let ranks: BTreeSet<u32> = local.iter().map(|p| p.rank.0).collect();
        modex::delta_allowed(kept, &ranks)
            && local.iter().all(|p| {
                self.fenced.get(p).is_some_and(|f| {
                    !f.overwritten && f.len <= self.committed.get(p).map_or(0, Vec::len)
                })
            })
    }

    /// Appends the kept generations of `ns` (and a descriptor of each) for
    /// a client; false if a descriptor could not be duplicated.
    pub(super) fn push_generations(
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

    /// The host deregistered `proc`.
    pub(super) fn forget(&mut self, proc: &Proc) {
        self.committed.remove(proc);
        self.fenced.remove(proc);
    }

    /// The host deregistered namespace `ns`.
    pub(super) fn forget_nspace(&mut self, ns: &Nspace) {
        self.generations.remove(ns);
        self.fenced.retain(|p, _| p.nspace != *ns);
        self.committed.retain(|p, _| &p.nspace != ns);
    }
}

/// Prepares this thread's allocator for the first collecting fence, whose
/// segment is built from buffers of the size of the data collected: one
/// large allocation freed (the C library then serves allocations up to
/// its size from the thread's heap instead of fresh mappings), then one
/// block of the heap written page by page and freed (its pages stay with
/// the heap). Without it the first fence pays a page fault per 4 KiB of
/// every buffer (about half its time on this machine, see
/// docs/PERFORMANCE.md).
pub(super) fn warm_up() {
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
    if let Ok(segs) = modex::build_segments([&proc], records, || 0) {
        for (_, m) in segs {
            if let Ok(seg) = m.sealed.open() {
                let _ = seg.posted_value(0, Scopes::ALL, &"pmix.rehearsal".into());
            }
        }
    }
}
