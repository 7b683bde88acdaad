//! The connect handshake: the message a client, tool or singleton sends
//! first ([`ConnectMessage`]) and the server's answer ([`ClientReply`] for
//! clients and singletons, [`ToolReply`] for tools and launchers).
//!
//! Connect message payload (after a host-order [`super::Header`]):
//!
//! 1. psec module name, NUL-terminated (`native`, `none`, `munge`);
//! 2. credential length (`u32`, network order), then the credential —
//!    for `native`, the sender's euid and egid as two host-order `u32`;
//! 3. the peer type flag ([`PeerKind`], one byte);
//! 4. per flag: a client's nspace (NUL-terminated) and rank (`u32`,
//!    network order); a tool's, launcher's, scheduler's or singleton's uid
//!    and gid (`u32`s, network order), then nspace and rank if it has
//!    them;
//! 5. the library version, NUL-terminated (a `2.0.x` message ends here:
//!    refused, as we do not speak `v20`);
//! 6. the bfrops module name, NUL-terminated; the buffer type byte; the
//!    gds module name(s), NUL-terminated;
//! 7. anything left is a packed `PMIX_SIZE` count and `PMIX_INFO` array
//!    (tools), in the peer's own buffer format. A 4.2.2 sender's message
//!    is one byte longer than its fields (it counts from 1): a client's
//!    then ends in one zero byte, kept in [`ConnectMessage::info_blob`].
//!
//! Replies are raw network-order `u32`s, not framed: a client (and a
//! 5.x singleton) gets the status, then (on success) its index, used as
//! `pindex` in every later header. A tool (and a 4.x singleton) gets the
//! status; on success, if it asked for an
//! identifier, its nspace in `PMIX_MAX_NSLEN + 1` NUL-padded bytes and its
//! rank; then the server's nspace (same padding) and rank; then the
//! status of the security handshake.
//!
//! We accept only `native` and `none` psec: a munge-only peer would need
//! the `PMIX_ERR_READY_FOR_HANDSHAKE` exchange, which we refuse with
//! [`WireError::UnsupportedPsec`].

use std::ffi::CString;

use super::bfrops::{BufferType, PeerFormat};
use super::header::{Header, Order, HEADER_LEN, MAX_CRED_SIZE};
use super::WireError;
use crate::codec::Buffer;
use crate::{DataType, Info, Nspace, Proc, Rank, Value, MAX_NSLEN};

/// What kind of process connects (the handshake's flag byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeerKind {
    /// 0: a client its server launched.
    SimpleClient = 0,
    /// 1: a tool of the 2.x/3.x handshake.
    LegacyTool = 1,
    /// 2: a launcher of the 2.x/3.x handshake.
    LegacyLauncher = 2,
    /// 3: a self-started tool that needs an identifier.
    ToolNeedsId = 3,
    /// 4: a self-started tool given an identifier by its caller.
    ToolGivenId = 4,
    /// 5: a tool a server started (identifier from that server).
    ToolClient = 5,
    /// 6: a self-started launcher that needs an identifier.
    LauncherNeedsId = 6,
    /// 7: a self-started launcher given an identifier.
    LauncherGivenId = 7,
    /// 8: a launcher a server started.
    LauncherClient = 8,
    /// 9: a singleton client (a 5.x one is answered as a client, a 4.x
    /// one as a tool).
    Singleton = 9,
    /// 10: a scheduler (master).
    Scheduler = 10,
}

impl PeerKind {
    /// The flag from the wire.
    pub fn from_byte(b: u8) -> Result<PeerKind, WireError> {
        use PeerKind::*;
        Ok(match b {
            0 => SimpleClient,
            1 => LegacyTool,
            2 => LegacyLauncher,
            3 => ToolNeedsId,
            4 => ToolGivenId,
            5 => ToolClient,
            6 => LauncherNeedsId,
            7 => LauncherGivenId,
            8 => LauncherClient,
            9 => Singleton,
            10 => Scheduler,
            _ => return Err(WireError::UnknownFlag(b)),
        })
    }

    /// The flag on the wire.
    pub fn byte(self) -> u8 {
        self as u8
    }

    /// Whether the message carries the sender's uid and gid.
    pub fn sends_ids(self) -> bool {
        self != PeerKind::SimpleClient
    }

