//! Job descriptions: what `PMIx_server_register_nspace` receives, the
//! layout it implies, the keys a client expects, and the shared-memory
//! segment that serves them.
//!
//! ```
//! use pmix::job::JobDescription;
//! use pmix::{keys, Info, Nspace, Value};
//! use pmix_shmem::LookupKey;
//!
//! // Three nodes, four, two and three ranks; this server runs on "n2".
//! let ns = Nspace::new("job-7").unwrap();
//! let infos = vec![
//!     Info::new(keys::NODE_MAP.try_into().unwrap(), Value::string("pmix[n[1:1-3]]")),
//!     Info::new(keys::PROC_MAP.try_into().unwrap(), Value::string("pmix[0-3;4-5;6-8]")),
//! ];
//! let job = JobDescription::from_registration(&ns, 2, &infos, "n2").unwrap();
//! assert_eq!(job.size(), 9);
//! assert_eq!(job.local_ranks(), &[4, 5]);
//!
//! let seg = job.build_segment().unwrap().open().unwrap();
//! let peers = seg.job_value(&LookupKey::from(keys::LOCAL_PEERS)).unwrap().unwrap();
//! assert_eq!(peers.as_c_str().unwrap().to_bytes(), b"4,5");
//! ```
//!
//! The forms accepted (section 16.2.3.2 of the standard): `PMIX_NODE_MAP`
//! and `PMIX_PROC_MAP` as strings or regexes in every form of
//! [`crate::regex`]; `PMIX_PROC_DATA` arrays (led by `PMIX_RANK`);
//! `PMIX_NODE_INFO_ARRAY` (named by `PMIX_NODEID` and/or `PMIX_HOSTNAME`),
//! `PMIX_APP_INFO_ARRAY` (named by `PMIX_APPNUM`), `PMIX_SESSION_INFO_ARRAY`
//! (named by `PMIX_SESSION_ID`), `PMIX_JOB_INFO_ARRAY`, and keys on their
//! own, filed by their realm ([`realm::key_realm`]): session keys to the
//! session, node keys to this node, application keys to the only
//! application, anything else to the job. `PMIX_QUALIFIED_VALUE`s keep
//! their primary value (qualifiers are not represented).
//!
//! What is derived when the host did not give it, with the type stored:
//!
//! | realm | key | type | value |
//! |---|---|---|---|
//! | session | `PMIX_UNIV_SIZE` | uint32 | the job's `PMIX_MAX_PROCS` |
//! | job | `PMIX_NSPACE`, `PMIX_JOBID` | string | the namespace |
//! | job | `PMIX_JOB_SIZE` | uint32 | ranks of the maps / data / apps, else `nlocalprocs` |
//! | job | `PMIX_MAX_PROCS` | uint32 | the job size |
//! | job | `PMIX_NUM_NODES` | uint32 | nodes hosting ranks |
//! | job | `PMIX_NODE_LIST` | string | their hostnames, comma-separated |
//! | job | `PMIX_JOB_NUM_APPS` | uint32 | applications |
//! | job | `PMIX_NSDIR` | string | `PMIX_TMPDIR/NSPACE` |
//! | job | `PMIX_ANL_MAP` | string | PMI-2 `(vector,(node,count,ppn),...)` when ranks are blocked by node |
//! | app | `PMIX_APPNUM`, `PMIX_APP_SIZE`, `PMIX_MAX_PROCS`, `PMIX_NUM_NODES` | uint32 | |
//! | app | `PMIX_APPLDR` | proc_rank | lowest rank |
//! | app | `PMIX_NODE_LIST` | string | |
//! | node | `PMIX_HOSTNAME` | string | |
//! | node | `PMIX_NODEID` | uint32 | as the host numbers it (node array, or a rank's `PMIX_PROC_DATA`), else its place in the node map if free, else the next free number |
//! | node | `PMIX_LOCAL_PEERS` | string | the node's ranks, comma-separated |
//! | node | `PMIX_LOCALLDR` | proc_rank | lowest of them |
//! | node | `PMIX_LOCAL_SIZE`, `PMIX_NODE_SIZE` | uint32 | their number |
//! | node (this one) | `PMIX_LOCAL_CPUSETS` | string | the ranks' cpusets joined by `:`, when all are known |
//! | proc | `PMIX_HOSTNAME` | string | |
//! | proc | `PMIX_NODEID`, `PMIX_APPNUM` | uint32 | |
//! | proc | `PMIX_LOCAL_RANK`, `PMIX_NODE_RANK` | uint16 | place among the node's ranks |
//! | proc | `PMIX_APP_RANK`, `PMIX_GLOBAL_RANK` | proc_rank | place in the app; `PMIX_NPROC_OFFSET` + rank |
//! | proc (local) | `PMIX_PROCDIR` | string | `PMIX_NSDIR/RANK` |
//! | proc (local) | `PMIX_CPUSET` | string | `hwloc:LIST`, from `PMIX_LOCAL_CPUSETS` |
//! | proc (local) | `PMIX_LOCALITY_STRING` | string | see [`JobDescription::derive_localities`] |
//! | proc (local) | `PMIX_DEVICE_DISTANCES` | data array | see [`JobDescription::derive_device_distances`] |
//!
//! The job realm of the segment also holds what a wildcard get without
//! qualifier finds there in OpenPMIx (see [`segment`]). Reserved keys the
//! host gives are stored in their standard type (a `PMIX_LOCAL_RANK` given
//! as an `int` is stored as a `uint16`); a value that does not fit is
//! refused.
//!
//! Refused with `PMIX_ERR_BAD_PARAM` ([`JobError`] says why): malformed
//! maps; maps given twice, of different lengths, naming a node twice or
//! placing a rank twice; ranks outside the job; sizes, leaders, node ids or
//! hostnames that contradict the maps; arrays missing their identifying
//! key; several applications without a way to tell their ranks apart; a
//! `nlocalprocs` that differs from the ranks placed on this node.

