//! Every message the server decodes from a client, as arbitrary bytes:
//! frames through a real socket (header checks, body limits, descriptors
//! a server never accepts, reassembly across writes), each kind's body,
//! and the body of every service request by operation number (publish,
//! lookup, query, log, job control, spawn, connect, events, groups, IOF,
//! credentials), plus what the server decodes from its host (a modex
//! blob, group endpoints). Decoding must return, never panic or allocate
//! beyond the input; what decodes must re-encode to bytes that decode
//! the same. Input layout: see `shared/wire.rs`.
#![no_main]

#[path = "shared/wire.rs"]
mod wire;

use libfuzzer_sys::fuzz_target;
use pmix::wire::{blob, group, iof, process_mgmt, pubsub, rm, Frame, Message, Op};

/// The operations a server decodes, in the order byte 1 selects them
/// (the protocol's numbers, then an unknown one).
const OPS: [u16; 24] = [
    1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 999,
];

/// Decodes `body` as the request of operation `op` as the server does.
fn request_body(op: Op, body: &[u8]) {
    match op {
        Op::PUBLISH => drop(pubsub::decode_publish(body)),
        Op::LOOKUP => drop(pubsub::decode_lookup(body)),
        Op::UNPUBLISH => drop(pubsub::decode_unpublish(body)),
        Op::QUERY => drop(rm::get_queries(body)),
        Op::LOG => drop(rm::get_two_lists(body)),
        Op::JOB_CONTROL => drop(rm::get_job_control(body)),
        Op::MONITOR => drop(rm::get_monitor(body)),
        Op::NOTIFY_EVENT => drop(pmix::events::decode_event(body)),
        Op::SPAWN => drop(process_mgmt::decode_spawn(body)),
        Op::CONNECT | Op::DISCONNECT => drop(process_mgmt::decode_collective(body)),
        Op::GROUP_CONSTRUCT | Op::GROUP_INVITE => drop(group::decode_construct(body)),
        Op::GROUP_DESTRUCT | Op::GROUP_LEAVE => drop(group::decode_id(body)),
        Op::GROUP_JOIN => drop(group::decode_join(body)),
        Op::GROUP_VERDICT => drop(group::decode_verdict(body)),
        Op::ALLOCATE => drop(rm::get_allocate(body)),
        Op::GET_CREDENTIAL => drop(rm::get_list(body)),
        Op::VALIDATE_CREDENTIAL => drop(rm::get_credential(body)),
        Op::IOF_PULL => drop(iof::Pull::decode(body)),
        Op::IOF_PUSH => drop(iof::Push::decode(body)),
        Op::IOF_DEREGISTER => drop(iof::Deregister::decode(body)),
        _ => {}
    }
}

/// The server's end.
struct Server;

impl wire::End for Server {
    const SERVER: bool = true;

    fn frame(f: &Frame) {
        assert!(
            f.header.kind.from_client(),
            "a server frame reached the server"
        );
        assert!(f.fds.is_empty(), "a server accepted descriptors");
        if let Ok(m) = f.message() {
            Self::message(&m);
        }
    }

    /// Checked, and its inner body decoded.
    fn message(m: &Message) {
        wire::round_trip(m);
        if let Message::Request(q) = m {
            request_body(q.op, &q.body);
        }
    }

    /// A request by operation, or a body from the host.
    fn inner(sel: u8, bytes: &[u8]) {
        match usize::from(sel) % (OPS.len() + 2) {
            i if i < OPS.len() => request_body(Op(OPS[i]), bytes),
            i if i == OPS.len() => drop(blob::decode(bytes)),
            _ => drop(group::decode_endpoints(bytes)),
        }
    }
}

fuzz_target!(|data: &[u8]| wire::run::<Server>(data));
