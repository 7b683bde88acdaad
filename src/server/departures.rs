//! What a process's departure ends, in order: the state's fan-out
//! (waiters, the host and the server's handlers; see [`State::departed`]),
//! the groups it belongs to and the group collectives it leads or whose
//! verdict they wait for (see `groups::collective::departed`), then every
//! collective that expects it, whatever its kind (the collective engine's
//! `departed`), the invitations it leads or was sent, and the monitors
//! it asked for.
//!
//! Processes also depart when the host deregisters them (alone, or with
//! their namespace): whatever still expects them ends first, then the
//! rooms forget them (see [`deregistered`], [`nspace_deregistered`]).

use super::state::State;
use super::{collective, groups, monitor};
use crate::{Nspace, Proc};

/// `proc` departed (`finalized`, or its connection was lost).
pub(super) fn departed(st: &mut State, proc: &Proc, finalized: bool) {
    st.departed(proc, finalized);
    groups::collective::departed(st, proc, finalized);
    for cid in collective::departed(st, proc, finalized) {
        collective::start_any(st, cid);
    }
    groups::members::departed(st, proc);
    monitor::service::departed(st, proc);
}

/// Fans out the departures of connections closed since the last call.
pub(super) fn fan_out(st: &mut State) {
    while let Some(d) = st.conns_mut().take_departure() {
        departed(st, &d.0, false);
    }
}

/// The host deregistered client `proc`. A connected one is disconnected
/// (its departure fans out as a lost connection's, unless it finalized);
/// one that never connected departs as a finalized one does: what
/// expects it fails, but neither the host nor the server's handlers hear
/// of a lost connection. Then every room forgets it.
pub(super) fn deregistered(st: &mut State, proc: &Proc) {
    if st.conns_mut().deregistered(proc) {
        departed(st, proc, true);
    }
    fan_out(st);
    let failed = st.collectives().failed_with(proc);
    st.client_gone(proc);
    collective::retire_all(st, failed);
}

/// The host deregistered namespace `ns` (its clients were deregistered
/// just before, see [`deregistered`]). Its processes that some collective
/// still expects without their having been clients here depart first, as
/// there; then every room forgets the namespace.
pub(super) fn nspace_deregistered(st: &mut State, ns: &Nspace) {
    for p in st.collectives().expecting_of(ns) {
        if st.conns_mut().deregistered(&p) {
            departed(st, &p, true);
        }
    }
    fan_out(st);
    st.nspace_gone(ns);
    let failed = st.collectives().failed();
    collective::retire_all(st, failed);
}
