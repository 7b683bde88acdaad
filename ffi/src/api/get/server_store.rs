//! A get in a server process (`PMIx_server_init` without `PMIx_Init`): read
//! from its own store, which also answers its own identity.
//!
//! Invariant: nothing here talks to a server; errors are the store's.

use std::ffi::c_char;

use pmix_core::client::{GetOptions, ValueStorage};
use pmix_core::Status;

use crate::api::args::{infos_in, target_or};
use crate::api::state;
use crate::nonnull;
use crate::sys::{pmix_info_t, pmix_proc_t, pmix_value_t};

use super::all::*;
use super::deliver::*;

// ---------------------------------------------------------------------------
// A server process's own store

/// `PMIx_Get` in a server process (`PMIx_server_init` without
/// `PMIx_Init`): its own store.
///
/// # Safety
/// `proc_` NULL or valid; `key` NULL or a valid string; `info` NULL or
/// `ninfo` valid infos; `val` writable (and, under
/// `PMIX_GET_STATIC_VALUES`, `*val` the caller's value).
pub(super) unsafe fn server_get(
    proc_: *const pmix_proc_t,
    key: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    // SAFETY: the C contract of PMIx_Get.
    let infos = unsafe { infos_in(info, ninfo) }?;
    let s = state::server()?;
    nonnull!(val);
    // SAFETY: proc_ NULL or valid (contract).
    let p = unsafe { target_or(&s.server.proc(), proc_) };
    if key.is_null() {
        // SAFETY: val is writable (checked), *val the caller's under static
        // values (contract).
        return unsafe { deliver_all(s.own.get_all(&p), &infos, val) };
    }
    // SAFETY: key is a valid string (contract, checked non-NULL).
    let key = unsafe { crate::api::args::one_key(key) }?;
    let v = if key == pmix_core::keys::PSET_NAMES || key == pmix_core::keys::GROUP_NAMES {
        // Sets and groups live in the server's tables.
        s.server.set_names(&p, key)?
    } else {
        s.own.get(&p, key).or_else(|e| {
            pmix_core::server::own_store::identity(&s.server.proc(), &p, key).ok_or(e)
        })?
    };
    let storage = GetOptions::parse(&infos).storage;
    if storage == ValueStorage::Static {
        // SAFETY: val is readable; *val is the caller's value.
        let out = unsafe { *val };
        nonnull!(out);
    }
    // SAFETY: val is writable, *val the caller's non-NULL value under
    // static values (checked above).
    unsafe { put_value(storage, &v, val) }
}
