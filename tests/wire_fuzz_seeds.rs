//! Real encoded control-plane messages, one of every kind, every service
//! request body and every inner reply body, as seeds for the fuzz targets
//! `server_decode`, `client_decode` and `server_session` (in the input
//! layouts their doc comments describe), written into `<dir>/<target>/`
//! when `WIRE_FUZZ_SEEDS=<dir>` is set (CI sets it to `fuzz/corpus`);
//! otherwise it checks that every seed decodes as its target will read it.
//! Keep the selector tables below in step with the targets'.

use std::ffi::CString;

use pmix::client::Scope;
use pmix::events::{encode_event, Event, Range};
use pmix::group::{GroupOpt, GroupResult};
use pmix::value::{App, Query};
use pmix::wire::{
    blob, group, iof, process_mgmt, pubsub, rm, Abort, DmodexReply, DmodexRequest, FenceRelease,
    FenceRequest, Handshake, HandshakeReply, Header, Kind, Message, NspaceReply, Op, Posted,
    Request, Response, SegmentKind, SegmentRef, ToolHandshake, ToolHandshakeReply,
};
use pmix::{keys, Info, Key, Nspace, Proc, Rank, Status, Value};

/// `server_decode`'s mode-2 operations, in its order.
const SERVER_OPS: [u16; 24] = [
    1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 999,
];

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

fn proc(r: u32) -> Proc {
    Proc::new(Nspace::new("seed-ns").unwrap(), Rank(r))
}

fn infos() -> Vec<Info> {
    vec![
        Info::new(key(keys::COLLECT_DATA), Value::Bool(true)),
        Info::new(key(keys::TIMEOUT), Value::Int32(2)),
        Info::new(key("seed.str"), Value::string("text")),
    ]
}

fn segment(kind: SegmentKind) -> SegmentRef {
    SegmentRef {
        nspace: Nspace::new("seed-ns").unwrap(),
        kind,
        generation: 3,
    }
}

fn posted() -> Vec<Posted> {
    vec![
        Posted {
            scope: Scope::Global,
            key: key("seed.key"),
            value: Value::ByteObject(vec![1, 2, 3, 4]),
        },
        Posted {
            scope: Scope::Local,
            key: key("seed.u"),
            value: Value::Uint64(7),
        },
    ]
}

/// One message of every kind a client sends.
fn client_messages() -> Vec<Message> {
    vec![
        Message::Handshake(Handshake {
            version: 1,
            proc: proc(0),
            secret: b"0123456789abcdef0123456789abcdef".to_vec(),
        }),
        Message::Commit(posted()),
        Message::FenceRequest(FenceRequest {
            procs: vec![proc(0), proc(Rank::WILDCARD.0)],
            infos: infos(),
        }),
        Message::DmodexRequest(DmodexRequest {
            proc: proc(1),
            key: Some(key("seed.key")),
            infos: infos(),
        }),
        Message::Abort(Abort {
            status: Status(-7),
            message: Some(c"seed".to_owned()),
            procs: vec![proc(1)],
        }),
        Message::Finalize,
        Message::Request(Request {
            op: Op::LOOKUP,
            body: pubsub::encode_lookup(&[key("seed.key")], &infos()).unwrap(),
        }),
        Message::NspaceRequest(Nspace::new("seed-ns").unwrap()),
        Message::ToolHandshake(ToolHandshake {
            version: 1,
            proc: Some(proc(0)),
            infos: infos(),
        }),
    ]
}

