//! A stock peer's messages as ours: the connect message becomes a
//! [`Message::Handshake`] (no secret: the door checks the kernel's uid
//! instead), each command the [`Message`] our loop serves for it.
//!
//! | command | our message | answered by |
//! |---|---|---|
//! | `PMIX_REQ_CMD` | `NspaceRequest(own nspace)` | the job segment (init reply) |
//! | `PMIX_COMMIT_CMD` | `Commit` | a status here (our commit has no reply) |
//! | `PMIX_FENCENB_CMD` | `FenceRequest` | `FenceRelease` -> status |
//! | `PMIX_GETNB_CMD`, WILDCARD or reserved key | `NspaceRequest(its nspace)` | the job segment |
//! | `PMIX_GETNB_CMD`, other key | `DmodexRequest` | `DmodexReply` -> status + blobs |
//! | `PMIX_ABORT_CMD` | `Abort` | `AbortReply` -> status |
//! | `PMIX_FINALIZE_CMD` | `Finalize` | `FinalizeReply` -> status |
//! | `PMIX_REGEVENTS_CMD` | — (every event in range is sent; the peer's library filters) | success here |
//! | `PMIX_QUERY_CMD` | `Request(QUERY)` | `Response` -> status, count, infos |
//! | `PMIX_NOTIFY_CMD` | `Request(NOTIFY_EVENT)`, the peer as source | `Response` -> status |
//! | `PMIX_DEREGEVENTS_CMD` | — | none (it has no answer) |
//! | anything else | — | `PMIX_ERR_NOT_SUPPORTED` here |
//!
//! Invariant: every byte comes from the peer: each field is decoded with
//! its length checked by the codec, and a command that does not decode is
//! answered with `PMIX_ERR_BAD_PARAM` rather than dropped or trusted.

use std::ffi::CString;

use super::request::{Peer, Pending};
use crate::codec::{wire as cw, Buffer, CodecError, Format};
use crate::openpmix::handshake::PeerKind;
use crate::openpmix::{ClientReply, Command, ConnectMessage, ToolReply, WireError};
use crate::wire::{self, Abort, DmodexRequest, FenceRequest, Message, Posted};
use crate::{keys, DataType, Info, Key, Proc, Rank, Status, Value};

/// What to do with one message of the peer.
pub(in crate::server) enum Inbound {
    /// The connect message of a client claiming `Peer::proc`.
    Connected(Peer, Message),
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

/// The raw refusal of a connect message from a peer of `kind`.
fn refusal(kind: PeerKind, status: Status) -> Vec<u8> {
    if kind.gets_client_reply() {
        ClientReply {
            status: status.0,
            pindex: 0,
        }
        .encode()
    } else {
        ToolReply::encode_refusal(status.0)
    }
}

/// The connect message: a client's (flag 0) is handed to the loop's
/// check; tools, launchers, singletons and fully described buffers are
/// refused with `PMIX_ERR_NOT_SUPPORTED` for now (in the reply their
/// library waits for).
pub(in crate::server) fn connect(payload: &[u8]) -> Result<Inbound, WireError> {
    let m = ConnectMessage::parse(payload)?;
    if m.kind != PeerKind::SimpleClient {
        return Ok(Inbound::Refused(
            refusal(m.kind, Status::ERR_NOT_SUPPORTED),
            "a tool, launcher or singleton: not served by the stock door yet",
        ));
    }
    if m.format.codec().described {
        return Ok(Inbound::Refused(
            refusal(m.kind, Status::ERR_NOT_SUPPORTED),
            "fully described buffers: not served by the stock door yet",
        ));
    }
    let proc = m
        .identity
        .proc
        .clone()
        .ok_or(WireError::Malformed("client identity"))?;
    let release = m.version_numbers()?.into();
    let hs = Message::Handshake(wire::Handshake {
        version: u32::from(wire::PROTOCOL_VERSION),
        proc: proc.clone(),
        secret: Vec::new(),
    });
    Ok(Inbound::Connected(
        Peer {
            proc,
            format: m.format,
            release,
        },
        hs,
    ))
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
    let r = match cmd {
        Command::Req => Ok(Inbound::Forward(
            Message::NspaceRequest(peer.proc.nspace.clone()),
            Pending::Init,
        )),
        Command::Commit => commit(fmt, &mut buf)
            .map(|items| Inbound::ForwardAndAnswer(Message::Commit(items), Status::SUCCESS)),
        Command::FenceNb => fence(fmt, &mut buf),
        Command::GetNb => get(fmt, &mut buf),
        Command::Abort => abort(fmt, &mut buf),
        Command::Finalize => Ok(Inbound::Forward(Message::Finalize, Pending::Status)),
        // Every event in range reaches the peer, whose library filters by
        // its handlers; a deregistration has no answer.
        Command::RegEvents => Ok(Inbound::Answer(Status::SUCCESS)),
        Command::Notify => notify(peer, fmt, &mut buf),
        Command::Query => query(fmt, &mut buf),
        Command::DeregEvents => Ok(Inbound::Ignore),
        _ => Ok(Inbound::Answer(Status::ERR_NOT_SUPPORTED)),
    };
    r.unwrap_or(Inbound::Answer(Status::ERR_BAD_PARAM))
}

fn one(fmt: Format, buf: &mut Buffer, ty: DataType) -> Result<Value, CodecError> {
    fmt.unpack_value(buf, ty)
}

fn size(fmt: Format, buf: &mut Buffer) -> Result<usize, CodecError> {
    match one(fmt, buf, DataType::Size)? {
        Value::Size(n) if n <= buf.remaining() => Ok(n),
        _ => Err(CodecError::BadParam("count")),
    }
}

fn many(fmt: Format, buf: &mut Buffer, ty: DataType, n: usize) -> Result<Vec<Value>, CodecError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    fmt.unpack(buf, ty, n)
}

