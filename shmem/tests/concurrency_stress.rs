//! Guards publication and reclamation under load: reader threads get
//! continuously while a writer publishes hundreds of generations; every
//! read is consistent with the generation it came from, generations never
//! go backwards, a pinned reader keeps its segments mapped, and superseded
//! segments are unmapped once no reader can reach them.
//!
//! `STRESS_GENERATIONS` overrides the number of generations (default 300).

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use common::*;
use pmix_shmem::*;

const RANKS: u32 = 48;

fn job(g: u64) -> Arc<Segment> {
    let sealed = small_job("stress", RANKS, g)
        .build()
        .unwrap()
        .seal()
        .unwrap();
    Arc::new(Segment::from_fd(sealed.fd()).unwrap())
}

fn modex(g: u64) -> Arc<Segment> {
    let sealed = small_modex("stress", RANKS, g)
        .build()
        .unwrap()
        .seal()
        .unwrap();
    Arc::new(Segment::from_fd(sealed.fd()).unwrap())
}

fn check_view(ns: NsView<'_>, rank: u32) -> u64 {
    let Some(ValueRef::Uint64(g)) = ns.get(RANK_WILDCARD, "gen") else {
        panic!("job-level gen missing")
    };
    assert_eq!(ns.job_segment().unwrap().generation(), g);
    let Some(ValueRef::Uint64(v)) = ns.get(rank, "val") else {
        panic!("val missing")
    };
    assert_eq!(
        v,
        g * 1_000_000 + u64::from(rank),
        "value from another generation"
    );
    let host = ns.get(rank, "pmix.hname").unwrap().as_c_str().unwrap();
    assert_eq!(host.to_bytes(), format!("node{}", rank % 3).as_bytes());
    if let Some(m) = ns.modex_segments().last() {
        let mg = m.generation();
        let Some(ValueRef::Uint64(ep)) = ns.get(rank, "net.ep") else {
            panic!("posted value missing")
        };
        assert_eq!(ep, mg << 32 | u64::from(rank));
        assert!(
            matches!(ns.get(rank, "btl.addr"), Some(ValueRef::ByteObject(b)) if b == [rank as u8; 16])
        );
    }
    g
}

/// Reclaims until at most `target` segments are mapped or 20 s passed. The
/// epoch collector is process-wide, so a reader pinned by another test
/// running in parallel delays reclamation here: hence the patience.
fn reclaim_until(dir: &Directory, target: usize) -> usize {
    let start = std::time::Instant::now();
    loop {
        let left = dir.reclaim();
        if left <= target || start.elapsed().as_secs() >= 20 {
            return left;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

#[test]
fn readers_during_hundreds_of_generations() {
    let gens: u64 = std::env::var("STRESS_GENERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let dir = Arc::new(Directory::new());
    dir.publish_job("stress", job(1));
    let done = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(AtomicU64::new(0));

    let readers: Vec<_> = (0..3)
        .map(|t| {
            let (dir, done, reads) = (dir.clone(), done.clone(), reads.clone());
            std::thread::spawn(move || {
                let mut last = 0;
                let mut seen = std::collections::BTreeSet::new();
                let mut rank = t;
                while !done.load(Ordering::Relaxed) {
                    let r = dir.reader();
                    let ns = r.namespace("stress").unwrap();
                    for _ in 0..8 {
                        rank = (rank * 7 + 3) % RANKS;
                        let g = check_view(ns, rank);
                        assert!(g >= last, "generation went back from {last} to {g}");
                        last = g;
                        seen.insert(g);
                    }
                    reads.fetch_add(8, Ordering::Relaxed);
                }
                seen.len()
            })
        })
        .collect();

    // A reader pinned across many publications keeps reading its own
    // generation, whose segments stay mapped.
    let pinned = dir.reader();
    let old = pinned.namespace("stress").unwrap();

    for g in 2..=gens {
        dir.publish_job("stress", job(g));
        if g % 10 == 0 {
            dir.publish_modex("stress", modex(g));
        }
        if g % 50 == 0 {
            dir.replace_modex("stress", vec![modex(g)]);
        }
        if g % 25 == 0 {
            for r in 0..RANKS {
                assert_eq!(check_view(old, r), 1);
            }
        }
    }
    let held = dir.mapped_segments();
    assert!(
        held as u64 >= gens / 2,
        "the pinned reader keeps old generations mapped ({held})"
    );
    drop(pinned);
    done.store(true, Ordering::Relaxed);
    let distinct: Vec<usize> = readers.into_iter().map(|h| h.join().unwrap()).collect();

    let left = reclaim_until(&dir, 4);
    // Current job + current modex list (at most gens % 50 / 10 + 1 + 1).
    assert!(left <= 6, "{left} segments still mapped after reclaim");
    assert!(reads.load(Ordering::Relaxed) > 0);
    assert!(distinct.iter().all(|&d| d >= 1));
    eprintln!(
        "{} reads, generations seen per reader {:?}, {} segments left mapped",
        reads.load(Ordering::Relaxed),
        distinct,
        left
    );
    let r = dir.reader();
    assert_eq!(check_view(r.namespace("stress").unwrap(), 0), gens);
}

#[test]
fn namespaces_come_and_go_while_read() {
    let dir = Arc::new(Directory::new());
    dir.publish_job("fixed", job(1));
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (dir, done) = (dir.clone(), done.clone());
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !done.load(Ordering::Relaxed) {
                let r = dir.reader();
                assert!(r.get("fixed", 1, "pmix.rank").is_some());
                if let Some(ns) = r.namespace("transient") {
                    check_view(ns, 2);
                }
                n += 1;
            }
            n
        })
    };
    for g in 1..=100 {
        dir.publish_job("transient", job(g));
        assert!(dir.remove("transient"));
    }
    done.store(true, Ordering::Relaxed);
    assert!(reader.join().unwrap() > 0);
    assert_eq!(reclaim_until(&dir, 1), 1);
}