mod builder;
mod derive;
mod derived_keys;
mod description;
mod error;
mod layout;
pub mod realm;
pub mod segment;
pub mod stored;

pub use builder::{AppContext, SingleNodeJob};
pub use derive::MAX_JOB_SIZE;
pub use description::{AppDesc, JobDescription, KeyValues, NodeDesc};
pub use error::JobError;
pub use realm::{key_realm, Realm};

use description::{Collected, NONE};

use crate::keys as k;
use crate::{Info, Nspace, Status, Value};

impl JobDescription {
    /// Reads a registration (`PMIx_server_register_nspace(nspace,
    /// nlocalprocs, infos)`) made on the node called `local_hostname`, and
    /// derives the rest. `PMIX_ERR_BAD_PARAM` for malformed or inconsistent
    /// input; [`describe`](Self::describe) says why.
    pub fn from_registration(
        nspace: &Nspace,
        nlocalprocs: u32,
        infos: &[Info],
        local_hostname: &str,
    ) -> Result<JobDescription, Status> {
        Self::describe(nspace, nlocalprocs, infos, local_hostname).map_err(Status::from)
    }

    /// [`from_registration`](Self::from_registration) with the reason for
    /// a refusal.
    pub fn describe(
        nspace: &Nspace,
        nlocalprocs: u32,
        infos: &[Info],
        local_hostname: &str,
    ) -> Result<JobDescription, JobError> {
        let c = Collected::from_infos(infos)?;
        JobDescription::derive(c, nspace, nlocalprocs, local_hostname)
    }

    /// Computes `PMIX_LOCALITY_STRING` for each local rank whose cpuset is
    /// known (`PMIX_CPUSET`, or this node's `PMIX_LOCAL_CPUSETS`) and which
    /// the host gave none, or a NULL one (the derived default of every
    /// local rank, "unbound"): `locality` maps a cpuset in hwloc list syntax
    /// (`0-3,8`) to the locality string of those PUs on this node's
    /// topology (`PMIx_server_generate_locality_string`), `None` for an
    /// unbound process. Returns the number of strings added.
    pub fn derive_localities(&mut self, locality: impl Fn(&str) -> Option<String>) -> usize {
        self.derive_from_cpusets(k::LOCALITY_STRING, |list| {
            locality(list).map(|loc| Value::string(&loc))
        })
    }

    /// Computes `PMIX_DEVICE_DISTANCES` for each local rank whose cpuset
    /// is known and which the host gave none (as PRRTE gives them):
    /// `distances` maps a cpuset in hwloc list syntax to the distances
    /// from those PUs to this node's GPUs and NICs (a data array of
    /// `PMIX_DEVICE_DIST`), `None` when there are none. Returns the
    /// number of arrays added.
    pub fn derive_device_distances(&mut self, distances: impl Fn(&str) -> Option<Value>) -> usize {
        self.derive_from_cpusets(k::DEVICE_DISTANCES, distances)
    }

    /// Adds `infos` to the node-level data of node `host` (hostname or
    /// alias), each key the registration did not give for it; nothing
    /// if the job has no such node. Returns the number of keys added.
    pub fn add_node_values(&mut self, host: &str, infos: &[Info]) -> usize {
        let Some(node) = self.nodes.iter_mut().find(|n| n.is_named(host)) else {
            return 0;
        };
        let mut added = 0;
        for i in infos {
            let key = String::from_utf8_lossy(i.key.as_bytes()).into_owned();
            if node.infos.get(&key).is_none() {
                node.infos.set(&key, i.value.clone());
                added += 1;
            }
        }
        added
    }

