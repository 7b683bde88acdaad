//! Laying the job out (which rank runs on which node, in which
//! application) and deriving what the host did not give but clients
//! expect, as OpenPMIx 4.2's server does (`gds/hash`'s `store_map` and its
//! array processing) and beyond (application ranks, global ranks, directory
//! paths, cpusets, the ANL map).

use std::collections::HashSet;

use super::description::{
    want_string, want_u32, AppDesc, AppRecord, Collected, GivenProc, JobDescription, KeyValues,
    NodeDesc, NodeRecord, ProcTable, NONE,
};
use super::error::JobError;
use crate::keys as k;
use crate::value::DataArray;
use crate::{DataType, Nspace, Proc, Rank, Value};

fn mismatch(what: impl Into<String>, given: impl ToString, derived: impl ToString) -> JobError {
    JobError::Mismatch {
        what: what.into(),
        given: given.to_string(),
        derived: derived.to_string(),
    }
}

/// The part of a hostname before the first dot.
fn short(name: &str) -> &str {
    name.split('.').next().unwrap_or(name)
}

/// The record of the node called `name`: by hostname or alias, else by
/// the short form of either name if exactly one record matches it.
fn find_named(nodes: &[NodeRecord], name: &str) -> Option<usize> {
    if let Some(i) = nodes.iter().position(|n| n.is_named(name)) {
        return Some(i);
    }
    let s = short(name);
    let mut hits = nodes.iter().enumerate().filter(|(_, n)| {
        n.hostname.as_deref().is_some_and(|h| short(h) == s)
            || n.aliases.iter().any(|a| short(a) == s)
    });
    match (hits.next(), hits.next()) {
        (Some((i, _)), None) => Some(i),
        _ => None,
    }
}

/// The ranks a `PMIX_LOCAL_PEERS` value lists (commas, ranges, and the
/// `;` some hosts use between nodes' lists).
fn peer_ranks(v: &Value) -> Result<Vec<u32>, JobError> {
    let list = want_string(k::LOCAL_PEERS, v)?;
    Ok(crate::regex::parse_ppn(list.replace(';', ",").as_bytes())?.concat())
}

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

/// Largest job described: the per-rank tables take about 20 bytes a rank,
/// so a registration claiming more is refused rather than allowed to
/// exhaust memory.
pub const MAX_JOB_SIZE: u32 = crate::regex::MAX_REGEX_EXPANSION as u32;

