//! The values `PMIx_Get` returns under `PMIX_GET_POINTER_VALUES`: owned by
//! the library, the caller must neither modify nor release them.
//!
//! Design (issue 3, item 7): a fixed table of buckets, each a lock-free
//! singly linked list of entries that are only ever pushed (compare and
//! swap on the bucket head) and never unlinked while the client runs. An
//! entry is keyed by (namespace, segment generation, rank, key), so the
//! value of a key read from one generation of a namespace's segments is
//! created once and the same `pmix_value_t *` is returned by every later
//! get of that key while the generation is current. A hit takes no lock
//! and allocates nothing: one hash, one acquire load, a short walk.
//!
//! This process's own puts are cached the same way, keyed by the put's
//! version instead of a segment generation (a number the client gives
//! every put, unique among its puts, marked with [`OWN`] so that it never
//! equals a generation; the namespace, rank and key are then left out, as
//! the version alone names the put, and the table is cleared with the
//! client at finalize): repeated gets of an unchanged key return one pointer
//! without allocating; after the key is put again, gets return a new
//! pointer to the new value, and the old pointer stays valid, holding the
//! old value, until finalize (the caller may still hold it: nothing is
//! freed before finalize). So each value of a key that a pointer-values
//! get returned is kept until finalize, once.
//!
//! Values that come from neither (its internal store, data fetched by
//! direct modex, realm qualifiers) are not cached by key: each such get
//! makes a fresh copy which is kept on a retained list (lock-free push as
//! well), so the caller still never frees it.
//!
//! String payloads point into the mapped segment (no copy): the entry
//! holds a reference to every segment of the generation it was read from,
//! so they stay mapped as long as the entry lives, even after the
//! namespace is deregistered or a newer generation replaced them. Other
//! payloads (scalars are inline anyway; byte objects, arrays, ...) are
//! `malloc`ed copies made once.
//!
//! Lifetime: every pointer handed out stays valid until `PMIx_Finalize`
//! (the last one, when init was counted), which releases all of them.
//!
//! Invariant: an entry, once pushed, is never unlinked or changed while the
//! client runs: a pointer handed out stays valid until the last
//! `PMIx_Finalize`.

use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::sys::pmix_value_t;

const BUCKETS: usize = 4096;

struct Entry {
    next: *mut Entry,
    hash: u64,
    generation: u64,
    rank: u32,
    nspace: Box<[u8]>,
    key: Box<[u8]>,
    value: *mut pmix_value_t,
    /// The value's string points into these (segments kept mapped); the
    /// value itself is then only a `malloc`ed shell.
    pins: Option<Box<dyn std::any::Any>>,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: AtomicPtr<Entry> = AtomicPtr::new(null_mut());
static TABLE: [AtomicPtr<Entry>; BUCKETS] = [EMPTY; BUCKETS];
/// Values handed out without a cache key, released at finalize.
static RETAINED: AtomicPtr<Entry> = AtomicPtr::new(null_mut());

/// A fast non-cryptographic hash (multiply-rotate over 8-byte words, as
/// FxHash, with a final mix for the bucket's low bits): SipHash cost more
/// than the rest of a cache hit. Keys come from this process only.
fn hash_of(nspace: &[u8], generation: u64, rank: u32, key: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    #[inline(always)]
    fn add(h: u64, w: u64) -> u64 {
        (h.rotate_left(5) ^ w).wrapping_mul(K)
    }
    /// Whole words, then the last (overlapping) word or the short rest
    /// gathered in a register: no copy through memory, whose partial
    /// stores stall the load that follows.
    #[inline(always)]
    fn bytes(mut h: u64, b: &[u8]) -> u64 {
        let n = b.len();
        let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        if n >= 8 {
            let mut i = 0;
            while i + 8 <= n {
                h = add(h, word(i));
                i += 8;
            }
            if i < n {
                h = add(h, word(n - 8));
            }
        } else {
            let mut w = 0u64;
            for (i, &x) in b.iter().enumerate() {
                w |= u64::from(x) << (8 * i);
            }
            h = add(h, w);
        }
        add(h, n as u64)
    }
    // The namespace by its length and last (up to) eight bytes, where
    // names of jobs usually differ: entries compare the whole name anyway.
    let tail = &nspace[nspace.len().saturating_sub(8)..];
    let mut h = bytes(0, tail);
    h = add(h, nspace.len() as u64);
    h = add(h, generation);
    h = add(h, u64::from(rank));
    h = bytes(h, key);
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 32)
}

