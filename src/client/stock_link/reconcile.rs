//! Making a stock host's job data consistent before it becomes a job
//! segment of ours.
//!
//! A host may register data that contradict themselves and that
//! OpenPMIx's client stores as given, key by key, where our job
//! description (which derives one node table from everything) refuses
//! them. Two such hosts, seen on more than one node:
//! - Open MPI 4.1's `orted` on OpenPMIx 4.2.2: each process's data carry
//!   its node's right `PMIX_NODEID` (the node's daemon id), this node's
//!   array too, but the array of every OTHER node names a wrong one
//!   (this node's id, or 0);
//! - Slurm 22.05's `slurmstepd`: this node's array names its id, the
//!   other nodes' arrays none, and every process's data name THIS node's
//!   id, wherever the process runs.
//!
//! The rules, in order: this node's id is what its own array says (else
//! what its own processes' data say); another host's claim of that id is
//! dropped; then what the processes' data (`PMIX_PROC_DATA`:
//! `PMIX_HOSTNAME` and `PMIX_NODEID`) say of a host wins over a node
//! array's `PMIX_NODEID` that disagrees, which is dropped. A node or a
//! process that loses its `PMIX_NODEID` keeps its host name, by which the
//! node is known (and numbered by the job description). Data that agree
//! pass unchanged.

use std::collections::BTreeMap;

use crate::{keys, Info, Value};

fn is(i: &Info, k: &str) -> bool {
    i.key.as_bytes() == k.as_bytes()
}

/// The host name and node id an info array (a node's or a process's)
/// names, if it names both.
fn host_and_id(items: &[Info]) -> Option<(String, u32)> {
    let host = items
        .iter()
        .find(|i| is(i, keys::HOSTNAME))
        .and_then(|i| i.value.as_str())?;
    let id = items
        .iter()
        .find(|i| is(i, keys::NODEID))
        .and_then(|i| i.value.as_u32())?;
    Some((host.to_owned(), id))
}

/// `items` without its `PMIX_NODEID` when `drop` says so of its host
/// and id.
fn without_id(items: Vec<Info>, drop: impl Fn(&str, u32) -> bool) -> (Vec<Info>, bool) {
    match host_and_id(&items) {
        Some((host, id)) if drop(&host, id) => (
            items.into_iter().filter(|x| !is(x, keys::NODEID)).collect(),
            true,
        ),
        _ => (items, false),
    }
}

/// `infos` with the node ids that contradict the rules of the module doc
/// dropped; `hostname` is this node's.
pub(super) fn consistent_node_ids(infos: Vec<Info>, hostname: &str) -> Vec<Info> {
    let arrays = |k: &'static str| {
        infos
            .iter()
            .filter(move |i| is(i, k))
            .filter_map(|i| i.value.infos())
            .filter_map(|a| host_and_id(&a))
    };
    let here = arrays(keys::NODE_INFO_ARRAY)
        .chain(arrays(keys::PROC_DATA))
        .find(|(h, _)| h == hostname)
        .map(|(_, id)| id);
    let not_mine = |host: &str, id: u32| host != hostname && Some(id) == here;
    // A process's data first (the claims of this node's id by others
    // dropped), then the node arrays against what remains.
    let infos = rewrite(infos, keys::PROC_DATA, &not_mine);
    let mut by_host: BTreeMap<String, u32> = BTreeMap::new();
    for i in infos.iter().filter(|i| is(i, keys::PROC_DATA)) {
        if let Some((host, id)) = i.value.infos().as_deref().and_then(host_and_id) {
            by_host.entry(host).or_insert(id);
        }
    }
    rewrite(infos, keys::NODE_INFO_ARRAY, &|host: &str, id: u32| {
        not_mine(host, id) || by_host.get(host).is_some_and(|&want| want != id)
    })
}