    /// Whether the message carries the sender's nspace and rank.
    pub fn sends_proc(self) -> bool {
        use PeerKind::*;
        matches!(
            self,
            SimpleClient
                | ToolGivenId
                | ToolClient
                | LauncherGivenId
                | LauncherClient
                | Singleton
                | Scheduler
        )
    }

    /// Whether the server answers a sender of this kind whose library's
    /// major version is `major` with a [`ClientReply`] (else a
    /// [`ToolReply`]): a simple client always, a singleton from 5.0 on
    /// (4.2's singleton reads a tool's answer, 5.0's a client's).
    pub fn gets_client_reply(self, major: u32) -> bool {
        match self {
            PeerKind::SimpleClient => true,
            PeerKind::Singleton => major >= 5,
            _ => false,
        }
    }

    /// Whether the server assigns the identifier (sent in the tool reply).
    pub fn needs_id(self) -> bool {
        matches!(self, PeerKind::ToolNeedsId | PeerKind::LauncherNeedsId)
    }
}

/// Who the connect message says the sender is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// uid and gid (tools, launchers, singletons, schedulers).
    pub ids: Option<(u32, u32)>,
    /// nspace and rank, where [`PeerKind::sends_proc`].
    pub proc: Option<Proc>,
}

/// A parsed (or to-be-sent) connect message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectMessage {
    /// The psec module (`native` or `none`).
    pub psec: String,
    /// The credential bytes.
    pub credential: Vec<u8>,
    /// The flag.
    pub kind: PeerKind,
    /// The sender's claimed identity.
    pub identity: Identity,
    /// The sender's OpenPMIx version (`"5.0.11"`).
    pub version: String,
    /// The sender's buffer format.
    pub format: PeerFormat,
    /// The gds module(s) it uses (`"hash"`, `"ds21,ds12,hash"`).
    pub gds: String,
    /// The packed info array after the fixed fields (tools), possibly
    /// empty; decode with [`ConnectMessage::infos`].
    pub info_blob: Vec<u8>,
}

