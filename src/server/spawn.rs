//! `PMIx_Spawn` on the server: the request is decoded and handed to the
//! host's [`HostModule::spawn`](super::HostModule::spawn) with the
//! requestor; the host's namespace is the answer. Without the callback the
//! client's spawn fails with `PMIX_ERR_NOT_SUPPORTED`. A spawn by the
//! server's own process ([`Server::spawn_nb`](crate::server::Server::spawn_nb)) goes to the same upcall,
//! the server being the requestor.
//!
//! As the standard requires, the job infos the host receives carry, besides
//! the caller's, `PMIX_SPAWNED` (true), `PMIX_PARENT_ID` (the requestor),
//! `PMIX_REQUESTOR_IS_CLIENT` (true) and `PMIX_REQUESTOR_IS_TOOL` (false),
//! unless the caller gave them.
//!
//! Invariant: the host gets the required attributes exactly once (the
//! caller's own win), and every spawn request gets one answer.

use super::clients::connections::Caller;
use super::query::Tap;
use super::state::State;
use crate::value::App;
use crate::wire::process_mgmt;
use crate::{keys, Info, Key, Nspace, Proc, Status, Value};

/// Appends the attributes the library adds to a spawn request.
fn add_required(infos: &mut Vec<Info>, requestor: &Proc) {
    let required = [
        (keys::SPAWNED, Value::Bool(true)),
        (keys::PARENT_ID, Value::Proc(requestor.clone())),
        (keys::REQUESTOR_IS_CLIENT, Value::Bool(true)),
        (keys::REQUESTOR_IS_TOOL, Value::Bool(false)),
    ];
    for (k, v) in required {
        if infos.iter().any(|i| i.key.as_bytes() == k.as_bytes()) {
            continue;
        }
        if let Ok(key) = Key::new(k) {
            infos.push(Info::new(key, v));
        }
    }
}

/// Handles a [`crate::wire::Op::SPAWN`] request from `proc`.
pub(super) fn serve(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    let (mut infos, apps) = match process_mgmt::decode_spawn(body) {
        Ok(x) => x,
        Err(s) => return st.respond(caller, Err(s)),
    };
    add_required(&mut infos, proc);
    spawn_for(st, caller, proc, infos, apps, None);
}

/// Hands `proc`'s spawn request to the host, answering `caller` and
/// `tap` (see [`super::query`]).
pub(super) fn spawn_for(
    st: &mut State,
    caller: Caller,
    proc: &Proc,
    infos: Vec<Info>,
    apps: Vec<App>,
    tap: Option<Tap>,
) {
    let (op, done) = st.host_op_or_fallback(caller, move |r: Result<Nspace, Status>| {
        let r = r.and_then(|ns| process_mgmt::encode_nspace(&ns));
        if let Some(t) = tap {
            t(&r);
        }
        r
    });
    let host = st.host();
    if let Err(s) = host.spawn(proc, &infos, &apps, done) {
        st.finish_service(op, Err(s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Nspace, Rank};

    #[test]
    fn the_required_attributes_are_added_once() {
        let p = Proc::new(Nspace::new("parent").unwrap(), Rank(2));
        let mut infos = vec![Info::new(
            Key::new(keys::SPAWNED).unwrap(),
            Value::Bool(false),
        )];
        add_required(&mut infos, &p);
        assert_eq!(infos.len(), 4);
        assert_eq!(infos[0].value, Value::Bool(false));
        let parent = infos
            .iter()
            .find(|i| i.key.as_bytes() == keys::PARENT_ID.as_bytes());
        assert_eq!(parent.map(|i| &i.value), Some(&Value::Proc(p)));
    }
}
