//! Arbitrary bytes on an OpenPMIx connection: framed by
//! `pmix::openpmix::header::FrameReader` (the server's side, connect
//! message first, split at input-chosen points), then each later frame's
//! payload unpacked as a request would be — its command, then items of an
//! input-chosen type — in the v41, v4 or v3 format (selector bits:
//! `pmix::codec::Format::from_fuzz_selector`), non-described or fully
//! described. Nothing may panic or allocate beyond the input; what unpacks
//! must pack back (same format) to bytes that pack the same once read.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmix::codec::{Buffer, Format};
use pmix::openpmix::header::FrameReader;
use pmix::openpmix::Command;
use pmix::DataType;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let format = Format::from_fuzz_selector(sel);
    let step = 1 + usize::from(sel >> 2);
    let mut reader = FrameReader::server(1 << 16);
    for piece in bytes.chunks(step) {
        if reader.push(piece).is_err() {
            break;
        }
    }
    let mut first = true;
    while let Some(frame) = reader.next_frame() {
        assert!(frame.payload.len() <= bytes.len());
        if std::mem::take(&mut first) {
            let _ = pmix::openpmix::ConnectMessage::parse(&frame.payload);
            continue;
        }
        let mut buf = Buffer::from_bytes(frame.payload);
        if let Ok(pmix::Value::Command(c)) = format.unpack_value(&mut buf, DataType::Command) {
            let _ = Command::try_from(c);
        }
        // A commit's nested buffers (PMIX_BUFFER), from the same bytes.
        let _ = format.unpack_buffers(&mut buf.clone(), 4);
        let types = DataType::ALL;
        let ty = types[usize::from(sel) % types.len()];
        let Ok(values) = format.unpack(&mut buf, ty, 4) else {
            continue;
        };
        // What was accepted packs, and its packing is stable: packed, read
        // back and packed again, the same bytes (floats travel as text, so
        // their first packing is what is compared).
        let mut once = Buffer::new();
        if format.pack(&mut once, ty, &values).is_err() {
            continue;
        }
        let again = format
            .unpack(&mut once.clone(), ty, values.len().max(1))
            .expect("re-unpacking our own packing");
        let mut twice = Buffer::new();
        format.pack(&mut twice, ty, &again).expect("re-pack");
        assert_eq!(once.as_bytes(), twice.as_bytes());
    }
});
