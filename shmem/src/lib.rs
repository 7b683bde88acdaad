//! Shared-memory segments for the PMIx datastore.
//!
//! The server lays a namespace's data (session, job, application, node and
//! process realms; the data processes posted, one segment per completed
//! modex) into immutable rkyv archives ([`SegmentBuilder`]), copies each into
//! a sealed `memfd` ([`SegmentImage::seal`]) and passes the descriptor to its
//! clients, which map it read-only ([`Segment::from_fd`]) and answer gets in
//! the calling thread through a [`Directory`] of current generations:
//! no socket, no lock, no allocation, no system call.
//!
//! ```
//! use std::sync::Arc;
//! use pmix_shmem::{Directory, SegmentBuilder, StoredValue, ValueRef, RANK_WILDCARD};
//!
//! let mut b = SegmentBuilder::new("job-1").unwrap();
//! b.job("pmix.job.size", StoredValue::Uint32(2)).unwrap();
//! b.proc(1, "pmix.hname", StoredValue::string("node7")).unwrap();
//! let sealed = b.build().unwrap().seal().unwrap();
//!
//! // In the client, after receiving the descriptor:
//! let seg = Arc::new(pmix_shmem::Segment::from_fd(sealed.fd()).unwrap());
//! let dir = Directory::new();
//! dir.publish_job("job-1", seg);
//! let r = dir.reader();
//! assert!(matches!(r.get("job-1", RANK_WILDCARD, "pmix.job.size"), Some(ValueRef::Uint32(2))));
//! let host = r.get("job-1", 1, "pmix.hname").unwrap().as_c_str().unwrap();
//! assert_eq!(host.to_bytes(), b"node7");
//! ```
//!
//! The crate knows nothing about sockets, and nothing of the core crate:
//! values are [`StoredValue`]s going in and [`ValueRef`]s coming out. The
//! format is described in `docs/ARCHITECTURE.md`, "Shared-memory datastore".

#[macro_use]
mod stats;
pub mod checksum;
mod columns;
mod dict;
mod directory;
mod error;
pub mod header;
mod reader;
pub mod schema;
mod sys;
pub mod types;
mod value;
mod writer;

pub use columns::{ProcColumns, RowIndex, Scalar, NO_CHOICE};
pub use dict::LookupKey;
pub use directory::{Directory, NsHandle, NsView, Reader};
pub use error::{BuildError, Corrupt, CorruptKind, Region, SegmentError};
pub use reader::{NodeSel, Realm, RowEntries, Segment};
pub use schema::*;
pub use types::{tag, KeyId, Scope, Scopes, RANK_UNDEF, RANK_WILDCARD};
pub use value::{packed_width, ArrayRef, InteriorNul, ProcRef, ValueRef};
pub use writer::{
    SealedSegment, SegmentBuilder, SegmentImage, DEFAULT_RANK_SHIFT, MAX_KEYLEN, MAX_NSLEN,
};

/// A new empty close-on-exec memfd that cannot be sealed, for shared
/// memory other than segments (the core's job barrier page): the one way
/// the workspace makes a memfd.
pub fn memfd(name: &std::ffi::CStr) -> std::io::Result<std::os::fd::OwnedFd> {
    sys::memfd_create(name, false).map_err(|(_, e)| e)
}

/// Seals a published segment's descriptor carries (`F_SEAL_*` bits).
pub const REQUIRED_SEALS: u32 = sys::REQUIRED_SEALS;

/// Version of the segment format this crate writes and reads.
pub const FORMAT_VERSION: u32 = 1;
