//! The PMIx constants this crate needs, mirrored from the standard (the core
//! crate depends on this one, not the other way round): data type tags,
//! reserved ranks and the scopes of posted data; and the id of an interned
//! key, which the builder and its process columns share.

/// A key interned in one builder (see
/// [`SegmentBuilder::key`](crate::SegmentBuilder::key)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeyId(pub(crate) u32);

/// `pmix_data_type_t` tags (values of the PMIx standard / OpenPMIx 4.2).
#[allow(missing_docs)]
pub mod tag {
    pub const UNDEF: u16 = 0;
    pub const BOOL: u16 = 1;
    pub const BYTE: u16 = 2;
    pub const STRING: u16 = 3;
    pub const SIZE: u16 = 4;
    pub const PID: u16 = 5;
    pub const INT: u16 = 6;
    pub const INT8: u16 = 7;
    pub const INT16: u16 = 8;
    pub const INT32: u16 = 9;
    pub const INT64: u16 = 10;
    pub const UINT: u16 = 11;
    pub const UINT8: u16 = 12;
    pub const UINT16: u16 = 13;
    pub const UINT32: u16 = 14;
    pub const UINT64: u16 = 15;
    pub const FLOAT: u16 = 16;
    pub const DOUBLE: u16 = 17;
    pub const TIMEVAL: u16 = 18;
    pub const TIME: u16 = 19;
    pub const STATUS: u16 = 20;
    pub const VALUE: u16 = 21;
    pub const PROC: u16 = 22;
    pub const APP: u16 = 23;
    pub const INFO: u16 = 24;
    pub const PDATA: u16 = 25;
    pub const BYTE_OBJECT: u16 = 27;
    pub const KVAL: u16 = 28;
    pub const PERSIST: u16 = 30;
    pub const POINTER: u16 = 31;
    pub const SCOPE: u16 = 32;
    pub const DATA_RANGE: u16 = 33;
    pub const COMMAND: u16 = 34;
    pub const INFO_DIRECTIVES: u16 = 35;
    pub const DATA_TYPE: u16 = 36;
    pub const PROC_STATE: u16 = 37;
    pub const PROC_INFO: u16 = 38;
    pub const DATA_ARRAY: u16 = 39;
    pub const PROC_RANK: u16 = 40;
    pub const QUERY: u16 = 41;
    pub const COMPRESSED_STRING: u16 = 42;
    pub const ALLOC_DIRECTIVE: u16 = 43;
    pub const IOF_CHANNEL: u16 = 45;
    pub const ENVAR: u16 = 46;
    pub const COORD: u16 = 47;
    pub const REGATTR: u16 = 48;
    pub const REGEX: u16 = 49;
    pub const JOB_STATE: u16 = 50;
    pub const LINK_STATE: u16 = 51;
    pub const PROC_CPUSET: u16 = 52;
    pub const GEOMETRY: u16 = 53;
    pub const DEVICE_DIST: u16 = 54;
    pub const ENDPOINT: u16 = 55;
    pub const TOPO: u16 = 56;
    pub const DEVTYPE: u16 = 57;
    pub const LOCTYPE: u16 = 58;
    pub const COMPRESSED_BYTE_OBJECT: u16 = 59;
    pub const PROC_NSPACE: u16 = 60;
    pub const PROC_STATS: u16 = 61;
    pub const DISK_STATS: u16 = 62;
    pub const NET_STATS: u16 = 63;
    pub const NODE_STATS: u16 = 64;
    pub const DATA_BUFFER: u16 = 65;
    pub const STOR_MEDIUM: u16 = 66;
    pub const STOR_ACCESS: u16 = 67;
    pub const STOR_PERSIST: u16 = 68;
    pub const STOR_ACCESS_TYPE: u16 = 69;
}

/// `PMIX_RANK_WILDCARD`: job-level data.
pub const RANK_WILDCARD: u32 = u32::MAX - 1;
/// `PMIX_RANK_UNDEF`.
pub const RANK_UNDEF: u32 = u32::MAX;

/// The scope a process posted a value with (`pmix_scope_t`, minus
/// `PMIX_SCOPE_UNDEF`, which the core maps to one of these).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// `PMIX_LOCAL`: visible to processes on the same node only.
    Local,
    /// `PMIX_REMOTE`: visible to processes on other nodes only.
    Remote,
    /// `PMIX_GLOBAL`: visible to every process.
    Global,
    /// `PMIX_INTERNAL`: kept for the library's own use.
    Internal,
}

impl Scope {
    /// Every scope, in the order a lookup consults them.
    pub const ALL: [Scope; 4] = [Scope::Global, Scope::Local, Scope::Remote, Scope::Internal];
    /// Number of scopes, i.e. posted-data rows per rank.
    pub const COUNT: u32 = 4;

    /// The `pmix_scope_t` value.
    pub const fn raw(self) -> u8 {
        match self {
            Scope::Local => 1,
            Scope::Remote => 2,
            Scope::Global => 3,
            Scope::Internal => 4,
        }
    }

    /// The scope of a `pmix_scope_t`, `None` for `PMIX_SCOPE_UNDEF` and
    /// unknown values.
    pub const fn from_raw(v: u8) -> Option<Scope> {
        match v {
            1 => Some(Scope::Local),
            2 => Some(Scope::Remote),
            3 => Some(Scope::Global),
            4 => Some(Scope::Internal),
            _ => None,
        }
    }

    /// Row of this scope within a rank's group of posted-data rows.
    pub(crate) const fn row(self) -> u32 {
        match self {
            Scope::Local => 0,
            Scope::Remote => 1,
            Scope::Global => 2,
            Scope::Internal => 3,
        }
    }
}

/// A set of scopes, for reads of posted data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scopes(u8);

impl Scopes {
    /// Every scope.
    pub const ALL: Scopes = Scopes(0b1111);
    /// What a process sees of a peer on its own node: local and global.
    pub const LOCAL_PEER: Scopes = Scopes(1 << 0 | 1 << 2);
    /// What a process sees of a peer on another node: remote and global.
    pub const REMOTE_PEER: Scopes = Scopes(1 << 1 | 1 << 2);

    /// The set holding only `s`.
    pub const fn only(s: Scope) -> Scopes {
        Scopes(1 << s.row())
    }

    /// True if `s` is in the set.
    pub const fn contains(self, s: Scope) -> bool {
        self.0 & (1 << s.row()) != 0
    }

    /// The union of two sets.
    pub const fn with(self, s: Scope) -> Scopes {
        Scopes(self.0 | 1 << s.row())
    }
}
