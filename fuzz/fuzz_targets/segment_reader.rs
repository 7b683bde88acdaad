//! Arbitrary bytes to the segment reader: header checks, index validation,
//! lazy block validation, then lookups of every kind. Nothing may panic or
//! read out of bounds, whatever the bytes.
//!
//! The first byte picks a mode: (0) the bytes as they are; (1) a segment
//! whose checksums are all recomputed after mutation, so the fuzzer reaches
//! the rkyv validation and the lookups of blocks with wrong content but
//! right checksums; (2) a header that passes its own checks in front of a
//! fuzzed body (index validation of arbitrary bytes).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmix_shmem::{
    checksum, header, LookupKey, NodeSel, Realm, Scope, Scopes, Segment, ValueRef, RANK_WILDCARD,
};

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
    for realm in [
        Realm::Job,
        Realm::Session,
        Realm::App(0),
        Realm::Node(NodeSel::Id(0)),
        Realm::Proc(0),
        Realm::Proc(3),
        Realm::Posted(1, Scope::Global),
    ] {
        if let Ok(entries) = seg.row_entries(realm) {
            for (k, v) in entries.flatten() {
                std::hint::black_box(k.to_bytes().len());
                touch(v);
            }
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

/// Rewrites the header's checksums (keeping its index range) so that a
/// mutated segment passes the header and index checks.
fn fix_header(b: &mut [u8]) -> bool {
    if b.len() < header::HEADER_LEN {
        return false;
    }
    let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
    let (ioff, ilen) = (word(32) as usize, word(40) as usize);
    let Some(iend) = ioff
        .checked_add(ilen)
        .filter(|&e| e <= b.len() && ioff >= header::HEADER_LEN)
    else {
        return false;
    };
    let h = header::Header {
        total_len: b.len() as u64,
        index_offset: ioff as u64,
        index_len: ilen as u64,
        index_checksum: checksum::xxh64(&b[ioff..iend]),
    };
    b[..header::HEADER_LEN].copy_from_slice(&h.encode());
    true
}

/// Makes every checksum of a (mutated) segment match its bytes, so that
/// the fuzzer reaches the validation and lookups of blocks whose content
/// is wrong but whose checksums are right: the adversarial case.
fn rechecksum(mut b: Vec<u8>) -> Option<Vec<u8>> {
    if !fix_header(&mut b) {
        return None;
    }
    let seg = Segment::from_bytes(&b).ok()?;
    let base = seg.as_bytes().as_ptr() as usize;
    let mut patches = Vec::new();
    for br in seg.index().blocks.iter() {
        let (o, l) = (br.offset.to_native() as usize, br.len.to_native() as usize);
        let end = o.checked_add(l)?.div_ceil(16).checked_mul(16)?;
        let sum = checksum::xxh64(b.get(o..end)?);
        let at = std::ptr::addr_of!(br.checksum) as usize - base;
        patches.push((at, sum));
    }
    drop(seg);
    for (at, sum) in patches {
        b.get_mut(at..at + 8)?.copy_from_slice(&sum.to_le_bytes());
    }
    fix_header(&mut b).then_some(b)
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, body)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => return exercise(body),
        1 => {
            if let Some(b) = rechecksum(body.to_vec()) {
                exercise(&b);
            }
            return;
        }
        _ => {}
    }
    // A valid header in front of the body (padded to 16 bytes); the
    // index is its last `ilen` bytes, as the writer lays it out.
    let mut b = vec![0u8; header::HEADER_LEN];
    b.extend_from_slice(body);
    b.resize(b.len().div_ceil(16) * 16, 0);
    let total = b.len();
    let ilen = ((usize::from(mode / 3) + 1) * 16).min(total - header::HEADER_LEN);
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
