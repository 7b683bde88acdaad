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
//! | `JOB_CONTROL` | count, targets `PROC`s, count, directives | status (then results, dropped) |
//! | `CONNECT`, `DISCONNECT` | count, `PROC`s, count, infos | status (then the other jobs' data, dropped) |
//! | `SPAWN` | count, job infos, count, `APP`s | status, the new namespace `STRING` |
//!
//! Invariants: a request body that does not decode never reaches the
//! server (the client hears `PMIX_ERR_BAD_PARAM`); a reply that does not
//! decode answers `PMIX_ERR_UNPACK_FAILURE`; nothing here waits.

use std::ffi::CString;

use crate::codec::{Buffer, CodecError, Format};
use crate::openpmix::Command;
use crate::wire::{process_mgmt, pubsub, rm, Op, Response};
use crate::{DataType, Info, Key, Proc, Status, Value};

/// How the server's reply to a service command reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ReplyLayout {
    /// A status alone (anything after it is dropped).
    Status,
    /// A lookup's status, count and published data.
    Lookup,
    /// A query's status, count and infos.
    Query,
    /// A status, answered to our client as that status and no results
    /// (what the server adds is dropped).
    NoResults,
    /// A spawn's status and namespace.
    Spawn,
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
/// `body`.
pub(super) fn request(fmt: Format, op: Op, body: &[u8]) -> Result<(Vec<u8>, ReplyLayout), NotSent> {
    let mut b = Buffer::new();
    let cmd = |b: &mut Buffer, c: Command| {
        fmt.pack_value(b, &Value::Command(c.into()))
            .map_err(packing)
    };
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
        Op::JOB_CONTROL => {
            let (targets, directives) = rm::get_job_control(body).map_err(bad)?;
            cmd(&mut b, Command::JobControl)?;
            pack_procs(fmt, &mut b, &targets).map_err(packing)?;
            pack_infos(fmt, &mut b, &directives).map_err(packing)?;
            ReplyLayout::NoResults
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
        _ => return Err(NotSent::NotCarried),
    };
    Ok((b.into_bytes(), layout))
}

/// Our response from the rest of the server's reply `b` (its status
/// `status` read already), as `layout` reads.
pub(super) fn response(
    fmt: Format,
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
        ReplyLayout::NoResults | ReplyLayout::Spawn => succeeded,
        ReplyLayout::Lookup => succeeded || status == Status::ERR_PARTIAL_SUCCESS,
        ReplyLayout::Query => succeeded || b.remaining() > 0,
    };
    if !carries {
        return only(status);
    }
    let body = match layout {
        ReplyLayout::Status => return only(status),
        ReplyLayout::NoResults => rm::put_list(&[]).map_err(|e| e.status()),
        ReplyLayout::Lookup => lookup_body(fmt, status, b),
        ReplyLayout::Query => query_body(fmt, status, b),
        ReplyLayout::Spawn => match fmt.unpack_value(b, DataType::String) {
            Ok(Value::String(Some(ns))) => crate::Nspace::new(ns.as_bytes())
                .map_err(|_| Status::ERR_UNPACK_FAILURE)
                .and_then(|ns| process_mgmt::encode_nspace(&ns)),
            _ => Err(Status::ERR_UNPACK_FAILURE),
        },
    };
    match body {
        Ok(body) => Response {
            status: Status::SUCCESS,
            body,
        },
        Err(_) => only(Status::ERR_UNPACK_FAILURE),
    }
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
    let infos: Vec<Info> = counted(fmt, b, DataType::Info)?
        .into_iter()
        .map(|v| match v {
            Value::Info(i) => Ok(*i),
            _ => Err(Status::ERR_UNPACK_FAILURE),
        })
        .collect::<Result<_, _>>()?;
    rm::put_query_answer(status, &infos).map_err(|e| e.status())
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

/// A `SIZE` count, then the procs.
pub(super) fn pack_procs(fmt: Format, b: &mut Buffer, procs: &[Proc]) -> Result<(), CodecError> {
    fmt.pack_value(b, &Value::Size(procs.len()))?;
    if !procs.is_empty() {
        let v: Vec<Value> = procs.iter().cloned().map(Value::Proc).collect();
        fmt.pack(b, DataType::Proc, &v)?;
    }
    Ok(())
}

/// A `SIZE` count, then the infos.
pub(super) fn pack_infos(fmt: Format, b: &mut Buffer, infos: &[Info]) -> Result<(), CodecError> {
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
