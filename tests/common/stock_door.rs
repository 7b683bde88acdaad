//! A server of the test process with the stock door open, and raw
//! OpenPMIx connections to it (`stock_clients`, `stock_tools`,
//! `hostile_tcp`): connect messages as a 4.2.2 or 5.0.11 library sends
//! them, the door's raw answers read with a bound.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use pmix::openpmix::{BufferType, ClientReply, ConnectMessage, PeerFormat, ServerUri, WireError};
use pmix::server::{NoHost, Server, ServerConfig};
use pmix::{Nspace, Proc, Rank};

/// The bound of every read here.
pub const READ_LIMIT: Duration = Duration::from_secs(20);

/// A server of this test started with `config` (the stock door turned
/// on), its job `ns` of two ranks registered, rank 1 for `uid`; the
/// door's address.
pub fn server_with_job_config(config: ServerConfig, ns: &Nspace, uid: u32) -> (Server, ServerUri) {
    let config = ServerConfig {
        stock_door: true,
        ..config
    };
    let server = Server::start(config, Arc::new(NoHost)).unwrap();
    super::register_local_job(&server, ns, 2, Vec::new());
    if uid != pmix::net::my_ids().0 {
        let p = Proc::new(ns.clone(), Rank(1));
        server.deregister_client(&p);
        server.register_client(&p, uid, uid).unwrap();
    }
    let env = server.setup_fork(&Proc::new(ns.clone(), Rank(0))).unwrap();
    let uri = env
        .iter()
        .find(|(k, _)| k == "PMIX_SERVER_URI41")
        .map(|(_, v)| v.clone())
        .unwrap();
    assert!(uri.contains(";tcp4://127.0.0.1:"), "{uri}");
    assert!(
        env.iter()
            .any(|(k, v)| k == "PMIX_RS_SERVER_URI" && v.contains(";unix://")),
        "our clients keep the Unix socket: {env:?}"
    );
    assert!(env.contains(&("PMIX_GDS_MODULE".into(), "hash".into())));
    (server, ServerUri::parse(&uri).unwrap())
}

/// [`server_with_job_config`] with the default configuration.
pub fn server_with_job(ns: &Nspace, uid: u32) -> (Server, ServerUri) {
    server_with_job_config(ServerConfig::default(), ns, uid)
}

/// The v41 non-described format of 4.2 and 5.0 clients.
pub fn v41() -> PeerFormat {
    PeerFormat {
        module: pmix::codec::Module::V41,
        buffer_type: BufferType::NonDescribed,
    }
}

/// A client's connect message for `proc`, as 4.2.2 sends it.
pub fn connect_message(proc: Proc) -> ConnectMessage {
    let (uid, gid) = pmix::net::my_ids();
    ConnectMessage::client(proc, uid, gid, "4.2.2", v41())
}

/// A connection to the door (reads bounded by [`READ_LIMIT`]).
pub fn open(uri: &ServerUri) -> TcpStream {
    let s = TcpStream::connect(uri.addr).unwrap();
    s.set_read_timeout(Some(READ_LIMIT)).unwrap();
    s
}

/// Reads from `s` until `parse` makes an answer of the bytes so far:
/// `Ok` the answer, `Err` the refusal status; panics on a close or an
/// undecodable answer.
pub fn read_answer<T>(
    s: &mut TcpStream,
    parse: impl Fn(&[u8]) -> Result<Option<(T, usize)>, WireError>,
) -> Result<T, i32> {
    let mut got = Vec::new();
    let mut chunk = [0u8; 512];
    loop {
        match parse(&got) {
            Ok(Some((r, _))) => return Ok(r),
            Ok(None) => {}
            Err(WireError::Refused(s)) => return Err(s),
            Err(e) => panic!("reply: {e}"),
        }
        let n = s.read(&mut chunk).expect("the door answers");
        assert!(n > 0, "closed before answering");
        got.extend_from_slice(&chunk[..n]);
    }
}

/// True if the server closes `s` (reads to its end, or is reset, within
/// the bound).
pub fn closed(s: &mut TcpStream) -> bool {
    let mut chunk = [0u8; 64];
    loop {
        match s.read(&mut chunk) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) => return e.kind() == std::io::ErrorKind::ConnectionReset,
        }
    }
}

