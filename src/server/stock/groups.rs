//! A stock peer's group calls, both ways.
//!
//! | command | fields (after the command) | our request | reply |
//! |---|---|---|---|
//! | `PMIX_GROUP_CONSTRUCT_CMD` | id, procs, directives | `GROUP_CONSTRUCT` | status; for 5.x the members (count, procs); the context id (`PMIX_SIZE`) if one was assigned |
//! | `PMIX_GROUP_DESTRUCT_CMD` | id, (5.x: its members,) directives | `GROUP_DESTRUCT` | status |
//! | `PMIX_GROUP_LEAVE_CMD` | id, directives | `GROUP_LEAVE` | status |
//!
//! OpenPMIx 4.2 and 5.0 libraries invite and join by events among the
//! processes (`PMIX_GROUP_INVITED`, `PMIX_GROUP_INVITE_ACCEPTED`, ...,
//! sent as notifications, served by [`super::inbound`]), never with
//! `PMIX_GROUP_INVITE_CMD` / `PMIX_GROUP_JOIN_CMD`: those are answered
//! `PMIX_ERR_NOT_SUPPORTED`. The events our server raises about a group
//! (membership updates, failures) reach a stock member as any event does.
//!
//! A 5.x destruct names the members the peer recorded: the server keeps
//! its own record, so they are read and not used.

use super::fields::{infos, one, procs, Forward};
use super::request::Pending;
use crate::codec::{Buffer, CodecError, Format};
use crate::openpmix::job_info::Release;
use crate::wire::{group, Op, Response};
use crate::{DataType, Proc, Status, Value};

/// True if a library of `release` sends and reads 5.0's layouts (the
/// members in a construct's reply and a destruct's request).
fn five(release: Release) -> bool {
    release.major >= 5
}

fn id(fmt: Format, buf: &mut Buffer) -> Result<String, CodecError> {
    match one(fmt, buf, DataType::String)? {
        Value::String(Some(s)) => s
            .into_string()
            .ok()
            .filter(|s| group::valid_id(s))
            .ok_or(CodecError::BadParam("group id")),
        _ => Err(CodecError::BadParam("group id")),
    }
}

fn bad(_: Status) -> CodecError {
    CodecError::BadParam("group")
}

/// `PMIx_Group_construct`: the id, the procs, the directives.
pub(super) fn construct(
    release: Release,
    fmt: Format,
    buf: &mut Buffer,
) -> Result<Forward, CodecError> {
    let id = id(fmt, buf)?;
    let members = procs(fmt, buf)?;
    let directives = infos(fmt, buf)?;
    let body = group::encode_construct(&id, &members, &directives).map_err(bad)?;
    Ok((
        Op::GROUP_CONSTRUCT,
        body,
        Pending::GroupConstruct {
            members: five(release),
        },
    ))
}

/// `PMIx_Group_destruct` (5.x: with the members it recorded) or, with
/// `op` [`Op::GROUP_LEAVE`], `PMIx_Group_leave`: the id, the directives.
pub(super) fn destruct_or_leave(
    op: Op,
    release: Release,
    fmt: Format,
    buf: &mut Buffer,
) -> Result<Forward, CodecError> {
    let id = id(fmt, buf)?;
    if op == Op::GROUP_DESTRUCT && five(release) {
        let _recorded: Vec<Proc> = procs(fmt, buf)?;
    }
    let directives = infos(fmt, buf)?;
    let body = group::encode_id(&id, &directives).map_err(bad)?;
    Ok((op, body, Pending::Status))
}

