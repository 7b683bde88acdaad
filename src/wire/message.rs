//! The messages of the control plane and their bodies.
//!
//! Every body is a sequence of fields in the encodings of [`super::body`];
//! decoding consumes exactly the body (trailing bytes are an error) and
//! checks each field's range. Descriptors travel beside the body: a message
//! that carries segments lists one [`SegmentRef`] per descriptor, in order,
//! and its frame's descriptor count must equal that list's length; every
//! other message carries none.

use std::ffi::CString;

use pmix_shmem::Scope;

use super::body::*;
use super::frame::Kind;
use super::WireError;
use crate::codec::{CodecError, Reader};
use crate::{Info, Key, Proc, Status, Value};

/// Longest per-client secret accepted in a handshake.
pub const MAX_SECRET_LEN: usize = 256;

/// What a shared-memory segment holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SegmentKind {
    /// A namespace's job data (session, job, app, node and proc realms).
    Job,
    /// Data posted by processes and collected by a fence (one generation).
    Modex,
    /// A modex generation that holds, for every process of the earlier
    /// generations of its namespace, data at least as recent: it replaces
    /// them (the client unmaps them once no reader uses them).
    ModexReplace,
    /// The job barrier page of the client's own namespace (read-write,
    /// see `crate::barrier`), at the handshake only.
    Barrier,
}

/// Names the segment whose descriptor travels at the same position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentRef {
    /// The namespace the segment belongs to.
    pub nspace: crate::Nspace,
    /// Job data or a modex generation.
    pub kind: SegmentKind,
    /// The server's generation number for the segment (increasing).
    pub generation: u64,
}

/// One value a process posted with `PMIx_Put`.
#[derive(Clone, Debug, PartialEq)]
pub struct Posted {
    /// Who may see it.
    pub scope: Scope,
    /// Its key.
    pub key: Key,
    /// Its value.
    pub value: Value,
}

/// `Handshake`: the first message of a client.
#[derive(Clone, Debug, PartialEq)]
pub struct Handshake {
    /// Protocol version the client speaks.
    pub version: u32,
    /// The identity the client claims.
    pub proc: Proc,
    /// The secret `setup_fork` gave that identity.
    pub secret: Vec<u8>,
}

/// `HandshakeReply`.
#[derive(Clone, Debug, PartialEq)]
pub struct HandshakeReply {
    /// Success, or why the client was refused.
    pub status: Status,
    /// The server's own identity.
    pub server: Proc,
    /// The segments whose descriptors come with the frame.
    pub segments: Vec<SegmentRef>,
}

/// `ToolHandshake`: the first message of a tool.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolHandshake {
    /// Protocol version the tool speaks.
    pub version: u32,
    /// The identity it asks for (`PMIX_TOOL_NSPACE`/`PMIX_TOOL_RANK`);
    /// `None`: the server (or its host) assigns one.
    pub proc: Option<Proc>,
    /// Its `PMIx_tool_init` directives, for the host's `tool_connected`.
    pub infos: Vec<Info>,
}

/// `ToolHandshakeReply`.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolHandshakeReply {
    /// Success, or why the tool was refused.
    pub status: Status,
    /// The server's own identity.
    pub server: Proc,
    /// The tool's identity.
    pub tool: Proc,
}

/// `FenceRequest`.
#[derive(Clone, Debug, PartialEq)]
pub struct FenceRequest {
    /// Participants (`PMIX_RANK_WILDCARD` for a whole namespace).
    pub procs: Vec<Proc>,
    /// Directives (`PMIX_COLLECT_DATA`, `PMIX_TIMEOUT`, ...).
    pub infos: Vec<Info>,
}

/// `FenceRelease`.
#[derive(Clone, Debug, PartialEq)]
pub struct FenceRelease {
    /// The fence's result.
    pub status: Status,
    /// New modex generations, one per namespace with collected data.
    pub segments: Vec<SegmentRef>,
}

