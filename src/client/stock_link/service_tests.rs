//! Unit tests of the services' layouts: each request our client sends an
//! OpenPMIx server goes as the stock command, and each stock reply comes
//! back as our `Response`.

use super::services::{request, response, LinkState, ReplyLayout};
use super::*;
use crate::codec::Module;
use crate::openpmix::Command as Cmd;
use crate::wire::{Op, Response};
use std::ffi::CString;

/// Our request `op` with `body` as stock bytes and the reply's layout, on a
/// fresh link.
fn send(fmt: Format, op: Op, body: &[u8]) -> (Vec<u8>, ReplyLayout) {
    request(fmt, &mut LinkState::default(), op, body).unwrap()
}

/// The stock reply `b` (its status `status` read already) as `layout`
/// reads, on a fresh link.
fn read_reply(fmt: Format, layout: &ReplyLayout, status: Status, b: &mut Buffer) -> Response {
    response(fmt, &mut LinkState::default(), layout.clone(), status, b)
}

/// Reads a stock command back: the command, then what follows.
fn command_of(fmt: Format, bytes: Vec<u8>) -> (u8, Buffer) {
    let mut b = Buffer::from_bytes(bytes);
    let Value::Command(c) = fmt.unpack_value(&mut b, DataType::Command).unwrap() else {
        panic!("a command first");
    };
    (c, b)
}

#[test]
fn a_lookup_goes_in_openpmix_layout_and_its_reply_comes_back_as_ours() {
    use crate::wire::pubsub;
    let fmt = Format::DATA_PACK;
    let body = pubsub::encode_lookup(&[key("a.b"), key("c.d")], &[]).unwrap();
    let (bytes, layout) = send(fmt, Op::LOOKUP, &body);
    assert_eq!(layout, ReplyLayout::Lookup);
    let (c, mut b) = command_of(fmt, bytes);
    assert_eq!(c, u8::from(Cmd::LookupNb));
    assert!(matches!(
        fmt.unpack_value(&mut b, DataType::Uint32),
        Ok(Value::Uint32(_))
    ));
    assert_eq!(
        fmt.unpack_value(&mut b, DataType::Size).unwrap(),
        Value::Size(2)
    );
    for k in ["a.b", "c.d"] {
        assert_eq!(
            fmt.unpack_value(&mut b, DataType::String).unwrap(),
            Value::string(k)
        );
    }
    assert_eq!(
        fmt.unpack_value(&mut b, DataType::Size).unwrap(),
        Value::Size(0)
    );
    assert_eq!(b.remaining(), 0);

    // The server's reply: status, count, pdata.
    let publisher = Proc::new(Nspace::new("job-3").unwrap(), crate::Rank(0));
    let mut reply = Buffer::new();
    fmt.pack_value(&mut reply, &Value::Size(1)).unwrap();
    let pd = crate::value::PData {
        proc: publisher.clone(),
        key: key("a.b"),
        value: Value::string("hello"),
    };
    fmt.pack(&mut reply, DataType::PData, &[Value::PData(Box::new(pd))])
        .unwrap();
    let r = read_reply(fmt, &layout, Status::SUCCESS, &mut reply);
    assert_eq!(r.status, Status::SUCCESS);
    let (s, found) = pubsub::decode_lookup_reply(&r.body).unwrap();
    assert_eq!(s, Status::SUCCESS);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].publisher, publisher);
    assert_eq!(found[0].value, Value::string("hello"));

    // Not found: the status alone; a lying count: an unpack failure.
    let mut empty = Buffer::new();
    let r = read_reply(fmt, &layout, Status::ERR_NOT_FOUND, &mut empty);
    assert_eq!((r.status, r.body.len()), (Status::ERR_NOT_FOUND, 0));
    let mut lie = Buffer::new();
    fmt.pack_value(&mut lie, &Value::Size(1000)).unwrap();
    let r = read_reply(fmt, &layout, Status::SUCCESS, &mut lie);
    assert_eq!(r.status, Status::ERR_UNPACK_FAILURE);
}

