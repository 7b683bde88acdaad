//! Process groups: `PMIx_Group_construct`, `PMIx_Group_destruct`,
//! `PMIx_Group_invite`, `PMIx_Group_join`, `PMIx_Group_leave` and their
//! non-blocking forms, over [`pmix_core::client::Client`]'s group calls.
//!
//! Order of checks, as OpenPMIx 4.2.2: not initialized →
//! `PMIX_ERR_INIT`; not connected to a server (a singleton, or a process
//! initialized only as a server or a tool, which OpenPMIx does not
//! connect either) → `PMIX_ERR_UNREACH`; then the arguments →
//! `PMIX_ERR_BAD_PARAM` (a NULL or non-UTF-8 group id, a NULL array with
//! a nonzero count, NULL out-parameters of a blocking form, an invite
//! with no procs, a join with no leader or an `opt` that is neither
//! `PMIX_GROUP_DECLINE` nor `PMIX_GROUP_ACCEPT`). An `_nb` form with a
//! NULL callback runs as any other and reports to nobody, as OpenPMIx
//! 4.2.2 and master accept it: invitees usually answer from inside their
//! `PMIX_GROUP_INVITED` handler with `PMIx_Group_join_nb(..., NULL,
//! NULL)` and learn the outcome from `PMIX_GROUP_CONSTRUCT_COMPLETE`. A construct may name no procs: a member added
//! by a leader (`PMIX_GROUP_ADD_MEMBERS`) or one of a bootstrap
//! (`PMIX_GROUP_BOOTSTRAP`) does not know them.
//!
//! Construct, invite and join answer with the group's infos:
//! `PMIX_GROUP_CONTEXT_ID` first when one was assigned, then
//! `PMIX_GROUP_MEMBERSHIP`; a declined join answers with none. The
//! blocking forms `malloc` them into `*results` (NULL and 0 when none;
//! the caller frees them with `PMIx_Info_free`) and return the group's
//! status: `PMIX_SUCCESS`, or `PMIX_ERR_PARTIAL_SUCCESS` when a
//! construct lost optional members (an invitation completes with
//! `PMIX_SUCCESS` for the leader and the accepters whoever declined). The `_nb` forms hand the same status and infos to
//! their `pmix_info_cbfunc_t` (the array stays the library's until the
//! callback calls its `release_fn`); destruct and leave report through a
//! `pmix_op_cbfunc_t`. Callbacks run on the client's progress thread.
//! Blocking forms must not be called from inside a callback or an event
//! handler (they would wait for the thread running it).
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it.
//!
//! Invariants: nothing of the caller's arrays is referenced after a call
//! returns (deep copies), `_nb` forms included; an `_nb` call that returns
//! `PMIX_SUCCESS` calls its callback exactly once, one that returns an
//! error never does.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void};

use pmix_core::client::Client;
use pmix_core::group::{GroupCallback, GroupOpt, GroupResult};
use pmix_core::{Info, Status};

use crate::api::args::{infos_in, key_str, procs_in};
use crate::api::results::{deliver_infos, write_results};
use crate::api::serving::connected;
use crate::boundary::{guard, op_callback, SendPtr};
use crate::convert;
use crate::nonnull;
use crate::sys::{pmix_info_cbfunc_t, pmix_info_t, pmix_op_cbfunc_t, pmix_proc_t};

/// Borrows the group id argument.
///
/// # Safety
/// `grp` is NULL or a valid NUL-terminated string.
unsafe fn group_id<'a>(grp: *const c_char) -> Result<&'a str, Status> {
    nonnull!(grp);
    // SAFETY: non-NULL, NUL-terminated (caller's contract).
    unsafe { key_str(grp) }
}

/// The infos a construct, invite or join answers with: none for a
/// declined join (no members).
fn results_of(g: &GroupResult) -> Vec<Info> {
    if g.members.is_empty() {
        Vec::new()
    } else {
        g.to_infos()
    }
}

