//! PMIx — the Process Management Interface for Exascale — in Rust.
//!
//! This crate is the core library: the data model ([`Value`], [`Info`],
//! [`Proc`], [`Status`], key constants), the data-buffer codec that packs
//! and unpacks every PMIx data type, and (as later issues land) the client,
//! server and tool. The C ABI lives in the `pmix-ffi` crate and only
//! converts between C structures and the types defined here.

pub mod attributes;
pub(crate) mod barrier;
pub mod client;
pub mod codec;
pub mod compare;
pub mod data_type;
pub mod event_names;
pub mod events;
pub mod group;
pub mod info;
pub mod job;
pub mod keys;
pub mod locality;
pub mod net;
pub mod openpmix;
pub mod print;
pub mod proc;
pub mod regex;
pub mod server;
pub mod status;
pub mod strings;
mod sys;

/// The one helper with which the crate's private `sys` module checks its
/// calls to the OS, for the package's own binaries (`pmixrun`), whose
/// `sys` modules call the OS the same way.
#[doc(hidden)]
pub mod os_call {
    pub use crate::sys::{cvt, Fallible};
}

#[cfg(any(test, feature = "test-support"))]
#[doc(hidden)]
pub mod testing;
pub mod value;
pub mod wire;

pub use data_type::DataType;
pub use info::{Info, InfoDirectives};
pub use proc::{Key, Nspace, Proc, Rank, MAX_KEYLEN, MAX_NSLEN};
pub use status::{Result, Status};
pub use value::Value;
