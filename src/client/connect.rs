//! Where and as whom a client connects: read from the environment
//! `setup_fork` prepared (see [`crate::server`]'s `env` table).

use std::path::PathBuf;

use crate::server::{OWN_URI_ENV, SECRET_ENV, URI_ENV_VARS};
use crate::{Nspace, Proc, Rank, Status};

/// What a client needs to connect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectInfo {
    /// The identity to claim.
    pub proc: Proc,
    /// The server's socket.
    pub socket: PathBuf,
    /// The secret proving the identity.
    pub secret: String,
}

impl ConnectInfo {
    /// Reads `PMIX_NAMESPACE`, `PMIX_RANK`, our `PMIX_RS_SERVER_URI` or
    /// else the first `PMIX_SERVER_URI*` set (those name the stock door's
    /// TCP listener when it is open), and `PMIX_RS_SECRET`. `PMIX_ERR_UNREACH` when no server is
    /// named (a singleton), `PMIX_ERR_BAD_PARAM` when a variable is
    /// malformed.
    pub fn from_env() -> Result<ConnectInfo, Status> {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// As [`from_env`](Self::from_env), reading variables through `get`.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<ConnectInfo, Status> {
        let uri = std::iter::once(&OWN_URI_ENV)
            .chain(URI_ENV_VARS.iter())
            .find_map(|v| get(v))
            .ok_or(Status::ERR_UNREACH)?;
        let socket = parse_uri(&uri).ok_or(Status::ERR_BAD_PARAM)?;
        let nspace = get("PMIX_NAMESPACE").ok_or(Status::ERR_UNREACH)?;
        let rank = get("PMIX_RANK").ok_or(Status::ERR_UNREACH)?;
        let rank: u32 = rank.trim().parse().map_err(|_| Status::ERR_BAD_PARAM)?;
        if rank > Rank::VALID.0 {
            return Err(Status::ERR_BAD_PARAM);
        }
        let secret = get(SECRET_ENV).unwrap_or_default();
        Ok(ConnectInfo {
            proc: Proc::new(Nspace::new(nspace)?, Rank(rank)),
            socket,
            secret,
        })
    }
}

/// The socket path of a URI `<nspace>.<rank>;unix://<path>`, the path
/// absolute. The address may name the host before the path, as a `file:`
/// URL may (`unix://<host>/<path>`): this node by its name (the kernel's,
/// or its first label) or as `localhost`; a socket on another host is
/// out of reach (`None`).
pub(crate) fn parse_uri(uri: &str) -> Option<PathBuf> {
    let (_, addr) = uri.split_once(';')?;
    let rest = addr.strip_prefix("unix://")?;
    let at = rest.find('/')?;
    let (host, path) = rest.split_at(at);
    (host.is_empty() || crate::server::names_this_host(host)).then(|| PathBuf::from(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn reads_the_setup_fork_environment() {
        let env: HashMap<&str, &str> = [
            ("PMIX_NAMESPACE", "job"),
            ("PMIX_RANK", "3"),
            ("PMIX_SERVER_URI21", "srv.0;unix:///tmp/x/sock"),
            ("PMIX_RS_SECRET", "abc"),
        ]
        .into();
        let c = ConnectInfo::from_lookup(|k| env.get(k).map(|s| s.to_string())).unwrap();
        assert_eq!(c.proc.rank, Rank(3));
        assert_eq!(c.socket, PathBuf::from("/tmp/x/sock"));
        assert_eq!(c.secret, "abc");
    }

    #[test]
    fn no_server_is_unreachable_and_foreign_uris_are_refused() {
        assert_eq!(ConnectInfo::from_lookup(|_| None), Err(Status::ERR_UNREACH));
        assert_eq!(parse_uri("prterun.0;tcp4://127.0.0.1:4000"), None);
        assert_eq!(parse_uri("a.b.1;unix://relative"), None);
    }

    #[test]
    fn a_uri_may_name_this_host_before_the_path() {
        let me = crate::server::local_hostname();
        let want = Some(PathBuf::from("/tmp/x/sock"));
        assert_eq!(parse_uri("s.0;unix:///tmp/x/sock"), want);
        assert_eq!(parse_uri("s.0;unix://localhost/tmp/x/sock"), want);
        assert_eq!(parse_uri(&format!("s.0;unix://{me}/tmp/x/sock")), want);
        assert_eq!(
            parse_uri("s.0;unix://surely-not-this-host.example/tmp/x/sock"),
            None
        );
    }
}