/// A blocking call answering with a group: the out-parameters are
/// cleared first (a caller reading them after an immediate error, as
/// python3-pmix does, finds no results), the process must be connected,
/// then `call` reads its arguments and runs; the group's infos are written
/// and its status returned.
///
/// # Safety
/// Both pointers are NULL or valid for writing.
unsafe fn answer_group(
    results: *mut *mut pmix_info_t,
    nresults: *mut usize,
    call: impl FnOnce(&'static Client) -> Result<GroupResult, Status>,
) -> Result<(), Status> {
    // SAFETY: NULL or writable out-parameters (caller's contract).
    unsafe { preclear(results, nresults) };
    let c = connected()?;
    nonnull!(results, nresults);
    let g = call(c)?;
    // SAFETY: valid out-parameters (checked non-NULL).
    unsafe { write_results(&results_of(&g), results, nresults) }?;
    g.status.into_result()
}

/// The callback of an `_nb` call answering with a group: `cbfunc` gets
/// the group's status and infos, or the error and none.
fn group_cb(cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> GroupCallback {
    let data = SendPtr(cbdata);
    Box::new(move |r| {
        let data = data;
        match r {
            Ok(g) => deliver_infos(cbfunc, g.status, &results_of(&g), data),
            Err(s) => deliver_infos(cbfunc, s, &[], data),
        }
    })
}

/// Clears the out-parameters that are not NULL.
///
/// # Safety
/// Each pointer is NULL or valid for writing.
unsafe fn preclear(results: *mut *mut pmix_info_t, nresults: *mut usize) {
    if !results.is_null() {
        // SAFETY: non-NULL, writable (caller's contract).
        unsafe { *results = std::ptr::null_mut() };
    }
    if !nresults.is_null() {
        // SAFETY: non-NULL, writable (caller's contract).
        unsafe { *nresults = 0 };
    }
}

/// The procs of an invite: at least one.
///
/// # Safety
/// `procs` is NULL or `nprocs` valid procs.
unsafe fn invitees(
    procs: *const pmix_proc_t,
    nprocs: usize,
) -> Result<Vec<pmix_core::Proc>, Status> {
    if procs.is_null() || nprocs == 0 {
        return Err(Status::ERR_BAD_PARAM);
    }
    // SAFETY: the caller's contract.
    unsafe { procs_in(procs, nprocs) }
}

/// The leader and answer of a join.
///
/// # Safety
/// `leader` is NULL or a valid proc.
unsafe fn join_args(
    leader: *const pmix_proc_t,
    opt: c_int,
) -> Result<(pmix_core::Proc, GroupOpt), Status> {
    nonnull!(leader);
    let opt = GroupOpt::from_code(opt).ok_or(Status::ERR_BAD_PARAM)?;
    // SAFETY: non-NULL, a valid proc (caller's contract).
    Ok((convert::proc_from_c(unsafe { &*leader }), opt))
}

// ---------------------------------------------------------------------------
// Construct

/// `PMIx_Group_construct`: returns once every participant called it.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct(
    grp: *const c_char,
    procs: *const pmix_proc_t,
    nprocs: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
    results: *mut *mut pmix_info_t,
    nresults: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: grp NULL or a C string, arrays NULL or valid for their
        // counts, out-parameters NULL or writable (C contract).
        unsafe {
            answer_group(results, nresults, |c| {
                let id = group_id(grp)?;
                let (procs, dirs) = (procs_in(procs, nprocs)?, infos_in(directives, ndirs)?);
                c.group_construct(id, &procs, &dirs)
            })
        }
    })
}

/// `PMIx_Group_construct_nb`: `cbfunc` runs on the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct_nb(
    grp: *const c_char,
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let c = connected()?;
        // SAFETY: grp NULL or a C string, arrays NULL or valid for their
        // counts (C contract).
        let (id, procs, dirs) = unsafe {
            (
                group_id(grp)?,
                procs_in(procs, nprocs)?,
                infos_in(info, ninfo)?,
            )
        };
        c.group_construct_nb(id, &procs, &dirs, group_cb(cbfunc, cbdata))
    })
}

// ---------------------------------------------------------------------------
// Destruct

