//! Lossless conversion between the core's [`Value`] and the shared-memory
//! crate's [`StoredValue`] (what a segment is built from), and from a
//! [`ValueRef`] read out of a segment back to an owned [`Value`].
//!
//! Every PMIx data type has a variant on both sides, so the conversion is
//! one-to-one: `from_stored(&to_stored(v)) == v` for every value (tested by
//! a property over all types). Arrays of fixed-size scalars are *packed* by
//! the segment writer (C layout, so a `pmix_data_array_t` can point at
//! them); they are unpacked here element by element.
//!
//! Two representational differences are absorbed: the segment stores
//! `usize` quantities (`PMIX_SIZE`, `PMIX_POINTER`, a geometry's fabric
//! index) as `u64`, and namespaces and keys as plain C strings — a
//! namespace or key longer than the PMIx limits, which only a forged
//! segment can hold, is truncated to the limit as `PMIX_LOAD_NSPACE` does.

use std::ffi::{CStr, CString};

use pmix_shmem::{
    packed_width, tag, StoredApp, StoredArray, StoredCoord, StoredCpuset, StoredDeviceDistance,
    StoredDiskStats, StoredEndpoint, StoredEnvar, StoredGeometry, StoredInfo, StoredKval,
    StoredNetStats, StoredNodeStats, StoredPData, StoredProc, StoredProcInfo, StoredProcStats,
    StoredQuery, StoredRegAttr, StoredTimeval, StoredTopology, StoredValue, StrZ, ValueRef,
};

use crate::value::{
    App, Coord, Cpuset, DataArray, DeviceDistance, DiskStats, Endpoint, Envar, Geometry, Kval,
    NetStats, NodeStats, OptString, PData, ProcInfo, ProcStats, Query, RegAttr, Timeval, Topology,
};
use crate::{DataType, Info, InfoDirectives, Key, Nspace, Proc, Rank, Value};

// ---------------------------------------------------------------------------
// Value -> StoredValue

fn strz(c: &CStr) -> StrZ {
    StrZ::from(c)
}

fn opt_strz(s: &OptString) -> Option<StrZ> {
    s.as_deref().map(strz)
}

fn strz_vec(v: &[CString]) -> Vec<StrZ> {
    v.iter().map(|c| strz(c)).collect()
}

fn stored_tv(t: Timeval) -> StoredTimeval {
    StoredTimeval {
        sec: t.sec,
        usec: t.usec,
    }
}

fn stored_proc(p: &Proc) -> StoredProc {
    StoredProc {
        nspace: strz(p.nspace.as_c_str()),
        rank: p.rank.0,
    }
}

fn stored_info(i: &Info) -> StoredInfo {
    StoredInfo {
        key: strz(i.key.as_c_str()),
        flags: i.flags.0,
        value: to_stored(&i.value),
    }
}

fn stored_coord(c: &Coord) -> StoredCoord {
    StoredCoord {
        view: c.view,
        coord: c.coord.clone(),
    }
}

