//! Posted data on request: commits, and direct-modex requests from local
//! clients (`DmodexRequest`) and from the host (`dmodex_request`).
//!
//! A request for a local process is answered from its committed data, or
//! waits for its first commit (unless `PMIX_IMMEDIATE`, or it departed:
//! `PMIX_ERR_NOT_FOUND`); one for a remote process goes to the host's
//! `direct_modex`, once per process however many wait for it (a host
//! without it: `PMIX_ERR_NOT_FOUND`). A client sees what local peers may
//! see (`PMIX_LOCAL`, `PMIX_GLOBAL`), the host what other nodes may see.
//! A waiter's `PMIX_TIMEOUT` ends its wait with `PMIX_ERR_TIMEOUT`.
//!
//! A commit may complete the job's next modex generation: it is then
//! built at once, and offered to the job's processes when it has a
//! barrier page (see `modex::store`).
//!
//! Invariant: every request is answered exactly once (data,
//! `PMIX_ERR_NOT_FOUND`, `PMIX_ERR_TIMEOUT`, or the host's error), and a
//! host's `direct_modex` is asked at most once per remote process at a
//! time.

use std::collections::BTreeSet;
use std::os::fd::OwnedFd;

use pmix_shmem::Scopes;

use super::store::NewGenerations;
use super::waiters::WaiterTo;
use crate::server::clients::connections::Caller;
use crate::server::host::{take_result, DmodexCallback, OpResult};
use crate::server::ops::PendingOp;
use crate::server::state::State;
use crate::server::timers::TimerKey;
use crate::wire::{Directives, DmodexRequest, Message, ModexOffer, Posted};
use crate::{Proc, Rank, Status};

/// `proc` committed `items`.
pub(in crate::server) fn commit(st: &mut State, proc: &Proc, items: Vec<Posted>) {
    st.modex_mut().commit(proc, items);
    st.release_local_waiters(proc);
    // The next collecting fence's generation, built while the processes
    // still compute (see `modex::store`); offered to them at once when
    // their job has a barrier page.
    let registry = st.registry().clone();
    let Some(rec) = registry.nspace(&proc.nspace) else {
        return;
    };
    let wildcard = [Proc::new(proc.nspace.clone(), Rank::WILDCARD)];
    let offered = st.modex_mut().speculate(
        &proc.nspace,
        rec.all_local(),
        rec.barrier().is_some(),
        || registry.local_participants(&wildcard),
        || registry.next_generation(),
    );
    if let Some((local, gens)) = offered {
        offer(st, &local, &gens);
    }
}

/// Offers the generations `gens`, kept ahead of their fence, to `local`,
/// each told how many of its commits they cover. OpenPMIx clients at the
/// door get none (their gets ask the server).
fn offer(st: &mut State, local: &BTreeSet<Proc>, gens: &NewGenerations) {
    for p in local {
        let Some(token) = st.conns().token_of(p) else {
            continue;
        };
        if st.conns().is_stock(token) {
            continue;
        }
        let fds: Result<Vec<OwnedFd>, _> = gens
            .sealed
            .iter()
            .map(|s| s.fd().try_clone_to_owned())
            .collect();
        // Without its descriptors the process's fence goes through the
        // server, whose release then publishes the kept generations.
        let Ok(fds) = fds else {
            continue;
        };
        let m = Message::ModexOffer(ModexOffer {
            commits: st.modex().commit_count(p),
            segments: gens.refs.clone(),
        });
        st.conns_mut().send(token, 0, &m, fds);
    }
}

/// A local client's request for `req.proc`'s data.
pub(in crate::server) fn client_request(st: &mut State, caller: Caller, req: DmodexRequest) {
    let d = Directives::parse_for(&req.infos, crate::wire::directives::GET);
    let target = req.proc;
    if target.rank.0 > Rank::VALID.0 {
        return st.reply_dmodex(caller, Err(Status::ERR_BAD_PARAM));
    }
    let dl = d.deadline();
    let to = WaiterTo::Client(caller);
    let id = if st.registry().is_local(&target) {
        if let Some(r) = st.modex().record(&target, Scopes::LOCAL_PEER) {
            return st.reply_dmodex(caller, r);
        }
        if st.conns().departed(&target) || d.immediate {
            return st.reply_dmodex(caller, Err(Status::ERR_NOT_FOUND));
        }
        st.waiters_mut().wait_local(target, to, dl)
    } else {
        if let Some(r) = st.modex().remote_record(&target, req.key.as_ref()) {
            return st.reply_dmodex(caller, Ok(r));
        }
        let (id, first) = st.waiters_mut().wait_remote(target.clone(), to, dl);
        if first {
            let pending = PendingOp::DirectModex(target.clone());
            let (_, r) = st.upcall(pending, |h, done| h.direct_modex(&target, &req.infos, done));
            if let Err(s) = r {
                let s = if s == Status::ERR_NOT_SUPPORTED {
                    Status::ERR_NOT_FOUND
                } else {
                    s
                };
                return remote_answer(st, &target, Err(s));
            }
        }
        id
    };
    if let Some(dl) = dl {
        st.timers_mut().set(dl, TimerKey::Waiter(id));
    }
}

/// The host's request for local `proc`'s data.
pub(in crate::server) fn host_request(st: &mut State, proc: Proc, done: DmodexCallback) {
    if !st.registry().is_local(&proc) {
        return done(Err(Status::ERR_NOT_FOUND));
    }
    if let Some(r) = st.modex().record(&proc, Scopes::REMOTE_PEER) {
        return done(r);
    }
    if st.conns().departed(&proc) {
        return done(Err(Status::ERR_NOT_FOUND));
    }
    st.waiters_mut()
        .wait_local(proc, WaiterTo::Host(done), None);
}

/// The host's `direct_modex` about remote `proc` completed.
pub(in crate::server) fn host_answer(st: &mut State, proc: &Proc, result: OpResult) {
    remote_answer(st, proc, take_result::<Vec<u8>>(result));
}

fn remote_answer(st: &mut State, proc: &Proc, r: Result<Vec<u8>, Status>) {
    for w in st.waiters_mut().take_remote(proc) {
        st.answer_waiter(w, r.clone());
    }
}

/// Waiter `id`'s deadline passed.
pub(in crate::server) fn timed_out(st: &mut State, id: u64) {
    if let Some(w) = st.waiters_mut().take(id) {
        st.answer_waiter(w, Err(Status::ERR_TIMEOUT));
    }
}
