//! Our answers as the replies a stock peer's command expects, packed in
//! the peer's buffer format.
//!
//! - init (`PMIX_REQ_CMD`): the namespace (`PMIX_STRING`), then one
//!   `PMIX_KVAL` per entry of [`job_info::entries`] read from the job
//!   segment the loop attached; a rank's data is a `PMIX_PROC_BLOB` kval
//!   whose byte object holds `PMIX_PROC_RANK` then its kvals. No status.
//! - get: `PMIX_STATUS`, then on success `PMIX_BYTE_OBJECT`s, each holding
//!   a `PMIX_PROC` and its `PMIX_KVAL`s (from the job segment, or one per
//!   process record of a direct-modex reply). The job's whole data (asked
//!   about another namespace, or for every key) is one byte object under
//!   the WILDCARD rank: the init reply's pairs, each rank's in a
//!   `PMIX_PROC_DATA` array led by `PMIX_RANK`.
//! - query: `PMIX_STATUS`, `PMIX_SIZE` count, the infos (if any); lookup
//!   the same with `PMIX_PDATA`s.
//! - spawn, job control, monitor, allocation, credentials: see
//!   [`super::control`]; group construct: see [`super::groups`]; IOF
//!   pull and forwarded output: see [`super::iof`]; resolve peers and
//!   node: see [`super::resolve`].
//! - everything else: a `PMIX_STATUS`.
//! - an event (unsolicited, on tag 0): `PMIX_COMMAND` (notify), the code
//!   (`PMIX_STATUS`), the source (`PMIX_PROC`), the info count
//!   (`PMIX_SIZE`) and, if any, the infos in one pack.
//!
//! Invariant: a reply is always produced — a value the peer's format
//! cannot carry, or a job segment that cannot be read, turns the reply
//! into an error status (or, for init, a reply without entries, which the
//! peer's library reports as a failed init), never a panic.

use std::ffi::CString;
use std::os::fd::{AsFd, OwnedFd};

use super::request::{Peer, Pending};
use crate::codec::{Buffer, CodecError, Format};
use crate::openpmix::job_info::{self, Entry, Pair};
use crate::value::Kval;
use crate::wire::{Message, SegmentKind};
use crate::{keys, DataType, Proc, Rank, Status, Value};

/// A reply holding `status` alone.
pub(in crate::server) fn status_only(fmt: Format, status: Status) -> Vec<u8> {
    let mut b = Buffer::new();
    // A status always packs in every format we accept.
    let _ = fmt.pack_value(&mut b, &Value::Status(status.0));
    b.into_bytes()
}