/// `ModexOffer`: the modex generations a server built and kept when the
/// last local process of a job wholly on its node committed, before any
/// fence asked for them: the next collecting fence over the job may then
/// complete on the barrier page (see `crate::barrier`). The client maps
/// them at once and publishes them when such a fence completes.
#[derive(Clone, Debug, PartialEq)]
pub struct ModexOffer {
    /// How many commits of the receiving process the server had when it
    /// built them (all of them are in the generations).
    pub commits: u64,
    /// The generations (one descriptor each).
    pub segments: Vec<SegmentRef>,
}

/// `DmodexRequest`.
#[derive(Clone, Debug, PartialEq)]
pub struct DmodexRequest {
    /// Whose data.
    pub proc: Proc,
    /// The key the client looks for, if one.
    pub key: Option<Key>,
    /// Directives (`PMIX_TIMEOUT`, ...).
    pub infos: Vec<Info>,
}

/// `DmodexReply`.
#[derive(Clone, Debug, PartialEq)]
pub struct DmodexReply {
    /// Success or why not.
    pub status: Status,
    /// The process's data in the modex blob format (see [`super::blob`]).
    pub data: Vec<u8>,
}

/// `Abort`.
#[derive(Clone, Debug, PartialEq)]
pub struct Abort {
    /// Status to report.
    pub status: Status,
    /// Message to report.
    pub message: Option<CString>,
    /// Processes to abort (empty: the caller's whole namespace).
    pub procs: Vec<Proc>,
}

/// `NspaceReply`: the segments of the namespace a `NspaceRequest` named.
#[derive(Clone, Debug, PartialEq)]
pub struct NspaceReply {
    /// Success, or why not (`PMIX_ERR_NOT_FOUND`: not registered here).
    pub status: Status,
    /// The namespace's job segment and modex generations.
    pub segments: Vec<SegmentRef>,
}

/// Service operations carried by [`Message::Request`]. Numbers are part of
/// the protocol: never reuse one. Each service encodes its own request and
/// response bodies (with the helpers of [`super::body`]) and validates them
/// when decoding; the server answers an operation it does not know with
/// `PMIX_ERR_NOT_SUPPORTED`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Op(pub u16);

impl Op {
    /// `PMIx_Publish`.
    pub const PUBLISH: Op = Op(1);
    /// `PMIx_Lookup`.
    pub const LOOKUP: Op = Op(2);
    /// `PMIx_Unpublish`.
    pub const UNPUBLISH: Op = Op(3);
    /// `PMIx_Query_info`.
    pub const QUERY: Op = Op(4);
    /// `PMIx_Log`.
    pub const LOG: Op = Op(5);
    /// `PMIx_Job_control`.
    pub const JOB_CONTROL: Op = Op(6);
    /// `PMIx_Process_monitor`.
    pub const MONITOR: Op = Op(7);
    /// `PMIx_Register_event_handler` (the codes a client wants to hear).
    pub const REGISTER_EVENTS: Op = Op(8);
    /// `PMIx_Deregister_event_handler`.
    pub const DEREGISTER_EVENTS: Op = Op(9);
    /// `PMIx_Notify_event` from a client.
    pub const NOTIFY_EVENT: Op = Op(10);
    /// `PMIx_Spawn`.
    pub const SPAWN: Op = Op(11);
    /// `PMIx_Connect`.
    pub const CONNECT: Op = Op(12);
    /// `PMIx_Disconnect`.
    pub const DISCONNECT: Op = Op(13);
    /// `PMIx_Group_construct`.
    pub const GROUP_CONSTRUCT: Op = Op(14);
    /// `PMIx_Group_destruct`.
    pub const GROUP_DESTRUCT: Op = Op(15);
    /// `PMIx_Allocation_request`.
    pub const ALLOCATE: Op = Op(16);
    /// `PMIx_Get_credential`.
    pub const GET_CREDENTIAL: Op = Op(17);
    /// `PMIx_Validate_credential`.
    pub const VALIDATE_CREDENTIAL: Op = Op(18);
    /// `PMIx_IOF_pull`.
    pub const IOF_PULL: Op = Op(19);
    /// `PMIx_IOF_push`.
    pub const IOF_PUSH: Op = Op(20);
    /// `PMIx_IOF_deregister`.
    pub const IOF_DEREGISTER: Op = Op(21);
    /// `PMIx_Group_invite`.
    pub const GROUP_INVITE: Op = Op(22);
    /// `PMIx_Group_join`.
    pub const GROUP_JOIN: Op = Op(23);
    /// `PMIx_Group_leave`.
    pub const GROUP_LEAVE: Op = Op(24);
    /// A client's verdict on a group event (one-way: no response).
    pub const GROUP_VERDICT: Op = Op(25);
    /// `PMIx_Session_control`.
    pub const SESSION_CONTROL: Op = Op(26);
    /// `PMIx_Fabric_register` and `PMIx_Fabric_update`.
    pub const FABRIC: Op = Op(27);
}

