//! The PMIx client library: the Rust API behind `PMIx_Init`, `PMIx_Get`,
//! `PMIx_Put`, `PMIx_Commit`, `PMIx_Fence`, `PMIx_Abort`,
//! `PMIx_Finalize` and friends.
//!
//! ```text
//!  caller threads                          progress thread
//!  --------------                          ---------------
//!  get: Directory reader (segments) ----X  (no socket, no lock on the
//!       else local caches                   segment path)
//!       else DmodexRequest  --written by the caller--> server
//!  fence/abort/finalize: request, then   <--- reads the socket when no
//!    read the own reply (or park until        caller does: handlers, _nb
//!    the progress thread delivers it)          callbacks, events
//! ```
//!
//! Invariants:
//! - A caller writes its own request (under the connection's lock, its
//!   reply handler registered first). A blocking call then reads the
//!   socket itself for its reply when no one else reads it, else parks on
//!   a one-value channel its reply handler answers (no polling, no
//!   spinning); see the `progress` module for the read role. Handlers of `_nb`
//!   calls, their callbacks and event sinks run on the progress thread and
//!   must not call blocking client APIs.
//! - Segments received (job data at init, a modex generation per
//!   completed collecting fence) are validated when mapped and published
//!   into the [`Directory`]; from then on gets that find their key there
//!   are served in the calling thread. A generation the server marks as
//!   replacing ([`SegmentKind::ModexReplace`]) replaces the namespace's
//!   earlier modex segments, which are unmapped once no reader uses them.
//! - If the server goes away, every pending and later call fails with
//!   `PMIX_ERR_LOST_CONNECTION`; nothing waits forever on it.

mod connect;
mod debug;
pub use debug::names_me as stop_in_init_names;
mod events;
mod fast_fence;
mod get;
mod get_all;
mod group;
mod init;
mod iof;
pub use group::GroupTarget;
pub use iof::{IofChunk, IofHandler, IofRegCallback, PushRequest};
mod launcher;
mod local_data;
mod local_launch;
mod lookup;
mod own_puts;
pub use own_puts::{OwnKey, OwnPut, INLINE as OWN_INLINE};
mod progress;
mod pubsub;
mod put;
mod query;
mod service;
mod singleton;
mod spawn;
mod stock_link;
pub use spawn::normalize_app;
#[doc(hidden)]
pub use stock_link::decode_server_payload as stock_link_decode;
mod tool;
pub use tool::{ServerAddr, ToolOptions};
pub mod tool_session;

use std::collections::HashSet;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::{MappedRwLockReadGuard, Mutex, RwLock, RwLockReadGuard};
use pmix_shmem::{Directory, Reader, Segment};

use crate::wire::{self, Abort, FenceRequest, Message, ModexOffer, SegmentKind, SegmentRef};
use crate::{keys, Info, Key, Nspace, Proc, Rank, Status, Value};

pub use crate::wire::pubsub::PublishedValue;
pub use connect::ConnectInfo;
pub use get_all::GetAllCallback;
pub use lookup::{GetOptions, RealmQualifier, ValueStorage};
pub use pmix_shmem::{NsHandle, NsView, Scope, ValueRef};
pub use progress::EventSink;
pub use pubsub::LookupCallback;
pub use query::{CredentialCallback, InfosCallback, QueryCallback};
pub use service::ResponseCallback;

use local_data::LocalData;
use progress::{Reply, Requester};

/// Callback of a non-blocking operation; runs on the progress thread.
pub type StatusCallback = Box<dyn FnOnce(Status) + Send + 'static>;

/// Callback of [`Client::spawn_nb`]: the new namespace or the failure;
/// runs on the progress thread. (Here, not in `spawn`, as the local
/// launcher, which `spawn` calls, takes one too.)
pub type SpawnCallback = Box<dyn FnOnce(Result<Nspace, Status>) + Send + 'static>;

/// Callback of [`Client::get_nb`]; runs on the progress thread.
pub type GetCallback = Box<dyn FnOnce(Result<Value, Status>) + Send + 'static>;

