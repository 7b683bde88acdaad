//! Building stored values, and reading them back as borrowed [`ValueRef`]s.
//!
//! [`StoredValue`] is what a writer is given (owned data; the core crate
//! converts its `Value` into it). [`ValueRef`] is what a reader gets: small
//! scalars by value, everything else borrowed from the segment — strings as
//! `&CStr` whose NUL-terminated bytes are the segment's own, byte payloads as
//! `&[u8]`, packed scalar arrays as C-layout bytes, composite types as the
//! archived structs themselves. Addresses are stable for as long as the
//! segment is mapped, which is what a `PMIX_GET_POINTER_VALUES` cache needs.

use std::ffi::{CStr, CString};

use rkyv::rancor::{Fallible, Source};
use rkyv::vec::ArchivedVec;

use crate::schema::*;
use crate::types::tag;

// ---------------------------------------------------------------------------
// StrZ

/// Error of [`StrZ::new`]: the bytes hold a NUL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("string holds a NUL byte at {0}")]
pub struct InteriorNul(pub usize);

impl StrZ {
    /// A C string from bytes without NUL.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Result<StrZ, InteriorNul> {
        let mut bytes = bytes.into();
        if let Some(p) = bytes.iter().position(|&b| b == 0) {
            return Err(InteriorNul(p));
        }
        bytes.push(0);
        Ok(StrZ { bytes })
    }

    /// The bytes, without the NUL.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.bytes.len().saturating_sub(1)]
    }

    /// The string as a `CStr`.
    pub fn as_c_str(&self) -> &CStr {
        CStr::from_bytes_with_nul(&self.bytes).unwrap_or_default()
    }
}

impl From<CString> for StrZ {
    fn from(c: CString) -> StrZ {
        StrZ {
            bytes: c.into_bytes_with_nul(),
        }
    }
}

impl From<&CStr> for StrZ {
    fn from(c: &CStr) -> StrZ {
        StrZ {
            bytes: c.to_bytes_with_nul().to_vec(),
        }
    }
}

impl TryFrom<&str> for StrZ {
    type Error = InteriorNul;
    fn try_from(s: &str) -> Result<StrZ, InteriorNul> {
        StrZ::new(s)
    }
}

impl std::fmt::Debug for StrZ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_c_str(), f)
    }
}

impl std::fmt::Debug for ArchivedStrZ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_c_str(), f)
    }
}

#[derive(Debug)]
struct NotNulTerminated;

impl std::fmt::Display for NotNulTerminated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("archived C string is not exactly NUL-terminated")
    }
}

impl std::error::Error for NotNulTerminated {}

// SAFETY: `verify` returns Ok only if the bytes end with a NUL and hold no
// other NUL, the invariant `ArchivedStrZ::as_c_str` relies on.
unsafe impl<C: Fallible + ?Sized> rkyv::bytecheck::Verify<C> for ArchivedStrZ
where
    C::Error: Source,
{
    fn verify(&self, _context: &mut C) -> Result<(), C::Error> {
        match self.bytes.as_slice().split_last() {
            Some((0, body)) if !body.contains(&0) => Ok(()),
            _ => Err(C::Error::new(NotNulTerminated)),
        }
    }
}

impl ArchivedStrZ {
    /// The string, pointing into the archive (NUL included).
    #[inline]
    pub fn as_c_str(&self) -> &CStr {
        let b = self.bytes.as_slice();
        debug_assert!(CStr::from_bytes_with_nul(b).is_ok());
        // SAFETY: an `ArchivedStrZ` is only reachable through a validated
        // archive (or `access_unchecked`, whose caller vouches for
        // validity), and validation runs `Verify`, which checked that `b`
        // ends with its only NUL.
        unsafe { CStr::from_bytes_with_nul_unchecked(b) }
    }

    /// The bytes, without the NUL.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        let b = self.bytes.as_slice();
        &b[..b.len().saturating_sub(1)]
    }

    /// An owned copy.
    pub fn to_owned_strz(&self) -> StrZ {
        StrZ {
            bytes: self.bytes.as_slice().to_vec(),
        }
    }
}

fn opt_c_str(o: &rkyv::option::ArchivedOption<ArchivedStrZ>) -> Option<&CStr> {
    o.as_ref().map(ArchivedStrZ::as_c_str)
}