/// `Request`: a service operation and its body.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// Which service.
    pub op: Op,
    /// The operation's arguments, in the service's encoding.
    pub body: Vec<u8>,
}

/// `Response`: the answer to a [`Request`].
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// Success or why not.
    pub status: Status,
    /// The operation's results, in the service's encoding (empty on error).
    pub body: Vec<u8>,
}

/// A control-plane message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// See [`Handshake`].
    Handshake(Handshake),
    /// See [`HandshakeReply`].
    HandshakeReply(HandshakeReply),
    /// Data posted since the last commit.
    Commit(Vec<Posted>),
    /// See [`FenceRequest`].
    FenceRequest(FenceRequest),
    /// See [`FenceRelease`].
    FenceRelease(FenceRelease),
    /// See [`DmodexRequest`].
    DmodexRequest(DmodexRequest),
    /// See [`DmodexReply`].
    DmodexReply(DmodexReply),
    /// See [`Abort`].
    Abort(Abort),
    /// The host's answer to an abort.
    AbortReply(Status),
    /// `PMIx_Finalize`.
    Finalize,
    /// Finalize acknowledged.
    FinalizeReply(Status),
    /// See [`Request`].
    Request(Request),
    /// See [`Response`].
    Response(Response),
    /// An event notification, in the event service's encoding.
    Event(Vec<u8>),
    /// Forwarded output, in the IOF service's encoding
    /// ([`super::iof::Delivery`]).
    Iof(Vec<u8>),
    /// See [`ModexOffer`].
    ModexOffer(ModexOffer),
    /// Segments sent ahead of a `HandshakeReply` (with its request id)
    /// because one frame carries at most
    /// [`MAX_FDS_PER_FRAME`](super::frame::MAX_FDS_PER_FRAME) descriptors;
    /// the client maps them before the reply's own.
    Segments(Vec<SegmentRef>),
    /// The segments of another namespace, asked for.
    NspaceRequest(crate::Nspace),
    /// See [`NspaceReply`].
    NspaceReply(NspaceReply),
    /// See [`ToolHandshake`].
    ToolHandshake(ToolHandshake),
    /// See [`ToolHandshakeReply`].
    ToolHandshakeReply(ToolHandshakeReply),
}

fn put_segments(out: &mut Vec<u8>, segs: &[SegmentRef]) -> Result<(), CodecError> {
    put_count(out, segs.len())?;
    for s in segs {
        put_nspace(out, &s.nspace)?;
        out.push(match s.kind {
            SegmentKind::Job => 0,
            SegmentKind::Modex => 1,
            SegmentKind::ModexReplace => 2,
            SegmentKind::Barrier => 3,
        });
        put_u64(out, s.generation);
    }
    Ok(())
}