/// The segment form of a value (lossless; see the module documentation).
pub fn to_stored(v: &Value) -> StoredValue {
    use StoredValue as S;
    match v {
        Value::Undef => S::Undef,
        Value::Bool(x) => S::Bool(*x),
        Value::Byte(x) => S::Byte(*x),
        Value::String(s) => S::String(opt_strz(s)),
        Value::Size(x) => S::Size(*x as u64),
        Value::Pid(x) => S::Pid(*x),
        Value::Int(x) => S::Int(*x),
        Value::Int8(x) => S::Int8(*x),
        Value::Int16(x) => S::Int16(*x),
        Value::Int32(x) => S::Int32(*x),
        Value::Int64(x) => S::Int64(*x),
        Value::Uint(x) => S::Uint(*x),
        Value::Uint8(x) => S::Uint8(*x),
        Value::Uint16(x) => S::Uint16(*x),
        Value::Uint32(x) => S::Uint32(*x),
        Value::Uint64(x) => S::Uint64(*x),
        Value::Float(x) => S::Float(*x),
        Value::Double(x) => S::Double(*x),
        Value::Timeval(t) => S::Timeval(stored_tv(*t)),
        Value::Time(x) => S::Time(*x),
        Value::Status(x) => S::Status(*x),
        Value::Value(b) => S::Value(Box::new(to_stored(b))),
        Value::Proc(p) => S::Proc(stored_proc(p)),
        Value::App(a) => S::App(Box::new(StoredApp {
            cmd: opt_strz(&a.cmd),
            argv: strz_vec(&a.argv),
            env: strz_vec(&a.env),
            cwd: opt_strz(&a.cwd),
            maxprocs: a.maxprocs,
            info: a.info.iter().map(stored_info).collect(),
        })),
        Value::Info(i) => S::Info(Box::new(stored_info(i))),
        Value::PData(p) => S::PData(Box::new(StoredPData {
            proc: stored_proc(&p.proc),
            key: strz(p.key.as_c_str()),
            value: to_stored(&p.value),
        })),
        Value::ByteObject(b) => S::ByteObject(b.clone()),
        Value::Kval(k) => S::Kval(Box::new(StoredKval {
            key: opt_strz(&k.key),
            value: k.value.as_deref().map(|v| Box::new(to_stored(v))),
        })),
        Value::Persist(x) => S::Persist(*x),
        Value::Pointer(x) => S::Pointer(*x as u64),
        Value::Scope(x) => S::Scope(*x),
        Value::DataRange(x) => S::DataRange(*x),
        Value::Command(x) => S::Command(*x),
        Value::InfoDirectives(x) => S::InfoDirectives(*x),
        Value::DataType(x) => S::DataType(*x),
        Value::ProcState(x) => S::ProcState(*x),
        Value::ProcInfo(p) => S::ProcInfo(Box::new(StoredProcInfo {
            proc: stored_proc(&p.proc),
            hostname: opt_strz(&p.hostname),
            executable_name: opt_strz(&p.executable_name),
            pid: p.pid,
            exit_code: p.exit_code,
            state: p.state,
        })),
        Value::DataArray(a) => S::DataArray(Box::new(StoredArray::new(
            a.elem_type.raw(),
            a.items.iter().map(to_stored).collect(),
        ))),
        Value::ProcRank(x) => S::ProcRank(*x),
        Value::Query(q) => S::Query(Box::new(StoredQuery {
            keys: strz_vec(&q.keys),
            qualifiers: q.qualifiers.iter().map(stored_info).collect(),
        })),
        Value::CompressedString(b) => S::CompressedString(b.clone()),
        Value::AllocDirective(x) => S::AllocDirective(*x),
        Value::IofChannel(x) => S::IofChannel(*x),
        Value::Envar(e) => S::Envar(Box::new(StoredEnvar {
            envar: opt_strz(&e.envar),
            value: opt_strz(&e.value),
            separator: e.separator,
        })),
        Value::Coord(c) => S::Coord(Box::new(stored_coord(c))),
        Value::RegAttr(r) => S::RegAttr(Box::new(StoredRegAttr {
            name: opt_strz(&r.name),
            string: strz(r.string.as_c_str()),
            data_type: r.data_type,
            description: strz_vec(&r.description),
        })),
        Value::Regex(b) => S::Regex(b.clone()),
        Value::JobState(x) => S::JobState(*x),
        Value::LinkState(x) => S::LinkState(*x),
        Value::Cpuset(c) => S::Cpuset(Box::new(StoredCpuset {
            source: opt_strz(&c.source),
            bitmap: opt_strz(&c.bitmap),
        })),
        Value::Geometry(g) => S::Geometry(Box::new(StoredGeometry {
            fabric: g.fabric as u64,
            uuid: opt_strz(&g.uuid),
            osname: opt_strz(&g.osname),
            coordinates: g.coordinates.iter().map(stored_coord).collect(),
        })),
        Value::DeviceDist(d) => S::DeviceDist(Box::new(StoredDeviceDistance {
            uuid: opt_strz(&d.uuid),
            osname: opt_strz(&d.osname),
            dev_type: d.dev_type,
            mindist: d.mindist,
            maxdist: d.maxdist,
        })),
        Value::Endpoint(e) => S::Endpoint(Box::new(StoredEndpoint {
            uuid: opt_strz(&e.uuid),
            osname: opt_strz(&e.osname),
            endpt: e.endpt.clone(),
        })),
        Value::Topology(t) => S::Topology(Box::new(StoredTopology {
            source: opt_strz(&t.source),
            xml: opt_strz(&t.xml),
        })),
        Value::DevType(x) => S::DevType(*x),
        Value::LocType(x) => S::LocType(*x),
        Value::CompressedByteObject(b) => S::CompressedByteObject(b.clone()),
        Value::ProcNspace(n) => S::ProcNspace(strz(n.as_c_str())),
        Value::ProcStats(p) => S::ProcStats(Box::new(p.store())),
        Value::DiskStats(d) => S::DiskStats(Box::new(d.store())),
        Value::NetStats(n) => S::NetStats(Box::new(n.store())),
        Value::NodeStats(n) => S::NodeStats(Box::new(n.store())),
        Value::DataBuffer(b) => S::DataBuffer(b.clone()),
        Value::StorMedium(x) => S::StorMedium(*x),
        Value::StorAccess(x) => S::StorAccess(*x),
        Value::StorPersist(x) => S::StorPersist(*x),
        Value::StorAccessType(x) => S::StorAccessType(*x),
    }
}

