//! Everything the progress thread owns, in its rooms, and the few actions
//! that span several of them: answering a request, handing an operation to
//! the host ([`State::upcall`]), and what a departed process ends outside
//! the collectives (those are the collective engine's, `collective`).
//!
//! Invariants:
//! - Only the progress thread touches a `State` (host threads reach it
//!   through the command channel, [`super::command`]).
//! - Each room owns its data and keeps its own invariant: connections
//!   ([`Connections`]), committed data and modex generations
//!   ([`ModexStore`]), direct-modex waiters ([`Waiters`]), operations at
//!   the host ([`PendingOps`]), deadlines ([`Timers`]), collectives
//!   ([`Collectives`]), process sets ([`ProcessSets`]), groups
//!   ([`Groups`]), I/O forwarding ([`Iof`]), monitors ([`Monitors`]).
//!   Handlers use their methods, never their fields.
//! - The rooms are private fields of `State`: a handler reaches a room
//!   through its accessor (`st.groups()`, `st.groups_mut()`, ...), and
//!   two rooms at once only through the methods that name why
//!   ([`State::finish_collective`], [`State::collectives_with_conns`],
//!   [`State::iof_with_conns`], ...).
//! - Every request is answered once (see [`State::respond`]); an
//!   operation the host refuses is resolved at once (see
//!   [`State::upcall`]).

use std::os::fd::OwnedFd;
use std::sync::Arc;

use super::clients::connections::{Caller, Connections};
use super::collective::{Collective, Collectives, Failure};
use super::groups::room::{Groups, Invite};
use super::host::{take_result, Completion, HostModule, OpOutput, OpResult, OpSink};
use super::iof::room::Iof;
use super::modex::store::ModexStore;
use super::modex::waiters::{Waiter, WaiterTo, Waiters};
use super::monitor::request::Spec;
use super::monitor::room::Monitors;
use super::ops::{Encoder, PendingOp, PendingOps};
use super::psets::ProcessSets;
use super::registry::Registry;
use super::timers::{TimerKey, Timers};
use crate::events::{Event, EventHandlers, Range};
use crate::wire::{DmodexReply, Message, Response, SegmentKind, SegmentRef};
use crate::{Nspace, Proc, Status};

/// The progress thread's state.
pub(crate) struct State {
    conns: Connections,
    modex: ModexStore,
    waiters: Waiters,
    ops: PendingOps,
    timers: Timers,
    collectives: Collectives,
    psets: ProcessSets,
    groups: Groups,
    iof: Iof,
    monitors: Monitors,
    wiring: Wiring,
}

/// What the state is wired to, given by the loop when it starts and never
/// replaced: the server's shared parts and the host.
pub(super) struct Wiring {
    pub(super) registry: Arc<Registry>,
    pub(super) host: Arc<dyn HostModule>,
    pub(super) sink: Arc<dyn OpSink>,
    pub(super) server: Proc,
    pub(super) events: Arc<EventHandlers>,
    /// Tools may connect (`PMIX_SERVER_TOOL_SUPPORT`/`_SYSTEM_SUPPORT`).
    pub(super) tools: bool,
}

