//! Writes real segments as seeds for `fuzz/fuzz_targets/segment_reader.rs`
//! when `SEGMENT_FUZZ_SEEDS=<dir>` is set (otherwise checks the seeds
//! build). Each seed is a mode byte and a segment.

mod common;

use common::*;
use pmix_shmem::*;

#[test]
fn seeds() {
    let mut segs = vec![
        small_job("seed-job", 8, 1).build().unwrap(),
        small_modex("seed-job", 8, 2).build().unwrap(),
        SegmentBuilder::new("seed-empty").unwrap().build().unwrap(),
    ];
    let mut b = SegmentBuilder::new("seed-values").unwrap();
    for (i, v) in every_value().into_iter().enumerate() {
        b.proc((i % 3) as u32, &format!("k{i}"), v.clone()).unwrap();
        b.job(&format!("k{i}"), v).unwrap();
    }
    segs.push(b.build().unwrap());
    for s in &segs {
        Segment::from_bytes(s.as_bytes())
            .unwrap()
            .validate_all()
            .unwrap();
    }
    if let Ok(dir) = std::env::var("SEGMENT_FUZZ_SEEDS") {
        std::fs::create_dir_all(&dir).unwrap();
        for (i, s) in segs.iter().enumerate() {
            // Mode 0 (as is) and mode 1 (checksums recomputed after
            // mutation).
            for mode in [0u8, 1] {
                let mut bytes = vec![mode];
                bytes.extend_from_slice(s.as_bytes());
                std::fs::write(format!("{dir}/seed-{i}-{mode}"), bytes).unwrap();
            }
        }
    }
}
