//! The keys a client expects that the host did not give, derived from the
//! laid-out job by [`JobDescription::derive_keys`], one realm a step: the
//! job, the session, the applications, the nodes, and the processes of
//! this node (cpusets, directories, locality placeholders). A key the host
//! gave is never replaced (`set_default`), but for the identities the
//! layout decided (`PMIX_APPNUM`, `PMIX_HOSTNAME` and `PMIX_NODEID` of a
//! node, `PMIX_SESSION_ID`).

use super::description::{AppDesc, JobDescription, NodeDesc, ProcTable, NONE};
use crate::keys as k;
use crate::value::DataArray;
use crate::{DataType, Nspace, Proc, Rank, Value};

/// The comma-separated decimal list of `ranks`.
pub(crate) fn rank_list(ranks: &[u32]) -> String {
    let mut s = String::with_capacity(ranks.len() * 7);
    for (i, r) in ranks.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(itoa(*r).as_str());
    }
    s
}

/// Decimal text of `n` without a heap allocation.
fn itoa(mut n: u32) -> ItoaBuf {
    let mut buf = ItoaBuf {
        bytes: [0; 10],
        start: 10,
    };
    loop {
        buf.start -= 1;
        buf.bytes[buf.start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf
}

struct ItoaBuf {
    bytes: [u8; 10],
    start: usize,
}

impl ItoaBuf {
    fn as_str(&self) -> &str {
        // Only ASCII digits are ever written.
        std::str::from_utf8(&self.bytes[self.start..]).unwrap_or("0")
    }
}

/// The cpuset list of a `PMIX_CPUSET` string (`hwloc:0-3` or `0-3`);
/// `None` for an unbound process.
pub(crate) fn cpuset_list(s: &str) -> Option<&str> {
    let s = s.strip_prefix("hwloc:").unwrap_or(s);
    (!s.is_empty() && !s.eq_ignore_ascii_case("UNBOUND")).then_some(s)
}

/// The per-process cpusets of a `PMIX_LOCAL_CPUSETS` string (lists joined
/// by `:`, each possibly `hwloc:`-prefixed).
pub(crate) fn split_local_cpusets(s: &str) -> Vec<Option<String>> {
    s.split(':')
        .filter(|t| *t != "hwloc")
        .map(|t| cpuset_list(t).map(str::to_owned))
        .collect()
}

/// The hostnames of `nodes[i]` for each `i` of `which`, comma-separated;
/// `None` if one is not known.
fn node_list(nodes: &[NodeDesc], which: impl Iterator<Item = usize>) -> Option<String> {
    let names: Option<Vec<&str>> = which.map(|i| nodes[i].hostname.as_deref()).collect();
    names.map(|n| n.join(","))
}

/// `PMIX_ANL_MAP`: the PMI-2 process mapping `(vector,(N,C,P),...)` (from
/// node `N`, `C` nodes of `P` processes each), when every rank is placed
/// and each node holds the next block of ranks in node order.
fn anl_map(nodes: &[NodeDesc], hosting: &[usize], rank_node: &[u32]) -> Option<String> {
    if hosting.is_empty() || rank_node.contains(&NONE) {
        return None;
    }
    let mut next = 0u32;
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    for (pos, &i) in hosting.iter().enumerate() {
        let ranks = &nodes[i].ranks;
        for (j, &r) in ranks.iter().enumerate() {
            if r != next + j as u32 {
                return None;
            }
        }
        next += ranks.len() as u32;
        match runs.last_mut() {
            Some((_, count, ppn)) if *ppn == ranks.len() => *count += 1,
            _ => runs.push((pos, 1, ranks.len())),
        }
    }
    let body: Vec<String> = runs
        .iter()
        .map(|(n, c, p)| format!("({n},{c},{p})"))
        .collect();
    Some(format!("(vector,{})", body.join(",")))
}

/// The application realm: number, size, leader, and (when every rank is
/// `placed`) the nodes it runs on.
fn app_keys(app: &mut AppDesc, nodes: &[NodeDesc], node_of: &[u32], placed: bool) {
    let n = app.ranks.len() as u32;
    app.infos.set(k::APPNUM, Value::Uint32(app.appnum));
    app.infos.set_default(k::APP_SIZE, || Value::Uint32(n));
    app.infos.set_default(k::MAX_PROCS, || Value::Uint32(n));
    if let Some(&l) = app.ranks.first() {
        app.infos.set_default(k::APPLDR, || Value::ProcRank(l));
    }
    if placed {
        let mut on: Vec<u32> = app
            .ranks
            .iter()
            .map(|&r| node_of[r as usize])
            .filter(|&n| n != NONE)
            .collect();
        on.sort_unstable();
        on.dedup();
        app.infos
            .set_default(k::NUM_NODES, || Value::Uint32(on.len() as u32));
        if let Some(list) = node_list(nodes, on.iter().map(|&i| i as usize)) {
            app.infos.set_default(k::NODE_LIST, || Value::string(&list));
        }
    }
}

/// The node realm: name, id, and for a node with ranks its peers,
/// leader and sizes.
fn node_keys(node: &mut NodeDesc) {
    if let Some(h) = &node.hostname {
        node.infos.set(k::HOSTNAME, Value::string(h));
    }
    node.infos.set(k::NODEID, Value::Uint32(node.id));
    if !node.ranks.is_empty() {
        let n = node.ranks.len() as u32;
        let ldr = node.ranks.iter().copied().min().unwrap_or(0);
        node.infos
            .set_default(k::LOCAL_PEERS, || Value::string(&rank_list(&node.ranks)));
        node.infos.set_default(k::LOCALLDR, || Value::ProcRank(ldr));
        node.infos.set_default(k::LOCAL_SIZE, || Value::Uint32(n));
        node.infos.set_default(k::NODE_SIZE, || Value::Uint32(n));
    }
}

/// The cpusets of `node`'s ranks: its `PMIX_LOCAL_CPUSETS` (a `:`-joined
/// string, or the standard's v5 form, an array of strings) when it lists
/// one per rank, else each rank's own `PMIX_CPUSET`.
fn local_cpusets(node: &NodeDesc, procs: &ProcTable) -> Vec<Option<String>> {
    let ranks = &node.ranks;
    let given = match node.infos.get(k::LOCAL_CPUSETS) {
        Some(Value::String(Some(s))) => {
            let v = split_local_cpusets(&s.to_string_lossy());
            (v.len() == ranks.len()).then_some(v)
        }
        Some(Value::DataArray(a)) if a.items.len() == ranks.len() => a
            .items
            .iter()
            .map(|x| match x {
                Value::String(Some(s)) => {
                    Some(cpuset_list(&s.to_string_lossy()).map(str::to_owned))
                }
                _ => None,
            })
            .collect::<Option<Vec<_>>>(),
        _ => None,
    };
    given.unwrap_or_else(|| {
        ranks
            .iter()
            .map(
                |r| match procs.extra.get(r).and_then(|e| e.get(k::CPUSET)) {
                    Some(Value::String(Some(s))) => {
                        cpuset_list(&s.to_string_lossy()).map(str::to_owned)
                    }
                    _ => None,
                },
            )
            .collect()
    })
}

/// This node's processes: the node's `PMIX_LOCAL_CPUSETS` when every
/// cpuset is known, its `PMIX_LOCAL_PROCS`, and each rank's cpuset,
/// directory under `nsdir` and locality placeholder.
fn local_keys(node: &mut NodeDesc, procs: &mut ProcTable, nspace: &Nspace, nsdir: Option<&str>) {
    let ranks = node.ranks.clone();
    let cpusets = local_cpusets(node, procs);
    if !ranks.is_empty() && cpusets.iter().all(Option::is_some) {
        let joined: Vec<&str> = cpusets.iter().flatten().map(String::as_str).collect();
        node.infos
            .set_default(k::LOCAL_CPUSETS, || Value::string(&joined.join(":")));
    }
    // PMIX_LOCAL_PROCS, this node's only: a proc is some 260 bytes in C,
    // too many to keep for every node of a large job.
    if !ranks.is_empty() {
        node.infos.set_default(k::LOCAL_PROCS, || {
            Value::DataArray(Box::new(DataArray {
                elem_type: DataType::Proc,
                items: ranks
                    .iter()
                    .map(|&r| Value::Proc(Proc::new(nspace.clone(), Rank(r))))
                    .collect(),
            }))
        });
    }
    for (r, cs) in ranks.iter().zip(&cpusets) {
        let e = procs.extra.entry(*r).or_default();
        if let Some(cs) = cs {
            e.set_default(k::CPUSET, || Value::string(&format!("hwloc:{cs}")));
        }
        if let Some(dir) = nsdir {
            e.set_default(k::PROCDIR, || Value::string(&format!("{dir}/{r}")));
        }
        // Every local peer has a locality string: a NULL string until one
        // is computed from a known cpuset (`derive_localities`), which is
        // how Open MPI's mpirun registers an unbound rank and what
        // OpenPMIx's `PMIx_server_generate_locality_string` gives for one.
        e.set_default(k::LOCALITY_STRING, || Value::String(None));
    }
}

impl JobDescription {
    /// Adds every key the host did not give but a client expects.
    pub(super) fn derive_keys(&mut self, ns: &str) {
        // Node counts and lists only when every rank is placed.
        let placed = self.size > 0 && !self.procs.node.contains(&NONE);
        let nsdir = self.job_keys(ns, placed);
        self.session_keys();
        for app in &mut self.apps {
            app_keys(app, &self.nodes, &self.procs.node, placed);
        }
        self.nodes.iter_mut().for_each(node_keys);
        if let Some(l) = self.local_node {
            local_keys(
                &mut self.nodes[l],
                &mut self.procs,
                &self.nspace,
                nsdir.as_deref(),
            );
        }
    }

    /// The job realm; returns its `PMIX_NSDIR`, given or derived from the
    /// session's `PMIX_TMPDIR`.
    fn job_keys(&mut self, ns: &str, placed: bool) -> Option<String> {
        let size = self.size;
        let hosting: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| !self.nodes[i].ranks.is_empty())
            .collect();
        let job = &mut self.job;
        job.set_default(k::NSPACE, || Value::string(ns));
        job.set_default(k::JOBID, || Value::string(ns));
        job.set_default(k::JOB_SIZE, || Value::Uint32(size));
        job.set_default(k::MAX_PROCS, || Value::Uint32(size));
        job.set_default(k::JOB_NUM_APPS, || Value::Uint32(self.apps.len() as u32));
        if placed {
            job.set_default(k::NUM_NODES, || Value::Uint32(hosting.len() as u32));
            if let Some(list) = node_list(&self.nodes, hosting.iter().copied()) {
                job.set_default(k::NODE_LIST, || Value::string(&list));
            }
        }
        if let Some(anl) = anl_map(&self.nodes, &hosting, &self.procs.node) {
            job.set_default(k::ANL_MAP, || Value::string(&anl));
        }
        match job.get(k::NSDIR) {
            Some(Value::String(Some(s))) => Some(s.to_string_lossy().into_owned()),
            _ => match self.session.get(k::TMPDIR) {
                Some(Value::String(Some(t))) => {
                    let dir = format!("{}/{ns}", t.to_string_lossy().trim_end_matches('/'));
                    job.set(k::NSDIR, Value::string(&dir));
                    Some(dir)
                }
                _ => None,
            },
        }
    }

    /// The session realm: the universe size (the job's `PMIX_MAX_PROCS`)
    /// and the session id.
    fn session_keys(&mut self) {
        let max = self
            .job
            .get(k::MAX_PROCS)
            .and_then(Value::as_u32)
            .unwrap_or(self.size);
        self.session
            .set_default(k::UNIV_SIZE, || Value::Uint32(max));
        if let Some(id) = self.session_id {
            self.session.set(k::SESSION_ID, Value::Uint32(id));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(rank_list(&[0, 1, 42, 4_000_000_000]), "0,1,42,4000000000");
        assert_eq!(rank_list(&[]), "");
        assert_eq!(cpuset_list("hwloc:0-3"), Some("0-3"));
        assert_eq!(cpuset_list("UNBOUND"), None);
        assert_eq!(
            split_local_cpusets("hwloc:0-1:hwloc:2-3"),
            vec![Some("0-1".into()), Some("2-3".into())]
        );
        assert_eq!(
            split_local_cpusets("0,2:1,3:"),
            vec![Some("0,2".into()), Some("1,3".into()), None]
        );
    }
}