/// A multiply-rotate hasher (as FxHash) for the short keys of a merge:
/// SipHash cost more than the rest of a commit. The keys come from the
/// committing process itself, which could only slow its own merges.
#[derive(Default)]
struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Merges `new` into `into`: a value for an existing (scope, key) replaces
/// it.
pub fn merge_posted(into: &mut Vec<Posted>, new: Vec<Posted>) {
    // Small merges (a put) scan; larger ones index `new` once, so that a
    // commit into a process's accumulated data costs O(n + m) rather than
    // O(n * m).
    if new.len() <= 8 || into.len().saturating_mul(new.len()) <= 64 {
        for p in new {
            match into
                .iter_mut()
                .find(|q| q.scope == p.scope && q.key == p.key)
            {
                Some(q) => q.value = p.value,
                None => into.push(p),
            }
        }
        return;
    }
    let (assign, append) = {
        // The last occurrence of each (scope, key) of `new` wins.
        let mut last: std::collections::HashMap<
            (u8, &[u8]),
            usize,
            std::hash::BuildHasherDefault<FxHasher>,
        > = std::collections::HashMap::with_capacity_and_hasher(new.len(), Default::default());
        for (j, p) in new.iter().enumerate() {
            last.insert((p.scope.raw(), p.key.as_bytes()), j);
        }
        let mut assign = Vec::new();
        for (i, q) in into.iter().enumerate() {
            if let Some(j) = last.remove(&(q.scope.raw(), q.key.as_bytes())) {
                assign.push((i, j));
            }
        }
        let mut append: Vec<usize> = last.into_values().collect();
        append.sort_unstable();
        (assign, append)
    };
    let mut new: Vec<Option<Posted>> = new.into_iter().map(Some).collect();
    for (i, j) in assign {
        if let Some(p) = new[j].take() {
            into[i].value = p.value;
        }
    }
    for j in append {
        if let Some(p) = new[j].take() {
            into.push(p);
        }
    }
}

/// Appends posted values: a count, then scope, key and value of each.
pub fn put_posted(out: &mut Vec<u8>, items: &[Posted]) -> Result<(), CodecError> {
    put_count(out, items.len())?;
    items.iter().try_for_each(|p| put_one_posted(out, p))
}

/// Appends one posted value (no count).
pub fn put_one_posted(out: &mut Vec<u8>, p: &Posted) -> Result<(), CodecError> {
    out.push(p.scope.raw());
    put_key(out, &p.key)?;
    put_value(out, &p.value)
}

/// Reads posted values written by [`put_posted`].
pub fn get_posted(r: &mut Reader<'_>, kind: &'static str) -> Result<Vec<Posted>, WireError> {
    let body = |source| WireError::Body { kind, source };
    let n = get_count(r).map_err(body)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let scope = Scope::from_raw(get_u8(r).map_err(body)?).ok_or(WireError::Invalid {
            kind,
            what: "unknown scope",
        })?;
        let key = get_key(r).map_err(body)?;
        let value = get_value(r).map_err(body)?;
        v.push(Posted { scope, key, value });
    }
    Ok(v)
}

impl Message {
    /// The message's kind.
    pub fn kind(&self) -> Kind {
        match self {
            Message::Handshake(_) => Kind::Handshake,
            Message::HandshakeReply(_) => Kind::HandshakeReply,
            Message::Commit(_) => Kind::Commit,
            Message::FenceRequest(_) => Kind::FenceRequest,
            Message::FenceRelease(_) => Kind::FenceRelease,
            Message::DmodexRequest(_) => Kind::DmodexRequest,
            Message::DmodexReply(_) => Kind::DmodexReply,
            Message::Abort(_) => Kind::Abort,
            Message::AbortReply(_) => Kind::AbortReply,
            Message::Finalize => Kind::Finalize,
            Message::FinalizeReply(_) => Kind::FinalizeReply,
            Message::Request(_) => Kind::Request,
            Message::Response(_) => Kind::Response,
            Message::Event(_) => Kind::Event,
            Message::Iof(_) => Kind::Iof,
            Message::ModexOffer(_) => Kind::ModexOffer,
            Message::Segments(_) => Kind::Segments,
            Message::NspaceRequest(_) => Kind::NspaceRequest,
            Message::NspaceReply(_) => Kind::NspaceReply,
            Message::ToolHandshake(_) => Kind::ToolHandshake,
            Message::ToolHandshakeReply(_) => Kind::ToolHandshakeReply,
        }
    }

    /// Number of descriptors that must travel with the message.
    pub fn fd_count(&self) -> usize {
        match self {
            Message::HandshakeReply(r) => r.segments.len(),
            Message::FenceRelease(r) => r.segments.len(),
            Message::ModexOffer(o) => o.segments.len(),
            Message::Segments(s) => s.len(),
            Message::NspaceReply(r) => r.segments.len(),
            _ => 0,
        }
    }

