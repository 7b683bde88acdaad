//! The environment that tells an OpenPMIx client where its server is and
//! how to speak to it — built by a server for the processes it starts
//! ([`ClientEnv`], what OpenPMIx's `PMIx_server_setup_fork` sets) and read
//! by a client ([`Rendezvous::from_env`], what `PMIx_Init` reads).
//!
//! - `PMIX_NAMESPACE`, `PMIX_RANK`: the client's name.
//! - The server URI under each of `PMIX_SERVER_URI41`, `...URI4` and
//!   `...URI3`; a client takes the first present in the order of
//!   [`SERVER_URI_VARS`], which fixes its bfrops module. We publish no 2.x
//!   variable: those formats are refused anyway; a 3.x client finds its
//!   server under `...URI3` and is served in bfrops v3.
//! - `PMIX_SECURITY_MODE`: the psec modules the server accepts, in order;
//!   a client picks the first it has. Ours: `native,none`.
//! - `PMIX_BFROP_BUFFER_TYPE`: the buffer type (unset: non-described, the
//!   default of OpenPMIx built without debugging).
//! - `PMIX_GDS_MODULE`: the gds modules; `hash` alone keeps 5.x clients off
//!   shared-memory stores.
//! - `PMIX_SERVER_TMPDIR`, `PMIX_SYSTEM_TMPDIR`, `PMIX_HOSTNAME`,
//!   `PMIX_VERSION`.

use std::path::Path;

use super::bfrops::BufferType;
use super::handshake::ACCEPTED_PSEC;
use super::uri::*;
use super::WireError;
use crate::codec::Module;
use crate::{Nspace, Proc, Rank};

/// What a server puts in the environment of a client it starts.
#[derive(Clone, Debug)]
pub struct ClientEnv<'a> {
    /// The client's name.
    pub proc: &'a Proc,
    /// Where the server listens.
    pub uri: &'a ServerUri,
    /// The buffer type the client must use.
    pub buffer_type: BufferType,
    /// The version the server reports.
    pub version: &'a str,
    /// The server's temporary directory.
    pub server_tmpdir: &'a Path,
    /// The system's temporary directory.
    pub system_tmpdir: &'a Path,
    /// The node's name.
    pub hostname: &'a str,
}

/// The URI variables a server publishes.
pub const PUBLISHED_URI_VARS: [&str; 3] =
    ["PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3"];

impl ClientEnv<'_> {
    /// The variables, in the order OpenPMIx sets them.
    pub fn vars(&self) -> Vec<(&'static str, String)> {
        let uri = self.uri.format();
        let mut v = vec![
            (
                ENV_NAMESPACE,
                self.proc.nspace.as_c_str().to_string_lossy().into_owned(),
            ),
            (ENV_RANK, self.proc.rank.0.to_string()),
        ];
        v.extend(PUBLISHED_URI_VARS.iter().map(|&k| (k, uri.clone())));
        v.extend([
            (ENV_SECURITY_MODE, ACCEPTED_PSEC.join(",")),
            (ENV_BUFFER_TYPE, self.buffer_type.env_value().to_owned()),
            (ENV_GDS_MODULE, "hash".to_owned()),
            (ENV_SERVER_TMPDIR, self.server_tmpdir.display().to_string()),
            (ENV_SYSTEM_TMPDIR, self.system_tmpdir.display().to_string()),
            (ENV_HOSTNAME, self.hostname.to_owned()),
            (ENV_VERSION, self.version.to_owned()),
        ]);
        v
    }
}

/// What a client reads from its environment to find its server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendezvous {
    /// The variable the URI came from.
    pub var: &'static str,
    /// The server.
    pub uri: ServerUri,
    /// The bfrops module that variable fixes.
    pub module: Module,
    /// The buffer type to use.
    pub buffer_type: BufferType,
    /// The psec module to use (the first offered that we have).
    pub psec: &'static str,
    /// The client's nspace and rank, if given (a tool may have none).
    pub proc: Option<Proc>,
}

