//! The hot path of `PMIx_Get` (DESIGN.md, "Hot path of `PMIx_Get`"): a
//! get of data in the mapped segments allocates nothing.
//!
//! A Rust server in the test process registers a two-process job; this
//! test binary, re-executed twice (the role chosen by [`ROLE`]), is the
//! two clients. Each calls the exported `PMIx_Init`, puts, commits and
//! fences with `PMIX_COLLECT_DATA` (so the peer's posts are in a modex
//! segment), then calls `PMIx_Get` on job-level, own and peer proc-level
//! and posted keys (the own posted ones answered by the core's table of
//! own puts), under `PMIX_GET_POINTER_VALUES` and in the default
//! (`malloc`) mode, and counts the Rust heap allocations of its thread
//! with the counting global allocator below: after one warm-up get per
//! key, N gets allocate nothing. (`malloc`ed C results are the caller's
//! and are not Rust allocations.)
//!
//! With `PMIX_GET_BENCH=1` (and `--ignored`), the children print ns/get
//! instead (best of 50 batches of 20000 gets): `cargo test --release -p
//! pmix-ffi --lib get_latency -- --ignored --nocapture`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ffi::{c_char, CStr};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_core::job::{AppContext, SingleNodeJob};
use pmix_core::server::{Completion, HostModule, Server, ServerConfig};
use pmix_core::{keys, Nspace, Proc, Rank, Status};

use crate::api::client::{PMIx_Commit, PMIx_Fence, PMIx_Finalize, PMIx_Init, PMIx_Put};
use crate::api::get::PMIx_Get;
use crate::sys::{pmix_info_t, pmix_proc_t, pmix_value_t, PMIX_BOOL, PMIX_STRING, PMIX_UINT32};

/// Counts the Rust heap allocations of each thread.
struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

