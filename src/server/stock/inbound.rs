//! A stock peer's messages as ours: the connect message becomes a
//! [`Message::Handshake`] for a client (no secret: the door checks the
//! kernel's uid instead) or a [`Message::ToolHandshake`] for a tool or
//! singleton (see [`connect`]), each command the [`Message`] our loop
//! serves for it.
//!
//! | command | our message | answered by |
//! |---|---|---|
//! | `PMIX_REQ_CMD` | `NspaceRequest(own nspace)` | the job segment (init reply) |
//! | `PMIX_COMMIT_CMD` | `Commit` | a status here (our commit has no reply) |
//! | `PMIX_FENCENB_CMD` | `FenceRequest` | `FenceRelease` -> status |
//! | `PMIX_GETNB_CMD`, WILDCARD or reserved key | `NspaceRequest(its nspace)` | the job segment (the job's whole data if the namespace is not the peer's — a tool's question about the job it watches — or no key is named) |
//! | `PMIX_GETNB_CMD`, other key | `DmodexRequest` | `DmodexReply` -> status + blobs |
//! | `PMIX_ABORT_CMD` | `Abort` | `AbortReply` -> status |
//! | `PMIX_FINALIZE_CMD` | `Finalize` | `FinalizeReply` -> status |
//! | `PMIX_REGEVENTS_CMD` | — (every event in range is sent; the peer's library filters) | success here |
//! | `PMIX_QUERY_CMD` | `Request(QUERY)` | `Response` -> status, count, infos |
//! | `PMIX_LOG_CMD` | `Request(LOG)` (a timestamp as `PMIX_LOG_TIMESTAMP`) | `Response` -> status |
//! | `PMIX_PUBLISHNB_CMD`, `PMIX_UNPUBLISHNB_CMD` | `Request(PUBLISH / UNPUBLISH)` | `Response` -> status |
//! | `PMIX_LOOKUPNB_CMD` | `Request(LOOKUP)` | `Response` -> status, count, pdata |
//! | `PMIX_CONNECTNB_CMD`, `PMIX_DISCONNECTNB_CMD` | `Request(CONNECT / DISCONNECT)` | `Response` -> status (no other job's data follows: the peer asks for it by get) |
//! | `PMIX_NOTIFY_CMD` | `Request(NOTIFY_EVENT)`, the peer as source | `Response` -> status |
//! | `PMIX_DEREGEVENTS_CMD` | — | none (it has no answer) |
//! | `PMIX_SPAWNNB_CMD`, `PMIX_JOB_CONTROL_CMD`, `PMIX_MONITOR_CMD`, `PMIX_ALLOC_CMD`, `PMIX_GET_CREDENTIAL_CMD`, `PMIX_VALIDATE_CRED_CMD` | `Request(SPAWN / JOB_CONTROL / MONITOR / ALLOCATE / GET_CREDENTIAL / VALIDATE_CREDENTIAL)` | `Response` -> see [`super::control`] |
//! | `PMIX_GROUP_CONSTRUCT_CMD`, `PMIX_GROUP_DESTRUCT_CMD`, `PMIX_GROUP_LEAVE_CMD` | `Request(GROUP_CONSTRUCT / GROUP_DESTRUCT / GROUP_LEAVE)` | `Response` -> see [`super::groups`] |
//! | `PMIX_IOF_PULL_CMD`, `PMIX_IOF_PUSH_CMD`, `PMIX_IOF_DEREG_CMD` | `Request(IOF_PULL / IOF_PUSH / IOF_DEREGISTER)` | `Response` -> see [`super::iof`] |
//! | `PMIX_RESOLVE_PEERS_CMD`, `PMIX_RESOLVE_NODE_CMD` (5.x) | `NspaceRequest(the namespace)` | the job segment's node arrays, see [`super::resolve`] |
//! | anything else | — | `PMIX_ERR_NOT_SUPPORTED` here |
//!
//! A message on `PMIX_PTL_TAG_HEARTBEAT` (`PMIx_Heartbeat`: no command,
//! no payload) is a `Request(MONITOR)` of `PMIX_SEND_HEARTBEAT`
//! ([`heartbeat`]), answered by nobody.
//!
//! Invariant: every byte comes from the peer: each field is decoded with
//! its length checked by the codec, and a command that does not decode is
//! answered with `PMIX_ERR_BAD_PARAM` rather than dropped or trusted.

