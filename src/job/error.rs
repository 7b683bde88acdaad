//! Why a job description was refused.

use crate::regex::RegexError;
use crate::Status;

/// A registration that cannot describe a job: malformed, of the wrong
/// type, or inconsistent. Every variant maps to `PMIX_ERR_BAD_PARAM`
/// (see [`JobError::status`]); the variant says what was wrong, for logs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JobError {
    /// A reserved key holds a value of a type it cannot have (or a number
    /// out of range for its type).
    #[error("{key}: expected {expected}, got {found}")]
    BadType {
        /// The key.
        key: String,
        /// What the key holds.
        expected: &'static str,
        /// The data type that was given.
        found: String,
    },
    /// A `PMIX_NODE_MAP` or `PMIX_PROC_MAP` could not be parsed.
    #[error("{0}")]
    Regex(#[from] RegexError),
    /// A map given twice (OpenPMIx refuses this too).
    #[error("{0} given more than once")]
    DuplicateMap(&'static str),
    /// `PMIX_PROC_MAP` without `PMIX_NODE_MAP`: ranks without places.
    #[error("PMIX_PROC_MAP given without PMIX_NODE_MAP")]
    ProcMapWithoutNodeMap,
    /// The maps do not describe the same number of nodes.
    #[error("node map names {nodes} nodes, process map describes {groups}")]
    MapMismatch {
        /// Nodes in the node map.
        nodes: usize,
        /// Groups of ranks in the process map.
        groups: usize,
    },
    /// A name appears twice in the node map.
    #[error("node {0:?} appears twice in the node map")]
    DuplicateNode(String),
    /// A rank is placed twice, or described by two `PMIX_PROC_DATA` arrays.
    #[error("rank {0} is described twice")]
    DuplicateRank(u32),
    /// A rank at or above the job size.
    #[error("rank {rank} is outside a job of {size} processes")]
    RankOutOfRange {
        /// The rank.
        rank: u32,
        /// The job size.
        size: u32,
    },
    /// Two descriptions of one quantity disagree.
    #[error("{what}: given {given}, the description gives {derived}")]
    Mismatch {
        /// What disagrees.
        what: String,
        /// The value given.
        given: String,
        /// The value the rest of the description implies.
        derived: String,
    },
    /// A `PMIX_PROC_DATA` array without `PMIX_RANK`.
    #[error("PMIX_PROC_DATA array without a PMIX_RANK")]
    ProcDataWithoutRank,
    /// A node array with neither `PMIX_NODEID` nor `PMIX_HOSTNAME`.
    #[error("PMIX_NODE_INFO_ARRAY without PMIX_NODEID or PMIX_HOSTNAME")]
    NodeWithoutIdentity,
    /// Two nodes claim one node id, or one node two ids or two names.
    #[error("conflicting node identities: {0}")]
    NodeConflict(String),
    /// An application array naming two application numbers.
    #[error("PMIX_APP_INFO_ARRAY names two applications ({0} and {1})")]
    TwoAppnums(u32, u32),
    /// Application data that cannot be attributed: no application number
    /// where several applications exist.
    #[error("application information without PMIX_APPNUM in a job of several applications")]
    AppnumRequired,
    /// Several applications, and no way to tell which ranks belong to
    /// which (no `PMIX_APPNUM` per process, no sizes or leaders).
    #[error("cannot tell which application rank {0} belongs to")]
    AppUnknown(u32),
    /// A session array without `PMIX_SESSION_ID`, or two session ids.
    #[error("session information: {0}")]
    Session(&'static str),
    /// `PMIX_NSPACE` names another namespace.
    #[error("PMIX_NSPACE {given:?} differs from the namespace registered, {nspace:?}")]
    NspaceMismatch {
        /// The namespace registered.
        nspace: String,
        /// The value of `PMIX_NSPACE`.
        given: String,
    },
    /// The local node hosts a different number of ranks than
    /// `nlocalprocs` says.
    #[error("nlocalprocs is {nlocalprocs}, the description places {placed} ranks on {host:?}")]
    LocalCount {
        /// This node's hostname.
        host: String,
        /// The `nlocalprocs` argument.
        nlocalprocs: u32,
        /// Ranks the description places here.
        placed: usize,
    },
    /// The description places every rank, none on this node, yet
    /// `nlocalprocs` is not zero.
    #[error("{nlocalprocs} local processes, but the node map does not name this node ({host:?})")]
    LocalNodeMissing {
        /// This node's hostname.
        host: String,
        /// The `nlocalprocs` argument.
        nlocalprocs: u32,
    },
    /// A job larger than [`MAX_JOB_SIZE`](super::MAX_JOB_SIZE).
    #[error("a job of {0} processes is larger than this library describes")]
    TooLarge(u32),
    /// More processes on one node than a 16-bit local rank can number.
    #[error("node {0:?} hosts more than 65536 ranks of the job")]
    TooManyLocal(String),
}

impl JobError {
    /// The status `PMIx_server_register_nspace` returns: always
    /// `PMIX_ERR_BAD_PARAM`.
    pub fn status(&self) -> Status {
        Status::ERR_BAD_PARAM
    }
}

impl From<JobError> for Status {
    fn from(e: JobError) -> Status {
        e.status()
    }
}
