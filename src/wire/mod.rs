//! The control-plane protocol between a client and its local server.
//!
//! A connection carries length-prefixed frames ([`frame`]): a 16-byte
//! header (magic, version, descriptor count, message kind, request id,
//! body length) and a body encoded with the data-buffer codec
//! ([`body`]). Descriptors of shared-memory segments travel beside the
//! bytes (`SCM_RIGHTS`).
//!
//! Conversation:
//!
//! | client sends | server answers |
//! |---|---|
//! | `Handshake` (version, proc, secret) | `HandshakeReply` (status, server id, job + modex segments as fds) |
//! | `Commit` (posted values since the last commit) | nothing |
//! | `FenceRequest` (procs, infos) | `FenceRelease` (status, new modex segments as fds) |
//! | `DmodexRequest` (proc, key, infos) | `DmodexReply` (status, the proc's data as a [`blob`]) |
//! | `Abort` (status, message, procs) | `AbortReply` (status) |
//! | `Finalize` | `FinalizeReply` (status) |
//! | `Request` (operation number, body in the service's encoding) | `Response` (status, body) |
//! | | `Event` (id 0, unsolicited: an event notification) |
//! | | `Iof` (id 0, unsolicited: forwarded output, see [`iof`]) |
//! | | `ModexOffer` (id 0, unsolicited: commits covered, modex segments built before their fence, as fds) |
//!
//! A reply carries its request's id. Every inbound frame is validated
//! before use: the header first (known kind for this direction, length
//! under the connection's limit, descriptor count), then the body (every
//! field decoded and range-checked, no trailing bytes, descriptor count
//! equal to the segments listed). A frame that fails is a protocol error:
//! the connection is closed. Errors are [`WireError`]s, mapped to a
//! [`Status`](crate::Status) at the API's edge.

pub mod blob;
pub mod body;
mod conn;
pub mod directives;
mod error;
pub mod frame;
pub mod group;
pub mod iof;
mod message;
pub mod process_mgmt;
pub mod pubsub;
pub mod rm;

pub use conn::{Connection, Frame, ReadState};
pub use directives::{flag, int, Directives};
pub use error::WireError;
pub use frame::{Header, Kind, HEADER_LEN, PROTOCOL_VERSION};
pub use message::{
    get_posted, merge_posted, put_posted, Abort, DmodexReply, DmodexRequest, FenceRelease,
    FenceRequest, Handshake, HandshakeReply, Message, ModexOffer, NspaceReply, Op, Posted, Request,
    Response, SegmentKind, SegmentRef, ToolHandshake, ToolHandshakeReply, MAX_SECRET_LEN,
};

