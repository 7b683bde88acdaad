//! `PMIx_server_setup_application` and `PMIx_server_setup_local_support`
//! over the server's Rust API (see `pmix_core::server::Server::
//! setup_application`: the harvested environment as `PMIX_SET_ENVAR`
//! infos), and the environment editing `PMIx_server_setup_fork` does with
//! what `setup_local_support` kept.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void, CStr, CString};

use pmix_core::server::{application_setup, EnvChange, Server};
use pmix_core::{Proc, Status};

use crate::api::args::{infos_in, nspace_in};
use crate::api::state::{require_init, server};
use crate::boundary::{guard, report_later, SendPtr};
use crate::convert;
use crate::nonnull;
use crate::sys::{pmix_info_t, pmix_op_cbfunc_t, SetupAppCbFunc};

/// The info array handed to the host, released by [`release_infos`].
struct Handed {
    info: *mut pmix_info_t,
    ninfo: usize,
}

/// The release function given with the setup-application result: frees
/// the info array (the host calls it once it is done with the array).
unsafe extern "C" fn release_infos(_status: c_int, cbdata: *mut c_void) {
    crate::boundary::guard_or((), || {
        if cbdata.is_null() {
            return;
        }
        // SAFETY: cbdata is the Box<Handed> leaked for this callback,
        // released exactly once (the host calls the release function once).
        let h = unsafe { Box::from_raw(cbdata.cast::<Handed>()) };
        // SAFETY: the array was made by infos_to_c with ninfo entries.
        unsafe { convert::infos_free(h.info, h.ninfo) };
    })
}

/// `PMIx_server_setup_application`: the application-specific setup of
/// job `nspace`, in a server or a tool (a launcher) alike (with `PMIX_SETUP_APP_ENVARS` or `PMIX_SETUP_APP_ALL`: the
/// `PMIX_MCA_*` and programming-model variables of this process's
/// environment, as `PMIX_SET_ENVAR` infos; the caller's own environment
/// directives pass through). `cbfunc` receives them from another thread
/// with a release function that frees the array.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_application(
    nspace: *const c_char,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbfunc: SetupAppCbFunc,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        // A server's, or a launcher tool's (no server needed).
        require_init()?;
        nonnull!(nspace);
        let f = cbfunc.ok_or(Status::ERR_BAD_PARAM)?;
        // SAFETY: valid string and info array (C contract).
        let (ns, infos) = unsafe { (nspace_in(nspace)?, infos_in(info, ninfo)?) };
        let out = application_setup(&ns, &infos)?;
        let n = out.len();
        let arr = convert::infos_to_c(&out)?;
        let handed = SendPtr(
            Box::into_raw(Box::new(Handed {
                info: arr,
                ninfo: n,
            }))
            .cast(),
        );
        let data = SendPtr(cbdata);
        let run = move || {
            let (data, handed) = (data, handed);
            crate::boundary::guard_or((), || {
                // SAFETY: the host's callback with its own cbdata; the
                // array stays valid until it calls the release function.
                unsafe {
                    f(
                        Status::SUCCESS.0,
                        arr_of(handed.0),
                        n,
                        data.0,
                        Some(release_infos),
                        handed.0,
                    )
                }
            })
        };
        if std::thread::Builder::new()
            .name("pmix-server-cb".into())
            .spawn(run)
            .is_err()
        {
            // SAFETY: not handed out: released here, once.
            unsafe { release_infos(0, handed.0) };
            return Err(Status::ERR_NOMEM);
        }
        Ok(())
    })
}

/// The info array of a [`Handed`].
fn arr_of(h: *mut c_void) -> *mut pmix_info_t {
    // SAFETY: h is a live Box<Handed> until its release function runs,
    // which cannot happen before the callback receives it.
    unsafe { (*h.cast::<Handed>()).info }
}

/// `PMIx_server_setup_local_support`: keeps the environment directives
/// among `info` (`PMIX_SET_ENVAR`, `PMIX_UNSET_ENVAR`,
/// `PMIX_PREPEND_ENVAR`, `PMIX_APPEND_ENVAR`, as `setup_application`
/// returns them) for namespace `nspace`; `PMIx_server_setup_fork` applies
/// them to each of its processes. `cbfunc`, if given, is called with the
/// result from another thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_local_support(
    nspace: *const c_char,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let s = server()?;
        nonnull!(nspace);
        // SAFETY: valid string and info array (C contract).
        let (ns, infos) = unsafe { (nspace_in(nspace)?, infos_in(info, ninfo)?) };
        s.server.setup_local_support(&ns, &infos)?;
        report_later(cbfunc, Status::SUCCESS, cbdata);
        Ok(())
    })
}

