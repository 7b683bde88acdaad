//! Strings, names (keys, namespaces, procs), byte objects, argv and
//! timevals between their C form and the core's.
//!
//! Invariants: strings written for C are malloc'd and NUL-terminated;
//! names are truncated to their C field and always NUL-terminated; readers
//! copy, never borrow C memory.

use std::ffi::{c_char, CStr, CString};
use std::ptr::{self, null_mut};

use pmix_core::value::{OptString, Timeval};
use pmix_core::{Key, Nspace, Proc, Rank, Status};

use crate::boundary::{calloc_array, malloc_bytes, malloc_cstr};
use crate::sys::*;

/// The conversions' result: a PMIx status on failure.
pub(super) type Res<T> = Result<T, Status>;

// ---------------------------------------------------------------------------
// Strings, names, byte objects, argv

/// Copies a nullable C string.
///
/// # Safety
/// `p` is NULL or a valid NUL-terminated string.
pub unsafe fn opt_string_from_c(p: *const c_char) -> OptString {
    if p.is_null() {
        None
    } else {
        // SAFETY: p is a valid NUL-terminated string (caller's contract).
        Some(unsafe { CStr::from_ptr(p) }.to_owned())
    }
}

/// A malloc'd copy of a nullable string (NULL for `None`).
pub fn opt_string_to_c(s: &OptString) -> Res<*mut c_char> {
    match s {
        None => Ok(null_mut()),
        Some(s) => malloc_cstr(s),
    }
}

/// Frees a malloc'd string and sets the pointer to NULL.
///
/// # Safety
/// `*p` is NULL or was allocated with `malloc`.
pub(super) unsafe fn free_str(p: &mut *mut c_char) {
    if !p.is_null() {
        // SAFETY: *p came from malloc (caller's contract) and is freed once.
        unsafe { libc::free(p.cast()) };
        *p = null_mut();
    }
}

/// The bytes of a fixed-size C name buffer, up to its first NUL and at most
/// `max` bytes (a buffer without NUL is truncated, as `PMIX_LOAD_KEY` does).
pub(super) fn name_bytes(buf: &[c_char], max: usize) -> &[u8] {
    // SAFETY: c_char and u8 have the same size and alignment, and every bit
    // pattern is valid for both.
    let b = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), buf.len()) };
    let b = &b[..b.len().min(max)];
    match b.iter().position(|&c| c == 0) {
        Some(n) => &b[..n],
        None => b,
    }
}

/// Reads a `pmix_key_t`.
pub fn key_from_c(k: &pmix_key_t) -> Key {
    Key::new(name_bytes(k, PMIX_MAX_KEYLEN).to_vec()).unwrap_or_default()
}

/// Reads a key from a `char *` (NULL gives the empty key; longer than
/// `PMIX_MAX_KEYLEN` is truncated, as `PMIX_LOAD_KEY` does).
///
/// # Safety
/// `p` is NULL or a valid NUL-terminated string.
pub unsafe fn key_from_ptr(p: *const c_char) -> Key {
    if p.is_null() {
        return Key::default();
    }
    // SAFETY: p is a valid NUL-terminated string (caller's contract).
    Key::truncated(unsafe { CStr::from_ptr(p) })
}

/// Writes a key into a `pmix_key_t`, NUL-padded.
pub fn key_to_c(key: &Key, out: &mut pmix_key_t) {
    copy_name(key.as_bytes(), out);
}

/// Reads a `pmix_nspace_t`.
pub fn nspace_from_c(n: &pmix_nspace_t) -> Nspace {
    Nspace::new(name_bytes(n, PMIX_MAX_NSLEN).to_vec()).unwrap_or_default()
}

/// Writes a namespace into a `pmix_nspace_t`, NUL-padded.
pub fn nspace_to_c(ns: &Nspace, out: &mut pmix_nspace_t) {
    copy_name(ns.as_bytes(), out);
}

pub(super) fn copy_name(src: &[u8], out: &mut [c_char]) {
    out.fill(0);
    let n = src.len().min(out.len() - 1);
    for (o, &b) in out.iter_mut().zip(&src[..n]) {
        *o = b as c_char;
    }
}

/// Reads a `pmix_proc_t`.
pub fn proc_from_c(p: &pmix_proc_t) -> Proc {
    Proc::new(nspace_from_c(&p.nspace), Rank(p.rank))
}

/// Builds a `pmix_proc_t`.
pub fn proc_to_c(p: &Proc) -> pmix_proc_t {
    let mut out = pmix_proc_t::default();
    nspace_to_c(&p.nspace, &mut out.nspace);
    out.rank = p.rank.0;
    out
}

