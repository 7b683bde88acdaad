//! The door's inbound decoding as one public call, for the fuzz target
//! `stock_door_decode` and its seeds (`tests/openpmix_fuzz_seeds.rs`):
//! a connect message, then the payloads of the connected peer's commands,
//! each translated as its link translates it.
//!
//! [`door_connect`] builds the well-formed connect messages the target
//! selects by a byte, so that its commands are decoded after an admitted
//! handshake.
//!
//! Invariant checked on every input: nothing panics and every command
//! has exactly one outcome; a translation the loop could not read back
//! counts as answered (the link answers it `PMIX_ERR_BAD_PARAM`, see
//! [`super::link::loop_frame`]).

use super::inbound::{self, Inbound};
use super::link::loop_frame;
use crate::codec::{Format, Module};
use crate::openpmix::handshake::{Identity, PeerKind};
use crate::openpmix::{ConnectMessage, PeerFormat};
use crate::{Nspace, Proc, Rank};

/// What decoding one connection's bytes gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DoorDecode {
    /// The connect message was handed to the loop's check.
    pub admitted: bool,
    /// Commands that became a message for the loop.
    pub forwarded: usize,
    /// Commands answered at the door (a status), including those that do
    /// not decode.
    pub answered: usize,
    /// Commands without an answer (a deregistration).
    pub ignored: usize,
}

/// Decodes `connect` (a connect message's payload) and, if it is handed
/// to the loop, each of `commands` (frame payloads) as that peer's, with
/// the link's rules.
pub fn door_decode(connect: &[u8], commands: &[&[u8]]) -> DoorDecode {
    let mut out = DoorDecode::default();
    let peer = match inbound::connect(connect) {
        Ok(Inbound::Connected(peer, msg, _)) if loop_frame(0, &msg).is_some() => peer,
        _ => return out,
    };
    out.admitted = true;
    for c in commands {
        match inbound::command(&peer, c) {
            Inbound::Forward(msg, _) | Inbound::ForwardAndAnswer(msg, _) => {
                match loop_frame(1, &msg) {
                    Some(_) => out.forwarded += 1,
                    None => out.answered += 1,
                }
            }
            Inbound::Answer(_) => out.answered += 1,
            Inbound::Ignore => out.ignored += 1,
            Inbound::Connected(..) | Inbound::Refused(..) => {
                unreachable!("a command is never a connect message")
            }
        }
    }
    out
}

/// The connect message payload `sel` selects: its format by
/// [`Format::from_fuzz_selector`] (bits 0, 1 and 6: v41, v4 or v3,
/// non-described or fully described), bits 2-3 its kind (a 5.0.11
/// client — 3.2.5 in v3 —, a 5.0.11 tool asking for a name, a 4.2.2 tool
/// named `fuzz-ns` rank 1, a 4.2.2 singleton of that name).
pub fn door_connect(sel: u8) -> Vec<u8> {
    let codec = Format::from_fuzz_selector(sel);
    let format = PeerFormat::from_codec(codec);
    let (kind, version) = match (sel >> 2) & 3 {
        0 if codec.module == Module::V3 => (PeerKind::SimpleClient, "3.2.5"),
        0 => (PeerKind::SimpleClient, "5.0.11"),
        1 => (PeerKind::ToolNeedsId, "5.0.11"),
        2 => (PeerKind::ToolGivenId, "4.2.2"),
        _ => (PeerKind::Singleton, "4.2.2"),
    };
    let proc = Proc::new(Nspace::new("fuzz-ns").expect("a short name"), Rank(1));
    let mut m = ConnectMessage::client(proc.clone(), 1000, 1000, version, format);
    m.kind = kind;
    m.identity = Identity {
        ids: kind.sends_ids().then_some((1000, 1000)),
        proc: kind.sends_proc().then_some(proc),
    };
    m.encode_payload().expect("a well-formed message encodes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{Buffer, Format};
    use crate::openpmix::Command;
    use crate::{DataType, Info, Key, Value};

    /// Found by `stock_door_decode`: a fence whose info has an empty key
    /// decodes in OpenPMIx's format but not in ours; the door answers it
    /// instead of handing the loop a frame it would refuse (which ended
    /// the connection).
    #[test]
    fn a_fence_with_an_empty_info_key_is_answered_not_forwarded() {
        let fmt = Format::DATA_PACK;
        let fence = |key: &str| {
            let mut b = Buffer::new();
            fmt.pack_value(&mut b, &Value::Command(Command::FenceNb.into()))
                .unwrap();
            fmt.pack_value(&mut b, &Value::Size(0)).unwrap();
            fmt.pack_value(&mut b, &Value::Size(1)).unwrap();
            let info = Info::new(Key::new(key).unwrap(), Value::Uint32(1));
            fmt.pack(&mut b, DataType::Info, &[Value::Info(Box::new(info))])
                .unwrap();
            b.into_bytes()
        };
        let good = fence("zz");
        // The key "zz" (length 3 as a zigzag varint, 6) made empty (1: 2).
        let at = good
            .windows(4)
            .position(|w| w == [6, b'z', b'z', 0])
            .unwrap();
        let mut bad = good[..at].to_vec();
        bad.extend_from_slice(&[2, 0]);
        bad.extend_from_slice(&good[at + 4..]);
        let r = door_decode(&door_connect(0), &[&good, &bad]);
        assert_eq!((r.forwarded, r.answered), (1, 1), "{r:?}");
    }
}
