//! The client calls of the resource-manager services: `PMIx_Query_info`,
//! `PMIx_Log`, `PMIx_Job_control`, `PMIx_Process_monitor`,
//! `PMIx_Allocation_request`, `PMIx_Get_credential` and
//! `PMIx_Validate_credential` (blocking and `_nb`), on
//! [`pmix_core::client::Client`].
//!
//! Result arrays of the blocking calls are `malloc`ed (released with
//! `PMIX_INFO_FREE`). The `_nb` callbacks run on the progress thread; the
//! info arrays they get stay the library's: `pmix_info_cbfunc_t` callbacks
//! get a `release_fn` that frees them, the credential and validation
//! callbacks' arguments are freed when the callback returns (as the
//! standard says).
//!
//! In a process that is a server (not a client), `PMIx_Query_info`,
//! `PMIx_Log`, `PMIx_Job_control` and `PMIx_Session_control` go to that
//! server itself, as the requester (a blocking form called from inside
//! an upcall returns `PMIX_ERR_WOULD_BLOCK`: it would wait for the thread
//! running it); the other calls, and every call in a tool (but
//! `PMIx_Session_control`, which a tool sends to its server), return
//! `PMIX_ERR_NOT_SUPPORTED`.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it.
//!
//! Invariant: every `_nb` callback runs once, on the progress thread; a
//! blocking call's results are `malloc`ed, the caller's to free.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_int, c_void};
use std::ptr::null_mut;

use pmix_core::value::Query;
use pmix_core::{Info, Status};

use crate::api::args::{infos_in, procs_in};
use crate::api::results::{answer, clear_results, deliver_infos, infos_cb, write_results};
use crate::api::serving::{self, Serving, Unserved};
use crate::api::state::{self, server_wait};
use crate::boundary::SendPtr;
use crate::boundary::{guard, guard_or, op_callback};
use crate::convert;
use crate::nonnull;
use crate::sys::{
    pmix_byte_object_t, pmix_credential_cbfunc_t, pmix_info_cbfunc_t, pmix_info_t,
    pmix_op_cbfunc_t, pmix_proc_t, pmix_query_t, pmix_validation_cbfunc_t,
};

/// The connected client; in a process initialized only as a server or a
/// tool (which these calls do not serve yet) `PMIX_ERR_NOT_SUPPORTED`,
/// before any init `PMIX_ERR_INIT`.
fn client() -> Result<&'static pmix_core::client::Client, Status> {
    serving::client_or(Status::ERR_NOT_SUPPORTED)
}

