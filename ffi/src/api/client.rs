//! The core of the client API of `pmix.h`: init/finalize, abort,
//! key-value exchange (put, commit, fences, get, store, resolve), and the
//! stubs of what is not implemented yet (groups, fabric,
//! `PMIx_Compute_distances`). The rest of the client API has its own
//! modules: publish/lookup in [`crate::api::pubsub`], spawn and
//! connect/disconnect in [`crate::api::spawn`], events in
//! [`crate::api::events`], queries, logging, job control, monitoring,
//! allocation and credentials in [`crate::api::query`], the tool and IOF
//! calls in [`crate::api::tool`].
//!
//! The client entry points (init/finalize, abort, put/commit/fence,
//! get, store, resolve) wrap [`pmix_core::client::Client`], held in a
//! process-global atomic pointer: no call takes a lock to find it.
//! `PMIx_Get` under `PMIX_GET_POINTER_VALUES` returns library-owned values
//! from [`crate::api::pointer_cache`]. `PMIx_Get` first tries its hot path
//! (`get_fast`: qualifiers read in place, the namespace borrowed from the
//! C proc, this process's namespace through a cached `NsHandle`), which
//! allocates nothing and takes no lock for data in the mapped segments;
//! anything else goes through the owned conversions and `Client::get`.
//! Non-blocking callbacks run on the client's progress thread.
//!
//! The client operations still missing here (see docs/FEATURES.md) are stubs:
//! before `PMIx_Init` they return
//! `PMIX_ERR_INIT` as OpenPMIx 4.2.2 does (its checks of the
//! initialization state come before its checks of the arguments, so ours
//! do too), afterwards `PMIX_ERR_NOT_SUPPORTED`; non-blocking variants
//! then never call their callback.
//!
//! In the stubs, struct pointers are typed `*const c_void` / `*mut c_void`:
//! every C object pointer has the same ABI, and they do not look inside.
//! Callback pointers that are never called are typed the same way.
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicI32, AtomicPtr, Ordering};
use std::sync::Mutex;

use pmix_core::client::{Client, GetOptions, NsHandle, NsView, RealmQualifier, Scope, ValueRef};
use pmix_core::wire::flag;
use pmix_core::{keys, Info, Nspace, Proc, Rank, Status, Value};

use crate::api::{pointer_cache, scalar_cache};
use crate::boundary::{calloc_array, guard, malloc_cstr, op_callback, SendPtr};
use crate::convert;
use crate::nonnull;
use crate::sys::{
    pmix_info_t, pmix_op_cbfunc_t, pmix_proc_t, pmix_value_cbfunc_t, pmix_value_t, PMIX_BOOL,
    PMIX_INT, PMIX_INT16, PMIX_INT32, PMIX_INT64, PMIX_INT8, PMIX_SIZE, PMIX_STRING, PMIX_UINT,
    PMIX_UINT16, PMIX_UINT32, PMIX_UINT64, PMIX_UINT8, PMIX_UNDEF,
};

/// How many times the library has been initialized (as a client, a server
/// or a tool) and not finalized: `PMIx_Init`/`PMIx_server_init` count it
/// up, their finalizes down.
pub(crate) static INIT_COUNT: AtomicI32 = AtomicI32::new(0);

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

/// `Err(PMIX_ERR_BAD_PARAM)` for a NULL array with a nonzero count.
pub(crate) fn check_array<T>(p: *const T, n: usize) -> Result<(), Status> {
    if n > 0 && p.is_null() {
        Err(Status::ERR_BAD_PARAM)
    } else {
        Ok(())
    }
}

/// What a stub returns once its checks pass: the operation itself is not
/// implemented yet.
pub(crate) fn unsupported() -> Result<(), Status> {
    Err(Status::ERR_NOT_SUPPORTED)
}

// ---------------------------------------------------------------------------
// The process-global client

/// The connected client, published once `PMIx_Init` succeeded. A plain
/// atomic pointer: every entry point loads it without a lock. A finalized
/// client is never freed (another thread may still be inside a call on
/// it); its connection and progress thread are closed.
static CLIENT: AtomicPtr<Client> = AtomicPtr::new(null_mut());
/// Outstanding `PMIx_Init` calls of the client (OpenPMIx counts them).
static CLIENT_REFS: AtomicI32 = AtomicI32::new(0);
/// Serializes `PMIx_Init`/`PMIx_Finalize` (never taken by other calls).
static INIT_LOCK: Mutex<()> = Mutex::new(());

/// The connected client, or `PMIX_ERR_INIT`.
pub(crate) fn client() -> Result<&'static Client, Status> {
    let p = CLIENT.load(Ordering::Acquire);
    if p.is_null() {
        return Err(Status::ERR_INIT);
    }
    // SAFETY: a published client is leaked, never freed.
    Ok(unsafe { &*p })
}

/// Reads an optional C info array.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos.
pub(crate) unsafe fn infos_in(info: *const pmix_info_t, ninfo: usize) -> Result<Vec<Info>, Status> {
    check_array(info, ninfo)?;
    if ninfo == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: checked non-NULL; the caller guarantees ninfo elements.
    unsafe { convert::infos_from_c(info, ninfo) }
}

/// Reads an optional C proc array.
///
/// # Safety
/// `procs` is NULL or points to `n` valid procs.
pub(crate) unsafe fn procs_in(procs: *const pmix_proc_t, n: usize) -> Result<Vec<Proc>, Status> {
    check_array(procs, n)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: checked non-NULL; the caller guarantees n elements.
    let s = unsafe { std::slice::from_raw_parts(procs, n) };
    Ok(s.iter().map(convert::proc_from_c).collect())
}

