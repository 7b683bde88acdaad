//! `PMIx_Value_compare`: how two values order, with OpenPMIx 4.2's rules.
//!
//! The reference compares most scalars with `memcmp` over their native
//! (little-endian) bytes, not numerically: `256u32` is "less" than `1u32`
//! because its first byte is smaller. Structured types compare field by
//! field with their own rules (some answer `INCOMPATIBLE_OBJECTS` or
//! `COMPARISON_NOT_AVAIL`). Those rules are reproduced here on the core
//! data model so the C ABI and the Rust API agree with the reference.
//!
//! Where the reference reads garbage or crashes (arrays of strings compared
//! through their pointer bytes, arrays of cpusets or topologies compared
//! with themselves, `strcmp` on NULL), a sane comparison is made instead.

use std::cmp::Ordering;

use crate::print::{Hwloc, NoHwloc};
use crate::value::{
    Coord, DataArray, DeviceDistance, DiskStats, Endpoint, Envar, Geometry, NetStats, NodeStats,
    OptString, ProcInfo, ProcStats, RegAttr, Timeval,
};
use crate::{DataType, Info, Nspace, Proc, Value, MAX_NSLEN};

/// `pmix_value_cmp_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Comparison {
    Equal = 0,
    Value1Greater = 1,
    Value2Greater = 2,
    TypeDifferent = 3,
    IncompatibleObjects = 4,
    NotAvailable = 5,
}

use Comparison::{
    Equal, IncompatibleObjects, NotAvailable, TypeDifferent, Value1Greater, Value2Greater,
};

fn of(o: Ordering) -> Comparison {
    match o {
        Ordering::Less => Value2Greater,
        Ordering::Equal => Equal,
        Ordering::Greater => Value1Greater,
    }
}

/// `memcmp` of two byte strings of the same length.
fn mem(a: &[u8], b: &[u8]) -> Comparison {
    of(a.cmp(b))
}

/// `>` then `<` on a partially ordered field (floats: NaN compares equal).
fn gt<T: PartialOrd>(a: T, b: T) -> Comparison {
    if a > b {
        Value1Greater
    } else if a < b {
        Value2Greater
    } else {
        Equal
    }
}

/// First non-equal comparison.
macro_rules! chain {
    ($($e:expr),+ $(,)?) => {{
        $( let c = $e; if c != Equal { return c; } )+
        Equal
    }};
}

/// `cmp_string`: NULL is smallest, then `strcmp`.
fn strs(a: &OptString, b: &OptString) -> Comparison {
    match (a, b) {
        (None, None) => Equal,
        (Some(_), None) => Value1Greater,
        (None, Some(_)) => Value2Greater,
        (Some(a), Some(b)) => of(a.as_bytes().cmp(b.as_bytes())),
    }
}

fn nspace_bytes(n: &Nspace) -> [u8; MAX_NSLEN + 1] {
    let mut out = [0u8; MAX_NSLEN + 1];
    let b = n.as_bytes();
    out[..b.len()].copy_from_slice(b);
    out
}

/// `memcmp` of two `pmix_proc_t`.
fn procs(a: &Proc, b: &Proc) -> Comparison {
    chain!(
        mem(&nspace_bytes(&a.nspace), &nspace_bytes(&b.nspace)),
        mem(&a.rank.0.to_le_bytes(), &b.rank.0.to_le_bytes()),
    )
}

fn timeval_bytes(t: &Timeval) -> [u8; 16] {
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&t.sec.to_le_bytes());
    out[8..].copy_from_slice(&t.usec.to_le_bytes());
    out
}

fn timevals(a: &Timeval, b: &Timeval) -> Comparison {
    mem(&timeval_bytes(a), &timeval_bytes(b))
}

/// `cmp_byte_object`: longer is greater, then `memcmp`.
fn bytes(a: &[u8], b: &[u8]) -> Comparison {
    match a.len().cmp(&b.len()) {
        Ordering::Equal => mem(a, b),
        o => of(o),
    }
}

