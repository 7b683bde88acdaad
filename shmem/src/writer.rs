//! Building segments: collect a namespace's data, serialize it to a heap
//! buffer of exact size, copy it into a `memfd` and seal it.
//!
//! The dependency between the two halves of the crate goes one way: the
//! writer knows the reader (to open what it built), the reader never the
//! writer; what both need of the layout lives in `header` and `schema`.

use std::collections::{BTreeMap, HashMap};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rkyv::util::AlignedVec;

use crate::checksum::xxh64;
use crate::columns::{Column, ColumnValues, ProcColumns, Scalar, NO_CHOICE};
use crate::error::{BuildError, SegmentError};
use crate::header::{padded, Header, ALIGN, HEADER_LEN};
use crate::reader::Segment;
use crate::schema::*;
use crate::types::{tag, KeyId, Scope};
use crate::{dict, sys};

type FastMap<K, V> = HashMap<K, V, ahash::RandomState>;

/// Longest key (`PMIX_MAX_KEYLEN`).
pub const MAX_KEYLEN: usize = 511;
/// Longest namespace (`PMIX_MAX_NSLEN`).
pub const MAX_NSLEN: usize = 255;
/// Ranks per block of the process realm, as a power of two (256 ranks).
pub const DEFAULT_RANK_SHIFT: u32 = 8;
/// Ranks a segment can hold (posted data numbers 4 rows per rank in 32
/// bits).
pub const MAX_RANKS: u32 = 1 << 30;
/// Rows per block of the node and application realms (64).
const SMALL_SHIFT: u32 = 6;

/// Collects the data of one namespace (job data, or one modex) and builds a
/// segment from it. Keys are strings; values are owned [`StoredValue`]s.
/// Setting a key twice in the same row keeps the last value.
pub struct SegmentBuilder {
    nspace: StrZ,
    generation: u64,
    rank_shift: u32,
    key_ids: FastMap<Box<[u8]>, u32>,
    key_names: Vec<StrZ>,
    pool: Vec<StoredValue>,
    dedup: FastMap<u64, u32>,
    session: Vec<Cell>,
    job: Vec<Cell>,
    apps: BTreeMap<u32, Vec<Cell>>,
    nodes: BTreeMap<u32, (Option<StrZ>, Vec<Cell>)>,
    procs: RowStore,
    columns: Columns,
    posted: RowStore,
}

/// The process realm's columns ([`SegmentBuilder::proc_columns`]), their
/// choices turned into cells: at most one column per key, by increasing
/// key id, so that the cells a row takes from them come sorted.
#[derive(Default)]
struct Columns {
    rows: usize,
    indexes: Vec<Vec<u32>>,
    cols: Vec<ColumnCells>,
}

enum ColumnCells {
    /// Row `r`'s cell is `cells[indexes[index][r]]`.
    Choice {
        index: usize,
        cells: Vec<Option<Cell>>,
    },
    /// Row `r`'s cell is `key_tag` with data `values[r] & mask`, in the
    /// rows `indexes[only_where]` gives a choice if that is set.
    Scalar {
        key_tag: u32,
        mask: u32,
        values: ColumnValues,
        only_where: Option<usize>,
    },
}

impl Columns {
    /// Appends row `r`'s cells, by increasing key id.
    #[inline]
    fn row_cells(&self, r: usize, out: &mut Vec<Cell>) {
        for col in &self.cols {
            match col {
                ColumnCells::Choice { index, cells } => {
                    if let Some(&i) = self.indexes[*index].get(r) {
                        if let Some(Some(c)) = cells.get(i as usize) {
                            out.push(*c);
                        }
                    }
                }
                ColumnCells::Scalar {
                    key_tag,
                    mask,
                    values,
                    only_where,
                } => {
                    let placed = match only_where {
                        Some(i) => self.indexes[*i].get(r).is_some_and(|&c| c != NO_CHOICE),
                        None => true,
                    };
                    if let (true, Some(v)) = (placed, values.get(r)) {
                        out.push(Cell {
                            key_tag: *key_tag,
                            data: v & mask,
                        });
                    }
                }
            }
        }
    }
}

