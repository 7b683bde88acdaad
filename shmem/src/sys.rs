//! The few system calls of this crate: `memfd_create` (also for the
//! core, through [`crate::memfd`]), `pwrite`, seals
//! (`fcntl`), `fstat`, `mmap`/`munmap`. Nothing else in the crate talks to
//! the kernel, and every libc call here goes through [`syscall!`].

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

/// Result of a system call: the call's name and its error.
pub type SysResult<T> = Result<T, (&'static str, io::Error)>;

/// The error value of a libc call: `-1`, or `MAP_FAILED` for `mmap`.
pub trait IsMinusOne: Copy {
    /// True if the call failed (and set `errno`).
    fn is_minus_one(self) -> bool;
}

macro_rules! impl_is_minus_one {
    ($($t:ty),*) => {$(
        impl IsMinusOne for $t {
            #[inline]
            fn is_minus_one(self) -> bool {
                self == -1
            }
        }
    )*};
}
impl_is_minus_one!(libc::c_int, libc::ssize_t);

impl IsMinusOne for *mut libc::c_void {
    #[inline]
    fn is_minus_one(self) -> bool {
        self == libc::MAP_FAILED
    }
}

/// Calls a libc function and turns its error value (`-1`, `MAP_FAILED`)
/// into `(name of the call, the thread's errno)`.
macro_rules! syscall {
    ($fn:ident ( $($arg:expr),* $(,)? )) => {{
        #[allow(unused_unsafe)]
        // SAFETY: each caller documents the preconditions of its call.
        let res = unsafe { libc::$fn($($arg),*) };
        if IsMinusOne::is_minus_one(res) {
            Err((stringify!($fn), std::io::Error::last_os_error()))
        } else {
            Ok(res)
        }
    }};
}

/// A new close-on-exec memfd, sealable if `sealable`: the workspace's
/// one `memfd_create` (the core's job barrier page is made here too,
/// through [`crate::memfd`]).
pub fn memfd_create(name: &CStr, sealable: bool) -> SysResult<OwnedFd> {
    let flags = if sealable {
        libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING
    } else {
        libc::MFD_CLOEXEC
    };
    // `name` is a valid NUL-terminated string; the flags are valid.
    let fd = syscall!(memfd_create(name.as_ptr(), flags))?;
    // SAFETY: `fd` was just returned by the kernel and nobody else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Writes all of `data` at offset 0, without mapping the file (which
/// grows to at least `data.len()` bytes).
pub fn write_all(fd: BorrowedFd<'_>, mut data: &[u8]) -> SysResult<()> {
    let mut off: libc::off_t = 0;
    while !data.is_empty() {
        // `data` is a valid readable buffer of `data.len()` bytes.
        match syscall!(pwrite(
            fd.as_raw_fd(),
            data.as_ptr().cast(),
            data.len(),
            off
        )) {
            Ok(0) => return Err(("pwrite", io::ErrorKind::WriteZero.into())),
            Ok(n) => {
                // 0 < n <= data.len().
                data = &data[n as usize..];
                off += n as libc::off_t;
            }
            Err((_, e)) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Adds seals.
pub fn add_seals(fd: BorrowedFd<'_>, seals: u32) -> SysResult<()> {
    // Plain fcntl on a valid descriptor.
    syscall!(fcntl(
        fd.as_raw_fd(),
        libc::F_ADD_SEALS,
        seals as libc::c_int
    ))?;
    Ok(())
}

/// The seals of the file.
pub fn seals(fd: BorrowedFd<'_>) -> SysResult<u32> {
    // Plain fcntl on a valid descriptor.
    let s = syscall!(fcntl(fd.as_raw_fd(), libc::F_GET_SEALS))?;
    Ok(s as u32)
}

/// The file's length.
pub fn file_len(fd: BorrowedFd<'_>) -> SysResult<u64> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // `st` is valid for writes of a `stat`.
    syscall!(fstat(fd.as_raw_fd(), st.as_mut_ptr()))?;
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
        // A new mapping chosen by the kernel (NULL hint); it aliases no
        // Rust object. The arguments are valid for `mmap`.
        let p = syscall!(mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            fd.as_raw_fd(),
            0
        ))?;
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
        // `ptr`/`len` are exactly what mmap returned, and no borrow of the
        // bytes outlives `self` (they are tied to `&self`). Nothing to do
        // if it fails.
        let _ = syscall!(munmap(self.ptr.as_ptr().cast(), self.len));
    }
}
