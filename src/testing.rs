//! Test support (feature `test-support`): proptest strategies of arbitrary
//! [`Value`]s of every data type, shared by the property tests of the
//! stored form (`job::stored`), the C conversions (`pmix-ffi`) and the
//! codec (`tests/codec_props.rs`).
//!
//! [`ValueGen`] holds the strategies that differ between those tests (which
//! strings, keys and floats survive the round trip under test, what a
//! regex, cpuset or topology may hold); [`ValueGen::scalar`] and
//! [`ValueGen::nested`] build every type from them. How values nest and
//! which arrays can be generated is each test's own business.

use std::ffi::CString;

use proptest::collection::vec;
use proptest::prelude::*;

use crate::value::*;
use crate::{DataType, Info, InfoDirectives, Key, Nspace, Proc, Rank, Value};

/// The strategies of the parts of values; see [`ValueGen::new`] for the
/// defaults. Override fields with struct update syntax.
#[derive(Clone)]
pub struct ValueGen {
    /// C strings (also the items of argv/env/key lists).
    pub string: BoxedStrategy<CString>,
    /// Keys (of infos, pdata, registered attributes).
    pub key: BoxedStrategy<Key>,
    /// Namespaces (of procs and `PMIX_PROC_NSPACE`).
    pub nspace: BoxedStrategy<Nspace>,
    /// Every `f32`, alone or in statistics.
    pub float: BoxedStrategy<f32>,
    /// `PMIX_DOUBLE`.
    pub double: BoxedStrategy<f64>,
    /// Byte objects, compressed strings and buffers, endpoints.
    pub bytes: BoxedStrategy<Vec<u8>>,
    /// `PMIX_POINTER`.
    pub pointer: BoxedStrategy<usize>,
    /// `PMIX_REGEX` payloads.
    pub regex: BoxedStrategy<Vec<u8>>,
    /// `PMIX_PROC_CPUSET`.
    pub cpuset: BoxedStrategy<Cpuset>,
    /// `PMIX_TOPO`.
    pub topology: BoxedStrategy<Topology>,
    /// The directives of infos.
    pub info_flags: BoxedStrategy<u32>,
    /// Whether a `PMIX_KVAL` may have no value.
    pub kval_none: bool,
}

impl Default for ValueGen {
    fn default() -> Self {
        Self::new()
    }
}

impl ValueGen {
    /// Printable strings, short keys and namespaces, any finite float,
    /// any pointer, regex, cpuset and topology.
    pub fn new() -> Self {
        let opt = || proptest::option::of(cstring("[a-zA-Z0-9 ._:/=-]{0,12}"));
        ValueGen {
            string: cstring("[a-zA-Z0-9 ._:/=-]{0,12}"),
            key: "[a-z][a-z0-9._]{0,30}"
                .prop_map(|s| Key::new(s).unwrap())
                .boxed(),
            nspace: "[a-z0-9._-]{0,40}"
                .prop_map(|s| Nspace::new(s).unwrap())
                .boxed(),
            float: any::<f32>()
                .prop_filter("finite", |x| x.is_finite())
                .boxed(),
            double: any::<f64>()
                .prop_filter("finite", |x| x.is_finite())
                .boxed(),
            bytes: vec(any::<u8>(), 0..16).boxed(),
            pointer: any::<usize>().boxed(),
            regex: vec(any::<u8>(), 0..16).boxed(),
            cpuset: (opt(), opt())
                .prop_map(|(source, bitmap)| Cpuset { source, bitmap })
                .boxed(),
            topology: (opt(), opt())
                .prop_map(|(source, xml)| Topology { source, xml })
                .boxed(),
            info_flags: any::<u32>().boxed(),
            kval_none: true,
        }
    }

    /// An optional string.
    pub fn opt_string(&self) -> impl Strategy<Value = OptString> {
        proptest::option::of(self.string.clone())
    }

    /// A proc of any rank.
    pub fn proc_(&self) -> impl Strategy<Value = Proc> {
        (self.nspace.clone(), any::<u32>()).prop_map(|(n, r)| Proc::new(n, Rank(r)))
    }

