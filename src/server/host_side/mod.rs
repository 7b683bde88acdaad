//! Helpers for the host, outside the progress thread's state: a
//! publish/lookup datastore for a host to serve `publish`/`lookup` with
//! ([`published`]), application setup for a launcher ([`app_setup`]),
//! the environment `setup_fork` gives a client ([`env`]), reporting the
//! server's URI ([`report_uri`]), the server process's own key-value
//! store ([`own_store`]) and its own log channels ([`local_log`]).
//!
//! Invariants:
//! - Nothing here holds or touches the progress thread's state; what
//!   these helpers need from the loop they get through [`super::Server`].
//! - They run on the host's threads; the one exception is
//!   [`local_log`], which the loop also calls for a log request the host
//!   leaves to the server (it only writes to this process's streams and
//!   syslog).

pub(super) mod app_setup;
pub(super) mod env;
pub(super) mod local_log;
pub mod own_store;
pub(super) mod published;
pub(super) mod report_uri;
