//! Handing a get's answer out in the storage the caller asked for (a new
//! value, the caller's value under static values, a callback's value),
//! and caching what the answer says may be cached.
//!
//! Invariants: what C receives is `malloc`ed (or the caller's own
//! storage); a cached pointer-values result is handed out only while its
//! namespace generation or put version is current.

use std::ffi::{c_int, c_void, CStr};
use std::ptr::null_mut;

use pmix_core::client::{Answer, GetOptions, NsView, RealmQualifier, ValueRef, ValueStorage};
use pmix_core::{Rank, Status, Value};

use crate::api::{pointer_cache, scalar_cache};
use crate::boundary::{calloc_array, malloc_one, malloc_str_bytes, SendPtr};
use crate::convert;
use crate::sys::{pmix_value_t, PMIX_STRING};

/// The caller's `pmix_value_cbfunc_t` of a `_nb` get.
pub(super) type ValueCbFn = unsafe extern "C" fn(c_int, *mut pmix_value_t, *mut c_void);

/// Hands a `_nb` get's result to the caller's callback `f` with its
/// cbdata: a value of ours (NULL on error), released once `f` returned, as
/// OpenPMIx does.
pub(super) fn deliver_value(f: ValueCbFn, data: SendPtr, r: Result<Value, Status>) {
    crate::boundary::guard_or((), || {
        let (status, v) = match r.and_then(|v| convert::value_to_c_new(&v)) {
            Ok(v) => (Status::SUCCESS, v),
            Err(s) => (s, null_mut()),
        };
        // SAFETY: the caller's callback, given its cbdata; v is NULL or
        // ours, released once the callback returned.
        unsafe {
            f(status.0, v, data.0);
            if !v.is_null() {
                convert::value_destruct(v);
                libc::free(v.cast());
            }
        }
    })
}

// ---------------------------------------------------------------------------
// Handing an answer out

/// The process a get names, as the caches key it.
pub(super) struct Target<'a> {
    pub(super) nspace: &'a [u8],
    pub(super) rank: Rank,
}

/// Hands `answer` out to a blocking caller in the storage `opts` asks for,
/// caching what it may be cached by (see the module documentation).
/// `scalar_owner`: the owner under which this thread's `scalar_cache`
/// keeps the answer if it is a scalar: the own namespace's handle address
/// for a segment read through it (keyed by generation), the own puts'
/// owner for an own put (keyed by the put's version).
///
/// # Safety
/// `val` is writable; under static values `*val` is the caller's non-NULL
/// value.
#[inline]
pub(super) unsafe fn deliver(
    answer: Answer<'_>,
    to: &Target<'_>,
    key: &str,
    opts: &GetOptions,
    scalar_owner: Option<usize>,
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    let plain = opts.realm == RealmQualifier::None;
    match answer {
        Answer::Segment {
            value,
            view,
            until_put,
        } => {
            let stable = plain && !until_put;
            match opts.storage {
                ValueStorage::Pointer if stable => {
                    let (ns, g) = (to.nspace, view.generation());
                    let p = match pointer_cache::lookup(ns, g, to.rank.0, key.as_bytes()) {
                        Some(p) => p,
                        None => pointer_insert(ns, view, to.rank.0, key, value)?,
                    };
                    // SAFETY: val is a writable out-parameter.
                    unsafe { *val = p };
                    Ok(())
                }
                ValueStorage::Pointer => {
                    let p = pointer_cache::retain(convert::value_to_c_new(&Value::from(value))?);
                    // SAFETY: val is a writable out-parameter.
                    unsafe { *val = p };
                    Ok(())
                }
                storage => {
                    if let Some(owner) = scalar_owner.filter(|_| stable && is_scalar(&value)) {
                        let g = view.generation();
                        let s = cache_scalar(owner, g, to.rank.0, key, &Value::from(value))?;
                        // SAFETY: the caller's contract.
                        return unsafe { put_scalar(storage, s, val) };
                    }
                    match storage {
                        // SAFETY: under static values *val is the caller's
                        // value (the caller's contract).
                        ValueStorage::Static => unsafe {
                            convert::value_write(&Value::from(value), *val)
                        },
                        _ => {
                            let p = match value.as_c_str() {
                                // Straight from the segment's bytes: no
                                // owned copy first.
                                Some(cs) => malloc_string_value(cs)?,
                                None => convert::value_to_c_new(&Value::from(value))?,
                            };
                            // SAFETY: val is a writable out-parameter.
                            unsafe { *val = p };
                            Ok(())
                        }
                    }
                }
            }
        }
        Answer::Own { value, version } => {
            if !plain {
                // SAFETY: the caller's contract.
                return unsafe { put_value(opts.storage, value, val) };
            }
            let mut pointer = null_mut();
            if opts.storage == ValueStorage::Pointer {
                pointer = own_pointer(value, version)?;
            } else if let Some(owner) = scalar_owner.filter(|_| is_scalar_value(value)) {
                // Kept by the put's version: the next get of this version
                // needs no pin.
                let s = cache_scalar(owner, version, to.rank.0, key, value)?;
                // SAFETY: the caller's contract.
                return unsafe { put_scalar(opts.storage, s, val) };
            }
            // SAFETY: the caller's contract.
            unsafe { put_own(opts.storage, value, pointer, val) }
        }
        // SAFETY: the caller's contract.
        Answer::Local(value) => unsafe { put_value(opts.storage, &value, val) },
        // SAFETY: the caller's contract.
        Answer::Held(value) => unsafe { put_value(opts.storage, &value, val) },
    }
}