    /// An info of `value` with this generator's key and directives.
    pub fn info(&self, value: BoxedStrategy<Value>) -> BoxedStrategy<Info> {
        (self.key.clone(), self.info_flags.clone(), value)
            .prop_map(|(key, flags, value)| Info {
                key,
                flags: InfoDirectives(flags),
                value,
            })
            .boxed()
    }

    /// Whether values of type `t` hold other values (then only
    /// [`ValueGen::nested`] or the test itself generates them).
    pub fn nests(t: DataType) -> bool {
        matches!(
            t,
            DataType::Value
                | DataType::Info
                | DataType::PData
                | DataType::Kval
                | DataType::App
                | DataType::Query
                | DataType::DataArray
        )
    }

    /// The types [`ValueGen::scalar`] generates.
    pub fn scalar_types() -> Vec<DataType> {
        DataType::ALL
            .iter()
            .copied()
            .filter(|t| !Self::nests(*t))
            .collect()
    }

    /// Any value of one of `types` (each a scalar type), the type drawn
    /// uniformly.
    pub fn one_of(&self, types: Vec<DataType>) -> BoxedStrategy<Value> {
        proptest::strategy::Union::new(types.into_iter().map(|t| self.scalar(t))).boxed()
    }

    /// A value of type `t`, which holds no other value.
    ///
    /// # Panics
    /// For a type that nests values ([`ValueGen::nests`]).
    pub fn scalar(&self, t: DataType) -> BoxedStrategy<Value> {
        use DataType as T;
        match t {
            T::Undef => Just(Value::Undef).boxed(),
            T::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
            T::Byte => any::<u8>().prop_map(Value::Byte).boxed(),
            T::String => self.opt_string().prop_map(Value::String).boxed(),
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
            T::Float => self.float.clone().prop_map(Value::Float).boxed(),
            T::Double => self.double.clone().prop_map(Value::Double).boxed(),
            T::Timeval => timeval().prop_map(Value::Timeval).boxed(),
            T::Time => any::<i64>().prop_map(Value::Time).boxed(),
            T::Status => any::<i32>().prop_map(Value::Status).boxed(),
            T::Proc => self.proc_().prop_map(Value::Proc).boxed(),
            T::ByteObject => self.bytes.clone().prop_map(Value::ByteObject).boxed(),
            T::Persist => any::<u8>().prop_map(Value::Persist).boxed(),
            T::Pointer => self.pointer.clone().prop_map(Value::Pointer).boxed(),
            T::Scope => any::<u8>().prop_map(Value::Scope).boxed(),
            T::DataRange => any::<u8>().prop_map(Value::DataRange).boxed(),
            T::Command => any::<u8>().prop_map(Value::Command).boxed(),
            T::InfoDirectives => any::<u32>().prop_map(Value::InfoDirectives).boxed(),
            T::DataType => any::<u16>().prop_map(Value::DataType).boxed(),
            T::ProcState => any::<u8>().prop_map(Value::ProcState).boxed(),
            T::ProcInfo | T::Envar | T::RegAttr | T::Geometry | T::DeviceDist | T::Endpoint => {
                self.structure(t)
            }
            T::ProcRank => any::<u32>().prop_map(Value::ProcRank).boxed(),
            T::CompressedString => self.bytes.clone().prop_map(Value::CompressedString).boxed(),
            T::AllocDirective => any::<u8>().prop_map(Value::AllocDirective).boxed(),
            T::IofChannel => any::<u16>().prop_map(Value::IofChannel).boxed(),
            T::Coord => coord().prop_map(|c| Value::Coord(Box::new(c))).boxed(),
            T::Regex => self.regex.clone().prop_map(Value::Regex).boxed(),
            T::JobState => any::<u8>().prop_map(Value::JobState).boxed(),
            T::LinkState => any::<u8>().prop_map(Value::LinkState).boxed(),
            T::ProcCpuset => self
                .cpuset
                .clone()
                .prop_map(|c| Value::Cpuset(Box::new(c)))
                .boxed(),
            T::Topo => self
                .topology
                .clone()
                .prop_map(|t| Value::Topology(Box::new(t)))
                .boxed(),
            T::DevType => any::<u64>().prop_map(Value::DevType).boxed(),
            T::LocType => any::<u16>().prop_map(Value::LocType).boxed(),
            T::CompressedByteObject => self
                .bytes
                .clone()
                .prop_map(Value::CompressedByteObject)
                .boxed(),
            T::ProcNspace => self.nspace.clone().prop_map(Value::ProcNspace).boxed(),
            T::ProcStats => self.proc_stats(),
            T::DiskStats => self
                .disk()
                .prop_map(|d| Value::DiskStats(Box::new(d)))
                .boxed(),
            T::NetStats => self
                .net()
                .prop_map(|n| Value::NetStats(Box::new(n)))
                .boxed(),
            T::NodeStats => self.node_stats(),
            T::DataBuffer => self.bytes.clone().prop_map(Value::DataBuffer).boxed(),
            T::StorMedium => any::<u64>().prop_map(Value::StorMedium).boxed(),
            T::StorAccess => any::<u64>().prop_map(Value::StorAccess).boxed(),
            T::StorPersist => any::<u64>().prop_map(Value::StorPersist).boxed(),
            T::StorAccessType => any::<u16>().prop_map(Value::StorAccessType).boxed(),
            T::Value | T::Info | T::PData | T::Kval | T::App | T::Query | T::DataArray => {
                panic!("{t:?} nests values")
            }
        }
    }

