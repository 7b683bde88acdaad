//! Frames: a fixed 16-byte header, then the body.
//!
//! ```text
//! offset  size  field
//!      0     2  magic 0x5850 ("PX" little-endian)
//!      2     1  protocol version (1)
//!      3     1  number of descriptors attached (SCM_RIGHTS)
//!      4     2  message kind
//!      6     2  reserved, 0
//!      8     4  request id (a reply echoes its request's)
//!     12     4  body length in bytes
//! ```
//!
//! All fields little-endian. A frame that carries descriptors is sent by a
//! `sendmsg` whose data starts with the frame's first byte, so its
//! descriptors arrive no later than its header; the receiver queues
//! descriptors in arrival order and each frame claims its count.

use super::WireError;

/// Size of the frame header.
pub const HEADER_LEN: usize = 16;
/// Frame magic number.
pub const MAGIC: u16 = 0x5850;
/// Version of this protocol, in every header and in the handshake.
pub const PROTOCOL_VERSION: u8 = 1;
/// Most descriptors one frame may carry.
pub const MAX_FDS_PER_FRAME: usize = crate::net::MAX_FDS_PER_MSG;

macro_rules! kinds {
    ($($(#[$doc:meta])* $name:ident = $v:expr, $from_client:expr;)*) => {
        /// The kinds of message. Numbers are part of the protocol: never
        /// reuse one. Later kinds (publish/lookup, events, groups, spawn,
        /// query, log, job control, IOF, tools) take new numbers.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u16)]
        pub enum Kind {
            $($(#[$doc])* $name = $v,)*
        }

        impl Kind {
            /// The kind with number `v`, if known.
            pub fn from_u16(v: u16) -> Option<Kind> {
                match v {
                    $($v => Some(Kind::$name),)*
                    _ => None,
                }
            }

            /// True for kinds a client sends (a server accepts only these,
            /// a client only the others).
            pub fn from_client(self) -> bool {
                match self {
                    $(Kind::$name => $from_client,)*
                }
            }

            /// The kind's name, for errors and logs.
            pub fn name(self) -> &'static str {
                match self {
                    $(Kind::$name => stringify!($name),)*
                }
            }
        }
    };
}

kinds! {
    /// Client -> server: who I am and my secret.
    Handshake = 1, true;
    /// Server -> client: accepted or not, plus the segments to map.
    HandshakeReply = 2, false;
    /// Client -> server: data posted since the last commit.
    Commit = 3, true;
    /// Client -> server: enter a fence.
    FenceRequest = 4, true;
    /// Server -> client: the fence completed (or failed).
    FenceRelease = 5, false;
    /// Client -> server: a peer's data not in any segment.
    DmodexRequest = 6, true;
    /// Server -> client: that peer's data, or an error.
    DmodexReply = 7, false;
    /// Client -> server: `PMIx_Abort`.
    Abort = 8, true;
    /// Server -> client: what the host said to the abort.
    AbortReply = 9, false;
    /// Client -> server: `PMIx_Finalize`.
    Finalize = 10, true;
    /// Server -> client: finalize acknowledged.
    FinalizeReply = 11, false;
    /// Client -> server: a service request (publish, lookup, query, log,
    /// events, spawn, connect, ...), its operation named by an [`super::Op`].
    Request = 12, true;
    /// Server -> client: the answer to a `Request`.
    Response = 13, false;
    /// Server -> client, unsolicited (id 0): an event notification.
    Event = 14, false;
    /// Server -> client, before a `HandshakeReply` (same id): segments
    /// that did not fit its frame's descriptor limit.
    Segments = 32, false;
    /// Client -> server: the job segment and modex generations of another
    /// namespace (spawned, connected), for gets that name it.
    NspaceRequest = 15, true;
    /// Server -> client: those segments (descriptors), or an error.
    NspaceReply = 16, false;
    /// Tool -> server: the first message of a tool (no secret: the server
    /// checks the peer's uid), with the identity it asks for, if any.
    ToolHandshake = 17, true;
    /// Server -> tool: accepted or not, and the tool's identity.
    ToolHandshakeReply = 18, false;
    /// Server -> client, unsolicited (id 0): forwarded output for the
    /// client's IOF registrations (see [`super::iof`]).
    Iof = 33, false;
    /// Server -> client, unsolicited (id 0): a modex generation built
    /// before its fence, for the next collecting fence (see
    /// [`super::ModexOffer`]).
    ModexOffer = 34, false;
}

/// A decoded, validated frame header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The message kind.
    pub kind: Kind,
    /// Descriptors attached.
    pub nfds: u8,
    /// Request id.
    pub id: u32,
    /// Body length.
    pub len: u32,
}

impl Header {
    /// The header's bytes.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..2].copy_from_slice(&MAGIC.to_le_bytes());
        b[2] = PROTOCOL_VERSION;
        b[3] = self.nfds;
        b[4..6].copy_from_slice(&(self.kind as u16).to_le_bytes());
        b[8..12].copy_from_slice(&self.id.to_le_bytes());
        b[12..16].copy_from_slice(&self.len.to_le_bytes());
        b
    }

    /// Decodes and validates a header: magic, version, known kind,
    /// reserved bits, descriptor count and body length against
    /// `max_body`.
    pub fn decode(b: &[u8; HEADER_LEN], max_body: u32) -> Result<Header, WireError> {
        let le16 = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let le32 = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let magic = le16(0);
        if magic != MAGIC {
            return Err(WireError::BadMagic(magic));
        }
        if b[2] != PROTOCOL_VERSION {
            return Err(WireError::BadVersion(b[2]));
        }
        let raw_kind = le16(4);
        let kind = Kind::from_u16(raw_kind).ok_or(WireError::UnknownKind(raw_kind))?;
        let reserved = le16(6);
        if reserved != 0 {
            return Err(WireError::Reserved(reserved));
        }
        let nfds = b[3];
        if usize::from(nfds) > MAX_FDS_PER_FRAME {
            return Err(WireError::TooManyFds {
                got: nfds.into(),
                max: MAX_FDS_PER_FRAME,
            });
        }
        let len = le32(12);
        if len > max_body {
            return Err(WireError::TooLarge {
                len: len.into(),
                max: max_body.into(),
            });
        }
        Ok(Header {
            kind,
            nfds,
            id: le32(8),
            len,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips() {
        let h = Header {
            kind: Kind::FenceRelease,
            nfds: 3,
            id: 0xdead_beef,
            len: 1234,
        };
        assert_eq!(Header::decode(&h.encode(), 4096).unwrap(), h);
    }

    #[test]
    fn oversized_body_is_refused_before_reading_it() {
        let h = Header {
            kind: Kind::Commit,
            nfds: 0,
            id: 1,
            len: 5000,
        };
        assert!(matches!(
            Header::decode(&h.encode(), 4096),
            Err(WireError::TooLarge { len: 5000, .. })
        ));
    }

    #[test]
    fn unknown_kind_and_bad_magic_are_refused() {
        let mut b = Header {
            kind: Kind::Commit,
            nfds: 0,
            id: 1,
            len: 0,
        }
        .encode();
        b[4] = 0xff;
        assert!(matches!(
            Header::decode(&b, 10),
            Err(WireError::UnknownKind(0xff))
        ));
        b[0] = 0;
        assert!(matches!(
            Header::decode(&b, 10),
            Err(WireError::BadMagic(_))
        ));
    }
}
