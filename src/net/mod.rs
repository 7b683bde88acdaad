//! Unix-domain stream sockets for the control plane: the rendezvous
//! directory, listening and connecting, descriptor passing and peer
//! credentials.
//!
//! This module is the only user of the crate's socket system calls (made
//! in `crate::sys`, plus what `mio` does inside the types wrapped here).
//! Everything above it (the wire protocol, the server and the client) sees
//! a [`Stream`] that moves bytes and descriptors.
//!
//! Invariants:
//! - A [`RendezvousDir`] is created fresh (never reused), mode `0700`,
//!   owned by the effective uid, and checked after creation (not a symlink,
//!   no group/other bits), so only its owner can reach the socket inside.
//! - Every socket is non-blocking and close-on-exec; every descriptor
//!   received is owned (`OwnedFd`, close-on-exec) before anything else
//!   looks at the message, so none leaks, even on error.
//! - Writes never raise `SIGPIPE` (`MSG_NOSIGNAL`).
//! - A rendezvous directory left by a server that could not clean up (a
//!   launcher killed by `SIGKILL`) is removed by [`remove_stale_dirs`]
//!   only if it is ours on every count: named `<prefix>.<our uid>.<pid>.<n>`,
//!   a real directory owned by our uid, its pid gone, and nobody listening
//!   on its socket (a live server in another pid namespace keeps its
//!   directory).

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::sys;

pub mod tool_files;

pub use sys::{PeerCredentials, MAX_FDS_PER_MSG};

/// Longest socket path `sockaddr_un` holds (108 bytes with the NUL).
pub const MAX_SOCKET_PATH: usize = 107;

/// File name of the listening socket inside a rendezvous directory.
pub const SOCKET_NAME: &str = "sock";

/// Effective uid and gid of this process.
pub fn my_ids() -> (u32, u32) {
    sys::my_ids()
}

/// A directory only its owner can enter, holding a server's listening
/// socket (and what the job puts in it: it is the job's `PMIX_TMPDIR`).
/// Removed with all it holds on drop.
#[derive(Debug)]
pub struct RendezvousDir {
    path: PathBuf,
}

impl RendezvousDir {
    /// Creates `base/<prefix>.<uid>.<pid>.<n>` with mode `0700`, failing if
    /// it exists, and checks the result: a directory (not a symlink), owned
    /// by the effective uid, no permission bits for group or others. A
    /// `base` that does not exist yet is created first, parents included
    /// (mode `0755`), as OpenPMIx creates its temporary directories.
    pub fn create(base: &Path, prefix: &str) -> io::Result<RendezvousDir> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(base)?;
        let (uid, _) = my_ids();
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = base.join(format!("{prefix}.{uid}.{}.{n}", std::process::id()));
        // `create` (not `create_all`): an existing entry is an error, so an
        // attacker's pre-made directory or symlink is never adopted.
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        let dir = RendezvousDir { path };
        let meta = std::fs::symlink_metadata(&dir.path)?;
        if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("rendezvous directory {} is not private", dir.path.display()),
            ));
        }
        if dir.socket_path().as_os_str().len() > MAX_SOCKET_PATH {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "socket path {} longer than {MAX_SOCKET_PATH} bytes",
                    dir.socket_path().display()
                ),
            ));
        }
        Ok(dir)
    }

    /// Gives the directory and the socket inside it to `uid`/`gid` (a
    /// server running as root for a user's job), keeping mode `0700`: the
    /// clients, running as that user, can then enter it, and nobody else.
    pub fn give_to(&self, uid: u32, gid: u32) -> io::Result<()> {
        let sock = self.socket_path();
        if sock.exists() {
            std::os::unix::fs::chown(&sock, Some(uid), Some(gid))?;
        }
        std::os::unix::fs::chown(&self.path, Some(uid), Some(gid))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the listening socket lives.
    pub fn socket_path(&self) -> PathBuf {
        self.path.join(SOCKET_NAME)
    }
}

