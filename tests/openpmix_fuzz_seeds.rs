//! Seeds for the fuzz targets of OpenPMIx's protocol: real connect
//! messages (every peer kind, v41, v4 and v3, both buffer types, a tool's info
//! array) for `openpmix_handshake`, and whole connections — the selector
//! byte, a connect frame, then requests (a command and infos) — for
//! `openpmix_decode`, and a server's frames (init reply, notification,
//! get and lookup replies) for `stock_link_reply`, in the input layouts
//! their doc comments describe.
//! Written into `<dir>/<target>/` when `WIRE_FUZZ_SEEDS=<dir>` is set (CI
//! sets it to `fuzz/corpus`); otherwise it checks that every seed parses
//! as its target will read it. Keep the selector in step with
//! `openpmix_decode`'s.

use pmix::codec::{Buffer, Format, Module};
use pmix::openpmix::handshake::Identity;
use pmix::openpmix::header::{Frame, FrameReader, Order};
use pmix::openpmix::{BufferType, Command, ConnectMessage, PeerFormat, PeerKind};
use pmix::{DataType, Info, Key, Nspace, Proc, Rank, Value};

const KINDS: [u8; 11] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

fn formats() -> Vec<PeerFormat> {
    let mut v = Vec::new();
    for module in [Module::V41, Module::V4, Module::V3] {
        for buffer_type in [BufferType::NonDescribed, BufferType::FullyDescribed] {
            v.push(PeerFormat {
                module,
                buffer_type,
            });
        }
    }
    v
}

fn infos() -> Vec<Info> {
    vec![
        Info::new(
            Key::new("pmix.srvr.uri").unwrap(),
            Value::string("s.0;tcp4://127.0.0.1:1"),
        ),
        Info::new(Key::new("pmix.ppid").unwrap(), Value::Pid(1)),
        Info::new(Key::new("pmix.euid").unwrap(), Value::Uint32(0)),
    ]
}

fn message(kind: PeerKind, format: PeerFormat) -> ConnectMessage {
    let proc = Proc::new(Nspace::new("seed-ns").unwrap(), Rank(3));
    let mut m = ConnectMessage::client(proc, 1000, 1000, "5.0.11", format);
    m.kind = kind;
    m.identity = Identity {
        ids: kind.sends_ids().then_some((1000, 1000)),
        proc: kind.sends_proc().then(|| m.identity.proc.clone().unwrap()),
    };
    if !kind.gets_client_reply(5) {
        m.set_infos(&infos()).unwrap();
    }
    m
}

fn handshake_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for k in KINDS {
        let kind = PeerKind::from_byte(k).unwrap();
        for f in formats() {
            seeds.push(message(kind, f).encode_payload().unwrap());
        }
    }
    seeds
}

/// `openpmix_decode`'s selector for `format` whose item type is `ty`, if
/// one exists (else one for the format alone).
fn selector(format: Format, ty: DataType) -> u8 {
    let fits = |sel: u8| Format::from_fuzz_selector(sel) == format;
    let all = DataType::ALL;
    (0..=255u8)
        .find(|&s| fits(s) && all[usize::from(s) % all.len()] == ty)
        .or_else(|| (0..=255u8).find(|&s| fits(s)))
        .unwrap()
}

fn decode_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for f in formats() {
        let fmt = f.codec();
        let infos: Vec<Value> = infos()
            .into_iter()
            .map(|i| Value::Info(Box::new(i)))
            .collect();
        let mut req = Buffer::new();
        fmt.pack_value(&mut req, &Value::Command(Command::GetNb.into()))
            .unwrap();
        fmt.pack(&mut req, DataType::Info, &infos).unwrap();
        let mut init = Buffer::new();
        fmt.pack_value(&mut init, &Value::Command(Command::Req.into()))
            .unwrap();
        let mut s = vec![selector(fmt, DataType::Info)];
        s.extend(message(PeerKind::SimpleClient, f).encode().unwrap());
        for (tag, payload) in [(100, init), (101, req)] {
            let frame = Frame::message(0, tag, payload.into_bytes());
            s.extend(frame.encode(Order::Network));
        }
        seeds.push(s);
    }
    seeds
}

