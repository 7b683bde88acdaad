//! A small per-thread cache of the scalar values `PMIx_Get` read from the
//! own namespace's segments or from this process's own puts, for the copy
//! (default) and
//! `PMIX_GET_STATIC_VALUES` modes: a hit skips the epoch pin and the
//! segment lookup, leaving only the copy of a `pmix_value_t` (and, for a
//! copy, its `calloc`).
//!
//! Only values without pointers are kept (booleans, bytes, integers,
//! floating point numbers), so an entry owns nothing and can be dropped or
//! overwritten at any time. Entries are keyed by the namespace handle (a
//! leaked, never reused address: see `own_handle`), the generation of the
//! namespace's state they were read from, the rank and the key: a newer
//! generation (any publish to the namespace) makes them miss. An own put's
//! scalar is keyed by the own puts' owner (the client's address with the
//! low bit set, never a handle's) and the put's version, which the core
//! reads without a pin: a new put of the key makes it miss. The cache is
//! direct-mapped and fixed in size ([`SLOTS`] entries per thread), so it
//! never grows.
//!
//! Why it stays (measured 29 Nov 2026, `pmix_bench` N=4): without it the
//! copy gets of a job-level and a peer's scalar take 90 ns against 42 ns
//! (the epoch pin, the view and the segment lookup a hit skips).
//!
//! Invariant: an entry owns nothing and is keyed by its owner and
//! generation, so a value of a superseded generation is never returned.

use std::cell::RefCell;

use crate::sys::pmix_value_t;

/// Entries per thread.
const SLOTS: usize = 64;
/// Longer keys are not cached.
const MAX_KEY: usize = 40;

#[derive(Clone, Copy)]
struct Slot {
    owner: usize,
    generation: u64,
    rank: u32,
    klen: u8,
    key: [u8; MAX_KEY],
    value: pmix_value_t,
}

thread_local! {
    static CACHE: RefCell<[Option<Slot>; SLOTS]> = const { RefCell::new([None; SLOTS]) };
}

#[inline(always)]
fn index(rank: u32, key: &[u8]) -> usize {
    (slot_hash(u64::from(rank), key) as usize) % SLOTS
}

/// The hash that places `key` (with `seed`) in the slots.
#[inline(always)]
fn slot_hash(seed: u64, key: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let add = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let mut h = add(seed, key.len() as u64);
    // Whole words, then the rest gathered in a register (a copy through
    // memory would stall the load that follows).
    let mut words = key.chunks_exact(8);
    for w in &mut words {
        h = add(h, u64::from_le_bytes(w.try_into().unwrap_or_default()));
    }
    let mut w = 0u64;
    for (i, &b) in words.remainder().iter().enumerate() {
        w |= u64::from(b) << (8 * i);
    }
    h = add(h, w);
    h ^ (h >> 29)
}

/// The cached value of (`owner`, `generation`, `rank`, `key`), if any.
#[inline]
pub(crate) fn lookup(owner: usize, generation: u64, rank: u32, key: &[u8]) -> Option<pmix_value_t> {
    if key.len() > MAX_KEY {
        return None;
    }
    let i = index(rank, key);
    CACHE
        .try_with(|c| {
            let c = c.borrow();
            let s = c[i].as_ref()?;
            (s.owner == owner
                && s.generation == generation
                && s.rank == rank
                && usize::from(s.klen) == key.len()
                && crate::api::pointer_cache::eq_short(&s.key[..key.len()], key))
            .then_some(s.value)
        })
        .ok()
        .flatten()
}

/// Keeps `value`, which must hold no pointer (a scalar).
pub(crate) fn insert(owner: usize, generation: u64, rank: u32, key: &[u8], value: pmix_value_t) {
    if key.len() > MAX_KEY {
        return;
    }
    let mut k = [0u8; MAX_KEY];
    k[..key.len()].copy_from_slice(key);
    let i = index(rank, key);
    let _ = CACHE.try_with(|c| {
        c.borrow_mut()[i] = Some(Slot {
            owner,
            generation,
            rank,
            klen: key.len() as u8,
            key: k,
            value,
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_only_the_same_owner_generation_rank_and_key() {
        let mut v = pmix_value_t {
            type_: crate::sys::PMIX_UINT32,
            ..Default::default()
        };
        v.data.uint32 = 7;
        insert(1, 5, 3, b"pmix.job.size", v);
        // SAFETY: a PMIX_UINT32 value.
        let got = |o, g, r, k: &[u8]| lookup(o, g, r, k).map(|v| unsafe { v.data.uint32 });
        assert_eq!(got(1, 5, 3, b"pmix.job.size"), Some(7));
        assert_eq!(got(2, 5, 3, b"pmix.job.size"), None);
        assert_eq!(got(1, 6, 3, b"pmix.job.size"), None);
        assert_eq!(got(1, 5, 4, b"pmix.job.size"), None);
        assert_eq!(got(1, 5, 3, b"pmix.job.sizf"), None);
        let long = [b'k'; MAX_KEY + 1];
        insert(1, 5, 3, &long, v);
        assert_eq!(got(1, 5, 3, &long), None);
    }
}
