//! `pmix_value_t` and every structured PMIx data type, as owned Rust values.
//!
//! [`Value`] has one variant per [`DataType`], so it can stand for any PMIx
//! datum: the payload of a `pmix_value_t`, one element of a
//! `pmix_data_array_t`, or one item packed into a data buffer. C strings are
//! kept as [`CString`] (arbitrary bytes, no interior NUL) and nullable ones as
//! `Option<CString>`, so conversion to and from the C structures is lossless.

use std::ffi::CString;

use crate::{DataType, Info, Key, Nspace, Proc};

/// A nullable C string (`char *` that may be `NULL`).
pub type OptString = Option<CString>;

/// `struct timeval`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Timeval {
    pub sec: i64,
    pub usec: i64,
}

/// `pmix_proc_info_t`.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ProcInfo {
    pub proc: Proc,
    pub hostname: OptString,
    pub executable_name: OptString,
    pub pid: i32,
    pub exit_code: i32,
    pub state: u8,
}

/// `pmix_pdata_t`: published data.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct PData {
    pub proc: Proc,
    pub key: Key,
    pub value: Value,
}

/// `pmix_app_t`: one application context of a spawn.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct App {
    pub cmd: OptString,
    pub argv: Vec<CString>,
    pub env: Vec<CString>,
    pub cwd: OptString,
    pub maxprocs: i32,
    pub info: Vec<Info>,
}

/// `pmix_query_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Query {
    pub keys: Vec<CString>,
    pub qualifiers: Vec<Info>,
}

/// `pmix_envar_t`.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Envar {
    pub envar: OptString,
    pub value: OptString,
    pub separator: u8,
}

/// `pmix_coord_t`.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Coord {
    pub view: u8,
    pub coord: Vec<u32>,
}

/// `pmix_regattr_t`: a registered attribute.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct RegAttr {
    pub name: OptString,
    pub string: Key,
    pub data_type: u16,
    pub description: Vec<CString>,
}

/// `pmix_geometry_t`.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Geometry {
    pub fabric: usize,
    pub uuid: OptString,
    pub osname: OptString,
    pub coordinates: Vec<Coord>,
}

/// `pmix_device_distance_t`.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct DeviceDistance {
    pub uuid: OptString,
    pub osname: OptString,
    pub dev_type: u64,
    pub mindist: u16,
    pub maxdist: u16,
}

/// `pmix_endpoint_t`.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Endpoint {
    pub uuid: OptString,
    pub osname: OptString,
    pub endpt: Vec<u8>,
}

/// `pmix_cpuset_t`. In C the bitmap is an hwloc bitmap; here it is the
/// bitmap's hwloc "list" text (for example `0-3,8`), the form in which it
/// travels in a data buffer.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Cpuset {
    pub source: OptString,
    pub bitmap: OptString,
}

/// `pmix_topology_t`. In C the topology is an hwloc topology; here it is
/// the topology's hwloc XML export, the form in which it travels.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Topology {
    pub source: OptString,
    pub xml: OptString,
}

/// The field list of the statistics structs, written once in the
/// shared-memory crate (the lowest of the workspace) for every form of
/// them: these types, the segment's, and the C layer's.
#[doc(hidden)]
pub use pmix_shmem::stats_structs;

/// Declares the core's form of the statistics structs from their field
/// list, whose vocabulary is this module's types.
macro_rules! value_stats {
    ($( $core:ident / $stored:ident / $c:ident [$($eq:ident)?] {
        $( $f:ident : $t:ty $([count: $n:ident])? ),* $(,)?
    } )*) => {$(
        #[doc = concat!("`", stringify!($c), "`.")]
        #[derive(Clone, PartialEq, Debug, Default $(, $eq)?)]
        pub struct $core {
            $( pub $f: $t, )*
        }
    )*};
}

stats_structs!(value_stats);

impl NodeStats {
    /// Its eleven figures, `la` to `mapped`, in C order (as the codec
    /// carries them).
    pub fn figures(&self) -> [f32; 11] {
        [
            self.la,
            self.la5,
            self.la15,
            self.total_mem,
            self.free_mem,
            self.buffers,
            self.cached,
            self.swap_cached,
            self.swap_total,
            self.swap_free,
            self.mapped,
        ]
    }

    /// A node's statistics from its [`figures`](Self::figures) and the
    /// rest.
    pub fn from_figures(
        node: OptString,
        figures: [f32; 11],
        sample_time: Timeval,
        diskstats: Vec<DiskStats>,
        netstats: Vec<NetStats>,
    ) -> NodeStats {
        let [la, la5, la15, total_mem, free_mem, buffers, cached, swap_cached, swap_total, swap_free, mapped] =
            figures;
        NodeStats {
            node,
            la,
            la5,
            la15,
            total_mem,
            free_mem,
            buffers,
            cached,
            swap_cached,
            swap_total,
            swap_free,
            mapped,
            sample_time,
            diskstats,
            netstats,
        }
    }
}

