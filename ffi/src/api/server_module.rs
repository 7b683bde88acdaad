//! `pmix_server_module_t` and the bridge that turns its C callbacks into
//! the core server's [`HostModule`].
//!
//! Each upcall goes through [`upcall`]'s protocol: the host gets a
//! `cbfunc` of ours and, as its `cbdata`, the operation holding the core's
//! [`Completion`] and whatever C data must stay valid until the host
//! answers (the procs and info arrays; the fence contribution is the
//! host's to free, as the standard says). `client_connected` is the
//! exception: the host is told with no callback.
//!
//! Invariant: every operation handed to the host is taken back exactly
//! once (see [`upcall`]).

use std::ffi::{c_char, c_void, CString};

use pmix_core::server::{Completion, HostModule, OpOutput};
use pmix_core::{Info, Proc, Status};

use crate::api::upcall::{self, HostCall};
use crate::convert;
use crate::sys::{
    pmix_info_t, pmix_proc_t, pmix_release_cbfunc_t, pmix_server_module_t, pmix_status_t,
    SessionControlFn,
};

/// The C host's module, as a [`HostModule`].
pub(crate) struct CHost {
    pub(crate) module: pmix_server_module_t,
    /// OpenPMIx 5.0's `session_control`, when the host's module has that
    /// slot (see [`crate::api::module_level`]).
    pub(crate) session_control: SessionControlFn,
    pub(crate) objects: std::sync::Arc<crate::api::state::ServerObjects>,
}

/// An operation in the host's hands, with the info array it was given.
type Op<T> = HostCall<T, CInfos>;

/// A `calloc`ed info array, freed on drop.
struct CInfos(*mut pmix_info_t, usize);

impl CInfos {
    fn new(infos: &[Info]) -> Result<CInfos, Status> {
        Ok(CInfos(convert::infos_to_c(infos)?, infos.len()))
    }
}

impl Drop for CInfos {
    fn drop(&mut self) {
        // SAFETY: the array came from infos_to_c with this count.
        unsafe { convert::infos_free(self.0, self.1) };
    }
}

/// A fence's C arguments: its infos and procs.
struct FenceArgs {
    _infos: CInfos,
    _procs: Box<[pmix_proc_t]>,
}

fn result_of(status: pmix_status_t) -> Result<(), Status> {
    if status == Status::SUCCESS.0 {
        Ok(())
    } else {
        Err(Status(status))
    }
}

/// The `pmix_op_cbfunc_t` handed to the host for unit operations.
unsafe extern "C" fn op_done(status: pmix_status_t, cbdata: *mut c_void) {
    crate::boundary::guard_or((), || {
        // SAFETY: cbdata is what `upcall::call` gave the host with an
        // `Op<()>`, called back once.
        if let Some(op) = unsafe { upcall::answered::<Op<()>>(cbdata) } {
            op.complete(result_of(status));
        }
    })
}

/// The `pmix_modex_cbfunc_t` handed to the host for fence (`A` =
/// [`FenceArgs`]) and direct modex (`A` = [`CInfos`]): copies the blob,
/// lets the host release its buffer, completes the operation.
unsafe extern "C" fn modex_done<A>(
    status: pmix_status_t,
    data: *const c_char,
    ndata: usize,
    cbdata: *mut c_void,
    release_fn: pmix_release_cbfunc_t,
    release_cbdata: *mut c_void,
) {
    crate::boundary::guard_or((), || {
        // SAFETY: data is NULL or ndata readable bytes (C contract).
        let blob = unsafe { convert::bytes_from_c(data, ndata) };
        crate::api::state::release_later(release_fn, release_cbdata);
        // SAFETY: cbdata is what `upcall::call` gave the host with a
        // `HostCall<Vec<u8>, A>`, called back once.
        if let Some(op) = unsafe { upcall::answered::<HostCall<Vec<u8>, A>>(cbdata) } {
            op.complete(result_of(status).map(|_| blob));
        }
    })
}

fn op<T: OpOutput>(done: Completion<T>, infos: &[Info]) -> Result<Op<T>, Status> {
    Ok(HostCall::new(done, CInfos::new(infos)?))
}

