//! Which connection serves a call this process makes: the one place that
//! chooses between the client (a client's connection to its server, or a
//! tool's primary server, both published in [`state`]) and this process's
//! own server (a process initialized only with `PMIx_server_init`, which
//! asks its own server and host), and says why neither does.
//!
//! Invariants: a process with a client is served by it for every call that
//! may be served either way (a process both client and server is a client
//! for those); only reads of atomics ([`state::role`]): no lock, so
//! `PMIx_Get`'s hot path never waits. Each call maps [`Unserved`] to its
//! own status at its edge (`PMIX_ERR_INIT` before any init; for a process
//! with no client the status the standard or OpenPMIx gives for that call).

use pmix_core::client::Client;
use pmix_core::Status;

use crate::api::state::{self, Role};

/// The connection that serves a call.
#[derive(Clone, Copy)]
pub(crate) enum Serving {
    /// The connected client, or a tool's primary server.
    Client(&'static Client),
    /// This process's own server (see [`state::server`]).
    Server,
}

/// Why no connection serves a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unserved {
    /// The library is not initialized.
    Uninitialized,
    /// Initialized, with no client for a call that needs one (a server
    /// process, for a call its own server does not serve; a tool with no
    /// server connection left).
    NoClient,
}

impl Unserved {
    /// The call's status: `PMIX_ERR_INIT` when uninitialized, `no_client`
    /// else.
    #[inline]
    pub(crate) fn status(self, no_client: Status) -> Status {
        match self {
            Unserved::Uninitialized => Status::ERR_INIT,
            Unserved::NoClient => no_client,
        }
    }
}

/// Which connection serves a call: the client whenever there is one, else
/// this process's own server if `server_serves` (the call has a server
/// path) and it runs one.
#[inline]
pub(crate) fn serving(server_serves: bool) -> Result<Serving, Unserved> {
    match state::role() {
        Role::Client(c) => Ok(Serving::Client(c)),
        Role::Server if server_serves => Ok(Serving::Server),
        Role::None => Err(Unserved::Uninitialized),
        Role::Server | Role::Tool => Err(Unserved::NoClient),
    }
}

/// As [`serving`] for a call only a client makes, its status
/// `no_client` when there is none.
#[inline]
pub(crate) fn client_or(no_client: Status) -> Result<&'static Client, Status> {
    match serving(false) {
        Ok(Serving::Client(c)) => Ok(c),
        Ok(Serving::Server) => Err(no_client),
        Err(u) => Err(u.status(no_client)),
    }
}

/// The client serving a call only a client makes; `PMIX_ERR_INIT` when
/// there is none.
#[inline]
pub(crate) fn client() -> Result<&'static Client, Status> {
    client_or(Status::ERR_INIT)
}

/// The client serving a call that must reach a server (not a singleton's
/// private one): `PMIX_ERR_UNREACH` without one.
#[inline]
pub(crate) fn connected() -> Result<&'static Client, Status> {
    client_or(Status::ERR_UNREACH).and_then(|c| {
        if c.is_singleton() {
            Err(Status::ERR_UNREACH)
        } else {
            Ok(c)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uninitialized_is_always_err_init() {
        for no_client in [Status::ERR_NOT_SUPPORTED, Status::ERR_UNREACH] {
            assert_eq!(Unserved::Uninitialized.status(no_client), Status::ERR_INIT);
            assert_eq!(Unserved::NoClient.status(no_client), no_client);
        }
    }
}
