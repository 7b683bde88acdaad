//! How long the bridge waits for a stock server's reply, so that no call
//! on the link waits forever (PRRTE, for one, never answers a client's
//! `PMIx_IOF_push`):
//!
//! - a request whose directives carry `PMIX_TIMEOUT`: that long and
//!   [`GRACE`] more (the server's own timeout answer, if it sends one,
//!   comes first);
//! - else a request the server answers without waiting for other
//!   processes (finalize, another namespace's data, event notification and
//!   registration, publish, unpublish, query, log, job control,
//!   monitoring, allocation, session control, credentials, IOF pull, push
//!   and deregistration): [`REPLY_BOUND`];
//! - else (fence, get of a peer's posted data, lookup, connect, disconnect,
//!   spawn, group construct, destruct and leave, abort): until the server
//!   answers or closes, as with OpenPMIx's own client and with our server.
//!
//! When a wait ends the client hears `PMIX_ERR_TIMEOUT`, and the late
//! reply, if one comes, is dropped.

use std::time::Duration;

use crate::wire::iof::{Deregister, Pull, Push};
use crate::wire::{group, process_mgmt, pubsub, rm, Directives, Message, Op};
use crate::Info;

/// How long a request the server answers at once may wait: as long as
/// init may (see [`super::INIT_BOUND`]).
pub const REPLY_BOUND: Duration = super::INIT_BOUND;

/// What a request with `PMIX_TIMEOUT` waits beyond it.
pub const GRACE: Duration = Duration::from_secs(2);

/// The wait for the reply to `msg` (`None`: until the server answers or
/// closes).
pub(super) fn for_message(msg: &Message) -> Option<Duration> {
    match msg {
        Message::FenceRequest(r) => timeout_in(&r.infos),
        Message::DmodexRequest(r) => timeout_in(&r.infos),
        Message::Abort(_) => None,
        Message::Request(r) => for_request(r.op, &r.body),
        _ => Some(REPLY_BOUND),
    }
}

/// The wait for the reply to a service request `op` with `body`.
pub(super) fn for_request(op: Op, body: &[u8]) -> Option<Duration> {
    let directives = |r: Option<Vec<Info>>| r.unwrap_or_default();
    let (infos, waits_for_others) = match op {
        Op::PUBLISH => (directives(pubsub::decode_publish(body).ok()), false),
        Op::UNPUBLISH => (
            directives(pubsub::decode_unpublish(body).ok().map(|(_, i)| i)),
            false,
        ),
        Op::LOOKUP => (
            directives(pubsub::decode_lookup(body).ok().map(|(_, i)| i)),
            true,
        ),
        Op::LOG => (
            directives(rm::get_two_lists(body).ok().map(|(_, d)| d)),
            false,
        ),
        Op::JOB_CONTROL => (
            directives(rm::get_job_control(body).ok().map(|(_, d)| d)),
            false,
        ),
        Op::MONITOR => (
            directives(rm::get_monitor(body).ok().map(|(_, _, d)| d)),
            false,
        ),
        Op::ALLOCATE => (
            directives(rm::get_allocate(body).ok().map(|(_, i)| i)),
            false,
        ),
        Op::SESSION_CONTROL => (
            directives(rm::get_session_control(body).ok().map(|(_, d)| d)),
            false,
        ),
        Op::CONNECT | Op::DISCONNECT => (
            directives(process_mgmt::decode_collective(body).ok().map(|(_, i)| i)),
            true,
        ),
        Op::SPAWN => (
            directives(process_mgmt::decode_spawn(body).ok().map(|(j, _)| j)),
            true,
        ),
        Op::GROUP_CONSTRUCT => (
            directives(group::decode_construct(body).ok().map(|(_, _, d)| d)),
            true,
        ),
        Op::GROUP_DESTRUCT | Op::GROUP_LEAVE => (
            directives(group::decode_id(body).ok().map(|(_, d)| d)),
            true,
        ),
        Op::IOF_PULL => (
            directives(Pull::decode(body).ok().map(|p| p.directives)),
            false,
        ),
        Op::IOF_PUSH => (
            directives(Push::decode(body).ok().map(|p| p.directives)),
            false,
        ),
        Op::IOF_DEREGISTER => (
            directives(Deregister::decode(body).ok().map(|d| d.directives)),
            false,
        ),
        _ => (Vec::new(), false),
    };
    timeout_in(&infos).or((!waits_for_others).then_some(REPLY_BOUND))
}

/// `PMIX_TIMEOUT` among `infos`, and the grace.
fn timeout_in(infos: &[Info]) -> Option<Duration> {
    Directives::parse_for(infos, crate::wire::directives::TIMEOUT_ONLY)
        .timeout
        .map(|t| t + GRACE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::FenceRequest;
    use crate::{Key, Value};

    fn timeout(secs: i32) -> Info {
        Info::new(Key::new(crate::keys::TIMEOUT).unwrap(), Value::Int(secs))
    }

    #[test]
    fn replies_the_server_gives_at_once_are_bounded_collectives_only_by_their_timeout() {
        let push = |directives: Vec<Info>| {
            Push {
                targets: vec![crate::Proc::new(
                    crate::Nspace::new("job").unwrap(),
                    crate::Rank(0),
                )],
                directives,
                data: Some(b"x".to_vec()),
            }
            .encode()
            .unwrap()
        };
        assert_eq!(for_request(Op::IOF_PUSH, &push(vec![])), Some(REPLY_BOUND));
        assert_eq!(
            for_request(Op::IOF_PUSH, &push(vec![timeout(1)])),
            Some(Duration::from_secs(1) + GRACE)
        );
        assert_eq!(for_request(Op::QUERY, &[]), Some(REPLY_BOUND));
        let connect = process_mgmt::encode_collective(&[], &[]).unwrap();
        assert_eq!(for_request(Op::CONNECT, &connect), None);
        let fence = |infos| {
            for_message(&Message::FenceRequest(FenceRequest {
                procs: vec![],
                infos,
            }))
        };
        assert_eq!(fence(vec![]), None);
        assert_eq!(
            fence(vec![timeout(5)]),
            Some(Duration::from_secs(5) + GRACE)
        );
        assert_eq!(for_message(&Message::Finalize), Some(REPLY_BOUND));
    }
}
