//! Server application setup (`setup_application` / `setup_local_support`
//! / `setup_fork`), the keys a client answers about itself, and segment
//! delivery past one frame's descriptor limit: a server and clients in
//! this process (clients connect over the real socket, authenticated like
//! any other).

use std::sync::Arc;

use pmix::client::{Client, Scope};
use pmix::server::{EnvChange, NoHost, Server, ServerConfig};
use pmix::{keys, Info, Key, Nspace, Proc, Rank, Status, Value};

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

fn job(name: &str, size: u32) -> (Server, Nspace) {
    let server = Server::start(ServerConfig::default(), Arc::new(NoHost)).unwrap();
    let nspace = Nspace::new(format!("{name}-{}", std::process::id())).unwrap();
    common::register_local_job(&server, &nspace, size, Vec::new());
    (server, nspace)
}

fn connect(server: &Server, proc: &Proc) -> Client {
    Client::connect(&common::connect_info(server, proc), &[]).unwrap()
}

fn envar(name: &str, value: &str, sep: u8) -> Value {
    Value::Envar(pmix::value::Envar {
        envar: Some(std::ffi::CString::new(name).unwrap()),
        value: Some(std::ffi::CString::new(value).unwrap()),
        separator: sep,
    })
}

#[test]
fn application_setup_reaches_setup_fork() {
    let (server, nspace) = job("appsetup", 1);
    // This test binary's only use of the variable; set before any reader.
    std::env::set_var("PMIX_MCA_leftovers_test", "on");
    std::env::set_var("OMPI_MCA_leftovers_test", "ompi");
    let ask = vec![
        Info::new(key(keys::SETUP_APP_ENVARS), Value::Bool(true)),
        Info::new(key(keys::UNSET_ENVAR), Value::string("LEFTOVERS_GONE")),
        Info::new(key(keys::APPEND_ENVAR), envar("LEFTOVERS_LIST", "b", b',')),
    ];
    let infos = server.setup_application(&nspace, &ask).unwrap();
    let set: Vec<(String, String)> = infos
        .iter()
        .filter(|i| i.key.as_bytes() == keys::SET_ENVAR.as_bytes())
        .map(|i| match &i.value {
            Value::Envar(e) => (
                e.envar.as_ref().unwrap().to_string_lossy().into_owned(),
                e.value.as_ref().unwrap().to_string_lossy().into_owned(),
            ),
            v => panic!("{v:?}"),
        })
        .collect();
    assert!(set.contains(&("PMIX_MCA_leftovers_test".into(), "on".into())));
    // No programming model named: its variables stay home.
    assert!(!set.iter().any(|(k, _)| k == "OMPI_MCA_leftovers_test"));
    assert_eq!(infos.len(), set.len() + 2);

    // Another job's setup is not this one's.
    let other = Nspace::new("someone-else").unwrap();
    server.setup_local_support(&other, &[]).unwrap();
    server.setup_local_support(&nspace, &infos).unwrap();
    let me = Proc::new(nspace.clone(), Rank(0));
    let changes = server
        .setup_fork_changes(&me, |k| match k {
            "LEFTOVERS_LIST" => Some("a".into()),
            "LEFTOVERS_GONE" => Some("x".into()),
            _ => None,
        })
        .unwrap();
    assert!(changes.contains(&EnvChange::Set(
        "PMIX_MCA_leftovers_test".into(),
        "on".into()
    )));
    assert!(changes.contains(&EnvChange::Set("LEFTOVERS_LIST".into(), "a,b".into())));
    assert!(changes.contains(&EnvChange::Unset("LEFTOVERS_GONE".into())));
    assert!(changes.contains(&EnvChange::Set("PMIX_RANK".into(), "0".into())));

    // Malformed directives are refused; an unnamed job too.
    let bad = [Info::new(key(keys::SET_ENVAR), Value::Uint8(1))];
    assert_eq!(
        server.setup_local_support(&nspace, &bad),
        Err(Status::ERR_TYPE_MISMATCH)
    );
    // Deregistering forgets the directives.
    server.deregister_nspace(&nspace);
    server.register_nspace(&nspace, 1, &[]).unwrap();
    let changes = server.setup_fork_changes(&me, |_| None).unwrap();
    assert!(!changes
        .iter()
        .any(|c| matches!(c, EnvChange::Set(k, _) if k == "PMIX_MCA_leftovers_test")));
}

#[test]
fn a_client_answers_its_own_identity_keys() {
    let (server, nspace) = job("ownkeys", 2);
    let me = Proc::new(nspace.clone(), Rank(1));
    let c = connect(&server, &me);
    assert_eq!(c.get(&me, keys::RANK, &[]), Ok(Value::ProcRank(1)));
    assert_eq!(
        c.get(&me, keys::SERVER_RANK, &[]),
        Ok(Value::ProcRank(server.proc().rank.0))
    );
    assert_eq!(
        c.get(&me, keys::SERVER_NSPACE, &[]),
        Ok(Value::string(&server.proc().nspace.to_string_lossy()))
    );
    assert_eq!(
        c.get(&me, keys::NSPACE, &[]),
        Ok(Value::string(&nspace.to_string_lossy()))
    );
    // Another rank's identity keys are not this client's to answer.
    let peer = Proc::new(nspace.clone(), Rank(0));
    assert_eq!(c.get(&peer, keys::RANK, &[]), Err(Status::ERR_NOT_FOUND));
    c.finalize().unwrap();
}