/// The process a get or store names: NULL is this process, an empty
/// namespace is this process's namespace.
///
/// # Safety
/// `p` is NULL or a valid proc.
pub(crate) unsafe fn target(c: &Client, p: *const pmix_proc_t) -> Proc {
    if p.is_null() {
        return c.proc().clone();
    }
    // SAFETY: non-NULL, valid per the contract.
    let p = convert::proc_from_c(unsafe { &*p });
    if p.nspace.is_empty() {
        Proc::new(c.proc().nspace.clone(), p.rank)
    } else {
        p
    }
}

/// Borrows a C key as UTF-8.
///
/// # Safety
/// `key` is a valid NUL-terminated string.
unsafe fn key_str<'a>(key: *const c_char) -> Result<&'a str, Status> {
    // SAFETY: the caller's contract.
    unsafe { CStr::from_ptr(key) }
        .to_str()
        .map_err(|_| Status::ERR_BAD_PARAM)
}

// ---------------------------------------------------------------------------
// Initialization

/// `PMIx_Init`: connects to the server named by the environment (set by
/// the server's `PMIx_server_setup_fork`). Repeated calls are counted and
/// return the same identity. Without a server in the environment the
/// process becomes a singleton (`pmix_core::client::Client::singleton`):
/// the library is initialized and `proc` filled, and every call returns
/// `PMIX_ERR_UNREACH`, as OpenPMIx 4.2 does.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Init(
    proc_: *mut pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        let _g = INIT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let c = match client() {
            Ok(c) => {
                CLIENT_REFS.fetch_add(1, Ordering::AcqRel);
                c
            }
            Err(_) => {
                let c: &'static Client = Box::leak(Box::new(Client::init(&infos)?));
                CLIENT.store(c as *const Client as *mut Client, Ordering::Release);
                CLIENT_REFS.store(1, Ordering::Release);
                INIT_COUNT.fetch_add(1, Ordering::AcqRel);
                c
            }
        };
        pmix_core::strings::note_init();
        if !proc_.is_null() {
            // SAFETY: non-NULL out-parameter, writable per the contract.
            unsafe { proc_.write(convert::proc_to_c(c.proc())) };
        }
        // A singleton is initialized, but told (as OpenPMIx 4.2 tells it at
        // every init, and Open MPI and MPICH expect) that no server is
        // reachable.
        if c.is_singleton() {
            return Err(Status::ERR_UNREACH);
        }
        Ok(())
    })
}

/// `PMIx_Initialized`: true between `PMIx_Init` (or a server or tool
/// init) and its finalize.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Initialized() -> c_int {
    crate::boundary::guard_or(0, || c_int::from(initialized()))
}

/// `PMIx_Finalize`: the last of the counted calls tells the server this
/// process is done and closes the connection. Finalizing a library that
/// is not initialized is a successful no-op, as in OpenPMIx.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Finalize(info: *const pmix_info_t, ninfo: usize) -> c_int {
    guard(|| {
        let _g = INIT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let Ok(c) = client() else {
            return Ok(());
        };
        check_array(info, ninfo)?;
        pmix_core::strings::note_finalize();
        if CLIENT_REFS.fetch_sub(1, Ordering::AcqRel) > 1 {
            return Ok(());
        }
        CLIENT.store(null_mut(), Ordering::Release);
        INIT_COUNT.fetch_sub(1, Ordering::AcqRel);
        let r = c.finalize();
        pointer_cache::clear();
        r
    })
}

/// `PMIx_Abort`: asks the host to abort `procs` (none: this namespace).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Abort(
    status: c_int,
    msg: *const c_char,
    procs: *const pmix_proc_t,
    nprocs: usize,
) -> c_int {
    guard(|| {
        let c = client()?;
        // SAFETY: procs is NULL or nprocs valid procs (C contract).
        let procs = unsafe { procs_in(procs, nprocs) }?;
        // SAFETY: msg is NULL or a valid string (C contract).
        let msg = unsafe { crate::boundary::opt_cstr(msg) }.map(|m| m.to_string_lossy());
        c.abort(Status(status), msg.as_deref(), &procs)
    })
}

/// `PMIx_Progress`: the library has its own progress thread; nothing to
/// do.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Progress() {}

// ---------------------------------------------------------------------------
// Key-value exchange

/// `PMIx_Put`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Put(scope: u8, key: *const c_char, val: *mut pmix_value_t) -> c_int {
    guard(|| {
        let c = client()?;
        nonnull!(key, val);
        let scope = Scope::from_raw(scope).ok_or(Status::ERR_BAD_PARAM)?;
        // SAFETY: key is a valid string (C contract, checked non-NULL).
        let key = unsafe { key_str(key) }?;
        // SAFETY: val is a valid value (C contract, checked non-NULL).
        let v = unsafe { convert::value_from_c(val) }?;
        c.put(scope, key, v)
    })
}

/// `PMIx_Commit`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Commit() -> c_int {
    guard(|| client()?.commit())
}

/// `PMIx_Fence`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> c_int {
    guard(|| {
        let c = client()?;
        // SAFETY: arrays are NULL or valid for their counts (C contract).
        let (procs, infos) = unsafe { (procs_in(procs, nprocs)?, infos_in(info, ninfo)?) };
        c.fence(&procs, &infos)
    })
}

/// `PMIx_Fence_nb`: `cbfunc` runs on the progress thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence_nb(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let c = client()?;
        // SAFETY: arrays are NULL or valid for their counts (C contract).
        let (procs, infos) = unsafe { (procs_in(procs, nprocs)?, infos_in(info, ninfo)?) };
        c.fence_nb(&procs, &infos, op_callback(cbfunc, cbdata))
    })
}

