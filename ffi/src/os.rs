//! Every call the ffi crate makes into the C library for the operating
//! system's services (the environment) or for raw memory scans, each
//! wrapped once here; errno-returning calls go through [`cvt`].
//!
//! Invariant: no other module of the crate calls `libc` but for the
//! allocator (`malloc`/`calloc`/`realloc`/`free`): memory handed to or
//! taken back from C callers is allocated where it is built (`boundary`,
//! `convert` and the modules that return C arrays), because the caller's
//! `free()` must pair with it; that is the ABI's contract, not an OS
//! service.

use std::ffi::{c_char, c_int, CStr};
use std::io;

/// The one helper for errno-returning calls (the core's, the same for
/// every crate of the workspace but the shared-memory one, below the core):
/// a C call's value, or `errno` as an [`io::Error`] if the value is the
/// call's failure mark.
pub(crate) use pmix_core::os_call::cvt;

extern "C" {
    /// The process environment (`environ(7)`).
    static mut environ: *mut *mut c_char;
}

/// The address of the process environment array (`environ`), to tell an
/// array a caller hands us apart from it.
pub(crate) fn environ_ptr() -> *mut *mut c_char {
    // SAFETY: reading the pointer value of environ, not through it.
    unsafe { environ }
}

/// `setenv(name, value, overwrite)`: sets a variable of the process
/// environment (an existing one only when `overwrite`).
pub(crate) fn setenv(name: &CStr, value: &CStr, overwrite: bool) -> io::Result<()> {
    // SAFETY: two valid NUL-terminated strings.
    cvt(unsafe { libc::setenv(name.as_ptr(), value.as_ptr(), c_int::from(overwrite)) }).map(drop)
}

/// `unsetenv(name)`: removes a variable of the process environment.
pub(crate) fn unsetenv(name: &CStr) -> io::Result<()> {
    // SAFETY: a valid NUL-terminated string.
    cvt(unsafe { libc::unsetenv(name.as_ptr()) }).map(drop)
}

/// The index of the first NUL byte of `b` (libc's vectorized `memchr`: a
/// byte loop showed in profiles of the get path).
pub(crate) fn nul_position(b: &[u8]) -> Option<usize> {
    // SAFETY: b is b.len() readable bytes.
    let p = unsafe { libc::memchr(b.as_ptr().cast(), 0, b.len()) };
    if p.is_null() {
        None
    } else {
        // SAFETY: memchr found the NUL within b.
        Some(unsafe { p.cast::<u8>().offset_from(b.as_ptr()) } as usize)
    }
}

/// Copies `buf.len()` bytes of this process's memory at `addr` into
/// `buf` without faulting: `false` when any of them is not mapped
/// readable (`process_vm_readv(2)` on this process fails with `EFAULT`
/// instead of raising `SIGSEGV`).
pub(crate) fn read_own_memory(addr: usize, buf: &mut [u8]) -> bool {
    let local = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let remote = libc::iovec {
        iov_base: addr as *mut libc::c_void,
        iov_len: buf.len(),
    };
    // SAFETY: local describes our writable buffer; the kernel checks the
    // remote range and reports an unmapped one as an error.
    let n = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
    usize::try_from(n).is_ok_and(|n| n == buf.len())
}

/// The base address of the loaded object (executable or shared library)
/// whose mapping holds `addr`, `None` when no object does (`dladdr(3)`).
pub(crate) fn object_base(addr: usize) -> Option<usize> {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: dladdr only looks the address up in the loader's tables and
    // fills the out-structure; it never dereferences addr.
    let found = unsafe { libc::dladdr(addr as *const libc::c_void, info.as_mut_ptr()) };
    if found == 0 {
        return None;
    }
    // SAFETY: dladdr succeeded, so it filled the structure.
    let base = unsafe { info.assume_init() }.dli_fbase as usize;
    (base != 0).then_some(base)
}

/// Whether `addr` lies in an executable mapping of this process (read
/// from `/proc/self/maps`).
pub(crate) fn executable(addr: usize) -> bool {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return false;
    };
    maps.lines().any(|line| {
        let mut fields = line.split_whitespace();
        let (Some(range), Some(perms)) = (fields.next(), fields.next()) else {
            return false;
        };
        let Some((lo, hi)) = range.split_once('-') else {
            return false;
        };
        let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
        else {
            return false;
        };
        perms.as_bytes().get(2) == Some(&b'x') && (lo..hi).contains(&addr)
    })
}
