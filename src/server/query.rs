//! The server's side of `PMIx_Query_info` (`Op::QUERY`).
//!
//! The client library has already answered what its own data could (see
//! `client::query`); what reaches the server is answered here in three
//! steps, one info per key answered, keyed by the query key:
//!
//! 1. what the server itself knows: the registered namespaces
//!    (`PMIX_QUERY_NAMESPACES`; `PMIX_QUERY_NAMESPACE_INFO` in PRRTE's
//!    shape: an array of infos, one `PMIX_JOB_INFO_ARRAY` per namespace,
//!    each an array of infos starting with `PMIX_NSPACE`), the processes
//!    of this node (`PMIX_QUERY_LOCAL_PROC_TABLE`, and
//!    `PMIX_QUERY_PROC_TABLE` for a job wholly on this node; state, exit
//!    code, executable and the pid of a process not connected from the
//!    host's `started_proc`, else the first word of the application's
//!    `PMIX_APP_ARGV`; a connected process's pid is its socket's), the list
//!    of those keys (`PMIX_QUERY_SUPPORTED_KEYS`), the process sets of
//!    its table (`PMIX_QUERY_NUM_PSETS`, `PMIX_QUERY_PSET_NAMES` as a
//!    comma-separated string, `PMIX_QUERY_PSET_MEMBERSHIP` of the set the
//!    `PMIX_PSET_NAME` qualifier names: a data array of procs; without the
//!    qualifier the query fails with `PMIX_ERR_BAD_PARAM`, for an unknown
//!    set with `PMIX_ERR_NOT_FOUND`), `PMIX_PSET_NAMES` of the process the
//!    qualifiers name (the sets it belongs to, comma-separated: how a
//!    client's `PMIx_Get` of that key is answered), and any other key found
//!    in the registered job data of the process the qualifiers name (job
//!    realm for the wildcard rank);
//! 2. the rest goes to the host's `query` callback;
//! 3. what the host did not answer (or the whole rest, if it has no
//!    callback or refused) falls back on the server's defaults (kept for
//!    a key that reaches this step: `PMIX_QUERY_NUM_PSETS` 0,
//!    `PMIX_QUERY_PSET_NAMES` empty; step 1 answers both today).
//!
//! The answer's status is `PMIX_SUCCESS` when every key got an answer,
//! `PMIX_ERR_PARTIAL_SUCCESS` when some did, and otherwise the host's error
//! (`PMIX_ERR_NOT_FOUND` when the host had nothing to say either).
//!
//! Invariant: every query gets one answer, whose status tells how many keys
//! were answered; the host is asked only the keys the server could not
//! answer itself.

use std::collections::HashSet;
use std::ffi::CString;

use super::clients::connections::Caller;
use super::host::StartedProc;
use super::state::State;
use crate::data_type::DataType;
use crate::value::{DataArray, ProcInfo, Query};
use crate::wire::rm;
use crate::{keys, Info, Nspace, Proc, Rank, Status, Value};

/// Receives a copy of the response of an operation the server's own
/// process asked for.
pub(super) type Tap = Box<dyn FnOnce(&Result<Vec<u8>, Status>) + Send + 'static>;

/// The caller of the server's own operations: no connection has this
/// token, so the response itself goes nowhere (its [`Tap`] gets it).
pub(super) const NOBODY: Caller = Caller {
    token: mio::Token(usize::MAX),
    id: 0,
};

/// Callback of [`Server::query_nb`](crate::server::Server::query_nb): the status (`PMIX_SUCCESS` or
/// `PMIX_ERR_PARTIAL_SUCCESS`) and results, or the failure.
pub type ServerQueryCallback =
    Box<dyn FnOnce(Result<(Status, Vec<Info>), Status>) + Send + 'static>;

