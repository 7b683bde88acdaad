//! The I/O-forwarding entry points: `PMIx_IOF_pull`,
//! `PMIx_IOF_deregister`, `PMIx_IOF_push` (`pmix_tool.h`, callable by a
//! client or a tool alike: both are "the client", see [`state`]) and
//! `PMIx_server_IOF_deliver` (`pmix_server.h`).
//!
//! Arguments are checked in OpenPMIx's order: the initialization first
//! (`PMIX_ERR_INIT`), then for a pull the stdin channel
//! (`PMIX_ERR_NOT_SUPPORTED`, as the standard says) and the sources
//! (none: `PMIX_ERR_BAD_PARAM`, as OpenPMIx master), then the connection
//! (`PMIX_ERR_UNREACH` for a process with no server, e.g. a server that
//! is not also a client: OpenPMIx registers such a pull locally, where it
//! never delivers anything either). A deregistration of an unknown handler
//! is `PMIX_ERR_BAD_PARAM` (OpenPMIx 4.2.2).
//!
//! Blocking forms: a pull with no `regcbfunc` waits and returns the
//! handler id (a non-negative status, as OpenPMIx's first handler is 0);
//! a deregister or push with no `cbfunc` waits and returns the status. A
//! blocking form called from a library callback (the progress thread)
//! returns `PMIX_ERR_WOULD_BLOCK`, as OpenPMIx master does (the core's
//! check).
//!
//! In a server process, `PMIx_IOF_push` goes to the server's own host
//! (its `push_stdin`), as OpenPMIx does.
//!
//! `pmix_iof_cbfunc_t` runs on the progress thread with a byte object, a
//! source and infos the library owns for the duration of the call.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use pmix_core::client::{Client, IofChunk, IofHandler, PushRequest};
use pmix_core::wire::iof::channel;
use pmix_core::{Info, Proc, Status};

use crate::api::args::{check_array, infos_in, procs_in};
use crate::api::serving::{self, Serving};
use crate::api::state::{self, require_init};
use crate::boundary::{guard, guard_or, op_callback, SendPtr};
use crate::convert;
use crate::nonnull;
use crate::sys::{
    pmix_byte_object_t, pmix_hdlr_reg_cbfunc_t, pmix_info_t, pmix_iof_cbfunc_t, pmix_op_cbfunc_t,
    pmix_proc_t,
};

/// The client (or the tool's primary connection); `PMIX_ERR_UNREACH` for
/// an initialized process with no server to talk to (every caller checked
/// the library is initialized).
fn connected() -> Result<&'static Client, Status> {
    serving::client_or(Status::ERR_UNREACH)
}

/// The function of a non-NULL `pmix_iof_cbfunc_t`.
type IofFn = unsafe extern "C" fn(
    usize,
    u16,
    *mut pmix_proc_t,
    *mut pmix_byte_object_t,
    *mut pmix_info_t,
    usize,
);

/// A malloc'd byte object of `data` with a NUL after its `size` bytes
/// (bindings that read the payload as a C string, as python3-pmix does,
/// stop there).
fn bo_with_nul(data: &[u8]) -> Result<pmix_byte_object_t, Status> {
    let p = crate::boundary::malloc_bytes(data.len() + 1)?;
    // SAFETY: p holds data.len() + 1 fresh bytes; the regions are distinct.
    unsafe {
        std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len());
        *p.add(data.len()) = 0;
    }
    Ok(pmix_byte_object_t {
        bytes: p.cast(),
        size: data.len(),
    })
}

/// A handler calling `f` with C copies of each chunk.
fn c_handler(f: IofFn) -> IofHandler {
    Arc::new(move |c: &IofChunk<'_>| {
        guard_or((), || {
            let mut source = convert::proc_to_c(c.source);
            let Ok(mut bo) = bo_with_nul(c.data) else {
                return;
            };
            let Ok(infos) = convert::infos_to_c(c.infos) else {
                // SAFETY: bytes malloc'd by bo_to_c.
                unsafe { convert::bo_destruct(&mut bo) };
                return;
            };
            // SAFETY: the caller's callback; every argument is ours and
            // valid for the call.
            unsafe {
                f(
                    c.id as usize,
                    c.channel,
                    &mut source,
                    &mut bo,
                    infos,
                    c.infos.len(),
                )
            };
            // SAFETY: allocated above, the callback only borrowed them.
            unsafe {
                convert::bo_destruct(&mut bo);
                convert::infos_free(infos, c.infos.len());
            }
        })
    })
}

