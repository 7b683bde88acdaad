//! Data buffers: `PMIx_Data_pack`, `_unpack`, `_copy`, `_print`,
//! `_copy_payload`, `_load`, `_unload`, `_embed`, `_compress`,
//! `_decompress`.
//!
//! A `pmix_data_buffer_t`'s state lives in the C struct, exactly as the
//! header macros (`PMIX_DATA_BUFFER_CREATE`, `_CONSTRUCT`, `_DESTRUCT`,
//! `_RELEASE`, `_LOAD`, `_UNLOAD`) expect it: `base_ptr` is `malloc`ed (or
//! NULL), `bytes_used` bytes of it are packed, `pack_ptr` is
//! `base_ptr + bytes_used`, `unpack_ptr` points at the next byte to unpack,
//! and `bytes_allocated` is the size of the allocation (grown the way
//! OpenPMIx grows it: 128 bytes, doubled up to 1 KiB, then in 1 KiB steps).
//!
//! Items are converted with [`crate::convert`] and packed by the core codec
//! ([`pmix_core::codec`]), which writes the bytes OpenPMIx 4.2 writes.
//!
//! Differences from OpenPMIx 4.2.2, all where the reference crashes,
//! corrupts memory or reports an error for valid input:
//! * no initialization is needed, and the `target`/`source` process is not
//!   consulted (every peer we talk to uses this one format);
//! * NULL buffers and negative counts are `PMIX_ERR_BAD_PARAM`;
//! * a cpuset with a bitmap packs as its hwloc list string (the reference
//!   always fails with `PMIX_ERROR`), node stats pack their disk and
//!   network entries (the reference packs garbage), a regex of no known
//!   form packs as a counted string (the reference crashes);
//! * `PMIX_DATA_TYPE` and proc stats unpack as they were packed (the
//!   reference misreads both);
//! * `PMIx_Data_copy` copies `PMIX_DOUBLE`, `PMIX_DATA_TYPE` and arrays of
//!   data arrays (the reference refuses them) and an app's info flags;
//! * `PMIX_KVAL` (an internal OpenPMIx struct with no public layout) is
//!   `PMIX_ERR_NOT_SUPPORTED`;
//! * compress/decompress return `false` for NULL pointers (the reference
//!   returns `true` for a NULL input).
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that
//! reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_void, CStr};
use std::ptr::{self, null_mut};

use pmix_core::codec::{self, pack, unpack, wire, CodecError, Reader};
use pmix_core::{DataType, Status, Value};

use crate::boundary::{guard, guard_or, malloc_bytes, malloc_cstr, opt_cstr};
use crate::convert;
use crate::nonnull;
use crate::sys::{pmix_byte_object_t, pmix_data_buffer_t, pmix_data_type_t, pmix_proc_t};

/// First allocation of a buffer (`bfrops_base_initial_size`).
const INITIAL_SIZE: usize = 128;
/// Above this size buffers grow in steps of it (`bfrops_base_threshold_size`).
const THRESHOLD_SIZE: usize = 1024;

/// The allocation OpenPMIx chooses for a buffer that must hold `required`
/// bytes and currently has `allocated`.
fn grown_size(allocated: usize, required: usize) -> usize {
    if required >= THRESHOLD_SIZE {
        required
            .div_ceil(THRESHOLD_SIZE)
            .saturating_mul(THRESHOLD_SIZE)
    } else {
        let mut n = if allocated == 0 {
            INITIAL_SIZE
        } else {
            allocated
        };
        while n < required {
            n <<= 1;
        }
        n
    }
}

/// Offset of `p` in the buffer, if it points inside `[base, base + len]`.
fn offset_in(base: *const c_char, p: *const c_char, len: usize) -> Option<usize> {
    let off = (p as usize).checked_sub(base as usize)?;
    (off <= len).then_some(off)
}

