//! A hostile rank in a real job: under `pmixrun`, rank 0 of this test
//! binary speaks the control protocol by hand (`common::raw_client`) and
//! attacks its server — impersonation, sealed segments, out-of-order and
//! malformed frames, descriptors where none belong, oversized lengths,
//! half a frame then silence, a flood — while ranks 1.. run collecting
//! fences among themselves and check each other's data after every one.
//!
//! Checked: every attack is refused with its status or its connection is
//! closed (as the protocol says), each refusal leaves one line on the
//! server's stderr naming who and why, the server stays up (the hostile
//! rank ends with a well-formed finalize), the other ranks finish and
//! read exactly what their peers put. Every wait is bounded
//! (`raw_client::ANSWER_LIMIT`, `pmixrun --timeout`).

mod common;

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::raw_client::{body_of, raw_frame, Next, Raw};
use pmix::client::{Client, ConnectInfo, Scope};
use pmix::wire::{self, DmodexRequest, FenceRequest, Kind, Message, Posted, SegmentKind};
use pmix::{keys, Info, Key, Nspace, Proc, Rank, Status, Value};

const ROLE: &str = "PMIX_HOSTILE_ROLE";
const DONE_FILE: &str = "PMIX_HOSTILE_DONE";
/// Fences the good ranks run at least (more while the attack lasts).
const MIN_ROUNDS: u32 = 30;
/// Requests of the flood.
const FLOOD: u32 = 20_000;

type R = Result<(), String>;

#[test]
fn hostile_rank() {
    if std::env::var(ROLE).is_err() {
        return;
    }
    let rank: u32 = std::env::var("PMIX_RANK").unwrap().parse().unwrap();
    let r = match std::env::var(ROLE).unwrap().as_str() {
        "after_finalize" => after_finalize(),
        "silent" => silent(),
        "unread" => unread_replies(),
        _ if rank == 0 => attacker(),
        _ => good(),
    };
    common::exit_with("hostile", r);
}

fn value_of(rank: u32, round: u32) -> Value {
    // Big enough to span pages, distinct per rank and round.
    let s: String = (0..2000)
        .map(|i| char::from(b'a' + ((rank * 7 + round * 3 + i) % 26) as u8))
        .collect();
    Value::String(Some(
        std::ffi::CString::new(format!("{rank}/{round}/{s}")).unwrap(),
    ))
}

/// A well-behaved rank: collecting fences over ranks 1.., each followed by
/// a get of every peer's value of that round, until the attacker is done.
fn good() -> R {
    let c = Client::init(&[]).map_err(|s| format!("init: {s:?}"))?;
    let me = c.proc().clone();
    let size = c
        .get(
            &Proc::new(me.nspace.clone(), Rank::WILDCARD),
            keys::JOB_SIZE,
            &[],
        )
        .map_err(|s| format!("job size: {s:?}"))?;
    let Value::Uint32(size) = size else {
        return Err(format!("job size: {size:?}"));
    };
    let peers: Vec<Proc> = (1..size)
        .map(|r| Proc::new(me.nspace.clone(), Rank(r)))
        .collect();
    let collect = vec![Info::new(
        Key::new(keys::COLLECT_DATA).unwrap(),
        Value::Bool(true),
    )];
    let done = PathBuf::from(std::env::var(DONE_FILE).unwrap());
    let end = Instant::now() + Duration::from_secs(60);
    let mut round = 0;
    loop {
        if Instant::now() > end {
            return Err(format!("the attacker did not finish (round {round})"));
        }
        let key = format!("hostile.r{round}");
        let stop_key = format!("hostile.d{round}");
        c.put(Scope::Global, &key, value_of(me.rank.0, round))
            .map_err(|s| format!("put: {s:?}"))?;
        // Whether this rank saw the attacker done: all decide alike from
        // what the fence brought.
        c.put(Scope::Global, &stop_key, Value::Bool(done.exists()))
            .map_err(|s| format!("put: {s:?}"))?;
        c.commit().map_err(|s| format!("commit: {s:?}"))?;
        c.fence(&peers, &collect)
            .map_err(|s| format!("fence {round}: {s:?}"))?;
        let mut stop = false;
        for p in &peers {
            let v = c
                .get(p, &key, &[])
                .map_err(|s| format!("get {key} of {}: {s:?}", p.rank.0))?;
            if v != value_of(p.rank.0, round) {
                return Err(format!("{key} of rank {}: corrupted", p.rank.0));
            }
            stop |= c.get(p, &stop_key, &[]) == Ok(Value::Bool(true));
        }
        round += 1;
        if stop && round >= MIN_ROUNDS {
            break;
        }
    }
    // The attacker's own data is its own: it never reached ours.
    c.finalize().map_err(|s| format!("finalize: {s:?}"))?;
    println!("good {} ok {round} rounds", me.rank.0);
    Ok(())
}

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

