//! Guards that every data type survives every realm of a sealed segment,
//! read zero-copy, and that absent keys, ranks, apps, nodes and namespaces
//! read as absent.

mod common;

use std::sync::Arc;

use common::*;
use pmix_shmem::*;

fn open_sealed(b: SegmentBuilder) -> Arc<Segment> {
    let sealed = b.build().unwrap().seal().unwrap();
    Arc::new(Segment::from_fd(sealed.fd()).unwrap())
}

#[test]
fn every_type_in_every_realm() {
    let values = every_value();
    let mut b = SegmentBuilder::new("rt").unwrap();
    b.rank_block_shift(3);
    b.node_hostname(5, "nodeX").unwrap();
    for (i, v) in values.iter().enumerate() {
        let key = format!("k{i}");
        b.session(&key, v.clone()).unwrap();
        b.job(&key, v.clone()).unwrap();
        b.app(3, &key, v.clone()).unwrap();
        b.node(5, &key, v.clone()).unwrap();
        b.proc((i % 20) as u32, &key, v.clone()).unwrap();
        b.posted((i % 20) as u32, Scope::ALL[i % 4], &key, v.clone())
            .unwrap();
    }
    let seg = open_sealed(b);
    seg.validate_all().unwrap();
    let dir = Directory::new();
    dir.publish_job("rt", seg.clone());
    dir.publish_modex("rt", seg.clone());
    let r = dir.reader();
    let ns = r.namespace("rt").unwrap();
    for (i, v) in values.iter().enumerate() {
        let key = format!("k{i}");
        let rank = (i % 20) as u32;
        let lk = LookupKey::from(key.as_str());
        let reads = [
            ("session", ns.session(&key)),
            ("job", ns.job(&key)),
            ("wildcard", ns.get(RANK_WILDCARD, &key)),
            ("app", ns.app(3, &key)),
            ("node id", ns.node(NodeSel::Id(5), &key)),
            ("hostname", ns.node(NodeSel::Hostname("nodeX"), &key)),
            ("proc", seg.proc_value(rank, &lk).unwrap()),
            ("get", ns.get(rank, &key)),
            (
                "posted",
                seg.posted_value(rank, Scopes::only(Scope::ALL[i % 4]), &lk)
                    .unwrap(),
            ),
        ];
        for (realm, got) in reads {
            let got = got.unwrap_or_else(|| panic!("{realm} {key} missing"));
            assert_eq!(&got.to_stored(), v, "{realm} {key}");
        }
        // Posted with another scope only is not found.
        let other = Scopes::only(Scope::ALL[(i + 1) % 4]);
        assert!(seg.posted_value(rank, other, &lk).unwrap().is_none());
    }
}

#[test]
fn strings_and_bytes_point_into_the_segment() {
    let mut b = SegmentBuilder::new("zc").unwrap();
    b.proc(0, "s", StoredValue::string("in the segment"))
        .unwrap();
    b.proc(0, "b", StoredValue::ByteObject(vec![7; 40]))
        .unwrap();
    b.proc(
        0,
        "a",
        StoredValue::array(tag::UINT64, vec![StoredValue::Uint64(5); 4]),
    )
    .unwrap();
    let seg = open_sealed(b);
    let range = seg.as_bytes().as_ptr_range();
    let inside = |p: *const u8| range.contains(&p);
    let s = seg
        .proc_value(0, &"s".into())
        .unwrap()
        .unwrap()
        .as_c_str()
        .unwrap();
    assert!(inside(s.as_ptr().cast()));
    assert_eq!(s.to_bytes_with_nul(), b"in the segment\0");
    let Some(ValueRef::ByteObject(bo)) = seg.proc_value(0, &"b".into()).unwrap() else {
        panic!()
    };
    assert!(inside(bo.as_ptr()));
    let Some(ValueRef::DataArray(a)) = seg.proc_value(0, &"a".into()).unwrap() else {
        panic!()
    };
    let ArrayRef::Packed { bytes, count, .. } = a.view() else {
        panic!("u64 arrays are packed")
    };
    assert!(inside(bytes.as_ptr()));
    assert_eq!(
        bytes.as_ptr() as usize % 8,
        0,
        "packed arrays are 8-byte aligned"
    );
    assert_eq!(count, 4);
    // Same address on every get: what a pointer-value cache relies on.
    let again = seg
        .proc_value(0, &"s".into())
        .unwrap()
        .unwrap()
        .as_c_str()
        .unwrap();
    assert_eq!(again.as_ptr(), s.as_ptr());
}

