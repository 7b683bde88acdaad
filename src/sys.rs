//! The only place this crate calls the operating system (and the C
//! library around it). Every call that reports failure in its return value
//! (`-1`, or a null pointer, with the reason in `errno`) checks it with
//! [`cvt`], the one helper, which turns the failure into an [`io::Error`];
//! the few calls that cannot fail (`geteuid`, `syslog`, ...) say so in the
//! `SAFETY` comment of their `unsafe` block. Everything outside this module
//! calls the safe functions below (constants and types such as
//! `libc::POLLIN` may be named anywhere).
//!
//! What goes through other crates is not here: the server's sockets and
//! readiness (`mio`), shared-memory segments and the creation of any
//! memfd (`pmix-shmem`).

use std::ffi::CStr;
use std::io;
use std::mem;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

/// A C return value that can flag a failure, whose reason is then in
/// `errno`.
pub trait Fallible: Copy {
    /// Whether the value is the failure mark.
    fn failed(self) -> bool;
}

impl Fallible for libc::c_int {
    fn failed(self) -> bool {
        self == -1
    }
}

impl Fallible for libc::ssize_t {
    fn failed(self) -> bool {
        self == -1
    }
}

impl<T> Fallible for *mut T {
    fn failed(self) -> bool {
        self.is_null()
    }
}

/// What `mmap` returns: its failure mark is `MAP_FAILED`, not NULL.
#[derive(Clone, Copy)]
struct Mapped(*mut libc::c_void);

impl Fallible for Mapped {
    fn failed(self) -> bool {
        self.0 == libc::MAP_FAILED
    }
}

