//! Where an OpenPMIx server listens, as its URI says it, and the
//! environment variables that carry the URI and the rest of the
//! rendezvous.
//!
//! URI: `<server nspace>.<server rank>;tcp4://127.0.0.1:PORT` or
//! `...;tcp6://[ADDR]:PORT`; the rank follows the *last* `.` of the part
//! before `;` (namespaces may hold dots). A client takes the first URI
//! variable present in the order of [`SERVER_URI_VARS`]; the variable
//! fixes its bfrops module ([`module_for_var`]).

use std::net::{IpAddr, SocketAddr};

use super::WireError;
use crate::codec::Module;
use crate::{Nspace, Proc, Rank};

/// The URI variables, in the order a 4.x/5.x client looks for them.
pub const SERVER_URI_VARS: [&str; 5] = [
    "PMIX_SERVER_URI41",
    "PMIX_SERVER_URI4",
    "PMIX_SERVER_URI3",
    "PMIX_SERVER_URI21",
    "PMIX_SERVER_URI2",
];
/// The client's namespace.
pub const ENV_NAMESPACE: &str = "PMIX_NAMESPACE";
/// The client's rank.
pub const ENV_RANK: &str = "PMIX_RANK";
/// The psec modules the server accepts (comma-separated).
pub const ENV_SECURITY_MODE: &str = "PMIX_SECURITY_MODE";
/// The buffer type ([`super::bfrops::ENV_NON_DESC`] or `..._FULLY_DESC`).
pub const ENV_BUFFER_TYPE: &str = "PMIX_BFROP_BUFFER_TYPE";
/// The gds modules the client may use (comma-separated).
pub const ENV_GDS_MODULE: &str = "PMIX_GDS_MODULE";
/// The server's version.
pub const ENV_VERSION: &str = "PMIX_VERSION";
/// The server's temporary directory.
pub const ENV_SERVER_TMPDIR: &str = "PMIX_SERVER_TMPDIR";
/// The system's temporary directory.
pub const ENV_SYSTEM_TMPDIR: &str = "PMIX_SYSTEM_TMPDIR";
/// The node's name.
pub const ENV_HOSTNAME: &str = "PMIX_HOSTNAME";

/// The bfrops module a client picks when it finds its URI in `var`
/// (`None` for the 2.x variables, whose formats we do not speak).
pub fn module_for_var(var: &str) -> Option<Module> {
    match var {
        "PMIX_SERVER_URI41" => Some(Module::V41),
        "PMIX_SERVER_URI4" => Some(Module::V4),
        "PMIX_SERVER_URI3" => Some(Module::V3),
        _ => None,
    }
}

/// A parsed server URI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerUri {
    /// The server's process name.
    pub server: Proc,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl ServerUri {
    /// Parses `nspace.rank;tcp4://ip:port` (or `tcp6://[ip]:port`).
    pub fn parse(uri: &str) -> Result<ServerUri, WireError> {
        let bad = |why| WireError::BadUri {
            uri: uri.to_owned(),
            why,
        };
        let (name, addr) = uri.split_once(';').ok_or_else(|| bad("no ';'"))?;
        let (ns, rank) = name
            .rsplit_once('.')
            .ok_or_else(|| bad("no '.' before the rank"))?;
        let rank: u32 = rank.parse().map_err(|_| bad("rank is not a number"))?;
        let nspace = Nspace::new(ns).map_err(|_| bad("namespace"))?;
        if ns.is_empty() || nspace.as_c_str().to_bytes().len() != ns.len() {
            return Err(bad("namespace empty or too long"));
        }
        let addr = parse_addr(addr).ok_or_else(|| bad("address is not tcp4:// or tcp6://"))?;
        Ok(ServerUri {
            server: Proc::new(nspace, Rank(rank)),
            addr,
        })
    }

    /// The URI text.
    pub fn format(&self) -> String {
        let ns = self.server.nspace.as_c_str().to_string_lossy();
        let rank = self.server.rank.0;
        match self.addr.ip() {
            IpAddr::V4(ip) => format!("{ns}.{rank};tcp4://{ip}:{}", self.addr.port()),
            IpAddr::V6(ip) => format!("{ns}.{rank};tcp6://[{ip}]:{}", self.addr.port()),
        }
    }
}

fn parse_addr(a: &str) -> Option<SocketAddr> {
    let (v6, rest) = if let Some(r) = a.strip_prefix("tcp4://") {
        (false, r)
    } else {
        (true, a.strip_prefix("tcp6://")?)
    };
    let sa: SocketAddr = rest.parse().ok()?;
    (sa.is_ipv6() == v6).then_some(sa)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_with_dotted_namespaces_and_both_families() {
        for text in [
            "prterun-host-1234@0.0;tcp4://127.0.0.1:5000",
            "a.b.c.7;tcp6://[::1]:6000",
        ] {
            let u = ServerUri::parse(text).unwrap();
            assert_eq!(u.format(), text);
        }
        let u = ServerUri::parse("a.b.c.7;tcp6://[::1]:6000").unwrap();
        assert_eq!(u.server.nspace.as_c_str().to_str().unwrap(), "a.b.c");
        assert_eq!(u.server.rank, Rank(7));
    }

    #[test]
    fn malformed_uris_are_refused() {
        for text in [
            "ns.0",
            "ns;tcp4://127.0.0.1:1",
            "ns.x;tcp4://127.0.0.1:1",
            ".0;tcp4://127.0.0.1:1",
            "ns.0;unix:///tmp/x",
            "ns.0;tcp4://[::1]:1",
            "ns.0;tcp6://127.0.0.1:1",
            "ns.0;tcp4://127.0.0.1",
        ] {
            let e = ServerUri::parse(text).unwrap_err();
            assert_eq!(e.status(), crate::Status::ERR_BAD_PARAM, "{text}");
        }
    }

    #[test]
    fn the_variable_fixes_the_module() {
        assert_eq!(module_for_var(SERVER_URI_VARS[0]), Some(Module::V41));
        assert_eq!(module_for_var("PMIX_SERVER_URI4"), Some(Module::V4));
        assert_eq!(module_for_var("PMIX_SERVER_URI21"), None);
    }
}
