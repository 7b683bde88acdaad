//! `PMIx_Fabric_register`, `PMIx_Fabric_update`, `PMIx_Fabric_deregister`
//! and their `_nb` forms.
//!
//! Who answers: a client's request goes to its server, whose host's
//! `fabric` module function gets it (`PMIX_FABRIC_REQUEST_INFO` with the
//! caller's directives); in a server process the request goes to that
//! server's own host, as the requester (OpenPMIx asks its `pnet` plugins
//! there, which describe no fabric in 5.0.11). When no host answers (no
//! `fabric` function, `PMIX_ERR_NOT_SUPPORTED`, or a tool with no server)
//! the library describes this node's NICs itself ([`super::fabric_view`]).
//!
//! What the caller's `pmix_fabric_t` holds after a registration: `info`,
//! `ninfo` (a `malloc`ed copy of the answer), `index` (the answer's
//! `PMIX_FABRIC_INDEX` when the host gives one, else a number of the
//! library's, unique in the process) and `module` (the library's record of
//! the registration: where the answer came from, the cost matrix it
//! owns). `name` is the caller's and never touched. Registering a fabric
//! that holds a live registration ends that one first.
//!
//! Update asks again where the registration's answer came from: the host
//! with `PMIX_FABRIC_UPDATE_INFO` and the fabric's `PMIX_FABRIC_INDEX`, or
//! the library's view rebuilt; the old `info` is freed and replaced.
//! Deregister frees `info`, the cost matrix and the record, and clears
//! `info`, `ninfo` and `module`; like OpenPMIx's, `_nb` finishes at once
//! (`PMIX_OPERATION_SUCCEEDED`, no callback).
//!
//! Bad input: a NULL fabric is `PMIX_ERR_BAD_PARAM`; so is the update or
//! deregistration of a fabric this library has not registered (its
//! `module` is not one of the live records), whose fields are left alone.
//! (OpenPMIx frees `info` of any fabric it is given and succeeds.)
//!
//! Invariants: a record is live from its registration to its
//! deregistration, listed in one registry by address, and freed once;
//! non-blocking callbacks run once, after the call returned, on the
//! thread that received the answer; the blocking forms return
//! `PMIX_ERR_WOULD_BLOCK` inside a server upcall (see
//! [`state::server_wait`]).
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::collections::HashSet;
use std::ffi::{c_int, c_void};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use pmix_core::{keys as k, Info, Status, Value};

use crate::api::args::infos_in;
use crate::api::fabric_view::{node_fabric, CostMatrix};
use crate::api::serving::{self, Serving, Unserved};
use crate::api::state::{self, server_wait};
use crate::boundary::{guard, op_callback, run_later, SendPtr};
use crate::convert;
use crate::nonnull;
use crate::sys::{
    pmix_fabric_t, pmix_info_t, pmix_op_cbfunc_t, PMIX_FABRIC_REQUEST_INFO, PMIX_FABRIC_UPDATE_INFO,
};

/// An answer: the fabric's infos, the cost matrix they point at (the
/// library's view only), and whether the library made it.
struct View {
    infos: Vec<Info>,
    cost: Option<CostMatrix>,
    library: bool,
}

/// What the library keeps of a registration (`pmix_fabric_t.module`).
struct Registration {
    index: usize,
    /// The answer came from the library's view, not a host.
    library: bool,
    cost: Option<CostMatrix>,
}

/// The live registrations, by the address of their record.
static REGISTERED: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

/// The next index the library gives a fabric.
static NEXT_INDEX: AtomicUsize = AtomicUsize::new(0);

type Done = Box<dyn FnOnce(Result<View, Status>) + Send + 'static>;

/// The library's view as an answer.
fn library_view() -> Result<View, Status> {
    node_fabric().map(|(infos, cost)| View {
        infos,
        cost,
        library: true,
    })
}

/// A host's answer, or the library's view when no host gives one.
fn host_or_library(r: Result<Vec<Info>, Status>) -> Result<View, Status> {
    match r {
        Ok(infos) => Ok(View {
            infos,
            cost: None,
            library: false,
        }),
        Err(Status::ERR_NOT_SUPPORTED) => library_view(),
        Err(s) => Err(s),
    }
}

/// Asks for a fabric (`op`, `directives`) where this process's calls go
/// (see the module doc); `done` gets the answer once, after return.
fn ask(op: u8, directives: Vec<Info>, done: Done) -> Result<(), Status> {
    let register = op == PMIX_FABRIC_REQUEST_INFO as u8;
    let answer = move |r: Result<Vec<Info>, Status>| {
        done(if register {
            host_or_library(r)
        } else {
            r.map(|infos| View {
                infos,
                cost: None,
                library: false,
            })
        })
    };
    match serving::serving(true) {
        Ok(Serving::Client(c)) => c.fabric_nb(op, &directives, Box::new(answer)),
        Ok(Serving::Server) => {
            state::with_server(|s| s.fabric_nb(op, directives, Box::new(answer)))?
        }
        Err(Unserved::NoClient) => {
            run_later(move || answer(Err(Status::ERR_NOT_SUPPORTED)));
            Ok(())
        }
        Err(u) => Err(u.status(Status::ERR_INIT)),
    }
}

