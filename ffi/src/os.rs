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

/// An errno-returning call's result: `-1` is the OS error in `errno`.
pub(crate) fn cvt(r: c_int) -> io::Result<c_int> {
    if r == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

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
