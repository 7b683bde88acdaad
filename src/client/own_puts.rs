//! This process's own puts as its gets read them: without a lock and
//! without a copy of the value.
//!
//! A fixed table of [`BUCKETS`] buckets, each a list of keys that is only
//! ever pushed to: a key's entry, once published, is neither unlinked nor
//! moved while the table lives, so a reader walks a list with acquire
//! loads and nothing else. A process puts few distinct keys (the map this
//! replaced held every one of them as well).
//!
//! An entry holds its key's latest put behind an epoch-managed pointer
//! (`crossbeam_epoch`'s default collector, the one a directory
//! [`Reader`] pins). A put swaps a new [`OwnPut`] in and retires the one
//! it replaced, which the collector frees once every thread that was
//! pinned at the swap has unpinned. So a get borrows the value for as long
//! as its reader lives, and replaced values are reclaimed, not kept: a
//! process that puts one key a million times holds its latest value and
//! the few retired ones the collector has not freed yet (it frees them as
//! threads pin and unpin, which every get does).
//!
//! A short string put (under [`INLINE`] bytes, the usual endpoint or
//! name) is also kept in its entry's inline slot, under a sequence lock:
//! a copy get reads its bytes without an epoch pin (the pin is most of a
//! copy's cost), retrying on the pinned path when a put races with it.
//!
//! Invariants:
//! - Puts are serialized (the `seq` lock): versions grow in the order the
//!   puts were made, and a key's entry holds its newest put.
//! - An entry's `version` is the version of its `latest` once the put that
//!   swapped it in returned (it is stored after the swap; until then a
//!   reader of `version` alone may see the previous one).
//! - An entry's inline slot holds its newest put's bytes when that put is
//!   a string shorter than [`INLINE`], and says "none" otherwise; a reader
//!   takes its bytes only if the slot's sequence was even and unchanged
//!   across the read.
//! - Entries and current puts are freed only when the table is dropped;
//!   what a reader borrows lives at most as long as both the table and its
//!   epoch guard.
//!
//! [`Reader`]: pmix_shmem::Reader

use std::ptr::null_mut;
use std::sync::atomic::{fence, AtomicPtr, AtomicU64, Ordering};

use crossbeam_epoch::{self as epoch, Atomic, Guard, Owned};
use parking_lot::Mutex;
use pmix_shmem::Reader;

use crate::{Key, Value};

/// Buckets of the table (a power of two).
const BUCKETS: usize = 1024;

/// Bytes of the inline slot: strings shorter than this are read without
/// an epoch pin.
pub const INLINE: usize = 64;
const WORDS: usize = INLINE / 8;
/// The inline slot's length when it holds no string.
const NO_STRING: u64 = u64::MAX;

/// A short string put, readable without a pin (see the module
/// documentation): a sequence lock over its length and bytes.
struct Inline {
    /// Odd while a put writes the slot.
    seq: AtomicU64,
    /// The string's length (without the NUL), or [`NO_STRING`].
    len: AtomicU64,
    words: [AtomicU64; WORDS],
}

impl Inline {
    fn new(value: &Value) -> Inline {
        let slot = Inline {
            seq: AtomicU64::new(0),
            len: AtomicU64::new(NO_STRING),
            words: std::array::from_fn(|_| AtomicU64::new(0)),
        };
        slot.store(value);
        slot
    }

    /// Writes `value` in (puts are serialized, so one writer at a time).
    fn store(&self, value: &Value) {
        let s = self.seq.load(Ordering::Relaxed);
        self.seq.store(s.wrapping_add(1), Ordering::Relaxed);
        fence(Ordering::Release);
        match value {
            Value::String(Some(c)) if c.as_bytes().len() < INLINE => {
                let b = c.as_bytes();
                let mut buf = [0u8; INLINE];
                buf[..b.len()].copy_from_slice(b);
                for (w, chunk) in self.words.iter().zip(buf.chunks_exact(8)) {
                    w.store(word(chunk, 0), Ordering::Relaxed);
                }
                self.len.store(b.len() as u64, Ordering::Relaxed);
            }
            _ => self.len.store(NO_STRING, Ordering::Relaxed),
        }
        self.seq.store(s.wrapping_add(2), Ordering::Release);
    }