#[test]
fn strings_shared_between_ranks_are_stored_once_per_block() {
    let mut b = SegmentBuilder::new("dedup").unwrap();
    for r in 0..256 {
        b.proc(
            r,
            "pmix.locstr",
            StoredValue::string("SK0:L30-3:L20-3:L10-3:CR0-3:HT0-7"),
        )
        .unwrap();
    }
    let seg = b.build().unwrap().open().unwrap();
    let a = seg
        .proc_value(0, &"pmix.locstr".into())
        .unwrap()
        .unwrap()
        .as_c_str()
        .unwrap();
    let z = seg
        .proc_value(255, &"pmix.locstr".into())
        .unwrap()
        .unwrap()
        .as_c_str()
        .unwrap();
    assert_eq!(a.as_ptr(), z.as_ptr());
}

#[test]
fn last_value_set_wins() {
    let mut b = SegmentBuilder::new("lw").unwrap();
    b.proc(2, "k", StoredValue::Uint32(1)).unwrap();
    b.proc(2, "k", StoredValue::string("two")).unwrap();
    b.job("j", StoredValue::Int8(1)).unwrap();
    b.job("j", StoredValue::Int8(2)).unwrap();
    let seg = b.build().unwrap().open().unwrap();
    assert_eq!(
        seg.proc_value(2, &"k".into()).unwrap().unwrap().to_stored(),
        StoredValue::string("two")
    );
    assert!(matches!(
        seg.job_value(&"j".into()).unwrap(),
        Some(ValueRef::Int8(2))
    ));
}

#[test]
fn missing_keys_ranks_apps_nodes_namespaces() {
    let dir = Directory::new();
    dir.publish_job("ns", open_sealed(small_job("ns", 10, 1)));
    let r = dir.reader();
    assert!(r.get("other", 0, "pmix.rank").is_none());
    assert!(r.namespace("other").is_none());
    let ns = r.namespace("ns").unwrap();
    assert!(ns.get(0, "pmix.rank").is_some());
    assert!(ns.get(0, "no.such.key").is_none());
    assert!(ns.get(10, "pmix.rank").is_none(), "rank past the end");
    assert!(ns.get(RANK_UNDEF, "pmix.rank").is_none());
    assert!(ns.get(u32::MAX / 2, "pmix.rank").is_none());
    assert!(
        ns.get(RANK_WILDCARD, "pmix.rank").is_none(),
        "not job-level"
    );
    assert!(ns.job("pmix.rank").is_none());
    assert!(ns.app(2, "pmix.app.size").is_none());
    assert!(ns.app(1, "pmix.rank").is_none());
    assert!(ns.node(NodeSel::Id(11), "pmix.local.size").is_none());
    assert!(ns
        .node(NodeSel::Hostname("node9"), "pmix.local.size")
        .is_none());
    assert!(ns.node(NodeSel::Hostname(""), "pmix.local.size").is_none());
    assert!(
        ns.posted(0, Scopes::ALL, "btl.addr").is_none(),
        "no modex yet"
    );
    assert!(ns.get(0, "").is_none());
    // Present ones, for contrast.
    assert_eq!(
        ns.node(NodeSel::Hostname("node2"), "pmix.local.size")
            .unwrap()
            .as_u32(),
        Some(3)
    );
    assert_eq!(
        ns.node(NodeSel::Id(20), "pmix.local.size")
            .unwrap()
            .as_u32(),
        Some(3)
    );
    assert_eq!(ns.app(1, "pmix.app.size").unwrap().as_u32(), Some(5));
    assert_eq!(ns.session("pmix.session.id").unwrap().as_u32(), Some(77));
}