/// A cursor over the connect payload with the handshake's field rules.
struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    fn string(&mut self, what: &'static str) -> Result<String, WireError> {
        let end = self
            .rest
            .iter()
            .position(|&b| b == 0)
            .ok_or(WireError::Unterminated(what))?;
        let s = std::str::from_utf8(&self.rest[..end]).map_err(|_| WireError::Malformed(what))?;
        self.rest = &self.rest[end + 1..];
        Ok(s.to_owned())
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], WireError> {
        if n > self.rest.len() {
            return Err(WireError::Malformed(what));
        }
        let (a, b) = self.rest.split_at(n);
        self.rest = b;
        Ok(a)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, WireError> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u8(&mut self, what: &'static str) -> Result<u8, WireError> {
        Ok(self.take(1, what)?[0])
    }

    fn proc(&mut self) -> Result<Proc, WireError> {
        let ns = self.string("nspace")?;
        if ns.is_empty() || ns.len() > MAX_NSLEN {
            return Err(WireError::Malformed("nspace"));
        }
        let nspace = Nspace::new(ns).map_err(|_| WireError::Malformed("nspace"))?;
        let rank = self.u32("rank")?;
        Ok(Proc::new(nspace, Rank(rank)))
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) -> Result<(), WireError> {
    if s.as_bytes().contains(&0) {
        return Err(WireError::Malformed("string with an inner NUL"));
    }
    out.extend_from_slice(s.as_bytes());
    out.push(0);
    Ok(())
}

/// The psec modules we accept.
pub const ACCEPTED_PSEC: [&str; 2] = ["native", "none"];

impl ConnectMessage {
    /// Parses a connect message's payload (the bytes after its header).
    pub fn parse(payload: &[u8]) -> Result<ConnectMessage, WireError> {
        if payload.len() > MAX_CRED_SIZE as usize {
            return Err(WireError::TooLarge {
                len: payload.len() as u64,
                max: MAX_CRED_SIZE.into(),
            });
        }
        let mut f = Fields { rest: payload };
        let psec = f.string("psec module")?;
        if !ACCEPTED_PSEC.contains(&psec.as_str()) {
            return Err(WireError::UnsupportedPsec(psec));
        }
        let len = f.u32("credential length")? as usize;
        let credential = f.take(len, "credential")?.to_vec();
        let kind = PeerKind::from_byte(f.u8("peer type flag")?)?;
        let ids = if kind.sends_ids() {
            Some((f.u32("uid")?, f.u32("gid")?))
        } else {
            None
        };
        let proc = if kind.sends_proc() {
            Some(f.proc()?)
        } else {
            None
        };
        let version = f.string("version")?;
        if version.starts_with("2.0.") || version == "2.0" {
            return Err(WireError::UnsupportedBfrops("v20".into()));
        }
        let bfrops = f.string("bfrops module")?;
        let buffer_type = f.u8("buffer type")?;
        let format = PeerFormat::from_handshake(&bfrops, buffer_type)?;
        let gds = f.string("gds module")?;
        if gds.is_empty() {
            return Err(WireError::Malformed("gds module"));
        }
        let msg = ConnectMessage {
            psec,
            credential,
            kind,
            identity: Identity { ids, proc },
            version,
            format,
            gds,
            info_blob: f.rest.to_vec(),
        };
        msg.version_numbers()?;
        if msg.psec == "native" {
            msg.native_credential()?;
        }
        Ok(msg)
    }

    /// The payload bytes (without the header).
    pub fn encode_payload(&self) -> Result<Vec<u8>, WireError> {
        let mut out = Vec::new();
        put_str(&mut out, &self.psec)?;
        let len =
            u32::try_from(self.credential.len()).map_err(|_| WireError::Malformed("credential"))?;
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&self.credential);
        out.push(self.kind.byte());
        match (self.kind.sends_ids(), self.identity.ids) {
            (true, Some((uid, gid))) => {
                out.extend_from_slice(&uid.to_be_bytes());
                out.extend_from_slice(&gid.to_be_bytes());
            }
            (false, None) => {}
            _ => return Err(WireError::Malformed("uid/gid do not fit the flag")),
        }
        match (self.kind.sends_proc(), &self.identity.proc) {
            (true, Some(p)) => {
                put_str(&mut out, &p.nspace.as_c_str().to_string_lossy())?;
                out.extend_from_slice(&p.rank.0.to_be_bytes());
            }
            (false, None) => {}
            _ => return Err(WireError::Malformed("identifier does not fit the flag")),
        }
        put_str(&mut out, &self.version)?;
        put_str(&mut out, self.format.module.name())?;
        out.push(self.format.buffer_type.byte());
        put_str(&mut out, &self.gds)?;
        out.extend_from_slice(&self.info_blob);
        if out.len() > MAX_CRED_SIZE as usize {
            return Err(WireError::TooLarge {
                len: out.len() as u64,
                max: MAX_CRED_SIZE.into(),
            });
        }
        Ok(out)
    }

    /// The whole message as sent: host-order header, then the payload.
    pub fn encode(&self) -> Result<Vec<u8>, WireError> {
        let payload = self.encode_payload()?;
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(&Header::connect(payload.len() as u32).encode(Order::Host));
        out.extend_from_slice(&payload);
        Ok(out)
    }

    /// The uid and gid a `native` credential states (host order).
    pub fn native_credential(&self) -> Result<(u32, u32), WireError> {
        if self.psec != "native" {
            return Err(WireError::BadCredential("not a native credential"));
        }
        match self.credential[..] {
            [a, b, c, d, e, f, g, h] => Ok((
                u32::from_ne_bytes([a, b, c, d]),
                u32::from_ne_bytes([e, f, g, h]),
            )),
            _ => Err(WireError::BadCredential("native credential is not 8 bytes")),
        }
    }

    /// The credential a `native` sender with these ids sends.
    pub fn native_credential_bytes(uid: u32, gid: u32) -> Vec<u8> {
        let mut c = uid.to_ne_bytes().to_vec();
        c.extend_from_slice(&gid.to_ne_bytes());
        c
    }

    /// The version as (major, minor, release); missing parts are 0, as
    /// OpenPMIx's `strtoul` parse makes them.
    pub fn version_numbers(&self) -> Result<(u32, u32, u32), WireError> {
        let mut parts = self.version.split('.').map(|p| {
            let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u32>().unwrap_or(0)
        });
        let major = parts.next().unwrap_or(0);
        if major == 0 {
            return Err(WireError::Malformed("version"));
        }
        Ok((major, parts.next().unwrap_or(0), parts.next().unwrap_or(0)))
    }

    /// The infos a tool appended, decoded in its buffer format.
    pub fn infos(&self) -> Result<Vec<Info>, WireError> {
        if self.info_blob.is_empty() {
            return Ok(Vec::new());
        }
        let fmt = self.format.codec();
        let mut buf = Buffer::from_bytes(self.info_blob.clone());
        let n = match fmt.unpack_value(&mut buf, DataType::Size)? {
            Value::Size(n) => n,
            _ => return Err(WireError::Malformed("info count")),
        };
        if n == 0 {
            return Ok(Vec::new());
        }
        let vals = fmt.unpack(&mut buf, DataType::Info, n)?;
        Ok(vals
            .into_iter()
            .filter_map(|v| match v {
                Value::Info(i) => Some(*i),
                _ => None,
            })
            .collect())
    }

    /// Packs `infos` into [`ConnectMessage::info_blob`] in this message's
    /// format.
    pub fn set_infos(&mut self, infos: &[Info]) -> Result<(), WireError> {
        let fmt = self.format.codec();
        let mut buf = Buffer::new();
        fmt.pack_value(&mut buf, &Value::Size(infos.len()))?;
        let vals: Vec<Value> = infos
            .iter()
            .cloned()
            .map(|i| Value::Info(Box::new(i)))
            .collect();
        fmt.pack(&mut buf, DataType::Info, &vals)?;
        self.info_blob = buf.into_bytes();
        Ok(())
    }

    /// The message a simple client on this process would send (native
    /// credential of `uid`/`gid`, no infos).
    pub fn client(proc: Proc, uid: u32, gid: u32, version: &str, format: PeerFormat) -> Self {
        ConnectMessage {
            psec: "native".into(),
            credential: Self::native_credential_bytes(uid, gid),
            kind: PeerKind::SimpleClient,
            identity: Identity {
                ids: None,
                proc: Some(proc),
            },
            version: version.into(),
            format,
            gds: "hash".into(),
            info_blob: Vec::new(),
        }
    }
}

