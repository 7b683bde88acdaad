//! The life cycle of OpenPMIx 5's structure types: `PMIx_<Type>_construct`,
//! `_create`, `_destruct` and `_free` for every type in [`families!`]'s
//! table, and the few whose shape differs (`PMIx_Coord_create`, the data
//! array's `_init`/`_construct`/`_create`/`_free`, the data buffer's
//! `_create`/`_release`, `PMIx_App_release`, `PMIx_Query_release`,
//! `PMIx_App_info_create`, `PMIx_Query_qualifiers_create`).
//!
//! Each type's rules live in one row of the table: what its construct
//! leaves (zeroed memory, plus a few fields for the types whose undefined
//! state is not zero) and what its destruct releases (the item rule of
//! [`crate::convert::destruct_item`], which `PMIx_Value_destruct`, the
//! data arrays and the codec share). From those two, every family has the
//! same shape, OpenPMIx 5.0.11's:
//! * `create(n)` is a malloc'd array of `n` constructed elements, NULL for
//!   `n == 0` (or if memory is short);
//! * `free(p, n)` destructs `n` elements and frees `p`; NULL is a no-op;
//! * `destruct` releases what the element owns and leaves no pointer to
//!   released memory (the reference leaves some dangling; NULL is safer
//!   and no correct caller can tell).
//!
//! Where the reference would crash (a NULL element for construct,
//! destruct, load or release helpers) these do nothing.
//!
//! Differences from our header's 4.2-level macros, where OpenPMIx 5's
//! functions differ from them: `PMIx_Proc_construct` and
//! `PMIx_Proc_destruct` set the rank to `PMIX_RANK_UNDEF`,
//! `PMIx_Proc_info_destruct` also resets the rest of the struct, and
//! `PMIx_Device_distance_construct` sets the type to
//! `PMIX_DEVTYPE_UNKNOWN` (the macros' zero as well).

use std::ptr::{self, null_mut};

use pmix_core::DataType;

use crate::boundary::{calloc_array, guard_or};
use crate::convert;
use crate::sys::*;

/// A C structure with the reference's construct and destruct rules.
pub(crate) trait Family: Sized {
    /// Leaves `*p` in the state the reference's `_construct` leaves it.
    ///
    /// # Safety
    /// `p` points to writable memory for one `Self` that owns nothing.
    unsafe fn construct(p: *mut Self);

    /// Releases what `*p` owns, as the reference's `_destruct` does.
    ///
    /// # Safety
    /// `p` points to a valid `Self` whose owned pointers are NULL or
    /// allocated as the PMIx API allocates them.
    unsafe fn destruct(p: *mut Self);
}

/// `n` constructed elements in one malloc'd array; NULL for `n == 0` or
/// when memory is short.
pub(crate) fn create<T: Family>(n: usize) -> *mut T {
    let Ok(p) = calloc_array::<T>(n) else {
        return null_mut();
    };
    for k in 0..n {
        // SAFETY: k < n, inside the fresh zeroed allocation.
        unsafe { T::construct(p.add(k)) };
    }
    p
}

/// Destructs `n` elements at `p` and frees the array; NULL is a no-op.
///
/// # Safety
/// `p` is NULL or a malloc'd array of at least `n` valid elements.
pub(crate) unsafe fn free<T: Family>(p: *mut T, n: usize) {
    if p.is_null() {
        return;
    }
    for k in 0..n {
        // SAFETY: k < n elements of the array (caller's contract).
        unsafe { T::destruct(p.add(k)) };
    }
    // SAFETY: p is malloc'd (caller's contract) and freed once.
    unsafe { libc::free(p.cast()) };
}

/// Zeroes one element.
///
/// # Safety
/// `p` points to writable memory for one `T`.
unsafe fn zero<T>(p: *mut T) {
    // SAFETY: forwarded contract; all-zero is a valid bit pattern for
    // every PMIx structure (NULL pointers, zero numbers).
    unsafe { ptr::write_bytes(p, 0, 1) };
}

/// The item rule of [`convert::destruct_item`] for one element.
///
/// # Safety
/// `p` points to a valid item of type `t`.
unsafe fn item<T>(t: DataType, p: *mut T) {
    // SAFETY: forwarded contract.
    unsafe { convert::destruct_item(t, p.cast()) };
}

