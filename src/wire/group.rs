//! Bodies of the group services ([`super::Op::GROUP_CONSTRUCT`],
//! `_DESTRUCT`, `_INVITE`, `_JOIN`, `_LEAVE`) and of the endpoint data a
//! server hands its host with `PMIX_GROUP_ENDPT_DATA`.
//!
//! - construct / invite request: group id, procs (empty for a member
//!   added by a leader), directives; response: a [`GroupResult`].
//! - destruct / leave request: group id, directives; response: empty.
//! - join request: group id, leader, answer (`pmix_group_opt_t`),
//!   directives; response: a [`GroupResult`] (accept) or empty (decline).
//! - verdict (one-way): group id, the status a process's handlers of a
//!   group event ended with, and a byte: 1 if they claimed leadership.
//! - endpoint data: a count of participants, each with its proc, its
//!   posted remote data (a direct-modex record) and its `PMIX_GROUP_INFO`
//!   contribution.
//!
//! Decoding is strict: every field checked, no trailing bytes; a
//! malformed request is `PMIX_ERR_BAD_PARAM`, a malformed response
//! `PMIX_ERR_COMM_FAILURE`.

use super::body::*;
use crate::codec::{CodecError, Reader};
use crate::group::{GroupOpt, GroupResult};
use crate::{Info, Proc, Status, MAX_NSLEN};

fn bad(_: CodecError) -> Status {
    Status::ERR_BAD_PARAM
}

fn finish(r: &Reader<'_>, err: Status) -> Result<(), Status> {
    if r.remaining() == 0 {
        Ok(())
    } else {
        Err(err)
    }
}

fn put_id(out: &mut Vec<u8>, id: &str) -> Result<(), Status> {
    put_bytes(out, id.as_bytes());
    Ok(())
}

/// A group id: non-empty, at most a namespace's length, UTF-8, no NUL.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_NSLEN && !id.contains('\0')
}

fn get_id(r: &mut Reader<'_>) -> Result<String, CodecError> {
    let b = get_bytes(r)?;
    match String::from_utf8(b) {
        Ok(s) if valid_id(&s) => Ok(s),
        _ => Err(CodecError::BadParam("group id")),
    }
}

/// Encodes a construct or invite request.
pub fn encode_construct(id: &str, procs: &[Proc], infos: &[Info]) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_id(&mut out, id)?;
    put_procs(&mut out, procs)?;
    put_infos(&mut out, infos)?;
    Ok(out)
}

/// Decodes a construct or invite request.
pub fn decode_construct(body: &[u8]) -> Result<(String, Vec<Proc>, Vec<Info>), Status> {
    let mut r = Reader::new(body);
    let id = get_id(&mut r).map_err(bad)?;
    let procs = get_procs(&mut r).map_err(bad)?;
    let infos = get_infos(&mut r).map_err(bad)?;
    finish(&r, Status::ERR_BAD_PARAM)?;
    Ok((id, procs, infos))
}

/// Encodes a destruct or leave request.
pub fn encode_id(id: &str, infos: &[Info]) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_id(&mut out, id)?;
    put_infos(&mut out, infos)?;
    Ok(out)
}

/// Decodes a destruct or leave request.
pub fn decode_id(body: &[u8]) -> Result<(String, Vec<Info>), Status> {
    let mut r = Reader::new(body);
    let id = get_id(&mut r).map_err(bad)?;
    let infos = get_infos(&mut r).map_err(bad)?;
    finish(&r, Status::ERR_BAD_PARAM)?;
    Ok((id, infos))
}

/// Encodes a join request.
pub fn encode_join(
    id: &str,
    leader: &Proc,
    opt: GroupOpt,
    infos: &[Info],
) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_id(&mut out, id)?;
    put_proc(&mut out, leader)?;
    put_u32(&mut out, opt.code() as u32);
    put_infos(&mut out, infos)?;
    Ok(out)
}

/// Decodes a join request.
pub fn decode_join(body: &[u8]) -> Result<(String, Proc, GroupOpt, Vec<Info>), Status> {
    let mut r = Reader::new(body);
    let id = get_id(&mut r).map_err(bad)?;
    let leader = get_proc(&mut r).map_err(bad)?;
    let opt = get_u32(&mut r).map_err(bad)?;
    let opt = GroupOpt::from_code(opt as i32).ok_or(Status::ERR_BAD_PARAM)?;
    let infos = get_infos(&mut r).map_err(bad)?;
    finish(&r, Status::ERR_BAD_PARAM)?;
    Ok((id, leader, opt, infos))
}

/// Encodes a verdict: the group id, the status its handlers ended with,
/// and whether they claimed the group's leadership (`PMIX_GROUP_LEADER`
/// in their results).
pub fn encode_verdict(id: &str, status: Status, leads: bool) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_id(&mut out, id)?;
    put_status(&mut out, status);
    out.push(u8::from(leads));
    Ok(out)
}

/// Decodes a verdict.
pub fn decode_verdict(body: &[u8]) -> Result<(String, Status, bool), Status> {
    let mut r = Reader::new(body);
    let id = get_id(&mut r).map_err(bad)?;
    let status = get_status(&mut r).map_err(bad)?;
    let leads = match get_u8(&mut r).map_err(bad)? {
        0 => false,
        1 => true,
        _ => return Err(Status::ERR_BAD_PARAM),
    };
    finish(&r, Status::ERR_BAD_PARAM)?;
    Ok((id, status, leads))
}