    /// Appends the message's body.
    pub fn encode_body(&self, out: &mut Vec<u8>) -> Result<(), CodecError> {
        match self {
            Message::Handshake(h) => {
                put_u32(out, h.version);
                put_proc(out, &h.proc)?;
                put_bytes(out, &h.secret);
            }
            Message::HandshakeReply(h) => {
                put_status(out, h.status);
                put_proc(out, &h.server)?;
                put_segments(out, &h.segments)?;
            }
            Message::Commit(items) => put_posted(out, items)?,
            Message::FenceRequest(f) => {
                put_procs(out, &f.procs)?;
                put_infos(out, &f.infos)?;
            }
            Message::FenceRelease(f) => {
                put_status(out, f.status);
                put_segments(out, &f.segments)?;
            }
            Message::ModexOffer(o) => {
                put_u64(out, o.commits);
                put_segments(out, &o.segments)?;
            }
            Message::DmodexRequest(d) => {
                put_proc(out, &d.proc)?;
                match &d.key {
                    Some(k) => {
                        out.push(1);
                        put_key(out, k)?;
                    }
                    None => out.push(0),
                }
                put_infos(out, &d.infos)?;
            }
            Message::DmodexReply(d) => {
                put_status(out, d.status);
                put_bytes(out, &d.data);
            }
            Message::Abort(a) => {
                put_status(out, a.status);
                put_opt_str(out, a.message.as_deref())?;
                put_procs(out, &a.procs)?;
            }
            Message::AbortReply(s) | Message::FinalizeReply(s) => put_status(out, *s),
            Message::Finalize => {}
            Message::Request(q) => {
                out.extend_from_slice(&q.op.0.to_le_bytes());
                put_bytes(out, &q.body);
            }
            Message::Response(a) => {
                put_status(out, a.status);
                put_bytes(out, &a.body);
            }
            Message::Event(body) | Message::Iof(body) => put_bytes(out, body),
            Message::Segments(s) => put_segments(out, s)?,
            Message::NspaceRequest(ns) => put_nspace(out, ns)?,
            Message::NspaceReply(n) => {
                put_status(out, n.status);
                put_segments(out, &n.segments)?;
            }
            Message::ToolHandshake(t) => {
                put_u32(out, t.version);
                match &t.proc {
                    Some(p) => {
                        out.push(1);
                        put_proc(out, p)?;
                    }
                    None => out.push(0),
                }
                put_infos(out, &t.infos)?;
            }
            Message::ToolHandshakeReply(t) => {
                put_status(out, t.status);
                put_proc(out, &t.server)?;
                put_proc(out, &t.tool)?;
            }
        }
        Ok(())
    }

