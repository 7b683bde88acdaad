//! A stock peer's I/O forwarding, both ways.
//!
//! | command | fields (after the command) | our request | reply |
//! |---|---|---|---|
//! | `PMIX_IOF_PULL_CMD` | sources, directives, channels (`PMIX_IOF_CHANNEL`), its local id (`PMIX_SIZE`) | `IOF_PULL` named by that id | status, then (success) the reference id (`PMIX_SIZE`): the same id |
//! | `PMIX_IOF_DEREG_CMD` | directives, the reference id | `IOF_DEREGISTER` | status |
//! | `PMIX_IOF_PUSH_CMD` | targets, directives, the bytes (`PMIX_BYTE_OBJECT`, absent at the end of input) | `IOF_PUSH` | status |
//!
//! Forwarded output (our one-way `Iof`, a [`Delivery`]) goes to the peer
//! on `PMIX_PTL_TAG_IOF`, one message per registration it matched: the
//! source (`PMIX_PROC`), the channel (`PMIX_IOF_CHANNEL`), the peer's
//! local id (`PMIX_SIZE`), the count of infos and the infos, the bytes
//! (`PMIX_BYTE_OBJECT`). The peer's library finds its handler by that id.
//!
//! Since our registrations are named by the requester's own id, the
//! reference id the peer keeps is its local id: no second id space.

use super::fields::{infos, one, pack_infos, procs, Forward};
use super::request::Pending;
use crate::codec::{Buffer, CodecError, Format};
use crate::wire::iof::{Delivery, Deregister, Pull, Push};
use crate::wire::{Op, Response};
use crate::{DataType, Status, Value};

/// `PMIx_IOF_pull`: the sources, the directives, the channels, the
/// peer's id for the registration.
pub(super) fn pull(fmt: Format, buf: &mut Buffer) -> Result<Forward, CodecError> {
    let sources = procs(fmt, buf)?;
    let directives = infos(fmt, buf)?;
    let Value::IofChannel(channels) = one(fmt, buf, DataType::IofChannel)? else {
        return Err(CodecError::BadParam("channels"));
    };
    let Value::Size(id) = one(fmt, buf, DataType::Size)? else {
        return Err(CodecError::BadParam("local id"));
    };
    let id = id as u64;
    let body = Pull {
        id,
        sources,
        channels,
        directives,
    }
    .encode()?;
    Ok((Op::IOF_PULL, body, Pending::IofPull { id }))
}

/// `PMIx_IOF_deregister`: the directives, the reference id.
pub(super) fn deregister(fmt: Format, buf: &mut Buffer) -> Result<Forward, CodecError> {
    let directives = infos(fmt, buf)?;
    let Value::Size(id) = one(fmt, buf, DataType::Size)? else {
        return Err(CodecError::BadParam("reference id"));
    };
    let body = Deregister {
        id: id as u64,
        directives,
    }
    .encode()?;
    Ok((Op::IOF_DEREGISTER, body, Pending::Status))
}

/// `PMIx_IOF_push`: the targets, the directives, the bytes if any.
pub(super) fn push(fmt: Format, buf: &mut Buffer) -> Result<Forward, CodecError> {
    let targets = procs(fmt, buf)?;
    let directives = infos(fmt, buf)?;
    let data = if buf.remaining() > 0 {
        match one(fmt, buf, DataType::ByteObject)? {
            Value::ByteObject(b) => Some(b),
            _ => return Err(CodecError::BadParam("bytes")),
        }
    } else {
        None
    };
    let body = Push {
        targets,
        directives,
        data,
    }
    .encode()?;
    Ok((Op::IOF_PUSH, body, Pending::Status))
}

/// A pull's answer: the status, then on success the reference id `id`.
pub(super) fn pull_reply(fmt: Format, id: u64, r: &Response) -> Result<Vec<u8>, CodecError> {
    let mut b = Buffer::new();
    fmt.pack_value(&mut b, &Value::Status(r.status.0))?;
    if r.status == Status::SUCCESS {
        let id = usize::try_from(id).map_err(|_| CodecError::BadParam("id"))?;
        fmt.pack_value(&mut b, &Value::Size(id))?;
    }
    Ok(b.into_bytes())
}

