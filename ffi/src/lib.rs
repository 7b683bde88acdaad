//! The C ABI of the PMIx library (`libpmix.so.2`).
//!
//! This crate only converts between C structures and the core crate's types;
//! it holds no protocol or datastore logic. Every exported function goes
//! through the discipline of [`boundary`].

pub mod api;
pub mod boundary;
pub mod convert;
mod os;
pub mod sys;