#[test]
fn a_query_log_and_job_control_go_as_stock_commands_and_others_are_not_carried() {
    use super::services::NotSent;
    use crate::wire::rm;
    let fmt = Format::DATA_PACK;
    let q = crate::value::Query {
        keys: vec![CString::new(keys::QUERY_NAMESPACES).unwrap()],
        qualifiers: vec![],
    };
    let mut body = Vec::new();
    rm::put_queries(&mut body, &[q]).unwrap();
    let (bytes, layout) = send(fmt, Op::QUERY, &body);
    assert_eq!(layout, ReplyLayout::Query);
    assert_eq!(command_of(fmt, bytes).0, u8::from(Cmd::Query));
    let mut reply = Buffer::new();
    fmt.pack_value(&mut reply, &Value::Size(1)).unwrap();
    let answer = Info::new(key(keys::QUERY_NAMESPACES), Value::string("job-3"));
    fmt.pack(
        &mut reply,
        DataType::Info,
        &[Value::Info(Box::new(answer.clone()))],
    )
    .unwrap();
    let r = read_reply(fmt, &layout, Status::SUCCESS, &mut reply);
    assert_eq!(
        rm::get_query_answer(&r.body).unwrap(),
        (Status::SUCCESS, vec![answer])
    );

    let data = [Info::new(key(keys::LOG_STDOUT), Value::string("x"))];
    let body = rm::put_two_lists(&data, &[]).unwrap();
    let (bytes, layout) = send(fmt, Op::LOG, &body);
    assert_eq!(layout, ReplyLayout::Status);
    let (c, mut b) = command_of(fmt, bytes);
    assert_eq!(c, u8::from(Cmd::Log));
    assert_eq!(
        fmt.unpack_value(&mut b, DataType::Time).unwrap(),
        Value::Time(0)
    );

    let body = rm::put_job_control(&[], &[]).unwrap();
    let (bytes, layout) = send(fmt, Op::JOB_CONTROL, &body);
    assert_eq!(command_of(fmt, bytes).0, u8::from(Cmd::JobControl));
    let r = read_reply(fmt, &layout, Status::SUCCESS, &mut Buffer::new());
    assert_eq!(rm::get_list(&r.body).unwrap(), vec![]);
    let r = read_reply(fmt, &layout, Status::ERR_NOT_SUPPORTED, &mut Buffer::new());
    assert_eq!(r.status, Status::ERR_NOT_SUPPORTED);

    assert_eq!(
        request(fmt, &mut LinkState::default(), Op::GROUP_INVITE, &[]).unwrap_err(),
        NotSent::NotCarried
    );
    assert_eq!(
        request(fmt, &mut LinkState::default(), Op::PUBLISH, &[1, 2, 3]).unwrap_err(),
        NotSent::Bad(Status::ERR_BAD_PARAM)
    );
}