/// Which storage a get's result goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Storage {
    /// A `malloc`ed value the caller releases.
    Malloc,
    /// `PMIX_GET_STATIC_VALUES`: the caller's value.
    Static,
    /// `PMIX_GET_POINTER_VALUES`: a value the library owns.
    Pointer,
}

pub(crate) fn storage(infos: &[Info]) -> Storage {
    let mut s = Storage::Malloc;
    for i in infos {
        let k = i.key.as_bytes();
        if k == keys::GET_POINTER_VALUES.as_bytes() && flag(&i.value) {
            s = Storage::Pointer;
        } else if k == keys::GET_STATIC_VALUES.as_bytes() && flag(&i.value) && s == Storage::Malloc
        {
            s = Storage::Static;
        }
    }
    s
}

/// A library-owned value for a pointer-values get (see
/// [`pointer_cache`]).
fn pointer_get(
    c: &Client,
    proc: &Proc,
    key: &str,
    infos: &[Info],
) -> Result<*mut pmix_value_t, Status> {
    let opts = GetOptions::parse(infos);
    let own = proc == c.proc() && !key.starts_with("pmix");
    if own && opts.realm == RealmQualifier::None {
        if let Some(p) = own_pointer(c, key)? {
            return Ok(p);
        }
    }
    if !own && opts.realm == RealmQualifier::None {
        let r = c.reader();
        let ns = proc.nspace.as_bytes();
        if let Some(view) = std::str::from_utf8(ns).ok().and_then(|s| r.namespace(s)) {
            let generation = view.generation();
            if let Some(v) = pointer_cache::lookup(ns, generation, proc.rank.0, key.as_bytes()) {
                return Ok(v);
            }
            if let Some(v) = c.lookup(&r, proc, key, &opts) {
                return pointer_insert(ns, view, proc.rank.0, key, v);
            }
        }
    }
    let v = c.get(proc, key, infos)?;
    Ok(pointer_cache::retain(convert::value_to_c_new(&v)?))
}

/// The pointer-values result of this process's own put of `key` (`None`
/// if it did not put it): cached by the put's version (see
/// [`pointer_cache`]), so repeated gets of an unchanged key return one
/// pointer and a get after a new put of the key a new one.
fn own_pointer(c: &Client, key: &str) -> Result<Option<*mut pmix_value_t>, Status> {
    let me = c.proc();
    let ns = me.nspace.as_bytes();
    if let Some(p) = c
        .own_version(key)
        .and_then(|ver| pointer_cache::lookup_own(ns, ver, me.rank.0, key.as_bytes()))
    {
        return Ok(Some(p));
    }
    let Some((v, ver)) = c.own_value(key) else {
        return Ok(None);
    };
    let p = convert::value_to_c_new(&v)?;
    Ok(Some(pointer_cache::insert_own(
        ns,
        ver,
        me.rank.0,
        key.as_bytes(),
        p,
    )))
}

/// Caches `v`, read from `view` of namespace `ns`, as the pointer-values
/// result of (`ns`, rank, `key`) in this generation (see
/// [`pointer_cache`]).
fn pointer_insert(
    ns: &[u8],
    view: NsView<'_>,
    rank: u32,
    key: &str,
    v: ValueRef<'_>,
) -> Result<*mut pmix_value_t, Status> {
    let (value, pins) = match v.as_c_str() {
        Some(cs) => {
            // A string borrowed from the segment, which the entry keeps
            // mapped.
            let shell = calloc_array::<pmix_value_t>(1)?;
            // SAFETY: shell is a fresh zeroed value.
            unsafe {
                (*shell).type_ = PMIX_STRING;
                (*shell).data.string = cs.as_ptr().cast_mut();
            }
            let segs: Vec<_> = view
                .job_segment()
                .into_iter()
                .chain(view.modex_segments())
                .cloned()
                .collect();
            (shell, Some(Box::new(segs) as Box<dyn std::any::Any>))
        }
        None => (convert::value_to_c_new(&Value::from(v))?, None),
    };
    Ok(pointer_cache::insert(
        ns,
        view.generation(),
        rank,
        key.as_bytes(),
        value,
        pins,
    ))
}

// ---------------------------------------------------------------------------
// The hot path of PMIx_Get (DESIGN.md): data in the mapped segments, read
// without converting the C arguments to owned values. No allocation (but
// the caller's malloc'ed result in the default mode), no lock, no syscall.

/// The qualifiers of a get, read in place from the C array.
struct FastQualifiers {
    storage: Storage,
    opts: GetOptions,
}

/// The bytes of a NUL-terminated C character array, without the NUL.
fn c_array_bytes(a: &[c_char]) -> &[u8] {
    // SAFETY: c_char and u8 have the same size and alignment.
    let b = unsafe { std::slice::from_raw_parts(a.as_ptr().cast::<u8>(), a.len()) };
    // libc's memchr is vectorized; a byte loop showed in profiles.
    // SAFETY: b is a.len() readable bytes.
    let nul = unsafe { libc::memchr(b.as_ptr().cast(), 0, b.len()) };
    let n = if nul.is_null() {
        b.len()
    } else {
        // SAFETY: memchr found the NUL within b.
        unsafe { nul.cast::<u8>().offset_from(b.as_ptr()) as usize }
    };
    &b[..n]
}

/// True if the NUL-terminated C array `a` holds exactly `k` (no scan for
/// the NUL: one compare of `k`'s length).
#[inline]
fn c_key_is(a: &[c_char], k: &str) -> bool {
    c_array_is(a, k.as_bytes())
}

