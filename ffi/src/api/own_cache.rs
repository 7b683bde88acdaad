//! A small per-thread cache of this process's own puts as `PMIx_Get`
//! answered them (the core's [`Answer::Own`]), so that a get of a key the
//! process put costs no more than a get of a peer's posted key: a hit
//! takes no lock and allocates nothing, leaving only the conversion the
//! storage mode asks for.
//!
//! Invariant: an entry is keyed by the client (a leaked, never reused
//! address), the client's put epoch when the core answered
//! ([`Client::put_epoch`]: the number of puts so far) and the key; it is
//! used only while the client's epoch is unchanged, so no put is ever
//! missed, whichever key it puts. Entries are made only from `Own`
//! answers, so a hit is exactly what the core would answer. The cache is
//! direct-mapped and fixed in size ([`SLOTS`] entries per thread).
//!
//! [`Answer::Own`]: pmix_core::client::Answer::Own
//! [`Client::put_epoch`]: pmix_core::client::Client::put_epoch

use std::cell::RefCell;

use pmix_core::Value;

use crate::sys::pmix_value_t;

/// Entries per thread.
const SLOTS: usize = 16;

/// One cached answer.
pub(crate) struct Own {
    client: usize,
    epoch: u64,
    key: Box<[u8]>,
    /// The value put.
    pub(crate) value: Value,
    /// Its per-key put version (see `pointer_cache::lookup_own`).
    pub(crate) version: u64,
    /// The library-owned pointer-values result of this version, once a
    /// pointer-values get asked for it (null before).
    pub(crate) pointer: *mut pmix_value_t,
}

thread_local! {
    static CACHE: RefCell<[Option<Own>; SLOTS]> = const { RefCell::new([const { None }; SLOTS]) };
}

#[inline(always)]
fn index(key: &[u8]) -> usize {
    (super::scalar_cache::slot_hash(0, key) as usize) % SLOTS
}

/// Runs `f` on the entry of (`client`, `epoch`, `key`), if this thread
/// has it; `None` otherwise.
#[inline]
pub(crate) fn with<R>(
    client: usize,
    epoch: u64,
    key: &[u8],
    f: impl FnOnce(&mut Own) -> R,
) -> Option<R> {
    let i = index(key);
    CACHE
        .try_with(|c| {
            let mut c = c.try_borrow_mut().ok()?;
            let s = c[i].as_mut()?;
            (s.client == client
                && s.epoch == epoch
                && crate::api::pointer_cache::eq_short(&s.key, key))
            .then(|| f(s))
        })
        .ok()
        .flatten()
}

/// Keeps the answer `value` (put `version`) of (`client`, `epoch`,
/// `key`), with its pointer-values result if known (else null).
pub(crate) fn insert(
    client: usize,
    epoch: u64,
    key: &[u8],
    value: Value,
    version: u64,
    pointer: *mut pmix_value_t,
) {
    let i = index(key);
    let _ = CACHE.try_with(|c| {
        if let Ok(mut c) = c.try_borrow_mut() {
            c[i] = Some(Own {
                client,
                epoch,
                key: key.into(),
                value,
                version,
                pointer,
            });
        }
    });
}