#[test]
fn a_spawn_and_a_connect_go_as_stock_commands_and_a_spawn_reply_names_the_job() {
    use crate::wire::process_mgmt;
    let fmt = Format::DATA_PACK;
    let app = crate::value::App {
        cmd: Some(CString::new("/bin/true").unwrap()),
        argv: vec![CString::new("true").unwrap()],
        maxprocs: 1,
        ..Default::default()
    };
    let body = process_mgmt::encode_spawn(&[], std::slice::from_ref(&app)).unwrap();
    let (bytes, layout) = send(fmt, Op::SPAWN, &body);
    assert_eq!(layout, ReplyLayout::Spawn);
    let (c, mut b) = command_of(fmt, bytes);
    assert_eq!(c, u8::from(Cmd::SpawnNb));
    assert_eq!(
        fmt.unpack_value(&mut b, DataType::Size).unwrap(),
        Value::Size(0)
    );
    assert_eq!(
        fmt.unpack_value(&mut b, DataType::Size).unwrap(),
        Value::Size(1)
    );
    let Value::App(got) = fmt.unpack_value(&mut b, DataType::App).unwrap() else {
        panic!("an app");
    };
    assert_eq!(got.cmd, app.cmd);

    let mut reply = Buffer::new();
    fmt.pack_value(&mut reply, &Value::string("job-9")).unwrap();
    let r = read_reply(fmt, &layout, Status::SUCCESS, &mut reply.clone());
    assert_eq!(
        process_mgmt::decode_nspace(&r.body).unwrap(),
        Nspace::new("job-9").unwrap()
    );
    // A failed spawn is its status, whatever follows it.
    let r = read_reply(fmt, &layout, Status::ERR_NOT_SUPPORTED, &mut reply);
    assert_eq!((r.status, r.body.len()), (Status::ERR_NOT_SUPPORTED, 0));

    let wild = Proc::new(Nspace::new("job-3").unwrap(), crate::Rank::WILDCARD);
    let body = process_mgmt::encode_collective(std::slice::from_ref(&wild), &[]).unwrap();
    for (op, cmd) in [
        (Op::CONNECT, Cmd::ConnectNb),
        (Op::DISCONNECT, Cmd::DisconnectNb),
    ] {
        let (bytes, layout) = send(fmt, op, &body);
        assert_eq!(layout, ReplyLayout::Status);
        let (c, mut b) = command_of(fmt, bytes);
        assert_eq!(c, u8::from(cmd));
        assert_eq!(
            fmt.unpack_value(&mut b, DataType::Size).unwrap(),
            Value::Size(1)
        );
        assert_eq!(
            fmt.unpack_value(&mut b, DataType::Proc).unwrap(),
            Value::Proc(wild.clone())
        );
    }
}

fn unpack_one(fmt: Format, b: &mut Buffer, t: DataType) -> Value {
    fmt.unpack_value(b, t).unwrap()
}

#[test]
fn credentials_go_as_stock_commands_and_come_back_as_ours() {
    use crate::wire::rm;
    let fmt = Format::DATA_PACK;
    let mut state = LinkState::default();
    let (bytes, layout) = request(
        fmt,
        &mut state,
        Op::GET_CREDENTIAL,
        &rm::put_list(&[]).unwrap(),
    )
    .unwrap();
    assert_eq!(layout, ReplyLayout::Credential);
    let (c, mut b) = command_of(fmt, bytes);
    assert_eq!(c, u8::from(Cmd::GetCredential));
    assert_eq!(unpack_one(fmt, &mut b, DataType::Size), Value::Size(0));
    assert_eq!(b.remaining(), 0);
    // The reply: the credential, count, infos.
    let mut reply = Buffer::new();
    fmt.pack_value(&mut reply, &Value::ByteObject(b"cred".to_vec()))
        .unwrap();
    fmt.pack_value(&mut reply, &Value::Size(0)).unwrap();
    let r = response(fmt, &mut state, layout.clone(), Status::SUCCESS, &mut reply);
    assert_eq!(r.status, Status::SUCCESS);
    assert_eq!(
        rm::get_credential(&r.body).unwrap(),
        (b"cred".to_vec(), vec![])
    );
    // A refusal is its status alone; a truncated reply an unpack failure.
    let r = response(
        fmt,
        &mut state,
        layout.clone(),
        Status::ERR_NOT_SUPPORTED,
        &mut Buffer::new(),
    );
    assert_eq!((r.status, r.body.len()), (Status::ERR_NOT_SUPPORTED, 0));
    let r = response(fmt, &mut state, layout, Status::SUCCESS, &mut Buffer::new());
    assert_eq!(r.status, Status::ERR_UNPACK_FAILURE);

    let body = rm::put_credential(b"cred", &[]).unwrap();
    let (bytes, layout) = request(fmt, &mut state, Op::VALIDATE_CREDENTIAL, &body).unwrap();
    assert_eq!(layout, ReplyLayout::Infos);
    let (c, mut b) = command_of(fmt, bytes);
    assert_eq!(c, u8::from(Cmd::ValidateCred));
    assert_eq!(
        unpack_one(fmt, &mut b, DataType::ByteObject),
        Value::ByteObject(b"cred".to_vec())
    );
    assert_eq!(unpack_one(fmt, &mut b, DataType::Size), Value::Size(0));
    let mut reply = Buffer::new();
    fmt.pack_value(&mut reply, &Value::Size(0)).unwrap();
    let r = response(fmt, &mut state, layout, Status::SUCCESS, &mut reply);
    assert_eq!(r.status, Status::SUCCESS);
    assert!(rm::get_list(&r.body).unwrap().is_empty());
}