/// `infos` with the `PMIX_NODEID` of every `kind` array dropped where
/// `drop` says so.
fn rewrite(infos: Vec<Info>, kind: &str, drop: &dyn Fn(&str, u32) -> bool) -> Vec<Info> {
    infos
        .into_iter()
        .map(|i| {
            if !is(&i, kind) {
                return i;
            }
            let Some(items) = i.value.infos() else {
                return i;
            };
            match without_id(items, drop) {
                (kept, true) => Info {
                    value: Value::info_array(kept),
                    ..i
                },
                _ => i,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Key;

    fn info(k: &str, v: Value) -> Info {
        Info::new(Key::new(k).unwrap(), v)
    }

    fn node(host: &str, id: u32) -> Info {
        info(
            keys::NODE_INFO_ARRAY,
            Value::info_array(vec![
                info(keys::HOSTNAME, Value::string(host)),
                info(keys::NODEID, Value::Uint32(id)),
            ]),
        )
    }

    fn proc_data(rank: u32, host: &str, id: u32) -> Info {
        info(
            keys::PROC_DATA,
            Value::info_array(vec![
                info(keys::RANK, Value::ProcRank(rank)),
                info(keys::HOSTNAME, Value::string(host)),
                info(keys::NODEID, Value::Uint32(id)),
            ]),
        )
    }

    fn node_id_of(infos: &[Info], host: &str) -> Option<u32> {
        infos
            .iter()
            .filter(|i| is(i, keys::NODE_INFO_ARRAY))
            .filter_map(|i| i.value.infos())
            .find(|a| {
                a.iter()
                    .any(|x| is(x, keys::HOSTNAME) && x.value.as_str() == Some(host))
            })
            .and_then(|a| {
                a.iter()
                    .find(|x| is(x, keys::NODEID))
                    .and_then(|x| x.value.as_u32())
            })
    }

    fn node_bare(host: &str) -> Info {
        info(
            keys::NODE_INFO_ARRAY,
            Value::info_array(vec![info(keys::HOSTNAME, Value::string(host))]),
        )
    }

    /// The job description `infos` give at `host` (4 ranks).
    fn describe(infos: &[Info], host: &str, local: u32) -> crate::job::JobDescription {
        let all = [infos, &[info(keys::JOB_SIZE, Value::Uint32(4))]].concat();
        crate::job::JobDescription::describe(&crate::Nspace::new("j").unwrap(), local, &all, host)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// What orted registers at 2 nodes (2 ranks each), as node n1 and as
    /// node n2 see it: the other node's array names a wrong id.
    #[test]
    fn orted_s_wrong_ids_of_other_nodes_arrays_are_dropped() {
        let procs = || {
            vec![
                proc_data(0, "n1", 1),
                proc_data(1, "n1", 1),
                proc_data(2, "n2", 2),
                proc_data(3, "n2", 2),
            ]
        };
        let at_n1 = [vec![node("n1", 1), node("n2", 1)], procs()].concat();
        let out = consistent_node_ids(at_n1, "n1");
        assert_eq!(node_id_of(&out, "n1"), Some(1));
        assert_eq!(node_id_of(&out, "n2"), None);
        describe(&out, "n1", 2);
        let at_n2 = [vec![node("n2", 2), node("n1", 0)], procs()].concat();
        let out = consistent_node_ids(at_n2, "n2");
        assert_eq!(node_id_of(&out, "n2"), Some(2));
        assert_eq!(node_id_of(&out, "n1"), None);
        describe(&out, "n2", 2);
    }

    /// What slurmstepd of node b registers (a: ranks 0-2, b: rank 3):
    /// every process's data name b's id.
    #[test]
    fn slurm_s_local_id_in_every_process_s_data_is_dropped_for_others() {
        let infos = vec![
            node("b", 1),
            node_bare("a"),
            proc_data(0, "a", 1),
            proc_data(1, "a", 1),
            proc_data(2, "a", 1),
            proc_data(3, "b", 1),
        ];
        let out = consistent_node_ids(infos, "b");
        assert_eq!(node_id_of(&out, "b"), Some(1));
        let job = describe(&out, "b", 1);
        assert_eq!(job.local_ranks(), &[3]);
    }

    #[test]
    fn consistent_data_pass_unchanged() {
        let infos = vec![
            node("a", 0),
            node("b", 1),
            proc_data(0, "a", 0),
            proc_data(1, "b", 1),
        ];
        assert_eq!(consistent_node_ids(infos.clone(), "a"), infos);
    }
}