fn proc_infos(a: &ProcInfo, b: &ProcInfo) -> Comparison {
    chain!(
        procs(&a.proc, &b.proc),
        strs(&a.hostname, &b.hostname),
        strs(&a.executable_name, &b.executable_name),
        gt(a.pid, b.pid),
        gt(a.exit_code, b.exit_code),
    )
}

fn envars(a: &Envar, b: &Envar) -> Comparison {
    chain!(strs(&a.envar, &b.envar), strs(&a.value, &b.value), {
        // The reference tests `<` twice: a greater separator is never seen.
        if a.separator < b.separator {
            Value2Greater
        } else {
            Equal
        }
    })
}

fn coord_bytes(c: &[u32], n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| c.get(i).copied().unwrap_or(0).to_le_bytes())
        .collect()
}

fn coords(a: &Coord, b: &Coord) -> Comparison {
    if a.view != b.view {
        return IncompatibleObjects;
    }
    match (a.coord.is_empty(), b.coord.is_empty()) {
        (true, false) => return Value2Greater,
        (false, true) => return Value1Greater,
        _ => {}
    }
    // memcmp over the first value's dimensions.
    let n = a.coord.len();
    mem(&coord_bytes(&a.coord, n), &coord_bytes(&b.coord, n))
}

fn geometries(a: &Geometry, b: &Geometry) -> Comparison {
    if a.fabric != b.fabric {
        return IncompatibleObjects;
    }
    chain!(strs(&a.uuid, &b.uuid), strs(&a.osname, &b.osname), {
        match (a.coordinates.is_empty(), b.coordinates.is_empty()) {
            (true, true) => return Equal,
            (false, true) => return Value1Greater,
            (true, false) => return Value2Greater,
            _ => {}
        }
        match a.coordinates.len().cmp(&b.coordinates.len()) {
            Ordering::Equal => {}
            o => return of(o),
        }
        for (x, y) in a.coordinates.iter().zip(&b.coordinates) {
            let c = coords(x, y);
            if c != Equal {
                return c;
            }
        }
        Equal
    })
}

fn devdists(a: &DeviceDistance, b: &DeviceDistance) -> Comparison {
    if a.dev_type != b.dev_type {
        return IncompatibleObjects;
    }
    chain!(
        strs(&a.uuid, &b.uuid),
        strs(&a.osname, &b.osname),
        gt(a.mindist, b.mindist),
        gt(a.maxdist, b.maxdist),
    )
}

fn endpoints(a: &Endpoint, b: &Endpoint) -> Comparison {
    chain!(
        strs(&a.uuid, &b.uuid),
        strs(&a.osname, &b.osname),
        bytes(&a.endpt, &b.endpt),
    )
}

/// Statistics start with a name that must be present on one side.
fn named(a: &OptString, b: &OptString) -> Option<Comparison> {
    if a.is_none() && b.is_none() {
        Some(NotAvailable)
    } else {
        match strs(a, b) {
            Equal => None,
            c => Some(c),
        }
    }
}

/// Sub-arrays of node statistics: (non-empty, empty) is greater, two empty
/// ones count as "value 2 greater" (as the reference has it), then counts,
/// then elements.
fn stat_lists<T>(a: &[T], b: &[T], f: fn(&T, &T) -> Comparison) -> Comparison {
    match (a.is_empty(), b.is_empty()) {
        (false, true) => return Value1Greater,
        (true, true) => return Value2Greater,
        _ => {}
    }
    match a.len().cmp(&b.len()) {
        Ordering::Equal => {}
        o => return of(o),
    }
    for (x, y) in a.iter().zip(b) {
        let c = f(x, y);
        if c != Equal {
            return c;
        }
    }
    Equal
}

/// A statistics field compared as the reference does (`pmix_bfrops`'s
/// `cmp_*_stats`): the statistics structs' comparisons are expanded from
/// their one field list ([`crate::value::stats_structs`]) through this.
trait StatsField {
    fn compare(&self, other: &Self) -> Comparison;
}

impl StatsField for OptString {
    fn compare(&self, other: &Self) -> Comparison {
        strs(self, other)
    }
}

impl StatsField for Proc {
    fn compare(&self, other: &Self) -> Comparison {
        procs(self, other)
    }
}