/// Encodes a group's result.
pub fn encode_result(g: &GroupResult) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_status(&mut out, g.status);
    put_id(&mut out, &g.id)?;
    match g.context_id {
        Some(c) => {
            out.push(1);
            put_u64(&mut out, c);
        }
        None => out.push(0),
    }
    put_procs(&mut out, &g.members)?;
    put_count(&mut out, g.info.len())?;
    for (p, infos) in &g.info {
        put_proc(&mut out, p)?;
        put_infos(&mut out, infos)?;
    }
    Ok(out)
}

/// Decodes a group's result.
pub fn decode_result(body: &[u8]) -> Result<GroupResult, Status> {
    let comm = |_| Status::ERR_COMM_FAILURE;
    let mut r = Reader::new(body);
    let status = get_status(&mut r).map_err(comm)?;
    let id = get_id(&mut r).map_err(comm)?;
    let context_id = match get_u8(&mut r).map_err(comm)? {
        0 => None,
        1 => Some(get_u64(&mut r).map_err(comm)?),
        _ => return Err(Status::ERR_COMM_FAILURE),
    };
    let members = get_procs(&mut r).map_err(comm)?;
    let n = get_count(&mut r).map_err(comm)?;
    let mut info = Vec::with_capacity(n.min(members.len()));
    for _ in 0..n {
        let p = get_proc(&mut r).map_err(comm)?;
        let infos = get_infos(&mut r).map_err(comm)?;
        info.push((p, infos));
    }
    finish(&r, Status::ERR_COMM_FAILURE)?;
    Ok(GroupResult {
        status,
        id,
        context_id,
        members,
        info,
    })
}

/// One participant's share of a group's endpoint data.
#[derive(Clone, Debug, PartialEq)]
pub struct Endpoint {
    pub proc: Proc,
    /// Its posted remote data, as a direct-modex record (may be empty).
    pub record: Vec<u8>,
    /// Its `PMIX_GROUP_INFO` contribution.
    pub info: Vec<Info>,
}

/// Encodes the endpoint data of a server's participants.
pub fn encode_endpoints(eps: &[Endpoint]) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_count(&mut out, eps.len())?;
    for e in eps {
        put_proc(&mut out, &e.proc)?;
        put_bytes(&mut out, &e.record);
        put_infos(&mut out, &e.info)?;
    }
    Ok(out)
}

/// Decodes endpoint data (from a host: untrusted, checked).
pub fn decode_endpoints(body: &[u8]) -> Result<Vec<Endpoint>, Status> {
    let mut r = Reader::new(body);
    let n = get_count(&mut r).map_err(bad)?;
    let mut out = Vec::new();
    for _ in 0..n {
        let proc = get_proc(&mut r).map_err(bad)?;
        let record = get_bytes(&mut r).map_err(bad)?;
        let info = get_infos(&mut r).map_err(bad)?;
        out.push(Endpoint { proc, record, info });
    }
    finish(&r, Status::ERR_BAD_PARAM)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Key, Nspace, Rank, Value};

    fn p(r: u32) -> Proc {
        Proc::new(Nspace::new("job").unwrap(), Rank(r))
    }

    fn truncations_fail<T>(b: &[u8], dec: impl Fn(&[u8]) -> Result<T, Status>) {
        for cut in 0..b.len() {
            assert!(dec(&b[..cut]).is_err(), "cut at {cut}");
        }
        let mut long = b.to_vec();
        long.push(0);
        assert!(dec(&long).is_err());
    }

    #[test]
    fn requests_round_trip_and_refuse_garbage() {
        let infos = vec![Info::new(Key::new("a").unwrap(), Value::Bool(true))];
        let b = encode_construct("grp", &[p(0), p(1)], &infos).unwrap();
        assert_eq!(
            decode_construct(&b).unwrap(),
            ("grp".into(), vec![p(0), p(1)], infos.clone())
        );
        truncations_fail(&b, decode_construct);
        let b = encode_id("grp", &infos).unwrap();
        assert_eq!(decode_id(&b).unwrap(), ("grp".into(), infos.clone()));
        truncations_fail(&b, decode_id);
        let b = encode_join("grp", &p(3), GroupOpt::Accept, &[]).unwrap();
        assert_eq!(
            decode_join(&b).unwrap(),
            ("grp".into(), p(3), GroupOpt::Accept, vec![])
        );
        truncations_fail(&b, decode_join);
        let b = encode_verdict("grp", Status(-165), true).unwrap();
        assert_eq!(
            decode_verdict(&b).unwrap(),
            ("grp".into(), Status(-165), true)
        );
        truncations_fail(&b, decode_verdict);
        assert!(decode_id(&encode_id("", &[]).unwrap()).is_err());
        let long = "x".repeat(MAX_NSLEN + 1);
        assert!(decode_id(&encode_id(&long, &[]).unwrap()).is_err());
    }

    #[test]
    fn results_and_endpoints_round_trip() {
        let g = GroupResult {
            status: Status::ERR_PARTIAL_SUCCESS,
            id: "g".into(),
            context_id: Some(42),
            members: vec![p(0), p(2)],
            info: vec![(
                p(2),
                vec![Info::new(Key::new("x").unwrap(), Value::Size(7))],
            )],
        };
        let b = encode_result(&g).unwrap();
        assert_eq!(decode_result(&b).unwrap(), g);
        truncations_fail(&b, decode_result);
        let eps = vec![Endpoint {
            proc: p(1),
            record: vec![1, 2, 3],
            info: vec![],
        }];
        let b = encode_endpoints(&eps).unwrap();
        assert_eq!(decode_endpoints(&b).unwrap(), eps);
        truncations_fail(&b, decode_endpoints);
    }
}
