//! `pmix_ptl_hdr_t`, the 16 bytes before every message, and the framing of
//! a byte stream into messages.
//!
//! Layout (LP64): `int32 pindex`, `uint32 tag`, `uint32 nbytes`, 4 bytes of
//! padding, then `nbytes` of payload. Byte order differs by message:
//!
//! - the client's **connect message** is sent as the client's memory holds
//!   it: host order, `pindex = -1`, `tag = UINT32_MAX`, and the server
//!   refuses `nbytes` above `PMIX_MAX_CRED_SIZE` (128 KiB);
//! - every later message has `pindex`, `tag` and `nbytes` in **network**
//!   order (the padding is not converted). Tags 0, 1 and 2 are reserved
//!   (notify, heartbeat, IOF); requests use tags from 100 up and their
//!   replies come back on the same tag. OpenPMIx limits later messages only
//!   if `ptl_base_max_msg_size` is set; we always do ([`FrameReader::new`]).
//!
//! Invariant of [`FrameReader`]: a header is checked against its limit
//! before any byte of its payload is kept, and the payload buffer grows
//! with the bytes that actually arrive, so a peer cannot make us allocate
//! more than it sends (nor more than the limit).

use std::collections::VecDeque;
use std::io::{self, Read};

use super::WireError;

/// Size of `pmix_ptl_hdr_t` on LP64.
pub const HEADER_LEN: usize = 16;
/// Tag of event notifications.
pub const TAG_NOTIFY: u32 = 0;
/// Tag of heartbeats.
pub const TAG_HEARTBEAT: u32 = 1;
/// Tag of forwarded output (IOF).
pub const TAG_IOF: u32 = 2;
/// First tag a sender allocates for a request.
pub const TAG_DYNAMIC: u32 = 100;
/// `pindex` of the connect message.
pub const CONNECT_PINDEX: i32 = -1;
/// `tag` of the connect message.
pub const CONNECT_TAG: u32 = u32::MAX;
/// `PMIX_MAX_CRED_SIZE`: the largest connect message a server accepts.
pub const MAX_CRED_SIZE: u32 = 128 * 1024;
/// Our default limit for a message after the connect message.
pub const DEFAULT_MAX_MESSAGE: u32 = 64 * 1024 * 1024;

/// Byte order of a header's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// As the sender's memory holds it (the connect message).
    Host,
    /// Network order (every later message).
    Network,
}

/// A decoded `pmix_ptl_hdr_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The sender's index at the server (`-1` before it has one).
    pub pindex: i32,
    /// The message's tag.
    pub tag: u32,
    /// Payload bytes after the header.
    pub nbytes: u32,
}

impl Header {
    /// The header of a connect message of `nbytes`.
    pub fn connect(nbytes: u32) -> Header {
        Header {
            pindex: CONNECT_PINDEX,
            tag: CONNECT_TAG,
            nbytes,
        }
    }

    /// The 16 bytes of this header in `order` (padding zero).
    pub fn encode(&self, order: Order) -> [u8; HEADER_LEN] {
        let (p, t, n) = match order {
            Order::Host => (
                self.pindex.to_ne_bytes(),
                self.tag.to_ne_bytes(),
                self.nbytes.to_ne_bytes(),
            ),
            Order::Network => (
                self.pindex.to_be_bytes(),
                self.tag.to_be_bytes(),
                self.nbytes.to_be_bytes(),
            ),
        };
        let mut b = [0u8; HEADER_LEN];
        b[0..4].copy_from_slice(&p);
        b[4..8].copy_from_slice(&t);
        b[8..12].copy_from_slice(&n);
        b
    }

    /// Decodes 16 bytes in `order` (the padding is ignored).
    pub fn decode(b: &[u8; HEADER_LEN], order: Order) -> Header {
        let word = |i: usize| [b[i], b[i + 1], b[i + 2], b[i + 3]];
        match order {
            Order::Host => Header {
                pindex: i32::from_ne_bytes(word(0)),
                tag: u32::from_ne_bytes(word(4)),
                nbytes: u32::from_ne_bytes(word(8)),
            },
            Order::Network => Header {
                pindex: i32::from_be_bytes(word(0)),
                tag: u32::from_be_bytes(word(4)),
                nbytes: u32::from_be_bytes(word(8)),
            },
        }
    }
}

/// A message with its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Its header (fields in host order whatever the wire order was).
    pub header: Header,
    /// The payload.
    pub payload: Vec<u8>,
}

impl Frame {
    /// The bytes of this frame on the wire in `order`.
    pub fn encode(&self, order: Order) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.payload.len());
        out.extend_from_slice(&self.header.encode(order));
        out.extend_from_slice(&self.payload);
        out
    }
}

/// Whether the peer is still there after [`FrameReader::read_from`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadState {
    /// More may come.
    Open,
    /// End of stream.
    Closed,
}

/// Reassembles frames from a byte stream that may deliver them in pieces.
#[derive(Debug)]
pub struct FrameReader {
    /// The next frame is the connect message (host order, its own limit).
    connect_next: bool,
    max_message: u32,
    head: [u8; HEADER_LEN],
    head_len: usize,
    body: Option<(Header, Vec<u8>)>,
    ready: VecDeque<Frame>,
}

impl FrameReader {
    /// A reader for a server's side of a connection: the first frame is
    /// the connect message; later ones may hold up to `max_message` bytes.
    pub fn server(max_message: u32) -> FrameReader {
        FrameReader {
            connect_next: true,
            ..FrameReader::new(max_message)
        }
    }

