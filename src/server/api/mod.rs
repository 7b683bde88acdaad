//! The [`Server`] API a host calls (our `pmixrun`, or the C layer behind
//! `PMIx_server_*`), gathered here by subject: configuration
//! ([`config`]), start and stop ([`lifecycle`]), registration and
//! client setup ([`registration`]), events and process sets
//! ([`events`]), I/O forwarding ([`iof`]), log and job control
//! ([`control`]), queries ([`query`]), spawn ([`spawn`]), resources
//! ([`resources`]) and reaching the progress thread ([`progress`]).
//!
//! Invariants:
//! - Every method runs on the host's thread and reaches the progress
//!   thread's state only through the command channel (a task run on the
//!   loop, [`Server::run_on_loop`]), never directly.
//! - A method that hands work to the loop reports `PMIX_ERR_INIT` when the
//!   loop is gone, and otherwise calls its callback exactly once.

mod config;
mod control;
mod events;
mod inventory;
mod iof;
mod lifecycle;
mod progress;
mod query;
mod registration;
mod resources;
mod spawn;

use std::sync::Arc;
use std::thread::JoinHandle;

pub use config::{local_hostname, names_this_host, ServerConfig, ServerError};

use super::command::Notifier;
use super::registry::Registry;
use super::EnvEdit;
use crate::net::RendezvousDir;
use crate::{Info, Nspace};

/// A running PMIx server: a listening socket in a private directory and a
/// progress thread. Dropping it (or [`Server::finalize`]) stops the thread,
/// closes every client connection and removes the directory.
pub struct Server {
    registry: Arc<Registry>,
    notifier: Notifier,
    thread: Option<JoinHandle<()>>,
    uri: String,
    /// The stock door's URI (`tcp4://`), if the door is open.
    stock_uri: Option<String>,
    config: ServerConfig,
    dir: RendezvousDir,
    /// Environment directives of `setup_local_support`, per namespace.
    local_support: parking_lot::Mutex<std::collections::HashMap<Nspace, Vec<EnvEdit>>>,
    /// The server process's own event handlers (see [`events`](crate::server::events)).
    events: Arc<crate::events::EventHandlers>,
    /// What `register_resources` gave (see [`resources`]).
    resources: parking_lot::Mutex<Vec<Info>>,
    /// Other nodes' inventories, by hostname (see [`inventory`]).
    inventory: parking_lot::Mutex<std::collections::BTreeMap<String, Vec<Info>>>,
    /// The rendezvous files tools find this server by (tool or system
    /// support); removed with the server.
    _tool_files: Option<crate::net::tool_files::ToolFiles>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("uri", &self.uri).finish()
    }
}