/// One row per structure type: its construct rule (zeroed, then the given
/// field assignments), its destruct rule, and which of its four life-cycle
/// functions are exported here (`construct`, `create`, `destruct`, `free`;
/// the others are elsewhere or have another shape). Generates the
/// [`Family`] impls, the exported functions and [`FAMILY_EXPORTS`].
macro_rules! families {
    ($(
        $c:ident {
            construct: |$cp:ident| $construct:block,
            destruct: |$dp:ident| $destruct:block,
            exports: [$($kind:ident $name:ident),* $(,)?] $(,)?
        }
    )*) => {
        $(
            impl Family for $c {
                unsafe fn construct($cp: *mut Self) {
                    // SAFETY: $cp is writable for one element (trait
                    // contract).
                    unsafe {
                        zero($cp);
                        $construct
                    }
                }

                unsafe fn destruct($dp: *mut Self) {
                    // SAFETY: $dp is a valid element (trait contract).
                    unsafe { $destruct }
                }
            }

            $( families!(@export $kind $name $c); )*
        )*

        /// The functions the table exports.
        #[cfg(test)]
        pub(crate) const FAMILY_EXPORTS: &[&str] = &[$($(stringify!($name),)*)*];
    };

    (@export construct $name:ident $c:ident) => {
        #[doc = concat!("`void ", stringify!($name), "(", stringify!($c), " *p)`.")]
        ///
        /// # Safety
        /// `p` is NULL or writable for one element.
        #[no_mangle]
        pub unsafe extern "C" fn $name(p: *mut $c) {
            guard_or((), || {
                if !p.is_null() {
                    // SAFETY: p is writable (C contract).
                    unsafe { <$c as Family>::construct(p) }
                }
            })
        }
    };

    (@export create $name:ident $c:ident) => {
        #[doc = concat!("`", stringify!($c), "* ", stringify!($name), "(size_t n)`.")]
        #[no_mangle]
        pub extern "C" fn $name(n: usize) -> *mut $c {
            guard_or(null_mut(), || create::<$c>(n))
        }
    };

    (@export destruct $name:ident $c:ident) => {
        #[doc = concat!("`void ", stringify!($name), "(", stringify!($c), " *p)`.")]
        ///
        /// # Safety
        /// `p` is NULL or a valid element.
        #[no_mangle]
        pub unsafe extern "C" fn $name(p: *mut $c) {
            guard_or((), || {
                if !p.is_null() {
                    // SAFETY: p is a valid element (C contract).
                    unsafe { <$c as Family>::destruct(p) }
                }
            })
        }
    };

    (@export free $name:ident $c:ident) => {
        #[doc = concat!("`void ", stringify!($name), "(", stringify!($c), " *p, size_t n)`.")]
        ///
        /// # Safety
        /// `p` is NULL or a malloc'd array of at least `n` valid elements.
        #[no_mangle]
        pub unsafe extern "C" fn $name(p: *mut $c, n: usize) {
            // SAFETY: forwarded C contract.
            guard_or((), || unsafe { free::<$c>(p, n) })
        }
    };
}