/// Hands out a value that no cache keeps: a fresh copy (retained until
/// finalize under pointer values).
///
/// # Safety
/// As [`deliver`].
pub(super) unsafe fn put_value(
    storage: ValueStorage,
    v: &Value,
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    match storage {
        // SAFETY: under static values *val is the caller's value.
        ValueStorage::Static => unsafe { convert::value_write(v, *val) },
        ValueStorage::Pointer => {
            let p = pointer_cache::retain(convert::value_to_c_new(v)?);
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = p };
            Ok(())
        }
        ValueStorage::Copy => {
            // A string (the usual posted value) allocated whole, not
            // zeroed then filled.
            let p = match v {
                Value::String(Some(s)) => malloc_string_value(s)?,
                _ => convert::value_to_c_new(v)?,
            };
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = p };
            Ok(())
        }
    }
}

/// Hands out this process's own put `v`: under pointer values its cached
/// `pointer`, else a copy.
///
/// # Safety
/// As [`deliver`].
pub(super) unsafe fn put_own(
    storage: ValueStorage,
    v: &Value,
    pointer: *mut pmix_value_t,
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    if storage == ValueStorage::Pointer {
        // SAFETY: val is a writable out-parameter.
        unsafe { *val = pointer };
        return Ok(());
    }
    // SAFETY: the caller's contract.
    unsafe { put_value(storage, v, val) }
}

/// The pointer-values result of this process's put of `version`: cached
/// by the put's version (see [`pointer_cache`]), so repeated gets of an
/// unchanged key return one pointer and a get after a new put of the key
/// a new one.
pub(super) fn own_pointer(v: &Value, version: u64) -> Result<*mut pmix_value_t, Status> {
    if let Some(p) = pointer_cache::lookup_own(version) {
        return Ok(p);
    }
    let p = convert::value_to_c_new(v)?;
    Ok(pointer_cache::insert_own(version, p))
}

