//! Laying the job out (which rank runs on which node, in which
//! application) and deriving what the host did not give but clients
//! expect, as OpenPMIx 4.2's server does (`gds/hash`'s `store_map` and its
//! array processing) and beyond (application ranks, global ranks, directory
//! paths, cpusets, the ANL map).
//!
//! [`JobDescription::derive`] reads as its steps, in order: the namespace
//! checked, the job's size, its nodes and the ranks on each
//! ([`super::layout`]), its applications and the ranks in each, the
//! per-rank numbers, and last the keys derived from all that
//! ([`super::derived_keys`]). Each step refuses what contradicts the steps
//! before it, so the first contradiction in that order is the one reported.

use std::collections::BTreeMap;

use super::description::{
    want_string, want_u32, AppDesc, AppRecord, Collected, GivenProc, JobDescription, KeyValues,
    NodeDesc, NodeRecord, ProcTable, NONE,
};
use super::error::JobError;
use super::layout::Layout;
use crate::keys as k;
use crate::{Nspace, Value};

/// A value the host gave (`what`) that contradicts what the layout derives.
pub(super) fn mismatch(
    what: impl Into<String>,
    given: impl ToString,
    derived: impl ToString,
) -> JobError {
    JobError::Mismatch {
        what: what.into(),
        given: given.to_string(),
        derived: derived.to_string(),
    }
}

/// The part of a hostname before the first dot.
pub(super) fn short(name: &str) -> &str {
    name.split('.').next().unwrap_or(name)
}