/// True if the NUL-terminated C array `a` holds exactly `k`.
#[inline]
fn c_array_is(a: &[c_char], k: &[u8]) -> bool {
    // SAFETY: c_char and u8 have the same size and alignment.
    let b = unsafe { std::slice::from_raw_parts(a.as_ptr().cast::<u8>(), a.len()) };
    b.len() > k.len() && b[k.len()] == 0 && crate::api::pointer_cache::eq_short(&b[..k.len()], k)
}

/// A C boolean directive as `flag` reads it (`PMIX_UNDEF`: true).
fn c_flag(v: &pmix_value_t) -> bool {
    match v.type_ {
        // SAFETY: a PMIX_BOOL value holds a bool; read as a byte, so any
        // nonzero byte is true.
        PMIX_BOOL => (unsafe { v.data.byte }) != 0,
        PMIX_UNDEF => true,
        _ => false,
    }
}

/// A C integer qualifier as `int` reads it, if it fits a `u32`.
fn c_u32(v: &pmix_value_t) -> Option<u32> {
    // SAFETY: each arm reads the union member its type names.
    let x: i128 = unsafe {
        match v.type_ {
            PMIX_INT | PMIX_INT32 => v.data.int32.into(),
            PMIX_INT8 => v.data.int8.into(),
            PMIX_INT16 => v.data.int16.into(),
            PMIX_INT64 => v.data.int64.into(),
            PMIX_UINT | PMIX_UINT32 => v.data.uint32.into(),
            PMIX_UINT8 => v.data.uint8.into(),
            PMIX_UINT16 => v.data.uint16.into(),
            PMIX_UINT64 => v.data.uint64.into(),
            PMIX_SIZE => v.data.size.try_into().ok()?,
            _ => return None,
        }
    };
    // `int` refuses a uint64/size beyond i64.
    if x > i128::from(i64::MAX) {
        return None;
    }
    u32::try_from(x).ok()
}

/// Reads the qualifiers the hot path knows, as `storage` and
/// `GetOptions::parse` do; `None` if one needs the general path
/// (`PMIX_HOSTNAME`, whose string the options would own).
fn fast_qualifiers(infos: &[pmix_info_t]) -> Option<FastQualifiers> {
    let mut storage = Storage::Malloc;
    let mut realm = RealmQualifier::None;
    let (mut id, mut app) = (None, None);
    for i in infos {
        let k = &i.key;
        if c_key_is(k, keys::GET_POINTER_VALUES) {
            if c_flag(&i.value) {
                storage = Storage::Pointer;
            }
        } else if c_key_is(k, keys::GET_STATIC_VALUES) {
            if c_flag(&i.value) && storage == Storage::Malloc {
                storage = Storage::Static;
            }
        } else if c_key_is(k, keys::SESSION_INFO) {
            if c_flag(&i.value) {
                realm = RealmQualifier::Session;
            }
        } else if c_key_is(k, keys::NODE_INFO) {
            if c_flag(&i.value) {
                realm = RealmQualifier::Node {
                    id: None,
                    hostname: None,
                };
            }
        } else if c_key_is(k, keys::APP_INFO) {
            if c_flag(&i.value) {
                realm = RealmQualifier::App(None);
            }
        } else if c_key_is(k, keys::NODEID) {
            id = c_u32(&i.value);
        } else if c_key_is(k, keys::APPNUM) {
            app = c_u32(&i.value);
        } else if c_key_is(k, keys::HOSTNAME) {
            return None;
        }
        // Anything else (PMIX_OPTIONAL, PMIX_IMMEDIATE, PMIX_TIMEOUT, ...)
        // matters only when the segments do not have the value: the
        // general path then reads it.
    }
    match &mut realm {
        RealmQualifier::Node { id: i, .. } => *i = id,
        RealmQualifier::App(a) => *a = app,
        _ => {}
    }
    Some(FastQualifiers {
        storage,
        opts: GetOptions {
            realm,
            directives: Default::default(),
        },
    })
}

/// The handle on the namespace of the client it was made for.
struct OwnNs {
    client: *const Client,
    handle: NsHandle,
}

/// This client's [`OwnNs`], made by the first get (a handle made for a
/// finalized client is replaced and leaked: a racing get may still use it).
static OWN_NS: AtomicPtr<OwnNs> = AtomicPtr::new(null_mut());

