//! The environment `setup_fork` gives a client: the variable names
//! OpenPMIx 4.2 sets (so that software detecting a PMIx environment from
//! them keeps working), plus our per-client secret.
//!
//! | variable | value |
//! |---|---|
//! | `PMIX_NAMESPACE` | the client's namespace |
//! | `PMIX_RANK` | the client's rank |
//! | `PMIX_SERVER_URI41`, `PMIX_SERVER_URI4`, `PMIX_SERVER_URI3`, `PMIX_SERVER_URI21`, `PMIX_SERVER_URI2` | with the stock door open: `<server nspace>.<server rank>;tcp4://127.0.0.1:<port>`; else `<server nspace>.<server rank>;unix://<socket path>` |
//! | `PMIX_RS_SERVER_URI` | with the stock door open: the `unix://` URI (our clients read it first) |
//! | `PMIX_SECURITY_MODE` | `native` |
//! | `PMIX_BFROP_BUFFER_TYPE` | `PMIX_BFROP_BUFFER_NON_DESC` |
//! | `PMIX_GDS_MODULE` | `hash` with the stock door open (OpenPMIx's clients keep their data in their own memory), else `shmem` |
//! | `PMIX_SERVER_TMPDIR` | the server's rendezvous directory |
//! | `PMIX_SYSTEM_TMPDIR` | the system temporary directory |
//! | `PMIX_HOSTNAME` | the server's node name |
//! | `PMIX_VERSION` | `4.2.2` |
//! | `PMIX_RS_SECRET` | the client's secret (hex) |
//!
//! Invariant: `setup_fork` gives every client the same variables in the
//! same order, its own secret included, and nothing that depends on the
//! client's current environment.

use std::path::Path;

use crate::server::ServerConfig;
use crate::Proc;

/// The rendezvous variables, in the order an OpenPMIx client reads them
/// (the first one set wins): the protocol module's list.
pub use crate::openpmix::uri::SERVER_URI_VARS as URI_ENV_VARS;

/// Our own clients' variable for the Unix-socket URI, read before the
/// `PMIX_SERVER_URI*` ones (which name the stock door when it is open).
pub const OWN_URI_ENV: &str = "PMIX_RS_SERVER_URI";

/// The variable holding the client's secret.
pub const SECRET_ENV: &str = "PMIX_RS_SECRET";

/// The version string clients see (`PMIX_VERSION`).
const VERSION: &str = "4.2.2";

pub(in crate::server) fn client_env(
    proc: &Proc,
    uri: &str,
    stock_uri: Option<&str>,
    session_dir: &Path,
    config: &ServerConfig,
    secret: &str,
) -> Vec<(String, String)> {
    let mut env = vec![
        ("PMIX_NAMESPACE".to_owned(), proc.nspace.to_string()),
        ("PMIX_RANK".to_owned(), proc.rank.0.to_string()),
    ];
    let door = stock_uri.unwrap_or(uri);
    env.extend(
        URI_ENV_VARS
            .iter()
            .map(|v| (v.to_string(), door.to_owned())),
    );
    if stock_uri.is_some() {
        env.push((OWN_URI_ENV.to_owned(), uri.to_owned()));
    }
    let gds = if stock_uri.is_some() { "hash" } else { "shmem" };
    env.extend(
        [
            ("PMIX_SECURITY_MODE", "native".to_owned()),
            (
                "PMIX_BFROP_BUFFER_TYPE",
                "PMIX_BFROP_BUFFER_NON_DESC".to_owned(),
            ),
            ("PMIX_GDS_MODULE", gds.to_owned()),
            (
                "PMIX_SERVER_TMPDIR",
                session_dir.to_string_lossy().into_owned(),
            ),
            (
                "PMIX_SYSTEM_TMPDIR",
                config.system_tmpdir.to_string_lossy().into_owned(),
            ),
            ("PMIX_HOSTNAME", config.hostname.clone()),
            ("PMIX_VERSION", VERSION.to_owned()),
            (SECRET_ENV, secret.to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v)),
    );
    env
}
