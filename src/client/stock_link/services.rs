//! The client's service requests in OpenPMIx's layouts (read from its
//! `src/client` and `src/common`): each of our `Request`s the stock link
//! carries becomes one stock command, and the server's reply becomes the
//! `Response` our client's service code decodes.
//!
//! | `Op` | stock request (after the command) | stock reply |
//! |---|---|---|
//! | `PUBLISH` | uid `UINT32`, count `SIZE`, infos | status |
//! | `LOOKUP` | uid, count, keys (`STRING`s), count, infos | status, count, `PDATA`s |
//! | `UNPUBLISH` | uid, count, keys, count, infos (no key: every key) | status |
//! | `QUERY` | count, `QUERY`s | status, count, infos |
//! | `LOG` | timestamp `TIME` (0: not taken), count, data, count, directives | status |
//! | `JOB_CONTROL`, `MONITOR`, `ALLOCATE`, `SESSION_CONTROL` (6.0 server on) | see [`crate::openpmix::control`] | status, (success) count, results |
//! | `CONNECT`, `DISCONNECT` | count, `PROC`s, count, infos | status (then the other jobs' data, dropped) |
//! | `SPAWN` | count, job infos, count, `APP`s | status, the new namespace `STRING` |
//! | `GET_CREDENTIAL` | count, directives | status, (success) the credential `BYTE_OBJECT`, count, infos |
//! | `VALIDATE_CREDENTIAL` | the credential `BYTE_OBJECT`, count, directives | status, (success) count, infos |
//! | `GROUP_CONSTRUCT` | id `STRING`, count, `PROC`s, count, directives | status; (success) 4.x: the context id `SIZE` if one was assigned; 5.x: count, the members, the context id (`SIZE_MAX`: none) |
//! | `GROUP_DESTRUCT` | id, (5.x server: count, the members recorded at construct,) count, directives | status |
//! | `GROUP_LEAVE` | id, count, directives | status |
//! | `IOF_PULL` | count, sources, count, directives, channels `IOF_CHANNEL`, our id `SIZE` | status, (success) the server's reference id `SIZE` |
//! | `IOF_DEREGISTER` | count, directives, the server's reference id | status |
//! | `IOF_PUSH` | count, targets, count, directives, the bytes (`BYTE_OBJECT`; none: end of input) | status |
//!
//! Output the server forwards arrives on `PMIX_PTL_TAG_IOF` (source
//! `PROC`, channel, our id `SIZE`, count, infos, the bytes) and reaches
//! our client as its one-way `Iof` message ([`iof_delivery`]).
//! A monitor of `PMIX_SEND_HEARTBEAT` is a beat: an empty message on
//! `PMIX_PTL_TAG_HEARTBEAT`, unanswered ([`is_heartbeat`]).
//! OpenPMIx before 6.0 has no session control command (its client
//! answers `PMIX_ERR_NOT_SUPPORTED` itself): neither has the link to such
//! a server.
//! `GROUP_INVITE` and `GROUP_JOIN` are not service commands: OpenPMIx's
//! clients invite and join by events among themselves, which the server
//! only relays; so does the bridge ([`super::invite`]).
//!
//! Invariants: a request body that does not decode never reaches the
//! server (the client hears `PMIX_ERR_BAD_PARAM`); a reply that does not
//! decode answers `PMIX_ERR_UNPACK_FAILURE`; nothing here waits. The
//! [`LinkState`] is the only memory between requests: a pull's reference
//! id is known from its reply until its deregistration, a group's
//! members from its construct until its destruct.

use std::collections::HashMap;
use std::ffi::CString;

use crate::codec::{Buffer, CodecError, Format};
use crate::group::GroupResult;
use crate::openpmix::control::{self, Control};
pub(super) use crate::openpmix::fields::{pack_infos, pack_procs};
use crate::openpmix::Command;
use crate::wire::iof::{Delivery, Deregister, Pull, Push};
use crate::wire::{group, process_mgmt, pubsub, rm, Message, Op, Response};
use crate::{DataType, Info, Key, Proc, Status, Value};

