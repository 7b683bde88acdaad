//! Event notification at the C boundary: `PMIx_Register_event_handler`,
//! `PMIx_Deregister_event_handler`, `PMIx_Notify_event`, in a client or a
//! server process (the client's handlers when `PMIx_Init` ran, else the
//! server's).
//!
//! A C handler is wrapped as a core [`EventHandler`]: it runs on the
//! library's event thread with C copies of the event (source, infos,
//! results so far) that stay valid until it calls the completion callback
//! we give it, which converts its results back, lets it release them
//! (its `cbfunc(PMIX_SUCCESS, thiscbdata)`), frees our copies and moves the
//! chain on.
//!
//! Callbacks of these calls (`cbfunc`) run on the library's event thread,
//! never in the caller's thread. As OpenPMIx 4.2: a registration without a
//! callback returns the handler's reference (numbered from 0) or an
//! error; deregistering an unknown reference succeeds.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
//!
//! Invariant: a C handler's copies of an event stay valid until it calls
//! its completion callback and has returned (a handler that completes
//! first and reads its arguments after, as OpenPMIx's `examples/fault.c`
//! does, reads them intact: OpenPMIx frees them later, on its progress
//! thread), and that callback is honoured once.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use pmix_core::events::{Event, EventDone, EventHandler, EventHandlers, HandlerCall, Range};
use pmix_core::{Proc, Status};

use crate::api::args::{check_array, infos_in};
use crate::api::serving::{self, Serving};
use crate::api::state::{self, require_init};
use crate::boundary::guard;
use crate::boundary::{op_callback, SendPtr};
use crate::convert;
use crate::sys::{
    pmix_hdlr_reg_cbfunc_t, pmix_info_t, pmix_notification_fn_t, pmix_op_cbfunc_t, pmix_proc_t,
    pmix_status_t,
};

/// Where this process's handlers live: the client's once `PMIx_Init`
/// ran, else the server's.
enum Side {
    Client(&'static pmix_core::client::Client),
    Server(Arc<crate::api::state::Running>),
}

fn side() -> Result<Side, Status> {
    require_init()?;
    match serving::serving(false) {
        Ok(Serving::Client(c)) if c.is_initialized() => Ok(Side::Client(c)),
        _ => state::server().map(Side::Server),
    }
}

impl Side {
    fn handlers(&self) -> Arc<EventHandlers> {
        match self {
            Side::Client(c) => c.events().clone(),
            Side::Server(s) => s.server.events().clone(),
        }
    }
}

/// Where a C handler's call stands (see [`InFlight::stage`]).
const IN_CALL: u8 = 0;
/// The handler returned without having completed.
const RETURNED: u8 = 1;
/// The handler completed while still in the call.
const COMPLETED_IN_CALL: u8 = 2;

/// One event in a C handler's hands: what it was given and the chain's
/// completion. Freed once the handler called [`event_done`] and returned
/// (whichever comes last frees it and moves the chain on).
struct InFlight {
    /// `IN_CALL`, then `RETURNED` or `COMPLETED_IN_CALL`.
    stage: std::sync::atomic::AtomicU8,
    /// The handler's verdict and results, when it completed in the call.
    verdict: std::sync::Mutex<Option<(Status, Vec<pmix_core::Info>)>>,
    done: Option<EventDone>,
    source: pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
    results: *mut pmix_info_t,
    nresults: usize,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        // SAFETY: both arrays came from infos_to_c with these counts.
        unsafe {
            convert::infos_free(self.info, self.ninfo);
            convert::infos_free(self.results, self.nresults);
        }
    }
}

