//! The C bridge of the host's resource-manager upcalls in
//! `pmix_server_module_t`: `query`, `log`, `allocate`, `job_control`,
//! `monitor`, `fabric`, `get_credential` and `validate_credential`, of `group`,
//! which answers through the same `pmix_info_cbfunc_t`, and of the I/O
//! forwarding upcalls `iof_pull` and `push_stdin`.
//!
//! Each upcall goes through [`upcall`]'s protocol: the host gets a
//! `cbfunc` of ours and, as `cbdata`, the operation holding the core's
//! completion and every C argument that must stay valid until the host
//! calls back (the arrays of queries, infos, procs, the credential, the
//! group id). Nothing here holds a lock across the upcall. The callback
//! copies the host's results, calls the host's `release_fn` if any, and
//! completes the operation (which then frees our C arguments). `log` and
//! `tool_connected` return nothing: the host always calls back.
//!
//! Invariant: the C arrays handed to the host stay valid until it calls
//! back, and are freed exactly once after that.

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use pmix_core::group::GroupOp;
use pmix_core::server::{Completion, OpOutput};
use pmix_core::value::Query;
use pmix_core::{keys, Info, Key, Proc, Status, Value};

use crate::api::upcall::{self, HostCall};
use crate::boundary::{calloc_array, guard_or};
use crate::convert;
use crate::sys::{
    pmix_byte_object_t, pmix_info_t, pmix_proc_t, pmix_query_t, pmix_release_cbfunc_t,
    pmix_status_t,
};
use crate::sys::{
    AllocFn, FabricFn, GetCredFn, GroupFn, IofPullFn, JobControlFn, LogFn, MonitorFn, PushStdinFn,
    QueryFn, SessionControlFn, ToolConnectedFn, ValidateCredFn,
};

/// The C arguments of one upcall, freed on drop.
struct CArgs {
    proc_: Box<pmix_proc_t>,
    infos: Vec<(*mut pmix_info_t, usize)>,
    procs: Vec<pmix_proc_t>,
    queries: (*mut pmix_query_t, usize),
    cred: Box<pmix_byte_object_t>,
    /// A string argument (the group id).
    name: CString,
}

impl CArgs {
    fn new(proc: &Proc) -> CArgs {
        CArgs {
            proc_: Box::new(convert::proc_to_c(proc)),
            infos: Vec::new(),
            procs: Vec::new(),
            queries: (null_mut(), 0),
            cred: Box::default(),
            name: CString::default(),
        }
    }

    /// Sets the procs argument; returns its pointer (NULL when empty) and
    /// count.
    fn set_procs(&mut self, procs: &[Proc]) -> (*const pmix_proc_t, usize) {
        self.procs = procs.iter().map(convert::proc_to_c).collect();
        if self.procs.is_empty() {
            (std::ptr::null(), 0)
        } else {
            (self.procs.as_ptr(), self.procs.len())
        }
    }

    /// Adds an info array; returns its pointer and count.
    fn infos(&mut self, infos: &[Info]) -> Result<(*const pmix_info_t, usize), Status> {
        let p = convert::infos_to_c(infos)?;
        self.infos.push((p, infos.len()));
        Ok((p, infos.len()))
    }

    /// Sets the byte-object argument (the credential, the stdin data);
    /// returns its pointer.
    fn set_cred(&mut self, bytes: &[u8]) -> Result<*const pmix_byte_object_t, Status> {
        *self.cred = convert::bo_to_c(bytes)?;
        Ok(&*self.cred)
    }

    fn set_queries(&mut self, queries: &[Query]) -> Result<(), Status> {
        let arr = calloc_array::<pmix_query_t>(queries.len())?;
        self.queries = (arr, queries.len());
        for (k, q) in queries.iter().enumerate() {
            // SAFETY: k < len; the slot is zeroed and freed by Drop
            // whatever is filled in.
            let slot = unsafe { &mut *arr.add(k) };
            slot.keys = convert::argv_to_c(&q.keys)?;
            slot.qualifiers = convert::infos_to_c(&q.qualifiers)?;
            slot.nqual = q.qualifiers.len();
        }
        Ok(())
    }
}

