//! `PMIX_REGEX`: how OpenPMIx 4.2 frames a regular expression in a buffer.
//!
//! The reference hands a regex to its regex components, each of which
//! claims the forms it generates:
//!
//! * `pmix...` (native component) and `raw:...` (raw component): the
//!   string's bytes and its NUL, with no length in front;
//! * `blob:\0component=zlib:\0size=N:\0...` (compress component): a fixed
//!   number of bytes computed from the header, namely
//!   `strtoul(third field) + 27 + strlen(third field) + 1` (the reference's
//!   own formula, which reads the `size=` field as 0);
//! * anything else: a count (`int32`, 1) followed by a string, as a
//!   top-level `PMIx_Data_pack` of one `PMIX_STRING` would write it.
//!
//! A [`Value::Regex`](crate::Value::Regex) holds the bytes a C `char *`
//! regex points to: the string forms with their terminating NUL, a blob
//! with all of its framed bytes. An empty vector stands for a NULL regex.
//! Packing accepts the string forms with or without the NUL.

use std::ffi::CStr;

use super::{wire, CodecError, Reader};

const BLOB: &[u8] = b"blob";
const ZLIB_FIELD: &[u8] = b"component=zlib:";
/// `strlen("blob: component=zlib: size=")`, part of the reference formula.
const BLOB_PREFIX_LEN: u64 = 27;
/// Largest zero padding added to a blob shorter than its header says.
const MAX_BLOB_PAD: usize = 64;

fn is_string_form(b: &[u8]) -> bool {
    b.starts_with(b"pmix") || b.starts_with(b"raw:")
}

/// `strtoul(s, NULL, 10)` on the bytes of a C string.
fn strtoul(s: &[u8]) -> u64 {
    let (mut i, neg) = super::float::number_start(s);
    let mut v: u64 = 0;
    let mut overflow = false;
    while i < s.len() && s[i].is_ascii_digit() {
        match v
            .checked_mul(10)
            .and_then(|x| x.checked_add(u64::from(s[i] - b'0')))
        {
            Some(x) => v = x,
            None => overflow = true,
        }
        i += 1;
    }
    if overflow {
        u64::MAX
    } else if neg {
        v.wrapping_neg()
    } else {
        v
    }
}

/// The number of bytes the reference frames for a blob starting at `b`, if
/// `b` holds a complete zlib blob header; `None` if it is not one.
fn blob_len(b: &[u8]) -> Option<u64> {
    if !b.starts_with(BLOB) {
        return None;
    }
    let first = CStr::from_bytes_until_nul(b).ok()?.to_bytes().len() + 1;
    let rest = b.get(first..)?;
    if !rest.starts_with(ZLIB_FIELD) {
        return None;
    }
    let third = b.get(first + ZLIB_FIELD.len() + 1..)?;
    let field = CStr::from_bytes_until_nul(third).ok()?.to_bytes();
    Some(
        strtoul(field)
            .wrapping_add(BLOB_PREFIX_LEN)
            .wrapping_add(field.len() as u64)
            .wrapping_add(1),
    )
}

/// Appends one regex.
pub fn pack(out: &mut Vec<u8>, re: &[u8]) -> Result<(), CodecError> {
    let text = |b: &[u8]| -> Vec<u8> { b.iter().copied().take_while(|&c| c != 0).collect() };
    if is_string_form(re) {
        out.extend_from_slice(&text(re));
        out.push(0);
        return Ok(());
    }
    if let Some(len) = blob_len(re) {
        if let Ok(len) = usize::try_from(len) {
            if len <= re.len() {
                out.extend_from_slice(&re[..len]);
                return Ok(());
            }
            if len - re.len() <= MAX_BLOB_PAD {
                out.extend_from_slice(re);
                out.resize(out.len() + (len - re.len()), 0);
                return Ok(());
            }
        }
    }
    wire::put_i32(out, 1);
    if re.is_empty() {
        wire::put_str(out, None)
    } else {
        let s = std::ffi::CString::new(text(re)).map_err(|_| CodecError::BadParam("regex"))?;
        wire::put_cstr(out, &s)
    }
}

/// Reads one regex.
pub fn unpack(r: &mut Reader<'_>) -> Result<Vec<u8>, CodecError> {
    let rest = r.rest();
    if is_string_form(rest) {
        let s = CStr::from_bytes_until_nul(rest).map_err(|_| CodecError::Unterminated)?;
        let bytes = s.to_bytes_with_nul().to_vec();
        r.advance(bytes.len());
        return Ok(bytes);
    }
    if rest.starts_with(BLOB) {
        if CStr::from_bytes_until_nul(rest).is_err() {
            return Err(CodecError::Unterminated);
        }
        if let Some(len) = blob_len(rest) {
            let len = usize::try_from(len).map_err(|_| CodecError::BadLength(len.into()))?;
            return Ok(r.take(len)?.to_vec());
        }
    }
    let n = wire::get_i32(r)?;
    match n {
        0 => Ok(Vec::new()),
        1 => Ok(wire::get_str(r)?
            .map(|s| s.into_bytes_with_nul())
            .unwrap_or_default()),
        n if n > 1 => Err(CodecError::InadequateSpace {
            total: n as usize,
            room: 1,
        }),
        n => Err(CodecError::BadLength(n.into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt(re: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let mut out = Vec::new();
        pack(&mut out, re).unwrap();
        let mut r = Reader::new(&out);
        let back = unpack(&mut r).unwrap();
        assert_eq!(r.remaining(), 0);
        (out, back)
    }

    #[test]
    fn string_forms() {
        let (b, back) = rt(b"pmix[abc]");
        assert_eq!(b, b"pmix[abc]\0");
        assert_eq!(back, b"pmix[abc]\0");
        let (b, back) = rt(b"raw:abc\0");
        assert_eq!(b, b"raw:abc\0");
        assert_eq!(back, b"raw:abc\0");
    }

    #[test]
    fn fallback_is_a_counted_string() {
        let (b, back) = rt(b"node[1-3]");
        assert_eq!(b, b"\x02\x14node[1-3]\0");
        assert_eq!(back, b"node[1-3]\0");
        let (b, back) = rt(b"");
        assert_eq!(b, b"\x02\x00");
        assert!(back.is_empty());
    }

    #[test]
    fn blob_uses_the_reference_length() {
        let mut blob = b"blob:\0component=zlib:\0size=3:\0".to_vec();
        blob.extend_from_slice(&[1, 2, 3]);
        // 27 + strlen("size=3:") + 1 = 35 bytes, of the 33 present.
        let (b, back) = rt(&blob);
        assert_eq!(b.len(), 35);
        assert_eq!(back.len(), 35);
        assert_eq!(&b[..33], &blob[..]);
    }
}