families! {
    pmix_app_t {
        construct: |p| {},
        destruct: |p| { item(DataType::App, p) },
        exports: [construct PMIx_App_construct, create PMIx_App_create,
                  destruct PMIx_App_destruct, free PMIx_App_free],
    }
    pmix_byte_object_t {
        construct: |p| {},
        destruct: |p| { item(DataType::ByteObject, p) },
        exports: [construct PMIx_Byte_object_construct, create PMIx_Byte_object_create,
                  destruct PMIx_Byte_object_destruct, free PMIx_Byte_object_free],
    }
    pmix_coord_t {
        construct: |p| { (*p).view = PMIX_COORD_VIEW_UNDEF },
        destruct: |p| { item(DataType::Coord, p) },
        // PMIx_Coord_create takes the dimensions too: below.
        exports: [construct PMIx_Coord_construct, destruct PMIx_Coord_destruct,
                  free PMIx_Coord_free],
    }
    pmix_cpuset_t {
        construct: |p| {},
        destruct: |p| { item(DataType::ProcCpuset, p) },
        // PMIx_Cpuset_destruct: in data_array.rs.
        exports: [construct PMIx_Cpuset_construct, create PMIx_Cpuset_create,
                  free PMIx_Cpuset_free],
    }
    pmix_data_buffer_t {
        construct: |p| {},
        destruct: |p| { item(DataType::DataBuffer, p) },
        // One buffer at a time: PMIx_Data_buffer_create/_release below.
        exports: [construct PMIx_Data_buffer_construct, destruct PMIx_Data_buffer_destruct],
    }
    pmix_device_distance_t {
        construct: |p| {
            (*p).type_ = PMIX_DEVTYPE_UNKNOWN;
            (*p).mindist = u16::MAX;
            (*p).maxdist = u16::MAX;
        },
        destruct: |p| { item(DataType::DeviceDist, p) },
        exports: [construct PMIx_Device_distance_construct,
                  create PMIx_Device_distance_create,
                  destruct PMIx_Device_distance_destruct, free PMIx_Device_distance_free],
    }
    pmix_disk_stats_t {
        construct: |p| {},
        destruct: |p| { item(DataType::DiskStats, p) },
        exports: [construct PMIx_Disk_stats_construct, create PMIx_Disk_stats_create,
                  destruct PMIx_Disk_stats_destruct, free PMIx_Disk_stats_free],
    }
    pmix_endpoint_t {
        construct: |p| {},
        destruct: |p| { item(DataType::Endpoint, p) },
        exports: [construct PMIx_Endpoint_construct, create PMIx_Endpoint_create,
                  destruct PMIx_Endpoint_destruct, free PMIx_Endpoint_free],
    }
    pmix_envar_t {
        construct: |p| {},
        destruct: |p| { item(DataType::Envar, p) },
        exports: [construct PMIx_Envar_construct, create PMIx_Envar_create,
                  destruct PMIx_Envar_destruct, free PMIx_Envar_free],
    }
    pmix_geometry_t {
        construct: |p| {},
        destruct: |p| { item(DataType::Geometry, p) },
        exports: [construct PMIx_Geometry_construct, create PMIx_Geometry_create,
                  destruct PMIx_Geometry_destruct, free PMIx_Geometry_free],
    }
    pmix_info_t {
        construct: |p| { (*p).value.type_ = PMIX_UNDEF },
        destruct: |p| { item(DataType::Info, p) },
        exports: [construct PMIx_Info_construct, create PMIx_Info_create,
                  destruct PMIx_Info_destruct, free PMIx_Info_free],
    }
    pmix_net_stats_t {
        construct: |p| {},
        destruct: |p| { item(DataType::NetStats, p) },
        exports: [construct PMIx_Net_stats_construct, create PMIx_Net_stats_create,
                  destruct PMIx_Net_stats_destruct, free PMIx_Net_stats_free],
    }
    pmix_node_stats_t {
        construct: |p| {},
        destruct: |p| { item(DataType::NodeStats, p) },
        exports: [construct PMIx_Node_stats_construct, create PMIx_Node_stats_create,
                  destruct PMIx_Node_stats_destruct, free PMIx_Node_stats_free],
    }
    pmix_pdata_t {
        construct: |p| { (*p).value.type_ = PMIX_UNDEF },
        destruct: |p| { item(DataType::PData, p) },
        exports: [construct PMIx_Pdata_construct, create PMIx_Pdata_create,
                  destruct PMIx_Pdata_destruct, free PMIx_Pdata_free],
    }
    pmix_proc_t {
        construct: |p| { (*p).rank = PMIX_RANK_UNDEF },
        // Owns nothing: destruct is construct again.
        destruct: |p| { <pmix_proc_t as Family>::construct(p) },
        exports: [construct PMIx_Proc_construct, create PMIx_Proc_create,
                  destruct PMIx_Proc_destruct, free PMIx_Proc_free],
    }
    pmix_proc_info_t {
        construct: |p| { (*p).state = PMIX_PROC_STATE_UNDEF },
        destruct: |p| {
            item(DataType::ProcInfo, p);
            <pmix_proc_info_t as Family>::construct(p)
        },
        exports: [construct PMIx_Proc_info_construct, create PMIx_Proc_info_create,
                  destruct PMIx_Proc_info_destruct, free PMIx_Proc_info_free],
    }
    pmix_proc_stats_t {
        construct: |p| {},
        destruct: |p| { item(DataType::ProcStats, p) },
        exports: [construct PMIx_Proc_stats_construct, create PMIx_Proc_stats_create,
                  destruct PMIx_Proc_stats_destruct, free PMIx_Proc_stats_free],
    }
    pmix_query_t {
        construct: |p| {},
        destruct: |p| { item(DataType::Query, p) },
        exports: [construct PMIx_Query_construct, create PMIx_Query_create,
                  destruct PMIx_Query_destruct, free PMIx_Query_free],
    }
    pmix_regattr_t {
        construct: |p| { (*p).type_ = PMIX_UNDEF },
        destruct: |p| { item(DataType::RegAttr, p) },
        exports: [construct PMIx_Regattr_construct, create PMIx_Regattr_create,
                  destruct PMIx_Regattr_destruct, free PMIx_Regattr_free],
    }
    pmix_topology_t {
        construct: |p| {},
        destruct: |p| { item(DataType::Topo, p) },
        // PMIx_Topology_destruct: in data_array.rs.
        exports: [construct PMIx_Topology_construct, create PMIx_Topology_create,
                  free PMIx_Topology_free],
    }
    pmix_value_t {
        construct: |p| { (*p).type_ = PMIX_UNDEF },
        destruct: |p| { item(DataType::Value, p) },
        // PMIx_Value_destruct: in value.rs.
        exports: [construct PMIx_Value_construct, create PMIx_Value_create,
                  free PMIx_Value_free],
    }
}