/// Appends `bytes` to a C data buffer, growing its allocation like OpenPMIx
/// (new space zeroed) and keeping `pack_ptr`, `unpack_ptr`, `bytes_used`
/// and `bytes_allocated` consistent.
///
/// # Safety
/// `b` is a valid buffer whose `base_ptr` is NULL or a `malloc`ed block of
/// `bytes_allocated` bytes.
unsafe fn buffer_append(b: &mut pmix_data_buffer_t, bytes: &[u8]) -> Result<(), Status> {
    if bytes.is_empty() {
        return Ok(());
    }
    if b.base_ptr.is_null() {
        b.bytes_used = 0;
        b.bytes_allocated = 0;
    }
    let used = b.bytes_used.min(b.bytes_allocated);
    let unpack_off = offset_in(b.base_ptr, b.unpack_ptr, used).unwrap_or(0);
    let required = used
        .checked_add(bytes.len())
        .ok_or(Status::ERR_OUT_OF_RESOURCE)?;
    if required > b.bytes_allocated {
        let size = grown_size(b.bytes_allocated, required);
        // SAFETY: base_ptr is NULL or malloc'd (caller's contract); realloc
        // of NULL is malloc. The result is checked for NULL.
        let p = unsafe { libc::realloc(b.base_ptr.cast(), size) }.cast::<c_char>();
        if p.is_null() {
            return Err(Status::ERR_OUT_OF_RESOURCE);
        }
        // SAFETY: [used, size) lies inside the new block of `size` bytes.
        unsafe { ptr::write_bytes(p.add(used), 0, size - used) };
        b.base_ptr = p;
        b.bytes_allocated = size;
    }
    // SAFETY: the block holds bytes_allocated >= used + bytes.len() bytes,
    // and `bytes` is Rust memory, disjoint from it.
    unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), b.base_ptr.add(used).cast(), bytes.len()) };
    b.bytes_used = required;
    // SAFETY: both offsets lie inside the block.
    unsafe {
        b.pack_ptr = b.base_ptr.add(required);
        b.unpack_ptr = b.base_ptr.add(unpack_off);
    }
    Ok(())
}

/// The bytes of a C buffer not yet unpacked (empty if the buffer is empty
/// or its pointers are inconsistent).
///
/// # Safety
/// `b` is a valid buffer: `base_ptr` is NULL or holds `bytes_used`
/// readable bytes. The slice lives as long as the buffer is not modified.
unsafe fn buffer_unread<'a>(b: &pmix_data_buffer_t) -> &'a [u8] {
    if b.base_ptr.is_null() || b.unpack_ptr.is_null() || b.bytes_used == 0 {
        return &[];
    }
    match offset_in(b.base_ptr, b.unpack_ptr, b.bytes_used) {
        // SAFETY: [base + off, base + bytes_used) is inside the buffer.
        Some(off) => unsafe {
            std::slice::from_raw_parts(b.base_ptr.add(off).cast::<u8>(), b.bytes_used - off)
        },
        None => &[],
    }
}

/// `PMIX_DATA_BUFFER_DESTRUCT` followed by `PMIX_DATA_BUFFER_CONSTRUCT`.
///
/// # Safety
/// `b` is a valid buffer whose `base_ptr` is NULL or `malloc`ed.
unsafe fn buffer_reset(b: &mut pmix_data_buffer_t) {
    if !b.base_ptr.is_null() {
        // SAFETY: base_ptr is malloc'd (caller's contract) and freed once.
        unsafe { libc::free(b.base_ptr.cast()) };
    }
    *b = pmix_data_buffer_t {
        base_ptr: null_mut(),
        pack_ptr: null_mut(),
        unpack_ptr: null_mut(),
        bytes_allocated: 0,
        bytes_used: 0,
    };
}

/// Reads the `n` C items of type `t` at `src` for packing. `PMIX_STRING`
/// and `PMIX_REGEX` items are `char *`, as everywhere else.
///
/// # Safety
/// `src` points to `n` valid items of type `t` (or `n == 0`).
unsafe fn items_for_pack(t: DataType, src: *const c_void, n: usize) -> Result<Vec<Value>, Status> {
    match t {
        // A pointer is never dereferenced: only its count matters.
        DataType::Pointer => Ok(vec![Value::Pointer(0); n]),
        // SAFETY: forwarded contract.
        _ => unsafe { convert::read_items(t, src, n) },
    }
}

