//! Forwarding of the ranks' stdout and stderr: each pipe is read when the
//! poll loop finds it readable, cut into lines, and every complete line is
//! written to pmixrun's own stdout or stderr in one piece (optionally
//! prefixed `[NSPACE,RANK]<stdout>: ` as OpenPMIx's `prterun
//! --tag-output` does), so lines of different ranks never interleave. The
//! same lines (untagged) go to the server's `iof_deliver`, so that a tool
//! that pulls the job's output receives it live; the end of a pipe is
//! delivered as `PMIX_IOF_COMPLETE`. The server never blocks on a tool
//! (see `pmix::server`'s IOF buffering policy).
//!
//! Stdin ([`StdinRouter`]): the ranks `--stdin` names read a pipe that
//! `pmixrun` feeds with its own stdin and with what tools push
//! (`PMIx_IOF_push`, through the host's `push_stdin`). Whichever source
//! ends first (`pmixrun`'s stdin at its end, a push of the end of input)
//! closes the ranks' pipes it feeds. Each pipe holds at most
//! [`STDIN_LIMIT`] bytes not yet read by its rank: `pmixrun` stops reading
//! its own stdin while a pipe is that full, and a push to a rank whose
//! pipe is that full is refused with `PMIX_ERR_OUT_OF_RESOURCE`; a push
//! to ranks none of which reads a fed stdin is refused with
//! `PMIX_ERR_NOT_FOUND`.
//!
//! Invariant: the bytes written to one rank's stdin are in the order
//! they were read or pushed; nothing is written after its end.

use std::collections::HashMap;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use pmix::server::{Completion, Server};
use pmix::wire::iof::channel;
use pmix::{keys, Info, Proc, Rank, Status, Value};

use crate::sys;

/// Most bytes held for one rank's stdin.
pub const STDIN_LIMIT: usize = 1 << 20;

/// Which of the rank's streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Stdout,
    Stderr,
}

/// One forwarded pipe.
pub struct Stream {
    fd: OwnedFd,
    kind: Kind,
    prefix: Option<String>,
    partial: Vec<u8>,
    /// The rank, as a source of forwarded output.
    proc: Proc,
}

impl Stream {
    pub fn new(fd: OwnedFd, kind: Kind, proc: &Proc, tag: bool) -> io::Result<Self> {
        let nspace = proc.nspace.to_string();
        let rank = proc.rank.0;
        sys::set_nonblocking(fd.as_raw_fd())?;
        let prefix = tag.then(|| {
            let s = match kind {
                Kind::Stdout => "stdout",
                Kind::Stderr => "stderr",
            };
            format!("[{nspace},{rank}]<{s}>: ")
        });
        Ok(Stream {
            fd,
            kind,
            prefix,
            partial: Vec::new(),
            proc: proc.clone(),
        })
    }

    /// The rank whose output this is.
    pub fn proc(&self) -> &Proc {
        &self.proc
    }

    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Reads what is available and forwards complete lines (to `server`'s
    /// IOF too). False at end of file (the rest has been forwarded then).
    pub fn pump(&mut self, server: &Server) -> bool {
        let mut buf = [0u8; 65536];
        let mut open = true;
        loop {
            match sys::read(self.fd(), &mut buf) {
                Ok(0) => {
                    open = false;
                    break;
                }
                Ok(n) => {
                    self.partial.extend_from_slice(&buf[..n]);
                    if n < buf.len() {
                        break;
                    }
                }
                Err(e) => match e.kind() {
                    io::ErrorKind::Interrupted => continue,
                    io::ErrorKind::WouldBlock => break,
                    _ => {
                        open = false;
                        break;
                    }
                },
            }
        }
        self.forward(!open, server);
        if !open {
            let chan = match self.kind {
                Kind::Stdout => channel::STDOUT,
                Kind::Stderr => channel::STDERR,
            };
            let done: Vec<Info> = Info::keyed(keys::IOF_COMPLETE, Value::Bool(true))
                .into_iter()
                .collect();
            let _ = server.iof_deliver(&self.proc, chan, &[], &done);
        }
        open
    }

    fn forward(&mut self, eof: bool, server: &Server) {
        let end = if eof {
            self.partial.len()
        } else {
            match self.partial.iter().rposition(|&b| b == b'\n') {
                Some(i) => i + 1,
                None => return,
            }
        };
        if end == 0 {
            return;
        }
        let mut out = Vec::with_capacity(end + 64);
        match &self.prefix {
            None => out.extend_from_slice(&self.partial[..end]),
            Some(p) => {
                for line in self.partial[..end].split_inclusive(|&b| b == b'\n') {
                    out.extend_from_slice(p.as_bytes());
                    out.extend_from_slice(line);
                    if line.last() != Some(&b'\n') {
                        out.push(b'\n');
                    }
                }
            }
        }
        let chan = match self.kind {
            Kind::Stdout => channel::STDOUT,
            Kind::Stderr => channel::STDERR,
        };
        // The server queues it (it never waits for a tool).
        let _ = server.iof_deliver(&self.proc, chan, &self.partial[..end], &[]);
        self.partial.drain(..end);
        // A closed terminal or pipe on our side must not stop the job.
        let _ = match self.kind {
            Kind::Stdout => {
                let mut o = io::stdout().lock();
                o.write_all(&out).and_then(|_| o.flush())
            }
            Kind::Stderr => io::stderr().lock().write_all(&out),
        };
    }
}

/// A push of stdin data (or its end) by a tool, for the main loop.
pub struct StdinPush {
    pub targets: Vec<Proc>,
    /// `None`: the end of input.
    pub data: Option<Vec<u8>>,
    pub done: Completion<()>,
}

/// One rank's stdin pipe.
struct Sink {
    fd: OwnedFd,
    pending: Vec<u8>,
    /// Close once `pending` is written.
    closing: bool,
}

/// The stdin pipes of the ranks `--stdin` names, and `pmixrun`'s own
/// stdin feeding them.
pub struct StdinRouter {
    sinks: HashMap<Proc, Sink>,
    /// `pmixrun`'s stdin is forwarded and not at its end.
    reading: bool,
}

/// What one poll of the router's descriptors is about.
#[derive(Clone, Copy)]
pub enum Polled {
    /// `pmixrun`'s stdin.
    Input,
    /// A rank's pipe, to write to.
    Rank,
}

impl StdinRouter {
    /// A router; `forward_own`: `pmixrun`'s stdin feeds the pipes.
    pub fn new(forward_own: bool) -> StdinRouter {
        StdinRouter {
            sinks: HashMap::new(),
            reading: forward_own,
        }
    }

