//! A framed connection over a non-blocking [`Stream`]: an input buffer
//! that yields validated frames, and an output queue.
//!
//! Invariants:
//! - A header is validated (magic, version, kind, reserved bits, length
//!   against the connection's limit, descriptor count) before any byte of
//!   its body is buffered, so a peer cannot make us allocate more than the
//!   limit.
//! - Descriptors received wait in arrival order; a frame claims exactly
//!   the count its header announces. More descriptors than one frame's
//!   worth waiting, or any on a connection that accepts none, is a
//!   protocol error.
//! - On output, a frame's descriptors go with the `sendmsg` that writes
//!   its first byte, and that `sendmsg` starts with it (frames are never
//!   glued to a previous frame's tail when descriptors are attached).

use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use super::frame::{Header, HEADER_LEN, MAX_FDS_PER_FRAME};
use super::{Message, WireError};
use crate::net::Stream;

/// Initial size of the input buffer; it grows to hold a large frame.
const READ_CHUNK: usize = 64 * 1024;

/// One frame as received: header, body and descriptors.
#[derive(Debug)]
pub struct Frame {
    /// The validated header.
    pub header: Header,
    /// The body bytes.
    pub body: Vec<u8>,
    /// The descriptors that came with it.
    pub fds: Vec<OwnedFd>,
}

impl Frame {
    /// Decodes the body into a message (validating it and the descriptor
    /// count).
    pub fn message(&self) -> Result<Message, WireError> {
        Message::decode(self.header.kind, &self.body, self.fds.len())
    }
}

struct Outgoing {
    bytes: Vec<u8>,
    fds: Vec<OwnedFd>,
    sent: usize,
}

/// Whether the peer is still there after a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadState {
    /// More may come.
    Open,
    /// End of stream: the peer closed its side.
    Closed,
}

/// A framed, non-blocking connection.
pub struct Connection {
    stream: Stream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    fds_in: Vec<OwnedFd>,
    out: VecDeque<Outgoing>,
    max_body: u32,
    max_fds_in: usize,
    accept_from_client: bool,
}

impl Connection {
    /// Wraps `stream`. `max_body` bounds the body of incoming frames,
    /// `max_fds_in` the descriptors a frame may bring (0 on a server),
    /// `server_side` selects which kinds are accepted (client-to-server
    /// kinds on a server, the others on a client).
    pub fn new(stream: Stream, max_body: u32, max_fds_in: usize, server_side: bool) -> Connection {
        // A connection that may only send small frames yet (a server's
        // unauthenticated peer) gets a buffer of one such frame: a flood
        // of connections that never authenticate costs the server little.
        // The buffer grows when reading fills it.
        let initial = (max_body as usize)
            .saturating_add(HEADER_LEN)
            .min(READ_CHUNK);
        Connection {
            stream,
            buf: vec![0; initial],
            start: 0,
            end: 0,
            fds_in: Vec::new(),
            out: VecDeque::new(),
            max_body,
            max_fds_in: max_fds_in.min(MAX_FDS_PER_FRAME),
            accept_from_client: server_side,
        }
    }

    /// Changes the body limit (raised after authentication).
    pub fn set_max_body(&mut self, max_body: u32) {
        self.max_body = max_body;
    }

    /// The socket (to register with `mio`, read credentials).
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The socket, mutably (for `mio` registration).
    pub fn stream_mut(&mut self) -> &mut Stream {
        &mut self.stream
    }

    /// Reads everything available, appending complete frames to `frames`.
    /// Frames read before an end of stream or an error are still
    /// delivered (in `frames`) before the state or error is returned.
    pub fn read_frames(&mut self, frames: &mut Vec<Frame>) -> Result<ReadState, WireError> {
        self.read_frames_until(frames, false)
    }

