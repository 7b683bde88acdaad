//! Writing a job description into a shared-memory segment, realm by realm,
//! and the realm views the segment is made of.
//!
//! What goes where:
//! - session realm: the session's keys (`PMIX_SESSION_ID`,
//!   `PMIX_UNIV_SIZE`, `PMIX_TMPDIR`, ...);
//! - job realm: what a `PMIx_Get` with `PMIX_RANK_WILDCARD` and no realm
//!   qualifier finds — the job's keys, and, as OpenPMIx answers such a
//!   get, the session's keys, this node's node-realm keys and, in a job of
//!   one application, that application's keys (the job's own value wins
//!   where a key is in several);
//! - application realm: each application's keys, by `PMIX_APPNUM`;
//! - node realm: each node's keys, by `PMIX_NODEID` (and hostname);
//! - process realm: each rank's keys.

use pmix_shmem::{
    BuildError, ProcColumns, Scalar, SegmentBuilder, SegmentImage, StoredValue, StrZ,
};

use super::description::{JobDescription, KeyValues, NONE};
use super::stored::to_stored;
use crate::keys as k;
use crate::{Info, Status, Value};

/// The status for a segment that could not be built.
pub(crate) fn build_status(e: &BuildError) -> Status {
    match e {
        BuildError::BadKey(_)
        | BuildError::BadNspace(_)
        | BuildError::BadHostname(_)
        | BuildError::BadRank(_) => Status::ERR_BAD_PARAM,
        BuildError::TooManyKeys | BuildError::TooLarge => Status::ERR_OUT_OF_RESOURCE,
        _ => Status::ERROR,
    }
}

/// The per-rank numbers the process realm is laid from (the columns of
/// the description's process table).
struct RankColumns {
    node: Vec<u32>,
    app: Vec<u32>,
    local_rank: Vec<u16>,
    node_rank: Vec<u16>,
    app_rank: Vec<u32>,
    global_rank: Vec<u32>,
}

impl JobDescription {
    /// The session realm.
    pub fn session_view(&self) -> KeyValues {
        self.session.clone()
    }

    /// The job realm as a wildcard get sees it (see the module
    /// documentation).
    pub fn job_view(&self) -> KeyValues {
        let mut kv = self.session.clone();
        if let Some(l) = self.local_node {
            for (key, v) in self.nodes[l].infos.iter() {
                kv.set(key, v.clone());
            }
        }
        if let [app] = self.apps.as_slice() {
            for (key, v) in app.infos.iter() {
                kv.set(key, v.clone());
            }
        }
        for (key, v) in self.job.iter() {
            kv.set(key, v.clone());
        }
        kv
    }

    /// The process realm of `rank` (empty for a rank outside the job).
    pub fn proc_view(&self, rank: u32) -> KeyValues {
        let mut kv = KeyValues::new();
        let i = rank as usize;
        let t = &self.procs;
        if i >= t.app.len() {
            return kv;
        }
        let n = t.node[i];
        if n != NONE {
            let node = &self.nodes[n as usize];
            if let Some(h) = &node.hostname {
                kv.set(k::HOSTNAME, Value::string(h));
            }
            kv.set(k::NODEID, Value::Uint32(node.id));
            kv.set(k::LOCAL_RANK, Value::Uint16(t.local_rank[i]));
            kv.set(k::NODE_RANK, Value::Uint16(t.node_rank[i]));
        }
        kv.set(
            k::APPNUM,
            Value::Uint32(self.apps[t.app[i] as usize].appnum),
        );
        kv.set(k::APP_RANK, Value::ProcRank(t.app_rank[i]));
        kv.set(k::GLOBAL_RANK, Value::ProcRank(t.global_rank[i]));
        if let Some(e) = t.extra.get(&rank) {
            for (key, v) in e.iter() {
                kv.set(key, v.clone());
            }
        }
        kv
    }

    /// The process realm of `rank` as infos (what a `PMIX_PROC_DATA` array
    /// for it would hold, without `PMIX_RANK`).
    pub fn proc_infos(&self, rank: u32) -> Vec<Info> {
        self.proc_view(rank).to_infos()
    }

    /// Writes every realm into `b` (a builder for this namespace). The
    /// caller may add its own keys before building (a later set of the same
    /// key in the same row wins).
    pub fn write_segment(&self, b: &mut SegmentBuilder) -> Result<(), Status> {
        self.write(b, self.rank_columns())
            .map_err(|e| build_status(&e))
    }

    /// Builds the namespace's job segment: every realm, in an image of
    /// exact size, ready to [`seal`](SegmentImage::seal).
    pub fn build_segment(&self) -> Result<SegmentImage, Status> {
        let ns = self.nspace.to_string_lossy();
        let mut b = SegmentBuilder::new(&ns).map_err(|e| build_status(&e))?;
        self.write_segment(&mut b)?;
        b.build().map_err(|e| build_status(&e))
    }

