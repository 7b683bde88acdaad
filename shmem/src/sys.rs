//! The few system calls of this crate: `memfd_create`, `ftruncate`,
//! `pwrite`, seals (`fcntl`), `fstat`, `mmap`/`munmap`. Nothing else in the
//! crate talks to the kernel.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;

/// The seals of a published segment: no write, no resize, no mapping made
/// writable later (`F_SEAL_FUTURE_WRITE` also refuses `mprotect(PROT_WRITE)`
/// on existing read-only shared mappings), and no change to the seals.
pub const REQUIRED_SEALS: u32 = (libc::F_SEAL_SEAL
    | libc::F_SEAL_SHRINK
    | libc::F_SEAL_GROW
    | libc::F_SEAL_WRITE
    | libc::F_SEAL_FUTURE_WRITE) as u32;

fn check(op: &'static str, rc: libc::c_int) -> Result<libc::c_int, (&'static str, io::Error)> {
    if rc < 0 {
        Err((op, io::Error::last_os_error()))
    } else {
        Ok(rc)
    }
}

/// Result of a system call: the call's name and its error.
pub type SysResult<T> = Result<T, (&'static str, io::Error)>;

/// A new sealable, close-on-exec memfd.
pub fn memfd_create(name: &CStr) -> SysResult<OwnedFd> {
    // SAFETY: `name` is a valid NUL-terminated string; the flags are valid.
    let fd =
        unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING) };
    let fd = check("memfd_create", fd)?;
    // SAFETY: `fd` was just returned by the kernel and nobody else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Sets the file's length.
pub fn set_len(fd: BorrowedFd<'_>, len: u64) -> SysResult<()> {
    let len = libc::off_t::try_from(len)
        .map_err(|_| ("ftruncate", io::ErrorKind::InvalidInput.into()))?;
    // SAFETY: plain syscall on a valid descriptor.
    check("ftruncate", unsafe { libc::ftruncate(fd.as_raw_fd(), len) })?;
    Ok(())
}

/// Writes all of `data` at offset 0, without mapping the file.
pub fn write_all(fd: BorrowedFd<'_>, mut data: &[u8]) -> SysResult<()> {
    let mut off: libc::off_t = 0;
    while !data.is_empty() {
        // SAFETY: `data` is a valid readable buffer of `data.len()` bytes.
        let n = unsafe { libc::pwrite(fd.as_raw_fd(), data.as_ptr().cast(), data.len(), off) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(("pwrite", e));
        }
        if n == 0 {
            return Err(("pwrite", io::ErrorKind::WriteZero.into()));
        }
        data = &data[n as usize..];
        off += n as libc::off_t;
    }
    Ok(())
}

/// Adds seals.
pub fn add_seals(fd: BorrowedFd<'_>, seals: u32) -> SysResult<()> {
    // SAFETY: plain fcntl on a valid descriptor.
    check("fcntl(F_ADD_SEALS)", unsafe {
        libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, seals as libc::c_int)
    })?;
    Ok(())
}

/// The seals of the file.
pub fn seals(fd: BorrowedFd<'_>) -> SysResult<u32> {
    // SAFETY: plain fcntl on a valid descriptor.
    let s = check("fcntl(F_GET_SEALS)", unsafe {
        libc::fcntl(fd.as_raw_fd(), libc::F_GET_SEALS)
    })?;
    Ok(s as u32)
}

/// The file's length.
pub fn file_len(fd: BorrowedFd<'_>) -> SysResult<u64> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `st` is valid for writes of a `stat`.
    check("fstat", unsafe {
        libc::fstat(fd.as_raw_fd(), st.as_mut_ptr())
    })?;
    // SAFETY: fstat succeeded, so it initialized `st`.
    let st = unsafe { st.assume_init() };
    Ok(st.st_size as u64)
}

/// A read-only shared mapping of a whole file; unmapped on drop.
pub struct Mapping {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value alone; sharing
// `&[u8]` views of it across threads is as safe as for any immutable bytes.
unsafe impl Send for Mapping {}
// SAFETY: see `Send`: nothing mutates through a `Mapping`.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps `len` bytes of `fd` with `PROT_READ`, `MAP_SHARED`.
    pub fn map_readonly(fd: BorrowedFd<'_>, len: usize) -> SysResult<Mapping> {
        if len == 0 {
            return Err(("mmap", io::ErrorKind::InvalidInput.into()));
        }
        // SAFETY: a new mapping chosen by the kernel (NULL hint); it aliases
        // no Rust object. The arguments are valid for `mmap`.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(("mmap", io::Error::last_os_error()));
        }
        let ptr = NonNull::new(p.cast::<u8>()).ok_or(("mmap", io::ErrorKind::Other.into()))?;
        Ok(Mapping { ptr, len })
    }

    /// The mapped bytes.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `ptr` maps `len` readable bytes for the life of `self`;
        // the file is sealed against writes and shrinking (checked by the
        // reader before it trusts the contents), so the bytes neither
        // change nor disappear (no SIGBUS).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly what mmap returned, and no borrow
        // of the bytes outlives `self` (they are tied to `&self`).
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}