/// Byte equality, inline (no `memcmp` call) for the short strings of keys
/// and namespaces: overlapping 8-byte words up to 32 bytes.
#[inline(always)]
pub(crate) fn eq_short(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    #[inline(always)]
    fn w(s: &[u8], i: usize) -> u64 {
        u64::from_ne_bytes(s[i..i + 8].try_into().unwrap_or_default())
    }
    match n {
        8..=16 => w(a, 0) == w(b, 0) && w(a, n - 8) == w(b, n - 8),
        17..=32 => {
            w(a, 0) == w(b, 0)
                && w(a, 8) == w(b, 8)
                && w(a, n - 16) == w(b, n - 16)
                && w(a, n - 8) == w(b, n - 8)
        }
        _ => a == b,
    }
}

/// Walks a list for a matching entry.
fn find(
    mut p: *mut Entry,
    hash: u64,
    nspace: &[u8],
    generation: u64,
    rank: u32,
    key: &[u8],
) -> Option<*mut pmix_value_t> {
    while !p.is_null() {
        // SAFETY: entries are published with a release CAS after being
        // fully written and are freed only at finalize.
        let e = unsafe { &*p };
        if e.hash == hash
            && e.generation == generation
            && e.rank == rank
            && eq_short(&e.nspace, nspace)
            && eq_short(&e.key, key)
        {
            return Some(e.value);
        }
        p = e.next;
    }
    None
}

/// The cached value for (nspace, generation, rank, key), if any.
pub(crate) fn lookup(
    nspace: &[u8],
    generation: u64,
    rank: u32,
    key: &[u8],
) -> Option<*mut pmix_value_t> {
    let hash = hash_of(nspace, generation, rank, key);
    let head = TABLE[(hash as usize) % BUCKETS].load(Ordering::Acquire);
    find(head, hash, nspace, generation, rank, key)
}

/// Caches `value` (a `malloc`ed `pmix_value_t`) under the key, or, if
/// another thread cached one first, frees `value` and returns the other.
/// With `pins`, `value` is a shell whose payload borrows what `pins`
/// keeps alive.
pub(crate) fn insert(
    nspace: &[u8],
    generation: u64,
    rank: u32,
    key: &[u8],
    value: *mut pmix_value_t,
    pins: Option<Box<dyn std::any::Any>>,
) -> *mut pmix_value_t {
    let hash = hash_of(nspace, generation, rank, key);
    let name = Name {
        nspace,
        generation,
        rank,
        key,
    };
    insert_hashed(hash, name, value, pins)
}

/// What an entry is found by (see [`Entry`]).
#[derive(Clone, Copy)]
struct Name<'a> {
    nspace: &'a [u8],
    generation: u64,
    rank: u32,
    key: &'a [u8],
}

/// [`insert`] with the entry's hash already made.
fn insert_hashed(
    hash: u64,
    name: Name<'_>,
    value: *mut pmix_value_t,
    pins: Option<Box<dyn std::any::Any>>,
) -> *mut pmix_value_t {
    let Name {
        nspace,
        generation,
        rank,
        key,
    } = name;
    let bucket = &TABLE[(hash as usize) % BUCKETS];
    let entry = Box::into_raw(Box::new(Entry {
        next: null_mut(),
        hash,
        generation,
        rank,
        nspace: nspace.into(),
        key: key.into(),
        value,
        pins,
    }));
    let mut head = bucket.load(Ordering::Acquire);
    loop {
        if let Some(v) = find(head, hash, nspace, generation, rank, key) {
            // SAFETY: entry was never published and is ours.
            unsafe { release_entry(*Box::from_raw(entry)) };
            return v;
        }
        // SAFETY: entry is unpublished and ours.
        unsafe { (*entry).next = head };
        match bucket.compare_exchange_weak(head, entry, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return value,
            Err(h) => head = h,
        }
    }
}

/// Marks an own-put version in the generation field.
pub(crate) const OWN: u64 = 1 << 63;

