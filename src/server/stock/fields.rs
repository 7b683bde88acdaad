//! Decoding a stock peer's command fields, shared by the door's
//! subjects: the field helpers of [`crate::openpmix::fields`] (one layout
//! for the door and for our client's link), and what a decoded command
//! becomes.

#[cfg(test)]
use crate::codec::{Buffer, Format};
pub(super) use crate::openpmix::fields::{infos, many, one, pack_infos, procs, size};
use crate::wire::Op;
#[cfg(test)]
use crate::Value;

use super::request::Pending;

/// A decoded command as our request: its op, its body in our encoding,
/// what its answer waits for.
pub(super) type Forward = (Op, Vec<u8>, Pending);

/// Packs `v` as `PMIx_Data_pack` would (the unit tests' peer).
#[cfg(test)]
pub(super) fn pack(b: &mut Buffer, v: Value) {
    Format::DATA_PACK.pack_value(b, &v).unwrap();
}
