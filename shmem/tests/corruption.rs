//! Guards that foreign, truncated, version-skewed and corrupt segments are
//! refused with a typed error, never a crash: every truncation length,
//! every byte flipped, random bit flips (proptest), and lookups on whatever
//! a corrupt segment still lets open.

mod common;

use common::*;
use pmix_shmem::*;
use proptest::prelude::*;

fn sample() -> Vec<u8> {
    let mut b = small_job("corrupt", 24, 3);
    let vals = every_value();
    for (i, v) in vals.iter().enumerate() {
        b.proc((i % 24) as u32, &format!("x{i}"), v.clone())
            .unwrap();
        b.posted((i % 24) as u32, Scope::Global, &format!("p{i}"), v.clone())
            .unwrap();
    }
    b.build().unwrap().as_bytes().to_vec()
}

/// Opens, validates everything, and performs lookups of every kind; the
/// result is Err if any step refused the segment.
fn exercise(bytes: &[u8]) -> Result<(), SegmentError> {
    let seg = Segment::from_bytes(bytes)?;
    // Lookups before full validation must not crash either.
    for r in [0u32, 5, 23, 24, RANK_WILDCARD] {
        let _ = seg.proc_value(r, &"pmix.rank".into());
        let _ = seg.posted_value(r, Scopes::ALL, &"p3".into());
    }
    let _ = seg.node_value(NodeSel::Hostname("node1"), &"pmix.lpeers".into());
    let _ = seg.app_value(1, &"pmix.wdir".into());
    for realm in [Realm::Job, Realm::Proc(3), Realm::Posted(3, Scope::Global)] {
        for e in seg.row_entries(realm)? {
            let (_, v) = e?;
            let _ = v.to_stored();
        }
    }
    seg.validate_all()?;
    for r in 0..24 {
        if let Some(v) = seg.proc_value(r, &"pmix.hname".into())? {
            let _ = v.to_stored();
        }
    }
    Ok(())
}

#[test]
fn intact_sample_passes() {
    exercise(&sample()).unwrap();
}

#[test]
fn every_truncation_is_refused() {
    let b = sample();
    for len in 0..b.len() {
        let e = Segment::from_bytes(&b[..len]).unwrap_err();
        assert!(
            matches!(
                e,
                SegmentError::TooShort { .. }
                    | SegmentError::Truncated { .. }
                    | SegmentError::Foreign
            ),
            "len {len}: {e}"
        );
    }
    // Extended by garbage: refused too.
    let mut longer = b.clone();
    longer.extend_from_slice(&[0; 16]);
    assert!(matches!(
        Segment::from_bytes(&longer),
        Err(SegmentError::Truncated { .. })
    ));
}

#[test]
fn every_byte_flipped_is_refused() {
    let b = sample();
    let mut c = b.clone();
    for i in 0..b.len() {
        let bit = 1u8 << (i % 8);
        c[i] ^= bit;
        assert!(
            exercise(&c).is_err(),
            "flip of bit {} of byte {i} went unnoticed",
            i % 8
        );
        c[i] ^= bit;
    }
}

