//! `PMIx_Get` and `PMIx_Get_nb`, with a key or with none (all of a
//! process's data), in a client and in a server process.
//!
//! A get asks the core one question — [`Client::resolve`] on the hot
//! path, [`Client::get_with`] otherwise — whose [`Answer`] says the value
//! and where it came from; the order in which the sources answer is the
//! core's. This module converts the C arguments (the qualifiers are read
//! in place by the core's [`GetOptions::parse`]), hands the answer out in
//! the storage the caller asked for, and caches what the answer says may
//! be cached:
//! - segment answers by namespace generation: pointer-values results in
//!   [`pointer_cache`], scalars of this process's namespace in this
//!   thread's [`scalar_cache`] (not the `until_put` ones, which a put
//!   supersedes);
//! - this process's own puts by put epoch in this thread's [`own_cache`],
//!   and their pointer-values results by put version in [`pointer_cache`].
//!
//! Invariants: the hot path (`get_fast`: data in the mapped segments or
//! an own put already answered, this process's namespace through a cached
//! `NsHandle`) takes no lock, makes no syscall and allocates nothing but
//! the caller's `malloc`ed result; anything it does not serve goes through
//! the owned conversions and `Client::get_with`, which reports the errors.
//! A server process (`PMIx_server_init` without `PMIx_Init`) reads its
//! own store ([`pmix_core::server::own_store`]), which also answers its
//! own identity (`PMIX_PROCID`, `PMIX_NSPACE`, `PMIX_RANK`).
//!
//! # Safety
//!
//! Every exported function has the safety contract of its C prototype:
//! each pointer argument is NULL or valid for what the PMIx standard says
//! the function does with it. The `# Safety` lint is silenced for that reason.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};

use pmix_core::client::{
    Answer, Client, GetOptions, NsHandle, NsView, ProcRef, RealmQualifier, ValueRef, ValueStorage,
};
use pmix_core::value::DataArray;
use pmix_core::{DataType, Info, InfoDirectives, Rank, Status, Value};

use crate::api::args::{c_array_bytes, c_array_is, infos_at, infos_in, key_str, target, target_or};
use crate::api::serving::{self, Serving};
use crate::api::state;
use crate::api::{own_cache, pointer_cache, scalar_cache};
use crate::boundary::{calloc_array, guard, malloc_cstr, SendPtr};
use crate::convert;
use crate::nonnull;
use crate::sys::{pmix_info_t, pmix_proc_t, pmix_value_cbfunc_t, pmix_value_t, PMIX_STRING};

// ---------------------------------------------------------------------------
// The exported functions

/// `PMIx_Get`: honours `PMIX_GET_POINTER_VALUES`,
/// `PMIX_GET_STATIC_VALUES`, `PMIX_OPTIONAL`, `PMIX_IMMEDIATE`,
/// `PMIX_TIMEOUT` and the realm qualifiers (`PMIX_SESSION_INFO`,
/// `PMIX_NODE_INFO`, `PMIX_APP_INFO` with `PMIX_NODEID`, `PMIX_HOSTNAME`,
/// `PMIX_APPNUM`). A NULL proc is this process; a NULL key all of the
/// process's data.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get(
    proc_: *const pmix_proc_t,
    key: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    val: *mut *mut pmix_value_t,
) -> c_int {
    guard(|| {
        let c = match serving::serving(true) {
            Ok(Serving::Client(c)) => c,
            // SAFETY: the C contract of PMIx_Get.
            Ok(Serving::Server) => return unsafe { server_get(proc_, key, info, ninfo, val) },
            Err(_) => return Err(Status::ERR_INIT),
        };
        if key.is_null() {
            // SAFETY: the C contract of PMIx_Get.
            return unsafe { get_all(c, proc_, info, ninfo, val) };
        }
        nonnull!(key, val);
        // SAFETY: info is NULL or ninfo valid infos (C contract), read
        // during this call only.
        let quals = unsafe { infos_at(info, ninfo) }?;
        let opts = GetOptions::parse(quals);
        // SAFETY: proc_ is NULL or valid (C contract).
        let grouped = c.has_groups() && unsafe { names_a_group(c, proc_, quals) };
        if !grouped {
            // SAFETY: key is a valid string, proc_ NULL or valid, val
            // writable (C contract, checked above).
            if let Some(r) = unsafe { get_fast(c, proc_, key, &opts, val) } {
                return r;
            }
        }
        // SAFETY: info is NULL or ninfo valid infos (C contract).
        let infos = unsafe { infos_in(info, ninfo) }?;
        // SAFETY: key is a valid string, proc_ NULL or valid (C contract).
        let (key, proc) = unsafe { (key_str(key)?, target(c, proc_)) };
        if opts.storage == ValueStorage::Static {
            // SAFETY: val is non-NULL; under static values *val is the
            // caller's pmix_value_t.
            let out = unsafe { *val };
            nonnull!(out);
        } else if opts.storage == ValueStorage::Copy {
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = null_mut() };
        }
        let to = Target {
            nspace: proc.nspace.as_bytes(),
            rank: proc.rank,
            own_nspace: proc.nspace == c.proc().nspace,
        };
        c.get_with(&proc, key, &infos, |a| {
            // SAFETY: val is writable, *val the caller's under static
            // values (checked above).
            unsafe { deliver(c, a, &to, key, &opts, None, val) }
        })?
    })
}