/// Well-formed commands of a peer of `format`: init, commit, fence, get,
/// query, log, publish, lookup, notify, register and deregister events,
/// abort, finalize.
fn door_commands(format: PeerFormat) -> Vec<Vec<u8>> {
    let fmt = format.codec();
    let cmd = |c: Command, items: &[Value]| {
        let mut b = Buffer::new();
        fmt.pack_value(&mut b, &Value::Command(c.into())).unwrap();
        for v in items {
            fmt.pack_value(&mut b, v).unwrap();
        }
        b
    };
    let info_values: Vec<Value> = infos()
        .into_iter()
        .map(|i| Value::Info(Box::new(i)))
        .collect();
    let with_infos = |mut b: Buffer| {
        fmt.pack_value(&mut b, &Value::Size(info_values.len()))
            .unwrap();
        fmt.pack(&mut b, DataType::Info, &info_values).unwrap();
        b.into_bytes()
    };
    let job = Proc::new(Nspace::new("fuzz-ns").unwrap(), Rank::WILDCARD);
    let text = |s: &str| Value::String(Some(std::ffi::CString::new(s).unwrap()));
    // A commit: scope, then one PMIX_BUFFER holding a kval.
    let mut kvals = Buffer::new();
    let kv = pmix::value::Kval {
        key: Some(std::ffi::CString::new("seed.key").unwrap()),
        value: Some(Box::new(Value::Uint32(7))),
    };
    fmt.pack_value(&mut kvals, &Value::Kval(Box::new(kv)))
        .unwrap();
    let mut commit = cmd(Command::Commit, &[Value::Scope(3)]);
    let nested = pmix::codec::NestedBuffer {
        buffer_type: format.buffer_type.byte(),
        bytes: kvals.into_bytes(),
    };
    fmt.pack_buffers(&mut commit, &[nested]).unwrap();
    let query = pmix::value::Query {
        keys: vec![std::ffi::CString::new("pmix.qry.ns").unwrap()],
        qualifiers: Vec::new(),
    };
    vec![
        cmd(Command::Req, &[]).into_bytes(),
        commit.into_bytes(),
        with_infos(cmd(
            Command::FenceNb,
            &[Value::Size(1), Value::Proc(job.clone())],
        )),
        {
            let mut b = with_infos(cmd(Command::GetNb, &[text("fuzz-ns"), Value::ProcRank(0)]));
            let mut key = Buffer::new();
            fmt.pack_value(&mut key, &text("seed.key")).unwrap();
            b.extend_from_slice(key.as_bytes());
            b
        },
        cmd(
            Command::Query,
            &[Value::Size(1), Value::Query(Box::new(query))],
        )
        .into_bytes(),
        {
            let b = with_infos(cmd(Command::Log, &[Value::Time(1)]));
            let mut b = Buffer::from_bytes(b);
            fmt.pack_value(&mut b, &Value::Size(0)).unwrap();
            b.into_bytes()
        },
        with_infos(cmd(Command::PublishNb, &[Value::Uint32(0)])),
        with_infos(cmd(
            Command::LookupNb,
            &[Value::Uint32(0), Value::Size(1), text("seed.key")],
        )),
        with_infos(cmd(
            Command::Notify,
            &[Value::Status(-1), Value::DataRange(2)],
        )),
        cmd(Command::RegEvents, &[]).into_bytes(),
        cmd(Command::DeregEvents, &[]).into_bytes(),
        cmd(Command::Abort, &[Value::Status(1), text("seed abort")]).into_bytes(),
        cmd(Command::Finalize, &[]).into_bytes(),
    ]
}

/// `stock_door_decode` inputs: for every built connect message (v41 and
/// v4: selectors 0-15; v3: its bit 6 with bits 1-3), its peer's
/// well-formed commands, each length-prefixed.
fn door_seeds() -> Vec<(u8, Vec<Vec<u8>>, Vec<u8>)> {
    let v3 = Format {
        module: Module::V3,
        described: false,
    }
    .fuzz_selector();
    (0..16u8)
        .chain((0..16u8).filter(|s| s & 1 == 0).map(|s| s | v3))
        .map(|sel| {
            let connect = ConnectMessage::parse(&pmix::server::door_connect(sel)).unwrap();
            let commands = door_commands(connect.format);
            let mut input = vec![sel];
            for c in &commands {
                input.extend_from_slice(&u16::try_from(c.len()).unwrap().to_le_bytes());
                input.extend_from_slice(c);
            }
            (sel, commands, input)
        })
        .collect()
}

#[test]
fn door_seeds_are_admitted_and_their_commands_reach_the_loop() {
    for (sel, commands, _) in door_seeds() {
        let cmds: Vec<&[u8]> = commands.iter().map(Vec::as_slice).collect();
        let r = pmix::server::door_decode(&pmix::server::door_connect(sel), &cmds);
        assert!(r.admitted, "selector {sel}");
        // Every command but registration (answered here) and
        // deregistration (no answer) becomes a message for the loop.
        assert_eq!(
            (r.forwarded, r.answered, r.ignored),
            (commands.len() - 2, 1, 1),
            "selector {sel}"
        );
        // A command cut short is answered (bad parameter), never more.
        let cut: Vec<&[u8]> = cmds.iter().map(|c| &c[..c.len() / 2]).collect();
        let r = pmix::server::door_decode(&pmix::server::door_connect(sel), &cut);
        assert_eq!(r.forwarded + r.answered + r.ignored, cut.len());
    }
}

