//! Property tests: every `Value` variant survives core -> C -> core, in
//! item form (arrays) and in value form (`pmix_value_t`), including data
//! arrays nested three deep (arrays of infos whose values are arrays, and
//! arrays of arrays), apps, queries and statistics. Every C object written
//! is released with the destructors, so leaks and double frees surface
//! under sanitizers too.

use std::ffi::CString;

use pmix_core::value::*;
use pmix_core::{DataType, Info, InfoDirectives, Key, Nspace, Proc, Rank, Value};
use proptest::prelude::*;

use super::*;

fn cstring() -> impl Strategy<Value = CString> {
    "[a-zA-Z0-9 ._:/=-]{0,12}".prop_map(|s| CString::new(s).unwrap())
}

fn opt_string() -> impl Strategy<Value = OptString> {
    proptest::option::of(cstring())
}

fn key() -> impl Strategy<Value = Key> {
    "[a-z][a-z0-9._]{0,30}".prop_map(|s| Key::new(s).unwrap())
}

fn nspace() -> impl Strategy<Value = Nspace> {
    "[a-z0-9._-]{0,40}".prop_map(|s| Nspace::new(s).unwrap())
}

fn proc_() -> impl Strategy<Value = Proc> {
    (nspace(), any::<u32>()).prop_map(|(n, r)| Proc::new(n, Rank(r)))
}

fn finite_f32() -> impl Strategy<Value = f32> {
    any::<f32>().prop_filter("finite", |x| x.is_finite())
}

fn timeval() -> impl Strategy<Value = Timeval> {
    (any::<i64>(), any::<i64>()).prop_map(|(sec, usec)| Timeval { sec, usec })
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..24)
}

fn coord() -> impl Strategy<Value = Coord> {
    (any::<u8>(), proptest::collection::vec(any::<u32>(), 0..4))
        .prop_map(|(view, coord)| Coord { view, coord })
}

/// A canonical hwloc list string (`0-2,5`) for a set of cpu indices.
fn cpu_list() -> impl Strategy<Value = CString> {
    proptest::collection::btree_set(0u32..70, 0..10).prop_map(|set| {
        let v: Vec<u32> = set.into_iter().collect();
        let mut parts = Vec::new();
        let mut i = 0;
        while i < v.len() {
            let mut j = i;
            while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
                j += 1;
            }
            parts.push(if i == j {
                v[i].to_string()
            } else {
                format!("{}-{}", v[i], v[j])
            });
            i = j + 1;
        }
        CString::new(parts.join(",")).unwrap()
    })
}

fn disk() -> impl Strategy<Value = DiskStats> {
    (opt_string(), proptest::array::uniform11(any::<u64>())).prop_map(|(disk, n)| DiskStats {
        disk,
        num_reads_completed: n[0],
        num_reads_merged: n[1],
        num_sectors_read: n[2],
        milliseconds_reading: n[3],
        num_writes_completed: n[4],
        num_writes_merged: n[5],
        num_sectors_written: n[6],
        milliseconds_writing: n[7],
        num_ios_in_progress: n[8],
        milliseconds_io: n[9],
        weighted_milliseconds_io: n[10],
    })
}

fn net() -> impl Strategy<Value = NetStats> {
    (opt_string(), proptest::array::uniform6(any::<u64>())).prop_map(|(net_interface, n)| {
        NetStats {
            net_interface,
            num_bytes_recvd: n[0],
            num_packets_recvd: n[1],
            num_recv_errs: n[2],
            num_bytes_sent: n[3],
            num_packets_sent: n[4],
            num_send_errs: n[5],
        }
    })
}

/// Item types (every type with a C item form).
fn item_types() -> Vec<DataType> {
    DataType::ALL
        .iter()
        .copied()
        .filter(|t| !matches!(t, DataType::Undef | DataType::Kval | DataType::Topo))
        .collect()
}

/// Types that have a member in a `pmix_value_t`.
fn in_value_form(t: DataType) -> bool {
    !matches!(
        t,
        DataType::Value
            | DataType::App
            | DataType::Info
            | DataType::PData
            | DataType::Query
            | DataType::Kval
            | DataType::Topo
    )
}

/// A value that fits in a `pmix_value_t`, nesting at most `depth` more
/// levels.
fn value_form(depth: u32) -> BoxedStrategy<Value> {
    let types: Vec<DataType> = item_types()
        .into_iter()
        .filter(|t| in_value_form(*t))
        .collect();
    proptest::sample::select(types)
        .prop_flat_map(move |t| value_of(t, depth))
        .boxed()
}