impl Drop for RendezvousDir {
    fn drop(&mut self) {
        // With whatever the job put there (it is the job's PMIX_TMPDIR:
        // a process killed before it unlinked its files leaves them), so
        // that the directory goes in every case. Symbolic links inside
        // are removed, not followed.
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Whether a server is listening on the socket at `path`: a connection
/// is accepted (or refused for another reason than "nobody there").
pub fn someone_listens(path: &Path) -> bool {
    match std::os::unix::net::UnixStream::connect(path) {
        Ok(_) => true,
        Err(e) => !matches!(
            e.kind(),
            io::ErrorKind::ConnectionRefused | io::ErrorKind::NotFound
        ),
    }
}

/// Removes the rendezvous directories `base/<prefix>.<uid>.<pid>.<n>` of
/// this user whose server is gone (see the module's invariants); returns
/// how many were removed. Errors reading `base` are not reported: the
/// sweep is a courtesy to the machine, never a reason not to start.
pub fn remove_stale_dirs(base: &Path, prefix: &str) -> usize {
    let (uid, _) = my_ids();
    let head = format!("{prefix}.{uid}.");
    let Ok(entries) = std::fs::read_dir(base) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(&head)) else {
            continue;
        };
        let Some(pid) = rest
            .split_once('.')
            .and_then(|(pid, n)| n.parse::<u32>().ok().and(pid.parse::<i32>().ok()))
        else {
            continue;
        };
        let path = e.path();
        let ours = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && m.uid() == uid);
        if !ours || sys::process_exists(pid) || someone_listens(&path.join(SOCKET_NAME)) {
            continue;
        }
        if std::fs::remove_dir_all(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// `mio` registration of a wrapper, delegated to its `inner` socket.
macro_rules! delegate_source {
    ($t:ty) => {
        impl mio::event::Source for $t {
            fn register(
                &mut self,
                registry: &mio::Registry,
                token: mio::Token,
                interests: mio::Interest,
            ) -> io::Result<()> {
                self.inner.register(registry, token, interests)
            }

            fn reregister(
                &mut self,
                registry: &mio::Registry,
                token: mio::Token,
                interests: mio::Interest,
            ) -> io::Result<()> {
                self.inner.reregister(registry, token, interests)
            }

            fn deregister(&mut self, registry: &mio::Registry) -> io::Result<()> {
                self.inner.deregister(registry)
            }
        }
    };
}

/// A listening Unix stream socket (non-blocking).
#[derive(Debug)]
pub struct Listener {
    inner: mio::net::UnixListener,
}

impl Listener {
    /// Binds and listens at `path`.
    pub fn bind(path: &Path) -> io::Result<Listener> {
        Ok(Listener {
            inner: mio::net::UnixListener::bind(path)?,
        })
    }

    /// Accepts one pending connection; `Ok(None)` when there is none.
    pub fn accept(&self) -> io::Result<Option<Stream>> {
        match self.inner.accept() {
            Ok((s, _)) => Ok(Some(Stream { inner: s })),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e),
        }
    }
}

delegate_source!(Listener);

/// A connected Unix stream socket (non-blocking) that carries bytes and
/// descriptors.
#[derive(Debug)]
pub struct Stream {
    inner: mio::net::UnixStream,
}

impl Stream {
    /// Connects to the socket at `path`. The connection is established
    /// when this returns (Unix sockets connect synchronously, or fail with
    /// `ECONNREFUSED`/`ENOENT`/`EACCES`).
    pub fn connect(path: &Path) -> io::Result<Stream> {
        let s = std::os::unix::net::UnixStream::connect(path)?;
        s.set_nonblocking(true)?;
        Ok(Stream {
            inner: mio::net::UnixStream::from_std(s),
        })
    }

    /// A connected pair (tests).
    pub fn pair() -> io::Result<(Stream, Stream)> {
        let (a, b) = mio::net::UnixStream::pair()?;
        Ok((Stream { inner: a }, Stream { inner: b }))
    }

    /// Writes `data`, attaching `fds` to its first byte. Returns how many
    /// bytes went out; `WouldBlock` if none could.
    pub fn send(&self, data: &[u8], fds: &[BorrowedFd<'_>]) -> io::Result<usize> {
        loop {
            match sys::send_with_fds(self.inner.as_fd(), data, fds) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => return r,
            }
        }
    }

    /// Reads into `buf`, appending received descriptors to `fds`. `Ok(0)`
    /// is end of stream; `WouldBlock` if nothing is there.
    pub fn recv(&self, buf: &mut [u8], fds: &mut Vec<OwnedFd>) -> io::Result<usize> {
        loop {
            match sys::recv_with_fds(self.inner.as_fd(), buf, fds) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => return r,
            }
        }
    }

