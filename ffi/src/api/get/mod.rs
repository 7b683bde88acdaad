//! `PMIx_Get` and `PMIx_Get_nb`, with a key or with none (all of a
//! process's data), in a client and in a server process.
//!
//! A get asks the core one question — [`Client::resolve`] on the hot
//! path, [`Client::get_with`] otherwise — whose [`Answer`] says the value
//! and where it came from; the order in which the sources answer is the
//! core's. This module converts the C arguments (the qualifiers are read
//! in place by the core's [`GetOptions::parse`]), hands the answer out in
//! the storage the caller asked for, and caches what the answer says may
//! be cached:
//! - segment answers by namespace generation: pointer-values results in
//!   [`pointer_cache`], scalars of this process's namespace in this
//!   thread's [`scalar_cache`] (not the `until_put` ones, which a put
//!   supersedes);
//! - the pointer-values results of this process's own puts by put version
//!   in [`pointer_cache`] (the core answers the puts themselves without a
//!   lock or a copy: [`Answer::Own`] borrows the value).
//!
//! Invariants: the hot path (`get_fast`: data in the mapped segments or
//! an own put, this process's namespace through a cached
//! `NsHandle`) takes no lock, makes no syscall and allocates nothing but
//! the caller's `malloc`ed result; anything it does not serve goes through
//! the owned conversions and `Client::get_with`, which reports the errors.
//! A server process (`PMIx_server_init` without `PMIx_Init`) reads its
//! own store ([`pmix_core::server::own_store`]), which also answers its
//! own identity (`PMIX_PROCID`, `PMIX_NSPACE`, `PMIX_RANK`).
//!
//! Parts: the exported functions here; `deliver` (handing an answer out,
//! the caches), `fast` (the hot path), `all` (a NULL key) and
//! `server_store` (a server process's own store).
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void};
use std::ptr::null_mut;

use pmix_core::client::{Client, GetOptions, ValueStorage};
use pmix_core::Status;

use crate::api::args::{c_array_is, infos_at, infos_in, key_str, target};
use crate::api::serving::{self, Serving};
use crate::boundary::{guard, SendPtr};
use crate::nonnull;
use crate::sys::{pmix_info_t, pmix_proc_t, pmix_value_cbfunc_t, pmix_value_t};

mod all;
mod deliver;
mod fast;
mod server_store;
#[cfg(test)]
mod tests;

use all::*;
use deliver::*;
use fast::*;
use server_store::*;

// ---------------------------------------------------------------------------
// The exported functions

/// `PMIx_Get`: honours `PMIX_GET_POINTER_VALUES`,
/// `PMIX_GET_STATIC_VALUES`, `PMIX_OPTIONAL`, `PMIX_IMMEDIATE`,
/// `PMIX_TIMEOUT` and the realm qualifiers (`PMIX_SESSION_INFO`,
/// `PMIX_NODE_INFO`, `PMIX_APP_INFO` with `PMIX_NODEID`, `PMIX_HOSTNAME`,
/// `PMIX_APPNUM`). A NULL proc is this process; a NULL key all of the
/// process's data.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get(
    proc_: *const pmix_proc_t,
    key: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    val: *mut *mut pmix_value_t,
) -> c_int {
    guard(|| {
        let c = match serving::serving(true) {
            Ok(Serving::Client(c)) => c,
            // SAFETY: the C contract of PMIx_Get.
            Ok(Serving::Server) => return unsafe { server_get(proc_, key, info, ninfo, val) },
            Err(_) => return Err(Status::ERR_INIT),
        };
        if key.is_null() {
            // SAFETY: the C contract of PMIx_Get.
            return unsafe { get_all(c, proc_, info, ninfo, val) };
        }
        nonnull!(key, val);
        // SAFETY: info is NULL or ninfo valid infos (C contract), read
        // during this call only.
        let quals = unsafe { infos_at(info, ninfo) }?;
        let opts = GetOptions::parse(quals);
        // SAFETY: proc_ is NULL or valid (C contract).
        let grouped = c.has_groups() && unsafe { names_a_group(c, proc_, quals) };
        if !grouped {
            // SAFETY: key is a valid string, proc_ NULL or valid, val
            // writable (C contract, checked above).
            if let Some(r) = unsafe { get_fast(c, proc_, key, &opts, val) } {
                return r;
            }
        }
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        // SAFETY: key is a valid string, proc_ NULL or valid (C contract).
        let (key, proc) = unsafe { (key_str(key)?, target(c, proc_)) };
        if opts.storage == ValueStorage::Static {
            // SAFETY: val is non-NULL; under static values *val is the
            // caller's pmix_value_t.
            let out = unsafe { *val };
            nonnull!(out);
        } else if opts.storage == ValueStorage::Copy {
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = null_mut() };
        }
        let to = Target {
            nspace: proc.nspace.as_bytes(),
            rank: proc.rank,
        };
        c.get_with(&proc, key, &infos, |a| {
            // SAFETY: val is writable, *val the caller's under static
            // values (checked above).
            unsafe { deliver(a, &to, key, &opts, None, val) }
        })?
    })
}

/// True if a get of `proc_` with `quals` may need the groups this process
/// belongs to (see `Client::group_member`): another namespace (maybe a
/// group id), or a `PMIX_GROUP_CONTEXT_ID` qualifier. The fast path
/// knows nothing of groups.
///
/// # Safety
/// `proc_` is NULL or a valid proc.
// attrs begin: PMIx_Get PMIx_Get_nb
unsafe fn names_a_group(c: &Client, proc_: *const pmix_proc_t, quals: &[pmix_info_t]) -> bool {
    // SAFETY: the caller's contract.
    let other = unsafe { proc_.as_ref() }
        .is_some_and(|p| p.nspace[0] != 0 && !c_array_is(&p.nspace, c.proc().nspace.as_bytes()));
    other
        || quals
            .iter()
            .any(|q| c_array_is(&q.key, pmix_core::keys::GROUP_CONTEXT_ID.as_bytes()))
}
// attrs end

/// `PMIx_Get_nb`: `cbfunc` runs on the progress thread with a value the
/// library releases when the callback returns (as OpenPMIx does).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_nb(
    proc_: *const pmix_proc_t,
    key: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_value_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let c = serving::client()?;
        if key.is_null() {
            // SAFETY: the C contract of PMIx_Get_nb.
            return unsafe { get_all_nb(c, proc_, info, ninfo, cbfunc, cbdata) };
        }
        nonnull!(key);
        let f = cbfunc.ok_or(Status::ERR_BAD_PARAM)?;
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        // SAFETY: key is a valid string, proc_ NULL or valid (C contract).
        let (key, proc) = unsafe { (key_str(key)?, target(c, proc_)) };
        let data = SendPtr(cbdata);
        c.get_nb(
            &proc,
            key,
            &infos,
            Box::new(move |r| deliver_value(f, data, r)),
        )
    })
}
