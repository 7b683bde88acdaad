//! A stock peer's resource-manager calls: spawn, job control, process
//! monitoring, allocation requests and credentials, both ways (its
//! command as our request, our answer as the reply its library unpacks).
//!
//! | command | fields (after the command) | our request | reply |
//! |---|---|---|---|
//! | `PMIX_SPAWNNB_CMD` | job infos, apps | `SPAWN` | status, the new namespace (`PMIX_STRING`) |
//! | `PMIX_JOB_CONTROL_CMD`, `PMIX_MONITOR_CMD`, `PMIX_ALLOC_CMD` | see [`crate::openpmix::control`] | `JOB_CONTROL`, `MONITOR`, `ALLOCATE` | status, count, infos |
//! | `PMIX_GET_CREDENTIAL_CMD` | directives | `GET_CREDENTIAL` | status, the credential (`PMIX_BYTE_OBJECT`), count, infos |
//! | `PMIX_VALIDATE_CRED_CMD` | the credential, directives | `VALIDATE_CREDENTIAL` | status, count, infos |
//!
//! Lists are a `PMIX_SIZE` count then the items in one pack (none when
//! the count is 0). A failed call's reply is its status alone: the peer's
//! library reads nothing after a status other than success (or, for the
//! info lists, `PMIX_ERR_PARTIAL_SUCCESS`).
//!
//! An app without a command takes `argv[0]` (as 5.0's library does
//! itself), one without `argv` its command; the rest is the host's, as
//! for an app of ours.

use super::fields::{infos, one, pack_infos, size, Forward};
use super::request::Pending;
use crate::codec::{Buffer, CodecError, Format};
use crate::openpmix::control::{self, Control};
use crate::openpmix::Command;
use crate::wire::{process_mgmt, rm, Op, Response};
use crate::{DataType, Status, Value};

fn bad(what: &'static str) -> impl Fn(Status) -> CodecError {
    move |_| CodecError::BadParam(what)
}

