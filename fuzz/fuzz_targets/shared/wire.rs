//! What the two control-plane decoder targets share: feeding a byte
//! stream (with descriptors) through a real socket pair into a framed
//! [`Connection`], decoding each frame's message, and the round-trip
//! check of what decoded.
//!
//! Input layout of both decoder targets (the seeds test
//! `tests/wire_fuzz_seeds.rs` writes inputs in it):
//!
//! | byte | meaning |
//! |---|---|
//! | 0 | mode: 0 a byte stream of frames, 1 one message body of a kind, 2 one inner body (a service request or reply) |
//! | 1 | mode 0: descriptors to attach (low 3 bits) and the body limit (bit 7: the handshake's); modes 1 and 2: which kind or decoder |
//! | 2 | mode 0: where the stream is cut in two writes; mode 1: the descriptor count the frame claims |
//! | 3.. | the bytes |

use std::fs::File;
use std::os::fd::OwnedFd;

use pmix::net::Stream;
use pmix::wire::{Connection, Frame, Kind, Message, HANDSHAKE_MAX_BODY};

/// The authenticated body limit in the fuzzer: the server's default
/// (256 MiB) would let every input that announces it allocate that much,
/// which is the limit's purpose but no use to a fuzzer.
pub const FUZZ_MAX_BODY: u32 = 1 << 16;

/// Every message kind, by number (the numbers are the protocol's).
pub fn kinds(from_client: bool) -> Vec<Kind> {
    (0..64u16)
        .filter_map(Kind::from_u16)
        .filter(|k| k.from_client() == from_client)
        .collect()
}

/// A descriptor to attach (`/dev/null`, opened read-only).
fn descriptor() -> OwnedFd {
    File::open("/dev/null").expect("/dev/null").into()
}

/// Writes `bytes` (cut at `cut`, the descriptors with the first part)
/// into one end of a socket pair and reads frames at the other, as the
/// server (`server_side`) or a client would. Returns the frames read
/// before the stream ended or was refused.
pub fn frames(
    bytes: &[u8],
    cut: usize,
    nfds: usize,
    server_side: bool,
    max_body: u32,
) -> Vec<Frame> {
    let (a, b) = Stream::pair().expect("socket pair");
    let mut tx = Connection::new(a, u32::MAX, 0, !server_side);
    // What the real ends accept: a server no descriptors, a client one
    // frame's worth.
    let max_fds = if server_side {
        0
    } else {
        pmix::wire::frame::MAX_FDS_PER_FRAME
    };
    let mut rx = Connection::new(b, max_body, max_fds, server_side);
    let cut = cut.clamp(1, bytes.len().max(1)).min(bytes.len());
    let fds: Vec<OwnedFd> = (0..nfds).map(|_| descriptor()).collect();
    let (first, second) = bytes.split_at(cut);
    let mut out = Vec::new();
    if first.is_empty() {
        return out;
    }
    if tx.send_raw(first.to_vec(), fds).is_err() {
        return out;
    }
    if !pump(&mut tx, &mut rx, &mut out) {
        return out;
    }
    if !second.is_empty() && tx.send_raw(second.to_vec(), Vec::new()).is_ok() {
        pump(&mut tx, &mut rx, &mut out);
    }
    out
}

/// Moves what `tx` holds into `rx` until all is read; false once `rx`
/// refused the stream.
fn pump(tx: &mut Connection, rx: &mut Connection, out: &mut Vec<Frame>) -> bool {
    loop {
        let done = tx.flush().unwrap_or(true);
        if rx.read_frames(out).is_err() {
            return false;
        }
        if done {
            return true;
        }
    }
}

/// The body limit byte 1's bit 7 selects.
pub fn max_body(sel: u8) -> u32 {
    if sel & 0x80 != 0 {
        HANDSHAKE_MAX_BODY
    } else {
        FUZZ_MAX_BODY
    }
}

/// What decoded encodes, decodes again, and encodes to the same bytes.
pub fn round_trip(m: &Message) {
    let mut once = Vec::new();
    m.encode_body(&mut once).expect("a decoded message encodes");
    let again = Message::decode(m.kind(), &once, m.fd_count()).expect("our own encoding decodes");
    let mut twice = Vec::new();
    again.encode_body(&mut twice).expect("re-encode");
    assert_eq!(once, twice, "{} does not round-trip", m.kind().name());
}

/// How a decoder target checks what one end reads: a frame of the byte
/// stream (mode 0), a message decoded from a kind's body (mode 1,
/// descriptors already counted), one inner body with its selector byte
/// (mode 2).
pub trait End {
    /// True for the server's end (it reads clients' kinds).
    const SERVER: bool;
    fn frame(f: &Frame);
    fn message(m: &Message);
    fn inner(sel: u8, bytes: &[u8]);
}

/// Splits `data` (the layout above) and hands its part to `E`.
pub fn run<E: End>(data: &[u8]) {
    let [mode, sel, arg, bytes @ ..] = data else {
        return;
    };
    let (sel, arg) = (*sel, *arg);
    match mode % 3 {
        0 => {
            let nfds = usize::from(sel & 7);
            for f in frames(bytes, usize::from(arg), nfds, E::SERVER, max_body(sel)) {
                E::frame(&f);
            }
        }
        1 => {
            let kinds = kinds(E::SERVER);
            let kind = kinds[usize::from(sel) % kinds.len()];
            if let Ok(m) = Message::decode(kind, bytes, usize::from(arg % 4)) {
                assert_eq!(m.fd_count(), usize::from(arg % 4));
                E::message(&m);
            }
        }
        _ => E::inner(sel, bytes),
    }
}
