//! Who is on the other end of a loopback TCP connection, from the kernel
//! rather than from the connect message (OpenPMIx's server believes the
//! uid a client writes in its credential; we check it).
//!
//! The kernel is asked by the connection's two addresses over
//! `NETLINK_SOCK_DIAG` ([`super::sock_diag`]); where that is refused, the
//! tables below are read instead. Linux lists every TCP socket of the network namespace in
//! `/proc/net/tcp` and `/proc/net/tcp6`, one line each with its local and
//! remote address, the uid that owns it and its inode. The peer's socket
//! is the one whose local address is our connection's remote address and
//! whose remote address is our local one. Its process is the one holding
//! a descriptor that links to `socket:[inode]` under `/proc/PID/fd`
//! (found only if we may read that process's descriptors; the uid is
//! enough for the check).
//!
//! Only files are read here, no C call, so nothing goes through
//! `src/sys.rs` (the netlink socket is `netlink-sys`'s).
//!
//! Invariant: a connection is only attributed to a socket whose two
//! addresses both match exactly; no match is an error, never a guess.

use std::fs;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};

use super::WireError;

/// The socket at the other end of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerProcess {
    /// The uid owning the peer's socket.
    pub uid: u32,
    /// The peer socket's inode.
    pub inode: u64,
}

impl PeerProcess {
    /// A process holding the peer socket, if one is visible. This scans
    /// every process's descriptors: ask only when the pid is needed (the
    /// uid check does not need it).
    pub fn pid(&self) -> Option<i32> {
        pid_holding(self.inode)
    }
}

/// The peer of `stream` (both ends on this host).
pub fn of_stream(stream: &TcpStream) -> Result<PeerProcess, WireError> {
    let local = stream.local_addr()?;
    let remote = stream.peer_addr()?;
    lookup(local, remote)
}

/// The owner of the socket whose local address is `remote` and whose
/// remote address is `local` (the other end of our connection
/// `local`→`remote`).
pub fn lookup(local: SocketAddr, remote: SocketAddr) -> Result<PeerProcess, WireError> {
    // The kernel's exact lookup first; the tables where sock_diag is not
    // there (a kernel without it, a seccomp filter refusing netlink).
    if let Ok((uid, inode)) = super::sock_diag::owner(remote, local) {
        return Ok(PeerProcess { uid, inode });
    }
    from_tables(local, remote)
}

/// [`lookup`] by the kernel's socket tables.
fn from_tables(local: SocketAddr, remote: SocketAddr) -> Result<PeerProcess, WireError> {
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = match fs::read_to_string(table) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e.into()),
        };
        if let Some((uid, inode)) = find_socket(&text, remote, local) {
            return Ok(PeerProcess { uid, inode });
        }
    }
    Err(WireError::Io(io::Error::new(
        io::ErrorKind::NotFound,
        format!("no socket {remote} -> {local} in /proc/net/tcp{{,6}}"),
    )))
}

/// In a `/proc/net/tcp{,6}` table, the uid and inode of the socket with
/// local address `local` and remote address `remote`.
pub fn find_socket(table: &str, local: SocketAddr, remote: SocketAddr) -> Option<(u32, u64)> {
    table.lines().skip(1).find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 10 {
            return None;
        }
        let l = parse_endpoint(f[1])?;
        let r = parse_endpoint(f[2])?;
        if same(l, local) && same(r, remote) {
            Some((f[7].parse().ok()?, f[9].parse().ok()?))
        } else {
            None
        }
    })
}

/// Equal, counting an IPv4 address and its IPv4-mapped IPv6 form as one.
fn same(a: SocketAddr, b: SocketAddr) -> bool {
    super::sock_diag::canonical(a) == super::sock_diag::canonical(b)
}

