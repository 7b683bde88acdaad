//! Errors of the data-buffer codec and the PMIx statuses they stand for.

use crate::{DataType, Status};

/// Why packing or unpacking failed.
///
/// Every variant maps to the `pmix_status_t` that OpenPMIx 4.2 returns in
/// the same situation (see [`CodecError::status`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// The buffer ended before the item did.
    #[error("read past the end of the buffer")]
    ReadPastEnd,
    /// The buffer holds more values than the caller has room for.
    #[error("inadequate space: the buffer holds {total} values, room for {room}")]
    InadequateSpace { total: usize, room: usize },
    /// A data type tag that is not a PMIx type, or a type that cannot be
    /// packed (`PMIX_UNDEF` at top level).
    #[error("unknown or unsupported data type {0}")]
    UnknownType(u16),
    /// A value of one type was given where another was declared.
    #[error("type mismatch: declared {expected:?}, got {found:?}")]
    TypeMismatch { expected: DataType, found: DataType },
    /// A length or count field that is negative or larger than the data
    /// that can follow it.
    #[error("bad length or count {0}")]
    BadLength(i128),
    /// A variable-length integer whose value or encoding is too wide for
    /// its type.
    #[error("integer too wide for {0:?}")]
    IntTooWide(DataType),
    /// A packed string whose bytes hold no terminating NUL.
    #[error("string without a NUL terminator")]
    Unterminated,
    /// A NULL string where the structure requires one (a key, a namespace,
    /// an argv element).
    #[error("NULL string where a value is required")]
    NullString,
    /// An integer packed with a system-type tag (`PMIX_PID`) whose tag is
    /// not an integer type.
    #[error("integer packed with unexpected type tag {0}")]
    UnexpectedTag(u16),
    /// Structures nested deeper than [`MAX_DEPTH`](super::MAX_DEPTH).
    #[error("nesting deeper than {0} levels")]
    TooDeep(usize),
    /// The value cannot be packed (for example a cpuset whose source is not
    /// hwloc).
    #[error("not supported: {0}")]
    NotSupported(&'static str),
    /// A count that does not fit the wire format.
    #[error("bad parameter: {0}")]
    BadParam(&'static str),
    /// A type the peer's bfrops module does not register (see
    /// [`Module`](super::format::Module)): never sent, refused on receipt.
    #[error("type {ty} is not in bfrops module {module}")]
    NotInModule { module: &'static str, ty: u16 },
    /// A fully described buffer whose items carry another type than the
    /// one asked for.
    #[error("pack mismatch: expected type {expected}, buffer has {found}")]
    PackMismatch { expected: u16, found: u16 },
    /// A fully described buffer whose count is not tagged `PMIX_INT32`.
    #[error("described buffer: count tagged {0}, not PMIX_INT32")]
    CountNotFirst(u16),
}

impl CodecError {
    /// The `pmix_status_t` for this error.
    pub fn status(&self) -> Status {
        match self {
            CodecError::ReadPastEnd => Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
            CodecError::InadequateSpace { .. } => Status::ERR_UNPACK_INADEQUATE_SPACE,
            CodecError::UnknownType(_) => Status::ERR_UNKNOWN_DATA_TYPE,
            CodecError::TypeMismatch { .. } => Status::ERR_TYPE_MISMATCH,
            CodecError::BadLength(_)
            | CodecError::IntTooWide(_)
            | CodecError::Unterminated
            | CodecError::TooDeep(_) => Status::ERR_UNPACK_FAILURE,
            CodecError::NullString => Status::ERROR,
            CodecError::UnexpectedTag(_) => Status::ERR_NOT_FOUND,
            CodecError::NotSupported(_) => Status::ERR_NOT_SUPPORTED,
            CodecError::BadParam(_) => Status::ERR_BAD_PARAM,
            CodecError::NotInModule { .. } => Status::ERR_UNKNOWN_DATA_TYPE,
            // PMIX_ERR_PACK_MISMATCH
            CodecError::PackMismatch { .. } => Status(-22),
            CodecError::CountNotFirst(_) => Status::ERR_UNPACK_FAILURE,
        }
    }
}

impl From<CodecError> for Status {
    fn from(e: CodecError) -> Status {
        e.status()
    }
}
