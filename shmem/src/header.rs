//! The fixed 64-byte header in front of every segment.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `PMIXSHM\0` |
//! | 8 | 4 | format version ([`crate::FORMAT_VERSION`]) |
//! | 12 | 4 | header length (64) |
//! | 16 | 8 | layout id ([`crate::LAYOUT_ID`]) |
//! | 24 | 8 | total length of the segment, header included |
//! | 32 | 8 | offset of the index archive |
//! | 40 | 8 | length of the index archive |
//! | 48 | 8 | XXH64 of the index archive |
//! | 56 | 8 | XXH64 of bytes 0..56 |
//!
//! All integers little-endian. The header is read field by field from the
//! bytes, never cast, so any byte pattern is safe to parse.

use crate::checksum::xxh64;
use crate::error::{Region, SegmentError};
use crate::schema::LAYOUT_ID;
use crate::FORMAT_VERSION;

/// Magic number: the first 8 bytes of every segment.
pub const MAGIC: [u8; 8] = *b"PMIXSHM\0";
/// Length of the header.
pub const HEADER_LEN: usize = 64;
/// Alignment of the index and of every block within the segment.
pub const ALIGN: usize = 16;

/// `n` rounded up to the segment alignment (the padding after a block is
/// part of what its checksum covers).
pub(crate) fn padded(n: usize) -> usize {
    n.div_ceil(ALIGN) * ALIGN
}

/// A parsed, checked header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Total segment length.
    pub total_len: u64,
    /// Offset of the index archive.
    pub index_offset: u64,
    /// Length of the index archive.
    pub index_len: u64,
    /// XXH64 of the index archive.
    pub index_checksum: u64,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

impl Header {
    /// The header's bytes.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        b[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
        b[16..24].copy_from_slice(&LAYOUT_ID.to_le_bytes());
        b[24..32].copy_from_slice(&self.total_len.to_le_bytes());
        b[32..40].copy_from_slice(&self.index_offset.to_le_bytes());
        b[40..48].copy_from_slice(&self.index_len.to_le_bytes());
        b[48..56].copy_from_slice(&self.index_checksum.to_le_bytes());
        let sum = xxh64(&b[..56]);
        b[56..64].copy_from_slice(&sum.to_le_bytes());
        b
    }

    /// Parses and checks the header of `seg` (the whole segment): magic,
    /// version, header checksum, layout id, length, index bounds.
    pub fn parse(seg: &[u8]) -> Result<Header, SegmentError> {
        if seg.len() < 8 || seg[0..8] != MAGIC {
            return Err(if seg.len() >= 8 {
                SegmentError::Foreign
            } else {
                SegmentError::TooShort {
                    len: seg.len() as u64,
                    need: HEADER_LEN as u64,
                }
            });
        }
        if seg.len() < HEADER_LEN {
            return Err(SegmentError::TooShort {
                len: seg.len() as u64,
                need: HEADER_LEN as u64,
            });
        }
        let version = u32_at(seg, 8);
        if version != FORMAT_VERSION {
            return Err(SegmentError::VersionSkew {
                found: version,
                expected: FORMAT_VERSION,
            });
        }
        if u64_at(seg, 56) != xxh64(&seg[..56]) {
            return Err(SegmentError::Checksum(Region::Header));
        }
        if u32_at(seg, 12) as usize != HEADER_LEN {
            return Err(SegmentError::BadRange(Region::Header));
        }
        let layout = u64_at(seg, 16);
        if layout != LAYOUT_ID {
            return Err(SegmentError::LayoutMismatch {
                found: layout,
                expected: LAYOUT_ID,
            });
        }
        let h = Header {
            total_len: u64_at(seg, 24),
            index_offset: u64_at(seg, 32),
            index_len: u64_at(seg, 40),
            index_checksum: u64_at(seg, 48),
        };
        if h.total_len != seg.len() as u64 {
            return Err(SegmentError::Truncated {
                expected: h.total_len,
                actual: seg.len() as u64,
            });
        }
        check_range(h.index_offset, h.index_len, h.total_len, Region::Index)?;
        Ok(h)
    }
}

/// Checks that `[offset, offset + len)` is a non-empty, aligned range after
/// the header and within `total`.
pub(crate) fn check_range(
    offset: u64,
    len: u64,
    total: u64,
    r: Region,
) -> Result<(), SegmentError> {
    let end = offset.checked_add(len).ok_or(SegmentError::BadRange(r))?;
    if offset < HEADER_LEN as u64 || offset % ALIGN as u64 != 0 || len == 0 || end > total {
        return Err(SegmentError::BadRange(r));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::ALIGN;
    use crate::schema::{ArchivedIndex, ArchivedStoredValue};

    #[test]
    fn blocks_are_aligned_for_every_archived_type() {
        assert!(std::mem::align_of::<ArchivedStoredValue>() <= ALIGN);
        assert!(std::mem::align_of::<ArchivedIndex>() <= ALIGN);
    }
}