/// A process named by borrowed parts: a get's target as the C layer reads
/// it from a `pmix_proc_t` in place, without allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcRef<'a> {
    /// The namespace's bytes (without the NUL).
    pub nspace: &'a [u8],
    /// The rank.
    pub rank: Rank,
}

impl<'a> From<&'a Proc> for ProcRef<'a> {
    fn from(p: &'a Proc) -> ProcRef<'a> {
        ProcRef {
            nspace: p.nspace.as_bytes(),
            rank: p.rank,
        }
    }
}

/// A get's value and where it came from (see [`Client::resolve`]): what a
/// caller may cache it by.
pub enum Answer<'r> {
    /// The mapped segments, borrowed from the reader. It stays the answer
    /// while the namespace's generation is current, unless `until_put`:
    /// a non-reserved key of this process's own rank, which its next put
    /// of the key supersedes.
    Segment {
        /// The value.
        value: ValueRef<'r>,
        /// The namespace's state it was read from (its generation, its
        /// segments).
        view: NsView<'r>,
        /// The answer may change at this process's next put.
        until_put: bool,
    },
    /// This process's latest put of the key, borrowed (no lock was
    /// taken, nothing was copied) for as long as the reader lives. It
    /// stands until the key is put again, which gives it a greater
    /// `version` ([`Client::own_put`]).
    Own {
        /// The value put.
        value: &'r Value,
        /// The put's version.
        version: u64,
    },
    /// The internal store (`PMIx_Store_internal`, `PMIX_INTERNAL` puts,
    /// the client's identity keys) or data fetched by direct modex: not
    /// to be cached by the caller.
    Local(Value),
    /// As [`Answer::Local`], but borrowed where the client holds it, under
    /// the read lock of what it holds for as long as the answer lives (no
    /// copy; the caller converts it and drops the answer).
    Held(MappedRwLockReadGuard<'r, Value>),
}

impl Answer<'_> {
    /// The value, owned.
    pub fn into_value(self) -> Value {
        match self {
            Answer::Segment { value, .. } => Value::from(value),
            Answer::Own { value, .. } => value.clone(),
            Answer::Local(value) => value,
            Answer::Held(value) => value.clone(),
        }
    }
}

impl<'a> OwnKey<'a> {
    /// The key's newest put as a get's answer, borrowed while `reader`
    /// lives.
    #[inline]
    pub fn answer<'r>(self, reader: &'r Reader<'_>) -> Answer<'r>
    where
        'a: 'r,
    {
        let p = self.read(reader);
        Answer::Own {
            value: &p.value,
            version: p.version,
        }
    }
}

struct Inner {
    proc: Proc,
    server: Proc,
    directory: Directory,
    requester: Requester,
    local: RwLock<LocalData>,
    /// Everything this process put, the newest put of each key (see
    /// [`own_puts`]); written under `local`'s write lock, so that puts
    /// are recorded here and in `LocalData::uncommitted` in one order.
    own: own_puts::OwnPuts,
    /// Namespaces with a segment in the directory, and the generations
    /// mapped (a segment received twice is mapped once).
    mapped: Mutex<(Vec<Nspace>, HashSet<u64>)>,
    finalized: AtomicBool,
    /// This process's event handlers (see [`events`]), set up on first use.
    events: std::sync::OnceLock<std::sync::Arc<crate::events::EventHandlers>>,
    /// Fences through the job barrier page (see [`fast_fence`]).
    fast: fast_fence::FastFence,
    /// The groups this process belongs to (see [`group`]).
    groups: group::GroupTable,
    /// This process's IOF registrations (see [`iof`]).
    iof: iof::Pulls,
    /// Served by an OpenPMIx server through [`stock_link`]'s bridge: event
    /// registrations then go to the server too.
    stock_link: AtomicBool,
}