/// Reads the caller's queries: each needs a non-empty, NULL-terminated
/// key list; qualifiers come from `nqual`, or (as OpenPMIx accepts) up to
/// the info marked `PMIX_INFO_ARRAY_END` when `nqual` is zero.
///
/// # Safety
/// `queries` points to `n` valid queries.
unsafe fn queries_in(queries: *const pmix_query_t, n: usize) -> Result<Vec<Query>, Status> {
    if queries.is_null() || n == 0 {
        return Err(Status::ERR_BAD_PARAM);
    }
    // SAFETY: non-NULL, n elements (caller's contract).
    let qs = unsafe { std::slice::from_raw_parts(queries, n) };
    let mut out = Vec::with_capacity(n);
    for q in qs {
        if q.keys.is_null() {
            return Err(Status::ERR_BAD_PARAM);
        }
        // SAFETY: a NULL-terminated argv (caller's contract).
        let keys = unsafe { convert::argv_from_c(q.keys) };
        if keys.is_empty() || keys.iter().any(|k| k.as_bytes().is_empty()) {
            return Err(Status::ERR_BAD_PARAM);
        }
        let mut nqual = q.nqual;
        if nqual == 0 && !q.qualifiers.is_null() {
            // SAFETY: the caller marks the last qualifier with the END
            // flag when it gives no count (OpenPMIx's convention).
            while unsafe { (*q.qualifiers.add(nqual)).flags } & 0x2 == 0 {
                nqual += 1;
            }
        }
        // SAFETY: NULL or nqual valid infos.
        let qualifiers = unsafe { infos_in(q.qualifiers, nqual) }?;
        out.push(Query { keys, qualifiers });
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Queries

/// The process making a query or log call: a connected client, or a
/// server process asking its own server (and host);
/// `PMIX_ERR_NOT_SUPPORTED` for a tool with no server connection left.
fn requester() -> Result<Serving, Status> {
    serving::serving(true).map_err(|u| u.status(Status::ERR_NOT_SUPPORTED))
}

/// `PMIx_Query_info`: `PMIX_SUCCESS` or `PMIX_ERR_PARTIAL_SUCCESS` with
/// `*results` holding one info per key answered.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_info(
    queries: *mut pmix_query_t,
    nqueries: usize,
    results: *mut *mut pmix_info_t,
    nresults: *mut usize,
) -> c_int {
    guard(|| {
        let who = requester()?;
        nonnull!(results, nresults);
        // SAFETY: valid out-parameters (checked non-NULL).
        unsafe { clear_results(results, nresults) };
        // SAFETY: queries valid for nqueries (C contract).
        let qs = unsafe { queries_in(queries, nqueries) }?;
        let (status, infos) = match who {
            Serving::Client(c) => c.query(&qs)?,
            Serving::Server => server_wait(|cb| state::with_server(|s| s.query_nb(qs, cb))?)??,
        };
        // SAFETY: valid out-parameters.
        unsafe { write_results(&infos, results, nresults) }?;
        status.into_result()
    })
}

/// `PMIx_Query_info_nb`: `cbfunc` runs on the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_info_nb(
    queries: *mut pmix_query_t,
    nqueries: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let who = requester()?;
        // SAFETY: queries valid for nqueries (C contract).
        let qs = unsafe { queries_in(queries, nqueries) }?;
        let data = SendPtr(cbdata);
        let cb = Box::new(move |r: Result<(Status, Vec<Info>), Status>| {
            let data = data;
            match r {
                Ok((s, infos)) => deliver_infos(cbfunc, s, &infos, data),
                Err(s) => deliver_infos(cbfunc, s, &[], data),
            }
        });
        match who {
            Serving::Client(c) => c.query_nb(&qs, cb),
            Serving::Server => state::with_server(|s| s.query_nb(qs, cb))?,
        }
    })
}

// ---------------------------------------------------------------------------
// Logging

/// `PMIx_Log` (also in a server process: its own host logs).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Log(
    data: *const pmix_info_t,
    ndata: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
) -> c_int {
    guard(|| {
        let who = requester()?;
        // SAFETY: arrays NULL or valid for their counts (C contract).
        let (d, dirs) = unsafe { (infos_in(data, ndata)?, infos_in(directives, ndirs)?) };
        match who {
            Serving::Client(c) => c.log(&d, &dirs),
            Serving::Server => {
                server_wait(|cb| state::with_server(|s| s.log_nb(d, dirs, cb))?)?.into_result()
            }
        }
    })
}

/// `PMIx_Log_nb`: `cbfunc` runs on the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Log_nb(
    data: *const pmix_info_t,
    ndata: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let who = requester()?;
        // SAFETY: arrays NULL or valid for their counts (C contract).
        let (d, dirs) = unsafe { (infos_in(data, ndata)?, infos_in(directives, ndirs)?) };
        let cb = op_callback(cbfunc, cbdata);
        match who {
            Serving::Client(c) => c.log_nb(&d, &dirs, cb),
            Serving::Server => state::with_server(|s| s.log_nb(d, dirs, cb))?,
        }
    })
}

// ---------------------------------------------------------------------------
// Allocation, job control, monitoring

/// `PMIx_Allocation_request`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Allocation_request(
    directive: u8,
    info: *mut pmix_info_t,
    ninfo: usize,
    results: *mut *mut pmix_info_t,
    nresults: *mut usize,
) -> c_int {
    guard(|| {
        let c = client()?;
        // SAFETY: out-parameters checked by answer; NULL or ninfo valid
        // infos (C contract).
        unsafe {
            answer(results, nresults, || {
                c.allocate(directive, &infos_in(info, ninfo)?)
            })
        }
    })
}