fn expect(what: &str, got: Status, want: Status) -> R {
    if got == want {
        println!("attack {what}: refused with status {}", got.0);
        Ok(())
    } else {
        Err(format!("{what}: status {got:?}, want {want:?}"))
    }
}

fn closed(what: &str, r: &mut Raw) -> R {
    let frames = r.expect_closed().map_err(|e| format!("{what}: {e}"))?;
    println!("attack {what}: connection closed ({frames} answers before)");
    Ok(())
}

fn commit_of(k: &str, v: Value) -> Message {
    Message::Commit(vec![Posted {
        scope: Scope::Global,
        key: key(k),
        value: v,
    }])
}

fn dmodex(p: &Proc) -> Message {
    Message::DmodexRequest(DmodexRequest {
        proc: p.clone(),
        key: None,
        infos: vec![],
    })
}

fn memfd() -> OwnedFd {
    // SAFETY: a new anonymous file; the name is a NUL-terminated literal.
    let fd = unsafe { libc::memfd_create(c"hostile".as_ptr(), 0) };
    assert!(fd >= 0);
    // SAFETY: fd was just created and is owned by nobody else.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

/// Rank 0: every attack in turn, each checked; then a clean finalize.
fn attacker() -> R {
    let info = ConnectInfo::from_env().map_err(|s| format!("env: {s:?}"))?;
    let me = info.proc.clone();
    let other = Proc::new(me.nspace.clone(), Rank(1));
    let t0 = Instant::now();
    let mut attempts = 0u32;

    // Impersonation: another rank with my secret, another namespace, a
    // forged secret; a second connection as me.
    let mut r = Raw::connect(&info)?;
    let j = r.handshake(&other, info.secret.as_bytes())?;
    expect("claim another rank", j.status, Status::ERR_INVALID_CRED)?;
    closed("claim another rank", &mut r)?;
    let foreign = Proc::new(Nspace::new("not-my-job").unwrap(), Rank(0));
    let mut r = Raw::connect(&info)?;
    let j = r.handshake(&foreign, info.secret.as_bytes())?;
    expect(
        "claim another namespace",
        j.status,
        Status::ERR_INVALID_CRED,
    )?;
    let mut r = Raw::connect(&info)?;
    let forged: Vec<u8> = info.secret.bytes().map(|b| b ^ 1).collect();
    let j = r.handshake(&me, &forged)?;
    expect("forged secret", j.status, Status::ERR_INVALID_CRED)?;
    attempts += 3;

    let (mut main, joined) = Raw::join(&info)?;
    let mut second = Raw::connect(&info)?;
    let j = second.handshake(&me, info.secret.as_bytes())?;
    expect("second connection as me", j.status, Status::ERR_EXISTS)?;
    closed("second connection as me", &mut second)?;
    attempts += 1;

    // The sealed segments it received.
    attempts += sealed_segments(&joined)?;

    // A commit of the others' keys: the wire has no field naming whose
    // data it is, so it posts them as mine only (the others' gets, which
    // compare every value, see theirs unchanged).
    let forged: Vec<Posted> = (0..200)
        .map(|round| Posted {
            scope: Scope::Global,
            key: key(&format!("hostile.r{round}")),
            value: Value::Uint32(0xbad),
        })
        .collect();
    main.send(0, &Message::Commit(forged))?;
    println!("attack commit of the others' keys: posted as rank 0's own");
    attempts += 1;

    // Request ids: any id is echoed, repeats and extremes included.
    main.send(0, &commit_of("hostile.mine", Value::Uint32(7)))?;
    for id in [0u32, u32::MAX, 7, 7] {
        main.send(id, &dmodex(&me))?;
    }
    for want in [0u32, u32::MAX, 7, 7] {
        let (id, m, _) = main.answer()?;
        match m {
            Message::DmodexReply(d) if id == want && d.status == Status::SUCCESS => {}
            other => return Err(format!("id {want}: got id {id} {other:?}")),
        }
    }
    println!("attack request ids 0, MAX, repeated: each answered with its own id");
    attempts += 4;
    // An unknown service operation: refused, connection kept.
    main.send(
        9,
        &Message::Request(wire::Request {
            op: wire::Op(999),
            body: vec![1, 2, 3],
        }),
    )?;
    match main.answer()? {
        (9, Message::Response(resp), _) => {
            expect("unknown operation", resp.status, Status::ERR_NOT_SUPPORTED)?
        }
        other => return Err(format!("unknown op: {other:?}")),
    }
    // A fence over the others' set, which I am not in.
    let others: Vec<Proc> = (1..4)
        .map(|r| Proc::new(me.nspace.clone(), Rank(r)))
        .collect();
    main.send(
        10,
        &Message::FenceRequest(FenceRequest {
            procs: others,
            infos: vec![],
        }),
    )?;
    match main.answer()? {
        (10, Message::FenceRelease(f), _) => expect(
            "fence over a set without me",
            f.status,
            Status::ERR_BAD_PARAM,
        )?,
        other => return Err(format!("foreign fence: {other:?}")),
    }
    attempts += 2;

    // Flood: requests pipelined faster than answers are read.
    let t = Instant::now();
    for i in 0..FLOOD {
        main.send(100 + i, &dmodex(&me))?;
    }
    for i in 0..FLOOD {
        match main.answer()? {
            (id, Message::DmodexReply(d), _) if id == 100 + i && d.status == Status::SUCCESS => {}
            other => return Err(format!("flood {i}: {other:?}")),
        }
    }
    println!(
        "attack flood: {FLOOD} pipelined requests answered in order in {:?}",
        t.elapsed()
    );
    attempts += 1;

    // Fence after finalize: the connection is closed.
    fence_after_finalize(main, &me)?;
    attempts += 1;

    // Protocol violations, each on a connection of its own.
    let commit = body_of(&commit_of("hostile.x", Value::Uint32(1)));
    let k = Kind::Commit as u16;
    let cases: Vec<(&str, Vec<u8>, usize)> = vec![
        (
            "descriptor announced and attached to a commit",
            raw_frame(k, 1, 1, commit.len() as u32, &commit),
            1,
        ),
        (
            "descriptor attached, none announced",
            raw_frame(k, 0, 1, commit.len() as u32, &commit),
            1,
        ),
        (
            "length u32::MAX in the header",
            raw_frame(k, 0, 1, u32::MAX, &[]),
            0,
        ),
        ("unknown frame kind 999", raw_frame(999, 0, 1, 0, &[]), 0),
        (
            "a server's kind (FenceRelease)",
            raw_frame(Kind::FenceRelease as u16, 0, 1, 0, &[]),
            0,
        ),
        (
            "a second handshake",
            {
                let h = body_of(&Message::Handshake(wire::Handshake {
                    version: 1,
                    proc: me.clone(),
                    secret: info.secret.as_bytes().to_vec(),
                }));
                raw_frame(Kind::Handshake as u16, 0, 1, h.len() as u32, &h)
            },
            0,
        ),
        (
            "bad magic",
            {
                let mut b = raw_frame(k, 0, 1, 0, &[]);
                b[0] = 0;
                b
            },
            0,
        ),
        (
            "trailing bytes in a body",
            {
                let mut c = commit.clone();
                c.push(0);
                raw_frame(k, 0, 1, c.len() as u32, &c)
            },
            0,
        ),
        (
            "garbage after a valid frame",
            {
                let d = body_of(&dmodex(&me));
                let mut b = raw_frame(Kind::DmodexRequest as u16, 0, 5, d.len() as u32, &d);
                b.extend_from_slice(b"\xde\xad\xbe\xef garbage after the frame");
                b
            },
            0,
        ),
    ];
    for (what, bytes, nfds) in cases {
        let (mut r, _) = Raw::join(&info)?;
        let fds = (0..nfds).map(|_| memfd()).collect();
        r.send_raw(bytes, fds)?;
        closed(what, &mut r)?;
        attempts += 1;
    }

    // Before authenticating: oversized, and half a frame then silence
    // (the server goes on serving others meanwhile).
    let mut r = Raw::connect(&info)?;
    r.send_raw(raw_frame(Kind::Handshake as u16, 0, 1, 5000, &[]), vec![])?;
    closed("oversized handshake before authentication", &mut r)?;
    let mut half = Raw::connect(&info)?;
    half.send_raw(
        raw_frame(Kind::Handshake as u16, 0, 1, 100, &[0; 10])[..20].to_vec(),
        vec![],
    )?;
    let (mut half_auth, _) = Raw::join(&info)?;
    half_auth.send_raw(raw_frame(k, 0, 1, 100, &[0; 10])[..12].to_vec(), vec![])?;
    // Served meanwhile: a fresh client identity cannot be had (I am
    // connected), but an unauthenticated peer is answered at once.
    let mut r = Raw::connect(&info)?;
    let j = r.handshake(&other, b"x")?;
    expect(
        "server still answers beside half frames",
        j.status,
        Status::ERR_INVALID_CRED,
    )?;
    match half.recv(Duration::from_millis(300)) {
        Next::Silent => {
            println!("attack half a frame then silence: server waits for the rest (up to the handshake limit), serving others")
        }
        other => return Err(format!("half frame: {other:?}")),
    }
    drop(half);
    half_auth.hang_up()?;
    attempts += 3;

    // The server is still up: a clean connection and finalize.
    let (mut r, _) = Raw::join(&info)?;
    r.send(1, &Message::Finalize)?;
    match r.answer()? {
        (1, Message::FinalizeReply(Status::SUCCESS), _) => {}
        other => return Err(format!("final finalize: {other:?}")),
    }
    println!("attacker: {attempts} attempts in {:?}", t0.elapsed());
    std::fs::write(std::env::var(DONE_FILE).unwrap(), b"done").map_err(|e| e.to_string())?;
    println!("hostile 0 ok");
    Ok(())
}

/// Finalizes on `main`, then asks for a fence: the server closes the
/// connection (it finalized: nothing more may come).
fn fence_after_finalize(mut main: Raw, me: &Proc) -> R {
    main.send(11, &Message::Finalize)?;
    match main.answer()? {
        (11, Message::FinalizeReply(Status::SUCCESS), _) => {}
        other => return Err(format!("finalize: {other:?}")),
    }
    main.send(
        12,
        &Message::FenceRequest(FenceRequest {
            procs: vec![me.clone()],
            infos: vec![],
        }),
    )?;
    match main.recv(common::raw_client::ANSWER_LIMIT) {
        Next::Ended => {
            println!("attack fence after finalize: connection closed");
            Ok(())
        }
        Next::Frame(f) => Err(format!("fence after finalize answered: {:?}", f.message())),
        Next::Silent => Err("fence after finalize: no answer, connection open".into()),
    }
}

/// A job of one rank: fence after finalize, then a clean reconnection.
fn after_finalize() -> R {
    let info = ConnectInfo::from_env().map_err(|s| format!("env: {s:?}"))?;
    let (main, _) = Raw::join(&info)?;
    fence_after_finalize(main, &info.proc)?;
    let (mut r, _) = Raw::join(&info)?;
    r.send(1, &Message::Finalize)?;
    match r.answer()? {
        (1, Message::FinalizeReply(Status::SUCCESS), _) => {}
        other => return Err(format!("final finalize: {other:?}")),
    }
    println!("hostile 0 ok");
    Ok(())
}

/// A job of one rank: a connection that says nothing and one that sends
/// half a handshake's header are closed at the handshake limit, while a
/// proper connection beside them is served.
fn silent() -> R {
    let info = ConnectInfo::from_env().map_err(|s| format!("env: {s:?}"))?;
    let t = Instant::now();
    let mut quiet = Raw::connect(&info)?;
    let mut half = Raw::connect(&info)?;
    half.send_raw(
        raw_frame(Kind::Handshake as u16, 0, 1, 100, &[])[..9].to_vec(),
        vec![],
    )?;
    let (mut r, _) = Raw::join(&info)?;
    r.send(1, &Message::Finalize)?;
    match r.answer()? {
        (1, Message::FinalizeReply(Status::SUCCESS), _) => {}
        other => return Err(format!("finalize beside silent peers: {other:?}")),
    }
    closed("silent connection", &mut quiet)?;
    closed("half a header then silence", &mut half)?;
    let took = t.elapsed();
    println!("silent peers closed after {took:?}");
    if took < Duration::from_secs(9) {
        return Err(format!("closed too early: {took:?}"));
    }
    println!("hostile 0 ok");
    Ok(())
}

/// The server's (this rank's parent, `pmixrun`) open descriptors.
fn server_fds() -> usize {
    let dir = format!("/proc/{}/fd", std::os::unix::process::parent_id());
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

/// A job of one rank: requests whose answers carry descriptors, sent
/// as fast as the server takes them and never read. The server must stop
/// reading (its queued answers bounded) rather than run out of
/// descriptors, and serve the rank again once it hung up.
fn unread_replies() -> R {
    let info = ConnectInfo::from_env().map_err(|s| format!("env: {s:?}"))?;
    let before = server_fds();
    let (r, _) = Raw::join(&info)?;
    let body = body_of(&Message::NspaceRequest(info.proc.nspace.clone()));
    let one = raw_frame(Kind::NspaceRequest as u16, 0, 1, body.len() as u32, &body);
    let (mut sent, mut at) = (0usize, 0usize);
    let mut progress = Instant::now();
    let end = Instant::now() + Duration::from_secs(30);
    // Until the server has taken nothing for a second (it stopped
    // reading), bounded.
    while progress.elapsed() < Duration::from_secs(1) {
        if Instant::now() > end {
            return Err(format!("the server kept reading: {sent} requests"));
        }
        // SAFETY: a send from a live buffer on the socket we own.
        let n = unsafe {
            libc::send(
                r.fd(),
                one[at..].as_ptr().cast(),
                one.len() - at,
                libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
            )
        };
        if n > 0 {
            at += n as usize;
            if at == one.len() {
                at = 0;
                sent += 1;
            }
            progress = Instant::now();
        } else {
            std::thread::yield_now();
        }
    }
    let during = server_fds();
    println!(
        "unread: server descriptors {before} before, {during} with {sent} requests unanswered"
    );
    if during > before + 600 {
        return Err(format!("server descriptors grew from {before} to {during}"));
    }
    r.hang_up()?;
    let (mut r, _) = Raw::join(&info)?;
    r.send(1, &Message::Finalize)?;
    match r.answer()? {
        (1, Message::FinalizeReply(Status::SUCCESS), _) => {}
        other => return Err(format!("finalize after the flood: {other:?}")),
    }
    println!("unread: {} server descriptors after hang-up", server_fds());
    println!("hostile 0 ok");
    Ok(())
}

/// Tries to change every sealed segment received (all but the job's
/// barrier page, writable by design): write, pwrite, ftruncate (shrink
/// and grow), fallocate, a writable shared mapping, mprotect of a
/// read-only one, and a read-write reopen through /proc. Returns the
/// number of attempts (all refused).
fn sealed_segments(j: &common::raw_client::Joined) -> Result<u32, String> {
    let mut n = 0;
    for (seg, fd) in &j.segments {
        if seg.kind == SegmentKind::Barrier {
            continue;
        }
        let fd = fd.as_raw_fd();
        let what = format!("{:?} segment", seg.kind);
        // SAFETY: fstat of a descriptor we own into a local buffer.
        let len = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(fd, &mut st) != 0 {
                return Err(format!("{what}: fstat"));
            }
            st.st_size as usize
        };
        let refused = |rc: libc::c_long, op: &str| -> R {
            if rc == -1 {
                let e = std::io::Error::last_os_error();
                println!("attack {op} on the {what}: refused ({e})");
                Ok(())
            } else {
                Err(format!("{op} on the {what} succeeded"))
            }
        };
        let byte = [0x55u8];
        // SAFETY: each call gets a valid descriptor and valid buffers; a
        // mapping that (wrongly) succeeded is unmapped below.
        unsafe {
            refused(libc::write(fd, byte.as_ptr().cast(), 1) as _, "write")?;
            refused(libc::pwrite(fd, byte.as_ptr().cast(), 1, 0) as _, "pwrite")?;
            refused(libc::ftruncate(fd, 0) as _, "ftruncate to 0")?;
            refused(
                libc::ftruncate(fd, (len * 2) as i64) as _,
                "ftruncate to grow",
            )?;
            refused(
                libc::fallocate(fd, 0, 0, (len * 2) as i64) as _,
                "fallocate",
            )?;
            let p = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            );
            if p != libc::MAP_FAILED {
                libc::munmap(p, len);
            }
            refused(
                if p == libc::MAP_FAILED { -1 } else { 0 },
                "writable shared mmap",
            )?;
            let p = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                fd,
                0,
            );
            if p == libc::MAP_FAILED {
                return Err(format!("{what}: read-only mapping failed"));
            }
            let rc = libc::mprotect(p, len, libc::PROT_READ | libc::PROT_WRITE);
            libc::munmap(p, len);
            refused(rc as _, "mprotect to writable")?;
            let path = std::ffi::CString::new(format!("/proc/self/fd/{fd}")).unwrap();
            let rw = libc::open(path.as_ptr(), libc::O_RDWR);
            let rc = if rw >= 0 {
                let rc = libc::write(rw, byte.as_ptr().cast(), 1);
                libc::close(rw);
                rc
            } else {
                -1
            };
            refused(rc as _, "write through a read-write reopen")?;
            let rc = libc::fcntl(fd, libc::F_GET_SEALS);
            let want =
                libc::F_SEAL_WRITE | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL;
            if rc & want != want {
                return Err(format!("{what}: seals {rc:#x}"));
            }
        }
        n += 8;
    }
    if n == 0 {
        return Err("no sealed segment received".into());
    }
    Ok(n)
}