#[test]
fn foreign_version_and_layout_are_named() {
    let b = sample();
    let mut f = b.clone();
    f[0] = b'X';
    assert!(matches!(
        Segment::from_bytes(&f),
        Err(SegmentError::Foreign)
    ));
    assert!(matches!(
        Segment::from_bytes(&[0u8; 4096]),
        Err(SegmentError::Foreign)
    ));

    let reheader = |patch: &dyn Fn(&mut [u8])| {
        let mut h = b.clone();
        patch(&mut h);
        let sum = checksum::xxh64(&h[..56]);
        h[56..64].copy_from_slice(&sum.to_le_bytes());
        Segment::from_bytes(&h).unwrap_err()
    };
    let e = reheader(&|h| h[8..12].copy_from_slice(&2u32.to_le_bytes()));
    assert!(
        matches!(
            e,
            SegmentError::VersionSkew {
                found: 2,
                expected: 1
            }
        ),
        "{e}"
    );
    let e = reheader(&|h| h[16..24].copy_from_slice(&0x1234u64.to_le_bytes()));
    assert!(
        matches!(e, SegmentError::LayoutMismatch { found: 0x1234, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("another schema"));
    let e = reheader(&|h| h[32..40].copy_from_slice(&8u64.to_le_bytes()));
    assert!(matches!(e, SegmentError::BadRange(Region::Index)), "{e}");
    let e = reheader(&|h| h[40..48].copy_from_slice(&u64::MAX.to_le_bytes()));
    assert!(matches!(e, SegmentError::BadRange(Region::Index)), "{e}");
    let e = reheader(&|h| h[48..56].copy_from_slice(&0u64.to_le_bytes()));
    assert!(matches!(e, SegmentError::Checksum(Region::Index)), "{e}");
}

#[test]
fn corrupt_block_is_reported_on_touch_and_remembered() {
    let mut b = small_job("lazy", 64, 1)
        .build()
        .unwrap()
        .as_bytes()
        .to_vec();
    let seg = Segment::from_bytes(&b).unwrap();
    let blocks = seg.block_count();
    // Corrupt the bytes of the block holding rank 0 (found by its range).
    let before = seg.validated_blocks();
    assert_eq!(before, 0, "nothing validated at open");
    seg.proc_value(0, &"pmix.rank".into()).unwrap();
    assert_eq!(seg.validated_blocks(), 2, "key dictionary + one rank block");
    let ix = seg.index();
    let procs = ix.procs.first_block.to_native() as usize;
    let br = &ix.blocks[procs];
    let at = br.offset.to_native() as usize + 3;
    drop(seg);
    b[at] ^= 0x40;
    let seg = Segment::from_bytes(&b).unwrap();
    let e = seg.proc_value(0, &"pmix.rank".into()).unwrap_err();
    assert_eq!(
        e,
        Corrupt {
            region: Region::Block(procs as u32),
            kind: CorruptKind::Checksum
        }
    );
    let e = seg.proc_value(1, &"pmix.rank".into()).unwrap_err();
    assert_eq!(e.kind, CorruptKind::Checksum, "remembered: {e}");
    // Other blocks still read.
    assert_eq!(
        seg.proc_value(63, &"pmix.rank".into())
            .unwrap()
            .unwrap()
            .as_u32(),
        Some(63)
    );
    assert!(seg.validate_all().is_err());
    assert!(blocks > 10);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bit_flips_are_refused(flips in prop::collection::vec((any::<prop::sample::Index>(), 0u8..8), 1..4)) {
        let mut b = sample();
        let n = b.len();
        let mut seen = std::collections::HashSet::new();
        for (i, bit) in &flips {
            let at = i.index(n);
            // Two flips of the same bit cancel out.
            if seen.insert((at, *bit)) {
                b[at] ^= 1 << bit;
            }
        }
        prop_assert!(exercise(&b).is_err());
    }

    #[test]
    fn arbitrary_bytes_never_crash(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let _ = exercise(&bytes);
    }

    #[test]
    fn arbitrary_bytes_behind_a_valid_header_never_crash(body in prop::collection::vec(any::<u8>(), 16..4096)) {
        // A header that passes its own checks, in front of garbage, with
        // the index checksum matching the garbage: exercises the rkyv
        // validation of the index and of blocks.
        let len = 64 + body.len();
        let idx_len = body.len() - body.len() % 16;
        let mut b = vec![0u8; 64];
        b.extend_from_slice(&body);
        let hdr = header::Header {
            total_len: len as u64,
            index_offset: 64,
            index_len: idx_len as u64,
            index_checksum: checksum::xxh64(&b[64..64 + idx_len]),
        };
        b[..64].copy_from_slice(&hdr.encode());
        let _ = exercise(&b);
    }
}

/// Rewrites every checksum of `b` (block `block`'s in the index, the
/// index's and the header's) so that only validation can refuse it.
fn reseal(b: &mut [u8], block: usize, old_sum: u64) {
    use pmix_shmem::header::ALIGN;
    let seg = Segment::from_bytes(b).unwrap();
    let br = &seg.index().blocks[block];
    let (o, l) = (br.offset.to_native() as usize, br.len.to_native() as usize);
    drop(seg);
    let new_sum = checksum::xxh64(&b[o..(o + l).div_ceil(ALIGN) * ALIGN]);
    let ioff = u64::from_le_bytes(b[32..40].try_into().unwrap()) as usize;
    let ilen = u64::from_le_bytes(b[40..48].try_into().unwrap()) as usize;
    let at = b[ioff..ioff + ilen]
        .windows(8)
        .position(|w| w == old_sum.to_le_bytes())
        .expect("block checksum in the index")
        + ioff;
    b[at..at + 8].copy_from_slice(&new_sum.to_le_bytes());
    let isum = checksum::xxh64(&b[ioff..ioff + ilen]);
    b[48..56].copy_from_slice(&isum.to_le_bytes());
    let hsum = checksum::xxh64(&b[..56]);
    b[56..64].copy_from_slice(&hsum.to_le_bytes());
}

#[test]
fn heap_string_without_its_nul_or_with_another_is_refused() {
    let mut builder = SegmentBuilder::new("heap").unwrap();
    builder
        .proc(0, "pmix.hname", StoredValue::string("node-abcdef"))
        .unwrap();
    builder
        .proc(0, "pmix.rank", StoredValue::ProcRank(0))
        .unwrap();
    let good = builder.build().unwrap().as_bytes().to_vec();
    let seg = Segment::from_bytes(&good).unwrap();
    let v = seg.proc_value(0, &"pmix.hname".into()).unwrap().unwrap();
    assert_eq!(v.as_c_str().unwrap().to_bytes(), b"node-abcdef");
    let block = seg.index().procs.first_block.to_native() as usize;
    let old_sum = seg.index().blocks[block].checksum.to_native();
    drop(seg);
    let at = good
        .windows(12)
        .position(|w| w == b"node-abcdef\0")
        .unwrap();
    // An interior NUL, then a missing final NUL: each refused by
    // validation even with every checksum recomputed.
    for (pos, byte) in [(at + 4, 0u8), (at + 11, b'x')] {
        let mut b = good.clone();
        b[pos] = byte;
        reseal(&mut b, block, old_sum);
        let seg = Segment::from_bytes(&b).unwrap();
        let e = seg.proc_value(0, &"pmix.rank".into()).unwrap_err();
        assert_eq!(
            e,
            Corrupt {
                region: Region::Block(block as u32),
                kind: CorruptKind::Invalid
            }
        );
        assert!(seg.proc_value(0, &"pmix.hname".into()).is_err());
    }
    // The same resealing without a change is accepted (the test's own
    // check).
    let mut b = good.clone();
    reseal(&mut b, block, old_sum);
    assert!(Segment::from_bytes(&b)
        .unwrap()
        .proc_value(0, &"pmix.hname".into())
        .unwrap()
        .is_some());
}

#[test]
fn long_strings_and_byte_objects_go_to_the_pool_and_read_back() {
    let long = "y".repeat(HEAP_MAX_LEN + 1);
    let mut builder = SegmentBuilder::new("heap").unwrap();
    let cases = [
        ("s.short", StoredValue::string("short")),
        ("s.edge", StoredValue::string(&long[1..])),
        ("s.long", StoredValue::string(&long)),
        ("b.empty", StoredValue::ByteObject(Vec::new())),
        ("b.long", StoredValue::ByteObject(vec![0; HEAP_MAX_LEN + 1])),
        ("s.empty", StoredValue::string("")),
    ];
    for (k, v) in &cases {
        builder.proc(3, k, v.clone()).unwrap();
    }
    let seg = builder.build().unwrap().open().unwrap();
    seg.validate_all().unwrap();
    for (k, v) in &cases {
        let got = seg.proc_value(3, &(*k).into()).unwrap().unwrap();
        assert_eq!(&got.to_stored(), v, "{k}");
    }
}