/// The reply to the request `pending` of `peer`, from our answer `msg`
/// and its descriptors.
pub(in crate::server) fn reply(
    peer: &Peer,
    hostname: &str,
    pending: &Pending,
    msg: &Message,
    fds: &[OwnedFd],
) -> Vec<u8> {
    let fmt = peer.format.codec();
    match (pending, msg) {
        (Pending::Init, Message::NspaceReply(r)) => {
            let entries = job_entries(peer, hostname, &r.segments, fds).unwrap_or_default();
            init_reply(fmt, peer, &entries)
                .unwrap_or_else(|_| init_reply(fmt, peer, &[]).unwrap_or_default())
        }
        (Pending::GetJob { proc, key, whole }, Message::NspaceReply(r))
            if r.status == Status::SUCCESS =>
        {
            let entries = job_entries(peer, hostname, &r.segments, fds);
            let found = match (key.as_deref(), *whole) {
                (Some(key), false) => entries
                    .and_then(|e| job_get(&e, proc, key))
                    .map(|pairs| vec![(proc.clone(), pairs)]),
                _ => entries.map(|e| {
                    let job = Proc::new(proc.nspace.clone(), Rank::WILDCARD);
                    vec![(job, whole_job(e))]
                }),
            };
            match found {
                Some(recs) => {
                    get_reply(fmt, &recs).unwrap_or_else(|e| status_only(fmt, e.status()))
                }
                None => status_only(fmt, Status::ERR_NOT_FOUND),
            }
        }
        (Pending::GetModex, Message::DmodexReply(r)) if r.status == Status::SUCCESS => {
            match modex_records(&r.data) {
                Some(recs) => {
                    get_reply(fmt, &recs).unwrap_or_else(|e| status_only(fmt, e.status()))
                }
                None => status_only(fmt, Status::ERR_UNPACK_FAILURE),
            }
        }
        (Pending::Query, Message::Response(r)) => {
            query_reply(fmt, r).unwrap_or_else(|_| status_only(fmt, Status::ERR_PACK_FAILURE))
        }
        (Pending::Lookup, Message::Response(r)) => {
            lookup_reply(fmt, r).unwrap_or_else(|_| status_only(fmt, Status::ERR_PACK_FAILURE))
        }
        (Pending::Spawn, Message::Response(r)) => super::control::spawn_reply(fmt, r)
            .unwrap_or_else(|_| status_only(fmt, Status::ERR_PACK_FAILURE)),
        (Pending::Infos, Message::Response(r)) => super::control::infos_reply(fmt, r)
            .unwrap_or_else(|_| status_only(fmt, Status::ERR_PACK_FAILURE)),
        (Pending::Credential, Message::Response(r)) => super::control::credential_reply(fmt, r)
            .unwrap_or_else(|_| status_only(fmt, Status::ERR_PACK_FAILURE)),
        (Pending::GroupConstruct { members }, Message::Response(r)) => {
            super::groups::construct_reply(fmt, *members, r)
                .unwrap_or_else(|_| status_only(fmt, Status::ERR_PACK_FAILURE))
        }
        (Pending::ResolvePeers { nspace, node }, Message::NspaceReply(r))
            if r.status == Status::SUCCESS =>
        {
            let entries = job_entries(peer, hostname, &r.segments, fds).unwrap_or_default();
            super::resolve::peers_reply(fmt, &entries, nspace, node.as_deref(), hostname)
                .unwrap_or_else(|_| status_only(fmt, Status::ERR_PACK_FAILURE))
        }
        (Pending::ResolveNode, Message::NspaceReply(r)) if r.status == Status::SUCCESS => {
            let entries = job_entries(peer, hostname, &r.segments, fds).unwrap_or_default();
            super::resolve::nodes_reply(fmt, &entries)
                .unwrap_or_else(|_| status_only(fmt, Status::ERR_PACK_FAILURE))
        }
        (Pending::IofPull { id }, Message::Response(r)) => super::iof::pull_reply(fmt, *id, r)
            .unwrap_or_else(|_| status_only(fmt, Status::ERR_PACK_FAILURE)),
        (_, m) => status_only(fmt, status_of(m)),
    }
}

/// An event in our encoding (`body` of [`Message::Event`]) as a
/// notification for a stock peer; `None` if it does not decode or the
/// peer's format cannot carry it.
pub(in crate::server) fn notify(fmt: Format, body: &[u8]) -> Option<Vec<u8>> {
    let ev = crate::events::decode_event(body).ok()?;
    let mut b = Buffer::new();
    let cmd = u8::from(crate::openpmix::Command::Notify);
    fmt.pack_value(&mut b, &Value::Command(cmd)).ok()?;
    fmt.pack_value(&mut b, &Value::Status(ev.status.0)).ok()?;
    fmt.pack(&mut b, DataType::Proc, &[Value::Proc(ev.source)])
        .ok()?;
    fmt.pack_value(&mut b, &Value::Size(ev.infos.len())).ok()?;
    if !ev.infos.is_empty() {
        let infos: Vec<Value> = ev
            .infos
            .into_iter()
            .map(|i| Value::Info(Box::new(i)))
            .collect();
        fmt.pack(&mut b, DataType::Info, &infos).ok()?;
    }
    Some(b.into_bytes())
}

/// A query's answer: its status, the count of infos and the infos.
fn query_reply(fmt: Format, r: &crate::wire::Response) -> Result<Vec<u8>, CodecError> {
    let (status, infos) = if r.status == Status::SUCCESS || !r.body.is_empty() {
        crate::wire::rm::get_query_answer(&r.body)?
    } else {
        (r.status, Vec::new())
    };
    let mut b = Buffer::new();
    fmt.pack_value(&mut b, &Value::Status(status.0))?;
    super::fields::pack_infos(fmt, &mut b, &infos)?;
    Ok(b.into_bytes())
}

/// A lookup's answer: its status, the count and the values found as
/// `pmix_pdata_t`s.
fn lookup_reply(fmt: Format, r: &crate::wire::Response) -> Result<Vec<u8>, CodecError> {
    let (status, found) = if r.body.is_empty() {
        (r.status, Vec::new())
    } else {
        crate::wire::pubsub::decode_lookup_reply(&r.body)
            .map_err(|_| CodecError::BadParam("lookup reply"))?
    };
    let mut b = Buffer::new();
    fmt.pack_value(&mut b, &Value::Status(status.0))?;
    fmt.pack_value(&mut b, &Value::Size(found.len()))?;
    if !found.is_empty() {
        let v: Vec<Value> = found
            .into_iter()
            .map(|p| {
                Value::PData(Box::new(crate::value::PData {
                    proc: p.publisher,
                    key: p.key,
                    value: p.value,
                }))
            })
            .collect();
        fmt.pack(&mut b, DataType::PData, &v)?;
    }
    Ok(b.into_bytes())
}