    /// Copies the string into `out` and returns its length, if the slot
    /// holds one and no put changed it meanwhile.
    fn load(&self, out: &mut [u8; INLINE]) -> Option<usize> {
        let s = self.seq.load(Ordering::Acquire);
        if s & 1 == 1 {
            return None;
        }
        let len = self.len.load(Ordering::Relaxed);
        if len >= INLINE as u64 {
            return None;
        }
        // Only the words that hold the string and its NUL; `out` is the
        // caller's scratch, so a torn copy is simply not returned.
        let used = len as usize / 8 + 1;
        for (chunk, w) in out.chunks_exact_mut(8).zip(self.words.iter()).take(used) {
            chunk.copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
        }
        fence(Ordering::Acquire);
        if self.seq.load(Ordering::Relaxed) != s {
            return None;
        }
        Some(len as usize)
    }
}

/// One put of a key, as a get borrows it.
#[derive(Debug)]
pub struct OwnPut {
    /// The value put.
    pub value: Value,
    /// The put's version: how many puts this process had made, this one
    /// included. A new put of the key has a greater one.
    pub version: u64,
}

/// A key this process put.
struct Entry {
    /// The next entry of the bucket (never changed once published).
    next: *mut Entry,
    hash: u64,
    key: Key,
    /// The newest put of the key (never null once published).
    latest: Atomic<OwnPut>,
    /// `latest`'s version, readable without an epoch pin.
    version: AtomicU64,
    /// `latest` again if it is a short string.
    inline: Inline,
}

/// A key this process put, found once: the version of its newest put
/// without an epoch pin, the put itself under a reader's pin (see
/// [`Client::own_put`](super::Client::own_put)).
#[derive(Clone, Copy)]
pub struct OwnKey<'a>(&'a Entry);

impl<'a> OwnKey<'a> {
    /// The version of the key's newest put.
    #[inline]
    pub fn version(self) -> u64 {
        self.0.version.load(Ordering::Acquire)
    }

    /// The key's newest put if it is a string shorter than [`INLINE`]:
    /// its bytes (no NUL) copied into `out`, read without an epoch pin.
    /// `None` when it is not such a string, or a put raced with the read
    /// (then [`read`](Self::read) answers).
    #[inline]
    pub fn short_string(self, out: &mut [u8; INLINE]) -> Option<usize> {
        self.0.inline.load(out)
    }

    /// The key's newest put, borrowed while `reader` lives.
    #[inline]
    pub fn read<'r>(self, reader: &'r Reader<'_>) -> &'r OwnPut
    where
        'a: 'r,
    {
        let p = self.0.latest.load(Ordering::Acquire, reader.guard());
        // SAFETY: a put is retired only through the default collector,
        // which the reader pins, after it was swapped out, so it outlives
        // the pin; the current one is freed only with the table, which
        // `'a` keeps. A published entry's `latest` is never null.
        unsafe { p.deref() }
    }
}

/// The table (see the module documentation).
pub(crate) struct OwnPuts {
    buckets: Box<[AtomicPtr<Entry>]>,
    /// Puts so far; held while a put publishes.
    seq: Mutex<u64>,
}

impl Default for OwnPuts {
    fn default() -> OwnPuts {
        OwnPuts {
            buckets: (0..BUCKETS).map(|_| AtomicPtr::new(null_mut())).collect(),
            seq: Mutex::new(0),
        }
    }
}

/// The little-endian word at `i` of `b` (`i + 8 <= b.len()`).
#[inline(always)]
fn word(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default())
}

/// A multiply-rotate hash over 8-byte words (as FxHash; the last word
/// overlaps the one before, a key shorter than a word is gathered in a
/// register), mixed at the end for the bucket's low bits. Keys come from
/// this process only.
#[inline(always)]
fn hash_of(key: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let add = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let n = key.len();
    let mut h = add(0, n as u64);
    if n >= 8 {
        let mut i = 0;
        while i + 8 <= n {
            h = add(h, word(key, i));
            i += 8;
        }
        if i < n {
            h = add(h, word(key, n - 8));
        }
    } else {
        let mut w = 0u64;
        for (i, &b) in key.iter().enumerate() {
            w |= u64::from(b) << (8 * i);
        }
        h = add(h, w);
    }
    h ^ (h >> 32)
}

/// Byte equality without a `memcmp` call for keys of 8 to 24 bytes (the
/// usual ones): overlapping words.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        17..=24 => {
            word(a, 0) == word(b, 0) && word(a, 8) == word(b, 8) && word(a, n - 8) == word(b, n - 8)
        }
        _ => a == b,
    }
}

impl OwnPuts {
    fn bucket(&self, hash: u64) -> &AtomicPtr<Entry> {
        &self.buckets[(hash as usize) & (BUCKETS - 1)]
    }

