//! The core codec writes the bytes OpenPMIx 4.2.2 writes.
//!
//! `tests/c/buffer_vectors.c` packs named cases with `PMIx_Data_pack`; this
//! test builds the same cases as [`Value`]s, packs them with the core codec
//! and requires identical bytes and status. When the reference library is
//! installed the C program is built and run against it (and its output must
//! also equal the recorded copy); otherwise the recorded copy,
//! `tests/data/codec/buffer_vectors.txt`, produced by that program, is
//! used. Every case is also unpacked from the reference's bytes and
//! compared with what was packed (minus the fields that do not travel).

mod common;

use std::collections::BTreeMap;
use std::ffi::CString;
use std::process::Command;

use pmix::codec::{self, Buffer, CodecError};
use pmix::value::*;
use pmix::{DataType, Info, InfoDirectives, Key, Nspace, Proc, Rank, Value};

fn cs(s: &str) -> CString {
    CString::new(s).unwrap()
}
fn os(s: &str) -> OptString {
    Some(cs(s))
}
fn proc_(ns: &str, r: u32) -> Proc {
    Proc::new(Nspace::new(ns).unwrap(), Rank(r))
}
fn info(k: &str, flags: u32, v: Value) -> Info {
    Info {
        key: Key::new(k).unwrap(),
        flags: InfoDirectives(flags),
        value: v,
    }
}
fn infos() -> Vec<Info> {
    vec![
        info("pmix.timeout", 1, Value::Int(5)),
        info("my.key", 0, Value::string("v")),
        info("k3", 2, Value::Undef),
    ]
}
fn darr(t: DataType, items: Vec<Value>) -> Value {
    Value::DataArray(Box::new(DataArray {
        elem_type: t,
        items,
    }))
}
fn coords() -> Vec<Coord> {
    vec![
        Coord {
            view: 1,
            coord: vec![1, 2, 3],
        },
        Coord {
            view: 2,
            coord: vec![],
        },
    ]
}

