//! A participant's call entering the engine: the tracker decides, and what
//! it decides at once is acted on here, the same for every kind.
//!
//! Invariant: a call gets exactly one of: a refusal, a failure (the
//! collective's, at once), a place among the collective's arrivals (it is
//! answered at the collective's end), or, as the last expected arrival,
//! the collective's start.

use std::collections::BTreeSet;

use super::failure;
use super::host_link::{start, Rules};
use super::{Arrival, Call};
use crate::server::clients::connections::{Caller, Connections};
use crate::server::registry::Registry;
use crate::server::state::{is_tool, State};
use crate::Proc;

/// `proc` calls `call` on `caller`, a collective whose kind's rules are
/// `rules`: enters it on the tracker, answers what is decided at once (a
/// refusal, a failure), and starts the collective once every local
/// participant is in.
pub(in crate::server) fn enter(
    st: &mut State,
    caller: Caller,
    proc: &Proc,
    call: Call,
    rules: &dyn Rules,
) {
    let kind = call.kind;
    let registry = st.registry().clone();
    let (collectives, conns, timers) = st.collectives_with_conns();
    let a = collectives.arrive(
        caller,
        proc,
        call,
        |set| local_participants(&registry, conns, set),
        |p| conns.departed(p),
        timers,
    );
    match a {
        Arrival::Waiting => {}
        Arrival::Ready(cid) => start(st, cid, rules),
        Arrival::Refused(s) => failure::refuse(st, kind, caller, s),
        Arrival::Fail(cid, s) => failure::failed(st, cid, s),
        Arrival::Late(cid, s) => failure::late(st, cid, caller, s),
    }
}

/// The participants of `set` served here: the local ranks of registered
/// namespaces, and the tools connected here (a tool may take part in a
/// connect with a job).
fn local_participants(registry: &Registry, conns: &Connections, set: &[Proc]) -> BTreeSet<Proc> {
    let mut local = registry.local_participants(set);
    local.extend(set.iter().filter(|p| is_tool(registry, conns, p)).cloned());
    local
}
