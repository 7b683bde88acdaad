//! The statistics structs (`pmix_proc_stats_t`, `pmix_disk_stats_t`,
//! `pmix_net_stats_t`, `pmix_node_stats_t`) between their C form and the
//! core's, expanded from their one field list.
//!
//! Invariants: what a writer allocates belongs to the output struct, for
//! its destructor to free, also when it fails part way.

use std::ffi::c_char;
use std::ptr::null_mut;

use pmix_core::value::{DiskStats, NetStats, NodeStats, OptString, ProcStats, Timeval};
use pmix_core::{DataType, Proc};

use super::item::*;
use super::names::*;
use crate::boundary::calloc_array;
use crate::sys::*;

// ---------------------------------------------------------------------------
// Statistics

// The statistics structs between their C form and the core's, expanded
// from their one field list (`pmix_core::value::stats_structs`) through
// [`StatsC`], which converts one field type. A list (`[count: n]` in the
// field list) is a pointer and a count in C: [`list_from_c`] and
// [`list_write_c`].

/// A statistics struct, or a field type of one, read from and written to
/// its C form.
pub(super) trait StatsC: CForm + Sized {
    /// # Safety
    /// `c` is a valid C value: its strings NUL-terminated or NULL, its
    /// lists NULL or of their stated count.
    unsafe fn from_c(c: &Self::C) -> Self;

    /// Writes `self` into `out` (zeroed). What it allocates (strings,
    /// lists) is `out`'s, for its destructor to free, also when it fails
    /// part way.
    fn write_c(&self, out: &mut Self::C) -> Res<()>;
}

impl StatsC for OptString {
    unsafe fn from_c(c: &*mut c_char) -> Self {
        // SAFETY: the caller's contract: NULL or NUL-terminated.
        unsafe { opt_string_from_c(*c) }
    }
    fn write_c(&self, out: &mut *mut c_char) -> Res<()> {
        *out = opt_string_to_c(self)?;
        Ok(())
    }
}

impl StatsC for Proc {
    unsafe fn from_c(c: &Self::C) -> Self {
        proc_from_c(c)
    }
    fn write_c(&self, out: &mut Self::C) -> Res<()> {
        *out = proc_to_c(self);
        Ok(())
    }
}

impl StatsC for Timeval {
    unsafe fn from_c(c: &Self::C) -> Self {
        timeval_from_c(c)
    }
    fn write_c(&self, out: &mut Self::C) -> Res<()> {
        *out = timeval_to_c(self);
        Ok(())
    }
}

impl StatsC for u8 {
    unsafe fn from_c(c: &c_char) -> Self {
        *c as u8
    }
    fn write_c(&self, out: &mut c_char) -> Res<()> {
        *out = *self as c_char;
        Ok(())
    }
}

macro_rules! same_in_c {
    ($($t:ty),*) => {$(
        impl StatsC for $t {
            unsafe fn from_c(c: &$t) -> Self {
                *c
            }
            fn write_c(&self, out: &mut $t) -> Res<()> {
                *out = *self;
                Ok(())
            }
        }
    )*};
}
same_in_c!(u16, i32, u64, f32);

/// The `n` elements at `p` (none if `p` is NULL).
///
/// # Safety
/// `p` is NULL or points to `n` valid elements (as [`StatsC::from_c`]).
pub(super) unsafe fn list_from_c<T: StatsC>(p: *const T::C, n: usize) -> Vec<T> {
    if p.is_null() {
        return Vec::new();
    }
    // SAFETY: k < n elements at p, each valid (the caller's contract).
    (0..n).map(|k| unsafe { T::from_c(&*p.add(k)) }).collect()
}

/// Writes `v` as a new zeroed array in `ptr` and its length in `n`
/// (nothing for an empty list).
pub(super) fn list_write_c<T: StatsC>(v: &[T], ptr: &mut *mut T::C, n: &mut usize) -> Res<()> {
    if v.is_empty() {
        return Ok(());
    }
    let arr = calloc_array::<T::C>(v.len())?;
    *ptr = arr;
    *n = v.len();
    for (k, x) in v.iter().enumerate() {
        // SAFETY: k < len of the array just allocated; the slot is zeroed,
        // a valid statistics struct (NULL pointers, zero numbers).
        x.write_c(unsafe { &mut *arr.add(k) })?;
    }
    Ok(())
}

macro_rules! field_from_c {
    ($c:ident . $f:ident) => {
        StatsC::from_c(&$c.$f)
    };
    ($c:ident . $f:ident [$n:ident]) => {
        list_from_c($c.$f, $c.$n)
    };
}

macro_rules! field_write_c {
    ($s:ident, $o:ident . $f:ident) => {
        $s.$f.write_c(&mut $o.$f)?
    };
    ($s:ident, $o:ident . $f:ident [$n:ident]) => {
        list_write_c(&$s.$f, &mut $o.$f, &mut $o.$n)?
    };
}

macro_rules! c_stats_conversions {
    ($( $core:ident / $stored:ident / $c:ident [$($eq:ident)?] {
        $( $f:ident : $t:ty $([count: $n:ident])? ),* $(,)?
    } )*) => {$(
        impl StatsC for $core {
            unsafe fn from_c(c: &$c) -> Self {
                // SAFETY: every field is valid (the caller's contract).
                unsafe { $core { $( $f: field_from_c!(c . $f $([$n])?), )* } }
            }
            fn write_c(&self, out: &mut $c) -> Res<()> {
                $( field_write_c!(self, out . $f $([$n])?); )*
                Ok(())
            }
        }
    )*};
}

pmix_core::value::stats_structs!(c_stats_conversions);

/// A statistics struct read from C.
///
/// # Safety
/// `p` points to a valid C statistics struct (as [`StatsC::from_c`]).
pub(super) unsafe fn stats_from_c<T: StatsC>(p: *const T::C) -> T {
    // SAFETY: the caller's contract.
    unsafe { T::from_c(&*p) }
}

/// Writes a statistics struct into C.
///
/// # Safety
/// `out` points to a zeroed C statistics struct.
pub(super) unsafe fn stats_write<T: StatsC>(s: &T, out: *mut T::C) -> Res<()> {
    // SAFETY: the caller's contract.
    s.write_c(unsafe { &mut *out })
}

/// # Safety
/// `s` points to valid proc stats whose strings are NULL or malloc'd.
pub(super) unsafe fn pstats_destruct(s: *mut pmix_proc_stats_t) {
    // SAFETY: s is valid (caller's contract).
    unsafe {
        free_str(&mut (*s).node);
        free_str(&mut (*s).cmd);
    }
}

/// `PMIX_NODE_STATS_DESTRUCT`.
///
/// # Safety
/// `s` points to valid node stats whose pointers are NULL or malloc'd.
pub(super) unsafe fn ndstats_destruct(s: *mut pmix_node_stats_t) {
    // SAFETY: s is valid (caller's contract).
    unsafe {
        let s = &mut *s;
        free_str(&mut s.node);
        free_items(DataType::DiskStats, s.diskstats.cast(), s.ndiskstats);
        s.diskstats = null_mut();
        s.ndiskstats = 0;
        free_items(DataType::NetStats, s.netstats.cast(), s.nnetstats);
        s.netstats = null_mut();
        s.nnetstats = 0;
    }
}
