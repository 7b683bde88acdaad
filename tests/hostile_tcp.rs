//! Hostile peers at the stock door over TCP (issue 23), modelled on
//! `tests/hostile.rs`.
//!
//! - Under `pmixrun`, while a job of Debian 4.2.2 stock clients waits to
//!   start (each rank blocks on a FIFO of this test): garbage before the
//!   handshake, a header announcing a huge message, a connect message cut
//!   in the middle then closed, a slow writer that never finishes its
//!   connect message, a hundred half-open connections, a connect message
//!   of an unregistered rank, one followed by garbage. Each is refused (with
//!   its status where the protocol has one) or dropped; then, with the
//!   half-open connections still there, the job runs and completes:
//!   collecting fence, direct modex, an event.
//! - At a server of this test: an admitted peer announcing a frame over
//!   the message limit is dropped, a second connection for an admitted
//!   rank is refused, a slow writer is dropped at the handshake
//!   limit, a process of another uid (`nobody`, via `setpriv`,
//!   as root) claiming a rank is refused by the kernel's word on its
//!   socket; the admitted peer is still served.
//!
//! Every wait is bounded (read timeouts, `pmixrun --timeout`, watchdogs).

mod common;

use std::io::Write;
use std::net::{Shutdown, TcpStream};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::pmixrun_job::{PmixrunJob, LIMIT};
use common::stock_door::{
    admitted, closed, connect_message, connect_status, open, send_connect, server_with_job,
    READ_LIMIT,
};
use pmix::codec::{Buffer, Format};
use pmix::openpmix::header::{Frame, FrameReader, Order};
use pmix::openpmix::{ClientReply, Command as Cmd, Header, ServerUri};
use pmix::{Nspace, Proc, Rank, Status, Value};

/// Bytes of a xorshift stream seeded with `seed`.
fn noise(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Creates the FIFO `path`.
fn mkfifo(path: &Path) {
    let st = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(st.success(), "mkfifo {}", path.display());
}

#[test]
fn attacks_at_the_door_are_dropped_while_a_stock_job_completes() {
    let Some((exe, lib)) = common::stock_door::stock_program("stock_client", "hostile-tcp") else {
        return;
    };
    let dir = exe.parent().unwrap().to_path_buf();
    for r in 0..2 {
        mkfifo(&dir.join(format!("go.{r}")));
    }
    // Each rank waits for its FIFO, then runs on Debian's library.
    let script = format!(
        "echo ready $PMIX_NAMESPACE; read go < {d}/go.$PMIX_RANK; \
         LD_LIBRARY_PATH={lib} exec {exe} events",
        d = dir.display(),
        lib = lib.display(),
        exe = exe.display()
    );
    let mut job = PmixrunJob::start("hostile-tcp", &["-n", "2", "sh", "-c", &script]);
    job.read_nspace("ready ");
    job.wait_serving();
    let file = std::fs::read_to_string(job.rendezvous_file()).unwrap();
    let door = ServerUri::parse(file.lines().next().unwrap()).unwrap();

    // Garbage before any handshake.
    let mut s = open(&door);
    s.write_all(&noise(7, 256)).unwrap();
    assert!(closed(&mut s), "garbage first");
    // A connect header announcing 4 GiB.
    let mut s = open(&door);
    s.write_all(&Header::connect(u32::MAX).encode(Order::Host))
        .unwrap();
    assert!(closed(&mut s), "huge connect message");
    // Half a connect message, then the writer closes.
    let whole = connect_message(Proc::new(Nspace::new(job.nspace()).unwrap(), Rank(0)))
        .encode()
        .unwrap();
    let mut s = open(&door);
    s.write_all(&whole[..whole.len() / 2]).unwrap();
    s.shutdown(Shutdown::Write).unwrap();
    assert!(closed(&mut s), "cut connect message");
    // An unregistered rank: refused with its status.
    let stranger = connect_message(Proc::new(Nspace::new(job.nspace()).unwrap(), Rank(9)))
        .encode()
        .unwrap();
    let (status, was_closed) = send_connect(&door, &stranger);
    assert_eq!(status, Status::ERR_INVALID_CRED.0);
    assert!(was_closed);
    // Garbage right behind a connect message (before its answer): the
    // connection is dropped.
    let mut s = open(&door);
    let mut bytes = stranger.clone();
    bytes.extend(noise(9, 100));
    s.write_all(&bytes).unwrap();
    assert!(closed(&mut s), "garbage after the connect message");

    // A slow writer (a header and three bytes, then nothing) and a
    // hundred half-open connections stay while the job runs.
    let started = Instant::now();
    let mut slow = open(&door);
    slow.set_read_timeout(Some(READ_LIMIT + Duration::from_secs(10)))
        .unwrap();
    slow.write_all(&whole[..common_header_and(3)]).unwrap();
    let half_open: Vec<TcpStream> = (0..100)
        .map(|i| {
            let mut s = open(&door);
            s.write_all(&whole[..1 + i % 15]).unwrap();
            s
        })
        .collect();

    // The job runs: every rank through the door, beside the attackers.
    for r in 0..2 {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join(format!("go.{r}")))
            .unwrap();
        f.write_all(b"go\n").unwrap();
    }
    for line in ["stock 0 of 2 ok", "stock 1 of 2 ok", "stock 1 event 0"] {
        job.out.wait_for(line);
    }
    assert_eq!(job.wait(), Some(0), "the job completes");
    // The slow writer held its connection while the job ran; it is gone
    // (at the latest with pmixrun).
    assert!(closed(&mut slow), "the slow writer is dropped");
    assert!(started.elapsed() < LIMIT);
    drop(half_open);
}