/// Our forwarded output `body` as the peer's IOF messages, one per
/// registration it matched; none if it does not decode or pack.
pub(super) fn deliveries(fmt: Format, body: &[u8]) -> Vec<Vec<u8>> {
    let Ok(d) = Delivery::decode(body) else {
        return Vec::new();
    };
    d.ids
        .iter()
        .filter_map(|&id| one_delivery(fmt, &d, id).ok())
        .collect()
}

fn one_delivery(fmt: Format, d: &Delivery, id: u64) -> Result<Vec<u8>, CodecError> {
    let id = usize::try_from(id).map_err(|_| CodecError::BadParam("id"))?;
    let mut b = Buffer::new();
    fmt.pack(&mut b, DataType::Proc, &[Value::Proc(d.source.clone())])?;
    fmt.pack_value(&mut b, &Value::IofChannel(d.channel))?;
    fmt.pack_value(&mut b, &Value::Size(id))?;
    pack_infos(fmt, &mut b, &d.infos)?;
    fmt.pack_value(&mut b, &Value::ByteObject(d.data.clone()))?;
    Ok(b.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::stock::fields::pack;
    use crate::wire::iof::channel;
    use crate::{Nspace, Proc, Rank};

    #[test]
    fn a_pull_is_named_by_the_peers_id_and_output_comes_back_under_it() {
        let f = Format::DATA_PACK;
        let src = Proc::new(Nspace::new("job").unwrap(), Rank(1));
        let mut b = Buffer::new();
        pack(&mut b, Value::Size(1));
        f.pack(&mut b, DataType::Proc, &[Value::Proc(src.clone())])
            .unwrap();
        pack(&mut b, Value::Size(0));
        pack(&mut b, Value::IofChannel(channel::STDOUT));
        pack(&mut b, Value::Size(4));
        let (op, body, Pending::IofPull { id: 4 }) = pull(f, &mut b).unwrap() else {
            panic!("not a pull");
        };
        assert_eq!(op, Op::IOF_PULL);
        let p = Pull::decode(&body).unwrap();
        assert_eq!((p.id, p.channels), (4, channel::STDOUT));
        assert_eq!(p.sources, vec![src.clone()]);
        let ok = Response {
            status: Status::SUCCESS,
            body: Vec::new(),
        };
        let mut r = Buffer::from_bytes(pull_reply(f, 4, &ok).unwrap());
        assert_eq!(one(f, &mut r, DataType::Status).unwrap(), Value::Status(0));
        assert_eq!(one(f, &mut r, DataType::Size).unwrap(), Value::Size(4));
        let d = Delivery {
            ids: vec![4, 9],
            source: src.clone(),
            channel: channel::STDOUT,
            data: b"hello\n".to_vec(),
            infos: Vec::new(),
        };
        let out = deliveries(f, &d.encode().unwrap());
        assert_eq!(out.len(), 2);
        let mut m = Buffer::from_bytes(out[1].clone());
        assert_eq!(one(f, &mut m, DataType::Proc).unwrap(), Value::Proc(src));
        assert_eq!(
            one(f, &mut m, DataType::IofChannel).unwrap(),
            Value::IofChannel(channel::STDOUT)
        );
        assert_eq!(one(f, &mut m, DataType::Size).unwrap(), Value::Size(9));
        assert_eq!(one(f, &mut m, DataType::Size).unwrap(), Value::Size(0));
        assert_eq!(
            one(f, &mut m, DataType::ByteObject).unwrap(),
            Value::ByteObject(b"hello\n".to_vec())
        );
        assert!(deliveries(f, b"junk").is_empty());
    }

    #[test]
    fn a_push_without_bytes_is_the_end_of_input() {
        let f = Format::DATA_PACK;
        let mut b = Buffer::new();
        pack(&mut b, Value::Size(1));
        let t = Proc::new(Nspace::new("job").unwrap(), Rank(0));
        f.pack(&mut b, DataType::Proc, &[Value::Proc(t)]).unwrap();
        pack(&mut b, Value::Size(0));
        let (_, body, _) = push(f, &mut b).unwrap();
        assert_eq!(Push::decode(&body).unwrap().data, None);
    }
}