/// The job: 4 ranks, rank 0 hostile. Checks the ranks' verdicts and the
/// server's log lines.
#[test]
fn a_hostile_rank_is_refused_and_its_job_finishes_intact() {
    let tmp = common::pmixrun_job::private_tmp("hostile");
    let done = tmp.join("attacker-done");
    let prog = common::this_test_as_program("hostile_rank");
    let t = Instant::now();
    let (ok, out, err) = common::pmixrun_job(
        4,
        &prog,
        &[
            (ROLE, "1"),
            (DONE_FILE, done.to_str().unwrap()),
            ("TMPDIR", tmp.to_str().unwrap()),
        ],
        "120",
    );
    let took = t.elapsed();
    eprintln!("--- stdout\n{out}\n--- stderr\n{err}\n--- {took:?}");
    assert!(ok, "the job failed");
    assert!(out.contains("hostile 0 ok"), "attacker did not finish");
    for r in 1..4 {
        assert!(
            out.contains(&format!("good {r} ok")),
            "rank {r} did not finish"
        );
    }
    // One log line per refusal, naming who and why.
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("pmix-rs server") && l.contains("refused pid"))
        .collect();
    let handshakes = lines.iter().filter(|l| l.contains("handshake:")).count();
    let protocol = lines
        .iter()
        .filter(|l| l.contains("protocol error"))
        .count();
    // claim another rank, another namespace, forged, second connection,
    // still-answers: 5 handshakes; 9 violations + oversized pre-auth.
    assert_eq!(handshakes, 5, "handshake refusals logged:\n{err}");
    assert!(protocol >= 10, "protocol errors logged:\n{err}");
    assert!(lines
        .iter()
        .all(|l| l.contains(" uid ") && l.contains(" pid ")));
    assert!(err.contains("as \"not-my-job\":0: handshake: not a registered process"));
}

