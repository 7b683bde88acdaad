//! The generic service path of the server: dispatch of [`Request`]s by
//! [`Op`] to the service that handles each. (Server API calls that need
//! the loop's state reach it with
//! [`Server::run_on_loop`](crate::server::Server::run_on_loop), in
//! `api/progress.rs`.)
//!
//! A service handler runs on the progress thread with the caller's
//! authenticated identity. It answers at once with [`State::respond`], or
//! hands the operation to the host with [`State::host_op`] and answers
//! when the host's completion arrives. Every request gets exactly one
//! response: an unknown operation is `PMIX_ERR_NOT_SUPPORTED`.
//!
//! Invariant: one response per request (see above); services reach the
//! loop's state only through `State`'s methods.

use super::clients::connections::Caller;
use super::state::State;
use super::{connect, control, events, groups, iof, pubsub, query, spawn};
use crate::wire::{Op, Request};
use crate::{Proc, Status};

/// Dispatches one service request from `proc`.
pub(super) fn dispatch(st: &mut State, caller: Caller, proc: &Proc, req: Request) {
    let body = &req.body;
    match req.op {
        Op::PUBLISH | Op::LOOKUP | Op::UNPUBLISH => pubsub::serve(st, caller, proc, &req),
        Op::QUERY => query::serve(st, caller, proc, body),
        Op::LOG => control::log(st, caller, proc, body),
        Op::JOB_CONTROL => control::job_control(st, caller, proc, body),
        Op::SESSION_CONTROL => control::session_control(st, caller, proc, body),
        Op::MONITOR => control::monitor(st, caller, proc, body),
        Op::ALLOCATE => control::allocate(st, caller, proc, body),
        Op::FABRIC => control::fabric(st, caller, proc, body),
        Op::GET_CREDENTIAL => control::get_credential(st, caller, proc, body),
        Op::VALIDATE_CREDENTIAL => control::validate_credential(st, caller, proc, body),
        Op::SPAWN => spawn::serve(st, caller, proc, body),
        Op::CONNECT | Op::DISCONNECT => connect::enter(st, caller, proc, req.op, body),
        Op::NOTIFY_EVENT => {
            groups::members::notified(st, proc, body);
            events::notify_from_client(st, caller, proc, body)
        }
        Op::GROUP_CONSTRUCT => groups::collective::construct(st, caller, proc, body),
        Op::GROUP_DESTRUCT => groups::collective::destruct(st, caller, proc, body),
        Op::GROUP_INVITE => groups::members::invite(st, caller, proc, body),
        Op::GROUP_JOIN => groups::members::join(st, caller, proc, body),
        Op::GROUP_LEAVE => groups::members::leave(st, caller, proc, body),
        Op::IOF_PULL => iof::service::pull(st, caller, proc, body),
        Op::IOF_DEREGISTER => iof::service::deregister(st, caller, proc, body),
        Op::IOF_PUSH => iof::service::push(st, caller, proc, body),
        Op::GROUP_VERDICT => groups::members::verdict(st, proc, body),
        Op(_) => st.respond(caller, Err(Status::ERR_NOT_SUPPORTED)),
    }
}
