//! The server's publish/lookup service: decodes `PUBLISH`, `LOOKUP` and
//! `UNPUBLISH` requests (bodies in [`crate::wire::pubsub`]), adds the
//! caller's `PMIX_USERID` and `PMIX_GRPID` (what its connection proved, as
//! the standard requires of the library), and hands the operation to the
//! host's `publish` / `lookup` / `unpublish` with the caller as the
//! publishing or requesting process. The host is the datastore (OpenPMIx
//! stores nothing itself either); [`super::PublishedData`] is one a host
//! can use.
//!
//! A lookup's answer status is derived from what the host found: every
//! requested key → `PMIX_SUCCESS`, some → `PMIX_ERR_PARTIAL_SUCCESS`
//! (both with the data), none → the host's error or `PMIX_ERR_NOT_FOUND`.
//!
//! Invariant: the identity the host gets with a publish or lookup is the
//! one the caller's connection proved (`PMIX_USERID`/`PMIX_GRPID` given by
//! the caller are replaced); every request gets one answer.

use super::clients::connections::Caller;
use super::state::State;
use crate::wire::pubsub::{self, PublishedValue};
use crate::wire::{Op, Request};
use crate::{keys, Info, Key, Proc, Status, Value};

/// Serves one publish/lookup/unpublish request from `proc`.
pub(super) fn serve(st: &mut State, caller: Caller, proc: &Proc, req: &Request) {
    let r = match req.op {
        Op::PUBLISH => publish(st, caller, proc, &req.body),
        Op::LOOKUP => lookup(st, caller, proc, &req.body),
        _ => unpublish(st, caller, proc, &req.body),
    };
    if let Err(s) = r {
        st.respond(caller, Err(s));
    }
}

/// The caller's infos plus its effective ids.
fn with_ids(st: &State, proc: &Proc, mut infos: Vec<Info>) -> Result<Vec<Info>, Status> {
    // A client's ids as its host registered them; a tool's from its
    // socket's credentials (tools are not registered).
    let (uid, gid) = st
        .registry()
        .ids_of(proc)
        .or_else(|| st.conns().peer_creds(proc).map(|c| (c.uid, c.gid)))
        .ok_or(Status::ERR_NOT_FOUND)?;
    infos.retain(|i| {
        i.key.as_bytes() != keys::USERID.as_bytes() && i.key.as_bytes() != keys::GRPID.as_bytes()
    });
    for (k, v) in [(keys::USERID, uid), (keys::GRPID, gid)] {
        infos.push(Info::new(Key::new(k)?, Value::Uint32(v)));
    }
    Ok(infos)
}

fn publish(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) -> Result<(), Status> {
    let infos = with_ids(st, proc, pubsub::decode_publish(body).map_err(bad_request)?)?;
    let host = st.host();
    let (op, done) = st.host_op::<()>(caller, |()| Ok(Vec::new()));
    if let Err(s) = host.publish(proc, &infos, done) {
        st.finish_service(op, Err(s));
    }
    Ok(())
}

fn lookup(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) -> Result<(), Status> {
    let (keys, infos) = pubsub::decode_lookup(body).map_err(bad_request)?;
    let infos = with_ids(st, proc, infos)?;
    let host = st.host();
    let wanted = keys.clone();
    let (op, done) =
        st.host_op::<Vec<PublishedValue>>(caller, move |found| lookup_reply(&wanted, found));
    if let Err(s) = host.lookup(proc, &keys, &infos, done) {
        st.finish_service(op, Err(s));
    }
    Ok(())
}

fn unpublish(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) -> Result<(), Status> {
    let (keys, infos) = pubsub::decode_unpublish(body).map_err(bad_request)?;
    let infos = with_ids(st, proc, infos)?;
    let host = st.host();
    let (op, done) = st.host_op::<()>(caller, |()| Ok(Vec::new()));
    if let Err(s) = host.unpublish(proc, keys.as_deref().unwrap_or(&[]), &infos, done) {
        st.finish_service(op, Err(s));
    }
    Ok(())
}

/// A request body that does not decode: the caller's mistake.
fn bad_request(_: crate::wire::WireError) -> Status {
    Status::ERR_BAD_PARAM
}

/// The response body of a lookup that found `found` (only values of
/// requested keys are kept, one per key).
fn lookup_reply(wanted: &[Key], found: Vec<PublishedValue>) -> Result<Vec<u8>, Status> {
    let mut kept: Vec<PublishedValue> = Vec::with_capacity(found.len());
    for v in found {
        if wanted.contains(&v.key) && !kept.iter().any(|k| k.key == v.key) {
            kept.push(v);
        }
    }
    if kept.is_empty() {
        return Err(Status::ERR_NOT_FOUND);
    }
    let all = wanted.iter().all(|k| kept.iter().any(|v| &v.key == k));
    let status = if all {
        Status::SUCCESS
    } else {
        Status::ERR_PARTIAL_SUCCESS
    };
    pubsub::encode_lookup_reply(status, &kept)
}