/// `PMIx_Allocation_request_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Allocation_request_nb(
    directive: u8,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let c = client()?;
        // SAFETY: NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        c.allocate_nb(directive, &infos, infos_cb(cbfunc, cbdata))
    })
}

/// `PMIx_Job_control`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_control(
    targets: *const pmix_proc_t,
    ntargets: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
    results: *mut *mut pmix_info_t,
    nresults: *mut usize,
) -> c_int {
    guard(|| {
        let who = requester()?;
        // SAFETY: out-parameters checked by answer; arrays NULL or valid
        // for their counts (C contract).
        unsafe {
            answer(results, nresults, || {
                let (t, d) = (procs_in(targets, ntargets)?, infos_in(directives, ndirs)?);
                match who {
                    Serving::Client(c) => c.job_control(&t, &d),
                    Serving::Server => {
                        server_wait(|cb| state::with_server(|s| s.job_control_nb(t, d, cb))?)?
                    }
                }
            })
        }
    })
}

/// `PMIx_Job_control_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_control_nb(
    targets: *const pmix_proc_t,
    ntargets: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let who = requester()?;
        // SAFETY: arrays NULL or valid for their counts (C contract).
        let (t, d) = unsafe { (procs_in(targets, ntargets)?, infos_in(directives, ndirs)?) };
        let cb = infos_cb(cbfunc, cbdata);
        match who {
            Serving::Client(c) => c.job_control_nb(&t, &d, cb),
            Serving::Server => state::with_server(|s| s.job_control_nb(t, d, cb))?,
        }
    })
}

/// `PMIx_Process_monitor`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Process_monitor(
    monitor: *const pmix_info_t,
    error: c_int,
    directives: *const pmix_info_t,
    ndirs: usize,
    results: *mut *mut pmix_info_t,
    nresults: *mut usize,
) -> c_int {
    guard(|| {
        let c = client()?;
        nonnull!(monitor);
        // SAFETY: out-parameters checked by answer; monitor is a valid
        // info, directives NULL or valid.
        unsafe {
            answer(results, nresults, || {
                let (m, d) = (convert::info_from_c(monitor)?, infos_in(directives, ndirs)?);
                c.monitor(&m, Status(error), &d)
            })
        }
    })
}

/// `PMIx_Process_monitor_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Process_monitor_nb(
    monitor: *const pmix_info_t,
    error: c_int,
    directives: *const pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let c = client()?;
        nonnull!(monitor);
        // SAFETY: monitor is a valid info, directives NULL or valid.
        let (m, d) = unsafe { (convert::info_from_c(monitor)?, infos_in(directives, ndirs)?) };
        c.monitor_nb(&m, Status(error), &d, infos_cb(cbfunc, cbdata))
    })
}

// ---------------------------------------------------------------------------
// Credentials

/// Lends `infos` to `call` as a C array and its length (NULL and 0 when
/// there are none or they do not convert), freed once `call` returned.
fn lend_infos(infos: &[Info], call: impl FnOnce(*mut pmix_info_t, usize)) {
    let arr = convert::infos_to_c(infos).unwrap_or(null_mut());
    let n = if arr.is_null() { 0 } else { infos.len() };
    call(arr, n);
    // SAFETY: the array came from infos_to_c with this count, and the
    // callee was told it is ours again once it returns.
    unsafe { convert::infos_free(arr, n) };
}

/// `PMIx_Get_credential`: the host's credential, `malloc`ed into
/// `*credential` (release with `PMIX_BYTE_OBJECT_DESTRUCT`).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_credential(
    info: *const pmix_info_t,
    ninfo: usize,
    credential: *mut pmix_byte_object_t,
) -> c_int {
    guard(|| {
        let c = client()?;
        nonnull!(credential);
        // SAFETY: NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        let (cred, _) = c.get_credential(&infos)?;
        let bo = convert::bo_to_c(&cred)?;
        // SAFETY: a valid out-parameter (checked non-NULL).
        unsafe { credential.write(bo) };
        Ok(())
    })
}