#[test]
fn a_group_construct_reads_either_releases_reply_and_a_destruct_has_the_servers_layout() {
    use crate::wire::group;
    let fmt = Format::DATA_PACK;
    let ns = Nspace::new("job-1").unwrap();
    let procs = vec![
        Proc::new(ns.clone(), crate::Rank(0)),
        Proc::new(ns, crate::Rank(1)),
    ];
    let body = group::encode_construct("grp", &procs, &[]).unwrap();
    for five in [false, true] {
        let mut state = LinkState::new(Some(if five { "5.0.11" } else { "4.2.2" }));
        let (bytes, layout) = request(fmt, &mut state, Op::GROUP_CONSTRUCT, &body).unwrap();
        let (c, mut b) = command_of(fmt, bytes);
        assert_eq!(c, u8::from(Cmd::GroupConstruct));
        assert_eq!(
            unpack_one(fmt, &mut b, DataType::String),
            Value::string("grp")
        );
        assert_eq!(unpack_one(fmt, &mut b, DataType::Size), Value::Size(2));
        assert_eq!(
            fmt.unpack(&mut b, DataType::Proc, 2).unwrap(),
            procs.iter().cloned().map(Value::Proc).collect::<Vec<_>>()
        );
        assert_eq!(unpack_one(fmt, &mut b, DataType::Size), Value::Size(0));
        assert_eq!(b.remaining(), 0);
        // 4.x: the context id alone; 5.x: the members (here reordered by
        // the server) and the context id.
        let mut reply = Buffer::new();
        if five {
            fmt.pack_value(&mut reply, &Value::Size(2)).unwrap();
            let v: Vec<Value> = procs.iter().rev().cloned().map(Value::Proc).collect();
            fmt.pack(&mut reply, DataType::Proc, &v).unwrap();
        }
        fmt.pack_value(&mut reply, &Value::Size(42)).unwrap();
        let r = response(fmt, &mut state, layout.clone(), Status::SUCCESS, &mut reply);
        assert_eq!(r.status, Status::SUCCESS);
        let g = group::decode_result(&r.body).unwrap();
        assert_eq!((g.id.as_str(), g.context_id), ("grp", Some(42)));
        let want: Vec<Proc> = if five {
            procs.iter().rev().cloned().collect()
        } else {
            procs.clone()
        };
        assert_eq!(g.members, want);
        // No context id (5.x: SIZE_MAX; 4.x: nothing after the status).
        let mut none = Buffer::new();
        if five {
            fmt.pack_value(&mut none, &Value::Size(0)).unwrap();
            fmt.pack_value(&mut none, &Value::Size(usize::MAX)).unwrap();
        }
        let r = response(
            fmt,
            &mut LinkState::default(),
            layout,
            Status::SUCCESS,
            &mut none,
        );
        assert_eq!(group::decode_result(&r.body).unwrap().context_id, None);

        // The destruct: 5.x names the members recorded at construct.
        let (bytes, layout) = request(
            fmt,
            &mut state,
            Op::GROUP_DESTRUCT,
            &group::encode_id("grp", &[]).unwrap(),
        )
        .unwrap();
        assert_eq!(layout, ReplyLayout::Status);
        let (c, mut b) = command_of(fmt, bytes);
        assert_eq!(c, u8::from(Cmd::GroupDestruct));
        assert_eq!(
            unpack_one(fmt, &mut b, DataType::String),
            Value::string("grp")
        );
        if five {
            assert_eq!(unpack_one(fmt, &mut b, DataType::Size), Value::Size(2));
            assert_eq!(
                fmt.unpack(&mut b, DataType::Proc, 2).unwrap(),
                want.into_iter().map(Value::Proc).collect::<Vec<_>>()
            );
        }
        assert_eq!(unpack_one(fmt, &mut b, DataType::Size), Value::Size(0));
        assert_eq!(b.remaining(), 0);
        assert!(state.groups.is_empty());
    }
    // A leave: the id, the directives.
    let (bytes, _) = request(
        fmt,
        &mut LinkState::default(),
        Op::GROUP_LEAVE,
        &group::encode_id("grp", &[]).unwrap(),
    )
    .unwrap();
    let (c, mut b) = command_of(fmt, bytes);
    assert_eq!(c, u8::from(Cmd::GroupLeave));
    assert_eq!(
        unpack_one(fmt, &mut b, DataType::String),
        Value::string("grp")
    );
    assert_eq!(unpack_one(fmt, &mut b, DataType::Size), Value::Size(0));
}

