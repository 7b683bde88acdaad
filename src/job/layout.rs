//! Laying a job's ranks out on its nodes, in the steps
//! [`JobDescription::derive`](super::JobDescription) takes them: the nodes
//! in node-map order ([`Layout::new`]), which rank runs on which node
//! ([`Layout::place`]), this server's node among them
//! ([`Layout::find_local`]), each node's id ([`Layout::number_nodes`]),
//! and the ranks' own hostnames checked against it all
//! ([`Layout::check_proc_hostnames`]).
//!
//! Invariants of a [`Layout`]: `node_ranks` has one entry per node (nodes
//! are only added through [`Layout::add_node`]); `rank_node` has one entry
//! per rank of the job, the index of its node or [`NONE`]; the first
//! `map_nodes` nodes are the node map's, in its order.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::derive::{find_named, mismatch, peer_ranks, short};
use super::description::{want_string, want_u32, GivenProc, KeyValues, NodeRecord, NONE};
use super::error::JobError;
use crate::keys as k;
use crate::Value;

/// The nodes of a job and the ranks on each, while they are worked out.
pub(super) struct Layout<'a> {
    pub nodes: Vec<NodeRecord>,
    /// The ranks on each node, in local-rank order.
    pub node_ranks: Vec<Vec<u32>>,
    /// Each rank's node (index in `nodes`), or [`NONE`].
    pub rank_node: Vec<u32>,
    /// This server's node.
    pub local: Option<usize>,
    /// How many of `nodes` the node map names (they come first).
    map_nodes: usize,
    /// Every rank has a node.
    placed_all: bool,
    size: u32,
    nlocalprocs: u32,
    local_hostname: &'a str,
}

/// A node known by its name alone.
fn named(hostname: &str) -> NodeRecord {
    NodeRecord {
        hostname: Some(hostname.to_owned()),
        ..NodeRecord::default()
    }
}

/// `records` in node-map order: the node map's nodes first (a name no
/// record has is a new node), then the records it does not name. Returns
/// them and the number the map names.
fn in_map_order(
    records: Vec<NodeRecord>,
    names: &[String],
) -> Result<(Vec<NodeRecord>, usize), JobError> {
    let mut seen = HashSet::with_capacity(names.len());
    for name in names {
        if !seen.insert(name.as_str()) {
            return Err(JobError::DuplicateNode(name.clone()));
        }
    }
    let mut slots: Vec<Option<NodeRecord>> = records.into_iter().map(Some).collect();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, r) in slots.iter().enumerate() {
        for n in r
            .iter()
            .flat_map(|r| r.hostname.iter().chain(r.aliases.iter()))
        {
            index.entry(n.clone()).or_insert(i);
        }
    }
    let mut ordered = Vec::with_capacity(names.len());
    for name in names {
        let rec = match index.get(name.as_str()) {
            Some(&i) => match slots[i].take() {
                Some(r) => r,
                None => return Err(JobError::DuplicateNode(name.clone())),
            },
            None => named(name),
        };
        ordered.push(rec);
    }
    let map_nodes = ordered.len();
    let mut rest = Vec::new();
    // A node described by its id alone is the node at that place in the
    // node map (ids number the map's nodes).
    for mut rec in slots.into_iter().flatten() {
        match rec.id {
            Some(id)
                if rec.hostname.is_none()
                    && (id as usize) < map_nodes
                    && ordered[id as usize].id.is_none() =>
            {
                rec.hostname = ordered[id as usize].hostname.clone();
                ordered[id as usize].absorb(rec)?;
            }
            _ => rest.push(rec),
        }
    }
    ordered.append(&mut rest);
    Ok((ordered, map_nodes))
}