/// One message of every kind a server sends (and how many descriptors
/// travel with it).
fn server_messages() -> Vec<Message> {
    vec![
        Message::HandshakeReply(HandshakeReply {
            status: Status::SUCCESS,
            server: proc(9),
            segments: vec![segment(SegmentKind::Job)],
        }),
        Message::FenceRelease(FenceRelease {
            status: Status::SUCCESS,
            segments: vec![segment(SegmentKind::Modex)],
        }),
        Message::DmodexReply(DmodexReply {
            status: Status::SUCCESS,
            data: blob_bytes(),
        }),
        Message::AbortReply(Status::ERR_NOT_SUPPORTED),
        Message::FinalizeReply(Status::SUCCESS),
        Message::Response(Response {
            status: Status::SUCCESS,
            body: rm::put_query_answer(Status::SUCCESS, &infos()).unwrap(),
        }),
        Message::Event(event_bytes()),
        Message::Iof(delivery_bytes()),
        Message::Segments(vec![segment(SegmentKind::ModexReplace)]),
        Message::NspaceReply(NspaceReply {
            status: Status::SUCCESS,
            segments: vec![segment(SegmentKind::Job), segment(SegmentKind::Modex)],
        }),
        Message::ToolHandshakeReply(ToolHandshakeReply {
            status: Status::SUCCESS,
            server: proc(9),
            tool: proc(0),
        }),
    ]
}

fn blob_bytes() -> Vec<u8> {
    let mut out = Vec::new();
    blob::put_record(&mut out, &proc(1), posted().iter()).unwrap();
    out
}

fn event_bytes() -> Vec<u8> {
    encode_event(&Event {
        status: Status(-151),
        source: proc(0),
        range: Range::LOCAL,
        infos: infos(),
    })
    .unwrap()
}

fn delivery_bytes() -> Vec<u8> {
    iof::Delivery {
        ids: vec![1],
        source: proc(0),
        channel: 2,
        data: b"hello\n".to_vec(),
        infos: vec![],
    }
    .encode()
    .unwrap()
}

fn endpoints_bytes() -> Vec<u8> {
    group::encode_endpoints(&[group::Endpoint {
        proc: proc(0),
        record: blob_bytes(),
        info: infos(),
    }])
    .unwrap()
}

/// The request body of every operation of `SERVER_OPS`, in its order.
fn request_bodies() -> Vec<Vec<u8>> {
    let procs = [proc(0), proc(1)];
    let ks = [key("seed.key")];
    let app = App {
        cmd: Some(c"/bin/true".to_owned()),
        argv: vec![c"/bin/true".to_owned()],
        env: vec![c"A=1".to_owned()],
        cwd: None,
        maxprocs: 2,
        info: infos(),
    };
    let query = Query {
        keys: vec![CString::new(keys::QUERY_NAMESPACES).unwrap()],
        qualifiers: infos(),
    };
    let mut queries = Vec::new();
    rm::put_queries(&mut queries, &[query]).unwrap();
    let monitor = Info::new(key("pmix.monitor.hb"), Value::Bool(true));
    vec![
        pubsub::encode_publish(&infos()).unwrap(),
        pubsub::encode_lookup(&ks, &infos()).unwrap(),
        pubsub::encode_unpublish(Some(&ks), &infos()).unwrap(),
        queries,
        rm::put_two_lists(&infos(), &infos()).unwrap(),
        rm::put_job_control(&procs, &infos()).unwrap(),
        rm::put_monitor(&monitor, Status(-1), &infos()).unwrap(),
        event_bytes(),
        process_mgmt::encode_spawn(&infos(), &[app]).unwrap(),
        process_mgmt::encode_collective(&procs, &infos()).unwrap(),
        process_mgmt::encode_collective(&procs, &infos()).unwrap(),
        group::encode_construct("seedgrp", &procs, &infos()).unwrap(),
        group::encode_id("seedgrp", &infos()).unwrap(),
        rm::put_allocate(1, &infos()).unwrap(),
        rm::put_list(&infos()).unwrap(),
        rm::put_credential(b"credential", &infos()).unwrap(),
        iof::Pull {
            id: 1,
            sources: procs.to_vec(),
            channels: 2,
            directives: infos(),
        }
        .encode()
        .unwrap(),
        iof::Push {
            targets: procs.to_vec(),
            directives: infos(),
            data: Some(b"input".to_vec()),
        }
        .encode()
        .unwrap(),
        iof::Deregister {
            id: 1,
            directives: vec![],
        }
        .encode()
        .unwrap(),
        group::encode_construct("seedgrp", &procs, &infos()).unwrap(),
        group::encode_join("seedgrp", &proc(0), GroupOpt::Accept, &infos()).unwrap(),
        group::encode_id("seedgrp", &infos()).unwrap(),
        group::encode_verdict("seedgrp", Status::SUCCESS, true).unwrap(),
        vec![],
    ]
}

