//! Sequences of operations against a live server in this process.
//!
//! One [`Server`] (with [`NoHost`]: nothing reaches a real resource
//! manager, nothing is spawned) serves two namespaces: `good`, whose two
//! ranks are well-behaved [`Client`]s on worker threads, and a fuzz
//! namespace whose ranks the input drives over raw connections (up to
//! three per input), with the right secret or not: commits, fences,
//! direct-modex requests, publish/lookup, events, connect, groups, IOF,
//! aborts, finalize, requests of any operation with any body, frames of
//! any kind (server kinds too), descriptors attached, and garbage bytes.
//!
//! While the sequence runs, the two good ranks put, commit, fence over
//! both (collecting data or not, from the input) and each reads the
//! other's value of this round (from the modex segment, or by direct
//! modex through the server); they must succeed with the right value.
//! After the sequence, on every connection still open whose byte stream
//! is frame-aligned, a ping (an unknown operation) must be answered
//! (`PMIX_ERR_NOT_SUPPORTED`) or the connection closed by the server;
//! then the good round must have ended, the fuzz connections still open. Every wait is bounded: one
//! that runs out is a hang, reported as a panic naming what hung.
//!
//! Invariants: the server, its good clients and the fuzz namespace live
//! across inputs (one process-wide [`World`]); the fuzz namespace is
//! replaced every [`RENEW_EVERY`] inputs, and so are the good ranks (so
//! what fuzz ranks committed or published cannot grow without bound, nor
//! the good ranks' keys, one per round); each input uses fresh ranks
//! of it (rotating), so a rank's previous connection is long closed.
//!
//! Input layout: byte 0 holds flags (bits 0-1: connections - 1, at most
//! 3; bit 2: the good ranks' fence collects data; bit 3: no automatic
//! handshake, the input must send its own); then records
//! `[connection][what][len][len bytes]`, `what` being:
//!
//! | what | record |
//! |---|---|
//! | 0x00-0x3f | `what % 25`: 24 a handshake (claimed identity and secret from the bytes), else a structured operation (see [`structured`]) built from the bytes |
//! | 0x40-0x7f | a frame of kind number `what - 0x40` whose body is the bytes |
//! | 0x80-0x9f | a `Request`: bytes 0-1 the operation (little-endian), the rest its body |
//! | 0xa0-0xbf | a frame of kind `bytes[0]` with `(what & 3) + 1` descriptors, the rest its body |
//! | 0xc0-0xff | the bytes as they are (the stream is no longer frame-aligned) |
#![no_main]

use std::collections::HashMap;
use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use pmix::client::{Client, ConnectInfo, Scope};
use pmix::events::{encode_event, Event, Range};
use pmix::job::{AppContext, SingleNodeJob};
use pmix::server::{NoHost, Server, ServerConfig};
use pmix::wire::{
    self, group, iof, process_mgmt, pubsub, rm, Abort, Connection, DmodexRequest, FenceRequest,
    Frame, Handshake, Header, Kind, Message, Op, Posted, ReadState, Request,
};
use pmix::{keys, Info, Key, Nspace, Proc, Rank, Status, Value};

/// Longest any single wait may take before it counts as a hang.
const BOUND: Duration = Duration::from_secs(20);
/// Inputs between two renewals of the fuzz namespace.
const RENEW_EVERY: u64 = 1000;
/// Ranks of the fuzz namespace (inputs rotate through them).
const FUZZ_RANKS: u32 = 64;
/// The ping's operation: one no server knows.
const PING_OP: Op = Op(0x7fff);

/// A well-behaved rank: its worker thread takes rounds and reports.
struct Good {
    rounds: Sender<(u64, bool)>,
    results: Receiver<Result<(), String>>,
}

/// What lives across inputs.
struct World {
    server: Server,
    good: Vec<Good>,
    good_ns: Nspace,
    fuzz_ns: Nspace,
    generation: u64,
    inputs: u64,
    secrets: HashMap<Proc, (std::path::PathBuf, String)>,
}

fn key(s: &str) -> Key {
    Key::new(s).expect("key")
}