fn info(depth: u32) -> BoxedStrategy<Info> {
    // Persistent infos are never released by design: not generated.
    (key(), any::<u32>(), value_form(depth))
        .prop_map(|(key, flags, value)| Info {
            key,
            flags: InfoDirectives(flags & !0x10),
            value,
        })
        .boxed()
}

fn infos(depth: u32) -> BoxedStrategy<Vec<Info>> {
    proptest::collection::vec(info(depth), 0..3).boxed()
}

/// A value of type `t`, nesting at most `depth` more levels of arrays.
fn value_of(t: DataType, depth: u32) -> BoxedStrategy<Value> {
    use DataType as T;
    let d = depth.saturating_sub(1);
    match t {
        T::Undef => Just(Value::Undef).boxed(),
        T::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        T::Byte => any::<u8>().prop_map(Value::Byte).boxed(),
        T::String => opt_string().prop_map(Value::String).boxed(),
        T::Size => any::<usize>().prop_map(Value::Size).boxed(),
        T::Pid => any::<i32>().prop_map(Value::Pid).boxed(),
        T::Int => any::<i32>().prop_map(Value::Int).boxed(),
        T::Int8 => any::<i8>().prop_map(Value::Int8).boxed(),
        T::Int16 => any::<i16>().prop_map(Value::Int16).boxed(),
        T::Int32 => any::<i32>().prop_map(Value::Int32).boxed(),
        T::Int64 => any::<i64>().prop_map(Value::Int64).boxed(),
        T::Uint => any::<u32>().prop_map(Value::Uint).boxed(),
        T::Uint8 => any::<u8>().prop_map(Value::Uint8).boxed(),
        T::Uint16 => any::<u16>().prop_map(Value::Uint16).boxed(),
        T::Uint32 => any::<u32>().prop_map(Value::Uint32).boxed(),
        T::Uint64 => any::<u64>().prop_map(Value::Uint64).boxed(),
        T::Float => finite_f32().prop_map(Value::Float).boxed(),
        T::Double => any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Value::Double)
            .boxed(),
        T::Timeval => timeval().prop_map(Value::Timeval).boxed(),
        T::Time => any::<i64>().prop_map(Value::Time).boxed(),
        T::Status => any::<i32>().prop_map(Value::Status).boxed(),
        T::Value => value_form(d)
            .prop_map(|v| Value::Value(Box::new(v)))
            .boxed(),
        T::Proc => proc_().prop_map(Value::Proc).boxed(),
        T::App => (
            opt_string(),
            proptest::collection::vec(cstring(), 0..3),
            proptest::collection::vec(cstring(), 0..3),
            opt_string(),
            any::<i32>(),
            infos(d),
        )
            .prop_map(|(cmd, argv, env, cwd, maxprocs, info)| {
                Value::App(Box::new(App {
                    cmd,
                    argv,
                    env,
                    cwd,
                    maxprocs,
                    info,
                }))
            })
            .boxed(),
        T::Info => info(d).prop_map(|i| Value::Info(Box::new(i))).boxed(),
        T::PData => (proc_(), key(), value_form(d))
            .prop_map(|(proc, key, value)| Value::PData(Box::new(PData { proc, key, value })))
            .boxed(),
        T::ByteObject => bytes().prop_map(Value::ByteObject).boxed(),
        T::Kval => Just(Value::Undef).boxed(),
        T::Persist => any::<u8>().prop_map(Value::Persist).boxed(),
        T::Pointer => any::<usize>().prop_map(Value::Pointer).boxed(),
        T::Scope => any::<u8>().prop_map(Value::Scope).boxed(),
        T::DataRange => any::<u8>().prop_map(Value::DataRange).boxed(),
        T::Command => any::<u8>().prop_map(Value::Command).boxed(),
        T::InfoDirectives => any::<u32>().prop_map(Value::InfoDirectives).boxed(),
        T::DataType => any::<u16>().prop_map(Value::DataType).boxed(),
        T::ProcState => any::<u8>().prop_map(Value::ProcState).boxed(),
        T::ProcInfo => (
            proc_(),
            opt_string(),
            opt_string(),
            any::<i32>(),
            any::<i32>(),
            any::<u8>(),
        )
            .prop_map(|(proc, hostname, executable_name, pid, exit_code, state)| {
                Value::ProcInfo(Box::new(ProcInfo {
                    proc,
                    hostname,
                    executable_name,
                    pid,
                    exit_code,
                    state,
                }))
            })
            .boxed(),
        T::DataArray => data_array(d)
            .prop_map(|a| Value::DataArray(Box::new(a)))
            .boxed(),
        T::ProcRank => any::<u32>().prop_map(Value::ProcRank).boxed(),
        T::Query => (proptest::collection::vec(cstring(), 0..3), infos(d))
            .prop_map(|(keys, qualifiers)| Value::Query(Box::new(Query { keys, qualifiers })))
            .boxed(),
        T::CompressedString => bytes().prop_map(Value::CompressedString).boxed(),
        T::AllocDirective => any::<u8>().prop_map(Value::AllocDirective).boxed(),
        T::IofChannel => any::<u16>().prop_map(Value::IofChannel).boxed(),
        T::Envar => (opt_string(), opt_string(), any::<u8>())
            .prop_map(|(envar, value, separator)| {
                Value::Envar(Envar {
                    envar,
                    value,
                    separator,
                })
            })
            .boxed(),
        T::Coord => coord().prop_map(|c| Value::Coord(Box::new(c))).boxed(),
        T::RegAttr => (
            opt_string(),
            key(),
            any::<u16>(),
            proptest::collection::vec(cstring(), 0..3),
        )
            .prop_map(|(name, string, data_type, description)| {
                Value::RegAttr(Box::new(RegAttr {
                    name,
                    string,
                    data_type,
                    description,
                }))
            })
            .boxed(),
        T::Regex => "pmix\\[[a-z0-9:,-]{0,10}\\]"
            .prop_map(|s| Value::Regex(CString::new(s).unwrap().into_bytes_with_nul()))
            .boxed(),
        T::JobState => any::<u8>().prop_map(Value::JobState).boxed(),
        T::LinkState => any::<u8>().prop_map(Value::LinkState).boxed(),
        T::ProcCpuset => proptest::option::of(cpu_list())
            .prop_map(|bitmap| {
                Value::Cpuset(Box::new(Cpuset {
                    source: Some(c"hwloc".to_owned()),
                    bitmap,
                }))
            })
            .boxed(),
        T::Geometry => (
            any::<usize>(),
            opt_string(),
            opt_string(),
            proptest::collection::vec(coord(), 0..3),
        )
            .prop_map(|(fabric, uuid, osname, coordinates)| {
                Value::Geometry(Box::new(Geometry {
                    fabric,
                    uuid,
                    osname,
                    coordinates,
                }))
            })
            .boxed(),
        T::DeviceDist => (
            opt_string(),
            opt_string(),
            any::<u64>(),
            any::<u16>(),
            any::<u16>(),
        )
            .prop_map(|(uuid, osname, dev_type, mindist, maxdist)| {
                Value::DeviceDist(Box::new(DeviceDistance {
                    uuid,
                    osname,
                    dev_type,
                    mindist,
                    maxdist,
                }))
            })
            .boxed(),
        T::Endpoint => (opt_string(), opt_string(), bytes())
            .prop_map(|(uuid, osname, endpt)| {
                Value::Endpoint(Box::new(Endpoint {
                    uuid,
                    osname,
                    endpt,
                }))
            })
            .boxed(),
        T::Topo => Just(Value::Topology(Box::new(Topology {
            source: Some(c"hwloc".to_owned()),
            xml: None,
        })))
        .boxed(),
        T::DevType => any::<u64>().prop_map(Value::DevType).boxed(),
        T::LocType => any::<u16>().prop_map(Value::LocType).boxed(),
        T::CompressedByteObject => bytes().prop_map(Value::CompressedByteObject).boxed(),
        T::ProcNspace => nspace().prop_map(Value::ProcNspace).boxed(),
        T::ProcStats => (
            (
                opt_string(),
                proc_(),
                any::<i32>(),
                opt_string(),
                any::<u8>(),
                timeval(),
            ),
            (
                finite_f32(),
                any::<i32>(),
                any::<u16>(),
                proptest::array::uniform4(finite_f32()),
                any::<u16>(),
                timeval(),
            ),
        )
            .prop_map(
                |((node, proc, pid, cmd, state, time), (cpu, pri, thr, f, processor, st))| {
                    Value::ProcStats(Box::new(ProcStats {
                        node,
                        proc,
                        pid,
                        cmd,
                        state,
                        time,
                        percent_cpu: cpu,
                        priority: pri,
                        num_threads: thr,
                        pss: f[0],
                        vsize: f[1],
                        rss: f[2],
                        peak_vsize: f[3],
                        processor,
                        sample_time: st,
                    }))
                },
            )
            .boxed(),
        T::DiskStats => disk().prop_map(|s| Value::DiskStats(Box::new(s))).boxed(),
        T::NetStats => net().prop_map(|s| Value::NetStats(Box::new(s))).boxed(),
        T::NodeStats => (
            opt_string(),
            proptest::array::uniform11(finite_f32()),
            timeval(),
            proptest::collection::vec(disk(), 0..3),
            proptest::collection::vec(net(), 0..3),
        )
            .prop_map(|(node, f, sample_time, diskstats, netstats)| {
                Value::NodeStats(Box::new(NodeStats {
                    node,
                    la: f[0],
                    la5: f[1],
                    la15: f[2],
                    total_mem: f[3],
                    free_mem: f[4],
                    buffers: f[5],
                    cached: f[6],
                    swap_cached: f[7],
                    swap_total: f[8],
                    swap_free: f[9],
                    mapped: f[10],
                    sample_time,
                    diskstats,
                    netstats,
                }))
            })
            .boxed(),
        T::DataBuffer => bytes().prop_map(Value::DataBuffer).boxed(),
        T::StorMedium => any::<u64>().prop_map(Value::StorMedium).boxed(),
        T::StorAccess => any::<u64>().prop_map(Value::StorAccess).boxed(),
        T::StorPersist => any::<u64>().prop_map(Value::StorPersist).boxed(),
        T::StorAccessType => any::<u16>().prop_map(Value::StorAccessType).boxed(),
    }
}

