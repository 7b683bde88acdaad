//! The raw socket calls: `sendmsg`/`recvmsg` with `SCM_RIGHTS`,
//! `SO_PEERCRED`. Every libc call of the crate's networking goes through
//! [`syscall!`] here.

use std::io;
use std::mem;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

/// Calls a libc function and turns `-1` into the thread's `errno`.
macro_rules! syscall {
    ($fn:ident ( $($arg:expr),* $(,)? )) => {{
        #[allow(unused_unsafe)]
        // SAFETY: each caller documents the preconditions of its call.
        let res = unsafe { libc::$fn($($arg),*) };
        if res == -1 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(res)
        }
    }};
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
    let n = syscall!(sendmsg(
        sock.as_raw_fd(),
        &msg,
        libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT
    ))?;
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
    let n = syscall!(recvmsg(
        sock.as_raw_fd(),
        &mut msg,
        libc::MSG_CMSG_CLOEXEC | libc::MSG_DONTWAIT
    ))?;
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
    syscall!(getsockopt(
        sock.as_raw_fd(),
        libc::SOL_SOCKET,
        libc::SO_PEERCRED,
        (&mut cred as *mut libc::ucred).cast(),
        &mut len
    ))?;
    Ok(PeerCredentials {
        pid: cred.pid,
        uid: cred.uid,
        gid: cred.gid,
    })
}

/// Effective uid and gid of this process.
pub fn my_ids() -> (u32, u32) {
    // SAFETY: geteuid/getegid cannot fail and touch no memory.
    unsafe { (libc::geteuid(), libc::getegid()) }
}