fn register(server: &Server, ns: &Nspace, size: u32) {
    let job = SingleNodeJob::new(ns, &server.config().hostname).app(AppContext::new(size));
    server
        .register_nspace(ns, size, &job.infos().expect("job infos"))
        .expect("register namespace");
    let (uid, gid) = pmix::net::my_ids();
    for r in 0..size {
        server
            .register_client(&Proc::new(ns.clone(), Rank(r)), uid, gid)
            .expect("register client");
    }
}

fn connect_info(server: &Server, proc: &Proc) -> ConnectInfo {
    let env: HashMap<String, String> = server
        .setup_fork(proc)
        .expect("setup_fork")
        .into_iter()
        .collect();
    ConnectInfo::from_lookup(|k| env.get(k).cloned()).expect("connect info")
}

/// One round of a good rank: put this round's number under this
/// round's key, commit, fence over both ranks, read the other's. (A key
/// of its own each round: a client keeps what a direct modex brought, and
/// does not honour `PMIX_GET_REFRESH_CACHE`, so a value re-put under the
/// same key would read stale without a collecting fence.)
fn good_round(c: &Client, other: &Proc, round: u64, collect: bool) -> Result<(), String> {
    let ctx = |what: &'static str| move |s: Status| format!("{what}: {s}");
    let k = format!("good.{}", round % RENEW_EVERY);
    c.put(Scope::Global, &k, Value::Uint64(round))
        .map_err(ctx("put"))?;
    c.commit().map_err(ctx("commit"))?;
    let timeout = Info::new(key(keys::TIMEOUT), Value::Int32(BOUND.as_secs() as i32));
    let mut infos = vec![timeout.clone()];
    if collect {
        infos.push(Info::new(key(keys::COLLECT_DATA), Value::Bool(true)));
    }
    let both = [
        Proc::new(other.nspace.clone(), Rank(0)),
        Proc::new(other.nspace.clone(), Rank(1)),
    ];
    c.fence(&both, &infos).map_err(ctx("fence"))?;
    let v = c.get(other, &k, &[timeout]).map_err(ctx("get"))?;
    if v != Value::Uint64(round) {
        return Err(format!("get of {k} in round {round}: got {v:?}"));
    }
    Ok(())
}

fn start_good(server: &Server, ns: &Nspace, me: u32) -> Good {
    let client = Client::connect(&connect_info(server, &Proc::new(ns.clone(), Rank(me))), &[])
        .expect("good client connects");
    let other = Proc::new(ns.clone(), Rank(1 - me));
    let (rounds, jobs) = channel::<(u64, bool)>();
    let (report, results) = channel();
    std::thread::Builder::new()
        .name(format!("good-{me}"))
        .spawn(move || {
            for (round, collect) in jobs {
                let r = good_round(&client, &other, round, collect);
                if report.send(r).is_err() {
                    break;
                }
            }
            let _ = client.finalize();
        })
        .expect("worker thread");
    Good { rounds, results }
}

impl World {
    fn new() -> World {
        let server = Server::start(ServerConfig::default(), std::sync::Arc::new(NoHost))
            .expect("server starts");
        let mut w = World {
            server,
            good: Vec::new(),
            good_ns: Nspace::new("unset").expect("nspace"),
            fuzz_ns: Nspace::new("unset").expect("nspace"),
            generation: 0,
            inputs: 0,
            secrets: HashMap::new(),
        };
        w.renew();
        w
    }

