//! Our client on an OpenPMIx server (issue 24): when the environment names
//! a stock server (a `tcp4://`/`tcp6://` URI in `PMIX_SERVER_URI41` and its
//! siblings, no `PMIX_RS_SERVER_URI`), init connects over TCP as a `v41`
//! (or the variable's module) / `hash` client, asks for its job data
//! (`PMIX_REQ_CMD`) and turns the reply into a job segment of ours, built
//! here and mapped as a segment from our own server is: gets of job,
//! node, app and process keys then take the same lock-free path.
//!
//! After init a bridge thread links the client's ordinary connection (one
//! end of a socket pair, our protocol) to the TCP connection (OpenPMIx's
//! protocol): it turns each request into the stock command and each stock
//! reply into the answer the client waits for.
//!
//! | ours | stock |
//! |---|---|
//! | `Finalize` | `PMIX_FINALIZE_CMD` → status |
//! | `Commit` | `PMIX_COMMIT_CMD` (scope + buffer of kvals, local then remote) → status, dropped |
//! | `FenceRequest` | `PMIX_FENCENB_CMD` → status (the data stays on the server) |
//! | `DmodexRequest` | `PMIX_GETNB_CMD` → status + byte objects of proc and kvals |
//! | `Abort` | `PMIX_ABORT_CMD` → status |
//! | `Request` of `Op::NOTIFY_EVENT` | `PMIX_NOTIFY_CMD` → status |
//! | (at start) | `PMIX_REGEVENTS_CMD` for every code, reply dropped |
//! | tag 0 from the server | an `Event` to the client |
//! | anything else | answered `PMIX_ERR_NOT_SUPPORTED` here |
//!
//! A fence without procs names this process's namespace (a stock server
//! refuses an empty list).
//!
//! Invariants: every wait is bounded — init's exchanges by [`INIT_BOUND`]
//! (or `PMIX_TIMEOUT`), later ones by the client's own machinery, which
//! fails every pending call with `PMIX_ERR_LOST_CONNECTION` when the bridge
//! closes its end; the bridge closes it as soon as the server closes, or
//! sends a frame that does not parse. Events are carried but not yet
//! seen to arrive end to end (see docs/FEATURES.md).

use std::collections::HashMap;
use std::ffi::CString;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

use crate::codec::{Buffer, CodecError, Format, NestedBuffer};
use crate::events::Range;
use crate::job::JobDescription;
use crate::openpmix::header::{Frame, Order, DEFAULT_MAX_MESSAGE, TAG_DYNAMIC, TAG_NOTIFY};
use crate::openpmix::{ClientReply, Command, ConnectMessage, FrameReader, PeerFormat, Rendezvous};
use crate::value::Kval;
use crate::wire::{
    self, Connection, DmodexReply, FenceRelease, Message, NspaceReply, Op, Posted, Response,
    SegmentKind, SegmentRef,
};
use pmix_shmem::Scope;

use crate::{keys, DataType, Info, Key, Nspace, Proc, Status, Value};

use super::progress::{Progress, Requester};

/// How long init waits for the server (connect, handshake, job data)
/// unless `PMIX_TIMEOUT` says otherwise.
pub const INIT_BOUND: Duration = Duration::from_secs(10);

/// The OpenPMIx release our client announces: the 4.2.2 layout our C
/// library keeps.
const ANNOUNCED_VERSION: &str = "4.2.2";

/// Whether `get` names an OpenPMIx server rather than one of ours: no
/// `PMIX_RS_SERVER_URI`, and a TCP address in the first URI variable.
pub fn names_stock_server(get: impl Fn(&str) -> Option<String>) -> bool {
    if get(crate::server::OWN_URI_ENV).is_some() {
        return false;
    }
    crate::openpmix::uri::SERVER_URI_VARS
        .iter()
        .find_map(|v| get(v))
        .is_some_and(|u| u.contains(";tcp4://") || u.contains(";tcp6://"))
}

/// A stock server's link, ready for [`super::Client`]'s assembly.
pub struct Linked {
    pub progress: (Progress, Requester),
    pub me: Proc,
    pub server: Proc,
    pub segments: Vec<SegmentRef>,
    pub fds: Vec<OwnedFd>,
}