    /// `proc` reads the pipe whose write end is `fd`.
    pub fn add(&mut self, proc: &Proc, fd: OwnedFd) -> io::Result<()> {
        sys::set_nonblocking(fd.as_raw_fd())?;
        self.sinks.insert(
            proc.clone(),
            Sink {
                fd,
                pending: Vec::new(),
                closing: false,
            },
        );
        Ok(())
    }

    fn full(&self) -> bool {
        self.sinks.values().any(|s| s.pending.len() >= STDIN_LIMIT)
    }

    /// The descriptors to poll, and what each is.
    pub fn poll_fds(&self) -> (Vec<libc::pollfd>, Vec<Polled>) {
        let mut fds = Vec::new();
        let mut what = Vec::new();
        if self.reading && !self.sinks.is_empty() && !self.full() {
            fds.push(libc::pollfd {
                fd: 0,
                events: libc::POLLIN,
                revents: 0,
            });
            what.push(Polled::Input);
        }
        for s in self.sinks.values() {
            if !s.pending.is_empty() {
                fds.push(libc::pollfd {
                    fd: s.fd.as_raw_fd(),
                    events: libc::POLLOUT,
                    revents: 0,
                });
                what.push(Polled::Rank);
            }
        }
        (fds, what)
    }

    /// Handles what the poll reported.
    pub fn ready(&mut self, fds: &[libc::pollfd], what: &[Polled]) {
        for (p, w) in fds.iter().zip(what) {
            if p.revents == 0 {
                continue;
            }
            if let Polled::Input = w {
                self.read_own();
            }
        }
        self.write_all();
    }

    /// Reads once from `pmixrun`'s stdin (readable: one read does not
    /// block) and queues it for every pipe.
    fn read_own(&mut self) {
        let mut buf = vec![0u8; 64 << 10];
        let n = match sys::read(0, &mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
            Err(_) => 0,
        };
        for s in self.sinks.values_mut().filter(|s| !s.closing) {
            if n == 0 {
                s.closing = true;
            } else {
                s.pending.extend_from_slice(&buf[..n]);
            }
        }
        if n == 0 {
            self.reading = false;
        }
    }

    /// Writes what each pipe takes; closes the ended ones and those whose
    /// rank is gone.
    fn write_all(&mut self) {
        self.sinks.retain(|_, s| {
            while !s.pending.is_empty() {
                match sys::write(s.fd.as_raw_fd(), &s.pending) {
                    Ok(n) => {
                        s.pending.drain(..n);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
                    // The rank closed its stdin or exited.
                    Err(_) => return false,
                }
            }
            !s.closing
        });
    }

    /// Applies a tool's push and answers it.
    pub fn push(&mut self, p: StdinPush) {
        let names = |t: &Proc, q: &Proc| {
            t.nspace == q.nspace && (t.rank == q.rank || t.rank == Rank::WILDCARD)
        };
        let mut hit: Vec<&mut Sink> = self
            .sinks
            .iter_mut()
            .filter(|(q, s)| !s.closing && p.targets.iter().any(|t| names(t, q)))
            .map(|(_, s)| s)
            .collect();
        let r = if hit.is_empty() {
            Err(Status::ERR_NOT_FOUND)
        } else if hit.iter().any(|s| s.pending.len() >= STDIN_LIMIT) {
            Err(Status::ERR_OUT_OF_RESOURCE)
        } else {
            for s in hit.iter_mut() {
                match &p.data {
                    Some(d) => s.pending.extend_from_slice(d),
                    None => s.closing = true,
                }
            }
            Ok(())
        };
        p.done.complete(r);
        self.write_all();
    }
}