/// `PMIx_IOF_pull`: forwards `channel` of `procs` to `cbfunc` (NULL: to
/// this process's stdout/stderr). With `regcbfunc` the registration's
/// result comes there (`PMIX_SUCCESS` returned at once); without, the
/// call waits and returns the handler id.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_pull(
    procs: *const pmix_proc_t,
    nprocs: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
    channel: u16,
    cbfunc: pmix_iof_cbfunc_t,
    regcbfunc: pmix_hdlr_reg_cbfunc_t,
    regcbdata: *mut c_void,
) -> c_int {
    let mut id: Option<u64> = None;
    let rc = guard(|| {
        require_init()?;
        if channel & channel::STDIN != 0 {
            return Err(Status::ERR_NOT_SUPPORTED);
        }
        if procs.is_null() || nprocs == 0 {
            return Err(Status::ERR_BAD_PARAM);
        }
        check_array(directives, ndirs)?;
        let c = connected()?;
        // SAFETY: procs holds nprocs procs, directives NULL or ndirs
        // infos (C contract).
        let (sources, dirs) = unsafe { (procs_in(procs, nprocs)?, infos_in(directives, ndirs)?) };
        let handler = cbfunc.map(c_handler);
        match regcbfunc {
            None => {
                id = Some(c.iof_pull(&sources, channel, &dirs, handler)?);
                Ok(())
            }
            Some(f) => {
                let data = SendPtr(regcbdata);
                c.iof_pull_nb(
                    &sources,
                    channel,
                    &dirs,
                    handler,
                    Box::new(move |r| {
                        let data = data;
                        let (s, refid) = match r {
                            Ok(id) => (Status::SUCCESS, id as usize),
                            Err(s) => (s, usize::MAX),
                        };
                        // SAFETY: the caller's callback with its cbdata.
                        guard_or((), || unsafe { f(s.0, refid, data.0) });
                    }),
                )
            }
        }
    });
    match id {
        Some(id) if rc == Status::SUCCESS.0 => c_int::try_from(id).unwrap_or(c_int::MAX),
        _ => rc,
    }
}

/// `PMIx_IOF_deregister`: ends handler `iofhdlr` (its held output is
/// handed out first). NULL `cbfunc`: waits.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_deregister(
    iofhdlr: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        require_init()?;
        check_array(directives, ndirs)?;
        let c = connected()?;
        // SAFETY: directives NULL or ndirs infos (C contract).
        let dirs = unsafe { infos_in(directives, ndirs) }?;
        let id = iofhdlr as u64;
        match cbfunc {
            None => c.iof_deregister(id, &dirs),
            Some(_) => c.iof_deregister_nb(id, &dirs, op_callback(cbfunc, cbdata)),
        }
    })
}

/// The bytes of a push's byte object (`None` for a NULL one: see
/// `PushRequest::of`).
///
/// # Safety
/// `bo` is NULL or a valid byte object.
unsafe fn bo_in(bo: *const pmix_byte_object_t) -> Option<Vec<u8>> {
    // SAFETY: the caller's contract.
    (!bo.is_null()).then(|| convert::bo_from_c(unsafe { &*bo }))
}

