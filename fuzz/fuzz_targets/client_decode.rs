//! Every message a client decodes from its server, as arbitrary bytes:
//! frames through a real socket (header checks, descriptors counted
//! against the segments a message lists, reassembly across writes), each
//! kind's body, and every inner body a client decodes: a direct-modex
//! blob, an event, forwarded output, and the response of every service
//! (lookup, query, lists, credentials, spawn's namespace, group results).
//! Decoding must return, never panic or allocate beyond the input; what
//! decodes must re-encode to bytes that decode the same. Input layout:
//! see `shared/wire.rs`.
#![no_main]

#[path = "shared/wire.rs"]
mod wire;

use libfuzzer_sys::fuzz_target;
use pmix::wire::{blob, group, iof, process_mgmt, pubsub, rm, Frame, Message};

/// Decodes `body` with the `sel`-th decoder of a client's inner bodies.
fn inner(sel: u8, body: &[u8]) {
    match sel % 10 {
        0 => drop(blob::decode(body)),
        1 => drop(pmix::events::decode_event(body)),
        2 => drop(iof::Delivery::decode(body)),
        3 => drop(pubsub::decode_lookup_reply(body)),
        4 => drop(rm::get_query_answer(body)),
        5 => drop(rm::get_list(body)),
        6 => drop(rm::get_credential(body)),
        7 => drop(process_mgmt::decode_nspace(body)),
        8 => drop(group::decode_result(body)),
        _ => drop(group::decode_endpoints(body)),
    }
}

/// A client's end.
struct Client;

impl wire::End for Client {
    const SERVER: bool = false;

    fn frame(f: &Frame) {
        assert!(
            !f.header.kind.from_client(),
            "a client frame reached a client"
        );
        if let Ok(m) = f.message() {
            assert_eq!(m.fd_count(), f.fds.len(), "descriptors miscounted");
            Self::message(&m);
        }
    }

    /// Checked, and its inner body decoded as the client would (a
    /// response's by every service's decoder: which one applies depends
    /// on the request it answers).
    fn message(m: &Message) {
        wire::round_trip(m);
        match m {
            Message::DmodexReply(d) => inner(0, &d.data),
            Message::Event(b) => inner(1, b),
            Message::Iof(b) => inner(2, b),
            Message::Response(r) => (3..10).for_each(|s| inner(s, &r.body)),
            _ => {}
        }
    }

    fn inner(sel: u8, bytes: &[u8]) {
        inner(sel, bytes);
    }
}

fuzz_target!(|data: &[u8]| wire::run::<Client>(data));