    /// `key`, if it was ever put.
    #[inline]
    pub(crate) fn find(&self, key: &[u8]) -> Option<OwnKey<'_>> {
        self.entry(key).map(OwnKey)
    }

    /// The entry of `key`, if it was ever put.
    #[inline(always)]
    fn entry(&self, key: &[u8]) -> Option<&Entry> {
        let hash = hash_of(key);
        let mut p = self.bucket(hash).load(Ordering::Acquire);
        while !p.is_null() {
            // SAFETY: entries are fully written before their release
            // publication and freed only when the table is dropped, which
            // `&self` rules out while the borrow lives.
            let e = unsafe { &*p };
            if e.hash == hash && same(e.key.as_bytes(), key) {
                return Some(e);
            }
            p = e.next;
        }
        None
    }

    /// Records a put of `value` under `key`: from now on it is the key's
    /// answer. Its version.
    pub(crate) fn put(&self, key: &Key, value: Value) -> u64 {
        let mut seq = self.seq.lock();
        *seq += 1;
        let version = *seq;
        if let Some(e) = self.entry(key.as_bytes()) {
            e.inline.store(&value);
            let new = Owned::new(OwnPut { value, version });
            let guard = epoch::pin();
            let old = e.latest.swap(new, Ordering::AcqRel, &guard);
            e.version.store(version, Ordering::Release);
            if !old.is_null() {
                // SAFETY: `old` is no longer reachable from the table, and
                // only this put (serialized by `seq`) retires it; readers
                // that loaded it are pinned, which the collector waits for.
                unsafe { guard.defer_destroy(old) };
            }
            return version;
        }
        let hash = hash_of(key.as_bytes());
        let bucket = self.bucket(hash);
        let inline = Inline::new(&value);
        let new = Owned::new(OwnPut { value, version });
        let e = Box::into_raw(Box::new(Entry {
            // Puts are serialized: the head cannot change meanwhile.
            next: bucket.load(Ordering::Acquire),
            hash,
            key: key.clone(),
            latest: Atomic::from(new),
            version: AtomicU64::new(version),
            inline,
        }));
        bucket.store(e, Ordering::Release);
        version
    }

    /// True if `key` was put.
    pub(crate) fn contains(&self, key: &[u8]) -> bool {
        self.entry(key).is_some()
    }

    /// Every key put and its newest put, in the order of those puts.
    pub(crate) fn all<'a>(&'a self, guard: &'a Guard) -> Vec<(&'a Key, &'a OwnPut)> {
        let mut out = Vec::new();
        for b in self.buckets.iter() {
            let mut p = b.load(Ordering::Acquire);
            while !p.is_null() {
                // SAFETY: as in `entry`.
                let e = unsafe { &*p };
                // SAFETY: as in `OwnKey::read`, under `guard`.
                if let Some(put) = unsafe { e.latest.load(Ordering::Acquire, guard).as_ref() } {
                    out.push((&e.key, put));
                }
                p = e.next;
            }
        }
        out.sort_by_key(|(_, put)| put.version);
        out
    }
}