impl ConnectMessage {
    /// The message a self-started tool on this process sends (native
    /// credential of `uid`/`gid`): asking for an identifier when
    /// `requested` is `None`, else given that one; `infos` (its pid, ids,
    /// what its caller passed) packed after the fixed fields.
    pub fn tool(
        requested: Option<Proc>,
        (uid, gid): (u32, u32),
        version: &str,
        format: PeerFormat,
        infos: &[Info],
    ) -> Result<Self, WireError> {
        let kind = if requested.is_some() {
            PeerKind::ToolGivenId
        } else {
            PeerKind::ToolNeedsId
        };
        let mut m = ConnectMessage {
            psec: "native".into(),
            credential: Self::native_credential_bytes(uid, gid),
            kind,
            identity: Identity {
                ids: Some((uid, gid)),
                proc: requested,
            },
            version: version.into(),
            format,
            gds: "hash".into(),
            info_blob: Vec::new(),
        };
        m.set_infos(infos)?;
        Ok(m)
    }
}

/// The server's answer to a client or singleton.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientReply {
    /// `PMIX_SUCCESS` or why the connection is refused.
    pub status: i32,
    /// The client's index (sent only on success).
    pub pindex: u32,
}

impl ClientReply {
    /// The bytes: the status, and the index if the status is success.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = self.status.to_be_bytes().to_vec();
        if self.status == 0 {
            out.extend_from_slice(&self.pindex.to_be_bytes());
        }
        out
    }

    /// Parses a reply from the bytes received so far: `Ok(None)` if more
    /// are needed, else the reply and the bytes it took. A refusal is
    /// [`WireError::Refused`].
    pub fn parse(b: &[u8]) -> Result<Option<(ClientReply, usize)>, WireError> {
        let Some(status) = be_u32(b, 0) else {
            return Ok(None);
        };
        let status = status as i32;
        if status != 0 {
            return Err(WireError::Refused(status));
        }
        Ok(be_u32(b, 4).map(|pindex| (ClientReply { status, pindex }, 8)))
    }
}