/// What the link remembers between service requests.
#[derive(Debug, Default)]
pub(super) struct LinkState {
    /// The server reads OpenPMIx 5's group layouts (a destruct names the
    /// members).
    pub(super) five: bool,
    /// The server reads OpenPMIx 6's `PMIX_SESSION_CTRL_CMD`.
    pub(super) session_control: bool,
    /// Our IOF pull id → the server's reference id for it.
    pub(super) iof_refs: HashMap<u64, usize>,
    /// Each group this process constructed → its members.
    pub(super) groups: HashMap<String, Vec<Proc>>,
}

impl LinkState {
    /// The state for a server of `version` (its `PMIX_VERSION`; none:
    /// taken as 4.x).
    pub(super) fn new(version: Option<&str>) -> LinkState {
        let major = version
            .and_then(|v| v.split('.').next())
            .and_then(|m| m.trim().parse::<u32>().ok())
            .unwrap_or(4);
        LinkState {
            five: major >= 5,
            session_control: major >= 6,
            ..LinkState::default()
        }
    }
}

/// How the server's reply to a service command reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ReplyLayout {
    /// A status alone (anything after it is dropped).
    Status,
    /// A lookup's status, count and published data.
    Lookup,
    /// A query's status, count and infos.
    Query,
    /// A control request's status and results (see
    /// [`crate::openpmix::control`]).
    Results,
    /// A spawn's status and namespace.
    Spawn,
    /// A credential's status, the credential, count and infos.
    Credential,
    /// A status, count and infos.
    Infos,
    /// A group construct's answer for group `id` asked of `procs`.
    GroupConstruct { id: String, procs: Vec<Proc> },
    /// A pull's status and the server's reference id for our `id`.
    IofPull { id: u64 },
}

/// Why a request is not sent.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum NotSent {
    /// The link does not carry this operation.
    NotCarried,
    /// Its body does not decode, or does not pack in the server's format.
    Bad(Status),
}

fn bad<E>(_: E) -> NotSent {
    NotSent::Bad(Status::ERR_BAD_PARAM)
}

fn packing(e: CodecError) -> NotSent {
    NotSent::Bad(e.status())
}

