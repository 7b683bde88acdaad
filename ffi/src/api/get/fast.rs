//! The hot path (DESIGN.md): a get served from the mapped segments or
//! this process's own puts (which the core answers without a lock or a
//! copy), this process's namespace through a cached `NsHandle`.
//!
//! Invariants: takes no lock, makes no syscall and allocates nothing but
//! the caller's `malloc`ed result; what it does not serve it leaves to the
//! owned path.

use std::ffi::{c_char, CStr};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};

use pmix_core::client::{
    Client, GetOptions, NsHandle, ProcRef, RealmQualifier, ValueStorage, OWN_INLINE,
};
use pmix_core::{Rank, Status};

use crate::api::args::{c_array_bytes, c_array_is};
use crate::api::{pointer_cache, scalar_cache};
use crate::sys::{pmix_proc_t, pmix_value_t};

use super::deliver::*;

// ---------------------------------------------------------------------------
// The hot path (DESIGN.md): data in the mapped segments or an own put,
// read without converting the C arguments to owned values. No allocation
// (but the caller's malloc'ed result in the default mode), no lock, no
// syscall.

/// The handle on the namespace of the client it was made for.
pub(super) struct OwnNs {
    client: *const Client,
    handle: NsHandle,
}

/// This client's [`OwnNs`], made by the first get (a handle made for a
/// finalized client is replaced and leaked: a racing get may still use it).
pub(super) static OWN_NS: AtomicPtr<OwnNs> = AtomicPtr::new(null_mut());