    /// Replaces both namespaces with fresh ones (the good ranks
    /// finalize and new ones connect).
    fn renew(&mut self) {
        self.good.clear();
        if self.generation > 0 {
            self.server.deregister_nspace(&self.fuzz_ns);
            self.server.deregister_nspace(&self.good_ns);
        }
        // What the server holds once the namespaces are gone: nothing of
        // theirs may outlive them (the handshake deadlines of closed
        // connections and the IOF outboxes are let go in their own time;
        // connections closed by their clients may not be read yet; the ids
        // of destructed groups are remembered, up to a bound).
        let census = self.server.census().expect("server running");
        let kept: Vec<_> = census
            .rows()
            .iter()
            .filter(|(name, n)| {
                *n > 0
                    && !name.starts_with("timers.handshakes")
                    && !name.starts_with("iof.")
                    && !name.starts_with("conns.peers")
                    && !name.starts_with("conns.held")
                    && *name != "groups.retired"
            })
            .collect();
        assert!(
            kept.is_empty(),
            "LEAK: after {} inputs the deregistered namespaces left {kept:?}",
            self.inputs
        );
        if std::env::var_os("SESSION_CENSUS").is_some() {
            let rss = std::fs::read_to_string("/proc/self/statm")
                .ok()
                .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
                .map_or(0, |pages| pages * 4);
            // SAFETY: mallinfo2 takes no arguments and only reads the
            // allocator's counters.
            let used = unsafe { libc::mallinfo2() }.uordblks / 1024;
            eprintln!(
                "census after {} inputs (rss {rss} KiB, malloc {used} KiB): {census}",
                self.inputs
            );
        }
        self.generation += 1;
        let (pid, g) = (std::process::id(), self.generation);
        self.fuzz_ns = Nspace::new(format!("fz.{pid}.{g}")).expect("nspace");
        self.good_ns = Nspace::new(format!("good.{pid}.{g}")).expect("nspace");
        register(&self.server, &self.fuzz_ns, FUZZ_RANKS);
        register(&self.server, &self.good_ns, 2);
        self.good = (0..2)
            .map(|r| start_good(&self.server, &self.good_ns, r))
            .collect();
        self.secrets.clear();
    }

    /// The socket and secret of `proc` (a fuzz rank).
    fn secret(&mut self, proc: &Proc) -> (std::path::PathBuf, String) {
        let server = &self.server;
        self.secrets
            .entry(proc.clone())
            .or_insert_with(|| {
                let i = connect_info(server, proc);
                (i.socket, i.secret)
            })
            .clone()
    }

    /// Starts a round of both good ranks (it runs while the input's
    /// operations do).
    fn start_round(&self, collect: bool) {
        for g in &self.good {
            g.rounds
                .send((self.inputs, collect))
                .expect("good worker alive");
        }
    }

    /// Waits for the round's end; panics on a hang or a failure.
    fn finish_round(&self, collect: bool) {
        let round = self.inputs;
        for (i, g) in self.good.iter().enumerate() {
            match g.results.recv_timeout(2 * BOUND) {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    panic!("good rank {i} failed in round {round} (collect {collect}): {e}")
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "HANG: good rank {i} did not finish round {round} within {:?}",
                        2 * BOUND
                    )
                }
                Err(RecvTimeoutError::Disconnected) => panic!("good rank {i}'s worker died"),
            }
        }
    }
}

/// Waits until `fd` is ready for `events` or `deadline` passes.
fn wait_fd(fd: i32, events: i16, deadline: Instant) -> bool {
    let left = deadline.saturating_duration_since(Instant::now());
    let mut p = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    // SAFETY: `p` is one valid pollfd on the stack for the call's length.
    let n = unsafe { libc::poll(&mut p, 1, left.as_millis().min(60_000) as i32) };
    n > 0
}

/// A raw connection the input drives.
struct Raw {
    conn: Connection,
    proc: Proc,
    /// Every byte written so far belongs to whole frames.
    aligned: bool,
    /// The server has not closed it (nor refused its stream).
    open: bool,
    next_id: u32,
    frames: Vec<Frame>,
}

impl Raw {
    fn open(socket: &std::path::Path, proc: Proc) -> Raw {
        let stream = pmix::net::Stream::connect(socket).expect("connect to the server");
        Raw {
            conn: Connection::new(
                stream,
                wire::DEFAULT_MAX_BODY,
                wire::frame::MAX_FDS_PER_FRAME,
                false,
            ),
            proc,
            aligned: true,
            open: true,
            next_id: 1,
            frames: Vec::new(),
        }
    }

