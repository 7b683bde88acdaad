//! Reading segments: map a received descriptor read-only, check its seals
//! and header, validate the index, and validate each block the first time a
//! lookup touches it (checksum, then bytecheck), remembering the outcome.
//!
//! Opening costs the header, the index checksum and the index's bytecheck:
//! O(number of blocks), a few kilobytes for a million ranks. A block costs
//! its checksum and bytecheck once, on first touch. After that a lookup is
//! pointer arithmetic, a binary search in the row and a decode: no
//! allocation, no lock, no system call.

use std::ffi::CStr;
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicU8, Ordering};

use rkyv::api::high::HighValidator;
use rkyv::bytecheck::CheckBytes;
use rkyv::rancor::Failure;
use rkyv::util::AlignedVec;
use rkyv::Portable;

use crate::checksum::xxh64;
use crate::dict::{self, LookupKey};
use crate::error::{Corrupt, CorruptKind, Region, SegmentError};
use crate::header::{check_range, padded, Header, HEADER_LEN};
use crate::schema::*;
use crate::sys;
use crate::types::{Scope, Scopes};
use crate::value::{decode_inline, ValueRef};

/// How a node is addressed (`PMIX_NODEID` or `PMIX_HOSTNAME` qualifier).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeSel<'a> {
    /// By node id.
    Id(u32),
    /// By hostname.
    Hostname(&'a str),
}

enum Memory {
    Mapped(sys::Mapping),
    Heap(AlignedVec<16>),
}

// Validation state of a block.
const UNCHECKED: u8 = 0;
const BAD_RANGE: u8 = 1;
const BAD_SUM: u8 = 2;
const BAD_ARCHIVE: u8 = 3;
const IS_TABLE: u8 = 4;
const IS_DICT: u8 = 5;

/// An open, validated segment. Lookups borrow from it.
pub struct Segment {
    /// Owns the bytes `base..base + len` (moving it does not move them).
    _mem: Memory,
    base: *const u8,
    len: usize,
    /// The validated index root, inside `base..base + len`.
    index: *const ArchivedIndex,
    /// One byte per block: its validation state (see the constants).
    states: Box<[AtomicU8]>,
}

// SAFETY: the raw pointers point into memory owned by `_mem` (a heap
// buffer or a read-only mapping), which is never written after `open` and
// lives as long as the segment; sharing or sending read-only bytes between
// threads is sound, and the validation states are atomics.
unsafe impl Send for Segment {}
// SAFETY: as for `Send`.
unsafe impl Sync for Segment {}

impl std::fmt::Debug for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Segment")
            .field("nspace", &self.nspace())
            .field("generation", &self.generation())
            .field("len", &self.len())
            .finish()
    }
}

trait Block: Portable + for<'a> CheckBytes<HighValidator<'a, Failure>> {
    const STATE: u8;
    /// Checks beyond rkyv's bytecheck, run once after it.
    fn check(&self) -> bool {
        true
    }
}
impl Block for ArchivedTable {
    const STATE: u8 = IS_TABLE;
    /// Every heap cell lies within the heap, and a string's bytes hold
    /// exactly one NUL, at its end (what `heap_value` relies on).
    fn check(&self) -> bool {
        let heap = self.heap.as_slice();
        // Strings checked recently (many rows share a string): a small
        // direct-mapped memo on the stack.
        let mut seen = [u32::MAX; 256];
        for c in self.cells.as_slice() {
            let tag = c.key_tag.to_native() as u8;
            if tag != TAG_STR && tag != TAG_BYTES {
                continue;
            }
            let data = c.data.to_native();
            let (off, len) = heap_ref(data);
            if tag == TAG_BYTES {
                if off + len > heap.len() {
                    return false;
                }
                continue;
            }
            let memo = &mut seen[(data.wrapping_mul(0x9E37_79B1) >> 24) as usize];
            // The memo starts as `u32::MAX`: that value is never taken as
            // seen, so it is checked like any other the first time.
            if *memo == data && data != u32::MAX {
                continue;
            }
            if !heap_str_ok(heap, off, len) {
                return false;
            }
            *memo = data;
        }
        true
    }
}