/// The index an answer gives its fabric (`PMIX_FABRIC_INDEX`), if any.
fn index_in(infos: &[Info]) -> Option<usize> {
    infos.iter().find_map(|i| match i.value {
        Value::Size(n) if i.key.as_bytes() == k::FABRIC_INDEX.as_bytes() => Some(n),
        _ => None,
    })
}

/// Fills `fabric` with a new registration of `view`.
///
/// # Safety
/// `fabric` is a valid `pmix_fabric_t` the caller does not touch meanwhile.
unsafe fn install(fabric: *mut pmix_fabric_t, view: View) -> Result<(), Status> {
    let info = convert::infos_to_c(&view.infos)?;
    // A fabric registered again first lets its old registration go; any
    // other `module` is not ours and is only overwritten.
    // SAFETY: per the contract.
    let _ = unsafe { deregister(fabric) };
    let index = index_in(&view.infos).unwrap_or_else(|| NEXT_INDEX.fetch_add(1, Ordering::Relaxed));
    let record = Box::into_raw(Box::new(Registration {
        index,
        library: view.library,
        cost: view.cost,
    }));
    let mut live = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
    live.get_or_insert_with(HashSet::new)
        .insert(record as usize);
    // SAFETY: per the contract.
    let f = unsafe { &mut *fabric };
    f.info = info;
    f.ninfo = view.infos.len();
    f.index = index;
    f.module = record.cast();
    Ok(())
}

/// The registration `fabric` holds, if it is a live one.
///
/// # Safety
/// `fabric` is a valid `pmix_fabric_t`.
unsafe fn registration(fabric: *mut pmix_fabric_t) -> Result<*mut Registration, Status> {
    // SAFETY: per the contract.
    let module = unsafe { (*fabric).module } as usize;
    let live = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
    if live.as_ref().is_some_and(|l| l.contains(&module)) {
        Ok(module as *mut Registration)
    } else {
        Err(Status::ERR_BAD_PARAM)
    }
}

/// Replaces the infos of `fabric`'s live registration `reg` by `view`'s.
///
/// # Safety
/// `fabric` is a valid `pmix_fabric_t` holding the live record `reg`, which
/// nothing else uses meanwhile.
unsafe fn refresh(
    fabric: *mut pmix_fabric_t,
    reg: *mut Registration,
    view: View,
) -> Result<(), Status> {
    let info = convert::infos_to_c(&view.infos)?;
    // SAFETY: per the contract.
    let (f, r) = unsafe { (&mut *fabric, &mut *reg) };
    // SAFETY: the library's malloc'd copy of f.ninfo infos.
    unsafe { convert::infos_free(f.info, f.ninfo) };
    f.info = info;
    f.ninfo = view.infos.len();
    r.cost = view.cost;
    Ok(())
}

/// What finishes an operation: its status.
type Finish = Box<dyn FnOnce(Status) + Send + 'static>;

/// Asks for `op` on `fabric` (or builds the library's view when
/// `library_only`), applies the answer with `apply` on the answering
/// thread, and hands `finish` the outcome.
fn start(
    fabric: *mut pmix_fabric_t,
    op: u8,
    directives: Vec<Info>,
    library_only: bool,
    apply: impl FnOnce(*mut pmix_fabric_t, View) -> Result<(), Status> + Send + 'static,
    finish: Finish,
) -> Result<(), Status> {
    let target = SendPtr(fabric.cast());
    let done: Done = Box::new(move |r| {
        let target = target;
        let s = r.and_then(|v| apply(target.0.cast(), v));
        finish(s.err().unwrap_or(Status::SUCCESS));
    });
    if library_only {
        run_later(move || done(library_view()));
        return Ok(());
    }
    ask(op, directives, done)
}

/// Starts the registration of `fabric` under `directives`.
fn register(
    fabric: *mut pmix_fabric_t,
    directives: Vec<Info>,
    finish: Finish,
) -> Result<(), Status> {
    let apply = |f: *mut pmix_fabric_t, v: View| {
        // SAFETY: the caller's fabric, which the standard forbids it to
        // touch until the operation finished.
        unsafe { install(f, v) }
    };
    start(
        fabric,
        PMIX_FABRIC_REQUEST_INFO as u8,
        directives,
        false,
        apply,
        finish,
    )
}

