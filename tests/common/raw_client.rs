//! A client that speaks the control-plane protocol by hand over its real
//! socket (`pmix::wire`'s encoders, no `pmix::client`), for the tests of
//! hostile clients: it can send any bytes and descriptors, and reads the
//! server's frames with a bound on every wait.
//!
//! Invariant: no wait is unbounded; [`Raw::recv`] answers `Ended` when the
//! server closed the connection and `Silent` when nothing came in time.

use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use pmix::client::ConnectInfo;
use pmix::net::Stream;
use pmix::wire::{self, Connection, Frame, Handshake, Kind, Message, SegmentRef};
use pmix::{Proc, Status};

/// Longest wait for one answer of the server.
pub const ANSWER_LIMIT: Duration = Duration::from_secs(20);

/// What a wait for the server's next frame gave.
#[derive(Debug)]
pub enum Next {
    /// A frame.
    Frame(Frame),
    /// The server closed the connection.
    Ended,
    /// Nothing within the bound.
    Silent,
}

/// A connection to a server, driven by hand.
pub struct Raw {
    conn: Connection,
    queued: std::collections::VecDeque<Frame>,
    ended: bool,
}

/// The answer to a handshake: its status, and the segments (with their
/// descriptors) that came with it or ahead of it.
pub struct Joined {
    pub status: Status,
    pub segments: Vec<(SegmentRef, OwnedFd)>,
}

impl Raw {
    /// Connects to `info`'s server socket (no handshake yet).
    pub fn connect(info: &ConnectInfo) -> Result<Raw, String> {
        let s = Stream::connect(&info.socket).map_err(|e| format!("connect: {e}"))?;
        Ok(Raw {
            conn: Connection::new(
                s,
                wire::DEFAULT_MAX_BODY,
                wire::frame::MAX_FDS_PER_FRAME,
                false,
            ),
            queued: Default::default(),
            ended: false,
        })
    }

    /// Connects and completes a handshake as `proc` with `secret`.
    pub fn join_as(
        info: &ConnectInfo,
        proc: &Proc,
        secret: &[u8],
    ) -> Result<(Raw, Joined), String> {
        let mut r = Raw::connect(info)?;
        let j = r.handshake(proc, secret)?;
        Ok((r, j))
    }

    /// Connects as `info`'s own identity; the handshake must succeed.
    pub fn join(info: &ConnectInfo) -> Result<(Raw, Joined), String> {
        let (r, j) = Raw::join_as(info, &info.proc, info.secret.as_bytes())?;
        if j.status != Status::SUCCESS {
            return Err(format!("own handshake refused: {:?}", j.status));
        }
        Ok((r, j))
    }

    /// Sends a handshake and reads its answer (`Err` if the connection
    /// ended without one).
    pub fn handshake(&mut self, proc: &Proc, secret: &[u8]) -> Result<Joined, String> {
        let h = Message::Handshake(Handshake {
            version: wire::PROTOCOL_VERSION.into(),
            proc: proc.clone(),
            secret: secret.to_vec(),
        });
        self.send(1, &h)?;
        let mut segments = Vec::new();
        loop {
            let f = match self.recv(ANSWER_LIMIT) {
                Next::Frame(f) => f,
                other => return Err(format!("handshake: no answer ({other:?})")),
            };
            let fds = f.fds.into_iter();
            match Message::decode(f.header.kind, &f.body, fds.len()) {
                Ok(Message::Segments(refs)) => segments.extend(refs.into_iter().zip(fds)),
                Ok(Message::HandshakeReply(r)) => {
                    segments.extend(r.segments.into_iter().zip(fds));
                    return Ok(Joined {
                        status: r.status,
                        segments,
                    });
                }
                other => return Err(format!("handshake: unexpected {other:?}")),
            }
        }
    }

    /// Sends `msg` with request id `id`.
    pub fn send(&mut self, id: u32, msg: &Message) -> Result<(), String> {
        self.conn
            .send(id, msg, Vec::new())
            .map_err(|e| format!("send {:?}: {e}", msg.kind()))?;
        self.flush()
    }

    /// Sends raw bytes with `fds` attached to their first byte.
    pub fn send_raw(&mut self, bytes: Vec<u8>, fds: Vec<OwnedFd>) -> Result<(), String> {
        match self.conn.send_raw(bytes, fds) {
            Ok(()) => self.flush(),
            // The server may close before it read everything.
            Err(wire::WireError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            Err(wire::WireError::Io(e)) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                Ok(())
            }
            Err(e) => Err(format!("send raw: {e}")),
        }
    }

