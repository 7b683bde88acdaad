//! Bodies of the resource-manager requests: queries (`Op::QUERY`), logging
//! (`Op::LOG`), job control (`Op::JOB_CONTROL`), monitoring
//! (`Op::MONITOR`), allocation (`Op::ALLOCATE`) and credentials
//! (`Op::GET_CREDENTIAL`, `Op::VALIDATE_CREDENTIAL`).
//!
//! Requests carry their arguments in the field encodings of
//! [`super::body`]; most responses are a counted info list. A query's
//! response starts with its own status (`PMIX_SUCCESS` or
//! `PMIX_ERR_PARTIAL_SUCCESS`), because a partial answer still has a body.
//! Every decoder consumes exactly the body and refuses trailing bytes.

use std::ffi::CString;

use super::body::*;
use crate::codec::{wire, CodecError, Reader};
use crate::value::Query;
use crate::{Info, Proc, Status};

fn finish<T>(r: &Reader<'_>, v: T) -> Result<T, CodecError> {
    if r.remaining() != 0 {
        return Err(CodecError::BadParam("trailing bytes"));
    }
    Ok(v)
}

/// Encodes a list of queries.
pub fn put_queries(out: &mut Vec<u8>, queries: &[Query]) -> Result<(), CodecError> {
    put_count(out, queries.len())?;
    for q in queries {
        put_count(out, q.keys.len())?;
        for k in &q.keys {
            wire::put_cstr(out, k)?;
        }
        put_infos(out, &q.qualifiers)?;
    }
    Ok(())
}

/// Decodes a list of queries: each has at least one non-empty key.
pub fn get_queries(body: &[u8]) -> Result<Vec<Query>, CodecError> {
    let mut r = Reader::new(body);
    let n = get_count(&mut r)?;
    let mut qs = Vec::with_capacity(n);
    for _ in 0..n {
        let nk = get_count(&mut r)?;
        if nk == 0 {
            return Err(CodecError::BadParam("query without keys"));
        }
        let mut keys = Vec::with_capacity(nk);
        for _ in 0..nk {
            let k: CString = wire::get_cstr(&mut r)?;
            if k.as_bytes().is_empty() || k.as_bytes().len() > crate::MAX_KEYLEN {
                return Err(CodecError::BadParam("bad query key"));
            }
            keys.push(k);
        }
        let qualifiers = get_infos(&mut r)?;
        qs.push(Query { keys, qualifiers });
    }
    if qs.is_empty() {
        return Err(CodecError::BadParam("no queries"));
    }
    finish(&r, qs)
}

/// Encodes a query's answer: its status and the results.
pub fn put_query_answer(status: Status, infos: &[Info]) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    put_status(&mut out, status);
    put_infos(&mut out, infos)?;
    Ok(out)
}

/// Decodes a query's answer.
pub fn get_query_answer(body: &[u8]) -> Result<(Status, Vec<Info>), CodecError> {
    let mut r = Reader::new(body);
    let s = get_status(&mut r)?;
    let infos = get_infos(&mut r)?;
    finish(&r, (s, infos))
}

/// Encodes two info lists (log data and directives).
pub fn put_two_lists(a: &[Info], b: &[Info]) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    put_infos(&mut out, a)?;
    put_infos(&mut out, b)?;
    Ok(out)
}

/// Decodes two info lists.
pub fn get_two_lists(body: &[u8]) -> Result<(Vec<Info>, Vec<Info>), CodecError> {
    let mut r = Reader::new(body);
    let a = get_infos(&mut r)?;
    let b = get_infos(&mut r)?;
    finish(&r, (a, b))
}

/// Encodes one info list.
pub fn put_list(infos: &[Info]) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    put_infos(&mut out, infos)?;
    Ok(out)
}

/// Decodes one info list.
pub fn get_list(body: &[u8]) -> Result<Vec<Info>, CodecError> {
    let mut r = Reader::new(body);
    let a = get_infos(&mut r)?;
    finish(&r, a)
}

/// Encodes a job-control request: targets and directives.
pub fn put_job_control(targets: &[Proc], directives: &[Info]) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    put_procs(&mut out, targets)?;
    put_infos(&mut out, directives)?;
    Ok(out)
}

/// Decodes a job-control request.
pub fn get_job_control(body: &[u8]) -> Result<(Vec<Proc>, Vec<Info>), CodecError> {
    let mut r = Reader::new(body);
    let p = get_procs(&mut r)?;
    let d = get_infos(&mut r)?;
    finish(&r, (p, d))
}

/// Encodes a session-control request: the session's id and the
/// directives.
pub fn put_session_control(session: u32, directives: &[Info]) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    put_u32(&mut out, session);
    put_infos(&mut out, directives)?;
    Ok(out)
}

/// Decodes a session-control request.
pub fn get_session_control(body: &[u8]) -> Result<(u32, Vec<Info>), CodecError> {
    let mut r = Reader::new(body);
    let id = get_u32(&mut r)?;
    let d = get_infos(&mut r)?;
    finish(&r, (id, d))
}