/// A data array; at depth 0 its elements cannot nest further arrays.
fn data_array(depth: u32) -> BoxedStrategy<DataArray> {
    let types: Vec<DataType> = item_types()
        .into_iter()
        .filter(|t| {
            depth > 0
                || !matches!(
                    t,
                    DataType::DataArray
                        | DataType::Value
                        | DataType::Info
                        | DataType::PData
                        | DataType::App
                        | DataType::Query
                )
        })
        .collect();
    proptest::sample::select(types)
        .prop_flat_map(move |t| {
            proptest::collection::vec(value_of(t, depth), 0..4).prop_map(move |items| DataArray {
                elem_type: t,
                items,
            })
        })
        .boxed()
}

/// Arrays nested exactly three deep: an array of infos whose value is an
/// array of arrays of scalars.
fn three_deep() -> impl Strategy<Value = Value> {
    let inner = proptest::collection::vec(any::<u32>(), 0..4).prop_map(|v| {
        Value::DataArray(Box::new(DataArray {
            elem_type: DataType::Uint32,
            items: v.into_iter().map(Value::Uint32).collect(),
        }))
    });
    let middle = proptest::collection::vec(inner, 0..3).prop_map(|items| DataArray {
        elem_type: DataType::DataArray,
        items,
    });
    (key(), middle).prop_map(|(k, m)| {
        Value::DataArray(Box::new(DataArray {
            elem_type: DataType::Info,
            items: vec![Value::Info(Box::new(Info::new(
                k,
                Value::DataArray(Box::new(m)),
            )))],
        }))
    })
}