impl StatsField for Timeval {
    fn compare(&self, other: &Self) -> Comparison {
        timevals(self, other)
    }
}

/// A process state is a (signed) C `char`.
impl StatsField for u8 {
    fn compare(&self, other: &Self) -> Comparison {
        gt(*self as i8, *other as i8)
    }
}

macro_rules! numbers_compare {
    ($($t:ty),*) => {$(
        impl StatsField for $t {
            fn compare(&self, other: &Self) -> Comparison {
                gt(*self, *other)
            }
        }
    )*};
}
numbers_compare!(u16, i32, u64, f32);

impl<T: StatsField> StatsField for Vec<T> {
    fn compare(&self, other: &Self) -> Comparison {
        stat_lists(self, other, T::compare)
    }
}

/// Statistics start with a name that must be present on one side, then
/// compare field by field.
macro_rules! stats_compare {
    ($( $core:ident / $stored:ident / $c:ident [$($eq:ident)?] {
        $name:ident : $nt:ty,
        $( $f:ident : $t:ty $([count: $n:ident])? ),* $(,)?
    } )*) => {$(
        impl StatsField for $core {
            fn compare(&self, other: &Self) -> Comparison {
                if let Some(c) = named(&self.$name, &other.$name) {
                    return c;
                }
                chain!($( self.$f.compare(&other.$f), )*)
            }
        }
    )*};
}
crate::value::stats_structs!(stats_compare);

fn regattrs(a: &RegAttr, b: &RegAttr) -> Comparison {
    if a.name.is_none() && b.name.is_none() {
        return NotAvailable;
    }
    chain!(
        strs(&a.name, &b.name),
        of(a.string.as_bytes().cmp(b.string.as_bytes())),
        gt(a.data_type, b.data_type),
        {
            match (a.description.is_empty(), b.description.is_empty()) {
                (true, true) => return Equal,
                (false, true) => return Value1Greater,
                (true, false) => return Value2Greater,
                _ => {}
            }
            match a.description.len().cmp(&b.description.len()) {
                Ordering::Equal => {}
                o => return of(o),
            }
            for (x, y) in a.description.iter().zip(&b.description) {
                let c = of(x.as_bytes().cmp(y.as_bytes()));
                if c != Equal {
                    return c;
                }
            }
            Equal
        },
    )
}

fn sources(a: &OptString, b: &OptString) -> Option<Comparison> {
    match (a, b) {
        (None, None) => Some(NotAvailable),
        (Some(x), Some(y)) if x == y => None,
        _ => Some(IncompatibleObjects),
    }
}

fn topologies(
    a: &crate::value::Topology,
    b: &crate::value::Topology,
    hw: &dyn Hwloc,
) -> Comparison {
    if let Some(c) = sources(&a.source, &b.source) {
        return c;
    }
    match (&a.xml, &b.xml) {
        (None, None) => Equal,
        (Some(_), None) => Value1Greater,
        (None, Some(_)) => Value2Greater,
        (Some(x), Some(y)) => match (hw.topology_tree(x), hw.topology_tree(y)) {
            (Some(p), Some(q)) => of(p.as_bytes().cmp(q.as_bytes())),
            _ => NotAvailable,
        },
    }
}

fn cpusets(a: &crate::value::Cpuset, b: &crate::value::Cpuset) -> Comparison {
    if let Some(c) = sources(&a.source, &b.source) {
        return c;
    }
    match (&a.bitmap, &b.bitmap) {
        (Some(x), Some(y)) => of(x.as_bytes().cmp(y.as_bytes())),
        _ => NotAvailable,
    }
}

fn infos(a: &Info, b: &Info, hw: &dyn Hwloc) -> Comparison {
    chain!(
        of(a.key.as_bytes().cmp(b.key.as_bytes())),
        compare_with(&a.value, &b.value, hw),
    )
}

