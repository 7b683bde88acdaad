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
//! | `Request` of `Op::REGISTER_EVENTS` (a handler's codes) | `PMIX_REGEVENTS_CMD` with the codes no other handler registered → status |
//! | `Request` of `Op::DEREGISTER_EVENTS` | `PMIX_DEREGEVENTS_CMD` with the codes no handler holds any more (no reply) |
//! | `Request` of publish, lookup, unpublish, query, log, job control, connect, disconnect, spawn, credentials, group construct/destruct/leave, IOF pull/deregister/push | the stock command ([`services`]) |
//! | `Request` of `Op::GROUP_INVITE`, `Op::GROUP_JOIN` | events among the processes ([`invite`]): `PMIX_NOTIFY_CMD`s, the answers' codes registered while an invitation waits |
//! | tag 0 from the server | an `Event` to the client |
//! | tag 2 (`PMIX_PTL_TAG_IOF`) from the server | an `Iof` to the client |
//! | anything else | answered `PMIX_ERR_NOT_SUPPORTED` here |
//!
//! Events: an OpenPMIx server sends a client only the codes it registered
//! (a default handler registers none, and hears only codes some other
//! handler of the process registered, as OpenPMIx's own client does);
//! the client's registry tells the bridge of each handler
//! (`EventHandlers::set_registration_hook`).
//!
//! A fence without procs names this process's namespace (a stock server
//! refuses an empty list).
//!
//! Tools ([`connect_tool`], from `PMIx_tool_init` when it finds an
//! OpenPMIx server: `prte`, `prterun`, Open MPI 5's `mpirun`) connect the
//! same way with the tool handshake (an identifier assigned by the server
//! or given; the tool's pid, ids and command line for the host), then ask
//! for their job data as a client does. A get of another namespace's data
//! (a job the DVM runs) maps a job segment made from the server's answer
//! ([`nspace`]).
//!
//! The job data a host registers may contradict themselves across nodes
//! (Open MPI 4.1's orted, Slurm 22.05): [`reconcile`] makes them one node
//! table before they become our job segment.
//!
//! Invariants: every wait is bounded — init's exchanges by [`INIT_BOUND`]
//! (or `PMIX_TIMEOUT`), the replies to later requests as [`deadline`]
//! says (those that wait for other processes, as a fence does, only by
//! `PMIX_TIMEOUT` or the server's end); every pending and later call fails
//! with `PMIX_ERR_LOST_CONNECTION` when the bridge closes its end, which
//! it does as soon as the server closes, or sends a frame that does not
//! parse; an invitation ends when every invitee answered, or at its
//! `PMIX_TIMEOUT`.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

use crate::codec::{Buffer, Format, Module};
use crate::job::JobDescription;
use crate::openpmix::header::{Frame, Order, DEFAULT_MAX_MESSAGE, TAG_DYNAMIC};
use crate::openpmix::{
    ClientReply, Command, ConnectMessage, FrameReader, PeerFormat, Rendezvous, ServerUri, ToolReply,
};
use crate::wire::{self, Connection, SegmentKind, SegmentRef};

use crate::{keys, DataType, Info, Key, Nspace, Proc, Status, Value};

use self::kvals::kvals;
#[cfg(test)]
use self::registration::read_registration;
pub(super) use self::registration::registration_body;
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
    let deadline = Instant::now() + bound;
    let mut tcp = open(&rv.uri.addr, bound)?;

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
    let hostname =
        get(crate::openpmix::uri::ENV_HOSTNAME).unwrap_or_else(crate::server::local_hostname);
    let link = Link {
        me,
        server: rv.uri.server,
        fmt: format.codec(),
        pindex: reply.pindex as i32,
        version: get(crate::openpmix::uri::ENV_VERSION),
        hostname,
        tool: false,
    };
    link.start(tcp, deadline)
}