fn value_round_trip(v: &Value) {
    let mut c = pmix_value_t::default();
    // SAFETY: c is a writable value.
    unsafe { value_write(v, &mut c) }.expect("write");
    // SAFETY: c was written above.
    let back = unsafe { value_from_c(&c) }.expect("read");
    // SAFETY: as above; released once.
    unsafe { value_destruct(&mut c) };
    assert_eq!(c.type_, PMIX_UNDEF);
    assert_eq!(&back, v);
}

fn items_round_trip(t: DataType, items: &[Value]) {
    let arr = write_items(t, items).expect("write items");
    // SAFETY: arr holds items.len() items of type t.
    let back = unsafe { read_items(t, arr, items.len()) }.expect("read items");
    // SAFETY: as above; released once.
    unsafe { free_items(t, arr, items.len()) };
    assert_eq!(back, items);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_value_survives_a_pmix_value_t(v in value_form(3)) {
        value_round_trip(&v);
    }

    #[test]
    fn every_item_type_survives_a_c_array(
        (t, items) in proptest::sample::select(item_types())
            .prop_flat_map(|t| (Just(t), proptest::collection::vec(value_of(t, 2), 0..4)))
    ) {
        items_round_trip(t, &items);
    }

    #[test]
    fn nested_arrays_three_deep(v in three_deep()) {
        value_round_trip(&v);
        if let Value::DataArray(d) = &v {
            items_round_trip(d.elem_type, &d.items);
        }
    }

    #[test]
    fn infos_survive(i in info(2)) {
        let mut c = pmix_info_t::default();
        // SAFETY: c is writable; read back and released once.
        unsafe {
            info_write(&i, &mut c).expect("write");
            let back = info_from_c(&c).expect("read");
            info_destruct(&mut c);
            prop_assert_eq!(back, i);
        }
    }
}

#[test]
fn undef_and_kval_have_no_item_form() {
    assert_eq!(item_size(DataType::Undef), None);
    assert_eq!(item_size(DataType::Kval), None);
    assert_eq!(
        write_items(DataType::Undef, &[Value::Undef]),
        Err(Status::ERR_UNKNOWN_DATA_TYPE)
    );
}