#[test]
fn get_order_proc_then_posted_then_job() {
    let dir = Directory::new();
    dir.publish_job("ns", open_sealed(small_job("ns", 8, 1)));
    dir.publish_modex("ns", open_sealed(small_modex("ns", 8, 1)));
    let r = dir.reader();
    let ns = r.namespace("ns").unwrap();
    // Proc realm.
    assert_eq!(ns.get(3, "pmix.rank").unwrap().as_u32(), Some(3));
    // Posted data, any scope.
    assert_eq!(
        ns.get(3, "shm.seg").unwrap().as_c_str().unwrap().to_bytes(),
        b"/dev/shm/3"
    );
    assert!(matches!(ns.get(3, "btl.addr"), Some(ValueRef::ByteObject(b)) if b == [3u8; 16]));
    // Job-level key asked with a rank.
    assert_eq!(ns.get(3, "pmix.job.size").unwrap().as_u32(), Some(8));
    // Scope filtering.
    assert!(ns.posted(3, Scopes::LOCAL_PEER, "net.ep").is_none());
    assert!(ns.posted(3, Scopes::REMOTE_PEER, "net.ep").is_some());
    assert!(ns.posted(3, Scopes::REMOTE_PEER, "shm.seg").is_none());
    // A later modex wins over an earlier one.
    drop(r);
    dir.publish_modex("ns", open_sealed(small_modex("ns", 8, 2)));
    let r = dir.reader();
    let v = r.get("ns", 3, "net.ep").unwrap();
    assert!(matches!(v, ValueRef::Uint64(x) if x == 2 << 32 | 3));
    assert_eq!(r.namespace("ns").unwrap().modex_segments().len(), 2);
}

#[test]
fn empty_segment_and_handles() {
    let seg = Arc::new(
        SegmentBuilder::new("empty")
            .unwrap()
            .build()
            .unwrap()
            .open()
            .unwrap(),
    );
    seg.validate_all().unwrap();
    assert_eq!(seg.block_count(), 0);
    let dir = Directory::new();
    assert!(dir.handle("empty").is_none());
    dir.publish_job("empty", seg);
    let h = dir.handle("empty").unwrap();
    let r = dir.reader();
    let v = r.view(&h).unwrap();
    assert!(v.get(0, "x").is_none());
    assert!(v.get(RANK_WILDCARD, "x").is_none());
    assert!(dir.remove("empty"));
    assert!(!dir.remove("empty"));
    // The handle keeps the slot alive for the reader.
    assert!(r.view(&h).is_some());
    drop(r);
    assert!(dir.reader().namespace("empty").is_none());
}

#[test]
fn builder_rejects_bad_names() {
    assert!(SegmentBuilder::new(&"n".repeat(256)).is_err());
    assert!(SegmentBuilder::new("a\0b").is_err());
    let mut b = SegmentBuilder::new("ok").unwrap();
    assert!(b.job("", StoredValue::Undef).is_err());
    assert!(b.job(&"k".repeat(512), StoredValue::Undef).is_err());
    assert!(b.job("a\0", StoredValue::Undef).is_err());
    assert!(b.proc(u32::MAX - 1, "k", StoredValue::Undef).is_err());
    assert!(b.node_hostname(1, "h\0").is_err());
    assert!(b.job(&"k".repeat(511), StoredValue::Undef).is_ok());
}

