//! Decoding a stock peer's command fields, shared by the door's
//! subjects: one value, a `PMIX_SIZE` count then its items in one pack
//! (none when the count is 0), and packing an info list the same way.
//!
//! Invariant: a count is believed only up to the bytes left (each item
//! takes at least one), so a lying count fails before any allocation.

use crate::codec::{Buffer, CodecError, Format};
use crate::wire::Op;
use crate::{DataType, Info, Proc, Value};

use super::request::Pending;

/// A decoded command as our request: its op, its body in our encoding,
/// what its answer waits for.
pub(super) type Forward = (Op, Vec<u8>, Pending);

pub(super) fn one(fmt: Format, buf: &mut Buffer, ty: DataType) -> Result<Value, CodecError> {
    fmt.unpack_value(buf, ty)
}

pub(super) fn size(fmt: Format, buf: &mut Buffer) -> Result<usize, CodecError> {
    match one(fmt, buf, DataType::Size)? {
        Value::Size(n) if n <= buf.remaining() => Ok(n),
        _ => Err(CodecError::BadParam("count")),
    }
}

pub(super) fn many(
    fmt: Format,
    buf: &mut Buffer,
    ty: DataType,
    n: usize,
) -> Result<Vec<Value>, CodecError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    fmt.unpack(buf, ty, n)
}

pub(super) fn procs(fmt: Format, buf: &mut Buffer) -> Result<Vec<Proc>, CodecError> {
    let n = size(fmt, buf)?;
    many(fmt, buf, DataType::Proc, n)?
        .into_iter()
        .map(|v| match v {
            Value::Proc(p) => Ok(p),
            _ => Err(CodecError::BadParam("proc")),
        })
        .collect()
}

pub(super) fn infos(fmt: Format, buf: &mut Buffer) -> Result<Vec<Info>, CodecError> {
    let n = size(fmt, buf)?;
    many(fmt, buf, DataType::Info, n)?
        .into_iter()
        .map(|v| match v {
            Value::Info(i) => Ok(*i),
            _ => Err(CodecError::BadParam("info")),
        })
        .collect()
}

/// Packs the count of `infos` then the infos.
pub(super) fn pack_infos(fmt: Format, b: &mut Buffer, infos: Vec<Info>) -> Result<(), CodecError> {
    fmt.pack_value(b, &Value::Size(infos.len()))?;
    if !infos.is_empty() {
        let v: Vec<Value> = infos
            .into_iter()
            .map(|i| Value::Info(Box::new(i)))
            .collect();
        fmt.pack(b, DataType::Info, &v)?;
    }
    Ok(())
}

/// Packs `v` as `PMIx_Data_pack` would (the unit tests' peer).
#[cfg(test)]
pub(super) fn pack(b: &mut Buffer, v: Value) {
    Format::DATA_PACK.pack_value(b, &v).unwrap();
}
