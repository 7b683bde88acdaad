//! The exported `PMIx_*` functions, grouped as the standard groups them.

pub mod app_setup;
pub mod buffer;
pub mod client;
pub mod data_array;
pub mod events;
pub(crate) mod get_all;
#[cfg(test)]
mod get_hot_path_tests;
pub(crate) mod host_rm;
pub mod info;
pub mod info_list;
pub mod locality;
pub(crate) mod pointer_cache;
pub mod pubsub;
pub mod query;
pub mod regex;
pub(crate) mod scalar_cache;
pub mod server;
pub(crate) mod server_module;
pub(crate) mod server_pubsub;
pub(crate) mod server_store;
pub mod spawn;
pub(crate) mod spawn_host;
pub mod strings;
pub mod tool;
pub mod value;
