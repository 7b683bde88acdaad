//! Errors of building and of reading segments.

use std::fmt;

/// A part of a segment, named in errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// The fixed header.
    Header,
    /// The index archive.
    Index,
    /// Block number `n` (a sub-archive).
    Block(u32),
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Region::Header => f.write_str("header"),
            Region::Index => f.write_str("index"),
            Region::Block(n) => write!(f, "block {n}"),
        }
    }
}

/// What is wrong with a corrupt region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CorruptKind {
    /// Its bounds are outside the segment, or misaligned.
    BadRange,
    /// Its checksum does not match its bytes.
    Checksum,
    /// Its bytes are not a valid archive of its type.
    Invalid,
}

/// A lookup met a corrupt part of a segment. Small and `Copy`: the read
/// path carries it cheaply and never allocates for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{region}: {}", match kind {
    CorruptKind::BadRange => "lies outside the segment or is misaligned",
    CorruptKind::Checksum => "checksum mismatch: the segment is corrupt",
    CorruptKind::Invalid => "failed validation: the segment is corrupt",
})]
pub struct Corrupt {
    /// Where.
    pub region: Region,
    /// What.
    pub kind: CorruptKind,
}

impl From<Corrupt> for SegmentError {
    fn from(c: Corrupt) -> Self {
        match c.kind {
            CorruptKind::BadRange => SegmentError::BadRange(c.region),
            CorruptKind::Checksum => SegmentError::Checksum(c.region),
            CorruptKind::Invalid => SegmentError::Invalid(c.region),
        }
    }
}

/// Why a segment was refused. Every variant is cheap to build (no
/// allocation), so a refusal on the read path allocates nothing.
#[derive(Debug, thiserror::Error)]
pub enum SegmentError {
    /// Fewer bytes than a header.
    #[error("segment is {len} bytes, shorter than its {need}-byte header")]
    TooShort {
        /// Bytes available.
        len: u64,
        /// Bytes a header needs.
        need: u64,
    },
    /// The magic number is not ours: not a PMIx segment.
    #[error("not a PMIx shared-memory segment (bad magic)")]
    Foreign,
    /// Written by a library with another format version.
    #[error("segment format version {found}, this library reads version {expected}")]
    VersionSkew {
        /// Version in the header.
        found: u32,
        /// Version this library reads.
        expected: u32,
    },
    /// Written by a library whose archived types differ from ours.
    #[error("segment layout id {found:#018x} differs from this library's {expected:#018x}: written from another schema")]
    LayoutMismatch {
        /// Layout id in the header.
        found: u64,
        /// Layout id of this library.
        expected: u64,
    },
    /// The segment is not as long as its header says.
    #[error("segment header announces {expected} bytes but {actual} are there")]
    Truncated {
        /// Length in the header.
        expected: u64,
        /// Length of the mapping or buffer.
        actual: u64,
    },
    /// A region's bounds are outside the segment, or misaligned.
    #[error("{0} lies outside the segment or is misaligned")]
    BadRange(Region),
    /// A region's checksum does not match its bytes.
    #[error("{0} checksum mismatch: the segment is corrupt")]
    Checksum(Region),
    /// A region's bytes are not a valid archive of its type.
    #[error("{0} failed validation: the segment is corrupt")]
    Invalid(Region),
    /// The descriptor lacks seals a published segment must carry.
    #[error("segment descriptor is not sealed (seals {found:#x}, need {required:#x})")]
    NotSealed {
        /// Seals present (`F_GET_SEALS`).
        found: u32,
        /// Seals required.
        required: u32,
    },
    /// A system call failed.
    #[error("{op} failed: {source}")]
    Os {
        /// The call.
        op: &'static str,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// Why a segment could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Empty key, key with a NUL, or longer than `PMIX_MAX_KEYLEN`.
    #[error("invalid key {0:?}: empty, longer than 511 bytes, or holding a NUL")]
    BadKey(String),
    /// Namespace with a NUL or longer than `PMIX_MAX_NSLEN`.
    #[error("invalid namespace {0:?}: longer than 255 bytes or holding a NUL")]
    BadNspace(String),
    /// Hostname with a NUL.
    #[error("invalid hostname {0:?}: holds a NUL")]
    BadHostname(String),
    /// A rank at or above `PMIX_RANK_VALID`'s limit.
    #[error("rank {0} is not a valid process rank")]
    BadRank(u32),
    /// More distinct keys than a segment can number (2^24).
    #[error("more than 16777216 distinct keys in one segment")]
    TooManyKeys,
    /// A table larger than 32-bit offsets allow.
    #[error("a block of the segment exceeds 4 GiB")]
    TooLarge,
    /// A column of a [`ProcColumns`](crate::ProcColumns) names a row
    /// index another `ProcColumns` made.
    #[error("a process column names a row index of another set of columns")]
    BadColumn,
    /// rkyv refused to serialize.
    #[error("serialization failed: {0}")]
    Serialize(#[from] rkyv::rancor::Error),
    /// A system call failed while sealing.
    #[error("{op} failed: {source}")]
    Os {
        /// The call.
        op: &'static str,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}