/// The server's answer to a tool or launcher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolReply {
    /// The identifier the server assigned, if the tool asked for one.
    pub assigned: Option<Proc>,
    /// The server's own name.
    pub server: Proc,
    /// The status after the server's checks (0 on success).
    pub final_status: i32,
}

/// Bytes of a padded nspace in a tool reply.
const NSPACE_FIELD: usize = MAX_NSLEN + 1;

fn be_u32(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)
        .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
}

fn put_padded_nspace(out: &mut Vec<u8>, ns: &Nspace) {
    let bytes = ns.as_c_str().to_bytes();
    let start = out.len();
    out.extend_from_slice(bytes);
    out.resize(start + NSPACE_FIELD, 0);
}

fn get_padded_proc(b: &[u8], at: usize) -> Result<Proc, WireError> {
    let field = &b[at..at + NSPACE_FIELD];
    let end = field.iter().position(|&x| x == 0).unwrap_or(MAX_NSLEN);
    let nspace = CString::new(&field[..end])
        .ok()
        .and_then(|c| Nspace::new(c.into_bytes()).ok())
        .ok_or(WireError::Malformed("tool reply nspace"))?;
    let rank = be_u32(b, at + NSPACE_FIELD).ok_or(WireError::Malformed("tool reply rank"))?;
    Ok(Proc::new(nspace, Rank(rank)))
}

impl ToolReply {
    /// Bytes of a successful reply.
    pub fn len(needs_id: bool) -> usize {
        let proc = NSPACE_FIELD + 4;
        4 + if needs_id { proc } else { 0 } + proc + 4
    }

    /// The bytes of a successful reply.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = 0u32.to_be_bytes().to_vec();
        for p in self.assigned.iter().chain(std::iter::once(&self.server)) {
            put_padded_nspace(&mut out, &p.nspace);
            out.extend_from_slice(&p.rank.0.to_be_bytes());
        }
        out.extend_from_slice(&self.final_status.to_be_bytes());
        out
    }

    /// The bytes of a refusal (the status alone).
    pub fn encode_refusal(status: i32) -> Vec<u8> {
        status.to_be_bytes().to_vec()
    }

    /// Parses a reply from the bytes received so far (`Ok(None)`: more are
    /// needed). A refusal, first or final, is [`WireError::Refused`].
    pub fn parse(b: &[u8], needs_id: bool) -> Result<Option<(ToolReply, usize)>, WireError> {
        let Some(status) = be_u32(b, 0) else {
            return Ok(None);
        };
        if status != 0 {
            return Err(WireError::Refused(status as i32));
        }
        let len = Self::len(needs_id);
        if b.len() < len {
            return Ok(None);
        }
        let mut at = 4;
        let assigned = if needs_id {
            let p = get_padded_proc(b, at)?;
            at += NSPACE_FIELD + 4;
            Some(p)
        } else {
            None
        };
        let server = get_padded_proc(b, at)?;
        at += NSPACE_FIELD + 4;
        let final_status = be_u32(b, at).expect("length checked") as i32;
        if final_status != 0 {
            return Err(WireError::Refused(final_status));
        }
        Ok(Some((
            ToolReply {
                assigned,
                server,
                final_status,
            },
            len,
        )))
    }
}