/// Cells of many rows, appended in any order (one allocation for all, not
/// one per row), grouped by row at build time by a stable counting sort.
#[derive(Default)]
struct RowStore {
    rows: Vec<u32>,
    cells: Vec<Cell>,
    nrows: usize,
}

/// Rows grouped: row `i` is `cells[starts[i]..starts[i + 1]]`.
struct Grouped {
    starts: Vec<usize>,
    cells: Vec<Cell>,
}

impl RowStore {
    fn push(&mut self, row: u32, c: Cell) {
        self.rows.push(row);
        self.cells.push(c);
        self.nrows = self.nrows.max(row as usize + 1);
    }

    fn group(self) -> Grouped {
        let mut starts = vec![0usize; self.nrows + 1];
        for &r in &self.rows {
            starts[r as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut next = starts.clone();
        let mut cells = vec![Cell::default(); self.cells.len()];
        for (&r, c) in self.rows.iter().zip(self.cells) {
            cells[next[r as usize]] = c;
            next[r as usize] += 1;
        }
        Grouped { starts, cells }
    }
}

impl Grouped {
    fn from_rows(rows: Vec<Vec<Cell>>) -> Grouped {
        let mut starts = Vec::with_capacity(rows.len() + 1);
        starts.push(0);
        let mut cells = Vec::new();
        for r in rows {
            cells.extend(r);
            starts.push(cells.len());
        }
        Grouped { starts, cells }
    }
}

/// A hash identifying values worth sharing between rows (strings, byte
/// payloads, 64-bit scalars), `None` for the others.
fn dedup_hash(v: &StoredValue) -> Option<u64> {
    use StoredValue as V;
    let mut buf = [0u8; 10];
    let t = v.data_type().to_le_bytes();
    buf[..2].copy_from_slice(&t);
    let word = |w: u64, buf: &mut [u8; 10]| {
        buf[2..].copy_from_slice(&w.to_le_bytes());
        xxh64(&buf[..])
    };
    Some(match v {
        V::String(Some(s)) | V::ProcNspace(s) => xxh64(s.as_bytes()) ^ u64::from(v.data_type()),
        V::ByteObject(b)
        | V::Regex(b)
        | V::CompressedString(b)
        | V::CompressedByteObject(b)
        | V::DataBuffer(b) => xxh64(b).rotate_left(7) ^ u64::from(v.data_type()),
        V::Size(w)
        | V::Uint64(w)
        | V::DevType(w)
        | V::StorMedium(w)
        | V::StorAccess(w)
        | V::StorPersist(w)
        | V::Pointer(w) => word(*w, &mut buf),
        V::Int64(w) | V::Time(w) => word(*w as u64, &mut buf),
        V::Double(d) => word(d.to_bits(), &mut buf),
        _ => return None,
    })
}

/// About how many bytes `v` takes in a block when it is not inline (its
/// heap bytes, or its archived form in a pool): what `build` reserves, so
/// that the segment is serialized into one allocation.
fn payload_len(v: &StoredValue) -> usize {
    use StoredValue as V;
    match v {
        V::String(Some(s)) | V::ProcNspace(s) => s.as_bytes().len() + 1,
        V::ByteObject(b)
        | V::Regex(b)
        | V::CompressedString(b)
        | V::CompressedByteObject(b)
        | V::DataBuffer(b) => b.len(),
        _ => 64,
    }
}

fn check_key(key: &str) -> Result<(), BuildError> {
    if key.is_empty() || key.len() > MAX_KEYLEN || key.as_bytes().contains(&0) {
        return Err(BuildError::BadKey(key.to_owned()));
    }
    Ok(())
}

impl SegmentBuilder {
    /// A builder for namespace `nspace`.
    pub fn new(nspace: &str) -> Result<Self, BuildError> {
        if nspace.len() > MAX_NSLEN {
            return Err(BuildError::BadNspace(nspace.to_owned()));
        }
        let ns = StrZ::new(nspace).map_err(|_| BuildError::BadNspace(nspace.to_owned()))?;
        Ok(SegmentBuilder {
            nspace: ns,
            generation: 0,
            rank_shift: DEFAULT_RANK_SHIFT,
            key_ids: FastMap::default(),
            key_names: Vec::new(),
            pool: Vec::new(),
            dedup: FastMap::default(),
            session: Vec::new(),
            job: Vec::new(),
            apps: BTreeMap::new(),
            nodes: BTreeMap::new(),
            procs: RowStore::default(),
            columns: Columns::default(),
            posted: RowStore::default(),
        })
    }

    /// Sets the generation number recorded in the segment.
    pub fn generation(&mut self, g: u64) -> &mut Self {
        self.generation = g;
        self
    }

    /// Sets the number of ranks per block as `1 << shift` (1..=16); the
    /// unit of lazy validation of the process realm and posted data.
    pub fn rank_block_shift(&mut self, shift: u32) -> &mut Self {
        self.rank_shift = shift.clamp(0, 16);
        self
    }

    /// Interns `key`; the id is valid for this builder only and saves the
    /// string lookup when the same key is set for many ranks.
    pub fn key(&mut self, key: &str) -> Result<KeyId, BuildError> {
        if let Some(&id) = self.key_ids.get(key.as_bytes()) {
            return Ok(KeyId(id));
        }
        check_key(key)?;
        if self.key_names.len() >= MAX_KEYS {
            return Err(BuildError::TooManyKeys);
        }
        let id = self.key_names.len() as u32;
        self.key_names
            .push(StrZ::new(key).map_err(|_| BuildError::BadKey(key.to_owned()))?);
        self.key_ids.insert(key.as_bytes().into(), id);
        Ok(KeyId(id))
    }

    #[inline]
    fn cell(&mut self, key: KeyId, v: StoredValue) -> Result<Cell, BuildError> {
        if let Some((t, d)) = v.inline() {
            return Ok(Cell {
                key_tag: key.0 << 8 | u32::from(t),
                data: d,
            });
        }
        let h = dedup_hash(&v);
        if let Some(h) = h {
            if let Some(&i) = self.dedup.get(&h) {
                if self.pool[i as usize] == v {
                    return Ok(Cell {
                        key_tag: key.0 << 8 | u32::from(TAG_POOL),
                        data: i,
                    });
                }
            }
        }
        let i = u32::try_from(self.pool.len()).map_err(|_| BuildError::TooLarge)?;
        self.pool.push(v);
        if let Some(h) = h {
            self.dedup.insert(h, i);
        }
        Ok(Cell {
            key_tag: key.0 << 8 | u32::from(TAG_POOL),
            data: i,
        })
    }

    /// Sets a session-realm key.
    pub fn session(&mut self, key: &str, v: StoredValue) -> Result<&mut Self, BuildError> {
        let k = self.key(key)?;
        let c = self.cell(k, v)?;
        self.session.push(c);
        Ok(self)
    }

    /// Sets a job-realm key (what a get with `PMIX_RANK_WILDCARD` reads).
    pub fn job(&mut self, key: &str, v: StoredValue) -> Result<&mut Self, BuildError> {
        let k = self.key(key)?;
        let c = self.cell(k, v)?;
        self.job.push(c);
        Ok(self)
    }

    /// Sets a key of application `appnum`.
    pub fn app(&mut self, appnum: u32, key: &str, v: StoredValue) -> Result<&mut Self, BuildError> {
        let k = self.key(key)?;
        let c = self.cell(k, v)?;
        self.apps.entry(appnum).or_default().push(c);
        Ok(self)
    }

    /// Names node `node_id` (`PMIX_HOSTNAME`), so it can be addressed by
    /// hostname as well as by id.
    pub fn node_hostname(&mut self, node_id: u32, hostname: &str) -> Result<&mut Self, BuildError> {
        let h = StrZ::new(hostname).map_err(|_| BuildError::BadHostname(hostname.to_owned()))?;
        self.nodes.entry(node_id).or_default().0 = Some(h);
        Ok(self)
    }

    /// Sets a key of node `node_id`.
    pub fn node(
        &mut self,
        node_id: u32,
        key: &str,
        v: StoredValue,
    ) -> Result<&mut Self, BuildError> {
        let k = self.key(key)?;
        let c = self.cell(k, v)?;
        self.nodes.entry(node_id).or_default().1.push(c);
        Ok(self)
    }

    /// The checked rank and the cell of a process-realm or posted value.
    fn rank_cell(
        &mut self,
        rank: u32,
        key: KeyId,
        v: StoredValue,
    ) -> Result<(u32, Cell), BuildError> {
        // Posted data has 4 rows per rank, numbered in 32 bits.
        if rank >= MAX_RANKS {
            return Err(BuildError::BadRank(rank));
        }
        Ok((rank, self.cell(key, v)?))
    }

    /// Sets a process-realm key of `rank`.
    pub fn proc(&mut self, rank: u32, key: &str, v: StoredValue) -> Result<&mut Self, BuildError> {
        let k = self.key(key)?;
        self.proc_kv(rank, k, v)
    }

    /// Sets a process-realm key of `rank`, the key interned beforehand.
    pub fn proc_kv(
        &mut self,
        rank: u32,
        key: KeyId,
        v: StoredValue,
    ) -> Result<&mut Self, BuildError> {
        let (r, c) = self.rank_cell(rank, key, v)?;
        self.procs.push(r, c);
        Ok(self)
    }

    /// Lays the process realm out from `cols` (see
    /// [`ProcColumns`]), replacing columns given before; where a column
    /// has the same key as another, the later one counts. Values set with
    /// [`proc`](Self::proc)/[`proc_kv`](Self::proc_kv) go into the same
    /// rows and win over a column's value for the same key.
    pub fn proc_columns(&mut self, cols: ProcColumns) -> Result<&mut Self, BuildError> {
        let rows = cols.rows();
        if rows > MAX_RANKS as usize {
            return Err(BuildError::BadRank(MAX_RANKS));
        }
        let ProcColumns { indexes, columns } = cols;
        let known = |i: usize| {
            if i < indexes.len() {
                Ok(i)
            } else {
                Err(BuildError::BadColumn)
            }
        };
        let mut cols = Vec::with_capacity(columns.len());
        for col in columns {
            let key = col.key();
            let cells = match col {
                Column::Choice {
                    key,
                    index,
                    choices,
                } => ColumnCells::Choice {
                    index: known(index)?,
                    cells: choices
                        .into_iter()
                        .map(|v| v.map(|v| self.cell(key, v)).transpose())
                        .collect::<Result<_, _>>()?,
                },
                Column::Scalar {
                    key,
                    ty,
                    values,
                    only_where,
                } => ColumnCells::Scalar {
                    key_tag: key.0 << 8 | u32::from(ty.tag()),
                    mask: if ty == Scalar::Uint16 { 0xFFFF } else { !0 },
                    values,
                    only_where: only_where.map(known).transpose()?,
                },
            };
            cols.push((key.0, cells));
        }
        // The later of two columns of one key counts: reversed, sorted
        // stably, the first of each key is kept.
        cols.reverse();
        cols.sort_by_key(|(k, _)| *k);
        cols.dedup_by_key(|(k, _)| *k);
        self.columns = Columns {
            rows,
            indexes,
            cols: cols.into_iter().map(|(_, c)| c).collect(),
        };
        Ok(self)
    }

    /// Records a value `rank` posted (`PMIx_Put` + `PMIx_Commit`) with
    /// `scope`.
    pub fn posted(
        &mut self,
        rank: u32,
        scope: Scope,
        key: &str,
        v: StoredValue,
    ) -> Result<&mut Self, BuildError> {
        let k = self.key(key)?;
        self.posted_kv(rank, scope, k, v)
    }

    /// [`posted`](Self::posted) with an interned key.
    pub fn posted_kv(
        &mut self,
        rank: u32,
        scope: Scope,
        key: KeyId,
        v: StoredValue,
    ) -> Result<&mut Self, BuildError> {
        let (r, c) = self.rank_cell(rank, key, v)?;
        self.posted.push(r * Scope::COUNT + scope.row(), c);
        Ok(self)
    }

    /// Serializes everything into a segment image of exact size.
    pub fn build(self) -> Result<SegmentImage, BuildError> {
        let SegmentBuilder {
            nspace,
            generation,
            rank_shift,
            key_names,
            pool,
            session,
            job,
            apps,
            nodes,
            procs,
            columns,
            posted,
            ..
        } = self;
        let ncells = procs.cells.len() + posted.cells.len() + columns.rows * columns.cols.len();
        let nrows = procs.nrows.max(columns.rows) + posted.nrows;
        // Every value once, plus room for the archives' own structure: a
        // value used by several blocks is copied in each, which may still
        // grow the buffer.
        let payload: usize = pool.iter().map(|v| payload_len(v) + ALIGN).sum();
        let names: usize = key_names.iter().map(|k| k.as_bytes().len() + 16).sum();
        let mut e = Emitter {
            buf: AlignedVec::with_capacity(
                HEADER_LEN + ncells * 8 + nrows * 5 + payload + 2 * names + 4096,
            ),
            blocks: Vec::new(),
            stamp: vec![0; pool.len()],
            local: vec![(0, 0); pool.len()],
            pool,
            nblocks_emitted: 0,
        };
        e.buf.extend_from_slice(&[0u8; HEADER_LEN]);

        let keys = if key_names.is_empty() {
            None
        } else {
            Some(e.emit(&dict::build(key_names))?)
        };
        let no_columns = Columns::default();
        let session = e.rows(&no_columns, Grouped::from_rows(vec![session]), 0)?;
        let job = e.rows(&no_columns, Grouped::from_rows(vec![job]), 0)?;

        let app_nums: Vec<u32> = apps.keys().copied().collect();
        let apps = e.rows(
            &no_columns,
            Grouped::from_rows(apps.into_values().collect()),
            SMALL_SHIFT,
        )?;

        let node_ids: Vec<u32> = nodes.keys().copied().collect();
        let mut names = Vec::with_capacity(nodes.len());
        let mut node_rows = Vec::with_capacity(nodes.len());
        for (name, row) in nodes.into_values() {
            names.push(name.unwrap_or_default());
            node_rows.push(row);
        }
        let hostnames = if names.iter().any(|n| !n.as_bytes().is_empty()) {
            Some(e.emit(&dict::build(names))?)
        } else {
            None
        };
        let nodes = e.rows(&no_columns, Grouped::from_rows(node_rows), SMALL_SHIFT)?;
        let procs_set = e.rows(&columns, procs.group(), rank_shift)?;
        drop(columns);
        let posted_set = e.rows(&no_columns, posted.group(), rank_shift + 2)?;

        e.seal_blocks();
        let index = Index {
            nspace,
            generation,
            keys,
            session,
            job,
            apps,
            app_nums,
            nodes,
            node_ids,
            hostnames,
            procs: procs_set,
            posted: posted_set,
            blocks: std::mem::take(&mut e.blocks),
        };
        let (index_offset, index_len) = e.serialize(&index)?;
        let index_checksum = xxh64(&e.buf[index_offset..index_offset + index_len]);
        let header = Header {
            total_len: e.buf.len() as u64,
            index_offset: index_offset as u64,
            index_len: index_len as u64,
            index_checksum,
        };
        e.buf[..HEADER_LEN].copy_from_slice(&header.encode());
        Ok(SegmentImage { bytes: e.buf })
    }
}

/// Appends a short string (with its NUL) or byte object to a block's
/// heap and returns its cell `(tag, data)`; `None` for other values, long
/// ones, or when the heap is beyond what a cell addresses (then the value
/// goes to the pool).
fn heap_cell(v: &StoredValue, heap: &mut Vec<u8>) -> Option<(u8, u32)> {
    let (tag, bytes, nul) = match v {
        StoredValue::String(Some(s)) => (TAG_STR, s.as_bytes(), 1),
        StoredValue::ByteObject(b) => (TAG_BYTES, &b[..], 0),
        _ => return None,
    };
    let off = heap.len();
    if bytes.len() > HEAP_MAX_LEN || off > HEAP_MAX_OFFSET {
        return None;
    }
    heap.extend_from_slice(bytes);
    heap.resize(heap.len() + nul, 0);
    Some((tag, off as u32 | (bytes.len() as u32) << HEAP_OFFSET_BITS))
}

struct Emitter {
    buf: AlignedVec<16>,
    blocks: Vec<BlockRef>,
    pool: Vec<StoredValue>,
    /// Per global pool entry: last block (1-based) that used it, and its
    /// cell tag and data in that block (its heap location or pool index).
    stamp: Vec<u32>,
    local: Vec<(u8, u32)>,
    nblocks_emitted: u32,
}

/// The serializer of a segment's blocks (16-byte aligned buffers).
type BlockSerializer<'a> = rkyv::api::high::HighSerializer<
    AlignedVec<16>,
    rkyv::ser::allocator::ArenaHandle<'a>,
    rkyv::rancor::Error,
>;

impl Emitter {
    fn serialize<T>(&mut self, value: &T) -> Result<(usize, usize), BuildError>
    where
        T: for<'a> rkyv::Serialize<BlockSerializer<'a>>,
    {
        self.pad();
        let start = self.buf.len();
        let buf = std::mem::take(&mut self.buf);
        self.buf = rkyv::api::high::to_bytes_in::<_, rkyv::rancor::Error>(value, buf)?;
        Ok((start, self.buf.len() - start))
    }

    fn emit<T>(&mut self, value: &T) -> Result<u32, BuildError>
    where
        T: for<'a> rkyv::Serialize<BlockSerializer<'a>>,
    {
        let (start, len) = self.serialize(value)?;
        let id = u32::try_from(self.blocks.len()).map_err(|_| BuildError::TooLarge)?;
        // The checksum is filled in by `seal_blocks`, once the padding
        // that follows the block is written.
        self.blocks.push(BlockRef {
            offset: start as u64,
            len: len as u64,
            checksum: 0,
        });
        Ok(id)
    }

    /// Pads the buffer and computes every block's checksum over the block
    /// and its padding, so that every byte of the segment is covered by the
    /// header's, the index's or a block's checksum.
    fn seal_blocks(&mut self) {
        self.pad();
        for b in &mut self.blocks {
            let (o, l) = (b.offset as usize, padded(b.len as usize));
            b.checksum = xxh64(&self.buf[o..o + l]);
        }
    }

    fn pad(&mut self) {
        let pad = padded(self.buf.len()) - self.buf.len();
        self.buf.extend_from_slice(&[0u8; ALIGN][..pad]);
    }

    /// The cell of a block for `c`: as it is, or, for a pooled value, its
    /// place in this block (`blk`), which the value's first use in the
    /// block gives it: in `heap` if it fits there, else in `pool`.
    #[inline]
    fn place(
        &mut self,
        mut c: Cell,
        blk: u32,
        heap: &mut Vec<u8>,
        pool: &mut Vec<StoredValue>,
    ) -> Cell {
        if c.key_tag & 0xFF != u32::from(TAG_POOL) {
            return c;
        }
        let g = c.data as usize;
        if self.stamp[g] != blk {
            self.stamp[g] = blk;
            self.local[g] = match heap_cell(&self.pool[g], heap) {
                Some(cell) => cell,
                None => {
                    pool.push(self.pool[g].clone());
                    (TAG_POOL, (pool.len() - 1) as u32)
                }
            };
        }
        let (tag, data) = self.local[g];
        c.key_tag = c.key_tag & !0xFF | u32::from(tag);
        c.data = data;
        c
    }

    /// Emits rows as blocks of `1 << shift` rows each: row `r` holds the
    /// cells `cols` gives it and its cells of `g`, by key id, the last set
    /// of a key kept (a cell of `g` after the columns').
    fn rows(&mut self, cols: &Columns, g: Grouped, shift: u32) -> Result<RowSet, BuildError> {
        let Grouped { starts, cells } = g;
        let given = |r: usize| match (starts.get(r), starts.get(r + 1)) {
            (Some(&a), Some(&b)) => &cells[a..b],
            _ => &[],
        };
        let mut row = Vec::with_capacity(cols.cols.len() + 8);
        // Trailing empty rows carry nothing.
        let mut n = cols.rows.max(starts.len().saturating_sub(1));
        while n > 0 {
            row.clear();
            cols.row_cells(n - 1, &mut row);
            if !row.is_empty() || !given(n - 1).is_empty() {
                break;
            }
            n -= 1;
        }
        let set = RowSet {
            rows: u32::try_from(n).map_err(|_| BuildError::TooLarge)?,
            shift,
            first_block: self.blocks.len() as u32,
        };
        let per_block = 1usize << shift;
        // One table serves every block: its vectors keep their capacity.
        let mut t = Table::default();
        for first in (0..n).step_by(per_block) {
            let last = (first + per_block).min(n);
            self.nblocks_emitted += 1;
            let blk = self.nblocks_emitted;
            t.row_starts.clear();
            t.cells.clear();
            t.heap.clear();
            t.pool.clear();
            for r in first..last {
                t.row_starts
                    .push(u32::try_from(t.cells.len()).map_err(|_| BuildError::TooLarge)?);
                row.clear();
                cols.row_cells(r, &mut row);
                let extra = given(r);
                if extra.is_empty() {
                    // The columns' cells: sorted, one per key.
                    for &c in &row {
                        let c = self.place(c, blk, &mut t.heap, &mut t.pool);
                        t.cells.push(c);
                    }
                    continue;
                }
                row.extend_from_slice(extra);
                // Sort by key id (stable); of equal keys keep the last set.
                row.sort_by_key(|c| c.key_tag >> 8);
                for (i, &c) in row.iter().enumerate() {
                    if row
                        .get(i + 1)
                        .is_some_and(|n| n.key_tag >> 8 == c.key_tag >> 8)
                    {
                        continue;
                    }
                    let c = self.place(c, blk, &mut t.heap, &mut t.pool);
                    t.cells.push(c);
                }
            }
            t.row_starts
                .push(u32::try_from(t.cells.len()).map_err(|_| BuildError::TooLarge)?);
            self.emit(&t)?;
        }
        Ok(set)
    }
}

/// A built segment in process memory: exactly the bytes that get sealed.
pub struct SegmentImage {
    bytes: AlignedVec<16>,
}

impl SegmentImage {
    /// The segment's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Always false: a segment has at least a header.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Copies the image into a new `memfd` of exactly its size (with
    /// `pwrite`: no writable mapping ever exists) and seals it.
    pub fn seal(&self) -> Result<SealedSegment, BuildError> {
        let os = |(op, source): (&'static str, std::io::Error)| BuildError::Os { op, source };
        let fd = sys::memfd_create(c"pmix-segment", true).map_err(os)?;
        // Writing at offset 0 sizes the (empty) file exactly.
        sys::write_all(fd.as_fd(), &self.bytes).map_err(os)?;
        sys::add_seals(fd.as_fd(), sys::REQUIRED_SEALS).map_err(os)?;
        Ok(SealedSegment {
            fd,
            len: self.bytes.len() as u64,
        })
    }

    /// Reads the image in this process without a memfd (the server's own
    /// view, tests, fuzzing).
    pub fn open(self) -> Result<Segment, SegmentError> {
        Segment::from_aligned(self.bytes)
    }
}

/// A sealed memfd holding one segment, ready to pass to clients.
pub struct SealedSegment {
    fd: OwnedFd,
    len: u64,
}

impl SealedSegment {
    /// The descriptor (send it with `SCM_RIGHTS`).
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Takes the descriptor.
    pub fn into_fd(self) -> OwnedFd {
        self.fd
    }

    /// Length of the segment.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Always false.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Maps the segment read-only in this process.
    pub fn open(&self) -> Result<Segment, SegmentError> {
        Segment::from_fd(self.fd.as_fd())
    }
}

// Every data type tag fits in a cell's 8-bit tag, below the heap and pool
// tags.
const _: () = assert!(tag::STOR_ACCESS_TYPE < TAG_BYTES as u16);
const _: () = assert!(TAG_BYTES < TAG_STR && TAG_STR < TAG_POOL);