/// `PMIx_IOF_push`: `bo` to the stdin of `targets` (NULL `bo`: with
/// `PMIX_IOF_PUSH_STDIN`, this process's own stdin is forwarded until its
/// end and `PMIX_OPERATION_SUCCEEDED` returned, as OpenPMIx does; else
/// the end of input). NULL `cbfunc`: waits.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_push(
    targets: *const pmix_proc_t,
    ntargets: usize,
    bo: *mut pmix_byte_object_t,
    directives: *const pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        require_init()?;
        check_array(targets, ntargets)?;
        check_array(directives, ndirs)?;
        if ntargets == 0 {
            return Err(Status::ERR_BAD_PARAM);
        }
        // The client, unless this process's own server serves the push.
        let client = match serving::serving(true) {
            Ok(Serving::Server) => None,
            _ => Some(connected()?),
        };
        // SAFETY: targets holds ntargets procs, directives NULL or ndirs
        // infos (C contract).
        let (procs, dirs) = unsafe { (procs_in(targets, ntargets)?, infos_in(directives, ndirs)?) };
        // SAFETY: bo is NULL or a valid byte object (C contract).
        let data = unsafe { bo_in(bo) };
        let own_stdin = PushRequest::of(data.as_deref(), &dirs) == PushRequest::OwnStdin;
        let Some(c) = client else {
            return server_push(procs, data, dirs, own_stdin, cbfunc, cbdata);
        };
        if own_stdin {
            c.iof_push_stdin(&procs, &dirs)?;
            return Err(Status::OPERATION_SUCCEEDED);
        }
        match cbfunc {
            None => c.iof_push(&procs, data.as_deref(), &dirs),
            Some(_) => c.iof_push_nb(&procs, data.as_deref(), &dirs, op_callback(cbfunc, cbdata)),
        }
    })
}

/// `PMIx_IOF_push` in a server process: handed to the server's own
/// host's `push_stdin` (the server's process the source), as OpenPMIx
/// does; a NULL `bo` is the end of input (the host gets an empty byte
/// object), or with `PMIX_IOF_PUSH_STDIN` this process's own stdin is
/// forwarded there until its end (`PMIX_OPERATION_SUCCEEDED` returned at
/// once, as for a client). `procs`, `data` and `dirs` are the call's
/// arguments, read; `own_stdin` says they ask for `PushRequest::OwnStdin`.
fn server_push(
    procs: Vec<Proc>,
    data: Option<Vec<u8>>,
    dirs: Vec<Info>,
    own_stdin: bool,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> Result<(), Status> {
    if own_stdin {
        state::with_server(|s| s.iof_push_stdin(procs, &dirs))??;
        return Err(Status::OPERATION_SUCCEEDED);
    }
    if cbfunc.is_some() {
        let done = op_callback(cbfunc, cbdata);
        return state::with_server(|s| s.iof_push_nb(procs, data, dirs, done))?;
    }
    state::server_wait(|done| state::with_server(|s| s.iof_push_nb(procs, data, dirs, done))?)?
        .into_result()
}

/// `PMIx_server_IOF_deliver`: `bo` written by `source` on `channel` goes
/// to every requester that pulled it. `cbfunc` runs once, on the server's
/// progress thread, when the output is queued; NULL `cbfunc`: waits and
/// returns `PMIX_OPERATION_SUCCEEDED` (as OpenPMIx 4.2.2).
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_IOF_deliver(
    source: *const pmix_proc_t,
    channel: u16,
    bo: *const pmix_byte_object_t,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(source, bo);
        check_array(info, ninfo)?;
        // SAFETY: source and bo are valid (checked non-NULL, C contract);
        // info NULL or ninfo infos.
        let (src, data, infos) = unsafe {
            (
                convert::proc_from_c(&*source),
                convert::bo_from_c(&*bo),
                infos_in(info, ninfo)?,
            )
        };
        match cbfunc {
            Some(_) => {
                let cb = op_callback(cbfunc, cbdata);
                state::with_server(|s| s.iof_deliver_nb(&src, channel, data, infos, Some(cb)))?
            }
            None => {
                let (tx, rx) = std::sync::mpsc::sync_channel(1);
                let done: Box<dyn FnOnce(Status) + Send> = Box::new(move |s| {
                    let _ = tx.send(s);
                });
                state::with_server(|s| s.iof_deliver_nb(&src, channel, data, infos, Some(done)))??;
                rx.recv()
                    .unwrap_or(Status::ERR_LOST_CONNECTION)
                    .into_result()?;
                Err(Status::OPERATION_SUCCEEDED)
            }
        }
    })
}
