//! Bodies of the process-management services: `PMIx_Spawn`
//! ([`super::Op::SPAWN`]) and the connect/disconnect collectives
//! ([`super::Op::CONNECT`], [`super::Op::DISCONNECT`]).
//!
//! - spawn request: job infos, then a count of applications, each one
//!   packed `pmix_app_t` value; response: the new namespace.
//! - connect/disconnect request: participants, then infos; response:
//!   empty.
//!
//! Decoding is strict: every field checked, no trailing bytes; a
//! malformed body is `PMIX_ERR_BAD_PARAM`.

use super::body::*;
use crate::codec::{CodecError, Reader};
use crate::value::App;
use crate::{Info, Nspace, Proc, Status, Value};

fn bad(_: CodecError) -> Status {
    Status::ERR_BAD_PARAM
}

fn finish(r: &Reader<'_>) -> Result<(), Status> {
    if r.remaining() == 0 {
        Ok(())
    } else {
        Err(Status::ERR_BAD_PARAM)
    }
}

/// Encodes a spawn request.
pub fn encode_spawn(job_info: &[Info], apps: &[App]) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_infos(&mut out, job_info)?;
    put_count(&mut out, apps.len())?;
    for a in apps {
        put_value(&mut out, &Value::App(Box::new(a.clone())))?;
    }
    Ok(out)
}

/// Decodes a spawn request: the job infos and at least one application.
pub fn decode_spawn(body: &[u8]) -> Result<(Vec<Info>, Vec<App>), Status> {
    let mut r = Reader::new(body);
    let infos = get_infos(&mut r).map_err(bad)?;
    let n = get_count(&mut r).map_err(bad)?;
    let mut apps = Vec::with_capacity(n);
    for _ in 0..n {
        match get_value(&mut r).map_err(bad)? {
            Value::App(a) => apps.push(*a),
            _ => return Err(Status::ERR_BAD_PARAM),
        }
    }
    finish(&r)?;
    if apps.is_empty() {
        return Err(Status::ERR_BAD_PARAM);
    }
    Ok((infos, apps))
}

/// Encodes a spawn response: the new namespace.
pub fn encode_nspace(ns: &Nspace) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_nspace(&mut out, ns)?;
    Ok(out)
}

/// Decodes a spawn response. The namespace is empty when the host
/// completed the spawn at once (`PMIX_OPERATION_SUCCEEDED` from its
/// `spawn`): OpenPMIx's client then reports success with an empty
/// namespace too.
pub fn decode_nspace(body: &[u8]) -> Result<Nspace, Status> {
    let mut r = Reader::new(body);
    let ns = get_nspace(&mut r).map_err(|_| Status::ERR_COMM_FAILURE)?;
    if r.remaining() != 0 {
        return Err(Status::ERR_COMM_FAILURE);
    }
    Ok(ns)
}

/// Encodes a connect or disconnect request.
pub fn encode_collective(procs: &[Proc], infos: &[Info]) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_procs(&mut out, procs)?;
    put_infos(&mut out, infos)?;
    Ok(out)
}

/// Decodes a connect or disconnect request.
pub fn decode_collective(body: &[u8]) -> Result<(Vec<Proc>, Vec<Info>), Status> {
    let mut r = Reader::new(body);
    let procs = get_procs(&mut r).map_err(bad)?;
    let infos = get_infos(&mut r).map_err(bad)?;
    finish(&r)?;
    Ok((procs, infos))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;

    #[test]
    fn spawn_bodies_round_trip_and_refuse_garbage() {
        let app = App {
            cmd: Some(CString::new("/bin/true").unwrap()),
            argv: vec![CString::new("true").unwrap()],
            env: vec![CString::new("A=1").unwrap()],
            cwd: None,
            maxprocs: 2,
            info: vec![],
        };
        let b = encode_spawn(&[], std::slice::from_ref(&app)).unwrap();
        let (i, a) = decode_spawn(&b).unwrap();
        assert!(i.is_empty());
        assert_eq!(a, vec![app]);
        for cut in 0..b.len() {
            assert!(decode_spawn(&b[..cut]).is_err());
        }
        let mut long = b.clone();
        long.push(0);
        assert!(decode_spawn(&long).is_err());
        assert!(decode_spawn(&encode_spawn(&[], &[]).unwrap()).is_err());
    }

    #[test]
    fn collective_bodies_round_trip() {
        let p = Proc::new(Nspace::new("a").unwrap(), crate::Rank(3));
        let b = encode_collective(std::slice::from_ref(&p), &[]).unwrap();
        assert_eq!(decode_collective(&b).unwrap(), (vec![p], vec![]));
        assert!(decode_collective(&b[..b.len() - 1]).is_err());
    }
}
