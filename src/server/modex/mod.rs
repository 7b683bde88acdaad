//! Posted data on the server: what local processes committed and the
//! modex generations built from it ([`committed`], [`store`], the
//! `ModexStore` room), `PMIx_Fence` ([`fence`], a kind of the collective
//! engine, which builds a generation), and direct modex: requests for a
//! process's data from local clients and from the host ([`dmodex`]) and
//! who waits for it ([`waiters`], the `Waiters` room).
//!
//! Invariants:
//! - Only the progress thread touches committed data, generations and
//!   waiters.
//! - Every waiter ends: answered, timed out, or its requester gone.

pub(super) mod committed;
pub(super) mod dmodex;
pub(super) mod fence;
pub(super) mod store;
pub(super) mod waiters;
