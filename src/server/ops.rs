//! The operations handed to the host and not answered yet, by number.
//!
//! Invariant: an operation is resolved at most once. Its number leaves the
//! table when it is resolved (by the host's [`Completion`], a synchronous
//! refusal, or a timeout that gave up on it), so a late or duplicate
//! answer finds nothing and is ignored.
//!
//! [`Completion`]: super::host::Completion

use std::collections::HashMap;

use super::clients::connections::Caller;
use super::host::OpResult;
use crate::{Proc, Status};

/// Turns a host's typed result into a response body.
pub(crate) type Encoder = Box<dyn FnOnce(OpResult) -> Result<Vec<u8>, Status> + Send + 'static>;

/// What waits for the host's answer.
pub(crate) enum PendingOp {
    /// `client_connected`: the handshake's answer.
    Connect(Caller),
    /// `tool_connected`: the tool handshake's answer.
    ToolConnect(Caller),
    /// `client_finalized`: the finalize's answer.
    Finalize(Caller),
    /// `abort`: the abort's answer.
    Abort(Caller),
    /// `direct_modex` about a remote process: its waiters.
    DirectModex(Proc),
    /// A collective's host call (fence, connect, disconnect).
    Collective(u64),
    /// An invitation's context id (see `groups::members`).
    GroupInvite(u64),
    /// A failure reported to the host; its answer is not needed.
    Ignored,
    /// A service request (see `services`).
    Service { caller: Caller, encoder: Encoder },
    /// A monitoring request at the host, which the library serves if the
    /// host does not (see `monitor::service`).
    Monitor(Box<super::monitor::request::Asked>),
}

/// The table of pending operations.
pub(super) struct PendingOps {
    map: HashMap<u64, PendingOp>,
    next: u64,
}

impl Default for PendingOps {
    fn default() -> Self {
        PendingOps {
            map: HashMap::new(),
            next: 1,
        }
    }
}

impl PendingOps {
    /// Counts this room's entries (see [`Census`](super::census::Census)).
    pub(super) fn count(&self, c: &mut super::census::Census) {
        c.add("ops.pending", self.map.len());
    }

    /// Records `op`; returns its number.
    pub(super) fn start(&mut self, op: PendingOp) -> u64 {
        let id = self.next;
        self.next += 1;
        self.map.insert(id, op);
        id
    }

    /// Takes operation `op` out to resolve it (or to forget it: its answer,
    /// if one comes, is then ignored).
    pub(super) fn take(&mut self, op: u64) -> Option<PendingOp> {
        self.map.remove(&op)
    }
}
