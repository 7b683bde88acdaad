//! The collective engine: every collective the server runs (fence,
//! connect, disconnect, group construct and destruct) is tracked, handed
//! to the host, timed out, failed and reported here, once for every kind.
//! A kind supplies only its host call and what its success does
//! ([`Rules`]); everything else is the engine's.
//!
//! A collective is found by its kind and its participant set (or, for a
//! group, its id): the local processes that call it join the same one
//! ([`tracker`], [`arrival`]). Once every local participant arrived it
//! goes to the host, once for this node ([`host_link`], [`host_call`]),
//! and ends with the host's answer, or earlier with a failure
//! ([`failure`]).
//!
//! Invariants:
//! - Every participant that arrived is answered exactly once: with the
//!   collective's result by its kind's [`Rules::succeeded`], or with its
//!   kind's failure answer ([`Kind::failure`]) when it fails, or at once
//!   on arrival if it had failed already.
//! - A collective fails before reaching the host when an expected
//!   participant departs (unless the collective tolerates it) or its
//!   deadline passes; at the host, the host's answer or the deadline ends
//!   it. Its deadline is armed in the loop's timers exactly while it is
//!   active and not failed.
//! - The host's immediate answer means the same for every kind:
//!   `PMIX_OPERATION_SUCCEEDED` completes it now, successfully, with
//!   nothing from the host (as OpenPMIx 4.2.2's server does);
//!   `PMIX_ERR_NOT_SUPPORTED` completes it here when its participants are
//!   all served here (and the kind allows it); any other error fails it.
//! - The engine never reaches a kind but through the [`Rules`] it is
//!   handed ([`dispatch`] maps a kind to its rules for the loop and the
//!   departures), so the kinds use the engine and not the other way.

mod arrival;
mod dispatch;
mod failure;
mod group_state;
mod host_call;
mod host_link;
mod kind;
mod tracker;

#[cfg(test)]
mod tests;

pub(super) use arrival::enter;
pub(super) use dispatch::{host_done, start_any};
pub(super) use failure::{departed, failed, refuse, retire_all};
pub(super) use group_state::{GroupCall, GroupFlags};
pub(super) use host_call::{HostCall, Outcome};
pub(super) use host_link::{start, Plan, Rules};
pub(super) use kind::Kind;
pub(super) use tracker::{normalize, Arrival, Call, Collective, Collectives, Failure, Stage};