/// `PMIx_Group_destruct`: returns once every member called it.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct(
    grp: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        let c = connected()?;
        // SAFETY: grp NULL or a C string, info NULL or valid (C contract).
        let (id, dirs) = unsafe { (group_id(grp)?, infos_in(info, ninfo)?) };
        c.group_destruct(id, &dirs)
    })
}

/// `PMIx_Group_destruct_nb`: `cbfunc` runs on the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct_nb(
    grp: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let c = connected()?;
        // SAFETY: grp NULL or a C string, info NULL or valid (C contract).
        let (id, dirs) = unsafe { (group_id(grp)?, infos_in(info, ninfo)?) };
        c.group_destruct_nb(id, &dirs, op_callback(cbfunc, cbdata))
    })
}

// ---------------------------------------------------------------------------
// Invite

/// `PMIx_Group_invite`: returns once every invitee answered (or failed).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite(
    grp: *const c_char,
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    results: *mut *mut pmix_info_t,
    nresult: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: grp NULL or a C string, arrays NULL or valid for their
        // counts, out-parameters NULL or writable (C contract).
        unsafe {
            answer_group(results, nresult, |c| {
                let id = group_id(grp)?;
                let (procs, dirs) = (invitees(procs, nprocs)?, infos_in(info, ninfo)?);
                c.group_invite(id, &procs, &dirs)
            })
        }
    })
}

/// `PMIx_Group_invite_nb`: `cbfunc` runs on the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite_nb(
    grp: *const c_char,
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let c = connected()?;
        // SAFETY: grp NULL or a C string, arrays NULL or valid for their
        // counts (C contract).
        let (id, procs, dirs) = unsafe {
            (
                group_id(grp)?,
                invitees(procs, nprocs)?,
                infos_in(info, ninfo)?,
            )
        };
        c.group_invite_nb(id, &procs, &dirs, group_cb(cbfunc, cbdata))
    })
}

// ---------------------------------------------------------------------------
// Join

/// `PMIx_Group_join`: an acceptance returns once the group is complete,
/// with its infos; a decline returns at once, with none.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join(
    grp: *const c_char,
    leader: *const pmix_proc_t,
    opt: c_int,
    info: *const pmix_info_t,
    ninfo: usize,
    results: *mut *mut pmix_info_t,
    nresult: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: grp NULL or a C string, leader NULL or a valid proc,
        // info NULL or valid, out-parameters NULL or writable (C
        // contract).
        unsafe {
            answer_group(results, nresult, |c| {
                let id = group_id(grp)?;
                let ((leader, opt), dirs) = (join_args(leader, opt)?, infos_in(info, ninfo)?);
                c.group_join(id, &leader, opt, &dirs)
            })
        }
    })
}

/// `PMIx_Group_join_nb`: `cbfunc` runs on the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join_nb(
    grp: *const c_char,
    leader: *const pmix_proc_t,
    opt: c_int,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let c = connected()?;
        // SAFETY: grp NULL or a C string, leader NULL or a valid proc,
        // info NULL or valid (C contract).
        let (id, (leader, opt), dirs) = unsafe {
            (
                group_id(grp)?,
                join_args(leader, opt)?,
                infos_in(info, ninfo)?,
            )
        };
        c.group_join_nb(id, &leader, opt, &dirs, group_cb(cbfunc, cbdata))
    })
}

// ---------------------------------------------------------------------------
// Leave

/// `PMIx_Group_leave`: returns once the other members were told.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave(
    grp: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        let c = connected()?;
        // SAFETY: grp NULL or a C string, info NULL or valid (C contract).
        let (id, dirs) = unsafe { (group_id(grp)?, infos_in(info, ninfo)?) };
        c.group_leave(id, &dirs)
    })
}

/// `PMIx_Group_leave_nb`: `cbfunc` runs on the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave_nb(
    grp: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let c = connected()?;
        // SAFETY: grp NULL or a C string, info NULL or valid (C contract).
        let (id, dirs) = unsafe { (group_id(grp)?, infos_in(info, ninfo)?) };
        c.group_leave_nb(id, &dirs, op_callback(cbfunc, cbdata))
    })
}