/// `heap[off..=off + len]` exists, ends with a NUL and holds no other.
#[inline(never)]
fn heap_str_ok(heap: &[u8], off: usize, len: usize) -> bool {
    match heap.get(off..off + len + 1) {
        Some([body @ .., 0]) => !body.contains(&0),
        _ => false,
    }
}

impl Block for ArchivedDict {
    const STATE: u8 = IS_DICT;
}

/// The value of a cell of table `t`: inline, in the heap or in the pool.
/// `None` if the cell is corrupt.
#[inline(always)]
fn cell_value(t: &ArchivedTable, kt: u32, data: u32) -> Option<ValueRef<'_>> {
    match (kt & 0xFF) as u8 {
        TAG_STR => {
            let (off, len) = heap_ref(data);
            let b = t.heap.as_slice().get(off..off + len + 1)?;
            // SAFETY: the table is validated (`Block::check` for
            // `ArchivedTable` ran before the block was marked valid): every
            // string cell's bytes end with their only NUL.
            Some(ValueRef::String(Some(unsafe {
                CStr::from_bytes_with_nul_unchecked(b)
            })))
        }
        TAG_BYTES => {
            let (off, len) = heap_ref(data);
            t.heap
                .as_slice()
                .get(off..off + len)
                .map(ValueRef::ByteObject)
        }
        TAG_POOL => t.pool.get(data as usize).map(ValueRef::from_archived),
        tag => decode_inline(tag, data),
    }
}

#[inline]
fn corrupt(region: Region, kind: CorruptKind) -> Corrupt {
    Corrupt { region, kind }
}