/// The `pmix_event_notification_cbfunc_fn_t` given to C handlers.
unsafe extern "C" fn event_done(
    status: pmix_status_t,
    results: *mut pmix_info_t,
    nresults: usize,
    cbfunc: pmix_op_cbfunc_t,
    thiscbdata: *mut c_void,
    notification_cbdata: *mut c_void,
) {
    crate::boundary::guard_or((), || {
        // SAFETY: results is NULL or nresults valid infos (C contract).
        let res = unsafe { infos_in(results, nresults) }.unwrap_or_default();
        if let Some(f) = cbfunc {
            // SAFETY: the handler's release callback with its own data.
            unsafe { f(Status::SUCCESS.0, thiscbdata) };
        }
        if notification_cbdata.is_null() {
            return;
        }
        let fl = notification_cbdata.cast::<InFlight>();
        {
            // SAFETY: fl is the InFlight box `c_handler` leaked for this
            // call, not freed before both the handler returned and this
            // completion (once) ran: shared access is sound here.
            let f = unsafe { &*fl };
            *f.verdict.lock().unwrap_or_else(|e| e.into_inner()) = Some((Status(status), res));
            let in_call = f.stage.compare_exchange(
                IN_CALL,
                COMPLETED_IN_CALL,
                std::sync::atomic::Ordering::AcqRel,
                std::sync::atomic::Ordering::Acquire,
            );
            if in_call.is_ok() {
                // `c_handler` finishes once the handler returns.
                return;
            }
        }
        // SAFETY: the handler returned (stage RETURNED): nothing else
        // holds fl, which is reclaimed once.
        finish(unsafe { Box::from_raw(fl) });
    })
}

/// Frees a C handler's copies, then moves the chain on with the verdict
/// it completed with.
fn finish(mut f: Box<InFlight>) {
    let done = f.done.take();
    let verdict = f.verdict.lock().unwrap_or_else(|e| e.into_inner()).take();
    // Our copies go before the chain moves on.
    drop(f);
    if let (Some(d), Some((status, res))) = (done, verdict) {
        d.complete(status, res);
    }
}

/// A C event handler (`pmix_notification_fn_t` without the `Option`).
type CHandler = unsafe extern "C" fn(
    usize,
    pmix_status_t,
    *const pmix_proc_t,
    *mut pmix_info_t,
    usize,
    *mut pmix_info_t,
    usize,
    crate::sys::pmix_event_notification_cbfunc_fn_t,
    *mut c_void,
);

/// Wraps a C handler.
fn c_handler(f: CHandler) -> EventHandler {
    Arc::new(move |call: HandlerCall| {
        let HandlerCall {
            id,
            status,
            source,
            infos,
            results,
            done,
        } = call;
        let Ok(info) = convert::infos_to_c(&infos) else {
            return done.complete(Status::ERR_NOMEM, Vec::new());
        };
        let res = match convert::infos_to_c(&results) {
            Ok(r) => r,
            Err(_) => {
                // SAFETY: just allocated with this count.
                unsafe { convert::infos_free(info, infos.len()) };
                return done.complete(Status::ERR_NOMEM, Vec::new());
            }
        };
        let fl = Box::into_raw(Box::new(InFlight {
            stage: std::sync::atomic::AtomicU8::new(IN_CALL),
            verdict: std::sync::Mutex::new(None),
            done: Some(done),
            source: convert::proc_to_c(&source),
            info,
            ninfo: infos.len(),
            results: res,
            nresults: results.len(),
        }));
        // SAFETY: fl is valid until the handler returned and completed
        // (see event_done).
        let src = unsafe { std::ptr::addr_of!((*fl).source) };
        // SAFETY: the host's handler with arrays valid until it completes.
        unsafe {
            f(
                id,
                status.0,
                src,
                info,
                infos.len(),
                res,
                results.len(),
                Some(event_done),
                fl.cast(),
            )
        };
        // SAFETY: fl stays valid until both the return (here) and the
        // completion happened: shared access is sound.
        let returned = unsafe { &*fl }.stage.compare_exchange(
            IN_CALL,
            RETURNED,
            std::sync::atomic::Ordering::AcqRel,
            std::sync::atomic::Ordering::Acquire,
        );
        if returned.is_err() {
            // It completed in the call: its arguments are ours again.
            // SAFETY: event_done left fl to us (stage COMPLETED_IN_CALL);
            // it is reclaimed once.
            finish(unsafe { Box::from_raw(fl) });
        }
    })
}