/// The stock command (and its reply's layout) for our request `op` with
/// `body`, `state` telling (and keeping) what earlier replies said.
pub(super) fn request(
    fmt: Format,
    state: &mut LinkState,
    op: Op,
    body: &[u8],
) -> Result<(Vec<u8>, ReplyLayout), NotSent> {
    let mut b = Buffer::new();
    let cmd = |b: &mut Buffer, c: Command| pack_command(fmt, b, c);
    let layout = match op {
        Op::PUBLISH => {
            let infos = pubsub::decode_publish(body).map_err(bad)?;
            cmd(&mut b, Command::PublishNb)?;
            pack_uid(fmt, &mut b).map_err(packing)?;
            pack_infos(fmt, &mut b, &infos).map_err(packing)?;
            ReplyLayout::Status
        }
        Op::LOOKUP => {
            let (keys, infos) = pubsub::decode_lookup(body).map_err(bad)?;
            cmd(&mut b, Command::LookupNb)?;
            pack_keys(fmt, &mut b, &keys, &infos).map_err(packing)?;
            ReplyLayout::Lookup
        }
        Op::UNPUBLISH => {
            let (keys, infos) = pubsub::decode_unpublish(body).map_err(bad)?;
            cmd(&mut b, Command::UnpublishNb)?;
            pack_keys(fmt, &mut b, keys.as_deref().unwrap_or(&[]), &infos).map_err(packing)?;
            ReplyLayout::Status
        }
        Op::QUERY => {
            let queries = rm::get_queries(body).map_err(bad)?;
            cmd(&mut b, Command::Query)?;
            let v: Vec<Value> = queries
                .into_iter()
                .map(|q| Value::Query(Box::new(q)))
                .collect();
            fmt.pack_value(&mut b, &Value::Size(v.len()))
                .map_err(packing)?;
            fmt.pack(&mut b, DataType::Query, &v).map_err(packing)?;
            ReplyLayout::Query
        }
        Op::LOG => {
            let (data, directives) = rm::get_two_lists(body).map_err(bad)?;
            cmd(&mut b, Command::Log)?;
            // The call's time travels among the directives already.
            fmt.pack_value(&mut b, &Value::Time(0)).map_err(packing)?;
            pack_infos(fmt, &mut b, &data).map_err(packing)?;
            pack_infos(fmt, &mut b, &directives).map_err(packing)?;
            ReplyLayout::Status
        }
        Op::JOB_CONTROL | Op::MONITOR | Op::ALLOCATE | Op::SESSION_CONTROL => {
            let c = control(state, op, body)?;
            return c
                .pack(fmt)
                .map(|bytes| (bytes, ReplyLayout::Results))
                .map_err(packing);
        }
        Op::CONNECT | Op::DISCONNECT => {
            let (procs, infos) = process_mgmt::decode_collective(body).map_err(bad)?;
            let c = if op == Op::CONNECT {
                Command::ConnectNb
            } else {
                Command::DisconnectNb
            };
            cmd(&mut b, c)?;
            pack_procs(fmt, &mut b, &procs).map_err(packing)?;
            pack_infos(fmt, &mut b, &infos).map_err(packing)?;
            ReplyLayout::Status
        }
        Op::SPAWN => {
            let (job_info, apps) = process_mgmt::decode_spawn(body).map_err(bad)?;
            cmd(&mut b, Command::SpawnNb)?;
            pack_infos(fmt, &mut b, &job_info).map_err(packing)?;
            let v: Vec<Value> = apps.into_iter().map(|a| Value::App(Box::new(a))).collect();
            fmt.pack_value(&mut b, &Value::Size(v.len()))
                .map_err(packing)?;
            fmt.pack(&mut b, DataType::App, &v).map_err(packing)?;
            ReplyLayout::Spawn
        }
        Op::GET_CREDENTIAL => {
            let directives = rm::get_list(body).map_err(bad)?;
            cmd(&mut b, Command::GetCredential)?;
            pack_infos(fmt, &mut b, &directives).map_err(packing)?;
            ReplyLayout::Credential
        }
        Op::VALIDATE_CREDENTIAL => {
            let (cred, directives) = rm::get_credential(body).map_err(bad)?;
            cmd(&mut b, Command::ValidateCred)?;
            fmt.pack_value(&mut b, &Value::ByteObject(cred))
                .map_err(packing)?;
            pack_infos(fmt, &mut b, &directives).map_err(packing)?;
            ReplyLayout::Infos
        }
        Op::GROUP_CONSTRUCT | Op::GROUP_DESTRUCT | Op::GROUP_LEAVE => {
            group_request(fmt, state, op, body, &mut b)?
        }
        Op::IOF_PULL | Op::IOF_DEREGISTER | Op::IOF_PUSH => {
            iof_request(fmt, &mut state.iof_refs, op, body, &mut b)?
        }
        _ => return Err(NotSent::NotCarried),
    };
    Ok((b.into_bytes(), layout))
}

/// Packs the stock command `c` into `b`.
fn pack_command(fmt: Format, b: &mut Buffer, c: Command) -> Result<(), NotSent> {
    fmt.pack_value(b, &Value::Command(c.into()))
        .map_err(packing)
}

/// The group commands of [`request`], packed into `b`.
fn group_request(
    fmt: Format,
    state: &mut LinkState,
    op: Op,
    body: &[u8],
    b: &mut Buffer,
) -> Result<ReplyLayout, NotSent> {
    let cmd = |b: &mut Buffer, c: Command| pack_command(fmt, b, c);
    let layout = match op {
        Op::GROUP_CONSTRUCT => {
            let (id, procs, directives) = group::decode_construct(body).map_err(bad)?;
            cmd(b, Command::GroupConstruct)?;
            pack_id(fmt, b, &id).map_err(packing)?;
            pack_procs(fmt, b, &procs).map_err(packing)?;
            pack_infos(fmt, b, &directives).map_err(packing)?;
            ReplyLayout::GroupConstruct { id, procs }
        }
        Op::GROUP_DESTRUCT | Op::GROUP_LEAVE => {
            let (id, directives) = group::decode_id(body).map_err(bad)?;
            if op == Op::GROUP_DESTRUCT {
                cmd(b, Command::GroupDestruct)?;
                pack_id(fmt, b, &id).map_err(packing)?;
                let members = state.groups.remove(&id).unwrap_or_default();
                if state.five {
                    pack_procs(fmt, b, &members).map_err(packing)?;
                }
            } else {
                cmd(b, Command::GroupLeave)?;
                pack_id(fmt, b, &id).map_err(packing)?;
            }
            pack_infos(fmt, b, &directives).map_err(packing)?;
            ReplyLayout::Status
        }
        _ => return Err(NotSent::NotCarried),
    };
    Ok(layout)
}

