//! The process realm laid out from columns (`SegmentBuilder::proc_columns`)
//! must be the segment the same values set rank by rank give, byte for
//! byte: readers cannot tell the two writers apart.

use pmix_shmem::{ProcColumns, Scalar, SegmentBuilder, StoredValue, NO_CHOICE};

const PPN: u32 = 5;

fn host(n: u32) -> Option<StoredValue> {
    // Node 3 has no hostname; node 4's name is long enough for the pool.
    match n {
        3 => None,
        4 => Some(StoredValue::string(&"x".repeat(5000))),
        _ => Some(StoredValue::string(&format!("node{n:03}"))),
    }
}

/// Rank `r`'s node, or NO_CHOICE for the ranks no node hosts (7, and the
/// last ones), or a node number no choice has (8).
fn node_of(r: u32, n: u32) -> u32 {
    match r {
        7 => NO_CHOICE,
        8 => 1000,
        _ if r + 3 >= n => NO_CHOICE,
        _ => r / PPN,
    }
}

/// What both builders share before the process realm: other realms, in
/// one key order.
fn base() -> SegmentBuilder {
    let mut b = SegmentBuilder::new("cols").unwrap();
    b.rank_block_shift(4);
    b.job("pmix.job.size", StoredValue::Uint32(100)).unwrap();
    b.node(0, "pmix.hname", StoredValue::string("node000"))
        .unwrap();
    b
}

/// The extra keys some ranks have, set after the realm's columns: one
/// overrides a column's key, one is new, one a string shared with a node.
fn extras(b: &mut SegmentBuilder) {
    b.proc(2, "pmix.lrank", StoredValue::Uint16(77)).unwrap();
    b.proc(2, "my.key", StoredValue::string("two")).unwrap();
    b.proc(7, "my.key", StoredValue::string("node001")).unwrap();
    b.proc(40, "pmix.procdir", StoredValue::string("/tmp/x/40"))
        .unwrap();
}

fn segment(n: u32, by_columns: bool) -> Vec<u8> {
    let mut b = base();
    let kh = b.key("pmix.hname").unwrap();
    let kid = b.key("pmix.nodeid").unwrap();
    let klr = b.key("pmix.lrank").unwrap();
    let kapp = b.key("pmix.appnum").unwrap();
    let kgr = b.key("pmix.grank").unwrap();
    let nnodes = n.div_ceil(PPN);
    if by_columns {
        let mut c = ProcColumns::new();
        let node = c.index((0..n).map(|r| node_of(r, n)).collect());
        let app = c.index((0..n).map(|r| u32::from(r >= n / 2)).collect());
        // Given out of key order, and the application number twice (the
        // later column counts).
        c.scalar(
            kgr,
            Scalar::ProcRank,
            (0..n).map(|r| r + 1000).collect(),
            None,
        );
        c.choice(kh, node, (0..nnodes).map(host).collect());
        c.choice(kapp, app, vec![Some(StoredValue::Uint32(9)); 2]);
        c.choice(
            kid,
            node,
            (0..nnodes)
                .map(|i| Some(StoredValue::Uint32(i * 10)))
                .collect(),
        );
        c.scalar(
            klr,
            Scalar::Uint16,
            (0..n).map(|r| r % PPN).collect(),
            Some(node),
        );
        c.choice(
            kapp,
            app,
            vec![Some(StoredValue::Uint32(0)), Some(StoredValue::Uint32(1))],
        );
        b.proc_columns(c).unwrap();
    } else {
        for r in 0..n {
            let nd = node_of(r, n);
            if nd < nnodes {
                if let Some(h) = host(nd) {
                    b.proc_kv(r, kh, h).unwrap();
                }
                b.proc_kv(r, kid, StoredValue::Uint32(nd * 10)).unwrap();
            }
            if nd != NO_CHOICE {
                b.proc_kv(r, klr, StoredValue::Uint16((r % PPN) as u16))
                    .unwrap();
            }
            b.proc_kv(r, kapp, StoredValue::Uint32(u32::from(r >= n / 2)))
                .unwrap();
            b.proc_kv(r, kgr, StoredValue::ProcRank(r + 1000)).unwrap();
        }
    }
    extras(&mut b);
    b.build().unwrap().as_bytes().to_vec()
}

#[test]
fn columns_write_the_bytes_of_rank_by_rank_cells() {
    for n in [1, 16, 17, 45, 300] {
        let (a, b) = (segment(n, false), segment(n, true));
        assert!(a == b, "{n} ranks: the segments differ");
        pmix_shmem::Segment::from_bytes(&b).unwrap();
    }
}

#[test]
fn a_row_index_of_other_columns_is_refused() {
    let mut other = ProcColumns::new();
    other.index(vec![0]);
    let foreign = other.index(vec![0]);
    let mut b = SegmentBuilder::new("cols").unwrap();
    let k = b.key("k").unwrap();
    let mut c = ProcColumns::new();
    c.choice(k, foreign, vec![Some(StoredValue::Uint32(1))]);
    assert!(matches!(
        b.proc_columns(c),
        Err(pmix_shmem::BuildError::BadColumn)
    ));
}
