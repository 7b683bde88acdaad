//! [`WireError`]: why a message of OpenPMIx's protocol was refused, and
//! the PMIx status each reason stands for.

use crate::codec::CodecError;
use crate::Status;

/// Why bytes from (or for) an OpenPMIx peer were refused.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// A header announcing more bytes than the limit for its message.
    #[error("message of {len} bytes exceeds the limit of {max}")]
    TooLarge { len: u64, max: u64 },
    /// The connect message ended before a field did, or a field is
    /// malformed (the field is named).
    #[error("malformed connect message: {0}")]
    Malformed(&'static str),
    /// A string field without its NUL inside the message.
    #[error("connect message: {0} is not NUL-terminated")]
    Unterminated(&'static str),
    /// A peer type flag this protocol does not define.
    #[error("unknown peer type flag {0}")]
    UnknownFlag(u8),
    /// Only munge was offered (or another psec module we do not have):
    /// the connection cannot be authenticated.
    #[error("security module {0:?} is not supported (only native and none are)")]
    UnsupportedPsec(String),
    /// A bfrops module we do not speak (`v12`, `v20`, `v21`, unknown).
    #[error("buffer format {0:?} is not supported (v3, v4 and v41 are)")]
    UnsupportedBfrops(String),
    /// A buffer type byte other than 1 (non-described) or 2 (described).
    #[error("unknown buffer type {0}")]
    UnknownBufferType(u8),
    /// A command byte no OpenPMIx version defines.
    #[error("unknown command {0}")]
    UnknownCommand(u8),
    /// A credential that does not hold what its module promises.
    #[error("bad credential: {0}")]
    BadCredential(&'static str),
    /// A server URI or address that cannot be parsed.
    #[error("bad server URI {uri:?}: {why}")]
    BadUri { uri: String, why: &'static str },
    /// The server refused the connection with this status.
    #[error("the server refused the connection: status {0}")]
    Refused(i32),
    /// A buffer that does not decode.
    #[error(transparent)]
    Codec(#[from] CodecError),
    /// The kernel would not tell (peer lookup) or the stream failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl WireError {
    /// The `pmix_status_t` for this error.
    pub fn status(&self) -> Status {
        match self {
            WireError::TooLarge { .. }
            | WireError::Malformed(_)
            | WireError::Unterminated(_)
            | WireError::UnknownFlag(_)
            | WireError::UnknownBufferType(_)
            | WireError::BadUri { .. } => Status::ERR_BAD_PARAM,
            WireError::UnsupportedPsec(_)
            | WireError::UnsupportedBfrops(_)
            | WireError::UnknownCommand(_) => Status::ERR_NOT_SUPPORTED,
            WireError::BadCredential(_) => Status::ERR_INVALID_CRED,
            WireError::Refused(s) => Status(*s),
            WireError::Codec(e) => e.status(),
            WireError::Io(_) => Status::ERR_UNREACH,
        }
    }
}

impl From<WireError> for Status {
    fn from(e: WireError) -> Status {
        e.status()
    }
}