/// Copies `size` bytes at `bytes` (NULL or size 0 give an empty vector).
///
/// # Safety
/// `bytes` is NULL or points to `size` readable bytes.
pub unsafe fn bytes_from_c(bytes: *const c_char, size: usize) -> Vec<u8> {
    if bytes.is_null() || size == 0 {
        Vec::new()
    } else {
        // SAFETY: bytes points to size readable bytes (caller's contract).
        unsafe { std::slice::from_raw_parts(bytes.cast::<u8>(), size) }.to_vec()
    }
}

/// A malloc'd copy of `b` (NULL for an empty slice).
pub fn bytes_to_c(b: &[u8]) -> Res<*mut c_char> {
    if b.is_empty() {
        return Ok(null_mut());
    }
    let p = malloc_bytes(b.len())?;
    // SAFETY: p holds b.len() fresh bytes; the regions are distinct.
    unsafe { ptr::copy_nonoverlapping(b.as_ptr(), p, b.len()) };
    Ok(p.cast())
}

/// Reads a `pmix_byte_object_t`.
pub fn bo_from_c(bo: &pmix_byte_object_t) -> Vec<u8> {
    // SAFETY: a byte object's bytes point to size bytes (or are NULL).
    unsafe { bytes_from_c(bo.bytes, bo.size) }
}

/// Builds a `pmix_byte_object_t` holding a malloc'd copy of `b`.
pub fn bo_to_c(b: &[u8]) -> Res<pmix_byte_object_t> {
    Ok(pmix_byte_object_t {
        bytes: bytes_to_c(b)?,
        size: b.len(),
    })
}

/// Frees a byte object's bytes and zeroes it.
///
/// # Safety
/// `bo.bytes` is NULL or malloc'd.
pub unsafe fn bo_destruct(bo: &mut pmix_byte_object_t) {
    // SAFETY: bytes is NULL or malloc'd (caller's contract).
    unsafe { free_str(&mut bo.bytes) };
    bo.size = 0;
}

/// Copies a NULL-terminated `char **` argv (NULL gives an empty vector).
///
/// # Safety
/// `p` is NULL or a NULL-terminated array of valid strings.
pub unsafe fn argv_from_c(p: *const *mut c_char) -> Vec<CString> {
    let mut out = Vec::new();
    if p.is_null() {
        return out;
    }
    let mut i = 0;
    loop {
        // SAFETY: the array is NULL-terminated, so every index up to and
        // including the terminator is readable.
        let s = unsafe { *p.add(i) };
        if s.is_null() {
            break;
        }
        // SAFETY: s is a valid NUL-terminated string.
        out.push(unsafe { CStr::from_ptr(s) }.to_owned());
        i += 1;
    }
    out
}

/// A malloc'd NULL-terminated argv copy of `v` (NULL for an empty vector).
pub fn argv_to_c(v: &[CString]) -> Res<*mut *mut c_char> {
    if v.is_empty() {
        return Ok(null_mut());
    }
    let arr = calloc_array::<*mut c_char>(v.len() + 1)?;
    for (i, s) in v.iter().enumerate() {
        match malloc_cstr(s) {
            // SAFETY: arr holds v.len() + 1 slots; i < v.len().
            Ok(c) => unsafe { *arr.add(i) = c },
            Err(e) => {
                // SAFETY: arr is a NULL-terminated argv of malloc'd strings
                // (the unfilled slots are still NULL from calloc).
                unsafe { argv_free(arr) };
                return Err(e);
            }
        }
    }
    Ok(arr)
}

/// Frees a malloc'd NULL-terminated argv and its strings.
///
/// # Safety
/// `p` is NULL or a malloc'd NULL-terminated array of malloc'd strings.
pub unsafe fn argv_free(p: *mut *mut c_char) {
    if p.is_null() {
        return;
    }
    let mut i = 0;
    loop {
        // SAFETY: NULL-terminated array (caller's contract).
        let s = unsafe { *p.add(i) };
        if s.is_null() {
            break;
        }
        // SAFETY: each string is malloc'd and freed once.
        unsafe { libc::free(s.cast()) };
        i += 1;
    }
    // SAFETY: the array itself is malloc'd.
    unsafe { libc::free(p.cast()) };
}

pub(super) fn timeval_from_c(tv: &timeval) -> Timeval {
    Timeval {
        sec: tv.tv_sec,
        usec: tv.tv_usec,
    }
}

pub(super) fn timeval_to_c(tv: &Timeval) -> timeval {
    timeval {
        tv_sec: tv.sec,
        tv_usec: tv.usec,
    }
}
