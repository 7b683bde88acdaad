//! Forwarding of the ranks' stdout and stderr: each pipe is read when the
//! poll loop finds it readable, cut into lines, and every complete line is
//! written to pmixrun's own stdout or stderr in one piece (optionally
//! prefixed `[NSPACE,RANK]<stdout>: ` as OpenPMIx's `prterun
//! --tag-output` does), so lines of different ranks never interleave.

use std::io::{self, Write};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use crate::sys;

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
}

impl Stream {
    pub fn new(fd: OwnedFd, kind: Kind, nspace: &str, rank: u32, tag: bool) -> io::Result<Self> {
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
        })
    }

    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Reads what is available and forwards complete lines. False at end
    /// of file (the rest has been forwarded then).
    pub fn pump(&mut self) -> bool {
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
        self.forward(!open);
        open
    }

    fn forward(&mut self, eof: bool) {
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