/// The inner reply bodies of `client_decode`'s mode 2, by selector.
fn reply_bodies() -> Vec<Vec<u8>> {
    let found = [pubsub::PublishedValue {
        publisher: proc(0),
        key: key("seed.key"),
        value: Value::string("v"),
    }];
    let result = GroupResult {
        status: Status::SUCCESS,
        id: "seedgrp".into(),
        context_id: Some(4),
        members: vec![proc(0), proc(1)],
        info: vec![(proc(0), infos())],
    };
    vec![
        blob_bytes(),
        event_bytes(),
        delivery_bytes(),
        pubsub::encode_lookup_reply(Status::SUCCESS, &found).unwrap(),
        rm::put_query_answer(Status::SUCCESS, &infos()).unwrap(),
        rm::put_list(&infos()).unwrap(),
        rm::put_credential(b"credential", &infos()).unwrap(),
        process_mgmt::encode_nspace(&Nspace::new("seed-spawned").unwrap()).unwrap(),
        group::encode_result(&result).unwrap(),
        endpoints_bytes(),
    ]
}

fn body(m: &Message) -> Vec<u8> {
    let mut b = Vec::new();
    m.encode_body(&mut b).unwrap();
    b
}

fn frame(m: &Message) -> Vec<u8> {
    let b = body(m);
    let h = Header {
        kind: m.kind(),
        nfds: m.fd_count() as u8,
        id: 5,
        len: b.len() as u32,
    };
    let mut out = h.encode().to_vec();
    out.extend_from_slice(&b);
    out
}

fn kinds(from_client: bool) -> Vec<Kind> {
    (0..64u16)
        .filter_map(Kind::from_u16)
        .filter(|k| k.from_client() == from_client)
        .collect()
}

/// Seeds of a decoder target: each message as a frame stream (mode 0)
/// and as a body of its kind (mode 1), and the inner bodies (mode 2).
fn decoder_seeds(messages: &[Message], from_client: bool, inner: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let ks = kinds(from_client);
    let mut seeds = Vec::new();
    for m in messages {
        let nfds = m.fd_count() as u8;
        let mut s = vec![0, nfds, 7];
        s.extend(frame(m));
        seeds.push(s);
        let idx = ks.iter().position(|k| *k == m.kind()).unwrap() as u8;
        let mut s = vec![1, idx, nfds];
        s.extend(body(m));
        seeds.push(s);
    }
    // Every message of the side back to back in one stream.
    let mut all = vec![0, 0, 40];
    for m in messages.iter().filter(|m| m.fd_count() == 0) {
        all.extend(frame(m));
    }
    seeds.push(all);
    for (i, b) in inner.iter().enumerate() {
        let mut s = vec![2, i as u8, 0];
        s.extend(b);
        seeds.push(s);
    }
    seeds
}

/// A `server_session` record.
fn record(out: &mut Vec<u8>, conn: u8, what: u8, payload: &[u8]) {
    let payload = &payload[..payload.len().min(255)];
    out.extend([conn, what, payload.len() as u8]);
    out.extend_from_slice(payload);
}

