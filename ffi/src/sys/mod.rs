//! `#[repr(C)]` mirrors of the types of `pmix_common.h` (OpenPMIx 4.2 ABI).
//!
//! Every struct, union and typedef a C caller can hand us, with the same
//! size, alignment and field offsets as the reference headers on x86_64
//! Linux (checked field by field by the `layout` test, which
//! compiles a C program against a C header and compares). Names keep their C
//! spelling so that code reading like the C API is easy to check against it;
//! a field named `type` in C is `type_` here.
//!
//! By subject: `scalars` (typedefs), `structs`, `callbacks`,
//! `constants` (generated from the reference header and checked against
//! it by the same test), [`hwloc`] and [`server`] (`pmix_server.h`); all
//! re-exported here, so `crate::sys::*` names every one.
#![allow(non_camel_case_types)]

pub use libc::{pid_t, time_t, timeval};

pub mod server;
pub use server::*;

mod callbacks;
mod constants;
pub mod hwloc;
mod scalars;
mod structs;

pub use callbacks::*;
pub use constants::*;
pub use scalars::*;
pub use structs::*;

#[cfg(test)]
pub(crate) mod c_program;
#[cfg(test)]
mod layout;
