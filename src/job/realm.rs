//! Which realm a reserved key belongs to, and the data type a client
//! expects for it.
//!
//! The realm decides where a key passed on its own (outside any
//! `PMIX_*_INFO_ARRAY`) to `PMIx_server_register_nspace` is filed, and where
//! a `PMIx_Get` without a realm qualifier looks for it. The lists are those
//! of OpenPMIx 4.2 (`pmix_check_session_info`, `pmix_check_node_info`,
//! `pmix_check_app_info`), which follow the reserved-keys chapter of the
//! standard; process-realm keys are those the standard lists for the
//! process realm.

use crate::keys as k;
use crate::{DataType, Value};

/// A data realm (chapter "Reserved keys", section "Data realms").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Realm {
    /// The session (allocation) containing the job.
    Session,
    /// The job (namespace): what `PMIX_RANK_WILDCARD` reads.
    Job,
    /// One application of the job.
    App,
    /// One node.
    Node,
    /// One process.
    Proc,
}

/// Session-realm keys (OpenPMIx 4.2's `pmix_check_session_info`).
pub const SESSION_KEYS: &[&str] = &[
    k::SESSION_ID,
    k::CLUSTER_ID,
    k::UNIV_SIZE,
    k::TMPDIR,
    k::TDIR_RMCLEAN,
    k::HOSTNAME_KEEP_FQDN,
    k::RM_NAME,
    k::RM_VERSION,
];

/// Node-realm keys (OpenPMIx 4.2's `pmix_check_node_info`).
pub const NODE_KEYS: &[&str] = &[
    k::HOSTNAME,
    k::HOSTNAME_ALIASES,
    k::NODEID,
    k::AVAIL_PHYS_MEMORY,
    k::LOCAL_PEERS,
    k::LOCAL_PROCS,
    k::LOCAL_CPUSETS,
    k::LOCAL_SIZE,
    k::NODE_SIZE,
    k::LOCALLDR,
    k::NODE_OVERSUBSCRIBED,
    k::FABRIC_DEVICES,
    k::FABRIC_COORDINATES,
    k::FABRIC_DEVICE,
    k::FABRIC_DEVICE_INDEX,
    k::FABRIC_DEVICE_NAME,
    k::FABRIC_DEVICE_VENDOR,
    k::FABRIC_DEVICE_BUS_TYPE,
    k::FABRIC_DEVICE_VENDORID,
    k::FABRIC_DEVICE_DRIVER,
    k::FABRIC_DEVICE_FIRMWARE,
    k::FABRIC_DEVICE_ADDRESS,
    k::FABRIC_DEVICE_MTU,
    k::FABRIC_DEVICE_COORDINATES,
    k::FABRIC_DEVICE_SPEED,
    k::FABRIC_DEVICE_STATE,
    k::FABRIC_DEVICE_TYPE,
    k::FABRIC_DEVICE_PCI_DEVID,
];

/// Application-realm keys (OpenPMIx 4.2's `pmix_check_app_info`).
pub const APP_KEYS: &[&str] = &[
    k::APP_SIZE,
    k::APPLDR,
    k::APP_ARGV,
    k::WDIR,
    k::PSET_NAME,
    k::PSET_MEMBERS,
    k::APP_MAP_TYPE,
    k::APP_MAP_REGEX,
];

/// Keys that only describe one process (the standard's process realm,
/// minus `PMIX_APPNUM`, which is also the application's number).
pub const PROC_KEYS: &[&str] = &[
    k::RANK,
    k::GLOBAL_RANK,
    k::APP_RANK,
    k::LOCAL_RANK,
    k::NODE_RANK,
    k::PACKAGE_RANK,
    k::PROC_PID,
    k::PROCDIR,
    k::CPUSET,
    k::CPUSET_BITMAP,
    k::LOCALITY_STRING,
    k::CREDENTIAL,
    k::SPAWNED,
    k::REINCARNATION,
    k::PROCID,
    k::EXIT_CODE,
    k::PARENT_ID,
];

/// The realm of a key given without a realm: session, node and application
/// keys by the lists above, process keys by [`PROC_KEYS`], anything else
/// (including every non-reserved key) the job.
pub fn key_realm(key: &str) -> Realm {
    if SESSION_KEYS.contains(&key) {
        Realm::Session
    } else if NODE_KEYS.contains(&key) {
        Realm::Node
    } else if APP_KEYS.contains(&key) {
        Realm::App
    } else if PROC_KEYS.contains(&key) {
        Realm::Proc
    } else {
        Realm::Job
    }
}