/// Connects to the server `get` names, fetches the job data and starts
/// the bridge.
pub fn connect(get: impl Fn(&str) -> Option<String>, bound: Duration) -> Result<Linked, Status> {
    let rv = Rendezvous::from_env(&get)
        .map_err(Status::from)?
        .ok_or(Status::ERR_UNREACH)?;
    let me = rv.proc.clone().ok_or(Status::ERR_BAD_PARAM)?;
    let format = PeerFormat {
        module: rv.module,
        buffer_type: rv.buffer_type,
    };
    let fmt = format.codec();
    let deadline = Instant::now() + bound;
    let mut tcp =
        TcpStream::connect_timeout(&rv.uri.addr, bound).map_err(|_| Status::ERR_UNREACH)?;
    let _ = tcp.set_nodelay(true);

    // Handshake: our connect message, then status and index.
    let (uid, gid) = crate::sys::my_ids();
    let mut hello = ConnectMessage::client(me.clone(), uid, gid, ANNOUNCED_VERSION, format);
    hello.psec = rv.psec.to_owned();
    if hello.psec != "native" {
        hello.credential = Vec::new();
    }
    let bytes = hello.encode().map_err(Status::from)?;
    write_by(&mut tcp, &bytes, deadline)?;
    let mut got = Vec::new();
    let reply = loop {
        match ClientReply::parse(&got).map_err(Status::from)? {
            Some((r, _)) => break r,
            None => read_some(&mut tcp, &mut got, deadline)?,
        }
    };
    let pindex = reply.pindex as i32;

    // Init: the job data.
    let mut req = Buffer::new();
    fmt.pack_value(&mut req, &Value::Command(Command::Req.into()))
        .map_err(|e| e.status())?;
    let frame = Frame::message(pindex, TAG_DYNAMIC, req.into_bytes());
    write_by(&mut tcp, &frame.encode(Order::Network), deadline)?;
    let mut reader = FrameReader::new(DEFAULT_MAX_MESSAGE);
    let payload = loop {
        if let Some(f) = reader.next_frame() {
            if f.header.tag == TAG_DYNAMIC {
                break f.payload;
            }
            continue;
        }
        let mut chunk = Vec::new();
        read_some(&mut tcp, &mut chunk, deadline)?;
        reader.push(&chunk).map_err(Status::from)?;
    };
    let hostname =
        get(crate::openpmix::uri::ENV_HOSTNAME).unwrap_or_else(crate::server::local_hostname);
    let job = job_from_reply(fmt, &me.nspace, &payload, &hostname)?;
    let sealed = job
        .build_segment()?
        .seal()
        .map_err(|_| Status::ERR_OUT_OF_RESOURCE)?;

    // The bridge.
    let (ours, theirs) = crate::net::Stream::pair().map_err(|_| Status::ERR_INIT)?;
    let conn = Connection::new(
        ours,
        wire::DEFAULT_MAX_BODY,
        wire::frame::MAX_FDS_PER_FRAME,
        false,
    );
    let progress = Progress::new(conn).map_err(|_| Status::ERR_INIT)?;
    tcp.set_nonblocking(true).map_err(|_| Status::ERR_INIT)?;
    let bridge = Bridge {
        me: me.clone(),
        fmt,
        pindex,
        ours: Connection::new(theirs, wire::DEFAULT_MAX_BODY, 0, true),
        tcp: mio::net::TcpStream::from_std(tcp),
        reader,
        out: Vec::new(),
        next_tag: TAG_DYNAMIC + 1,
        pending: HashMap::new(),
    };
    std::thread::Builder::new()
        .name("pmix-stock-link".into())
        .spawn(move || bridge.run())
        .map_err(|_| Status::ERR_INIT)?;
    Ok(Linked {
        progress,
        me: me.clone(),
        server: rv.uri.server,
        segments: vec![SegmentRef {
            nspace: me.nspace,
            kind: SegmentKind::Job,
            generation: 1,
        }],
        fds: vec![sealed.into_fd()],
    })
}

fn left(deadline: Instant) -> Result<Duration, Status> {
    deadline
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
        .ok_or(Status::ERR_TIMEOUT)
}

fn write_by(tcp: &mut TcpStream, bytes: &[u8], deadline: Instant) -> Result<(), Status> {
    tcp.set_write_timeout(Some(left(deadline)?))
        .map_err(|_| Status::ERR_UNREACH)?;
    tcp.write_all(bytes).map_err(|e| io_status(&e))
}