/// The keys step 1 answers.
// attrs begin: PMIx_Query_info PMIx_Query_info_nb
const SERVER_KEYS: &[&str] = &[
    keys::QUERY_NAMESPACES,
    keys::QUERY_NAMESPACE_INFO,
    keys::QUERY_LOCAL_PROC_TABLE,
    keys::QUERY_PROC_TABLE,
    keys::QUERY_SUPPORTED_KEYS,
    keys::QUERY_NUM_PSETS,
    keys::QUERY_PSET_NAMES,
    keys::QUERY_PSET_MEMBERSHIP,
    keys::QUERY_NUM_GROUPS,
    keys::QUERY_GROUP_NAMES,
    keys::QUERY_GROUP_MEMBERSHIP,
    keys::QUERY_STABLE_ABI_VERSION,
    keys::QUERY_PROVISIONAL_ABI_VERSION,
    keys::QUERY_ATTRIBUTE_SUPPORT,
];
// attrs end

/// The process a query names (`PMIX_PROCID`, `PMIX_NSPACE`, `PMIX_RANK`):
/// the requester's namespace unless one is named, the wildcard rank unless
/// one is named.
// attrs begin: PMIx_Query_info PMIx_Query_info_nb
fn target(requester: &Proc, qualifiers: &[Info]) -> Proc {
    let mut ns = requester.nspace.clone();
    let mut rank = Rank::WILDCARD;
    for q in qualifiers {
        match (q.key.as_c_str().to_bytes(), &q.value) {
            (k, Value::String(Some(s))) if k == keys::NSPACE.as_bytes() => {
                if let Ok(n) = Nspace::from_cstring(s.clone()) {
                    if !n.is_empty() {
                        ns = n;
                    }
                }
            }
            (k, Value::Proc(p)) if k == keys::PROCID.as_bytes() => {
                if !p.nspace.is_empty() {
                    ns = p.nspace.clone();
                }
                rank = p.rank;
            }
            (k, Value::ProcRank(r)) if k == keys::RANK.as_bytes() => rank = Rank(*r),
            _ => {}
        }
    }
    if rank == Rank::INVALID {
        rank = Rank::WILDCARD;
    }
    Proc::new(ns, rank)
}
// attrs end

/// Handles `Op::QUERY` from `proc`.
pub(super) fn serve(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    match rm::get_queries(body) {
        Ok(q) => query_for(st, caller, proc, q, None),
        Err(e) => st.respond(caller, Err(e.status())),
    }
}

/// Answers `queries` of `proc` to `caller`, also handing the answer
/// to `tap` (the server's own calls, whose caller is [`NOBODY`]).
pub(super) fn query_for(
    st: &mut State,
    caller: Caller,
    proc: &Proc,
    queries: Vec<Query>,
    tap: Option<Tap>,
) {
    let mut answers = Vec::new();
    let mut unresolved = Vec::new();
    for q in &queries {
        let mut left = Vec::new();
        for k in &q.keys {
            if let Some(r) = membership(st, k.to_bytes(), &q.qualifiers) {
                match r {
                    Ok(i) => answers.push(i),
                    Err(s) => {
                        let r = Err(s);
                        if let Some(t) = tap {
                            t(&r);
                        }
                        return st.respond(caller, r);
                    }
                }
                continue;
            }
            match answer_query(st, proc, k.to_bytes(), &q.qualifiers) {
                Some(i) => answers.push(i),
                None => left.push(k.clone()),
            }
        }
        if !left.is_empty() {
            unresolved.push(Query {
                keys: left,
                qualifiers: q.qualifiers.clone(),
            });
        }
    }
    if unresolved.is_empty() {
        let r = rm::put_query_answer(Status::SUCCESS, &answers).map_err(Status::from);
        if let Some(t) = tap {
            t(&r);
        }
        return st.respond(caller, r);
    }
    let asked: Vec<CString> = unresolved.iter().flat_map(|q| q.keys.clone()).collect();
    let (op, done) = st.host_op_or_fallback(caller, move |r: Result<Vec<Info>, Status>| {
        let r = finish_query(answers, asked, r);
        if let Some(t) = tap {
            t(&r);
        }
        r
    });
    let host = st.host();
    if let Err(s) = host.query(proc, &unresolved, done) {
        st.finish_service(op, Err(s));
    }
}