/// The cases of `buffer_vectors.c`: name, declared type, items.
fn cases() -> Vec<(&'static str, DataType, Vec<Value>)> {
    use DataType as T;
    use Value as V;
    let tv = |sec, usec| Timeval { sec, usec };
    vec![
        ("bool", T::Bool, vec![V::Bool(true), V::Bool(false)]),
        (
            "byte",
            T::Byte,
            vec![V::Byte(0), V::Byte(0x7f), V::Byte(0xff)],
        ),
        (
            "string",
            T::String,
            vec![V::string("hello"), V::string(""), V::String(None)],
        ),
        (
            "size",
            T::Size,
            vec![V::Size(0), V::Size(300), V::Size(usize::MAX)],
        ),
        ("pid", T::Pid, vec![V::Pid(0), V::Pid(1234), V::Pid(-5)]),
        (
            "int",
            T::Int,
            vec![V::Int(0), V::Int(-1), V::Int(i32::MAX), V::Int(i32::MIN)],
        ),
        (
            "int8",
            T::Int8,
            vec![V::Int8(-128), V::Int8(127), V::Int8(0)],
        ),
        (
            "int16",
            T::Int16,
            vec![V::Int16(-32768), V::Int16(32767), V::Int16(-1)],
        ),
        (
            "int32",
            T::Int32,
            vec![
                V::Int32(0x0102_0304),
                V::Int32(i32::MIN),
                V::Int32(63),
                V::Int32(-64),
            ],
        ),
        (
            "int64",
            T::Int64,
            vec![V::Int64(i64::MIN), V::Int64(i64::MAX), V::Int64(-2)],
        ),
        (
            "uint",
            T::Uint,
            vec![V::Uint(0), V::Uint(u32::MAX), V::Uint(7)],
        ),
        ("uint8", T::Uint8, vec![V::Uint8(0), V::Uint8(255)]),
        (
            "uint16",
            T::Uint16,
            vec![V::Uint16(65535), V::Uint16(128), V::Uint16(127)],
        ),
        (
            "uint32",
            T::Uint32,
            vec![V::Uint32(u32::MAX), V::Uint32(127), V::Uint32(128)],
        ),
        (
            "uint64",
            T::Uint64,
            vec![
                V::Uint64(u64::MAX),
                V::Uint64(1 << 56),
                V::Uint64((1 << 56) - 1),
                V::Uint64(0),
            ],
        ),
        (
            "float",
            T::Float,
            vec![
                V::Float(std::f32::consts::PI),
                V::Float(-0.5),
                V::Float(1e38),
                V::Float(0.0),
            ],
        ),
        (
            "double",
            T::Double,
            vec![
                V::Double(0.0078125),
                V::Double(-1234.5678),
                V::Double(1e300),
            ],
        ),
        (
            "timeval",
            T::Timeval,
            vec![V::Timeval(tv(1, 2)), V::Timeval(tv(-5, 999_999))],
        ),
        ("time", T::Time, vec![V::Time(0), V::Time(1_700_000_000)]),
        (
            "status",
            T::Status,
            vec![V::Status(0), V::Status(-46), V::Status(1)],
        ),
        ("persist", T::Persist, vec![V::Persist(1), V::Persist(4)]),
        ("scope", T::Scope, vec![V::Scope(0), V::Scope(3)]),
        (
            "data_range",
            T::DataRange,
            vec![V::DataRange(1), V::DataRange(255)],
        ),
        ("command", T::Command, vec![V::Command(7)]),
        (
            "info_directives",
            T::InfoDirectives,
            vec![V::InfoDirectives(1), V::InfoDirectives(0x8000_0000)],
        ),
        (
            "data_type",
            T::DataType,
            vec![V::DataType(3), V::DataType(65), V::DataType(300)],
        ),
        (
            "proc_state",
            T::ProcState,
            vec![V::ProcState(0), V::ProcState(50)],
        ),
        (
            "proc_rank",
            T::ProcRank,
            vec![
                V::ProcRank(0),
                V::ProcRank(Rank::WILDCARD.0),
                V::ProcRank(1000),
            ],
        ),
        (
            "alloc_directive",
            T::AllocDirective,
            vec![V::AllocDirective(2)],
        ),
        (
            "iof_channel",
            T::IofChannel,
            vec![V::IofChannel(1), V::IofChannel(0xffff)],
        ),
        ("job_state", T::JobState, vec![V::JobState(3)]),
        ("link_state", T::LinkState, vec![V::LinkState(1)]),
        (
            "devtype",
            T::DevType,
            vec![V::DevType(1 << 63), V::DevType(5)],
        ),
        (
            "loctype",
            T::LocType,
            vec![V::LocType(0x4000), V::LocType(0)],
        ),
        ("stor_medium", T::StorMedium, vec![V::StorMedium(0x10)]),
        ("stor_access", T::StorAccess, vec![V::StorAccess(0x3)]),
        ("stor_persist", T::StorPersist, vec![V::StorPersist(0x40)]),
        (
            "stor_access_type",
            T::StorAccessType,
            vec![V::StorAccessType(0x2)],
        ),
        (
            "pointer",
            T::Pointer,
            vec![V::Pointer(1), V::Pointer(0), V::Pointer(1)],
        ),
        ("pointer_none", T::Pointer, vec![]),
        ("int32_none", T::Int32, vec![]),
        ("undef", T::Undef, vec![V::Undef]),
        (
            "proc",
            T::Proc,
            vec![
                V::Proc(proc_("ns1", 0)),
                V::Proc(proc_("a-longer-namespace", Rank::WILDCARD.0)),
            ],
        ),
        (
            "proc_nspace",
            T::ProcNspace,
            vec![
                V::ProcNspace(Nspace::new("nsA").unwrap()),
                V::ProcNspace(Nspace::new("").unwrap()),
            ],
        ),
        (
            "byte_object",
            T::ByteObject,
            vec![V::ByteObject(b"abc".to_vec()), V::ByteObject(vec![])],
        ),
        (
            "compressed_string",
            T::CompressedString,
            vec![V::CompressedString(b"abc".to_vec())],
        ),
        (
            "compressed_byte_object",
            T::CompressedByteObject,
            vec![V::CompressedByteObject(b"abc".to_vec())],
        ),
        (
            "value",
            T::Value,
            [
                V::Int32(-7),
                V::string("str"),
                V::Undef,
                V::Proc(proc_("vns", 3)),
                V::Bool(true),
                V::ByteObject(b"xy".to_vec()),
                darr(T::Uint8, vec![V::Uint8(9), V::Uint8(8), V::Uint8(7)]),
                V::Size(4096),
                V::Double(2.5),
                V::Envar(Envar {
                    envar: os("E"),
                    value: os("v"),
                    separator: b':',
                }),
                V::ProcRank(5),
                V::Pid(77),
            ]
            .into_iter()
            .map(|v| V::Value(Box::new(v)))
            .collect(),
        ),
        (
            "info",
            T::Info,
            infos().into_iter().map(|i| V::Info(Box::new(i))).collect(),
        ),
        (
            "pdata",
            T::PData,
            vec![V::PData(Box::new(PData {
                proc: proc_("pdns", 2),
                key: Key::new("pub.key").unwrap(),
                value: V::Uint64(1 << 40),
            }))],
        ),
        (
            "app",
            T::App,
            vec![
                V::App(Box::new(App {
                    cmd: os("/bin/true"),
                    argv: vec![cs("true"), cs("-x")],
                    env: vec![cs("A=1")],
                    cwd: os("/tmp"),
                    maxprocs: 4,
                    info: infos()[..2].to_vec(),
                })),
                V::App(Box::default()),
            ],
        ),
        (
            "proc_info",
            T::ProcInfo,
            vec![V::ProcInfo(Box::new(ProcInfo {
                proc: proc_("pins", 1),
                hostname: os("node01"),
                executable_name: os("a.out"),
                pid: 42,
                exit_code: 3,
                state: 5,
            }))],
        ),
        ("data_array", T::DataArray, {
            let u32s = || darr(T::Uint32, vec![V::Uint32(1), V::Uint32(2), V::Uint32(300)]);
            let strs = || darr(T::String, vec![V::string("a"), V::String(None)]);
            vec![
                u32s(),
                strs(),
                darr(
                    T::Info,
                    infos()[..2]
                        .iter()
                        .cloned()
                        .map(|i| V::Info(Box::new(i)))
                        .collect(),
                ),
                darr(T::DataArray, vec![u32s(), strs()]),
                darr(T::Undef, vec![]),
            ]
        }),
        (
            "query",
            T::Query,
            vec![
                V::Query(Box::new(Query {
                    keys: vec![cs("k1"), cs("k2")],
                    qualifiers: infos()[..1].to_vec(),
                })),
                V::Query(Box::default()),
            ],
        ),
        (
            "envar",
            T::Envar,
            vec![
                V::Envar(Envar {
                    envar: os("PATH"),
                    value: os("/bin"),
                    separator: b':',
                }),
                V::Envar(Envar::default()),
            ],
        ),
        (
            "coord",
            T::Coord,
            coords()
                .into_iter()
                .map(|c| V::Coord(Box::new(c)))
                .collect(),
        ),
        (
            "regattr",
            T::RegAttr,
            vec![
                V::RegAttr(Box::new(RegAttr {
                    name: os("n"),
                    string: Key::new("pmix.key").unwrap(),
                    data_type: 9,
                    description: vec![cs("d1"), cs("d2")],
                })),
                V::RegAttr(Box::new(RegAttr {
                    string: Key::new("k").unwrap(),
                    ..Default::default()
                })),
            ],
        ),
        (
            "regex",
            T::Regex,
            vec![
                V::Regex(b"pmix[node[1-3]]\0".to_vec()),
                V::Regex(b"raw:a,b\0".to_vec()),
            ],
        ),
        (
            "cpuset_unbound",
            T::ProcCpuset,
            vec![V::Cpuset(Box::new(Cpuset {
                source: os("hwloc"),
                bitmap: None,
            }))],
        ),
        (
            "geometry",
            T::Geometry,
            vec![V::Geometry(Box::new(Geometry {
                fabric: 7,
                uuid: os("u-1"),
                osname: os("eth0"),
                coordinates: coords(),
            }))],
        ),
        (
            "device_dist",
            T::DeviceDist,
            vec![V::DeviceDist(Box::new(DeviceDistance {
                uuid: os("dev"),
                osname: None,
                dev_type: 4,
                mindist: 1,
                maxdist: 65535,
            }))],
        ),
        (
            "endpoint",
            T::Endpoint,
            vec![V::Endpoint(Box::new(Endpoint {
                uuid: os("e"),
                osname: os("ib0"),
                endpt: vec![1, 2],
            }))],
        ),
        (
            "proc_stats",
            T::ProcStats,
            vec![V::ProcStats(Box::new(ProcStats {
                node: os("n1"),
                proc: proc_("psns", 4),
                pid: 999,
                cmd: os("cmd"),
                state: b'R',
                time: tv(10, 20),
                percent_cpu: 1.5,
                priority: -3,
                num_threads: 4,
                pss: 1.25,
                vsize: 2.5,
                rss: 3.75,
                peak_vsize: 9.0,
                processor: 2,
                sample_time: tv(30, 40),
            }))],
        ),
        (
            "disk_stats",
            T::DiskStats,
            vec![V::DiskStats(Box::new(DiskStats {
                disk: os("sda"),
                num_reads_completed: 1,
                num_reads_merged: 2,
                num_sectors_read: 3,
                milliseconds_reading: 4,
                num_writes_completed: 5,
                num_writes_merged: 6,
                num_sectors_written: 7,
                milliseconds_writing: 8,
                num_ios_in_progress: 9,
                milliseconds_io: 10,
                weighted_milliseconds_io: u64::MAX,
            }))],
        ),
        (
            "net_stats",
            T::NetStats,
            vec![V::NetStats(Box::new(NetStats {
                net_interface: os("eth0"),
                num_bytes_recvd: 1,
                num_packets_recvd: 2,
                num_recv_errs: 3,
                num_bytes_sent: 4,
                num_packets_sent: 5,
                num_send_errs: 300,
            }))],
        ),
        (
            "node_stats",
            T::NodeStats,
            vec![V::NodeStats(Box::new(NodeStats {
                node: os("nodeX"),
                la: 0.5,
                la5: 0.25,
                la15: 0.125,
                total_mem: 1024.0,
                free_mem: 512.0,
                buffers: 1.0,
                cached: 2.0,
                swap_cached: 3.0,
                swap_total: 4.0,
                swap_free: 5.0,
                mapped: 6.0,
                sample_time: tv(7, 8),
                diskstats: vec![],
                netstats: vec![],
            }))],
        ),
        (
            "data_buffer",
            T::DataBuffer,
            vec![V::DataBuffer(b"xyz".to_vec()), V::DataBuffer(vec![])],
        ),
    ]
}

