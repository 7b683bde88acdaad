//! The library's state: which role this process plays (none, client,
//! server, tool), the counting of its initializations, the connected
//! client and the running server.
//!
//! Invariants:
//! - [`role`] and [`client`] read atomics only: no lock is taken to find
//!   the client, so `PMIx_Get`'s hot path never waits on the server's
//!   state (nor on anything else).
//! - A client published here is never freed (another thread may still be
//!   inside a call on it); a finalized one is unpublished first, then
//!   closed. `PMIx_Init`/`PMIx_Finalize` are serialized by
//!   [`ClientInit`], the server's init/finalize by its reference count's
//!   lock; neither is taken by any other call.
//! - [`INIT_COUNT`] counts the initialized roles (client, server, tool):
//!   the library is initialized while it is positive.
//! - A process that is both a client and a server is a client for every
//!   call that may be either (get, store, events, query, log): the choice
//!   is made in [`super::serving`] only.

use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use pmix_core::client::Client;
use pmix_core::server::own_store::OwnStore;
use pmix_core::server::Server;
use pmix_core::{Proc, Status};

use crate::boundary::{guard_or, SendPtr};
use crate::sys::pmix_release_cbfunc_t;

/// How many times the library has been initialized (as a client, a server
/// or a tool) and not finalized: `PMIx_Init`/`PMIx_server_init` count it
/// up, their finalizes down.
static INIT_COUNT: AtomicI32 = AtomicI32::new(0);

/// True once `PMIx_Init`, `PMIx_tool_init` or `PMIx_server_init` has
/// succeeded (and not been undone by its finalize).
pub(crate) fn initialized() -> bool {
    INIT_COUNT.load(Ordering::Acquire) > 0
}

/// `Err(PMIX_ERR_INIT)` unless the library is initialized.
pub(crate) fn require_init() -> Result<(), Status> {
    if initialized() {
        Ok(())
    } else {
        Err(Status::ERR_INIT)
    }
}

/// The role this process plays for the calls that a client, a server and
/// a tool each answer their own way.
#[derive(Clone, Copy)]
pub(crate) enum Role {
    /// Not initialized.
    None,
    /// `PMIx_Init` succeeded: the connected client.
    Client(&'static Client),
    /// `PMIx_server_init` succeeded (and not `PMIx_Init`): see [`server`].
    Server,
    /// Initialized, but neither as a client nor as a server (a tool).
    Tool,
}

/// This process's role, read without a lock.
#[inline]
pub(crate) fn role() -> Role {
    if let Ok(c) = client() {
        Role::Client(c)
    } else if SERVER_UP.load(Ordering::Acquire) {
        Role::Server
    } else if initialized() {
        Role::Tool
    } else {
        Role::None
    }
}

// ---------------------------------------------------------------------------
// The client

/// The connected client, published once `PMIx_Init` succeeded. A plain
/// atomic pointer: every entry point loads it without a lock.
static CLIENT: AtomicPtr<Client> = AtomicPtr::new(null_mut());
/// Outstanding `PMIx_Init` calls of the client (OpenPMIx counts them).
static CLIENT_REFS: AtomicI32 = AtomicI32::new(0);
/// Serializes `PMIx_Init`/`PMIx_Finalize` (never taken by other calls).
static CLIENT_INIT: Mutex<()> = Mutex::new(());
/// Every client ever published (see [`keep`]): a thread may still hold one
/// after its finalize, so none is freed; listed here they stay reachable
/// (valgrind counts them "still reachable", not "definitely lost").
static KEPT: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// Leaks `c` for the rest of the process, keeping its address in [`KEPT`].
pub(crate) fn keep(c: Client) -> &'static Client {
    let c: &'static Client = Box::leak(Box::new(c));
    KEPT.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(std::ptr::from_ref(c) as usize);
    c
}

/// The connected client, or `PMIX_ERR_INIT`.
#[inline]
pub(crate) fn client() -> Result<&'static Client, Status> {
    let p = CLIENT.load(Ordering::Acquire);
    if p.is_null() {
        return Err(Status::ERR_INIT);
    }
    // SAFETY: a published client is leaked, never freed.
    Ok(unsafe { &*p })
}

/// The client's init/finalize, serialized: held for the whole of
/// `PMIx_Init` or `PMIx_Finalize`.
pub(crate) struct ClientInit(#[allow(dead_code)] MutexGuard<'static, ()>);

impl ClientInit {
    /// Waits for any other init or finalize of the client.
    pub(crate) fn lock() -> ClientInit {
        ClientInit(CLIENT_INIT.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The client, counting this init, or `None` if there is none yet.
    pub(crate) fn again(&self) -> Option<&'static Client> {
        let c = client().ok()?;
        CLIENT_REFS.fetch_add(1, Ordering::AcqRel);
        Some(c)
    }

    /// Publishes a newly connected client (leaked: never freed).
    pub(crate) fn publish(&self, c: Client) -> &'static Client {
        let c = keep(c);
        CLIENT.store(std::ptr::from_ref(c).cast_mut(), Ordering::Release);
        CLIENT_REFS.store(1, Ordering::Release);
        INIT_COUNT.fetch_add(1, Ordering::AcqRel);
        c
    }

    /// Makes `c` (a tool's connection to another server, leaked like
    /// every published client) the one the calls use, without counting an
    /// init; `None` unpublishes the current one (a tool left without a
    /// server stays initialized).
    pub(crate) fn switch(&self, c: Option<&'static Client>) {
        let p = c.map_or(null_mut(), |c| std::ptr::from_ref(c).cast_mut());
        CLIENT.store(p, Ordering::Release);
    }

    /// Counts a finalize down: the client to close if it was the last,
    /// unpublished (no new call finds it).
    pub(crate) fn release(&self) -> Option<&'static Client> {
        let c = client().ok()?;
        if CLIENT_REFS.fetch_sub(1, Ordering::AcqRel) > 1 {
            return None;
        }
        CLIENT.store(null_mut(), Ordering::Release);
        INIT_COUNT.fetch_sub(1, Ordering::AcqRel);
        Some(c)
    }
}