fn os((op, source): (&'static str, std::io::Error)) -> SegmentError {
    SegmentError::Os { op, source }
}

impl Segment {
    /// Maps a segment received as a descriptor. The descriptor must carry
    /// every seal of a published segment; it may be closed afterwards.
    pub fn from_fd(fd: BorrowedFd<'_>) -> Result<Segment, SegmentError> {
        let seals = sys::seals(fd).map_err(os)?;
        if seals & sys::REQUIRED_SEALS != sys::REQUIRED_SEALS {
            return Err(SegmentError::NotSealed {
                found: seals,
                required: sys::REQUIRED_SEALS,
            });
        }
        let len = sys::file_len(fd).map_err(os)?;
        if len < HEADER_LEN as u64 {
            return Err(SegmentError::TooShort {
                len,
                need: HEADER_LEN as u64,
            });
        }
        let len = usize::try_from(len).map_err(|_| SegmentError::BadRange(Region::Header))?;
        let map = sys::Mapping::map_readonly(fd, len).map_err(os)?;
        Segment::open(Memory::Mapped(map))
    }

    /// Reads a segment from bytes in memory (copied into an aligned buffer).
    pub fn from_bytes(bytes: &[u8]) -> Result<Segment, SegmentError> {
        let mut v = AlignedVec::<16>::with_capacity(bytes.len());
        v.extend_from_slice(bytes);
        Segment::open(Memory::Heap(v))
    }

    pub(crate) fn from_aligned(v: AlignedVec<16>) -> Result<Segment, SegmentError> {
        Segment::open(Memory::Heap(v))
    }

    fn open(mem: Memory) -> Result<Segment, SegmentError> {
        let bytes = match &mem {
            Memory::Mapped(m) => m.as_slice(),
            Memory::Heap(v) => v.as_slice(),
        };
        let h = Header::parse(bytes)?;
        let (off, len) = (h.index_offset as usize, h.index_len as usize);
        let ib = &bytes[off..off + len];
        if xxh64(ib) != h.index_checksum {
            return Err(SegmentError::Checksum(Region::Index));
        }
        let index = rkyv::access::<ArchivedIndex, Failure>(ib)
            .map_err(|_| SegmentError::Invalid(Region::Index))?;
        let states = (0..index.blocks.len())
            .map(|_| AtomicU8::new(UNCHECKED))
            .collect();
        let index: *const ArchivedIndex = index;
        let (base, len) = (bytes.as_ptr(), bytes.len());
        Ok(Segment {
            _mem: mem,
            base,
            len,
            index,
            states,
        })
    }

    /// The whole segment.
    #[inline(always)]
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: `base..base + len` is the memory `_mem` owns (a heap
        // buffer's or a mapping's bytes, which stay where they are when
        // the owner moves), initialized and never written while `self`
        // lives.
        unsafe { std::slice::from_raw_parts(self.base, self.len) }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a valid segment has a header.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The index.
    #[inline(always)]
    pub fn index(&self) -> &ArchivedIndex {
        // SAFETY: `index` is the root `rkyv::access::<ArchivedIndex>`
        // returned in `open` for bytes of `_mem`, and they never change:
        // they are either our own heap buffer, never handed out mutably,
        // or a mapping of a memfd sealed against writes and shrinking
        // (checked in `from_fd`), alive as long as `self`.
        unsafe { &*self.index }
    }

    /// The namespace the segment describes.
    pub fn nspace(&self) -> &CStr {
        self.index().nspace.as_c_str()
    }

    /// The generation number the writer gave it.
    pub fn generation(&self) -> u64 {
        self.index().generation.to_native()
    }

    /// Number of ranks with process-realm data (highest rank + 1).
    pub fn proc_ranks(&self) -> u32 {
        self.index().procs.rows.to_native()
    }

    /// Number of blocks.
    pub fn block_count(&self) -> usize {
        self.states.len()
    }

    /// Number of blocks validated so far.
    pub fn validated_blocks(&self) -> usize {
        self.states
            .iter()
            .filter(|s| matches!(s.load(Ordering::Relaxed), IS_TABLE | IS_DICT))
            .count()
    }

    #[inline(always)]
    fn block<T: Block>(&self, i: u32) -> Result<&T, Corrupt> {
        let Some(st) = self.states.get(i as usize) else {
            return Err(corrupt(Region::Block(i), CorruptKind::BadRange));
        };
        let state = st.load(Ordering::Acquire);
        if state == T::STATE {
            let br = &self.index().blocks[i as usize];
            let (o, l) = (br.offset.to_native() as usize, br.len.to_native() as usize);
            let b = &self.as_bytes()[o..o + l];
            // SAFETY: the state says these bytes passed
            // `rkyv::access::<T>` (set below only after success, for this
            // very type), and the bytes are immutable (see `index`).
            return Ok(unsafe { rkyv::access_unchecked::<T>(b) });
        }
        self.validate_block::<T>(i, state)
    }

    #[cold]
    #[inline(never)]
    fn validate_block<T: Block>(&self, i: u32, state: u8) -> Result<&T, Corrupt> {
        let r = Region::Block(i);
        let fail = |s: u8, kind: CorruptKind| {
            self.states[i as usize].store(s, Ordering::Release);
            Err(corrupt(r, kind))
        };
        match state {
            UNCHECKED => {}
            BAD_SUM => return Err(corrupt(r, CorruptKind::Checksum)),
            BAD_ARCHIVE | IS_TABLE | IS_DICT => return Err(corrupt(r, CorruptKind::Invalid)),
            _ => return Err(corrupt(r, CorruptKind::BadRange)),
        }
        let br = &self.index().blocks[i as usize];
        let (o, l) = (br.offset.to_native(), br.len.to_native());
        if check_range(o, l, self.len() as u64, r).is_err() {
            return fail(BAD_RANGE, CorruptKind::BadRange);
        }
        // The checksum covers the block and the padding after it.
        let Some(end) = usize::try_from(o + l)
            .ok()
            .map(padded)
            .filter(|&e| e <= self.len())
        else {
            return fail(BAD_RANGE, CorruptKind::BadRange);
        };
        if xxh64(&self.as_bytes()[o as usize..end]) != br.checksum.to_native() {
            return fail(BAD_SUM, CorruptKind::Checksum);
        }
        let b = &self.as_bytes()[o as usize..(o + l) as usize];
        match rkyv::access::<T, Failure>(b) {
            Ok(t) if t.check() => {
                self.states[i as usize].store(T::STATE, Ordering::Release);
                Ok(t)
            }
            _ => fail(BAD_ARCHIVE, CorruptKind::Invalid),
        }
    }

    /// Validates every block now (a server checking what it wrote, tools,
    /// tests). Readers need not call it: lookups validate what they touch.
    pub fn validate_all(&self) -> Result<(), Corrupt> {
        let ix = self.index();
        if let Some(k) = ix.keys.as_ref() {
            self.block::<ArchivedDict>(k.to_native())?;
        }
        if let Some(k) = ix.hostnames.as_ref() {
            self.block::<ArchivedDict>(k.to_native())?;
        }
        for set in [
            &ix.session,
            &ix.job,
            &ix.apps,
            &ix.nodes,
            &ix.procs,
            &ix.posted,
        ] {
            let shift = set.shift.to_native();
            if shift >= 32 {
                return Err(corrupt(Region::Index, CorruptKind::Invalid));
            }
            let n = set.rows.to_native().div_ceil(1 << shift);
            for b in 0..n {
                self.block::<ArchivedTable>(set.first_block.to_native().saturating_add(b))?;
            }
        }
        Ok(())
    }

    /// The id of `key` in this segment, if any row holds it.
    #[inline(always)]
    pub fn key_id(&self, key: &LookupKey<'_>) -> Result<Option<u32>, Corrupt> {
        match self.index().keys.as_ref() {
            None => Ok(None),
            Some(b) => Ok(dict::find(self.block::<ArchivedDict>(b.to_native())?, key)),
        }
    }

    /// Starts loading, in parallel, the two cache lines a row lookup in a
    /// cold block needs first: the table's root (at the block's end) and
    /// the row's entry of `row_starts` (serialized first, so at the block's
    /// start). A hint only: nothing depends on the guess being right.
    #[inline(always)]
    fn prefetch_row(&self, block: u32, row: usize) {
        #[cfg(target_arch = "x86_64")]
        if let Some(br) = self.index().blocks.get(block as usize) {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let base = self.as_bytes().as_ptr();
            let (o, l) = (br.offset.to_native() as usize, br.len.to_native() as usize);
            let root = o
                .wrapping_add(l)
                .wrapping_sub(std::mem::size_of::<ArchivedTable>());
            // `wrapping_add`: the addresses may be anything in a corrupt
            // segment, and are never dereferenced.
            let p1 = base.wrapping_add(root).cast::<i8>();
            // The root may straddle two cache lines.
            let p1e = p1.wrapping_add(std::mem::size_of::<ArchivedTable>() - 1);
            let p2 = base.wrapping_add(o.wrapping_add(row * 4)).cast::<i8>();
            // SAFETY: prefetching is a hint that never faults or reads
            // memory architecturally, whatever the address.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(p1);
                _mm_prefetch::<_MM_HINT_T0>(p1e);
                _mm_prefetch::<_MM_HINT_T0>(p2);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (block, row);
    }

    /// Looks up key id `key` in row `row` of `set`.
    #[inline(always)]
    fn row_value(
        &self,
        set: &ArchivedRowSet,
        row: u32,
        key: u32,
    ) -> Result<Option<ValueRef<'_>>, Corrupt> {
        if row >= set.rows.to_native() {
            return Ok(None);
        }
        let shift = set.shift.to_native();
        if shift >= 32 {
            return Err(corrupt(Region::Index, CorruptKind::Invalid));
        }
        let bi = set.first_block.to_native().saturating_add(row >> shift);
        let r = (row & ((1u32 << shift) - 1)) as usize;
        self.prefetch_row(bi, r);
        let t = self.block::<ArchivedTable>(bi)?;
        let Some(c) = find_cell(row_cells(t, r, bi)?, key) else {
            return Ok(None);
        };
        cell_value(t, c.key_tag.to_native(), c.data.to_native())
            .map(Some)
            .ok_or(corrupt(Region::Block(bi), CorruptKind::Invalid))
    }

    /// A process-realm value of `rank`.
    #[inline(always)]
    pub fn proc_value(
        &self,
        rank: u32,
        key: &LookupKey<'_>,
    ) -> Result<Option<ValueRef<'_>>, Corrupt> {
        match self.key_id(key)? {
            Some(k) => self.row_value(&self.index().procs, rank, k),
            None => Ok(None),
        }
    }

    /// A process-realm value of `rank` by key id (from [`key_id`](Self::key_id)).
    #[inline(always)]
    pub(crate) fn proc_value_by_id(
        &self,
        rank: u32,
        key: u32,
    ) -> Result<Option<ValueRef<'_>>, Corrupt> {
        self.row_value(&self.index().procs, rank, key)
    }

    /// A job-realm value by key id (from [`key_id`](Self::key_id)).
    #[inline(always)]
    pub(crate) fn job_value_by_id(&self, key: u32) -> Result<Option<ValueRef<'_>>, Corrupt> {
        self.row_value(&self.index().job, 0, key)
    }

    /// A job-realm value.
    #[inline(always)]
    pub fn job_value(&self, key: &LookupKey<'_>) -> Result<Option<ValueRef<'_>>, Corrupt> {
        match self.key_id(key)? {
            Some(k) => self.row_value(&self.index().job, 0, k),
            None => Ok(None),
        }
    }

    /// A session-realm value.
    pub fn session_value(&self, key: &LookupKey<'_>) -> Result<Option<ValueRef<'_>>, Corrupt> {
        match self.key_id(key)? {
            Some(k) => self.row_value(&self.index().session, 0, k),
            None => Ok(None),
        }
    }

    /// A value of application `appnum`.
    pub fn app_value(
        &self,
        appnum: u32,
        key: &LookupKey<'_>,
    ) -> Result<Option<ValueRef<'_>>, Corrupt> {
        let ix = self.index();
        let Ok(row) = ix
            .app_nums
            .as_slice()
            .binary_search_by_key(&appnum, |a| a.to_native())
        else {
            return Ok(None);
        };
        match self.key_id(key)? {
            Some(k) => self.row_value(&ix.apps, row as u32, k),
            None => Ok(None),
        }
    }

    /// The row of a node, if the segment describes it.
    pub fn node_row(&self, node: NodeSel<'_>) -> Result<Option<u32>, Corrupt> {
        let ix = self.index();
        match node {
            NodeSel::Id(id) => Ok(ix
                .node_ids
                .as_slice()
                .binary_search_by_key(&id, |a| a.to_native())
                .ok()
                .map(|r| r as u32)),
            NodeSel::Hostname("") => Ok(None),
            NodeSel::Hostname(h) => match ix.hostnames.as_ref() {
                None => Ok(None),
                Some(b) => Ok(dict::find(
                    self.block::<ArchivedDict>(b.to_native())?,
                    &LookupKey::new(h.as_bytes()),
                )),
            },
        }
    }

    /// The id of node row `row`.
    pub fn node_id(&self, row: u32) -> Option<u32> {
        self.index()
            .node_ids
            .get(row as usize)
            .map(|a| a.to_native())
    }

    /// A value of a node.
    pub fn node_value(
        &self,
        node: NodeSel<'_>,
        key: &LookupKey<'_>,
    ) -> Result<Option<ValueRef<'_>>, Corrupt> {
        let Some(row) = self.node_row(node)? else {
            return Ok(None);
        };
        match self.key_id(key)? {
            Some(k) => self.row_value(&self.index().nodes, row, k),
            None => Ok(None),
        }
    }

    /// A value `rank` posted, searching the scopes in `scopes` (global,
    /// local, remote, internal, in that order).
    #[inline(always)]
    pub fn posted_value(
        &self,
        rank: u32,
        scopes: Scopes,
        key: &LookupKey<'_>,
    ) -> Result<Option<ValueRef<'_>>, Corrupt> {
        let Some(base) = rank.checked_mul(Scope::COUNT) else {
            return Ok(None);
        };
        let Some(k) = self.key_id(key)? else {
            return Ok(None);
        };
        let set = &self.index().posted;
        for s in Scope::ALL {
            if scopes.contains(s) {
                if let Some(v) = self.row_value(set, base + s.row(), k)? {
                    return Ok(Some(v));
                }
            }
        }
        Ok(None)
    }

    /// Every key and value of one row (for a get with no key, which
    /// returns all of a process's data, or for serving a direct modex).
    /// Allocates nothing; the first corrupt entry ends the walk with its
    /// error.
    pub fn row_entries(&self, realm: Realm) -> Result<RowEntries<'_>, Corrupt> {
        let ix = self.index();
        let (set, row) = match realm {
            Realm::Session => (&ix.session, 0),
            Realm::Job => (&ix.job, 0),
            Realm::App(a) => match ix
                .app_nums
                .as_slice()
                .binary_search_by_key(&a, |x| x.to_native())
            {
                Ok(r) => (&ix.apps, r as u32),
                Err(_) => return Ok(RowEntries::empty()),
            },
            Realm::Node(n) => match self.node_row(n)? {
                Some(r) => (&ix.nodes, r),
                None => return Ok(RowEntries::empty()),
            },
            Realm::Proc(rank) => (&ix.procs, rank),
            Realm::Posted(rank, scope) => match rank.checked_mul(Scope::COUNT) {
                Some(b) => (&ix.posted, b + scope.row()),
                None => return Ok(RowEntries::empty()),
            },
        };
        if row >= set.rows.to_native() {
            return Ok(RowEntries::empty());
        }
        let shift = set.shift.to_native();
        if shift >= 32 {
            return Err(corrupt(Region::Index, CorruptKind::Invalid));
        }
        let bi = set.first_block.to_native().saturating_add(row >> shift);
        let t = self.block::<ArchivedTable>(bi)?;
        let keys = match ix.keys.as_ref() {
            Some(k) => Some(self.block::<ArchivedDict>(k.to_native())?),
            None => None,
        };
        let r = (row & ((1u32 << shift) - 1)) as usize;
        let cells = row_cells(t, r, bi)?;
        Ok(RowEntries {
            table: Some(t),
            keys,
            cells: cells.iter(),
            block: bi,
        })
    }

    /// True if the segment holds posted data (a modex segment).
    pub fn has_posted(&self) -> bool {
        self.index().posted.rows.to_native() > 0
    }
}