/// Step 1: what the server knows about `key`.
fn answer_query(st: &State, requester: &Proc, key: &[u8], qualifiers: &[Info]) -> Option<Info> {
    let key = std::str::from_utf8(key).ok()?;
    if let Some(v) = crate::strings::library_answer(key) {
        return Info::keyed(key, Value::string(v));
    }
    match key {
        keys::QUERY_ATTRIBUTE_SUPPORT => crate::attributes::server_answer(qualifiers),
        keys::QUERY_NAMESPACES => {
            let names: Vec<String> = st
                .registry()
                .nspaces()
                .iter()
                .map(|n| n.to_string_lossy().into_owned())
                .collect();
            Info::keyed(key, Value::string(&names.join(",")))
        }
        keys::QUERY_NAMESPACE_INFO => {
            let jobs = st
                .registry()
                .nspaces()
                .iter()
                // Deregistered since it was listed: not active any more.
                .filter_map(|ns| Some(namespace_info(ns, &*st.registry().nspace(ns)?)))
                .collect::<Option<Vec<Info>>>()?;
            Info::keyed(key, Value::info_array(jobs))
        }
        keys::QUERY_LOCAL_PROC_TABLE | keys::QUERY_PROC_TABLE => {
            let ns = target(requester, qualifiers).nspace;
            let rec = st.registry().nspace(&ns)?;
            if key == keys::QUERY_PROC_TABLE && !rec.all_local() {
                // The host knows where the other processes are.
                return None;
            }
            let seg = rec.job_segment().open().ok();
            let host = st.host();
            let items = rec
                .local_ranks()
                .iter()
                .map(|&r| {
                    let p = Proc::new(ns.clone(), Rank(r));
                    // The host's knowledge first (it started the process),
                    // else what the connection and the job data tell.
                    // A connected process's own pid (the host may have
                    // started a wrapper that forked it).
                    let peer = st.conns().peer_creds(&p).map(|c| c.pid);
                    let mut started = host.started_proc(&p).unwrap_or_else(|| StartedProc {
                        state: if peer.is_some() {
                            crate::proc::state::RUNNING
                        } else {
                            crate::proc::state::UNDEF
                        },
                        ..StartedProc::default()
                    });
                    if let Some(pid) = peer {
                        started.pid = pid;
                    }
                    let executable_name = started
                        .executable
                        .or_else(|| seg.as_ref().and_then(|s| executable(s, r)))
                        .and_then(|e| CString::new(e).ok());
                    Value::ProcInfo(Box::new(ProcInfo {
                        proc: p,
                        hostname: CString::new(rec.hostname()).ok(),
                        executable_name,
                        pid: started.pid,
                        exit_code: started.exit_code,
                        state: started.state,
                    }))
                })
                .collect();
            Info::keyed(
                key,
                Value::DataArray(Box::new(DataArray {
                    elem_type: DataType::ProcInfo,
                    items,
                })),
            )
        }
        keys::QUERY_SUPPORTED_KEYS => Info::keyed(key, Value::string(&SERVER_KEYS.join(","))),
        keys::PSET_NAMES => {
            let p = target(requester, qualifiers);
            Info::keyed(key, Value::string(&st.psets().sets_of(&p).join(",")))
        }
        keys::GROUP_NAMES => {
            let p = target(requester, qualifiers);
            Info::keyed(key, Value::string(&st.groups().groups_of(&p).join(",")))
        }
        keys::QUERY_NUM_GROUPS => Info::keyed(key, Value::Size(st.groups().len())),
        keys::QUERY_GROUP_NAMES => Info::keyed(key, Value::string(&st.groups().names().join(","))),
        keys::QUERY_NUM_PSETS => Info::keyed(key, Value::Size(st.psets().len())),
        keys::QUERY_PSET_NAMES => Info::keyed(key, Value::string(&st.psets().names().join(","))),
        _ => job_data(st, &target(requester, qualifiers), key),
    }
}

