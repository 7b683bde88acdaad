//! A process realm given column by column: what a job registration knows
//! of its ranks is a few per-rank arrays (node, application, local rank,
//! ...) and a few values per node or application, and the segment's rows
//! can be laid straight from them, without a value, a hash or an
//! allocation per rank.
//!
//! A [`ProcColumns`] holds *row indexes* (per row, the number of a choice,
//! or [`NO_CHOICE`]), *choice columns* (a key whose value in row `r` is
//! `choices[index[r]]`: a hostname per node, an application number per
//! application) and *scalar columns* (a key whose value in row `r` is an
//! inline number, `values[r]`, optionally only in the rows a row index
//! places). [`SegmentBuilder::proc_columns`](crate::SegmentBuilder::proc_columns)
//! takes it; the segment is the one the same values set rank by rank with
//! [`SegmentBuilder::proc_kv`](crate::SegmentBuilder::proc_kv) would give,
//! byte for byte.
//!
//! Invariants: a choice column's `index` and a scalar column's
//! `only_where` name an index of the same `ProcColumns` (a [`RowIndex`]
//! is only made by [`ProcColumns::index`]); a row has a value in a column
//! only if the column's arrays reach that row and, for a choice, its index
//! names an existing, present choice.

use crate::schema::StoredValue;
use crate::types::{tag, KeyId};

/// A row index's entry for a row with no choice (no value in the columns
/// that use the index).
pub const NO_CHOICE: u32 = u32::MAX;

/// A row index of one [`ProcColumns`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowIndex(pub(crate) usize);

/// The type of a scalar column's values (each held in 32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// `PMIX_UINT16` (values above `u16::MAX` are cut to 16 bits).
    Uint16,
    /// `PMIX_UINT32`.
    Uint32,
    /// `PMIX_PROC_RANK`.
    ProcRank,
}

impl Scalar {
    /// The cell tag (data type) of the values.
    pub(crate) fn tag(self) -> u8 {
        match self {
            Scalar::Uint16 => tag::UINT16 as u8,
            Scalar::Uint32 => tag::UINT32 as u8,
            Scalar::ProcRank => tag::PROC_RANK as u8,
        }
    }
}

/// A scalar column's values.
pub(crate) enum ColumnValues {
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl ColumnValues {
    #[inline]
    pub(crate) fn get(&self, r: usize) -> Option<u32> {
        match self {
            ColumnValues::U16(v) => v.get(r).map(|&x| u32::from(x)),
            ColumnValues::U32(v) => v.get(r).copied(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            ColumnValues::U16(v) => v.len(),
            ColumnValues::U32(v) => v.len(),
        }
    }
}

/// One column, as given.
pub(crate) enum Column {
    Choice {
        key: KeyId,
        index: usize,
        choices: Vec<Option<StoredValue>>,
    },
    Scalar {
        key: KeyId,
        ty: Scalar,
        values: ColumnValues,
        only_where: Option<usize>,
    },
}

impl Column {
    pub(crate) fn key(&self) -> KeyId {
        match self {
            Column::Choice { key, .. } | Column::Scalar { key, .. } => *key,
        }
    }
}

/// The process realm's columns (see the module documentation).
#[derive(Default)]
pub struct ProcColumns {
    pub(crate) indexes: Vec<Vec<u32>>,
    pub(crate) columns: Vec<Column>,
}

impl ProcColumns {
    /// No columns.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a row index: `per_row[r]` is row `r`'s choice, or
    /// [`NO_CHOICE`].
    pub fn index(&mut self, per_row: Vec<u32>) -> RowIndex {
        self.indexes.push(per_row);
        RowIndex(self.indexes.len() - 1)
    }

    /// Row `r` holds `key` = `choices[index[r]]` (nothing where that is
    /// `None`, out of range or [`NO_CHOICE`]).
    pub fn choice(&mut self, key: KeyId, index: RowIndex, choices: Vec<Option<StoredValue>>) {
        self.columns.push(Column::Choice {
            key,
            index: index.0,
            choices,
        });
    }

    /// Row `r` holds `key` = `values[r]` of type `ty`; with `only_where`,
    /// only the rows that index gives a choice.
    pub fn scalar(
        &mut self,
        key: KeyId,
        ty: Scalar,
        values: Vec<u32>,
        only_where: Option<RowIndex>,
    ) {
        self.columns.push(Column::Scalar {
            key,
            ty,
            values: ColumnValues::U32(values),
            only_where: only_where.map(|i| i.0),
        });
    }

    /// [`scalar`](Self::scalar) of type [`Scalar::Uint16`], from 16-bit
    /// values.
    pub fn scalar16(&mut self, key: KeyId, values: Vec<u16>, only_where: Option<RowIndex>) {
        self.columns.push(Column::Scalar {
            key,
            ty: Scalar::Uint16,
            values: ColumnValues::U16(values),
            only_where: only_where.map(|i| i.0),
        });
    }

    /// Rows the columns reach (some of the last may hold nothing).
    pub(crate) fn rows(&self) -> usize {
        self.columns
            .iter()
            .map(|c| match c {
                Column::Choice { index, .. } => self.indexes.get(*index).map_or(0, Vec::len),
                Column::Scalar { values, .. } => values.len(),
            })
            .max()
            .unwrap_or(0)
    }
}