    /// A value of one of the struct types made of plain fields (process
    /// info, environment variable, registered attribute, geometry, device
    /// distance, endpoint).
    ///
    /// # Panics
    /// For any other type.
    fn structure(&self, t: DataType) -> BoxedStrategy<Value> {
        use DataType as T;
        match t {
            T::ProcInfo => (
                self.proc_(),
                self.opt_string(),
                self.opt_string(),
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
            T::Envar => (self.opt_string(), self.opt_string(), any::<u8>())
                .prop_map(|(envar, value, separator)| {
                    Value::Envar(Envar {
                        envar,
                        value,
                        separator,
                    })
                })
                .boxed(),
            T::RegAttr => (
                self.opt_string(),
                self.key.clone(),
                any::<u16>(),
                vec(self.string.clone(), 0..3),
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
            T::Geometry => (
                any::<usize>(),
                self.opt_string(),
                self.opt_string(),
                vec(coord(), 0..3),
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
                self.opt_string(),
                self.opt_string(),
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
            T::Endpoint => (self.opt_string(), self.opt_string(), self.bytes.clone())
                .prop_map(|(uuid, osname, endpt)| {
                    Value::Endpoint(Box::new(Endpoint {
                        uuid,
                        osname,
                        endpt,
                    }))
                })
                .boxed(),
            _ => panic!("{t:?} is not a struct of plain fields"),
        }
    }

    /// A value of type `t` (one of `Value`, `Info`, `PData`, `Kval`, `App`,
    /// `Query`) holding values drawn from `inner`; `None` for other types
    /// (arrays are left to the caller).
    pub fn nested(&self, t: DataType, inner: BoxedStrategy<Value>) -> Option<BoxedStrategy<Value>> {
        use DataType as T;
        let infos = || vec(self.info(inner.clone()), 0..3);
        Some(match t {
            T::Value => inner.prop_map(|v| Value::Value(Box::new(v))).boxed(),
            T::Info => self
                .info(inner)
                .prop_map(|i| Value::Info(Box::new(i)))
                .boxed(),
            T::PData => (self.proc_(), self.key.clone(), inner)
                .prop_map(|(proc, key, value)| Value::PData(Box::new(PData { proc, key, value })))
                .boxed(),
            T::Kval => {
                let value = if self.kval_none {
                    proptest::option::of(inner).boxed()
                } else {
                    inner.prop_map(Some).boxed()
                };
                (self.opt_string(), value)
                    .prop_map(|(key, v)| {
                        Value::Kval(Box::new(Kval {
                            key,
                            value: v.map(Box::new),
                        }))
                    })
                    .boxed()
            }
            T::App => (
                self.opt_string(),
                vec(self.string.clone(), 0..3),
                vec(self.string.clone(), 0..3),
                self.opt_string(),
                any::<i32>(),
                infos(),
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
            T::Query => (vec(self.string.clone(), 0..3), infos())
                .prop_map(|(keys, qualifiers)| Value::Query(Box::new(Query { keys, qualifiers })))
                .boxed(),
            _ => return None,
        })
    }

    /// One strategy per type [`ValueGen::nested`] generates, each holding
    /// values drawn from `inner`.
    pub fn nesting(&self, inner: BoxedStrategy<Value>) -> Vec<BoxedStrategy<Value>> {
        [
            DataType::Value,
            DataType::Info,
            DataType::PData,
            DataType::Kval,
            DataType::App,
            DataType::Query,
        ]
        .into_iter()
        .filter_map(|t| self.nested(t, inner.clone()))
        .collect()
    }

    fn disk(&self) -> impl Strategy<Value = DiskStats> {
        (self.opt_string(), vec(any::<u64>(), 11)).prop_map(|(disk, n)| DiskStats {
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

    fn net(&self) -> impl Strategy<Value = NetStats> {
        (self.opt_string(), vec(any::<u64>(), 6)).prop_map(|(net_interface, n)| NetStats {
            net_interface,
            num_bytes_recvd: n[0],
            num_packets_recvd: n[1],
            num_recv_errs: n[2],
            num_bytes_sent: n[3],
            num_packets_sent: n[4],
            num_send_errs: n[5],
        })
    }

    fn proc_stats(&self) -> BoxedStrategy<Value> {
        (
            (
                self.opt_string(),
                self.proc_(),
                any::<i32>(),
                self.opt_string(),
                any::<u8>(),
                timeval(),
            ),
            (
                any::<i32>(),
                any::<u16>(),
                vec(self.float.clone(), 5),
                any::<u16>(),
                timeval(),
            ),
        )
            .prop_map(
                |(
                    (node, proc, pid, cmd, state, time),
                    (priority, num_threads, f, processor, st),
                )| {
                    Value::ProcStats(Box::new(ProcStats {
                        node,
                        proc,
                        pid,
                        cmd,
                        state,
                        time,
                        percent_cpu: f[0],
                        priority,
                        num_threads,
                        pss: f[1],
                        vsize: f[2],
                        rss: f[3],
                        peak_vsize: f[4],
                        processor,
                        sample_time: st,
                    }))
                },
            )
            .boxed()
    }

    fn node_stats(&self) -> BoxedStrategy<Value> {
        (
            self.opt_string(),
            proptest::array::uniform11(self.float.clone()),
            timeval(),
            vec(self.disk(), 0..3),
            vec(self.net(), 0..3),
        )
            .prop_map(|(node, f, sample_time, diskstats, netstats)| {
                Value::NodeStats(Box::new(NodeStats::from_figures(
                    node,
                    f,
                    sample_time,
                    diskstats,
                    netstats,
                )))
            })
            .boxed()
    }
}

/// C strings matching the regular expression `re` (no NUL in it).
pub fn cstring(re: &str) -> BoxedStrategy<CString> {
    proptest::string::string_regex(re)
        .unwrap()
        .prop_map(|s| CString::new(s).unwrap())
        .boxed()
}

/// Any timeval.
pub fn timeval() -> impl Strategy<Value = Timeval> {
    (any::<i64>(), any::<i64>()).prop_map(|(sec, usec)| Timeval { sec, usec })
}

/// Any coordinate of up to three dimensions.
pub fn coord() -> impl Strategy<Value = Coord> {
    (any::<u8>(), vec(any::<u32>(), 0..4)).prop_map(|(view, coord)| Coord { view, coord })
}