/// The IOF commands of [`request`], packed into `b`; `iof_refs` maps our
/// pull ids to the server's references.
fn iof_request(
    fmt: Format,
    iof_refs: &mut HashMap<u64, usize>,
    op: Op,
    body: &[u8],
    b: &mut Buffer,
) -> Result<ReplyLayout, NotSent> {
    let cmd = |b: &mut Buffer, c: Command| pack_command(fmt, b, c);
    Ok(match op {
        Op::IOF_PULL => {
            let p = Pull::decode(body).map_err(bad)?;
            let id = usize::try_from(p.id).map_err(bad)?;
            cmd(b, Command::IofPull)?;
            pack_procs(fmt, b, &p.sources).map_err(packing)?;
            pack_infos(fmt, b, &p.directives).map_err(packing)?;
            fmt.pack_value(b, &Value::IofChannel(p.channels))
                .map_err(packing)?;
            fmt.pack_value(b, &Value::Size(id)).map_err(packing)?;
            ReplyLayout::IofPull { id: p.id }
        }
        Op::IOF_DEREGISTER => {
            let d = Deregister::decode(body).map_err(bad)?;
            let Some(reference) = iof_refs.remove(&d.id) else {
                return Err(NotSent::Bad(Status::ERR_NOT_FOUND));
            };
            cmd(b, Command::IofDereg)?;
            pack_infos(fmt, b, &d.directives).map_err(packing)?;
            fmt.pack_value(b, &Value::Size(reference))
                .map_err(packing)?;
            ReplyLayout::Status
        }
        Op::IOF_PUSH => {
            let p = Push::decode(body).map_err(bad)?;
            cmd(b, Command::IofPush)?;
            pack_procs(fmt, b, &p.targets).map_err(packing)?;
            pack_infos(fmt, b, &p.directives).map_err(packing)?;
            if let Some(data) = p.data {
                fmt.pack_value(b, &Value::ByteObject(data))
                    .map_err(packing)?;
            }
            ReplyLayout::Status
        }
        _ => return Err(NotSent::NotCarried),
    })
}

/// Our response from the rest of the server's reply `b` (its status
/// `status` read already), as `layout` reads; what the reply tells for
/// later requests goes into `state`.
pub(super) fn response(
    fmt: Format,
    state: &mut LinkState,
    layout: ReplyLayout,
    status: Status,
    b: &mut Buffer,
) -> Response {
    let only = |status| Response {
        status,
        body: vec![],
    };
    let succeeded = status == Status::SUCCESS;
    // Whether the reply carries more than its status for our client.
    let carries = match layout {
        ReplyLayout::Status => false,
        ReplyLayout::Results => control::carries_results(status),
        ReplyLayout::Spawn
        | ReplyLayout::Credential
        | ReplyLayout::Infos
        | ReplyLayout::GroupConstruct { .. }
        | ReplyLayout::IofPull { .. } => succeeded,
        ReplyLayout::Lookup => succeeded || status == Status::ERR_PARTIAL_SUCCESS,
        ReplyLayout::Query => succeeded || b.remaining() > 0,
    };
    if !carries {
        return only(status);
    }
    // A control request's partial success keeps its status.
    let answered = if layout == ReplyLayout::Results {
        status
    } else {
        Status::SUCCESS
    };
    let body = match layout {
        ReplyLayout::Status => return only(status),
        ReplyLayout::Results => control::unpack_results(fmt, status, b)
            .and_then(|l| rm::put_list(&l))
            .map_err(|e| e.status()),
        ReplyLayout::Lookup => lookup_body(fmt, status, b),
        ReplyLayout::Query => query_body(fmt, status, b),
        ReplyLayout::Spawn => match fmt.unpack_value(b, DataType::String) {
            Ok(Value::String(Some(ns))) => crate::Nspace::new(ns.as_bytes())
                .map_err(|_| Status::ERR_UNPACK_FAILURE)
                .and_then(|ns| process_mgmt::encode_nspace(&ns)),
            _ => Err(Status::ERR_UNPACK_FAILURE),
        },
        ReplyLayout::Credential => credential_body(fmt, b),
        ReplyLayout::Infos => infos(fmt, b).and_then(|l| rm::put_list(&l).map_err(|e| e.status())),
        ReplyLayout::GroupConstruct { id, procs } => construct_body(fmt, state, id, procs, b),
        ReplyLayout::IofPull { id } => match fmt.unpack_value(b, DataType::Size) {
            Ok(Value::Size(reference)) => {
                state.iof_refs.insert(id, reference);
                Ok(Vec::new())
            }
            _ => Err(Status::ERR_UNPACK_FAILURE),
        },
    };
    match body {
        Ok(body) => Response {
            status: answered,
            body,
        },
        Err(_) => only(Status::ERR_UNPACK_FAILURE),
    }
}

