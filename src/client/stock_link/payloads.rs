//! The payloads the bridge translates without keeping anything: a
//! server's notification into our event, a get's reply into our
//! direct-modex reply, and our commit's puts into the server's commit body.
//! Each is a pure function of its bytes, so the fuzz entry points in the
//! parent module reach them directly.

use std::ffi::CString;

use crate::codec::{Buffer, CodecError, Format, NestedBuffer};
use crate::events::Range;
use crate::openpmix::Command;
use crate::value::Kval;
use crate::wire::{self, DmodexReply, Message, Posted};
use crate::{DataType, Status, Value};
use pmix_shmem::Scope;

use super::kvals::proc_blobs;

/// A notification on tag 0 as our event message; `None` if it does not
/// decode.
pub(super) fn event(fmt: Format, payload: Vec<u8>) -> Option<Message> {
    let ev = notification(fmt, payload)?;
    crate::events::encode_event(&ev).ok().map(Message::Event)
}

/// A notification on tag 0 (command, status, source, info count, infos,
/// range); `None` if it does not decode.
pub(super) fn notification(fmt: Format, payload: Vec<u8>) -> Option<crate::events::Event> {
    let mut b = Buffer::from_bytes(payload);
    let Value::Command(c) = fmt.unpack_value(&mut b, DataType::Command).ok()? else {
        return None;
    };
    if c != u8::from(Command::Notify) {
        return None;
    }
    let Value::Status(status) = fmt.unpack_value(&mut b, DataType::Status).ok()? else {
        return None;
    };
    let Value::Proc(source) = fmt.unpack_value(&mut b, DataType::Proc).ok()? else {
        return None;
    };
    let Value::Size(n) = fmt.unpack_value(&mut b, DataType::Size).ok()? else {
        return None;
    };
    let infos = if n == 0 {
        Vec::new()
    } else {
        // Each info takes more than a byte: a larger count is a lie.
        if n > b.remaining() {
            return None;
        }
        fmt.unpack(&mut b, DataType::Info, n)
            .ok()?
            .into_iter()
            .filter_map(|v| match v {
                Value::Info(i) => Some(*i),
                _ => None,
            })
            .collect()
    };
    let range = match fmt.unpack_value(&mut b, DataType::DataRange) {
        Ok(Value::DataRange(r)) if Range(r).is_valid() => Range(r),
        _ => Range::SESSION,
    };
    Some(crate::events::Event {
        status: Status(status),
        source,
        range,
        infos,
    })
}

/// A get's reply as a direct-modex reply: each byte object's process and
/// kvals as one record of a modex blob.
pub(super) fn get_reply(fmt: Format, status: Status, b: &mut Buffer) -> Message {
    let fail = |status| {
        Message::DmodexReply(DmodexReply {
            status,
            data: vec![],
        })
    };
    if status != Status::SUCCESS {
        return fail(status);
    }
    let blobs = match proc_blobs(fmt, b) {
        Ok(blobs) => blobs,
        Err(s) => return fail(s),
    };
    let mut data = Vec::new();
    for (proc, pairs) in blobs {
        let posted: Vec<Posted> = pairs
            .into_iter()
            .map(|(key, value)| Posted {
                scope: Scope::Global,
                key,
                value,
            })
            .collect();
        if wire::blob::put_record(&mut data, &proc, posted.iter()).is_err() {
            return fail(Status::ERR_PACK_FAILURE);
        }
    }
    Message::DmodexReply(DmodexReply {
        status: Status::SUCCESS,
        data,
    })
}

/// A commit's body: for the local and the remote scope, in that order,
/// the scope and a buffer of the kvals posted for it (a global put goes
/// in both); a scope with nothing posted is left out.
pub(super) fn pack_commit(
    fmt: Format,
    b: &mut Buffer,
    posted: &[Posted],
) -> Result<(), CodecError> {
    for (scope, wanted) in [
        (Scope::Local, [Scope::Local, Scope::Global]),
        (Scope::Remote, [Scope::Remote, Scope::Global]),
    ] {
        let mut inner = Buffer::new();
        let mut any = false;
        for p in posted.iter().filter(|p| wanted.contains(&p.scope)) {
            let kv = Value::Kval(Box::new(Kval {
                key: CString::new(p.key.as_bytes()).ok(),
                value: Some(Box::new(p.value.clone())),
            }));
            fmt.pack_value(&mut inner, &kv)?;
            any = true;
        }
        if any {
            fmt.pack_value(b, &Value::Scope(scope.raw()))?;
            let nested = NestedBuffer {
                buffer_type: if fmt.described { 2 } else { 1 },
                bytes: inner.into_bytes(),
            };
            fmt.pack_buffers(b, &[nested])?;
        }
    }
    Ok(())
}
