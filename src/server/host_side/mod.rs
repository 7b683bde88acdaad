//! Helpers a host calls on its own threads, never on the progress thread:
//! a publish/lookup datastore for a host to serve `publish`/`lookup`
//! with ([`published`]), application setup for a launcher
//! ([`app_setup`]), the environment `setup_fork` gives a client
//! ([`env`]), reporting the server's URI ([`report_uri`]) and the server
//! process's own key-value store ([`own_store`]).
//!
//! Invariant: nothing here touches the progress thread's state; what
//! these helpers need from the loop they get through [`super::Server`].

pub(super) mod app_setup;
pub(super) mod env;
pub mod own_store;
pub(super) mod published;
pub(super) mod report_uri;
