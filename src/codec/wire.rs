//! Primitive items of the wire format shared by all structured types:
//! integers, counts, type tags, strings, byte objects and floats.
//!
//! Integers are encoded as [`super::ints::current`] says; with the default
//! [`Ints::Varint`]:
//!
//! * A count or length of type `int32` is a zigzag varint.
//! * A type tag (`pmix_data_type_t`) is an unsigned varint.
//! * `PMIX_INT` and `PMIX_UINT` travel as an `int32`, `size_t` as a `uint64`.
//!
//! With [`Ints::Fixed`] (bfrops v3) every integer is its C width in network
//! order (a type tag is a `uint16`), and `size_t`, `int` and `unsigned int`
//! are preceded by a type tag naming the type they travel as (`PMIX_UINT64`,
//! `PMIX_INT32`); a reader converts whatever integer type the tag names, as
//! C would cast it.
//!
//! * A string is its length *including* the NUL as an `int32`, then that
//!   many bytes (NUL included); a NULL string is the length 0 alone.
//! * A byte object is its size as a `size_t` (unsigned varint), then the
//!   bytes.
//! * A float or double is the string `printf("%f")` makes of it.

use std::ffi::{CStr, CString};

use super::ints::{current, Ints};
use super::{float, varint, CodecError, Reader};
use crate::{DataType, Key, Nspace};

fn fixed() -> bool {
    current() == Ints::Fixed
}

/// Defines the writer and the reader of one fixed-size integer type: its
/// C width big-endian under [`Ints::Fixed`], else the varint (unsigned
/// types as `u64`, signed ones zigzagged as `i64`).
macro_rules! integer {
    ($t:ty, $put:ident, $get:ident, $wide:ty, $vput:ident, $vget:ident, $what:literal) => {
        #[doc = concat!("Appends ", $what, ".")]
        pub fn $put(out: &mut Vec<u8>, v: $t) {
            if fixed() {
                out.extend_from_slice(&v.to_be_bytes());
            } else {
                varint::$vput(out, <$wide>::from(v));
            }
        }

        #[doc = concat!("Reads ", $what, ".")]
        pub fn $get(r: &mut Reader<'_>) -> Result<$t, CodecError> {
            if fixed() {
                Ok(<$t>::from_be_bytes(take_fixed(r)?))
            } else {
                varint::$vget(r)
            }
        }
    };
}

// Type tags and the 16-bit enums are `uint16`s; ranks and info
// directives `uint32`s; `time_t` and the 64-bit enums `uint64`s; counts,
// lengths and statuses `int32`s.
integer!(u16, put_u16, get_u16, u64, put_u64, get_u16, "a `uint16`");
integer!(u32, put_u32, get_u32, u64, put_u64, get_u32, "a `uint32`");
integer!(u64, put_u64, get_u64, u64, put_u64, get_u64, "a `uint64`");
integer!(i16, put_i16, get_i16, i64, put_i64, get_i16, "an `int16`");
integer!(i32, put_i32, get_i32, i64, put_i64, get_i32, "an `int32`");
integer!(i64, put_i64, get_i64, i64, put_i64, get_i64, "an `int64`");

/// Reads `N` bytes of a fixed-width integer.
fn take_fixed<const N: usize>(r: &mut Reader<'_>) -> Result<[u8; N], CodecError> {
    let b = r.take(N)?;
    b.try_into().map_err(|_| CodecError::ReadPastEnd)
}

/// Appends a `PMIX_INT` or (as the signed int of the same bits) a
/// `PMIX_UINT`.
pub fn put_int(out: &mut Vec<u8>, v: i32) {
    if fixed() {
        put_type(out, DataType::Int32.raw());
    }
    put_i32(out, v);
}

/// Appends a `size_t`.
pub fn put_size(out: &mut Vec<u8>, v: usize) {
    if fixed() {
        put_type(out, DataType::Uint64.raw());
    }
    put_u64(out, v as u64);
}

/// Appends a count of items as the `int32` the wire format uses.
pub fn put_count(out: &mut Vec<u8>, n: usize) -> Result<(), CodecError> {
    let n = i32::try_from(n).map_err(|_| CodecError::BadParam("count exceeds INT32_MAX"))?;
    put_i32(out, n);
    Ok(())
}

/// Appends a data type tag.
pub fn put_type(out: &mut Vec<u8>, t: u16) {
    put_u16(out, t);
}

/// Appends a nullable C string.
pub fn put_str(out: &mut Vec<u8>, s: Option<&CStr>) -> Result<(), CodecError> {
    match s {
        None => put_i32(out, 0),
        Some(s) => {
            let bytes = s.to_bytes_with_nul();
            let len = i32::try_from(bytes.len())
                .map_err(|_| CodecError::BadParam("string longer than INT32_MAX"))?;
            put_i32(out, len);
            out.extend_from_slice(bytes);
        }
    }
    Ok(())
}

/// Appends a non-NULL C string.
pub fn put_cstr(out: &mut Vec<u8>, s: &CStr) -> Result<(), CodecError> {
    put_str(out, Some(s))
}

/// Appends a byte object (size, then bytes).
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_size(out, b.len());
    out.extend_from_slice(b);
}

/// Appends a float or double as its `%f` text.
pub fn put_float(out: &mut Vec<u8>, v: f64) -> Result<(), CodecError> {
    let text = float::format_f(v);
    let c = CString::new(text).map_err(|_| CodecError::BadParam("float text"))?;
    put_cstr(out, &c)
}