impl Drop for CArgs {
    fn drop(&mut self) {
        for &(p, n) in &self.infos {
            // SAFETY: each array came from infos_to_c with this count.
            unsafe { convert::infos_free(p, n) };
        }
        let (arr, n) = self.queries;
        if !arr.is_null() {
            for k in 0..n {
                // SAFETY: k < n; each slot is zeroed or filled by
                // set_queries with malloc'd argv and infos.
                unsafe {
                    let q = &mut *arr.add(k);
                    convert::argv_free(q.keys);
                    if !q.qualifiers.is_null() {
                        convert::infos_free(q.qualifiers, q.nqual);
                    }
                }
            }
            // SAFETY: the array itself came from calloc.
            unsafe { libc::free(arr.cast()) };
        }
        // SAFETY: the credential's bytes are NULL or malloc'd by bo_to_c.
        unsafe { convert::bo_destruct(&mut self.cred) };
    }
}

/// An upcall in the host's hands.
type Pending<T> = HostCall<T, CArgs>;

/// Where an upcall's usual C arguments are: the requestor and the
/// directives.
#[derive(Clone, Copy)]
struct By {
    proc_: *const pmix_proc_t,
    info: *const pmix_info_t,
    n: usize,
}

/// Runs an upcall by `proc` with `directives` through [`upcall::call`]:
/// `more` adds the upcall's other C arguments (its `X` says where they
/// are); `f` calls the host with all of them and the cbdata. Every
/// argument lives in the operation until the host calls back.
fn call<T: OpOutput + Default, X>(
    done: Completion<T>,
    proc: &Proc,
    directives: &[Info],
    more: impl FnOnce(&mut CArgs) -> Result<X, Status>,
    f: impl FnOnce(By, X, *mut c_void) -> pmix_status_t,
) -> Result<(), Status> {
    let mut args = CArgs::new(proc);
    let (info, n) = args.infos(directives)?;
    let x = more(&mut args)?;
    let by = By {
        proc_: &*args.proc_,
        info,
        n,
    };
    upcall::call(HostCall::new(done, args), |cb| f(by, x, cb))
}

/// The `more` of an upcall with no other C arguments.
fn no_more(_: &mut CArgs) -> Result<(), Status> {
    Ok(())
}

/// Copies a host's info results.
///
/// # Safety
/// `info` is NULL or `n` valid infos.
unsafe fn copy_infos(info: *const pmix_info_t, n: usize) -> Result<Vec<Info>, Status> {
    if info.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: forwarded contract.
    unsafe { convert::infos_from_c(info, n) }
}

/// The `pmix_info_cbfunc_t` of query, allocate, job control, monitor and
/// group. The host's infos are copied whatever their types (a group's
/// `PMIX_GROUP_CONTEXT_ID` of any integer type, `PMIX_GROUP_ENDPT_DATA`
/// byte objects, a `PMIX_GROUP_MEMBERSHIP` array of procs), then its
/// `release_fn` is called.
unsafe extern "C" fn info_done(
    status: pmix_status_t,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbdata: *mut c_void,
    release_fn: pmix_release_cbfunc_t,
    release_cbdata: *mut c_void,
) {
    guard_or((), || {
        // SAFETY: NULL or ninfo valid infos (C contract).
        let infos = unsafe { copy_infos(info, ninfo) };
        crate::api::state::release_later(release_fn, release_cbdata);
        // SAFETY: cbdata is what `upcall::call` gave the host with a
        // `Pending<Vec<Info>>`, called back once.
        let Some(p) = (unsafe { upcall::answered::<Pending<Vec<Info>>>(cbdata) }) else {
            return;
        };
        let ok = status == Status::SUCCESS.0 || status == Status::ERR_PARTIAL_SUCCESS.0;
        p.complete(if ok { infos } else { Err(Status(status)) });
    })
}

