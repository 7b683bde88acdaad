//! Deep, lossless conversions between the C structures of [`crate::sys`] and
//! the core crate's data model (`Value`, `Info`, `Proc`, ...), and deep
//! destruction of C objects.
//!
//! Two C representations of a datum exist and both are handled here:
//!
//! * the **item** form: one element of a C array of type `t` — an element of
//!   a `pmix_data_array_t`, or one of the `num_vals` items handed to
//!   `PMIx_Data_pack`. Structured types are stored inline (`pmix_proc_t`,
//!   `pmix_info_t`, `pmix_cpuset_t`, ...), strings as `char *`. See
//!   [`item_size`] for the size of each; [`read_item`], [`write_item`],
//!   [`destruct_item`] and the array helpers [`read_items`],
//!   [`write_items`], [`free_items`] work on it.
//! * the **value** form: the `data` union of a `pmix_value_t`, where most
//!   structured types are held through a pointer to one malloc'd item
//!   (`data.proc`, `data.darray`, `data.ptr` for `pmix_regattr_t`, ...). See
//!   [`value_from_c`], [`value_write`] and [`value_destruct`].
//!
//! Invariants:
//! * Everything written for C is allocated with the `malloc` family, so the
//!   header macros (`PMIX_VALUE_DESTRUCT`, `PMIX_INFO_FREE`, `free()`) and the
//!   reference library release it, and [`destruct_item`] releases what the
//!   reference's macros allocate.
//! * Writers start from a zeroed slot and fill it field by field; on any
//!   error they destruct what they wrote, so a failed write leaks nothing and
//!   leaves a zeroed (`PMIX_UNDEF`, NULL) slot.
//! * Readers copy: the Rust result never borrows C memory.
//!
//! `PMIX_PROC_CPUSET` bitmaps and `PMIX_TOPO` topologies are hwloc objects
//! in C; in Rust they are the bitmap's list string (`0-3,8`) and the
//! topology's XML export. Objects whose `source` names another provider
//! than hwloc are opaque and refused with `PMIX_ERR_NOT_SUPPORTED`. As in the
//! reference, such objects are released only when their `source` names
//! hwloc (for an array, the first element's source decides, except that a
//! data array's own array of source-less elements, as
//! `PMIx_Data_array_create` makes them, is released); writers give a
//! bitmap or topology without a source the source "hwloc" for that reason.
//!
//! Element sizes are the natural C ones: `PMIX_POINTER` items are
//! `void *` (the reference's `PMIX_DATA_ARRAY_CONSTRUCT` allocates one byte
//! for them, a bug its pack/unpack do not share), `PMIX_REGEX` items are
//! `char *` (what `PMIx_Data_pack` reads).
//!
//! `PMIX_DATA_BUFFER` items carry the unread bytes (`unpack_ptr` to the end
//! of the used region); a written buffer owns a malloc'd copy of them.
//!
//! The value form has no member for `PMIX_VALUE`, `PMIX_INFO`, `PMIX_APP`,
//! `PMIX_PDATA`, `PMIX_QUERY` and `PMIX_KVAL` (the reference refuses them
//! too); those exist only as items. The scalar types the union also lacks
//! (`PMIX_COMMAND`, `PMIX_INFO_DIRECTIVES`, `PMIX_DATA_TYPE`,
//! `PMIX_IOF_CHANNEL`) are carried in the unsigned member of their width.
//!
//! Parts: `names` (strings, names, byte objects, argv, timevals; the leaf
//! helpers), `item` (the item form and its dispatch on the data type),
//! `value`, `info` (infos, pdata, apps, queries), `records` (the flat
//! structs and data buffers), `hwloc`, `stats` and `data_array`. A datum's
//! tree is recursive, so `item` and the parts holding nested data use each
//! other: `item` dispatches to them, they call back into `item` for their
//! elements. All are re-exported here, so callers name `crate::convert::*`.

mod data_array;
mod hwloc;
mod info;
mod item;
mod names;
mod records;
mod stats;
mod value;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

pub use self::data_array::*;
pub use self::hwloc::*;
pub use self::info::*;
pub use self::item::*;
pub use self::names::*;
pub use self::records::*;
pub use self::value::*;