// ---------------------------------------------------------------------------
// Building values

/// Width in bytes of one element of a packed array of `elem_type`, or `None`
/// if arrays of that type are stored as values.
pub const fn packed_width(elem_type: u16) -> Option<usize> {
    use tag::*;
    Some(match elem_type {
        BOOL | BYTE | INT8 | UINT8 | PERSIST | SCOPE | DATA_RANGE | COMMAND | PROC_STATE
        | ALLOC_DIRECTIVE | JOB_STATE | LINK_STATE => 1,
        INT16 | UINT16 | DATA_TYPE | IOF_CHANNEL | LOCTYPE | STOR_ACCESS_TYPE => 2,
        INT | INT32 | UINT | UINT32 | PID | STATUS | INFO_DIRECTIVES | PROC_RANK | FLOAT => 4,
        SIZE | INT64 | UINT64 | DOUBLE | TIME | DEVTYPE | STOR_MEDIUM | STOR_ACCESS
        | STOR_PERSIST | POINTER => 8,
        TIMEVAL => 16,
        _ => return None,
    })
}

impl StoredValue {
    /// A non-NULL string value. Panics never: a NUL in `s` truncates it.
    pub fn string(s: &str) -> StoredValue {
        let b = s.as_bytes();
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        StoredValue::String(Some(StrZ::new(&b[..end]).unwrap_or_default()))
    }

    /// A `pmix_data_array_t` of `elem_type`: packed in C layout when the
    /// type is a fixed-size scalar and every item is of that type, a vector
    /// of values otherwise.
    pub fn array(elem_type: u16, items: Vec<StoredValue>) -> StoredValue {
        StoredValue::DataArray(Box::new(StoredArray::new(elem_type, items)))
    }

    /// The data type tag of this value.
    pub fn data_type(&self) -> u16 {
        use StoredValue as V;
        match self {
            V::Undef => tag::UNDEF,
            V::Bool(_) => tag::BOOL,
            V::Byte(_) => tag::BYTE,
            V::String(_) => tag::STRING,
            V::Size(_) => tag::SIZE,
            V::Pid(_) => tag::PID,
            V::Int(_) => tag::INT,
            V::Int8(_) => tag::INT8,
            V::Int16(_) => tag::INT16,
            V::Int32(_) => tag::INT32,
            V::Int64(_) => tag::INT64,
            V::Uint(_) => tag::UINT,
            V::Uint8(_) => tag::UINT8,
            V::Uint16(_) => tag::UINT16,
            V::Uint32(_) => tag::UINT32,
            V::Uint64(_) => tag::UINT64,
            V::Float(_) => tag::FLOAT,
            V::Double(_) => tag::DOUBLE,
            V::Timeval(_) => tag::TIMEVAL,
            V::Time(_) => tag::TIME,
            V::Status(_) => tag::STATUS,
            V::Value(_) => tag::VALUE,
            V::Proc(_) => tag::PROC,
            V::App(_) => tag::APP,
            V::Info(_) => tag::INFO,
            V::PData(_) => tag::PDATA,
            V::ByteObject(_) => tag::BYTE_OBJECT,
            V::Kval(_) => tag::KVAL,
            V::Persist(_) => tag::PERSIST,
            V::Pointer(_) => tag::POINTER,
            V::Scope(_) => tag::SCOPE,
            V::DataRange(_) => tag::DATA_RANGE,
            V::Command(_) => tag::COMMAND,
            V::InfoDirectives(_) => tag::INFO_DIRECTIVES,
            V::DataType(_) => tag::DATA_TYPE,
            V::ProcState(_) => tag::PROC_STATE,
            V::ProcInfo(_) => tag::PROC_INFO,
            V::DataArray(_) => tag::DATA_ARRAY,
            V::ProcRank(_) => tag::PROC_RANK,
            V::Query(_) => tag::QUERY,
            V::CompressedString(_) => tag::COMPRESSED_STRING,
            V::AllocDirective(_) => tag::ALLOC_DIRECTIVE,
            V::IofChannel(_) => tag::IOF_CHANNEL,
            V::Envar(_) => tag::ENVAR,
            V::Coord(_) => tag::COORD,
            V::RegAttr(_) => tag::REGATTR,
            V::Regex(_) => tag::REGEX,
            V::JobState(_) => tag::JOB_STATE,
            V::LinkState(_) => tag::LINK_STATE,
            V::Cpuset(_) => tag::PROC_CPUSET,
            V::Geometry(_) => tag::GEOMETRY,
            V::DeviceDist(_) => tag::DEVICE_DIST,
            V::Endpoint(_) => tag::ENDPOINT,
            V::Topology(_) => tag::TOPO,
            V::DevType(_) => tag::DEVTYPE,
            V::LocType(_) => tag::LOCTYPE,
            V::CompressedByteObject(_) => tag::COMPRESSED_BYTE_OBJECT,
            V::ProcNspace(_) => tag::PROC_NSPACE,
            V::ProcStats(_) => tag::PROC_STATS,
            V::DiskStats(_) => tag::DISK_STATS,
            V::NetStats(_) => tag::NET_STATS,
            V::NodeStats(_) => tag::NODE_STATS,
            V::DataBuffer(_) => tag::DATA_BUFFER,
            V::StorMedium(_) => tag::STOR_MEDIUM,
            V::StorAccess(_) => tag::STOR_ACCESS,
            V::StorPersist(_) => tag::STOR_PERSIST,
            V::StorAccessType(_) => tag::STOR_ACCESS_TYPE,
        }
    }

