//! Arbitrary connect messages of OpenPMIx's protocol, as a server parses
//! them (`pmix::openpmix::handshake`): the payload after the header. The
//! parser must return, never panic; what it accepts must encode back to
//! the very same bytes and parse to the same message, and its tool infos
//! (if any) must decode or fail cleanly. The first input byte also feeds
//! the client and tool reply parsers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmix::openpmix::{ClientReply, ConnectMessage, ToolReply};

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = ConnectMessage::parse(data) {
        let again = m.encode_payload().expect("an accepted message encodes");
        assert_eq!(again, data, "re-encoding changed the bytes");
        assert_eq!(ConnectMessage::parse(&again).unwrap(), m);
        let _ = m.infos();
        let _ = m.version_numbers();
    }
    let _ = ClientReply::parse(data);
    if let Some((&sel, rest)) = data.split_first() {
        let _ = ToolReply::parse(rest, sel & 1 == 1);
    }
});