/// One namespace's entry of `PMIX_QUERY_NAMESPACE_INFO`, in PRRTE's
/// shape (what tools read): a `PMIX_JOB_INFO_ARRAY` info holding
/// `PMIX_NSPACE` first, then `PMIX_CMD_LINE` (the first application's
/// argv, when registered), `PMIX_JOB_SIZE`, and one `PMIX_PROC_INFO_ARRAY`
/// (`PMIX_RANK`, `PMIX_HOSTNAME`, `PMIX_LOCAL_RANK`) per process of this
/// node (PRRTE knows every node's; a server knows its own).
fn namespace_info(ns: &Nspace, rec: &super::registry::NsRecord) -> Option<Info> {
    let seg = rec.job_segment().open().ok();
    let mut fields = vec![Info::keyed(
        keys::NSPACE,
        Value::String(Some(ns.as_c_str().to_owned())),
    )?];
    if let Some(argv) = seg.as_ref().and_then(|s| app_argv(s, 0)) {
        fields.push(Info::keyed(keys::CMD_LINE, Value::string(&argv))?);
    }
    fields.push(Info::keyed(keys::JOB_SIZE, Value::Uint32(rec.size()))?);
    for (local, &r) in rec.local_ranks().iter().enumerate() {
        let local_rank = seg
            .as_ref()
            .and_then(|s| {
                s.proc_value(r, &pmix_shmem::LookupKey::from(keys::LOCAL_RANK))
                    .ok()?
            })
            .and_then(|v| match Value::from(v) {
                Value::Uint16(l) => Some(l),
                _ => None,
            })
            .unwrap_or(u16::try_from(local).ok()?);
        let proc = vec![
            Info::keyed(keys::RANK, Value::ProcRank(r))?,
            Info::keyed(keys::HOSTNAME, Value::string(rec.hostname()))?,
            Info::keyed(keys::LOCAL_RANK, Value::Uint16(local_rank))?,
        ];
        fields.push(Info::keyed(keys::PROC_INFO_ARRAY, Value::info_array(proc))?);
    }
    Info::keyed(keys::JOB_INFO_ARRAY, Value::info_array(fields))
}

/// `PMIX_QUERY_PSET_MEMBERSHIP` (`PMIX_QUERY_GROUP_MEMBERSHIP`): the
/// members of the set (group) the `PMIX_PSET_NAME` (`PMIX_GROUP_ID`)
/// qualifier names; `None` for another key.
fn membership(st: &State, key: &[u8], qualifiers: &[Info]) -> Option<Result<Info, Status>> {
    // attrs begin: PMIx_Query_info PMIx_Query_info_nb
    let (qualifier, out) = if key == keys::QUERY_PSET_MEMBERSHIP.as_bytes() {
        (keys::PSET_NAME, keys::QUERY_PSET_MEMBERSHIP)
    } else if key == keys::QUERY_GROUP_MEMBERSHIP.as_bytes() {
        (keys::GROUP_ID, keys::QUERY_GROUP_MEMBERSHIP)
    } else {
        return None;
    };
    // attrs end
    let name = qualifiers
        .iter()
        .find(|q| q.key.as_c_str().to_bytes() == qualifier.as_bytes())
        .and_then(|q| q.value.as_str())
        .filter(|n| !n.is_empty());
    let Some(name) = name else {
        return Some(Err(Status::ERR_BAD_PARAM));
    };
    let members = if qualifier == keys::PSET_NAME {
        st.psets().members(name).map(<[Proc]>::to_vec)
    } else {
        st.groups().get(name).map(|g| g.members().to_vec())
    };
    Some(
        members
            .ok_or(Status::ERR_NOT_FOUND)
            .and_then(|m| Info::keyed(out, Value::proc_array(&m)).ok_or(Status::ERROR)),
    )
}

/// A key of the registered job data of `proc` (its job realm for the
/// wildcard rank), as OpenPMIx's server answers from its own store.
fn job_data(st: &State, proc: &Proc, key: &str) -> Option<Info> {
    let rec = st.registry().nspace(&proc.nspace)?;
    let seg = rec.job_segment().open().ok()?;
    let k = pmix_shmem::LookupKey::from(key);
    let v = if proc.rank == Rank::WILDCARD {
        seg.job_value(&k).ok()??
    } else {
        seg.proc_value(proc.rank.0, &k).ok()??
    };
    Info::keyed(key, Value::from(v))
}

