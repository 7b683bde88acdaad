//! The C boundary discipline, in one place.
//!
//! Every exported function body runs inside [`guard`] (or [`guard_or`] for
//! functions that do not return a status), which catches panics so nothing
//! unwinds into C, and maps a Rust `Result` to a `pmix_status_t`. Pointer
//! checks go through [`nonnull!`]. Memory handed to C callers comes from
//! [`malloc_bytes`], [`calloc_array`] and [`malloc_cstr`], all of which use
//! the `libc::malloc` family so that `free()` and the header macros release
//! it.

use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use pmix_core::Status;

use crate::sys::pmix_op_cbfunc_t;

/// `PMIX_ERROR`, returned when a panic is caught at the boundary.
pub const PANIC_STATUS: i32 = Status::ERROR.0;

/// Runs `f`, turning `Ok(())` into `PMIX_SUCCESS`, `Err(s)` into `s` and a
/// panic into `PMIX_ERROR`.
pub fn guard(f: impl FnOnce() -> Result<(), Status>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => Status::SUCCESS.0,
        Ok(Err(s)) => s.0,
        Err(_) => PANIC_STATUS,
    }
}

/// Runs `f`, returning `fallback` if it panics (for entry points whose
/// return type is not a status).
pub fn guard_or<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

/// Returns `Err(PMIX_ERR_BAD_PARAM)` from the enclosing closure if any of
/// the given pointers is NULL.
#[macro_export]
macro_rules! nonnull {
    ($($p:expr),+ $(,)?) => {
        $( if $p.is_null() {
            return Err(pmix_core::Status::ERR_BAD_PARAM);
        } )+
    };
}

/// Allocates `n` bytes with `malloc` (at least one byte, so the result is
/// never an ambiguous NULL); `PMIX_ERR_NOMEM` on failure.
pub fn malloc_bytes(n: usize) -> Result<*mut u8, Status> {
    // SAFETY: malloc has no preconditions; the result is checked for NULL.
    let p = unsafe { libc::malloc(n.max(1)) } as *mut u8;
    if p.is_null() {
        Err(Status::ERR_NOMEM)
    } else {
        Ok(p)
    }
}

/// Moves `v` into fresh `malloc`ed memory (which C releases with `free`):
/// cheaper than [`calloc_array`] for a value written whole.
pub fn malloc_one<T>(v: T) -> Result<*mut T, Status> {
    const { assert!(std::mem::align_of::<T>() <= 16) };
    let p = malloc_bytes(std::mem::size_of::<T>())?.cast::<T>();
    // SAFETY: p is fresh, writable memory of T's size from malloc, whose
    // alignment (16 on this ABI) suffices for T (checked above).
    unsafe { p.write(v) };
    Ok(p)
}

/// Allocates a zeroed array of `n` values of `T` with `calloc`; NULL for
/// `n == 0`; `PMIX_ERR_NOMEM` on failure.
pub fn calloc_array<T>(n: usize) -> Result<*mut T, Status> {
    if n == 0 {
        return Ok(std::ptr::null_mut());
    }
    // SAFETY: calloc has no preconditions and checks n * size for overflow;
    // the result is checked for NULL.
    let p = unsafe { libc::calloc(n, std::mem::size_of::<T>()) } as *mut T;
    if p.is_null() {
        Err(Status::ERR_NOMEM)
    } else {
        Ok(p)
    }
}

/// Copies a C string (with its NUL) into `malloc`ed memory.
pub fn malloc_cstr(s: &CStr) -> Result<*mut c_char, Status> {
    malloc_str_bytes(s.to_bytes())
}

/// Copies `bytes` (which hold no NUL) into `malloc`ed memory as a C
/// string: the bytes, then a NUL.
pub fn malloc_str_bytes(bytes: &[u8]) -> Result<*mut c_char, Status> {
    let n = bytes.len();
    let p = malloc_bytes(n.checked_add(1).ok_or(Status::ERR_NOMEM)?)?;
    // SAFETY: p holds n + 1 writable bytes, freshly allocated, so the
    // regions cannot overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, n);
        *p.add(n) = 0;
    }
    Ok(p as *mut c_char)
}

/// Borrows a C string argument, `None` for NULL.
///
/// # Safety
/// `p` must be NULL or point to a NUL-terminated string that outlives `'a`.
pub unsafe fn opt_cstr<'a>(p: *const c_char) -> Option<&'a CStr> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the caller guarantees p is a valid NUL-terminated string.
        Some(unsafe { CStr::from_ptr(p) })
    }
}

/// A C pointer carried to another thread: callback data, opaque to us.
#[derive(Clone, Copy)]
pub(crate) struct SendPtr(pub(crate) *mut c_void);
// SAFETY: the pointer is only handed back to the C callback it came with,
// which the standard allows to run on any library thread.
unsafe impl Send for SendPtr {}
// SAFETY: as above; the library never dereferences it.
unsafe impl Sync for SendPtr {}

/// The `pmix_op_cbfunc_t` call of a finished operation: `cbfunc` (if set)
/// gets the status and its `cbdata`, nothing unwinding out of it.
pub(crate) fn op_callback(
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> Box<dyn FnOnce(Status) + Send> {
    let data = SendPtr(cbdata);
    Box::new(move |s: Status| {
        let data = data;
        if let Some(f) = cbfunc {
            // SAFETY: the caller's callback, given back its cbdata.
            guard_or((), || unsafe { f(s.0, data.0) });
        }
    })
}

/// Calls `cbfunc` with `status` from another thread, as OpenPMIx calls
/// it from its progress thread (a host may hold a lock its callback
/// takes while it calls us).
pub(crate) fn report_later(cbfunc: pmix_op_cbfunc_t, status: Status, cbdata: *mut c_void) {
    let Some(f) = cbfunc else { return };
    let data = SendPtr(cbdata);
    run_later(move || {
        let data = data;
        // SAFETY: the host's callback with its own cbdata.
        guard_or((), || unsafe { f(status.0, data.0) });
    });
}

/// Runs `run` (a caller's callback, already guarded) on a thread of its
/// own, after the exported function that asked returns, as the standard
/// wants of non-blocking calls; with no thread to be had, here rather
/// than never.
pub(crate) fn run_later(run: impl FnOnce() + Send + 'static) {
    let slot = std::sync::Arc::new(std::sync::Mutex::new(Some(run)));
    let theirs = std::sync::Arc::clone(&slot);
    let spawned = std::thread::Builder::new()
        .name("pmix-server-cb".into())
        .spawn(move || {
            let run = theirs.lock().ok().and_then(|mut r| r.take());
            if let Some(run) = run {
                run();
            }
        });
    if spawned.is_err() {
        let run = slot.lock().ok().and_then(|mut r| r.take());
        if let Some(run) = run {
            run();
        }
    }
}