/// Starts the update of `fabric`, a live registration
/// (`PMIX_ERR_BAD_PARAM` if it is not one).
///
/// # Safety
/// `fabric` is a valid `pmix_fabric_t`.
unsafe fn update(fabric: *mut pmix_fabric_t, finish: Finish) -> Result<(), Status> {
    // SAFETY: forwarded contract.
    let reg = unsafe { registration(fabric) }?;
    // SAFETY: a live record.
    let (index, library) = unsafe { ((*reg).index, (*reg).library) };
    let index = Info::keyed(k::FABRIC_INDEX, Value::Size(index)).ok_or(Status::ERROR)?;
    let record = SendPtr(reg.cast());
    let apply = move |f: *mut pmix_fabric_t, v: View| {
        let record = record;
        // SAFETY: `f` holds this live record (checked above) and neither
        // is touched until the operation finished (the standard's rule).
        unsafe { refresh(f, record.0.cast(), v) }
    };
    start(
        fabric,
        PMIX_FABRIC_UPDATE_INFO as u8,
        vec![index],
        library,
        apply,
        finish,
    )
}

/// Ends `fabric`'s registration: frees its infos and record and clears
/// the fields (`PMIX_ERR_BAD_PARAM` if it is not a live registration).
///
/// # Safety
/// `fabric` is a valid `pmix_fabric_t`.
unsafe fn deregister(fabric: *mut pmix_fabric_t) -> Result<(), Status> {
    // SAFETY: forwarded contract.
    let reg = unsafe { registration(fabric) }?;
    let mut live = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
    if !live.as_mut().is_some_and(|l| l.remove(&(reg as usize))) {
        return Err(Status::ERR_BAD_PARAM);
    }
    drop(live);
    // SAFETY: the record was live and is now unlisted: this is its one free.
    drop(unsafe { Box::from_raw(reg) });
    // SAFETY: per the contract; info is the library's malloc'd copy.
    let f = unsafe { &mut *fabric };
    // SAFETY: as above.
    unsafe { convert::infos_free(f.info, f.ninfo) };
    f.info = null_mut();
    f.ninfo = 0;
    f.module = null_mut();
    Ok(())
}

/// Runs a blocking form: starts the operation with a callback and waits
/// for its status.
fn wait(start: impl FnOnce(Finish) -> Result<(), Status>) -> Result<(), Status> {
    match server_wait(|cb: Box<dyn FnOnce(Status) + Send>| start(cb))? {
        Status::SUCCESS => Ok(()),
        s => Err(s),
    }
}

/// `PMIx_Fabric_register`: fills `fabric` with the information of the
/// fabric `directives` name (the default one without), from the host or,
/// when no host describes one, from this node's NICs (see the module doc).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register(
    fabric: *mut pmix_fabric_t,
    directives: *const pmix_info_t,
    ndirs: usize,
) -> c_int {
    guard(|| {
        state::require_init()?;
        nonnull!(fabric);
        // SAFETY: NULL or ndirs valid infos (C contract).
        let d = unsafe { infos_in(directives, ndirs) }?;
        wait(|cb| register(fabric, d, cb))
    })
}

/// `PMIx_Fabric_register_nb`: as `PMIx_Fabric_register`, `cbfunc` getting
/// the status once `fabric` is filled.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register_nb(
    fabric: *mut pmix_fabric_t,
    directives: *const pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        state::require_init()?;
        nonnull!(fabric);
        // SAFETY: NULL or ndirs valid infos (C contract).
        let d = unsafe { infos_in(directives, ndirs) }?;
        register(fabric, d, op_callback(cbfunc, cbdata))
    })
}

/// `PMIx_Fabric_update`: refreshes a registered fabric's information.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update(fabric: *mut pmix_fabric_t) -> c_int {
    guard(|| {
        state::require_init()?;
        nonnull!(fabric);
        // SAFETY: a valid fabric (C contract).
        wait(|cb| unsafe { update(fabric, cb) })
    })
}

/// `PMIx_Fabric_update_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update_nb(
    fabric: *mut pmix_fabric_t,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        state::require_init()?;
        nonnull!(fabric);
        // SAFETY: a valid fabric (C contract).
        unsafe { update(fabric, op_callback(cbfunc, cbdata)) }
    })
}

/// `PMIx_Fabric_deregister`: releases what registration gave `fabric`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister(fabric: *mut pmix_fabric_t) -> c_int {
    guard(|| {
        state::require_init()?;
        nonnull!(fabric);
        // SAFETY: a valid fabric (C contract).
        unsafe { deregister(fabric) }
    })
}

/// `PMIx_Fabric_deregister_nb`: as `PMIx_Fabric_deregister`, done at once
/// (`PMIX_OPERATION_SUCCEEDED`, `cbfunc` not called), as OpenPMIx does.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister_nb(
    fabric: *mut pmix_fabric_t,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        state::require_init()?;
        nonnull!(fabric);
        // SAFETY: a valid fabric (C contract).
        unsafe { deregister(fabric) }?;
        Err(Status::OPERATION_SUCCEEDED)
    })
}