/// Reads a count of one, `p`, then a count of no infos.
fn one_proc_no_infos(fmt: Format, b: &mut Buffer, p: &Proc) {
    assert_eq!(unpack_one(fmt, b, DataType::Size), Value::Size(1));
    assert_eq!(unpack_one(fmt, b, DataType::Proc), Value::Proc(p.clone()));
    assert_eq!(unpack_one(fmt, b, DataType::Size), Value::Size(0));
}

#[test]
fn an_iof_pull_learns_the_servers_reference_and_output_reaches_our_id() {
    use super::services::{iof_delivery, NotSent};
    use crate::wire::iof::{channel, Delivery, Deregister, Pull, Push};
    use crate::wire::Message;
    let fmt = Format::DATA_PACK;
    let src = Proc::new(Nspace::new("job-1").unwrap(), crate::Rank(1));
    let mut state = LinkState::default();
    let pull = Pull {
        id: 7,
        sources: vec![src.clone()],
        channels: channel::STDOUT,
        directives: vec![],
    };
    let (bytes, layout) = request(fmt, &mut state, Op::IOF_PULL, &pull.encode().unwrap()).unwrap();
    assert_eq!(layout, ReplyLayout::IofPull { id: 7 });
    let (c, mut b) = command_of(fmt, bytes);
    assert_eq!(c, u8::from(Cmd::IofPull));
    one_proc_no_infos(fmt, &mut b, &src);
    assert_eq!(
        unpack_one(fmt, &mut b, DataType::IofChannel),
        Value::IofChannel(channel::STDOUT)
    );
    assert_eq!(unpack_one(fmt, &mut b, DataType::Size), Value::Size(7));
    assert_eq!(b.remaining(), 0);

    // A deregistration before the reply names nothing the server knows.
    let dereg = Deregister {
        id: 7,
        directives: vec![],
    }
    .encode()
    .unwrap();
    assert_eq!(
        request(fmt, &mut state, Op::IOF_DEREGISTER, &dereg).unwrap_err(),
        NotSent::Bad(Status::ERR_NOT_FOUND)
    );
    let mut reply = Buffer::new();
    fmt.pack_value(&mut reply, &Value::Size(3)).unwrap();
    let r = response(fmt, &mut state, layout, Status::SUCCESS, &mut reply);
    assert_eq!(r.status, Status::SUCCESS);

    // Output for our id 7 becomes our delivery.
    let mut out = Buffer::new();
    fmt.pack_value(&mut out, &Value::Proc(src.clone())).unwrap();
    fmt.pack_value(&mut out, &Value::IofChannel(channel::STDOUT))
        .unwrap();
    fmt.pack_value(&mut out, &Value::Size(7)).unwrap();
    fmt.pack_value(&mut out, &Value::Size(0)).unwrap();
    fmt.pack_value(&mut out, &Value::ByteObject(b"hi\n".to_vec()))
        .unwrap();
    let Some(Message::Iof(body)) = iof_delivery(fmt, out.into_bytes()) else {
        panic!("no delivery");
    };
    let d = Delivery::decode(&body).unwrap();
    assert_eq!(
        (d.ids, d.source, d.data),
        (vec![7], src.clone(), b"hi\n".to_vec())
    );
    assert!(iof_delivery(fmt, vec![1, 2, 3]).is_none());

    // The deregistration names the server's reference, once.
    let (bytes, _) = request(fmt, &mut state, Op::IOF_DEREGISTER, &dereg).unwrap();
    let (c, mut b) = command_of(fmt, bytes);
    assert_eq!(c, u8::from(Cmd::IofDereg));
    assert_eq!(unpack_one(fmt, &mut b, DataType::Size), Value::Size(0));
    assert_eq!(unpack_one(fmt, &mut b, DataType::Size), Value::Size(3));
    assert!(state.iof_refs.is_empty());

    // A push: targets, directives, the bytes (none at the end of input).
    for data in [Some(b"in".to_vec()), None] {
        let push = Push {
            targets: vec![src.clone()],
            directives: vec![],
            data: data.clone(),
        };
        let (bytes, _) = request(fmt, &mut state, Op::IOF_PUSH, &push.encode().unwrap()).unwrap();
        let (c, mut b) = command_of(fmt, bytes);
        assert_eq!(c, u8::from(Cmd::IofPush));
        one_proc_no_infos(fmt, &mut b, &src);
        match data {
            Some(d) => assert_eq!(
                unpack_one(fmt, &mut b, DataType::ByteObject),
                Value::ByteObject(d)
            ),
            None => assert_eq!(b.remaining(), 0),
        }
    }
}