/// `pmix_coord_t* PMIx_Coord_create(size_t dims, size_t number)`: `number`
/// coordinates of `dims` zeroed dimensions each (the reference sets up only
/// the first and leaves the others uninitialised; all are set up here, as
/// our header's `PMIX_COORD_CREATE` does).
#[no_mangle]
pub extern "C" fn PMIx_Coord_create(dims: usize, number: usize) -> *mut pmix_coord_t {
    guard_or(null_mut(), || {
        let arr = create::<pmix_coord_t>(number);
        if arr.is_null() || dims == 0 {
            return arr;
        }
        for k in 0..number {
            // SAFETY: k < number elements of the fresh array.
            let c = unsafe { &mut *arr.add(k) };
            c.dims = dims;
            c.coord = calloc_array::<u32>(dims).unwrap_or(null_mut());
        }
        arr
    })
}

/// The element array `PMIx_Data_array_construct` allocates for `num`
/// elements of type `t` (`num > 0`): constructed elements for the
/// structure types, zeroed ones for the scalar types, `None` for the types
/// the reference does not allocate (the array is then left empty).
/// `PMIX_POINTER` elements get a pointer's size each (the reference
/// allocates one byte, too small for what the array is for).
fn construct_elements(t: DataType, num: usize) -> Option<*mut libc::c_void> {
    use DataType as T;
    let p: *mut libc::c_void = match t {
        T::Info => create::<pmix_info_t>(num).cast(),
        T::Proc => create::<pmix_proc_t>(num).cast(),
        T::ProcInfo => create::<pmix_proc_info_t>(num).cast(),
        T::Envar => create::<pmix_envar_t>(num).cast(),
        T::Value => create::<pmix_value_t>(num).cast(),
        T::PData => create::<pmix_pdata_t>(num).cast(),
        T::Query => create::<pmix_query_t>(num).cast(),
        T::App => create::<pmix_app_t>(num).cast(),
        T::ByteObject | T::CompressedString => create::<pmix_byte_object_t>(num).cast(),
        T::RegAttr => create::<pmix_regattr_t>(num).cast(),
        T::Endpoint => create::<pmix_endpoint_t>(num).cast(),
        T::ProcStats => create::<pmix_proc_stats_t>(num).cast(),
        T::DiskStats => create::<pmix_disk_stats_t>(num).cast(),
        T::NetStats => create::<pmix_net_stats_t>(num).cast(),
        T::NodeStats => create::<pmix_node_stats_t>(num).cast(),
        T::DeviceDist => create::<pmix_device_distance_t>(num).cast(),
        T::Geometry => create::<pmix_geometry_t>(num).cast(),
        T::ProcCpuset => create::<pmix_cpuset_t>(num).cast(),
        T::AllocDirective
        | T::ProcState
        | T::Persist
        | T::Scope
        | T::DataRange
        | T::Byte
        | T::Int8
        | T::Uint8
        | T::Pointer
        | T::String
        | T::Size
        | T::Pid
        | T::Int
        | T::Uint
        | T::Status
        | T::IofChannel
        | T::DataType
        | T::Int16
        | T::Uint16
        | T::ProcRank
        | T::InfoDirectives
        | T::Int32
        | T::Uint32
        | T::Int64
        | T::Uint64
        | T::Float
        | T::Double
        | T::Timeval
        | T::Time
        | T::Bool
        | T::Coord
        | T::LinkState
        | T::ProcNspace => {
            let size = convert::item_size(t)?;
            calloc_array::<u8>(size.checked_mul(num)?)
                .unwrap_or(null_mut())
                .cast()
        }
        _ => return None,
    };
    Some(p)
}

