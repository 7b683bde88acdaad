//! Reading the key-value pairs (`PMIX_KVAL`s) a stock server sends, by
//! the init reply and by a get's answer (byte objects of a process and
//! its kvals).

use crate::codec::{Buffer, CodecError, Format};
use crate::{DataType, Key, Proc, Status, Value};

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

/// A process and its pairs, as a get's reply carries them.
pub(super) type ProcBlob = (Proc, Vec<(Key, Value)>);

/// The byte objects left in `b` (a get's reply), each a process and its
/// kvals.
pub(super) fn proc_blobs(fmt: Format, b: &mut Buffer) -> Result<Vec<ProcBlob>, Status> {
    let mut out = Vec::new();
    while b.remaining() > 0 {
        let Ok(Value::ByteObject(obj)) = fmt.unpack_value(b, DataType::ByteObject) else {
            return Err(Status::ERR_UNPACK_FAILURE);
        };
        let mut inner = Buffer::from_bytes(obj);
        let proc = match fmt.unpack(&mut inner, DataType::Proc, 1) {
            Ok(mut v) => match v.pop() {
                Some(Value::Proc(p)) => p,
                _ => return Err(Status::ERR_UNPACK_FAILURE),
            },
            Err(e) => return Err(e.status()),
        };
        out.push((proc, kvals(fmt, &mut inner)?));
    }
    Ok(out)
}