    /// Reads what the server sent; every frame must decode.
    fn read(&mut self) {
        if !self.open {
            return;
        }
        let mut got = Vec::new();
        match self.conn.read_frames(&mut got) {
            Ok(ReadState::Open) => {}
            Ok(ReadState::Closed) | Err(wire::WireError::Io(_)) => self.open = false,
            Err(e) => panic!("the server sent a frame a client refuses: {e}"),
        }
        for f in &got {
            if let Err(e) = f.message() {
                panic!(
                    "the server sent an undecodable {}: {e}",
                    f.header.kind.name()
                );
            }
        }
        // Keep the replies (unsolicited frames have id 0), the latest
        // ones: a wait is for the latest request's.
        self.frames
            .extend(got.into_iter().filter(|f| f.header.id != 0));
        if self.frames.len() > 1024 {
            self.frames.drain(..512);
        }
    }

    /// Writes everything queued (reading meanwhile), within the bound.
    fn flush(&mut self) {
        let deadline = Instant::now() + BOUND;
        while self.open {
            match self.conn.flush() {
                Ok(true) => return,
                Ok(false) => {}
                Err(_) => {
                    self.open = false;
                    return;
                }
            }
            let fd = self.conn.stream().as_raw_fd();
            if !wait_fd(fd, libc::POLLOUT | libc::POLLIN, deadline) {
                panic!(
                    "HANG: the server read nothing of fuzz rank {} for {BOUND:?}",
                    self.proc.rank.0
                );
            }
            self.read();
        }
    }

    fn id(&mut self) -> u32 {
        self.next_id = self.next_id.wrapping_add(1).max(1);
        self.next_id
    }

    fn send(&mut self, m: &Message) -> u32 {
        let id = self.id();
        let fds = (0..m.fd_count()).map(|_| devnull()).collect();
        if self.open && self.conn.send(id, m, fds).is_err() {
            self.open = false;
        }
        self.flush();
        id
    }

    /// A frame of kind `kind` (any) with `body` and `fds`.
    fn frame(&mut self, kind: Kind, body: &[u8], fds: Vec<OwnedFd>) {
        let id = self.id();
        let h = Header {
            kind,
            nfds: fds.len() as u8,
            id,
            len: body.len() as u32,
        };
        let mut bytes = h.encode().to_vec();
        bytes.extend_from_slice(body);
        self.raw(bytes, fds);
    }

    fn raw(&mut self, bytes: Vec<u8>, fds: Vec<OwnedFd>) {
        if self.open && self.conn.send_raw(bytes, fds).is_err() {
            self.open = false;
        }
        self.flush();
    }

    /// Waits for the reply to request `id` (or the server closing the
    /// connection); panics past the bound.
    fn await_reply(&mut self, id: u32, what: &str) -> Option<Message> {
        let deadline = Instant::now() + BOUND;
        loop {
            if let Some(i) = self.frames.iter().position(|f| f.header.id == id) {
                let f = self.frames.remove(i);
                return f.message().ok();
            }
            if !self.open {
                return None;
            }
            let fd = self.conn.stream().as_raw_fd();
            if !wait_fd(fd, libc::POLLIN, deadline) && Instant::now() >= deadline {
                panic!(
                    "HANG: no answer to {what} on fuzz rank {}'s connection within {BOUND:?}",
                    self.proc.rank.0
                );
            }
            self.read();
        }
    }

    fn handshake(&mut self, secret: &[u8]) {
        let id = self.send(&Message::Handshake(Handshake {
            version: u32::from(wire::PROTOCOL_VERSION),
            proc: self.proc.clone(),
            secret: secret.to_vec(),
        }));
        self.await_reply(id, "a handshake");
    }

    /// The liveness check: an unknown operation is answered, or the
    /// connection was closed.
    fn ping(&mut self) {
        if !self.open || !self.aligned {
            return;
        }
        let id = self.send(&Message::Request(Request {
            op: PING_OP,
            body: Vec::new(),
        }));
        match self.await_reply(id, "a ping") {
            None => {}
            Some(Message::Response(r)) => assert_eq!(
                r.status,
                Status::ERR_NOT_SUPPORTED,
                "an unknown operation was answered with {}",
                r.status
            ),
            Some(m) => panic!("a ping was answered with {:?}", m.kind()),
        }
    }
}