/// The handle on `c`'s own namespace (allocates only when first made).
fn own_handle(c: &'static Client) -> Option<&'static NsHandle> {
    let cur = OWN_NS.load(Ordering::Acquire);
    // SAFETY: published handles are leaked, never freed.
    if let Some(o) = unsafe { cur.as_ref() } {
        if std::ptr::eq(o.client, c) {
            return Some(&o.handle);
        }
    }
    let new = Box::into_raw(Box::new(OwnNs {
        client: c,
        handle: c.own_handle()?,
    }));
    match OWN_NS.compare_exchange(cur, new, Ordering::AcqRel, Ordering::Acquire) {
        // SAFETY: just published, never freed.
        Ok(_) => Some(unsafe { &(*new).handle }),
        Err(other) => {
            // SAFETY: `new` was never published.
            drop(unsafe { Box::from_raw(new) });
            // SAFETY: published handles are never freed.
            let o = unsafe { &*other };
            std::ptr::eq(o.client, c).then_some(&o.handle)
        }
    }
}

/// `PMIx_Get` of a value in the mapped segments, or `None` to take the
/// general path (not there, this process's own non-reserved keys, which
/// its puts serve, qualifiers the hot path does not read, and errors,
/// which the general path reports).
///
/// # Safety
/// `key` is a valid string, `proc_` NULL or a valid proc, `info` NULL or
/// `ninfo` valid infos, `val` a writable out-parameter.
unsafe fn get_fast(
    c: &'static Client,
    proc_: *const pmix_proc_t,
    key: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    val: *mut *mut pmix_value_t,
) -> Option<Result<(), Status>> {
    if !c.is_initialized() {
        return None;
    }
    let infos = if ninfo == 0 {
        &[][..]
    } else {
        // SAFETY: non-NULL (checked by the caller) and ninfo valid infos.
        unsafe { std::slice::from_raw_parts(info, ninfo) }
    };
    let q = fast_qualifiers(infos)?;
    // SAFETY: the caller's contract.
    let key_bytes = unsafe { CStr::from_ptr(key) }.to_bytes();
    if key_bytes.is_empty() || key_bytes.len() > pmix_core::MAX_KEYLEN {
        return None;
    }
    let me = c.proc();
    let own_ns = me.nspace.as_bytes();
    // SAFETY: NULL or a valid proc (the caller's contract).
    let (ns, rank) = match unsafe { proc_.as_ref() } {
        None => (own_ns, me.rank),
        // This process's namespace (the usual case) is recognized
        // without a scan for the NUL.
        Some(p) if p.nspace[0] == 0 || c_array_is(&p.nspace, own_ns) => (own_ns, Rank(p.rank)),
        Some(p) => (c_array_bytes(&p.nspace), Rank(p.rank)),
    };
    let own_nspace = std::ptr::eq(ns, own_ns);
    if own_nspace && rank == me.rank && key_bytes.get(..4) != Some(b"pmix".as_slice()) {
        // This process's own put, unchanged since a pointer-values get
        // cached it: that pointer.
        if q.storage == Storage::Pointer && q.opts.realm == RealmQualifier::None {
            let key = std::str::from_utf8(key_bytes).ok()?;
            let p = c
                .own_version(key)
                .and_then(|ver| pointer_cache::lookup_own(ns, ver, rank.0, key_bytes))?;
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = p };
            return Some(Ok(()));
        }
        return None;
    }
    let pointer = q.storage == Storage::Pointer && q.opts.realm == RealmQualifier::None;
    if pointer && own_nspace {
        // A value of the current generation already handed out: no pin,
        // no view (the generation is read from the handle).
        let g = own_handle(c)?.generation();
        if let Some(p) = pointer_cache::lookup(ns, g, rank.0, key_bytes) {
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = p };
            return Some(Ok(()));
        }
    }
    // A scalar of the current generation read before by this thread.
    let scalars = own_nspace && !pointer && q.opts.realm == RealmQualifier::None;
    // SAFETY: val is a valid out-parameter (the caller's contract).
    if q.storage == Storage::Static && unsafe { (*val).is_null() } {
        return None;
    }
    let owner = if scalars {
        let h = own_handle(c)?;
        let owner = std::ptr::from_ref(h) as usize;
        if let Some(v) = scalar_cache::lookup(owner, h.generation(), rank.0, key_bytes) {
            return Some(put_scalar(q.storage, v, val));
        }
        owner
    } else {
        0
    };
    // Cached keys are valid UTF-8: checked only past the cache.
    let key = std::str::from_utf8(key_bytes).ok()?;
    let r = c.reader();
    let view = if own_nspace {
        r.view(own_handle(c)?)?
    } else {
        r.namespace(std::str::from_utf8(ns).ok()?)?
    };
    match q.storage {
        Storage::Pointer if q.opts.realm == RealmQualifier::None => {
            let p = match pointer_cache::lookup(ns, view.generation(), rank.0, key.as_bytes()) {
                Some(p) => p,
                None => {
                    let v = c.lookup_in(&r, view, own_nspace, rank, key, &q.opts)?;
                    match pointer_insert(ns, view, rank.0, key, v) {
                        Ok(p) => p,
                        Err(e) => return Some(Err(e)),
                    }
                }
            };
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = p };
            Some(Ok(()))
        }
        // Realm-qualified pointer gets are not cached by key: the general
        // path makes them.
        Storage::Pointer => None,
        Storage::Static => {
            // SAFETY: val is non-NULL; under static values *val is the
            // caller's pmix_value_t.
            let out = unsafe { *val };
            if out.is_null() {
                return None;
            }
            let v = c.lookup_in(&r, view, own_nspace, rank, key, &q.opts)?;
            if scalars && is_scalar(&v) {
                return Some(
                    cache_scalar(owner, view.generation(), rank.0, key, &v)
                        .and_then(|s| put_scalar(Storage::Static, s, val)),
                );
            }
            // SAFETY: out is a writable value the caller owns.
            Some(unsafe { convert::value_write(&Value::from(v), out) })
        }
        Storage::Malloc => {
            let v = c.lookup_in(&r, view, own_nspace, rank, key, &q.opts)?;
            if scalars && is_scalar(&v) {
                return Some(
                    cache_scalar(owner, view.generation(), rank.0, key, &v)
                        .and_then(|s| put_scalar(Storage::Malloc, s, val)),
                );
            }
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = null_mut() };
            let p = match v.as_c_str() {
                // Straight from the segment's bytes: no owned copy first.
                Some(cs) => malloc_string_value(cs),
                None => convert::value_to_c_new(&Value::from(v)),
            };
            Some(p.map(|p| {
                // SAFETY: val is a writable out-parameter.
                unsafe { *val = p };
            }))
        }
    }
}