    /// A reader of ordinary (network-order) frames of at most
    /// `max_message` bytes, e.g. a client's after its handshake.
    pub fn new(max_message: u32) -> FrameReader {
        FrameReader {
            connect_next: false,
            max_message,
            head: [0; HEADER_LEN],
            head_len: 0,
            body: None,
            ready: VecDeque::new(),
        }
    }

    /// Whether no frame is partly received.
    pub fn is_idle(&self) -> bool {
        self.head_len == 0 && self.body.is_none()
    }

    /// The next complete frame, if any.
    pub fn next_frame(&mut self) -> Option<Frame> {
        self.ready.pop_front()
    }

    /// Takes in received bytes; complete frames become available through
    /// [`FrameReader::next_frame`]. After an error the connection must be
    /// dropped (the reader's position in the stream is lost).
    pub fn push(&mut self, mut data: &[u8]) -> Result<(), WireError> {
        while !data.is_empty() {
            if let Some((hdr, body)) = &mut self.body {
                let want = hdr.nbytes as usize - body.len();
                let n = want.min(data.len());
                body.extend_from_slice(&data[..n]);
                data = &data[n..];
                if body.len() == hdr.nbytes as usize {
                    let (header, payload) = self.body.take().expect("a body is in progress");
                    self.ready.push_back(Frame { header, payload });
                }
                continue;
            }
            let n = (HEADER_LEN - self.head_len).min(data.len());
            self.head[self.head_len..self.head_len + n].copy_from_slice(&data[..n]);
            self.head_len += n;
            data = &data[n..];
            if self.head_len == HEADER_LEN {
                self.head_len = 0;
                let header = self.check_header()?;
                if header.nbytes == 0 {
                    self.ready.push_back(Frame {
                        header,
                        payload: Vec::new(),
                    });
                } else {
                    let cap = (header.nbytes as usize).min(64 * 1024);
                    self.body = Some((header, Vec::with_capacity(cap)));
                }
            }
        }
        Ok(())
    }

    fn check_header(&mut self) -> Result<Header, WireError> {
        if self.connect_next {
            self.connect_next = false;
            let h = Header::decode(&self.head, Order::Host);
            if h.pindex != CONNECT_PINDEX || h.tag != CONNECT_TAG {
                return Err(WireError::Malformed("connect header"));
            }
            if h.nbytes > MAX_CRED_SIZE {
                return Err(WireError::TooLarge {
                    len: h.nbytes.into(),
                    max: MAX_CRED_SIZE.into(),
                });
            }
            return Ok(h);
        }
        let h = Header::decode(&self.head, Order::Network);
        if h.nbytes > self.max_message {
            return Err(WireError::TooLarge {
                len: h.nbytes.into(),
                max: self.max_message.into(),
            });
        }
        Ok(h)
    }

    /// Reads from a non-blocking stream until it would block or ends,
    /// framing what arrives.
    pub fn read_from(&mut self, r: &mut impl Read) -> Result<ReadState, WireError> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match r.read(&mut chunk) {
                Ok(0) => return Ok(ReadState::Closed),
                Ok(n) => self.push(&chunk[..n])?,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(ReadState::Open),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_header_round_trips_and_is_big_endian() {
        let h = Header {
            pindex: 3,
            tag: 101,
            nbytes: 0x0102,
        };
        let b = h.encode(Order::Network);
        assert_eq!(&b[..12], [0, 0, 0, 3, 0, 0, 0, 101, 0, 0, 1, 2]);
        assert_eq!(Header::decode(&b, Order::Network), h);
    }

    #[test]
    fn frames_split_anywhere_reassemble() {
        let mut wire = Frame {
            header: Header::connect(5),
            payload: b"hello".to_vec(),
        }
        .encode(Order::Host);
        for (tag, body) in [(100u32, &b"abc"[..]), (TAG_NOTIFY, &b""[..])] {
            let f = Frame {
                header: Header {
                    pindex: 7,
                    tag,
                    nbytes: body.len() as u32,
                },
                payload: body.to_vec(),
            };
            wire.extend(f.encode(Order::Network));
        }
        for step in 1..wire.len() {
            let mut r = FrameReader::server(1024);
            for piece in wire.chunks(step) {
                r.push(piece).unwrap();
            }
            assert_eq!(r.next_frame().unwrap().payload, b"hello");
            let f = r.next_frame().unwrap();
            assert_eq!(
                (f.header.pindex, f.header.tag, &f.payload[..]),
                (7, 100, &b"abc"[..])
            );
            assert_eq!(r.next_frame().unwrap().header.tag, TAG_NOTIFY);
            assert!(r.next_frame().is_none() && r.is_idle());
        }
    }

    #[test]
    fn oversized_messages_are_refused_before_their_payload() {
        let mut r = FrameReader::server(1024);
        let e = r
            .push(&Header::connect(MAX_CRED_SIZE + 1).encode(Order::Host))
            .unwrap_err();
        assert!(matches!(e, WireError::TooLarge { .. }));
        let mut r = FrameReader::new(1024);
        let h = Header {
            pindex: 0,
            tag: 100,
            nbytes: 1025,
        };
        assert!(r.push(&h.encode(Order::Network)).is_err());
        let mut r = FrameReader::server(1024);
        let bad = Header {
            pindex: 0,
            tag: 5,
            nbytes: 1,
        };
        assert!(matches!(
            r.push(&bad.encode(Order::Host)),
            Err(WireError::Malformed(_))
        ));
    }
}