/// `pmix_data_array_t`: elements all of type `elem_type`, each held as the
/// [`Value`] variant of that type.
#[derive(Clone, PartialEq, Debug)]
pub struct DataArray {
    pub elem_type: DataType,
    pub items: Vec<Value>,
}

/// OpenPMIx's internal `pmix_kval_t`: a key and a value.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Kval {
    pub key: OptString,
    pub value: Option<Box<Value>>,
}

/// Any PMIx datum: one variant per [`DataType`].
#[derive(Clone, PartialEq, Debug, Default)]
pub enum Value {
    #[default]
    Undef,
    Bool(bool),
    Byte(u8),
    String(OptString),
    Size(usize),
    Pid(i32),
    Int(i32),
    Int8(i8),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    Uint(u32),
    Uint8(u8),
    Uint16(u16),
    Uint32(u32),
    Uint64(u64),
    Float(f32),
    Double(f64),
    Timeval(Timeval),
    Time(i64),
    Status(i32),
    /// A nested `pmix_value_t` (elements of a `PMIX_VALUE` array).
    Value(Box<Value>),
    Proc(Proc),
    App(Box<App>),
    Info(Box<Info>),
    PData(Box<PData>),
    ByteObject(Vec<u8>),
    Kval(Box<Kval>),
    Persist(u8),
    /// A process-local address; never meaningful in another process.
    Pointer(usize),
    Scope(u8),
    DataRange(u8),
    Command(u8),
    InfoDirectives(u32),
    DataType(u16),
    ProcState(u8),
    ProcInfo(Box<ProcInfo>),
    DataArray(Box<DataArray>),
    ProcRank(u32),
    Query(Box<Query>),
    /// zlib-compressed string bytes.
    CompressedString(Vec<u8>),
    AllocDirective(u8),
    IofChannel(u16),
    Envar(Envar),
    Coord(Box<Coord>),
    RegAttr(Box<RegAttr>),
    /// A regular expression as produced by `PMIx_generate_regex`: raw bytes.
    Regex(Vec<u8>),
    JobState(u8),
    LinkState(u8),
    Cpuset(Box<Cpuset>),
    Geometry(Box<Geometry>),
    DeviceDist(Box<DeviceDistance>),
    Endpoint(Box<Endpoint>),
    Topology(Box<Topology>),
    DevType(u64),
    LocType(u16),
    CompressedByteObject(Vec<u8>),
    ProcNspace(Nspace),
    ProcStats(Box<ProcStats>),
    DiskStats(Box<DiskStats>),
    NetStats(Box<NetStats>),
    NodeStats(Box<NodeStats>),
    /// The unread bytes of a `pmix_data_buffer_t`.
    DataBuffer(Vec<u8>),
    StorMedium(u64),
    StorAccess(u64),
    StorPersist(u64),
    StorAccessType(u16),
}