/// True for the values without pointers that `scalar_cache` keeps.
fn is_scalar(v: &ValueRef<'_>) -> bool {
    use ValueRef as R;
    matches!(
        v,
        R::Bool(_)
            | R::Byte(_)
            | R::Pid(_)
            | R::Int(_)
            | R::Int8(_)
            | R::Int16(_)
            | R::Int32(_)
            | R::Int64(_)
            | R::Uint(_)
            | R::Uint8(_)
            | R::Uint16(_)
            | R::Uint32(_)
            | R::Uint64(_)
            | R::Float(_)
            | R::Double(_)
    )
}

/// Converts the scalar `v` and keeps it in this thread's cache.
fn cache_scalar(
    owner: usize,
    generation: u64,
    rank: u32,
    key: &str,
    v: &ValueRef<'_>,
) -> Result<pmix_value_t, Status> {
    let mut out = pmix_value_t::default();
    // SAFETY: out is a local value; a scalar's conversion allocates nothing.
    unsafe { convert::value_write(&Value::from(*v), &mut out) }?;
    scalar_cache::insert(owner, generation, rank, key.as_bytes(), out);
    Ok(out)
}

/// Hands a scalar value out as `storage` asks: into the caller's value
/// (static) or a fresh `calloc`ed one.
fn put_scalar(
    storage: Storage,
    v: pmix_value_t,
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    match storage {
        Storage::Static => {
            // SAFETY: under static values *val is the caller's non-NULL
            // pmix_value_t (checked by the caller before any lookup).
            unsafe { (*val).write(v) };
            Ok(())
        }
        _ => {
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = null_mut() };
            let p = calloc_array::<pmix_value_t>(1)?;
            // SAFETY: p is a fresh value; val a writable out-parameter.
            unsafe {
                p.write(v);
                *val = p;
            }
            Ok(())
        }
    }
}

/// A `malloc`ed `PMIX_STRING` value holding a `malloc`ed copy of `s`.
fn malloc_string_value(s: &CStr) -> Result<*mut pmix_value_t, Status> {
    let copy = malloc_cstr(s)?;
    let v = match calloc_array::<pmix_value_t>(1) {
        Ok(v) => v,
        Err(e) => {
            // SAFETY: ours, unused.
            unsafe { libc::free(copy.cast()) };
            return Err(e);
        }
    };
    // SAFETY: v is a fresh zeroed value.
    unsafe {
        (*v).type_ = PMIX_STRING;
        (*v).data.string = copy;
    }
    Ok(v)
}

/// `PMIx_Get`: honours `PMIX_GET_POINTER_VALUES`,
/// `PMIX_GET_STATIC_VALUES`, `PMIX_OPTIONAL`, `PMIX_IMMEDIATE`,
/// `PMIX_TIMEOUT` and the realm qualifiers (`PMIX_SESSION_INFO`,
/// `PMIX_NODE_INFO`, `PMIX_APP_INFO` with `PMIX_NODEID`, `PMIX_HOSTNAME`,
/// `PMIX_APPNUM`). A NULL proc is this process.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get(
    proc_: *const pmix_proc_t,
    key: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    val: *mut *mut pmix_value_t,
) -> c_int {
    guard(|| {
        let c = match (client(), crate::api::server::server_proc()) {
            (Ok(c), _) => c,
            (Err(_), Some(me)) => {
                // A server process's own store.
                // SAFETY: the C contract of PMIx_Get.
                let infos = unsafe { infos_in(info, ninfo) }?;
                // SAFETY: as above.
                return unsafe { crate::api::server_store::get(&me, proc_, key, &infos, val) };
            }
            (Err(e), None) => return Err(e),
        };
        if key.is_null() {
            // SAFETY: the C contract of PMIx_Get.
            return unsafe { crate::api::get_all::get(c, proc_, info, ninfo, val) };
        }
        nonnull!(key, val);
        check_array(info, ninfo)?;
        // SAFETY: key is a valid string, proc_ NULL or valid, info ninfo
        // valid infos, val writable (C contract, checked above).
        if let Some(r) = unsafe { get_fast(c, proc_, key, info, ninfo, val) } {
            return r;
        }
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        // SAFETY: key is a valid string, proc_ NULL or valid (C contract).
        let (key, proc) = unsafe { (key_str(key)?, target(c, proc_)) };
        match storage(&infos) {
            Storage::Static => {
                // SAFETY: val is non-NULL; under static values *val is the
                // caller's pmix_value_t.
                let out = unsafe { *val };
                nonnull!(out);
                let v = c.get(&proc, key, &infos)?;
                // SAFETY: out is a writable value the caller owns.
                unsafe { convert::value_write(&v, out) }
            }
            Storage::Pointer => {
                let p = pointer_get(c, &proc, key, &infos)?;
                // SAFETY: val is a writable out-parameter.
                unsafe { *val = p };
                Ok(())
            }
            Storage::Malloc => {
                // SAFETY: val is a writable out-parameter.
                unsafe { *val = null_mut() };
                let v = c.get(&proc, key, &infos)?;
                let p = convert::value_to_c_new(&v)?;
                // SAFETY: as above.
                unsafe { *val = p };
                Ok(())
            }
        }
    })
}

/// `PMIx_Get_nb`: `cbfunc` runs on the progress thread with a value the
/// library releases when the callback returns (as OpenPMIx does).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_nb(
    proc_: *const pmix_proc_t,
    key: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_value_cbfunc_t,
    cbdata: *mut c_void,
) -> c_int {
    guard(|| {
        let c = client()?;
        if key.is_null() {
            // SAFETY: the C contract of PMIx_Get_nb.
            return unsafe { crate::api::get_all::get_nb(c, proc_, info, ninfo, cbfunc, cbdata) };
        }
        nonnull!(key);
        let f = cbfunc.ok_or(Status::ERR_BAD_PARAM)?;
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        // SAFETY: key is a valid string, proc_ NULL or valid (C contract).
        let (key, proc) = unsafe { (key_str(key)?, target(c, proc_)) };
        let data = SendPtr(cbdata);
        c.get_nb(
            &proc,
            key,
            &infos,
            Box::new(move |r| deliver_value(f, data, r)),
        )
    })
}