/// Native bytes of a scalar value (what the reference hands `memcmp`), or
/// `None` for a value that is not a plain scalar.
fn scalar_bytes(v: &Value) -> Option<Vec<u8>> {
    Some(match v {
        Value::Bool(x) => vec![u8::from(*x)],
        Value::Byte(x)
        | Value::Uint8(x)
        | Value::Persist(x)
        | Value::Scope(x)
        | Value::DataRange(x)
        | Value::ProcState(x)
        | Value::AllocDirective(x)
        | Value::LinkState(x)
        | Value::JobState(x)
        | Value::Command(x) => vec![*x],
        Value::Int8(x) => vec![*x as u8],
        Value::Size(x) => x.to_le_bytes().to_vec(),
        Value::Pid(x) | Value::Int(x) | Value::Int32(x) | Value::Status(x) => {
            x.to_le_bytes().to_vec()
        }
        Value::Uint(x) | Value::Uint32(x) | Value::ProcRank(x) | Value::InfoDirectives(x) => {
            x.to_le_bytes().to_vec()
        }
        Value::Int16(x) => x.to_le_bytes().to_vec(),
        Value::Uint16(x)
        | Value::StorAccessType(x)
        | Value::LocType(x)
        | Value::DataType(x)
        | Value::IofChannel(x) => x.to_le_bytes().to_vec(),
        Value::Int64(x) | Value::Time(x) => x.to_le_bytes().to_vec(),
        Value::Uint64(x)
        | Value::StorMedium(x)
        | Value::StorAccess(x)
        | Value::StorPersist(x)
        | Value::DevType(x) => x.to_le_bytes().to_vec(),
        Value::Float(x) => x.to_bits().to_le_bytes().to_vec(),
        Value::Double(x) => x.to_bits().to_le_bytes().to_vec(),
        Value::Timeval(t) => timeval_bytes(t).to_vec(),
        Value::Pointer(p) => p.to_le_bytes().to_vec(),
        Value::ProcNspace(n) => nspace_bytes(n).to_vec(),
        Value::Proc(p) => {
            let mut b = nspace_bytes(&p.nspace).to_vec();
            b.extend_from_slice(&p.rank.0.to_le_bytes());
            b
        }
        _ => return None,
    })
}

/// Element types whose arrays the reference compares with one `memcmp`.
fn memcmp_array_type(t: DataType) -> bool {
    use DataType as T;
    matches!(
        t,
        T::Bool
            | T::Byte
            | T::Size
            | T::Pid
            | T::Int
            | T::Uint
            | T::Int8
            | T::Uint8
            | T::Int16
            | T::Uint16
            | T::StorAccessType
            | T::Int32
            | T::Uint32
            | T::Int64
            | T::Uint64
            | T::StorMedium
            | T::StorAccess
            | T::StorPersist
            | T::Float
            | T::Double
            | T::Timeval
            | T::Time
            | T::Status
            | T::ProcRank
            | T::ProcNspace
            | T::Proc
            | T::Persist
            | T::Scope
            | T::DataRange
            | T::ProcState
            | T::Pointer
            | T::AllocDirective
            | T::LinkState
            | T::JobState
            | T::LocType
            | T::DevType
    )
}

fn arrays(a: &DataArray, b: &DataArray, hw: &dyn Hwloc) -> Comparison {
    if a.elem_type != b.elem_type {
        return TypeDifferent;
    }
    match a.items.len().cmp(&b.items.len()) {
        Ordering::Equal => {}
        o => return of(o),
    }
    if a.items.is_empty() {
        return Equal;
    }
    let t = a.elem_type;
    if t == DataType::Undef {
        return Equal;
    }
    if memcmp_array_type(t) {
        let flat = |d: &DataArray| -> Vec<u8> {
            d.items.iter().filter_map(scalar_bytes).flatten().collect()
        };
        return mem(&flat(a), &flat(b));
    }
    if t == DataType::DataArray {
        // The reference compares the first elements only.
        return compare_with(&a.items[0], &b.items[0], hw);
    }
    let supported = matches!(
        t,
        DataType::String
            | DataType::Info
            | DataType::ByteObject
            | DataType::CompressedString
            | DataType::CompressedByteObject
            | DataType::Regex
            | DataType::ProcInfo
            | DataType::Envar
            | DataType::Coord
            | DataType::Topo
            | DataType::ProcCpuset
            | DataType::Geometry
            | DataType::DeviceDist
            | DataType::Endpoint
            | DataType::DataBuffer
            | DataType::ProcStats
            | DataType::DiskStats
            | DataType::NetStats
            | DataType::NodeStats
            | DataType::RegAttr
    );
    if !supported {
        return NotAvailable;
    }
    for (x, y) in a.items.iter().zip(&b.items) {
        let c = match (x, y) {
            (Value::Info(p), Value::Info(q)) => infos(p, q, hw),
            _ => compare_with(x, y, hw),
        };
        if c != Equal {
            return c;
        }
    }
    Equal
}