    /// As [`read_frames`](Self::read_frames); with `short_read_ends`, a
    /// short read that brought no descriptors ends the reading: it took
    /// all the socket held (a stream read stops early only at a message
    /// carrying descriptors or from another writer), and bytes arriving
    /// later raise a new readiness event, so reading again only to hear
    /// "would block" is a wasted system call (two per request and reply).
    /// Not when the peer's hang-up was reported: its end of stream must be
    /// read, no later event announces it.
    pub fn read_frames_until(
        &mut self,
        frames: &mut Vec<Frame>,
        short_read_ends: bool,
    ) -> Result<ReadState, WireError> {
        loop {
            self.parse(frames)?;
            if self.end == self.buf.len() {
                self.make_room(READ_CHUNK);
            }
            let want = self.buf.len() - self.end;
            let fds_before = self.fds_in.len();
            let r = self
                .stream
                .recv(&mut self.buf[self.end..], &mut self.fds_in);
            // Queued: those of at most one frame still incomplete plus
            // those of the next (a read returns one sender's descriptors
            // at most, and complete frames claim theirs before each read).
            if self.fds_in.len() > 2 * self.max_fds_in {
                return Err(WireError::TooManyFds {
                    got: self.fds_in.len(),
                    max: self.max_fds_in,
                });
            }
            match r {
                Ok(0) => {
                    self.parse(frames)?;
                    return Ok(ReadState::Closed);
                }
                Ok(n) => {
                    self.end += n;
                    if short_read_ends && n < want && self.fds_in.len() == fds_before {
                        self.parse(frames)?;
                        return Ok(ReadState::Open);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.parse(frames)?;
                    return Ok(ReadState::Open);
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Moves unread bytes to the front and makes sure `extra` bytes fit
    /// after them.
    fn make_room(&mut self, extra: usize) {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < extra {
            self.buf.resize(self.end + extra, 0);
        }
    }

    fn parse(&mut self, frames: &mut Vec<Frame>) -> Result<(), WireError> {
        loop {
            let avail = self.end - self.start;
            if avail < HEADER_LEN {
                break;
            }
            let mut hb = [0u8; HEADER_LEN];
            hb.copy_from_slice(&self.buf[self.start..self.start + HEADER_LEN]);
            let header = Header::decode(&hb, self.max_body)?;
            if header.kind.from_client() != self.accept_from_client {
                return Err(WireError::UnknownKind(header.kind as u16));
            }
            let nfds = usize::from(header.nfds);
            if nfds > self.max_fds_in {
                return Err(WireError::TooManyFds {
                    got: nfds,
                    max: self.max_fds_in,
                });
            }
            let total = HEADER_LEN + header.len as usize;
            if avail < total {
                // Room for the whole frame (bounded by the validated length).
                if self.buf.len() - self.start < total {
                    self.make_room(total - avail);
                }
                break;
            }
            if self.fds_in.len() < nfds {
                return Err(WireError::MissingFds {
                    expected: nfds,
                    got: self.fds_in.len(),
                });
            }
            let body = self.buf[self.start + HEADER_LEN..self.start + total].to_vec();
            self.start += total;
            let fds: Vec<OwnedFd> = self.fds_in.drain(..nfds).collect();
            frames.push(Frame { header, body, fds });
        }
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        Ok(())
    }

    /// Queues `msg` with request id `id` and the descriptors it carries,
    /// then writes what the socket takes.
    pub fn send(&mut self, id: u32, msg: &Message, fds: Vec<OwnedFd>) -> Result<(), WireError> {
        if fds.len() != msg.fd_count() {
            return Err(WireError::MissingFds {
                expected: msg.fd_count(),
                got: fds.len(),
            });
        }
        let mut bytes = vec![0u8; HEADER_LEN];
        msg.encode_body(&mut bytes)
            .map_err(|source| WireError::Body {
                kind: msg.kind().name(),
                source,
            })?;
        let len = u32::try_from(bytes.len() - HEADER_LEN).map_err(|_| WireError::TooLarge {
            len: (bytes.len() - HEADER_LEN) as u64,
            max: u32::MAX.into(),
        })?;
        let header = Header {
            kind: msg.kind(),
            nfds: u8::try_from(fds.len()).map_err(|_| WireError::TooManyFds {
                got: fds.len(),
                max: MAX_FDS_PER_FRAME,
            })?,
            id,
            len,
        };
        bytes[..HEADER_LEN].copy_from_slice(&header.encode());
        self.out.push_back(Outgoing {
            bytes,
            fds,
            sent: 0,
        });
        self.flush().map(|_| ())
    }

    /// Queues raw frame bytes (tests of the decoder's defences).
    #[doc(hidden)]
    pub fn send_raw(&mut self, bytes: Vec<u8>, fds: Vec<OwnedFd>) -> Result<(), WireError> {
        self.out.push_back(Outgoing {
            bytes,
            fds,
            sent: 0,
        });
        self.flush().map(|_| ())
    }

    /// Writes queued output until done (`true`) or the socket is full
    /// (`false`).
    pub fn flush(&mut self) -> Result<bool, WireError> {
        while let Some(o) = self.out.front_mut() {
            let fds: Vec<BorrowedFd<'_>> = if o.sent == 0 {
                o.fds.iter().map(|f| f.as_fd()).collect()
            } else {
                Vec::new()
            };
            match self.stream.send(&o.bytes[o.sent..], &fds) {
                Ok(n) => {
                    drop(fds);
                    if n > 0 {
                        // The kernel holds its own references now.
                        o.fds.clear();
                    }
                    o.sent += n;
                    if o.sent == o.bytes.len() {
                        self.out.pop_front();
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(true)
    }

    /// Bytes queued and not yet written.
    pub fn pending_output_len(&self) -> usize {
        self.out.iter().map(|o| o.bytes.len() - o.sent).sum()
    }

    /// Descriptors queued and not yet handed to the kernel.
    pub fn pending_output_fds(&self) -> usize {
        self.out.iter().map(|o| o.fds.len()).sum()
    }

    /// True if output is waiting for the socket.
    pub fn has_pending_output(&self) -> bool {
        !self.out.is_empty()
    }
}
