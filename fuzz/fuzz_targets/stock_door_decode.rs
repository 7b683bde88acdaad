//! Arbitrary commands of an admitted stock peer, decoded by the door
//! (`pmix::server::door_decode`: the stock door's `inbound` translation
//! of OpenPMIx commands into our messages).
//!
//! Input layout: byte 0 selects the connect message. Bit 7 clear: the
//! well-formed one `pmix::server::door_connect` builds for it (a format —
//! v41, v4 or v3, non-described or fully described — and a kind: client,
//! tool asking for a name, named tool, singleton), so
//! the commands are decoded after an admitted handshake; bit 7 set: the connect payload
//! comes from the input (the next two bytes its length, little-endian).
//! Then commands, each a two-byte little-endian length and its payload.
//!
//! Nothing may panic, every command has one outcome (a translation our
//! own decoder would refuse is answered, as the link does), and a built
//! connect message must be admitted.
#![no_main]

use libfuzzer_sys::fuzz_target;

fn u16_at(b: &[u8]) -> Option<usize> {
    Some(usize::from(u16::from_le_bytes([*b.first()?, *b.get(1)?])))
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, mut rest)) = data.split_first() else {
        return;
    };
    let connect = if sel & 0x80 == 0 {
        pmix::server::door_connect(sel)
    } else {
        let Some(n) = u16_at(rest) else { return };
        let n = n.min(rest.len() - 2);
        let c = rest[2..2 + n].to_vec();
        rest = &rest[2 + n..];
        c
    };
    let mut commands = Vec::new();
    while let Some(n) = u16_at(rest) {
        let n = n.min(rest.len() - 2);
        commands.push(&rest[2..2 + n]);
        rest = &rest[2 + n..];
    }
    let r = pmix::server::door_decode(&connect, &commands);
    if sel & 0x80 == 0 {
        assert!(r.admitted, "a built connect message is admitted");
        assert_eq!(r.forwarded + r.answered + r.ignored, commands.len());
    }
});
