//! What Slurm 22.05's `mpi_pmix_v4.so` registers with
//! `PMIx_server_register_nspace` on each node of a step (the keys, types and
//! order of its `pmixp_libpmix_job_set`) is accepted, and the keys an MPI
//! rank then reads have the values the step's layout implies — not the
//! contradictions Slurm puts in it:
//!
//! - every rank's `PMIX_PROC_DATA` carries the *registering* node's
//!   `PMIX_NODEID`, also for ranks on other nodes: the maps win;
//! - the node names are Slurm's `NodeName`s, which need not be the host
//!   name of the server's machine: the job-level `PMIX_NODEID` (and the
//!   node's `PMIX_LOCAL_PEERS`) say which node is this one;
//! - no `PMIX_NUM_NODES` and no host list: derived from the maps.
//!
//! The cluster tests (`tests/slurm.rs`) run the real thing; this replay
//! needs no cluster.

mod common;

use pmix::job::JobDescription;
use pmix::{keys as k, Info, Nspace, Value};

use common::info;

/// A step of `tasks[i]` tasks on node `names[i]`, ranks placed in blocks,
/// as registered on node `me` (Slurm's `node_id`).
fn slurm_registration(names: &[&str], tasks: &[u32], me: usize) -> Vec<Info> {
    let size: u32 = tasks.iter().sum();
    let first: Vec<u32> = tasks
        .iter()
        .scan(0, |acc, &t| {
            let f = *acc;
            *acc += t;
            Some(f)
        })
        .collect();
    let node_of = |r: u32| (0..names.len()).rev().find(|&n| r >= first[n]).unwrap();
    let mine: Vec<u32> = (first[me]..first[me] + tasks[me]).collect();
    let mut v = vec![
        info(k::SPAWNED, Value::Bool(false)),
        info(
            k::TMPDIR,
            Value::string("/tmp/slurmd.n/spmix_appdir_0_42.0"),
        ),
        info(k::NSDIR, Value::string("/tmp/slurmd.n/spmix_appdir_0_42.0")),
        info(k::TDIR_RMCLEAN, Value::Bool(true)),
        info(k::JOBID, Value::string("42.0")),
        info(k::NODEID, Value::Uint32(me as u32)),
    ];
    for r in 0..size {
        let mut d = vec![
            info(k::RANK, Value::ProcRank(r)),
            info(k::APPNUM, Value::Int(0)),
            info(k::APPLDR, Value::Int(0)),
            info(k::GLOBAL_RANK, Value::Uint32(r)),
            info(k::APP_RANK, Value::Uint32(r)),
        ];
        if let Some(l) = mine.iter().position(|&m| m == r) {
            d.push(info(k::LOCAL_RANK, Value::Uint16(l as u16)));
            d.push(info(k::NODE_RANK, Value::Uint16(l as u16)));
        }
        d.push(info(k::HOSTNAME, Value::string(names[node_of(r)])));
        // Slurm's contradiction: this node's id for every rank.
        d.push(info(k::NODEID, Value::Uint32(me as u32)));
        v.push(info(k::PROC_DATA, Value::info_array(d)));
    }
    let ppn: Vec<String> = (0..names.len())
        .map(|n| {
            (first[n]..first[n] + tasks[n])
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    let local = mine
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(",");
    v.extend([
        info(k::UNIV_SIZE, Value::Uint32(size)),
        info(k::JOB_SIZE, Value::Uint32(size)),
        info(k::LOCAL_SIZE, Value::Uint32(tasks[me])),
        info(k::NODE_SIZE, Value::Uint32(tasks[me])),
        info(k::MAX_PROCS, Value::Uint32(size)),
        info(
            k::LOCAL_TOPO,
            Value::string("<?xml version=\"1.0\"?><topology/>"),
        ),
        info(k::NODE_MAP, Value::string(&names.join(","))),
        info(k::PROC_MAP, Value::string(&ppn.join(";"))),
        info(k::ANL_MAP, Value::string("(vector,(0,2,2))")),
        info(k::LOCAL_PEERS, Value::string(&local)),
        info(k::LOCALLDR, Value::Uint32(first[me])),
    ]);
    v
}

fn u32_of(v: Option<Value>) -> Option<u32> {
    v.and_then(|v| v.as_u32())
}

fn str_of(v: Option<Value>) -> Option<String> {
    match v {
        Some(Value::String(Some(s))) => Some(s.to_string_lossy().into_owned()),
        _ => None,
    }
}

/// Registers the step on node `me` of a machine whose kernel host name is
/// `kernel_host`, and checks every rank's node and the job's node keys.
fn check(names: &[&str], tasks: &[u32], me: usize, kernel_host: &str) {
    let ns = Nspace::new("slurm.pmix.42.0").unwrap();
    let infos = slurm_registration(names, tasks, me);
    let job = JobDescription::describe(&ns, tasks[me], &infos, kernel_host)
        .unwrap_or_else(|e| panic!("registration on {} refused: {e}", names[me]));
    let size: u32 = tasks.iter().sum();
    assert_eq!(job.size(), size);
    assert_eq!(
        u32_of(job.job_value(k::NUM_NODES)),
        Some(names.len() as u32)
    );
    assert_eq!(
        str_of(job.job_value(k::NODE_LIST)).as_deref(),
        Some(names.join(",").as_str())
    );
    assert_eq!(
        u32_of(job.job_value(k::NODEID)),
        Some(me as u32),
        "the job-level node id is this node's"
    );
    let mut r = 0;
    for (n, &t) in tasks.iter().enumerate() {
        for _ in 0..t {
            assert_eq!(job.node_id_of(r), Some(n as u32), "PMIX_NODEID of rank {r}");
            assert_eq!(
                job.hostname_of(r),
                Some(names[n]),
                "PMIX_HOSTNAME of rank {r}"
            );
            assert_eq!(u32_of(job.proc_value(r, k::NODEID)), Some(n as u32));
            assert_eq!(
                str_of(job.proc_value(r, k::HOSTNAME)).as_deref(),
                Some(names[n])
            );
            assert_eq!(job.is_local(r), n == me, "rank {r} local");
            r += 1;
        }
    }
    let first: u32 = tasks[..me].iter().sum();
    let mine: Vec<u32> = (first..first + tasks[me]).collect();
    assert_eq!(job.local_ranks(), mine.as_slice());
    // Every local peer has a locality string (NULL: Slurm binds nothing
    // here) and the wildcard rank has PMIX_LOCAL_PROCS.
    for &r in &mine {
        assert_eq!(
            job.proc_value(r, k::LOCALITY_STRING),
            Some(Value::String(None))
        );
    }
    match job.job_value(k::LOCAL_PROCS) {
        Some(Value::DataArray(a)) => {
            let ranks: Vec<u32> = a
                .items
                .iter()
                .map(|p| match p {
                    Value::Proc(p) => {
                        assert_eq!(p.nspace, ns);
                        p.rank.0
                    }
                    other => panic!("PMIX_LOCAL_PROCS holds {other:?}"),
                })
                .collect();
            assert_eq!(ranks, mine);
        }
        other => panic!("PMIX_LOCAL_PROCS is {other:?}"),
    }
    // The segment builds and serves the same.
    job.build_segment().expect("segment");
}

#[test]
fn slurm_one_node_registration() {
    check(&["n1"], &[2], 0, "n1");
}

#[test]
fn slurm_two_nodes_registered_on_each() {
    for me in 0..2 {
        check(&["n1", "n2"], &[2, 2], me, ["n1", "n2"][me]);
        check(&["n1", "n2"], &[4, 4], me, ["n1", "n2"][me]);
    }
}

#[test]
fn slurm_uneven_four_nodes_registered_on_each() {
    let names = ["node-a", "node-b", "node-c", "node-d"];
    for me in 0..4 {
        check(&names, &[3, 1, 2, 2], me, names[me]);
    }
}

#[test]
fn slurm_node_name_that_is_not_the_host_name() {
    // Slurm's NodeName need not be the kernel's host name (here every node
    // of the cluster runs on a machine called "vm").
    for me in 0..2 {
        check(&["n1", "n2"], &[2, 2], me, "vm");
    }
    check(&["n1"], &[2], 0, "vm");
}

#[test]
fn slurm_registration_with_a_rank_on_a_node_outside_the_maps_is_refused() {
    // Strict where the data is unusable: a rank whose own host name names
    // a node the maps do not place it on.
    let ns = Nspace::new("slurm.pmix.42.1").unwrap();
    let mut infos = slurm_registration(&["n1", "n2"], &[2, 2], 0);
    for i in infos.iter_mut() {
        if i.key.to_string_lossy() != k::PROC_DATA {
            continue;
        }
        let Value::DataArray(a) = &mut i.value else {
            unreachable!()
        };
        if a.items.first() == Some(&Value::Info(Box::new(info(k::RANK, Value::ProcRank(3))))) {
            for x in a.items.iter_mut() {
                if let Value::Info(inf) = x {
                    if inf.key.to_string_lossy() == k::HOSTNAME {
                        inf.value = Value::string("n1");
                    }
                }
            }
        }
    }
    assert!(JobDescription::describe(&ns, 2, &infos, "n1").is_err());
}
