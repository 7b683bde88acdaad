//! String dictionaries (key names, hostnames): building them, and finding a
//! name's id in an archived one without allocating.

use crate::schema::{ArchivedDict, Dict, StrZ};

/// A name to look up, with its hash computed once (a `get` that consults
/// several segments hashes the key once).
#[derive(Clone, Copy, Debug)]
pub struct LookupKey<'k> {
    bytes: &'k [u8],
    hash: u64,
}

impl<'k> LookupKey<'k> {
    /// A key from its bytes (without NUL).
    #[inline]
    pub fn new(bytes: &'k [u8]) -> Self {
        LookupKey {
            bytes,
            hash: key_hash(bytes),
        }
    }

    /// The key's bytes.
    #[inline]
    pub fn as_bytes(&self) -> &'k [u8] {
        self.bytes
    }
}

impl<'k> From<&'k str> for LookupKey<'k> {
    #[inline]
    fn from(s: &'k str) -> Self {
        LookupKey::new(s.as_bytes())
    }
}

impl<'k> From<&'k std::ffi::CStr> for LookupKey<'k> {
    #[inline]
    fn from(s: &'k std::ffi::CStr) -> Self {
        LookupKey::new(s.to_bytes())
    }
}

#[inline(always)]
fn read8(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

#[inline(always)]
fn read4(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u64::from(u32::from_le_bytes(w))
}

#[inline(always)]
fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The hash of a dictionary name (part of the segment format): cheap for
/// the short keys of PMIx (two overlapping 8-byte words up to 16 bytes).
#[inline(always)]
pub fn key_hash(b: &[u8]) -> u64 {
    let n = b.len();
    let h = n as u64 ^ 0x243F_6A88_85A3_08D3;
    if n > 16 {
        let mut h = h;
        let mut i = 0;
        while i + 8 < n {
            h = mix(h ^ read8(b, i));
            i += 8;
        }
        mix(h ^ read8(b, n - 8))
    } else if n >= 8 {
        mix(mix(h ^ read8(b, 0)) ^ read8(b, n - 8))
    } else if n >= 4 {
        mix(h ^ (read4(b, 0) | read4(b, n - 4) << 32))
    } else if n > 0 {
        mix(h ^ (u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16))
    } else {
        mix(h)
    }
}

/// Byte equality, inline for the short strings of keys and namespaces.
#[inline(always)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if (8..=16).contains(&n) {
        read8(a, 0) == read8(b, 0) && read8(a, n - 8) == read8(b, n - 8)
    } else {
        a == b
    }
}

/// Builds the dictionary of `names`; name `i` gets id `i`.
pub(crate) fn build(names: Vec<StrZ>) -> Dict {
    let n = (names.len() * 2).next_power_of_two().max(2);
    let mask = n - 1;
    let mut slots = vec![0u64; n];
    for (id, name) in names.iter().enumerate() {
        let h = key_hash(name.as_bytes());
        let mut i = h as usize & mask;
        while slots[i] != 0 {
            i = (i + 1) & mask;
        }
        slots[i] = (h & !0xFFFF_FFFF) | (id as u64 + 1);
    }
    Dict { names, slots }
}

/// The id of `key` in `d`. Never panics and always terminates, whatever
/// the (validated) archive holds.
#[inline(always)]
pub(crate) fn find(d: &ArchivedDict, key: &LookupKey<'_>) -> Option<u32> {
    let slots = d.slots.as_slice();
    let n = slots.len();
    if !n.is_power_of_two() {
        return None;
    }
    let mask = n - 1;
    let mut i = key.hash as usize & mask;
    let tag = key.hash >> 32;
    for _ in 0..n {
        let s = slots[i].to_native();
        let id1 = s as u32;
        if id1 == 0 {
            return None;
        }
        if s >> 32 == tag {
            let id = id1 - 1;
            if let Some(name) = d.names.get(id as usize) {
                if same_bytes(name.as_bytes(), key.bytes) {
                    return Some(id);
                }
            }
        }
        i = (i + 1) & mask;
    }
    None
}
