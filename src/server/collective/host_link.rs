//! The link between a collective and the host: what a kind supplies
//! ([`Rules`]: its host call, what success does) and the one path from
//! "every local participant arrived" to the collective's end ([`start`],
//! [`host_done`]).
//!
//! Invariants:
//! - A collective goes to the host at most once, as one operation in the
//!   loop's table; it is marked at the host before the host's immediate
//!   answer is read, so a refusal fails it as the host's later answer
//!   would (its participants are answered, the host is not told of its
//!   own refusal).
//! - The host's immediate answer means, for every kind alike: `Ok`, it
//!   completes later; `PMIX_OPERATION_SUCCEEDED`, it completed now,
//!   successfully, with nothing to return (a fence brings no remote data);
//!   `PMIX_ERR_NOT_SUPPORTED` when the kind may complete here (its
//!   participants are all served by this server), it succeeds here;
//!   any other error fails it.

use super::failure;
use super::host_call::{HostCall, Outcome};
use crate::server::host::OpResult;
use crate::server::ops::PendingOp;
use crate::server::state::State;
use crate::Status;

/// What a kind of collective supplies to the engine.
pub(in crate::server) trait Rules: Sync {
    /// Every local participant of collective `cid` arrived: what the
    /// host is asked, or that it completes here; an error fails it.
    fn host_call(&self, st: &mut State, cid: u64) -> Result<Plan, Status>;

    /// Collective `cid` succeeded with `out` (what the host returned;
    /// [`Outcome::Nothing`] when it completed without the host's data):
    /// the kind ends it (see [`Collectives::finish`]) and answers every
    /// participant.
    ///
    /// [`Collectives::finish`]: super::Collectives::finish
    fn succeeded(&self, st: &mut State, cid: u64, out: Outcome);
}

/// How a collective whose local participants all arrived goes on.
pub(in crate::server) enum Plan {
    /// It completes here, successfully, without the host.
    Here,
    /// The host is asked; if it has no such call and `local` (the
    /// participants are all served here), it completes here.
    Host { call: HostCall, local: bool },
}

/// Every local participant of collective `cid` arrived: `rules` say what
/// the host is asked; the host's immediate answer is read as the module
/// doc says.
pub(in crate::server) fn start(st: &mut State, cid: u64, rules: &dyn Rules) {
    if st.collectives().get(cid).is_none() {
        return;
    }
    let (call, local) = match rules.host_call(st, cid) {
        Err(s) => return failure::failed(st, cid, s),
        Ok(Plan::Here) => return rules.succeeded(st, cid, Outcome::Nothing),
        Ok(Plan::Host { call, local }) => (call, local),
    };
    let (op, r) = call.call(st, PendingOp::Collective(cid));
    st.collectives_mut().at_host(cid, op);
    match r {
        Ok(()) => {}
        Err(s) if s == Status::OPERATION_SUCCEEDED => rules.succeeded(st, cid, Outcome::Nothing),
        Err(s) if s == Status::ERR_NOT_SUPPORTED && local => {
            rules.succeeded(st, cid, Outcome::Nothing)
        }
        Err(s) => failure::failed(st, cid, s),
    }
}

/// The host completed collective `cid` with `result`.
pub(in crate::server) fn host_done(st: &mut State, cid: u64, result: OpResult, rules: &dyn Rules) {
    let Some(kind) = st.collectives().get(cid).map(|c| c.kind()) else {
        return;
    };
    match Outcome::read(kind, result) {
        Ok(out) => rules.succeeded(st, cid, out),
        Err(s) => failure::failed(st, cid, s),
    }
}
