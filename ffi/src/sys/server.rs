//! The C declarations of `pmix_server.h`: the host's module
//! (`pmix_server_module_t`) and the function types of its entries and of
//! the server API's callbacks, beside the structures of `pmix_common.h`
//! in [`crate::sys`].
//!
//! Invariant: every type here has the layout and calling convention of
//! its OpenPMIx 4.2.2 declaration; nothing here has behaviour.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_void};

use super::{
    pmix_app_t, pmix_byte_object_t, pmix_credential_cbfunc_t, pmix_fabric_operation_t,
    pmix_info_cbfunc_t, pmix_info_t, pmix_lookup_cbfunc_t, pmix_modex_cbfunc_t, pmix_op_cbfunc_t,
    pmix_proc_t, pmix_query_t, pmix_spawn_cbfunc_t, pmix_status_t, pmix_validation_cbfunc_t,
};

/// A module function this library never calls (only its size matters).
pub type UnusedFn = Option<unsafe extern "C" fn()>;

/// `pmix_server_client_connected_fn_t`.
pub type ClientConnectedFn = Option<
    unsafe extern "C" fn(
        proc_: *const pmix_proc_t,
        server_object: *mut c_void,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;
/// `pmix_server_client_connected2_fn_t`.
pub type ClientConnected2Fn = Option<
    unsafe extern "C" fn(
        proc_: *const pmix_proc_t,
        server_object: *mut c_void,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;
/// `pmix_server_client_finalized_fn_t` (same shape as connected).
pub type ClientFinalizedFn = ClientConnectedFn;
/// `pmix_server_abort_fn_t`.
pub type AbortFn = Option<
    unsafe extern "C" fn(
        proc_: *const pmix_proc_t,
        server_object: *mut c_void,
        status: c_int,
        msg: *const c_char,
        procs: *mut pmix_proc_t,
        nprocs: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;
/// `pmix_server_fencenb_fn_t`.
pub type FenceNbFn = Option<
    unsafe extern "C" fn(
        procs: *const pmix_proc_t,
        nprocs: usize,
        info: *const pmix_info_t,
        ninfo: usize,
        data: *mut c_char,
        ndata: usize,
        cbfunc: pmix_modex_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;
/// `pmix_server_dmodex_req_fn_t`.
pub type DmodexReqFn = Option<
    unsafe extern "C" fn(
        proc_: *const pmix_proc_t,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_modex_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;

/// `pmix_server_notify_event_fn_t`.
pub type NotifyEventFn = Option<
    unsafe extern "C" fn(
        code: pmix_status_t,
        source: *const pmix_proc_t,
        range: u8,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;

/// `pmix_server_module_t` as OpenPMIx 4.2.2 lays it out (every version's
/// functions in order, `client_connected2` last). OpenPMIx 5.0 appends
/// one slot, `session_control` ([`SessionControlFn`]): a host built
/// against 4.2.2's headers passes the shorter struct, so the library
/// copies these 28 slots and reads the 29th apart, with care (see
/// `crate::api::module_level`).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct pmix_server_module_t {
    pub client_connected: ClientConnectedFn,
    pub client_finalized: ClientFinalizedFn,
    pub abort: AbortFn,
    pub fence_nb: FenceNbFn,
    pub direct_modex: DmodexReqFn,
    pub publish: PublishFn,
    pub lookup: LookupFn,
    pub unpublish: UnpublishFn,
    pub spawn: SpawnFn,
    pub connect: ConnectFn,
    pub disconnect: ConnectFn,
    pub register_events: UnusedFn,
    pub deregister_events: UnusedFn,
    pub listener: UnusedFn,
    pub notify_event: NotifyEventFn,
    pub query: QueryFn,
    pub tool_connected: ToolConnectedFn,
    pub log: LogFn,
    pub allocate: AllocFn,
    pub job_control: JobControlFn,
    pub monitor: MonitorFn,
    pub get_credential: GetCredFn,
    pub validate_credential: ValidateCredFn,
    pub iof_pull: IofPullFn,
    pub push_stdin: PushStdinFn,
    pub group: GroupFn,
    pub fabric: FabricFn,
    pub client_connected2: ClientConnected2Fn,
}

/// `pmix_server_fabric_fn_t`.
pub type FabricFn = Option<
    unsafe extern "C" fn(
        requestor: *const pmix_proc_t,
        op: pmix_fabric_operation_t,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;

/// `pmix_server_session_control_fn_t` (OpenPMIx 5.0's slot after
/// `client_connected2`).
pub type SessionControlFn = Option<
    unsafe extern "C" fn(
        requestor: *const pmix_proc_t,
        session_id: u32,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;

/// `pmix_server_iof_fn_t`.
pub type IofPullFn = Option<
    unsafe extern "C" fn(
        procs: *const pmix_proc_t,
        nprocs: usize,
        directives: *const pmix_info_t,
        ndirs: usize,
        channels: u16,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;
/// `pmix_server_stdin_fn_t`.
pub type PushStdinFn = Option<
    unsafe extern "C" fn(
        source: *const pmix_proc_t,
        targets: *const pmix_proc_t,
        ntargets: usize,
        directives: *const pmix_info_t,
        ndirs: usize,
        bo: *const pmix_byte_object_t,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;

/// `pmix_server_publish_fn_t`.
pub type PublishFn = Option<
    unsafe extern "C" fn(
        proc_: *const pmix_proc_t,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;
/// `pmix_server_lookup_fn_t`.
pub type LookupFn = Option<
    unsafe extern "C" fn(
        proc_: *const pmix_proc_t,
        keys: *mut *mut c_char,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_lookup_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;
/// `pmix_server_unpublish_fn_t`.
pub type UnpublishFn = Option<
    unsafe extern "C" fn(
        proc_: *const pmix_proc_t,
        keys: *mut *mut c_char,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;

/// `pmix_server_spawn_fn_t`.
pub type SpawnFn = Option<
    unsafe extern "C" fn(
        proc_: *const pmix_proc_t,
        job_info: *const pmix_info_t,
        ninfo: usize,
        apps: *const pmix_app_t,
        napps: usize,
        cbfunc: pmix_spawn_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;

/// `pmix_server_connect_fn_t` (and `pmix_server_disconnect_fn_t`, same
/// shape).
pub type ConnectFn = Option<
    unsafe extern "C" fn(
        procs: *const pmix_proc_t,
        nprocs: usize,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;

/// `pmix_server_query_fn_t`.
pub type QueryFn = Option<
    unsafe extern "C" fn(
        proct: *mut pmix_proc_t,
        queries: *mut pmix_query_t,
        nqueries: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;
/// `pmix_server_log_fn_t` (no return value: the host always calls back).
pub type LogFn = Option<
    unsafe extern "C" fn(
        client: *const pmix_proc_t,
        data: *const pmix_info_t,
        ndata: usize,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ),
>;
/// `pmix_server_alloc_fn_t`.
pub type AllocFn = Option<
    unsafe extern "C" fn(
        client: *const pmix_proc_t,
        directive: u8,
        data: *const pmix_info_t,
        ndata: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;
/// `pmix_server_job_control_fn_t`.
pub type JobControlFn = Option<
    unsafe extern "C" fn(
        requestor: *const pmix_proc_t,
        targets: *const pmix_proc_t,
        ntargets: usize,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;
/// `pmix_server_monitor_fn_t`.
pub type MonitorFn = Option<
    unsafe extern "C" fn(
        requestor: *const pmix_proc_t,
        monitor: *const pmix_info_t,
        error: pmix_status_t,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;
/// `pmix_server_get_cred_fn_t`.
pub type GetCredFn = Option<
    unsafe extern "C" fn(
        proc_: *const pmix_proc_t,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_credential_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;
/// `pmix_server_validate_cred_fn_t`.
pub type ValidateCredFn = Option<
    unsafe extern "C" fn(
        proc_: *const pmix_proc_t,
        cred: *const pmix_byte_object_t,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_validation_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;

/// `pmix_tool_connection_cbfunc_t`: the host's answer to a tool's
/// connection, with the identity it gives the tool.
pub type ToolConnectionCbFunc = Option<
    unsafe extern "C" fn(status: pmix_status_t, proc_: *mut pmix_proc_t, cbdata: *mut c_void),
>;

/// `pmix_server_tool_connection_fn_t`.
pub type ToolConnectedFn = Option<
    unsafe extern "C" fn(
        info: *mut pmix_info_t,
        ninfo: usize,
        cbfunc: ToolConnectionCbFunc,
        cbdata: *mut c_void,
    ),
>;

/// `pmix_server_grp_fn_t` (`op` is a `pmix_group_operation_t`, a C
/// enum).
pub type GroupFn = Option<
    unsafe extern "C" fn(
        op: c_int,
        grp: *mut c_char,
        procs: *const pmix_proc_t,
        nprocs: usize,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    ) -> pmix_status_t,
>;

/// `pmix_setup_application_cbfunc_t`.
pub type SetupAppCbFunc = Option<
    unsafe extern "C" fn(
        status: c_int,
        info: *mut pmix_info_t,
        ninfo: usize,
        provided_cbdata: *mut c_void,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ),
>;

/// `pmix_dmodex_response_fn_t`.
pub type DmodexResponseFn =
    Option<unsafe extern "C" fn(status: c_int, data: *mut c_char, sz: usize, cbdata: *mut c_void)>;
