//! I/O forwarding on the server: the requests of `PMIx_IOF_pull`,
//! `PMIx_IOF_deregister` and `PMIx_IOF_push`, and delivery of output to
//! requesters ([`service`]), over the room of the progress thread's state
//! that holds registrations, outboxes and the early cache ([`room`]).
//!
//! Invariants:
//! - Only the progress thread touches the room.
//! - Within one channel of one source, chunks reach a requester in order.

pub(super) mod room;
pub(super) mod service;