impl CHost {
    /// The bridge of `module` (NULL: a host with no functions): its 4.2.2
    /// slots copied, and 5.0's `session_control` where it has one.
    ///
    /// # Safety
    /// `module` is NULL or points to at least a 4.2.2
    /// `pmix_server_module_t`.
    pub(crate) unsafe fn new(
        module: *const pmix_server_module_t,
        objects: std::sync::Arc<crate::api::state::ServerObjects>,
    ) -> CHost {
        if module.is_null() {
            return CHost {
                module: pmix_server_module_t::default(),
                session_control: None,
                objects,
            };
        }
        // SAFETY: non-NULL, a valid module of 4.2.2's size (the contract).
        let copied = unsafe { *module };
        // SAFETY: as above; the bytes past it are probed, not dereferenced.
        let session_control =
            unsafe { crate::api::module_level::session_control_slot(module, &copied) };
        CHost {
            module: copied,
            session_control,
            objects,
        }
    }
}

impl HostModule for CHost {
    fn client_connected(&self, proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        // As OpenPMIx 4.2: the host is told with no callback and not
        // waited for (Slurm returns success and never calls back). An
        // error from `client_connected` refuses the client; one from
        // `client_connected2` does not.
        let cp = convert::proc_to_c(proc);
        let obj = self.objects.get(proc);
        let result = if let Some(f) = self.module.client_connected2 {
            // SAFETY: the host's function; the proc lives for the call, and
            // no callback is passed.
            unsafe {
                f(
                    &cp,
                    obj,
                    std::ptr::null_mut(),
                    0,
                    None,
                    std::ptr::null_mut(),
                )
            };
            Ok(())
        } else if let Some(f) = self.module.client_connected {
            // SAFETY: as above.
            match unsafe { f(&cp, obj, None, std::ptr::null_mut()) } {
                rc if rc == Status::SUCCESS.0 || rc == Status::OPERATION_SUCCEEDED.0 => Ok(()),
                rc => Err(Status(rc)),
            }
        } else {
            Ok(())
        };
        done.complete(result);
        Ok(())
    }

    fn client_finalized(&self, proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        let f = self
            .module
            .client_finalized
            .ok_or(Status::ERR_NOT_SUPPORTED)?;
        let cp = convert::proc_to_c(proc);
        let obj = self.objects.get(proc);
        upcall::call(op(done, &[])?, |cb| {
            // SAFETY: the host's function with valid arguments.
            unsafe { f(&cp, obj, Some(op_done), cb) }
        })
    }

    fn abort(
        &self,
        proc: &Proc,
        status: Status,
        message: Option<&str>,
        procs: &[Proc],
        done: Completion<()>,
    ) -> Result<(), Status> {
        let f = self.module.abort.ok_or(Status::ERR_NOT_SUPPORTED)?;
        let cp = convert::proc_to_c(proc);
        let obj = self.objects.get(proc);
        let msg = message.map(|m| CString::new(m.replace('\0', " ")).unwrap_or_default());
        let mut cprocs: Vec<pmix_proc_t> = procs.iter().map(convert::proc_to_c).collect();
        let (pp, np) = if cprocs.is_empty() {
            (std::ptr::null_mut(), 0)
        } else {
            (cprocs.as_mut_ptr(), cprocs.len())
        };
        upcall::call(op(done, &[])?, |cb| {
            let m = msg.as_ref().map_or(std::ptr::null(), |m| m.as_ptr());
            // SAFETY: the host's function with valid arguments (msg and
            // procs live for the call, as the standard says).
            unsafe { f(&cp, obj, status.0, m, pp, np, Some(op_done), cb) }
        })
    }

    fn fences_are_local(&self) -> bool {
        // Without `fence_nb`, fences of jobs wholly on this node complete
        // in the server.
        self.module.fence_nb.is_none()
    }