/// True if our request `op` with `body` is a monitor of
/// `PMIX_SEND_HEARTBEAT`: OpenPMIx's client sends that as an empty
/// message on `PMIX_PTL_TAG_HEARTBEAT`, which the server does not answer,
/// and so does the link (the call then succeeds at once).
pub(super) fn is_heartbeat(op: Op, body: &[u8]) -> bool {
    op == Op::MONITOR
        && rm::get_monitor(body)
            .is_ok_and(|(what, _, _)| what.key.as_bytes() == crate::keys::SEND_HEARTBEAT.as_bytes())
}

/// Our control request `op` with `body` as the stock one; session
/// control is not carried to a server before OpenPMIx 6.
fn control(state: &LinkState, op: Op, body: &[u8]) -> Result<Control, NotSent> {
    Ok(match op {
        Op::JOB_CONTROL => {
            let (targets, directives) = rm::get_job_control(body).map_err(bad)?;
            Control::JobControl {
                targets,
                directives,
            }
        }
        Op::MONITOR => {
            let (what, error, directives) = rm::get_monitor(body).map_err(bad)?;
            Control::Monitor {
                what,
                error,
                directives,
            }
        }
        Op::ALLOCATE => {
            let (directive, infos) = rm::get_allocate(body).map_err(bad)?;
            Control::Allocate { directive, infos }
        }
        _ if !state.session_control => return Err(NotSent::NotCarried),
        _ => {
            let (session, directives) = rm::get_session_control(body).map_err(bad)?;
            Control::SessionControl {
                session,
                directives,
            }
        }
    })
}

fn lookup_body(fmt: Format, status: Status, b: &mut Buffer) -> Result<Vec<u8>, Status> {
    let found: Vec<pubsub::PublishedValue> = counted(fmt, b, DataType::PData)?
        .into_iter()
        .map(|v| match v {
            Value::PData(p) => Ok(pubsub::PublishedValue {
                publisher: p.proc,
                key: p.key,
                value: p.value,
            }),
            _ => Err(Status::ERR_UNPACK_FAILURE),
        })
        .collect::<Result<_, _>>()?;
    pubsub::encode_lookup_reply(status, &found)
}

fn query_body(fmt: Format, status: Status, b: &mut Buffer) -> Result<Vec<u8>, Status> {
    rm::put_query_answer(status, &infos(fmt, b)?).map_err(|e| e.status())
}

/// A `SIZE` count, then that many infos.
fn infos(fmt: Format, b: &mut Buffer) -> Result<Vec<Info>, Status> {
    counted(fmt, b, DataType::Info)?
        .into_iter()
        .map(|v| match v {
            Value::Info(i) => Ok(*i),
            _ => Err(Status::ERR_UNPACK_FAILURE),
        })
        .collect()
}

fn credential_body(fmt: Format, b: &mut Buffer) -> Result<Vec<u8>, Status> {
    let Ok(Value::ByteObject(cred)) = fmt.unpack_value(b, DataType::ByteObject) else {
        return Err(Status::ERR_UNPACK_FAILURE);
    };
    rm::put_credential(&cred, &infos(fmt, b)?).map_err(|e| e.status())
}

fn size(fmt: Format, b: &mut Buffer) -> Result<usize, Status> {
    match fmt.unpack_value(b, DataType::Size) {
        Ok(Value::Size(n)) => Ok(n),
        _ => Err(Status::ERR_UNPACK_FAILURE),
    }
}

