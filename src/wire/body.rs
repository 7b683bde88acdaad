//! Field encodings of message bodies, on the data-buffer codec's
//! primitives: integers are the codec's varints, strings its
//! length-prefixed NUL-terminated strings, values and infos its packed
//! `pmix_value_t`/`pmix_info_t` forms. Decoding is strict: over-long keys
//! and namespaces are errors (not truncated), counts are bounded by the
//! bytes left before anything is allocated.

use std::ffi::CString;

use crate::codec::{pack, unpack, varint, wire, CodecError, Reader};
use crate::{Info, Key, Nspace, Proc, Rank, Status, Value};

/// Appends an unsigned 32-bit integer.
pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    varint::put_u64(out, v.into());
}

/// Reads an unsigned 32-bit integer.
pub fn get_u32(r: &mut Reader<'_>) -> Result<u32, CodecError> {
    varint::get_u32(r)
}

/// Appends an unsigned 64-bit integer.
pub fn put_u64(out: &mut Vec<u8>, v: u64) {
    varint::put_u64(out, v);
}

/// Reads an unsigned 64-bit integer.
pub fn get_u64(r: &mut Reader<'_>) -> Result<u64, CodecError> {
    varint::get_u64(r)
}

/// Appends a status.
pub fn put_status(out: &mut Vec<u8>, s: Status) {
    wire::put_i32(out, s.code());
}

/// Reads a status.
pub fn get_status(r: &mut Reader<'_>) -> Result<Status, CodecError> {
    Ok(Status(wire::get_i32(r)?))
}

/// Appends a count of items.
pub fn put_count(out: &mut Vec<u8>, n: usize) -> Result<(), CodecError> {
    let n = u32::try_from(n).map_err(|_| CodecError::BadParam("count exceeds u32"))?;
    put_u32(out, n);
    Ok(())
}

/// Reads a count of items each at least one byte long: a count larger
/// than the bytes left is refused before anything is allocated.
pub fn get_count(r: &mut Reader<'_>) -> Result<usize, CodecError> {
    let n = get_u32(r)? as usize;
    if n > r.remaining() {
        return Err(CodecError::BadLength(n as i128));
    }
    Ok(n)
}

/// Appends a nullable string.
pub fn put_opt_str(out: &mut Vec<u8>, s: Option<&std::ffi::CStr>) -> Result<(), CodecError> {
    wire::put_str(out, s)
}

/// Reads a nullable string.
pub fn get_opt_str(r: &mut Reader<'_>) -> Result<Option<CString>, CodecError> {
    wire::get_str(r)
}

/// Appends a byte string.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    wire::put_bytes(out, b);
}

/// Reads a byte string.
pub fn get_bytes(r: &mut Reader<'_>) -> Result<Vec<u8>, CodecError> {
    wire::get_bytes(r)
}

/// Appends a namespace.
pub fn put_nspace(out: &mut Vec<u8>, ns: &Nspace) -> Result<(), CodecError> {
    wire::put_cstr(out, ns.as_c_str())
}

/// Reads a namespace (at most `PMIX_MAX_NSLEN` bytes).
pub fn get_nspace(r: &mut Reader<'_>) -> Result<Nspace, CodecError> {
    Nspace::from_cstring(wire::get_cstr(r)?).map_err(|_| CodecError::BadParam("namespace too long"))
}

/// Appends a key.
pub fn put_key(out: &mut Vec<u8>, k: &Key) -> Result<(), CodecError> {
    wire::put_cstr(out, k.as_c_str())
}

/// Reads a key (non-empty, at most `PMIX_MAX_KEYLEN` bytes).
pub fn get_key(r: &mut Reader<'_>) -> Result<Key, CodecError> {
    let k =
        Key::from_cstring(wire::get_cstr(r)?).map_err(|_| CodecError::BadParam("key too long"))?;
    if k.is_empty() {
        return Err(CodecError::BadParam("empty key"));
    }
    Ok(k)
}

/// Appends a process identifier.
pub fn put_proc(out: &mut Vec<u8>, p: &Proc) -> Result<(), CodecError> {
    put_nspace(out, &p.nspace)?;
    put_u32(out, p.rank.0);
    Ok(())
}

/// Reads a process identifier.
pub fn get_proc(r: &mut Reader<'_>) -> Result<Proc, CodecError> {
    let nspace = get_nspace(r)?;
    Ok(Proc::new(nspace, Rank(get_u32(r)?)))
}

/// Appends a counted list of processes.
pub fn put_procs(out: &mut Vec<u8>, procs: &[Proc]) -> Result<(), CodecError> {
    put_count(out, procs.len())?;
    procs.iter().try_for_each(|p| put_proc(out, p))
}

/// Reads a counted list of processes.
pub fn get_procs(r: &mut Reader<'_>) -> Result<Vec<Proc>, CodecError> {
    let n = get_count(r)?;
    (0..n).map(|_| get_proc(r)).collect()
}

/// Appends any value with its type tag (the codec's packed `pmix_value_t`).
pub fn put_value(out: &mut Vec<u8>, v: &Value) -> Result<(), CodecError> {
    pack::pack_val(out, v)
}

/// Reads a value written by [`put_value`].
pub fn get_value(r: &mut Reader<'_>) -> Result<Value, CodecError> {
    unpack::unpack_val(r, 0)
}

/// Appends a counted list of infos.
pub fn put_infos(out: &mut Vec<u8>, infos: &[Info]) -> Result<(), CodecError> {
    put_count(out, infos.len())?;
    for i in infos {
        put_key(out, &i.key)?;
        put_u32(out, i.flags.0);
        put_value(out, &i.value)?;
    }
    Ok(())
}

/// Reads a counted list of infos.
pub fn get_infos(r: &mut Reader<'_>) -> Result<Vec<Info>, CodecError> {
    let n = get_count(r)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let key = get_key(r)?;
        let flags = crate::InfoDirectives(get_u32(r)?);
        let value = get_value(r)?;
        v.push(Info { key, flags, value });
    }
    Ok(v)
}

/// Reads one byte.
pub fn get_u8(r: &mut Reader<'_>) -> Result<u8, CodecError> {
    r.byte()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let p = Proc::new(Nspace::new("job").unwrap(), Rank(7));
        let infos = vec![Info::new(
            Key::new(crate::keys::TIMEOUT).unwrap(),
            Value::Int32(5),
        )];
        let mut out = Vec::new();
        put_proc(&mut out, &p).unwrap();
        put_infos(&mut out, &infos).unwrap();
        put_status(&mut out, Status::ERR_TIMEOUT);
        put_value(&mut out, &Value::string("x")).unwrap();
        let mut r = Reader::new(&out);
        assert_eq!(get_proc(&mut r).unwrap(), p);
        assert_eq!(get_infos(&mut r).unwrap(), infos);
        assert_eq!(get_status(&mut r).unwrap(), Status::ERR_TIMEOUT);
        assert_eq!(get_value(&mut r).unwrap(), Value::string("x"));
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn huge_counts_are_refused_before_allocating() {
        let mut out = Vec::new();
        put_u32(&mut out, u32::MAX);
        assert!(get_procs(&mut Reader::new(&out)).is_err());
        assert!(get_infos(&mut Reader::new(&out)).is_err());
    }

    #[test]
    fn over_long_namespace_is_refused() {
        let mut out = Vec::new();
        let long = std::ffi::CString::new(vec![b'a'; 300]).unwrap();
        wire::put_cstr(&mut out, &long).unwrap();
        put_u32(&mut out, 0);
        assert!(get_proc(&mut Reader::new(&out)).is_err());
    }
}
