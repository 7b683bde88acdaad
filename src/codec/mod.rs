//! The data-buffer codec: PMIx values to and from the byte format of
//! OpenPMIx 4.2's `PMIx_Data_pack` / `PMIx_Data_unpack`.
//!
//! A buffer made by `PMIX_DATA_BUFFER_CREATE` is *non-described*: items
//! carry no type tags except where the format itself has them (values,
//! infos, data arrays, pids). One pack call writes the number of items as
//! an `int32`, then the items. Integers wider than a byte are
//! variable-length ([`varint`]); strings carry their length including the
//! NUL; floats travel as `%f` text. The layout of every type is described
//! in [`pack`].
//!
//! ```
//! use pmix::codec::{self, Buffer};
//! use pmix::{DataType, Value};
//!
//! let mut buf = Buffer::new();
//! codec::pack(&mut buf, &[Value::Int32(0x0102_0304)]).unwrap();
//! assert_eq!(buf.as_bytes(), [0x02, 0x88, 0x8c, 0x90, 0x10]);
//! let back = codec::unpack(&mut buf, DataType::Int32, 1).unwrap();
//! assert_eq!(back, [Value::Int32(0x0102_0304)]);
//! ```
//!
//! OpenPMIx peers may speak an older type set or *fully described*
//! buffers: [`Format`] packs and unpacks in those ([`format`](mod@format)).
//!
//! Unpacking never trusts a length: counts are checked against the bytes
//! left before anything is allocated, nesting is bounded by [`MAX_DEPTH`],
//! and malformed input yields a [`CodecError`] (mapped to the status the
//! reference returns), never a panic.

mod buffer;
pub mod compress;
mod error;
pub mod float;
pub mod format;
pub mod ints;
pub mod pack;
pub mod regex;
pub mod unpack;
pub mod varint;
pub mod wire;

pub use buffer::{Buffer, Reader};
pub use compress::{compress, decompress, zlib_frame};
pub use error::CodecError;
pub use format::{Format, Module, NestedBuffer};
pub use unpack::{Unpacked, MAX_DEPTH};

use crate::{DataType, Value};

/// Packs `values`, which must all have the type of the first one, as one
/// `PMIx_Data_pack` call does. An empty slice packs a count of zero.
pub fn pack(buf: &mut Buffer, values: &[Value]) -> Result<(), CodecError> {
    match values.first() {
        None => wire::put_count(buf.bytes_mut(), 0),
        Some(v) => pack_typed(buf, v.data_type(), values),
    }
}

/// Packs `values` declared as type `ty` (every value must be of that type).
pub fn pack_typed(buf: &mut Buffer, ty: DataType, values: &[Value]) -> Result<(), CodecError> {
    pack::pack_counted(buf.bytes_mut(), ty, values)
}

/// Packs one value (a count of 1, then the value).
pub fn pack_value(buf: &mut Buffer, value: &Value) -> Result<(), CodecError> {
    pack_typed(buf, value.data_type(), std::slice::from_ref(value))
}

/// Unpacks the next pack call's values, expecting type `ty` and at most
/// `max` of them. More than `max` in the buffer is
/// [`CodecError::InadequateSpace`] (the first `max` are consumed, as in the
/// reference; use [`unpack_partial`] to get them).
pub fn unpack(buf: &mut Buffer, ty: DataType, max: usize) -> Result<Vec<Value>, CodecError> {
    let u = unpack_partial(buf, ty, max)?;
    if u.is_partial() {
        return Err(CodecError::InadequateSpace {
            total: u.total,
            room: max,
        });
    }
    Ok(u.values)
}

/// Like [`unpack`], but returns the values read when the buffer holds more
/// than `max`.
pub fn unpack_partial(buf: &mut Buffer, ty: DataType, max: usize) -> Result<Unpacked, CodecError> {
    buf.read_with(|r| unpack::unpack_counted(r, ty, max))
}

/// Unpacks exactly one value of type `ty`.
pub fn unpack_value(buf: &mut Buffer, ty: DataType) -> Result<Value, CodecError> {
    let mut v = unpack(buf, ty, 1)?;
    v.pop().ok_or(CodecError::ReadPastEnd)
}
