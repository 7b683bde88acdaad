//! Every archived type of a segment, and the layout id derived from them.
//!
//! The types are declared inside [`schema!`], which emits them unchanged and
//! also records their source text; [`LAYOUT_ID`] hashes that text together
//! with the size and alignment of every archived type and rkyv's byte
//! order. Any change to a name, a field, its type or order, an attribute, or
//! to rkyv's format features therefore changes the id: the id cannot be
//! forgotten when the schema changes, because nobody maintains it.
//!
//! Two families live here:
//! - *values* ([`StoredValue`] and the structs it holds): one variant per
//!   PMIx data type, strings NUL-terminated ([`StrZ`]) so a `char *` can
//!   point into the segment;
//! - *containers* ([`Index`], [`Table`], [`Dict`], [`BlockRef`], ...): the
//!   segment's index and the independently validated sub-archives ("blocks")
//!   it refers to.

use rkyv::{Archive, Deserialize, Serialize};

use crate::checksum::{fnv1a, FNV_OFFSET};

macro_rules! schema {
    ($($item:item)*) => {
        $($item)*

        /// Source text of every archived type, as the compiler saw it:
        /// these items, then the statistics structs' field list.
        pub const SCHEMA_TEXT: &str =
            concat!(stringify!($($item)*), stats_structs!(stringify));
    };
}

/// The segment's form of the statistics structs, declared from their one
/// field list ([`stats_structs!`](crate::stats_structs)): in this module the list's
/// vocabulary names the stored types.
mod stored_stats {
    use super::{Archive, Deserialize, Serialize, StoredProc, StoredTimeval, StrZ};

    type OptString = Option<StrZ>;
    type Proc = StoredProc;
    type Timeval = StoredTimeval;
    type DiskStats = StoredDiskStats;
    type NetStats = StoredNetStats;

    macro_rules! stored_stats {
        ($( $core:ident / $stored:ident / $c:ident [$($eq:ident)?] {
            $( $f:ident : $t:ty $([count: $n:ident])? ),* $(,)?
        } )*) => {$(
            #[doc = concat!("`", stringify!($c), "`.")]
            #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Default $(, $eq)?)]
            #[rkyv(derive(Debug))]
            pub struct $stored {
                $( pub $f: $t, )*
            }
        )*};
    }

    stats_structs!(stored_stats);
}

pub use stored_stats::*;