/// The record of the node called `name`: by hostname or alias, else by
/// the short form of either name if exactly one record matches it.
pub(super) fn find_named(nodes: &[NodeRecord], name: &str) -> Option<usize> {
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
pub(super) fn peer_ranks(v: &Value) -> Result<Vec<u32>, JobError> {
    let list = want_string(k::LOCAL_PEERS, v)?;
    Ok(crate::regex::parse_ppn(list.replace(';', ",").as_bytes())?.concat())
}

/// Largest job described: the per-rank tables take about 20 bytes a rank,
/// so a registration claiming more is refused rather than allowed to
/// exhaust memory.
pub const MAX_JOB_SIZE: u32 = crate::regex::MAX_REGEX_EXPANSION as u32;

/// The job's size: `PMIX_JOB_SIZE`, else the ranks the process map
/// places, else one past the highest rank given data, else the sum of the
/// applications' sizes, else `nlocalprocs`. Refused above
/// [`MAX_JOB_SIZE`], or when a rank given data lies outside it.
fn job_size(c: &Collected, nlocalprocs: u32) -> Result<u32, JobError> {
    let size = if let Some(v) = c.job.get(k::JOB_SIZE) {
        want_u32(k::JOB_SIZE, v)?
    } else if let Some(groups) = &c.proc_map {
        let total: usize = groups.iter().map(Vec::len).sum();
        u32::try_from(total).map_err(|_| mismatch("ranks in PMIX_PROC_MAP", total, "u32"))?
    } else if let Some((&last, _)) = c.procs.last_key_value() {
        last + 1
    } else if !c.apps.is_empty() && c.apps.iter().all(|a| a.infos.get(k::APP_SIZE).is_some()) {
        let mut total = 0u32;
        for a in &c.apps {
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
    if let Some(&r) = c.procs.keys().find(|&&r| r >= size) {
        return Err(JobError::RankOutOfRange { rank: r, size });
    }
    Ok(size)
}

/// The applications: those described, the one the application keys
/// given on their own describe (`default`, numbered `default_appnum`),
/// one per application number the ranks' data names, else a single
/// application 0; by increasing number. An application number given on
/// its own for several applications goes to the job realm.
fn gather_apps(
    c: &mut Collected,
    procs: &BTreeMap<u32, GivenProc>,
    size: u32,
    job: &mut KeyValues,
) -> Result<Vec<AppRecord>, JobError> {
    let mut apps = std::mem::take(&mut c.apps);
    let default = std::mem::take(&mut c.default_app);
    if !default.is_empty() || c.default_appnum.is_some() {
        match apps.len() {
            0 => apps.push(AppRecord {
                appnum: c.default_appnum.unwrap_or(0),
                infos: default,
            }),
            1 => {
                if let Some(n) = c.default_appnum {
                    if n != apps[0].appnum {
                        return Err(mismatch("PMIX_APPNUM", n, apps[0].appnum));
                    }
                }
                apps[0].infos.merge(default);
            }
            _ if !default.is_empty() => return Err(JobError::AppnumRequired),
            _ => {
                if let Some(n) = c.default_appnum {
                    job.set(k::APPNUM, Value::Uint32(n));
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
    Ok(apps)
}

/// Each rank's application (index in `apps`): the only one; else from
/// the sizes and leaders given (an application without a leader follows
/// the previous one); a rank's own `PMIX_APPNUM` wins. Refused if a rank
/// is left without one.
fn rank_apps(
    apps: &[AppRecord],
    procs: &BTreeMap<u32, GivenProc>,
    size: u32,
) -> Result<Vec<u32>, JobError> {
    let mut rank_app: Vec<u32> = vec![NONE; size as usize];
    if apps.len() == 1 {
        rank_app.iter_mut().for_each(|x| *x = 0);
    } else {
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
    for (&r, p) in procs {
        if let Some(a) = p.appnum {
            rank_app[r as usize] = apps.iter().position(|x| x.appnum == a).unwrap_or(0) as u32;
        }
    }
    if let Some(r) = rank_app.iter().position(|&a| a == NONE) {
        return Err(JobError::AppUnknown(r as u32));
    }
    Ok(rank_app)
}

/// The given `PMIX_APP_SIZE`, `PMIX_APPLDR` and `PMIX_JOB_NUM_APPS` must
/// agree with the ranks each application got (`app_ranks`).
fn check_apps(apps: &[AppRecord], app_ranks: &[Vec<u32>], job: &KeyValues) -> Result<(), JobError> {
    for (a, ranks) in apps.iter().zip(app_ranks) {
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
    if let Some(v) = job.get(k::JOB_NUM_APPS) {
        let n = want_u32(k::JOB_NUM_APPS, v)?;
        if n as usize != apps.len() {
            return Err(mismatch("PMIX_JOB_NUM_APPS", n, apps.len()));
        }
    }
    Ok(())
}

/// The per-rank numbers as the layout gives them: local and node ranks
/// by place on the node, application ranks by place in the application,
/// global ranks from `PMIX_NPROC_OFFSET`.
fn numbered_ranks(
    d: &JobDescription,
    rank_node: Vec<u32>,
    rank_app: Vec<u32>,
    app_ranks: &[Vec<u32>],
) -> Result<ProcTable, JobError> {
    let size = d.size as usize;
    let mut t = ProcTable {
        node: rank_node,
        local_rank: vec![0; size],
        node_rank: vec![0; size],
        app_rank: vec![0; size],
        global_rank: vec![0; size],
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
    for ranks in app_ranks {
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
    Ok(t)
}

/// The numbers the ranks' own data gives win over those derived; a local
/// or node rank of a rank not placed is kept with its other keys.
fn apply_given_numbers(t: &mut ProcTable, procs: BTreeMap<u32, GivenProc>) {
    for (r, p) in procs {
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
}

impl JobDescription {
    /// A description of `nspace` with nothing derived yet.
    fn empty(nspace: &Nspace, nlocalprocs: u32, local_hostname: &str, nodata: bool) -> Self {
        JobDescription {
            nspace: nspace.clone(),
            nlocalprocs,
            local_hostname: local_hostname.to_owned(),
            nodata,
            size: 0,
            session_id: None,
            session: KeyValues::new(),
            job: KeyValues::new(),
            apps: Vec::new(),
            nodes: Vec::new(),
            local_node: None,
            procs: ProcTable::default(),
        }
    }

    /// Lays out and completes what `c` collected.
    pub(crate) fn derive(
        mut c: Collected,
        nspace: &Nspace,
        nlocalprocs: u32,
        local_hostname: &str,
    ) -> Result<JobDescription, JobError> {
        let mut d = JobDescription::empty(nspace, nlocalprocs, local_hostname, c.nodata);
        let ns_text = nspace.to_string_lossy().into_owned();
        if c.nodata {
            d.job.set(k::NSPACE, Value::string(&ns_text));
            return Ok(d);
        }
        if let Some(v) = c.job.get(k::NSPACE) {
            let given = want_string(k::NSPACE, v)?;
            if given != ns_text {
                return Err(JobError::NspaceMismatch {
                    nspace: ns_text,
                    given,
                });
            }
        }
        d.size = job_size(&c, nlocalprocs)?;
        d.session_id = c.session_id;
        d.session = std::mem::take(&mut c.session);
        d.job = std::mem::take(&mut c.job);
        let procs = std::mem::take(&mut c.procs);

        let node_map = c.node_map.take();
        let mut layout = Layout::new(
            std::mem::take(&mut c.nodes),
            node_map.as_deref(),
            d.size,
            nlocalprocs,
            local_hostname,
        )?;
        let local_kv = std::mem::take(&mut c.local_node);
        layout.place(c.proc_map.take(), node_map.as_deref(), &procs, &local_kv)?;
        layout.find_local(local_kv)?;
        layout.number_nodes(&procs)?;
        layout.check_proc_hostnames(&procs)?;
        d.nodes = (layout.nodes.into_iter().zip(layout.node_ranks))
            .map(|(rec, ranks)| NodeDesc {
                id: rec.id.unwrap_or(NONE),
                hostname: rec.hostname,
                aliases: rec.aliases,
                ranks,
                infos: rec.infos,
            })
            .collect();
        d.local_node = layout.local;

        let apps = gather_apps(&mut c, &procs, d.size, &mut d.job)?;
        let rank_app = rank_apps(&apps, &procs, d.size)?;
        let mut app_ranks: Vec<Vec<u32>> = vec![Vec::new(); apps.len()];
        for (r, &a) in rank_app.iter().enumerate() {
            app_ranks[a as usize].push(r as u32);
        }
        check_apps(&apps, &app_ranks, &d.job)?;

        d.procs = numbered_ranks(&d, layout.rank_node, rank_app, &app_ranks)?;
        apply_given_numbers(&mut d.procs, procs);
        d.apps = (apps.into_iter().zip(app_ranks))
            .map(|(a, ranks)| AppDesc {
                appnum: a.appnum,
                ranks,
                infos: a.infos,
            })
            .collect();

        d.derive_keys(&ns_text);
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::super::description::add_node_record;
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(short("n1.example.com"), "n1");
        assert_eq!(short("n1"), "n1");
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