/// The `pmix_op_cbfunc_t` of log, iof_pull and push_stdin.
unsafe extern "C" fn log_done(status: pmix_status_t, cbdata: *mut c_void) {
    guard_or((), || {
        // SAFETY: cbdata is what `upcall::call` gave the host with a
        // `Pending<()>`, called back once.
        if let Some(p) = unsafe { upcall::answered::<Pending<()>>(cbdata) } {
            p.complete(Status(status).into_result());
        }
    })
}

/// The `pmix_credential_cbfunc_t` of get_credential.
unsafe extern "C" fn cred_done(
    status: pmix_status_t,
    credential: *mut pmix_byte_object_t,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbdata: *mut c_void,
) {
    guard_or((), || {
        // SAFETY: credential is NULL or a valid byte object, info NULL or
        // ninfo valid infos (C contract); both stay the host's.
        let r = unsafe {
            let cred = if credential.is_null() {
                Vec::new()
            } else {
                convert::bo_from_c(&*credential)
            };
            copy_infos(info, ninfo).map(|i| (cred, i))
        };
        // SAFETY: cbdata is what `upcall::call` gave the host with a
        // `Pending<(Vec<u8>, Vec<Info>)>`, called back once.
        if let Some(p) = unsafe { upcall::answered::<Pending<(Vec<u8>, Vec<Info>)>>(cbdata) } {
            p.complete(Status(status).into_result().and(r));
        }
    })
}

/// The `pmix_validation_cbfunc_t` of validate_credential.
unsafe extern "C" fn validation_done(
    status: pmix_status_t,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbdata: *mut c_void,
) {
    guard_or((), || {
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let r = unsafe { copy_infos(info, ninfo) };
        // SAFETY: cbdata is what `upcall::call` gave the host with a
        // `Pending<Vec<Info>>`, called back once.
        if let Some(p) = unsafe { upcall::answered::<Pending<Vec<Info>>>(cbdata) } {
            p.complete(Status(status).into_result().and(r));
        }
    })
}

/// `query` through the C module.
pub(crate) fn query(
    f: QueryFn,
    proc: &Proc,
    queries: &[Query],
    done: Completion<Vec<Info>>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    let more = |a: &mut CArgs| a.set_queries(queries).map(|()| a.queries);
    call(done, proc, &[], more, |by, (qp, qn), cb| {
        // SAFETY: the host's function; arguments live in the operation.
        unsafe { f(by.proc_.cast_mut(), qp, qn, Some(info_done), cb) }
    })
}

/// `log` through the C module.
pub(crate) fn log(
    f: LogFn,
    proc: &Proc,
    data: &[Info],
    directives: &[Info],
    done: Completion<()>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    call(
        done,
        proc,
        directives,
        |a| a.infos(data),
        |by, (dp, dn), cb| {
            // SAFETY: the host's function; arguments live in the operation.
            unsafe { f(by.proc_, dp, dn, by.info, by.n, Some(log_done), cb) };
            // It returns nothing: a log host always calls back.
            Status::SUCCESS.0
        },
    )
}

/// `allocate` through the C module.
pub(crate) fn allocate(
    f: AllocFn,
    proc: &Proc,
    directive: u8,
    infos: &[Info],
    done: Completion<Vec<Info>>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    call(done, proc, infos, no_more, |by, (), cb| {
        // SAFETY: the host's function; arguments live in the operation.
        unsafe { f(by.proc_, directive, by.info, by.n, Some(info_done), cb) }
    })
}