schema! {
    /// A C string: its bytes followed by exactly one NUL, so the archived
    /// bytes are a valid `char *` (checked when the archive is validated).
    #[derive(Archive, Serialize, Deserialize, Clone, PartialEq, Eq, Hash, Default)]
    #[rkyv(bytecheck(verify))]
    pub struct StrZ {
        pub(crate) bytes: Vec<u8>,
    }

    /// `struct timeval`.
    #[derive(Archive, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    #[rkyv(derive(Debug))]
    pub struct StoredTimeval {
        pub sec: i64,
        pub usec: i64,
    }

    /// `pmix_proc_t`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Hash, Default)]
    #[rkyv(derive(Debug))]
    pub struct StoredProc {
        pub nspace: StrZ,
        pub rank: u32,
    }

    /// `pmix_proc_info_t`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[rkyv(derive(Debug))]
    pub struct StoredProcInfo {
        pub proc: StoredProc,
        pub hostname: Option<StrZ>,
        pub executable_name: Option<StrZ>,
        pub pid: i32,
        pub exit_code: i32,
        pub state: u8,
    }

    /// `pmix_info_t`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[rkyv(derive(Debug))]
    #[rkyv(serialize_bounds(__S: rkyv::ser::Writer + rkyv::ser::Allocator, __S::Error: rkyv::rancor::Source))]
    #[rkyv(deserialize_bounds(__D::Error: rkyv::rancor::Source))]
    #[rkyv(bytecheck(bounds(__C: rkyv::validation::ArchiveContext, __C::Error: rkyv::rancor::Source)))]
    pub struct StoredInfo {
        pub key: StrZ,
        pub flags: u32,
        #[rkyv(omit_bounds)]
        pub value: StoredValue,
    }

    /// `pmix_pdata_t`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[rkyv(derive(Debug))]
    #[rkyv(serialize_bounds(__S: rkyv::ser::Writer + rkyv::ser::Allocator, __S::Error: rkyv::rancor::Source))]
    #[rkyv(deserialize_bounds(__D::Error: rkyv::rancor::Source))]
    #[rkyv(bytecheck(bounds(__C: rkyv::validation::ArchiveContext, __C::Error: rkyv::rancor::Source)))]
    pub struct StoredPData {
        pub proc: StoredProc,
        pub key: StrZ,
        #[rkyv(omit_bounds)]
        pub value: StoredValue,
    }

    /// `pmix_app_t`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[rkyv(derive(Debug))]
    #[rkyv(serialize_bounds(__S: rkyv::ser::Writer + rkyv::ser::Allocator, __S::Error: rkyv::rancor::Source))]
    #[rkyv(deserialize_bounds(__D::Error: rkyv::rancor::Source))]
    #[rkyv(bytecheck(bounds(__C: rkyv::validation::ArchiveContext, __C::Error: rkyv::rancor::Source)))]
    pub struct StoredApp {
        pub cmd: Option<StrZ>,
        pub argv: Vec<StrZ>,
        pub env: Vec<StrZ>,
        pub cwd: Option<StrZ>,
        pub maxprocs: i32,
        #[rkyv(omit_bounds)]
        pub info: Vec<StoredInfo>,
    }

    /// `pmix_query_t`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[rkyv(derive(Debug))]
    #[rkyv(serialize_bounds(__S: rkyv::ser::Writer + rkyv::ser::Allocator, __S::Error: rkyv::rancor::Source))]
    #[rkyv(deserialize_bounds(__D::Error: rkyv::rancor::Source))]
    #[rkyv(bytecheck(bounds(__C: rkyv::validation::ArchiveContext, __C::Error: rkyv::rancor::Source)))]
    pub struct StoredQuery {
        pub keys: Vec<StrZ>,
        #[rkyv(omit_bounds)]
        pub qualifiers: Vec<StoredInfo>,
    }

    /// OpenPMIx's `pmix_kval_t`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[rkyv(derive(Debug))]
    #[rkyv(serialize_bounds(__S: rkyv::ser::Writer + rkyv::ser::Allocator, __S::Error: rkyv::rancor::Source))]
    #[rkyv(deserialize_bounds(__D::Error: rkyv::rancor::Source))]
    #[rkyv(bytecheck(bounds(__C: rkyv::validation::ArchiveContext, __C::Error: rkyv::rancor::Source)))]
    pub struct StoredKval {
        pub key: Option<StrZ>,
        #[rkyv(omit_bounds)]
        pub value: Option<Box<StoredValue>>,
    }

    /// `pmix_envar_t`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
    #[rkyv(derive(Debug))]
    pub struct StoredEnvar {
        pub envar: Option<StrZ>,
        pub value: Option<StrZ>,
        pub separator: u8,
    }

    /// `pmix_coord_t`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
    #[rkyv(derive(Debug))]
    pub struct StoredCoord {
        pub view: u8,
        pub coord: Vec<u32>,
    }

    /// `pmix_regattr_t`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
    #[rkyv(derive(Debug))]
    pub struct StoredRegAttr {
        pub name: Option<StrZ>,
        pub string: StrZ,
        pub data_type: u16,
        pub description: Vec<StrZ>,
    }

    /// `pmix_geometry_t`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
    #[rkyv(derive(Debug))]
    pub struct StoredGeometry {
        pub fabric: u64,
        pub uuid: Option<StrZ>,
        pub osname: Option<StrZ>,
        pub coordinates: Vec<StoredCoord>,
    }

    /// `pmix_device_distance_t`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
    #[rkyv(derive(Debug))]
    pub struct StoredDeviceDistance {
        pub uuid: Option<StrZ>,
        pub osname: Option<StrZ>,
        pub dev_type: u64,
        pub mindist: u16,
        pub maxdist: u16,
    }

    /// `pmix_endpoint_t`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
    #[rkyv(derive(Debug))]
    pub struct StoredEndpoint {
        pub uuid: Option<StrZ>,
        pub osname: Option<StrZ>,
        pub endpt: Vec<u8>,
    }

    /// `pmix_cpuset_t`: the bitmap as its hwloc list string.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
    #[rkyv(derive(Debug))]
    pub struct StoredCpuset {
        pub source: Option<StrZ>,
        pub bitmap: Option<StrZ>,
    }

    /// `pmix_topology_t`: the topology as its hwloc XML.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
    #[rkyv(derive(Debug))]
    pub struct StoredTopology {
        pub source: Option<StrZ>,
        pub xml: Option<StrZ>,
    }

    /// `pmix_data_array_t`. Arrays of fixed-size scalars are *packed*: their
    /// elements laid out as in C (little-endian, 8-byte aligned), so a C
    /// `array` pointer can point at them; any other element type is a
    /// vector of values. Build with [`StoredValue::array`], which chooses.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[rkyv(derive(Debug))]
    #[rkyv(serialize_bounds(__S: rkyv::ser::Writer + rkyv::ser::Allocator, __S::Error: rkyv::rancor::Source))]
    #[rkyv(deserialize_bounds(__D::Error: rkyv::rancor::Source))]
    #[rkyv(bytecheck(bounds(__C: rkyv::validation::ArchiveContext, __C::Error: rkyv::rancor::Source)))]
    pub enum StoredArray {
        /// `count` elements of the C type of `elem_type`, packed in `words`.
        Packed { elem_type: u16, count: u32, words: Vec<u64> },
        /// Elements of any type, each a value.
        Values {
            elem_type: u16,
            #[rkyv(omit_bounds)]
            items: Vec<StoredValue>,
        },
    }

    /// Any PMIx datum: one variant per data type, as the core's `Value`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[rkyv(derive(Debug))]
    #[rkyv(serialize_bounds(__S: rkyv::ser::Writer + rkyv::ser::Allocator, __S::Error: rkyv::rancor::Source))]
    #[rkyv(deserialize_bounds(__D::Error: rkyv::rancor::Source))]
    #[rkyv(bytecheck(bounds(__C: rkyv::validation::ArchiveContext, __C::Error: rkyv::rancor::Source)))]
    pub enum StoredValue {
        #[default]
        Undef,
        Bool(bool),
        Byte(u8),
        String(Option<StrZ>),
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
        Value(#[rkyv(omit_bounds)] Box<StoredValue>),
        Proc(StoredProc),
        App(#[rkyv(omit_bounds)] Box<StoredApp>),
        Info(#[rkyv(omit_bounds)] Box<StoredInfo>),
        PData(#[rkyv(omit_bounds)] Box<StoredPData>),
        ByteObject(Vec<u8>),
        Kval(#[rkyv(omit_bounds)] Box<StoredKval>),
        Persist(u8),
        Pointer(u64),
        Scope(u8),
        DataRange(u8),
        Command(u8),
        InfoDirectives(u32),
        DataType(u16),
        ProcState(u8),
        ProcInfo(Box<StoredProcInfo>),
        DataArray(#[rkyv(omit_bounds)] Box<StoredArray>),
        ProcRank(u32),
        Query(#[rkyv(omit_bounds)] Box<StoredQuery>),
        CompressedString(Vec<u8>),
        AllocDirective(u8),
        IofChannel(u16),
        Envar(Box<StoredEnvar>),
        Coord(Box<StoredCoord>),
        RegAttr(Box<StoredRegAttr>),
        Regex(Vec<u8>),
        JobState(u8),
        LinkState(u8),
        Cpuset(Box<StoredCpuset>),
        Geometry(Box<StoredGeometry>),
        DeviceDist(Box<StoredDeviceDistance>),
        Endpoint(Box<StoredEndpoint>),
        Topology(Box<StoredTopology>),
        DevType(u64),
        LocType(u16),
        CompressedByteObject(Vec<u8>),
        ProcNspace(StrZ),
        ProcStats(Box<StoredProcStats>),
        DiskStats(Box<StoredDiskStats>),
        NetStats(Box<StoredNetStats>),
        NodeStats(Box<StoredNodeStats>),
        DataBuffer(Vec<u8>),
        StorMedium(u64),
        StorAccess(u64),
        StorPersist(u64),
        StorAccessType(u16),
    }

    /// Where a block (an independently validated sub-archive) lies in the
    /// segment, and the XXH64 of its bytes.
    #[derive(Archive, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
    #[rkyv(derive(Debug))]
    pub struct BlockRef {
        pub offset: u64,
        pub len: u64,
        pub checksum: u64,
    }

    /// A set of rows (ranks, nodes, apps, ...) cut into blocks of
    /// `1 << shift` rows: row `r` is row `r & mask` of block
    /// `first_block + (r >> shift)`.
    #[derive(Archive, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
    #[rkyv(derive(Debug))]
    pub struct RowSet {
        pub rows: u32,
        pub shift: u32,
        pub first_block: u32,
    }

    /// One key of one row: `key_tag` holds the key id (high 24 bits) and a
    /// tag (low 8 bits): a data type whose value fits in `data` (inline
    /// scalars); [`TAG_STR`] or [`TAG_BYTES`], in which case `data` locates
    /// a string or byte object in the table's `heap` (see [`heap_ref`]); or
    /// [`TAG_POOL`], in which case `data` indexes the table's value pool.
    #[derive(Archive, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
    #[rkyv(derive(Debug))]
    pub struct Cell {
        pub key_tag: u32,
        pub data: u32,
    }

    /// A block of rows: row `i` holds `cells[row_starts[i]..row_starts[i+1]]`,
    /// sorted by key id. Strings and byte objects of at most
    /// [`HEAP_MAX_LEN`] bytes live once per block in `heap` (a string with
    /// its NUL), addressed by the cell itself; other values that are not
    /// inline scalars live once per block in `pool`.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[rkyv(derive(Debug))]
    pub struct Table {
        pub row_starts: Vec<u32>,
        pub cells: Vec<Cell>,
        pub heap: Vec<u8>,
        pub pool: Vec<StoredValue>,
    }

    /// A string dictionary: `names[id]`, found by name through the open
    /// addressing table `slots` (power-of-two length, `key_hash` of the
    /// name, linear probing; a slot holds `id + 1` in its low 32 bits, 0
    /// when empty, and the high 32 bits of the name's hash in its high 32
    /// bits, so a probe compares names only when the hashes agree).
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
    #[rkyv(derive(Debug))]
    pub struct Dict {
        pub names: Vec<StrZ>,
        pub slots: Vec<u64>,
    }

    /// The root of a segment: what it holds and where its blocks are.
    #[derive(Archive, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[rkyv(derive(Debug))]
    pub struct Index {
        pub nspace: StrZ,
        pub generation: u64,
        /// Block of the key dictionary (key name -> key id).
        pub keys: Option<u32>,
        pub session: RowSet,
        pub job: RowSet,
        /// Row `i` of `apps` is application number `app_nums[i]` (sorted).
        pub apps: RowSet,
        pub app_nums: Vec<u32>,
        /// Row `i` of `nodes` is node id `node_ids[i]` (sorted).
        pub nodes: RowSet,
        pub node_ids: Vec<u32>,
        /// Block of the hostname dictionary (hostname -> node row).
        pub hostnames: Option<u32>,
        /// Row `r` is rank `r`.
        pub procs: RowSet,
        /// Row `r * 4 + s` is what rank `r` posted with scope row `s`.
        pub posted: RowSet,
        pub blocks: Vec<BlockRef>,
    }
}

/// Tag of a [`Cell`] whose value is in the table's pool.
pub const TAG_POOL: u8 = 0xFF;
/// Tag of a [`Cell`] holding a (non-NULL) string in the table's heap.
pub const TAG_STR: u8 = 0xFE;
/// Tag of a [`Cell`] holding a byte object in the table's heap.
pub const TAG_BYTES: u8 = 0xFD;
/// Bits of a heap cell's `data` giving the offset in the heap; the bits
/// above give the length: values up to 4 KiB (a typical endpoint blob, or
/// the 1 KiB ones of `benches/c`'s `modex32k_*`) go to the heap, where a
/// block holds them as one byte run and validates them by a range check,
/// in the first MiB of a block's heap.
pub const HEAP_OFFSET_BITS: u32 = 20;
/// Longest string (without its NUL) or byte object kept in a heap.
pub const HEAP_MAX_LEN: usize = (1 << (32 - HEAP_OFFSET_BITS)) - 1;
/// Largest heap offset a cell can address.
pub const HEAP_MAX_OFFSET: usize = (1 << HEAP_OFFSET_BITS) - 1;

/// `(offset, length)` of a heap cell's value: a byte object is
/// `heap[offset..offset + length]`, a string `heap[offset..=offset +
/// length]` (its NUL included).
#[inline(always)]
pub const fn heap_ref(data: u32) -> (usize, usize) {
    (
        (data & ((1 << HEAP_OFFSET_BITS) - 1)) as usize,
        (data >> HEAP_OFFSET_BITS) as usize,
    )
}
/// Key ids are 24 bits wide.
pub const MAX_KEYS: usize = 1 << 24;

const fn layout_probe(h: u64, size: usize, align: usize) -> u64 {
    let h = fnv1a(h, &(size as u64).to_le_bytes());
    fnv1a(h, &(align as u64).to_le_bytes())
}

macro_rules! probe_all {
    ($h:expr; $($t:ty),* $(,)?) => {{
        let mut h = $h;
        $( h = layout_probe(h, core::mem::size_of::<$t>(), core::mem::align_of::<$t>()); )*
        h
    }};
}

/// Identifies the archived layout: a hash of [`SCHEMA_TEXT`], of the size
/// and alignment of every archived type, of the byte order rkyv writes and
/// of the split of a heap cell ([`HEAP_OFFSET_BITS`]).
/// A reader refuses a segment whose layout id differs from its own.
pub const LAYOUT_ID: u64 = {
    let h = fnv1a(FNV_OFFSET, SCHEMA_TEXT.as_bytes());
    // Byte order of archived integers (the `little_endian`/`big_endian`
    // feature of rkyv), probed rather than assumed.
    let probe = <rkyv::Archived<u32>>::from_native(0x0102_0304);
    // SAFETY: `Archived<u32>` is a plain 4-byte integer wrapper with no
    // padding and no invalid bit patterns; reading it as bytes is sound.
    let bytes: [u8; 4] = unsafe { core::mem::transmute(probe) };
    let h = fnv1a(h, &bytes);
    // How a heap cell splits its 32 bits.
    let h = fnv1a(h, &HEAP_OFFSET_BITS.to_le_bytes());
    probe_all!(h;
        ArchivedStrZ, ArchivedStoredTimeval, ArchivedStoredProc,
        ArchivedStoredProcInfo, ArchivedStoredInfo, ArchivedStoredPData,
        ArchivedStoredApp, ArchivedStoredQuery, ArchivedStoredKval,
        ArchivedStoredEnvar, ArchivedStoredCoord, ArchivedStoredRegAttr,
        ArchivedStoredGeometry, ArchivedStoredDeviceDistance,
        ArchivedStoredEndpoint, ArchivedStoredCpuset, ArchivedStoredTopology,
        ArchivedStoredProcStats, ArchivedStoredDiskStats,
        ArchivedStoredNetStats, ArchivedStoredNodeStats, ArchivedStoredArray,
        ArchivedStoredValue, ArchivedBlockRef, ArchivedRowSet, ArchivedCell,
        ArchivedTable, ArchivedDict, ArchivedIndex,
        rkyv::vec::ArchivedVec<u8>, rkyv::boxed::ArchivedBox<u8>,
        rkyv::option::ArchivedOption<u32>,
    )
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archived_sizes_are_what_the_format_assumes() {
        use core::mem::{align_of, size_of};
        assert_eq!(size_of::<ArchivedCell>(), 8, "a cell is 8 bytes");
        assert_eq!(size_of::<ArchivedBlockRef>(), 24);
        assert_eq!(align_of::<ArchivedTable>(), 4);
        assert_eq!(
            size_of::<rkyv::vec::ArchivedVec<u8>>(),
            8,
            "32-bit relative pointers"
        );
        assert!(
            size_of::<ArchivedStoredValue>() <= 24,
            "{}",
            size_of::<ArchivedStoredValue>()
        );
        // rkyv writes little-endian.
        assert_eq!(<rkyv::Archived<u32>>::from_native(1).to_native(), 1);
    }

    #[test]
    fn layout_id_covers_the_schema_text() {
        for name in [
            "StoredValue",
            "StoredArray",
            "Table",
            "Cell",
            "Index",
            "Dict",
            "BlockRef",
            "StrZ",
        ] {
            assert!(
                SCHEMA_TEXT.contains(&format!("pub struct {name}"))
                    || SCHEMA_TEXT.contains(&format!("pub enum {name}")),
                "{name}"
            );
        }
        // The id is a function of the text: a one-token change moves it.
        let h = |t: &str| fnv1a(FNV_OFFSET, t.as_bytes());
        assert_ne!(
            h(SCHEMA_TEXT),
            h(&SCHEMA_TEXT.replacen("key_tag", "tag_key", 1))
        );
        assert_ne!(LAYOUT_ID, 0);
    }
}