impl JobDescription {
    /// Lays out and completes what `c` collected.
    pub(crate) fn derive(
        c: Collected,
        nspace: &Nspace,
        nlocalprocs: u32,
        local_hostname: &str,
    ) -> Result<JobDescription, JobError> {
        let mut d = JobDescription {
            nspace: nspace.clone(),
            nlocalprocs,
            local_hostname: local_hostname.to_owned(),
            nodata: c.nodata,
            size: 0,
            session_id: None,
            session: KeyValues::new(),
            job: KeyValues::new(),
            apps: Vec::new(),
            nodes: Vec::new(),
            local_node: None,
            procs: ProcTable::default(),
        };
        let ns_text = nspace.to_string_lossy().into_owned();
        if c.nodata {
            d.job.set(k::NSPACE, Value::string(&ns_text));
            return Ok(d);
        }
        let Collected {
            session_id,
            session,
            job,
            node_map,
            proc_map,
            nodes,
            local_node,
            apps,
            default_app,
            default_appnum,
            mut procs,
            ..
        } = c;
        if let Some(v) = job.get(k::NSPACE) {
            let given = want_string(k::NSPACE, v)?;
            if given != ns_text {
                return Err(JobError::NspaceMismatch {
                    nspace: ns_text,
                    given,
                });
            }
        }
        d.session_id = session_id;
        d.session = session;
        d.job = job;

        // --- Size.
        let size = if let Some(v) = d.job.get(k::JOB_SIZE) {
            want_u32(k::JOB_SIZE, v)?
        } else if let Some(groups) = &proc_map {
            let total: usize = groups.iter().map(Vec::len).sum();
            u32::try_from(total).map_err(|_| mismatch("ranks in PMIX_PROC_MAP", total, "u32"))?
        } else if let Some((&last, _)) = procs.last_key_value() {
            last + 1
        } else if !apps.is_empty() && apps.iter().all(|a| a.infos.get(k::APP_SIZE).is_some()) {
            let mut total = 0u32;
            for a in &apps {
                let s = want_u32(
                    k::APP_SIZE,
                    a.infos.get(k::APP_SIZE).unwrap_or(&Value::Undef),
                )?;
                total = total
                    .checked_add(s)
                    .ok_or_else(|| mismatch("sum of PMIX_APP_SIZE", "overflow", "u32"))?;
            }
            total
        } else {
            nlocalprocs
        };
        if size > MAX_JOB_SIZE {
            return Err(JobError::TooLarge(size));
        }
        d.size = size;
        if let Some(&r) = procs.keys().find(|&&r| r >= size) {
            return Err(JobError::RankOutOfRange { rank: r, size });
        }

        // --- Nodes, in node-map order first.
        let mut recs = nodes;
        let mut ordered: Vec<NodeRecord> = Vec::new();
        if let Some(names) = &node_map {
            let mut seen = HashSet::with_capacity(names.len());
            for name in names {
                if !seen.insert(name.as_str()) {
                    return Err(JobError::DuplicateNode(name.clone()));
                }
            }
            let mut slots: Vec<Option<NodeRecord>> = recs.into_iter().map(Some).collect();
            let mut index: std::collections::HashMap<String, usize> = Default::default();
            for (i, r) in slots.iter().enumerate() {
                for n in r
                    .iter()
                    .flat_map(|r| r.hostname.iter().chain(r.aliases.iter()))
                {
                    index.entry(n.clone()).or_insert(i);
                }
            }
            let mut taken = Vec::with_capacity(names.len());
            for name in names {
                let rec = match index.get(name.as_str()) {
                    Some(&i) => match slots[i].take() {
                        Some(r) => r,
                        None => return Err(JobError::DuplicateNode(name.clone())),
                    },
                    None => NodeRecord {
                        hostname: Some(name.clone()),
                        ..NodeRecord::default()
                    },
                };
                taken.push(rec);
            }
            ordered = taken;
            recs = Vec::new();
            // A node described by its id alone is the node at that place
            // in the node map (ids number the map's nodes).
            for rec in slots.into_iter().flatten() {
                match rec.id {
                    Some(id)
                        if rec.hostname.is_none()
                            && (id as usize) < ordered.len()
                            && ordered[id as usize].id.is_none() =>
                    {
                        let mut rec = rec;
                        rec.hostname = ordered[id as usize].hostname.clone();
                        ordered[id as usize].absorb(rec)?;
                    }
                    _ => recs.push(rec),
                }
            }
        }
        let map_nodes = ordered.len();
        ordered.append(&mut recs);
        let mut nodes = ordered;
        let mut node_ranks: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
        let mut rank_node: Vec<u32> = vec![NONE; size as usize];

        // --- Placement.
        let mut placed_all = false;
        if let Some(groups) = proc_map {
            let names = node_map.as_ref().ok_or(JobError::ProcMapWithoutNodeMap)?;
            if groups.len() != names.len() {
                return Err(JobError::MapMismatch {
                    nodes: names.len(),
                    groups: groups.len(),
                });
            }
            let mut total = 0usize;
            for (n, group) in groups.into_iter().enumerate() {
                for &r in &group {
                    if r >= size {
                        return Err(JobError::RankOutOfRange { rank: r, size });
                    }
                    if rank_node[r as usize] != NONE {
                        return Err(JobError::DuplicateRank(r));
                    }
                    rank_node[r as usize] = n as u32;
                }
                total += group.len();
                node_ranks[n] = group;
            }
            if total != size as usize {
                return Err(mismatch(
                    "PMIX_JOB_SIZE",
                    size,
                    format!("{total} ranks mapped"),
                ));
            }
            placed_all = true;
        } else if procs
            .values()
            .any(|p| p.nodeid.is_some() || p.hostname.is_some())
        {
            for (&r, p) in &procs {
                if p.nodeid.is_none() && p.hostname.is_none() {
                    continue;
                }
                let by_id = p
                    .nodeid
                    .and_then(|id| nodes.iter().position(|n| n.id == Some(id)));
                let by_name = p.hostname.as_deref().and_then(|h| find_named(&nodes, h));
                let n = match (by_id, by_name) {
                    (Some(a), Some(b)) if a != b => {
                        return Err(JobError::NodeConflict(format!(
                            "rank {r} is on node id {:?} and on host {:?}",
                            p.nodeid, p.hostname
                        )))
                    }
                    (Some(a), _) | (None, Some(a)) => {
                        if p.nodeid.is_some() && nodes[a].id.is_none() {
                            nodes[a].id = p.nodeid;
                        }
                        a
                    }
                    (None, None) => {
                        nodes.push(NodeRecord {
                            id: p.nodeid,
                            hostname: p.hostname.clone(),
                            ..NodeRecord::default()
                        });
                        node_ranks.push(Vec::new());
                        nodes.len() - 1
                    }
                };
                rank_node[r as usize] = n as u32;
                node_ranks[n].push(r);
            }
            placed_all = rank_node.iter().all(|&n| n != NONE);
        } else if nodes.iter().any(|n| n.infos.get(k::LOCAL_PEERS).is_some())
            || local_node.get(k::LOCAL_PEERS).is_some()
        {
            // Nodes described by their PMIX_LOCAL_PEERS (this node's may be
            // given on its own): the ranks listed run there.
            if let Some(v) = local_node.get(k::LOCAL_PEERS) {
                if find_named(&nodes, local_hostname).is_none() {
                    nodes.push(NodeRecord {
                        hostname: Some(local_hostname.to_owned()),
                        ..NodeRecord::default()
                    });
                    node_ranks.push(Vec::new());
                }
                let l = find_named(&nodes, local_hostname).unwrap_or(nodes.len() - 1);
                if nodes[l].infos.get(k::LOCAL_PEERS).is_none() {
                    nodes[l].infos.set(k::LOCAL_PEERS, v.clone());
                }
            }
            for (n, node) in nodes.iter().enumerate() {
                let Some(v) = node.infos.get(k::LOCAL_PEERS) else {
                    continue;
                };
                let ranks = peer_ranks(v)?;
                for &r in &ranks {
                    if r >= size {
                        return Err(JobError::RankOutOfRange { rank: r, size });
                    }
                    if rank_node[r as usize] != NONE {
                        return Err(JobError::DuplicateRank(r));
                    }
                    rank_node[r as usize] = n as u32;
                }
                node_ranks[n] = ranks;
            }
            placed_all = rank_node.iter().all(|&n| n != NONE);
        } else if nlocalprocs > 0 && size == nlocalprocs {
            let n = match find_named(&nodes, local_hostname) {
                Some(n) => n,
                None => {
                    nodes.push(NodeRecord {
                        hostname: Some(local_hostname.to_owned()),
                        ..NodeRecord::default()
                    });
                    node_ranks.push(Vec::new());
                    nodes.len() - 1
                }
            };
            node_ranks[n] = (0..size).collect();
            rank_node.iter_mut().for_each(|x| *x = n as u32);
            placed_all = true;
        }

        // --- This node, and the node keys given on their own. Found by
        // host name or alias; where the host names its nodes its own way
        // (Slurm's NodeName need not be the kernel's host name), by the
        // PMIX_NODEID the registration gives for this node, else by the
        // ranks of its PMIX_LOCAL_PEERS.
        let mut local_kv = local_node;
        let mut local = find_named(&nodes, local_hostname)
            .or_else(|| {
                let id = local_kv.get(k::NODEID).and_then(Value::as_u32)?;
                nodes.iter().position(|n| n.id == Some(id)).or_else(|| {
                    let i = id as usize;
                    // Ids number the node map's nodes where no node says
                    // otherwise.
                    (i < map_nodes && nodes.iter().all(|n| n.id.is_none())).then_some(i)
                })
            })
            .or_else(|| {
                let mut want = peer_ranks(local_kv.get(k::LOCAL_PEERS)?).ok()?;
                want.sort_unstable();
                node_ranks.iter().position(|ranks| {
                    let mut have = ranks.clone();
                    have.sort_unstable();
                    !have.is_empty() && have == want
                })
            });
        if !local_kv.is_empty() {
            let l = match local {
                Some(l) => l,
                None => {
                    nodes.push(NodeRecord {
                        hostname: Some(local_hostname.to_owned()),
                        ..NodeRecord::default()
                    });
                    node_ranks.push(Vec::new());
                    local = Some(nodes.len() - 1);
                    nodes.len() - 1
                }
            };
            if let Some(v) = local_kv.remove(k::HOSTNAME) {
                let h = want_string(k::HOSTNAME, &v)?;
                if !nodes[l].is_named(&h) {
                    nodes[l].aliases.push(h);
                }
            }
            if let Some(v) = local_kv.remove(k::NODEID) {
                let id = want_u32(k::NODEID, &v)?;
                match nodes[l].id {
                    Some(x) if x != id => {
                        return Err(JobError::NodeConflict(format!(
                            "this node has ids {x} and {id}"
                        )))
                    }
                    _ => nodes[l].id = Some(id),
                }
            }
            if let Some(v) = local_kv.get(k::HOSTNAME_ALIASES) {
                for a in want_string(k::HOSTNAME_ALIASES, v)?.split(',') {
                    if !a.is_empty() && !nodes[l].is_named(a) {
                        nodes[l].aliases.push(a.to_owned());
                    }
                }
            }
            nodes[l].infos.merge(local_kv);
        }
        match local {
            Some(l) if !node_ranks[l].is_empty() => {
                if node_ranks[l].len() != nlocalprocs as usize {
                    return Err(JobError::LocalCount {
                        host: local_hostname.to_owned(),
                        nlocalprocs,
                        placed: node_ranks[l].len(),
                    });
                }
            }
            _ => {
                if placed_all && size > 0 && nlocalprocs > 0 {
                    return Err(JobError::LocalNodeMissing {
                        host: local_hostname.to_owned(),
                        nlocalprocs,
                    });
                }
            }
        }

        // --- Node ids. Hosts number nodes their own way (Open MPI's
        // `mpirun` by its node pool, which need not follow the node map):
        // an id a rank's PMIX_PROC_DATA gives names that rank's node. A
        // node the host did not number gets its place in the node map if
        // free, else the next free number.
        //
        // Which source wins when they disagree: a node's own description
        // (PMIX_NODE_INFO_ARRAY) and the PMIX_NODEID given for this node,
        // then the maps' placement of a rank over the id in its
        // PMIX_PROC_DATA. Slurm 22.05 puts the registering node's id in
        // every rank's data: an id that another node has is ignored, as
        // the maps say where the rank runs (OpenPMIx stores it unchecked).
        // Two different ids for one node that no other node explains leave
        // no way to tell which is right: refused.
        for (&r, p) in &procs {
            let (Some(id), n) = (p.nodeid, rank_node[r as usize]) else {
                continue;
            };
            if n == NONE
                || nodes
                    .iter()
                    .enumerate()
                    .any(|(i, x)| i != n as usize && x.id == Some(id))
            {
                continue;
            }
            let node = &mut nodes[n as usize];
            match node.id {
                None => node.id = Some(id),
                Some(x) if x != id => {
                    return Err(mismatch(format!("PMIX_NODEID of rank {r}"), id, x));
                }
                _ => {}
            }
        }
        let mut used: HashSet<u32> = HashSet::new();
        for n in &nodes {
            if let Some(id) = n.id {
                if !used.insert(id) {
                    return Err(JobError::NodeConflict(format!("two nodes have id {id}")));
                }
            }
        }
        for (i, n) in nodes.iter_mut().enumerate().take(map_nodes) {
            if n.id.is_none() && used.insert(i as u32) {
                n.id = Some(i as u32);
            }
        }
        let mut next = 0u32;
        for n in nodes.iter_mut() {
            if n.id.is_none() {
                while used.contains(&next) {
                    next += 1;
                }
                used.insert(next);
                n.id = Some(next);
            }
        }

        // --- Where PMIX_PROC_DATA names a rank's host, it must be the
        // node the maps place it on.
        for (&r, p) in &procs {
            let n = rank_node[r as usize];
            let Some(h) = &p.hostname else {
                continue;
            };
            if n == NONE {
                continue;
            }
            let node = &nodes[n as usize];
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

        d.nodes = nodes
            .into_iter()
            .zip(node_ranks)
            .map(|(rec, ranks)| NodeDesc {
                id: rec.id.unwrap_or(NONE),
                hostname: rec.hostname,
                aliases: rec.aliases,
                ranks,
                infos: rec.infos,
            })
            .collect();
        d.local_node = local;

        // --- Applications.
        let mut apps = apps;
        if !default_app.is_empty() || default_appnum.is_some() {
            match apps.len() {
                0 => apps.push(AppRecord {
                    appnum: default_appnum.unwrap_or(0),
                    infos: default_app,
                }),
                1 => {
                    if let Some(n) = default_appnum {
                        if n != apps[0].appnum {
                            return Err(mismatch("PMIX_APPNUM", n, apps[0].appnum));
                        }
                    }
                    apps[0].infos.merge(default_app);
                }
                _ if !default_app.is_empty() => return Err(JobError::AppnumRequired),
                _ => {
                    if let Some(n) = default_appnum {
                        d.job.set(k::APPNUM, Value::Uint32(n));
                    }
                }
            }
        }
        for p in procs.values() {
            if let Some(a) = p.appnum {
                if !apps.iter().any(|x| x.appnum == a) {
                    apps.push(AppRecord {
                        appnum: a,
                        infos: KeyValues::new(),
                    });
                }
            }
        }
        if apps.is_empty() && size > 0 {
            apps.push(AppRecord::default());
        }
        apps.sort_by_key(|a| a.appnum);
        let napps = apps.len();
        let mut rank_app: Vec<u32> = vec![NONE; size as usize];
        if napps == 1 {
            rank_app.iter_mut().for_each(|x| *x = 0);
        } else {
            // Ranges from the sizes and leaders given (an application
            // without a leader follows the previous one).
            let sizes: Option<Vec<u32>> = apps
                .iter()
                .map(|a| a.infos.get(k::APP_SIZE).and_then(|v| v.as_u32()))
                .collect();
            if let Some(sizes) = sizes {
                let mut start = 0u32;
                for (i, a) in apps.iter().enumerate() {
                    if let Some(l) = a.infos.get(k::APPLDR).and_then(|v| v.as_u32()) {
                        start = l;
                    }
                    let end = start.saturating_add(sizes[i]).min(size);
                    for x in &mut rank_app[start.min(size) as usize..end as usize] {
                        *x = i as u32;
                    }
                    start = start.saturating_add(sizes[i]);
                }
            }
        }
        for (&r, p) in &procs {
            if let Some(a) = p.appnum {
                rank_app[r as usize] = apps.iter().position(|x| x.appnum == a).unwrap_or(0) as u32;
            }
        }
        if let Some(r) = rank_app.iter().position(|&a| a == NONE) {
            return Err(JobError::AppUnknown(r as u32));
        }
        let mut app_ranks: Vec<Vec<u32>> = vec![Vec::new(); napps];
        for (r, &a) in rank_app.iter().enumerate() {
            app_ranks[a as usize].push(r as u32);
        }
        for (a, ranks) in apps.iter().zip(&app_ranks) {
            if let Some(v) = a.infos.get(k::APP_SIZE) {
                let s = want_u32(k::APP_SIZE, v)?;
                if s as usize != ranks.len() {
                    return Err(mismatch(
                        format!("PMIX_APP_SIZE of application {}", a.appnum),
                        s,
                        ranks.len(),
                    ));
                }
            }
            if let Some(v) = a.infos.get(k::APPLDR) {
                let l = v.as_u32().unwrap_or(NONE);
                if Some(l) != ranks.first().copied() {
                    return Err(mismatch(
                        format!("PMIX_APPLDR of application {}", a.appnum),
                        l,
                        ranks.first().map_or("none".into(), u32::to_string),
                    ));
                }
            }
        }
        if let Some(v) = d.job.get(k::JOB_NUM_APPS) {
            let n = want_u32(k::JOB_NUM_APPS, v)?;
            if n as usize != napps {
                return Err(mismatch("PMIX_JOB_NUM_APPS", n, napps));
            }
        }

        // --- Per-rank numbers.
        let mut t = ProcTable {
            node: rank_node,
            local_rank: vec![0; size as usize],
            node_rank: vec![0; size as usize],
            app_rank: vec![0; size as usize],
            global_rank: vec![0; size as usize],
            app: rank_app,
            extra: Default::default(),
        };
        for node in &d.nodes {
            if node.ranks.len() > usize::from(u16::MAX) + 1 {
                return Err(JobError::TooManyLocal(
                    node.hostname.clone().unwrap_or_default(),
                ));
            }
            for (i, &r) in node.ranks.iter().enumerate() {
                t.local_rank[r as usize] = i as u16;
                t.node_rank[r as usize] = i as u16;
            }
        }
        for ranks in &app_ranks {
            for (i, &r) in ranks.iter().enumerate() {
                t.app_rank[r as usize] = i as u32;
            }
        }
        let offset = match d.job.get(k::NPROC_OFFSET) {
            Some(v) => v.as_u32().unwrap_or(0),
            None => 0,
        };
        for (r, g) in t.global_rank.iter_mut().enumerate() {
            *g = offset
                .checked_add(r as u32)
                .filter(|&g| g <= crate::Rank::VALID.0)
                .ok_or_else(|| mismatch("PMIX_NPROC_OFFSET", offset, "a rank overflow"))?;
        }
        for (r, p) in std::mem::take(&mut procs) {
            let GivenProc {
                local_rank,
                node_rank,
                app_rank,
                global_rank,
                mut extra,
                ..
            } = p;
            let i = r as usize;
            let placed = t.node[i] != NONE;
            if let Some(x) = local_rank {
                if placed {
                    t.local_rank[i] = x;
                } else {
                    extra.set(k::LOCAL_RANK, Value::Uint16(x));
                }
            }
            if let Some(x) = node_rank {
                if placed {
                    t.node_rank[i] = x;
                } else {
                    extra.set(k::NODE_RANK, Value::Uint16(x));
                }
            }
            if let Some(x) = app_rank {
                t.app_rank[i] = x;
            }
            if let Some(x) = global_rank {
                t.global_rank[i] = x;
            }
            if !extra.is_empty() {
                t.extra.insert(r, extra);
            }
        }
        d.procs = t;
        d.apps = apps
            .into_iter()
            .zip(app_ranks)
            .map(|(a, ranks)| AppDesc {
                appnum: a.appnum,
                ranks,
                infos: a.infos,
            })
            .collect();

        d.derive_keys(&ns_text);
        Ok(d)
    }

    /// Adds every key the host did not give but a client expects.
    fn derive_keys(&mut self, ns: &str) {
        let size = self.size;
        // Node counts and lists only when every rank is placed.
        let placed = size > 0 && !self.procs.node.contains(&NONE);
        let hosting: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| !self.nodes[i].ranks.is_empty())
            .collect();

        // Job realm.
        let job = &mut self.job;
        job.set_default(k::NSPACE, || Value::string(ns));
        job.set_default(k::JOBID, || Value::string(ns));
        job.set_default(k::JOB_SIZE, || Value::Uint32(size));
        job.set_default(k::MAX_PROCS, || Value::Uint32(size));
        job.set_default(k::JOB_NUM_APPS, || Value::Uint32(self.apps.len() as u32));
        if placed {
            job.set_default(k::NUM_NODES, || Value::Uint32(hosting.len() as u32));
            let names: Option<Vec<&str>> = hosting
                .iter()
                .map(|&i| self.nodes[i].hostname.as_deref())
                .collect();
            if let Some(names) = names {
                job.set_default(k::NODE_LIST, || Value::string(&names.join(",")));
            }
        }
        if let Some(anl) = anl_map(&self.nodes, &hosting, &self.procs.node) {
            job.set_default(k::ANL_MAP, || Value::string(&anl));
        }
        let nsdir = match job.get(k::NSDIR) {
            Some(Value::String(Some(s))) => Some(s.to_string_lossy().into_owned()),
            _ => match self.session.get(k::TMPDIR) {
                Some(Value::String(Some(t))) => {
                    let dir = format!("{}/{ns}", t.to_string_lossy().trim_end_matches('/'));
                    job.set(k::NSDIR, Value::string(&dir));
                    Some(dir)
                }
                _ => None,
            },
        };

        // Session realm.
        let max = job
            .get(k::MAX_PROCS)
            .and_then(Value::as_u32)
            .unwrap_or(size);
        self.session
            .set_default(k::UNIV_SIZE, || Value::Uint32(max));
        if let Some(id) = self.session_id {
            self.session.set(k::SESSION_ID, Value::Uint32(id));
        }

        // Application realm.
        let node_of = &self.procs.node;
        for app in &mut self.apps {
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
                let names: Option<Vec<&str>> = on
                    .iter()
                    .map(|&i| self.nodes[i as usize].hostname.as_deref())
                    .collect();
                if let Some(names) = names {
                    app.infos
                        .set_default(k::NODE_LIST, || Value::string(&names.join(",")));
                }
            }
        }

