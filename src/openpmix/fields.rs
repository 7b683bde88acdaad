//! Fields of OpenPMIx's commands and replies, shared by our server's door
//! for stock clients and our client's link to stock servers: one value, a
//! `PMIX_SIZE` count then its items in one pack (none when the count is
//! 0), and packing an info list the same way.
//!
//! Invariant: a count is believed only up to the bytes left (each item
//! takes at least one), so a lying count fails before any allocation.

use crate::codec::{Buffer, CodecError, Format};
use crate::{DataType, Info, Proc, Value};

/// One value of type `ty`.
pub fn one(fmt: Format, buf: &mut Buffer, ty: DataType) -> Result<Value, CodecError> {
    fmt.unpack_value(buf, ty)
}

/// A `PMIX_SIZE` count, no larger than the bytes left.
pub fn size(fmt: Format, buf: &mut Buffer) -> Result<usize, CodecError> {
    match one(fmt, buf, DataType::Size)? {
        Value::Size(n) if n <= buf.remaining() => Ok(n),
        _ => Err(CodecError::BadParam("count")),
    }
}

/// `n` values of type `ty` in one pack (none when `n` is 0).
pub fn many(
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

/// A count, then the procs.
pub fn procs(fmt: Format, buf: &mut Buffer) -> Result<Vec<Proc>, CodecError> {
    let n = size(fmt, buf)?;
    many(fmt, buf, DataType::Proc, n)?
        .into_iter()
        .map(|v| match v {
            Value::Proc(p) => Ok(p),
            _ => Err(CodecError::BadParam("proc")),
        })
        .collect()
}

/// A count, then the infos.
pub fn infos(fmt: Format, buf: &mut Buffer) -> Result<Vec<Info>, CodecError> {
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
pub fn pack_infos(fmt: Format, b: &mut Buffer, infos: &[Info]) -> Result<(), CodecError> {
    fmt.pack_value(b, &Value::Size(infos.len()))?;
    if !infos.is_empty() {
        let v: Vec<Value> = infos
            .iter()
            .cloned()
            .map(|i| Value::Info(Box::new(i)))
            .collect();
        fmt.pack(b, DataType::Info, &v)?;
    }
    Ok(())
}

/// Packs the count of `procs` then the procs.
pub fn pack_procs(fmt: Format, b: &mut Buffer, procs: &[Proc]) -> Result<(), CodecError> {
    fmt.pack_value(b, &Value::Size(procs.len()))?;
    if !procs.is_empty() {
        let v: Vec<Value> = procs.iter().cloned().map(Value::Proc).collect();
        fmt.pack(b, DataType::Proc, &v)?;
    }
    Ok(())
}