/// The buffer type a client uses when `PMIX_BFROP_BUFFER_TYPE` is unset:
/// OpenPMIx's non-debug default.
pub const DEFAULT_BUFFER_TYPE: BufferType = BufferType::NonDescribed;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Module;
    use crate::Key;

    fn proc(ns: &str, r: u32) -> Proc {
        Proc::new(Nspace::new(ns).unwrap(), Rank(r))
    }

    fn v41(described: bool) -> PeerFormat {
        PeerFormat {
            module: Module::V41,
            buffer_type: if described {
                BufferType::FullyDescribed
            } else {
                BufferType::NonDescribed
            },
        }
    }

    #[test]
    fn a_client_message_round_trips() {
        let m = ConnectMessage::client(proc("job.1", 3), 1000, 100, "5.0.11", v41(false));
        let wire = m.encode().unwrap();
        let hdr: [u8; HEADER_LEN] = wire[..HEADER_LEN].try_into().unwrap();
        let h = Header::decode(&hdr, Order::Host);
        assert_eq!(h, Header::connect((wire.len() - HEADER_LEN) as u32));
        let back = ConnectMessage::parse(&wire[HEADER_LEN..]).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.native_credential().unwrap(), (1000, 100));
        assert_eq!(back.version_numbers().unwrap(), (5, 0, 11));
    }

    #[test]
    fn a_tool_message_with_infos_round_trips_in_both_buffer_types() {
        for described in [false, true] {
            let mut m = ConnectMessage {
                kind: PeerKind::ToolNeedsId,
                identity: Identity {
                    ids: Some((0, 0)),
                    proc: None,
                },
                ..ConnectMessage::client(proc("x", 0), 0, 0, "4.2.2", v41(described))
            };
            let info = Info {
                key: Key::new("pmix.tool.nspace").unwrap(),
                flags: Default::default(),
                value: Value::String(Some(c"t".to_owned())),
            };
            m.set_infos(std::slice::from_ref(&info)).unwrap();
            let back = ConnectMessage::parse(&m.encode_payload().unwrap()).unwrap();
            assert_eq!(back, m);
            assert_eq!(back.infos().unwrap(), vec![info]);
        }
    }

    #[test]
    fn every_truncation_of_a_message_is_refused() {
        let m = ConnectMessage::client(proc("job", 0), 1, 2, "4.2.2", v41(true));
        let p = m.encode_payload().unwrap();
        // Every prefix that cuts a fixed field is an error (the gds string's
        // NUL is the last byte).
        for n in 0..p.len() {
            assert!(ConnectMessage::parse(&p[..n]).is_err(), "prefix {n}");
        }
    }

    #[test]
    fn munge_old_formats_and_unknown_flags_are_refused() {
        let mut m = ConnectMessage::client(proc("job", 0), 1, 2, "4.2.2", v41(false));
        m.psec = "munge".into();
        let e = ConnectMessage::parse(&m.encode_payload().unwrap()).unwrap_err();
        assert!(matches!(e, WireError::UnsupportedPsec(ref s) if s == "munge"));
        assert_eq!(e.status(), crate::Status::ERR_NOT_SUPPORTED);

        let m = ConnectMessage::client(proc("job", 0), 1, 2, "4.2.2", v41(false));
        let mut p = m.encode_payload().unwrap();
        let flag_at = 7 + 4 + 8;
        p[flag_at] = 11;
        assert!(matches!(
            ConnectMessage::parse(&p),
            Err(WireError::UnknownFlag(11))
        ));

        let text = String::from_utf8_lossy(&m.encode_payload().unwrap()).replace("v41", "v21");
        let e = ConnectMessage::parse(text.as_bytes()).unwrap_err();
        assert!(matches!(e, WireError::UnsupportedBfrops(ref s) if s == "v21"));

        let mut m = ConnectMessage::client(proc("job", 0), 1, 2, "4.2.2", v41(false));
        m.credential.pop();
        assert!(matches!(
            ConnectMessage::parse(&m.encode_payload().unwrap()),
            Err(WireError::BadCredential(_))
        ));
    }

    #[test]
    fn replies_round_trip_and_refusals_are_errors() {
        let r = ClientReply {
            status: 0,
            pindex: 9,
        };
        let b = r.encode();
        assert_eq!(b, [0, 0, 0, 0, 0, 0, 0, 9]);
        assert_eq!(ClientReply::parse(&b[..5]).unwrap(), None);
        assert_eq!(ClientReply::parse(&b).unwrap(), Some((r, 8)));
        let refusal = ClientReply {
            status: -46,
            pindex: 0,
        }
        .encode();
        assert_eq!(refusal.len(), 4);
        assert!(matches!(
            ClientReply::parse(&refusal),
            Err(WireError::Refused(-46))
        ));

        for needs_id in [false, true] {
            let t = ToolReply {
                assigned: needs_id.then(|| proc("tool-ns", 0)),
                server: proc("server.ns", 0),
                final_status: 0,
            };
            let b = t.encode();
            assert_eq!(b.len(), ToolReply::len(needs_id));
            assert_eq!(ToolReply::parse(&b[..b.len() - 1], needs_id).unwrap(), None);
            assert_eq!(ToolReply::parse(&b, needs_id).unwrap(), Some((t, b.len())));
        }
        assert!(matches!(
            ToolReply::parse(&ToolReply::encode_refusal(-12), false),
            Err(WireError::Refused(-12))
        ));
    }
}
