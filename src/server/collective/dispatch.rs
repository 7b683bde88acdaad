//! Each kind's rules, for whoever starts or completes a collective it did
//! not enter itself (the loop, departures, group membership changes); the
//! engine never reaches a kind but through the rules it is handed.

use super::host_link::{self, Rules};
use super::Kind;
use crate::server::connect;
use crate::server::groups;
use crate::server::host::OpResult;
use crate::server::modex::fence;
use crate::server::state::State;

/// The rules of `kind`.
fn rules(kind: Kind) -> &'static dyn Rules {
    match kind {
        Kind::Fence => &fence::Fence,
        Kind::Connect | Kind::Disconnect => &connect::ConnectOrDisconnect,
        Kind::GroupConstruct | Kind::GroupDestruct => &groups::collective::Group,
    }
}

/// Starts collective `cid`, whose local participants are all in (see
/// [`host_link::start`]).
pub(in crate::server) fn start_any(st: &mut State, cid: u64) {
    if let Some(kind) = st.collectives().get(cid).map(|c| c.kind()) {
        host_link::start(st, cid, rules(kind));
    }
}

/// The host completed collective `cid` (see [`host_link::host_done`]).
pub(in crate::server) fn host_done(st: &mut State, cid: u64, result: OpResult) {
    if let Some(kind) = st.collectives().get(cid).map(|c| c.kind()) {
        host_link::host_done(st, cid, result, rules(kind));
    }
}