/// Reads one integer of the type the tag `tag` names, widened as C casts
/// it (sign-extended for the signed types); any other tag is
/// [`CodecError::UnexpectedTag`].
pub fn get_tagged(r: &mut Reader<'_>, tag: u16) -> Result<i64, CodecError> {
    let ty = DataType::from_raw(tag).ok_or(CodecError::UnexpectedTag(tag))?;
    Ok(match ty {
        DataType::Uint8 => i64::from(r.byte()?),
        DataType::Int8 => i64::from(r.byte()? as i8),
        DataType::Uint16 => i64::from(get_u16(r)?),
        DataType::Int16 => i64::from(get_i16(r)?),
        DataType::Uint32 => i64::from(get_u32(r)?),
        DataType::Int32 => i64::from(get_i32(r)?),
        DataType::Uint64 => get_u64(r)? as i64,
        DataType::Int64 => get_i64(r)?,
        _ => return Err(CodecError::UnexpectedTag(tag)),
    })
}

/// Reads a "system type" (`size_t`, `int`): behind its type tag under
/// [`Ints::Fixed`], else as `plain` reads it.
fn get_system(
    r: &mut Reader<'_>,
    plain: fn(&mut Reader<'_>) -> Result<i64, CodecError>,
) -> Result<i64, CodecError> {
    if fixed() {
        let tag = get_type(r)?;
        get_tagged(r, tag)
    } else {
        plain(r)
    }
}

/// Reads a `PMIX_INT` (a `PMIX_UINT` is its bits).
pub fn get_int(r: &mut Reader<'_>) -> Result<i32, CodecError> {
    Ok(get_system(r, |r| get_i32(r).map(i64::from))? as i32)
}

/// Reads a `size_t`.
pub fn get_size(r: &mut Reader<'_>) -> Result<u64, CodecError> {
    Ok(get_system(r, |r| get_u64(r).map(|v| v as i64))? as u64)
}

/// Reads a data type tag.
pub fn get_type(r: &mut Reader<'_>) -> Result<u16, CodecError> {
    get_u16(r)
}

/// Reads a non-negative `int32` count that cannot exceed the bytes left
/// (every item takes at least one byte).
pub fn get_count(r: &mut Reader<'_>) -> Result<usize, CodecError> {
    let n = get_i32(r)?;
    bounded_count(r, n)
}

/// [`get_count`] for a count that travels as a `PMIX_INT` (an
/// application's argc).
pub fn get_int_count(r: &mut Reader<'_>) -> Result<usize, CodecError> {
    let n = get_int(r)?;
    bounded_count(r, n)
}

fn bounded_count(r: &Reader<'_>, n: i32) -> Result<usize, CodecError> {
    let n = usize::try_from(n).map_err(|_| CodecError::BadLength(n.into()))?;
    if n > r.remaining() {
        return Err(CodecError::BadLength(n as i128));
    }
    Ok(n)
}

/// Reads a `size_t` count of items that each take at least one byte.
pub fn get_size_count(r: &mut Reader<'_>) -> Result<usize, CodecError> {
    let n = get_size(r)?;
    if n > r.remaining() as u64 {
        return Err(CodecError::BadLength(n.into()));
    }
    Ok(n as usize)
}

/// Reads a nullable C string. The string ends at its first NUL, as C would
/// see it; a string whose bytes hold no NUL is an error.
pub fn get_str(r: &mut Reader<'_>) -> Result<Option<CString>, CodecError> {
    let len = get_i32(r)?;
    if len == 0 {
        return Ok(None);
    }
    let len = usize::try_from(len).map_err(|_| CodecError::BadLength(len.into()))?;
    let bytes = r.take(len)?;
    let s = CStr::from_bytes_until_nul(bytes).map_err(|_| CodecError::Unterminated)?;
    Ok(Some(s.to_owned()))
}

/// Reads a C string that must not be NULL.
pub fn get_cstr(r: &mut Reader<'_>) -> Result<CString, CodecError> {
    get_str(r)?.ok_or(CodecError::NullString)
}

/// Reads a key, truncated to `PMIX_MAX_KEYLEN` as `pmix_strncpy` does; a
/// NULL key is an error.
pub fn get_key(r: &mut Reader<'_>) -> Result<Key, CodecError> {
    Ok(Key::truncated(&get_cstr(r)?))
}

/// Reads a namespace, truncated to `PMIX_MAX_NSLEN`; NULL is an error.
pub fn get_nspace(r: &mut Reader<'_>) -> Result<Nspace, CodecError> {
    Ok(Nspace::truncated(&get_cstr(r)?))
}

/// Reads a byte object.
pub fn get_bytes(r: &mut Reader<'_>) -> Result<Vec<u8>, CodecError> {
    let n = get_size(r)?;
    let n = usize::try_from(n).map_err(|_| CodecError::BadLength(n.into()))?;
    Ok(r.take(n)?.to_vec())
}

/// Reads a `float` (its text parsed with `strtof` rules; NULL text is 0).
pub fn get_f32(r: &mut Reader<'_>) -> Result<f32, CodecError> {
    Ok(get_str(r)?.map_or(0.0, |s| float::parse_f32(s.to_bytes())))
}

/// Reads a `double`.
pub fn get_f64(r: &mut Reader<'_>) -> Result<f64, CodecError> {
    Ok(get_str(r)?.map_or(0.0, |s| float::parse_f64(s.to_bytes())))
}

/// Reads `n` strings into an argv-style list. A NULL entry ends the list as
/// C sees it (later entries are read and dropped).
pub fn get_argv(r: &mut Reader<'_>, n: usize) -> Result<Vec<CString>, CodecError> {
    let mut v = Vec::with_capacity(n.min(r.remaining()));
    let mut ended = false;
    for _ in 0..n {
        match get_str(r)? {
            Some(s) if !ended => v.push(s),
            Some(_) => {}
            None => ended = true,
        }
    }
    Ok(v)
}