/// The status our answer carries.
fn status_of(m: &Message) -> Status {
    match m {
        Message::FenceRelease(r) => r.status,
        Message::DmodexReply(r) => r.status,
        Message::NspaceReply(r) => r.status,
        Message::AbortReply(s) | Message::FinalizeReply(s) => *s,
        Message::Response(r) => r.status,
        _ => Status::ERROR,
    }
}

/// The job data of the job segment among `segments` (its descriptor at
/// the same position in `fds`).
fn job_entries(
    peer: &Peer,
    hostname: &str,
    segments: &[crate::wire::SegmentRef],
    fds: &[OwnedFd],
) -> Option<Vec<Entry>> {
    let at = segments.iter().position(|s| s.kind == SegmentKind::Job)?;
    let seg = pmix_shmem::Segment::from_fd(fds.get(at)?.as_fd()).ok()?;
    job_info::entries(&seg, peer.release, hostname).ok()
}

fn kval(p: &Pair) -> Value {
    Value::Kval(Box::new(Kval {
        key: CString::new(p.key.as_bytes()).ok(),
        value: Some(Box::new(p.value.clone())),
    }))
}

/// Packs `pairs` as kvals, leaving out those the peer's format cannot
/// carry (the client then does not see them, rather than failing).
fn pack_pairs(fmt: Format, b: &mut Buffer, pairs: &[Pair]) {
    for p in pairs {
        let mut one = Buffer::new();
        if fmt.pack_value(&mut one, &kval(p)).is_ok() {
            b.extend_from_slice(one.as_bytes());
        }
    }
}

fn init_reply(fmt: Format, peer: &Peer, entries: &[Entry]) -> Result<Vec<u8>, CodecError> {
    let mut b = Buffer::new();
    let ns = CString::new(peer.proc.nspace.as_bytes()).ok();
    fmt.pack_value(&mut b, &Value::String(ns))?;
    for e in entries {
        match e {
            Entry::Pair(p) => pack_pairs(fmt, &mut b, std::slice::from_ref(p)),
            Entry::ProcBlob { rank, pairs } => {
                let mut inner = Buffer::new();
                fmt.pack_value(&mut inner, &Value::ProcRank(*rank))?;
                pack_pairs(fmt, &mut inner, pairs);
                let blob = Pair {
                    key: crate::Key::new(keys::PROC_BLOB)
                        .map_err(|_| CodecError::BadParam("key"))?,
                    value: Value::ByteObject(inner.into_bytes()),
                };
                pack_pairs(fmt, &mut b, std::slice::from_ref(&blob));
            }
        }
    }
    Ok(b.into_bytes())
}

/// The job data `entries` as the pairs of one get answer, as OpenPMIx's
/// server assembles a job's whole data: a rank's pairs go in a
/// `PMIX_PROC_DATA` array led by its `PMIX_RANK` (the one form a
/// client's `gds/hash` stores under that rank on a get; a
/// `PMIX_PROC_BLOB` it knows only in its init reply).
fn whole_job(entries: Vec<Entry>) -> Vec<Pair> {
    entries
        .into_iter()
        .filter_map(|e| match e {
            Entry::Pair(p) => Some(p),
            Entry::ProcBlob { rank, pairs } => {
                let lead = crate::Info::keyed(keys::RANK, Value::ProcRank(rank))?;
                let infos = std::iter::once(lead)
                    .chain(pairs.into_iter().map(|p| crate::Info::new(p.key, p.value)))
                    .collect();
                Some(Pair {
                    key: crate::Key::new(keys::PROC_DATA).ok()?,
                    value: Value::info_array(infos),
                })
            }
        })
        .collect()
}