/// Default limit of a frame body once a client is authenticated.
pub const DEFAULT_MAX_BODY: u32 = 256 << 20;
/// Limit of a frame body before authentication (a handshake is small).
pub const HANDSHAKE_MAX_BODY: u32 = 4096;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Stream;
    use crate::{Info, Key, Nspace, Proc, Rank, Status, Value};
    use pmix_shmem::Scope;

    fn proc(r: u32) -> Proc {
        Proc::new(Nspace::new("ns-test").unwrap(), Rank(r))
    }

    fn samples() -> Vec<Message> {
        vec![
            Message::Handshake(Handshake {
                version: 1,
                proc: proc(3),
                secret: b"0123456789abcdef".to_vec(),
            }),
            Message::HandshakeReply(HandshakeReply {
                status: Status::SUCCESS,
                server: proc(u32::MAX - 1),
                segments: vec![],
            }),
            Message::Commit(vec![Posted {
                scope: Scope::Remote,
                key: Key::new("my.key").unwrap(),
                value: Value::ByteObject(vec![1, 2, 3]),
            }]),
            Message::FenceRequest(FenceRequest {
                procs: vec![proc(0), proc(1)],
                infos: vec![Info::new(
                    Key::new(crate::keys::COLLECT_DATA).unwrap(),
                    Value::Bool(true),
                )],
            }),
            Message::FenceRelease(FenceRelease {
                status: Status::ERR_LOST_CONNECTION,
                segments: vec![],
            }),
            Message::DmodexRequest(DmodexRequest {
                proc: proc(2),
                key: Some(Key::new("k").unwrap()),
                infos: vec![],
            }),
            Message::DmodexReply(DmodexReply {
                status: Status::SUCCESS,
                data: vec![9; 10],
            }),
            Message::Abort(Abort {
                status: Status(-7),
                message: Some(c"bye".to_owned()),
                procs: vec![],
            }),
            Message::AbortReply(Status::ERR_NOT_SUPPORTED),
            Message::Finalize,
            Message::FinalizeReply(Status::SUCCESS),
            Message::Request(Request {
                op: Op::LOOKUP,
                body: vec![1, 2, 3],
            }),
            Message::Response(Response {
                status: Status::ERR_NOT_FOUND,
                body: vec![],
            }),
            Message::Event(vec![7; 5]),
            Message::Iof(vec![8; 3]),
            Message::ModexOffer(ModexOffer {
                commits: 3,
                segments: vec![],
            }),
            Message::Segments(vec![]),
            Message::NspaceRequest(Nspace::new("other-ns").unwrap()),
            Message::NspaceReply(NspaceReply {
                status: Status::ERR_NOT_FOUND,
                segments: vec![],
            }),
        ]
    }

    #[test]
    fn every_message_round_trips_through_a_socket() {
        let (a, b) = Stream::pair().unwrap();
        let mut client = Connection::new(a, DEFAULT_MAX_BODY, 16, false);
        let mut server = Connection::new(b, DEFAULT_MAX_BODY, 0, true);
        for (i, m) in samples().into_iter().enumerate() {
            let (tx, rx) = if m.kind().from_client() {
                (&mut client, &mut server)
            } else {
                (&mut server, &mut client)
            };
            tx.send(i as u32, &m, Vec::new()).unwrap();
            let mut frames = Vec::new();
            assert_eq!(rx.read_frames(&mut frames).unwrap(), ReadState::Open);
            assert_eq!(frames.len(), 1);
            assert_eq!(frames[0].header.id, i as u32);
            assert_eq!(frames[0].message().unwrap(), m);
        }
    }

    #[test]
    fn a_server_refuses_server_kinds_and_descriptors() {
        let (a, b) = Stream::pair().unwrap();
        let mut evil = Connection::new(a, DEFAULT_MAX_BODY, 0, true);
        let mut server = Connection::new(b, DEFAULT_MAX_BODY, 0, true);
        evil.send(1, &Message::FinalizeReply(Status::SUCCESS), vec![])
            .unwrap();
        let mut frames = Vec::new();
        assert!(matches!(
            server.read_frames(&mut frames),
            Err(WireError::UnknownKind(_))
        ));
    }

    #[test]
    fn frames_split_at_every_byte_reassemble() {
        let m = &samples()[3];
        let mut bytes = vec![0u8; HEADER_LEN];
        m.encode_body(&mut bytes).unwrap();
        let h = Header {
            kind: m.kind(),
            nfds: 0,
            id: 42,
            len: (bytes.len() - HEADER_LEN) as u32,
        };
        bytes[..HEADER_LEN].copy_from_slice(&h.encode());
        for cut in 1..bytes.len() {
            let (a, b) = Stream::pair().unwrap();
            let mut tx = Connection::new(a, DEFAULT_MAX_BODY, 0, false);
            let mut rx = Connection::new(b, DEFAULT_MAX_BODY, 0, true);
            let mut frames = Vec::new();
            tx.send_raw(bytes[..cut].to_vec(), vec![]).unwrap();
            rx.read_frames(&mut frames).unwrap();
            assert!(frames.is_empty());
            tx.send_raw(bytes[cut..].to_vec(), vec![]).unwrap();
            rx.read_frames(&mut frames).unwrap();
            assert_eq!(frames.len(), 1, "cut at {cut}");
            assert_eq!(&frames[0].message().unwrap(), m);
        }
    }

    #[test]
    fn a_large_message_crosses_a_full_socket() {
        let (a, b) = Stream::pair().unwrap();
        let mut tx = Connection::new(a, DEFAULT_MAX_BODY, 0, false);
        let mut rx = Connection::new(b, DEFAULT_MAX_BODY, 0, true);
        let big = Message::Commit(vec![Posted {
            scope: Scope::Global,
            key: Key::new("big").unwrap(),
            value: Value::ByteObject((0..8 << 20).map(|i| i as u8).collect()),
        }]);
        tx.send(7, &big, vec![]).unwrap();
        assert!(tx.has_pending_output(), "8 MiB exceed the socket buffer");
        let mut frames = Vec::new();
        while frames.is_empty() {
            // Each side moves what the other made room for.
            tx.flush().unwrap();
            assert_eq!(rx.read_frames(&mut frames).unwrap(), ReadState::Open);
        }
        assert_eq!(frames[0].message().unwrap(), big);
        assert!(tx.flush().unwrap());
    }

    #[test]
    fn segments_travel_with_their_frame() {
        let (a, b) = Stream::pair().unwrap();
        let mut server = Connection::new(a, DEFAULT_MAX_BODY, 0, true);
        let mut client = Connection::new(b, DEFAULT_MAX_BODY, 8, false);
        let mut builder = pmix_shmem::SegmentBuilder::new("ns-test").unwrap();
        builder
            .job("pmix.job.size", pmix_shmem::StoredValue::Uint32(4))
            .unwrap();
        let sealed = builder.build().unwrap().seal().unwrap();
        let reply = Message::HandshakeReply(HandshakeReply {
            status: Status::SUCCESS,
            server: proc(0),
            segments: vec![SegmentRef {
                nspace: Nspace::new("ns-test").unwrap(),
                kind: SegmentKind::Job,
                generation: 1,
            }],
        });
        // Twice, so the second frame's descriptor is told from the first's.
        for id in [1, 2] {
            server
                .send(id, &reply, vec![sealed.fd().try_clone_to_owned().unwrap()])
                .unwrap();
        }
        let mut frames = Vec::new();
        client.read_frames(&mut frames).unwrap();
        assert_eq!(frames.len(), 2);
        for f in &frames {
            assert_eq!(f.message().unwrap(), reply);
            let seg = pmix_shmem::Segment::from_fd(std::os::fd::AsFd::as_fd(&f.fds[0])).unwrap();
            let v = seg.job_value(&"pmix.job.size".into()).unwrap().unwrap();
            assert_eq!(v.as_u32(), Some(4));
        }
        // A message that lists a segment needs its descriptor.
        assert!(matches!(
            server.send(3, &reply, vec![]),
            Err(WireError::MissingFds { .. })
        ));
    }

    /// A small deterministic generator (xorshift), so the fuzz-style tests
    /// need no dependency and replay exactly.
    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Random bytes into the frame decoder (through a real socket) never
    /// panic: every outcome is frames, an open connection, or an error.
    #[test]
    fn random_bytes_never_panic_the_frame_decoder() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        for round in 0..2000 {
            let len = (rng.next() % 200) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            // Half the rounds start with a plausible header so the body
            // decoders are reached too.
            if round % 2 == 0 && bytes.len() >= HEADER_LEN {
                let kind = 1 + (rng.next() % 11) as u16;
                let h = Header {
                    kind: Kind::from_u16(kind).unwrap(),
                    nfds: 0,
                    id: 1,
                    len: (bytes.len() - HEADER_LEN) as u32,
                };
                bytes[..HEADER_LEN].copy_from_slice(&h.encode());
            }
            for server_side in [true, false] {
                let (a, b) = Stream::pair().unwrap();
                let mut tx = Connection::new(a, DEFAULT_MAX_BODY, 0, !server_side);
                let mut rx = Connection::new(b, HANDSHAKE_MAX_BODY, 4, server_side);
                tx.send_raw(bytes.clone(), vec![]).unwrap();
                let mut frames = Vec::new();
                let _ = rx.read_frames(&mut frames);
                for f in &frames {
                    let _ = f.message();
                }
            }
        }
    }

    /// Random bodies of every kind decode to a message or an error.
    #[test]
    fn random_bodies_never_panic_message_decoding() {
        let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
        // Mutations of valid bodies reach deep into the decoders.
        let valid: Vec<(Kind, Vec<u8>)> = samples()
            .iter()
            .map(|m| {
                let mut b = Vec::new();
                m.encode_body(&mut b).unwrap();
                (m.kind(), b)
            })
            .collect();
        for _ in 0..20_000 {
            let (kind, base) = &valid[(rng.next() % valid.len() as u64) as usize];
            let mut body = base.clone();
            let flips = 1 + rng.next() % 4;
            for _ in 0..flips {
                if body.is_empty() {
                    break;
                }
                let i = (rng.next() % body.len() as u64) as usize;
                body[i] = rng.next() as u8;
            }
            if rng.next() % 4 == 0 {
                body.truncate((rng.next() % (body.len() as u64 + 1)) as usize);
            }
            let _ = Message::decode(*kind, &body, (rng.next() % 3) as usize);
            let _ = blob::decode(&body);
        }
    }
}