/// The one helper: the value of a C call, or `errno` as an [`io::Error`]
/// if the value is the call's failure mark. Must be called right after the
/// call, before anything else can change `errno`. Async-signal-safe (it
/// reads `errno` and allocates nothing).
pub fn cvt<T: Fallible>(r: T) -> io::Result<T> {
    if r.failed() {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// Most descriptors one `sendmsg` may carry (the kernel's `SCM_MAX_FD`).
pub const MAX_FDS_PER_MSG: usize = 253;

/// Control buffer able to hold [`MAX_FDS_PER_MSG`] descriptors, aligned for
/// `cmsghdr`.
#[repr(C, align(8))]
struct CmsgBuf([u8; cmsg_space(MAX_FDS_PER_MSG)]);

const fn cmsg_space(nfds: usize) -> usize {
    // CMSG_SPACE is not const in libc; this is its definition on Linux:
    // the aligned header plus the aligned payload.
    let align = mem::size_of::<usize>();
    let hdr = (mem::size_of::<libc::cmsghdr>() + align - 1) & !(align - 1);
    let data = (nfds * mem::size_of::<RawFd>() + align - 1) & !(align - 1);
    hdr + data
}

/// Sends `data` with `fds` attached (`SCM_RIGHTS`), never raising
/// `SIGPIPE`. Returns the number of bytes written (the descriptors go with
/// the first byte, so a partial write still delivered them all).
pub fn send_with_fds(
    sock: BorrowedFd<'_>,
    data: &[u8],
    fds: &[BorrowedFd<'_>],
) -> io::Result<usize> {
    if fds.len() > MAX_FDS_PER_MSG {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "too many descriptors",
        ));
    }
    let mut iov = libc::iovec {
        iov_base: data.as_ptr() as *mut libc::c_void,
        iov_len: data.len(),
    };
    let mut cbuf = CmsgBuf([0; cmsg_space(MAX_FDS_PER_MSG)]);
    // SAFETY: msghdr is a plain C struct for which all-zero is a valid value.
    let mut msg: libc::msghdr = unsafe { mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if !fds.is_empty() {
        let payload = mem::size_of_val(fds) as u32;
        // SAFETY: CMSG_SPACE/CMSG_LEN only compute sizes.
        let (space, len) = unsafe { (libc::CMSG_SPACE(payload), libc::CMSG_LEN(payload)) };
        msg.msg_control = cbuf.0.as_mut_ptr().cast();
        msg.msg_controllen = space as usize;
        // SAFETY: msg_control points at `cbuf`, at least `space` bytes long
        // and aligned for cmsghdr, so CMSG_FIRSTHDR returns a pointer into it
        // with room for the header and `payload` bytes of data, which we
        // write without overlapping anything else.
        unsafe {
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = len as usize;
            let mut p = libc::CMSG_DATA(c).cast::<RawFd>();
            for fd in fds {
                p.write_unaligned(fd.as_raw_fd());
                p = p.add(1);
            }
        }
    }
    // SAFETY: `msg` points at `iov` (valid for `data.len()` bytes of
    // reading) and at `cbuf`, both alive for the call; `sock` is an open
    // descriptor.
    let n = cvt(unsafe {
        libc::sendmsg(
            sock.as_raw_fd(),
            &msg,
            libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT,
        )
    })?;
    Ok(n as usize)
}

/// Reads into `buf`, appending any descriptors that arrived to `fds`
/// (close-on-exec). `Ok(0)` is end of stream. Truncated control data
/// (more descriptors than [`MAX_FDS_PER_MSG`]) is an error: the lost
/// descriptors would desynchronize the stream.
pub fn recv_with_fds(
    sock: BorrowedFd<'_>,
    buf: &mut [u8],
    fds: &mut Vec<OwnedFd>,
) -> io::Result<usize> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let mut cbuf = CmsgBuf([0; cmsg_space(MAX_FDS_PER_MSG)]);
    // SAFETY: all-zero is a valid msghdr.
    let mut msg: libc::msghdr = unsafe { mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf.0.as_mut_ptr().cast();
    msg.msg_controllen = cbuf.0.len();
    // SAFETY: `msg` points at `iov` (valid for `buf.len()` bytes of
    // writing) and at `cbuf`, both alive for the call.
    let n = cvt(unsafe {
        libc::recvmsg(
            sock.as_raw_fd(),
            &mut msg,
            libc::MSG_CMSG_CLOEXEC | libc::MSG_DONTWAIT,
        )
    })?;
    // Take ownership of every descriptor received before judging anything,
    // so none leaks.
    // SAFETY: after a successful recvmsg, the control buffer holds
    // `msg_controllen` bytes of well-formed cmsghdrs written by the kernel;
    // CMSG_FIRSTHDR/NXTHDR walk them within that length.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(c);
                let hdr = data.offset_from(c.cast::<u8>()) as usize;
                let count = ((*c).cmsg_len as usize - hdr) / mem::size_of::<RawFd>();
                for i in 0..count {
                    let fd = data.cast::<RawFd>().add(i).read_unaligned();
                    // The kernel installed `fd` in our table for us: we own it.
                    fds.push(OwnedFd::from_raw_fd(fd));
                }
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    if msg.msg_flags & libc::MSG_CTRUNC != 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "control data truncated: descriptors lost",
        ));
    }
    Ok(n as usize)
}

/// Credentials of the process at the other end of a Unix socket, as the
/// kernel recorded them at `connect` time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerCredentials {
    /// Process id of the peer.
    pub pid: i32,
    /// Effective user id.
    pub uid: u32,
    /// Effective group id.
    pub gid: u32,
}

/// `SO_PEERCRED` of a connected Unix socket.
pub fn peer_credentials(sock: BorrowedFd<'_>) -> io::Result<PeerCredentials> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` is a writable ucred and `len` holds its size, as
    // SO_PEERCRED requires.
    cvt(unsafe {
        libc::getsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    })?;
    Ok(PeerCredentials {
        pid: cred.pid,
        uid: cred.uid,
        gid: cred.gid,
    })
}

/// Whether process `pid` exists (in this pid namespace): `kill(pid, 0)`
/// succeeds, or fails only for want of permission.
pub fn process_exists(pid: libc::pid_t) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 sends nothing; kill has no memory preconditions.
    match cvt(unsafe { libc::kill(pid, 0) }) {
        Ok(_) => true,
        Err(e) => e.raw_os_error() != Some(libc::ESRCH),
    }
}