/// `PMIx_Data_pack`: appends `num_vals` items of `type_` at `src`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_pack(
    _target: *const pmix_proc_t,
    buffer: *mut pmix_data_buffer_t,
    src: *mut c_void,
    num_vals: i32,
    type_: pmix_data_type_t,
) -> i32 {
    guard(|| {
        nonnull!(buffer);
        let n = usize::try_from(num_vals).map_err(|_| Status::ERR_BAD_PARAM)?;
        if src.is_null() && n > 0 {
            return Err(Status::ERR_BAD_PARAM);
        }
        // SAFETY: buffer is non-NULL and a valid data buffer (C contract).
        let b = unsafe { &mut *buffer };
        let mut out = Vec::new();
        wire::put_count(&mut out, n).map_err(|e| e.status())?;
        let result = match DataType::from_raw(type_) {
            None | Some(DataType::Undef) => Err(Status::ERR_UNKNOWN_DATA_TYPE),
            // SAFETY: src points to n items of this type (C contract).
            Some(t) => unsafe { items_for_pack(t, src, n) }
                .and_then(|items| pack::pack_items(&mut out, t, &items).map_err(|e| e.status())),
        };
        // As the reference, leave behind what was packed before a failure.
        // SAFETY: b is valid; its base is NULL or malloc'd.
        unsafe { buffer_append(b, &out) }?;
        result
    })
}

/// `PMIx_Data_unpack`: reads up to `*max_num_values` items of `type_` into
/// `dest` and sets `*max_num_values` to the number read.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_unpack(
    _source: *const pmix_proc_t,
    buffer: *mut pmix_data_buffer_t,
    dest: *mut c_void,
    max_num_values: *mut i32,
    type_: pmix_data_type_t,
) -> i32 {
    guard(|| {
        nonnull!(buffer, dest, max_num_values);
        // SAFETY: non-NULL pointers from the C caller.
        let (b, max) = unsafe { (&mut *buffer, &mut *max_num_values) };
        if *max == 0 {
            return Err(Status::ERR_UNPACK_INADEQUATE_SPACE);
        }
        // SAFETY: b is a valid buffer; the slice is dropped before b changes.
        let bytes = unsafe { buffer_unread(b) };
        let mut r = Reader::new(bytes);
        let result = unpack_into(&mut r, type_, dest, *max);
        let consumed = r.pos();
        if consumed > 0 {
            // SAFETY: consumed <= the unread bytes, so the pointer stays
            // inside the buffer.
            b.unpack_ptr = unsafe { b.unpack_ptr.add(consumed) };
        }
        match result {
            Ok((got, partial)) => {
                if partial {
                    return Err(Status::ERR_UNPACK_INADEQUATE_SPACE);
                }
                *max = got;
                Ok(())
            }
            Err(s) => {
                *max = 0;
                Err(s)
            }
        }
    })
}

/// Unpacks one counted pack call into the C array `dest` of `room` items;
/// returns the number written and whether the buffer held more.
fn unpack_into(
    r: &mut Reader<'_>,
    type_: pmix_data_type_t,
    dest: *mut c_void,
    room: i32,
) -> Result<(i32, bool), Status> {
    let Some(t) = DataType::from_raw(type_).filter(|&t| t != DataType::Undef) else {
        // The reference reads the count before it looks the type up.
        wire::get_i32(r).map_err(|e| e.status())?;
        return Err(Status::ERR_UNKNOWN_DATA_TYPE);
    };
    let Ok(room) = usize::try_from(room) else {
        wire::get_i32(r).map_err(|e| e.status())?;
        return Err(Status::ERR_UNPACK_INADEQUATE_SPACE);
    };
    let size = convert::item_size(t).ok_or(Status::ERR_NOT_SUPPORTED)?;
    let u = unpack::unpack_counted(r, t, room).map_err(|e: CodecError| e.status())?;
    for (i, v) in u.values.iter().enumerate() {
        if t == DataType::Pointer {
            // The reference leaves the caller's pointers untouched.
            continue;
        }
        // SAFETY: dest holds `room` items of `size` bytes (C contract) and
        // i < values.len() <= room.
        let slot = unsafe { dest.cast::<u8>().add(i * size) }.cast::<c_void>();
        // SAFETY: slot is a writable item of type t owned by the caller.
        unsafe { convert::write_item(t, v, slot) }?;
    }
    let got = i32::try_from(u.values.len()).map_err(|_| Status::ERR_UNPACK_FAILURE)?;
    Ok((got, u.is_partial()))
}

