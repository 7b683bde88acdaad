//! Shared fixtures of the shmem tests.
#![allow(dead_code)]

use pmix_shmem::*;

pub fn s(x: &str) -> StrZ {
    StrZ::new(x).unwrap()
}

fn tv(sec: i64, usec: i64) -> StoredTimeval {
    StoredTimeval { sec, usec }
}

fn proc_(ns: &str, rank: u32) -> StoredProc {
    StoredProc {
        nspace: s(ns),
        rank,
    }
}

fn info(key: &str, v: StoredValue) -> StoredInfo {
    StoredInfo {
        key: s(key),
        flags: 1,
        value: v,
    }
}

/// One value of every PMIx data type, several of some (NULL strings, empty
/// and nested arrays, packed arrays of every packable type).
pub fn every_value() -> Vec<StoredValue> {
    use StoredValue as V;
    let mut v = vec![
        V::Undef,
        V::Bool(true),
        V::Bool(false),
        V::Byte(0xAB),
        V::string("hello"),
        V::string(""),
        V::String(None),
        V::Size(u64::MAX - 3),
        V::Pid(-12345),
        V::Int(-7),
        V::Int8(-128),
        V::Int16(-32000),
        V::Int32(i32::MIN),
        V::Int64(i64::MIN + 1),
        V::Uint(4_000_000_000),
        V::Uint8(255),
        V::Uint16(65535),
        V::Uint32(0xDEAD_BEEF),
        V::Uint64(0x0123_4567_89AB_CDEF),
        V::Float(-1.5e-3),
        V::Double(std::f64::consts::PI),
        V::Timeval(tv(1_700_000_000, 999_999)),
        V::Time(-86400),
        V::Status(-46),
        V::Value(Box::new(V::string("nested"))),
        V::Value(Box::new(V::Value(Box::new(V::Uint16(9))))),
        V::Proc(proc_("ns-a", 42)),
        V::App(Box::new(StoredApp {
            cmd: Some(s("/bin/true")),
            argv: vec![s("true"), s("-x")],
            env: vec![s("A=1")],
            cwd: None,
            maxprocs: 4,
            info: vec![info("pmix.app.key", V::Uint32(3))],
        })),
        V::Info(Box::new(info(
            "pmix.info",
            V::array(tag::STRING, vec![V::string("a"), V::string("b")]),
        ))),
        V::PData(Box::new(StoredPData {
            proc: proc_("ns-b", 1),
            key: s("k"),
            value: V::ByteObject(vec![1, 2, 3]),
        })),
        V::ByteObject(vec![0, 1, 2, 255, 0]),
        V::ByteObject(vec![]),
        V::Kval(Box::new(StoredKval {
            key: Some(s("kv")),
            value: Some(Box::new(V::Int64(-1))),
        })),
        V::Kval(Box::new(StoredKval {
            key: None,
            value: None,
        })),
        V::Persist(2),
        V::Pointer(0xFFFF_0000_1234),
        V::Scope(3),
        V::DataRange(5),
        V::Command(17),
        V::InfoDirectives(0x8000_0001),
        V::DataType(39),
        V::ProcState(7),
        V::ProcInfo(Box::new(StoredProcInfo {
            proc: proc_("ns-c", 9),
            hostname: Some(s("host9")),
            executable_name: None,
            pid: 4321,
            exit_code: -1,
            state: 3,
        })),
        V::ProcRank(u32::MAX - 1),
        V::Query(Box::new(StoredQuery {
            keys: vec![s("q1"), s("q2")],
            qualifiers: vec![info("pmix.nspace", V::string("x"))],
        })),
        V::CompressedString(vec![0x78, 0x9c, 1, 2]),
        V::AllocDirective(2),
        V::IofChannel(0x0F),
        V::Envar(Box::new(StoredEnvar {
            envar: Some(s("PATH")),
            value: Some(s("/bin")),
            separator: b':',
        })),
        V::Coord(Box::new(StoredCoord {
            view: 1,
            coord: vec![1, 2, 3],
        })),
        V::RegAttr(Box::new(StoredRegAttr {
            name: Some(s("PMIX_X")),
            string: s("pmix.x"),
            data_type: 3,
            description: vec![s("line 1"), s("line 2")],
        })),
        V::Regex(b"pmix[3:0-7]\0junk".to_vec()),
        V::JobState(4),
        V::LinkState(1),
        V::Cpuset(Box::new(StoredCpuset {
            source: Some(s("hwloc")),
            bitmap: Some(s("0-3,8")),
        })),
        V::Geometry(Box::new(StoredGeometry {
            fabric: 7,
            uuid: Some(s("uuid")),
            osname: None,
            coordinates: vec![StoredCoord {
                view: 2,
                coord: vec![9],
            }],
        })),
        V::DeviceDist(Box::new(StoredDeviceDistance {
            uuid: None,
            osname: Some(s("mlx5_0")),
            dev_type: 0x10,
            mindist: 1,
            maxdist: 20,
        })),
        V::Endpoint(Box::new(StoredEndpoint {
            uuid: Some(s("u")),
            osname: None,
            endpt: vec![9; 33],
        })),
        V::Topology(Box::new(StoredTopology {
            source: Some(s("hwloc")),
            xml: Some(s("<topology/>")),
        })),
        V::DevType(0x40),
        V::LocType(0x0C),
        V::CompressedByteObject(vec![5, 4, 3]),
        V::ProcNspace(s("ns-d")),
        V::ProcStats(Box::new(StoredProcStats {
            node: Some(s("n1")),
            proc: proc_("ns-e", 2),
            pid: 77,
            cmd: Some(s("a.out")),
            state: 1,
            time: tv(1, 2),
            percent_cpu: 99.5,
            priority: -5,
            num_threads: 8,
            pss: 1.0,
            vsize: 2.0,
            rss: 3.0,
            peak_vsize: 4.0,
            processor: 3,
            sample_time: tv(3, 4),
        })),
        V::DiskStats(Box::new(StoredDiskStats {
            disk: Some(s("sda")),
            num_reads_completed: 1,
            weighted_milliseconds_io: 11,
            ..Default::default()
        })),
        V::NetStats(Box::new(StoredNetStats {
            net_interface: Some(s("eth0")),
            num_bytes_recvd: 1 << 40,
            num_send_errs: 6,
            ..Default::default()
        })),
        V::NodeStats(Box::new(StoredNodeStats {
            node: Some(s("n2")),
            la: 0.5,
            sample_time: tv(5, 6),
            diskstats: vec![StoredDiskStats::default()],
            netstats: vec![StoredNetStats::default(), StoredNetStats::default()],
            ..Default::default()
        })),
        V::DataBuffer(vec![1; 100]),
        V::StorMedium(1),
        V::StorAccess(2),
        V::StorPersist(4),
        V::StorAccessType(8),
    ];
    // Arrays: packed ones of every packable type, value arrays, nesting.
    let packable: Vec<StoredValue> = v
        .iter()
        .filter(|x| packed_width(x.data_type()).is_some())
        .cloned()
        .collect();
    for x in &packable {
        let t = x.data_type();
        v.push(V::array(t, vec![x.clone(), x.clone(), x.clone()]));
        v.push(V::array(t, vec![x.clone()]));
    }
    v.push(V::array(tag::UINT32, vec![]));
    v.push(V::array(
        tag::STRING,
        vec![V::string("x"), V::String(None), V::string("yz")],
    ));
    v.push(V::array(
        tag::DATA_ARRAY,
        vec![
            V::array(tag::INT16, vec![V::Int16(-1), V::Int16(2)]),
            V::array(
                tag::INFO,
                vec![V::Info(Box::new(info(
                    "deep",
                    V::array(tag::DOUBLE, vec![V::Double(1.0)]),
                )))],
            ),
        ],
    ));
    v.push(V::array(
        tag::VALUE,
        vec![
            V::Value(Box::new(V::Uint8(1))),
            V::Value(Box::new(V::string("v"))),
        ],
    ));
    // A mixed-type "array" cannot be packed: stored as values.
    v.push(V::array(tag::UINT32, vec![V::Uint32(1), V::Uint16(2)]));
    v
}

