//! The server's own credentials, used when the host has no
//! `get_credential`/`validate_credential` (OpenPMIx's psec "native"
//! plays this part there).
//!
//! A native credential states the uid and gid the kernel reported for the
//! requesting client's connection (`SO_PEERCRED`) and the client's
//! identity, sealed with a message authentication code keyed by a secret
//! drawn when the server process started. Only that server process can
//! validate it: a credential from another server, or one altered in any
//! byte, is `PMIX_ERR_INVALID_CRED`. Validation answers `PMIX_USERID` and
//! `PMIX_GRPID`.
//!
//! Layout: `"PMIXNTV1"`, uid (u32 LE), gid (u32 LE), rank (u32 LE), the
//! namespace's length (u8) and bytes, then the 16-byte code.
//!
//! Invariant: a credential validates only if it was issued by this server
//! process, unaltered (the code covers every byte before it).

use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

use crate::net::PeerCredentials;
use crate::{keys, Info, Key, Proc, Status, Value};

const MAGIC: &[u8; 8] = b"PMIXNTV1";
const MAC_LEN: usize = 16;

/// The secret of this process: two SipHash keys drawn at random.
fn keys_of_process() -> &'static (std::hash::RandomState, std::hash::RandomState) {
    static K: OnceLock<(std::hash::RandomState, std::hash::RandomState)> = OnceLock::new();
    K.get_or_init(|| (std::hash::RandomState::new(), std::hash::RandomState::new()))
}

fn mac(body: &[u8]) -> [u8; MAC_LEN] {
    let (a, b) = keys_of_process();
    let mut h1 = a.build_hasher();
    h1.write(body);
    let mut h2 = b.build_hasher();
    h2.write(body);
    let mut out = [0u8; MAC_LEN];
    out[..8].copy_from_slice(&h1.finish().to_le_bytes());
    out[8..].copy_from_slice(&h2.finish().to_le_bytes());
    out
}

/// A native credential for `proc`, connected as `creds`.
pub(crate) fn issue(proc: &Proc, creds: PeerCredentials) -> Vec<u8> {
    let ns = proc.nspace.as_bytes();
    let mut v = Vec::with_capacity(8 + 12 + 1 + ns.len() + MAC_LEN);
    v.extend_from_slice(MAGIC);
    v.extend_from_slice(&creds.uid.to_le_bytes());
    v.extend_from_slice(&creds.gid.to_le_bytes());
    v.extend_from_slice(&proc.rank.0.to_le_bytes());
    // A namespace is at most PMIX_MAX_NSLEN (255) bytes.
    v.push(ns.len().min(255) as u8);
    v.extend_from_slice(&ns[..ns.len().min(255)]);
    let m = mac(&v);
    v.extend_from_slice(&m);
    v
}

/// Checks a native credential: its uid and gid as `PMIX_USERID` and
/// `PMIX_GRPID`, or `PMIX_ERR_INVALID_CRED`.
pub(crate) fn validate(cred: &[u8]) -> Result<Vec<Info>, Status> {
    let bad = Status::ERR_INVALID_CRED;
    if cred.len() < 8 + 12 + 1 + MAC_LEN || &cred[..8] != MAGIC {
        return Err(bad);
    }
    let nslen = cred[20] as usize;
    let body_len = 21 + nslen;
    if cred.len() != body_len + MAC_LEN {
        return Err(bad);
    }
    let (body, code) = cred.split_at(body_len);
    let want = mac(body);
    // Compared in time independent of where they differ.
    if code
        .iter()
        .zip(want.iter())
        .fold(0u8, |a, (x, y)| a | (x ^ y))
        != 0
    {
        return Err(bad);
    }
    let u32_at = |i: usize| u32::from_le_bytes([cred[i], cred[i + 1], cred[i + 2], cred[i + 3]]);
    Ok(vec![
        Info::new(Key::new(keys::USERID)?, Value::Uint32(u32_at(8))),
        Info::new(Key::new(keys::GRPID)?, Value::Uint32(u32_at(12))),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Nspace, Rank};

    fn creds() -> PeerCredentials {
        PeerCredentials {
            pid: 1,
            uid: 1000,
            gid: 100,
        }
    }

    #[test]
    fn issued_credentials_validate_with_their_ids() {
        let p = Proc::new(Nspace::new("job").unwrap(), Rank(3));
        let c = issue(&p, creds());
        let infos = validate(&c).unwrap();
        assert_eq!(infos[0].value, Value::Uint32(1000));
        assert_eq!(infos[1].value, Value::Uint32(100));
    }

    #[test]
    fn altered_or_truncated_credentials_are_invalid() {
        let p = Proc::new(Nspace::new("job").unwrap(), Rank(3));
        let c = issue(&p, creds());
        for i in 0..c.len() {
            let mut d = c.clone();
            d[i] ^= 1;
            assert_eq!(validate(&d), Err(Status::ERR_INVALID_CRED), "byte {i}");
        }
        assert_eq!(validate(&c[..c.len() - 1]), Err(Status::ERR_INVALID_CRED));
        assert_eq!(validate(b""), Err(Status::ERR_INVALID_CRED));
    }
}