/// `job_control` through the C module.
pub(crate) fn job_control(
    f: JobControlFn,
    proc: &Proc,
    targets: &[Proc],
    directives: &[Info],
    done: Completion<Vec<Info>>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    let more = |a: &mut CArgs| Ok(a.set_procs(targets));
    call(done, proc, directives, more, |by, (tp, tn), cb| {
        // SAFETY: the host's function; arguments live in the operation.
        unsafe { f(by.proc_, tp, tn, by.info, by.n, Some(info_done), cb) }
    })
}

/// `session_control` through the C module (OpenPMIx 5.0's slot).
pub(crate) fn session_control(
    f: SessionControlFn,
    proc: &Proc,
    session: u32,
    directives: &[Info],
    done: Completion<Vec<Info>>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    call(done, proc, directives, no_more, |by, (), cb| {
        // SAFETY: the host's function; arguments live in the operation.
        unsafe { f(by.proc_, session, by.info, by.n, Some(info_done), cb) }
    })
}

/// `fabric` through the C module.
pub(crate) fn fabric(
    f: FabricFn,
    proc: &Proc,
    op: u8,
    directives: &[Info],
    done: Completion<Vec<Info>>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    call(done, proc, directives, no_more, |by, (), cb| {
        // SAFETY: the host's function; arguments live in the operation.
        unsafe { f(by.proc_, op.into(), by.info, by.n, Some(info_done), cb) }
    })
}

/// `monitor` through the C module.
pub(crate) fn monitor(
    f: MonitorFn,
    proc: &Proc,
    monitor: &Info,
    error: Status,
    directives: &[Info],
    done: Completion<Vec<Info>>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    let more = |a: &mut CArgs| a.infos(std::slice::from_ref(monitor)).map(|(p, _)| p);
    call(done, proc, directives, more, |by, mp, cb| {
        // SAFETY: the host's function; arguments live in the operation.
        unsafe { f(by.proc_, mp, error.0, by.info, by.n, Some(info_done), cb) }
    })
}

/// `get_credential` through the C module.
pub(crate) fn get_credential(
    f: GetCredFn,
    proc: &Proc,
    directives: &[Info],
    done: Completion<(Vec<u8>, Vec<Info>)>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    call(done, proc, directives, no_more, |by, (), cb| {
        // SAFETY: the host's function; arguments live in the operation.
        unsafe { f(by.proc_, by.info, by.n, Some(cred_done), cb) }
    })
}

/// `validate_credential` through the C module.
pub(crate) fn validate_credential(
    f: ValidateCredFn,
    proc: &Proc,
    cred: &[u8],
    directives: &[Info],
    done: Completion<Vec<Info>>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    let more = |a: &mut CArgs| a.set_cred(cred);
    call(done, proc, directives, more, |by, cp, cb| {
        // SAFETY: the host's function; arguments live in the operation.
        unsafe { f(by.proc_, cp, by.info, by.n, Some(validation_done), cb) }
    })
}

/// `group` through the C module: the group's construct or destruct among
/// the servers involved. `PMIX_OPERATION_SUCCEEDED` completes it with no
/// infos.
pub(crate) fn group(
    f: GroupFn,
    op: GroupOp,
    id: &str,
    procs: &[Proc],
    directives: &[Info],
    done: Completion<Vec<Info>>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    let more = |a: &mut CArgs| {
        a.name = CString::new(id).map_err(|_| Status::ERR_BAD_PARAM)?;
        Ok((a.name.as_ptr().cast_mut(), a.set_procs(procs)))
    };
    // A group upcall names no requestor: the proc slot stays unused.
    call(
        done,
        &Proc::default(),
        directives,
        more,
        |by, (gp, (pp, np)), cb| {
            // SAFETY: the host's function; arguments live in the operation.
            unsafe { f(op.code(), gp, pp, np, by.info, by.n, Some(info_done), cb) }
        },
    )
}

/// A tool connection's C arguments, and the identity the server would
/// give (kept if the host names none).
struct ToolArgs {
    tentative: Proc,
    _args: CArgs,
}

