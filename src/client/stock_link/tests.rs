use super::payloads::pack_commit;
use super::*;
use crate::codec::Module;
use crate::openpmix::job_info::{self, Entry, Pair, Release};
use crate::value::Kval;
use crate::wire::Posted;
use pmix_shmem::Scope;
use std::collections::HashMap;
use std::ffi::CString;

fn kval(p: &Pair) -> Value {
    Value::Kval(Box::new(Kval {
        key: CString::new(p.key.as_bytes()).ok(),
        value: Some(Box::new(p.value.clone())),
    }))
}

/// An init reply in gds/hash's layout, packed as a stock server does.
fn reply(fmt: Format, ns: &Nspace, entries: &[Entry]) -> Vec<u8> {
    let mut b = Buffer::new();
    let name = CString::new(ns.as_c_str().to_bytes()).ok();
    fmt.pack_value(&mut b, &Value::String(name)).unwrap();
    for e in entries {
        match e {
            Entry::Pair(p) => fmt.pack_value(&mut b, &kval(p)).unwrap(),
            Entry::ProcBlob { rank, pairs } => {
                let mut inner = Buffer::new();
                fmt.pack_value(&mut inner, &Value::ProcRank(*rank)).unwrap();
                for p in pairs {
                    fmt.pack_value(&mut inner, &kval(p)).unwrap();
                }
                let blob = Pair {
                    key: key(keys::PROC_BLOB),
                    value: Value::ByteObject(inner.into_bytes()),
                };
                fmt.pack_value(&mut b, &kval(&blob)).unwrap();
            }
        }
    }
    b.into_bytes()
}

#[test]
fn an_init_reply_becomes_a_segment_holding_what_the_server_sent() {
    let ns = Nspace::new("job-3").unwrap();
    let infos = vec![
        Info::new(key(keys::NODE_MAP), Value::string("n1,n2")),
        Info::new(key(keys::PROC_MAP), Value::string("0,1;2,3")),
        Info::new(key(keys::SESSION_ID), Value::Uint32(7)),
    ];
    let job = JobDescription::from_registration(&ns, 2, &infos, "n2").unwrap();
    let sent = job.build_segment().unwrap().open().unwrap();
    let release = Release::new(4, 2, 2);
    let entries = job_info::entries(&sent, release, "n2").unwrap();
    for described in [false, true] {
        let fmt = Format {
            module: Module::V41,
            described,
        };
        let payload = reply(fmt, &ns, &entries);
        let ours = job_from_reply(fmt, &ns, &payload, "n2").unwrap();
        let seg = ours.build_segment().unwrap().open().unwrap();
        // The same entries (the job realm's keys may come in another
        // order).
        let sorted = |e: &[Entry]| {
            let mut v: Vec<String> = e.iter().map(|x| format!("{x:?}")).collect();
            v.sort();
            v
        };
        let got = job_info::entries(&seg, release, "n2").unwrap();
        assert_eq!(sorted(&got), sorted(&entries));
        let infos = registration_infos(fmt, &ns, &payload).unwrap();
        assert_eq!(local_count(&infos, "n2"), 2);
        // Without node arrays or a local size: the ranks placed here.
        let blobs: Vec<Info> = infos
            .into_iter()
            .filter(|i| i.key.as_bytes() == keys::PROC_DATA.as_bytes())
            .collect();
        assert_eq!(blobs.len(), 4);
        assert_eq!(local_count(&blobs, "n1"), 2);
        assert_eq!(local_count(&blobs, "elsewhere"), 1);
    }
}

#[test]
fn replies_that_do_not_decode_or_name_another_job_are_refused() {
    let fmt = Format::DATA_PACK;
    let ns = Nspace::new("job-3").unwrap();
    let other = Nspace::new("job-4").unwrap();
    let payload = reply(fmt, &other, &[]);
    assert_eq!(
        registration_infos(fmt, &ns, &payload).unwrap_err(),
        Status::ERR_UNPACK_FAILURE
    );
    let mut cut = reply(
        fmt,
        &ns,
        &[Entry::ProcBlob {
            rank: 0,
            pairs: vec![],
        }],
    );
    cut.truncate(cut.len() - 3);
    assert!(registration_infos(fmt, &ns, &cut).is_err());
    assert!(registration_infos(fmt, &ns, &[0xff; 9]).is_err());
    assert!(registration_infos(fmt, &ns, &[]).is_err());
}

#[test]
fn only_a_tcp_uri_without_our_own_names_a_stock_server() {
    let env = |pairs: &[(&str, &str)]| {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| m.get(k).cloned()
    };
    let tcp = "srv.0;tcp4://127.0.0.1:4000";
    assert!(names_stock_server(env(&[("PMIX_SERVER_URI41", tcp)])));
    assert!(names_stock_server(env(&[(
        "PMIX_SERVER_URI4",
        "srv.0;tcp6://[::1]:4000"
    )])));
    assert!(!names_stock_server(env(&[
        ("PMIX_SERVER_URI41", tcp),
        (crate::server::OWN_URI_ENV, "srv.0;unix:///tmp/s"),
    ])));
    assert!(!names_stock_server(env(&[(
        "PMIX_SERVER_URI41",
        "srv.0;unix:///tmp/s"
    )])));
    assert!(!names_stock_server(env(&[])));
}

#[test]
fn a_commit_sends_local_then_remote_and_global_puts_in_both() {
    let fmt = Format::DATA_PACK;
    let posted = |scope, k: &str, v: u32| Posted {
        scope,
        key: key(k),
        value: Value::Uint32(v),
    };
    let puts = [posted(Scope::Remote, "r", 1), posted(Scope::Global, "g", 2)];
    let mut b = Buffer::new();
    pack_commit(fmt, &mut b, &puts).unwrap();
    let mut got = Vec::new();
    while b.remaining() > 0 {
        let Value::Scope(s) = fmt.unpack_value(&mut b, DataType::Scope).unwrap() else {
            panic!("a scope first");
        };
        let nested = fmt.unpack_buffers(&mut b, 1).unwrap().remove(0);
        assert_eq!(nested.buffer_type, 1);
        let mut inner = Buffer::from_bytes(nested.bytes);
        let keys: Vec<String> = kvals(fmt, &mut inner)
            .unwrap()
            .into_iter()
            .map(|(k, _)| String::from_utf8_lossy(k.as_bytes()).into_owned())
            .collect();
        got.push((s, keys));
    }
    assert_eq!(
        got,
        [
            (Scope::Local.raw(), vec!["g".to_string()]),
            (Scope::Remote.raw(), vec!["r".to_string(), "g".to_string()]),
        ]
    );
}

#[test]
fn a_registration_body_reads_back_and_nothing_else_does() {
    let codes = [Status(-3077), Status::ERR_LOST_CONNECTION];
    let body = registration_body(5, &codes);
    assert_eq!(read_registration(&body), Some((5, codes.to_vec())));
    assert_eq!(
        read_registration(&registration_body(9, &[])),
        Some((9, vec![]))
    );
    let mut long = body.clone();
    long.push(0);
    assert_eq!(read_registration(&long), None);
    assert_eq!(read_registration(&body[..body.len() - 1]), None);
}
