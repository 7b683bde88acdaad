//! The variable-length integer encoding OpenPMIx 4.x ("flex128") uses for
//! every 16-, 32- and 64-bit integer in a data buffer.
//!
//! An unsigned value is written little-endian in 7-bit groups, the high bit
//! of each byte flagging that another byte follows. At most eight such
//! bytes are written; if bits remain after them, a ninth byte carries the
//! last eight bits whole (so a `u64` never takes more than nine bytes).
//! Signed values are first sign-extended to 64 bits and zigzag-mapped
//! (`0, -1, 1, -2, ...` to `0, 1, 2, 3, ...`).
//!
//! Decoding checks what the reference checks: the value must fit the width
//! of its type and the encoding must not be more than one byte longer than
//! that width. It is stricter on truncation: a value cut off by the end of
//! the buffer is an error rather than a misread.

use super::{CodecError, Reader};
use crate::DataType;

/// Most bytes one encoded value occupies.
pub const MAX_LEN: usize = 9;

/// Appends the encoding of `v`.
pub fn put(out: &mut Vec<u8>, mut v: u64) {
    for _ in 0..8 {
        let group = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(group);
            return;
        }
        out.push(group | 0x80);
    }
    // Eight groups hold 56 bits; the ninth byte holds the rest verbatim.
    out.push(v as u8);
}

/// Zigzag mapping of a sign-extended value.
pub const fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag`].
pub const fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Reads one encoded value that must fit in `width` bytes; `ty` names the
/// type in errors. On error nothing is consumed (as in the reference, whose
/// unpack pointer only moves past a value it accepted).
pub fn get(r: &mut Reader<'_>, width: usize, ty: DataType) -> Result<u64, CodecError> {
    let bytes = r.rest();
    if bytes.is_empty() {
        return Err(CodecError::ReadPastEnd);
    }
    let mut value: u64 = 0;
    let mut used = 0usize;
    let bits;
    loop {
        let b = *bytes.get(used).ok_or(CodecError::ReadPastEnd)?;
        used += 1;
        let shift = 7 * (used as u32 - 1);
        if used == MAX_LEN {
            // The ninth byte is taken whole.
            value |= u64::from(b) << shift;
            bits = shift + (8 - b.leading_zeros());
            break;
        }
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            bits = shift + (8 - b.leading_zeros());
            break;
        }
    }
    let size = (bits as usize).div_ceil(8);
    if size > width || used > width + 1 {
        return Err(CodecError::IntTooWide(ty));
    }
    r.advance(used);
    Ok(value)
}

/// Appends an unsigned 16/32/64-bit integer.
pub fn put_u64(out: &mut Vec<u8>, v: u64) {
    put(out, v);
}

/// Appends a signed 16/32/64-bit integer.
pub fn put_i64(out: &mut Vec<u8>, v: i64) {
    put(out, zigzag(v));
}

/// Reads a `PMIX_UINT16`.
pub fn get_u16(r: &mut Reader<'_>) -> Result<u16, CodecError> {
    Ok(get(r, 2, DataType::Uint16)? as u16)
}

/// Reads a `PMIX_UINT32`.
pub fn get_u32(r: &mut Reader<'_>) -> Result<u32, CodecError> {
    Ok(get(r, 4, DataType::Uint32)? as u32)
}

/// Reads a `PMIX_UINT64` (also `PMIX_SIZE`).
pub fn get_u64(r: &mut Reader<'_>) -> Result<u64, CodecError> {
    get(r, 8, DataType::Uint64)
}

/// Reads a `PMIX_INT16`.
pub fn get_i16(r: &mut Reader<'_>) -> Result<i16, CodecError> {
    Ok(unzigzag(get(r, 2, DataType::Int16)?) as i16)
}

/// Reads a `PMIX_INT32` (also `PMIX_INT`, `PMIX_STATUS` and counts).
pub fn get_i32(r: &mut Reader<'_>) -> Result<i32, CodecError> {
    Ok(unzigzag(get(r, 4, DataType::Int32)?) as i32)
}

/// Reads a `PMIX_INT64`.
pub fn get_i64(r: &mut Reader<'_>) -> Result<i64, CodecError> {
    Ok(unzigzag(get(r, 8, DataType::Int64)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        put(&mut out, v);
        out
    }

    #[test]
    fn known_encodings() {
        assert_eq!(enc(0), [0]);
        assert_eq!(enc(1), [1]);
        assert_eq!(enc(300), [0xac, 0x02]);
        assert_eq!(enc(u64::MAX), [0xff; 9]);
        assert_eq!(enc(zigzag(-1)), [1]);
        assert_eq!(enc(zigzag(0x0102_0304)), [0x88, 0x8c, 0x90, 0x10]);
        assert_eq!(enc(zigzag(i64::MIN)), [0xff; 9]);
    }

    #[test]
    fn round_trip_edges() {
        for v in [
            0u64,
            1,
            127,
            128,
            1 << 55,
            (1 << 56) - 1,
            1 << 56,
            u64::MAX - 1,
            u64::MAX,
        ] {
            let b = enc(v);
            let mut r = Reader::new(&b);
            assert_eq!(get(&mut r, 8, DataType::Uint64).unwrap(), v);
            assert_eq!(r.remaining(), 0);
        }
    }

    #[test]
    fn width_checks() {
        let b = enc(0x1_0000);
        assert_eq!(
            get(&mut Reader::new(&b), 2, DataType::Uint16),
            Err(CodecError::IntTooWide(DataType::Uint16))
        );
        // A zero padded to four bytes is too long for a 16-bit integer.
        let b = [0x80, 0x80, 0x80, 0x00];
        assert!(get(&mut Reader::new(&b), 2, DataType::Uint16).is_err());
        assert_eq!(get(&mut Reader::new(&b), 4, DataType::Uint32), Ok(0));
    }

    #[test]
    fn truncation_is_an_error() {
        assert_eq!(
            get(&mut Reader::new(&[]), 4, DataType::Int32),
            Err(CodecError::ReadPastEnd)
        );
        assert_eq!(
            get(&mut Reader::new(&[0x80, 0x80]), 8, DataType::Uint64),
            Err(CodecError::ReadPastEnd)
        );
    }
}