    /// Shuts both directions down: the peer reads end of stream, even if
    /// this descriptor stays open a while longer.
    pub fn shutdown(&self) -> io::Result<()> {
        self.inner.shutdown(std::net::Shutdown::Both)
    }

    /// The peer's credentials (`SO_PEERCRED`).
    pub fn peer_credentials(&self) -> io::Result<PeerCredentials> {
        sys::peer_credentials(self.inner.as_fd())
    }
}

impl AsRawFd for Stream {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

delegate_source!(Stream);

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, Write};

    fn memfd_with(text: &[u8]) -> OwnedFd {
        let path = std::env::temp_dir().join(format!("pmix-net-test-{}", std::process::id()));
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        std::fs::remove_file(&path).unwrap();
        f.write_all(text).unwrap();
        f.rewind().unwrap();
        f.into()
    }

    #[test]
    fn descriptors_travel_with_their_bytes() {
        let (a, b) = Stream::pair().unwrap();
        let f = memfd_with(b"hello");
        assert_eq!(a.send(b"xyz", &[f.as_fd()]).unwrap(), 3);
        drop(f);
        let mut buf = [0u8; 16];
        let mut fds = Vec::new();
        let n = b.recv(&mut buf, &mut fds).unwrap();
        assert_eq!(&buf[..n], b"xyz");
        assert_eq!(fds.len(), 1);
        let mut text = String::new();
        std::fs::File::from(fds.pop().unwrap())
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "hello");
    }

    #[test]
    fn peer_credentials_are_ours_for_a_pair() {
        let (a, _b) = Stream::pair().unwrap();
        let c = a.peer_credentials().unwrap();
        assert_eq!((c.uid, c.gid), my_ids());
        assert_eq!(c.pid, std::process::id() as i32);
    }

    #[test]
    fn end_of_stream_reads_zero() {
        let (a, b) = Stream::pair().unwrap();
        drop(a);
        let mut buf = [0u8; 4];
        assert_eq!(b.recv(&mut buf, &mut Vec::new()).unwrap(), 0);
    }

    #[test]
    fn stale_dirs_go_but_live_servers_and_others_stay() {
        let base = std::env::temp_dir().join(format!("pmix-stale-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir(&base).unwrap();
        let (uid, _) = my_ids();
        let dead = (1_000_000..4_000_000)
            .find(|&p| !sys::process_exists(p))
            .unwrap();
        let mk = |name: String| {
            let p = base.join(name);
            std::fs::create_dir(&p).unwrap();
            std::fs::write(p.join("leftover"), b"x").unwrap();
            p
        };
        let stale = mk(format!("pmix-t.{uid}.{dead}.0"));
        let alive = mk(format!("pmix-t.{uid}.{}.1", std::process::id()));
        // A dead pid here, but a server listens (another pid namespace).
        let listening = mk(format!("pmix-t.{uid}.{dead}.2"));
        let _l = Listener::bind(&listening.join(SOCKET_NAME)).unwrap();
        let other_user = mk(format!("pmix-t.{}.{dead}.3", uid + 1));
        let other_prefix = mk(format!("pmix-u.{uid}.{dead}.4"));
        assert_eq!(remove_stale_dirs(&base, "pmix-t"), 1);
        assert!(!stale.exists());
        for kept in [&alive, &listening, &other_user, &other_prefix] {
            assert!(kept.exists(), "{kept:?}");
        }
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn rendezvous_dir_is_private_and_removed() {
        let d = RendezvousDir::create(&std::env::temp_dir(), "pmix-test").unwrap();
        let meta = std::fs::metadata(d.path()).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o700);
        let l = Listener::bind(&d.socket_path()).unwrap();
        let c = Stream::connect(&d.socket_path()).unwrap();
        // A Unix connect completes at once: the accept queue has it.
        let s = l.accept().unwrap().expect("connection queued");
        assert_eq!(s.peer_credentials().unwrap().pid, std::process::id() as i32);
        drop(c);
        let p = d.path().to_owned();
        // What the job left in its PMIX_TMPDIR goes too.
        std::fs::create_dir(p.join("nsdir")).unwrap();
        std::fs::write(p.join("nsdir/segment"), b"x").unwrap();
        std::fs::write(p.join("segment"), b"x").unwrap();
        drop(d);
        assert!(!p.exists());
    }
}