impl From<&Value> for StoredValue {
    fn from(v: &Value) -> StoredValue {
        to_stored(v)
    }
}

// ---------------------------------------------------------------------------
// StoredValue -> Value

fn cstring(s: &StrZ) -> CString {
    s.as_c_str().to_owned()
}

fn opt_cstring(s: &Option<StrZ>) -> OptString {
    s.as_ref().map(cstring)
}

fn cstring_vec(v: &[StrZ]) -> Vec<CString> {
    v.iter().map(cstring).collect()
}

fn tv(t: StoredTimeval) -> Timeval {
    Timeval {
        sec: t.sec,
        usec: t.usec,
    }
}

fn nspace(s: &StrZ) -> Nspace {
    Nspace::truncated(s.as_c_str())
}

fn key(s: &StrZ) -> Key {
    Key::truncated(s.as_c_str())
}

fn proc_of(p: &StoredProc) -> Proc {
    Proc::new(nspace(&p.nspace), Rank(p.rank))
}

fn info_of(i: &StoredInfo) -> Info {
    Info {
        key: key(&i.key),
        flags: InfoDirectives(i.flags),
        value: from_stored(&i.value),
    }
}

fn coord_of(c: &StoredCoord) -> Coord {
    Coord {
        view: c.view,
        coord: c.coord.clone(),
    }
}

// ---------------------------------------------------------------------------
// The statistics structs, both ways

/// A statistics struct or one of its fields, in its segment form and
/// back. The structs' conversions are expanded from their one field list
/// ([`crate::value::stats_structs`]), field by field through this trait.
trait Stats: Sized {
    type Stored;
    fn store(&self) -> Self::Stored;
    fn load(s: &Self::Stored) -> Self;
}

impl Stats for OptString {
    type Stored = Option<StrZ>;
    fn store(&self) -> Option<StrZ> {
        opt_strz(self)
    }
    fn load(s: &Option<StrZ>) -> Self {
        opt_cstring(s)
    }
}

