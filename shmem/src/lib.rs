//! Shared-memory segments for the PMIx datastore.
//!
//! The server serializes job, node, process-realm and modex data into
//! immutable rkyv archives, copies each into a sealed `memfd`, and passes the
//! descriptor to its clients, which map it read-only. This crate knows
//! nothing about sockets. (The segment writer, reader and generation
//! directory arrive with the datastore issue; see `docs/FEATURES.md`.)

/// Version of the segment format this crate writes and reads.
pub const FORMAT_VERSION: u32 = 1;
