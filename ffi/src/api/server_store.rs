//! The key-value store of a *server* process: `PMIx_Store_internal` and
//! `PMIx_Get` called by the host after `PMIx_server_init` (without
//! `PMIx_Init`), as Open MPI's `mpirun` does with its own contact URI
//! (`opal.puri`, `orte/mca/oob/base/oob_base_stubs.c`) — it refuses to
//! start when that store fails.
//!
//! OpenPMIx keeps such values in the server's own datastore; here they
//! live in a process-local map, read back by `PMIx_Get` in the same
//! process (as a malloc'd value by default, in the caller's storage under
//! `PMIX_GET_STATIC_VALUES`, or library-owned under
//! `PMIX_GET_POINTER_VALUES`). A key stored for no process of the map is
//! `PMIX_ERR_NOT_FOUND`. A NULL key returns all of a process's values, in
//! the order first stored, as the client's NULL-key get does (a
//! `PMIX_DATA_ARRAY` of infos): Open MPI's `mpirun` reads its own that way
//! to send it to the daemons of other nodes
//! (`orte/mca/odls/base/odls_base_default_fns.c`); a process with none is
//! `PMIX_ERR_NOT_FOUND`. The client paths are not involved: a process
//! that called `PMIx_Init` uses its client's store.

use std::collections::HashMap;
use std::ffi::{c_char, CStr};
use std::sync::Mutex;

use pmix_core::{keys, Info, Key, Proc, Status, Value};

use crate::convert;
use crate::sys::{pmix_proc_t, pmix_value_t};

/// One process's stored values, in the order their keys were first stored
/// (a key stored again keeps its place).
type Stored = Vec<(String, Value)>;

/// Values stored by this server process, by process.
static STORE: Mutex<Option<HashMap<Proc, Stored>>> = Mutex::new(None);

/// Library-owned values handed out under `PMIX_GET_POINTER_VALUES`, by
/// address (valid until the process exits: never freed, never reused).
static HANDED_OUT: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// The process an argument names: NULL or an empty namespace mean this
/// server's own process.
///
/// # Safety
/// `p` is NULL or a valid proc.
unsafe fn target(p: *const pmix_proc_t, me: &Proc) -> Proc {
    if p.is_null() {
        return me.clone();
    }
    // SAFETY: non-NULL, valid per the contract.
    let p = convert::proc_from_c(unsafe { &*p });
    if p.nspace.is_empty() {
        Proc::new(me.nspace.clone(), p.rank)
    } else {
        p
    }
}

/// # Safety
/// `key` is a valid NUL-terminated string.
unsafe fn key_of(key: *const c_char) -> Result<String, Status> {
    // SAFETY: the caller's contract.
    unsafe { CStr::from_ptr(key) }
        .to_str()
        .map(str::to_owned)
        .map_err(|_| Status::ERR_BAD_PARAM)
}

/// `PMIx_Store_internal` in a server process.
///
/// # Safety
/// `proc_` NULL or valid; `key` a valid string; `val` a valid value.
pub(crate) unsafe fn store(
    me: &Proc,
    proc_: *const pmix_proc_t,
    key: *const c_char,
    val: *const pmix_value_t,
) -> Result<(), Status> {
    if key.is_null() || val.is_null() {
        return Err(Status::ERR_BAD_PARAM);
    }
    // SAFETY: valid arguments (contract, checked non-NULL).
    let (p, k, v) = unsafe { (target(proc_, me), key_of(key)?, convert::value_from_c(val)?) };
    let mut g = STORE.lock().unwrap_or_else(|e| e.into_inner());
    let kvs = g.get_or_insert_with(HashMap::new).entry(p).or_default();
    match kvs.iter_mut().find(|(x, _)| *x == k) {
        Some(slot) => slot.1 = v,
        None => kvs.push((k, v)),
    }
    Ok(())
}

fn flag(infos: &[Info], key: &str) -> bool {
    infos
        .iter()
        .any(|i| i.key.as_bytes() == key.as_bytes() && matches!(i.value, Value::Bool(true)))
}

/// `PMIx_Get` in a server process.
///
/// # Safety
/// `proc_` NULL or valid; `key` a valid string; `val` writable (and, under
/// `PMIX_GET_STATIC_VALUES`, `*val` the caller's value).
pub(crate) unsafe fn get(
    me: &Proc,
    proc_: *const pmix_proc_t,
    key: *const c_char,
    infos: &[Info],
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    if val.is_null() {
        return Err(Status::ERR_BAD_PARAM);
    }
    // SAFETY: proc_ NULL or valid (contract).
    let p = unsafe { target(proc_, me) };
    let store = || STORE.lock().unwrap_or_else(|e| e.into_inner());
    if key.is_null() {
        let all = match store().as_ref().and_then(|m| m.get(&p)) {
            Some(kvs) if !kvs.is_empty() => kvs
                .iter()
                .map(|(k, v)| Ok(Info::new(Key::new(k.as_str())?, v.clone())))
                .collect(),
            _ => Err(Status::ERR_NOT_FOUND),
        };
        // SAFETY: val is writable (checked), *val the caller's under static
        // values (contract).
        return unsafe { crate::api::get_all::deliver(all, infos, val) };
    }
    // SAFETY: key is a valid string (contract, checked non-NULL).
    let k = unsafe { key_of(key)? };
    let v = store()
        .as_ref()
        .and_then(|m| m.get(&p))
        .and_then(|kvs| kvs.iter().find(|(x, _)| *x == k))
        .map(|(_, v)| v.clone())
        .ok_or(Status::ERR_NOT_FOUND)?;
    if flag(infos, keys::GET_POINTER_VALUES) {
        let out = convert::value_to_c_new(&v)?;
        HANDED_OUT
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(out as usize);
        // SAFETY: val is writable (checked non-NULL).
        unsafe { *val = out };
    } else if flag(infos, keys::GET_STATIC_VALUES) {
        // SAFETY: val is readable; *val is the caller's value.
        let out = unsafe { *val };
        if out.is_null() {
            return Err(Status::ERR_BAD_PARAM);
        }
        // SAFETY: out is a writable value the caller owns.
        unsafe { convert::value_write(&v, out) }?;
    } else {
        let out = convert::value_to_c_new(&v)?;
        // SAFETY: val is writable (checked non-NULL).
        unsafe { *val = out };
    }
    Ok(())
}

/// Forgets every stored value (the last `PMIx_server_finalize`).
pub(crate) fn clear() {
    *STORE.lock().unwrap_or_else(|e| e.into_inner()) = None;
}
