//! Committed data on the server side and modex generations.
//!
//! A process's committed data is the union of its commits (a later value
//! for the same scope and key replaces the earlier one). Who sees what is
//! decided here, by scope: a local peer sees `PMIX_LOCAL` and
//! `PMIX_GLOBAL`, a peer on another node `PMIX_REMOTE` and `PMIX_GLOBAL`.
//! `PMIX_INTERNAL` never leaves the process that put it.
//!
//! A generation built by a collecting fence holds each participant's whole
//! committed data (commits accumulate), so it supersedes every earlier
//! generation of its namespace whose processes all took part in it: the
//! server drops those, and when none is left it tells the clients that the
//! new generation replaces the earlier ones ([`SegmentKind::ModexReplace`]),
//! so that gets look at one modex segment and the old ones are unmapped.
//!
//! Rebuilding everything at each fence costs the whole data posted so far.
//! So when a fence's participants are all local and are exactly those of
//! the namespace's current full generation, and none of them replaced a
//! value it had already committed since then, the new generation holds
//! only what they committed since (a *delta*, added after the earlier
//! ones, which gets read newest first). After [`MAX_DELTAS`] deltas the
//! next fence builds a full generation again, which replaces them all:
//! a get looks at most `MAX_DELTAS + 1` modex segments of a namespace.
//!
//! Invariant: the kept generations of a namespace are a full one and at
//! most `MAX_DELTAS` deltas after it; a get never needs more than
//! `MAX_DELTAS + 1` modex segments.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use pmix_shmem::{Scopes, SealedSegment, SegmentBuilder};

use crate::job::stored::to_stored;
use crate::wire::{blob, Posted, SegmentKind, SegmentRef};
use crate::{Nspace, Proc, Status, Value};

/// One sealed modex generation of one namespace.
pub(super) struct ModexSegment {
    pub(super) generation: u64,
    pub(super) sealed: Arc<SealedSegment>,
    /// The ranks of the fence's participants in this namespace (with or
    /// without data).
    pub(super) ranks: BTreeSet<u32>,
    /// Replaces every earlier generation of its namespace (see the module
    /// documentation).
    pub(super) replaces: bool,
    /// Holds only what the participants committed since the generations
    /// before it: supersedes nothing.
    pub(super) delta: bool,
}

/// Delta generations at most after a full one.
pub(super) const MAX_DELTAS: usize = 4;

/// How much of a local process's committed data the kept generations of
/// its namespace hold.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Fenced {
    /// Its first `len` committed values.
    pub(super) len: usize,
    /// A commit since replaced one of those: the next generation must be
    /// a full one.
    pub(super) overwritten: bool,
}

/// True if the next generation of a namespace whose generations are
/// `kept` may be a delta over `ranks` (the participants, all local).
pub(super) fn delta_allowed(kept: &[ModexSegment], ranks: &BTreeSet<u32>) -> bool {
    match kept.split_first() {
        Some((full, deltas)) => {
            full.replaces
                && !full.delta
                && full.ranks == *ranks
                && deltas.len() < MAX_DELTAS
                && deltas.iter().all(|d| d.delta)
        }
        None => false,
    }
}

impl ModexSegment {
    pub(in crate::server) fn seg_ref(&self, nspace: &Nspace) -> SegmentRef {
        SegmentRef {
            nspace: nspace.clone(),
            kind: if self.replaces {
                SegmentKind::ModexReplace
            } else {
                SegmentKind::Modex
            },
            generation: self.generation,
        }
    }
}

/// Adds `new` to the generations of its namespace, `kept` (oldest first):
/// drops the earlier ones it supersedes (all their ranks took part in
/// `new`'s fence) and marks `new` as replacing when none is left.
pub(super) fn push_generation(kept: &mut Vec<ModexSegment>, mut new: ModexSegment) {
    if new.delta {
        new.replaces = false;
        kept.push(new);
        return;
    }
    kept.retain(|old| !old.ranks.is_subset(&new.ranks));
    new.replaces = kept.is_empty();
    kept.push(new);
}