impl Rendezvous {
    /// Reads the rendezvous through `get` (e.g. `std::env::var`): `None` if
    /// no URI variable is set (a singleton, or a tool that must search).
    /// Refuses a server we cannot speak to: a 2.x URI variable alone, or
    /// security modes none of which we have (munge only).
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Option<Rendezvous>, WireError> {
        let Some((var, text)) = SERVER_URI_VARS.iter().find_map(|&k| get(k).map(|v| (k, v))) else {
            return Ok(None);
        };
        let module =
            module_for_var(var).ok_or_else(|| WireError::UnsupportedBfrops(var.to_owned()))?;
        let uri = ServerUri::parse(&text)?;
        let psec = match get(ENV_SECURITY_MODE) {
            None => ACCEPTED_PSEC[0],
            Some(list) => list
                .split(',')
                .find_map(|m| ACCEPTED_PSEC.iter().find(|&&a| a == m.trim()))
                .copied()
                .ok_or(WireError::UnsupportedPsec(list))?,
        };
        let buffer_type = get(ENV_BUFFER_TYPE)
            .and_then(|v| BufferType::from_env(&v))
            .unwrap_or(BufferType::NonDescribed);
        let proc = match (get(ENV_NAMESPACE), get(ENV_RANK)) {
            (Some(ns), Some(rank)) => {
                let nspace = Nspace::new(ns).map_err(|_| WireError::Malformed("PMIX_NAMESPACE"))?;
                let rank = rank
                    .parse()
                    .map_err(|_| WireError::Malformed("PMIX_RANK"))?;
                Some(Proc::new(nspace, Rank(rank)))
            }
            _ => None,
        };
        Ok(Some(Rendezvous {
            var,
            uri,
            module,
            buffer_type,
            psec,
            proc,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn what_a_server_sets_a_client_reads_back() {
        let proc = Proc::new(Nspace::new("job.x").unwrap(), Rank(4));
        let uri = ServerUri::parse("srv.0;tcp4://127.0.0.1:4000").unwrap();
        let vars = ClientEnv {
            proc: &proc,
            uri: &uri,
            buffer_type: BufferType::FullyDescribed,
            version: "4.2.2",
            server_tmpdir: Path::new("/tmp/s"),
            system_tmpdir: Path::new("/tmp"),
            hostname: "node",
        }
        .vars();
        let pairs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = Rendezvous::from_env(env(&pairs)).unwrap().unwrap();
        assert_eq!(r.var, "PMIX_SERVER_URI41");
        assert_eq!(r.module, Module::V41);
        assert_eq!(r.uri, uri);
        assert_eq!(r.buffer_type, BufferType::FullyDescribed);
        assert_eq!(r.psec, "native");
        assert_eq!(r.proc, Some(proc));
    }

    #[test]
    fn the_first_variable_present_wins_and_bad_ones_are_refused() {
        let u = "s.0;tcp4://127.0.0.1:1";
        let r = Rendezvous::from_env(env(&[("PMIX_SERVER_URI4", u), ("PMIX_SERVER_URI3", u)]))
            .unwrap()
            .unwrap();
        assert_eq!(
            (r.var, r.module, r.proc),
            ("PMIX_SERVER_URI4", Module::V4, None)
        );
        assert_eq!(Rendezvous::from_env(env(&[])).unwrap(), None);
        let e = Rendezvous::from_env(env(&[("PMIX_SERVER_URI21", u)])).unwrap_err();
        assert!(matches!(e, WireError::UnsupportedBfrops(_)));
        let e = Rendezvous::from_env(env(&[
            ("PMIX_SERVER_URI41", u),
            ("PMIX_SECURITY_MODE", "munge"),
        ]))
        .unwrap_err();
        assert!(matches!(e, WireError::UnsupportedPsec(_)));
        let r = Rendezvous::from_env(env(&[
            ("PMIX_SERVER_URI41", u),
            ("PMIX_SECURITY_MODE", "munge,none"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(r.psec, "none");
        assert!(Rendezvous::from_env(env(&[("PMIX_SERVER_URI41", "junk")])).is_err());
    }
}