/// A row of a segment, for [`Segment::row_entries`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Realm<'a> {
    /// The session realm.
    Session,
    /// The job realm.
    Job,
    /// An application, by number.
    App(u32),
    /// A node.
    Node(NodeSel<'a>),
    /// A rank's process realm.
    Proc(u32),
    /// What a rank posted with one scope.
    Posted(u32, Scope),
}

/// The entries of one row: `(key, value)`, in key-id order.
pub struct RowEntries<'s> {
    table: Option<&'s ArchivedTable>,
    keys: Option<&'s ArchivedDict>,
    cells: std::slice::Iter<'s, ArchivedCell>,
    block: u32,
}

impl RowEntries<'_> {
    fn empty() -> Self {
        RowEntries {
            table: None,
            keys: None,
            cells: [].iter(),
            block: 0,
        }
    }
}

impl<'s> Iterator for RowEntries<'s> {
    type Item = Result<(&'s CStr, ValueRef<'s>), Corrupt>;

    fn next(&mut self) -> Option<Self::Item> {
        let c = self.cells.next()?;
        let bad = corrupt(Region::Block(self.block), CorruptKind::Invalid);
        let kt = c.key_tag.to_native();
        let key = self.keys.and_then(|k| k.names.get((kt >> 8) as usize));
        let v = self
            .table
            .and_then(|t| cell_value(t, kt, c.data.to_native()));
        match (key, v) {
            (Some(k), Some(v)) => Some(Ok((k.as_c_str(), v))),
            _ => {
                // Stop after reporting the corruption once.
                self.cells = [].iter();
                Some(Err(bad))
            }
        }
    }
}