impl State {
    pub(super) fn new(conns: Connections, wiring: Wiring) -> State {
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
            monitors: Monitors::default(),
            wiring,
        }
    }

    // The rooms. Each keeps its own invariant behind its methods; a
    // handler reaches a room through these, never through a field.

    /// The room of the client connections.
    pub(super) fn conns(&self) -> &Connections {
        &self.conns
    }

    /// The room of the client connections, to change.
    pub(super) fn conns_mut(&mut self) -> &mut Connections {
        &mut self.conns
    }

    /// The room of committed data and modex generations.
    pub(super) fn modex(&self) -> &ModexStore {
        &self.modex
    }

    /// The room of committed data and modex generations, to change.
    pub(super) fn modex_mut(&mut self) -> &mut ModexStore {
        &mut self.modex
    }

    /// The room of direct-modex waiters, to change.
    pub(super) fn waiters_mut(&mut self) -> &mut Waiters {
        &mut self.waiters
    }

    /// The room of operations at the host, to change.
    pub(super) fn ops_mut(&mut self) -> &mut PendingOps {
        &mut self.ops
    }

    /// The room of deadlines.
    pub(super) fn timers(&self) -> &Timers {
        &self.timers
    }

    /// The room of deadlines, to change.
    pub(super) fn timers_mut(&mut self) -> &mut Timers {
        &mut self.timers
    }

    /// The room of collectives in progress.
    pub(super) fn collectives(&self) -> &Collectives {
        &self.collectives
    }

    /// The room of collectives in progress, to change.
    pub(super) fn collectives_mut(&mut self) -> &mut Collectives {
        &mut self.collectives
    }

    /// The room of process sets.
    pub(super) fn psets(&self) -> &ProcessSets {
        &self.psets
    }

    /// The room of process sets, to change.
    pub(super) fn psets_mut(&mut self) -> &mut ProcessSets {
        &mut self.psets
    }

    /// The room of groups and invitations.
    pub(super) fn groups(&self) -> &Groups {
        &self.groups
    }

    /// The room of groups and invitations, to change.
    pub(super) fn groups_mut(&mut self) -> &mut Groups {
        &mut self.groups
    }

    /// The room of I/O forwarding.
    pub(super) fn iof(&self) -> &Iof {
        &self.iof
    }

    /// The room of I/O forwarding, to change.
    pub(super) fn iof_mut(&mut self) -> &mut Iof {
        &mut self.iof
    }

    /// The room of the library's monitors.
    pub(super) fn monitors(&self) -> &Monitors {
        &self.monitors
    }

    /// The room of the library's monitors, to change.
    pub(super) fn monitors_mut(&mut self) -> &mut Monitors {
        &mut self.monitors
    }

    /// Starts monitor `spec` of `owner`, arming its first look (see
    /// [`Monitors::start`]).
    pub(super) fn start_monitor(&mut self, owner: Proc, spec: Spec, now: std::time::Instant) {
        self.monitors.start(owner, spec, now, &mut self.timers);
    }

    /// Monitor `n`'s look at `now`, re-armed unless it ended; its alert,
    /// if any (see [`Monitors::tick`]).
    pub(super) fn tick_monitor(&mut self, n: u64, now: std::time::Instant) -> Option<Event> {
        self.monitors.tick(n, now, &mut self.timers)
    }

    /// Ends `owner`'s monitors named `name` (all if `None`), disarming
    /// their looks (see [`Monitors::cancel`]).
    pub(super) fn cancel_monitors(&mut self, owner: &Proc, name: Option<&str>) -> usize {
        self.monitors.cancel(owner, name, &mut self.timers)
    }

    /// Ends collective `cid` (see [`Collectives::finish`]), disarming its
    /// deadline.
    pub(super) fn finish_collective(&mut self, cid: u64) -> Option<Collective> {
        self.collectives.finish(cid, &mut self.timers)
    }

    /// Marks collective `cid` failed with `status` (see
    /// [`Collectives::fail`]), disarming its deadline.
    pub(super) fn fail_collective(&mut self, cid: u64, status: Status) -> Option<Failure> {
        self.collectives.fail(cid, status, &mut self.timers)
    }

    /// Starts group invitation `invite`, arming its deadline (see
    /// [`Groups::start_invite`]); returns its number.
    pub(super) fn start_invite(&mut self, invite: Invite) -> u64 {
        self.groups.start_invite(invite, &mut self.timers)
    }

    /// Invitation `n` once every invitee answered, its deadline disarmed
    /// (see [`Groups::answered_invite`]).
    pub(super) fn answered_invite(&mut self, n: u64) -> Option<&Invite> {
        self.groups.answered_invite(n, &mut self.timers)
    }

    /// Ends invitation `n`, disarming its deadline.
    pub(super) fn take_invite(&mut self, n: u64) -> Option<Invite> {
        self.groups.take_invite(n, &mut self.timers)
    }

    /// The collectives, with what an arrival or a retirement reads and
    /// arms beside them: the connections (who is local, who departed) and
    /// the deadlines.
    pub(super) fn collectives_with_conns(
        &mut self,
    ) -> (&mut Collectives, &Connections, &mut Timers) {
        (&mut self.collectives, &self.conns, &mut self.timers)
    }

    /// The I/O-forwarding room, with the connections its outboxes belong
    /// to and write into (an outbox of a closed connection is dropped).
    pub(super) fn iof_with_conns(&mut self) -> (&mut Iof, &mut Connections) {
        (&mut self.iof, &mut self.conns)
    }

    /// True if tools may connect to this server.
    pub(super) fn tools_allowed(&self) -> bool {
        self.wiring.tools
    }

    /// The registered namespaces and clients.
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.wiring.registry
    }

    /// The host module (a clone: a handler calls it while it changes the
    /// state).
    pub(crate) fn host(&self) -> Arc<dyn HostModule> {
        self.wiring.host.clone()
    }

    /// Makes `host` the module every later upcall goes to (a launcher
    /// tool given its host's functions: `PMIx_tool_set_server_module`);
    /// upcalls under way complete through the module they went to.
    pub(crate) fn set_host(&mut self, host: Arc<dyn HostModule>) {
        self.wiring.host = host;
    }

    /// The server's own identity.
    pub(crate) fn server_proc(&self) -> &Proc {
        &self.wiring.server
    }

    /// The server process's own event handlers.
    pub(crate) fn events(&self) -> &Arc<EventHandlers> {
        &self.wiring.events
    }

    /// Records `op` as pending at the host; returns its number and the
    /// completion to give the host.
    pub(super) fn start_op<T: OpOutput>(&mut self, op: PendingOp) -> (u64, Completion<T>) {
        let id = self.ops.start(op);
        (id, Completion::new(id, self.wiring.sink.clone()))
    }

    /// Hands operation `pending` to the host through `call`, given the
    /// module and the operation's completion: returns the operation's
    /// number and the host's immediate answer. A refusal (an error)
    /// resolves the operation at once: its completion is then ignored.
    pub(super) fn upcall<T: OpOutput>(
        &mut self,
        pending: PendingOp,
        call: impl FnOnce(&dyn HostModule, Completion<T>) -> Result<(), Status>,
    ) -> (u64, Result<(), Status>) {
        let (op, done) = self.start_op(pending);
        let host = self.wiring.host.clone();
        let r = call(&*host, done);
        if r.is_err() {
            self.forget_op(op);
        }
        (op, r)
    }

    /// Resolves operation `op` without its answer: a completion, if one
    /// still comes, is ignored.
    pub(super) fn forget_op(&mut self, op: u64) {
        self.ops.take(op);
    }

    /// Answers a request.
    pub(crate) fn respond(&mut self, caller: Caller, r: Result<Vec<u8>, Status>) {
        let (status, body) = status_and_body(r);
        let m = Message::Response(Response { status, body });
        self.conns.send(caller.token, caller.id, &m, Vec::new());
    }

    /// Starts a host operation answering `caller`: returns the operation's
    /// number (for [`State::finish_service`]) and the completion to give the
    /// host. When the host completes with a `T`, `encode` makes the
    /// response body from it.
    pub(crate) fn host_op<T: OpOutput>(
        &mut self,
        caller: Caller,
        encode: impl FnOnce(T) -> Result<Vec<u8>, Status> + Send + 'static,
    ) -> (u64, Completion<T>) {
        self.host_op_or_fallback(caller, move |r| r.and_then(encode))
    }

    /// A host operation whose encoder also sees the host's failure (a
    /// query's partial answers survive a host that refuses).
    pub(crate) fn host_op_or_fallback<T: OpOutput>(
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
        let rec = self
            .wiring
            .registry
            .nspace(ns)
            .ok_or(Status::ERR_NOT_FOUND)?;
        let fd = rec
            .job_segment()
            .fd()
            .try_clone_to_owned()
            .map_err(|_| Status::ERR_OUT_OF_RESOURCE)?;
        let mut refs = vec![SegmentRef {
            nspace: ns.clone(),
            kind: SegmentKind::Job,
            generation: rec.generation(),
        }];
        let mut fds = vec![fd];
        if !self.modex.push_generations(ns, &mut refs, &mut fds) {
            return Err(Status::ERR_OUT_OF_RESOURCE);
        }
        if let Some((page, generation)) = rec.barrier().filter(|_| own) {
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
        let (status, data) = status_and_body(r);
        let m = Message::DmodexReply(DmodexReply { status, data });
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
    // Departures

    /// `proc` departed (`finalized`, or its connection was lost): whatever
    /// waits on it fails, and, if lost, the host and the server's handlers
    /// hear of it.
    pub(super) fn departed(&mut self, proc: &Proc, finalized: bool) {
        // Fences over its job through the barrier page cannot complete.
        if let Some((page, _)) = self
            .wiring
            .registry
            .nspace(&proc.nspace)
            .and_then(|r| r.barrier().cloned())
        {
            page.fail(Status::ERR_LOST_CONNECTION);
        }
        self.release_local_waiters(proc);
        if !finalized {
            self.wiring.host.client_lost(proc);
            self.wiring.events.deliver(Event {
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
            self.wiring.registry.all_local(std::slice::from_ref(p))
                || is_tool(&self.wiring.registry, &self.conns, p)
        })
    }

    /// The set `procs` with group ids replaced by the members they name
    /// (see [`Groups::expand`]), and the ids of the groups it names whole
    /// (see [`Groups::named_whole`]).
    pub(super) fn expand_groups(
        &self,
        procs: Vec<Proc>,
    ) -> Result<(Vec<Proc>, Vec<String>), Status> {
        let registry = &self.wiring.registry;
        let is_nspace = |p: &Proc| registry.nspace(&p.nspace).is_some();
        match self.groups.expand(&procs, is_nspace) {
            None => Ok((procs, Vec::new())),
            Some(r) => {
                let whole = self.groups.named_whole(&procs, is_nspace);
                r.map(|expanded| (expanded, whole))
            }
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
        self.monitors.count(&mut c);
        self.wiring.registry.count(&mut c);
        c.add("events.handlers", self.wiring.events.registered());
        c
    }

    /// The host deregistered client `proc`.
    pub(super) fn client_gone(&mut self, proc: &Proc) {
        self.conns.forget(proc);
        self.modex.forget(proc);
    }
}

/// True if `p` is a tool connected here (a connected process of no
/// registered namespace).
/// An answer as a status and a body: `PMIX_SUCCESS` with the body, or the
/// error with none.
fn status_and_body(r: Result<Vec<u8>, Status>) -> (Status, Vec<u8>) {
    match r {
        Ok(body) => (Status::SUCCESS, body),
        Err(status) => (status, Vec::new()),
    }
}

pub(super) fn is_tool(registry: &Registry, conns: &Connections, p: &Proc) -> bool {
    registry.nspace(&p.nspace).is_none() && conns.token_of(p).is_some()
}