/// Effective uid and gid of this process.
pub fn my_ids() -> (u32, u32) {
    // SAFETY: geteuid/getegid cannot fail and touch no memory.
    unsafe { (libc::geteuid(), libc::getegid()) }
}

/// Waits up to `timeout_ms` (-1: without bound) until `fd` is ready for
/// one of `events` (`libc::POLLIN`, ...). The events that occurred (none
/// at the timeout).
pub fn poll_one(
    fd: RawFd,
    events: libc::c_short,
    timeout_ms: libc::c_int,
) -> io::Result<libc::c_short> {
    let mut pfd = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    // SAFETY: `pfd` is a valid pollfd for the call, which reads and writes
    // only it; a closed or invalid `fd` is reported in `revents` (POLLNVAL),
    // not undefined.
    cvt(unsafe { libc::poll(&mut pfd, 1, timeout_ms) })?;
    Ok(pfd.revents)
}

/// `ctime_r(3)`: the time `t` (seconds since the epoch) in the process's
/// local time zone, as `"Thu Jan  1 00:00:00 1970\n"`. An error for a
/// time the C library cannot represent.
pub fn ctime(t: i64) -> io::Result<Vec<u8>> {
    let mut buf = [0 as libc::c_char; 64];
    let tt: libc::time_t = t;
    // SAFETY: `tt` is a valid time_t; ctime_r writes at most 26 bytes (NUL
    // included) into the 64-byte buffer, or returns NULL for an
    // unrepresentable time.
    cvt(unsafe { libc::ctime_r(&tt, buf.as_mut_ptr()) })?;
    // SAFETY: ctime_r succeeded: it wrote a NUL-terminated string into buf.
    let s = unsafe { CStr::from_ptr(buf.as_ptr()) };
    Ok(s.to_bytes().to_vec())
}

/// `syslog(3)` of `msg` as it is (no format directives are interpreted)
/// at priority `pri`.
pub fn syslog(pri: libc::c_int, msg: &CStr) {
    // SAFETY: a constant "%s" format with one valid NUL-terminated string
    // argument, as syslog(3) requires; syslog returns nothing and reports
    // no failure.
    unsafe { libc::syslog(pri, c"%s".as_ptr(), msg.as_ptr()) };
}

/// Fixes the C library's `malloc` threshold above which a block gets a
/// mapping of its own (`mallopt(M_MMAP_THRESHOLD)`), unless the user set
/// it (`MALLOC_MMAP_THRESHOLD_`, or any `GLIBC_TUNABLES`). Fixed, it no
/// longer rises to the size of the largest mapped block freed (glibc's
/// dynamic threshold), which would leave every block up to that size, and
/// the memory freed around them up to twice that, in the heap for good.
pub fn fix_mmap_threshold(bytes: libc::c_int) {
    if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_some()
        || std::env::var_os("GLIBC_TUNABLES").is_some()
    {
        return;
    }
    // SAFETY: mallopt takes two integers and touches only the allocator's
    // own parameters; it returns 0 for a value it refuses (then the
    // dynamic threshold stays, which is harmless), so the result needs no
    // check.
    unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, bytes) };
}

/// A new anonymous shared-memory file of `len` zero bytes (a memfd,
/// close-on-exec, made by the shared-memory crate, the workspace's one
/// `memfd_create`), for the job barrier page.
pub fn memfd(name: &CStr, len: usize) -> io::Result<OwnedFd> {
    let fd = pmix_shmem::memfd(name)?;
    let len = libc::off_t::try_from(len).map_err(|_| io::ErrorKind::InvalidInput)?;
    // SAFETY: ftruncate on a descriptor this function owns.
    cvt(unsafe { libc::ftruncate(fd.as_raw_fd(), len) })?;
    Ok(fd)
}