/// Reads the item `src` points to, with the reference's conventions for
/// `PMIx_Data_copy` and `PMIx_Data_print`: for `PMIX_STRING` and
/// `PMIX_REGEX`, `src` is the `char *` itself.
///
/// # Safety
/// `src` is valid for type `t` under those conventions.
unsafe fn read_src(t: DataType, src: *const c_void) -> Result<Value, Status> {
    match t {
        DataType::String => {
            // SAFETY: src is a C string (convention above).
            let s = unsafe { opt_cstr(src.cast()) };
            Ok(Value::String(s.map(CStr::to_owned)))
        }
        DataType::Regex => {
            // SAFETY: as above.
            let s = unsafe { opt_cstr(src.cast()) };
            Ok(Value::Regex(
                s.map(|s| s.to_bytes_with_nul().to_vec())
                    .unwrap_or_default(),
            ))
        }
        // SAFETY: src points to one valid item of type t.
        _ => unsafe { convert::read_item(t, src) },
    }
}

/// `PMIx_Data_copy`: `*dest` receives a `malloc`ed deep copy of the item at
/// `src` (for `PMIX_STRING`/`PMIX_REGEX`, of the string `src`).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_copy(
    dest: *mut *mut c_void,
    src: *mut c_void,
    type_: pmix_data_type_t,
) -> i32 {
    guard(|| {
        nonnull!(dest, src);
        let t = DataType::from_raw(type_)
            .filter(|&t| t != DataType::Undef)
            .ok_or(Status::ERR_UNKNOWN_DATA_TYPE)?;
        // SAFETY: src is valid for t (C contract).
        let v = unsafe { read_src(t, src) }?;
        if let Value::Cpuset(c) = &v {
            // As the reference: an unbound cpuset has nothing to copy.
            if c.bitmap.is_none() {
                return Err(Status::ERR_BAD_PARAM);
            }
        }
        let out: *mut c_void = match (t, &v) {
            (DataType::String, Value::String(s)) => match s {
                Some(s) => malloc_cstr(s)?.cast(),
                None => null_mut(),
            },
            (DataType::Regex, Value::Regex(r)) => {
                let c = CStr::from_bytes_until_nul(r).map_err(|_| Status::ERR_BAD_PARAM)?;
                malloc_cstr(c)?.cast()
            }
            _ => {
                let size = convert::item_size(t).ok_or(Status::ERR_NOT_SUPPORTED)?;
                let p = malloc_bytes(size)?.cast::<c_void>();
                // SAFETY: p holds `size` writable bytes, holding nothing.
                if let Err(e) = unsafe { convert::write_item(t, &v, p) } {
                    // SAFETY: p was malloc'd above and is freed once.
                    unsafe { libc::free(p) };
                    return Err(e);
                }
                p
            }
        };
        // SAFETY: dest is non-NULL and writable (C contract).
        unsafe { *dest = out };
        Ok(())
    })
}