fn devnull() -> OwnedFd {
    File::open("/dev/null").expect("/dev/null").into()
}

/// Reads input bytes as parameters.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    fn take(&mut self, n: usize) -> &[u8] {
        let (a, b) = self.0.split_at(n.min(self.0.len()));
        self.0 = b;
        a
    }
}

/// The processes an input can name.
fn procs_table(w: &World) -> Vec<Proc> {
    let g = |r| Proc::new(w.good_ns.clone(), r);
    let f = |r| Proc::new(w.fuzz_ns.clone(), r);
    vec![
        g(Rank(0)),
        g(Rank(1)),
        g(Rank::WILDCARD),
        f(Rank(0)),
        f(Rank(1)),
        f(Rank(2)),
        f(Rank::WILDCARD),
        f(Rank::LOCAL_PEERS),
        f(Rank(FUZZ_RANKS + 5)),
        Proc::new(Nspace::new("nowhere").expect("nspace"), Rank(0)),
    ]
}

const KEYS: [&str; 6] = ["fz.a", "fz.b", "good.round", "pmix.hname", "pmix.rank", "x"];

fn pick_procs(w: &World, mask: u8, extra: u8) -> Vec<Proc> {
    let t = procs_table(w);
    let mut v: Vec<Proc> = (0..8)
        .filter(|i| mask & (1 << i) != 0)
        .map(|i| t[i].clone())
        .collect();
    if extra & 1 != 0 {
        v.push(t[8 + usize::from(extra >> 7)].clone());
    }
    v
}

fn value(b: &mut Bytes) -> Value {
    match b.u8() % 5 {
        0 => Value::Uint64(u64::from(b.u8())),
        1 => Value::Bool(b.u8() & 1 == 1),
        2 => {
            let n = usize::from(b.u8() % 32);
            Value::ByteObject(b.take(n).to_vec())
        }
        3 => Value::string(&String::from_utf8_lossy(b.take(8)).replace('\0', "")),
        _ => Value::Int32(i32::from(b.u8() as i8)),
    }
}

fn infos(b: &mut Bytes) -> Vec<Info> {
    let flags = b.u8();
    let mut v = Vec::new();
    if flags & 1 != 0 {
        v.push(Info::new(key(keys::COLLECT_DATA), Value::Bool(true)));
    }
    if flags & 2 != 0 {
        // Short timeouts: a fuzz collective that never completes ends.
        v.push(Info::new(
            key(keys::TIMEOUT),
            Value::Int32(i32::from(flags >> 6)),
        ));
    }
    if flags & 4 != 0 {
        v.push(Info::new(key(keys::WAIT), Value::Int32(0)));
    }
    if flags & 8 != 0 {
        let k = KEYS[usize::from(b.u8()) % KEYS.len()];
        v.push(Info::new(key(k), value(b)));
    }
    v
}

fn request(op: Op, body: Result<Vec<u8>, impl std::fmt::Debug>) -> Option<Message> {
    body.ok().map(|body| Message::Request(Request { op, body }))
}

