//! Committed data on the server side and modex generations.
//!
//! A process's committed data is the union of its commits (a later value
//! for the same scope and key replaces the earlier one). Who sees what is
//! decided here, by scope: a local peer sees `PMIX_LOCAL` and
//! `PMIX_GLOBAL`, a peer on another node `PMIX_REMOTE` and `PMIX_GLOBAL`.
//! `PMIX_INTERNAL` never leaves the process that put it.

use std::collections::BTreeMap;
use std::sync::Arc;

use pmix_shmem::{Scopes, SealedSegment, SegmentBuilder};

use crate::job::stored::to_stored;
use crate::wire::{blob, Posted, SegmentKind, SegmentRef};
use crate::{Nspace, Proc, Status};

/// One sealed modex generation of one namespace.
pub(super) struct ModexSegment {
    pub(super) generation: u64,
    pub(super) sealed: Arc<SealedSegment>,
}

impl ModexSegment {
    pub(super) fn seg_ref(&self, nspace: &Nspace) -> SegmentRef {
        SegmentRef {
            nspace: nspace.clone(),
            kind: SegmentKind::Modex,
            generation: self.generation,
        }
    }
}

/// Appends `proc`'s record holding what `scopes` lets through.
pub(super) fn put_record(
    out: &mut Vec<u8>,
    proc: &Proc,
    posted: &[Posted],
    scopes: Scopes,
) -> Result<(), Status> {
    let visible: Vec<&Posted> = posted.iter().filter(|p| scopes.contains(p.scope)).collect();
    blob::put_record(out, proc, visible.into_iter()).map_err(Status::from)
}

/// Builds one modex segment per namespace from `records` (each process's
/// posted values, already filtered by visibility), numbering them with
/// `generation()`.
pub(super) fn build_segments<'a>(
    records: impl IntoIterator<Item = (&'a Proc, &'a Posted)>,
    mut generation: impl FnMut() -> u64,
) -> Result<Vec<(Nspace, ModexSegment)>, Status> {
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
        let segs = build_segments([(&a, &pa), (&b, &pb)], || {
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
}