/// The data type OpenPMIx 4.2 stores (and a client reads back) for the
/// reserved keys whose values are numbers, ranks or strings; `None` for
/// keys of any other or unconstrained type.
pub fn canonical_type(key: &str) -> Option<DataType> {
    Some(match key {
        k::JOB_SIZE
        | k::MAX_PROCS
        | k::NUM_NODES
        | k::NUM_SLOTS
        | k::UNIV_SIZE
        | k::JOB_NUM_APPS
        | k::APPNUM
        | k::APP_SIZE
        | k::LOCAL_SIZE
        | k::NODE_SIZE
        | k::NODEID
        | k::SESSION_ID
        | k::NUM_ALLOCATED_NODES
        | k::REINCARNATION => DataType::Uint32,
        k::LOCAL_RANK | k::NODE_RANK | k::PACKAGE_RANK => DataType::Uint16,
        k::RANK | k::APPLDR | k::LOCALLDR | k::APP_RANK | k::GLOBAL_RANK | k::NPROC_OFFSET => {
            DataType::ProcRank
        }
        k::HOSTNAME
        | k::NODE_LIST
        | k::LOCAL_PEERS
        | k::JOBID
        | k::NSPACE
        | k::TMPDIR
        | k::NSDIR
        | k::PROCDIR
        | k::LOCALITY_STRING
        | k::CPUSET
        | k::HOSTNAME_ALIASES
        | k::ANL_MAP
        | k::APP_ARGV
        | k::WDIR
        | k::CLUSTER_ID
        | k::ALLOCATED_NODELIST => DataType::String,
        _ => return None,
    })
}

/// An unsigned integer carried by any integer type (`None` for negative
/// values, values that do not fit, and other types).
pub fn value_u64(v: &Value) -> Option<u64> {
    Some(match *v {
        Value::Byte(x) | Value::Uint8(x) => u64::from(x),
        Value::Uint16(x) => u64::from(x),
        Value::Uint(x) | Value::Uint32(x) | Value::ProcRank(x) => u64::from(x),
        Value::Uint64(x) => x,
        Value::Size(x) => x as u64,
        Value::Int8(x) => u64::try_from(x).ok()?,
        Value::Int16(x) => u64::try_from(x).ok()?,
        Value::Int(x) | Value::Int32(x) | Value::Pid(x) => u64::try_from(x).ok()?,
        Value::Int64(x) => u64::try_from(x).ok()?,
        _ => return None,
    })
}

/// `v` converted to `t` (one of the types [`canonical_type`] returns), or
/// `None` if it holds something else or a number out of range.
pub fn convert(v: &Value, t: DataType) -> Option<Value> {
    Some(match t {
        DataType::Uint32 => Value::Uint32(u32::try_from(value_u64(v)?).ok()?),
        DataType::Uint16 => Value::Uint16(u16::try_from(value_u64(v)?).ok()?),
        DataType::ProcRank => Value::ProcRank(u32::try_from(value_u64(v)?).ok()?),
        DataType::String => match v {
            Value::String(Some(_)) => v.clone(),
            _ => return None,
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn realms() {
        assert_eq!(key_realm(k::UNIV_SIZE), Realm::Session);
        assert_eq!(key_realm(k::LOCAL_PEERS), Realm::Node);
        assert_eq!(key_realm(k::APP_SIZE), Realm::App);
        assert_eq!(key_realm(k::LOCAL_RANK), Realm::Proc);
        assert_eq!(key_realm(k::JOB_SIZE), Realm::Job);
        assert_eq!(key_realm("my.key"), Realm::Job);
    }

    #[test]
    fn conversions() {
        assert_eq!(
            convert(&Value::Int32(5), DataType::Uint16),
            Some(Value::Uint16(5))
        );
        assert_eq!(convert(&Value::Int32(-5), DataType::Uint16), None);
        assert_eq!(convert(&Value::Uint32(70000), DataType::Uint16), None);
        assert_eq!(
            convert(&Value::Uint64(7), DataType::ProcRank),
            Some(Value::ProcRank(7))
        );
        assert_eq!(convert(&Value::string("x"), DataType::Uint32), None);
        assert_eq!(convert(&Value::String(None), DataType::String), None);
        assert_eq!(canonical_type(k::LOCAL_RANK), Some(DataType::Uint16));
        assert_eq!(canonical_type("other"), None);
    }
}