/// Finding: the server served a client that had finalized (a fence after
/// `PMIx_Finalize` was answered with success). Now the connection is
/// closed, with a log line, and the rank may connect again.
#[test]
fn a_fence_after_finalize_closes_the_connection() {
    let prog = common::this_test_as_program("hostile_rank");
    let (ok, out, err) = common::pmixrun_job(1, &prog, &[(ROLE, "after_finalize")], "60");
    assert!(
        ok && out.contains("hostile 0 ok"),
        "stdout:\n{out}\nstderr:\n{err}"
    );
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("refused pid") && l.contains("message after PMIx_Finalize"))
            .count(),
        1,
        "{err}"
    );
}

/// Finding: a connection that never completed its handshake (silent, or
/// half a frame) was kept for ever, holding a server descriptor. Now it
/// is closed at the handshake limit (10 s), with a log line.
#[test]
fn a_silent_connection_is_closed_at_the_handshake_limit() {
    let prog = common::this_test_as_program("hostile_rank");
    let (ok, out, err) = common::pmixrun_job(1, &prog, &[(ROLE, "silent")], "60");
    assert!(
        ok && out.contains("hostile 0 ok"),
        "stdout:\n{out}\nstderr:\n{err}"
    );
    eprintln!("{out}");
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("refused pid") && l.contains("no handshake within 10s"))
            .count(),
        2,
        "{err}"
    );
}

/// Finding: a client that sent requests whose answers carry descriptors
/// and never read them made the server queue them all, until it ran out
/// of descriptors (8192 of them after 20,000 `NspaceRequest`s). Now a
/// peer's frames wait while its queued output is over the limit.
#[test]
fn unread_answers_do_not_exhaust_the_servers_descriptors() {
    let prog = common::this_test_as_program("hostile_rank");
    let (ok, out, err) = common::pmixrun_job(1, &prog, &[(ROLE, "unread")], "60");
    eprintln!("{out}");
    assert!(
        ok && out.contains("hostile 0 ok"),
        "stdout:\n{out}\nstderr:\n{err}"
    );
}