impl Stats for Proc {
    type Stored = StoredProc;
    fn store(&self) -> StoredProc {
        stored_proc(self)
    }
    fn load(s: &StoredProc) -> Self {
        proc_of(s)
    }
}

impl Stats for Timeval {
    type Stored = StoredTimeval;
    fn store(&self) -> StoredTimeval {
        stored_tv(*self)
    }
    fn load(s: &StoredTimeval) -> Self {
        tv(*s)
    }
}

/// Numbers are stored as they are.
macro_rules! stats_numbers {
    ($($t:ty),*) => {$(
        impl Stats for $t {
            type Stored = $t;
            fn store(&self) -> $t {
                *self
            }
            fn load(s: &$t) -> Self {
                *s
            }
        }
    )*};
}
stats_numbers!(u8, u16, i32, u64, f32);

impl<T: Stats> Stats for Vec<T> {
    type Stored = Vec<T::Stored>;
    fn store(&self) -> Vec<T::Stored> {
        self.iter().map(Stats::store).collect()
    }
    fn load(s: &Vec<T::Stored>) -> Self {
        s.iter().map(T::load).collect()
    }
}

macro_rules! stored_stats_conversions {
    ($( $core:ident / $stored:ident / $c:ident [$($eq:ident)?] {
        $( $f:ident : $t:ty $([count: $n:ident])? ),* $(,)?
    } )*) => {$(
        impl Stats for $core {
            type Stored = $stored;
            fn store(&self) -> $stored {
                $stored { $( $f: self.$f.store(), )* }
            }
            fn load(s: &$stored) -> Self {
                $core { $( $f: Stats::load(&s.$f), )* }
            }
        }
    )*};
}
crate::value::stats_structs!(stored_stats_conversions);

/// The data type of a raw tag; an unknown tag (only a forged segment holds
/// one) reads as `PMIX_UNDEF`.
fn data_type(t: u16) -> DataType {
    DataType::from_raw(t).unwrap_or(DataType::Undef)
}

/// One element of a packed array: `b` holds the element's
/// [`packed_width`] little-endian bytes.
fn packed_elem(elem_type: u16, b: &[u8]) -> Value {
    fn le<const N: usize>(b: &[u8]) -> [u8; N] {
        let mut a = [0u8; N];
        let n = b.len().min(N);
        a[..n].copy_from_slice(&b[..n]);
        a
    }
    let u8v = || b.first().copied().unwrap_or(0);
    let u16v = || u16::from_le_bytes(le(b));
    let u32v = || u32::from_le_bytes(le(b));
    let u64v = || u64::from_le_bytes(le(b));
    match elem_type {
        tag::BOOL => Value::Bool(u8v() != 0),
        tag::BYTE => Value::Byte(u8v()),
        tag::INT8 => Value::Int8(u8v() as i8),
        tag::UINT8 => Value::Uint8(u8v()),
        tag::PERSIST => Value::Persist(u8v()),
        tag::SCOPE => Value::Scope(u8v()),
        tag::DATA_RANGE => Value::DataRange(u8v()),
        tag::COMMAND => Value::Command(u8v()),
        tag::PROC_STATE => Value::ProcState(u8v()),
        tag::ALLOC_DIRECTIVE => Value::AllocDirective(u8v()),
        tag::JOB_STATE => Value::JobState(u8v()),
        tag::LINK_STATE => Value::LinkState(u8v()),
        tag::INT16 => Value::Int16(u16v() as i16),
        tag::UINT16 => Value::Uint16(u16v()),
        tag::DATA_TYPE => Value::DataType(u16v()),
        tag::IOF_CHANNEL => Value::IofChannel(u16v()),
        tag::LOCTYPE => Value::LocType(u16v()),
        tag::STOR_ACCESS_TYPE => Value::StorAccessType(u16v()),
        tag::INT => Value::Int(u32v() as i32),
        tag::INT32 => Value::Int32(u32v() as i32),
        tag::PID => Value::Pid(u32v() as i32),
        tag::STATUS => Value::Status(u32v() as i32),
        tag::UINT => Value::Uint(u32v()),
        tag::UINT32 => Value::Uint32(u32v()),
        tag::INFO_DIRECTIVES => Value::InfoDirectives(u32v()),
        tag::PROC_RANK => Value::ProcRank(u32v()),
        tag::FLOAT => Value::Float(f32::from_bits(u32v())),
        tag::SIZE => Value::Size(u64v() as usize),
        tag::POINTER => Value::Pointer(u64v() as usize),
        tag::INT64 => Value::Int64(u64v() as i64),
        tag::TIME => Value::Time(u64v() as i64),
        tag::UINT64 => Value::Uint64(u64v()),
        tag::DEVTYPE => Value::DevType(u64v()),
        tag::STOR_MEDIUM => Value::StorMedium(u64v()),
        tag::STOR_ACCESS => Value::StorAccess(u64v()),
        tag::STOR_PERSIST => Value::StorPersist(u64v()),
        tag::DOUBLE => Value::Double(f64::from_bits(u64v())),
        tag::TIMEVAL => Value::Timeval(Timeval {
            sec: u64::from_le_bytes(le(b)) as i64,
            usec: u64::from_le_bytes(le(b.get(8..).unwrap_or(&[]))) as i64,
        }),
        _ => Value::Undef,
    }
}

