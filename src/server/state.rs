//! Everything the progress thread owns, in its rooms, and the few actions
//! that span several of them: answering a request, handing an operation to
//! the host, the fan-out when a process departs, and a collective's
//! failure, handled here once for every kind of collective.
//!
//! Invariants:
//! - Only the progress thread touches a `State` (host threads reach it
//!   through the command channel, [`super::command`]).
//! - Each room owns its data and keeps its own invariant: connections
//!   ([`Connections`]), committed data and modex generations
//!   ([`ModexStore`]), direct-modex waiters ([`Waiters`]), operations at
//!   the host ([`PendingOps`]), deadlines ([`Timers`]), collectives
//!   ([`Collectives`]), process sets ([`ProcessSets`]), groups
//!   ([`Groups`]), I/O forwarding ([`Iof`]). Handlers use their methods, never their fields.
//! - Every request is answered once (see [`State::respond`]); every
//!   participant of a failed collective gets the failure (see
//!   [`State::collective_failed`]).

use std::os::fd::OwnedFd;
use std::sync::Arc;

use super::collective::{Arrival, Call, Collectives, Failure, Kind, Stage};
use super::connections::{Caller, Connections};
use super::groups::Groups;
use super::host::{take_result, Completion, HostModule, OpResult, OpSink};
use super::iof_room::Iof;
use super::modex_store::ModexStore;
use super::ops::{Encoder, PendingOp, PendingOps};
use super::psets::ProcessSets;
use super::registry::Registry;
use super::timers::{TimerKey, Timers};
use super::waiters::{Waiter, WaiterTo, Waiters};
use crate::events::{Event, EventHandlers, Range};
use crate::wire::{DmodexReply, Message, Response, SegmentKind, SegmentRef};
use crate::{keys, Info, Nspace, Proc, Status, Value};

/// The progress thread's state.
pub(crate) struct State {
    pub(super) conns: Connections,
    pub(super) modex: ModexStore,
    pub(super) waiters: Waiters,
    pub(super) ops: PendingOps,
    pub(super) timers: Timers,
    pub(super) collectives: Collectives,
    pub(super) psets: ProcessSets,
    pub(super) groups: Groups,
    pub(super) iof: Iof,
    registry: Arc<Registry>,
    host: Arc<dyn HostModule>,
    sink: Arc<dyn OpSink>,
    server: Proc,
    events: Arc<EventHandlers>,
    /// Tools may connect (`PMIX_SERVER_TOOL_SUPPORT`/`_SYSTEM_SUPPORT`).
    tools: bool,
}

impl State {
    pub(super) fn new(
        conns: Connections,
        registry: Arc<Registry>,
        host: Arc<dyn HostModule>,
        sink: Arc<dyn OpSink>,
        server: Proc,
        events: Arc<EventHandlers>,
        tools: bool,
    ) -> State {
        State {
            conns,
            modex: ModexStore::default(),
            waiters: Waiters::default(),
            ops: PendingOps::default(),
            timers: Timers::default(),
            collectives: Collectives::default(),
            psets: ProcessSets::default(),
            groups: Groups::default(),
            iof: Iof::default(),
            registry,
            host,
            sink,
            server,
            events,
            tools,
        }
    }

    /// True if tools may connect to this server.
    pub(super) fn tools_allowed(&self) -> bool {
        self.tools
    }

    /// The registered namespaces and clients.
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The host module (a clone: a handler calls it while it changes the
    /// state).
    pub(crate) fn host(&self) -> Arc<dyn HostModule> {
        self.host.clone()
    }

    /// Makes `host` the module every later upcall goes to (a launcher
    /// tool given its host's functions: `PMIx_tool_set_server_module`);
    /// upcalls under way complete through the module they went to.
    pub(crate) fn set_host(&mut self, host: Arc<dyn HostModule>) {
        self.host = host;
    }

    /// The server's own identity.
    pub(crate) fn server_proc(&self) -> &Proc {
        &self.server
    }

    /// The server process's own event handlers.
    pub(crate) fn events(&self) -> &Arc<EventHandlers> {
        &self.events
    }

    /// Records `op` as pending at the host; returns its number and the
    /// completion to give the host.
    pub(super) fn start_op<T: Send + 'static>(&mut self, op: PendingOp) -> (u64, Completion<T>) {
        let id = self.ops.start(op);
        (id, Completion::new(id, self.sink.clone()))
    }

    /// Answers a request.
    pub(crate) fn respond(&mut self, caller: Caller, r: Result<Vec<u8>, Status>) {
        let m = Message::Response(match r {
            Ok(body) => Response {
                status: Status::SUCCESS,
                body,
            },
            Err(status) => Response {
                status,
                body: Vec::new(),
            },
        });
        self.conns.send(caller.token, caller.id, &m, Vec::new());
    }