/// The size of the file behind `fd` (`fstat`).
pub fn file_len(fd: BorrowedFd<'_>) -> io::Result<u64> {
    // SAFETY: an all-zero `stat` is a valid value of the plain C struct.
    let mut st: libc::stat = unsafe { mem::zeroed() };
    // SAFETY: `fd` is an open descriptor and `st` a writable stat buffer.
    cvt(unsafe { libc::fstat(fd.as_raw_fd(), &mut st) })?;
    u64::try_from(st.st_size).map_err(|_| io::ErrorKind::InvalidData.into())
}

/// Maps `len` bytes of `fd` shared, readable and writable.
pub fn map_shared_rw(fd: BorrowedFd<'_>, len: usize) -> io::Result<*mut u8> {
    // SAFETY: a fresh mapping chosen by the kernel (no address given), of
    // a descriptor that is open; the result is checked.
    let Mapped(p) = cvt(Mapped(unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd.as_raw_fd(),
            0,
        )
    }))?;
    Ok(p.cast())
}

/// Unmaps what [`map_shared_rw`] mapped.
///
/// # Safety
/// `(p, len)` is a mapping of [`map_shared_rw`] that nothing uses any more.
pub unsafe fn unmap(p: *mut u8, len: usize) {
    // SAFETY: the caller's contract; munmap of a whole mapping does not
    // fail in a way this could act on.
    unsafe { libc::munmap(p.cast(), len) };
}

/// Sleeps while the shared 32-bit word at `word` holds `expected`, at most
/// `timeout` (`FUTEX_WAIT` on a shared mapping: processes mapping the same
/// file wait on the same word). Returns on a wake, a change, a signal or
/// the timeout alike: the caller looks at the word again.
pub fn futex_wait(
    word: &std::sync::atomic::AtomicU32,
    expected: u32,
    timeout: std::time::Duration,
) {
    let ts = libc::timespec {
        tv_sec: libc::time_t::try_from(timeout.as_secs()).unwrap_or(libc::time_t::MAX),
        tv_nsec: libc::c_long::from(timeout.subsec_nanos() as i32),
    };
    // SAFETY: `word` is a valid, aligned 32-bit word for the call's
    // duration, `ts` a valid timespec; FUTEX_WAIT only reads them. Its
    // result (woken, changed, interrupted, timed out) needs no check.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            expected,
            &ts as *const libc::timespec,
        )
    };
}

/// Wakes every process sleeping in [`futex_wait`] on `word`.
pub fn futex_wake_all(word: &std::sync::atomic::AtomicU32) {
    // SAFETY: `word` is a valid, aligned 32-bit word; FUTEX_WAKE does not
    // touch memory. Nothing to do if it fails (no one waits).
    unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE, i32::MAX) };
}

/// The C library's own conversions, to check the crate's reproductions
/// of them (`codec::float`) against.
#[cfg(test)]
pub mod c_text {
    use super::cvt;
    use std::ffi::CString;
    use std::io;

    /// `snprintf(buf, 512, "%f", v)`: the text (at most 511 bytes of it).
    pub fn format_f(v: f64) -> io::Result<String> {
        let mut buf = [0u8; 512];
        let fmt = c"%f";
        // SAFETY: the buffer is writable for its length and the format
        // takes exactly one double.
        let n =
            cvt(unsafe { libc::snprintf(buf.as_mut_ptr().cast(), buf.len(), fmt.as_ptr(), v) })?;
        Ok(String::from_utf8_lossy(&buf[..(n as usize).min(buf.len() - 1)]).into_owned())
    }

    /// `strtod(text, NULL)`. `text` must not contain a NUL byte.
    pub fn strtod(text: &str) -> f64 {
        let text = CString::new(text).expect("no NUL byte");
        // SAFETY: `text` is a valid NUL-terminated string and the end
        // pointer may be NULL; strtod cannot fail (it reads no number as
        // 0.0).
        unsafe { libc::strtod(text.as_ptr(), std::ptr::null_mut()) }
    }
}