/// Caches `v`, read from `view` of namespace `ns`, as the pointer-values
/// result of (`ns`, rank, `key`) in this generation (see
/// [`pointer_cache`]).
pub(super) fn pointer_insert(
    ns: &[u8],
    view: NsView<'_>,
    rank: u32,
    key: &str,
    v: ValueRef<'_>,
) -> Result<*mut pmix_value_t, Status> {
    let (value, pins) = match v.as_c_str() {
        Some(cs) => {
            // A string borrowed from the segment, which the entry keeps
            // mapped.
            let shell = calloc_array::<pmix_value_t>(1)?;
            // SAFETY: shell is a fresh zeroed value.
            unsafe {
                (*shell).type_ = PMIX_STRING;
                (*shell).data.string = cs.as_ptr().cast_mut();
            }
            let segs: Vec<_> = view
                .job_segment()
                .into_iter()
                .chain(view.modex_segments())
                .cloned()
                .collect();
            (shell, Some(Box::new(segs) as Box<dyn std::any::Any>))
        }
        None => (convert::value_to_c_new(&Value::from(v))?, None),
    };
    Ok(pointer_cache::insert(
        ns,
        view.generation(),
        rank,
        key.as_bytes(),
        value,
        pins,
    ))
}

/// True for the values without pointers that `scalar_cache` keeps.
pub(super) fn is_scalar(v: &ValueRef<'_>) -> bool {
    use ValueRef as R;
    matches!(
        v,
        R::Bool(_)
            | R::Byte(_)
            | R::Pid(_)
            | R::Int(_)
            | R::Int8(_)
            | R::Int16(_)
            | R::Int32(_)
            | R::Int64(_)
            | R::Uint(_)
            | R::Uint8(_)
            | R::Uint16(_)
            | R::Uint32(_)
            | R::Uint64(_)
            | R::Float(_)
            | R::Double(_)
    )
}

/// True for the owned values `scalar_cache` keeps (those of [`is_scalar`]).
pub(super) fn is_scalar_value(v: &Value) -> bool {
    use Value as V;
    matches!(
        v,
        V::Bool(_)
            | V::Byte(_)
            | V::Pid(_)
            | V::Int(_)
            | V::Int8(_)
            | V::Int16(_)
            | V::Int32(_)
            | V::Int64(_)
            | V::Uint(_)
            | V::Uint8(_)
            | V::Uint16(_)
            | V::Uint32(_)
            | V::Uint64(_)
            | V::Float(_)
            | V::Double(_)
    )
}

/// Converts the scalar `v` and keeps it in this thread's cache.
pub(super) fn cache_scalar(
    owner: usize,
    generation: u64,
    rank: u32,
    key: &str,
    v: &Value,
) -> Result<pmix_value_t, Status> {
    let mut out = pmix_value_t::default();
    // SAFETY: out is a local value; a scalar's conversion allocates nothing.
    unsafe { convert::value_write(v, &mut out) }?;
    scalar_cache::insert(owner, generation, rank, key.as_bytes(), out);
    Ok(out)
}

/// Hands a scalar value out as `storage` asks: into the caller's value
/// (static) or a fresh `calloc`ed one.
///
/// # Safety
/// `val` is writable; under static values `*val` is the caller's non-NULL
/// value.
pub(super) unsafe fn put_scalar(
    storage: ValueStorage,
    v: pmix_value_t,
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    match storage {
        ValueStorage::Static => {
            // SAFETY: under static values *val is the caller's non-NULL
            // pmix_value_t (the caller's contract).
            unsafe { (*val).write(v) };
            Ok(())
        }
        _ => {
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = null_mut() };
            let p = malloc_one(v)?;
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = p };
            Ok(())
        }
    }
}

/// A `malloc`ed `PMIX_STRING` value holding a `malloc`ed copy of `s`.
#[inline]
pub(super) fn malloc_string_value(s: &CStr) -> Result<*mut pmix_value_t, Status> {
    malloc_string_value_of(s.to_bytes())
}

/// [`malloc_string_value`] of a string's bytes (without its NUL, and
/// holding none).
pub(super) fn malloc_string_value_of(s: &[u8]) -> Result<*mut pmix_value_t, Status> {
    let copy = malloc_str_bytes(s)?;
    // SAFETY: pmix_value_t is plain C data, for which all zeroes is valid.
    let mut v: pmix_value_t = unsafe { std::mem::zeroed() };
    v.type_ = PMIX_STRING;
    v.data.string = copy;
    malloc_one(v).inspect_err(|_| {
        // SAFETY: ours, unused.
        unsafe { libc::free(copy.cast()) };
    })
}