/// `PMIx_Spawn`: the job infos, the count of apps and the apps.
pub(super) fn spawn(fmt: Format, buf: &mut Buffer) -> Result<Forward, CodecError> {
    let job = infos(fmt, buf)?;
    let n = size(fmt, buf)?;
    if n == 0 {
        return Err(CodecError::BadParam("no app"));
    }
    let apps = fmt
        .unpack(buf, DataType::App, n)?
        .into_iter()
        .map(|v| match v {
            Value::App(a) => complete_app(*a),
            _ => Err(CodecError::BadParam("app")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let body = process_mgmt::encode_spawn(&job, &apps).map_err(bad("spawn"))?;
    Ok((Op::SPAWN, body, Pending::Spawn))
}

/// `app` with its command and `argv` both set, from each other.
fn complete_app(mut app: crate::value::App) -> Result<crate::value::App, CodecError> {
    let given = |c: &Option<std::ffi::CString>| c.as_ref().is_some_and(|c| !c.is_empty());
    if !given(&app.cmd) {
        app.cmd = app.argv.first().cloned();
    }
    if !given(&app.cmd) || app.maxprocs < 0 {
        return Err(CodecError::BadParam("app"));
    }
    if app.argv.is_empty() {
        app.argv = app.cmd.iter().cloned().collect();
    }
    Ok(app)
}

/// `PMIx_Job_control`, `PMIx_Process_monitor` and
/// `PMIx_Allocation_request` (`cmd`), in the layout of
/// [`crate::openpmix::control`].
pub(super) fn control(cmd: Command, fmt: Format, buf: &mut Buffer) -> Result<Forward, CodecError> {
    let (op, body) = match Control::unpack(cmd, fmt, buf) {
        Some(Ok(Control::JobControl {
            targets,
            directives,
        })) => (Op::JOB_CONTROL, rm::put_job_control(&targets, &directives)?),
        Some(Ok(Control::Monitor {
            what,
            error,
            directives,
        })) => (Op::MONITOR, rm::put_monitor(&what, error, &directives)?),
        Some(Ok(Control::Allocate { directive, infos })) => {
            (Op::ALLOCATE, rm::put_allocate(directive, &infos)?)
        }
        Some(Err(e)) => return Err(e),
        _ => return Err(CodecError::BadParam("command")),
    };
    Ok((op, body, Pending::Infos))
}

/// `PMIx_Get_credential`: the directives.
pub(super) fn get_credential(fmt: Format, buf: &mut Buffer) -> Result<Forward, CodecError> {
    let directives = infos(fmt, buf)?;
    let body = rm::put_list(&directives)?;
    Ok((Op::GET_CREDENTIAL, body, Pending::Credential))
}

/// `PMIx_Validate_credential`: the credential, the directives.
pub(super) fn validate_credential(fmt: Format, buf: &mut Buffer) -> Result<Forward, CodecError> {
    let Value::ByteObject(cred) = one(fmt, buf, DataType::ByteObject)? else {
        return Err(CodecError::BadParam("credential"));
    };
    let directives = infos(fmt, buf)?;
    let body = rm::put_credential(&cred, &directives)?;
    Ok((Op::VALIDATE_CREDENTIAL, body, Pending::Infos))
}

/// A spawn's answer: its status, then the new namespace.
pub(super) fn spawn_reply(fmt: Format, r: &Response) -> Result<Vec<u8>, CodecError> {
    let mut b = Buffer::new();
    fmt.pack_value(&mut b, &Value::Status(r.status.0))?;
    if r.status == Status::SUCCESS {
        let ns = process_mgmt::decode_nspace(&r.body).map_err(bad("nspace"))?;
        let ns = std::ffi::CString::new(ns.as_bytes()).map_err(|_| CodecError::BadParam("ns"))?;
        fmt.pack_value(&mut b, &Value::String(Some(ns)))?;
    }
    Ok(b.into_bytes())
}

/// An answer holding a list of infos: its status, the count, the infos
/// (see [`crate::openpmix::control`]).
pub(super) fn infos_reply(fmt: Format, r: &Response) -> Result<Vec<u8>, CodecError> {
    let list = if !control::carries_results(r.status) || r.body.is_empty() {
        Vec::new()
    } else {
        rm::get_list(&r.body)?
    };
    control::pack_results(fmt, r.status, list)
}

/// A credential: its status, the credential, the count, the infos.
pub(super) fn credential_reply(fmt: Format, r: &Response) -> Result<Vec<u8>, CodecError> {
    let mut b = Buffer::new();
    fmt.pack_value(&mut b, &Value::Status(r.status.0))?;
    if r.status == Status::SUCCESS {
        let (cred, list) = rm::get_credential(&r.body)?;
        fmt.pack_value(&mut b, &Value::ByteObject(cred))?;
        pack_infos(fmt, &mut b, &list)?;
    }
    Ok(b.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::stock::fields::pack;
    use crate::{Info, Key, Nspace};

    #[test]
    fn a_spawn_becomes_our_spawn_and_its_answer_the_namespace() {
        let app = crate::value::App {
            cmd: None,
            argv: vec![std::ffi::CString::new("/bin/true").unwrap()],
            env: Vec::new(),
            cwd: None,
            maxprocs: 2,
            info: Vec::new(),
        };
        let mut b = Buffer::new();
        pack(&mut b, Value::Size(0));
        pack(&mut b, Value::Size(1));
        pack(&mut b, Value::App(Box::new(app)));
        let (op, body, Pending::Spawn) = spawn(Format::DATA_PACK, &mut b).unwrap() else {
            panic!("not a spawn");
        };
        assert_eq!(op, Op::SPAWN);
        let (_, apps) = process_mgmt::decode_spawn(&body).unwrap();
        assert_eq!(apps[0].cmd.as_deref().unwrap().to_bytes(), b"/bin/true");
        assert_eq!(apps[0].maxprocs, 2);
        let ns = Nspace::new("child").unwrap();
        let r = Response {
            status: Status::SUCCESS,
            body: process_mgmt::encode_nspace(&ns).unwrap(),
        };
        let mut reply = Buffer::from_bytes(spawn_reply(Format::DATA_PACK, &r).unwrap());
        let f = Format::DATA_PACK;
        assert_eq!(
            one(f, &mut reply, DataType::Status).unwrap(),
            Value::Status(0)
        );
        let Value::String(Some(s)) = one(f, &mut reply, DataType::String).unwrap() else {
            panic!("no namespace");
        };
        assert_eq!(s.to_bytes(), b"child");
        // No app at all is refused.
        let mut b = Buffer::new();
        pack(&mut b, Value::Size(0));
        pack(&mut b, Value::Size(0));
        assert!(spawn(f, &mut b).is_err());
    }

    #[test]
    fn an_info_answer_stops_after_a_failed_status() {
        let f = Format::DATA_PACK;
        let info = Info::new(Key::new("k").unwrap(), Value::Uint32(3));
        let ok = Response {
            status: Status::SUCCESS,
            body: rm::put_list(std::slice::from_ref(&info)).unwrap(),
        };
        let mut b = Buffer::from_bytes(infos_reply(f, &ok).unwrap());
        assert_eq!(one(f, &mut b, DataType::Status).unwrap(), Value::Status(0));
        assert_eq!(one(f, &mut b, DataType::Size).unwrap(), Value::Size(1));
        assert_eq!(
            one(f, &mut b, DataType::Info).unwrap(),
            Value::Info(Box::new(info))
        );
        let failed = Response {
            status: Status::ERR_NOT_SUPPORTED,
            body: Vec::new(),
        };
        let b = infos_reply(f, &failed).unwrap();
        let mut only = Buffer::new();
        pack(&mut only, Value::Status(Status::ERR_NOT_SUPPORTED.0));
        assert_eq!(b, only.into_bytes());
        let cred = Response {
            status: Status::SUCCESS,
            body: rm::put_credential(b"secret", &[]).unwrap(),
        };
        let mut b = Buffer::from_bytes(credential_reply(f, &cred).unwrap());
        assert_eq!(one(f, &mut b, DataType::Status).unwrap(), Value::Status(0));
        assert_eq!(
            one(f, &mut b, DataType::ByteObject).unwrap(),
            Value::ByteObject(b"secret".to_vec())
        );
        assert_eq!(one(f, &mut b, DataType::Size).unwrap(), Value::Size(0));
    }
}
