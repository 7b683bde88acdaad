//! The owner of one TCP socket, asked of the kernel by its exact
//! addresses over `NETLINK_SOCK_DIAG` (the interface `ss` uses): one
//! request and one reply, tens of microseconds whatever the number of
//! sockets on the host. Reading `/proc/net/tcp{,6}` instead costs the
//! kernel a listing of every socket of the network namespace, which took
//! 1–6 ms per connection on a busy machine, in the server's loop, while
//! sixteen ranks connected at once.
//!
//! The request names the socket by its four addresses (no dump); the
//! kernel answers with the socket's `inet_diag_msg` (owner uid, inode) or
//! an error (`ENOENT`: no such socket). Requests and replies are encoded
//! and decoded by `netlink-packet-sock-diag`; the netlink socket is
//! `netlink-sys`'s, opened per lookup, non-blocking (the kernel queues its
//! answer while our send runs, so a missing answer is an error, never a
//! wait).
//!
//! Invariant: an answer is taken only when it is the inet reply to our
//! request whose addresses are the ones asked for; anything else is an
//! error, and the caller falls back to `/proc`.

use std::io;
use std::net::{IpAddr, SocketAddr};

use netlink_packet_core::{NetlinkHeader, NetlinkMessage, NetlinkPayload, NLM_F_REQUEST};
use netlink_packet_sock_diag::constants::{AF_INET, AF_INET6, IPPROTO_TCP};
use netlink_packet_sock_diag::inet::{ExtensionFlags, InetRequest, SocketId, StateFlags};
use netlink_packet_sock_diag::SockDiagMessage;
use netlink_sys::{protocols::NETLINK_SOCK_DIAG, Socket, SocketAddr as NlAddr};

/// "Do not check the socket's cookie" (`INET_DIAG_NOCOOKIE`).
const NO_COOKIE: [u8; 8] = [0xff; 8];

/// The sequence number of every request (one request per socket).
const SEQUENCE: u32 = 1;

/// The uid owning the socket whose local address is `local` and whose
/// remote address is `remote`, and its inode.
pub fn owner(local: SocketAddr, remote: SocketAddr) -> io::Result<(u32, u64)> {
    let (local, remote) = (canonical(local), canonical(remote));
    let family = match (local.ip(), remote.ip()) {
        (IpAddr::V4(_), IpAddr::V4(_)) => AF_INET,
        (IpAddr::V6(_), IpAddr::V6(_)) => AF_INET6,
        _ => return Err(invalid("addresses of two families")),
    };
    let mut header = NetlinkHeader::default();
    header.flags = NLM_F_REQUEST;
    header.sequence_number = SEQUENCE;
    let mut request = NetlinkMessage::new(
        header,
        SockDiagMessage::InetRequest(InetRequest {
            family,
            protocol: IPPROTO_TCP,
            extensions: ExtensionFlags::empty(),
            states: StateFlags::all(),
            socket_id: SocketId {
                source_port: local.port(),
                destination_port: remote.port(),
                source_address: local.ip(),
                destination_address: remote.ip(),
                interface_id: 0,
                cookie: NO_COOKIE,
            },
        })
        .into(),
    );
    request.finalize();
    let mut out = vec![0u8; request.buffer_len()];
    request.serialize(&mut out);

    let mut socket = Socket::new(NETLINK_SOCK_DIAG)?;
    socket.bind_auto()?;
    socket.connect(&NlAddr::new(0, 0))?;
    socket.set_non_blocking(true)?;
    socket.send(&out, 0)?;
    let mut reply = Vec::with_capacity(8192);
    let n = socket.recv(&mut reply, 0)?;
    let reply = reply.get(..n).ok_or_else(|| invalid("short reply"))?;
    let message = NetlinkMessage::<SockDiagMessage>::deserialize(reply)
        .map_err(|e| invalid(&format!("undecodable reply: {e}")))?;
    if message.header.sequence_number != SEQUENCE {
        return Err(invalid("a reply to another request"));
    }
    match message.payload {
        NetlinkPayload::InnerMessage(SockDiagMessage::InetResponse(r)) => {
            let id = &r.header.socket_id;
            let found = SocketAddr::new(id.source_address, id.source_port);
            let peer = SocketAddr::new(id.destination_address, id.destination_port);
            if canonical(found) != local || canonical(peer) != remote {
                return Err(invalid("a reply about another socket"));
            }
            Ok((r.header.uid, u64::from(r.header.inode)))
        }
        NetlinkPayload::Error(e) => Err(e.to_io()),
        _ => Err(invalid("an unexpected reply")),
    }
}

/// An IPv4-mapped IPv6 address as the IPv4 address it maps (a dual-stack
/// listener sees an IPv4 client that way; the client's socket is IPv4).
pub(super) fn canonical(a: SocketAddr) -> SocketAddr {
    match a.ip() {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map_or(a, |v4| SocketAddr::new(IpAddr::V4(v4), a.port())),
        IpAddr::V4(_) => a,
    }
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("sock_diag: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn both_ends_of_a_loopback_connection_are_found() {
        for host in ["127.0.0.1:0", "[::1]:0"] {
            let Ok(l) = TcpListener::bind(host) else {
                continue; // no IPv6 here
            };
            let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
            let (s, _) = l.accept().unwrap();
            let me = crate::sys::my_ids().0;
            // The client's socket, seen from the server's side.
            let (uid, inode) = owner(s.peer_addr().unwrap(), s.local_addr().unwrap()).unwrap();
            assert_eq!(uid, me);
            assert_ne!(inode, 0);
            // The accepted socket is another one.
            let (uid2, inode2) = owner(c.peer_addr().unwrap(), c.local_addr().unwrap()).unwrap();
            assert_eq!(uid2, me);
            assert_ne!(inode2, inode);
        }
    }

    #[test]
    fn a_socket_that_is_not_there_is_an_error() {
        let ghost: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let other: SocketAddr = "127.0.0.1:2".parse().unwrap();
        assert!(owner(ghost, other).is_err());
        let v6: SocketAddr = "[::1]:2".parse().unwrap();
        assert!(owner(ghost, v6).is_err());
    }
}