/// What unpacking the packed form gives back: the input minus the fields
/// that do not travel and with floats through their `%f` text.
fn expected_after_round_trip(v: &Value) -> Value {
    let f =
        |x: f32| pmix::codec::float::parse_f32(pmix::codec::float::format_f(x.into()).as_bytes());
    match v {
        Value::Float(x) => Value::Float(f(*x)),
        Value::Double(x) => Value::Double(pmix::codec::float::parse_f64(
            pmix::codec::float::format_f(*x).as_bytes(),
        )),
        Value::Value(inner) => Value::Value(Box::new(expected_after_round_trip(inner))),
        Value::Pointer(_) => Value::Pointer(0),
        Value::ProcInfo(p) => Value::ProcInfo(Box::new(ProcInfo {
            exit_code: 0,
            ..(**p).clone()
        })),
        Value::ProcStats(s) => Value::ProcStats(Box::new(ProcStats {
            percent_cpu: 0.0,
            peak_vsize: 0.0,
            ..(**s).clone()
        })),
        Value::DataArray(d) => Value::DataArray(Box::new(DataArray {
            elem_type: d.elem_type,
            items: d.items.iter().map(expected_after_round_trip).collect(),
        })),
        other => other.clone(),
    }
}

/// Parses `name status hex` lines.
fn parse(text: &str) -> BTreeMap<String, (i32, Vec<u8>)> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut it = l.split(' ');
            let name = it.next().unwrap().to_string();
            let rc: i32 = it.next().unwrap().parse().unwrap();
            let hex = it.next().unwrap_or("");
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            (name, (rc, bytes))
        })
        .collect()
}