/// `server_session` seeds: every structured operation with a few
/// parameter patterns, every real request body as a raw `Request`, every
/// client message as a raw frame, descriptors, garbage and a handshake of
/// the input's own.
fn session_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for what in 0u8..24 {
        for (flags, params) in [
            (0u8, [0u8, 0, 0, 0, 0, 0]),
            (5, [0x7f, 1, 0x0b, 2, 3, 4]),
            (1, [0x49, 0x81, 0x03, 1, 0, 9]),
        ] {
            let mut s = vec![flags];
            record(&mut s, 0, what, &params);
            record(&mut s, 1, 1, &[0x48, 0, 0x03]);
            seeds.push(s);
        }
    }
    for (op, b) in SERVER_OPS.iter().zip(request_bodies()) {
        let mut p = op.to_le_bytes().to_vec();
        p.extend(b);
        let mut s = vec![0];
        record(&mut s, 0, 0x80, &p);
        seeds.push(s);
    }
    for m in client_messages() {
        let mut s = vec![0];
        record(&mut s, 0, 0x40 + m.kind() as u8, &body(&m));
        seeds.push(s);
    }
    // A frame with descriptors, garbage, a handshake of the input's own
    // (right secret, then another rank's, then bytes).
    let mut s = vec![2];
    record(&mut s, 0, 0xa1, &[3, 0]);
    record(&mut s, 1, 0xc0, b"PX\x01\x00\x03\x00\x00\x00");
    seeds.push(s);
    let mut s = vec![8];
    record(&mut s, 0, 24, &[3, 0]);
    record(&mut s, 0, 1, &[0x08, 0, 1]);
    seeds.push(s);
    let mut s = vec![9];
    record(&mut s, 1, 24, &[4, 1]);
    record(&mut s, 0, 24, &[0, 2, b'x']);
    seeds.push(s);
    // One long sequence on three connections: every record above in turn
    // (it also lets the fuzzer's length limit grow to long sequences).
    let mut long = vec![2];
    for (i, seed) in seeds.iter().enumerate() {
        for rec in records(&seed[1..]) {
            let mut r = rec.to_vec();
            r[0] = (i % 3) as u8;
            if long.len() + r.len() <= 4096 {
                long.extend(r);
            }
        }
    }
    seeds.push(long);
    seeds
}

/// The records of a `server_session` input after its flags byte.
fn records(mut b: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    while b.len() >= 3 {
        let n = (3 + usize::from(b[2])).min(b.len());
        out.push(&b[..n]);
        b = &b[n..];
    }
    out
}

#[test]
fn seeds() {
    let mut sets = vec![
        (
            "server_decode",
            decoder_seeds(&client_messages(), true, &request_bodies()),
        ),
        (
            "client_decode",
            decoder_seeds(&server_messages(), false, &reply_bodies()),
        ),
        ("server_session", session_seeds()),
    ];
    // Each decoder seed decodes as its target reads it.
    for (target, seeds) in &sets[..2] {
        let from_client = *target == "server_decode";
        for s in seeds.iter().filter(|s| s[0] == 1) {
            let kind = kinds(from_client)[usize::from(s[1])];
            Message::decode(kind, &s[3..], usize::from(s[2])).unwrap();
        }
    }
    assert_eq!(request_bodies().len(), SERVER_OPS.len());
    for (op, b) in SERVER_OPS.iter().zip(request_bodies()) {
        let ok = match Op(*op) {
            Op::PUBLISH => pubsub::decode_publish(&b).is_ok(),
            Op::SPAWN => process_mgmt::decode_spawn(&b).is_ok(),
            Op::GROUP_JOIN => group::decode_join(&b).is_ok(),
            Op::IOF_PUSH => iof::Push::decode(&b).is_ok(),
            Op::VALIDATE_CREDENTIAL => rm::get_credential(&b).is_ok(),
            _ => true,
        };
        assert!(ok, "seed of operation {op}");
    }
    assert!(group::decode_result(&reply_bodies()[8]).is_ok());
    if let Ok(dir) = std::env::var("WIRE_FUZZ_SEEDS") {
        for (target, seeds) in sets.drain(..) {
            let d = std::path::Path::new(&dir).join(target);
            std::fs::create_dir_all(&d).unwrap();
            for (i, s) in seeds.iter().enumerate() {
                std::fs::write(d.join(format!("seed-{i:03}")), s).unwrap();
            }
        }
    }
}