impl Inner {
    /// Maps segments received from the server and publishes them.
    fn map_segments(&self, refs: &[SegmentRef], fds: Vec<OwnedFd>) -> Result<(), Status> {
        if refs.len() != fds.len() {
            return Err(Status::ERR_COMM_FAILURE);
        }
        let mut mapped = self.mapped.lock();
        for (r, fd) in refs.iter().zip(fds) {
            if !mapped.1.insert(r.generation) {
                continue;
            }
            if r.kind == SegmentKind::Barrier {
                // Only this process's own job has one for it.
                if r.nspace == self.proc.nspace {
                    let page = crate::barrier::BarrierPage::from_fd(fd)
                        .map_err(|_| Status::ERR_COMM_FAILURE)?;
                    if let Some(page) = self.fast.set_page(page) {
                        // A waiter at the page learns of the loss at once,
                        // not at its next look (see `barrier`).
                        self.requester.on_loss(Box::new(move || page.wake()));
                    }
                }
                continue;
            }
            let seg = Segment::from_fd(fd.as_fd()).map_err(|_| Status::ERR_COMM_FAILURE)?;
            self.publish(&mut mapped.0, r, seg);
        }
        Ok(())
    }

    /// The server offered `offer` (see [`fast_fence`]): maps and publishes
    /// its generations, then counts the commits it covers.
    fn take_offer(&self, offer: ModexOffer, fds: Vec<OwnedFd>) {
        if !fast_fence::FastFence::offer_fits(&offer, fds.len()) {
            return;
        }
        {
            let mut mapped = self.mapped.lock();
            for (r, fd) in offer.segments.into_iter().zip(fds) {
                if mapped.1.contains(&r.generation) {
                    continue;
                }
                match Segment::from_fd(fd.as_fd()) {
                    Ok(seg) => {
                        mapped.1.insert(r.generation);
                        self.publish(&mut mapped.0, &r, seg);
                    }
                    Err(_) => self.fast.keep_unmapped(r, fd),
                }
            }
        }
        self.fast.covered(offer.commits);
    }

    /// Maps and publishes the offered generations that did not map when
    /// they came (see [`fast_fence`]).
    fn publish_offered(&self) -> Result<(), Status> {
        let unmapped = self.fast.take_unmapped();
        if unmapped.is_empty() {
            return Ok(());
        }
        let (refs, fds): (Vec<SegmentRef>, Vec<OwnedFd>) = unmapped.into_iter().unzip();
        self.map_segments(&refs, fds)
    }

    /// Publishes the mapped segment `r` in the directory; `nspaces` are
    /// the namespaces with a segment there.
    fn publish(&self, nspaces: &mut Vec<Nspace>, r: &SegmentRef, seg: Segment) {
        let ns = r.nspace.to_string_lossy();
        match r.kind {
            SegmentKind::Job => self.directory.publish_job(&ns, Arc::new(seg)),
            SegmentKind::Modex => self.directory.publish_modex(&ns, Arc::new(seg)),
            SegmentKind::ModexReplace => self.directory.replace_modex(&ns, vec![Arc::new(seg)]),
            SegmentKind::Barrier => return,
        }
        if r.kind != SegmentKind::Job && r.nspace == self.proc.nspace {
            self.fast.holds(r.generation);
        }
        if !nspaces.contains(&r.nspace) {
            nspaces.push(r.nspace.clone());
        }
    }

    /// A fence's reply: publishes what the server offered before it, maps
    /// the segments it brought; the fence's status.
    fn fence_released(&self, r: Reply) -> Status {
        match r {
            Ok((Message::FenceRelease(rel), fds)) => rel
                .status
                .into_result()
                .and_then(|_| self.publish_offered())
                .and_then(|_| self.map_segments(&rel.segments, fds))
                .err()
                .unwrap_or(Status::SUCCESS),
            Ok(_) => Status::ERR_COMM_FAILURE,
            Err(s) => s,
        }
    }

    /// A fence (see [`Client::fence`]): through the job barrier page when
    /// it applies, else (or when the page sends it on) through the server.
    fn fence(inner: &Arc<Inner>, procs: &[Proc], infos: &[Info]) -> Result<(), Status> {
        let d = crate::wire::Directives::parse_for(infos, crate::wire::directives::FENCE);
        let commits = match inner.fast.route(inner, procs, infos, &d) {
            fast_fence::Route::Done(r) => return r.and_then(|_| inner.publish_offered()),
            fast_fence::Route::Server(commits) => commits,
        };
        let i = inner.clone();
        let req = Message::FenceRequest(FenceRequest {
            procs: procs.to_vec(),
            infos: infos.to_vec(),
        });
        inner
            .requester
            .call_with(req, move |r| i.fence_released(r))
            .unwrap_or(Status::ERR_LOST_CONNECTION)
            .into_result()?;
        inner.fast.synced(commits);
        if d.collect {
            inner.fast.collected(commits);
        }
        Ok(())
    }

