//! Guards the hot path: once a block is validated, gets of every kind make
//! no allocation and no deallocation (counted by a global allocator on the
//! reading thread). Locks and system calls are excluded by construction
//! (see docs/ARCHITECTURE.md); this test pins down the allocator half.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use common::*;
use pmix_shmem::*;

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

fn bump() {
    // `try_with`: the slot may be gone while a thread is torn down.
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: forwards every call to the system allocator unchanged; counting
// touches only a const-initialized thread-local cell (no allocation).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        bump();
        // SAFETY: same contract as ours.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        bump();
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        bump();
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        bump();
        // SAFETY: same contract as ours.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn count() -> u64 {
    ALLOCS.with(Cell::get)
}

#[test]
fn gets_allocate_nothing() {
    let dir = Directory::new();
    let job = small_job("na", 64, 1).build().unwrap().seal().unwrap();
    let modex = small_modex("na", 64, 1).build().unwrap().seal().unwrap();
    dir.publish_job("na", Arc::new(Segment::from_fd(job.fd()).unwrap()));
    dir.publish_modex("na", Arc::new(Segment::from_fd(modex.fd()).unwrap()));
    let handle = dir.handle("na").unwrap();

    let mut sink = 0u64;
    let run = |sink: &mut u64| {
        for rank in 0..64u32 {
            let r = dir.reader();
            let ns = r.namespace("na").unwrap();
            let v = [
                ns.get(rank, "pmix.rank"),
                ns.get(rank, "pmix.hname"),
                ns.get(rank, "val"),
                ns.get(rank, "btl.addr"),
                ns.get(rank, "net.ep"),
                ns.get(rank, "pmix.job.size"),
                ns.get(RANK_WILDCARD, "pmix.nsdir"),
                ns.get(rank, "absent.key"),
                ns.node(NodeSel::Hostname("node1"), "pmix.lpeers"),
                ns.node(NodeSel::Id(20), "pmix.local.size"),
                ns.app(1, "pmix.wdir"),
                ns.session("pmix.session.id"),
                ns.posted(rank, Scopes::LOCAL_PEER, "shm.seg"),
                r.get("na", rank, "pmix.lrank"),
                r.view(&handle).unwrap().get(rank, "pmix.nodeid"),
                r.get("absent-ns", rank, "pmix.rank"),
            ];
            for x in v.iter().flatten() {
                *sink += match x {
                    ValueRef::String(Some(s)) => s.to_bytes().len() as u64,
                    ValueRef::ByteObject(b) => b.len() as u64,
                    other => other.as_u32().map_or(1, u64::from),
                };
            }
            assert_eq!(v.iter().filter(|x| x.is_some()).count(), 14);
        }
    };
    // Warm up: validates the blocks, registers this thread with the epoch
    // collector.
    run(&mut sink);
    let before = count();
    for _ in 0..100 {
        run(&mut sink);
    }
    let after = count();
    assert_eq!(after - before, 0, "allocations on the get path");
    assert!(sink > 0);
}