/// The elements of a packed array held in `bytes`.
fn unpack_elems(elem_type: u16, count: usize, bytes: &[u8]) -> Vec<Value> {
    let Some(w) = packed_width(elem_type) else {
        return Vec::new();
    };
    bytes
        .chunks_exact(w)
        .take(count)
        .map(|c| packed_elem(elem_type, c))
        .collect()
}

/// The owned value a stored value stands for (lossless; see the module
/// documentation).
pub fn from_stored(v: &StoredValue) -> Value {
    use StoredValue as S;
    match v {
        S::Undef => Value::Undef,
        S::Bool(x) => Value::Bool(*x),
        S::Byte(x) => Value::Byte(*x),
        S::String(s) => Value::String(opt_cstring(s)),
        S::Size(x) => Value::Size(*x as usize),
        S::Pid(x) => Value::Pid(*x),
        S::Int(x) => Value::Int(*x),
        S::Int8(x) => Value::Int8(*x),
        S::Int16(x) => Value::Int16(*x),
        S::Int32(x) => Value::Int32(*x),
        S::Int64(x) => Value::Int64(*x),
        S::Uint(x) => Value::Uint(*x),
        S::Uint8(x) => Value::Uint8(*x),
        S::Uint16(x) => Value::Uint16(*x),
        S::Uint32(x) => Value::Uint32(*x),
        S::Uint64(x) => Value::Uint64(*x),
        S::Float(x) => Value::Float(*x),
        S::Double(x) => Value::Double(*x),
        S::Timeval(t) => Value::Timeval(tv(*t)),
        S::Time(x) => Value::Time(*x),
        S::Status(x) => Value::Status(*x),
        S::Value(b) => Value::Value(Box::new(from_stored(b))),
        S::Proc(p) => Value::Proc(proc_of(p)),
        S::App(a) => Value::App(Box::new(App {
            cmd: opt_cstring(&a.cmd),
            argv: cstring_vec(&a.argv),
            env: cstring_vec(&a.env),
            cwd: opt_cstring(&a.cwd),
            maxprocs: a.maxprocs,
            info: a.info.iter().map(info_of).collect(),
        })),
        S::Info(i) => Value::Info(Box::new(info_of(i))),
        S::PData(p) => Value::PData(Box::new(PData {
            proc: proc_of(&p.proc),
            key: key(&p.key),
            value: from_stored(&p.value),
        })),
        S::ByteObject(b) => Value::ByteObject(b.clone()),
        S::Kval(k) => Value::Kval(Box::new(Kval {
            key: opt_cstring(&k.key),
            value: k.value.as_deref().map(|v| Box::new(from_stored(v))),
        })),
        S::Persist(x) => Value::Persist(*x),
        S::Pointer(x) => Value::Pointer(*x as usize),
        S::Scope(x) => Value::Scope(*x),
        S::DataRange(x) => Value::DataRange(*x),
        S::Command(x) => Value::Command(*x),
        S::InfoDirectives(x) => Value::InfoDirectives(*x),
        S::DataType(x) => Value::DataType(*x),
        S::ProcState(x) => Value::ProcState(*x),
        S::ProcInfo(p) => Value::ProcInfo(Box::new(ProcInfo {
            proc: proc_of(&p.proc),
            hostname: opt_cstring(&p.hostname),
            executable_name: opt_cstring(&p.executable_name),
            pid: p.pid,
            exit_code: p.exit_code,
            state: p.state,
        })),
        S::DataArray(a) => Value::DataArray(Box::new(match a.as_ref() {
            StoredArray::Packed {
                elem_type,
                count,
                words,
            } => {
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                DataArray {
                    elem_type: data_type(*elem_type),
                    items: unpack_elems(*elem_type, *count as usize, &bytes),
                }
            }
            StoredArray::Values { elem_type, items } => DataArray {
                elem_type: data_type(*elem_type),
                items: items.iter().map(from_stored).collect(),
            },
        })),
        S::ProcRank(x) => Value::ProcRank(*x),
        S::Query(q) => Value::Query(Box::new(Query {
            keys: cstring_vec(&q.keys),
            qualifiers: q.qualifiers.iter().map(info_of).collect(),
        })),
        S::CompressedString(b) => Value::CompressedString(b.clone()),
        S::AllocDirective(x) => Value::AllocDirective(*x),
        S::IofChannel(x) => Value::IofChannel(*x),
        S::Envar(e) => Value::Envar(Envar {
            envar: opt_cstring(&e.envar),
            value: opt_cstring(&e.value),
            separator: e.separator,
        }),
        S::Coord(c) => Value::Coord(Box::new(coord_of(c))),
        S::RegAttr(r) => Value::RegAttr(Box::new(RegAttr {
            name: opt_cstring(&r.name),
            string: key(&r.string),
            data_type: r.data_type,
            description: cstring_vec(&r.description),
        })),
        S::Regex(b) => Value::Regex(b.clone()),
        S::JobState(x) => Value::JobState(*x),
        S::LinkState(x) => Value::LinkState(*x),
        S::Cpuset(c) => Value::Cpuset(Box::new(Cpuset {
            source: opt_cstring(&c.source),
            bitmap: opt_cstring(&c.bitmap),
        })),
        S::Geometry(g) => Value::Geometry(Box::new(Geometry {
            fabric: g.fabric as usize,
            uuid: opt_cstring(&g.uuid),
            osname: opt_cstring(&g.osname),
            coordinates: g.coordinates.iter().map(coord_of).collect(),
        })),
        S::DeviceDist(d) => Value::DeviceDist(Box::new(DeviceDistance {
            uuid: opt_cstring(&d.uuid),
            osname: opt_cstring(&d.osname),
            dev_type: d.dev_type,
            mindist: d.mindist,
            maxdist: d.maxdist,
        })),
        S::Endpoint(e) => Value::Endpoint(Box::new(Endpoint {
            uuid: opt_cstring(&e.uuid),
            osname: opt_cstring(&e.osname),
            endpt: e.endpt.clone(),
        })),
        S::Topology(t) => Value::Topology(Box::new(Topology {
            source: opt_cstring(&t.source),
            xml: opt_cstring(&t.xml),
        })),
        S::DevType(x) => Value::DevType(*x),
        S::LocType(x) => Value::LocType(*x),
        S::CompressedByteObject(b) => Value::CompressedByteObject(b.clone()),
        S::ProcNspace(n) => Value::ProcNspace(nspace(n)),
        S::ProcStats(p) => Value::ProcStats(Box::new(Stats::load(&**p))),
        S::DiskStats(d) => Value::DiskStats(Box::new(Stats::load(&**d))),
        S::NetStats(n) => Value::NetStats(Box::new(Stats::load(&**n))),
        S::NodeStats(n) => Value::NodeStats(Box::new(Stats::load(&**n))),
        S::DataBuffer(b) => Value::DataBuffer(b.clone()),
        S::StorMedium(x) => Value::StorMedium(*x),
        S::StorAccess(x) => Value::StorAccess(*x),
        S::StorPersist(x) => Value::StorPersist(*x),
        S::StorAccessType(x) => Value::StorAccessType(*x),
    }
}