    fn fence_nb(
        &self,
        procs: &[Proc],
        infos: &[Info],
        data: Vec<u8>,
        done: Completion<Vec<u8>>,
    ) -> Result<(), Status> {
        let f = self.module.fence_nb.ok_or(Status::ERR_NOT_SUPPORTED)?;
        let cprocs: Vec<pmix_proc_t> = procs.iter().map(convert::proc_to_c).collect();
        // The standard (16.3.6) makes the host responsible for freeing the
        // contribution: it gets a malloc'd copy it owns (Open MPI's mpirun
        // frees it; keeping it in the operation box was a double free).
        let cinfos = CInfos::new(infos)?;
        // Never NULL, even with nothing to contribute (ndata 0): OpenPMIx
        // always passes a buffer, and hosts copy or free it unchecked.
        // SAFETY: malloc of a non-zero size, checked below.
        let dp = unsafe { libc::malloc(data.len().max(1)) }.cast::<c_char>();
        if dp.is_null() {
            return Err(Status::ERR_NOMEM);
        }
        // SAFETY: dp holds at least data.len() bytes; the regions are
        // distinct.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr().cast(), dp, data.len()) };
        let dn = data.len();
        // The procs, like the infos, stay valid until the host calls
        // back: they live in the operation box.
        let procs_box: Box<[pmix_proc_t]> = cprocs.into_boxed_slice();
        let pp = procs_box.as_ptr();
        let np = procs_box.len();
        let (ip, n) = (cinfos.0.cast_const(), cinfos.1);
        let args = FenceArgs {
            _infos: cinfos,
            _procs: procs_box,
        };
        upcall::call(HostCall::new(done, args), |cb| {
            // SAFETY: the host's function; procs and infos live in the
            // operation until the host calls back, data is the host's.
            unsafe { f(pp, np, ip, n, dp, dn, Some(modex_done::<FenceArgs>), cb) }
        })
    }

    fn direct_modex(
        &self,
        proc: &Proc,
        infos: &[Info],
        done: Completion<Vec<u8>>,
    ) -> Result<(), Status> {
        let f = self.module.direct_modex.ok_or(Status::ERR_NOT_SUPPORTED)?;
        let cp = convert::proc_to_c(proc);
        let o = op(done, infos)?;
        let (ip, n) = (o.args.0.cast_const(), o.args.1);
        upcall::call(o, |cb| {
            // SAFETY: the host's function; the proc lives for the call,
            // the infos in the operation until the host calls back.
            unsafe { f(&cp, ip, n, Some(modex_done::<CInfos>), cb) }
        })
    }

    fn publish(&self, proc: &Proc, infos: &[Info], done: Completion<()>) -> Result<(), Status> {
        crate::api::server_pubsub::publish(self.module.publish, proc, infos, done)
    }

    fn lookup(
        &self,
        proc: &Proc,
        keys: &[pmix_core::Key],
        infos: &[Info],
        done: Completion<Vec<pmix_core::server::PublishedValue>>,
    ) -> Result<(), Status> {
        crate::api::server_pubsub::lookup(self.module.lookup, proc, keys, infos, done)
    }

    fn unpublish(
        &self,
        proc: &Proc,
        keys: &[pmix_core::Key],
        infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        crate::api::server_pubsub::unpublish(self.module.unpublish, proc, keys, infos, done)
    }

    fn query(
        &self,
        proc: &Proc,
        queries: &[pmix_core::value::Query],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        crate::api::host_rm::query(self.module.query, proc, queries, done)
    }

    fn log(
        &self,
        proc: &Proc,
        data: &[Info],
        directives: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        crate::api::host_rm::log(self.module.log, proc, data, directives, done)
    }

    fn job_control(
        &self,
        proc: &Proc,
        targets: &[Proc],
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        let f = self.module.job_control;
        crate::api::host_rm::job_control(f, proc, targets, directives, done)
    }

    fn session_control(
        &self,
        proc: &Proc,
        session: u32,
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        crate::api::host_rm::session_control(self.session_control, proc, session, directives, done)
    }

    fn fabric(
        &self,
        proc: &Proc,
        op: u8,
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        crate::api::host_rm::fabric(self.module.fabric, proc, op, directives, done)
    }

    fn monitor(
        &self,
        proc: &Proc,
        monitor: &Info,
        error: Status,
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        let f = self.module.monitor;
        crate::api::host_rm::monitor(f, proc, monitor, error, directives, done)
    }

    fn allocate(
        &self,
        proc: &Proc,
        directive: u8,
        infos: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        crate::api::host_rm::allocate(self.module.allocate, proc, directive, infos, done)
    }

    fn get_credential(
        &self,
        proc: &Proc,
        directives: &[Info],
        done: Completion<(Vec<u8>, Vec<Info>)>,
    ) -> Result<(), Status> {
        let f = self.module.get_credential;
        crate::api::host_rm::get_credential(f, proc, directives, done)
    }

    fn validate_credential(
        &self,
        proc: &Proc,
        cred: &[u8],
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        let f = self.module.validate_credential;
        crate::api::host_rm::validate_credential(f, proc, cred, directives, done)
    }