#[test]
fn all_entries_of_a_row() {
    let job = small_job("ent", 6, 4).build().unwrap().open().unwrap();
    let keys = |realm: Realm<'_>| -> Vec<String> {
        job.row_entries(realm)
            .unwrap()
            .map(|e| e.unwrap().0.to_str().unwrap().to_owned())
            .collect()
    };
    let mut proc_keys = keys(Realm::Proc(5));
    proc_keys.sort();
    assert_eq!(
        proc_keys,
        [
            "pmix.hname",
            "pmix.lrank",
            "pmix.nodeid",
            "pmix.rank",
            "val"
        ]
    );
    let v: Vec<_> = job
        .row_entries(Realm::Proc(5))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let rank = v
        .iter()
        .find(|(k, _)| k.to_bytes() == b"pmix.rank")
        .unwrap()
        .1;
    assert_eq!(rank.as_u32(), Some(5));
    assert_eq!(keys(Realm::Job).len(), 3);
    assert_eq!(keys(Realm::Session), ["pmix.session.id"]);
    assert_eq!(keys(Realm::App(1)).len(), 2);
    assert_eq!(keys(Realm::Node(NodeSel::Hostname("node2"))).len(), 2);
    assert!(keys(Realm::Proc(6)).is_empty());
    assert!(keys(Realm::App(9)).is_empty());
    assert!(keys(Realm::Posted(0, Scope::Global)).is_empty());
    let modex = small_modex("ent", 6, 4).build().unwrap().open().unwrap();
    let posted: Vec<_> = modex
        .row_entries(Realm::Posted(2, Scope::Local))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(posted.len(), 1);
    assert_eq!(posted[0].0.to_bytes(), b"shm.seg");
    assert_eq!(posted[0].1.as_c_str().unwrap().to_bytes(), b"/dev/shm/2");
}

#[test]
fn all_entries_of_a_rank_across_segments() {
    let job = small_job("ra", 6, 1).build().unwrap().seal().unwrap();
    let old = small_modex("ra", 6, 2).build().unwrap().seal().unwrap();
    let mut b = SegmentBuilder::new("ra").unwrap();
    b.generation(3);
    b.posted(2, Scope::Global, "btl.addr", StoredValue::Uint32(9))
        .unwrap();
    b.posted(2, Scope::Local, "new.key", StoredValue::string("n"))
        .unwrap();
    let new = b.build().unwrap().seal().unwrap();
    let dir = Directory::new();
    let open = |s: &SealedSegment| Arc::new(Segment::from_fd(s.fd()).unwrap());
    dir.publish_job("ra", open(&job));
    dir.publish_modex("ra", open(&old));
    dir.publish_modex("ra", open(&new));
    let r = dir.reader();
    let ns = r.namespace("ra").unwrap();
    let e = ns.rank_entries(2).unwrap();
    let mut keys: Vec<&str> = e.iter().map(|(k, _)| k.to_str().unwrap()).collect();
    // Each key once, posted data first.
    let posted: Vec<&str> = keys[..4].to_vec();
    for k in ["btl.addr", "new.key", "shm.seg", "net.ep"] {
        assert!(posted.contains(&k), "{k} in {posted:?}");
    }
    keys.sort();
    let n = keys.len();
    keys.dedup();
    assert_eq!(keys.len(), n, "duplicates");
    for k in ["pmix.rank", "pmix.lrank", "pmix.hname"] {
        assert!(keys.contains(&k), "{k} in {keys:?}");
    }
    // The newest modex hides the older post of the same key.
    let addr = e.iter().find(|(k, _)| k.to_bytes() == b"btl.addr").unwrap();
    assert_eq!(addr.1.as_u32(), Some(9));
    let rank = e
        .iter()
        .find(|(k, _)| k.to_bytes() == b"pmix.rank")
        .unwrap();
    assert_eq!(rank.1.as_u32(), Some(2));
    assert!(ns.rank_entries(RANK_WILDCARD).unwrap().is_empty());
    assert!(ns.rank_entries(60).unwrap().is_empty());
}