/// The structured operation `sel`, its parameters from `b`.
fn structured(w: &World, raw: &Raw, sel: u8, b: &mut Bytes) -> Option<Message> {
    let me = raw.proc.clone();
    let ps = |b: &mut Bytes| {
        let (m, e) = (b.u8(), b.u8());
        pick_procs(w, m, e)
    };
    let group_id = |b: &mut Bytes| format!("grp{}", b.u8() % 4);
    Some(match sel % 24 {
        0 => Message::Commit(
            (0..b.u8() % 4)
                .map(|_| Posted {
                    scope: [Scope::Local, Scope::Remote, Scope::Global][usize::from(b.u8() % 3)],
                    key: key(KEYS[usize::from(b.u8()) % KEYS.len()]),
                    value: value(b),
                })
                .collect(),
        ),
        1 => Message::FenceRequest(FenceRequest {
            procs: ps(b),
            infos: infos(b),
        }),
        2 => Message::DmodexRequest(DmodexRequest {
            proc: procs_table(w)[usize::from(b.u8()) % 10].clone(),
            key: Some(key(KEYS[usize::from(b.u8()) % KEYS.len()])),
            infos: infos(b),
        }),
        3 => {
            let k = KEYS[usize::from(b.u8()) % KEYS.len()];
            let mut i = infos(b);
            i.push(Info::new(key(k), value(b)));
            request(Op::PUBLISH, pubsub::encode_publish(&i))?
        }
        4 => {
            let k = key(KEYS[usize::from(b.u8()) % KEYS.len()]);
            request(Op::LOOKUP, pubsub::encode_lookup(&[k], &infos(b)))?
        }
        5 => {
            let k = key(KEYS[usize::from(b.u8()) % KEYS.len()]);
            let all = b.u8() & 1 == 0;
            let ks = [k];
            let keys_opt = if all { None } else { Some(&ks[..]) };
            request(Op::UNPUBLISH, pubsub::encode_unpublish(keys_opt, &infos(b)))?
        }
        6 => {
            let e = Event {
                status: Status(-(i32::from(b.u8())) - 1),
                source: me,
                range: Range(b.u8() % 10),
                infos: infos(b),
            };
            request(Op::NOTIFY_EVENT, encode_event(&e))?
        }
        7 => request(
            Op::CONNECT,
            process_mgmt::encode_collective(&ps(b), &infos(b)),
        )?,
        8 => request(
            Op::DISCONNECT,
            process_mgmt::encode_collective(&ps(b), &infos(b)),
        )?,
        9 => {
            let id = group_id(b);
            request(
                Op::GROUP_CONSTRUCT,
                group::encode_construct(&id, &ps(b), &infos(b)),
            )?
        }
        10 => {
            let id = group_id(b);
            request(
                Op::GROUP_INVITE,
                group::encode_construct(&id, &ps(b), &infos(b)),
            )?
        }
        11 => {
            let id = group_id(b);
            request(Op::GROUP_DESTRUCT, group::encode_id(&id, &infos(b)))?
        }
        12 => {
            let id = group_id(b);
            request(Op::GROUP_LEAVE, group::encode_id(&id, &infos(b)))?
        }
        13 => {
            let p = iof::Pull {
                id: u64::from(b.u8()),
                sources: ps(b),
                channels: 1 << (b.u8() % 4),
                directives: infos(b),
            };
            request(Op::IOF_PULL, p.encode())?
        }
        14 => {
            let n = usize::from(b.u8() % 64);
            let p = iof::Push {
                targets: ps(b),
                directives: infos(b),
                data: Some(b.take(n).to_vec()),
            };
            request(Op::IOF_PUSH, p.encode())?
        }
        15 => {
            let d = iof::Deregister {
                id: u64::from(b.u8()),
                directives: infos(b),
            };
            request(Op::IOF_DEREGISTER, d.encode())?
        }
        16 => {
            let q = pmix::value::Query {
                keys: vec![std::ffi::CString::new(
                    [
                        "pmix.qry.nspaces",
                        "pmix.qry.psets",
                        "pmix.qry.ns.info",
                        "pmix.qry.proctable",
                    ][usize::from(b.u8() % 4)],
                )
                .expect("no NUL")],
                qualifiers: infos(b),
            };
            let mut body = Vec::new();
            rm::put_queries(&mut body, &[q]).ok()?;
            Message::Request(Request {
                op: Op::QUERY,
                body,
            })
        }
        17 => request(Op::LOG, rm::put_two_lists(&infos(b), &infos(b)))?,
        18 => Message::Abort(Abort {
            status: Status(-(i32::from(b.u8()))),
            message: None,
            procs: ps(b),
        }),
        19 => Message::Finalize,
        20 => Message::NspaceRequest(procs_table(w)[usize::from(b.u8()) % 10].nspace.clone()),
        21 => request(Op::JOB_CONTROL, rm::put_job_control(&ps(b), &infos(b)))?,
        22 => request(Op::GET_CREDENTIAL, rm::put_list(&infos(b)))?,
        _ => request(Op::ALLOCATE, rm::put_allocate(b.u8() % 5, &infos(b)))?,
    })
}