/// The bytes of a connect frame's header and `n` more.
fn common_header_and(n: usize) -> usize {
    pmix::openpmix::header::HEADER_LEN + n
}

#[test]
fn an_admitted_peer_over_the_limit_a_second_connection_and_another_uid_are_refused() {
    let ns = Nspace::new("hostile-tcp-admitted").unwrap();
    let (_server, door) = server_with_job(&ns, pmix::net::my_ids().0);
    // A slow writer: a connect header and three bytes, then nothing.
    let mut slow = open(&door);
    let whole = connect_message(Proc::new(ns.clone(), Rank(0)))
        .encode()
        .unwrap();
    slow.write_all(&whole[..common_header_and(3)]).unwrap();
    // Rank 0 announces a frame over the message limit: dropped.
    let (mut s0, pindex) = admitted(&door, Proc::new(ns.clone(), Rank(0)));
    let huge = Header {
        pindex: pindex as i32,
        tag: 100,
        nbytes: u32::MAX,
    };
    s0.write_all(&huge.encode(Order::Network)).unwrap();
    assert!(
        closed(&mut s0),
        "a frame over the limit ends the connection"
    );
    // Rank 1 is admitted; a second connection for it is refused.
    let (mut s1, pindex) = admitted(&door, Proc::new(ns.clone(), Rank(1)));
    let (status, was_closed) = connect_status(&door, Proc::new(ns.clone(), Rank(1)));
    assert_eq!(status, Status::ERR_EXISTS.0);
    assert!(was_closed);
    // Another uid claiming rank 1 (registered for ours).
    if let Some(status) = connect_as_nobody(&door, Proc::new(ns.clone(), Rank(1))) {
        assert_eq!(status, Status::ERR_NO_PERMISSIONS.0);
    }
    // Rank 1 is still served: its init gets the job's data.
    let fmt = Format::DATA_PACK;
    let mut req = Buffer::new();
    fmt.pack_value(&mut req, &Value::Command(Cmd::Req.into()))
        .unwrap();
    let f = Frame::message(pindex as i32, 200, req.into_bytes());
    s1.write_all(&f.encode(Order::Network)).unwrap();
    let mut reader = FrameReader::new(1 << 24);
    let reply = loop {
        if let Some(f) = reader.next_frame() {
            if f.header.tag == 200 {
                break f;
            }
            continue;
        }
        let mut chunk = [0u8; 4096];
        let n = std::io::Read::read(&mut s1, &mut chunk).expect("an answer");
        assert!(n > 0, "closed before answering");
        reader.push(&chunk[..n]).unwrap();
    };
    let mut b = Buffer::from_bytes(reply.payload);
    let Value::String(Some(got)) = fmt.unpack_value(&mut b, pmix::DataType::String).unwrap() else {
        panic!("init reply without a namespace");
    };
    assert_eq!(got.to_bytes(), ns.as_c_str().to_bytes());
    // The slow writer is dropped at the handshake limit (10 s), within
    // the read bound.
    assert!(closed(&mut slow), "the slow writer is dropped");
}

/// The status the door answers a connect message for `proc` sent by a
/// process of uid `nobody` (bash through `setpriv`); `None` (skipped)
/// unless this runs as root with `setpriv`.
fn connect_as_nobody(door: &ServerUri, proc: Proc) -> Option<i32> {
    let dir = common::scratch("hostile-tcp-nobody");
    let msg = dir.join("connect");
    std::fs::write(&msg, connect_message(proc).encode().unwrap()).unwrap();
    for p in [dir.as_path(), msg.as_path()] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut nobody = common::stock_door::bash_as_nobody(&format!(
        "exec 3<>/dev/tcp/127.0.0.1/{port}; cat {msg} >&3; \
         head -c 4 <&3 | od -An -tx1",
        port = door.addr.port(),
        msg = msg.display()
    ))?;
    let out = common::run_with_watchdog(
        nobody
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped()),
        LIMIT,
        "connect as nobody",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let bytes: Vec<u8> = text
        .split_whitespace()
        .map(|h| u8::from_str_radix(h, 16).unwrap())
        .collect();
    let got = ClientReply::parse(&bytes);
    Some(match got {
        Err(pmix::openpmix::WireError::Refused(s)) => s,
        other => panic!("as nobody: {other:?} from {text:?} ({:?})", out.status),
    })
}