    /// Sets `key` of each local rank whose cpuset is known and whose
    /// `key` the host left out (or NULL) to what `derive` makes of the
    /// cpuset's hwloc list, when it makes something.
    fn derive_from_cpusets(&mut self, key: &str, derive: impl Fn(&str) -> Option<Value>) -> usize {
        let mut added = 0;
        for &r in self.local_ranks().to_vec().iter() {
            let Some(e) = self.procs.extra.get_mut(&r) else {
                continue;
            };
            if matches!(e.get(key), Some(v) if *v != Value::String(None)) {
                continue;
            }
            let cpuset = match e.get(k::CPUSET) {
                Some(Value::String(Some(s))) => s.to_string_lossy().into_owned(),
                _ => continue,
            };
            let Some(list) = derived_keys::cpuset_list(&cpuset) else {
                continue;
            };
            if let Some(v) = derive(list) {
                e.set(key, v);
                added += 1;
            }
        }
        added
    }

    /// The namespace.
    pub fn nspace(&self) -> &Nspace {
        &self.nspace
    }

    /// The number of local processes the host announced.
    pub fn nlocalprocs(&self) -> u32 {
        self.nlocalprocs
    }

    /// The hostname of this server's node.
    pub fn local_hostname(&self) -> &str {
        &self.local_hostname
    }

    /// True if the host registered with `PMIX_REGISTER_NODATA`: nothing is
    /// known of the job beyond its namespace.
    pub fn is_nodata(&self) -> bool {
        self.nodata
    }

    /// `PMIX_JOB_SIZE`.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// `PMIX_SESSION_ID`, if given.
    pub fn session_id(&self) -> Option<u32> {
        self.session_id
    }

    /// The applications, by increasing number.
    pub fn apps(&self) -> &[AppDesc] {
        &self.apps
    }

    /// The nodes: those of the node map in its order, then the others the
    /// registration named.
    pub fn nodes(&self) -> &[NodeDesc] {
        &self.nodes
    }

    /// The node with id `id`.
    pub fn node_by_id(&self, id: u32) -> Option<&NodeDesc> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// The node called `name` (hostname or alias).
    pub fn node_by_name(&self, name: &str) -> Option<&NodeDesc> {
        self.nodes.iter().find(|n| n.is_named(name))
    }

    /// This server's node, if the description places it.
    pub fn local_node(&self) -> Option<&NodeDesc> {
        self.local_node.map(|i| &self.nodes[i])
    }

    /// The ranks on this node, in local-rank order (`PMIX_LOCAL_PEERS`);
    /// empty if the description does not place this node.
    pub fn local_ranks(&self) -> &[u32] {
        self.local_node().map_or(&[], |n| n.ranks.as_slice())
    }

    /// True if `rank` runs on this node.
    pub fn is_local(&self, rank: u32) -> bool {
        self.local_node
            .is_some_and(|l| self.procs.node.get(rank as usize) == Some(&(l as u32)))
    }

    /// The node `rank` runs on, if known.
    pub fn node_of(&self, rank: u32) -> Option<&NodeDesc> {
        match self.procs.node.get(rank as usize) {
            Some(&n) if n != NONE => Some(&self.nodes[n as usize]),
            _ => None,
        }
    }

    /// `PMIX_NODEID` of `rank`, if known.
    pub fn node_id_of(&self, rank: u32) -> Option<u32> {
        self.node_of(rank).map(|n| n.id)
    }

    /// `PMIX_HOSTNAME` of `rank`, if known.
    pub fn hostname_of(&self, rank: u32) -> Option<&str> {
        self.node_of(rank).and_then(NodeDesc::hostname)
    }

    /// The application `rank` belongs to.
    pub fn app_of(&self, rank: u32) -> Option<&AppDesc> {
        let a = *self.procs.app.get(rank as usize)?;
        self.apps.get(a as usize)
    }

    /// `PMIX_LOCAL_RANK` of `rank`, if its node is known.
    pub fn local_rank_of(&self, rank: u32) -> Option<u16> {
        self.node_of(rank)?;
        self.procs.local_rank.get(rank as usize).copied()
    }

    /// `PMIX_NODE_RANK` of `rank`, if its node is known.
    pub fn node_rank_of(&self, rank: u32) -> Option<u16> {
        self.node_of(rank)?;
        self.procs.node_rank.get(rank as usize).copied()
    }

    /// `PMIX_APP_RANK` of `rank`.
    pub fn app_rank_of(&self, rank: u32) -> Option<u32> {
        self.procs.app_rank.get(rank as usize).copied()
    }

    /// `PMIX_GLOBAL_RANK` of `rank`.
    pub fn global_rank_of(&self, rank: u32) -> Option<u32> {
        self.procs.global_rank.get(rank as usize).copied()
    }

    /// A job-realm value as a wildcard get finds it.
    pub fn job_value(&self, key: &str) -> Option<Value> {
        self.job_view().get(key).cloned()
    }

    /// A session-realm value.
    pub fn session_value(&self, key: &str) -> Option<&Value> {
        self.session.get(key)
    }

    /// A process-realm value of `rank`.
    pub fn proc_value(&self, rank: u32, key: &str) -> Option<Value> {
        self.proc_view(rank).get(key).cloned()
    }
}
