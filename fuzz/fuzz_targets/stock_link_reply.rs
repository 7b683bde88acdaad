//! Arbitrary bytes from an OpenPMIx server, as our client's stock link
//! reads them: framed by `pmix::openpmix::header::FrameReader` (the
//! client's side, split at input-chosen points), then each frame's payload
//! through every decoder of the link (`pmix::client::stock_link_decode`:
//! the handshake's reply, the init reply, a notification, a get's reply,
//! the service replies), in the v41, v4 or v3 format, non-described or
//! fully described. Input: a selector byte (its format bits as
//! `pmix::codec::Format::from_fuzz_selector` reads them — bit 0: v4,
//! bit 1: described, bit 6: v3 —; the bits above bit 1: the split step),
//! then the bytes. Nothing may panic or allocate
//! beyond the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmix::codec::Format;
use pmix::openpmix::header::FrameReader;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let format = Format::from_fuzz_selector(sel);
    let nspace = pmix::Nspace::new("seed-ns").expect("a valid namespace");
    // The bytes whole, as one payload.
    let _ = pmix::client::stock_link_decode(format, &nspace, bytes);
    let step = 1 + usize::from(sel >> 2);
    let mut reader = FrameReader::new(1 << 16);
    for piece in bytes.chunks(step) {
        if reader.push(piece).is_err() {
            break;
        }
    }
    while let Some(frame) = reader.next_frame() {
        assert!(frame.payload.len() <= bytes.len());
        let _ = pmix::client::stock_link_decode(format, &nspace, &frame.payload);
    }
});