/// Reads what arrives next (at least one byte) before `deadline`.
fn read_some(tcp: &mut TcpStream, into: &mut Vec<u8>, deadline: Instant) -> Result<(), Status> {
    let mut chunk = [0u8; 16 * 1024];
    loop {
        tcp.set_read_timeout(Some(left(deadline)?))
            .map_err(|_| Status::ERR_UNREACH)?;
        match tcp.read(&mut chunk) {
            Ok(0) => return Err(Status::ERR_LOST_CONNECTION),
            Ok(n) => {
                into.extend_from_slice(&chunk[..n]);
                return Ok(());
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_status(&e)),
        }
    }
}

fn io_status(e: &io::Error) -> Status {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Status::ERR_TIMEOUT,
        _ => Status::ERR_LOST_CONNECTION,
    }
}

fn key(name: &str) -> Key {
    Key::new(name).expect("reserved key names fit a pmix_key_t")
}

/// A kval's key and value.
fn kval_parts(v: Value) -> Result<(Key, Value), Status> {
    let Value::Kval(kv) = v else {
        return Err(Status::ERR_UNPACK_FAILURE);
    };
    let k = kv.key.ok_or(Status::ERR_UNPACK_FAILURE)?;
    let k = Key::new(k.as_bytes()).map_err(|_| Status::ERR_UNPACK_FAILURE)?;
    let v = kv.value.map(|b| *b).unwrap_or(Value::Undef);
    Ok((k, v))
}

/// Every kval left in `b`.
fn kvals(fmt: Format, b: &mut Buffer) -> Result<Vec<(Key, Value)>, Status> {
    let mut out = Vec::new();
    while b.remaining() > 0 {
        let v = fmt
            .unpack_value(b, DataType::Kval)
            .map_err(|e: CodecError| e.status())?;
        out.push(kval_parts(v)?);
    }
    Ok(out)
}

/// The registration infos an init reply holds (see
/// [`crate::openpmix::job_info`] for its layout): job pairs as they are,
/// each `PMIX_PROC_BLOB` as a `PMIX_PROC_DATA` array led by `PMIX_RANK`.
pub fn registration_infos(
    fmt: Format,
    nspace: &Nspace,
    payload: &[u8],
) -> Result<Vec<Info>, Status> {
    let mut b = Buffer::from_bytes(payload.to_vec());
    let ns = match fmt.unpack_value(&mut b, DataType::String) {
        Ok(Value::String(Some(s))) => s,
        _ => return Err(Status::ERR_UNPACK_FAILURE),
    };
    if ns.as_bytes() != nspace.as_c_str().to_bytes() {
        return Err(Status::ERR_UNPACK_FAILURE);
    }
    let mut infos = Vec::new();
    for (k, v) in kvals(fmt, &mut b)? {
        if k.as_bytes() != keys::PROC_BLOB.as_bytes() {
            infos.push(Info::new(k, v));
            continue;
        }
        let Value::ByteObject(blob) = v else {
            return Err(Status::ERR_UNPACK_FAILURE);
        };
        let mut inner = Buffer::from_bytes(blob);
        let rank = match fmt.unpack_value(&mut inner, DataType::ProcRank) {
            Ok(Value::ProcRank(r)) => r,
            _ => return Err(Status::ERR_UNPACK_FAILURE),
        };
        let mut items = vec![Info::new(key(keys::RANK), Value::ProcRank(rank))];
        items.extend(
            kvals(fmt, &mut inner)?
                .into_iter()
                .map(|(k, v)| Info::new(k, v)),
        );
        infos.push(Info::new(key(keys::PROC_DATA), Value::info_array(items)));
    }
    Ok(infos)
}

fn job_from_reply(
    fmt: Format,
    nspace: &Nspace,
    payload: &[u8],
    hostname: &str,
) -> Result<JobDescription, Status> {
    let infos = registration_infos(fmt, nspace, payload)?;
    let local = local_count(&infos, hostname);
    JobDescription::from_registration(nspace, local, &infos, hostname)
}

