//! The tool entry points of `pmix_tool.h` (but the IOF ones):
//! `PMIx_tool_init`, `_finalize`, `_attach_to_server`,
//! `_connect_to_server`, `_get_servers`, `_set_server`, `_disconnect`.
//!
//! A tool's connections are a core `ToolSession` (see
//! `pmix_core::client::tool_session::ToolSession`, which owns the rules: identity,
//! primary selection, disconnection) over `&'static Client`s, each leaked
//! like any published client so that a call in flight on one never finds
//! it freed. This file converts: the session's primary is the client
//! published as "the client" (see [`state`]), which every client call a
//! tool makes goes to.
//!
//! Invariant: while a tool runs, the published client is its session's
//! primary ([`publish_primary`] after each change, under the init lock);
//! [`SESSION`] holds the session from `PMIx_tool_init` to the last
//! `PMIx_tool_finalize`.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it.
#![allow(clippy::missing_safety_doc)]

use std::ffi::c_int;
use std::sync::{Arc, Mutex};

use pmix_core::client::tool_session::ToolSession;
use pmix_core::client::Client;
use pmix_core::{keys, Info, Key, Proc, Status, Value};

use crate::api::args::infos_in;
use crate::api::state::{self, ClientInit};
use crate::boundary::{calloc_array, guard};
use crate::convert;
use crate::nonnull;
use crate::sys::{pmix_info_t, pmix_proc_t};

/// The C API's tool session: its connections are the leaked clients.
type Session = ToolSession<&'static Client>;

/// This process's tool session, from `PMIx_tool_init` to the last
/// `PMIx_tool_finalize` (`None` otherwise, or for a process that is a
/// client, not a tool).
static SESSION: Mutex<Option<Arc<Session>>> = Mutex::new(None);

/// The tool session (an empty one when there is none: it has no
/// connection, so attaching fails with `PMIX_ERR_INIT` and no server is
/// found).
fn session() -> Arc<Session> {
    SESSION
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_default()
}

/// Publishes the session's primary as the client calls go to.
fn publish_primary(init: &ClientInit, s: &Session) {
    if let Some(p) = s.primary() {
        init.switch(Some(p));
    }
}

/// `PMIx_tool_init`: finds a server as `info` says and connects to it as
/// a tool; `*proc_` receives the identity the server gave (or the one
/// asked for). From then on the tool makes the calls a client makes
/// (queries, gets of the namespaces the server hosts, spawn, job control,
/// log, events). A NULL `proc_` is refused, as OpenPMIx does; a process
/// that is already a client or a tool counts one more init.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_init(
    proc_: *mut pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        nonnull!(proc_);
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        let init = ClientInit::lock();
        let c = match init.again() {
            Some(c) => c,
            None => {
                let c = init.publish(Client::tool_init(&infos)?);
                *SESSION.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some(Arc::new(ToolSession::new(c)));
                c
            }
        };
        pmix_core::strings::note_init();
        // SAFETY: non-NULL out-parameter, writable per the contract.
        unsafe { proc_.write(convert::proc_to_c(c.proc())) };
        Ok(())
    })
}

/// `PMIx_tool_finalize`: as `PMIx_Finalize` for the tool's primary
/// connection; the last finalize also closes the other servers'
/// connections. Finalizing a library that is not initialized is a
/// successful no-op, and so is finalizing a tool whose server is gone
/// (the library is finalized all the same), as in OpenPMIx.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_finalize() -> c_int {
    guard(|| {
        // SAFETY: no infos.
        let r = unsafe { crate::api::client::PMIx_Finalize(std::ptr::null(), 0) };
        if state::client().is_err() {
            // The last finalize: the other connections go too.
            let s = SESSION.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(s) = s {
                s.finalize();
            }
        }
        match Status(r) {
            Status::ERR_LOST_CONNECTION | Status::ERR_UNREACH if state::client().is_err() => Ok(()),
            s => s.into_result(),
        }
    })
}

/// Connects this tool to one more server (see `ToolSession::attach_with`),
/// publishing it if it became the primary.
fn attach(infos: Vec<Info>) -> Result<&'static Client, Status> {
    state::require_init()?;
    let init = ClientInit::lock();
    let s = session();
    let c = s.attach_with(infos, state::keep)?;
    publish_primary(&init, &s);
    Ok(c)
}

/// `PMIx_tool_attach_to_server`: connects this tool to one more server
/// (found by `info` as for `PMIx_tool_init`), under the tool's identity;
/// `*myproc` receives that identity, `*server` the server's. It becomes
/// the primary server with `PMIX_PRIMARY_SERVER`, or when the tool had
/// none open. Not initialized as a tool: `PMIX_ERR_INIT`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_attach_to_server(
    myproc: *mut pmix_proc_t,
    server: *mut pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let c = attach(unsafe { infos_in(info, ninfo) }?)?;
        if !myproc.is_null() {
            // SAFETY: non-NULL out-parameter (C contract).
            unsafe { myproc.write(convert::proc_to_c(c.proc())) };
        }
        if !server.is_null() {
            // SAFETY: non-NULL out-parameter (C contract).
            unsafe { server.write(convert::proc_to_c(c.server())) };
        }
        Ok(())
    })
}