/// The caller's `pmix_value_cbfunc_t` of a `_nb` get.
pub(crate) type ValueCbFn = unsafe extern "C" fn(c_int, *mut pmix_value_t, *mut c_void);

/// Hands a `_nb` get's result to the caller's callback `f` with its
/// cbdata: a value of ours (NULL on error), released once `f` returned, as
/// OpenPMIx does.
pub(crate) fn deliver_value(f: ValueCbFn, data: SendPtr, r: Result<Value, Status>) {
    crate::boundary::guard_or((), || {
        let (status, v) = match r.and_then(|v| convert::value_to_c_new(&v)) {
            Ok(v) => (Status::SUCCESS, v),
            Err(s) => (s, null_mut()),
        };
        // SAFETY: the caller's callback, given its cbdata; v is NULL or
        // ours, released once the callback returned.
        unsafe {
            f(status.0, v, data.0);
            if !v.is_null() {
                convert::value_destruct(v);
                libc::free(v.cast());
            }
        }
    })
}

/// `PMIx_Store_internal`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Store_internal(
    proc_: *const pmix_proc_t,
    key: *const c_char,
    val: *mut pmix_value_t,
) -> c_int {
    guard(|| {
        let c = match (client(), crate::api::server::server_proc()) {
            (Ok(c), _) => c,
            // A server process's own store.
            (Err(_), Some(me)) => {
                // SAFETY: the C contract of PMIx_Store_internal.
                return unsafe { crate::api::server_store::store(&me, proc_, key, val) };
            }
            (Err(e), None) => return Err(e),
        };
        nonnull!(proc_, key, val);
        // SAFETY: all three are valid (C contract, checked non-NULL).
        let (proc, key, v) =
            unsafe { (target(c, proc_), key_str(key)?, convert::value_from_c(val)?) };
        c.store_internal(&proc, key, v)
    })
}

/// `PMIx_Resolve_peers`: a `calloc`ed array the caller releases with
/// `PMIX_PROC_FREE`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_peers(
    nodename: *const c_char,
    nspace: *const c_char,
    procs: *mut *mut pmix_proc_t,
    nprocs: *mut usize,
) -> c_int {
    guard(|| {
        let c = client()?;
        nonnull!(procs, nprocs);
        // SAFETY: writable out-parameters (C contract, checked non-NULL).
        unsafe {
            *procs = null_mut();
            *nprocs = 0;
        }
        // SAFETY: NULL or valid strings (C contract).
        let (node, ns) = unsafe {
            (
                crate::boundary::opt_cstr(nodename),
                crate::boundary::opt_cstr(nspace),
            )
        };
        let node = node.map(|n| n.to_string_lossy());
        let ns = ns.map(|n| Nspace::from_cstring(n.to_owned())).transpose()?;
        let peers = c.resolve_peers(node.as_deref(), ns.as_ref())?;
        let out = calloc_array::<pmix_proc_t>(peers.len())?;
        for (i, p) in peers.iter().enumerate() {
            // SAFETY: out holds peers.len() elements.
            unsafe { out.add(i).write(convert::proc_to_c(p)) };
        }
        // SAFETY: as above.
        unsafe {
            *procs = out;
            *nprocs = peers.len();
        }
        Ok(())
    })
}

/// `PMIx_Resolve_nodes`: a `malloc`ed comma-separated list.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_nodes(
    nspace: *const c_char,
    nodelist: *mut *mut c_char,
) -> c_int {
    guard(|| {
        let c = client()?;
        nonnull!(nodelist);
        // SAFETY: writable out-parameter (checked non-NULL).
        unsafe { *nodelist = null_mut() };
        // SAFETY: NULL or a valid string (C contract).
        let ns = unsafe { crate::boundary::opt_cstr(nspace) }
            .map(|n| Nspace::from_cstring(n.to_owned()))
            .transpose()?;
        let nodes = c.resolve_nodes(ns.as_ref())?;
        let list = CString::new(nodes.join(",")).map_err(|_| Status::ERR_BAD_PARAM)?;
        let p = malloc_cstr(&list)?;
        // SAFETY: as above.
        unsafe { *nodelist = p };
        Ok(())
    })
}

// ---------------------------------------------------------------------------
// Spawn, connect, disconnect: see `spawn.rs`.

// ---------------------------------------------------------------------------
// Events

// Implemented in `crate::api::events`.

// ---------------------------------------------------------------------------
// Groups