    /// The value as an inline cell `(tag, data)` if it is a scalar of at
    /// most 32 bits.
    pub(crate) fn inline(&self) -> Option<(u8, u32)> {
        use StoredValue as V;
        let (t, d) = match *self {
            V::Undef => (tag::UNDEF, 0),
            V::Bool(b) => (tag::BOOL, u32::from(b)),
            V::Byte(v) => (tag::BYTE, u32::from(v)),
            V::Uint8(v) => (tag::UINT8, u32::from(v)),
            V::Persist(v) => (tag::PERSIST, u32::from(v)),
            V::Scope(v) => (tag::SCOPE, u32::from(v)),
            V::DataRange(v) => (tag::DATA_RANGE, u32::from(v)),
            V::Command(v) => (tag::COMMAND, u32::from(v)),
            V::ProcState(v) => (tag::PROC_STATE, u32::from(v)),
            V::AllocDirective(v) => (tag::ALLOC_DIRECTIVE, u32::from(v)),
            V::JobState(v) => (tag::JOB_STATE, u32::from(v)),
            V::LinkState(v) => (tag::LINK_STATE, u32::from(v)),
            V::Int8(v) => (tag::INT8, u32::from(v as u8)),
            V::Int16(v) => (tag::INT16, u32::from(v as u16)),
            V::Uint16(v) => (tag::UINT16, u32::from(v)),
            V::DataType(v) => (tag::DATA_TYPE, u32::from(v)),
            V::IofChannel(v) => (tag::IOF_CHANNEL, u32::from(v)),
            V::LocType(v) => (tag::LOCTYPE, u32::from(v)),
            V::StorAccessType(v) => (tag::STOR_ACCESS_TYPE, u32::from(v)),
            V::Pid(v) => (tag::PID, v as u32),
            V::Int(v) => (tag::INT, v as u32),
            V::Int32(v) => (tag::INT32, v as u32),
            V::Status(v) => (tag::STATUS, v as u32),
            V::Uint(v) => (tag::UINT, v),
            V::Uint32(v) => (tag::UINT32, v),
            V::InfoDirectives(v) => (tag::INFO_DIRECTIVES, v),
            V::ProcRank(v) => (tag::PROC_RANK, v),
            V::Float(v) => (tag::FLOAT, v.to_bits()),
            _ => return None,
        };
        Some((t as u8, d))
    }

    fn packed_bytes(&self, out: &mut Vec<u8>) {
        use StoredValue as V;
        match *self {
            V::Bool(b) => out.push(u8::from(b)),
            V::Timeval(t) => {
                out.extend_from_slice(&t.sec.to_le_bytes());
                out.extend_from_slice(&t.usec.to_le_bytes());
            }
            V::Size(v)
            | V::Uint64(v)
            | V::DevType(v)
            | V::StorMedium(v)
            | V::StorAccess(v)
            | V::StorPersist(v)
            | V::Pointer(v) => out.extend_from_slice(&v.to_le_bytes()),
            V::Int64(v) | V::Time(v) => out.extend_from_slice(&v.to_le_bytes()),
            V::Double(v) => out.extend_from_slice(&v.to_le_bytes()),
            _ => {
                // Every other packable type is an inline scalar.
                let (t, d) = self.inline().unwrap_or((0, 0));
                let w = packed_width(u16::from(t)).unwrap_or(0);
                out.extend_from_slice(&d.to_le_bytes()[..w.min(4)]);
            }
        }
    }
}