/// `void PMIx_Data_array_init(pmix_data_array_t *p, pmix_data_type_t
/// type)`: an empty array of `type`.
///
/// # Safety
/// `p` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_init(p: *mut pmix_data_array_t, type_: pmix_data_type_t) {
    guard_or((), || {
        if !p.is_null() {
            // SAFETY: p is writable (C contract).
            unsafe {
                *p = pmix_data_array_t {
                    type_,
                    size: 0,
                    array: null_mut(),
                }
            };
        }
    })
}

/// Fills `p` as `PMIx_Data_array_construct` does.
///
/// # Safety
/// `p` is writable.
unsafe fn data_array_construct(p: *mut pmix_data_array_t, num: usize, type_: pmix_data_type_t) {
    let array = if num == 0 {
        None
    } else {
        DataType::from_raw(type_).and_then(|t| construct_elements(t, num))
    };
    let (size, array) = match array {
        Some(a) => (num, a),
        None => (0, null_mut()),
    };
    // SAFETY: p is writable (caller's contract).
    unsafe { *p = pmix_data_array_t { type_, size, array } };
}

/// `void PMIx_Data_array_construct(pmix_data_array_t *p, size_t num,
/// pmix_data_type_t type)`: `num` constructed elements of `type` (an empty
/// array for `num == 0` and for the types the reference does not
/// allocate). What `p` held before is not released.
///
/// # Safety
/// `p` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_construct(
    p: *mut pmix_data_array_t,
    num: usize,
    type_: pmix_data_type_t,
) {
    guard_or((), || {
        if !p.is_null() {
            // SAFETY: p is writable (C contract).
            unsafe { data_array_construct(p, num, type_) };
        }
    })
}

/// `pmix_data_array_t* PMIx_Data_array_create(size_t n, pmix_data_type_t
/// type)`: a malloc'd array constructed with `n` elements; NULL for
/// `n == 0`.
#[no_mangle]
pub extern "C" fn PMIx_Data_array_create(
    n: usize,
    type_: pmix_data_type_t,
) -> *mut pmix_data_array_t {
    guard_or(null_mut(), || {
        if n == 0 {
            return null_mut();
        }
        let Ok(p) = calloc_array::<pmix_data_array_t>(1) else {
            return null_mut();
        };
        // SAFETY: p is a fresh array.
        unsafe { data_array_construct(p, n, type_) };
        p
    })
}

/// `void PMIx_Data_array_free(pmix_data_array_t *p)`: destructs the array
/// (as `PMIx_Data_array_destruct`) and frees it; NULL is a no-op.
///
/// # Safety
/// `p` is NULL or a malloc'd, valid data array.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_free(p: *mut pmix_data_array_t) {
    guard_or((), || {
        if !p.is_null() {
            // SAFETY: p is a valid, malloc'd data array (C contract).
            unsafe {
                convert::data_array_destruct(p);
                libc::free(p.cast());
            }
        }
    })
}