    fn spawn(
        &self,
        requestor: &Proc,
        job_info: &[Info],
        apps: &[pmix_core::value::App],
        done: Completion<pmix_core::Nspace>,
    ) -> Result<(), Status> {
        crate::api::spawn_host::spawn(self.module.spawn, requestor, job_info, apps, done)
    }

    fn connect(&self, procs: &[Proc], infos: &[Info], done: Completion<()>) -> Result<(), Status> {
        crate::api::spawn_host::collective(self.module.connect, procs, infos, done)
    }

    fn disconnect(
        &self,
        procs: &[Proc],
        infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        crate::api::spawn_host::collective(self.module.disconnect, procs, infos, done)
    }

    fn iof_pull(
        &self,
        procs: &[Proc],
        directives: &[Info],
        channels: u16,
        done: Completion<()>,
    ) -> Result<(), Status> {
        crate::api::host_rm::iof_pull(self.module.iof_pull, procs, directives, channels, done)
    }

    fn push_stdin(
        &self,
        source: &Proc,
        targets: &[Proc],
        directives: &[Info],
        data: Option<Vec<u8>>,
        done: Completion<()>,
    ) -> Result<(), Status> {
        crate::api::host_rm::push_stdin(
            self.module.push_stdin,
            source,
            targets,
            directives,
            data,
            done,
        )
    }

    fn tool_connected(
        &self,
        tool: &Proc,
        requested: bool,
        infos: &[Info],
        done: Completion<Proc>,
    ) -> Result<(), Status> {
        crate::api::host_rm::tool_connected(
            self.module.tool_connected,
            tool,
            requested,
            infos,
            done,
        )
    }

    fn group(
        &self,
        op: pmix_core::group::GroupOp,
        id: &str,
        procs: &[Proc],
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        crate::api::host_rm::group(self.module.group, op, id, procs, directives, done)
    }

    fn notify_event(
        &self,
        status: Status,
        source: &Proc,
        range: pmix_core::events::Range,
        infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        let f = self.module.notify_event.ok_or(Status::ERR_NOT_SUPPORTED)?;
        let cp = convert::proc_to_c(source);
        let o = op(done, infos)?;
        let (ip, n) = (o.args.0, o.args.1);
        upcall::call(o, |cb| {
            // SAFETY: the host's function; the source lives for the call,
            // the infos in the operation until the host calls back.
            unsafe { f(status.0, &cp, range.0, ip, n, Some(op_done), cb) }
        })
    }
}

#[cfg(test)]
mod layout {
    use super::pmix_server_module_t;
    use std::mem::{offset_of, size_of};

    /// Offsets and size against the C compiler's view of our header: the
    /// Rust struct is its 4.2.2 part, the 5.0 `session_control` slot
    /// right after it (read apart: `crate::api::module_level`).
    #[test]
    fn module_layout_matches_header() {
        let include = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../include");
        let got = crate::sys::c_program::output(
            "module-layout",
            Some(&include),
            "#include <stdio.h>\n#include <stddef.h>\n#include <pmix_server.h>\n\
             int main(void){printf(\"%zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu\\n\", offsetof(pmix_server_module_t, session_control),\
             offsetof(pmix_server_module_t, fence_nb), offsetof(pmix_server_module_t, direct_modex),\
             offsetof(pmix_server_module_t, client_finalized), offsetof(pmix_server_module_t, abort),\
             offsetof(pmix_server_module_t, client_connected2), offsetof(pmix_server_module_t, spawn),\
             offsetof(pmix_server_module_t, connect), offsetof(pmix_server_module_t, disconnect),\
             offsetof(pmix_server_module_t, group), offsetof(pmix_server_module_t, fabric));\
             return 0;}\n",
        );
        type M = pmix_server_module_t;
        assert_eq!(size_of::<M>(), 28 * size_of::<usize>());
        let want = format!(
            "{} {} {} {} {} {} {} {} {} {} {}\n",
            size_of::<M>(),
            offset_of!(M, fence_nb),
            offset_of!(M, direct_modex),
            offset_of!(M, client_finalized),
            offset_of!(M, abort),
            offset_of!(M, client_connected2),
            offset_of!(M, spawn),
            offset_of!(M, connect),
            offset_of!(M, disconnect),
            offset_of!(M, group),
            offset_of!(M, fabric)
        );
        assert_eq!(got, want);
    }
}
