//! The host calls a collective makes ([`HostCall`]: to run it, or to
//! report its failure) and what the host completes one with
//! ([`Outcome`]).
//!
//! Invariant: a call is one operation in the loop's table, resolved at once
//! if the host refuses it; a completion's value is read as its kind's
//! type, and a value of another type reads as `PMIX_ERROR`.

use super::Kind;
use crate::group::GroupOp;
use crate::server::host::{take_result, HostModule, OpResult};
use crate::server::ops::PendingOp;
use crate::server::state::State;
use crate::{Info, Proc, Status};

/// A host call a collective makes.
pub(in crate::server) enum HostCall {
    /// `fence_nb`, with this node's contribution.
    Fence {
        procs: Vec<Proc>,
        infos: Vec<Info>,
        data: Vec<u8>,
    },
    Connect {
        procs: Vec<Proc>,
        infos: Vec<Info>,
    },
    Disconnect {
        procs: Vec<Proc>,
        infos: Vec<Info>,
    },
    /// `group`, construct or destruct.
    Group {
        op: GroupOp,
        id: String,
        procs: Vec<Proc>,
        infos: Vec<Info>,
    },
}

impl HostCall {
    /// Records `pending` as an operation at the host and makes the call;
    /// returns the operation's number and the host's immediate answer (on
    /// an error the operation is already resolved: its completion, if it
    /// still comes, is ignored).
    pub(super) fn call(self, st: &mut State, pending: PendingOp) -> (u64, Result<(), Status>) {
        match self {
            HostCall::Fence { procs, infos, data } => st
                .upcall::<Vec<u8>>(pending, |h: &dyn HostModule, done| {
                    h.fence_nb(&procs, &infos, data, done)
                }),
            HostCall::Connect { procs, infos } => st
                .upcall::<()>(pending, |h: &dyn HostModule, done| {
                    h.connect(&procs, &infos, done)
                }),
            HostCall::Disconnect { procs, infos } => st
                .upcall::<()>(pending, |h: &dyn HostModule, done| {
                    h.disconnect(&procs, &infos, done)
                }),
            HostCall::Group {
                op,
                id,
                procs,
                infos,
            } => st.upcall::<Vec<Info>>(pending, |h: &dyn HostModule, done| {
                h.group(op, &id, &procs, &infos, done)
            }),
        }
    }
}

/// What a collective succeeded with.
pub(in crate::server) enum Outcome {
    /// Nothing: it completed here, or the host completed it at once
    /// (`PMIX_OPERATION_SUCCEEDED`), or its call returns no value.
    Nothing,
    /// A fence's contributions of every node.
    Data(Vec<u8>),
    /// A group call's results.
    Infos(Vec<Info>),
}

impl Outcome {
    /// Reads the host's completion of a `kind` collective's call (each
    /// kind's completion has its own type).
    pub(super) fn read(kind: Kind, r: OpResult) -> Result<Outcome, Status> {
        match kind {
            Kind::Fence => take_result::<Vec<u8>>(r).map(Outcome::Data),
            Kind::Connect | Kind::Disconnect => take_result::<()>(r).map(|()| Outcome::Nothing),
            Kind::GroupConstruct | Kind::GroupDestruct => {
                take_result::<Vec<Info>>(r).map(Outcome::Infos)
            }
        }
    }

    /// A fence's data (empty if none came).
    pub(in crate::server) fn data(self) -> Vec<u8> {
        match self {
            Outcome::Data(d) => d,
            _ => Vec::new(),
        }
    }

    /// A group call's results (none if none came).
    pub(in crate::server) fn infos(self) -> Vec<Info> {
        match self {
            Outcome::Infos(i) => i,
            _ => Vec::new(),
        }
    }
}