/// Appends `proc`'s record holding what `scopes` lets through.
pub(super) fn put_record(
    out: &mut Vec<u8>,
    proc: &Proc,
    posted: &[Posted],
    scopes: Scopes,
) -> Result<(), Status> {
    let visible: Vec<&Posted> = posted.iter().filter(|p| scopes.contains(p.scope)).collect();
    // Reserve the record's size at once (an estimate: the bytes of the
    // large values, plus room for keys, types and lengths), rather than
    // growing `out` by doublings, each a copy of everything so far.
    let estimate: usize = visible
        .iter()
        .map(|p| {
            let payload = match &p.value {
                Value::ByteObject(b)
                | Value::CompressedString(b)
                | Value::Regex(b)
                | Value::CompressedByteObject(b)
                | Value::DataBuffer(b) => b.len(),
                _ => 16,
            };
            p.key.as_bytes().len() + payload + 16
        })
        .sum();
    out.reserve(estimate + 64);
    blob::put_record(out, proc, visible.into_iter()).map_err(Status::from)
}

/// Builds one modex segment per namespace from `records` (each process's
/// posted values, already filtered by visibility) of the fence over
/// `participants`, numbering them with `generation()`.
pub(super) fn build_segments<'a>(
    participants: impl IntoIterator<Item = &'a Proc>,
    records: impl IntoIterator<Item = (&'a Proc, &'a Posted)>,
    mut generation: impl FnMut() -> u64,
) -> Result<Vec<(Nspace, ModexSegment)>, Status> {
    let mut ranks: BTreeMap<&Nspace, BTreeSet<u32>> = BTreeMap::new();
    for p in participants {
        ranks.entry(&p.nspace).or_default().insert(p.rank.0);
    }
    let mut builders: BTreeMap<&Nspace, SegmentBuilder> = BTreeMap::new();
    for (proc, p) in records {
        let b = match builders.get_mut(&proc.nspace) {
            Some(b) => b,
            None => {
                let b = SegmentBuilder::new(&proc.nspace.to_string_lossy())
                    .map_err(|_| Status::ERR_BAD_PARAM)?;
                builders.entry(&proc.nspace).or_insert(b)
            }
        };
        b.posted(
            proc.rank.0,
            p.scope,
            &p.key.to_string_lossy(),
            to_stored(&p.value),
        )
        .map_err(|_| Status::ERR_BAD_PARAM)?;
    }
    let mut out = Vec::with_capacity(builders.len());
    for (ns, mut b) in builders {
        let g = generation();
        b.generation(g);
        let sealed = b
            .build()
            .and_then(|img| img.seal())
            .map_err(|_| Status::ERR_OUT_OF_RESOURCE)?;
        out.push((
            ns.clone(),
            ModexSegment {
                generation: g,
                sealed: Arc::new(sealed),
                ranks: ranks.remove(ns).unwrap_or_default(),
                replaces: false,
                delta: false,
            },
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Key, Rank, Value};
    use pmix_shmem::Scope;

    fn posted(scope: Scope, k: &str, v: u32) -> Posted {
        Posted {
            scope,
            key: Key::new(k).unwrap(),
            value: Value::Uint32(v),
        }
    }

    #[test]
    fn later_commits_replace_same_scope_and_key() {
        let mut v = vec![posted(Scope::Global, "a", 1), posted(Scope::Local, "a", 2)];
        crate::wire::merge_posted(
            &mut v,
            vec![posted(Scope::Global, "a", 3), posted(Scope::Remote, "b", 4)],
        );
        assert_eq!(
            v,
            vec![
                posted(Scope::Global, "a", 3),
                posted(Scope::Local, "a", 2),
                posted(Scope::Remote, "b", 4)
            ]
        );
    }

    #[test]
    fn large_merges_agree_with_one_by_one_merges() {
        // Past the size where merge_posted indexes instead of scanning.
        let mut base: Vec<Posted> = (0..200)
            .map(|i| posted(Scope::Global, &format!("k{i}"), i))
            .collect();
        base.push(posted(Scope::Local, "k7", 1000));
        let new: Vec<Posted> = (150..260)
            .map(|i| posted(Scope::Global, &format!("k{i}"), i + 10_000))
            .chain([
                posted(Scope::Local, "k7", 2000),
                posted(Scope::Global, "k151", 7),
            ])
            .collect();
        let mut bulk = base.clone();
        crate::wire::merge_posted(&mut bulk, new.clone());
        let mut single = base;
        for p in new {
            crate::wire::merge_posted(&mut single, vec![p]);
        }
        assert_eq!(bulk, single);
    }

    #[test]
    fn records_filter_by_scope() {
        let p = Proc::new(Nspace::new("ns").unwrap(), Rank(0));
        let v = vec![posted(Scope::Local, "l", 1), posted(Scope::Remote, "r", 2)];
        let mut out = Vec::new();
        put_record(&mut out, &p, &v, Scopes::REMOTE_PEER).unwrap();
        let recs = blob::decode(&out).unwrap();
        assert_eq!(recs[0].posted, vec![posted(Scope::Remote, "r", 2)]);
    }

    #[test]
    fn segments_hold_posted_values_per_namespace() {
        let a = Proc::new(Nspace::new("a").unwrap(), Rank(1));
        let b = Proc::new(Nspace::new("b").unwrap(), Rank(0));
        let pa = posted(Scope::Global, "k", 7);
        let pb = posted(Scope::Local, "k", 8);
        let mut n = 10;
        let segs = build_segments([&a, &b], [(&a, &pa), (&b, &pb)], || {
            n += 1;
            n
        })
        .unwrap();
        assert_eq!(segs.len(), 2);
        let seg = segs[0].1.sealed.open().unwrap();
        assert_eq!(seg.generation(), 11);
        let v = seg
            .posted_value(1, Scopes::ALL, &"k".into())
            .unwrap()
            .unwrap();
        assert_eq!(v.as_u32(), Some(7));
    }

    #[test]
    fn generations_of_the_same_participants_replace_earlier_ones() {
        let a = Proc::new(Nspace::new("a").unwrap(), Rank(0));
        let b = Proc::new(Nspace::new("a").unwrap(), Rank(1));
        let pa = posted(Scope::Global, "k", 1);
        let mut g = 0;
        let mut next = || {
            g += 1;
            g
        };
        let mut build = |procs: &[&Proc]| {
            let recs: Vec<_> = procs.iter().map(|p| (*p, &pa)).collect();
            build_segments(procs.iter().copied(), recs, &mut next)
                .unwrap()
                .pop()
                .unwrap()
                .1
        };
        let mut kept = Vec::new();
        push_generation(&mut kept, build(&[&a]));
        assert!(kept[0].replaces);
        // Rank 1 alone does not cover rank 0's generation.
        push_generation(&mut kept, build(&[&b]));
        assert_eq!(kept.len(), 2);
        assert!(!kept[1].replaces);
        // Both ranks: covers everything before.
        push_generation(&mut kept, build(&[&a, &b]));
        assert_eq!(kept.len(), 1);
        assert!(kept[0].replaces);
        assert_eq!(kept[0].generation, 3);
        // Deltas over the same participants follow it, up to MAX_DELTAS,
        // and supersede nothing.
        let both: BTreeSet<u32> = [0, 1].into();
        for i in 0..MAX_DELTAS {
            assert!(delta_allowed(&kept, &both));
            assert!(!delta_allowed(&kept, &[0].into()));
            let mut d = build(&[&a, &b]);
            d.delta = true;
            push_generation(&mut kept, d);
            assert_eq!(kept.len(), i + 2);
            assert!(!kept[i + 1].replaces);
        }
        assert!(!delta_allowed(&kept, &both));
        // The next full generation replaces the full one and its deltas.
        push_generation(&mut kept, build(&[&a, &b]));
        assert_eq!(kept.len(), 1);
        assert!(kept[0].replaces);
    }
}
