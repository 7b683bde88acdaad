//! The modex blob: the data processes committed, as it travels between
//! servers (through the host's `fence_nb` and `direct_modex`) and from a
//! server to a client (direct-modex replies).
//!
//! A blob is a sequence of records, one per process:
//! `proc, count, count * (scope, key, value)` in the encodings of
//! [`super::body`]. Records are self-delimiting, so the concatenation of
//! blobs (what a host's allgather returns) is itself a blob.

use super::body::{get_proc, put_proc};
use super::message::{get_posted, put_one_posted, Posted};
use super::WireError;
use crate::codec::{CodecError, Reader};
use crate::Proc;

/// One process's record in a blob.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcRecord {
    /// The process.
    pub proc: Proc,
    /// What it posted.
    pub posted: Vec<Posted>,
}

/// Appends `proc`'s record holding `posted`.
pub fn put_record<'a>(
    out: &mut Vec<u8>,
    proc: &Proc,
    posted: impl ExactSizeIterator<Item = &'a Posted>,
) -> Result<(), CodecError> {
    put_proc(out, proc)?;
    super::body::put_count(out, posted.len())?;
    posted.into_iter().try_for_each(|p| put_one_posted(out, p))
}

/// Decodes every record of a blob (or of a concatenation of blobs).
pub fn decode(blob: &[u8]) -> Result<Vec<ProcRecord>, WireError> {
    let mut r = Reader::new(blob);
    let mut out = Vec::new();
    while r.remaining() > 0 {
        let proc = get_proc(&mut r).map_err(|source| WireError::Body {
            kind: "modex blob",
            source,
        })?;
        let posted = get_posted(&mut r, "modex blob")?;
        out.push(ProcRecord { proc, posted });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Key, Nspace, Rank, Value};
    use pmix_shmem::Scope;

    #[test]
    fn concatenated_blobs_decode_as_one() {
        let p = |r| Proc::new(Nspace::new("ns").unwrap(), Rank(r));
        let posted = vec![Posted {
            scope: Scope::Global,
            key: Key::new("k").unwrap(),
            value: Value::Uint64(9),
        }];
        let mut a = Vec::new();
        put_record(&mut a, &p(0), posted.iter()).unwrap();
        let mut b = Vec::new();
        put_record(&mut b, &p(1), posted.iter()).unwrap();
        a.extend_from_slice(&b);
        let recs = decode(&a).unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1].proc, p(1));
        assert_eq!(recs[1].posted, posted);
    }

    #[test]
    fn truncated_blob_is_an_error() {
        let mut a = Vec::new();
        let posted = [Posted {
            scope: Scope::Local,
            key: Key::new("k").unwrap(),
            value: Value::string("v"),
        }];
        put_record(
            &mut a,
            &Proc::new(Nspace::new("ns").unwrap(), Rank(0)),
            posted.iter(),
        )
        .unwrap();
        for cut in 0..a.len() {
            if cut > 0 {
                assert!(decode(&a[..cut]).is_err(), "cut at {cut}");
            }
        }
    }
}