/// A successful construct's rest, either release's: 4.x sends at most
/// the context id, 5.x the members and then the context id (`SIZE_MAX`:
/// none), and whatever job data follows is dropped. Without members in
/// the reply (or with none) the group is the procs asked for.
fn construct_body(
    fmt: Format,
    state: &mut LinkState,
    id: String,
    procs: Vec<Proc>,
    b: &mut Buffer,
) -> Result<Vec<u8>, Status> {
    let (members, context) = if b.remaining() == 0 {
        (Vec::new(), None)
    } else {
        let first = size(fmt, b)?;
        if b.remaining() == 0 {
            (Vec::new(), Some(first))
        } else {
            let members = if first == 0 {
                Vec::new()
            } else if first > b.remaining() {
                return Err(Status::ERR_UNPACK_FAILURE);
            } else {
                fmt.unpack(b, DataType::Proc, first)
                    .map_err(|e| e.status())?
                    .into_iter()
                    .map(|v| match v {
                        Value::Proc(p) => Ok(p),
                        _ => Err(Status::ERR_UNPACK_FAILURE),
                    })
                    .collect::<Result<Vec<_>, _>>()?
            };
            (members, Some(size(fmt, b)?))
        }
    };
    // PRRTE answers a whole-namespace construct with no members: the
    // group is then the procs asked for, as with 4.x.
    let members = if members.is_empty() { procs } else { members };
    let context_id = context.filter(|&c| c != usize::MAX).map(|c| c as u64);
    state.groups.insert(id.clone(), members.clone());
    group::encode_result(&GroupResult {
        status: Status::SUCCESS,
        id,
        context_id,
        members,
        info: Vec::new(),
    })
}

/// A message the server sent on `PMIX_PTL_TAG_IOF` as our client's
/// `Iof` message; `None` if it does not decode.
pub(super) fn iof_delivery(fmt: Format, payload: Vec<u8>) -> Option<Message> {
    let mut b = Buffer::from_bytes(payload);
    let Ok(Value::Proc(source)) = fmt.unpack_value(&mut b, DataType::Proc) else {
        return None;
    };
    let Ok(Value::IofChannel(channel)) = fmt.unpack_value(&mut b, DataType::IofChannel) else {
        return None;
    };
    let id = size(fmt, &mut b).ok()? as u64;
    let infos = infos(fmt, &mut b).ok()?;
    let Ok(Value::ByteObject(data)) = fmt.unpack_value(&mut b, DataType::ByteObject) else {
        return None;
    };
    let d = Delivery {
        ids: vec![id],
        source,
        channel,
        data,
        infos,
    };
    d.encode().ok().map(Message::Iof)
}

/// A group id as a `STRING`.
fn pack_id(fmt: Format, b: &mut Buffer, id: &str) -> Result<(), CodecError> {
    let s = CString::new(id).map_err(|_| CodecError::BadParam("group id"))?;
    fmt.pack_value(b, &Value::String(Some(s)))
}

/// A `SIZE` count, then that many values of type `t`.
fn counted(fmt: Format, b: &mut Buffer, t: DataType) -> Result<Vec<Value>, Status> {
    let n = match fmt.unpack_value(b, DataType::Size) {
        Ok(Value::Size(n)) => n,
        _ => return Err(Status::ERR_UNPACK_FAILURE),
    };
    if n == 0 {
        return Ok(Vec::new());
    }
    // Each value takes at least a byte: a larger count is a lie.
    if n > b.remaining() {
        return Err(Status::ERR_UNPACK_FAILURE);
    }
    fmt.unpack(b, t, n).map_err(|e| e.status())
}

fn pack_uid(fmt: Format, b: &mut Buffer) -> Result<(), CodecError> {
    fmt.pack_value(b, &Value::Uint32(crate::sys::my_ids().0))
}

/// The uid, the keys (count and strings), the directives.
fn pack_keys(fmt: Format, b: &mut Buffer, keys: &[Key], infos: &[Info]) -> Result<(), CodecError> {
    pack_uid(fmt, b)?;
    fmt.pack_value(b, &Value::Size(keys.len()))?;
    for k in keys {
        fmt.pack_value(b, &Value::String(CString::new(k.as_bytes()).ok()))?;
    }
    pack_infos(fmt, b, infos)
}