/// What a get of `key` for `proc` finds in the job data: its job-level
/// pair for WILDCARD, else the proc's pair (or the job's) of that key.
fn job_get(entries: &[Entry], proc: &Proc, key: &str) -> Option<Vec<Pair>> {
    let plain = entries.iter().filter_map(|e| match e {
        Entry::Pair(p) => Some(p),
        Entry::ProcBlob { .. } => None,
    });
    let matches = |p: &&Pair| p.key.as_bytes() == key.as_bytes();
    let own = entries.iter().find_map(|e| match e {
        Entry::ProcBlob { rank, pairs } if *rank == proc.rank.0 => Some(pairs),
        _ => None,
    });
    let found: Vec<Pair> = if proc.rank == Rank::WILDCARD {
        Vec::new()
    } else {
        own.into_iter().flatten().filter(matches).cloned().collect()
    };
    if !found.is_empty() {
        return Some(found);
    }
    let job: Vec<Pair> = plain.filter(matches).cloned().collect();
    (!job.is_empty()).then_some(job)
}

/// A direct-modex blob's records as (proc, pairs).
fn modex_records(blob: &[u8]) -> Option<Vec<(Proc, Vec<Pair>)>> {
    let recs = crate::wire::blob::decode(blob).ok()?;
    Some(
        recs.into_iter()
            .map(|r| {
                let pairs = r
                    .posted
                    .into_iter()
                    .map(|p| Pair {
                        key: p.key,
                        value: p.value,
                    })
                    .collect();
                (r.proc, pairs)
            })
            .collect(),
    )
}

fn get_reply(fmt: Format, recs: &[(Proc, Vec<Pair>)]) -> Result<Vec<u8>, CodecError> {
    let mut b = Buffer::new();
    fmt.pack_value(&mut b, &Value::Status(Status::SUCCESS.0))?;
    for (proc, pairs) in recs {
        let mut inner = Buffer::new();
        fmt.pack(&mut inner, DataType::Proc, &[Value::Proc(proc.clone())])?;
        pack_pairs(fmt, &mut inner, pairs);
        fmt.pack_value(&mut b, &Value::ByteObject(inner.into_bytes()))?;
    }
    Ok(b.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Key;

    fn pair(key: &str, value: Value) -> Pair {
        Pair {
            key: Key::new(key).unwrap(),
            value,
        }
    }

    fn one(fmt: Format, b: &mut Buffer, t: DataType) -> Value {
        super::super::fields::one(fmt, b, t).unwrap()
    }

    #[test]
    fn a_jobs_whole_data_carries_each_ranks_pairs_in_a_proc_data_array() {
        let fmt = Format::DATA_PACK;
        let entries = vec![
            Entry::Pair(pair(keys::JOB_SIZE, Value::Uint32(2))),
            Entry::ProcBlob {
                rank: 1,
                pairs: vec![pair(keys::LOCAL_RANK, Value::Uint16(1))],
            },
        ];
        let job = Proc::new(crate::Nspace::new("job").unwrap(), Rank::WILDCARD);
        let bytes = get_reply(fmt, &[(job.clone(), whole_job(entries))]).unwrap();
        let mut b = Buffer::from_bytes(bytes);
        assert_eq!(one(fmt, &mut b, DataType::Status), Value::Status(0));
        let Value::ByteObject(blob) = one(fmt, &mut b, DataType::ByteObject) else {
            panic!("no byte object");
        };
        assert_eq!(b.remaining(), 0, "one byte object");
        let mut blob = Buffer::from_bytes(blob);
        assert_eq!(one(fmt, &mut blob, DataType::Proc), Value::Proc(job));
        let kval = |b: &mut Buffer| match one(fmt, b, DataType::Kval) {
            Value::Kval(kv) => (kv.key.unwrap().into_string().unwrap(), *kv.value.unwrap()),
            v => panic!("not a kval: {v:?}"),
        };
        assert_eq!(
            kval(&mut blob),
            (keys::JOB_SIZE.to_owned(), Value::Uint32(2))
        );
        let (key, value) = kval(&mut blob);
        assert_eq!(key, keys::PROC_DATA);
        let Value::DataArray(arr) = value else {
            panic!("not an array: {value:?}");
        };
        let infos: Vec<(String, Value)> = arr
            .items
            .iter()
            .map(|v| match v {
                Value::Info(i) => (
                    String::from_utf8_lossy(i.key.as_bytes()).into_owned(),
                    i.value.clone(),
                ),
                v => panic!("not an info: {v:?}"),
            })
            .collect();
        assert_eq!(
            infos,
            vec![
                (keys::RANK.to_owned(), Value::ProcRank(1)),
                (keys::LOCAL_RANK.to_owned(), Value::Uint16(1)),
            ]
        );
        assert_eq!(blob.remaining(), 0);
    }
}