    /// Caches the data a direct-modex reply brought.
    fn store_fetched(&self, r: Reply) -> Result<(), Status> {
        let Message::DmodexReply(reply) = r?.0 else {
            return Err(Status::ERR_COMM_FAILURE);
        };
        reply.status.into_result()?;
        let records = wire::blob::decode(&reply.data).map_err(Status::from)?;
        let mut local = self.local.write();
        for rec in records {
            local.merge_fetched(&rec.proc, rec.posted);
        }
        Ok(())
    }

    /// The latest value of `key` that direct modex brought for `proc`.
    fn latest_fetched(&self, proc: &Proc, key: &str) -> Option<Value> {
        self.local
            .read()
            .latest_fetched(proc.nspace.as_bytes(), proc.rank.0, key.as_bytes())
            .cloned()
    }

    /// The answer of the sources a get reads without the server, in
    /// their one order: this process's own puts (for its non-reserved
    /// keys: a modex segment may hold an older value), the mapped segments
    /// (`view`: the target's namespace, if mapped; see
    /// [`lookup`](lookup) for the realms), the internal store, data
    /// fetched by direct modex. A get of one process without a realm
    /// qualifier reads that process's realm wherever it is held (the
    /// segments, the internal store, fetched data) before its node's and
    /// application's, so that a peer's posted key reads the same whether
    /// a fence collected it or direct modex fetched it. No allocation and
    /// no lock when the segments or this process's own puts answer.
    fn resolve<'r>(
        &'r self,
        reader: &'r Reader<'_>,
        view: Option<NsView<'r>>,
        target: ProcRef<'_>,
        key: &str,
        opts: &GetOptions,
    ) -> Option<Answer<'r>> {
        let own_nspace = self.is_own_nspace(target.nspace);
        let shadowed_by_puts = self.shadowed_by_puts(target, key.as_bytes());
        if shadowed_by_puts {
            if let Some(k) = self.own.find(key.as_bytes()) {
                return Some(k.answer(reader));
            }
        }
        let Some(ns) = view else {
            return self.held_here(target, key);
        };
        let segment = |value| Answer::Segment {
            value,
            view: ns,
            until_put: shadowed_by_puts,
        };
        if lookup::reads_rank_then_realms(opts, target.rank) {
            // The process's own data wherever it is held (segments, then
            // here: a peer's posted data fetched by direct modex is its
            // process realm too), then its node's and application's.
            if let Some(v) = ns.get(target.rank.0, key) {
                return Some(segment(v));
            }
            if let Some(a) = self.held_here(target, key) {
                return Some(a);
            }
            // Then its node's, then its application's.
            let in_realm = |realm| {
                let opts = GetOptions {
                    realm,
                    ..GetOptions::default()
                };
                lookup::in_view(reader, ns, &self.proc, own_nspace, target.rank, key, &opts)
            };
            let node = RealmQualifier::Node {
                id: None,
                hostname: None,
            };
            return in_realm(node)
                .or_else(|| in_realm(RealmQualifier::App(None)))
                .map(segment);
        }
        let found = lookup::in_view(reader, ns, &self.proc, own_nspace, target.rank, key, opts);
        found.map(segment).or_else(|| self.held_here(target, key))
    }

    /// The internal store's value of `key` for `target`, else the newest
    /// that direct modex brought.
    fn held_here(&self, target: ProcRef<'_>, key: &str) -> Option<Answer<'_>> {
        let (ns, rank, key) = (target.nspace, target.rank.0, key.as_bytes());
        RwLockReadGuard::try_map(self.local.read(), |local| {
            local
                .internal(ns, rank, key)
                .or_else(|| local.latest_fetched(ns, rank, key))
        })
        .ok()
        .map(Answer::Held)
    }

    /// True for this process's namespace.
    #[inline(always)]
    fn is_own_nspace(&self, nspace: &[u8]) -> bool {
        let own = self.proc.nspace.as_bytes();
        // The C layer names its own namespace by this very slice.
        std::ptr::eq(nspace, own) || nspace == own
    }

    /// The rule of own puts: a get of `key` for `target` is answered by
    /// this process's newest put of the key, if any, when `target` is
    /// this process and the key is not reserved (a modex segment may hold
    /// an older value; the job data answers reserved keys).
    #[inline(always)]
    fn shadowed_by_puts(&self, target: ProcRef<'_>, key: &[u8]) -> bool {
        target.rank == self.proc.rank
            && self.is_own_nspace(target.nspace)
            && !keys::is_reserved(key)
    }

    /// The view of namespace `nspace` in `reader`, if mapped.
    fn view_of<'r>(reader: &'r Reader<'_>, nspace: &[u8]) -> Option<NsView<'r>> {
        reader.namespace(&String::from_utf8_lossy(nspace))
    }

    /// [`resolve`](Self::resolve) with a reader of its own, as a value.
    fn local_value(&self, proc: &Proc, key: &str, opts: &GetOptions) -> Option<Value> {
        let r = self.directory.reader();
        let target = ProcRef::from(proc);
        let view = Inner::view_of(&r, target.nspace);
        self.resolve(&r, view, target, key, opts)
            .map(Answer::into_value)
    }

    fn check_active(&self) -> Result<(), Status> {
        if self.finalized.load(Ordering::Acquire) {
            Err(Status::ERR_INIT)
        } else {
            Ok(())
        }
    }
}

