//! The bridge of a C host's `publish`, `lookup` and `unpublish` module
//! functions (`pmix_server_publish_fn_t`, `pmix_server_lookup_fn_t`,
//! `pmix_server_unpublish_fn_t`) to the core's [`HostModule`] upcalls.
//!
//! As in OpenPMIx, the proc is valid for the call only; the info array
//! and the `char **keys` array (NULL when a client unpublishes everything)
//! stay valid until the host calls back: they live in the operation box
//! handed to the host as `cbdata` (see [`upcall`] for the protocol). The
//! `pmix_pdata_t` array a host gives `pmix_lookup_cbfunc_t` stays the
//! host's: it is copied before the callback returns.
//!
//! [`HostModule`]: pmix_core::server::HostModule
//!
//! Invariant: the C arrays handed to the host stay valid until it calls
//! back, and are freed exactly once after that.

use std::ffi::{c_char, c_void};

use pmix_core::server::{Completion, OpOutput, PublishedValue};
use pmix_core::{Info, Key, Proc, Status};

use crate::api::upcall::{self, HostCall};
use crate::convert;
use crate::sys::{pmix_info_t, pmix_pdata_t, pmix_status_t};
use crate::sys::{LookupFn, PublishFn, UnpublishFn};

/// The C arrays of a publish, lookup or unpublish, freed on drop.
struct PubArgs {
    info: *mut pmix_info_t,
    ninfo: usize,
    keys: *mut *mut c_char,
}

impl PubArgs {
    fn new(infos: &[Info], keys: &[Key]) -> Result<Self, Status> {
        let info = convert::infos_to_c(infos)?;
        let names: Vec<_> = keys.iter().map(|k| k.as_c_str().to_owned()).collect();
        let keys = match convert::argv_to_c(&names) {
            Ok(k) => k,
            Err(e) => {
                // SAFETY: info came from infos_to_c with this count.
                unsafe { convert::infos_free(info, infos.len()) };
                return Err(e);
            }
        };
        Ok(PubArgs {
            info,
            ninfo: infos.len(),
            keys,
        })
    }
}

impl Drop for PubArgs {
    fn drop(&mut self) {
        // SAFETY: both arrays came from infos_to_c / argv_to_c and are
        // freed once, here.
        unsafe {
            convert::infos_free(self.info, self.ninfo);
            convert::argv_free(self.keys);
        }
    }
}

/// An operation in the host's hands, with the C arrays it was given.
type PubOp<T> = HostCall<T, PubArgs>;

/// Runs one upcall through [`upcall::call`], giving `f` the cbdata, the
/// infos and the keys.
fn call<T: OpOutput + Default>(
    done: Completion<T>,
    infos: &[Info],
    keys: &[Key],
    f: impl FnOnce(*mut c_void, *const pmix_info_t, usize, *mut *mut c_char) -> pmix_status_t,
) -> Result<(), Status> {
    let args = PubArgs::new(infos, keys)?;
    let (info, ninfo, keys) = (args.info.cast_const(), args.ninfo, args.keys);
    upcall::call(HostCall::new(done, args), |cb| f(cb, info, ninfo, keys))
}

/// The `pmix_op_cbfunc_t` of publish and unpublish.
unsafe extern "C" fn pub_op_done(status: pmix_status_t, cbdata: *mut c_void) {
    crate::boundary::guard_or((), || {
        // SAFETY: cbdata is what `upcall::call` gave the host with a
        // `PubOp<()>`, called back once.
        if let Some(op) = unsafe { upcall::answered::<PubOp<()>>(cbdata) } {
            op.complete(Status(status).into_result());
        }
    })
}

/// The `pmix_lookup_cbfunc_t`: copies the host's pdata array.
unsafe extern "C" fn lookup_done(
    status: pmix_status_t,
    data: *mut pmix_pdata_t,
    ndata: usize,
    cbdata: *mut c_void,
) {
    crate::boundary::guard_or((), || {
        // SAFETY: cbdata is what `upcall::call` gave the host with a
        // `PubOp<Vec<PublishedValue>>`, called back once.
        let Some(op) = (unsafe { upcall::answered::<PubOp<Vec<PublishedValue>>>(cbdata) }) else {
            return;
        };
        let ok = status == Status::SUCCESS.0 || status == Status::ERR_PARTIAL_SUCCESS.0;
        let r = if !ok {
            Err(Status(status))
        } else if data.is_null() || ndata == 0 {
            Err(Status::ERR_NOT_FOUND)
        } else {
            // SAFETY: the host's ndata elements, valid during this call.
            let items = unsafe { std::slice::from_raw_parts(data, ndata) };
            items
                .iter()
                .map(|p| {
                    Ok(PublishedValue {
                        publisher: convert::proc_from_c(&p.proc_),
                        key: convert::key_from_c(&p.key),
                        // SAFETY: a valid value (the host's contract).
                        value: unsafe { convert::value_from_c(&p.value)? },
                    })
                })
                .collect::<Result<Vec<_>, Status>>()
        };
        op.complete(r);
    })
}

/// `publish` upcall.
pub(crate) fn publish(
    f: PublishFn,
    proc: &Proc,
    infos: &[Info],
    done: Completion<()>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    let cp = convert::proc_to_c(proc);
    call(done, infos, &[], |cb, info, n, _| {
        // SAFETY: the host's function; the proc lives for the call, the
        // infos in the operation box until the host calls back.
        unsafe { f(&cp, info, n, Some(pub_op_done), cb) }
    })
}

/// `lookup` upcall.
pub(crate) fn lookup(
    f: LookupFn,
    proc: &Proc,
    keys: &[Key],
    infos: &[Info],
    done: Completion<Vec<PublishedValue>>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    let cp = convert::proc_to_c(proc);
    call(done, infos, keys, |cb, info, n, k| {
        // SAFETY: as in `publish`; the keys live in the operation too.
        unsafe { f(&cp, k, info, n, Some(lookup_done), cb) }
    })
}

/// `unpublish` upcall (no keys: NULL, "everything of this process").
pub(crate) fn unpublish(
    f: UnpublishFn,
    proc: &Proc,
    keys: &[Key],
    infos: &[Info],
    done: Completion<()>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    let cp = convert::proc_to_c(proc);
    call(done, infos, keys, |cb, info, n, k| {
        // SAFETY: as in `lookup`.
        unsafe { f(&cp, k, info, n, Some(pub_op_done), cb) }
    })
}