/// True if a get of `proc_` with `quals` may need the groups this process
/// belongs to (see `Client::group_member`): another namespace (maybe a
/// group id), or a `PMIX_GROUP_CONTEXT_ID` qualifier. The fast path
/// knows nothing of groups.
///
/// # Safety
/// `proc_` is NULL or a valid proc.
// attrs begin: PMIx_Get PMIx_Get_nb
unsafe fn names_a_group(c: &Client, proc_: *const pmix_proc_t, quals: &[pmix_info_t]) -> bool {
    // SAFETY: the caller's contract.
    let other = unsafe { proc_.as_ref() }
        .is_some_and(|p| p.nspace[0] != 0 && !c_array_is(&p.nspace, c.proc().nspace.as_bytes()));
    other
        || quals
            .iter()
            .any(|q| c_array_is(&q.key, pmix_core::keys::GROUP_CONTEXT_ID.as_bytes()))
}
// attrs end

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
        let c = serving::client()?;
        if key.is_null() {
            // SAFETY: the C contract of PMIx_Get_nb.
            return unsafe { get_all_nb(c, proc_, info, ninfo, cbfunc, cbdata) };
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
type ValueCbFn = unsafe extern "C" fn(c_int, *mut pmix_value_t, *mut c_void);

/// Hands a `_nb` get's result to the caller's callback `f` with its
/// cbdata: a value of ours (NULL on error), released once `f` returned, as
/// OpenPMIx does.
fn deliver_value(f: ValueCbFn, data: SendPtr, r: Result<Value, Status>) {
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

// ---------------------------------------------------------------------------
// Handing an answer out

/// The process a get names, as the caches key it.
struct Target<'a> {
    nspace: &'a [u8],
    rank: Rank,
    /// It is this process's namespace.
    own_nspace: bool,
}

/// Hands `answer` out to a blocking caller in the storage `opts` asks for,
/// caching what it may be cached by (see the module documentation).
/// `scalar_owner`: the own namespace's handle address, when the answer was
/// read through it (scalars are then cached in this thread).
///
/// # Safety
/// `val` is writable; under static values `*val` is the caller's non-NULL
/// value.
#[inline]
unsafe fn deliver(
    c: &'static Client,
    answer: Answer<'_>,
    to: &Target<'_>,
    key: &str,
    opts: &GetOptions,
    scalar_owner: Option<usize>,
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    let plain = opts.realm == RealmQualifier::None;
    match answer {
        Answer::Segment {
            value,
            view,
            until_put,
        } => {
            let stable = plain && !until_put;
            match opts.storage {
                ValueStorage::Pointer if stable => {
                    let (ns, g) = (to.nspace, view.generation());
                    let p = match pointer_cache::lookup(ns, g, to.rank.0, key.as_bytes()) {
                        Some(p) => p,
                        None => pointer_insert(ns, view, to.rank.0, key, value)?,
                    };
                    // SAFETY: val is a writable out-parameter.
                    unsafe { *val = p };
                    Ok(())
                }
                ValueStorage::Pointer => {
                    let p = pointer_cache::retain(convert::value_to_c_new(&Value::from(value))?);
                    // SAFETY: val is a writable out-parameter.
                    unsafe { *val = p };
                    Ok(())
                }
                storage => {
                    if let Some(owner) = scalar_owner.filter(|_| stable && is_scalar(&value)) {
                        let g = view.generation();
                        let s = cache_scalar(owner, g, to.rank.0, key, &value)?;
                        // SAFETY: the caller's contract.
                        return unsafe { put_scalar(storage, s, val) };
                    }
                    match storage {
                        // SAFETY: under static values *val is the caller's
                        // value (the caller's contract).
                        ValueStorage::Static => unsafe {
                            convert::value_write(&Value::from(value), *val)
                        },
                        _ => {
                            let p = match value.as_c_str() {
                                // Straight from the segment's bytes: no
                                // owned copy first.
                                Some(cs) => malloc_string_value(cs)?,
                                None => convert::value_to_c_new(&Value::from(value))?,
                            };
                            // SAFETY: val is a writable out-parameter.
                            unsafe { *val = p };
                            Ok(())
                        }
                    }
                }
            }
        }
        Answer::Own {
            value,
            version,
            epoch,
        } => {
            if !plain {
                // SAFETY: the caller's contract.
                return unsafe { put_value(opts.storage, &value, val) };
            }
            let client = std::ptr::from_ref(c) as usize;
            let mut pointer = null_mut();
            if opts.storage == ValueStorage::Pointer {
                pointer = own_pointer(c, to, key, &value, version)?;
            }
            // SAFETY: the caller's contract.
            let r = unsafe { put_own(opts.storage, &value, pointer, val) };
            own_cache::insert(client, epoch, key.as_bytes(), value, version, pointer);
            r
        }
        // SAFETY: the caller's contract.
        Answer::Local(value) => unsafe { put_value(opts.storage, &value, val) },
    }
}

/// Hands out a value that no cache keeps: a fresh copy (retained until
/// finalize under pointer values).
///
/// # Safety
/// As [`deliver`].
unsafe fn put_value(
    storage: ValueStorage,
    v: &Value,
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    match storage {
        // SAFETY: under static values *val is the caller's value.
        ValueStorage::Static => unsafe { convert::value_write(v, *val) },
        ValueStorage::Pointer => {
            let p = pointer_cache::retain(convert::value_to_c_new(v)?);
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = p };
            Ok(())
        }
        ValueStorage::Copy => {
            let p = convert::value_to_c_new(v)?;
            // SAFETY: val is a writable out-parameter.
            unsafe { *val = p };
            Ok(())
        }
    }
}