/// The hash of an own put's entry: its version alone (the namespace,
/// rank and key are left out), mixed for the bucket's low bits.
#[inline(always)]
fn own_hash(generation: u64) -> u64 {
    let h = generation.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 32)
}

/// The cached value of this process's put of `version`.
#[inline]
pub(crate) fn lookup_own(version: u64) -> Option<*mut pmix_value_t> {
    let generation = OWN | version;
    let hash = own_hash(generation);
    let head = TABLE[(hash as usize) % BUCKETS].load(Ordering::Acquire);
    find(head, hash, b"", generation, 0, b"")
}

/// Caches `value` as this process's put of `version` (as [`insert`]).
pub(crate) fn insert_own(version: u64, value: *mut pmix_value_t) -> *mut pmix_value_t {
    let generation = OWN | version;
    let name = Name {
        nspace: b"",
        generation,
        rank: 0,
        key: b"",
    };
    insert_hashed(own_hash(generation), name, value, None)
}

/// Keeps `value` alive until finalize.
pub(crate) fn retain(value: *mut pmix_value_t) -> *mut pmix_value_t {
    let entry = Box::into_raw(Box::new(Entry {
        next: null_mut(),
        hash: 0,
        generation: 0,
        rank: 0,
        nspace: Box::default(),
        key: Box::default(),
        value,
        pins: None,
    }));
    let mut head = RETAINED.load(Ordering::Acquire);
    loop {
        // SAFETY: entry is unpublished and ours.
        unsafe { (*entry).next = head };
        match RETAINED.compare_exchange_weak(head, entry, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return value,
            Err(h) => head = h,
        }
    }
}

/// Destructs and frees a `malloc`ed value.
///
/// # Safety
/// `v` came from `value_to_c_new` and is not used afterwards.
unsafe fn release_value(v: *mut pmix_value_t) {
    // SAFETY: per the contract, v is a valid malloc'd value.
    unsafe {
        crate::convert::value_destruct(v);
        libc::free(v.cast());
    }
}

/// Frees an entry's value: the shell only when its payload is borrowed.
///
/// # Safety
/// The entry is unpublished or detached, and its value no longer used.
unsafe fn release_entry(e: Entry) {
    if e.pins.is_some() {
        // SAFETY: a malloc'd shell whose payload is borrowed, not owned.
        unsafe { libc::free(e.value.cast()) };
    } else {
        // SAFETY: the value was malloc'd by value_to_c_new.
        unsafe { release_value(e.value) };
    }
}

fn free_list(head: &AtomicPtr<Entry>) {
    let mut p = head.swap(null_mut(), Ordering::AcqRel);
    while !p.is_null() {
        // SAFETY: the list was detached; its entries are ours.
        let e = unsafe { *Box::from_raw(p) };
        p = e.next;
        // SAFETY: detached, and finalize ends the pointers' lifetime.
        unsafe { release_entry(e) };
    }
}

/// Releases every value handed out (at the last `PMIx_Finalize`). Callers
/// must no longer use any pointer a pointer-values get returned.
pub(crate) fn clear() {
    for b in &TABLE {
        free_list(b);
    }
    free_list(&RETAINED);
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Value;

    fn value(x: u32) -> *mut pmix_value_t {
        crate::convert::value_to_c_new(&Value::Uint32(x)).unwrap()
    }

    /// Racing inserts of one key all end with the same pointer, which
    /// later lookups return; other keys and generations are distinct.
    #[test]
    fn racing_inserts_agree() {
        let ns = b"pointer-cache-test";
        let winners: Vec<usize> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..8)
                .map(|i| s.spawn(move || insert(ns, 7, 3, b"k", value(i), None) as usize))
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(winners.iter().all(|&w| w == winners[0]));
        assert_eq!(lookup(ns, 7, 3, b"k").map(|p| p as usize), Some(winners[0]));
        assert_eq!(lookup(ns, 8, 3, b"k"), None);
        assert_eq!(lookup(ns, 7, 4, b"k"), None);
        assert_eq!(lookup(ns, 7, 3, b"k2"), None);
        let other = insert(ns, 8, 3, b"k", value(9), None);
        assert_ne!(other as usize, winners[0]);
        // SAFETY: the cached value is a valid uint32 value.
        assert_eq!(unsafe { (*other).data.uint32 }, 9);
    }
}