/// The status the door answers `bytes` with (a client's reply), and
/// whether it then closed the connection.
pub fn send_connect(uri: &ServerUri, bytes: &[u8]) -> (i32, bool) {
    let mut s = open(uri);
    s.write_all(bytes).unwrap();
    let status = read_answer(&mut s, ClientReply::parse).map_or_else(|s| s, |r| r.status);
    (status, closed(&mut s))
}

/// The status a raw connect message for `proc` gets from the door, and
/// whether the server then closed the connection.
pub fn connect_status(uri: &ServerUri, proc: Proc) -> (i32, bool) {
    send_connect(uri, &connect_message(proc).encode().unwrap())
}

/// A connection admitted as the client `proc`, and its index.
pub fn admitted(uri: &ServerUri, proc: Proc) -> (TcpStream, u32) {
    let mut s = open(uri);
    s.write_all(&connect_message(proc).encode().unwrap())
        .unwrap();
    let r = read_answer(&mut s, ClientReply::parse).expect("admitted");
    (s, r.pindex)
}

/// `tests/c/NAME.c` built against Debian's OpenPMIx 4.2.2 headers into
/// `scratch(dir)`; with Debian's library directory. `None` (skipped) if
/// that OpenPMIx is not installed.
pub fn stock_program(name: &str, dir: &str) -> Option<(PathBuf, PathBuf)> {
    stock_program_with(name, dir, &[])
}

/// [`stock_program`] passing `extra` to the compiler (e.g. `-pthread`);
/// built once per test process (see [`super::build_once`]).
pub fn stock_program_with(name: &str, dir: &str, extra: &[&str]) -> Option<(PathBuf, PathBuf)> {
    let (inc, lib) = super::reference_pmix()?;
    let src = super::root().join(format!("tests/c/{name}.c"));
    let exe = super::build_once(dir, name, |exe| {
        super::compile_c(&[&src], exe, &inc, &lib, extra)
    });
    Some((exe, lib))
}

/// `bash -c SCRIPT` as uid and gid 65534 (`nobody`), through `setpriv`;
/// `None` (the caller skips) unless this runs as root with `setpriv`.
pub fn bash_as_nobody(script: &str) -> Option<Command> {
    if pmix::net::my_ids().0 != 0 || !Path::new("/usr/bin/setpriv").exists() {
        eprintln!("SKIPPED: needs root and setpriv to connect as another uid");
        return None;
    }
    let mut c = Command::new("/usr/bin/setpriv");
    c.args([
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "bash",
        "-c",
        script,
    ]);
    Some(c)
}

/// A fake OpenPMIx server's first read (`stock_servers`,
/// `stock_link_tools`): a connect message from `s` (host-order header,
/// then its payload); `None` if the peer closed first.
pub fn read_connect(s: &mut TcpStream) -> Option<Vec<u8>> {
    let mut head = [0u8; 16];
    s.read_exact(&mut head).ok()?;
    let n = u32::from_ne_bytes([head[8], head[9], head[10], head[11]]) as usize;
    let mut payload = vec![0u8; n];
    s.read_exact(&mut payload).ok()?;
    Some(payload)
}

/// A fake server's read of a message after the handshake (network-order
/// header): its tag and payload; `None` if the peer closed first.
pub fn read_frame(s: &mut TcpStream) -> Option<(u32, Vec<u8>)> {
    let mut h = [0u8; 16];
    s.read_exact(&mut h).ok()?;
    let n = u32::from_be_bytes([h[8], h[9], h[10], h[11]]) as usize;
    let mut body = vec![0u8; n];
    s.read_exact(&mut body).ok()?;
    Some((u32::from_be_bytes([h[4], h[5], h[6], h[7]]), body))
}

/// A reply frame on `tag` (server index 7) announcing `announced` bytes,
/// then `body` (a reply cut short when shorter).
pub fn reply_frame(tag: u32, announced: u32, body: &[u8]) -> Vec<u8> {
    let mut out = 7u32.to_be_bytes().to_vec();
    out.extend_from_slice(&tag.to_be_bytes());
    out.extend_from_slice(&announced.to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(body);
    out
}