fn recorded_path() -> std::path::PathBuf {
    common::root().join("tests/data/codec/buffer_vectors.txt")
}

/// Runs the C program against the reference, if it is installed, with
/// `buffer_type` as `PMIX_BFROP_BUFFER_TYPE` when given.
fn reference_output(buffer_type: Option<&str>) -> Option<String> {
    let (inc, lib) = common::reference_pmix()?;
    let dir = common::scratch(&format!(
        "codec_vectors_{}",
        buffer_type.unwrap_or("default")
    ));
    let exe = dir.join("buffer_vectors");
    let src = common::root().join("tests/c/buffer_vectors.c");
    common::compile_c(&[&src], &exe, &inc, &lib, &["-lhwloc"]);
    let mut cmd = Command::new(&exe);
    cmd.env("LD_LIBRARY_PATH", &lib);
    if let Some(t) = buffer_type {
        cmd.env("PMIX_BFROP_BUFFER_TYPE", t);
    }
    let out = cmd.output().expect("run buffer_vectors");
    assert!(
        out.status.success(),
        "buffer_vectors failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

fn vectors() -> BTreeMap<String, (i32, Vec<u8>)> {
    static V: std::sync::OnceLock<BTreeMap<String, (i32, Vec<u8>)>> = std::sync::OnceLock::new();
    V.get_or_init(load_vectors).clone()
}

fn load_vectors() -> BTreeMap<String, (i32, Vec<u8>)> {
    let recorded = std::fs::read_to_string(recorded_path()).expect("recorded vectors");
    let recorded_map = parse(&recorded);
    match reference_output(None) {
        Some(live) => {
            let mut live_map = parse(&live);
            let topo = live_map.remove("topology");
            assert_eq!(
                live_map, recorded_map,
                "the reference's bytes differ from the recorded copy"
            );
            if let Some(t) = topo {
                live_map.insert("topology".into(), t);
            }
            live_map
        }
        None => {
            eprintln!("reference OpenPMIx not installed: using the recorded vectors");
            recorded_map
        }
    }
}

/// Packs every case in `fmt` and compares status and bytes with the
/// reference's `vectors`; returns how many cases it checked, and hands
/// each case that packed to `then` with the reference's bytes.
fn check_packing(
    vectors: &BTreeMap<String, (i32, Vec<u8>)>,
    fmt: codec::Format,
    mut then: impl FnMut(&str, DataType, &[Value], &[u8]),
) -> usize {
    let mut checked = 0;
    for (name, ty, items) in cases() {
        let (rc, want) = vectors
            .get(name)
            .unwrap_or_else(|| panic!("no vector for {name}"));
        let mut buf = Buffer::new();
        let status = match fmt.pack(&mut buf, ty, &items) {
            Ok(()) => 0,
            Err(e) => e.status().code(),
        };
        assert_eq!(status, *rc, "{name}: status");
        // What a failing pack leaves written counts too.
        assert_eq!(
            buf.as_bytes(),
            &want[..],
            "{name}: bytes\n ours {:02x?}\n ref  {:02x?}",
            buf.as_bytes(),
            want
        );
        if *rc == 0 {
            then(name, ty, &items, want);
        }
        checked += 1;
    }
    checked
}

#[test]
fn packed_bytes_match_the_reference() {
    let vectors = vectors();
    let checked = check_packing(&vectors, codec::Format::DATA_PACK, |_, _, _, _| {});
    assert_eq!(
        checked,
        vectors.len() - usize::from(vectors.contains_key("topology"))
    );
}

#[test]
fn reference_bytes_unpack_to_the_values() {
    let vectors = vectors();
    for (name, ty, items) in cases() {
        let (rc, bytes) = &vectors[name];
        if *rc != 0 {
            continue;
        }
        let mut buf = Buffer::from_bytes(bytes.clone());
        let max = items.len().max(1);
        let got = codec::unpack(&mut buf, ty, max).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(buf.remaining(), 0, "{name}: unread bytes");
        let want: Vec<Value> = items.iter().map(expected_after_round_trip).collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn reference_topology_round_trips() {
    let vectors = vectors();
    let Some((0, bytes)) = vectors.get("topology") else {
        eprintln!("no topology vector (reference not installed)");
        return;
    };
    let mut buf = Buffer::from_bytes(bytes.clone());
    let got = codec::unpack(&mut buf, DataType::Topo, 1).unwrap();
    assert_eq!(buf.remaining(), 0);
    let Value::Topology(t) = &got[0] else {
        panic!("not a topology")
    };
    assert!(t.xml.as_ref().unwrap().to_bytes().starts_with(b"<?xml"));
    let mut again = Buffer::new();
    codec::pack(&mut again, &got).unwrap();
    assert_eq!(
        again.as_bytes(),
        &bytes[..],
        "support flags differ from this host's"
    );
}

#[test]
fn undef_fails_after_the_count() {
    let mut buf = Buffer::new();
    assert_eq!(
        codec::pack_typed(&mut buf, DataType::Undef, &[Value::Undef]),
        Err(CodecError::UnknownType(0))
    );
    assert_eq!(buf.as_bytes(), [0x02]);
}

/// The reference decompresses what `zlib_frame` makes (the format of
/// `PMIx_Data_compress`), at several sizes.
#[test]
fn reference_decompresses_our_frames() {
    let Some((inc, lib)) = common::reference_pmix() else {
        eprintln!("reference OpenPMIx not installed: skipped");
        return;
    };
    let dir = common::scratch("codec_decompress");
    let exe = dir.join("buffer_decompress");
    let src = common::root().join("tests/c/buffer_decompress.c");
    common::compile_c(&[&src], &exe, &inc, &lib, &[]);
    for n in [0usize, 1, 100, 4096, 300_000] {
        let data: Vec<u8> = (0..n)
            .map(|i| (i * 7 % 251) as u8 ^ (i / 1000) as u8)
            .collect();
        let framed = codec::zlib_frame(&data).unwrap();
        assert_eq!(codec::decompress(&framed).unwrap(), data);
        let file = dir.join(format!("block-{n}"));
        std::fs::write(&file, &framed).unwrap();
        let out = Command::new(&exe)
            .arg(&file)
            .env("LD_LIBRARY_PATH", &lib)
            .output()
            .unwrap();
        assert!(out.status.success());
        let hash = data.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            format!("true {n} {hash:016x}"),
            "size {n}"
        );
    }
}

/// The reference's fully described buffers (`PMIx_Data_pack` with
/// `PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_FULLY_DESC`), recorded in
/// `tests/data/codec/buffer_vectors_described.txt` and, when the reference
/// is installed, produced live by `buffer_vectors.c` and compared with the
/// recorded copy.
fn described_vectors() -> BTreeMap<String, (i32, Vec<u8>)> {
    let path = common::root().join("tests/data/codec/buffer_vectors_described.txt");
    let recorded = parse(&std::fs::read_to_string(path).expect("recorded described vectors"));
    if let Some(out) = reference_output(Some("PMIX_BFROP_BUFFER_FULLY_DESC")) {
        let mut live = parse(&out);
        live.remove("topology");
        assert_eq!(
            live, recorded,
            "the reference's described bytes differ from the recorded copy"
        );
    }
    recorded
}

/// Fully described mode (`codec::Format`) writes, case for case, the bytes
/// and status of the reference's fully described `PMIx_Data_pack`, and
/// reads the reference's described bytes back to the values.
#[test]
fn described_bytes_match_the_reference() {
    let vectors = described_vectors();
    let fmt = codec::Format {
        module: codec::Module::V41,
        described: true,
    };
    let checked = check_packing(&vectors, fmt, |name, ty, items, want| {
        let mut back = Buffer::from_bytes(want.to_vec());
        let got = fmt
            .unpack(&mut back, ty, items.len().max(1))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back.remaining(), 0, "{name}: unread bytes");
        let expected: Vec<Value> = items.iter().map(expected_after_round_trip).collect();
        assert_eq!(got, expected, "{name}");
    });
    assert_eq!(checked, vectors.len());
}
