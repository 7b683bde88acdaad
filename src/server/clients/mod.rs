//! The server's clients: their connections (accepting, framing, output
//! queues, handshake states) and their life on the server (handshake,
//! the host's `client_connected`, `PMIx_Abort`, `PMIx_Finalize`).
//!
//! Holds the [`Connections`](connections::Connections) room of the
//! progress thread's state and the handlers of a client's arrival and
//! departure ([`lifecycle`]).
//!
//! Invariants:
//! - Only the progress thread touches a connection.
//! - A client is served only after its handshake proved the identity it
//!   claims (see [`lifecycle`]).

pub(super) mod connections;
pub(super) mod lifecycle;