/// OpenPMIx's default buffer format.
const V41: Format = Format {
    module: Module::V41,
    described: false,
};

/// Our control request `op` with `body` sent to a server of `version`:
/// the stock command's fields as the door reads them, and the response
/// our client gets for each of `replies` (status, results).
fn control_round_trip(
    version: &str,
    op: crate::wire::Op,
    body: &[u8],
    replies: &[(Status, Vec<Info>)],
) -> (
    crate::openpmix::control::Control,
    Vec<crate::wire::Response>,
) {
    use crate::openpmix::control::{pack_results, Control};
    let fmt = V41;
    let mut state = LinkState::new(Some(version));
    let (bytes, layout) = request(fmt, &mut state, op, body).unwrap();
    assert_eq!(layout, ReplyLayout::Results);
    let (c, mut b) = command_of(fmt, bytes);
    let cmd = crate::openpmix::Command::try_from(c).unwrap();
    let sent = Control::unpack(cmd, fmt, &mut b).unwrap().unwrap();
    assert_eq!(sent.command(), cmd);
    assert_eq!(b.remaining(), 0);
    let answers = replies
        .iter()
        .map(|(status, results)| {
            let mut reply =
                Buffer::from_bytes(pack_results(fmt, *status, results.clone()).unwrap());
            let Value::Status(s) = unpack_one(fmt, &mut reply, DataType::Status) else {
                panic!("no status");
            };
            response(fmt, &mut state, layout.clone(), Status(s), &mut reply)
        })
        .collect();
    (sent, answers)
}