/// Compares two values as `PMIx_Value_compare` does, without hwloc
/// (topologies compare as not available).
pub fn compare(a: &Value, b: &Value) -> Comparison {
    compare_with(a, b, &NoHwloc)
}

/// Compares two values as `PMIx_Value_compare` does.
pub fn compare_with(a: &Value, b: &Value, hw: &dyn Hwloc) -> Comparison {
    if a.data_type() != b.data_type() {
        return TypeDifferent;
    }
    if let (Some(x), Some(y)) = (scalar_bytes(a), scalar_bytes(b)) {
        // The reference has no comparison for these, which no pmix_value_t
        // member holds.
        if matches!(
            a.data_type(),
            DataType::Command
                | DataType::InfoDirectives
                | DataType::DataType
                | DataType::IofChannel
        ) {
            return NotAvailable;
        }
        return mem(&x, &y);
    }
    match (a, b) {
        (Value::Undef, Value::Undef) => Equal,
        (Value::String(x), Value::String(y)) => strs(x, y),
        (Value::ByteObject(x), Value::ByteObject(y))
        | (Value::CompressedString(x), Value::CompressedString(y))
        | (Value::CompressedByteObject(x), Value::CompressedByteObject(y))
        | (Value::Regex(x), Value::Regex(y)) => bytes(x, y),
        (Value::ProcInfo(x), Value::ProcInfo(y)) => proc_infos(x, y),
        (Value::DataArray(x), Value::DataArray(y)) => arrays(x, y, hw),
        (Value::Envar(x), Value::Envar(y)) => envars(x, y),
        (Value::Coord(x), Value::Coord(y)) => coords(x, y),
        (Value::Topology(x), Value::Topology(y)) => topologies(x, y, hw),
        (Value::Cpuset(x), Value::Cpuset(y)) => cpusets(x, y),
        (Value::Geometry(x), Value::Geometry(y)) => geometries(x, y),
        (Value::DeviceDist(x), Value::DeviceDist(y)) => devdists(x, y),
        (Value::Endpoint(x), Value::Endpoint(y)) => endpoints(x, y),
        (Value::DataBuffer(x), Value::DataBuffer(y)) => match (x.is_empty(), y.is_empty()) {
            (true, true) => Equal,
            (false, true) => Value1Greater,
            (true, false) => Value2Greater,
            _ => bytes(x, y),
        },
        (Value::ProcStats(x), Value::ProcStats(y)) => x.compare(y),
        (Value::DiskStats(x), Value::DiskStats(y)) => x.compare(y),
        (Value::NetStats(x), Value::NetStats(y)) => x.compare(y),
        (Value::NodeStats(x), Value::NodeStats(y)) => x.compare(y),
        (Value::RegAttr(x), Value::RegAttr(y)) => regattrs(x, y),
        _ => NotAvailable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Key, Rank};

    #[test]
    fn statistics_compare_field_by_field() {
        let named = |n: &str| Some(std::ffi::CString::new(n).unwrap());
        let ps = |f: &dyn Fn(&mut ProcStats)| {
            let mut s = ProcStats {
                node: named("n1"),
                ..ProcStats::default()
            };
            f(&mut s);
            Value::ProcStats(Box::new(s))
        };
        let nothing = Value::ProcStats(Box::default());
        assert_eq!(compare(&nothing, &nothing), NotAvailable);
        assert_eq!(compare(&ps(&|_| {}), &nothing), Value1Greater);
        assert_eq!(compare(&ps(&|_| {}), &ps(&|_| {})), Equal);
        assert_eq!(
            compare(&ps(&|s| s.pid = 5), &ps(&|s| s.pid = 3)),
            Value1Greater
        );
        // The state is a signed C char.
        assert_eq!(
            compare(&ps(&|s| s.state = 200), &ps(&|s| s.state = 1)),
            Value2Greater
        );
        assert_eq!(
            compare(&ps(&|s| s.percent_cpu = 1.0), &ps(&|s| s.percent_cpu = 2.0)),
            Value2Greater
        );
        let disk = |n: u64| DiskStats {
            disk: named("sda"),
            num_sectors_read: n,
            ..DiskStats::default()
        };
        assert_eq!(
            compare(
                &Value::DiskStats(Box::new(disk(2))),
                &Value::DiskStats(Box::new(disk(1)))
            ),
            Value1Greater
        );
        let node = |d: Vec<DiskStats>| {
            Value::NodeStats(Box::new(NodeStats {
                node: named("n1"),
                diskstats: d,
                netstats: vec![NetStats {
                    net_interface: named("eth0"),
                    ..NetStats::default()
                }],
                ..NodeStats::default()
            }))
        };
        assert_eq!(compare(&node(vec![disk(1)]), &node(vec![])), Value1Greater);
        // Two empty lists: "value 2 greater", as the reference has it.
        assert_eq!(compare(&node(vec![]), &node(vec![])), Value2Greater);
        assert_eq!(compare(&node(vec![disk(1)]), &node(vec![disk(1)])), Equal);
        // A list element without its name is not comparable.
        let unnamed = Value::NodeStats(Box::new(NodeStats {
            node: named("n1"),
            diskstats: vec![disk(1)],
            netstats: vec![NetStats::default()],
            ..NodeStats::default()
        }));
        assert_eq!(compare(&unnamed, &unnamed), NotAvailable);
        assert_eq!(
            compare(&node(vec![disk(1)]), &node(vec![disk(3)])),
            Value2Greater
        );
    }

    #[test]
    fn scalars_compare_as_native_bytes() {
        assert_eq!(
            compare(&Value::Uint32(256), &Value::Uint32(1)),
            Value2Greater
        );
        assert_eq!(compare(&Value::Uint32(2), &Value::Uint32(1)), Value1Greater);
        assert_eq!(compare(&Value::Int8(-1), &Value::Int8(1)), Value1Greater);
        assert_eq!(compare(&Value::Uint8(7), &Value::Uint8(7)), Equal);
        assert_eq!(compare(&Value::Uint8(7), &Value::Int8(7)), TypeDifferent);
        assert_eq!(compare(&Value::Undef, &Value::Undef), Equal);
    }

    #[test]
    fn strings_and_bytes() {
        assert_eq!(
            compare(&Value::string("b"), &Value::string("a")),
            Value1Greater
        );
        assert_eq!(
            compare(&Value::String(None), &Value::string("a")),
            Value2Greater
        );
        assert_eq!(
            compare(&Value::ByteObject(vec![1, 2]), &Value::ByteObject(vec![9])),
            Value1Greater
        );
    }

    #[test]
    fn structured() {
        let p = |r| Value::Proc(Proc::new(Nspace::new("ns").unwrap(), Rank(r)));
        assert_eq!(compare(&p(1), &p(2)), Value2Greater);
        let c = |view, v: Vec<u32>| Value::Coord(Box::new(Coord { view, coord: v }));
        assert_eq!(compare(&c(1, vec![1]), &c(2, vec![1])), IncompatibleObjects);
        let info = |k: &str, v: u32| {
            Value::Info(Box::new(Info::new(Key::new(k).unwrap(), Value::Uint32(v))))
        };
        let arr = |items| {
            Value::DataArray(Box::new(DataArray {
                elem_type: DataType::Info,
                items,
            }))
        };
        assert_eq!(
            compare(&arr(vec![info("a", 1)]), &arr(vec![info("a", 1)])),
            Equal
        );
        assert_eq!(
            compare(&arr(vec![info("b", 1)]), &arr(vec![info("a", 1)])),
            Value1Greater
        );
        assert_eq!(
            compare(
                &Value::NodeStats(Box::default()),
                &Value::NodeStats(Box::default())
            ),
            NotAvailable
        );
    }
}