/// `tool_connected` through the C module: the host admits the tool and
/// names its identity (`PMIX_TOOL_NSPACE`/`PMIX_TOOL_RANK` among the infos
/// when the tool asked for one). The upcall returns nothing: the host
/// always calls back.
pub(crate) fn tool_connected(
    f: ToolConnectedFn,
    tool: &Proc,
    requested: bool,
    infos: &[Info],
    done: Completion<Proc>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    let mut all = infos.to_vec();
    if requested {
        all.retain(|i| {
            i.key.as_bytes() != keys::TOOL_NSPACE.as_bytes()
                && i.key.as_bytes() != keys::TOOL_RANK.as_bytes()
        });
        all.push(Info::new(
            Key::new(keys::TOOL_NSPACE)?,
            Value::String(Some(tool.nspace.as_c_str().to_owned())),
        ));
        all.push(Info::new(
            Key::new(keys::TOOL_RANK)?,
            Value::Uint32(tool.rank.0),
        ));
    }
    let mut args = CArgs::new(tool);
    let (ip, n) = args.infos(&all)?;
    let args = ToolArgs {
        tentative: tool.clone(),
        _args: args,
    };
    upcall::call(HostCall::new(done, args), |cb| {
        // SAFETY: the host's function; the infos live in the operation
        // until the host calls back (which it always does: the function
        // returns nothing).
        unsafe { f(ip.cast_mut(), n, Some(tool_done), cb) };
        Status::SUCCESS.0
    })
}

/// The host's `pmix_tool_connection_cbfunc_t`: the tool's identity (NULL:
/// the server's), or the refusal.
unsafe extern "C" fn tool_done(
    status: pmix_status_t,
    proc_: *mut pmix_proc_t,
    cbdata: *mut c_void,
) {
    guard_or((), || {
        // SAFETY: cbdata is what `upcall::call` gave the host with a
        // `HostCall<Proc, ToolArgs>`, called back once.
        let Some(p) = (unsafe { upcall::answered::<HostCall<Proc, ToolArgs>>(cbdata) }) else {
            return;
        };
        let r = if status != Status::SUCCESS.0 {
            Err(Status(status))
        } else if proc_.is_null() {
            Ok(p.args.tentative.clone())
        } else {
            // SAFETY: a non-NULL proc from the host, valid for the call.
            Ok(convert::proc_from_c(unsafe { &*proc_ }))
        };
        p.complete(r);
    })
}

/// `iof_pull` through the C module.
pub(crate) fn iof_pull(
    f: IofPullFn,
    procs: &[Proc],
    directives: &[Info],
    channels: u16,
    done: Completion<()>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    let more = |a: &mut CArgs| Ok(a.set_procs(procs));
    // No requestor: the proc slot stays unused.
    call(
        done,
        &Proc::default(),
        directives,
        more,
        |by, (tp, tn), cb| {
            // SAFETY: the host's function; arguments live in the operation.
            unsafe { f(tp, tn, by.info, by.n, channels, Some(log_done), cb) }
        },
    )
}

/// `push_stdin` through the C module (`data` `None`, the end of input,
/// is a byte object of size 0, never NULL: OpenPMIx always passes one,
/// and hosts read its size).
pub(crate) fn push_stdin(
    f: PushStdinFn,
    source: &Proc,
    targets: &[Proc],
    directives: &[Info],
    data: Option<Vec<u8>>,
    done: Completion<()>,
) -> Result<(), Status> {
    let f = f.ok_or(Status::ERR_NOT_SUPPORTED)?;
    let more = |a: &mut CArgs| {
        let t = a.set_procs(targets);
        let bo = match &data {
            Some(d) => a.set_cred(d)?,
            None => &*a.cred,
        };
        Ok((t, bo))
    };
    call(done, source, directives, more, |by, ((tp, tn), bo), cb| {
        // SAFETY: the host's function; arguments live in the operation.
        unsafe { f(by.proc_, tp, tn, by.info, by.n, bo, Some(log_done), cb) }
    })
}
