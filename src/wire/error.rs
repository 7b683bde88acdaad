//! Errors of the control plane and the statuses they stand for.

use crate::codec::CodecError;
use crate::Status;

/// Why a frame or a message was refused, or the connection failed.
///
/// Anything but [`WireError::Io`] and [`WireError::Closed`] means the peer
/// sent bytes that do not follow the protocol: the connection is closed.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The frame does not start with the protocol's magic number.
    #[error("bad frame magic {0:#06x}")]
    BadMagic(u16),
    /// The frame's header speaks another protocol version.
    #[error("unsupported frame version {0}")]
    BadVersion(u8),
    /// A message kind this side does not know or does not accept.
    #[error("unknown or unexpected message kind {0}")]
    UnknownKind(u16),
    /// Reserved header bits are set.
    #[error("reserved header field is {0:#x}, must be 0")]
    Reserved(u16),
    /// The body is longer than the connection accepts.
    #[error("frame of {len} bytes exceeds the limit of {max}")]
    TooLarge {
        /// Announced body length.
        len: u64,
        /// The connection's limit.
        max: u64,
    },
    /// More descriptors than a frame may carry, or descriptors where the
    /// connection accepts none.
    #[error("{got} descriptors where at most {max} are accepted")]
    TooManyFds {
        /// Descriptors announced or received.
        got: usize,
        /// The limit.
        max: usize,
    },
    /// A frame announced descriptors that did not arrive with it.
    #[error("frame announces {expected} descriptors, {got} arrived")]
    MissingFds {
        /// Announced in the header.
        expected: usize,
        /// Received and not yet claimed.
        got: usize,
    },
    /// The body does not decode as its kind's message.
    #[error("malformed {kind} body: {source}")]
    Body {
        /// Name of the message kind.
        kind: &'static str,
        /// What the codec refused.
        #[source]
        source: CodecError,
    },
    /// The body decodes but a field is out of range or inconsistent.
    #[error("invalid {kind} body: {what}")]
    Invalid {
        /// Name of the message kind.
        kind: &'static str,
        /// What is wrong.
        what: &'static str,
    },
    /// Bytes left after the body's last field.
    #[error("{0} trailing bytes after the message body")]
    Trailing(usize),
    /// A system call on the socket failed.
    #[error("socket error: {0}")]
    Io(#[from] std::io::Error),
    /// The peer closed the connection.
    #[error("connection closed by peer")]
    Closed,
}

impl WireError {
    /// The `pmix_status_t` reported for this error at the API's edge.
    pub fn status(&self) -> Status {
        match self {
            WireError::Io(_) | WireError::Closed => Status::ERR_LOST_CONNECTION,
            WireError::TooLarge { .. } | WireError::TooManyFds { .. } => {
                Status::ERR_OUT_OF_RESOURCE
            }
            _ => Status::ERR_COMM_FAILURE,
        }
    }
}

impl From<WireError> for Status {
    fn from(e: WireError) -> Status {
        e.status()
    }
}