// ---------------------------------------------------------------------------
// The server

/// The `server_object` pointers hosts gave `PMIx_server_register_client`,
/// handed back in the upcalls about that client.
#[derive(Default)]
pub(crate) struct ServerObjects(Mutex<HashMap<Proc, usize>>);

impl ServerObjects {
    pub(crate) fn set(&self, p: &Proc, obj: *mut c_void) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.insert(p.clone(), obj as usize);
    }

    pub(crate) fn remove(&self, p: &Proc) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.remove(p);
    }

    pub(crate) fn remove_nspace(&self, ns: &pmix_core::Nspace) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.retain(|p, _| &p.nspace != ns);
    }

    pub(crate) fn get(&self, p: &Proc) -> *mut c_void {
        let m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.get(p).copied().unwrap_or(0) as *mut c_void
    }
}

/// The running server and what the C layer keeps beside it.
pub(crate) struct Running {
    pub(crate) server: Server,
    pub(crate) objects: Arc<ServerObjects>,
    /// The server process's own `PMIx_Store_internal` values.
    pub(crate) own: OwnStore,
}

/// The server, once `PMIx_server_init` succeeded. Not on any client path:
/// a read lock held only to clone the `Arc`.
static SERVER: RwLock<Option<Arc<Running>>> = RwLock::new(None);
/// True while [`SERVER`] holds a server: what [`role`] reads.
static SERVER_UP: AtomicBool = AtomicBool::new(false);
/// Outstanding `PMIx_server_init` calls (OpenPMIx counts them); its lock
/// serializes the server's init and finalize.
static SERVER_REFS: Mutex<u32> = Mutex::new(0);

/// The running server, or `PMIX_ERR_INIT`.
pub(crate) fn server() -> Result<Arc<Running>, Status> {
    SERVER
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .ok_or(Status::ERR_INIT)
}

/// Runs `f` on the running core server (for the client calls a host
/// process may make itself: `PMIx_Query_info`, `PMIx_Log`).
pub(crate) fn with_server<R>(f: impl FnOnce(&Server) -> R) -> Result<R, Status> {
    Ok(f(&server()?.server))
}

/// Waits for the callback `start` hands its call (one the server process
/// makes on its own server: a query, log, spawn, job or session control,
/// IOF push; or a client's session control). `PMIX_ERR_WOULD_BLOCK` on
/// the server's progress thread (from inside an upcall), where it would
/// wait for itself.
pub(crate) fn server_wait<T: Send + 'static>(
    start: impl FnOnce(Box<dyn FnOnce(T) + Send + 'static>) -> Result<(), Status>,
) -> Result<T, Status> {
    if with_server(|s| s.on_progress_thread()) == Ok(true) {
        return Err(Status::ERR_WOULD_BLOCK);
    }
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    start(Box::new(move |v| {
        let _ = tx.send(v);
    }))?;
    rx.recv().map_err(|_| Status::ERR_LOST_CONNECTION)
}

/// The server's init/finalize, serialized: the count of
/// `PMIx_server_init` calls.
pub(crate) struct ServerInit(MutexGuard<'static, u32>);

impl ServerInit {
    /// Waits for any other init or finalize of the server.
    pub(crate) fn lock() -> ServerInit {
        ServerInit(SERVER_REFS.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Counts one more init of a running server: false if none runs.
    pub(crate) fn again(&mut self) -> bool {
        if *self.0 == 0 {
            return false;
        }
        *self.0 += 1;
        true
    }

    /// Publishes a started server.
    pub(crate) fn publish(&mut self, server: Server, objects: Arc<ServerObjects>) {
        *SERVER.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(Running {
            server,
            objects,
            own: OwnStore::new(),
        }));
        SERVER_UP.store(true, Ordering::Release);
        *self.0 = 1;
        INIT_COUNT.fetch_add(1, Ordering::AcqRel);
    }

    /// Counts a finalize down (`PMIX_ERR_INIT` if none runs): the server
    /// to stop if it was the last, unpublished.
    pub(crate) fn release(&mut self) -> Result<Option<Arc<Running>>, Status> {
        if *self.0 == 0 {
            return Err(Status::ERR_INIT);
        }
        *self.0 -= 1;
        if *self.0 > 0 {
            return Ok(None);
        }
        SERVER_UP.store(false, Ordering::Release);
        let running = SERVER.write().unwrap_or_else(|e| e.into_inner()).take();
        INIT_COUNT.fetch_sub(1, Ordering::AcqRel);
        Ok(running)
    }
}

/// Calls the host's `release_fn` for data it handed a callback of ours,
/// once that callback has returned: from the server's progress thread, as
/// OpenPMIx does. Slurm 22.05 completes a fence while holding the lock its
/// release function takes, so calling it inside the callback deadlocks.
/// Without a running server there is no such thread: called at once.
pub(crate) fn release_later(release_fn: pmix_release_cbfunc_t, cbdata: *mut c_void) {
    let Some(f) = release_fn else {
        return;
    };
    let data = SendPtr(cbdata);
    let release: Box<dyn FnOnce() + Send> = Box::new(move || {
        let data = data;
        // SAFETY: the host's release function with its own cbdata, called
        // once; nothing unwinds out of it.
        guard_or((), || unsafe { f(data.0) });
    });
    let release = match server() {
        Ok(s) => match s.server.defer(release) {
            Ok(()) => return,
            Err(r) => r,
        },
        Err(_) => release,
    };
    release();
}
