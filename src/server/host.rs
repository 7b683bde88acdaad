//! The host's side of the server: the [`HostModule`] callbacks and the
//! [`Completion`] handles through which a host reports results.
//!
//! Every callback is optional: the default implementation returns
//! `Err(Status::ERR_NOT_SUPPORTED)`, and the server then does what the
//! standard prescribes without the host (accept a connection, complete a
//! single-node fence locally, answer a direct modex with "not found", ...).
//!
//! Callbacks run on the server's progress thread and must not block it
//! (no blocking server API calls from inside a callback). A callback that
//! returns `Ok(())` has taken charge of the operation and must eventually
//! call [`Completion::complete`], from any thread, before or after it
//! returns. One that returns `Err(status)` has refused: the server resolves
//! the operation with `status` at once and ignores the completion handle;
//! but a collective's call (`fence_nb`, `connect`, `disconnect`, `group`)
//! that returns `Err(PMIX_OPERATION_SUCCEEDED)` has completed it at once,
//! successfully, with no value (a fence then gets no other node's data).
//! A completion dropped without being called resolves its operation with
//! `PMIX_ERROR`, so a host that loses one cannot hang the clients.
//!
//! A completion reaches the loop with its type: an [`OpValue`], one variant
//! per type a callback's [`Completion`] carries ([`OpOutput`]).
//!
//! Invariant: every operation handed to the host is resolved exactly once
//! (completion, refusal, drop, or a timeout that gave up on it).

use std::marker::PhantomData;
use std::sync::Arc;

use crate::value::App;
use crate::wire::pubsub::PublishedValue;
use crate::{Info, Nspace, Proc, Status};

/// Callback receiving the answer to [`super::Server::dmodex_request`].
pub type DmodexCallback = Box<dyn FnOnce(Result<Vec<u8>, Status>) + Send + 'static>;

/// The value a host completed an operation with, by its type: one variant
/// for each type a [`HostModule`] callback's [`Completion`] carries.
#[doc(hidden)]
#[derive(Debug)]
pub enum OpValue {
    Unit,
    Bytes(Vec<u8>),
    Infos(Vec<Info>),
    Nspace(Nspace),
    Proc(Proc),
    BytesAndInfos(Vec<u8>, Vec<Info>),
    Published(Vec<PublishedValue>),
}

/// The result of a host operation, as the loop stores it: the value the
/// host completed with (its type is the `T` of the operation's
/// [`Completion`]), or the failure.
pub(crate) type OpResult = Result<OpValue, Status>;

/// The types a [`Completion`] carries: those of the [`HostModule`]
/// callbacks' results.
pub trait OpOutput: Send + Sized + 'static {
    #[doc(hidden)]
    fn into_value(self) -> OpValue;
    #[doc(hidden)]
    fn from_value(v: OpValue) -> Option<Self>;
}

/// `OpOutput` for `$t`, carried as `OpValue::$v($t)`.
macro_rules! op_output {
    ($t:ty, $v:ident) => {
        impl OpOutput for $t {
            fn into_value(self) -> OpValue {
                OpValue::$v(self)
            }
            fn from_value(v: OpValue) -> Option<Self> {
                match v {
                    OpValue::$v(x) => Some(x),
                    _ => None,
                }
            }
        }
    };
}

op_output!(Vec<u8>, Bytes);
op_output!(Vec<Info>, Infos);
op_output!(Nspace, Nspace);
op_output!(Proc, Proc);
op_output!(Vec<PublishedValue>, Published);

impl OpOutput for () {
    fn into_value(self) -> OpValue {
        OpValue::Unit
    }
    fn from_value(v: OpValue) -> Option<Self> {
        matches!(v, OpValue::Unit).then_some(())
    }
}

impl OpOutput for (Vec<u8>, Vec<Info>) {
    fn into_value(self) -> OpValue {
        OpValue::BytesAndInfos(self.0, self.1)
    }
    fn from_value(v: OpValue) -> Option<Self> {
        match v {
            OpValue::BytesAndInfos(b, i) => Some((b, i)),
            _ => None,
        }
    }
}