/// Hands out this process's own put `v`: under pointer values its cached
/// `pointer`, else a copy.
///
/// # Safety
/// As [`deliver`].
unsafe fn put_own(
    storage: ValueStorage,
    v: &Value,
    pointer: *mut pmix_value_t,
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    if storage == ValueStorage::Pointer {
        // SAFETY: val is a writable out-parameter.
        unsafe { *val = pointer };
        return Ok(());
    }
    if let (ValueStorage::Copy, Value::String(Some(s))) = (storage, v) {
        // SAFETY: val is a writable out-parameter.
        unsafe { *val = malloc_string_value(s)? };
        return Ok(());
    }
    // SAFETY: the caller's contract.
    unsafe { put_value(storage, v, val) }
}

/// The pointer-values result of this process's put of `key` at `version`:
/// cached by the put's version (see [`pointer_cache`]), so repeated gets
/// of an unchanged key return one pointer and a get after a new put of
/// the key a new one.
fn own_pointer(
    c: &Client,
    to: &Target<'_>,
    key: &str,
    v: &Value,
    version: u64,
) -> Result<*mut pmix_value_t, Status> {
    let me = c.proc();
    let (ns, rank) = (me.nspace.as_bytes(), me.rank.0);
    debug_assert!(to.own_nspace && to.rank == me.rank);
    if let Some(p) = pointer_cache::lookup_own(ns, version, rank, key.as_bytes()) {
        return Ok(p);
    }
    let p = convert::value_to_c_new(v)?;
    Ok(pointer_cache::insert_own(
        ns,
        version,
        rank,
        key.as_bytes(),
        p,
    ))
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
///
/// # Safety
/// `val` is writable; under static values `*val` is the caller's non-NULL
/// value.
unsafe fn put_scalar(
    storage: ValueStorage,
    v: pmix_value_t,
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    match storage {
        ValueStorage::Static => {
            // SAFETY: under static values *val is the caller's non-NULL
            // pmix_value_t (the caller's contract).
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
#[inline]
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

// ---------------------------------------------------------------------------
// The hot path (DESIGN.md): data in the mapped segments or an own put
// already answered, read without converting the C arguments to owned
// values. No allocation (but the caller's malloc'ed result in the default
// mode), no lock, no syscall.

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

/// `PMIx_Get` of what the local sources answer at once, or `None` to take
/// the general path (nothing here, and errors, which the general path
/// reports).
///
/// # Safety
/// `key` is a valid string, `proc_` NULL or a valid proc, `val` a writable
/// out-parameter.
unsafe fn get_fast(
    c: &'static Client,
    proc_: *const pmix_proc_t,
    key: *const c_char,
    opts: &GetOptions,
    val: *mut *mut pmix_value_t,
) -> Option<Result<(), Status>> {
    if !c.is_initialized() || opts.refresh {
        // PMIX_GET_REFRESH_CACHE asks the server again: the core's path.
        return None;
    }
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
    let plain = opts.realm == RealmQualifier::None;
    // SAFETY: val is a valid out-parameter (the caller's contract).
    if opts.storage == ValueStorage::Static && unsafe { (*val).is_null() } {
        return None;
    }
    if own_nspace && rank == me.rank && plain {
        // This process's own put, answered before and not put since.
        let client = std::ptr::from_ref(c) as usize;
        let hit = own_cache::with(client, c.put_epoch(), key_bytes, |o| {
            if opts.storage == ValueStorage::Pointer && o.pointer.is_null() {
                let key = std::str::from_utf8(key_bytes).ok()?;
                let to = Target {
                    nspace: ns,
                    rank,
                    own_nspace,
                };
                o.pointer = own_pointer(c, &to, key, &o.value, o.version).ok()?;
            }
            // SAFETY: val is writable, *val the caller's under static
            // values (checked above).
            Some(unsafe { put_own(opts.storage, &o.value, o.pointer, val) })
        });
        if let Some(r) = hit.flatten() {
            return Some(r);
        }
    }
    let pointer = opts.storage == ValueStorage::Pointer && plain;
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
    let scalars = own_nspace && !pointer && plain;
    let owner = if scalars {
        let h = own_handle(c)?;
        let owner = std::ptr::from_ref(h) as usize;
        if let Some(v) = scalar_cache::lookup(owner, h.generation(), rank.0, key_bytes) {
            // SAFETY: val is writable, *val the caller's under static
            // values (checked above).
            return Some(unsafe { put_scalar(opts.storage, v, val) });
        }
        Some(owner)
    } else {
        None
    };
    // Cached keys are valid UTF-8: checked only past the caches.
    let key = std::str::from_utf8(key_bytes).ok()?;
    let r = c.reader();
    let view = if own_nspace {
        r.view(own_handle(c)?)
    } else {
        c.view_of(&r, ns)
    };
    let answer = c.resolve(&r, view, ProcRef { nspace: ns, rank }, key, opts)?;
    if opts.storage == ValueStorage::Copy {
        // SAFETY: val is a writable out-parameter.
        unsafe { *val = null_mut() };
    }
    let to = Target {
        nspace: ns,
        rank,
        own_nspace,
    };
    // SAFETY: val is writable, *val the caller's under static values
    // (checked above).
    Some(unsafe { deliver(c, answer, &to, key, opts, owner, val) })
}

// ---------------------------------------------------------------------------
// A NULL key: all the data the library holds for one process (see
// `pmix_core::client::Client::get_all`), as one `PMIX_DATA_ARRAY` value of
// `PMIX_INFO`, one info per key, the last flagged `PMIX_INFO_ARRAY_END` (as
// OpenPMIx 4.2 returns it).

/// The infos as one data-array value.
fn as_value(mut infos: Vec<Info>) -> Value {
    if let Some(last) = infos.last_mut() {
        last.flags = InfoDirectives(last.flags.0 | InfoDirectives::ARRAY_END.0);
    }
    Value::DataArray(Box::new(DataArray {
        elem_type: DataType::Info,
        items: infos
            .into_iter()
            .map(|i| Value::Info(Box::new(i)))
            .collect(),
    }))
}

/// `PMIx_Get(proc, NULL, info, ninfo, val)` in a client.
///
/// # Safety
/// `proc_` NULL or a valid proc, `info` NULL or `ninfo` valid infos,
/// `val` NULL or writable (and under `PMIX_GET_STATIC_VALUES`, `*val` the
/// caller's value).
unsafe fn get_all(
    c: &Client,
    proc_: *const pmix_proc_t,
    info: *const pmix_info_t,
    ninfo: usize,
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    // A NULL proc names this process for a keyed get only (OpenPMIx
    // refuses it with a NULL key).
    nonnull!(proc_, val);
    // SAFETY: info is NULL or ninfo valid infos (C contract).
    let infos = unsafe { infos_in(info, ninfo) }?;
    // SAFETY: proc_ is NULL or valid (C contract).
    let proc = unsafe { target(c, proc_) };
    // SAFETY: val is writable (and *val the caller's under static values).
    unsafe { deliver_all(c.get_all(&proc, &infos), &infos, val) }
}

/// Hands a process's data (`data`: its infos, or why there are none) to
/// a blocking caller in the storage `infos` ask for.
///
/// # Safety
/// `val` is writable, and under `PMIX_GET_STATIC_VALUES` `*val` is the
/// caller's value.
unsafe fn deliver_all(
    data: Result<Vec<Info>, Status>,
    infos: &[Info],
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    let storage = GetOptions::parse(infos).storage;
    if storage != ValueStorage::Static {
        // SAFETY: val is a writable out-parameter.
        unsafe { *val = null_mut() };
    }
    let v = as_value(data?);
    if storage == ValueStorage::Static {
        // SAFETY: under static values *val is the caller's value.
        let out = unsafe { *val };
        nonnull!(out);
    }
    // SAFETY: val is writable, *val the caller's non-NULL value under
    // static values (checked above).
    unsafe { put_value(storage, &v, val) }
}

/// `PMIx_Get_nb(proc, NULL, ...)` in a client: `f` runs on the progress
/// thread with a value released when it returns.
///
/// # Safety
/// `proc_` NULL or a valid proc, `info` NULL or `ninfo` valid infos.
unsafe fn get_all_nb(
    c: &Client,
    proc_: *const pmix_proc_t,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_value_cbfunc_t,
    cbdata: *mut c_void,
) -> Result<(), Status> {
    nonnull!(proc_);
    let f = cbfunc.ok_or(Status::ERR_BAD_PARAM)?;
    // SAFETY: info is NULL or ninfo valid infos (C contract).
    let infos = unsafe { infos_in(info, ninfo) }?;
    // SAFETY: proc_ is NULL or valid (C contract).
    let proc = unsafe { target(c, proc_) };
    let data = SendPtr(cbdata);
    c.get_all_nb(
        &proc,
        &infos,
        Box::new(move |r| deliver_value(f, data, r.map(as_value))),
    )
}

// ---------------------------------------------------------------------------
// A server process's own store

/// `PMIx_Get` in a server process (`PMIx_server_init` without
/// `PMIx_Init`): its own store.
///
/// # Safety
/// `proc_` NULL or valid; `key` NULL or a valid string; `info` NULL or
/// `ninfo` valid infos; `val` writable (and, under
/// `PMIX_GET_STATIC_VALUES`, `*val` the caller's value).
unsafe fn server_get(
    proc_: *const pmix_proc_t,
    key: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    val: *mut *mut pmix_value_t,
) -> Result<(), Status> {
    // SAFETY: the C contract of PMIx_Get.
    let infos = unsafe { infos_in(info, ninfo) }?;
    let s = state::server()?;
    nonnull!(val);
    // SAFETY: proc_ NULL or valid (contract).
    let p = unsafe { target_or(&s.server.proc(), proc_) };
    if key.is_null() {
        // SAFETY: val is writable (checked), *val the caller's under static
        // values (contract).
        return unsafe { deliver_all(s.own.get_all(&p), &infos, val) };
    }
    // SAFETY: key is a valid string (contract, checked non-NULL).
    let key = unsafe { crate::api::args::one_key(key) }?;
    let v = if key == pmix_core::keys::PSET_NAMES || key == pmix_core::keys::GROUP_NAMES {
        // Sets and groups live in the server's tables.
        s.server.set_names(&p, key)?
    } else {
        s.own.get(&p, key).or_else(|e| {
            pmix_core::server::own_store::identity(&s.server.proc(), &p, key).ok_or(e)
        })?
    };
    let storage = GetOptions::parse(&infos).storage;
    if storage == ValueStorage::Static {
        // SAFETY: val is readable; *val is the caller's value.
        let out = unsafe { *val };
        nonnull!(out);
    }
    // SAFETY: val is writable, *val the caller's non-NULL value under
    // static values (checked above).
    unsafe { put_value(storage, &v, val) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::{keys, Key};

    /// C infos that release what `info_write` allocated when dropped (a
    /// string value's copy: LeakSanitizer found it leaked).
    struct CInfos(Vec<pmix_info_t>);

    impl std::ops::Deref for CInfos {
        type Target = Vec<pmix_info_t>;
        fn deref(&self) -> &Vec<pmix_info_t> {
            &self.0
        }
    }

    impl Drop for CInfos {
        fn drop(&mut self) {
            for i in &mut self.0 {
                // SAFETY: each info was written by info_write and is
                // released once, here.
                unsafe { convert::info_destruct(i) };
            }
        }
    }

    fn c_infos(infos: &[Info]) -> CInfos {
        CInfos(
            infos
                .iter()
                .map(|i| {
                    // SAFETY: an all-zero info is valid; info_write fills it.
                    let mut o: pmix_info_t = unsafe { std::mem::zeroed() };
                    // SAFETY: o is a writable info.
                    unsafe { convert::info_write(i, &mut o) }.unwrap();
                    o
                })
                .collect(),
        )
    }

    /// The one qualifier parser reads C infos in place as it reads the
    /// converted infos.
    #[test]
    fn c_infos_parse_as_converted_infos() {
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
            vec![
                t(keys::NODE_INFO),
                Info::new(k(keys::HOSTNAME), Value::string("n1")),
            ],
            vec![
                Info::new(k(keys::TIMEOUT), Value::Int32(3)),
                t(keys::IMMEDIATE),
            ],
        ];
        for infos in cases {
            let c = c_infos(&infos);
            let from_c = GetOptions::parse(&c[..]);
            let want = GetOptions::parse(&infos);
            assert_eq!(from_c, want, "{infos:?}");
        }
        // What the former hot-path reader gave for these cases.
        let storage = |i: &[Info]| GetOptions::parse(&c_infos(i)[..]).storage;
        assert_eq!(storage(&[]), ValueStorage::Copy);
        assert_eq!(
            storage(&[t(keys::GET_STATIC_VALUES), t(keys::GET_POINTER_VALUES)]),
            ValueStorage::Pointer
        );
        assert_eq!(
            storage(&[Info::new(k(keys::GET_POINTER_VALUES), Value::Undef)]),
            ValueStorage::Pointer
        );
        assert_eq!(
            storage(&[Info::new(k("pmix.get.pntrsx"), Value::Bool(true))]),
            ValueStorage::Copy
        );
        let node = GetOptions::parse(
            &c_infos(&[
                Info::new(k(keys::NODEID), Value::Int64(-1)),
                t(keys::NODE_INFO),
            ])[..],
        );
        assert_eq!(
            node.realm,
            RealmQualifier::Node {
                id: None,
                hostname: None
            }
        );
        let app = GetOptions::parse(
            &c_infos(&[
                t(keys::APP_INFO),
                Info::new(k(keys::APPNUM), Value::Uint64(u64::MAX)),
            ])[..],
        );
        assert_eq!(app.realm, RealmQualifier::App(None));
    }
}