/// The cells of row `r` of table `t` (block `bi`), sorted by key id.
#[inline(always)]
fn row_cells(t: &ArchivedTable, r: usize, bi: u32) -> Result<&[ArchivedCell], Corrupt> {
    let rs = t.row_starts.as_slice();
    let (Some(a), Some(b)) = (rs.get(r), rs.get(r + 1)) else {
        return Err(corrupt(Region::Block(bi), CorruptKind::Invalid));
    };
    t.cells
        .as_slice()
        .get(a.to_native() as usize..b.to_native() as usize)
        .ok_or(corrupt(Region::Block(bi), CorruptKind::Invalid))
}

/// The cell of key id `key` in a row sorted by key id.
#[inline(always)]
fn find_cell(cells: &[ArchivedCell], key: u32) -> Option<&ArchivedCell> {
    if cells.len() <= 8 {
        for c in cells {
            let k = c.key_tag.to_native() >> 8;
            if k >= key {
                return (k == key).then_some(c);
            }
        }
        None
    } else {
        // Branch-free binary search for the last cell with id <= key.
        let mut base = 0usize;
        let mut size = cells.len();
        while size > 1 {
            let half = size / 2;
            let mid = base + half;
            if cells[mid].key_tag.to_native() >> 8 <= key {
                base = mid;
            }
            size -= half;
        }
        let c = &cells[base];
        (c.key_tag.to_native() >> 8 == key).then_some(c)
    }
}
