//! The exported `PMIx_*` functions, grouped as the standard groups them.

pub mod buffer;
pub mod client;
pub mod data_array;
#[cfg(test)]
mod get_hot_path_tests;
pub mod info;
pub mod info_list;
pub mod locality;
pub(crate) mod pointer_cache;
pub mod regex;
pub(crate) mod scalar_cache;
pub mod server;
pub(crate) mod server_module;
pub mod strings;
pub mod tool;
pub mod value;