    /// Decodes a body of kind `kind` that came with `nfds` descriptors,
    /// validating every field and the descriptor count.
    pub fn decode(kind: Kind, body: &[u8], nfds: usize) -> Result<Message, WireError> {
        let name = kind.name();
        let mut r = Reader::new(body);
        let r = &mut r;
        let b = |source| WireError::Body { kind: name, source };
        let invalid = |what| WireError::Invalid { kind: name, what };
        let msg = match kind {
            Kind::Handshake => {
                let version = get_u32(r).map_err(b)?;
                let proc = get_proc(r).map_err(b)?;
                let secret = get_bytes(r).map_err(b)?;
                if secret.len() > MAX_SECRET_LEN {
                    return Err(invalid("secret too long"));
                }
                Message::Handshake(Handshake {
                    version,
                    proc,
                    secret,
                })
            }
            Kind::HandshakeReply => {
                let status = get_status(r).map_err(b)?;
                let server = get_proc(r).map_err(b)?;
                let segments = get_segments(r, name)?;
                Message::HandshakeReply(HandshakeReply {
                    status,
                    server,
                    segments,
                })
            }
            Kind::Commit => Message::Commit(get_posted(r, name)?),
            Kind::FenceRequest => {
                let procs = get_procs(r).map_err(b)?;
                let infos = get_infos(r).map_err(b)?;
                Message::FenceRequest(FenceRequest { procs, infos })
            }
            Kind::FenceRelease => {
                let status = get_status(r).map_err(b)?;
                let segments = get_segments(r, name)?;
                Message::FenceRelease(FenceRelease { status, segments })
            }
            Kind::ModexOffer => {
                let commits = get_u64(r).map_err(b)?;
                let segments = get_segments(r, name)?;
                Message::ModexOffer(ModexOffer { commits, segments })
            }
            Kind::DmodexRequest => {
                let proc = get_proc(r).map_err(b)?;
                let key = match get_u8(r).map_err(b)? {
                    0 => None,
                    1 => Some(get_key(r).map_err(b)?),
                    _ => return Err(invalid("bad key flag")),
                };
                let infos = get_infos(r).map_err(b)?;
                Message::DmodexRequest(DmodexRequest { proc, key, infos })
            }
            Kind::DmodexReply => {
                let status = get_status(r).map_err(b)?;
                let data = get_bytes(r).map_err(b)?;
                Message::DmodexReply(DmodexReply { status, data })
            }
            Kind::Abort => {
                let status = get_status(r).map_err(b)?;
                let message = get_opt_str(r).map_err(b)?;
                let procs = get_procs(r).map_err(b)?;
                Message::Abort(Abort {
                    status,
                    message,
                    procs,
                })
            }
            Kind::AbortReply => Message::AbortReply(get_status(r).map_err(b)?),
            Kind::Finalize => Message::Finalize,
            Kind::FinalizeReply => Message::FinalizeReply(get_status(r).map_err(b)?),
            Kind::Request => {
                let lo = get_u8(r).map_err(b)?;
                let hi = get_u8(r).map_err(b)?;
                let body = get_bytes(r).map_err(b)?;
                Message::Request(Request {
                    op: Op(u16::from_le_bytes([lo, hi])),
                    body,
                })
            }
            Kind::Response => {
                let status = get_status(r).map_err(b)?;
                let body = get_bytes(r).map_err(b)?;
                Message::Response(Response { status, body })
            }
            Kind::Event => Message::Event(get_bytes(r).map_err(b)?),
            Kind::Iof => Message::Iof(get_bytes(r).map_err(b)?),
            Kind::Segments => Message::Segments(get_segments(r, name)?),
            Kind::NspaceRequest => Message::NspaceRequest(get_nspace(r).map_err(b)?),
            Kind::NspaceReply => {
                let status = get_status(r).map_err(b)?;
                let segments = get_segments(r, name)?;
                Message::NspaceReply(NspaceReply { status, segments })
            }
            Kind::ToolHandshake => {
                let version = get_u32(r).map_err(b)?;
                let proc = match get_u8(r).map_err(b)? {
                    0 => None,
                    1 => Some(get_proc(r).map_err(b)?),
                    _ => return Err(invalid("requested identity flag")),
                };
                let infos = get_infos(r).map_err(b)?;
                Message::ToolHandshake(ToolHandshake {
                    version,
                    proc,
                    infos,
                })
            }
            Kind::ToolHandshakeReply => {
                let status = get_status(r).map_err(b)?;
                let server = get_proc(r).map_err(b)?;
                let tool = get_proc(r).map_err(b)?;
                Message::ToolHandshakeReply(ToolHandshakeReply {
                    status,
                    server,
                    tool,
                })
            }
        };
        if r.remaining() != 0 {
            return Err(WireError::Trailing(r.remaining()));
        }
        if msg.fd_count() != nfds {
            return Err(WireError::MissingFds {
                expected: msg.fd_count(),
                got: nfds,
            });
        }
        Ok(msg)
    }
}

fn get_segments(r: &mut Reader<'_>, kind: &'static str) -> Result<Vec<SegmentRef>, WireError> {
    let b = |source| WireError::Body { kind, source };
    let n = get_count(r).map_err(b)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let nspace = get_nspace(r).map_err(b)?;
        let seg_kind = match get_u8(r).map_err(b)? {
            0 => SegmentKind::Job,
            1 => SegmentKind::Modex,
            2 => SegmentKind::ModexReplace,
            3 => SegmentKind::Barrier,
            _ => {
                return Err(WireError::Invalid {
                    kind,
                    what: "unknown segment kind",
                })
            }
        };
        let generation = get_u64(r).map_err(b)?;
        v.push(SegmentRef {
            nspace,
            kind: seg_kind,
            generation,
        });
    }
    Ok(v)
}