/// A connected PMIx client. Cheap to share (`&Client` is `Sync`); every
/// method may be called from any thread.
pub struct Client {
    inner: Arc<Inner>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// The server this process runs beside its client: a singleton's (or
    /// an unconnected tool's) private server (see [`singleton`]), or a
    /// launcher tool's listener (see [`tool`]); stopped at finalize.
    own_server: Mutex<Option<crate::server::Server>>,
    is_singleton: bool,
    /// Initialized with `PMIX_LAUNCHER`: connected to no server, it
    /// starts what it spawns itself (see [`local_launch`]).
    launcher: bool,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("proc", &self.inner.proc)
            .finish()
    }
}

/// Runs a non-blocking call (`start` hands its callback on) and waits for
/// the value the callback gets: the blocking form of an `_nb` call. A
/// callback dropped without running (the connection went) is
/// `PMIX_ERR_LOST_CONNECTION`.
pub(crate) fn wait_for<T: Send + 'static>(
    start: impl FnOnce(Box<dyn FnOnce(T) + Send + 'static>) -> Result<(), Status>,
) -> Result<T, Status> {
    let (tx, rx) = crossbeam_channel::bounded(1);
    start(Box::new(move |v| {
        let _ = tx.send(v);
    }))?;
    rx.recv().map_err(|_| Status::ERR_LOST_CONNECTION)
}

impl Client {
    /// True if this process is a singleton (no launcher started it), or a
    /// tool connected to no server: operations that need a server fail
    /// with `PMIX_ERR_UNREACH`.
    pub fn is_singleton(&self) -> bool {
        self.is_singleton
    }

    /// Another handle on the connection `inner` belongs to, owning no
    /// thread and no server: dropping it leaves the connection alone.
    /// `is_singleton` as for the connection's own client.
    fn handle(inner: Arc<Inner>, is_singleton: bool) -> Client {
        Client {
            inner,
            thread: Mutex::new(None),
            own_server: Mutex::new(None),
            is_singleton,
            launcher: false,
        }
    }

    /// This process's identity.
    pub fn proc(&self) -> &Proc {
        &self.inner.proc
    }

    /// The server's identity.
    pub fn server(&self) -> &Proc {
        &self.inner.server
    }

    /// The directory of mapped segments, for zero-copy reads (the C
    /// layer's `PMIX_GET_POINTER_VALUES` path): pin a reader, then
    /// [`lookup`](Self::lookup).
    pub fn directory(&self) -> &Directory {
        &self.inner.directory
    }