/// How many of the job's processes run on `hostname`: its node array's
/// `PMIX_LOCAL_SIZE` (or the job's), else the ranks whose process data
/// names the host, at least one (this process).
fn local_count(infos: &[Info], hostname: &str) -> u32 {
    let is = |i: &Info, k: &str| i.key.as_bytes() == k.as_bytes();
    let names_host = |items: &[Info]| {
        items.iter().any(|i| {
            is(i, keys::HOSTNAME)
                && matches!(&i.value, Value::String(Some(h)) if h.as_bytes() == hostname.as_bytes())
        })
    };
    let size_in = |items: &[Info]| {
        items
            .iter()
            .find(|i| is(i, keys::LOCAL_SIZE))
            .and_then(|i| i.value.as_u32())
    };
    let arrays = |k: &'static str| {
        infos
            .iter()
            .filter(move |i| is(i, k))
            .filter_map(|i| i.value.infos())
    };
    if let Some(n) = arrays(keys::NODE_INFO_ARRAY)
        .find(|a| names_host(a))
        .and_then(|a| size_in(&a))
        .or_else(|| size_in(infos))
    {
        return n.max(1);
    }
    let here = arrays(keys::PROC_DATA).filter(|a| names_host(a)).count();
    u32::try_from(here).unwrap_or(u32::MAX).max(1)
}

/// What the client waits for on a stock request.
enum Waiting {
    /// Nothing (a commit).
    Nothing,
    Finalize(u32),
    Fence(u32),
    Get(u32),
    Abort(u32),
    /// A service request's response (status, no body).
    Response(u32),
}

struct Bridge {
    me: Proc,
    fmt: Format,
    pindex: i32,
    /// The client's connection, seen from the server's side.
    ours: Connection,
    tcp: mio::net::TcpStream,
    reader: FrameReader,
    /// Bytes for the server not written yet.
    out: Vec<u8>,
    next_tag: u32,
    pending: HashMap<u32, Waiting>,
}

/// The bridge's end: either side closed, or sent what does not parse;
/// the bridge then drops both connections.
struct Closed;

fn closed<E>(_: E) -> Closed {
    Closed
}

const OURS: mio::Token = mio::Token(0);
const TCP: mio::Token = mio::Token(1);

impl Bridge {
    fn run(mut self) {
        let _ = self.serve();
        // Dropping `self` closes both ends: the client's pending and later
        // calls fail with a lost connection.
    }

