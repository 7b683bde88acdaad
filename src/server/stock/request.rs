//! What a stock peer is (from its connect message) and what each of its
//! requests waits for: shared by the translations both ways.

use crate::openpmix::job_info::Release;
use crate::openpmix::PeerFormat;
use crate::Proc;

/// What a request of the peer waits for, by our request id.
#[derive(Clone, Debug)]
pub(in crate::server) enum Pending {
    /// The connect message: answered by the handshake reply, in the
    /// layout the peer's library reads.
    Connect(ConnectAnswer),
    /// `PMIX_REQ_CMD`: the namespace's job segment.
    Init,
    /// A get answered from the job segment: with `whole`, the job's
    /// whole data (what OpenPMIx's server sends a peer asking about
    /// another namespace, or for every key); else (`proc` WILDCARD) its
    /// job-level pairs of `key`, or `key` from the proc's data.
    GetJob {
        proc: Proc,
        key: Option<String>,
        whole: bool,
    },
    /// A get answered by our direct-modex path.
    GetModex,
    /// `PMIX_QUERY_CMD`: a status, the count and the infos answered.
    Query,
    /// `PMIX_LOOKUPNB_CMD`: a status, the count and the `pmix_pdata_t`s.
    Lookup,
    /// `PMIX_SPAWNNB_CMD`: a status and the new namespace.
    Spawn,
    /// A status, the count and the infos answered (job control,
    /// monitor, allocation, credential validation).
    Infos,
    /// `PMIX_GET_CREDENTIAL_CMD`: a status, the credential, the count
    /// and the infos.
    Credential,
    /// `PMIX_GROUP_CONSTRUCT_CMD`: a status, the `members` if the peer
    /// reads them (5.x), the context id if any.
    GroupConstruct { members: bool },
    /// `PMIX_IOF_PULL_CMD` of the peer's registration `id`: a status and
    /// the id.
    IofPull { id: u64 },
    /// `PMIX_RESOLVE_PEERS_CMD`: the processes of `nspace` on `node`
    /// (this node if `None`), from its job segment.
    ResolvePeers {
        nspace: crate::Nspace,
        node: Option<String>,
    },
    /// `PMIX_RESOLVE_NODE_CMD`: the nodes of the namespace, from its job
    /// segment.
    ResolveNode,
    /// A command answered by a status alone (fence, abort, finalize).
    Status,
}

/// What the connect message said.
#[derive(Clone, Debug)]
pub(in crate::server) struct Peer {
    /// The identity claimed.
    pub(in crate::server) proc: Proc,
    /// Its buffer format.
    pub(in crate::server) format: PeerFormat,
    /// Its library's release.
    pub(in crate::server) release: Release,
}

/// The layout of the answer to a connect message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::server) enum ConnectAnswer {
    /// A client's: status, then its index.
    Client,
    /// A tool's: status, the identifier assigned (if `needs_id`), the
    /// server's name, the security status.
    Tool {
        /// The tool asked the server for its identifier.
        needs_id: bool,
    },
}
