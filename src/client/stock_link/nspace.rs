//! Another namespace's job data on the stock link (a tool's first get of
//! a job the server hosts, a client's of a job it spawned): our client's
//! `NspaceRequest` becomes a `PMIX_GETNB_CMD` of the namespace's wildcard
//! rank without a key, which an OpenPMIx server answers with the job's
//! data (`get_job_data`: byte objects of a process and its kvals); the
//! bridge makes them into a job segment, as init does with its own, and
//! sends it with the `NspaceReply` our server would send.
//!
//! Invariant: every segment the link hands its client has a generation
//! none before it had (the client maps a generation once); init's is 1.

use std::ffi::CString;
use std::os::fd::OwnedFd;

use crate::codec::{Buffer, CodecError, Format};
use crate::wire::{Message, NspaceReply, SegmentKind, SegmentRef};
use crate::{Info, Nspace, Rank, Status, Value};

use super::kvals::proc_blobs;

/// The request's body after its command: the namespace, its wildcard
/// rank, no directives, and no key at all (a NULL key string crashes
/// OpenPMIx 5.0's server, which reads a missing one as "every key").
pub(super) fn pack_request(fmt: Format, b: &mut Buffer, ns: &Nspace) -> Result<(), CodecError> {
    let name = CString::new(ns.as_c_str().to_bytes()).ok();
    fmt.pack_value(b, &Value::String(name))?;
    fmt.pack_value(b, &Value::ProcRank(Rank::WILDCARD.0))?;
    fmt.pack_value(b, &Value::Size(0))
}

/// The reply for `ns` (its status read already, the rest in `b`): the
/// namespace's job segment, of generation `generation`, with its fd; or
/// the failure.
pub(super) fn reply(
    fmt: Format,
    ns: &Nspace,
    status: Status,
    b: &mut Buffer,
    hostname: &str,
    generation: u64,
) -> (Message, Vec<OwnedFd>) {
    match segment(fmt, ns, status, b, hostname) {
        Ok(fd) => (
            Message::NspaceReply(NspaceReply {
                status: Status::SUCCESS,
                segments: vec![SegmentRef {
                    nspace: ns.clone(),
                    kind: SegmentKind::Job,
                    generation,
                }],
            }),
            vec![fd],
        ),
        Err(status) => (
            Message::NspaceReply(NspaceReply {
                status,
                segments: vec![],
            }),
            Vec::new(),
        ),
    }
}

fn segment(
    fmt: Format,
    ns: &Nspace,
    status: Status,
    b: &mut Buffer,
    hostname: &str,
) -> Result<OwnedFd, Status> {
    status.into_result()?;
    let mut infos: Vec<Info> = Vec::new();
    for (proc, pairs) in proc_blobs(fmt, b)? {
        if proc.rank == Rank::WILDCARD {
            infos.extend(pairs.into_iter().map(|(k, v)| Info::new(k, v)));
        } else {
            infos.push(super::proc_data(proc.rank.0, pairs));
        }
    }
    if infos.is_empty() {
        return Err(Status::ERR_NOT_FOUND);
    }
    let sealed = super::job_from_infos(ns, infos, hostname)?
        .build_segment()?
        .seal()
        .map_err(|_| Status::ERR_OUT_OF_RESOURCE)?;
    Ok(sealed.into_fd())
}