    fn serve(&mut self) -> Result<(), Closed> {
        let mut poll = mio::Poll::new().map_err(closed)?;
        let rw = mio::Interest::READABLE | mio::Interest::WRITABLE;
        poll.registry()
            .register(self.ours.stream_mut(), OURS, rw)
            .map_err(closed)?;
        poll.registry()
            .register(&mut self.tcp, TCP, rw)
            .map_err(closed)?;
        let mut events = mio::Events::with_capacity(8);
        self.register_for_events()?;
        // Frames of the init reply's read may already hold more.
        self.server_frames()?;
        loop {
            match poll.poll(&mut events, None) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return Err(Closed),
            }
            for ev in events.iter() {
                if ev.token() == OURS && (ev.is_readable() || ev.is_read_closed()) {
                    self.client_frames()?;
                }
                if ev.token() == TCP && (ev.is_readable() || ev.is_read_closed()) {
                    match self.reader.read_from(&mut self.tcp) {
                        Ok(crate::openpmix::header::ReadState::Open) => {}
                        _ => {
                            let _ = self.server_frames();
                            return Err(Closed);
                        }
                    }
                    self.server_frames()?;
                }
            }
            self.flush_tcp()?;
            self.ours.flush().map_err(closed)?;
        }
    }

    fn flush_tcp(&mut self) -> Result<(), Closed> {
        while !self.out.is_empty() {
            match self.tcp.write(&self.out) {
                Ok(0) => return Err(Closed),
                Ok(n) => {
                    self.out.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Err(Closed),
            }
        }
        Ok(())
    }

    fn client_frames(&mut self) -> Result<(), Closed> {
        let mut frames = Vec::new();
        let state = self.ours.read_frames(&mut frames);
        for f in frames {
            let Ok(msg) = f.message() else {
                return Err(Closed);
            };
            self.request(f.header.id, msg)?;
        }
        match state {
            Ok(wire::ReadState::Open) => Ok(()),
            _ => Err(Closed),
        }
    }

    /// Sends the stock form of the client's request `msg` (id `id`), or
    /// answers it here.
    fn request(&mut self, id: u32, msg: Message) -> Result<(), Closed> {
        let fmt = self.fmt;
        let packed = match msg {
            Message::Finalize => self
                .command(Command::Finalize, |_| Ok(()))
                .map(|b| (b, Waiting::Finalize(id))),
            Message::Commit(posted) => self
                .command(Command::Commit, |b| pack_commit(fmt, b, &posted))
                .map(|b| (b, Waiting::Nothing)),
            Message::FenceRequest(r) => self
                .command(Command::FenceNb, |b| {
                    // No procs: this process's whole namespace, named (a
                    // stock server refuses an empty list).
                    let all = [Proc::new(self.me.nspace.clone(), crate::Rank::WILDCARD)];
                    let procs = if r.procs.is_empty() {
                        &all[..]
                    } else {
                        &r.procs[..]
                    };
                    fmt.pack_value(b, &Value::Size(procs.len()))?;
                    let procs: Vec<Value> = procs.iter().cloned().map(Value::Proc).collect();
                    fmt.pack(b, DataType::Proc, &procs)?;
                    pack_infos(fmt, b, &r.infos)
                })
                .map(|b| (b, Waiting::Fence(id))),
            Message::DmodexRequest(r) => self
                .command(Command::GetNb, |b| {
                    let ns = CString::new(r.proc.nspace.as_c_str().to_bytes()).ok();
                    fmt.pack_value(b, &Value::String(ns))?;
                    fmt.pack_value(b, &Value::ProcRank(r.proc.rank.0))?;
                    pack_infos(fmt, b, &r.infos)?;
                    let k = r.key.as_ref().and_then(|k| CString::new(k.as_bytes()).ok());
                    fmt.pack_value(b, &Value::String(k))
                })
                .map(|b| (b, Waiting::Get(id))),
            Message::Abort(a) => self
                .command(Command::Abort, |b| {
                    fmt.pack_value(b, &Value::Status(a.status.0))?;
                    fmt.pack_value(b, &Value::String(a.message.clone()))?;
                    fmt.pack_value(b, &Value::Size(a.procs.len()))?;
                    let procs: Vec<Value> = a.procs.iter().cloned().map(Value::Proc).collect();
                    fmt.pack(b, DataType::Proc, &procs)
                })
                .map(|b| (b, Waiting::Abort(id))),
            Message::Request(r) if r.op == Op::NOTIFY_EVENT => {
                let Ok(ev) = crate::events::decode_event(&r.body) else {
                    let bad = Response {
                        status: Status::ERR_BAD_PARAM,
                        body: vec![],
                    };
                    return self.answer(id, &Message::Response(bad));
                };
                self.command(Command::Notify, |b| {
                    fmt.pack_value(b, &Value::Status(ev.status.0))?;
                    fmt.pack_value(b, &Value::DataRange(ev.range.0))?;
                    pack_infos(fmt, b, &ev.infos)
                })
                .map(|b| (b, Waiting::Response(id)))
            }
            other => return self.answer_here(id, &other),
        };
        match packed {
            Ok((bytes, waiting)) => self.send(bytes, waiting),
            Err(e) => {
                let s = e.status();
                self.answer(
                    id,
                    &Message::Response(Response {
                        status: s,
                        body: vec![],
                    }),
                )
            }
        }
    }

    /// Sends `bytes` to the server on a new tag, its reply awaited as
    /// `waiting`.
    fn send(&mut self, bytes: Vec<u8>, waiting: Waiting) -> Result<(), Closed> {
        let tag = self.next_tag;
        self.next_tag = self.next_tag.checked_add(1).unwrap_or(TAG_DYNAMIC + 1);
        self.pending.insert(tag, waiting);
        let frame = Frame::message(self.pindex, tag, bytes);
        self.out.extend_from_slice(&frame.encode(Order::Network));
        self.flush_tcp()
    }

    /// Registers for every event (no codes, no infos), once: the server
    /// then sends each event this process may see, and the client's own
    /// handlers choose, as they do with our server's events.
    fn register_for_events(&mut self) -> Result<(), Closed> {
        let fmt = self.fmt;
        match self.command(Command::RegEvents, |b| {
            fmt.pack_value(b, &Value::Size(0))?;
            fmt.pack_value(b, &Value::Size(0))
        }) {
            Ok(bytes) => self.send(bytes, Waiting::Nothing),
            Err(_) => Err(Closed),
        }
    }

    /// A notification on tag 0 (command, status, source, info count,
    /// infos, range) as our event message; `None` if it does not decode.
    fn event(&self, payload: Vec<u8>) -> Option<Message> {
        let fmt = self.fmt;
        let mut b = Buffer::from_bytes(payload);
        let Value::Command(c) = fmt.unpack_value(&mut b, DataType::Command).ok()? else {
            return None;
        };
        if c != u8::from(Command::Notify) {
            return None;
        }
        let Value::Status(status) = fmt.unpack_value(&mut b, DataType::Status).ok()? else {
            return None;
        };
        let Value::Proc(source) = fmt.unpack_value(&mut b, DataType::Proc).ok()? else {
            return None;
        };
        let Value::Size(n) = fmt.unpack_value(&mut b, DataType::Size).ok()? else {
            return None;
        };
        let infos = if n == 0 {
            Vec::new()
        } else {
            fmt.unpack(&mut b, DataType::Info, n)
                .ok()?
                .into_iter()
                .filter_map(|v| match v {
                    Value::Info(i) => Some(*i),
                    _ => None,
                })
                .collect()
        };
        let range = match fmt.unpack_value(&mut b, DataType::DataRange) {
            Ok(Value::DataRange(r)) if Range(r).is_valid() => Range(r),
            _ => Range::SESSION,
        };
        let ev = crate::events::Event {
            status: Status(status),
            source,
            range,
            infos,
        };
        crate::events::encode_event(&ev).ok().map(Message::Event)
    }

    /// The payload of `cmd` followed by what `rest` packs.
    fn command(
        &self,
        cmd: Command,
        rest: impl FnOnce(&mut Buffer) -> Result<(), CodecError>,
    ) -> Result<Vec<u8>, CodecError> {
        let mut b = Buffer::new();
        self.fmt.pack_value(&mut b, &Value::Command(cmd.into()))?;
        rest(&mut b)?;
        Ok(b.into_bytes())
    }

    /// Answers a request the slice does not carry to the server.
    fn answer_here(&mut self, id: u32, msg: &Message) -> Result<(), Closed> {
        let no = Status::ERR_NOT_SUPPORTED;
        let reply = match msg {
            Message::Request(_) => Message::Response(Response {
                status: no,
                body: vec![],
            }),
            Message::NspaceRequest(_) => Message::NspaceReply(NspaceReply {
                status: no,
                segments: vec![],
            }),
            _ => return Ok(()),
        };
        self.answer(id, &reply)
    }

    fn answer(&mut self, id: u32, msg: &Message) -> Result<(), Closed> {
        self.ours.send(id, msg, Vec::new()).map_err(closed)?;
        self.ours.flush().map(drop).map_err(closed)
    }

    fn server_frames(&mut self) -> Result<(), Closed> {
        while let Some(f) = self.reader.next_frame() {
            if f.header.tag == TAG_NOTIFY {
                if let Some(ev) = self.event(f.payload) {
                    self.answer(0, &ev)?;
                }
                continue;
            }
            let Some(waiting) = self.pending.remove(&f.header.tag) else {
                continue;
            };
            let mut b = Buffer::from_bytes(f.payload);
            let status = match self.fmt.unpack_value(&mut b, DataType::Status) {
                Ok(Value::Status(s)) => Status(s),
                _ => Status::ERR_UNPACK_FAILURE,
            };
            let reply = match waiting {
                Waiting::Nothing => continue,
                Waiting::Finalize(id) => (id, Message::FinalizeReply(status)),
                Waiting::Abort(id) => (id, Message::AbortReply(status)),
                Waiting::Response(id) => (
                    id,
                    Message::Response(Response {
                        status,
                        body: vec![],
                    }),
                ),
                Waiting::Fence(id) => (
                    id,
                    Message::FenceRelease(FenceRelease {
                        status,
                        segments: vec![],
                    }),
                ),
                Waiting::Get(id) => (id, self.get_reply(status, &mut b)),
            };
            self.answer(reply.0, &reply.1)?;
        }
        Ok(())
    }

    /// A get's reply as a direct-modex reply: each byte object's process
    /// and kvals as one record of a modex blob.
    fn get_reply(&self, status: Status, b: &mut Buffer) -> Message {
        let fail = |status| {
            Message::DmodexReply(DmodexReply {
                status,
                data: vec![],
            })
        };
        if status != Status::SUCCESS {
            return fail(status);
        }
        let mut data = Vec::new();
        while b.remaining() > 0 {
            let Ok(Value::ByteObject(obj)) = self.fmt.unpack_value(b, DataType::ByteObject) else {
                return fail(Status::ERR_UNPACK_FAILURE);
            };
            let mut inner = Buffer::from_bytes(obj);
            let proc = match self.fmt.unpack(&mut inner, DataType::Proc, 1) {
                Ok(mut v) => match v.pop() {
                    Some(Value::Proc(p)) => p,
                    _ => return fail(Status::ERR_UNPACK_FAILURE),
                },
                Err(e) => return fail(e.status()),
            };
            let Ok(pairs) = kvals(self.fmt, &mut inner) else {
                return fail(Status::ERR_UNPACK_FAILURE);
            };
            let posted: Vec<Posted> = pairs
                .into_iter()
                .map(|(key, value)| Posted {
                    scope: Scope::Global,
                    key,
                    value,
                })
                .collect();
            if wire::blob::put_record(&mut data, &proc, posted.iter()).is_err() {
                return fail(Status::ERR_PACK_FAILURE);
            }
        }
        Message::DmodexReply(DmodexReply {
            status: Status::SUCCESS,
            data,
        })
    }
}

