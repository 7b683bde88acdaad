//! The body of the registrations of event handlers our client hands its
//! bridge to an OpenPMIx server: a handler's id and the codes it holds.

use crate::wire;
use crate::Status;

/// The body of an `Op::REGISTER_EVENTS` (handler `id`, its `codes`) or
/// `Op::DEREGISTER_EVENTS` (handler `id`, no codes) the client sends the
/// bridge, which keeps what each handler registered with the server.
pub(in crate::client) fn registration_body(id: usize, codes: &[Status]) -> Vec<u8> {
    let mut out = Vec::new();
    wire::body::put_u64(&mut out, id as u64);
    // A handler's codes are a caller's array: far below u32::MAX.
    let _ = wire::body::put_count(&mut out, codes.len());
    for c in codes {
        wire::body::put_status(&mut out, *c);
    }
    out
}

/// Reads what [`registration_body`] wrote.
pub(super) fn read_registration(body: &[u8]) -> Option<(u64, Vec<Status>)> {
    let mut r = crate::codec::Reader::new(body);
    let id = wire::body::get_u64(&mut r).ok()?;
    let n = wire::body::get_count(&mut r).ok()?;
    let codes = (0..n)
        .map(|_| wire::body::get_status(&mut r).ok())
        .collect::<Option<Vec<_>>>()?;
    (r.remaining() == 0).then_some((id, codes))
}