impl From<&StoredValue> for Value {
    fn from(v: &StoredValue) -> Value {
        from_stored(v)
    }
}

/// An owned copy of a value read from a segment (what `PMIx_Get` returns
/// without `PMIX_GET_POINTER_VALUES`). Allocates; strings and byte
/// payloads are copied once, composite values go through their stored
/// form.
pub fn from_ref(v: &ValueRef<'_>) -> Value {
    match *v {
        ValueRef::String(s) => Value::String(s.map(CStr::to_owned)),
        ValueRef::ByteObject(b) => Value::ByteObject(b.to_vec()),
        // The common scalars directly (the hot copy-mode get), not through
        // a stored value.
        ValueRef::Bool(x) => Value::Bool(x),
        ValueRef::Byte(x) => Value::Byte(x),
        ValueRef::Pid(x) => Value::Pid(x),
        ValueRef::Int(x) => Value::Int(x),
        ValueRef::Int8(x) => Value::Int8(x),
        ValueRef::Int16(x) => Value::Int16(x),
        ValueRef::Int32(x) => Value::Int32(x),
        ValueRef::Int64(x) => Value::Int64(x),
        ValueRef::Uint(x) => Value::Uint(x),
        ValueRef::Uint8(x) => Value::Uint8(x),
        ValueRef::Uint16(x) => Value::Uint16(x),
        ValueRef::Uint32(x) => Value::Uint32(x),
        ValueRef::Uint64(x) => Value::Uint64(x),
        ValueRef::Float(x) => Value::Float(x),
        ValueRef::Double(x) => Value::Double(x),
        _ => from_stored(&v.to_stored()),
    }
}

