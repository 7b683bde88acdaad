//! The C bridge of the host's `spawn`, `connect` and `disconnect` upcalls
//! (fields of `pmix_server_module_t`), called from `CHost`'s
//! [`HostModule`](pmix_core::server::HostModule) implementation.
//!
//! Ownership follows OpenPMIx: the arrays handed to the host (requestor,
//! participants, infos, apps) belong to the library and stay valid until
//! the host calls the `cbfunc`, after which the library frees them; the
//! host must copy what it keeps. The namespace the host passes to the
//! `pmix_spawn_cbfunc_t` is the host's, read during the callback.
//!
//! The upcalls follow [`upcall`]'s protocol.
//!
//! Invariant: the C arrays handed to the host stay valid until it calls
//! back, and are freed exactly once after that.

use std::ffi::{c_char, c_void, CStr};

use pmix_core::server::Completion;
use pmix_core::value::App;
use pmix_core::{DataType, Info, Nspace, Proc, Status, Value};

use crate::api::upcall::{self, HostCall};
use crate::convert;
use crate::sys::{pmix_app_t, pmix_info_t, pmix_proc_t, pmix_status_t, PMIX_MAX_NSLEN};
use crate::sys::{ConnectFn, SpawnFn};

/// `calloc`ed C arrays of one type, freed on drop.
struct CItems(DataType, *mut c_void, usize);

impl CItems {
    fn new(t: DataType, items: &[Value]) -> Result<CItems, Status> {
        Ok(CItems(t, convert::write_items(t, items)?, items.len()))
    }
}

impl Drop for CItems {
    fn drop(&mut self) {
        // SAFETY: the array came from write_items with this type and count.
        unsafe { convert::free_items(self.0, self.1, self.2) };
    }
}

/// A spawn's C arguments: the requestor, the job infos, the apps.
struct SpawnArgs {
    proc_: Box<pmix_proc_t>,
    infos: CItems,
    apps: CItems,
}

/// A spawn in the host's hands.
type SpawnOp = HostCall<Nspace, SpawnArgs>;

/// A connect or disconnect in the host's hands, with its procs and infos.
type CollectiveOp = HostCall<(), (CItems, CItems)>;

fn infos_items(infos: &[Info]) -> Result<CItems, Status> {
    let v: Vec<Value> = infos
        .iter()
        .cloned()
        .map(|i| Value::Info(Box::new(i)))
        .collect();
    CItems::new(DataType::Info, &v)
}

/// The `pmix_spawn_cbfunc_t` handed to the host.
unsafe extern "C" fn spawn_done(status: pmix_status_t, nspace: *mut c_char, cbdata: *mut c_void) {
    crate::boundary::guard_or((), || {
        // SAFETY: cbdata is what `upcall::call` gave the host with a
        // `SpawnOp`, called back once.
        let Some(op) = (unsafe { upcall::answered::<SpawnOp>(cbdata) }) else {
            return;
        };
        let r = if status != Status::SUCCESS.0 {
            Err(Status(status))
        } else if nspace.is_null() {
            Err(Status::ERR_BAD_PARAM)
        } else {
            // SAFETY: the host's NUL-terminated namespace, read at most
            // PMIX_MAX_NSLEN + 1 bytes (a pmix_nspace_t).
            let bytes =
                unsafe { std::slice::from_raw_parts(nspace.cast::<u8>(), PMIX_MAX_NSLEN + 1) };
            CStr::from_bytes_until_nul(bytes)
                .map_err(|_| Status::ERR_BAD_PARAM)
                .and_then(|c| Nspace::new(c.to_bytes()))
                .and_then(|ns| {
                    if ns.is_empty() {
                        Err(Status::ERR_BAD_PARAM)
                    } else {
                        Ok(ns)
                    }
                })
        };
        op.complete(r);
    })
}

/// The `pmix_op_cbfunc_t` handed to the host for connect and disconnect.
unsafe extern "C" fn collective_done(status: pmix_status_t, cbdata: *mut c_void) {
    crate::boundary::guard_or((), || {
        // SAFETY: cbdata is what `upcall::call` gave the host with a
        // `CollectiveOp`, called back once.
        if let Some(op) = unsafe { upcall::answered::<CollectiveOp>(cbdata) } {
            op.complete(Status(status).into_result());
        }
    })
}

/// Calls the host's `spawn`.
pub(crate) fn spawn(
    f: SpawnFn,
    requestor: &Proc,
    job_info: &[Info],
    apps: &[App],
    done: Completion<Nspace>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    let app_values: Vec<Value> = apps
        .iter()
        .cloned()
        .map(|a| Value::App(Box::new(a)))
        .collect();
    let args = SpawnArgs {
        proc_: Box::new(convert::proc_to_c(requestor)),
        infos: infos_items(job_info)?,
        apps: CItems::new(DataType::App, &app_values)?,
    };
    let (pp, ip, ni, ap, na) = (
        &*args.proc_ as *const pmix_proc_t,
        args.infos.1.cast::<pmix_info_t>().cast_const(),
        args.infos.2,
        args.apps.1.cast::<pmix_app_t>().cast_const(),
        args.apps.2,
    );
    // PMIX_OPERATION_SUCCEEDED (spawned at once) gives the client success
    // with an empty namespace, as OpenPMIx's server does.
    upcall::call(HostCall::new(done, args), |cb| {
        // SAFETY: the host's function; every array lives in the operation
        // until the host calls back.
        unsafe { f(pp, ip, ni, ap, na, Some(spawn_done), cb) }
    })
}

/// Calls the host's `connect` or `disconnect`.
pub(crate) fn collective(
    f: ConnectFn,
    procs: &[Proc],
    infos: &[Info],
    done: Completion<()>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    let pv: Vec<Value> = procs.iter().cloned().map(Value::Proc).collect();
    let args = (CItems::new(DataType::Proc, &pv)?, infos_items(infos)?);
    let (pp, np, ip, ni) = (
        args.0 .1.cast::<pmix_proc_t>().cast_const(),
        args.0 .2,
        args.1 .1.cast::<pmix_info_t>().cast_const(),
        args.1 .2,
    );
    upcall::call(HostCall::new(done, args), |cb| {
        // SAFETY: the host's function; the arrays live in the operation
        // until the host calls back.
        unsafe { f(pp, np, ip, ni, Some(collective_done), cb) }
    })
}