fn pack_infos(fmt: Format, b: &mut Buffer, infos: &[Info]) -> Result<(), CodecError> {
    fmt.pack_value(b, &Value::Size(infos.len()))?;
    if !infos.is_empty() {
        let v: Vec<Value> = infos
            .iter()
            .cloned()
            .map(|i| Value::Info(Box::new(i)))
            .collect();
        fmt.pack(b, DataType::Info, &v)?;
    }
    Ok(())
}

/// A commit's body: for the local and the remote scope, in that order,
/// the scope and a buffer of the kvals posted for it (a global put goes
/// in both); a scope with nothing posted is left out.
fn pack_commit(fmt: Format, b: &mut Buffer, posted: &[Posted]) -> Result<(), CodecError> {
    for (scope, wanted) in [
        (Scope::Local, [Scope::Local, Scope::Global]),
        (Scope::Remote, [Scope::Remote, Scope::Global]),
    ] {
        let mut inner = Buffer::new();
        let mut any = false;
        for p in posted.iter().filter(|p| wanted.contains(&p.scope)) {
            let kv = Value::Kval(Box::new(Kval {
                key: CString::new(p.key.as_bytes()).ok(),
                value: Some(Box::new(p.value.clone())),
            }));
            fmt.pack_value(&mut inner, &kv)?;
            any = true;
        }
        if any {
            fmt.pack_value(b, &Value::Scope(scope.raw()))?;
            let nested = NestedBuffer {
                buffer_type: if fmt.described { 2 } else { 1 },
                bytes: inner.into_bytes(),
            };
            fmt.pack_buffers(b, &[nested])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Module;
    use crate::openpmix::job_info::{self, Entry, Pair, Release};
    use std::collections::HashMap;

    fn kval(p: &Pair) -> Value {
        Value::Kval(Box::new(Kval {
            key: CString::new(p.key.as_bytes()).ok(),
            value: Some(Box::new(p.value.clone())),
        }))
    }

    /// An init reply in gds/hash's layout, packed as a stock server does.
    fn reply(fmt: Format, ns: &Nspace, entries: &[Entry]) -> Vec<u8> {
        let mut b = Buffer::new();
        let name = CString::new(ns.as_c_str().to_bytes()).ok();
        fmt.pack_value(&mut b, &Value::String(name)).unwrap();
        for e in entries {
            match e {
                Entry::Pair(p) => fmt.pack_value(&mut b, &kval(p)).unwrap(),
                Entry::ProcBlob { rank, pairs } => {
                    let mut inner = Buffer::new();
                    fmt.pack_value(&mut inner, &Value::ProcRank(*rank)).unwrap();
                    for p in pairs {
                        fmt.pack_value(&mut inner, &kval(p)).unwrap();
                    }
                    let blob = Pair {
                        key: key(keys::PROC_BLOB),
                        value: Value::ByteObject(inner.into_bytes()),
                    };
                    fmt.pack_value(&mut b, &kval(&blob)).unwrap();
                }
            }
        }
        b.into_bytes()
    }

    #[test]
    fn an_init_reply_becomes_a_segment_holding_what_the_server_sent() {
        let ns = Nspace::new("job-3").unwrap();
        let infos = vec![
            Info::new(key(keys::NODE_MAP), Value::string("n1,n2")),
            Info::new(key(keys::PROC_MAP), Value::string("0,1;2,3")),
            Info::new(key(keys::SESSION_ID), Value::Uint32(7)),
        ];
        let job = JobDescription::from_registration(&ns, 2, &infos, "n2").unwrap();
        let sent = job.build_segment().unwrap().open().unwrap();
        let release = Release::new(4, 2, 2);
        let entries = job_info::entries(&sent, release, "n2").unwrap();
        for described in [false, true] {
            let fmt = Format {
                module: Module::V41,
                described,
            };
            let payload = reply(fmt, &ns, &entries);
            let ours = job_from_reply(fmt, &ns, &payload, "n2").unwrap();
            let seg = ours.build_segment().unwrap().open().unwrap();
            // The same entries (the job realm's keys may come in another
            // order).
            let sorted = |e: &[Entry]| {
                let mut v: Vec<String> = e.iter().map(|x| format!("{x:?}")).collect();
                v.sort();
                v
            };
            let got = job_info::entries(&seg, release, "n2").unwrap();
            assert_eq!(sorted(&got), sorted(&entries));
            let infos = registration_infos(fmt, &ns, &payload).unwrap();
            assert_eq!(local_count(&infos, "n2"), 2);
            // Without node arrays or a local size: the ranks placed here.
            let blobs: Vec<Info> = infos
                .into_iter()
                .filter(|i| i.key.as_bytes() == keys::PROC_DATA.as_bytes())
                .collect();
            assert_eq!(blobs.len(), 4);
            assert_eq!(local_count(&blobs, "n1"), 2);
            assert_eq!(local_count(&blobs, "elsewhere"), 1);
        }
    }

    #[test]
    fn replies_that_do_not_decode_or_name_another_job_are_refused() {
        let fmt = Format::DATA_PACK;
        let ns = Nspace::new("job-3").unwrap();
        let other = Nspace::new("job-4").unwrap();
        let payload = reply(fmt, &other, &[]);
        assert_eq!(
            registration_infos(fmt, &ns, &payload).unwrap_err(),
            Status::ERR_UNPACK_FAILURE
        );
        let mut cut = reply(
            fmt,
            &ns,
            &[Entry::ProcBlob {
                rank: 0,
                pairs: vec![],
            }],
        );
        cut.truncate(cut.len() - 3);
        assert!(registration_infos(fmt, &ns, &cut).is_err());
        assert!(registration_infos(fmt, &ns, &[0xff; 9]).is_err());
        assert!(registration_infos(fmt, &ns, &[]).is_err());
    }

    #[test]
    fn only_a_tcp_uri_without_our_own_names_a_stock_server() {
        let env = |pairs: &[(&str, &str)]| {
            let m: HashMap<String, String> = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            move |k: &str| m.get(k).cloned()
        };
        let tcp = "srv.0;tcp4://127.0.0.1:4000";
        assert!(names_stock_server(env(&[("PMIX_SERVER_URI41", tcp)])));
        assert!(names_stock_server(env(&[(
            "PMIX_SERVER_URI4",
            "srv.0;tcp6://[::1]:4000"
        )])));
        assert!(!names_stock_server(env(&[
            ("PMIX_SERVER_URI41", tcp),
            (crate::server::OWN_URI_ENV, "srv.0;unix:///tmp/s"),
        ])));
        assert!(!names_stock_server(env(&[(
            "PMIX_SERVER_URI41",
            "srv.0;unix:///tmp/s"
        )])));
        assert!(!names_stock_server(env(&[])));
    }

    #[test]
    fn a_commit_sends_local_then_remote_and_global_puts_in_both() {
        let fmt = Format::DATA_PACK;
        let posted = |scope, k: &str, v: u32| Posted {
            scope,
            key: key(k),
            value: Value::Uint32(v),
        };
        let puts = [posted(Scope::Remote, "r", 1), posted(Scope::Global, "g", 2)];
        let mut b = Buffer::new();
        pack_commit(fmt, &mut b, &puts).unwrap();
        let mut got = Vec::new();
        while b.remaining() > 0 {
            let Value::Scope(s) = fmt.unpack_value(&mut b, DataType::Scope).unwrap() else {
                panic!("a scope first");
            };
            let nested = fmt.unpack_buffers(&mut b, 1).unwrap().remove(0);
            assert_eq!(nested.buffer_type, 1);
            let mut inner = Buffer::from_bytes(nested.bytes);
            let keys: Vec<String> = kvals(fmt, &mut inner)
                .unwrap()
                .into_iter()
                .map(|(k, _)| String::from_utf8_lossy(k.as_bytes()).into_owned())
                .collect();
            got.push((s, keys));
        }
        assert_eq!(
            got,
            [
                (Scope::Local.raw(), vec!["g".to_string()]),
                (Scope::Remote.raw(), vec!["r".to_string(), "g".to_string()]),
            ]
        );
    }
}