    /// [`build_segment`](Self::build_segment) recording `generation` in
    /// the segment.
    pub fn build_segment_at(&self, generation: u64) -> Result<SegmentImage, Status> {
        let ns = self.nspace.to_string_lossy();
        let mut b = SegmentBuilder::new(&ns).map_err(|e| build_status(&e))?;
        b.generation(generation);
        self.write_segment(&mut b)?;
        b.build().map_err(|e| build_status(&e))
    }

    /// [`build_segment`](Self::build_segment) from a description that is
    /// no longer needed: the per-rank table moves into the segment's
    /// columns instead of being copied.
    pub fn into_segment(mut self) -> Result<SegmentImage, Status> {
        let ns = self.nspace.to_string_lossy();
        let mut b = SegmentBuilder::new(&ns).map_err(|e| build_status(&e))?;
        let t = &mut self.procs;
        let cols = RankColumns {
            node: std::mem::take(&mut t.node),
            app: std::mem::take(&mut t.app),
            local_rank: std::mem::take(&mut t.local_rank),
            node_rank: std::mem::take(&mut t.node_rank),
            app_rank: std::mem::take(&mut t.app_rank),
            global_rank: std::mem::take(&mut t.global_rank),
        };
        self.write(&mut b, cols).map_err(|e| build_status(&e))?;
        b.build().map_err(|e| build_status(&e))
    }

    /// A copy of the per-rank table's columns.
    fn rank_columns(&self) -> RankColumns {
        let t = &self.procs;
        RankColumns {
            node: t.node.clone(),
            app: t.app.clone(),
            local_rank: t.local_rank.clone(),
            node_rank: t.node_rank.clone(),
            app_rank: t.app_rank.clone(),
            global_rank: t.global_rank.clone(),
        }
    }

    fn write(&self, b: &mut SegmentBuilder, ranks: RankColumns) -> Result<(), BuildError> {
        for (key, v) in self.session.iter() {
            b.session(key, to_stored(v))?;
        }
        for (key, v) in self.job_view().iter() {
            b.job(key, to_stored(v))?;
        }
        for app in &self.apps {
            for (key, v) in app.infos.iter() {
                b.app(app.appnum, key, to_stored(v))?;
            }
        }
        for node in &self.nodes {
            // Every node is named, "" for one without a hostname: the
            // builder would otherwise fill the gap with `StrZ::default()`,
            // which holds no NUL, and the segment would fail validation.
            b.node_hostname(node.id, node.hostname.as_deref().unwrap_or(""))?;
            for (key, v) in node.infos.iter() {
                b.node(node.id, key, to_stored(v))?;
            }
        }
        self.write_procs(b, ranks)
    }

    /// The process realm, laid out column by column from the per-rank
    /// table (the one part whose size is the job's): the node's hostname
    /// and id chosen per rank through its node, the application number
    /// through its application, the numbers copied; what a rank has
    /// besides (`extra`) set rank by rank, winning over the columns.
    fn write_procs(&self, b: &mut SegmentBuilder, t: RankColumns) -> Result<(), BuildError> {
        let kh = b.key(k::HOSTNAME)?;
        let kid = b.key(k::NODEID)?;
        let klr = b.key(k::LOCAL_RANK)?;
        let knr = b.key(k::NODE_RANK)?;
        let kapp = b.key(k::APPNUM)?;
        let kar = b.key(k::APP_RANK)?;
        let kgr = b.key(k::GLOBAL_RANK)?;
        let mut cols = ProcColumns::new();
        let node = cols.index(t.node);
        let app = cols.index(t.app);
        cols.choice(
            kh,
            node,
            self.nodes
                .iter()
                .map(|n| {
                    n.hostname
                        .as_deref()
                        .map(|h| StoredValue::String(Some(StrZ::new(h).unwrap_or_default())))
                })
                .collect(),
        );
        cols.choice(
            kid,
            node,
            self.nodes
                .iter()
                .map(|n| Some(StoredValue::Uint32(n.id)))
                .collect(),
        );
        cols.scalar16(klr, t.local_rank, Some(node));
        cols.scalar16(knr, t.node_rank, Some(node));
        cols.choice(
            kapp,
            app,
            self.apps
                .iter()
                .map(|a| Some(StoredValue::Uint32(a.appnum)))
                .collect(),
        );
        cols.scalar(kar, Scalar::ProcRank, t.app_rank, None);
        cols.scalar(kgr, Scalar::ProcRank, t.global_rank, None);
        b.proc_columns(cols)?;
        for (&rank, e) in &self.procs.extra {
            for (key, v) in e.iter() {
                b.proc(rank, key, to_stored(v))?;
            }
        }
        Ok(())
    }
}