/// `pmix_data_buffer_t* PMIx_Data_buffer_create(void)`: one constructed
/// buffer.
#[no_mangle]
pub extern "C" fn PMIx_Data_buffer_create() -> *mut pmix_data_buffer_t {
    guard_or(null_mut(), || create::<pmix_data_buffer_t>(1))
}

/// `void PMIx_Data_buffer_release(pmix_data_buffer_t *b)`: destructs and
/// frees one buffer; NULL is a no-op.
///
/// # Safety
/// `b` is NULL or a malloc'd, valid buffer.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_release(b: *mut pmix_data_buffer_t) {
    // SAFETY: forwarded C contract.
    guard_or((), || unsafe { free(b, 1) })
}

/// `void PMIx_App_release(pmix_app_t *p)`: `PMIx_App_free(p, 1)`.
///
/// # Safety
/// `p` is NULL or a malloc'd, valid app.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_release(p: *mut pmix_app_t) {
    // SAFETY: forwarded C contract.
    guard_or((), || unsafe { free(p, 1) })
}

/// `void PMIx_Query_release(pmix_query_t *p)`: `PMIx_Query_free(p, 1)`.
///
/// # Safety
/// `p` is NULL or a malloc'd, valid query.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_release(p: *mut pmix_query_t) {
    // SAFETY: forwarded C contract.
    guard_or((), || unsafe { free(p, 1) })
}

/// `void PMIx_App_info_create(pmix_app_t *p, size_t n)`: `n` constructed
/// infos in `p->info` (NULL for 0), `p->ninfo = n`. What `p->info` held
/// before is not released.
///
/// # Safety
/// `p` is NULL or a valid app.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_info_create(p: *mut pmix_app_t, n: usize) {
    guard_or((), || {
        if !p.is_null() {
            // SAFETY: p is a valid app (C contract).
            unsafe {
                (*p).ninfo = n;
                (*p).info = create::<pmix_info_t>(n);
            }
        }
    })
}

/// `void PMIx_Query_qualifiers_create(pmix_query_t *p, size_t n)`: `n`
/// constructed infos in `p->qualifiers` (NULL for 0), `p->nqual = n`.
///
/// # Safety
/// `p` is NULL or a valid query.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_qualifiers_create(p: *mut pmix_query_t, n: usize) {
    guard_or((), || {
        if !p.is_null() {
            // SAFETY: p is a valid query (C contract).
            unsafe {
                (*p).nqual = n;
                (*p).qualifiers = create::<pmix_info_t>(n);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn create_of_zero_is_null_and_free_of_null_is_a_no_op() {
        assert!(PMIx_Proc_create(0).is_null());
        assert!(PMIx_Data_array_create(0, PMIX_INFO).is_null());
        // SAFETY: NULL is accepted.
        unsafe { PMIx_Info_free(null_mut(), 4) };
    }

    #[test]
    fn create_constructs_every_element() {
        let p = PMIx_Device_distance_create(3);
        assert!(!p.is_null());
        for k in 0..3 {
            // SAFETY: three elements.
            let d = unsafe { &*p.add(k) };
            assert_eq!((d.mindist, d.maxdist), (u16::MAX, u16::MAX));
        }
        // SAFETY: p from create, three elements.
        unsafe { PMIx_Device_distance_free(p, 3) };
        let procs = PMIx_Proc_create(2);
        // SAFETY: two elements.
        assert_eq!(unsafe { (*procs.add(1)).rank }, PMIX_RANK_UNDEF);
        // SAFETY: as above.
        unsafe { PMIx_Proc_free(procs, 2) };
    }

    #[test]
    fn data_array_of_an_unallocated_type_is_empty() {
        let d = PMIx_Data_array_create(3, PMIX_DATA_ARRAY);
        // SAFETY: d is a fresh data array.
        let a = unsafe { &*d };
        assert_eq!(
            (a.type_, a.size, a.array.is_null()),
            (PMIX_DATA_ARRAY, 0, true)
        );
        // SAFETY: d from create.
        unsafe { PMIx_Data_array_free(d) };
    }
}