/// Connects as a tool to the OpenPMIx server at `uri` (whose rendezvous
/// file gave `version`, if known), under the identity `requested` (else
/// the server assigns one), passing `infos` with the tool's pid and ids to
/// the server's host; then asks for the tool's job data and starts the
/// bridge, as for a client.
pub fn connect_tool(
    uri: &ServerUri,
    version: Option<&str>,
    requested: Option<Proc>,
    infos: &[Info],
    bound: Duration,
) -> Result<Linked, Status> {
    let format = PeerFormat {
        module: module_for_version(version),
        buffer_type: crate::openpmix::handshake::DEFAULT_BUFFER_TYPE,
    };
    let deadline = Instant::now() + bound;
    let mut tcp = open(&uri.addr, bound)?;
    let ids = crate::sys::my_ids();
    let mut told = infos.to_vec();
    // PRRTE's master reads the command line of every tool (it must be
    // there), as OpenPMIx's tools send it.
    let cmd_line = std::env::args().collect::<Vec<_>>().join(" ");
    told.extend([
        Info::new(key(keys::PROC_PID), Value::Pid(std::process::id() as i32)),
        Info::new(key(keys::USERID), Value::Uint32(ids.0)),
        Info::new(key(keys::GRPID), Value::Uint32(ids.1)),
        Info::new(key(keys::CMD_LINE), Value::string(&cmd_line)),
    ]);
    let hello = ConnectMessage::tool(requested.clone(), ids, ANNOUNCED_VERSION, format, &told)
        .map_err(Status::from)?;
    write_by(&mut tcp, &hello.encode().map_err(Status::from)?, deadline)?;
    let needs_id = requested.is_none();
    let mut got = Vec::new();
    let reply = loop {
        match ToolReply::parse(&got, needs_id).map_err(Status::from)? {
            Some((r, _)) => break r,
            None => read_some(&mut tcp, &mut got, deadline)?,
        }
    };
    let me = reply
        .assigned
        .or(requested)
        .ok_or(Status::ERR_UNPACK_FAILURE)?;
    let link = Link {
        me,
        server: reply.server,
        fmt: format.codec(),
        // A tool has no index at its server: OpenPMIx's send 0.
        pindex: 0,
        version: version.map(str::to_owned),
        hostname: crate::server::local_hostname(),
        tool: true,
    };
    link.start(tcp, deadline)
}

/// The buffer format a tool speaks to a server of `version` (the second
/// line of its rendezvous file): 3.x's, 4.0/4.1's, else 4.2 and 5.0's.
fn module_for_version(version: Option<&str>) -> Module {
    let mut parts = version
        .unwrap_or_default()
        .trim_start_matches('v')
        .split('.')
        .map(|p| p.trim().parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(3), _) => Module::V3,
        (Some(4), Some(0 | 1)) => Module::V4,
        _ => Module::V41,
    }
}

#[cfg(test)]
#[test]
fn a_tool_speaks_the_format_of_its_servers_release() {
    assert_eq!(module_for_version(Some("5.0.11rc1")), Module::V41);
    assert_eq!(module_for_version(Some("4.2.2")), Module::V41);
    assert_eq!(module_for_version(Some("4.1.5")), Module::V4);
    assert_eq!(module_for_version(Some("v3.2.3")), Module::V3);
    assert_eq!(module_for_version(None), Module::V41);
}

/// A connection past its handshake: who is on either end and how they
/// speak.
struct Link {
    me: Proc,
    server: Proc,
    fmt: Format,
    pindex: i32,
    /// The server's release, if known.
    version: Option<String>,
    hostname: String,
    /// A tool's link: its job data may be sparse (a tool is a job of one).
    tool: bool,
}

impl Link {
    /// Asks for this process's job data (`PMIX_REQ_CMD`) before
    /// `deadline`, turns it into a job segment and starts the bridge.
    fn start(self, mut tcp: TcpStream, deadline: Instant) -> Result<Linked, Status> {
        let Link {
            me,
            server,
            fmt,
            pindex,
            version,
            hostname,
            tool,
        } = self;
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
        let job = match job_from_reply(fmt, &me.nspace, &payload, &hostname) {
            Err(_) if tool => tool_job(&me.nspace, &hostname)?,
            r => r?,
        };
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
        bridge::spawn(bridge::Ends {
            me: me.clone(),
            fmt,
            pindex,
            ours: Connection::new(theirs, wire::DEFAULT_MAX_BODY, 0, true),
            tcp: mio::net::TcpStream::from_std(tcp),
            reader,
            state: services::LinkState::new(version.as_deref()),
            hostname,
        })
        .map_err(|_| Status::ERR_INIT)?;
        Ok(Linked {
            progress,
            me: me.clone(),
            server,
            segments: vec![SegmentRef {
                nspace: me.nspace.clone(),
                kind: SegmentKind::Job,
                generation: 1,
            }],
            fds: vec![sealed.into_fd()],
        })
    }
}