/// The handle on `c`'s own namespace (allocates only when first made).
pub(super) fn own_handle(c: &'static Client) -> Option<&'static NsHandle> {
    let cur = OWN_NS.load(Ordering::Acquire);
    // SAFETY: published handles are leaked, never freed.
    if let Some(o) = unsafe { cur.as_ref() } {
        if std::ptr::eq(o.client, c) {
            return Some(&o.handle);
        }
    }
    let new = Box::into_raw(Box::new(OwnNs {
        client: c,
        handle: c.own_handle()?,
    }));
    match OWN_NS.compare_exchange(cur, new, Ordering::AcqRel, Ordering::Acquire) {
        // SAFETY: just published, never freed.
        Ok(_) => Some(unsafe { &(*new).handle }),
        Err(other) => {
            // SAFETY: `new` was never published.
            drop(unsafe { Box::from_raw(new) });
            // SAFETY: published handles are never freed.
            let o = unsafe { &*other };
            std::ptr::eq(o.client, c).then_some(&o.handle)
        }
    }
}

/// The owner under which `scalar_cache` keeps scalars of `c`'s own puts,
/// keyed by the put's version: the client's address with its low bit set,
/// which no namespace handle's (aligned) address has.
fn own_puts_owner(c: &'static Client) -> usize {
    std::ptr::from_ref(c) as usize | 1
}

/// `PMIx_Get` of what the local sources answer at once, or `None` to take
/// the general path (nothing here, and errors, which the general path
/// reports).
///
/// # Safety
/// `key` is a valid string, `proc_` NULL or a valid proc, `val` a writable
/// out-parameter.
pub(super) unsafe fn get_fast(
    c: &'static Client,
    proc_: *const pmix_proc_t,
    key: *const c_char,
    opts: &GetOptions,
    val: *mut *mut pmix_value_t,
) -> Option<Result<(), Status>> {
    if !c.is_initialized() || opts.refresh {
        // PMIX_GET_REFRESH_CACHE asks the server again: the core's path.
        return None;
    }
    // SAFETY: the caller's contract.
    let key_bytes = unsafe { CStr::from_ptr(key) }.to_bytes();
    if key_bytes.is_empty() || key_bytes.len() > pmix_core::MAX_KEYLEN {
        return None;
    }
    let me = c.proc();
    let own_ns = me.nspace.as_bytes();
    // SAFETY: NULL or a valid proc (the caller's contract).
    let (ns, rank) = match unsafe { proc_.as_ref() } {
        None => (own_ns, me.rank),
        // This process's namespace (the usual case) is recognized
        // without a scan for the NUL.
        Some(p) if p.nspace[0] == 0 || c_array_is(&p.nspace, own_ns) => (own_ns, Rank(p.rank)),
        Some(p) => (c_array_bytes(&p.nspace), Rank(p.rank)),
    };
    let own_nspace = std::ptr::eq(ns, own_ns);
    let plain = opts.realm == RealmQualifier::None;
    // SAFETY: val is a valid out-parameter (the caller's contract).
    if opts.storage == ValueStorage::Static && unsafe { (*val).is_null() } {
        return None;
    }
    let pointer = opts.storage == ValueStorage::Pointer && plain;
    let target = ProcRef { nspace: ns, rank };
    if plain {
        // A put of this process that answers (the core's rule): under
        // pointer values the result already made of its current version
        // (no epoch pin), else its value, borrowed under a reader's pin.
        if let Some(k) = c.own_put(target, key_bytes) {
            if pointer {
                if let Some(p) = pointer_cache::lookup_own(k.version()) {
                    // SAFETY: val is a writable out-parameter.
                    unsafe { *val = p };
                    return Some(Ok(()));
                }
            }
            // A short string, copied out without a pin.
            if opts.storage == ValueStorage::Copy {
                let mut buf = [0u8; OWN_INLINE];
                if let Some(n) = k.short_string(&mut buf) {
                    // A string value holds no NUL (a put of one stops at it).
                    let s = buf.get(..n)?;
                    // SAFETY: val is a writable out-parameter.
                    return Some(malloc_string_value_of(s).map(|p| unsafe { *val = p }));
                }
            }
            // A scalar of this version read before by this thread: no pin.
            let owner = own_puts_owner(c);
            if !pointer {
                if let Some(v) = scalar_cache::lookup(owner, k.version(), rank.0, key_bytes) {
                    // SAFETY: val is writable, *val the caller's under
                    // static values (checked above).
                    return Some(unsafe { put_scalar(opts.storage, v, val) });
                }
            }
            let key = std::str::from_utf8(key_bytes).ok()?;
            let r = c.reader();
            if opts.storage == ValueStorage::Copy {
                // SAFETY: val is a writable out-parameter.
                unsafe { *val = null_mut() };
            }
            let to = Target { nspace: ns, rank };
            // SAFETY: val is writable, *val the caller's under static
            // values (checked above).
            return Some(unsafe { deliver(k.answer(&r), &to, key, opts, Some(owner), val) });
        }
    }
    if pointer && own_nspace {
        // A value of the current generation already handed out: no pin,
        // no view (the generation is read from the handle).
        let g = own_handle(c)?.generation();
        if let Some(p) = pointer_cache::lookup(ns, g, rank.0, key_bytes) {
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = p };
            return Some(Ok(()));
        }
    }
    // A scalar of the current generation read before by this thread.
    let scalars = own_nspace && !pointer && plain;
    let owner = if scalars {
        let h = own_handle(c)?;
        let owner = std::ptr::from_ref(h) as usize;
        if let Some(v) = scalar_cache::lookup(owner, h.generation(), rank.0, key_bytes) {
            // SAFETY: val is writable, *val the caller's under static
            // values (checked above).
            return Some(unsafe { put_scalar(opts.storage, v, val) });
        }
        Some(owner)
    } else {
        None
    };
    // Cached keys are valid UTF-8: checked only past the caches.
    let key = std::str::from_utf8(key_bytes).ok()?;
    let r = c.reader();
    let view = if own_nspace {
        r.view(own_handle(c)?)
    } else {
        c.view_of(&r, ns)
    };
    let answer = c.resolve(&r, view, target, key, opts)?;
    if opts.storage == ValueStorage::Copy {
        // SAFETY: val is a writable out-parameter.
        unsafe { *val = null_mut() };
    }
    let to = Target { nspace: ns, rank };
    // SAFETY: val is writable, *val the caller's under static values
    // (checked above).
    Some(unsafe { deliver(answer, &to, key, opts, owner, val) })
}
