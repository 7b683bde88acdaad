//! Which collective a call is: the kinds the engine runs, and what a
//! participant is told when one fails.

use crate::wire::{FenceRelease, Message, Response};
use crate::Status;

/// Which collective.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(in crate::server) enum Kind {
    Fence,
    Connect,
    Disconnect,
    GroupConstruct,
    GroupDestruct,
}

impl Kind {
    /// The answer to a participant when the collective fails with
    /// `status` (or its call is refused).
    pub(in crate::server) fn failure(self, status: Status) -> Message {
        match self {
            Kind::Fence => Message::FenceRelease(FenceRelease {
                status,
                segments: Vec::new(),
            }),
            _ => Message::Response(Response {
                status,
                body: Vec::new(),
            }),
        }
    }

    /// The status a participant's loss fails the collective with.
    pub(in crate::server) fn lost(self) -> Status {
        match self {
            Kind::GroupConstruct => crate::group::events::CONSTRUCT_ABORT,
            _ => Status::ERR_LOST_CONNECTION,
        }
    }
}