/// Encodes a monitor request: the monitor, the error to report, the
/// directives.
pub fn put_monitor(
    monitor: &Info,
    error: Status,
    directives: &[Info],
) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    put_infos(&mut out, std::slice::from_ref(monitor))?;
    put_status(&mut out, error);
    put_infos(&mut out, directives)?;
    Ok(out)
}

/// Decodes a monitor request.
pub fn get_monitor(body: &[u8]) -> Result<(Info, Status, Vec<Info>), CodecError> {
    let mut r = Reader::new(body);
    let mut m = get_infos(&mut r)?;
    if m.len() != 1 {
        return Err(CodecError::BadParam("one monitor expected"));
    }
    let e = get_status(&mut r)?;
    let d = get_infos(&mut r)?;
    finish(&r, (m.remove(0), e, d))
}

/// Encodes an allocation request.
pub fn put_allocate(directive: u8, infos: &[Info]) -> Result<Vec<u8>, CodecError> {
    let mut out = vec![directive];
    put_infos(&mut out, infos)?;
    Ok(out)
}

/// Decodes an allocation request.
pub fn get_allocate(body: &[u8]) -> Result<(u8, Vec<Info>), CodecError> {
    let mut r = Reader::new(body);
    let d = get_u8(&mut r)?;
    let i = get_infos(&mut r)?;
    finish(&r, (d, i))
}

/// Encodes a fabric request: the `pmix_fabric_operation_t` and the
/// directives (the layout of an allocation request).
pub fn put_fabric(op: u8, directives: &[Info]) -> Result<Vec<u8>, CodecError> {
    put_allocate(op, directives)
}

/// Decodes a fabric request.
pub fn get_fabric(body: &[u8]) -> Result<(u8, Vec<Info>), CodecError> {
    get_allocate(body)
}

/// Encodes a credential and infos (a credential answer, or a validation
/// request).
pub fn put_credential(cred: &[u8], infos: &[Info]) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    put_bytes(&mut out, cred);
    put_infos(&mut out, infos)?;
    Ok(out)
}

/// Decodes a credential and infos.
pub fn get_credential(body: &[u8]) -> Result<(Vec<u8>, Vec<Info>), CodecError> {
    let mut r = Reader::new(body);
    let c = get_bytes(&mut r)?;
    let i = get_infos(&mut r)?;
    finish(&r, (c, i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Key, Nspace, Rank, Value};

    #[test]
    fn queries_round_trip_and_trailing_bytes_are_refused() {
        let q = vec![Query {
            keys: vec![CString::new("pmix.qry.ns").unwrap()],
            qualifiers: vec![Info::new(
                Key::new("pmix.nspace").unwrap(),
                Value::string("a"),
            )],
        }];
        let mut out = Vec::new();
        put_queries(&mut out, &q).unwrap();
        assert_eq!(get_queries(&out).unwrap(), q);
        out.push(0);
        assert!(get_queries(&out).is_err());
    }

    #[test]
    fn query_without_keys_is_refused() {
        let mut out = Vec::new();
        put_count(&mut out, 1).unwrap();
        put_count(&mut out, 0).unwrap();
        put_infos(&mut out, &[]).unwrap();
        assert!(get_queries(&out).is_err());
    }

    #[test]
    fn other_bodies_round_trip() {
        let p = Proc::new(Nspace::new("j").unwrap(), Rank(1));
        let i = Info::new(Key::new("k").unwrap(), Value::Bool(true));
        let b = put_session_control(7, std::slice::from_ref(&i)).unwrap();
        assert_eq!(get_session_control(&b).unwrap(), (7, vec![i.clone()]));
        assert!(get_session_control(&b[..b.len() - 1]).is_err());
        let b = put_job_control(std::slice::from_ref(&p), std::slice::from_ref(&i)).unwrap();
        assert_eq!(get_job_control(&b).unwrap(), (vec![p], vec![i.clone()]));
        let b = put_monitor(&i, Status::ERR_TIMEOUT, &[]).unwrap();
        assert_eq!(
            get_monitor(&b).unwrap(),
            (i.clone(), Status::ERR_TIMEOUT, vec![])
        );
        let b = put_allocate(3, std::slice::from_ref(&i)).unwrap();
        assert_eq!(get_allocate(&b).unwrap(), (3, vec![i.clone()]));
        let b = put_fabric(1, std::slice::from_ref(&i)).unwrap();
        assert_eq!(get_fabric(&b).unwrap(), (1, vec![i.clone()]));
        assert!(get_fabric(&b[..b.len() - 1]).is_err());
        let b = put_credential(b"abc", &[]).unwrap();
        assert_eq!(get_credential(&b).unwrap(), (b"abc".to_vec(), vec![]));
        let b = put_query_answer(Status::ERR_PARTIAL_SUCCESS, std::slice::from_ref(&i)).unwrap();
        assert_eq!(
            get_query_answer(&b).unwrap(),
            (Status::ERR_PARTIAL_SUCCESS, vec![i])
        );
    }
}