impl StoredArray {
    /// See [`StoredValue::array`].
    pub fn new(elem_type: u16, items: Vec<StoredValue>) -> StoredArray {
        let packable = packed_width(elem_type).is_some()
            && items.iter().all(|v| v.data_type() == elem_type)
            && u32::try_from(items.len()).is_ok();
        if !packable {
            return StoredArray::Values { elem_type, items };
        }
        let mut bytes = Vec::with_capacity(items.len() * packed_width(elem_type).unwrap_or(0) + 8);
        for v in &items {
            v.packed_bytes(&mut bytes);
        }
        let words = bytes
            .chunks(8)
            .map(|c| {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(w)
            })
            .collect();
        StoredArray::Packed {
            elem_type,
            count: items.len() as u32,
            words,
        }
    }
}

// ---------------------------------------------------------------------------
// Reading values

/// A process id and rank, borrowed from a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcRef<'a> {
    /// The namespace.
    pub nspace: &'a CStr,
    /// The rank.
    pub rank: u32,
}

impl ArchivedStoredProc {
    /// The process as a borrowed view.
    pub fn view(&self) -> ProcRef<'_> {
        ProcRef {
            nspace: self.nspace.as_c_str(),
            rank: self.rank.to_native(),
        }
    }
}

/// A `pmix_data_array_t`, borrowed from a segment.
#[derive(Clone, Copy, Debug)]
pub enum ArrayRef<'a> {
    /// Fixed-size scalars in C layout: `bytes` holds `count` elements of
    /// [`packed_width`]`(elem_type)` bytes each, 8-byte aligned.
    Packed {
        /// Element type.
        elem_type: u16,
        /// Number of elements.
        count: usize,
        /// The elements, little-endian, as C lays them out.
        bytes: &'a [u8],
    },
    /// Elements as archived values.
    Values {
        /// Element type.
        elem_type: u16,
        /// The elements.
        items: &'a ArchivedVec<ArchivedStoredValue>,
    },
}

impl<'a> ArrayRef<'a> {
    /// The element type.
    pub fn elem_type(&self) -> u16 {
        match *self {
            ArrayRef::Packed { elem_type, .. } | ArrayRef::Values { elem_type, .. } => elem_type,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match *self {
            ArrayRef::Packed { count, .. } => count,
            ArrayRef::Values { items, .. } => items.len(),
        }
    }

    /// True if there is no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`.
    pub fn get(&self, i: usize) -> Option<ValueRef<'a>> {
        match *self {
            ArrayRef::Packed {
                elem_type, bytes, ..
            } => {
                let w = packed_width(elem_type)?;
                let b = bytes.get(i.checked_mul(w)?..i.checked_mul(w)? + w)?;
                Some(decode_packed(elem_type, b))
            }
            ArrayRef::Values { items, .. } => items.get(i).map(ValueRef::from_archived),
        }
    }

    /// The elements in order.
    pub fn iter(&self) -> impl Iterator<Item = ValueRef<'a>> + '_ {
        (0..self.len()).filter_map(move |i| self.get(i))
    }
}

fn le<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut a = [0u8; N];
    if let Some(s) = b.get(at..at + N) {
        a.copy_from_slice(s);
    }
    a
}

fn pad8(c: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    let n = c.len().min(8);
    a[..n].copy_from_slice(&c[..n]);
    u64::from_le_bytes(a)
}

