//! The exported `PMIx_*` functions, grouped as the standard groups them,
//! and what they share: the library's state ([`state`]), the readers of
//! their C arguments ([`args`]) and the writers of their info results
//! ([`results`]).
//!
//! Invariant: no import circle among these modules (a module A uses B
//! and B uses A, directly or through others). They form layers: the
//! shared modules (`state`, `args`, `results`, `upcall` and the caches
//! `pointer_cache`, `scalar_cache`) use no API module but
//! `pointer_cache`, and `serving` (which connection serves a call: the
//! one place that chooses) only `state`; the bridges of the host's module functions
//! (`host_rm`, `server_pubsub`, `spawn_host`) use only `state` and
//! `upcall` (the one upcall protocol);
//! `server_module` uses those bridges; every other module uses only the
//! layers below it (`server` also `server_module`, `app_setup`,
//! `locality` and `distances`; `distances` uses `os_devices` and
//! `locality`; `fabric_view` uses `inventory` and `locality`).

pub mod app_setup;
pub mod app_string;
pub(crate) mod args;
pub mod argv;
pub mod attributes;
pub mod buffer;
pub mod client;
pub mod data_array;
pub mod distances;
pub mod error_code;
pub mod events;
pub mod fabric;
pub(crate) mod fabric_view;
pub mod families;
pub mod family_loads;
pub mod framework_names;
pub mod get;
#[cfg(test)]
mod get_hot_path_tests;
pub mod group;
pub(crate) mod host_rm;
pub mod ids;
pub mod info;
pub mod info_flags;
pub mod info_list;
pub mod inventory;
pub mod iof;
pub mod locality;
pub(crate) mod module_level;
pub(crate) mod os_devices;
pub(crate) mod pointer_cache;
pub mod pubsub;
pub mod query;
pub mod regex;
pub(crate) mod results;
pub(crate) mod scalar_cache;
pub mod server;
pub(crate) mod server_module;
pub(crate) mod server_pubsub;
pub(crate) mod serving;
pub mod sizes;
pub mod spawn;
pub(crate) mod spawn_host;
pub(crate) mod state;
pub mod strings;
pub mod tool;
pub mod truth;
pub(crate) mod upcall;
pub mod value;