use std::ffi::CString;

use super::fields::{infos, many, one, procs, size, Forward};
use super::request::{ConnectAnswer, Peer, Pending};
use super::{control, groups, iof, resolve};
use crate::codec::{Buffer, CodecError, Format};
use crate::openpmix::handshake::PeerKind;
use crate::openpmix::{BufferType, ClientReply, Command, ConnectMessage, ToolReply, WireError};
use crate::wire::{self, Abort, DmodexRequest, FenceRequest, Message, Posted};
use crate::{keys, DataType, Info, Key, Proc, Rank, Status, Value};

/// What to do with one message of the peer.
pub(in crate::server) enum Inbound {
    /// The connect message of a client or tool (claiming `Peer::proc`,
    /// unless it asks for an identifier), answered as the last says.
    Connected(Peer, Message, ConnectAnswer),
    /// A request for the loop, answered later.
    Forward(Message, Pending),
    /// A request for the loop whose answer (a status) is given now.
    ForwardAndAnswer(Message, Status),
    /// Answered here with a status, nothing for the loop.
    Answer(Status),
    /// Nothing to do and no answer (the command has none).
    Ignore,
    /// A connect message refused: the raw answer to write, and why.
    Refused(Vec<u8>, &'static str),
}

/// The raw refusal of a connect message from a peer of `kind` on a
/// library of major version `major`.
fn refusal(kind: PeerKind, major: u32, status: Status) -> Vec<u8> {
    if kind.gets_client_reply(major) {
        ClientReply {
            status: status.0,
            pindex: 0,
        }
        .encode()
    } else {
        ToolReply::encode_refusal(status.0)
    }
}

/// The connect message, in either buffer type (the peer is answered in
/// its own format):
/// - a client (flag 0), or a tool or launcher its server started (5, 8:
///   a registered process), is handed to the loop's client check;
/// - a self-started tool or launcher (3, 6: the server names it; 4, 7:
///   named by its caller) and a singleton (9, named by its library) to
///   the loop's tool check, with the infos the tool sent;
/// - legacy 2.x/3.x tools (1, 2) and schedulers (10) are refused with
///   `PMIX_ERR_NOT_SUPPORTED`, in the reply their library waits for.
///
/// Every bfrops module we have a codec for is admitted: v41, v4 and v3
/// (3.x clients, or later ones told to speak it).
pub(in crate::server) fn connect(payload: &[u8]) -> Result<Inbound, WireError> {
    use PeerKind::*;
    let m = ConnectMessage::parse(payload)?;
    let (major, _, _) = m.version_numbers()?;
    let refuse = |why| {
        Ok(Inbound::Refused(
            refusal(m.kind, major, Status::ERR_NOT_SUPPORTED),
            why,
        ))
    };
    let answer = if m.kind.gets_client_reply(major) {
        ConnectAnswer::Client
    } else {
        ConnectAnswer::Tool {
            needs_id: m.kind.needs_id(),
        }
    };
    let claimed = m.identity.proc.clone();
    let msg = match m.kind {
        SimpleClient | ToolClient | LauncherClient => {
            let proc = claimed
                .clone()
                .ok_or(WireError::Malformed("client identity"))?;
            Message::Handshake(wire::Handshake {
                version: u32::from(wire::PROTOCOL_VERSION),
                proc,
                secret: Vec::new(),
            })
        }
        ToolNeedsId | LauncherNeedsId | ToolGivenId | LauncherGivenId | Singleton => {
            Message::ToolHandshake(wire::ToolHandshake {
                version: u32::from(wire::PROTOCOL_VERSION),
                proc: claimed.clone(),
                infos: m.infos()?,
            })
        }
        LegacyTool | LegacyLauncher => {
            return refuse("a 2.x/3.x tool or launcher: not served by the stock door")
        }
        Scheduler => return refuse("a scheduler: not served by the stock door"),
    };
    let peer = Peer {
        // A tool that asks for its name gets it in the handshake's answer.
        proc: claimed.unwrap_or_else(unnamed),
        format: m.format,
        release: m.version_numbers()?.into(),
    };
    Ok(Inbound::Connected(peer, msg, answer))
}

/// The placeholder name of a tool until the loop names it.
fn unnamed() -> Proc {
    Proc::new(
        crate::Nspace::new("unnamed-tool").expect("a short name"),
        Rank(0),
    )
}

/// One command of a connected peer.
pub(in crate::server) fn command(peer: &Peer, payload: &[u8]) -> Inbound {
    let fmt = peer.format.codec();
    let mut buf = Buffer::from_bytes(payload.to_vec());
    let cmd = match fmt.unpack_value(&mut buf, DataType::Command) {
        Ok(Value::Command(c)) => c,
        _ => return Inbound::Answer(Status::ERR_BAD_PARAM),
    };
    let Ok(cmd) = Command::try_from(cmd) else {
        return Inbound::Answer(Status::ERR_NOT_SUPPORTED);
    };
    let r =
        match cmd {
            Command::Req => Ok(Inbound::Forward(
                Message::NspaceRequest(peer.proc.nspace.clone()),
                Pending::Init,
            )),
            Command::Commit => commit(fmt, &mut buf)
                .map(|items| Inbound::ForwardAndAnswer(Message::Commit(items), Status::SUCCESS)),
            Command::FenceNb => fence(fmt, &mut buf),
            Command::GetNb => get(peer, fmt, &mut buf),
            Command::Abort => abort(fmt, &mut buf),
            Command::Finalize => Ok(Inbound::Forward(Message::Finalize, Pending::Status)),
            // Every event in range reaches the peer, whose library filters by
            // its handlers; a deregistration has no answer.
            Command::RegEvents => Ok(Inbound::Answer(Status::SUCCESS)),
            Command::Notify => notify(peer, fmt, &mut buf),
            Command::Query => query(fmt, &mut buf),
            Command::Log => log(fmt, &mut buf),
            Command::PublishNb => publish(fmt, &mut buf),
            Command::ConnectNb => connect_procs(fmt, &mut buf, wire::Op::CONNECT),
            Command::DisconnectNb => connect_procs(fmt, &mut buf, wire::Op::DISCONNECT),
            Command::LookupNb => lookup(fmt, &mut buf, false),
            Command::UnpublishNb => lookup(fmt, &mut buf, true),
            Command::DeregEvents => Ok(Inbound::Ignore),
            Command::SpawnNb => forward(control::spawn(fmt, &mut buf)),
            Command::JobControl | Command::Monitor | Command::Alloc => {
                forward(control::control(cmd, fmt, &mut buf))
            }
            Command::GetCredential => forward(control::get_credential(fmt, &mut buf)),
            Command::ValidateCred => forward(control::validate_credential(fmt, &mut buf)),
            Command::GroupConstruct => forward(groups::construct(peer.release, fmt, &mut buf)),
            Command::GroupDestruct => forward(groups::destruct_or_leave(
                wire::Op::GROUP_DESTRUCT,
                peer.release,
                fmt,
                &mut buf,
            )),
            Command::GroupLeave => forward(groups::destruct_or_leave(
                wire::Op::GROUP_LEAVE,
                peer.release,
                fmt,
                &mut buf,
            )),
            Command::IofPull => forward(iof::pull(fmt, &mut buf)),
            Command::IofPush => forward(iof::push(fmt, &mut buf)),
            Command::IofDereg => forward(iof::deregister(fmt, &mut buf)),
            Command::ResolvePeers => resolve::peers(&peer.proc.nspace, fmt, &mut buf)
                .map(|(m, p)| Inbound::Forward(m, p)),
            Command::ResolveNode => resolve::nodes(&peer.proc.nspace, fmt, &mut buf)
                .map(|(m, p)| Inbound::Forward(m, p)),
            _ => Ok(Inbound::Answer(Status::ERR_NOT_SUPPORTED)),
        };
    r.unwrap_or(Inbound::Answer(Status::ERR_BAD_PARAM))
}

/// `PMIX_SCOPE` then `PMIX_BUFFER` of KVALs, for each scope with data.
fn commit(fmt: Format, buf: &mut Buffer) -> Result<Vec<Posted>, CodecError> {
    let mut out = Vec::new();
    while buf.remaining() > 0 {
        let scope = match one(fmt, buf, DataType::Scope)? {
            Value::Scope(s) => {
                pmix_shmem::Scope::from_raw(s).ok_or(CodecError::BadParam("scope"))?
            }
            _ => return Err(CodecError::BadParam("scope")),
        };
        let [inner] = <[_; 1]>::try_from(fmt.unpack_buffers(buf, 1)?)
            .map_err(|_| CodecError::BadParam("buffer count"))?;
        // The inner buffer says its own type (a described client's is
        // described too; 0, "undefined", keeps the connection's).
        let inner_fmt = match BufferType::from_byte(inner.buffer_type) {
            Ok(t) => Format {
                described: t == BufferType::FullyDescribed,
                ..fmt
            },
            Err(_) => fmt,
        };
        let mut inner = Buffer::from_bytes(inner.bytes);
        while inner.remaining() > 0 {
            let Value::Kval(kv) = one(inner_fmt, &mut inner, DataType::Kval)? else {
                return Err(CodecError::BadParam("kval"));
            };
            let key = kv.key.ok_or(CodecError::BadParam("kval key"))?;
            let key = Key::new(key.as_bytes()).map_err(|_| CodecError::BadParam("key"))?;
            let value = kv.value.map(|v| *v).unwrap_or_default();
            out.push(Posted { scope, key, value });
        }
    }
    Ok(out)
}

fn fence(fmt: Format, buf: &mut Buffer) -> Result<Inbound, CodecError> {
    let procs = procs(fmt, buf)?;
    let infos = infos(fmt, buf)?;
    Ok(Inbound::Forward(
        Message::FenceRequest(FenceRequest { procs, infos }),
        Pending::Status,
    ))
}

/// `PMIx_Get`: the namespace, the rank, the directives, the key (absent:
/// every key). Job data (a WILDCARD rank or a reserved key) comes from
/// the job segment, whole when the peer asks about a namespace not its
/// own — a tool about the job it watches — or for every key, as
/// OpenPMIx's server answers; other keys from direct modex.
fn get(peer: &Peer, fmt: Format, buf: &mut Buffer) -> Result<Inbound, CodecError> {
    let nspace = match one(fmt, buf, DataType::String)? {
        Value::String(Some(s)) => {
            crate::Nspace::new(s.as_bytes()).map_err(|_| CodecError::BadParam("nspace"))?
        }
        _ => return Err(CodecError::BadParam("nspace")),
    };
    let rank = match one(fmt, buf, DataType::ProcRank)? {
        Value::ProcRank(r) => Rank(r),
        _ => return Err(CodecError::BadParam("rank")),
    };
    let infos = infos(fmt, buf)?;
    let key = if buf.remaining() > 0 {
        match one(fmt, buf, DataType::String)? {
            Value::String(s) => s.map(|s| s.to_string_lossy().into_owned()),
            _ => None,
        }
    } else {
        None
    };
    let proc = Proc::new(nspace, rank);
    if rank == Rank::WILDCARD || key.as_deref().is_some_and(keys::is_reserved) {
        let whole = key.is_none() || proc.nspace != peer.proc.nspace;
        return Ok(Inbound::Forward(
            Message::NspaceRequest(proc.nspace.clone()),
            Pending::GetJob { proc, key, whole },
        ));
    }
    let key = match key {
        Some(k) => Some(Key::new(k.as_bytes()).map_err(|_| CodecError::BadParam("key"))?),
        None => None,
    };
    Ok(Inbound::Forward(
        Message::DmodexRequest(DmodexRequest { proc, key, infos }),
        Pending::GetModex,
    ))
}

/// `PMIx_Notify_event` of the peer: code, range, infos; the source is
/// the peer itself.
fn notify(peer: &Peer, fmt: Format, buf: &mut Buffer) -> Result<Inbound, CodecError> {
    let status = match one(fmt, buf, DataType::Status)? {
        Value::Status(s) => Status(s),
        _ => return Err(CodecError::BadParam("status")),
    };
    let range = match one(fmt, buf, DataType::DataRange)? {
        Value::DataRange(r) => crate::events::Range(r),
        _ => return Err(CodecError::BadParam("range")),
    };
    let infos = infos(fmt, buf)?;
    let event = crate::events::Event {
        status,
        source: peer.proc.clone(),
        range,
        infos,
    };
    let body = crate::events::encode_event(&event).map_err(|_| CodecError::BadParam("event"))?;
    Ok(Inbound::Forward(
        Message::Request(wire::Request {
            op: wire::Op::NOTIFY_EVENT,
            body,
        }),
        Pending::Status,
    ))
}

/// `PMIx_Query_info`: the count and the queries.
fn query(fmt: Format, buf: &mut Buffer) -> Result<Inbound, CodecError> {
    let n = size(fmt, buf)?;
    let queries = many(fmt, buf, DataType::Query, n)?
        .into_iter()
        .map(|v| match v {
            Value::Query(q) => Ok(*q),
            _ => Err(CodecError::BadParam("query")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut body = Vec::new();
    crate::wire::rm::put_queries(&mut body, &queries)?;
    Ok(Inbound::Forward(
        Message::Request(wire::Request {
            op: wire::Op::QUERY,
            body,
        }),
        Pending::Query,
    ))
}

/// `PMIx_Log`: the time it was called (0: not taken), the data, the
/// directives.
fn log(fmt: Format, buf: &mut Buffer) -> Result<Inbound, CodecError> {
    let stamp = match one(fmt, buf, DataType::Time)? {
        Value::Time(t) => t,
        _ => return Err(CodecError::BadParam("timestamp")),
    };
    let data = infos(fmt, buf)?;
    let mut directives = infos(fmt, buf)?;
    let has_stamp = directives
        .iter()
        .any(|i| i.key.as_bytes() == keys::LOG_TIMESTAMP.as_bytes());
    if stamp != 0 && !has_stamp {
        directives.extend(Info::keyed(keys::LOG_TIMESTAMP, Value::Time(stamp)));
    }
    let body = crate::wire::rm::put_two_lists(&data, &directives)?;
    Ok(Inbound::Forward(
        Message::Request(wire::Request {
            op: wire::Op::LOG,
            body,
        }),
        Pending::Status,
    ))
}

/// A request decoded by a subject's module, for the loop.
fn forward(r: Result<Forward, CodecError>) -> Result<Inbound, CodecError> {
    r.map(|(op, body, pending)| request(op, body, pending))
}

/// Our request `op` with `body`, waiting for `pending`.
/// A beat of the peer (`PMIx_Heartbeat`), as our client asks for it.
pub(in crate::server) fn heartbeat() -> Message {
    let beat = Info::keyed(keys::SEND_HEARTBEAT, Value::Undef).unwrap_or_default();
    let body = wire::rm::put_monitor(&beat, Status::SUCCESS, &[]).unwrap_or_default();
    Message::Request(wire::Request {
        op: wire::Op::MONITOR,
        body,
    })
}

fn request(op: wire::Op, body: Vec<u8>, pending: Pending) -> Inbound {
    Inbound::Forward(Message::Request(wire::Request { op, body }), pending)
}

/// The uid the peer's library packs before a publish, lookup or
/// unpublish: not believed (the server knows whose connection it is).
fn skip_uid(fmt: Format, buf: &mut Buffer) -> Result<(), CodecError> {
    match one(fmt, buf, DataType::Uint32)? {
        Value::Uint32(_) => Ok(()),
        _ => Err(CodecError::BadParam("uid")),
    }
}

/// `PMIx_Connect` / `PMIx_Disconnect` (`op`): the procs, the infos.
fn connect_procs(fmt: Format, buf: &mut Buffer, op: wire::Op) -> Result<Inbound, CodecError> {
    let procs = procs(fmt, buf)?;
    let infos = infos(fmt, buf)?;
    let body = crate::wire::process_mgmt::encode_collective(&procs, &infos)
        .map_err(|_| CodecError::BadParam("connect"))?;
    Ok(request(op, body, Pending::Status))
}

/// `PMIx_Publish`: the uid, then the infos.
fn publish(fmt: Format, buf: &mut Buffer) -> Result<Inbound, CodecError> {
    skip_uid(fmt, buf)?;
    let infos = infos(fmt, buf)?;
    let body =
        crate::wire::pubsub::encode_publish(&infos).map_err(|_| CodecError::BadParam("publish"))?;
    Ok(request(wire::Op::PUBLISH, body, Pending::Status))
}

/// `PMIx_Lookup` (or, `unpublish`, `PMIx_Unpublish`): the uid, the count
/// of keys and each key, the directives. No key unpublishes every key
/// of the caller.
fn lookup(fmt: Format, buf: &mut Buffer, unpublish: bool) -> Result<Inbound, CodecError> {
    skip_uid(fmt, buf)?;
    let n = size(fmt, buf)?;
    let mut keys = Vec::with_capacity(n);
    for _ in 0..n {
        match one(fmt, buf, DataType::String)? {
            Value::String(Some(k)) => {
                keys.push(Key::new(k.as_bytes()).map_err(|_| CodecError::BadParam("key"))?)
            }
            _ => return Err(CodecError::BadParam("key")),
        }
    }
    let infos = infos(fmt, buf)?;
    let bad = |_| CodecError::BadParam("lookup");
    if unpublish {
        let keys = (!keys.is_empty()).then_some(&keys[..]);
        let body = crate::wire::pubsub::encode_unpublish(keys, &infos).map_err(bad)?;
        return Ok(request(wire::Op::UNPUBLISH, body, Pending::Status));
    }
    let body = crate::wire::pubsub::encode_lookup(&keys, &infos).map_err(bad)?;
    Ok(request(wire::Op::LOOKUP, body, Pending::Lookup))
}

fn abort(fmt: Format, buf: &mut Buffer) -> Result<Inbound, CodecError> {
    let status = match one(fmt, buf, DataType::Status)? {
        Value::Status(s) => Status(s),
        _ => return Err(CodecError::BadParam("status")),
    };
    let message = match one(fmt, buf, DataType::String)? {
        Value::String(s) => s,
        _ => None,
    };
    let procs = if buf.remaining() > 0 {
        procs(fmt, buf)?
    } else {
        Vec::new()
    };
    let message: Option<CString> = message;
    Ok(Inbound::Forward(
        Message::Abort(Abort {
            status,
            message,
            procs,
        }),
        Pending::Status,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{wire as cw, Module};
    use crate::openpmix::job_info::Release;
    use crate::openpmix::{BufferType, PeerFormat};
    use crate::value::Kval;

    fn peer() -> Peer {
        Peer {
            proc: Proc::new(crate::Nspace::new("stock-ns").unwrap(), Rank(1)),
            format: PeerFormat {
                module: Module::V41,
                buffer_type: BufferType::NonDescribed,
            },
            release: Release::new(5, 0, 11),
        }
    }

    fn pack(b: &mut Buffer, v: Value) {
        Format::DATA_PACK.pack_value(b, &v).unwrap();
    }

    #[test]
    fn a_commit_becomes_our_commit_with_its_scope_and_values() {
        let mut kvals = Buffer::new();
        pack(
            &mut kvals,
            Value::Kval(Box::new(Kval {
                key: Some(CString::new("stock.k").unwrap()),
                value: Some(Box::new(Value::Uint32(7))),
            })),
        );
        let inner = kvals.into_bytes();
        let mut b = Buffer::new();
        pack(&mut b, Value::Command(Command::Commit.into()));
        pack(&mut b, Value::Scope(pmix_shmem::Scope::Global.raw()));
        // PMIX_BUFFER: a count of one, the type byte, the size, the bytes.
        let mut raw = Vec::new();
        cw::put_i32(&mut raw, 1);
        raw.push(1);
        cw::put_size(&mut raw, inner.len());
        raw.extend_from_slice(&inner);
        b.extend_from_slice(&raw);
        match command(&peer(), b.as_bytes()) {
            Inbound::ForwardAndAnswer(Message::Commit(items), Status::SUCCESS) => {
                assert_eq!(items.len(), 1);
                assert_eq!(items[0].key.as_bytes(), b"stock.k");
                assert_eq!(items[0].value, Value::Uint32(7));
                assert_eq!(items[0].scope, pmix_shmem::Scope::Global);
            }
            _ => panic!("not a commit"),
        }
    }

    #[test]
    fn a_get_of_a_posted_key_goes_to_direct_modex_and_a_reserved_one_to_the_job() {
        let get = |key: &str, rank: u32| {
            let mut b = Buffer::new();
            pack(&mut b, Value::Command(Command::GetNb.into()));
            pack(
                &mut b,
                Value::String(Some(CString::new("stock-ns").unwrap())),
            );
            pack(&mut b, Value::ProcRank(rank));
            pack(&mut b, Value::Size(0));
            pack(&mut b, Value::String(Some(CString::new(key).unwrap())));
            command(&peer(), b.as_bytes())
        };
        assert!(matches!(
            get("stock.k", 0),
            Inbound::Forward(Message::DmodexRequest(_), Pending::GetModex)
        ));
        assert!(matches!(
            get(keys::LOCAL_RANK, 0),
            Inbound::Forward(Message::NspaceRequest(_), Pending::GetJob { .. })
        ));
        assert!(matches!(
            get("stock.k", Rank::WILDCARD.0),
            Inbound::Forward(Message::NspaceRequest(_), Pending::GetJob { .. })
        ));
    }

    #[test]
    fn a_get_about_another_namespace_or_every_key_asks_for_the_whole_job() {
        let get = |ns: &str, rank: u32, key: Option<&str>| {
            let mut b = Buffer::new();
            pack(&mut b, Value::Command(Command::GetNb.into()));
            pack(&mut b, Value::String(Some(CString::new(ns).unwrap())));
            pack(&mut b, Value::ProcRank(rank));
            pack(&mut b, Value::Size(0));
            if let Some(k) = key {
                pack(&mut b, Value::String(Some(CString::new(k).unwrap())));
            }
            match command(&peer(), b.as_bytes()) {
                Inbound::Forward(Message::NspaceRequest(n), Pending::GetJob { whole, .. }) => {
                    assert_eq!(n.to_string_lossy(), ns);
                    whole
                }
                _ => panic!("not a job get"),
            }
        };
        // Its own job: the key alone.
        assert!(!get("stock-ns", 1, Some(keys::LOCAL_RANK)));
        assert!(!get("stock-ns", Rank::WILDCARD.0, Some(keys::JOB_SIZE)));
        // Every key, or another job (a 4.2 tool asks for a rank's key at
        // the WILDCARD rank, a 5.0 one at the rank or UNDEF).
        assert!(get("stock-ns", Rank::WILDCARD.0, None));
        assert!(get("other-ns", Rank::WILDCARD.0, Some(keys::LOCAL_RANK)));
        assert!(get("other-ns", 1, Some(keys::LOCAL_RANK)));
        assert!(get("other-ns", Rank::UNDEF.0, Some(keys::LOCAL_PEERS)));
    }

    #[test]
    fn garbage_is_answered_or_refused_never_a_panic() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 0..300usize {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect();
            let _ = connect(&bytes);
            // Init, commit, fence, get; spawn, the resource-manager calls,
            // IOF, groups, resolve; an unknown command.
            for first in [
                0u8, 2, 3, 4, 9, 17, 18, 19, 20, 21, 22, 23, 24, 27, 28, 29, 37, 38, 99,
            ] {
                let mut b = Buffer::new();
                pack(&mut b, Value::Command(first));
                b.extend_from_slice(&bytes);
                let _ = command(&peer(), b.as_bytes());
            }
        }
        // An unknown command, and a command without arguments.
        let mut b = Buffer::new();
        pack(&mut b, Value::Command(200));
        assert!(matches!(
            command(&peer(), b.as_bytes()),
            Inbound::Answer(Status::ERR_NOT_SUPPORTED)
        ));
        let mut b = Buffer::new();
        pack(&mut b, Value::Command(Command::FenceNb.into()));
        assert!(matches!(
            command(&peer(), b.as_bytes()),
            Inbound::Answer(Status::ERR_BAD_PARAM)
        ));
    }
}

#[cfg(test)]
mod connect_tests {
    use super::*;
    use crate::codec::Module;
    use crate::openpmix::PeerFormat;

    fn message(module: Module, buffer_type: BufferType) -> Vec<u8> {
        let proc = Proc::new(crate::Nspace::new("stock-ns").unwrap(), Rank(0));
        let format = PeerFormat {
            module,
            buffer_type,
        };
        ConnectMessage::client(proc, 0, 0, "4.2.2", format)
            .encode_payload()
            .unwrap()
    }

    #[test]
    fn v41_v4_and_v3_clients_of_both_buffer_types_are_handed_to_the_loop() {
        for m in [Module::V41, Module::V4, Module::V3] {
            for t in [BufferType::NonDescribed, BufferType::FullyDescribed] {
                let r = connect(&message(m, t)).unwrap();
                let Inbound::Connected(peer, _, ConnectAnswer::Client) = r else {
                    panic!("{m:?} {t:?} not admitted");
                };
                assert_eq!(peer.format.buffer_type, t);
                assert_eq!(peer.format.module, m);
            }
        }
    }

    fn tool(kind: PeerKind, version: &str) -> Vec<u8> {
        let proc = Proc::new(crate::Nspace::new("tool-ns").unwrap(), Rank(2));
        let format = PeerFormat {
            module: Module::V41,
            buffer_type: BufferType::NonDescribed,
        };
        let mut m = ConnectMessage::client(proc, 0, 0, version, format);
        m.kind = kind;
        m.identity.ids = Some((0, 0));
        if !kind.sends_proc() {
            m.identity.proc = None;
        }
        let info = Info::keyed(keys::USERID, Value::Uint32(0)).unwrap();
        m.set_infos(&[info]).unwrap();
        m.encode_payload().unwrap()
    }

    #[test]
    fn tools_and_singletons_go_to_the_tool_check_with_their_reply_layout() {
        use PeerKind::*;
        let cases = [
            (
                ToolNeedsId,
                "5.0.11",
                ConnectAnswer::Tool { needs_id: true },
                false,
            ),
            (
                LauncherNeedsId,
                "4.2.2",
                ConnectAnswer::Tool { needs_id: true },
                false,
            ),
            (
                ToolGivenId,
                "4.2.2",
                ConnectAnswer::Tool { needs_id: false },
                true,
            ),
            (
                Singleton,
                "4.2.2",
                ConnectAnswer::Tool { needs_id: false },
                true,
            ),
            (Singleton, "5.0.11", ConnectAnswer::Client, true),
        ];
        for (kind, version, want, named) in cases {
            let r = connect(&tool(kind, version)).unwrap();
            let Inbound::Connected(peer, Message::ToolHandshake(t), answer) = r else {
                panic!("{kind:?} {version} not handed to the tool check");
            };
            assert_eq!(answer, want, "{kind:?} {version}");
            assert_eq!(t.proc.is_some(), named, "{kind:?}");
            assert_eq!(t.infos.len(), 1, "the tool's infos travel");
            if named {
                assert_eq!(Some(&peer.proc), t.proc.as_ref());
            }
        }
        // A tool its server started is a registered process: the client check.
        let r = connect(&tool(ToolClient, "5.0.11")).unwrap();
        assert!(matches!(
            r,
            Inbound::Connected(
                _,
                Message::Handshake(_),
                ConnectAnswer::Tool { needs_id: false }
            )
        ));
        for kind in [LegacyTool, Scheduler] {
            let Ok(Inbound::Refused(reply, _)) = connect(&tool(kind, "5.0.11")) else {
                panic!("{kind:?} not refused");
            };
            assert!(matches!(
                crate::openpmix::ToolReply::parse(&reply, false),
                Err(WireError::Refused(s)) if s == Status::ERR_NOT_SUPPORTED.0
            ));
        }
    }
}