fn decode_packed(elem_type: u16, b: &[u8]) -> ValueRef<'static> {
    use ValueRef as R;
    match elem_type {
        tag::TIMEVAL => R::Timeval(StoredTimeval {
            sec: i64::from_le_bytes(le(b, 0)),
            usec: i64::from_le_bytes(le(b, 8)),
        }),
        tag::SIZE => R::Size(u64::from_le_bytes(le(b, 0))),
        tag::UINT64 => R::Uint64(u64::from_le_bytes(le(b, 0))),
        tag::DEVTYPE => R::DevType(u64::from_le_bytes(le(b, 0))),
        tag::STOR_MEDIUM => R::StorMedium(u64::from_le_bytes(le(b, 0))),
        tag::STOR_ACCESS => R::StorAccess(u64::from_le_bytes(le(b, 0))),
        tag::STOR_PERSIST => R::StorPersist(u64::from_le_bytes(le(b, 0))),
        tag::POINTER => R::Pointer(u64::from_le_bytes(le(b, 0))),
        tag::INT64 => R::Int64(i64::from_le_bytes(le(b, 0))),
        tag::TIME => R::Time(i64::from_le_bytes(le(b, 0))),
        tag::DOUBLE => R::Double(f64::from_le_bytes(le(b, 0))),
        t => {
            let w = packed_width(t).unwrap_or(0).min(4);
            let n = w.min(b.len());
            let mut d = [0u8; 4];
            d[..n].copy_from_slice(&b[..n]);
            decode_inline(t as u8, u32::from_le_bytes(d)).unwrap_or(R::Undef)
        }
    }
}

/// Decodes an inline cell; `None` if `t` is not an inline type.
#[inline(always)]
pub(crate) fn decode_inline(t: u8, d: u32) -> Option<ValueRef<'static>> {
    use ValueRef as R;
    Some(match u16::from(t) {
        tag::UNDEF => R::Undef,
        tag::BOOL => R::Bool(d != 0),
        tag::BYTE => R::Byte(d as u8),
        tag::UINT8 => R::Uint8(d as u8),
        tag::PERSIST => R::Persist(d as u8),
        tag::SCOPE => R::Scope(d as u8),
        tag::DATA_RANGE => R::DataRange(d as u8),
        tag::COMMAND => R::Command(d as u8),
        tag::PROC_STATE => R::ProcState(d as u8),
        tag::ALLOC_DIRECTIVE => R::AllocDirective(d as u8),
        tag::JOB_STATE => R::JobState(d as u8),
        tag::LINK_STATE => R::LinkState(d as u8),
        tag::INT8 => R::Int8(d as u8 as i8),
        tag::INT16 => R::Int16(d as u16 as i16),
        tag::UINT16 => R::Uint16(d as u16),
        tag::DATA_TYPE => R::DataType(d as u16),
        tag::IOF_CHANNEL => R::IofChannel(d as u16),
        tag::LOCTYPE => R::LocType(d as u16),
        tag::STOR_ACCESS_TYPE => R::StorAccessType(d as u16),
        tag::PID => R::Pid(d as i32),
        tag::INT => R::Int(d as i32),
        tag::INT32 => R::Int32(d as i32),
        tag::STATUS => R::Status(d as i32),
        tag::UINT => R::Uint(d),
        tag::UINT32 => R::Uint32(d),
        tag::INFO_DIRECTIVES => R::InfoDirectives(d),
        tag::PROC_RANK => R::ProcRank(d),
        tag::FLOAT => R::Float(f32::from_bits(d)),
        _ => return None,
    })
}