/// The value of `name` in the environment array `arr`.
///
/// # Safety
/// `arr` is NULL or a NULL-terminated array of valid strings.
unsafe fn getenv_in(arr: *mut *mut c_char, name: &str) -> Option<String> {
    if arr.is_null() {
        return None;
    }
    let prefix = format!("{name}=");
    let mut n = 0;
    loop {
        // SAFETY: NULL-terminated (contract).
        let e = unsafe { *arr.add(n) };
        if e.is_null() {
            return None;
        }
        // SAFETY: a valid string.
        let b = unsafe { CStr::from_ptr(e) }.to_bytes();
        if let Some(v) = b.strip_prefix(prefix.as_bytes()) {
            return Some(String::from_utf8_lossy(v).into_owned());
        }
        n += 1;
    }
}

/// Sets `name=value` in `*env`, replacing an existing entry (see
/// `argv::setenv_in`).
///
/// # Safety
/// `env` points to NULL, `environ`, or a `malloc`ed NULL-terminated array
/// of `malloc`ed strings.
unsafe fn setenv_in(env: *mut *mut *mut c_char, name: &str, value: &str) -> Result<(), Status> {
    let cname = CString::new(name).map_err(|_| Status::ERR_BAD_PARAM)?;
    let cvalue = CString::new(value).map_err(|_| Status::ERR_BAD_PARAM)?;
    // SAFETY: env is valid (contract).
    unsafe { crate::api::argv::setenv_in(&mut *env, &cname, Some(&cvalue), true) }
}

/// Removes `name` from the environment `*env` (see `setenv_in` for the
/// forms `*env` may take).
///
/// # Safety
/// As `setenv_in`.
unsafe fn unsetenv_in(env: *mut *mut *mut c_char, name: &str) -> Result<(), Status> {
    // SAFETY: env is valid (contract).
    let arr = unsafe { *env };
    if arr.is_null() {
        return Ok(());
    }
    if arr == crate::os::environ_ptr() {
        let c = CString::new(name).map_err(|_| Status::ERR_BAD_PARAM)?;
        // As OpenPMIx: a variable that cannot be removed stays.
        let _ = crate::os::unsetenv(&c);
        return Ok(());
    }
    let prefix = format!("{name}=");
    let mut n = 0;
    loop {
        // SAFETY: NULL-terminated (contract).
        let e = unsafe { *arr.add(n) };
        if e.is_null() {
            return Ok(());
        }
        // SAFETY: a valid string.
        if unsafe { CStr::from_ptr(e) }
            .to_bytes()
            .starts_with(prefix.as_bytes())
        {
            // SAFETY: malloc'd entries (contract); the tail, NULL
            // included, moves down one slot.
            unsafe {
                libc::free(e.cast());
                let mut k = n;
                loop {
                    let next = *arr.add(k + 1);
                    *arr.add(k) = next;
                    if next.is_null() {
                        break;
                    }
                    k += 1;
                }
            }
            return Ok(());
        }
        n += 1;
    }
}

/// `PMIx_server_setup_fork`'s work: the variables for `proc` and the
/// namespace's local-support directives, applied to `*env`.
///
/// # Safety
/// As `setenv_in`.
pub(crate) unsafe fn setup_fork_into(
    server: &Server,
    proc: &Proc,
    env: *mut *mut *mut c_char,
) -> Result<(), Status> {
    // SAFETY: env is valid (contract).
    let arr = unsafe { *env };
    // SAFETY: arr is NULL or a valid environment (contract).
    let changes = server.setup_fork_changes(proc, |n| unsafe { getenv_in(arr, n) })?;
    for c in changes {
        match c {
            // SAFETY: the caller's contract.
            EnvChange::Set(k, v) => unsafe { setenv_in(env, &k, &v) }?,
            // SAFETY: the caller's contract.
            EnvChange::Unset(k) => unsafe { unsetenv_in(env, &k) }?,
        }
    }
    Ok(())
}