fn procs(fmt: Format, buf: &mut Buffer) -> Result<Vec<Proc>, CodecError> {
    let n = size(fmt, buf)?;
    many(fmt, buf, DataType::Proc, n)?
        .into_iter()
        .map(|v| match v {
            Value::Proc(p) => Ok(p),
            _ => Err(CodecError::BadParam("proc")),
        })
        .collect()
}

fn infos(fmt: Format, buf: &mut Buffer) -> Result<Vec<Info>, CodecError> {
    let n = size(fmt, buf)?;
    many(fmt, buf, DataType::Info, n)?
        .into_iter()
        .map(|v| match v {
            Value::Info(i) => Ok(*i),
            _ => Err(CodecError::BadParam("info")),
        })
        .collect()
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
        let inner = buf.read_with(packed_buffer)?;
        let mut inner = Buffer::from_bytes(inner);
        while inner.remaining() > 0 {
            let Value::Kval(kv) = one(fmt, &mut inner, DataType::Kval)? else {
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

/// One non-described `PMIX_BUFFER`: a count of 1, the buffer's type
/// byte, its length (`size_t`) and its bytes.
fn packed_buffer(r: &mut crate::codec::Reader<'_>) -> Result<Vec<u8>, CodecError> {
    if cw::get_i32(r)? != 1 {
        return Err(CodecError::BadParam("buffer count"));
    }
    let _buffer_type = r.byte()?;
    let n = cw::get_size(r)?;
    let n = usize::try_from(n).map_err(|_| CodecError::BadParam("buffer length"))?;
    Ok(r.take(n)?.to_vec())
}

fn fence(fmt: Format, buf: &mut Buffer) -> Result<Inbound, CodecError> {
    let procs = procs(fmt, buf)?;
    let infos = infos(fmt, buf)?;
    Ok(Inbound::Forward(
        Message::FenceRequest(FenceRequest { procs, infos }),
        Pending::Status,
    ))
}

fn get(fmt: Format, buf: &mut Buffer) -> Result<Inbound, CodecError> {
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
        return Ok(Inbound::Forward(
            Message::NspaceRequest(proc.nspace.clone()),
            Pending::GetJob { proc, key },
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
    use crate::codec::Module;
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
            for first in [0u8, 2, 3, 4, 99] {
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