/// `PMIx_Get_credential_nb`: the credential and infos are freed when
/// `cbfunc` returns.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_credential_nb(
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_credential_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let c = client()?;
        let f = cbfunc.ok_or(Status::ERR_BAD_PARAM)?;
        // SAFETY: NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        let data = SendPtr(cbdata);
        c.get_credential_nb(
            &infos,
            Box::new(move |r| {
                let data = data;
                guard_or((), || {
                    let (status, cred, infos) = match r {
                        Ok((c, i)) => (Status::SUCCESS, c, i),
                        Err(s) => (s, Vec::new(), Vec::new()),
                    };
                    let mut bo = convert::bo_to_c(&cred).unwrap_or_default();
                    lend_infos(&infos, |arr, n| {
                        // SAFETY: the caller's callback with its cbdata.
                        unsafe { f(status.0, &mut bo, arr, n, data.0) }
                    });
                    // SAFETY: our credential, freed once the callback
                    // returned.
                    unsafe { convert::bo_destruct(&mut bo) };
                })
            }),
        )
    })
}

/// `PMIx_Validate_credential`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Validate_credential(
    cred: *const pmix_byte_object_t,
    info: *const pmix_info_t,
    ninfo: usize,
    results: *mut *mut pmix_info_t,
    nresults: *mut usize,
) -> c_int {
    guard(|| {
        let c = client()?;
        nonnull!(cred);
        // SAFETY: out-parameters checked by answer; cred is a valid byte
        // object, info NULL or valid.
        unsafe {
            answer(results, nresults, || {
                let (bytes, infos) = (convert::bo_from_c(&*cred), infos_in(info, ninfo)?);
                c.validate_credential(&bytes, &infos)
            })
        }
    })
}

/// `PMIx_Validate_credential_nb`: the infos are freed when `cbfunc`
/// returns.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Validate_credential_nb(
    cred: *const pmix_byte_object_t,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_validation_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let c = client()?;
        nonnull!(cred);
        let f = cbfunc.ok_or(Status::ERR_BAD_PARAM)?;
        // SAFETY: cred is a valid byte object, info NULL or valid.
        let (bytes, infos) = unsafe { (convert::bo_from_c(&*cred), infos_in(info, ninfo)?) };
        let data = SendPtr(cbdata);
        c.validate_credential_nb(
            &bytes,
            &infos,
            Box::new(move |r| {
                let data = data;
                guard_or((), || {
                    let (status, infos) = match r {
                        Ok(i) => (Status::SUCCESS, i),
                        Err(s) => (s, Vec::new()),
                    };
                    lend_infos(&infos, |arr, n| {
                        // SAFETY: the caller's callback with its cbdata.
                        unsafe { f(status.0, arr, n, data.0) }
                    });
                })
            }),
        )
    })
}

/// `PMIx_Session_control` (OpenPMIx 5.0): asks the host to apply
/// `directives` (`PMIX_SESSION_PAUSE`, `_RESUME`, `_TERMINATE`,
/// `_SIGNAL`, ...) to session `session_id`. A client's or tool's request
/// goes to its server, whose host's `session_control` decides; in a server
/// process the request goes to that server's own host, as the requester.
/// With a NULL `cbfunc` it blocks and returns the host's verdict (the
/// results are dropped); else `cbfunc` gets the verdict and the results,
/// once. A host without `session_control` (4.2.2's module, or a NULL
/// slot) answers `PMIX_ERR_NOT_SUPPORTED`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Session_control(
    session_id: u32,
    directives: *const pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let by = serving::serving(true);
        if by.is_err_and(|u| u == Unserved::Uninitialized) {
            return Err(Status::ERR_INIT);
        }
        // SAFETY: directives NULL or valid for ndirs (C contract).
        let d = unsafe { infos_in(directives, ndirs) }?;
        let start = move |cb: Box<dyn FnOnce(Result<Vec<Info>, Status>) + Send + 'static>| match by
        {
            Ok(Serving::Server) => state::with_server(|s| s.session_control_nb(session_id, d, cb))?,
            Ok(Serving::Client(c)) => c.session_control_nb(session_id, &d, cb),
            Err(u) => Err(u.status(Status::ERR_INIT)),
        };
        if cbfunc.is_none() {
            return server_wait(start)?.map(drop);
        }
        start(infos_cb(cbfunc, cbdata))
    })
}