/// Takes the value of type `T` out of a completed operation's result; a
/// value of another type (a host bug) reads as `PMIX_ERROR`.
pub(crate) fn take_result<T: OpOutput>(r: OpResult) -> Result<T, Status> {
    r.and_then(|v| T::from_value(v).ok_or(Status::ERROR))
}

/// Where a [`Completion`] delivers its operation's result: the server's
/// progress thread (see `command::Notifier`).
pub(crate) trait OpSink: Send + Sync + 'static {
    /// Hands the result of operation `op` to the loop.
    fn done(&self, op: u64, result: OpResult);
}

/// The handle through which a host completes one operation, from any
/// thread. Completing consumes it; dropping it uncompleted fails the
/// operation with `PMIX_ERROR`.
pub struct Completion<T: OpOutput> {
    op: u64,
    sink: Option<Arc<dyn OpSink>>,
    _t: PhantomData<fn(T)>,
}

impl<T: OpOutput> Completion<T> {
    pub(crate) fn new(op: u64, sink: Arc<dyn OpSink>) -> Self {
        Completion {
            op,
            sink: Some(sink),
            _t: PhantomData,
        }
    }

    /// Reports the operation's result to the server.
    pub fn complete(mut self, result: Result<T, Status>) {
        if let Some(s) = self.sink.take() {
            s.done(self.op, result.map(T::into_value));
        }
    }
}

impl<T: OpOutput> Drop for Completion<T> {
    fn drop(&mut self) {
        if let Some(s) = self.sink.take() {
            s.done(self.op, Err(Status::ERROR));
        }
    }
}

impl<T: OpOutput> std::fmt::Debug for Completion<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Completion").field("op", &self.op).finish()
    }
}

/// What a host knows of a process it started, for the proc tables
/// (`PMIX_QUERY_PROC_TABLE`, `_LOCAL_PROC_TABLE`): what a debugger needs
/// before the process ever connects (stopped on exec) and after it is
/// gone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StartedProc {
    pub pid: i32,
    /// A `pmix_proc_state_t` (`PMIX_PROC_STATE_RUNNING`, `_TERMINATED`, ...).
    pub state: u8,
    pub exit_code: i32,
    /// The program as started (an absolute path when the host resolved it).
    pub executable: Option<String>,
}