/// A construct's answer: the status, the members (if the peer reads
/// them), the context id if one was assigned.
pub(super) fn construct_reply(
    fmt: Format,
    members: bool,
    r: &Response,
) -> Result<Vec<u8>, CodecError> {
    let mut b = Buffer::new();
    if r.status != Status::SUCCESS && r.body.is_empty() {
        fmt.pack_value(&mut b, &Value::Status(r.status.0))?;
        return Ok(b.into_bytes());
    }
    let g = group::decode_result(&r.body).map_err(bad)?;
    fmt.pack_value(&mut b, &Value::Status(g.status.0))?;
    if members {
        fmt.pack_value(&mut b, &Value::Size(g.members.len()))?;
        if !g.members.is_empty() {
            let v: Vec<Value> = g.members.into_iter().map(Value::Proc).collect();
            fmt.pack(&mut b, DataType::Proc, &v)?;
        }
    }
    if let Some(c) = g.context_id {
        fmt.pack_value(&mut b, &Value::Size(c as usize))?;
    }
    Ok(b.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::GroupResult;
    use crate::server::stock::fields::pack;
    use crate::{Nspace, Rank};

    fn p(r: u32) -> Proc {
        Proc::new(Nspace::new("job").unwrap(), Rank(r))
    }

    #[test]
    fn a_construct_is_ours_and_its_answer_has_the_layout_of_the_peers_release() {
        let f = Format::DATA_PACK;
        let mut b = Buffer::new();
        pack(&mut b, Value::String(Some(c"grp".into())));
        pack(&mut b, Value::Size(2));
        f.pack(
            &mut b,
            DataType::Proc,
            &[Value::Proc(p(0)), Value::Proc(p(1))],
        )
        .unwrap();
        pack(&mut b, Value::Size(0));
        let (op, body, Pending::GroupConstruct { members }) =
            construct(Release::new(5, 0, 11), f, &mut b).unwrap()
        else {
            panic!("not a construct");
        };
        assert!(members);
        let (id, procs, _) = group::decode_construct(&body).unwrap();
        assert_eq!((id.as_str(), procs), ("grp", vec![p(0), p(1)]));
        assert_eq!(op, Op::GROUP_CONSTRUCT);
        let result = GroupResult {
            status: Status::SUCCESS,
            id: "grp".into(),
            context_id: Some(7),
            members: vec![p(0), p(1)],
            info: Vec::new(),
        };
        let r = Response {
            status: Status::SUCCESS,
            body: group::encode_result(&result).unwrap(),
        };
        let mut five = Buffer::from_bytes(construct_reply(f, true, &r).unwrap());
        assert_eq!(
            one(f, &mut five, DataType::Status).unwrap(),
            Value::Status(0)
        );
        assert_eq!(one(f, &mut five, DataType::Size).unwrap(), Value::Size(2));
        assert_eq!(
            f.unpack(&mut five, DataType::Proc, 2).unwrap(),
            vec![Value::Proc(p(0)), Value::Proc(p(1))]
        );
        assert_eq!(one(f, &mut five, DataType::Size).unwrap(), Value::Size(7));
        assert_eq!(five.remaining(), 0);
        let mut four = Buffer::from_bytes(construct_reply(f, false, &r).unwrap());
        assert_eq!(
            one(f, &mut four, DataType::Status).unwrap(),
            Value::Status(0)
        );
        assert_eq!(one(f, &mut four, DataType::Size).unwrap(), Value::Size(7));
        assert_eq!(four.remaining(), 0);
    }

    #[test]
    fn a_five_destruct_carries_members_that_are_read_and_left() {
        let f = Format::DATA_PACK;
        let mut b = Buffer::new();
        pack(&mut b, Value::String(Some(c"grp".into())));
        pack(&mut b, Value::Size(1));
        f.pack(&mut b, DataType::Proc, &[Value::Proc(p(0))])
            .unwrap();
        pack(&mut b, Value::Size(0));
        let (op, body, Pending::Status) =
            destruct_or_leave(Op::GROUP_DESTRUCT, Release::new(5, 0, 11), f, &mut b).unwrap()
        else {
            panic!("not a destruct");
        };
        assert_eq!(op, Op::GROUP_DESTRUCT);
        assert_eq!(
            group::decode_id(&body).unwrap(),
            ("grp".to_owned(), Vec::new())
        );
        // 4.2's has no members: the id, then the directives.
        let mut b = Buffer::new();
        pack(&mut b, Value::String(Some(c"grp".into())));
        pack(&mut b, Value::Size(0));
        assert!(destruct_or_leave(Op::GROUP_LEAVE, Release::new(4, 2, 2), f, &mut b).is_ok());
    }
}