impl Drop for OwnPuts {
    fn drop(&mut self) {
        for b in self.buckets.iter() {
            let mut p = b.swap(null_mut(), Ordering::Acquire);
            while !p.is_null() {
                // SAFETY: `&mut self`: nobody borrows the table; each entry
                // was made by `Box::into_raw` and is freed here once.
                let e = unsafe { Box::from_raw(p) };
                p = e.next;
                // SAFETY: no reader is left (see above), so the current
                // put may be taken without a pin; it is never null.
                let latest = unsafe { e.latest.load(Ordering::Acquire, epoch::unprotected()) };
                if !latest.is_null() {
                    // SAFETY: the current put is owned by the entry alone.
                    drop(unsafe { latest.into_owned() });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_shmem::Directory;

    fn key(s: &str) -> Key {
        Key::new(s).unwrap()
    }

    fn version(t: &OwnPuts, k: &[u8]) -> Option<u64> {
        t.find(k).map(OwnKey::version)
    }

    #[test]
    fn the_newest_put_wins_and_versions_grow() {
        let dir = Directory::new();
        let t = OwnPuts::default();
        assert!(t.find(b"a").is_none());
        let v1 = t.put(&key("a"), Value::Uint32(1));
        let v2 = t.put(&key("b"), Value::Uint32(2));
        let v3 = t.put(&key("a"), Value::Uint32(3));
        assert!(v1 < v2 && v2 < v3);
        let r = dir.reader();
        let a = t.find(b"a").unwrap().read(&r);
        assert_eq!((&a.value, a.version), (&Value::Uint32(3), v3));
        assert_eq!(version(&t, b"a"), Some(v3));
        assert_eq!(version(&t, b"b"), Some(v2));
        assert!(t.contains(b"b") && !t.contains(b"c"));
        let all: Vec<_> = t
            .all(r.guard())
            .into_iter()
            .map(|(k, p)| (k.to_string_lossy().into_owned(), p.value.clone()))
            .collect();
        assert_eq!(
            all,
            [
                ("b".to_owned(), Value::Uint32(2)),
                ("a".to_owned(), Value::Uint32(3))
            ]
        );
    }

    /// Many keys of many lengths share buckets: each still answers its
    /// own value, and a key is not found by a prefix or an extension.
    #[test]
    fn many_keys_each_answer_their_own() {
        let dir = Directory::new();
        let t = OwnPuts::default();
        let name = |i: u32| format!("k{}{i}", "x".repeat((i % 40) as usize));
        for i in 0..5000u32 {
            t.put(&key(&name(i)), Value::Uint32(i));
        }
        let r = dir.reader();
        for i in 0..5000u32 {
            let n = name(i);
            let p = t.find(n.as_bytes()).unwrap().read(&r);
            assert_eq!(p.value, Value::Uint32(i));
            assert!(t.find(format!("{n}#").as_bytes()).is_none());
            assert!(t
                .find(&n.as_bytes()[..n.len() - 1])
                .map_or(true, |k| k.read(&r).value != p.value));
        }
    }

    /// Readers racing a writer that re-puts one key never see a value
    /// older than one they saw before, and every value they borrow is
    /// whole (its bytes and its version agree).
    #[test]
    fn racing_readers_never_go_back() {
        const PUTS: u64 = 20_000;
        let dir = Directory::new();
        let t = OwnPuts::default();
        let k = key("race");
        let value = |i: u64| Value::ByteObject(vec![(i % 251) as u8; 64 + (i % 64) as usize]);
        t.put(&k, value(0));
        let base = version(&t, b"race").unwrap();
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    let mut last = 0;
                    loop {
                        let r = dir.reader();
                        let p = t.find(b"race").unwrap().read(&r);
                        let i = p.version - base;
                        assert!(i >= last, "went back from {last} to {i}");
                        assert_eq!(p.value, value(i), "torn value at {i}");
                        last = i;
                        if i == PUTS {
                            break;
                        }
                    }
                });
            }
            for i in 1..=PUTS {
                t.put(&k, value(i));
            }
        });
    }

    /// The inline slot: a short string reads back without a pin; a long
    /// one, a non-string, and a put racing with the read give `None`, and
    /// a racing writer never shows a reader torn bytes (each string is
    /// one letter repeated, its length that letter's).
    #[test]
    fn short_strings_read_without_a_pin_and_never_torn() {
        let t = std::sync::Arc::new(OwnPuts::default());
        let s = |n: usize| Value::string(&"abcdefgh"[n % 8..n % 8 + 1].repeat(n));
        t.put(&key("s"), s(5));
        let mut buf = [0u8; INLINE];
        let k = t.find(b"s").unwrap();
        assert_eq!(k.short_string(&mut buf), Some(5));
        assert_eq!(&buf[..6], b"fffff\0");
        t.put(&key("s"), s(INLINE));
        assert_eq!(t.find(b"s").unwrap().short_string(&mut buf), None);
        t.put(&key("s"), Value::Uint32(7));
        assert_eq!(t.find(b"s").unwrap().short_string(&mut buf), None);
        t.put(&key("s"), s(INLINE - 1));
        assert_eq!(
            t.find(b"s").unwrap().short_string(&mut buf),
            Some(INLINE - 1)
        );

        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writer = {
            let (t, stop) = (t.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut n = 0usize;
                while !stop.load(Ordering::Relaxed) {
                    n = (n + 7) % (INLINE + 8);
                    let v = if n == 0 { Value::Uint32(1) } else { s(n) };
                    t.put(&key("s"), v);
                }
            })
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(300);
        let (mut seen, mut reads) = (0u32, 0u32);
        while std::time::Instant::now() < deadline || seen < 100 {
            reads += 1;
            let mut buf = [0u8; INLINE];
            if let Some(n) = t.find(b"s").unwrap().short_string(&mut buf) {
                let want = b"abcdefgh"[n % 8];
                assert!(n > 0 && n < INLINE, "length {n}");
                assert!(buf[..n].iter().all(|&b| b == want), "torn: {:?}", &buf[..n]);
                assert_eq!(buf[n], 0);
                seen += 1;
            }
            assert!(reads < 50_000_000, "the slot never settled");
        }
        stop.store(true, Ordering::Relaxed);
        writer.join().unwrap();
    }
}