/// `HEX:PORT` as the kernel prints it: the address as 32-bit words in the
/// kernel's memory order, the port in hex.
fn parse_endpoint(s: &str) -> Option<SocketAddr> {
    let (addr, port) = s.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let word = |i: usize| -> Option<[u8; 4]> {
        let w = u32::from_str_radix(addr.get(i * 8..i * 8 + 8)?, 16).ok()?;
        Some(w.to_ne_bytes())
    };
    let ip = match addr.len() {
        8 => IpAddr::V4(Ipv4Addr::from(word(0)?)),
        32 => {
            let mut b = [0u8; 16];
            for i in 0..4 {
                b[i * 4..i * 4 + 4].copy_from_slice(&word(i)?);
            }
            IpAddr::V6(Ipv6Addr::from(b))
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

/// A process with a descriptor on socket `inode`, if one is visible.
/// This process's own children are looked at first (a launcher's or a
/// daemon's ranks: `pmixrun`, `slurmstepd`), then the others, newest
/// (highest pid) first: reading every descriptor of every process costs
/// milliseconds per connection on a busy machine, in the server's loop,
/// and 16 ranks connecting at once waited for each other's scans.
fn pid_holding(inode: u64) -> Option<i32> {
    let target = format!("socket:[{inode}]");
    let holds = |pid: i32| {
        let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
            return false;
        };
        fds.flatten()
            .any(|fd| fs::read_link(fd.path()).is_ok_and(|l| l.as_os_str() == target.as_str()))
    };
    let children = own_children();
    if let Some(pid) = children.iter().copied().find(|&p| holds(p)) {
        return Some(pid);
    }
    let mut pids: Vec<i32> = fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter_map(|d| d.file_name().to_str()?.parse().ok())
        .filter(|p| !children.contains(p))
        .collect();
    pids.sort_unstable_by(|a, b| b.cmp(a));
    pids.into_iter().find(|&p| holds(p))
}

/// The pids of this process's children (every thread's
/// `/proc/self/task/TID/children`; empty where the kernel lacks them).
fn own_children() -> Vec<i32> {
    let Ok(tasks) = fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|t| fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn kernel_endpoints_parse() {
        let v4 = parse_endpoint("0100007F:1F90").unwrap();
        assert_eq!(v4, "127.0.0.1:8080".parse::<SocketAddr>().unwrap());
        let v6 = parse_endpoint("00000000000000000000000001000000:0050").unwrap();
        assert_eq!(v6, "[::1]:80".parse::<SocketAddr>().unwrap());
        assert!(parse_endpoint("zz:1").is_none());
    }

    #[test]
    fn a_connection_from_this_process_is_ours() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (s, _) = l.accept().unwrap();
        let p = of_stream(&s).unwrap();
        assert_eq!(p.uid, crate::sys::my_ids().0);
        assert_eq!(p.pid(), Some(std::process::id() as i32));
        // And from the other side, the accepted socket is ours too.
        assert_eq!(of_stream(&c).unwrap().uid, p.uid);
        // The tables, where sock_diag is refused, name the same socket.
        let (local, remote) = (s.local_addr().unwrap(), s.peer_addr().unwrap());
        assert_eq!(from_tables(local, remote).unwrap(), p);
        // A connection that is not there is an error, not a guess.
        let ghost: SocketAddr = "127.0.0.1:1".parse().unwrap();
        assert!(lookup(ghost, ghost).is_err());
        assert!(from_tables(ghost, ghost).is_err());
    }

    #[test]
    fn a_connection_from_a_child_names_the_child() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        // The child holds its end until ours closes (or 20 s pass).
        let script = format!("exec 3<>/dev/tcp/127.0.0.1/{port}; read -t 20 <&3");
        let mut child = std::process::Command::new("bash")
            .args(["-c", &script])
            .spawn()
            .unwrap();
        let (s, _) = l.accept().unwrap();
        let pid = child.id() as i32;
        assert!(own_children().contains(&pid), "{:?}", own_children());
        assert_eq!(of_stream(&s).unwrap().pid(), Some(pid));
        drop(s);
        let _ = child.wait();
    }
}