/// `PMIx_tool_connect_to_server` (the deprecated form of
/// `PMIx_tool_attach_to_server`): attaches and makes the server primary.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_connect_to_server(
    proc_: *mut pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let mut infos = unsafe { infos_in(info, ninfo) }?;
        infos.push(Info::new(
            Key::new(keys::PRIMARY_SERVER)?,
            Value::Bool(true),
        ));
        let c = attach(infos)?;
        if !proc_.is_null() {
            // SAFETY: non-NULL out-parameter (C contract).
            unsafe { proc_.write(convert::proc_to_c(c.proc())) };
        }
        Ok(())
    })
}

/// `PMIx_tool_get_servers`: the servers this tool is connected to (a
/// malloc'd array the caller frees with `PMIX_PROC_FREE`; NULL and 0 when
/// none).
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_get_servers(
    servers: *mut *mut pmix_proc_t,
    nservers: *mut usize,
) -> c_int {
    guard(|| {
        state::require_init()?;
        nonnull!(servers, nservers);
        let list: Vec<Proc> = session().servers();
        let arr = calloc_array::<pmix_proc_t>(list.len())?;
        for (i, p) in list.iter().enumerate() {
            // SAFETY: arr holds list.len() zeroed procs.
            unsafe { arr.add(i).write(convert::proc_to_c(p)) };
        }
        // SAFETY: non-NULL out-parameters (checked).
        unsafe {
            *servers = arr;
            *nservers = list.len();
        }
        Ok(())
    })
}

/// `PMIx_tool_set_server`: makes `server` (one this tool is connected to)
/// its primary server; `PMIX_ERR_NOT_FOUND` for another. With
/// `PMIX_WAIT_FOR_CONNECTION`, a server the tool is not connected to yet
/// is attached to by its namespace (its `pmix.<host>.tool.<nspace>` file,
/// in `PMIX_SERVER_TMPDIR` if given), retried until it appears or
/// `PMIX_TIMEOUT` (seconds) passes: `PMIX_ERR_TIMEOUT` then (see
/// `ToolSession::set_server_with`).
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_set_server(
    server: *const pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        state::require_init()?;
        nonnull!(server);
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        // SAFETY: server is non-NULL and valid (C contract).
        let want = convert::proc_from_c(unsafe { &*server });
        let s = session();
        // Not under the init lock: the wait may be long.
        s.set_server_with(&want, &infos, state::keep)?;
        publish_primary(&ClientInit::lock(), &s);
        Ok(())
    })
}

/// `PMIx_tool_disconnect`: closes this tool's connection to `server`; the
/// tool stays initialized. If it was the primary, another connection
/// becomes primary (the last one stays published, closed: calls then fail
/// until `PMIx_tool_finalize`). `PMIX_ERR_NOT_FOUND` for a server the tool
/// is not connected to.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_disconnect(server: *const pmix_proc_t) -> c_int {
    guard(|| {
        state::require_init()?;
        nonnull!(server);
        // SAFETY: server is non-NULL and valid (C contract).
        let want = convert::proc_from_c(unsafe { &*server });
        let init = ClientInit::lock();
        let s = session();
        let r = s.disconnect(&want);
        publish_primary(&init, &s);
        r
    })
}

/// `bool PMIx_tool_is_connected(void)`: whether this process is
/// connected to a server now (false before init, after finalize, for a
/// tool initialized unconnected, and once the server is gone). As in
/// OpenPMIx, a client's connection counts too.
#[no_mangle]
pub extern "C" fn PMIx_tool_is_connected() -> bool {
    crate::boundary::guard_or(false, || state::client().is_ok_and(Client::is_connected))
}

/// `PMIx_tool_set_server_module`: a launcher tool (`PMIX_LAUNCHER`, which
/// runs a server for the tools that attach to it) hands that server's
/// upcalls to `module` from now on, as a host's `PMIx_server_init` does,
/// in place of forwarding them to its own server. For a tool that serves
/// no one the module is accepted and never called (OpenPMIx records it
/// the same way). `PMIX_ERR_INIT` before `PMIx_tool_init`;
/// `PMIX_ERR_BAD_PARAM` for a NULL module.
///
/// # Safety
/// `module` is NULL or points to at least a 4.2.2 `pmix_server_module_t`
/// (its 5.0 slot is probed as `PMIx_server_init` does).
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_set_server_module(
    module: *mut crate::sys::pmix_server_module_t,
) -> c_int {
    guard(|| {
        state::require_init()?;
        nonnull!(module);
        let c = state::client()?;
        let objects = std::sync::Arc::new(crate::api::state::ServerObjects::default());
        // SAFETY: non-NULL, a module of 4.2.2's size at least (contract).
        let host = unsafe { crate::api::server_module::CHost::new(module, objects) };
        let host: std::sync::Arc<dyn pmix_core::server::HostModule> = std::sync::Arc::new(host);
        c.with_own_server(|s| s.replace_host(host))
            .unwrap_or(Ok(()))
    })
}
