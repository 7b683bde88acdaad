//! OpenPMIx's own wire protocol, for processes that carry their own
//! OpenPMIx library (issue 23: they connect to our server; issue 24: our
//! client connects to theirs). This module only encodes and decodes; it
//! owns no socket loop and no server or client state.
//!
//! - [`header`]: the 16-byte `pmix_ptl_hdr_t`, its reserved tags, the
//!   size limits, and [`header::FrameReader`], which reassembles frames
//!   from a non-blocking byte stream.
//! - [`command`]: `pmix_cmd_t`, the first item of every request.
//! - [`fields`]: a command's values and counted lists, for both ends.
//! - [`control`]: job control, monitoring, allocation and session
//!   control requests and their replies, for both ends.
//! - [`bfrops`]: the buffer format a peer announces (module name and
//!   buffer type) mapped onto [`crate::codec::Format`].
//! - [`handshake`]: the client's connect message and the server's replies,
//!   parsed and built.
//! - [`uri`]: the server URI (`nspace.rank;tcp4://127.0.0.1:PORT`) and the
//!   environment variable names that carry it.
//! - [`rendezvous`]: the environment a server gives the clients it starts,
//!   and what a client reads from it.
//! - [`peer`]: who is on the other end of a loopback TCP connection, as
//!   the kernel knows it (OpenPMIx itself takes the connect message's
//!   word for it).
//! - [`error`]: [`WireError`], mapped to PMIx statuses.
//!
//! Invariants: every parser takes bytes from the peer as hostile — each
//! length is checked against what is left before use, strings must end in
//! NUL within the message, flags and names must be known — and returns a
//! [`WireError`], never panics. Nothing here blocks.
//!
//! The facts (layouts, values, byte orders) come from OpenPMIx's source,
//! v4.2.2 and v5.0.11 (and master where it adds something): mostly
//! `src/mca/ptl/base`, `src/mca/bfrops`, `src/include/pmix_globals.h`.
//! No code or comment of it is copied.

pub mod bfrops;
pub mod command;
pub mod control;
pub mod error;
pub mod fields;
pub mod handshake;
pub mod header;
pub mod job_info;
pub mod peer;
pub mod rendezvous;
mod sock_diag;
pub mod uri;

pub use bfrops::{BufferType, PeerFormat};
pub use command::Command;
pub use error::WireError;
pub use handshake::{ClientReply, ConnectMessage, Identity, PeerKind, ToolReply};
pub use header::{FrameReader, Header};
pub use rendezvous::{ClientEnv, Rendezvous};
pub use uri::ServerUri;
