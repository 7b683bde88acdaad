//! The PMIx server library: the Rust API a host (our `pmixrun`, or the C
//! layer behind `PMIx_server_*`) drives.
//!
//! ```text
//!  host threads                    progress thread (event_loop)
//!  ------------                    -----------------------------
//!  register_nspace  --builds job segment, stores it in the Registry
//!  register_client  --Registry (uid, gid, secret)
//!  setup_fork       --env with URI + secret
//!                                   accept -> handshake (SO_PEERCRED +
//!                                   secret vs Registry) -> job/modex fds
//!                                   commit / fence / dmodex / abort /
//!                                   finalize; host callbacks
//!  Completion::complete (any thread) --channel + mio::Waker--> loop
//!    (on the loop thread itself: channel only, drained in the same pass)
//!  dmodex_request   --channel + mio::Waker--> loop
//! ```
//!
//! Layout, by kind:
//! - the API the host calls: `api` (the [`Server`] type and every
//!   `impl Server`, by subject);
//! - the progress thread: `event_loop` (the `mio` loop), `command`
//!   (the channel into it), `state` (its rooms, reached through
//!   `State`'s methods), `services` (dispatch of requests by `Op`),
//!   `ops` (operations at the host), `timers`, `departures`,
//!   `census`; the host's callbacks and completions: `host`; what the
//!   host registered, shared with host threads: `registry`;
//! - one folder or file per subject, its room and its handlers
//!   together: `clients` (connections, handshake, abort, finalize),
//!   `collective` (the collective engine), `modex` (commits, fence,
//!   direct modex), `groups`, `iof`, `connect`, `psets`,
//!   `events`, `query`, `control` (log, job control, credentials;
//!   `credential`), `spawn`, `pubsub`;
//! - helpers for the host outside the loop's state: `host_side`.
//!
//! Invariants:
//! - Only the progress thread touches connections, committed data, fence
//!   trackers and modex generations; host threads reach it through the
//!   command channel. The [`Registry`](registry) (namespaces, clients,
//!   secrets) is shared under a mutex held only for lookups and inserts.
//! - A client is served only after its handshake proved the identity it
//!   claims: the connection's `SO_PEERCRED` uid/gid equal what the host
//!   registered for that process, and it presented the secret `setup_fork`
//!   generated for it. Anything else is refused and the connection closed.
//! - Segments handed to clients are sealed memfds; the server keeps each
//!   namespace's job segment and the modex generations not superseded by
//!   a later one (see `modex`) open so that clients connecting later
//!   receive them too.
//! - Commands sent from the loop thread (a host completing an operation
//!   inside the callback that started it) do not wake the loop: it drains
//!   the command channel after handling events and after firing timers,
//!   before it polls again.
//! - A connection is registered for writability only while output is
//!   queued for it (else every read by the client would wake the loop).
//! - Every pending operation ends: released by its completion, failed when
//!   a participant's connection is lost, or failed at its `PMIX_TIMEOUT`.

mod api;
mod census;
mod clients;
mod collective;
mod command;
mod connect;
mod control;
mod credential;
mod departures;
mod event_loop;
mod events;
mod groups;
mod host;
mod host_side;
mod iof;
mod modex;
mod monitor;
mod ops;
mod psets;
mod pubsub;
mod query;
mod registry;
mod services;
mod spawn;
mod state;
mod stock;
mod timers;

pub use crate::wire::pubsub::PublishedValue;
pub use api::{local_hostname, names_this_host, Server, ServerConfig, ServerError};
pub use census::Census;
pub use control::{job_ctrl, session_ctrl};
pub use events::NotifyCallback;
pub use host::{Completion, DmodexCallback, HostModule, NoHost, OpOutput, StartedProc};
pub use host_side::app_setup::{application_setup, EnvChange, EnvEdit};
pub use host_side::env::{OWN_URI_ENV, SECRET_ENV, URI_ENV_VARS};
pub use host_side::local_log::{log_locally, log_source, log_text, log_timestamp};
pub use host_side::own_store;
pub use host_side::published::{DataRange, LookupDone, Participant, Persistence, PublishedData};
pub use iof::service::{DEFAULT_CACHE as IOF_DEFAULT_CACHE, IOF_DROPPED};
pub use query::ServerQueryCallback;
#[doc(hidden)]
pub use stock::decode_check::{door_connect, door_decode, DoorDecode};