    /// Writes what is queued, waiting (bounded) for room, reading what
    /// arrives meanwhile (a server blocked on its own output is not
    /// deadlocked by us).
    pub fn flush(&mut self) -> Result<(), String> {
        let end = Instant::now() + ANSWER_LIMIT;
        loop {
            match self.conn.flush() {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(wire::WireError::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
                    ) =>
                {
                    self.ended = true;
                    return Ok(());
                }
                Err(e) => return Err(format!("flush: {e}")),
            }
            if Instant::now() >= end {
                return Err("flush: the server took nothing within the bound".into());
            }
            self.poll(libc::POLLIN | libc::POLLOUT, Duration::from_millis(100));
            self.read_available();
        }
    }

    fn poll(&self, events: libc::c_short, limit: Duration) {
        let mut p = libc::pollfd {
            fd: self.conn.stream().as_raw_fd(),
            events,
            revents: 0,
        };
        let ms = limit.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd for the duration of the call.
        unsafe { libc::poll(&mut p, 1, ms) };
    }

    fn read_available(&mut self) {
        if self.ended {
            return;
        }
        let mut frames = Vec::new();
        let r = self.conn.read_frames(&mut frames);
        self.queued.extend(frames);
        if !matches!(r, Ok(wire::ReadState::Open)) {
            self.ended = true;
        }
    }

    /// The server's next frame, or that it closed, or `Silent` after
    /// `limit`.
    pub fn recv(&mut self, limit: Duration) -> Next {
        let end = Instant::now() + limit;
        loop {
            if let Some(f) = self.queued.pop_front() {
                return Next::Frame(f);
            }
            if self.ended {
                return Next::Ended;
            }
            let now = Instant::now();
            if now >= end {
                return Next::Silent;
            }
            self.poll(libc::POLLIN, end - now);
            self.read_available();
        }
    }

    /// Waits for the server to close the connection, skipping frames;
    /// how many frames came first, or `Err` if it stayed open.
    pub fn expect_closed(&mut self) -> Result<usize, String> {
        let mut n = 0;
        loop {
            match self.recv(ANSWER_LIMIT) {
                Next::Frame(_) => n += 1,
                Next::Ended => return Ok(n),
                Next::Silent => return Err("the server kept the connection open".into()),
            }
        }
    }

    /// The socket (to write to it without reading).
    pub fn fd(&self) -> std::os::fd::RawFd {
        self.conn.stream().as_raw_fd()
    }

    /// Ends the connection from this side (the server reads end of
    /// stream) and waits until the server closed it too: the identity it
    /// held is free again once this returns.
    pub fn hang_up(mut self) -> Result<(), String> {
        // SAFETY: shutdown of the socket this connection owns.
        unsafe { libc::shutdown(self.conn.stream().as_raw_fd(), libc::SHUT_WR) };
        self.expect_closed().map(|_| ())
    }

    /// The next frame decoded (`Err` if none came or it does not decode),
    /// past the modex offers a server sends unasked when the job's ranks
    /// have all committed.
    pub fn answer(&mut self) -> Result<(u32, Message, Vec<OwnedFd>), String> {
        loop {
            match self.recv(ANSWER_LIMIT) {
                Next::Frame(f) => {
                    let m = f.message().map_err(|e| format!("answer: {e}"))?;
                    if f.header.id == 0 && matches!(m, Message::ModexOffer(_)) {
                        continue;
                    }
                    return Ok((f.header.id, m, f.fds));
                }
                other => return Err(format!("no answer: {other:?}")),
            }
        }
    }
}

/// A frame's bytes: a header of `kind` (raw number), `nfds`, `id` and
/// `len` as given (not checked), then `body`.
pub fn raw_frame(kind: u16, nfds: u8, id: u32, len: u32, body: &[u8]) -> Vec<u8> {
    let mut b = wire::Header {
        kind: Kind::Commit,
        nfds,
        id,
        len,
    }
    .encode()
    .to_vec();
    b[4..6].copy_from_slice(&kind.to_le_bytes());
    b.extend_from_slice(body);
    b
}

/// The body of `msg`.
pub fn body_of(msg: &Message) -> Vec<u8> {
    let mut v = Vec::new();
    msg.encode_body(&mut v).unwrap();
    v
}