/// Files the node keys given on their own (this node's) into `node`: its
/// other names, its id, and the rest as they are.
fn absorb_local_keys(node: &mut NodeRecord, mut kv: KeyValues) -> Result<(), JobError> {
    if let Some(v) = kv.remove(k::HOSTNAME) {
        let h = want_string(k::HOSTNAME, &v)?;
        if !node.is_named(&h) {
            node.aliases.push(h);
        }
    }
    if let Some(v) = kv.remove(k::NODEID) {
        let id = want_u32(k::NODEID, &v)?;
        match node.id {
            Some(x) if x != id => {
                return Err(JobError::NodeConflict(format!(
                    "this node has ids {x} and {id}"
                )))
            }
            _ => node.id = Some(id),
        }
    }
    if let Some(v) = kv.get(k::HOSTNAME_ALIASES) {
        for a in want_string(k::HOSTNAME_ALIASES, v)?.split(',') {
            if !a.is_empty() && !node.is_named(a) {
                node.aliases.push(a.to_owned());
            }
        }
    }
    node.infos.merge(kv);
    Ok(())
}

impl<'a> Layout<'a> {
    /// The nodes `records` describe, in node-map order, with no rank
    /// placed yet, for a job of `size` ranks, `nlocalprocs` of them on
    /// `local_hostname`.
    pub fn new(
        records: Vec<NodeRecord>,
        node_map: Option<&[String]>,
        size: u32,
        nlocalprocs: u32,
        local_hostname: &'a str,
    ) -> Result<Layout<'a>, JobError> {
        let (nodes, map_nodes) = match node_map {
            Some(names) => in_map_order(records, names)?,
            None => (records, 0),
        };
        Ok(Layout {
            node_ranks: vec![Vec::new(); nodes.len()],
            rank_node: vec![NONE; size as usize],
            nodes,
            local: None,
            map_nodes,
            placed_all: false,
            size,
            nlocalprocs,
            local_hostname,
        })
    }

    /// Adds a node; returns its index.
    fn add_node(&mut self, rec: NodeRecord) -> usize {
        self.nodes.push(rec);
        self.node_ranks.push(Vec::new());
        self.nodes.len() - 1
    }

    /// The node called like this server's, added if there is none.
    fn node_here(&mut self) -> usize {
        match find_named(&self.nodes, self.local_hostname) {
            Some(n) => n,
            None => self.add_node(named(self.local_hostname)),
        }
    }

    /// Puts rank `r` on node `n`: a rank of the job not placed yet.
    fn assign(&mut self, r: u32, n: usize) -> Result<(), JobError> {
        if r >= self.size {
            return Err(JobError::RankOutOfRange {
                rank: r,
                size: self.size,
            });
        }
        if self.rank_node[r as usize] != NONE {
            return Err(JobError::DuplicateRank(r));
        }
        self.rank_node[r as usize] = n as u32;
        Ok(())
    }

    /// Places the ranks from the first source the registration gives: the
    /// process map, the ranks' own `PMIX_PROC_DATA`, the nodes'
    /// `PMIX_LOCAL_PEERS`, else (a job all on this node) this node.
    pub fn place(
        &mut self,
        proc_map: Option<Vec<Vec<u32>>>,
        node_map: Option<&[String]>,
        procs: &BTreeMap<u32, GivenProc>,
        local_node: &KeyValues,
    ) -> Result<(), JobError> {
        if let Some(groups) = proc_map {
            self.place_by_proc_map(groups, node_map)
        } else if procs
            .values()
            .any(|p| p.nodeid.is_some() || p.hostname.is_some())
        {
            self.place_by_proc_data(procs)
        } else if self
            .nodes
            .iter()
            .any(|n| n.infos.get(k::LOCAL_PEERS).is_some())
            || local_node.get(k::LOCAL_PEERS).is_some()
        {
            self.place_by_local_peers(local_node)
        } else {
            if self.nlocalprocs > 0 && self.size == self.nlocalprocs {
                let n = self.node_here();
                self.node_ranks[n] = (0..self.size).collect();
                self.rank_node.iter_mut().for_each(|x| *x = n as u32);
                self.placed_all = true;
            }
            Ok(())
        }
    }

    /// The process map's group `n` runs on the node map's node `n`.
    fn place_by_proc_map(
        &mut self,
        groups: Vec<Vec<u32>>,
        node_map: Option<&[String]>,
    ) -> Result<(), JobError> {
        let names = node_map.ok_or(JobError::ProcMapWithoutNodeMap)?;
        if groups.len() != names.len() {
            return Err(JobError::MapMismatch {
                nodes: names.len(),
                groups: groups.len(),
            });
        }
        let mut total = 0usize;
        for (n, group) in groups.into_iter().enumerate() {
            for &r in &group {
                self.assign(r, n)?;
            }
            total += group.len();
            self.node_ranks[n] = group;
        }
        if total != self.size as usize {
            return Err(mismatch(
                "PMIX_JOB_SIZE",
                self.size,
                format!("{total} ranks mapped"),
            ));
        }
        self.placed_all = true;
        Ok(())
    }

    /// A rank whose `PMIX_PROC_DATA` names its node (by id or hostname)
    /// runs there; a node no record describes is added.
    fn place_by_proc_data(&mut self, procs: &BTreeMap<u32, GivenProc>) -> Result<(), JobError> {
        for (&r, p) in procs {
            if p.nodeid.is_none() && p.hostname.is_none() {
                continue;
            }
            let by_id = p
                .nodeid
                .and_then(|id| self.nodes.iter().position(|n| n.id == Some(id)));
            let by_name = p
                .hostname
                .as_deref()
                .and_then(|h| find_named(&self.nodes, h));
            let n = match (by_id, by_name) {
                (Some(a), Some(b)) if a != b => {
                    return Err(JobError::NodeConflict(format!(
                        "rank {r} is on node id {:?} and on host {:?}",
                        p.nodeid, p.hostname
                    )))
                }
                (Some(a), _) | (None, Some(a)) => {
                    if p.nodeid.is_some() && self.nodes[a].id.is_none() {
                        self.nodes[a].id = p.nodeid;
                    }
                    a
                }
                (None, None) => self.add_node(NodeRecord {
                    id: p.nodeid,
                    hostname: p.hostname.clone(),
                    ..NodeRecord::default()
                }),
            };
            self.rank_node[r as usize] = n as u32;
            self.node_ranks[n].push(r);
        }
        self.placed_all = self.rank_node.iter().all(|&n| n != NONE);
        Ok(())
    }

    /// Nodes described by their `PMIX_LOCAL_PEERS` (this node's may be
    /// given on its own): the ranks listed run there.
    fn place_by_local_peers(&mut self, local_node: &KeyValues) -> Result<(), JobError> {
        if let Some(v) = local_node.get(k::LOCAL_PEERS) {
            let l = self.node_here();
            if self.nodes[l].infos.get(k::LOCAL_PEERS).is_none() {
                self.nodes[l].infos.set(k::LOCAL_PEERS, v.clone());
            }
        }
        for n in 0..self.nodes.len() {
            let ranks = match self.nodes[n].infos.get(k::LOCAL_PEERS) {
                Some(v) => peer_ranks(v)?,
                None => continue,
            };
            for &r in &ranks {
                self.assign(r, n)?;
            }
            self.node_ranks[n] = ranks;
        }
        self.placed_all = self.rank_node.iter().all(|&n| n != NONE);
        Ok(())
    }

    /// This server's node: by host name or alias; where the host names
    /// its nodes its own way (Slurm's NodeName need not be the kernel's
    /// host name), by the `PMIX_NODEID` the registration gives for this
    /// node, else by the ranks of its `PMIX_LOCAL_PEERS`.
    fn locate_local(&self, local_kv: &KeyValues) -> Option<usize> {
        find_named(&self.nodes, self.local_hostname)
            .or_else(|| {
                let id = local_kv.get(k::NODEID).and_then(Value::as_u32)?;
                self.nodes
                    .iter()
                    .position(|n| n.id == Some(id))
                    .or_else(|| {
                        let i = id as usize;
                        // Ids number the node map's nodes where no node says
                        // otherwise.
                        (i < self.map_nodes && self.nodes.iter().all(|n| n.id.is_none()))
                            .then_some(i)
                    })
            })
            .or_else(|| {
                let mut want = peer_ranks(local_kv.get(k::LOCAL_PEERS)?).ok()?;
                want.sort_unstable();
                self.node_ranks.iter().position(|ranks| {
                    let mut have = ranks.clone();
                    have.sort_unstable();
                    !have.is_empty() && have == want
                })
            })
    }

    /// Finds this server's node and files the node keys given on their own
    /// (`local_kv`) there; then checks that it holds `nlocalprocs` ranks.
    pub fn find_local(&mut self, local_kv: KeyValues) -> Result<(), JobError> {
        self.local = self.locate_local(&local_kv);
        if !local_kv.is_empty() {
            let l = match self.local {
                Some(l) => l,
                None => {
                    let l = self.add_node(named(self.local_hostname));
                    self.local = Some(l);
                    l
                }
            };
            absorb_local_keys(&mut self.nodes[l], local_kv)?;
        }
        match self.local {
            Some(l) if !self.node_ranks[l].is_empty() => {
                if self.node_ranks[l].len() != self.nlocalprocs as usize {
                    return Err(JobError::LocalCount {
                        host: self.local_hostname.to_owned(),
                        nlocalprocs: self.nlocalprocs,
                        placed: self.node_ranks[l].len(),
                    });
                }
            }
            _ => {
                if self.placed_all && self.size > 0 && self.nlocalprocs > 0 {
                    return Err(JobError::LocalNodeMissing {
                        host: self.local_hostname.to_owned(),
                        nlocalprocs: self.nlocalprocs,
                    });
                }
            }
        }
        Ok(())
    }

    /// Node ids. Hosts number nodes their own way (Open MPI's `mpirun` by
    /// its node pool, which need not follow the node map): an id a rank's
    /// `PMIX_PROC_DATA` gives names that rank's node. A node the host did
    /// not number gets its place in the node map if free, else the next
    /// free number.
    ///
    /// Which source wins when they disagree: a node's own description
    /// (`PMIX_NODE_INFO_ARRAY`) and the `PMIX_NODEID` given for this node,
    /// then the maps' placement of a rank over the id in its
    /// `PMIX_PROC_DATA`. Slurm 22.05 puts the registering node's id in
    /// every rank's data: an id that another node has is ignored, as the
    /// maps say where the rank runs (OpenPMIx stores it unchecked). Two
    /// different ids for one node that no other node explains leave no way
    /// to tell which is right: refused.
    pub fn number_nodes(&mut self, procs: &BTreeMap<u32, GivenProc>) -> Result<(), JobError> {
        for (&r, p) in procs {
            let (Some(id), n) = (p.nodeid, self.rank_node[r as usize]) else {
                continue;
            };
            if n == NONE
                || self
                    .nodes
                    .iter()
                    .enumerate()
                    .any(|(i, x)| i != n as usize && x.id == Some(id))
            {
                continue;
            }
            let node = &mut self.nodes[n as usize];
            match node.id {
                None => node.id = Some(id),
                Some(x) if x != id => {
                    return Err(mismatch(format!("PMIX_NODEID of rank {r}"), id, x));
                }
                _ => {}
            }
        }
        let mut used: HashSet<u32> = HashSet::new();
        for n in &self.nodes {
            if let Some(id) = n.id {
                if !used.insert(id) {
                    return Err(JobError::NodeConflict(format!("two nodes have id {id}")));
                }
            }
        }
        for (i, n) in self.nodes.iter_mut().enumerate().take(self.map_nodes) {
            if n.id.is_none() && used.insert(i as u32) {
                n.id = Some(i as u32);
            }
        }
        let mut next = 0u32;
        for n in self.nodes.iter_mut() {
            if n.id.is_none() {
                while used.contains(&next) {
                    next += 1;
                }
                used.insert(next);
                n.id = Some(next);
            }
        }
        Ok(())
    }

    /// Where `PMIX_PROC_DATA` names a rank's host, it must be the node the
    /// maps place it on.
    pub fn check_proc_hostnames(&self, procs: &BTreeMap<u32, GivenProc>) -> Result<(), JobError> {
        for (&r, p) in procs {
            let n = self.rank_node[r as usize];
            let Some(h) = &p.hostname else {
                continue;
            };
            if n == NONE {
                continue;
            }
            let node = &self.nodes[n as usize];
            let same = node.is_named(h)
                || node
                    .hostname
                    .as_deref()
                    .is_some_and(|x| short(x) == short(h));
            if !same {
                return Err(mismatch(
                    format!("PMIX_HOSTNAME of rank {r}"),
                    h,
                    node.hostname.as_deref().unwrap_or("?"),
                ));
            }
        }
        Ok(())
    }
}