impl Value {
    /// The data type tag of this value.
    pub fn data_type(&self) -> DataType {
        use DataType as T;
        match self {
            Value::Undef => T::Undef,
            Value::Bool(_) => T::Bool,
            Value::Byte(_) => T::Byte,
            Value::String(_) => T::String,
            Value::Size(_) => T::Size,
            Value::Pid(_) => T::Pid,
            Value::Int(_) => T::Int,
            Value::Int8(_) => T::Int8,
            Value::Int16(_) => T::Int16,
            Value::Int32(_) => T::Int32,
            Value::Int64(_) => T::Int64,
            Value::Uint(_) => T::Uint,
            Value::Uint8(_) => T::Uint8,
            Value::Uint16(_) => T::Uint16,
            Value::Uint32(_) => T::Uint32,
            Value::Uint64(_) => T::Uint64,
            Value::Float(_) => T::Float,
            Value::Double(_) => T::Double,
            Value::Timeval(_) => T::Timeval,
            Value::Time(_) => T::Time,
            Value::Status(_) => T::Status,
            Value::Value(_) => T::Value,
            Value::Proc(_) => T::Proc,
            Value::App(_) => T::App,
            Value::Info(_) => T::Info,
            Value::PData(_) => T::PData,
            Value::ByteObject(_) => T::ByteObject,
            Value::Kval(_) => T::Kval,
            Value::Persist(_) => T::Persist,
            Value::Pointer(_) => T::Pointer,
            Value::Scope(_) => T::Scope,
            Value::DataRange(_) => T::DataRange,
            Value::Command(_) => T::Command,
            Value::InfoDirectives(_) => T::InfoDirectives,
            Value::DataType(_) => T::DataType,
            Value::ProcState(_) => T::ProcState,
            Value::ProcInfo(_) => T::ProcInfo,
            Value::DataArray(_) => T::DataArray,
            Value::ProcRank(_) => T::ProcRank,
            Value::Query(_) => T::Query,
            Value::CompressedString(_) => T::CompressedString,
            Value::AllocDirective(_) => T::AllocDirective,
            Value::IofChannel(_) => T::IofChannel,
            Value::Envar(_) => T::Envar,
            Value::Coord(_) => T::Coord,
            Value::RegAttr(_) => T::RegAttr,
            Value::Regex(_) => T::Regex,
            Value::JobState(_) => T::JobState,
            Value::LinkState(_) => T::LinkState,
            Value::Cpuset(_) => T::ProcCpuset,
            Value::Geometry(_) => T::Geometry,
            Value::DeviceDist(_) => T::DeviceDist,
            Value::Endpoint(_) => T::Endpoint,
            Value::Topology(_) => T::Topo,
            Value::DevType(_) => T::DevType,
            Value::LocType(_) => T::LocType,
            Value::CompressedByteObject(_) => T::CompressedByteObject,
            Value::ProcNspace(_) => T::ProcNspace,
            Value::ProcStats(_) => T::ProcStats,
            Value::DiskStats(_) => T::DiskStats,
            Value::NetStats(_) => T::NetStats,
            Value::NodeStats(_) => T::NodeStats,
            Value::DataBuffer(_) => T::DataBuffer,
            Value::StorMedium(_) => T::StorMedium,
            Value::StorAccess(_) => T::StorAccess,
            Value::StorPersist(_) => T::StorPersist,
            Value::StorAccessType(_) => T::StorAccessType,
        }
    }

    /// A `PMIX_DATA_ARRAY` of infos.
    pub fn info_array(items: Vec<Info>) -> Value {
        Value::DataArray(Box::new(DataArray {
            elem_type: DataType::Info,
            items: items
                .into_iter()
                .map(|i| Value::Info(Box::new(i)))
                .collect(),
        }))
    }

    /// A `PMIX_DATA_ARRAY` of procs (memberships of sets and groups).
    pub fn proc_array(procs: &[Proc]) -> Value {
        Value::DataArray(Box::new(DataArray {
            elem_type: DataType::Proc,
            items: procs.iter().cloned().map(Value::Proc).collect(),
        }))
    }

    /// The procs of a data array of procs (or of a single proc); the
    /// elements of an array that are not procs are skipped.
    pub fn procs(&self) -> Option<Vec<Proc>> {
        match self {
            Value::Proc(p) => Some(vec![p.clone()]),
            Value::DataArray(a) => Some(
                a.items
                    .iter()
                    .filter_map(|v| match v {
                        Value::Proc(p) => Some(p.clone()),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        }
    }

    /// The infos of a data array of infos; `None` for another value (the
    /// elements of an array that are not infos are skipped).
    pub fn infos(&self) -> Option<Vec<Info>> {
        match self {
            Value::DataArray(a) => Some(
                a.items
                    .iter()
                    .filter_map(|v| match v {
                        Value::Info(i) => Some((**i).clone()),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => None,
        }
    }

    /// A string value from text.
    pub fn string(s: &str) -> Value {
        Value::String(CString::new(s).ok())
    }

    /// The string, if this is a non-NULL `PMIX_STRING`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(Some(s)) => s.to_str().ok(),
            _ => None,
        }
    }

    /// The value as a `u32` if it is any unsigned integer type that fits.
    pub fn as_u32(&self) -> Option<u32> {
        match *self {
            Value::Uint8(v) | Value::Byte(v) => Some(v.into()),
            Value::Uint16(v) => Some(v.into()),
            Value::Uint32(v) | Value::Uint(v) | Value::ProcRank(v) => Some(v),
            Value::Uint64(v) => u32::try_from(v).ok(),
            Value::Size(v) => u32::try_from(v).ok(),
            _ => None,
        }
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Bool(v)
    }
}
impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Uint32(v)
    }
}
impl From<u64> for Value {
    fn from(v: u64) -> Value {
        Value::Uint64(v)
    }
}
impl From<i32> for Value {
    fn from(v: i32) -> Value {
        Value::Int32(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::string(v)
    }
}
impl From<Proc> for Value {
    fn from(v: Proc) -> Value {
        Value::Proc(v)
    }
}