/// More modex generations than one frame can carry descriptors for
/// (253): a process connecting afterwards still receives them all. A
/// generation replaces the earlier ones of the same participants, so each
/// one here comes from a different rank fencing alone.
#[test]
fn a_late_client_receives_more_segments_than_one_frame_carries() {
    late_client_receives(300, "manyfds");
}

/// As above with the longest namespace names (frames of segment names
/// larger than one read) and several frames' worth of descriptors.
#[test]
fn a_late_client_receives_many_frames_of_long_named_segments() {
    late_client_receives(600, &"n".repeat(240));
}

fn late_client_receives(rounds: u32, name: &str) {
    let (server, nspace) = job(name, rounds + 1);
    let collect = [Info::new(key(keys::COLLECT_DATA), Value::Bool(true))];
    for round in 0..rounds {
        let p = Proc::new(nspace.clone(), Rank(round));
        let c = connect(&server, &p);
        c.put(Scope::Global, &format!("k{round}"), Value::Uint32(round))
            .unwrap();
        c.commit().unwrap();
        c.fence(std::slice::from_ref(&p), &collect).unwrap();
        c.finalize().unwrap();
    }
    let late = Proc::new(nspace.clone(), Rank(rounds));
    let c1 = connect(&server, &late);
    {
        let r = c1.reader();
        let view = r.namespace(&nspace.to_string_lossy()).unwrap();
        let n = view.modex_segments().len();
        assert!(n > 253, "only {n} modex generations");
    }
    let optional = [Info::new(key(keys::OPTIONAL), Value::Bool(true))];
    for round in [0, 1, 252, 253, 254, rounds - 1] {
        let p = Proc::new(nspace.clone(), Rank(round));
        assert_eq!(
            c1.get(&p, &format!("k{round}"), &optional),
            Ok(Value::Uint32(round)),
            "round {round}"
        );
    }
    c1.finalize().unwrap();
}

#[test]
fn a_singleton_serves_its_job_and_its_own_data() {
    let c = Client::singleton(&[]).unwrap();
    assert!(c.is_singleton());
    let me = c.proc().clone();
    assert_eq!(me.rank, Rank(0));
    let host = pmix::server::local_hostname();
    assert_eq!(
        me.nspace.to_string_lossy(),
        format!("singleton.{host}.{}", std::process::id())
    );
    assert_eq!(c.job_size(), Ok(1));
    assert_eq!(c.get(&me, keys::RANK, &[]), Ok(Value::ProcRank(0)));
    assert_eq!(c.get(&me, keys::HOSTNAME, &[]), Ok(Value::string(&host)));
    // No server to name.
    assert_eq!(
        c.get(&me, keys::SERVER_NSPACE, &[]),
        Err(Status::ERR_NOT_FOUND)
    );
    c.put(Scope::Global, "single", Value::Uint64(7)).unwrap();
    c.commit().unwrap();
    let collect = [Info::new(key(keys::COLLECT_DATA), Value::Bool(true))];
    c.fence(&[], &collect).unwrap();
    assert_eq!(c.get(&me, "single", &[]), Ok(Value::Uint64(7)));
    let peer = Proc::new(me.nspace.clone(), Rank(1));
    assert_eq!(c.get(&peer, "single", &[]), Err(Status::ERR_NOT_FOUND));
    assert_eq!(
        c.abort(Status(1), Some("no"), &[]),
        Err(Status::ERR_UNREACH)
    );
    assert_eq!(
        c.request(pmix::wire::Op::PUBLISH, Vec::new()),
        Err(Status::ERR_UNREACH)
    );
    c.finalize().unwrap();
}

mod common;

/// `tests/c/singleton.c`, run with no server in its environment, on our
/// library and (when installed) on the reference OpenPMIx: both pass the
/// same checks.
#[test]
fn c_singleton_behaves_as_the_reference() {
    let dir = common::scratch(&format!("leftovers_singleton_{}", std::process::id()));
    let src = common::root().join("tests/c/singleton.c");
    let mut runs = vec![(
        dir.join("ours"),
        common::include_dir(),
        common::ffi_lib_dir().to_path_buf(),
    )];
    if let Some((inc, lib)) = common::reference_pmix() {
        runs.push((dir.join("reference"), inc, lib));
    }
    for (exe, inc, lib) in runs {
        common::compile_c(&[&src], &exe, &inc, &lib, &[]);
        let mut cmd = std::process::Command::new(&exe);
        cmd.env("LD_LIBRARY_PATH", &lib).env("TMPDIR", &dir);
        for (k, _) in std::env::vars() {
            if k.starts_with("PMIX_") {
                cmd.env_remove(k);
            }
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}: {}{}",
            exe.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
