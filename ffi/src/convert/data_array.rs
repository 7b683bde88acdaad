//! `pmix_data_array_t`: an array of items of one type, read, written
//! and destructed deeply.
//!
//! Invariants: the array's items are in the item form of its type; a
//! data array of source-less hwloc objects is still released.

use std::ffi::c_char;

use pmix_core::value::DataArray;
use pmix_core::{DataType, Status};

use super::item::*;
use super::names::*;
use crate::sys::*;

// ---------------------------------------------------------------------------
// pmix_data_array_t

/// Reads a `pmix_data_array_t` (deep copy).
///
/// # Safety
/// `d` points to a valid data array: `array` is NULL or holds `size` valid
/// items of type `type`.
pub unsafe fn data_array_from_c(d: *const pmix_data_array_t) -> Res<DataArray> {
    // SAFETY: d is valid (caller's contract).
    let d = unsafe { &*d };
    let elem_type = DataType::try_from(d.type_)?;
    if d.size == 0 || d.array.is_null() {
        return Ok(DataArray {
            elem_type,
            items: Vec::new(),
        });
    }
    Ok(DataArray {
        elem_type,
        // SAFETY: forwarded contract.
        items: unsafe { read_items(elem_type, d.array, d.size) }?,
    })
}

/// Writes a data array into the `pmix_data_array_t` at `out` (overwritten,
/// not released); the element array is calloc'd.
///
/// # Safety
/// `out` points to a writable `pmix_data_array_t`.
pub unsafe fn data_array_write(d: &DataArray, out: *mut pmix_data_array_t) -> Res<()> {
    if d.items.iter().any(|v| v.data_type() != d.elem_type) {
        return Err(Status::ERR_TYPE_MISMATCH);
    }
    let array = write_items(d.elem_type, &d.items)?;
    // SAFETY: out is writable (caller's contract).
    unsafe {
        *out = pmix_data_array_t {
            type_: d.elem_type.raw(),
            size: d.items.len(),
            array,
        };
    }
    Ok(())
}

/// A malloc'd `pmix_data_array_t` (release with `PMIX_DATA_ARRAY_FREE`).
pub fn data_array_to_c_new(d: &DataArray) -> Res<*mut pmix_data_array_t> {
    let p = alloc_one::<pmix_data_array_t>()?;
    // SAFETY: p is a fresh writable data array.
    if let Err(e) = unsafe { data_array_write(d, p) } {
        // SAFETY: p is malloc'd and holds nothing.
        unsafe { libc::free(p.cast()) };
        return Err(e);
    }
    Ok(p)
}

/// `PMIx_Data_array_destruct`: releases the elements and the element array
/// and resets the array to `PMIX_UNDEF`, size 0. Unknown element types only
/// have their array freed.
///
/// # Safety
/// `d` points to a valid data array whose element array and payloads are
/// NULL or malloc'd.
pub unsafe fn data_array_destruct(d: *mut pmix_data_array_t) {
    // SAFETY: d is valid (caller's contract).
    let d = unsafe { &mut *d };
    let t = DataType::from_raw(d.type_);
    // SAFETY: read only for arrays of cpusets and topologies, which start
    // with their `char *source`, holding size > 0 of them.
    let sourceless = matches!(t, Some(DataType::ProcCpuset | DataType::Topo))
        && d.size > 0
        && !d.array.is_null()
        && unsafe { *d.array.cast::<*const c_char>() }.is_null();
    match t {
        Some(t @ (DataType::ProcCpuset | DataType::Topo)) if sourceless => {
            // Constructed elements (PMIx_Data_array_create's): the element
            // array is the data array's own, released as OpenPMIx 5 does.
            // SAFETY: forwarded contract; the array is malloc'd.
            unsafe {
                destruct_items(t, d.array, d.size);
                libc::free(d.array);
            }
        }
        // SAFETY: forwarded contract.
        Some(t) => unsafe { free_items(t, d.array, d.size) },
        None => {
            if !d.array.is_null() {
                // SAFETY: malloc'd element array.
                unsafe { libc::free(d.array) };
            }
        }
    }
    *d = pmix_data_array_t::default();
}
