//! Arbitrary bytes to the segment reader: header checks, index validation,
//! lazy block validation, then lookups of every kind. Nothing may panic or
//! read out of bounds, whatever the bytes.
//!
//! Half of the inputs are used as they are; the other half get a header
//! that passes its own checks (magic, version, layout id, length, index
//! checksum) in front of the fuzzed body, so the fuzzer reaches the rkyv
//! validation of the index and of the blocks instead of stopping at the
//! header checksum.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmix_shmem::{checksum, header, LookupKey, NodeSel, Scopes, Segment, ValueRef, RANK_WILDCARD};

fn exercise(bytes: &[u8]) {
    let Ok(seg) = Segment::from_bytes(bytes) else {
        return;
    };
    let _ = seg.nspace();
    let _ = seg.generation();
    let keys = ["pmix.rank", "pmix.hname", "k0", "k1", "btl.addr", "a", ""];
    for k in keys {
        let k = LookupKey::from(k);
        for rank in [0u32, 1, 2, 7, 255, 256, 1023, RANK_WILDCARD] {
            if let Ok(Some(v)) = seg.proc_value(rank, &k) {
                touch(v);
            }
            if let Ok(Some(v)) = seg.posted_value(rank, Scopes::ALL, &k) {
                touch(v);
            }
        }
        for v in [
            seg.job_value(&k),
            seg.session_value(&k),
            seg.app_value(0, &k),
            seg.app_value(1, &k),
            seg.node_value(NodeSel::Id(0), &k),
            seg.node_value(NodeSel::Hostname("node0"), &k),
        ]
        .into_iter()
        .flatten()
        .flatten()
        {
            touch(v);
        }
    }
    let _ = seg.validate_all();
}

/// Reads every byte a value refers to, recursively, as a consumer would.
fn touch(v: ValueRef<'_>) {
    let _ = v.to_stored();
    match v {
        ValueRef::String(Some(s)) => {
            std::hint::black_box(s.to_bytes().iter().map(|&b| b as u64).sum::<u64>());
        }
        ValueRef::DataArray(a) => {
            for e in a.view().iter() {
                touch(e);
            }
        }
        ValueRef::Value(inner) => touch(ValueRef::from_archived(inner)),
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, body)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        exercise(body);
        return;
    }
    // A valid header in front of the body (padded to 16 bytes); the
    // index is its last `ilen` bytes, as the writer lays it out.
    let mut b = vec![0u8; header::HEADER_LEN];
    b.extend_from_slice(body);
    b.resize(b.len().div_ceil(16) * 16, 0);
    let total = b.len();
    let ilen = ((usize::from(mode >> 1) + 1) * 16).min(total - header::HEADER_LEN);
    if ilen == 0 {
        return;
    }
    let ioff = total - ilen;
    let h = header::Header {
        total_len: total as u64,
        index_offset: ioff as u64,
        index_len: ilen as u64,
        index_checksum: checksum::xxh64(&b[ioff..]),
    };
    b[..header::HEADER_LEN].copy_from_slice(&h.encode());
    exercise(&b);
});