/// `stock_link_reply`'s input for `format`: its selector (split step 1),
/// then the frames a server sends: an init reply, a notification, a get's
/// reply and a lookup's.
fn link_reply_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for f in formats() {
        let fmt = f.codec();
        let sel = fmt.fuzz_selector();
        let kval = |k: &str, v: Value| {
            Value::Kval(Box::new(pmix::value::Kval {
                key: Some(std::ffi::CString::new(k).unwrap()),
                value: Some(Box::new(v)),
            }))
        };
        let mut init = Buffer::new();
        fmt.pack_value(&mut init, &Value::string("seed-ns"))
            .unwrap();
        fmt.pack_value(&mut init, &kval("pmix.job.size", Value::Uint32(2)))
            .unwrap();
        let mut notify = Buffer::new();
        fmt.pack_value(&mut notify, &Value::Command(Command::Notify.into()))
            .unwrap();
        fmt.pack_value(&mut notify, &Value::Status(-3077)).unwrap();
        let source = Proc::new(Nspace::new("seed-ns").unwrap(), Rank(0));
        fmt.pack(&mut notify, DataType::Proc, &[Value::Proc(source.clone())])
            .unwrap();
        let infos: Vec<Value> = infos()
            .into_iter()
            .map(|i| Value::Info(Box::new(i)))
            .collect();
        fmt.pack_value(&mut notify, &Value::Size(infos.len()))
            .unwrap();
        fmt.pack(&mut notify, DataType::Info, &infos).unwrap();
        fmt.pack_value(&mut notify, &Value::DataRange(3)).unwrap();
        let mut get = Buffer::new();
        fmt.pack_value(&mut get, &Value::Status(0)).unwrap();
        let mut blob = Buffer::new();
        fmt.pack(&mut blob, DataType::Proc, &[Value::Proc(source.clone())])
            .unwrap();
        fmt.pack_value(&mut blob, &kval("seed.key", Value::Uint32(7)))
            .unwrap();
        fmt.pack_value(&mut get, &Value::ByteObject(blob.into_bytes()))
            .unwrap();
        let mut lookup = Buffer::new();
        fmt.pack_value(&mut lookup, &Value::Status(0)).unwrap();
        fmt.pack_value(&mut lookup, &Value::Size(1)).unwrap();
        let pd = pmix::value::PData {
            proc: source,
            key: Key::new("seed.name").unwrap(),
            value: Value::string("hello"),
        };
        fmt.pack(&mut lookup, DataType::PData, &[Value::PData(Box::new(pd))])
            .unwrap();
        let mut s = vec![sel];
        for (tag, payload) in [(100, init), (0, notify), (101, get), (102, lookup)] {
            let frame = Frame::message(7, tag, payload.into_bytes());
            s.extend(frame.encode(Order::Network));
        }
        seeds.push(s);
    }
    seeds
}

#[test]
fn seeds() {
    for s in link_reply_seeds() {
        let fmt = Format::from_fuzz_selector(s[0]);
        let ns = Nspace::new("seed-ns").unwrap();
        let mut r = FrameReader::new(1 << 16);
        r.push(&s[1..]).unwrap();
        let mut decoded = Vec::new();
        while let Some(f) = r.next_frame() {
            decoded.push(pmix::client::stock_link_decode(fmt, &ns, &f.payload));
        }
        // Each frame decodes as what it is (at least).
        assert_eq!(decoded.len(), 4);
        assert!(decoded.iter().all(|&n| n >= 1), "{decoded:?}");
    }
    for s in handshake_seeds() {
        let m = ConnectMessage::parse(&s).unwrap();
        assert_eq!(m.encode_payload().unwrap(), s);
        m.infos().unwrap();
    }
    for s in decode_seeds() {
        let mut r = FrameReader::server(1 << 16);
        r.push(&s[1..]).unwrap();
        let connect = ConnectMessage::parse(&r.next_frame().unwrap().payload).unwrap();
        let fmt = connect.format.codec();
        assert_eq!(selector(fmt, DataType::Info), s[0]);
        let mut n = 0;
        while let Some(f) = r.next_frame() {
            let mut b = Buffer::from_bytes(f.payload);
            fmt.unpack_value(&mut b, DataType::Command).unwrap();
            n += 1;
        }
        assert_eq!(n, 2);
    }
    if let Ok(dir) = std::env::var("WIRE_FUZZ_SEEDS") {
        for (target, seeds) in [
            ("openpmix_handshake", handshake_seeds()),
            ("openpmix_decode", decode_seeds()),
            (
                "stock_door_decode",
                door_seeds()
                    .into_iter()
                    .map(|(_, _, input)| input)
                    .collect(),
            ),
            ("stock_link_reply", link_reply_seeds()),
        ] {
            let d = std::path::Path::new(&dir).join(target);
            std::fs::create_dir_all(&d).unwrap();
            for (i, s) in seeds.iter().enumerate() {
                std::fs::write(d.join(format!("seed-{i:03}")), s).unwrap();
            }
        }
    }
}