/// `PMIx_Data_print`: `*output` receives a `malloc`ed description of the
/// item at `src` (for `PMIX_STRING`/`PMIX_REGEX`, of the string `src`),
/// each line starting with `prefix` (a space if NULL).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_print(
    output: *mut *mut c_char,
    prefix: *mut c_char,
    src: *mut c_void,
    type_: pmix_data_type_t,
) -> i32 {
    guard(|| {
        nonnull!(output, src);
        let t = DataType::from_raw(type_).ok_or(Status::ERR_UNKNOWN_DATA_TYPE)?;
        // SAFETY: prefix is NULL or a C string (C contract).
        let prefix = unsafe { opt_cstr(prefix) }.map(CStr::to_bytes);
        // SAFETY: src is valid for t (C contract).
        let v = unsafe { read_src(t, src) }?;
        let printed = pmix_core::print::print_full(prefix, t, &v);
        if let Some(mut text) = printed.text {
            text.retain(|&b| b != 0);
            let c = std::ffi::CString::new(text).map_err(|_| Status::ERROR)?;
            let p = malloc_cstr(&c)?;
            // SAFETY: output is non-NULL and writable (C contract).
            unsafe { *output = p };
        }
        printed.status.into_result()
    })
}

/// `PMIx_Data_copy_payload`: appends the unread bytes of `src` to `dest`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_copy_payload(
    dest: *mut pmix_data_buffer_t,
    src: *mut pmix_data_buffer_t,
) -> i32 {
    guard(|| {
        nonnull!(dest, src);
        // SAFETY: non-NULL buffers from the C caller.
        let bytes = unsafe { buffer_unread(&*src) }.to_vec();
        // SAFETY: dest is a valid buffer.
        unsafe { buffer_append(&mut *dest, &bytes) }
    })
}

/// `PMIx_Data_unload`: moves the unread bytes into `payload` (a `malloc`ed
/// block the caller frees) and empties the buffer.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_unload(
    buffer: *mut pmix_data_buffer_t,
    payload: *mut pmix_byte_object_t,
) -> i32 {
    guard(|| {
        nonnull!(buffer, payload);
        // SAFETY: non-NULL pointers from the C caller.
        let (b, out) = unsafe { (&mut *buffer, &mut *payload) };
        out.bytes = null_mut();
        out.size = 0;
        if b.base_ptr.is_null() || b.bytes_used == 0 {
            return Ok(());
        }
        if b.unpack_ptr == b.base_ptr {
            // Nothing unpacked yet: hand over the block itself.
            out.bytes = b.base_ptr;
            out.size = b.bytes_used;
            b.base_ptr = null_mut();
        } else {
            // SAFETY: b is a valid buffer.
            let rest = unsafe { buffer_unread(b) };
            if !rest.is_empty() {
                let p = malloc_bytes(rest.len())?;
                // SAFETY: p holds rest.len() fresh bytes, disjoint from rest.
                unsafe { ptr::copy_nonoverlapping(rest.as_ptr(), p, rest.len()) };
                out.bytes = p.cast();
                out.size = rest.len();
            }
        }
        // SAFETY: base_ptr is NULL or malloc'd.
        unsafe { buffer_reset(b) };
        Ok(())
    })
}

/// `buffer`, checked and emptied (its previous payload freed), to
/// receive a new payload.
///
/// # Safety
/// `buffer` is NULL or a valid buffer whose `base_ptr` is NULL or
/// `malloc`ed.
unsafe fn emptied<'a>(
    buffer: *mut pmix_data_buffer_t,
) -> Result<&'a mut pmix_data_buffer_t, Status> {
    nonnull!(buffer);
    // SAFETY: non-NULL, valid (the caller's contract).
    let b = unsafe { &mut *buffer };
    // SAFETY: base_ptr is NULL or malloc'd (the caller's contract).
    unsafe { buffer_reset(b) };
    Ok(b)
}

/// `PMIx_Data_load`: the buffer takes over `payload`'s (`malloc`ed) bytes;
/// `payload` is left empty. A previous payload of the buffer is freed.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_load(
    buffer: *mut pmix_data_buffer_t,
    payload: *mut pmix_byte_object_t,
) -> i32 {
    guard(|| {
        // SAFETY: buffer is NULL or valid (C contract).
        let b = unsafe { emptied(buffer) }?;
        if payload.is_null() {
            return Ok(());
        }
        // SAFETY: non-NULL payload from the C caller.
        let p = unsafe { &mut *payload };
        b.base_ptr = p.bytes;
        // SAFETY: the payload's block holds p.size bytes.
        b.pack_ptr = unsafe { p.bytes.add(p.size) };
        b.unpack_ptr = p.bytes;
        b.bytes_allocated = p.size;
        b.bytes_used = p.size;
        p.bytes = null_mut();
        p.size = 0;
        Ok(())
    })
}

