//! What Open MPI 4.1's `mpirun` registers with `PMIx_server_register_nspace`
//! (recorded from real runs on this library, see docs/INTEROP.md) is
//! accepted, and the keys its ranks then read (`orte/mca/ess/pmi`) have the
//! values it gave.

mod common;

use pmix::job::JobDescription;
use pmix::{keys as k, Info, Nspace, Value};

use common::info;

fn arr(items: Vec<Info>) -> Value {
    Value::info_array(items)
}

fn s(v: &str) -> Value {
    Value::string(v)
}

fn u32v(v: u32) -> Value {
    Value::Uint32(v)
}

/// The infos of `mpirun -n np` on one node of `slots` cores (Open MPI
/// 4.1.4 as packaged by Debian): the job-level keys in its order, then one
/// `PMIX_PROC_DATA` array per rank.
fn mpirun_registration(np: u32, slots: u32) -> Vec<Info> {
    let ranks: Vec<String> = (0..np).map(|r| r.to_string()).collect();
    let ranks = ranks.join(",");
    let mut v = vec![
        info(k::SERVER_NSPACE, s("[12447,0]")),
        info(k::SERVER_RANK, u32v(0)),
        info(k::JOBID, s("[12447,1]")),
        info(k::NPROC_OFFSET, u32v(0)),
        info(k::NODE_MAP, s("pmix[vm]")),
        info(k::PROC_MAP, s(&format!("raw:{ranks}"))),
        info(k::NODEID, u32v(0)),
        info(k::NODE_SIZE, u32v(np)),
        info(k::NUM_NODES, u32v(1)),
        // Oversubscribed: the universe is the node's slots, smaller than
        // the job.
        info(k::UNIV_SIZE, u32v(slots)),
        info(k::JOB_SIZE, u32v(np)),
        info(k::JOB_NUM_APPS, u32v(1)),
        info(k::LOCAL_SIZE, u32v(np)),
        info(k::MAX_PROCS, u32v(slots)),
        info("pmix.toposig", s("1N:1S:1L3:2L2:2L1:2C:2H:x86_64:le")),
        info("pmix.pmem", Value::Uint64(25276063744)),
        info(k::MAPBY, s("BYNUMA:OVERSUBSCRIBE")),
        info(k::RANKBY, s("SLOT")),
        info(k::BINDTO, s("NONE:IF-SUPPORTED:OVERLOAD-ALLOWED")),
        info(k::LOCAL_PEERS, s(&ranks)),
        info(k::LOCALLDR, Value::ProcRank(0)),
    ];
    for r in 0..np {
        // Unbound ranks (more ranks than cores: `--bind-to none`) come
        // with a NULL locality string.
        let locality = if np > slots {
            Value::String(None)
        } else {
            s(&format!("SK0:L30:L2{r}:L1{r}:CR{r}:HT{r}:NM0"))
        };
        v.push(info(
            k::PROC_DATA,
            arr(vec![
                info(k::RANK, Value::ProcRank(r)),
                info(k::LOCALITY_STRING, locality),
                info(k::GLOBAL_RANK, Value::ProcRank(r)),
                info(k::LOCAL_RANK, Value::Uint16(r as u16)),
                info(k::NODE_RANK, Value::Uint16(r as u16)),
                info(k::NODEID, u32v(0)),
                info(k::HOSTNAME, s("vm")),
            ]),
        ));
    }
    v
}

#[test]
fn mpirun_registration_within_slots_is_accepted() {
    let ns = Nspace::new("815726593").unwrap();
    JobDescription::describe(&ns, 2, &mpirun_registration(2, 2), "vm").unwrap();
}

#[test]
fn mpirun_oversubscribed_registration_is_accepted() {
    let ns = Nspace::new("1658978305").unwrap();
    let r = JobDescription::describe(&ns, 4, &mpirun_registration(4, 2), "vm");
    assert!(r.is_ok(), "refused: {}", r.unwrap_err());
}
