//! Process groups on the server: the groups this server knows and the
//! invitations in progress ([`room`], a room of the progress thread's
//! state), the group collectives `PMIx_Group_construct` and
//! `PMIx_Group_destruct` ([`collective`], kinds of the collective engine)
//! and membership outside collectives: invite, join, leave
//! ([`members`]).
//!
//! Invariants:
//! - Only the progress thread touches the groups room.
//! - A group's membership changes only through a collective's completion
//!   or an answered invitation; every invitation ends (answered, timed
//!   out or its inviter gone).

pub(super) mod collective;
pub(super) mod members;
pub(super) mod room;