/// `PMIx_Group_construct`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct(
    grp: *const c_char,
    procs: *const c_void,
    nprocs: usize,
    directives: *const c_void,
    ndirs: usize,
    results: *mut *mut c_void,
    nresults: *mut usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(grp, procs, results, nresults);
        check_array(procs, nprocs)?;
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_Group_construct_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct_nb(
    grp: *const c_char,
    procs: *const c_void,
    nprocs: usize,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(grp, procs);
        check_array(procs, nprocs)?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_destruct`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct(
    grp: *const c_char,
    info: *const c_void,
    ninfo: usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(grp);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_destruct_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct_nb(
    grp: *const c_char,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(grp);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_invite`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite(
    grp: *const c_char,
    procs: *const c_void,
    nprocs: usize,
    info: *const c_void,
    ninfo: usize,
    results: *mut *mut c_void,
    nresult: *mut usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(grp, procs, results, nresult);
        check_array(procs, nprocs)?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_invite_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite_nb(
    grp: *const c_char,
    procs: *const c_void,
    nprocs: usize,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(grp, procs);
        check_array(procs, nprocs)?;
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_join`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join(
    grp: *const c_char,
    leader: *const c_void,
    opt: c_int,
    info: *const c_void,
    ninfo: usize,
    results: *mut *mut c_void,
    nresult: *mut usize,
) -> c_int {
    let _ = opt;
    guard(|| {
        require_init()?;
        nonnull!(grp, leader, results, nresult);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_join_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join_nb(
    grp: *const c_char,
    leader: *const c_void,
    opt: c_int,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (opt, cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(grp, leader);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_leave`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave(
    grp: *const c_char,
    info: *const c_void,
    ninfo: usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(grp);
        check_array(info, ninfo)?;
        unsupported()
    })
}

/// `PMIx_Group_leave_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave_nb(
    grp: *const c_char,
    info: *const c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(grp);
        check_array(info, ninfo)?;
        unsupported()
    })
}

// ---------------------------------------------------------------------------
// Fabric

/// `PMIx_Fabric_register`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register(
    fabric: *mut c_void,
    directives: *const c_void,
    ndirs: usize,
) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(fabric);
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_Fabric_register_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_register_nb(
    fabric: *mut c_void,
    directives: *const c_void,
    ndirs: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(fabric);
        check_array(directives, ndirs)?;
        unsupported()
    })
}

/// `PMIx_Fabric_update`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update(fabric: *mut c_void) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(fabric);
        unsupported()
    })
}

/// `PMIx_Fabric_update_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_update_nb(
    fabric: *mut c_void,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(fabric);
        unsupported()
    })
}

/// `PMIx_Fabric_deregister`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister(fabric: *mut c_void) -> c_int {
    guard(|| {
        require_init()?;
        nonnull!(fabric);
        unsupported()
    })
}

/// `PMIx_Fabric_deregister_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fabric_deregister_nb(
    fabric: *mut c_void,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (cbfunc, cbdata);
    guard(|| {
        require_init()?;
        nonnull!(fabric);
        unsupported()
    })
}

// ---------------------------------------------------------------------------
// Topology

/// `PMIx_Compute_distances`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances(
    topo: *mut c_void,
    cpuset: *mut c_void,
    info: *mut c_void,
    ninfo: usize,
    distances: *mut *mut c_void,
    ndist: *mut usize,
) -> c_int {
    let _ = (topo, cpuset);
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        nonnull!(distances, ndist);
        unsupported()
    })
}

/// `PMIx_Compute_distances_nb`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Compute_distances_nb(
    topo: *mut c_void,
    cpuset: *mut c_void,
    info: *mut c_void,
    ninfo: usize,
    cbfunc: *const c_void,
    cbdata: *mut c_void,
) -> c_int {
    let _ = (topo, cpuset, cbdata);
    guard(|| {
        require_init()?;
        check_array(info, ninfo)?;
        nonnull!(cbfunc);
        unsupported()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Key;

    fn c_infos(infos: &[Info]) -> Vec<pmix_info_t> {
        infos
            .iter()
            .map(|i| {
                // SAFETY: an all-zero info is valid; info_write fills it.
                let mut o: pmix_info_t = unsafe { std::mem::zeroed() };
                // SAFETY: o is a writable info.
                unsafe { convert::info_write(i, &mut o) }.unwrap();
                o
            })
            .collect()
    }

    /// The hot path reads the qualifiers as `storage` and
    /// `GetOptions::parse` read the converted infos.
    #[test]
    fn fast_qualifiers_agree_with_the_general_path() {
        let k = |s: &str| Key::new(s).unwrap();
        let t = |s: &str| Info::new(k(s), Value::Bool(true));
        let cases: Vec<Vec<Info>> = vec![
            vec![],
            vec![t(keys::GET_POINTER_VALUES)],
            vec![t(keys::GET_STATIC_VALUES), t(keys::GET_POINTER_VALUES)],
            vec![Info::new(k(keys::GET_POINTER_VALUES), Value::Bool(false))],
            vec![t(keys::GET_STATIC_VALUES), t(keys::OPTIONAL)],
            vec![Info::new(k(keys::GET_POINTER_VALUES), Value::Undef)],
            vec![t(keys::SESSION_INFO)],
            vec![
                t(keys::NODE_INFO),
                Info::new(k(keys::NODEID), Value::Uint32(3)),
            ],
            vec![
                Info::new(k(keys::NODEID), Value::Int64(-1)),
                t(keys::NODE_INFO),
            ],
            vec![
                t(keys::APP_INFO),
                Info::new(k(keys::APPNUM), Value::Uint64(u64::MAX)),
            ],
            vec![t(keys::APP_INFO), Info::new(k(keys::APPNUM), Value::Int(2))],
            vec![t(keys::APP_INFO), t(keys::NODE_INFO), t(keys::TIMEOUT)],
            vec![Info::new(k("pmix.get.pntrsx"), Value::Bool(true))],
        ];
        for infos in cases {
            let c = c_infos(&infos);
            let q = fast_qualifiers(&c).expect("served by the hot path");
            let want = GetOptions::parse(&infos);
            assert_eq!(q.opts.realm, want.realm, "{infos:?}");
            assert!(q.storage == storage(&infos), "{infos:?}");
        }
        let host = [
            t(keys::NODE_INFO),
            Info::new(k(keys::HOSTNAME), Value::string("n1")),
        ];
        assert!(fast_qualifiers(&c_infos(&host)).is_none());
    }
}