/// A small job segment: 2 apps, 3 nodes, `nranks` ranks with 5 keys each,
/// job and session keys.
pub fn small_job(nspace: &str, nranks: u32, generation: u64) -> SegmentBuilder {
    let mut b = SegmentBuilder::new(nspace).unwrap();
    b.generation(generation);
    b.rank_block_shift(2);
    b.session("pmix.session.id", StoredValue::Uint32(77))
        .unwrap();
    b.job("pmix.job.size", StoredValue::Uint32(nranks)).unwrap();
    b.job("gen", StoredValue::Uint64(generation)).unwrap();
    b.job("pmix.nsdir", StoredValue::string("/tmp/ns")).unwrap();
    for app in 0..2u32 {
        b.app(app, "pmix.app.size", StoredValue::Uint32(nranks / 2))
            .unwrap();
        b.app(
            app,
            "pmix.wdir",
            StoredValue::string(&format!("/work/app{app}")),
        )
        .unwrap();
    }
    for node in 0..3u32 {
        b.node_hostname(node * 10, &format!("node{node}")).unwrap();
        b.node(node * 10, "pmix.local.size", StoredValue::Uint32(node + 1))
            .unwrap();
        b.node(node * 10, "pmix.lpeers", StoredValue::string("0,1,2"))
            .unwrap();
    }
    for r in 0..nranks {
        b.proc(r, "pmix.rank", StoredValue::ProcRank(r)).unwrap();
        b.proc(r, "pmix.lrank", StoredValue::Uint16((r % 4) as u16))
            .unwrap();
        b.proc(
            r,
            "pmix.hname",
            StoredValue::string(&format!("node{}", r % 3)),
        )
        .unwrap();
        b.proc(r, "pmix.nodeid", StoredValue::Uint32((r % 3) * 10))
            .unwrap();
        b.proc(
            r,
            "val",
            StoredValue::Uint64(generation * 1_000_000 + u64::from(r)),
        )
        .unwrap();
    }
    b
}

/// A small modex segment: each rank posted three keys in three scopes.
pub fn small_modex(nspace: &str, nranks: u32, generation: u64) -> SegmentBuilder {
    let mut b = SegmentBuilder::new(nspace).unwrap();
    b.generation(generation);
    b.rank_block_shift(2);
    for r in 0..nranks {
        b.posted(
            r,
            Scope::Global,
            "btl.addr",
            StoredValue::ByteObject(vec![r as u8; 16]),
        )
        .unwrap();
        b.posted(
            r,
            Scope::Local,
            "shm.seg",
            StoredValue::string(&format!("/dev/shm/{r}")),
        )
        .unwrap();
        b.posted(
            r,
            Scope::Remote,
            "net.ep",
            StoredValue::Uint64(generation << 32 | u64::from(r)),
        )
        .unwrap();
    }
    b
}