fn note() {
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded with the caller's contract.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        note();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        note();
        // SAFETY: as above.
        unsafe { System.realloc(p, l, n) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> u64 {
    ALLOCS.with(Cell::get)
}

const ROLE: &str = "PMIX_FFI_GET_TEST_ROLE";
const BENCH: &str = "PMIX_GET_BENCH";
const LIMIT: Duration = Duration::from_secs(120);
const POSTED_STR: &str = "test.posted.str";
const POSTED_U32: &str = "test.posted.u32";

struct Host;

impl HostModule for Host {
    fn client_connected(&self, _: &Proc, done: Completion<()>) -> Result<(), Status> {
        done.complete(Ok(()));
        Ok(())
    }
    fn client_finalized(&self, _: &Proc, done: Completion<()>) -> Result<(), Status> {
        done.complete(Ok(()));
        Ok(())
    }
}

/// Runs the job: a server here, two clients re-executing `test`.
fn run_job(test: &str, bench: bool) {
    let server = Server::start(ServerConfig::default(), Arc::new(Host)).expect("server starts");
    let nspace = Nspace::new(format!("ffi-get-{}", std::process::id())).unwrap();
    let infos = SingleNodeJob::new(&nspace, &server.config().hostname)
        .app(AppContext::new(2))
        .infos()
        .unwrap();
    server.register_nspace(&nspace, 2, &infos).unwrap();
    let (uid, gid) = pmix_core::net::my_ids();
    let procs: Vec<Proc> = (0..2).map(|r| Proc::new(nspace.clone(), Rank(r))).collect();
    for p in &procs {
        server.register_client(p, uid, gid).unwrap();
    }
    let mut kids: Vec<_> = procs
        .iter()
        .map(|p| {
            let mut cmd = Command::new(std::env::current_exe().unwrap());
            cmd.args([test, "--exact", "--nocapture", "--test-threads=1"]);
            if bench {
                let mode = std::env::var(BENCH).unwrap_or_else(|_| "1".into());
                cmd.args(["--ignored"]).env(BENCH, mode);
            }
            for (k, v) in server.setup_fork(p).unwrap() {
                cmd.env(k, v);
            }
            cmd.env(ROLE, "client")
                .stdin(Stdio::null())
                .stderr(Stdio::inherit())
                .stdout(Stdio::inherit())
                .spawn()
                .expect("child starts")
        })
        .collect();
    let start = Instant::now();
    for k in &mut kids {
        loop {
            if let Some(st) = k.try_wait().unwrap() {
                assert!(st.success(), "client failed: {st}");
                break;
            }
            if start.elapsed() > LIMIT {
                for k in &mut kids {
                    let _ = k.kill();
                }
                panic!("clients did not finish within {LIMIT:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn cstr(s: &str) -> std::ffi::CString {
    std::ffi::CString::new(s).unwrap()
}

fn info_flag(key: &str) -> pmix_info_t {
    // SAFETY: an all-zero pmix_info_t is valid (an empty key, PMIX_UNDEF).
    let mut i: pmix_info_t = unsafe { std::mem::zeroed() };
    for (d, s) in i.key.iter_mut().zip(key.bytes()) {
        *d = s as c_char;
    }
    i.value.type_ = PMIX_BOOL;
    i.value.data.flag = true;
    i
}

/// One get kind the hot path serves.
struct Case {
    what: &'static str,
    proc_: pmix_proc_t,
    key: std::ffi::CString,
}

fn check(rc: i32, what: &str) -> Result<(), String> {
    if rc == 0 {
        Ok(())
    } else {
        Err(format!("{what}: status {rc}"))
    }
}

/// Frees a `malloc`-mode result.
fn release(v: *mut pmix_value_t) {
    // SAFETY: v came from PMIx_Get in malloc mode and is not used after.
    unsafe {
        crate::convert::value_destruct(v);
        libc::free(v.cast());
    }
}

fn client_main() -> Result<(), String> {
    let bench = std::env::var_os(BENCH).is_some();
    // SAFETY: an all-zero proc is valid; PMIx_Init writes it.
    let mut me: pmix_proc_t = unsafe { std::mem::zeroed() };
    // SAFETY: a valid out-parameter and no infos.
    let rc = unsafe { PMIx_Init(&mut me, std::ptr::null_mut(), 0) };
    check(rc, "init")?;
    let peer = pmix_proc_t {
        rank: 1 - me.rank,
        ..me
    };
    let wildcard = pmix_proc_t {
        rank: pmix_core::Rank::WILDCARD.0,
        ..me
    };
    // Puts: a string and a uint32.
    let s = cstr(&format!("value-of-rank-{}", me.rank));
    // SAFETY: an all-zero value is valid.
    let mut v: pmix_value_t = unsafe { std::mem::zeroed() };
    v.type_ = PMIX_STRING;
    v.data.string = s.as_ptr().cast_mut();
    // SAFETY: valid key and value (the library copies them).
    let rc = unsafe { PMIx_Put(3, cstr(POSTED_STR).as_ptr(), &mut v) };
    check(rc, "put")?;
    v.type_ = PMIX_UINT32;
    v.data.uint32 = 100 + me.rank;
    // SAFETY: as above.
    let rc = unsafe { PMIx_Put(3, cstr(POSTED_U32).as_ptr(), &mut v) };
    check(rc, "put")?;
    // SAFETY: no arguments.
    check(unsafe { PMIx_Commit() }, "commit")?;
    let collect = [info_flag(keys::COLLECT_DATA)];
    // SAFETY: NULL procs (the namespace) and one valid info.
    let rc = unsafe { PMIx_Fence(std::ptr::null(), 0, collect.as_ptr(), 1) };
    check(rc, "fence")?;

    let cases = [
        (
            "job-level (wildcard, PMIX_JOB_SIZE)",
            wildcard,
            keys::JOB_SIZE,
        ),
        ("job-level (wildcard, PMIX_NSPACE)", wildcard, keys::NSPACE),
        ("own proc-level (PMIX_LOCAL_RANK)", me, keys::LOCAL_RANK),
        ("peer proc-level (PMIX_LOCAL_RANK)", peer, keys::LOCAL_RANK),
        ("peer proc-level (PMIX_HOSTNAME)", peer, keys::HOSTNAME),
        ("peer posted string", peer, POSTED_STR),
        ("peer posted uint32", peer, POSTED_U32),
        ("own posted string", me, POSTED_STR),
        ("own posted uint32", me, POSTED_U32),
    ]
    .map(|(what, proc_, key)| Case {
        what,
        proc_,
        key: cstr(key),
    });
    let pointer = [info_flag(keys::GET_POINTER_VALUES)];
    let optional = [info_flag(keys::OPTIONAL)];
    // Gets per batch, and batches (the best batch is reported: the
    // least disturbed by other load on the machine).
    let (n, batches) = if bench { (20_000u32, 50) } else { (1000, 1) };
    // Measured by rank 0 alone (the other waits in the last fence).
    let modes = if bench && me.rank != 0 {
        &[][..]
    } else {
        &[
            ("pointer", &pointer[..]),
            ("malloc", &optional[..]),
            ("malloc", &[][..]),
        ][..]
    };
    // PMIX_GET_BENCH=pointer (or malloc) measures that mode only.
    let only = std::env::var(BENCH).ok().filter(|m| m != "1");
    for &(mode, quals) in modes {
        if only.as_deref().is_some_and(|m| m != mode) {
            continue;
        }
        for c in &cases {
            let get = |out: &mut *mut pmix_value_t| -> i32 {
                // SAFETY: valid proc, key and infos; out is writable.
                unsafe { PMIx_Get(&c.proc_, c.key.as_ptr(), quals.as_ptr(), quals.len(), out) }
            };
            let mut first = std::ptr::null_mut();
            check(get(&mut first), c.what)?;
            if mode == "malloc" {
                release(first);
            }
            let before = allocs();
            let mut best = f64::INFINITY;
            for _ in 0..batches {
                let t = Instant::now();
                for _ in 0..n {
                    let mut out = std::ptr::null_mut();
                    let rc = get(&mut out);
                    if rc != 0 {
                        return Err(format!("{}: status {rc}", c.what));
                    }
                    if mode == "pointer" {
                        if out != first {
                            return Err(format!("{}: another pointer", c.what));
                        }
                    } else {
                        release(out);
                    }
                }
                best = best.min(t.elapsed().as_nanos() as f64 / f64::from(n));
            }
            let ns = best;
            let count = allocs() - before;
            if bench {
                println!(
                    "{mode:7} ninfo={} {:40} {ns:8.1} ns/get  ({} Rust allocs/get)",
                    quals.len(),
                    c.what,
                    count as f64 / f64::from(n * batches)
                );
            } else if count != 0 {
                return Err(format!(
                    "{mode} get of {} ({:?}): {count} allocations in {n} gets",
                    c.what,
                    // SAFETY: a NUL-terminated key.
                    unsafe { CStr::from_ptr(c.key.as_ptr()) }
                ));
            }
        }
    }
    if !bench {
        own_pointer_checks(&me)?;
        own_scalar_checks(&me)?;
        own_string_checks(&me)?;
    }
    // SAFETY: NULL procs (the namespace) and no infos.
    let rc = unsafe { PMIx_Fence(std::ptr::null(), 0, std::ptr::null(), 0) };
    check(rc, "fence")?;
    // SAFETY: no infos.
    check(unsafe { PMIx_Finalize(std::ptr::null(), 0) }, "finalize")
}

/// Pointer-values gets of this process's own puts: one pointer, no
/// allocation, while the key is unchanged; a new pointer with the new
/// value after a new put, the old one still holding the old value.
fn own_pointer_checks(me: &pmix_proc_t) -> Result<(), String> {
    let pointer = [info_flag(keys::GET_POINTER_VALUES)];
    let key = cstr("test.own.u32");
    let put = |x: u32| -> Result<(), String> {
        // SAFETY: an all-zero value is valid.
        let mut v: pmix_value_t = unsafe { std::mem::zeroed() };
        v.type_ = PMIX_UINT32;
        v.data.uint32 = x;
        // SAFETY: valid key and value (the library copies them).
        check(unsafe { PMIx_Put(3, key.as_ptr(), &mut v) }, "own put")
    };
    let get = || -> Result<*mut pmix_value_t, String> {
        let mut out = std::ptr::null_mut();
        // SAFETY: valid proc, key and infos; out is writable.
        let rc = unsafe { PMIx_Get(me, key.as_ptr(), pointer.as_ptr(), 1, &mut out) };
        check(rc, "own pointer get")?;
        Ok(out)
    };
    // SAFETY: pointer-values results stay valid until finalize.
    let read = |p: *mut pmix_value_t| unsafe { (*p).data.uint32 };
    put(1)?;
    let first = get()?;
    let before = allocs();
    for _ in 0..1000 {
        if get()? != first {
            return Err("own key: another pointer while unchanged".into());
        }
    }
    let count = allocs() - before;
    if count != 0 {
        return Err(format!("own key: {count} allocations in 1000 gets"));
    }
    put(2)?;
    let second = get()?;
    if second == first || read(second) != 2 || read(first) != 1 {
        return Err("own key: a new put did not give a new pointer".into());
    }
    if get()? != second {
        return Err("own key: another pointer after the new put".into());
    }
    Ok(())
}

/// Copy and static gets of this process's own scalar puts, served from
/// this thread's scalar cache after the first: each put's value, never an
/// older one, whichever mode read it before.
fn own_scalar_checks(me: &pmix_proc_t) -> Result<(), String> {
    let key = cstr("test.own.scalar");
    let statics = [info_flag(keys::GET_STATIC_VALUES)];
    for x in 1..=50u32 {
        // SAFETY: an all-zero value is valid.
        let mut v: pmix_value_t = unsafe { std::mem::zeroed() };
        v.type_ = PMIX_UINT32;
        v.data.uint32 = x;
        // SAFETY: valid key and value (the library copies them).
        check(unsafe { PMIx_Put(3, key.as_ptr(), &mut v) }, "own put")?;
        for _ in 0..3 {
            let mut out = std::ptr::null_mut();
            // SAFETY: valid proc and key; out is writable.
            let rc = unsafe { PMIx_Get(me, key.as_ptr(), std::ptr::null(), 0, &mut out) };
            check(rc, "own copy get")?;
            // SAFETY: a value the library allocated for us.
            let got = unsafe { ((*out).type_, (*out).data.uint32) };
            release(out);
            if got != (PMIX_UINT32, x) {
                return Err(format!("own copy get after put {x}: {got:?}"));
            }
            // SAFETY: an all-zero value is valid.
            let mut mine: pmix_value_t = unsafe { std::mem::zeroed() };
            let mut p: *mut pmix_value_t = &mut mine;
            // SAFETY: valid proc, key and infos; p points at our value.
            let rc = unsafe { PMIx_Get(me, key.as_ptr(), statics.as_ptr(), 1, &mut p) };
            check(rc, "own static get")?;
            // SAFETY: reading a union field of a value we own (any bits
            // are a valid u32).
            let got = unsafe { mine.data.uint32 };
            if (mine.type_, got) != (PMIX_UINT32, x) {
                return Err(format!("own static get after put {x}"));
            }
        }
    }
    Ok(())
}

/// Copy gets of this process's own string puts, short (read from the
/// inline slot without a pin) and long: each put's string, never an older
/// one.
fn own_string_checks(me: &pmix_proc_t) -> Result<(), String> {
    let key = cstr("test.own.string");
    for n in 1..=80usize {
        let want = cstr(&"xyz"[n % 3..n % 3 + 1].repeat(n));
        // SAFETY: an all-zero value is valid.
        let mut v: pmix_value_t = unsafe { std::mem::zeroed() };
        v.type_ = PMIX_STRING;
        v.data.string = want.as_ptr().cast_mut();
        // SAFETY: valid key and value (the library copies them).
        check(unsafe { PMIx_Put(3, key.as_ptr(), &mut v) }, "own put")?;
        for _ in 0..2 {
            let mut out = std::ptr::null_mut();
            // SAFETY: valid proc and key; out is writable.
            let rc = unsafe { PMIx_Get(me, key.as_ptr(), std::ptr::null(), 0, &mut out) };
            check(rc, "own string get")?;
            // SAFETY: a string value the library allocated for us.
            let got = unsafe { ((*out).type_, CStr::from_ptr((*out).data.string).to_owned()) };
            release(out);
            if got != (PMIX_STRING, want.clone()) {
                return Err(format!("own string get after put of {n} bytes: {got:?}"));
            }
        }
    }
    Ok(())
}

/// In a child: the client's part, then exit.
fn child() -> bool {
    if std::env::var_os(ROLE).is_none() {
        return false;
    }
    let code = match client_main() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("client: {e}");
            1
        }
    };
    std::process::exit(code);
}

/// After one warm-up get, gets of job-level, own and peer proc-level and
/// posted keys allocate nothing, with `PMIX_GET_POINTER_VALUES` and in
/// the default mode (apart from the caller's `malloc`ed result).
#[test]
fn get_hit_path_allocates_nothing() {
    if child() {
        return;
    }
    run_job(
        "api::get_hot_path_tests::get_hit_path_allocates_nothing",
        false,
    );
}

/// ns/get of the same gets (release build; see the module docs).
#[test]
#[ignore = "a measurement: run with --release --ignored --nocapture"]
fn get_latency() {
    if child() {
        return;
    }
    run_job("api::get_hot_path_tests::get_latency", true);
}