    /// Starts a host operation answering `caller`: returns the operation's
    /// number (for [`State::finish_service`]) and the completion to give the
    /// host. When the host completes with a `T`, `encode` makes the
    /// response body from it.
    pub(crate) fn host_op<T: Send + 'static>(
        &mut self,
        caller: Caller,
        encode: impl FnOnce(T) -> Result<Vec<u8>, Status> + Send + 'static,
    ) -> (u64, Completion<T>) {
        self.host_op_or_fallback(caller, move |r| r.and_then(encode))
    }

    /// A host operation whose encoder also sees the host's failure (a
    /// query's partial answers survive a host that refuses).
    pub(crate) fn host_op_or_fallback<T: Send + 'static>(
        &mut self,
        caller: Caller,
        encode: impl FnOnce(Result<T, Status>) -> Result<Vec<u8>, Status> + Send + 'static,
    ) -> (u64, Completion<T>) {
        let encoder: Encoder = Box::new(move |r| encode(take_result::<T>(r)));
        self.start_op(PendingOp::Service { caller, encoder })
    }

    /// Resolves service operation `op` (the host refused it synchronously,
    /// or it completed at once).
    pub(crate) fn finish_service(&mut self, op: u64, result: OpResult) {
        if let Some(PendingOp::Service { caller, encoder }) = self.ops.take(op) {
            let r = encoder(result);
            self.respond(caller, r);
        }
    }

    /// The job segment and modex generations of `ns` with a descriptor
    /// each, as a client of `ns` (or a process connected to it) maps them;
    /// with `own`, for a client of `ns`, its barrier page too.
    pub(super) fn nspace_segments(
        &self,
        ns: &Nspace,
        own: bool,
    ) -> Result<(Vec<SegmentRef>, Vec<OwnedFd>), Status> {
        let rec = self.registry.nspace(ns).ok_or(Status::ERR_NOT_FOUND)?;
        let fd = rec
            .job_segment
            .fd()
            .try_clone_to_owned()
            .map_err(|_| Status::ERR_OUT_OF_RESOURCE)?;
        let mut refs = vec![SegmentRef {
            nspace: ns.clone(),
            kind: SegmentKind::Job,
            generation: rec.generation,
        }];
        let mut fds = vec![fd];
        if !self.modex.push_generations(ns, &mut refs, &mut fds) {
            return Err(Status::ERR_OUT_OF_RESOURCE);
        }
        if let Some((page, generation)) = rec.barrier.as_ref().filter(|_| own) {
            let fd = page
                .fd()
                .try_clone_to_owned()
                .map_err(|_| Status::ERR_OUT_OF_RESOURCE)?;
            refs.push(SegmentRef {
                nspace: ns.clone(),
                kind: SegmentKind::Barrier,
                generation: *generation,
            });
            fds.push(fd);
        }
        Ok((refs, fds))
    }

    // ------------------------------------------------------------------
    // Direct-modex answers

    /// Answers waiter `w` (taken out of `waiters`) with the data or the
    /// failure, and disarms its deadline.
    pub(super) fn answer_waiter(&mut self, w: Waiter, r: Result<Vec<u8>, Status>) {
        if let Some(dl) = w.deadline {
            self.timers.cancel(dl, TimerKey::Waiter(w.id));
        }
        match w.to {
            WaiterTo::Client(caller) => self.reply_dmodex(caller, r),
            WaiterTo::Host(done) => done(r),
        }
    }

    pub(super) fn reply_dmodex(&mut self, caller: Caller, r: Result<Vec<u8>, Status>) {
        let m = Message::DmodexReply(match r {
            Ok(data) => DmodexReply {
                status: Status::SUCCESS,
                data,
            },
            Err(status) => DmodexReply {
                status,
                data: Vec::new(),
            },
        });
        self.conns.send(caller.token, caller.id, &m, Vec::new());
    }

    /// `proc` committed, finalized or left: answers whoever waits for its
    /// data.
    pub(super) fn release_local_waiters(&mut self, proc: &Proc) {
        for w in self.waiters.take_local(proc) {
            let scopes = match w.to {
                WaiterTo::Client(_) => pmix_shmem::Scopes::LOCAL_PEER,
                WaiterTo::Host(_) => pmix_shmem::Scopes::REMOTE_PEER,
            };
            let r = self
                .modex
                .record(proc, scopes)
                .unwrap_or(Err(Status::ERR_NOT_FOUND));
            self.answer_waiter(w, r);
        }
    }

    // ------------------------------------------------------------------
    // Departures and collective failures

    /// `proc` departed (`finalized`, or its connection was lost): whatever
    /// waits on it fails, and, if lost, the host and the server's handlers
    /// hear of it.
    pub(super) fn departed(&mut self, proc: &Proc, finalized: bool) {
        // Fences over its job through the barrier page cannot complete.
        if let Some((page, _)) = self
            .registry
            .nspace(&proc.nspace)
            .and_then(|r| r.barrier.clone())
        {
            page.fail(Status::ERR_LOST_CONNECTION);
        }
        self.release_local_waiters(proc);
        // Group collectives are `group_collective::departed`'s.
        for cid in self.collectives.blocked_by(proc, finalized) {
            if !self.collectives.get(cid).is_some_and(|c| c.kind.is_group()) {
                self.collective_failed(cid, Status::ERR_LOST_CONNECTION);
            }
        }
        for cid in self.collectives.failed_with(proc) {
            self.retire_collective(cid);
        }
        if !finalized {
            self.host.client_lost(proc);
            self.events.deliver(Event {
                status: Status::ERR_LOST_CONNECTION,
                source: proc.clone(),
                range: Range::PROC_LOCAL,
                infos: Vec::new(),
            });
        }
    }

    /// True if every process of `procs` is served here: a local rank of a
    /// registered namespace, or a connected tool.
    pub(super) fn all_local(&self, procs: &[Proc]) -> bool {
        procs.iter().all(|p| {
            self.registry.all_local(std::slice::from_ref(p))
                || is_tool(&self.registry, &self.conns, p)
        })
    }

    /// `proc` calls `call` on `caller`: enters it on the collective engine
    /// and answers what is decided at once (a refusal, a failure); returns
    /// the collective's number once every local participant is in, for the
    /// caller to hand it to the host.
    pub(super) fn enter_collective(
        &mut self,
        caller: Caller,
        proc: &Proc,
        call: Call,
    ) -> Option<u64> {
        let kind = call.kind;
        let registry = self.registry.clone();
        let conns = &self.conns;
        let a = self.collectives.arrive(
            caller,
            proc,
            call,
            |set| local_participants(&registry, conns, set),
            |p| conns.departed(p),
            &mut self.timers,
        );
        match a {
            Arrival::Waiting => {}
            Arrival::Ready(cid) => return Some(cid),
            Arrival::Refused(s) => self.send_failure(kind, [caller], s),
            Arrival::Fail(cid, s) => self.collective_failed(cid, s),
            Arrival::Late(cid, s) => self.collective_late(cid, caller, s),
        }
        None
    }

    /// Collective `cid` fails with `status` (a participant departed, its
    /// deadline passed, the host failed it): every participant that
    /// arrived gets the failure. Before the host had it, the collective
    /// stays failed for late arrivals, and the host hears of the failure
    /// if the kind asks for that; at the host, the host's answer, if it
    /// still comes, is ignored.
    pub(super) fn collective_failed(&mut self, cid: u64, status: Status) {
        match self.collectives.stage(cid) {
            None | Some(Stage::Failed) => {}
            Some(Stage::AtHost(op)) => {
                self.ops.take(op);
                if let Some(c) = self.collectives.finish(cid, &mut self.timers) {
                    let callers = c.arrived.into_iter().map(|(_, caller)| caller);
                    self.send_failure(c.kind, callers, status);
                }
            }
            Some(Stage::Gathering) => {
                let Some(mut f) = self.collectives.fail(cid, status, &mut self.timers) else {
                    return;
                };
                self.send_failure(f.kind, std::mem::take(&mut f.arrived), status);
                self.report_failure(f, status);
                self.retire_collective(cid);
            }
        }
    }

    /// The set `procs` with group ids replaced by the members they name
    /// (see [`Groups::expand`]), and the ids of the groups it names whole
    /// (see [`Groups::named_whole`]).
    pub(super) fn expand_groups(
        &self,
        procs: Vec<Proc>,
    ) -> Result<(Vec<Proc>, Vec<String>), Status> {
        let registry = &self.registry;
        let is_nspace = |p: &Proc| registry.nspace(&p.nspace).is_some();
        match self.groups.expand(&procs, is_nspace) {
            None => Ok((procs, Vec::new())),
            Some(r) => {
                let whole = self.groups.named_whole(&procs, is_nspace);
                r.map(|expanded| (expanded, whole))
            }
        }
    }

    /// Answers `caller` of a `kind` collective with `status` at once.
    pub(super) fn refuse_collective(&mut self, kind: Kind, caller: Caller, status: Status) {
        self.send_failure(kind, [caller], status);
    }

    /// Collective `f` failed here, before reaching the host: the host
    /// hears of it (with `PMIX_LOCAL_COLLECTIVE_STATUS`), so that the
    /// servers of other nodes do not wait for this node forever: a fence
    /// through `fence_nb`, a group construct through `group` (when the
    /// host runs groups across nodes). Its answer is not needed; other
    /// kinds are not reported.
    fn report_failure(&mut self, f: Failure, status: Status) {
        let mut infos = f.infos;
        infos.extend(Info::keyed(
            keys::LOCAL_COLLECTIVE_STATUS,
            Value::Status(status.code()),
        ));
        let host = self.host.clone();
        let r = match (f.kind, f.group) {
            (Kind::Fence, _) => {
                let (op, done) = self.start_op::<Vec<u8>>(PendingOp::Ignored);
                (op, host.fence_nb(&f.procs, &infos, Vec::new(), done))
            }
            (Kind::GroupConstruct, Some(id)) if !host.fences_are_local() => {
                let (op, done) = self.start_op::<Vec<Info>>(PendingOp::Ignored);
                let construct = crate::group::GroupOp::Construct;
                (op, host.group(construct, &id, &f.procs, &infos, done))
            }
            _ => return,
        };
        if let (op, Err(_)) = r {
            self.ops.take(op);
        }
    }

    /// A late arrival at failed collective `cid` gets its failure.
    pub(super) fn collective_late(&mut self, cid: u64, caller: Caller, status: Status) {
        if let Some(kind) = self.collectives.get(cid).map(|c| c.kind) {
            self.send_failure(kind, [caller], status);
        }
        self.retire_collective(cid);
    }

    /// Answers `callers` of a `kind` collective with its failure `status`.
    fn send_failure(
        &mut self,
        kind: Kind,
        callers: impl IntoIterator<Item = Caller>,
        status: Status,
    ) {
        let m = kind.failure(status);
        for caller in callers {
            self.conns.send(caller.token, caller.id, &m, Vec::new());
        }
    }

    /// Forgets failed collective `cid` once its participants all arrived
    /// or are gone (see [`gone`]).
    fn retire_collective(&mut self, cid: u64) {
        let (conns, registry) = (&self.conns, &self.registry);
        self.collectives.retire(cid, |p| gone(registry, conns, p));
    }

    /// Retires those of failed collectives `cids` none of whose
    /// participants can still arrive (after the host deregistered some).
    pub(super) fn retire_collectives(&mut self, cids: Vec<u64>) {
        for cid in cids {
            self.retire_collective(cid);
        }
    }

    /// The host deregistered namespace `ns`.
    pub(super) fn nspace_gone(&mut self, ns: &Nspace) {
        self.psets.forget_nspace(ns);
        self.groups.forget_nspace(ns);
        self.modex.forget_nspace(ns);
        self.conns.forget_nspace(ns);
    }

    /// How many entries each room holds (see [`super::census`]).
    pub(super) fn census(&self) -> super::census::Census {
        let mut c = super::census::Census::default();
        self.conns.count(&mut c);
        self.modex.count(&mut c);
        self.waiters.count(&mut c);
        self.ops.count(&mut c);
        self.timers.count(&mut c);
        self.collectives.count(&mut c);
        self.psets.count(&mut c);
        self.groups.count(&mut c);
        self.iof.count(&mut c);
        self.registry.count(&mut c);
        c.add("events.handlers", self.events.registered());
        c
    }

    /// The host deregistered client `proc`.
    pub(super) fn client_gone(&mut self, proc: &Proc) {
        self.conns.forget(proc);
        self.modex.forget(proc);
    }
}

/// True if `p` can no longer arrive at a collective: it departed, or it
/// is neither a registered client nor a tool connected here (the host
/// deregistered it, or its namespace).
fn gone(registry: &Registry, conns: &Connections, p: &Proc) -> bool {
    conns.departed(p) || (registry.ids_of(p).is_none() && !is_tool(registry, conns, p))
}

/// True if `p` is a tool connected here (a connected process of no
/// registered namespace).
fn is_tool(registry: &Registry, conns: &Connections, p: &Proc) -> bool {
    registry.nspace(&p.nspace).is_none() && conns.token_of(p).is_some()
}

/// The participants of `set` served here: the local ranks of registered
/// namespaces, and the tools connected here (a tool may take part in a
/// connect with a job).
fn local_participants(
    registry: &Registry,
    conns: &Connections,
    set: &[Proc],
) -> std::collections::BTreeSet<Proc> {
    let mut local = registry.local_participants(set);
    local.extend(set.iter().filter(|p| is_tool(registry, conns, p)).cloned());
    local
}