    /// A pinned reader of the directory (cheap; keep it short-lived).
    pub fn reader(&self) -> Reader<'_> {
        self.inner.directory.reader()
    }

    /// Looks `key` of `proc` up in the mapped segments only, borrowing the
    /// value from the segment (no allocation, no lock, no syscall).
    /// `None` if it is not there; [`get`](Self::get) then tries the local
    /// caches and the server.
    pub fn lookup<'r>(
        &self,
        reader: &'r Reader<'_>,
        proc: &Proc,
        key: &str,
        opts: &GetOptions,
    ) -> Option<ValueRef<'r>> {
        lookup::in_segments(reader, &self.inner.proc, proc, key, opts)
    }

    /// The answer of the sources a get reads without the server, and
    /// where it came from, in their one order: this process's own puts
    /// (for its non-reserved keys), the mapped segments (`view`: the
    /// target's namespace in `reader`, e.g. through an [`NsHandle`] or
    /// [`view_of`](Self::view_of), `None` if not mapped), the internal
    /// store, data fetched by direct modex (for one process without a
    /// realm qualifier, before its node's and application's realms; see
    /// `Inner::resolve`). `None` if none has it: then
    /// [`get_with`](Self::get_with) asks the server. No allocation, no
    /// lock, no syscall when the segments or this process's own puts
    /// answer (an own put is borrowed under `reader`'s epoch pin).
    #[inline]
    pub fn resolve<'r>(
        &'r self,
        reader: &'r Reader<'_>,
        view: Option<NsView<'r>>,
        target: ProcRef<'_>,
        key: &str,
        opts: &GetOptions,
    ) -> Option<Answer<'r>> {
        self.inner.resolve(reader, view, target, key, opts)
    }

    /// The view of namespace `nspace` in `reader`, if mapped.
    pub fn view_of<'r>(&self, reader: &'r Reader<'_>, nspace: &[u8]) -> Option<NsView<'r>> {
        Inner::view_of(reader, nspace)
    }

    /// The put of this process that answers a get of `key` for
    /// `target` ([`resolve`](Self::resolve)'s first source), if any:
    /// `None` unless `target` is this process, the key not reserved (the
    /// job data answers those) and put. Found without a lock or an epoch
    /// pin; its [`version`](OwnKey::version) needs none either, and an
    /// [`Answer::Own`] of version `v` stays the answer while the version
    /// is `v`, so a caller may keep what it made of it by version (the C
    /// layer's `PMIX_GET_POINTER_VALUES` results); its value is borrowed
    /// under a reader's pin ([`OwnKey::answer`]).
    #[inline]
    pub fn own_put(&self, target: ProcRef<'_>, key: &[u8]) -> Option<OwnKey<'_>> {
        if !self.inner.shadowed_by_puts(target, key) {
            return None;
        }
        self.inner.own.find(key)
    }

    /// A handle on this process's namespace in the directory, which saves
    /// the name lookup of [`Reader::namespace`] (`None` before its job
    /// data is mapped). The client never deregisters its own namespace,
    /// so the handle stays current.
    pub fn own_handle(&self) -> Option<NsHandle> {
        self.inner
            .directory
            .handle(self.inner.proc.nspace.as_c_str().to_str().ok()?)
    }

    /// `PMIx_Abort`: asks the host to abort `procs` (empty: this process's
    /// namespace). Returns the host's answer if the host lets this process
    /// live (`PMIX_ERR_NOT_SUPPORTED` if the host has no abort).
    pub fn abort(
        &self,
        status: Status,
        message: Option<&str>,
        procs: &[Proc],
    ) -> Result<(), Status> {
        self.inner.check_active()?;
        if self.is_singleton {
            return Err(Status::ERR_UNREACH);
        }
        let message =
            message.map(|m| std::ffi::CString::new(m.replace('\0', " ")).expect("NULs replaced"));
        let (reply, _) = self.inner.requester.call(Message::Abort(Abort {
            status,
            message,
            procs: procs.to_vec(),
        }))?;
        match reply {
            Message::AbortReply(s) => s.into_result(),
            _ => Err(Status::ERR_COMM_FAILURE),
        }
    }

    /// `PMIx_Store_internal`: keeps `value` for `(proc, key)` in this
    /// process only; later gets find it.
    pub fn store_internal(&self, proc: &Proc, key: &str, value: Value) -> Result<(), Status> {
        self.inner.check_active()?;
        let key = Key::new(key)?;
        self.inner.local.write().store_internal(proc, key, value);
        Ok(())
    }

    /// `PMIx_Resolve_peers`: the processes of `nspace` (`None`: every
    /// namespace known here) on node `node` (`None`: this node).
    pub fn resolve_peers(
        &self,
        node: Option<&str>,
        nspace: Option<&Nspace>,
    ) -> Result<Vec<Proc>, Status> {
        self.inner.check_active()?;
        let namespaces = match nspace {
            Some(ns) if !ns.is_empty() => vec![ns.clone()],
            _ => self.inner.mapped.lock().0.clone(),
        };
        let r = self.reader();
        let mut out = Vec::new();
        for ns in &namespaces {
            out.extend(lookup::peers_on(&r, &self.inner.proc, ns, node)?);
        }
        if out.is_empty() {
            return Err(Status::ERR_NOT_FOUND);
        }
        Ok(out)
    }

    /// `PMIx_Resolve_nodes`: the hostnames where `nspace` (`None`: this
    /// process's namespace) has processes.
    pub fn resolve_nodes(&self, nspace: Option<&Nspace>) -> Result<Vec<String>, Status> {
        self.inner.check_active()?;
        let ns = match nspace {
            Some(ns) if !ns.is_empty() => ns.clone(),
            _ => self.inner.proc.nspace.clone(),
        };
        let r = self.reader();
        lookup::nodes_of(&r, &ns)
    }

    /// `PMIx_Finalize`: tells the server this process is done (it is then
    /// not reported as lost when it exits), and closes the connection.
    /// Later calls fail with `PMIX_ERR_INIT`.
    pub fn finalize(&self) -> Result<(), Status> {
        if self.inner.finalized.swap(true, Ordering::AcqRel) {
            return Err(Status::ERR_INIT);
        }
        let r = self.inner.requester.call(Message::Finalize);
        self.stop();
        // No library thread may be inside a caller's event callback once
        // finalize returns.
        if let Some(ev) = self.inner.events.get() {
            ev.shutdown();
        }
        if let Some(s) = self.own_server.lock().take() {
            s.finalize();
        }
        match r? {
            (Message::FinalizeReply(s), _) => s.into_result(),
            _ => Err(Status::ERR_COMM_FAILURE),
        }
    }

    /// Whether this process is connected to a server now
    /// (`PMIx_tool_is_connected`): initialized, not a singleton or an
    /// unconnected tool, and the connection neither closed nor lost.
    pub fn is_connected(&self) -> bool {
        self.is_initialized() && !self.is_singleton && self.inner.requester.is_open()
    }

    /// The server this process runs for the tools that attach to it (a
    /// launcher tool's, see [`tool`]), if it runs one: `f` gets it.
    pub fn with_own_server<R>(&self, f: impl FnOnce(&crate::server::Server) -> R) -> Option<R> {
        self.own_server.lock().as_ref().map(f)
    }

    /// True until [`finalize`](Self::finalize).
    pub fn is_initialized(&self) -> bool {
        !self.inner.finalized.load(Ordering::Acquire)
    }

    fn stop(&self) {
        if let Some(t) = self.thread.lock().take() {
            self.inner.requester.shutdown();
            let _ = t.join();
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Job-level helper for callers: the job size from the mapped segments.
impl Client {
    /// `PMIX_JOB_SIZE` of this process's namespace.
    pub fn job_size(&self) -> Result<u32, Status> {
        let wildcard = Proc::new(self.inner.proc.nspace.clone(), Rank::WILDCARD);
        self.get(&wildcard, keys::JOB_SIZE, &[])?
            .as_u32()
            .ok_or(Status::ERR_TYPE_MISMATCH)
    }
}
