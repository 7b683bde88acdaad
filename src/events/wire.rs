//! The wire body of an event ([`encode_event`] / [`decode_event`]):
//! status, source, range, infos, in that order.
//!
//! Invariants: decoding refuses an unknown range and trailing bytes.

use super::event::{Event, Range};
use crate::codec::Reader;
use crate::wire::body::{get_infos, get_proc, get_status, get_u8, put_infos, put_proc, put_status};
use crate::wire::WireError;
use crate::Status;

/// Encodes an event for the wire: status, source, range, infos.
pub fn encode_event(e: &Event) -> Result<Vec<u8>, Status> {
    let mut out = Vec::new();
    put_status(&mut out, e.status);
    put_proc(&mut out, &e.source).map_err(|_| Status::ERR_BAD_PARAM)?;
    out.push(e.range.0);
    put_infos(&mut out, &e.infos).map_err(|_| Status::ERR_BAD_PARAM)?;
    Ok(out)
}

/// Decodes (and validates) what [`encode_event`] wrote.
pub fn decode_event(body: &[u8]) -> Result<Event, WireError> {
    let kind = "Event";
    let b = |source| WireError::Body { kind, source };
    let mut r = Reader::new(body);
    let status = get_status(&mut r).map_err(b)?;
    let source = get_proc(&mut r).map_err(b)?;
    let range = Range(get_u8(&mut r).map_err(b)?);
    if !range.is_valid() {
        return Err(WireError::Invalid {
            kind,
            what: "unknown range",
        });
    }
    let infos = get_infos(&mut r).map_err(b)?;
    if r.remaining() != 0 {
        return Err(WireError::Invalid {
            kind,
            what: "trailing bytes",
        });
    }
    Ok(Event {
        status,
        source,
        range,
        infos,
    })
}
