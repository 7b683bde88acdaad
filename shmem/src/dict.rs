//! String dictionaries (key names, hostnames): building them, and finding a
//! name's id in an archived one without allocating.

use crate::checksum::xxh64;
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
            hash: xxh64(bytes),
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

/// Builds the dictionary of `names`; name `i` gets id `i`.
pub(crate) fn build(names: Vec<StrZ>) -> Dict {
    let n = (names.len() * 2).next_power_of_two().max(2);
    let mask = n - 1;
    let mut slots = vec![0u32; n];
    for (id, name) in names.iter().enumerate() {
        let mut i = xxh64(name.as_bytes()) as usize & mask;
        while slots[i] != 0 {
            i = (i + 1) & mask;
        }
        slots[i] = id as u32 + 1;
    }
    Dict { names, slots }
}

/// The id of `key` in `d`. Never panics and always terminates, whatever
/// the (validated) archive holds.
#[inline]
pub(crate) fn find(d: &ArchivedDict, key: &LookupKey<'_>) -> Option<u32> {
    let slots = d.slots.as_slice();
    let n = slots.len();
    if !n.is_power_of_two() {
        return None;
    }
    let mask = n - 1;
    let mut i = key.hash as usize & mask;
    for _ in 0..n {
        let s = slots[i].to_native();
        if s == 0 {
            return None;
        }
        let id = s - 1;
        if let Some(name) = d.names.get(id as usize) {
            if name.as_bytes() == key.bytes {
                return Some(id);
            }
        }
        i = (i + 1) & mask;
    }
    None
}