/// The program of `rank`: the first word of its application's
/// `PMIX_APP_ARGV` in the job data.
fn executable(seg: &pmix_shmem::Segment, rank: u32) -> Option<String> {
    let appnum = seg
        .proc_value(rank, &pmix_shmem::LookupKey::from(keys::APPNUM))
        .ok()??;
    let appnum = Value::from(appnum).as_u32()?;
    app_argv(seg, appnum)?
        .split_whitespace()
        .next()
        .map(str::to_owned)
}

/// The `PMIX_APP_ARGV` of application `appnum` in the job data.
fn app_argv(seg: &pmix_shmem::Segment, appnum: u32) -> Option<String> {
    let argv = seg
        .app_value(appnum, &pmix_shmem::LookupKey::from(keys::APP_ARGV))
        .ok()??;
    Value::from(argv).as_str().map(str::to_owned)
}

/// Step 3's defaults, for keys the host did not answer.
fn fallback(key: &[u8]) -> Option<Info> {
    match std::str::from_utf8(key).ok()? {
        keys::QUERY_NUM_PSETS => Info::keyed(keys::QUERY_NUM_PSETS, Value::Size(0)),
        keys::QUERY_PSET_NAMES => Info::keyed(keys::QUERY_PSET_NAMES, Value::string("")),
        _ => None,
    }
}

/// Merges the server's answers, the host's and the fallbacks into the
/// response body.
fn finish_query(
    mut answers: Vec<Info>,
    asked: Vec<CString>,
    host: Result<Vec<Info>, Status>,
) -> Result<Vec<u8>, Status> {
    let host_error = host.as_ref().err().copied();
    let host_infos = host.unwrap_or_default();
    let answered: HashSet<&[u8]> = host_infos
        .iter()
        .map(|i| i.key.as_c_str().to_bytes())
        .collect();
    // A host that answered with keys of its own (not the query keys)
    // answered everything it was given.
    let per_key = asked.iter().any(|k| answered.contains(k.to_bytes()));
    let host_answered_all = host_error.is_none() && !host_infos.is_empty() && !per_key;
    let mut missing = 0usize;
    let mut extra = Vec::new();
    for k in &asked {
        if host_answered_all || answered.contains(k.to_bytes()) {
            continue;
        }
        match fallback(k.to_bytes()) {
            Some(i) => extra.push(i),
            None => missing += 1,
        }
    }
    let have_any = !answers.is_empty() || !host_infos.is_empty() || !extra.is_empty();
    answers.extend(host_infos);
    answers.extend(extra);
    let status = if missing == 0 {
        Status::SUCCESS
    } else if have_any {
        Status::ERR_PARTIAL_SUCCESS
    } else {
        return Err(match host_error {
            Some(s) if s != Status::ERR_NOT_SUPPORTED => s,
            _ => Status::ERR_NOT_FOUND,
        });
    };
    rm::put_query_answer(status, &answers).map_err(Status::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(s: &str) -> CString {
        CString::new(s).unwrap()
    }

    #[test]
    fn nothing_answered_is_not_found() {
        let r = finish_query(vec![], vec![k("x.y")], Err(Status::ERR_NOT_SUPPORTED));
        assert_eq!(r, Err(Status::ERR_NOT_FOUND));
    }

    #[test]
    fn some_answered_is_partial_success() {
        let a = Info::keyed("a.b", Value::Bool(true)).unwrap();
        let body = finish_query(vec![a], vec![k("x.y")], Err(Status::ERR_NOT_SUPPORTED)).unwrap();
        let (s, infos) = rm::get_query_answer(&body).unwrap();
        assert_eq!(s, Status::ERR_PARTIAL_SUCCESS);
        assert_eq!(infos.len(), 1);
    }

    #[test]
    fn psets_fall_back_to_none_defined() {
        let body =
            finish_query(vec![], vec![k(keys::QUERY_NUM_PSETS)], Err(Status::ERROR)).unwrap();
        let (s, infos) = rm::get_query_answer(&body).unwrap();
        assert_eq!(s, Status::SUCCESS);
        assert_eq!(infos[0].value, Value::Size(0));
    }
}
