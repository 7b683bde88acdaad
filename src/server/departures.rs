//! What a process's departure ends, in order: the state's fan-out
//! (waiters, fence/connect collectives, the host and the server's
//! handlers; see [`State::departed`]), then the group collectives it was
//! expected in, the groups it belongs to, and the invitations it leads or
//! was sent.

use super::state::State;
use super::{group_collective, group_members};
use crate::Proc;

/// `proc` departed (`finalized`, or its connection was lost).
pub(super) fn departed(st: &mut State, proc: &Proc, finalized: bool) {
    st.departed(proc, finalized);
    group_collective::departed(st, proc, finalized);
    group_members::departed(st, proc);
}
