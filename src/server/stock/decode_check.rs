//! The door's inbound decoding as one public call, for the fuzz target
//! `stock_door_decode` and its seeds (`tests/openpmix_fuzz_seeds.rs`):
//! a connect message, then the payloads of the connected peer's commands,
//! each translated as its link translates it.
//!
//! [`door_connect`] builds the well-formed connect messages the target
//! selects by a byte, so that its commands are decoded after an admitted
//! handshake.
//!
//! Invariant checked on every input: nothing panics, every command has
//! exactly one outcome, and every message the door would hand the loop
//! encodes as one of our frames that decodes back (the loop never sees a
//! message the door could not have built).

use super::inbound::{self, Inbound};
use super::link::frame_of;
use crate::codec::Module;
use crate::openpmix::handshake::{Identity, PeerKind};
use crate::openpmix::{BufferType, ConnectMessage, PeerFormat};
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

/// Decodes `connect` (a connect message's payload) and, if it is
/// admitted, each of `commands` (frame payloads) as that peer's.
/// Panics if a message for the loop does not round-trip our framing.
pub fn door_decode(connect: &[u8], commands: &[&[u8]]) -> DoorDecode {
    let mut out = DoorDecode::default();
    let peer = match inbound::connect(connect) {
        Ok(Inbound::Connected(peer, msg, _)) => {
            check(&msg);
            peer
        }
        _ => return out,
    };
    out.admitted = true;
    for c in commands {
        match inbound::command(&peer, c) {
            Inbound::Forward(msg, _) | Inbound::ForwardAndAnswer(msg, _) => {
                check(&msg);
                out.forwarded += 1;
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

/// `msg` framed as the link frames it, and read back.
fn check(msg: &crate::wire::Message) {
    let f = frame_of(1, msg).expect("a message for the loop encodes");
    let back = f.message().expect("and decodes");
    assert_eq!(back.kind(), msg.kind());
}

/// The connect message payload `sel` selects: bits 0-1 its format
/// (v41 or v4, then non-described or fully described), bits 2-3 its
/// kind (a 5.0.11 client, a 5.0.11 tool asking for a name, a 4.2.2 tool
/// named `fuzz-ns` rank 1, a 4.2.2 singleton of that name).
pub fn door_connect(sel: u8) -> Vec<u8> {
    let format = PeerFormat {
        module: if sel & 1 == 0 {
            Module::V41
        } else {
            Module::V4
        },
        buffer_type: if sel & 2 == 0 {
            BufferType::NonDescribed
        } else {
            BufferType::FullyDescribed
        },
    };
    let (kind, version) = match (sel >> 2) & 3 {
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