/// The world of this process, made by the first input.
static WORLD: Mutex<Option<World>> = Mutex::new(None);

/// At exit (libFuzzer ends a timed run with `exit`), the server stops
/// and removes its rendezvous directory, which statics never would.
extern "C" fn tear_down() {
    if let Ok(mut g) = WORLD.try_lock() {
        if let Some(w) = g.take() {
            drop(w.good);
            w.server.finalize();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut guard = WORLD.lock().unwrap_or_else(|e| e.into_inner());
    let w = guard.get_or_insert_with(|| {
        // SAFETY: registers a function of this program with no
        // arguments; `atexit` only records the pointer.
        unsafe { libc::atexit(tear_down) };
        World::new()
    });
    w.inputs += 1;
    if w.inputs % RENEW_EVERY == 0 {
        w.renew();
    }
    let mut b = Bytes(data);
    let flags = b.u8();
    let nconn = usize::from(flags & 3).min(2) + 1;
    let collect = flags & 4 != 0;
    let auto_handshake = flags & 8 == 0;

    // Fresh ranks each input: the previous ones' connections are closed.
    let base = (w.inputs * 3) as u32 % FUZZ_RANKS;
    let mut conns: Vec<Raw> = (0..nconn)
        .map(|i| {
            let proc = Proc::new(w.fuzz_ns.clone(), Rank((base + i as u32) % FUZZ_RANKS));
            let (socket, secret) = w.secret(&proc);
            let mut r = Raw::open(&socket, proc);
            if auto_handshake {
                r.handshake(secret.as_bytes());
            }
            r
        })
        .collect();

    w.start_round(collect);
    while !b.0.is_empty() {
        let c = usize::from(b.u8()) % nconn;
        let what = b.u8();
        let len = usize::from(b.u8());
        let mut p = Bytes(b.take(len));
        let raw = &conns[c];
        match what {
            0x00..=0x3f => {
                if what % 25 == 24 {
                    // A handshake of this input's own: right secret, a
                    // wrong one, or another rank's.
                    let proc = procs_table(w)[usize::from(p.u8()) % 10].clone();
                    let secret = match p.u8() % 3 {
                        0 if proc.nspace == w.fuzz_ns && proc.rank.0 < FUZZ_RANKS => {
                            w.secret(&proc).1.into_bytes()
                        }
                        1 => w.secret(&conns[c].proc.clone()).1.into_bytes(),
                        _ => p.take(32).to_vec(),
                    };
                    let raw = &mut conns[c];
                    let id = raw.send(&Message::Handshake(Handshake {
                        version: u32::from(wire::PROTOCOL_VERSION),
                        proc,
                        secret,
                    }));
                    raw.await_reply(id, "a handshake of the input");
                } else if let Some(m) = structured(w, raw, what, &mut p) {
                    conns[c].send(&m);
                }
            }
            0x40..=0x7f => {
                if let Some(kind) = Kind::from_u16(u16::from(what - 0x40)) {
                    conns[c].frame(kind, p.0, Vec::new());
                }
            }
            0x80..=0x9f => {
                let op = Op(u16::from_le_bytes([p.u8(), p.u8()]));
                conns[c].send(&Message::Request(Request {
                    op,
                    body: p.0.to_vec(),
                }));
            }
            0xa0..=0xbf => {
                let kind = Kind::from_u16(u16::from(p.u8() % 40)).unwrap_or(Kind::Commit);
                let fds = (0..=(what & 3)).map(|_| devnull()).collect();
                conns[c].frame(kind, p.0, fds);
            }
            _ => {
                conns[c].aligned = false;
                conns[c].raw(p.0.to_vec(), Vec::new());
            }
        }
        conns[c].read();
    }
    for r in &mut conns {
        r.ping();
    }
    w.finish_round(collect);
    drop(conns);
});