/// `PMIx_Register_event_handler`: registers `evhdlr` for `codes` (none:
/// a default handler). With `cbfunc`, returns `PMIX_SUCCESS` and reports
/// the status and reference through it from the event thread; without,
/// returns the reference (or the error).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Register_event_handler(
    codes: *mut pmix_status_t,
    ncodes: usize,
    info: *mut pmix_info_t,
    ninfo: usize,
    evhdlr: pmix_notification_fn_t,
    cbfunc: pmix_hdlr_reg_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    let mut id = None;
    let rc = guard(|| {
        let role = side()?;
        check_array(codes, ncodes)?;
        let f = evhdlr.ok_or(Status::ERR_BAD_PARAM)?;
        let codes: Vec<Status> = if ncodes == 0 {
            Vec::new()
        } else {
            // SAFETY: checked non-NULL; ncodes elements (C contract).
            unsafe { std::slice::from_raw_parts(codes, ncodes) }
                .iter()
                .map(|c| Status(*c))
                .collect()
        };
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        let handlers = role.handlers();
        let r = handlers.register(&codes, &infos, c_handler(f));
        match cbfunc {
            None => {
                id = Some(r?);
                Ok(())
            }
            Some(cb) => {
                let data = SendPtr(cbdata);
                // A failed registration reports UINT32_MAX as its
                // reference, as OpenPMIx 4.2.2 does.
                let (status, refid) = match r {
                    Ok(i) => (Status::SUCCESS, i),
                    Err(s) => (s, u32::MAX as usize),
                };
                handlers.run(Box::new(move || {
                    let data = data;
                    // SAFETY: the caller's callback with its own cbdata.
                    crate::boundary::guard_or((), || unsafe { cb(status.0, refid, data.0) });
                }));
                Ok(())
            }
        }
    });
    match id {
        Some(i) if rc == Status::SUCCESS.0 => c_int::try_from(i).unwrap_or(c_int::MAX),
        _ => rc,
    }
}

/// `PMIx_Deregister_event_handler`: later events no longer reach the
/// handler. With `cbfunc`, the status goes through it (event thread).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Deregister_event_handler(
    evhdlr_ref: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let handlers = side()?.handlers();
        // OpenPMIx reports success for an unknown reference too.
        let _ = handlers.deregister(evhdlr_ref);
        if let Some(cb) = cbfunc {
            let data = SendPtr(cbdata);
            handlers.run(Box::new(move || {
                let data = data;
                // SAFETY: the caller's callback with its own cbdata.
                crate::boundary::guard_or((), || unsafe { cb(Status::SUCCESS.0, data.0) });
            }));
        }
        Ok(())
    })
}

/// `PMIx_Notify_event`: raises `status` for the processes in `range`
/// (source NULL: this process). `cbfunc` runs on a library thread once
/// the notification is accepted.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Notify_event(
    status: pmix_status_t,
    source: *const pmix_proc_t,
    range: u8,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let role = side()?;
        let range = Range(range);
        if !range.is_valid() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let src: Option<Proc> = if source.is_null() {
            None
        } else {
            // SAFETY: a valid proc (C contract, checked non-NULL).
            Some(convert::proc_from_c(unsafe { &*source }))
        };
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        let done = cbfunc.map(|_| op_callback(cbfunc, cbdata));
        match role {
            Side::Client(c) => c.notify_event(Status(status), src.as_ref(), range, &infos, done),
            Side::Server(s) => {
                let source = src.unwrap_or_else(|| s.server.proc());
                s.server.notify_event(
                    Event {
                        status: Status(status),
                        source,
                        range,
                        infos,
                    },
                    done,
                )
            }
        }
    })
}