#[test]
fn job_control_monitor_allocation_and_session_control_carry_their_results_back() {
    use super::services::NotSent;
    use crate::openpmix::control::Control;
    use crate::wire::rm;
    let me = Proc::new(Nspace::new("job").unwrap(), crate::Rank(1));
    let directive = Info::new(key(keys::JOB_CTRL_SIGNAL), Value::Int(18));
    let result = Info::new(key(keys::JOB_CTRL_ID), Value::string("ctl"));
    let replies = [
        (Status::SUCCESS, vec![result.clone()]),
        (Status::ERR_PARTIAL_SUCCESS, vec![result.clone()]),
        (Status::ERR_NOT_SUPPORTED, vec![]),
    ];
    let check = |answers: Vec<crate::wire::Response>| {
        assert_eq!(answers[0].status, Status::SUCCESS);
        assert_eq!(
            rm::get_list(&answers[0].body).unwrap(),
            vec![result.clone()]
        );
        assert_eq!(answers[1].status, Status::ERR_PARTIAL_SUCCESS);
        assert_eq!(
            rm::get_list(&answers[1].body).unwrap(),
            vec![result.clone()]
        );
        assert_eq!(answers[2].status, Status::ERR_NOT_SUPPORTED);
        assert!(answers[2].body.is_empty());
    };

    let body =
        rm::put_job_control(std::slice::from_ref(&me), std::slice::from_ref(&directive)).unwrap();
    let (sent, answers) = control_round_trip("4.2.2", Op::JOB_CONTROL, &body, &replies);
    assert_eq!(
        sent,
        Control::JobControl {
            targets: vec![me.clone()],
            directives: vec![directive.clone()],
        }
    );
    check(answers);

    let what = Info::new(key(keys::MONITOR_CANCEL), Value::string("m"));
    let body = rm::put_monitor(&what, Status(-99), std::slice::from_ref(&directive)).unwrap();
    let (sent, answers) = control_round_trip("5.0.11", Op::MONITOR, &body, &replies);
    assert_eq!(
        sent,
        Control::Monitor {
            what,
            error: Status(-99),
            directives: vec![directive.clone()],
        }
    );
    check(answers);

    let cpus = Info::new(key(keys::ALLOC_NUM_CPUS), Value::Uint64(1));
    let body = rm::put_allocate(2, std::slice::from_ref(&cpus)).unwrap();
    let (sent, answers) = control_round_trip("5.0.11", Op::ALLOCATE, &body, &replies);
    assert_eq!(
        sent,
        Control::Allocate {
            directive: 2,
            infos: vec![cpus],
        }
    );
    check(answers);

    let body = rm::put_session_control(7, std::slice::from_ref(&directive)).unwrap();
    let (sent, answers) = control_round_trip("6.0.0", Op::SESSION_CONTROL, &body, &replies);
    assert_eq!(
        sent,
        Control::SessionControl {
            session: 7,
            directives: vec![directive],
        }
    );
    check(answers);
    // Before 6.0 there is no such command: not carried (the bridge answers
    // PMIX_ERR_NOT_SUPPORTED at once, as OpenPMIx's own client does).
    for version in ["4.2.2", "5.0.11"] {
        assert_eq!(
            request(
                V41,
                &mut LinkState::new(Some(version)),
                Op::SESSION_CONTROL,
                &body
            )
            .unwrap_err(),
            NotSent::NotCarried
        );
    }

    // A success that ends after its status has no results; a reply whose
    // count lies does not decode.
    let fmt = V41;
    let r = response(
        fmt,
        &mut LinkState::default(),
        ReplyLayout::Results,
        Status::SUCCESS,
        &mut Buffer::new(),
    );
    assert_eq!(
        (r.status, rm::get_list(&r.body).unwrap()),
        (Status::SUCCESS, vec![])
    );
    let mut lying = Buffer::new();
    fmt.pack_value(&mut lying, &Value::Size(1000)).unwrap();
    let r = response(
        fmt,
        &mut LinkState::default(),
        ReplyLayout::Results,
        Status::SUCCESS,
        &mut lying,
    );
    assert_eq!(r.status, Status::ERR_UNPACK_FAILURE);
}

#[test]
fn only_a_monitor_of_send_heartbeat_is_a_heartbeat() {
    use super::services::is_heartbeat;
    use crate::wire::rm;
    let beat = Info::new(key(keys::SEND_HEARTBEAT), Value::Bool(true));
    let body = rm::put_monitor(&beat, Status(-109), &[]).unwrap();
    assert!(is_heartbeat(Op::MONITOR, &body));
    assert!(!is_heartbeat(Op::ALLOCATE, &body));
    let cancel = Info::new(key(keys::MONITOR_CANCEL), Value::string("m"));
    let body = rm::put_monitor(&cancel, Status(-109), &[]).unwrap();
    assert!(!is_heartbeat(Op::MONITOR, &body));
    assert!(!is_heartbeat(Op::MONITOR, &[1, 2, 3]));
}