/// A tool's job when its server sent none that describes one: a job of
/// one process on this node, as OpenPMIx's tools take themselves to be.
fn tool_job(nspace: &Nspace, hostname: &str) -> Result<JobDescription, Status> {
    let infos = [Info::new(key(keys::JOB_SIZE), Value::Uint32(1))];
    JobDescription::from_registration(nspace, 1, &infos, hostname)
}

/// A TCP connection to `addr` within `bound`.
fn open(addr: &std::net::SocketAddr, bound: Duration) -> Result<TcpStream, Status> {
    let tcp = TcpStream::connect_timeout(addr, bound).map_err(|_| Status::ERR_UNREACH)?;
    let _ = tcp.set_nodelay(true);
    Ok(tcp)
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
        infos.push(proc_data(rank, kvals(fmt, &mut inner)?));
    }
    Ok(infos)
}

/// A process's pairs as a `PMIX_PROC_DATA` array led by its `PMIX_RANK`.
fn proc_data(rank: u32, pairs: Vec<(Key, Value)>) -> Info {
    let mut items = vec![Info::new(key(keys::RANK), Value::ProcRank(rank))];
    items.extend(pairs.into_iter().map(|(k, v)| Info::new(k, v)));
    Info::new(key(keys::PROC_DATA), Value::info_array(items))
}

fn job_from_reply(
    fmt: Format,
    nspace: &Nspace,
    payload: &[u8],
    hostname: &str,
) -> Result<JobDescription, Status> {
    job_from_infos(nspace, registration_infos(fmt, nspace, payload)?, hostname)
}

/// The job `infos` describe (as a host registers it; its node table made
/// consistent), its local processes counted on `hostname`.
fn job_from_infos(
    nspace: &Nspace,
    infos: Vec<Info>,
    hostname: &str,
) -> Result<JobDescription, Status> {
    let infos = reconcile::consistent_node_ids(infos, hostname);
    JobDescription::from_registration(nspace, local_count(&infos, hostname), &infos, hostname)
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

/// Every decoder of what a stock server sends this client, run on
/// `payload` read in `fmt`: the handshake's reply, the init reply (for
/// namespace `nspace`), a notification, a get's reply and each service
/// reply layout. For the fuzz target `stock_link_reply`; returns how many
/// decoded without an error.
#[doc(hidden)]
pub fn decode_server_payload(fmt: Format, nspace: &Nspace, payload: &[u8]) -> usize {
    use services::ReplyLayout;
    let mut ok = 0;
    ok += usize::from(matches!(ClientReply::parse(payload), Ok(Some(_))));
    ok += usize::from(registration_infos(fmt, nspace, payload).is_ok());
    ok += usize::from(payloads::event(fmt, payload.to_vec()).is_some());
    ok += usize::from(services::iof_delivery(fmt, payload.to_vec()).is_some());
    // A reply: its status, then what the awaited layout reads.
    let mut b = Buffer::from_bytes(payload.to_vec());
    let Ok(Value::Status(s)) = fmt.unpack_value(&mut b, DataType::Status) else {
        return ok;
    };
    let status = Status(s);
    let good = |m: &wire::Message| match m {
        wire::Message::DmodexReply(r) => r.status == status,
        wire::Message::Response(r) => r.status != Status::ERR_UNPACK_FAILURE,
        _ => false,
    };
    ok += usize::from(good(&payloads::get_reply(fmt, status, &mut b.clone())));
    for layout in [
        ReplyLayout::Status,
        ReplyLayout::Lookup,
        ReplyLayout::Query,
        ReplyLayout::Results,
        ReplyLayout::Spawn,
        ReplyLayout::Credential,
        ReplyLayout::Infos,
        ReplyLayout::GroupConstruct {
            id: "g".into(),
            procs: Vec::new(),
        },
        ReplyLayout::IofPull { id: 1 },
    ] {
        let mut state = services::LinkState::default();
        let r = services::response(fmt, &mut state, layout, status, &mut b.clone());
        ok += usize::from(good(&wire::Message::Response(r)));
    }
    ok
}

mod bridge;
mod deadline;
mod invite;
mod kvals;
mod nspace;
mod payloads;
mod reconcile;
mod registration;
#[cfg(test)]
mod service_tests;
mod services;
#[cfg(test)]
mod tests;