        // Node realm.
        for node in &mut self.nodes {
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

        // This node: cpusets and directories of its processes.
        if let Some(l) = self.local_node {
            let ranks = self.nodes[l].ranks.clone();
            let given = match self.nodes[l].infos.get(k::LOCAL_CPUSETS) {
                Some(Value::String(Some(s))) => {
                    let v = split_local_cpusets(&s.to_string_lossy());
                    (v.len() == ranks.len()).then_some(v)
                }
                // The standard's v5 form: an array of strings.
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
            let cpusets: Vec<Option<String>> = match given {
                Some(v) => v,
                None => ranks
                    .iter()
                    .map(
                        |r| match self.procs.extra.get(r).and_then(|e| e.get(k::CPUSET)) {
                            Some(Value::String(Some(s))) => {
                                cpuset_list(&s.to_string_lossy()).map(str::to_owned)
                            }
                            _ => None,
                        },
                    )
                    .collect(),
            };
            if !ranks.is_empty() && cpusets.iter().all(Option::is_some) {
                let joined: Vec<&str> = cpusets.iter().flatten().map(String::as_str).collect();
                self.nodes[l]
                    .infos
                    .set_default(k::LOCAL_CPUSETS, || Value::string(&joined.join(":")));
            }
            // PMIX_LOCAL_PROCS, this node's only: a proc is some 260 bytes
            // in C, too many to keep for every node of a large job.
            if !ranks.is_empty() {
                let nspace = &self.nspace;
                self.nodes[l].infos.set_default(k::LOCAL_PROCS, || {
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
                let e = self.procs.extra.entry(*r).or_default();
                if let Some(cs) = cs {
                    e.set_default(k::CPUSET, || Value::string(&format!("hwloc:{cs}")));
                }
                if let Some(dir) = &nsdir {
                    e.set_default(k::PROCDIR, || Value::string(&format!("{dir}/{r}")));
                }
                // Every local peer has a locality string: a NULL string
                // until one is computed from a known cpuset
                // (`derive_localities`), which is how Open MPI's mpirun
                // registers an unbound rank and what OpenPMIx's
                // `PMIx_server_generate_locality_string` gives for one.
                e.set_default(k::LOCALITY_STRING, || Value::String(None));
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::super::description::add_node_record;
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(rank_list(&[0, 1, 42, 4_000_000_000]), "0,1,42,4000000000");
        assert_eq!(rank_list(&[]), "");
        assert_eq!(short("n1.example.com"), "n1");
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

    #[test]
    fn node_records_merge() {
        let mut list = Vec::new();
        let a = NodeRecord {
            id: Some(3),
            ..NodeRecord::default()
        };
        let b = NodeRecord {
            hostname: Some("x".into()),
            ..NodeRecord::default()
        };
        let ab = NodeRecord {
            id: Some(3),
            hostname: Some("x".into()),
            ..NodeRecord::default()
        };
        add_node_record(&mut list, a).unwrap();
        add_node_record(&mut list, b).unwrap();
        assert_eq!(list.len(), 2);
        add_node_record(&mut list, ab).unwrap();
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].id, Some(3));
        assert_eq!(list[0].hostname.as_deref(), Some("x"));
        let clash = NodeRecord {
            id: Some(4),
            hostname: Some("x".into()),
            ..NodeRecord::default()
        };
        assert!(add_node_record(&mut list, clash).is_err());
    }
}
