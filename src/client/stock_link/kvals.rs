//! Reading the key-value pairs (`PMIX_KVAL`s) a stock server sends, by
//! the init reply and by a get's answer.

use crate::codec::{Buffer, CodecError, Format};
use crate::{DataType, Key, Status, Value};

/// A kval's key and value.
pub(super) fn kval_parts(v: Value) -> Result<(Key, Value), Status> {
    let Value::Kval(kv) = v else {
        return Err(Status::ERR_UNPACK_FAILURE);
    };
    let k = kv.key.ok_or(Status::ERR_UNPACK_FAILURE)?;
    let k = Key::new(k.as_bytes()).map_err(|_| Status::ERR_UNPACK_FAILURE)?;
    let v = kv.value.map(|b| *b).unwrap_or(Value::Undef);
    Ok((k, v))
}

/// Every kval left in `b`.
pub(super) fn kvals(fmt: Format, b: &mut Buffer) -> Result<Vec<(Key, Value)>, Status> {
    let mut out = Vec::new();
    while b.remaining() > 0 {
        let v = fmt
            .unpack_value(b, DataType::Kval)
            .map_err(|e: CodecError| e.status())?;
        out.push(kval_parts(v)?);
    }
    Ok(out)
}