/// A value read from a segment: scalars by value, everything else borrowed
/// from the segment (zero-copy). One variant per PMIx data type.
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub enum ValueRef<'a> {
    Undef,
    Bool(bool),
    Byte(u8),
    /// `None` is a NULL `char *`.
    String(Option<&'a CStr>),
    Size(u64),
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
    Timeval(StoredTimeval),
    Time(i64),
    Status(i32),
    /// A nested value: [`ValueRef::from_archived`] reads it.
    Value(&'a ArchivedStoredValue),
    /// [`ArchivedStoredProc::view`] reads it.
    Proc(&'a ArchivedStoredProc),
    App(&'a ArchivedStoredApp),
    Info(&'a ArchivedStoredInfo),
    PData(&'a ArchivedStoredPData),
    ByteObject(&'a [u8]),
    Kval(&'a ArchivedStoredKval),
    Persist(u8),
    Pointer(u64),
    Scope(u8),
    DataRange(u8),
    Command(u8),
    InfoDirectives(u32),
    DataType(u16),
    ProcState(u8),
    ProcInfo(&'a ArchivedStoredProcInfo),
    /// [`ArchivedStoredArray::view`] reads it.
    DataArray(&'a ArchivedStoredArray),
    ProcRank(u32),
    Query(&'a ArchivedStoredQuery),
    CompressedString(&'a [u8]),
    AllocDirective(u8),
    IofChannel(u16),
    Envar(&'a ArchivedStoredEnvar),
    Coord(&'a ArchivedStoredCoord),
    RegAttr(&'a ArchivedStoredRegAttr),
    Regex(&'a [u8]),
    JobState(u8),
    LinkState(u8),
    Cpuset(&'a ArchivedStoredCpuset),
    Geometry(&'a ArchivedStoredGeometry),
    DeviceDist(&'a ArchivedStoredDeviceDistance),
    Endpoint(&'a ArchivedStoredEndpoint),
    Topology(&'a ArchivedStoredTopology),
    DevType(u64),
    LocType(u16),
    CompressedByteObject(&'a [u8]),
    ProcNspace(&'a CStr),
    ProcStats(&'a ArchivedStoredProcStats),
    DiskStats(&'a ArchivedStoredDiskStats),
    NetStats(&'a ArchivedStoredNetStats),
    NodeStats(&'a ArchivedStoredNodeStats),
    DataBuffer(&'a [u8]),
    StorMedium(u64),
    StorAccess(u64),
    StorPersist(u64),
    StorAccessType(u16),
}

fn packed_view(
    elem_type: u16,
    count: u32,
    words: &ArchivedVec<rkyv::Archived<u64>>,
) -> ArrayRef<'_> {
    let ws = words.as_slice();
    // SAFETY: `Archived<u64>` is an 8-byte integer wrapper without padding
    // or invalid bit patterns, so `ws.len() * 8` bytes starting at
    // `ws.as_ptr()` are initialized, aligned for `u8`, and live as long as
    // `ws`.
    let bytes = unsafe { std::slice::from_raw_parts(ws.as_ptr().cast::<u8>(), ws.len() * 8) };
    let w = packed_width(elem_type).unwrap_or(1);
    // A count larger than the words hold (a crafted segment) is clamped.
    let count = (count as usize).min(bytes.len() / w);
    ArrayRef::Packed {
        elem_type,
        count,
        bytes: &bytes[..count * w],
    }
}

impl ArchivedStoredArray {
    /// The array as a borrowed view (packed elements in C layout, or
    /// values).
    #[inline]
    pub fn view(&self) -> ArrayRef<'_> {
        match self {
            ArchivedStoredArray::Packed {
                elem_type,
                count,
                words,
            } => packed_view(elem_type.to_native(), count.to_native(), words),
            ArchivedStoredArray::Values { elem_type, items } => ArrayRef::Values {
                elem_type: elem_type.to_native(),
                items,
            },
        }
    }
}

impl<'a> ValueRef<'a> {
    /// Reads an archived value.
    pub fn from_archived(v: &'a ArchivedStoredValue) -> ValueRef<'a> {
        use ArchivedStoredValue as A;
        use ValueRef as R;
        match v {
            A::Undef => R::Undef,
            A::Bool(b) => R::Bool(*b),
            A::Byte(x) => R::Byte(*x),
            A::String(s) => R::String(opt_c_str(s)),
            A::Size(x) => R::Size(x.to_native()),
            A::Pid(x) => R::Pid(x.to_native()),
            A::Int(x) => R::Int(x.to_native()),
            A::Int8(x) => R::Int8(*x),
            A::Int16(x) => R::Int16(x.to_native()),
            A::Int32(x) => R::Int32(x.to_native()),
            A::Int64(x) => R::Int64(x.to_native()),
            A::Uint(x) => R::Uint(x.to_native()),
            A::Uint8(x) => R::Uint8(*x),
            A::Uint16(x) => R::Uint16(x.to_native()),
            A::Uint32(x) => R::Uint32(x.to_native()),
            A::Uint64(x) => R::Uint64(x.to_native()),
            A::Float(x) => R::Float(x.to_native()),
            A::Double(x) => R::Double(x.to_native()),
            A::Timeval(t) => R::Timeval(StoredTimeval {
                sec: t.sec.to_native(),
                usec: t.usec.to_native(),
            }),
            A::Time(x) => R::Time(x.to_native()),
            A::Status(x) => R::Status(x.to_native()),
            A::Value(b) => R::Value(b.get()),
            A::Proc(p) => R::Proc(p),
            A::App(b) => R::App(b.get()),
            A::Info(b) => R::Info(b.get()),
            A::PData(b) => R::PData(b.get()),
            A::ByteObject(b) => R::ByteObject(b.as_slice()),
            A::Kval(b) => R::Kval(b.get()),
            A::Persist(x) => R::Persist(*x),
            A::Pointer(x) => R::Pointer(x.to_native()),
            A::Scope(x) => R::Scope(*x),
            A::DataRange(x) => R::DataRange(*x),
            A::Command(x) => R::Command(*x),
            A::InfoDirectives(x) => R::InfoDirectives(x.to_native()),
            A::DataType(x) => R::DataType(x.to_native()),
            A::ProcState(x) => R::ProcState(*x),
            A::ProcInfo(b) => R::ProcInfo(b.get()),
            A::DataArray(b) => R::DataArray(b.get()),
            A::ProcRank(x) => R::ProcRank(x.to_native()),
            A::Query(b) => R::Query(b.get()),
            A::CompressedString(b) => R::CompressedString(b.as_slice()),
            A::AllocDirective(x) => R::AllocDirective(*x),
            A::IofChannel(x) => R::IofChannel(x.to_native()),
            A::Envar(b) => R::Envar(b.get()),
            A::Coord(b) => R::Coord(b.get()),
            A::RegAttr(b) => R::RegAttr(b.get()),
            A::Regex(b) => R::Regex(b.as_slice()),
            A::JobState(x) => R::JobState(*x),
            A::LinkState(x) => R::LinkState(*x),
            A::Cpuset(b) => R::Cpuset(b.get()),
            A::Geometry(b) => R::Geometry(b.get()),
            A::DeviceDist(b) => R::DeviceDist(b.get()),
            A::Endpoint(b) => R::Endpoint(b.get()),
            A::Topology(b) => R::Topology(b.get()),
            A::DevType(x) => R::DevType(x.to_native()),
            A::LocType(x) => R::LocType(x.to_native()),
            A::CompressedByteObject(b) => R::CompressedByteObject(b.as_slice()),
            A::ProcNspace(s) => R::ProcNspace(s.as_c_str()),
            A::ProcStats(b) => R::ProcStats(b.get()),
            A::DiskStats(b) => R::DiskStats(b.get()),
            A::NetStats(b) => R::NetStats(b.get()),
            A::NodeStats(b) => R::NodeStats(b.get()),
            A::DataBuffer(b) => R::DataBuffer(b.as_slice()),
            A::StorMedium(x) => R::StorMedium(x.to_native()),
            A::StorAccess(x) => R::StorAccess(x.to_native()),
            A::StorPersist(x) => R::StorPersist(x.to_native()),
            A::StorAccessType(x) => R::StorAccessType(x.to_native()),
        }
    }

    /// The string, if this is a non-NULL `PMIX_STRING`.
    pub fn as_c_str(&self) -> Option<&'a CStr> {
        match *self {
            ValueRef::String(s) => s,
            _ => None,
        }
    }

    /// The value as a `u32` if it is an unsigned integer type that fits.
    pub fn as_u32(&self) -> Option<u32> {
        match *self {
            ValueRef::Uint8(v) | ValueRef::Byte(v) => Some(v.into()),
            ValueRef::Uint16(v) => Some(v.into()),
            ValueRef::Uint32(v) | ValueRef::Uint(v) | ValueRef::ProcRank(v) => Some(v),
            ValueRef::Uint64(v) | ValueRef::Size(v) => u32::try_from(v).ok(),
            _ => None,
        }
    }

    /// An owned copy (allocates; not for the hot path).
    pub fn to_stored(&self) -> StoredValue {
        use StoredValue as V;
        use ValueRef as R;
        fn de<A, T>(a: &A) -> T
        where
            A: rkyv::Deserialize<T, rkyv::api::high::HighDeserializer<rkyv::rancor::Error>>,
            T: Default,
        {
            rkyv::deserialize::<T, rkyv::rancor::Error>(a).unwrap_or_default()
        }
        match *self {
            R::Undef => V::Undef,
            R::Bool(x) => V::Bool(x),
            R::Byte(x) => V::Byte(x),
            R::String(s) => V::String(s.map(StrZ::from)),
            R::Size(x) => V::Size(x),
            R::Pid(x) => V::Pid(x),
            R::Int(x) => V::Int(x),
            R::Int8(x) => V::Int8(x),
            R::Int16(x) => V::Int16(x),
            R::Int32(x) => V::Int32(x),
            R::Int64(x) => V::Int64(x),
            R::Uint(x) => V::Uint(x),
            R::Uint8(x) => V::Uint8(x),
            R::Uint16(x) => V::Uint16(x),
            R::Uint32(x) => V::Uint32(x),
            R::Uint64(x) => V::Uint64(x),
            R::Float(x) => V::Float(x),
            R::Double(x) => V::Double(x),
            R::Timeval(x) => V::Timeval(x),
            R::Time(x) => V::Time(x),
            R::Status(x) => V::Status(x),
            R::Value(v) => V::Value(Box::new(ValueRef::from_archived(v).to_stored())),
            R::Proc(p) => V::Proc(de(p)),
            R::App(a) => V::App(Box::new(de(a))),
            R::Info(a) => V::Info(Box::new(de(a))),
            R::PData(a) => V::PData(Box::new(de(a))),
            R::ByteObject(b) => V::ByteObject(b.to_vec()),
            R::Kval(a) => V::Kval(Box::new(de(a))),
            R::Persist(x) => V::Persist(x),
            R::Pointer(x) => V::Pointer(x),
            R::Scope(x) => V::Scope(x),
            R::DataRange(x) => V::DataRange(x),
            R::Command(x) => V::Command(x),
            R::InfoDirectives(x) => V::InfoDirectives(x),
            R::DataType(x) => V::DataType(x),
            R::ProcState(x) => V::ProcState(x),
            R::ProcInfo(a) => V::ProcInfo(Box::new(de(a))),
            R::DataArray(a) => V::DataArray(Box::new(match a.view() {
                ArrayRef::Packed {
                    elem_type,
                    count,
                    bytes,
                } => StoredArray::Packed {
                    elem_type,
                    count: count as u32,
                    words: bytes.chunks(8).map(pad8).collect(),
                },
                ArrayRef::Values { elem_type, items } => StoredArray::Values {
                    elem_type,
                    items: items
                        .iter()
                        .map(|v| ValueRef::from_archived(v).to_stored())
                        .collect(),
                },
            })),
            R::ProcRank(x) => V::ProcRank(x),
            R::Query(a) => V::Query(Box::new(de(a))),
            R::CompressedString(b) => V::CompressedString(b.to_vec()),
            R::AllocDirective(x) => V::AllocDirective(x),
            R::IofChannel(x) => V::IofChannel(x),
            R::Envar(a) => V::Envar(Box::new(de(a))),
            R::Coord(a) => V::Coord(Box::new(de(a))),
            R::RegAttr(a) => V::RegAttr(Box::new(de(a))),
            R::Regex(b) => V::Regex(b.to_vec()),
            R::JobState(x) => V::JobState(x),
            R::LinkState(x) => V::LinkState(x),
            R::Cpuset(a) => V::Cpuset(Box::new(de(a))),
            R::Geometry(a) => V::Geometry(Box::new(de(a))),
            R::DeviceDist(a) => V::DeviceDist(Box::new(de(a))),
            R::Endpoint(a) => V::Endpoint(Box::new(de(a))),
            R::Topology(a) => V::Topology(Box::new(de(a))),
            R::DevType(x) => V::DevType(x),
            R::LocType(x) => V::LocType(x),
            R::CompressedByteObject(b) => V::CompressedByteObject(b.to_vec()),
            R::ProcNspace(s) => V::ProcNspace(s.into()),
            R::ProcStats(a) => V::ProcStats(Box::new(de(a))),
            R::DiskStats(a) => V::DiskStats(Box::new(de(a))),
            R::NetStats(a) => V::NetStats(Box::new(de(a))),
            R::NodeStats(a) => V::NodeStats(Box::new(de(a))),
            R::DataBuffer(b) => V::DataBuffer(b.to_vec()),
            R::StorMedium(x) => V::StorMedium(x),
            R::StorAccess(x) => V::StorAccess(x),
            R::StorPersist(x) => V::StorPersist(x),
            R::StorAccessType(x) => V::StorAccessType(x),
        }
    }
}