/// `PMIx_Data_embed`: the buffer receives a copy of `payload`'s bytes
/// (`payload` is untouched). A previous payload of the buffer is freed.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_embed(
    buffer: *mut pmix_data_buffer_t,
    payload: *const pmix_byte_object_t,
) -> i32 {
    guard(|| {
        // SAFETY: buffer is NULL or valid (C contract).
        let b = unsafe { emptied(buffer) }?;
        if payload.is_null() {
            return Ok(());
        }
        // SAFETY: non-NULL payload from the C caller.
        let p = unsafe { &*payload };
        if p.bytes.is_null() || p.size == 0 {
            return Ok(());
        }
        // SAFETY: the payload holds p.size readable bytes.
        let bytes = unsafe { std::slice::from_raw_parts(p.bytes.cast::<u8>(), p.size) };
        // SAFETY: b was just reset.
        unsafe { buffer_append(b, bytes) }
    })
}

/// `PMIx_Data_compress` and `_decompress`: `*outbytes`/`*nbytes` receive
/// a `malloc`ed copy of what `f` makes of the input, if it makes anything
/// (`false` and NULL/0 otherwise, or for a NULL pointer).
///
/// # Safety
/// `inbytes` is NULL or holds `size` readable bytes; `outbytes` and
/// `nbytes` are NULL or writable.
unsafe fn transform(
    inbytes: *const u8,
    size: usize,
    outbytes: *mut *mut u8,
    nbytes: *mut usize,
    f: fn(&[u8]) -> Option<Vec<u8>>,
) -> bool {
    guard_or(false, || {
        if inbytes.is_null() || outbytes.is_null() || nbytes.is_null() {
            return false;
        }
        // SAFETY: outbytes and nbytes are writable (checked non-NULL).
        unsafe {
            *outbytes = null_mut();
            *nbytes = 0;
        }
        // SAFETY: inbytes holds size readable bytes (caller's contract).
        let data = unsafe { std::slice::from_raw_parts(inbytes, size) };
        let Some(out) = f(data) else {
            return false;
        };
        let Ok(p) = malloc_bytes(out.len()) else {
            return false;
        };
        // SAFETY: p holds out.len() fresh bytes; outbytes and nbytes are
        // writable.
        unsafe {
            ptr::copy_nonoverlapping(out.as_ptr(), p, out.len());
            *outbytes = p;
            *nbytes = out.len();
        }
        true
    })
}

/// `PMIx_Data_compress`: `false` ("not compressed") unless compressing
/// pays; with OpenPMIx 4.2.2's rules that is never (see
/// [`pmix_core::codec::compress`]).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_compress(
    inbytes: *const u8,
    size: usize,
    outbytes: *mut *mut u8,
    nbytes: *mut usize,
) -> bool {
    // SAFETY: the C contract of this function is transform's.
    unsafe { transform(inbytes, size, outbytes, nbytes, codec::compress) }
}

/// `PMIx_Data_decompress`: `*outbytes` receives the `malloc`ed
/// decompressed block of a buffer made by `PMIx_Data_compress` (4-byte
/// length, zlib stream).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_decompress(
    inbytes: *const u8,
    size: usize,
    outbytes: *mut *mut u8,
    nbytes: *mut usize,
) -> bool {
    // SAFETY: the C contract of this function is transform's.
    unsafe { transform(inbytes, size, outbytes, nbytes, codec::decompress) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_follows_openpmix() {
        assert_eq!(grown_size(0, 1), 128);
        assert_eq!(grown_size(0, 129), 256);
        assert_eq!(grown_size(128, 600), 1024);
        assert_eq!(grown_size(512, 1023), 1024);
        assert_eq!(grown_size(512, 1024), 1024);
        assert_eq!(grown_size(1024, 1025), 2048);
        assert_eq!(grown_size(0, 5000), 5120);
    }
}