/// The callbacks a host (resource manager, launcher) provides to the
/// server: the Rust counterpart of `pmix_server_module_t`. See the module
/// documentation for the threading and completion rules.
pub trait HostModule: Send + Sync + 'static {
    /// A client connected and authenticated (`client_connected2`). The
    /// client's `PMIx_Init` returns once `done` completes; an error refuses
    /// the client.
    fn client_connected(&self, proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        let _ = (proc, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// A tool connected, with its `PMIx_tool_init` directives; `tool` is
    /// the identity it asked for (`requested`) or the one the server would
    /// give it. The host admits it by completing `done` with the identity
    /// the tool gets (`tool`, or one the host assigns), or refuses it with
    /// an error. Without this callback every tool the server accepts is
    /// admitted as `tool`.
    fn tool_connected(
        &self,
        tool: &Proc,
        requested: bool,
        infos: &[Info],
        done: Completion<Proc>,
    ) -> Result<(), Status> {
        let _ = requested;
        let _ = (tool, infos, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// A client called `PMIx_Finalize`; it is released when `done`
    /// completes.
    fn client_finalized(&self, proc: &Proc, done: Completion<()>) -> Result<(), Status> {
        let _ = (proc, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// A client called `PMIx_Abort` for `procs` (empty: its whole
    /// namespace). The client's call returns `done`'s status.
    fn abort(
        &self,
        proc: &Proc,
        status: Status,
        message: Option<&str>,
        procs: &[Proc],
        done: Completion<()>,
    ) -> Result<(), Status> {
        let _ = (proc, status, message, procs, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// True if the host takes no part in fences whose participants are
    /// all on this node (it completes them at once, or has no `fence_nb`):
    /// the processes of a job wholly on this node may then agree on a
    /// fence among themselves, through a shared page (see
    /// `crate::barrier`), without a host call. Asked once, at start.
    fn fences_are_local(&self) -> bool {
        false
    }

    /// Every local participant of a fence over `procs` arrived: `data` is
    /// this node's contribution (a modex blob, empty without
    /// `PMIX_COLLECT_DATA`). The host exchanges it with the servers of the
    /// other nodes involved and completes `done` with the concatenation of
    /// every node's contribution (in any order). Without this callback, a
    /// fence whose participants are all local completes locally; others
    /// fail with `PMIX_ERR_NOT_SUPPORTED`.
    fn fence_nb(
        &self,
        procs: &[Proc],
        infos: &[Info],
        data: Vec<u8>,
        done: Completion<Vec<u8>>,
    ) -> Result<(), Status> {
        let _ = (procs, infos, data, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// A client needs the data of `proc`, which is not local: the host asks
    /// the server of `proc`'s node (which calls
    /// [`super::Server::dmodex_request`]) and completes `done` with its
    /// answer.
    fn direct_modex(
        &self,
        proc: &Proc,
        infos: &[Info],
        done: Completion<Vec<u8>>,
    ) -> Result<(), Status> {
        let _ = (proc, infos, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// A client's connection closed before it finalized (it died or
    /// exited without `PMIx_Finalize`). Not part of the C module: OpenPMIx
    /// reports this as a `PMIX_ERR_LOST_CONNECTION` event; the C layer can
    /// forward it to the host's event handling, a Rust host (`pmixrun`)
    /// can tear the job down.
    fn client_lost(&self, proc: &Proc) {
        let _ = proc;
    }

    /// A client called `PMIx_Publish` (`pmix_server_publish_fn_t`): store
    /// the data among `infos` on behalf of `proc`, honouring the
    /// directives (`PMIX_RANGE`, `PMIX_PERSISTENCE`, ...). The server adds
    /// the client's `PMIX_USERID` and `PMIX_GRPID`. A key already published
    /// on the same range completes with `PMIX_ERR_DUPLICATE_KEY`.
    /// [`super::PublishedData`] implements the whole behaviour. Without
    /// this callback, publishing is `PMIX_ERR_NOT_SUPPORTED`.
    fn publish(&self, proc: &Proc, infos: &[Info], done: Completion<()>) -> Result<(), Status> {
        let _ = (proc, infos, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// A client called `PMIx_Lookup` (`pmix_server_lookup_fn_t`): complete
    /// `done` with the values of `keys` visible to `proc` (at least one;
    /// the server tells the client whether that is all of them), or
    /// `PMIX_ERR_NOT_FOUND` / `PMIX_ERR_NO_PERMISSIONS` / `PMIX_ERR_TIMEOUT`.
    /// `infos` carry `PMIX_RANGE`, `PMIX_WAIT`, `PMIX_TIMEOUT` and the
    /// client's `PMIX_USERID` and `PMIX_GRPID`.
    fn lookup(
        &self,
        proc: &Proc,
        keys: &[crate::Key],
        infos: &[Info],
        done: Completion<Vec<PublishedValue>>,
    ) -> Result<(), Status> {
        let _ = (proc, keys, infos, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// A client called `PMIx_Unpublish` (`pmix_server_unpublish_fn_t`):
    /// remove what `proc` published under `keys` (everything it published
    /// when `keys` is empty).
    fn unpublish(
        &self,
        proc: &Proc,
        keys: &[crate::Key],
        infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        let _ = (proc, keys, infos, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// `query`: `proc` asked `queries` that neither its library nor the
    /// server could answer. Complete with the results, one info per key
    /// answered (the key is the query key); answering some keys only is
    /// fine (the client then gets `PMIX_ERR_PARTIAL_SUCCESS`).
    fn query(
        &self,
        proc: &Proc,
        queries: &[crate::value::Query],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        let _ = (proc, queries, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// What the host knows of `proc`, a process it started (see
    /// [`StartedProc`]). Without it the proc tables give the pid of a
    /// connected process (from its socket's credentials), the first word
    /// of its application's `PMIX_APP_ARGV`, and states `RUNNING` or
    /// `UNDEF`. Called on the server's progress thread: must not block.
    fn started_proc(&self, proc: &Proc) -> Option<StartedProc> {
        let _ = proc;
        None
    }

    /// `log`: `proc` asks to log `data` (`PMIX_LOG_STDERR`, `PMIX_LOG_SYSLOG`,
    /// ...) under `directives` (which include `PMIX_LOG_SOURCE`). Without
    /// this callback the server logs to its own stdout, stderr and syslog.
    fn log(
        &self,
        proc: &Proc,
        data: &[Info],
        directives: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        let _ = (proc, data, directives, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// `job_control`: `proc` asks to act (`PMIX_JOB_CTRL_KILL`, `..._SIGNAL`,
    /// ...) on `targets` (empty: the requester's namespace).
    fn job_control(
        &self,
        proc: &Proc,
        targets: &[Proc],
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        let _ = (proc, targets, directives, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// `session_control`: `proc` asks to act on session `session`
    /// (`PMIX_SESSION_PAUSE`, `_RESUME`, `_TERMINATE`, `_SIGNAL`, ...;
    /// OpenPMIx 5.0's `session_control` module function).
    fn session_control(
        &self,
        proc: &Proc,
        session: u32,
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        let _ = (proc, session, directives, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// `fabric`: `proc` asks for information on a fabric (`op`
    /// `PMIX_FABRIC_REQUEST_INFO`, 0, with the caller's directives) or to
    /// refresh one it registered (`PMIX_FABRIC_UPDATE_INFO`, 1, the
    /// directives naming it by `PMIX_FABRIC_INDEX`). Complete with the
    /// fabric's infos (`PMIX_FABRIC_VENDOR`, `PMIX_FABRIC_IDENTIFIER`,
    /// `PMIX_FABRIC_NUM_DEVICES`, ...). Without it the calling library
    /// describes its own node's NICs (see the C library's `fabric_view`).
    fn fabric(
        &self,
        proc: &Proc,
        op: u8,
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        let _ = (proc, op, directives, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// `monitor`: `proc` asks to be monitored as `monitor` says, `error`
    /// being the status to raise on a failure. Without this callback (or
    /// when it answers `PMIX_ERR_NOT_SUPPORTED`, at once or by `done`) the
    /// server library runs heartbeat and file monitors itself (see
    /// `server::monitor`).
    fn monitor(
        &self,
        proc: &Proc,
        monitor: &Info,
        error: Status,
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        let _ = (proc, monitor, error, directives, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// `allocate`: `proc` requests a change (`directive`, a
    /// `pmix_alloc_directive_t`) of its allocation.
    fn allocate(
        &self,
        proc: &Proc,
        directive: u8,
        infos: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        let _ = (proc, directive, infos, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// `get_credential`: complete with a credential for `proc` and any
    /// infos describing it.
    fn get_credential(
        &self,
        proc: &Proc,
        directives: &[Info],
        done: Completion<(Vec<u8>, Vec<Info>)>,
    ) -> Result<(), Status> {
        let _ = (proc, directives, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// `validate_credential`: complete with infos describing the
    /// credential `cred` `proc` presents (an error if it is not valid).
    fn validate_credential(
        &self,
        proc: &Proc,
        cred: &[u8],
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        let _ = (proc, cred, directives, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// `requestor` called `PMIx_Spawn` with `job_info` and `apps`: the host
    /// launches the new job (registering its namespace and clients with
    /// the server, `PMIX_PARENT_ID` = `requestor`) and completes `done`
    /// with the new namespace once its processes are started. The
    /// client's call returns that namespace.
    fn spawn(
        &self,
        requestor: &Proc,
        job_info: &[Info],
        apps: &[App],
        done: Completion<Nspace>,
    ) -> Result<(), Status> {
        let _ = (requestor, job_info, apps, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// Every local participant of a `PMIx_Connect` over `procs` arrived:
    /// the host completes `done` once the participants of every node have
    /// (one call per operation and node). Without this callback, a connect
    /// whose participants are all local completes locally.
    fn connect(&self, procs: &[Proc], infos: &[Info], done: Completion<()>) -> Result<(), Status> {
        let _ = (procs, infos, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// As [`connect`](Self::connect), for `PMIx_Disconnect`.
    fn disconnect(
        &self,
        procs: &[Proc],
        infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        let _ = (procs, infos, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// The host's part of a group construct or destruct (the server
    /// module's `group`): called once per server and operation when every
    /// local participant arrived (a member added by a leader, or any
    /// participant of a bootstrap, is passed on alone at once). `procs` is
    /// the membership as this server knows it, sorted; `directives` are
    /// the first caller's, plus `PMIX_SORTED_PROC_ARRAY`,
    /// `PMIX_LOCAL_COLLECTIVE_STATUS` and, for a construct, this server's
    /// `PMIX_GROUP_ENDPT_DATA` (a byte object). The host runs the
    /// allgather among the servers involved (keyed by `id`), then
    /// completes `done` with `PMIX_GROUP_CONTEXT_ID` (any integer type) if
    /// one was asked for (`PMIX_GROUP_ASSIGN_CONTEXT_ID`), every server's
    /// `PMIX_GROUP_ENDPT_DATA` (one info each), and optionally
    /// `PMIX_GROUP_MEMBERSHIP`. `done` may be completed from any thread,
    /// also before this returns. Returning `PMIX_OPERATION_SUCCEEDED` means
    /// done, with no results; any other error fails the operation for
    /// every local participant. Without this callback a server completes
    /// the groups whose members are all its own clients and that need no
    /// context id; others fail with `PMIX_ERR_NOT_SUPPORTED`.
    fn group(
        &self,
        op: crate::group::GroupOp,
        id: &str,
        procs: &[Proc],
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) -> Result<(), Status> {
        let _ = (op, id, procs, directives, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// A local client notified an event whose range reaches beyond this
    /// node (`notify_event`): the host delivers it to the servers of every
    /// node in `range`, this one included, each of which gets it through
    /// [`super::Server::notify_event`] (`PMIx_Notify_event`), as OpenPMIx
    /// hosts do. `infos` carry `PMIX_EVENT_PROXY` naming this server.
    /// Without this callback the server treats its node as the whole
    /// range and delivers the event itself.
    fn notify_event(
        &self,
        status: Status,
        source: &Proc,
        range: crate::events::Range,
        infos: &[Info],
        done: Completion<()>,
    ) -> Result<(), Status> {
        let _ = (status, source, range, infos, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// `iof_pull`: a requester wants the output `channels`
    /// (`pmix_iof_channel_t` bits) of `procs`, with the pull's
    /// `directives` (`PMIX_IOF_REDIRECT`, `PMIX_IOF_COPY`, cache size,
    /// ...). The host starts handing that output to
    /// [`super::Server::iof_deliver`]. Without this callback (or on
    /// `PMIX_ERR_NOT_SUPPORTED`) the pull still succeeds: the server
    /// serves whatever the host delivers; any other error fails the pull.
    fn iof_pull(
        &self,
        procs: &[Proc],
        directives: &[Info],
        channels: u16,
        done: Completion<()>,
    ) -> Result<(), Status> {
        let _ = (procs, directives, channels, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }

    /// `push_stdin`: `source` sends `data` for the stdin of `targets`
    /// (`None`: the end of its input: the targets' stdin closes), with the
    /// push's `directives`. Without this callback `PMIx_IOF_push` fails
    /// with `PMIX_ERR_NOT_SUPPORTED`.
    fn push_stdin(
        &self,
        source: &Proc,
        targets: &[Proc],
        directives: &[Info],
        data: Option<Vec<u8>>,
        done: Completion<()>,
    ) -> Result<(), Status> {
        let _ = (source, targets, directives, data, done);
        Err(Status::ERR_NOT_SUPPORTED)
    }
}

/// A host that provides nothing: every callback takes its default.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoHost;

impl HostModule for NoHost {}