impl From<ValueRef<'_>> for Value {
    fn from(v: ValueRef<'_>) -> Value {
        from_ref(&v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{cstring, ValueGen};
    use pmix_shmem::{LookupKey, SegmentBuilder};
    use proptest::collection::vec;
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;

    /// Values as the stored form needs them: small strings, bounded floats.
    fn gen() -> ValueGen {
        ValueGen {
            string: cstring("[a-z0-9 .:/-]{0,12}"),
            key: "[a-z.]{1,16}".prop_map(|s| Key::new(s).unwrap()).boxed(),
            nspace: "[a-z0-9.-]{0,20}"
                .prop_map(|n| Nspace::new(n).unwrap())
                .boxed(),
            float: (-1.0e6f32..1.0e6).boxed(),
            double: (-1.0e12f64..1.0e12).boxed(),
            ..ValueGen::new()
        }
    }

    const PACKABLE: &[u16] = &[
        tag::BOOL,
        tag::BYTE,
        tag::INT8,
        tag::INT16,
        tag::UINT16,
        tag::INT32,
        tag::UINT32,
        tag::PROC_RANK,
        tag::FLOAT,
        tag::SIZE,
        tag::INT64,
        tag::UINT64,
        tag::DOUBLE,
        tag::TIMEVAL,
        tag::STATUS,
        tag::TIME,
        tag::PID,
        tag::STOR_ACCESS_TYPE,
        tag::JOB_STATE,
    ];

    fn leaf() -> BoxedStrategy<Value> {
        let g = gen();
        let scalars = ValueGen::scalar_types();
        // As often as any one scalar type:
        prop_oneof![
            scalars.len() as u32 => g.one_of(scalars),
            // Packed arrays: every element of the declared type.
            1 => proptest::sample::select(PACKABLE).prop_flat_map(move |t| {
                let t = DataType::from_raw(t).unwrap();
                vec(g.scalar(t), 0..9).prop_map(move |items| {
                    Value::DataArray(Box::new(DataArray { elem_type: t, items }))
                })
            }),
        ]
        .boxed()
    }

    /// Every data type, nested up to three levels.
    fn value() -> impl Strategy<Value = Value> {
        let g = gen();
        leaf().prop_recursive(3, 24, 4, move |inner| {
            let mut arms = g.nesting(inner.clone());
            // Arrays of values (not packed): mixed or composite items.
            arms.push(
                vec(inner.clone(), 0..4)
                    .prop_map(|items| {
                        Value::DataArray(Box::new(DataArray {
                            elem_type: DataType::Value,
                            items,
                        }))
                    })
                    .boxed(),
            );
            arms.push(vec(g.info(inner), 0..4).prop_map(Value::info_array).boxed());
            proptest::strategy::Union::new(arms)
        })
    }

    #[test]
    fn the_strategy_covers_every_data_type() {
        fn walk(v: &Value, seen: &mut std::collections::BTreeSet<u16>) {
            seen.insert(v.data_type().raw());
            match v {
                Value::Value(b) => walk(b, seen),
                Value::Info(i) => walk(&i.value, seen),
                Value::PData(p) => walk(&p.value, seen),
                Value::Kval(k) => k.value.iter().for_each(|v| walk(v, seen)),
                Value::DataArray(a) => a.items.iter().for_each(|v| walk(v, seen)),
                _ => {}
            }
        }
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = value();
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..3_000 {
            let v = strategy.new_tree(&mut runner).unwrap().current();
            walk(&v, &mut seen);
        }
        let all: std::collections::BTreeSet<u16> = DataType::ALL.iter().map(|t| t.raw()).collect();
        assert_eq!(seen, all);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn round_trip_through_stored(v in value()) {
            let s = to_stored(&v);
            prop_assert_eq!(s.data_type(), v.data_type().raw());
            prop_assert_eq!(from_stored(&s), v);
        }

        #[test]
        fn round_trip_through_a_segment(v in value()) {
            let mut b = SegmentBuilder::new("ns").unwrap();
            b.proc(3, "k", to_stored(&v)).unwrap();
            b.job("k", to_stored(&v)).unwrap();
            let seg = b.build().unwrap().open().unwrap();
            let key = LookupKey::from("k");
            let got = seg.proc_value(3, &key).unwrap().unwrap();
            prop_assert_eq!(from_ref(&got), v.clone());
            let got = seg.job_value(&key).unwrap().unwrap();
            prop_assert_eq!(Value::from(got), v);
        }
    }

    #[test]
    fn packed_arrays_unpack() {
        let v = Value::DataArray(Box::new(DataArray {
            elem_type: DataType::Uint16,
            items: vec![Value::Uint16(1), Value::Uint16(0xfffe), Value::Uint16(3)],
        }));
        let s = to_stored(&v);
        let StoredValue::DataArray(a) = &s else {
            panic!("not an array")
        };
        assert!(matches!(a.as_ref(), StoredArray::Packed { count: 3, .. }));
        assert_eq!(from_stored(&s), v);
        let t = Value::DataArray(Box::new(DataArray {
            elem_type: DataType::Timeval,
            items: vec![Value::Timeval(Timeval { sec: -1, usec: 7 })],
        }));
        assert_eq!(from_stored(&to_stored(&t)), t);
    }
}
