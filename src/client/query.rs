//! The client's side of `PMIx_Query_info`, `PMIx_Log`, `PMIx_Job_control`,
//! `PMIx_Process_monitor`, `PMIx_Allocation_request` and the credential
//! calls.
//!
//! A query is first answered from this process's own data, as OpenPMIx
//! does: each key is looked up like a `PMIx_Get` of that key (for the
//! process the `PMIX_PROCID`/`PMIX_NSPACE`/`PMIX_RANK` qualifiers name,
//! else the wildcard rank of this namespace), never waiting for a peer.
//! Keys found so are not sent; the others go to the server in one
//! `Op::QUERY`. `PMIX_QUERY_REFRESH_CACHE` skips the local step. The
//! results are one info per key answered, keyed by the query key; the
//! status is `PMIX_SUCCESS`, `PMIX_ERR_PARTIAL_SUCCESS` (some keys
//! answered) or the failure (`PMIX_ERR_NOT_FOUND` when nothing was).
//!
//! The other calls are plain requests to the server, which hands them to
//! its host.

use crate::value::Query;
use crate::wire::{rm, Op};
use crate::{keys, Info, Key, Nspace, Proc, Rank, Status, Value};

use super::{Client, GetCallback, StatusCallback};

/// Callback of [`Client::query_nb`]: the status (`PMIX_SUCCESS` or
/// `PMIX_ERR_PARTIAL_SUCCESS`) and results, or the failure.
pub type QueryCallback = Box<dyn FnOnce(Result<(Status, Vec<Info>), Status>) + Send + 'static>;
/// Callback of the calls answered by a list of infos.
pub type InfosCallback = Box<dyn FnOnce(Result<Vec<Info>, Status>) + Send + 'static>;
/// Callback of [`Client::get_credential_nb`]: the credential and its infos.
pub type CredentialCallback =
    Box<dyn FnOnce(Result<(Vec<u8>, Vec<Info>), Status>) + Send + 'static>;

// attrs begin: PMIx_Query_info PMIx_Query_info_nb
/// `PMIX_QUERY_REFRESH_CACHE`.
const QUERY_REFRESH_CACHE: &str = keys::QUERY_REFRESH_CACHE;
// attrs end
// attrs begin: PMIx_Log PMIx_Log_nb
/// `PMIX_LOG_SOURCE`.
const LOG_SOURCE: &str = keys::LOG_SOURCE;
/// `PMIX_LOG_TIMESTAMP`.
const LOG_TIMESTAMP: &str = keys::LOG_TIMESTAMP;
/// `PMIX_LOG_GENERATE_TIMESTAMP`.
const LOG_GENERATE_TIMESTAMP: &str = keys::LOG_GENERATE_TIMESTAMP;
// attrs end

fn is(i: &Info, key: &str) -> bool {
    i.key.as_c_str().to_bytes() == key.as_bytes()
}

/// Checks a query as OpenPMIx does: at least one non-empty key, and the
/// process qualifiers of the right types. Returns the process the query
/// is about and whether a rank was given.
// attrs begin: PMIx_Query_info PMIx_Query_info_nb
fn query_target(me: &Proc, q: &Query) -> Result<Proc, Status> {
    if q.keys.is_empty() || q.keys.iter().any(|k| k.as_bytes().is_empty()) {
        return Err(Status::ERR_BAD_PARAM);
    }
    let mut nspace: Option<Nspace> = None;
    let mut rank: Option<Rank> = None;
    for i in &q.qualifiers {
        if is(i, keys::PROCID) {
            let Value::Proc(p) = &i.value else {
                return Err(Status::ERR_BAD_PARAM);
            };
            nspace = Some(p.nspace.clone());
            rank = Some(p.rank);
        } else if is(i, keys::NSPACE) {
            let Value::String(Some(s)) = &i.value else {
                return Err(Status::ERR_BAD_PARAM);
            };
            nspace = Some(Nspace::from_cstring(s.clone()).map_err(|_| Status::ERR_BAD_PARAM)?);
        } else if is(i, keys::RANK) {
            let Value::ProcRank(r) = i.value else {
                return Err(Status::ERR_BAD_PARAM);
            };
            rank = Some(Rank(r));
        }
    }
    let ns = match nspace {
        Some(ns) if !ns.is_empty() => ns,
        _ => me.nspace.clone(),
    };
    let rank = match rank {
        Some(r) if r != Rank::INVALID => r,
        _ => Rank::WILDCARD,
    };
    Ok(Proc::new(ns, rank))
}
// attrs end

/// The answer to queries this process answered alone: `PMIX_ERR_NOT_FOUND`
/// when it had nothing to say (an attribute query of levels this process
/// does not have).
fn answered_here(local: Vec<Info>) -> Result<(Status, Vec<Info>), Status> {
    if local.is_empty() {
        Err(Status::ERR_NOT_FOUND)
    } else {
        Ok((Status::SUCCESS, local))
    }
}

/// Adds the local answers to the server's (the two parts of an attribute
/// query become one answer).
fn combine(
    mut local: Vec<Info>,
    server: Result<(Status, Vec<Info>), Status>,
) -> Result<(Status, Vec<Info>), Status> {
    match server {
        Ok((s, infos)) => {
            local.extend(infos);
            crate::attributes::merge_support(&mut local);
            Ok((s, local))
        }
        Err(_) if !local.is_empty() => Ok((Status::ERR_PARTIAL_SUCCESS, local)),
        Err(e) => Err(e),
    }
}

fn decode_list(body: Result<Vec<u8>, Status>) -> Result<Vec<Info>, Status> {
    rm::get_list(&body?).map_err(|_| Status::ERR_UNPACK_FAILURE)
}

fn decode_credential(body: Result<Vec<u8>, Status>) -> Result<(Vec<u8>, Vec<Info>), Status> {
    rm::get_credential(&body?).map_err(|_| Status::ERR_UNPACK_FAILURE)
}

/// The query of `key` (`PMIX_PSET_NAMES` or `PMIX_GROUP_NAMES`) for
/// `proc`.
fn set_names_query(proc: &Proc, key: &str) -> Result<Vec<u8>, Status> {
    let q = Query {
        keys: vec![std::ffi::CString::new(key).map_err(|_| Status::ERR_BAD_PARAM)?],
        qualifiers: vec![Info::new(
            Key::new(keys::PROCID)?,
            Value::Proc(proc.clone()),
        )],
    };
    let mut body = Vec::new();
    rm::put_queries(&mut body, &[q])?;
    Ok(body)
}

/// The answer to [`set_names_query`]: a nonempty string, else not found.
fn set_names_of(r: Result<(Status, Vec<Info>), Status>, key: &str) -> Result<Value, Status> {
    let (_, infos) = r?;
    crate::info::set_names_in(infos, key)
}

fn decode_answer(body: Result<Vec<u8>, Status>) -> Result<(Status, Vec<Info>), Status> {
    let (s, infos) = rm::get_query_answer(&body?).map_err(|_| Status::ERR_UNPACK_FAILURE)?;
    if s != Status::SUCCESS && s != Status::ERR_PARTIAL_SUCCESS {
        return Err(s);
    }
    Ok((s, infos))
}

/// `PMIX_QUERY_AVAIL_SERVERS`, answered by the library itself from the
/// rendezvous files in `PMIX_SERVER_TMPDIR` and `PMIX_SYSTEM_TMPDIR` (the
/// qualifiers' or the defaults): an array with one `PMIX_SERVER_INFO_ARRAY`
/// per server (its namespace, rank, version, pid, user, group and start
/// time, as OpenPMIx's master lists them); `None` if there is none (or a
/// file's contents cannot be represented).
fn available_servers(qualifiers: &[Info]) -> Option<Value> {
    use crate::net::tool_files;
    let default = crate::server::ServerConfig::default();
    let dir = |key: &str, d: &std::path::Path| {
        crate::info::value_of(qualifiers, key)
            .and_then(Value::as_str)
            .map_or_else(|| d.to_path_buf(), std::path::PathBuf::from)
    };
    // attrs begin: PMIx_Query_info PMIx_Query_info_nb
    let mut dirs = vec![
        dir(keys::SYSTEM_TMPDIR, &default.system_tmpdir),
        dir(keys::SERVER_TMPDIR, &default.tmpdir),
    ];
    // attrs end
    dirs.dedup();
    let servers = tool_files::available(&dirs);
    if servers.is_empty() {
        return None;
    }
    let mut list = Vec::with_capacity(servers.len());
    for f in servers {
        let mut one = vec![
            Info::keyed(keys::SERVER_NSPACE, Value::string(&f.nspace))?,
            Info::keyed(keys::SERVER_RANK, Value::ProcRank(f.rank))?,
        ];
        if let Some(v) = f.version {
            one.push(Info::keyed(keys::VERSION_INFO, Value::string(&v))?);
        }
        if let Some(p) = f.pid {
            one.push(Info::keyed(keys::SERVER_PIDINFO, Value::Uint32(p))?);
        }
        if let Some((u, g)) = f.ids {
            one.push(Info::keyed(keys::USERID, Value::Uint32(u))?);
            one.push(Info::keyed(keys::GRPID, Value::Uint32(g))?);
        }
        if let Some(t) = f.start {
            one.push(Info::keyed(keys::SERVER_START_TIME, Value::string(&t))?);
        }
        list.push(Info::keyed(
            keys::SERVER_INFO_ARRAY,
            Value::info_array(one),
        )?);
    }
    Some(Value::info_array(list))
}

impl Client {
    /// The answers this process's data gives, and the queries left for
    /// the server (each with the keys it could not answer).
    fn answer_locally(&self, queries: &[Query]) -> Result<(Vec<Info>, Vec<Query>), Status> {
        let optional = [Info::new(Key::new(keys::OPTIONAL)?, Value::Bool(true))];
        let mut found = Vec::new();
        let mut rest = Vec::new();
        for q in queries {
            let target = query_target(&self.inner.proc, q)?;
            let refresh = crate::info::flag_in(&q.qualifiers, QUERY_REFRESH_CACHE);
            let mut left = Vec::new();
            for k in &q.keys {
                if k.as_bytes() == keys::QUERY_ATTRIBUTE_SUPPORT.as_bytes() {
                    // Client and tool levels here, server and host levels
                    // from the server.
                    let (mine, theirs) = crate::attributes::split_local(&q.qualifiers);
                    found.extend(crate::attributes::support_info(mine));
                    if !theirs.is_empty() {
                        rest.push(Query {
                            keys: vec![k.clone()],
                            qualifiers: theirs,
                        });
                    }
                    continue;
                }
                let fixed = k
                    .to_str()
                    .ok()
                    .and_then(|key| Some((key, crate::strings::library_answer(key)?)));
                let local = if let Some((key, v)) = fixed {
                    Some((key, Value::string(v)))
                } else if k.as_bytes() == keys::QUERY_AVAIL_SERVERS.as_bytes() {
                    available_servers(&q.qualifiers).map(|v| (keys::QUERY_AVAIL_SERVERS, v))
                } else if refresh {
                    None
                } else {
                    k.to_str()
                        .ok()
                        .and_then(|key| Some((key, self.get(&target, key, &optional).ok()?)))
                };
                match local {
                    Some((key, v)) => found.push(Info::new(Key::new(key)?, v)),
                    None => left.push(k.clone()),
                }
            }
            if !left.is_empty() {
                rest.push(Query {
                    keys: left,
                    qualifiers: q.qualifiers.clone(),
                });
            }
        }
        Ok((found, rest))
    }

    /// `PMIx_Get(proc, PMIX_PSET_NAMES)` (`PMIX_GROUP_NAMES`): the process
    /// sets (groups) `proc` belongs to, asked of the server (whose table
    /// knows every set, also those defined before this process connected)
    /// as a query of the key for `proc`; a comma-separated string, as
    /// OpenPMIx's master answers (the header says an array of strings).
    /// `PMIX_ERR_NOT_FOUND` when it belongs to none.
    pub(crate) fn set_names(&self, proc: &Proc, key: &str) -> Result<Value, Status> {
        set_names_of(
            decode_answer(self.request(Op::QUERY, set_names_query(proc, key)?)),
            key,
        )
    }

    /// [`set_names`](Self::set_names) without waiting; `done` runs on the
    /// progress thread.
    pub(crate) fn set_names_nb(
        &self,
        proc: &Proc,
        key: &'static str,
        done: GetCallback,
    ) -> Result<(), Status> {
        self.request_nb(
            Op::QUERY,
            set_names_query(proc, key)?,
            Box::new(move |r| done(set_names_of(decode_answer(r), key))),
        )
    }

    /// `PMIx_Query_info`: the answers to `queries` (see the module
    /// documentation).
    pub fn query(&self, queries: &[Query]) -> Result<(Status, Vec<Info>), Status> {
        self.inner.check_active()?;
        if queries.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let (local, rest) = self.answer_locally(queries)?;
        if rest.is_empty() {
            return answered_here(local);
        }
        let mut body = Vec::new();
        rm::put_queries(&mut body, &rest)?;
        combine(local, decode_answer(self.request(Op::QUERY, body)))
    }

    /// `PMIx_Query_info_nb`: as [`query`](Self::query); `cb` runs on the
    /// progress thread.
    pub fn query_nb(&self, queries: &[Query], cb: QueryCallback) -> Result<(), Status> {
        self.inner.check_active()?;
        if queries.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let (local, rest) = self.answer_locally(queries)?;
        if rest.is_empty() {
            self.run_on_progress_thread(Box::new(move || cb(answered_here(local))));
            return Ok(());
        }
        let mut body = Vec::new();
        rm::put_queries(&mut body, &rest)?;
        self.request_nb(
            Op::QUERY,
            body,
            Box::new(move |r| cb(combine(local, decode_answer(r)))),
        )
    }

    /// The directives of a log request: `PMIX_LOG_SOURCE` (this process)
    /// and `PMIX_LOG_TIMESTAMP` (under `PMIX_LOG_GENERATE_TIMESTAMP`)
    /// added when absent.
    fn log_body(&self, data: &[Info], directives: &[Info]) -> Result<Vec<u8>, Status> {
        let mut dirs = directives.to_vec();
        if !dirs.iter().any(|i| is(i, LOG_SOURCE)) {
            dirs.push(Info::new(
                Key::new(LOG_SOURCE)?,
                Value::Proc(self.inner.proc.clone()),
            ));
        }
        if crate::info::flag_in(&dirs, LOG_GENERATE_TIMESTAMP)
            && !dirs.iter().any(|i| is(i, LOG_TIMESTAMP))
        {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0);
            dirs.push(Info::new(Key::new(LOG_TIMESTAMP)?, Value::Time(now)));
        }
        Ok(rm::put_two_lists(data, &dirs)?)
    }

    /// `PMIx_Log`: asks the server (its host) to log `data`.
    pub fn log(&self, data: &[Info], directives: &[Info]) -> Result<(), Status> {
        self.inner.check_active()?;
        if data.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let body = self.log_body(data, directives)?;
        self.request(Op::LOG, body).map(|_| ())
    }

    /// `PMIx_Log_nb`; `cb` runs on the progress thread.
    pub fn log_nb(
        &self,
        data: &[Info],
        directives: &[Info],
        cb: StatusCallback,
    ) -> Result<(), Status> {
        self.inner.check_active()?;
        if data.is_empty() {
            return Err(Status::ERR_BAD_PARAM);
        }
        let body = self.log_body(data, directives)?;
        self.request_nb(
            Op::LOG,
            body,
            Box::new(move |r| cb(r.map(|_| Status::SUCCESS).unwrap_or_else(|s| s))),
        )
    }

    fn infos_call(&self, op: Op, body: Vec<u8>) -> Result<Vec<Info>, Status> {
        self.inner.check_active()?;
        decode_list(self.request(op, body))
    }

    fn infos_call_nb(&self, op: Op, body: Vec<u8>, cb: InfosCallback) -> Result<(), Status> {
        self.inner.check_active()?;
        self.request_nb(op, body, Box::new(move |r| cb(decode_list(r))))
    }

    /// `PMIx_Job_control`: asks the host to apply `directives` to
    /// `targets` (empty: this namespace).
    pub fn job_control(&self, targets: &[Proc], directives: &[Info]) -> Result<Vec<Info>, Status> {
        let body = rm::put_job_control(targets, directives)?;
        self.infos_call(Op::JOB_CONTROL, body)
    }

    /// `PMIx_Job_control_nb`.
    pub fn job_control_nb(
        &self,
        targets: &[Proc],
        directives: &[Info],
        cb: InfosCallback,
    ) -> Result<(), Status> {
        let body = rm::put_job_control(targets, directives)?;
        self.infos_call_nb(Op::JOB_CONTROL, body, cb)
    }

    /// `PMIx_Session_control`: asks the host to apply `directives` to
    /// session `session`.
    pub fn session_control(&self, session: u32, directives: &[Info]) -> Result<Vec<Info>, Status> {
        let body = rm::put_session_control(session, directives)?;
        self.infos_call(Op::SESSION_CONTROL, body)
    }

    /// `PMIx_Session_control` with a callback.
    pub fn session_control_nb(
        &self,
        session: u32,
        directives: &[Info],
        cb: InfosCallback,
    ) -> Result<(), Status> {
        let body = rm::put_session_control(session, directives)?;
        self.infos_call_nb(Op::SESSION_CONTROL, body, cb)
    }

    /// `PMIx_Process_monitor`.
    pub fn monitor(
        &self,
        monitor: &Info,
        error: Status,
        directives: &[Info],
    ) -> Result<Vec<Info>, Status> {
        let body = rm::put_monitor(monitor, error, directives)?;
        self.infos_call(Op::MONITOR, body)
    }

    /// `PMIx_Process_monitor_nb`.
    pub fn monitor_nb(
        &self,
        monitor: &Info,
        error: Status,
        directives: &[Info],
        cb: InfosCallback,
    ) -> Result<(), Status> {
        let body = rm::put_monitor(monitor, error, directives)?;
        self.infos_call_nb(Op::MONITOR, body, cb)
    }

    /// `PMIx_Allocation_request`.
    pub fn allocate(&self, directive: u8, infos: &[Info]) -> Result<Vec<Info>, Status> {
        let body = rm::put_allocate(directive, infos)?;
        self.infos_call(Op::ALLOCATE, body)
    }

    /// `PMIx_Allocation_request_nb`.
    pub fn allocate_nb(
        &self,
        directive: u8,
        infos: &[Info],
        cb: InfosCallback,
    ) -> Result<(), Status> {
        let body = rm::put_allocate(directive, infos)?;
        self.infos_call_nb(Op::ALLOCATE, body, cb)
    }

    /// `PMIx_Fabric_register`/`_update`: asks the server's host for a
    /// fabric's information (`op`: `PMIX_FABRIC_REQUEST_INFO` or
    /// `PMIX_FABRIC_UPDATE_INFO`).
    pub fn fabric(&self, op: u8, directives: &[Info]) -> Result<Vec<Info>, Status> {
        let body = rm::put_fabric(op, directives)?;
        self.infos_call(Op::FABRIC, body)
    }

    /// [`Client::fabric`] with a callback.
    pub fn fabric_nb(&self, op: u8, directives: &[Info], cb: InfosCallback) -> Result<(), Status> {
        let body = rm::put_fabric(op, directives)?;
        self.infos_call_nb(Op::FABRIC, body, cb)
    }

    /// `PMIx_Get_credential`.
    pub fn get_credential(&self, directives: &[Info]) -> Result<(Vec<u8>, Vec<Info>), Status> {
        self.inner.check_active()?;
        let body = rm::put_list(directives)?;
        decode_credential(self.request(Op::GET_CREDENTIAL, body))
    }

    /// `PMIx_Get_credential_nb`.
    pub fn get_credential_nb(
        &self,
        directives: &[Info],
        cb: CredentialCallback,
    ) -> Result<(), Status> {
        self.inner.check_active()?;
        let body = rm::put_list(directives)?;
        self.request_nb(
            Op::GET_CREDENTIAL,
            body,
            Box::new(move |r| cb(decode_credential(r))),
        )
    }

    /// `PMIx_Validate_credential`.
    pub fn validate_credential(
        &self,
        cred: &[u8],
        directives: &[Info],
    ) -> Result<Vec<Info>, Status> {
        let body = rm::put_credential(cred, directives)?;
        self.infos_call(Op::VALIDATE_CREDENTIAL, body)
    }

    /// `PMIx_Validate_credential_nb`.
    pub fn validate_credential_nb(
        &self,
        cred: &[u8],
        directives: &[Info],
        cb: InfosCallback,
    ) -> Result<(), Status> {
        let body = rm::put_credential(cred, directives)?;
        self.infos_call_nb(Op::VALIDATE_CREDENTIAL, body, cb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;

    fn me() -> Proc {
        Proc::new(Nspace::new("me").unwrap(), Rank(2))
    }

    fn q(quals: Vec<Info>) -> Query {
        Query {
            keys: vec![CString::new("k.x").unwrap()],
            qualifiers: quals,
        }
    }

    #[test]
    fn query_targets_default_to_own_namespace_and_wildcard() {
        assert_eq!(
            query_target(&me(), &q(vec![])).unwrap(),
            Proc::new(Nspace::new("me").unwrap(), Rank::WILDCARD)
        );
        let other = Info::new(Key::new(keys::NSPACE).unwrap(), Value::string("other"));
        let rank = Info::new(Key::new(keys::RANK).unwrap(), Value::ProcRank(5));
        assert_eq!(
            query_target(&me(), &q(vec![other, rank])).unwrap(),
            Proc::new(Nspace::new("other").unwrap(), Rank(5))
        );
    }

    #[test]
    fn mistyped_process_qualifiers_are_bad_params() {
        let bad = Info::new(Key::new(keys::PROCID).unwrap(), Value::string("x"));
        assert_eq!(
            query_target(&me(), &q(vec![bad])),
            Err(Status::ERR_BAD_PARAM)
        );
        let bad = Info::new(Key::new(keys::RANK).unwrap(), Value::Int(1));
        assert_eq!(
            query_target(&me(), &q(vec![bad])),
            Err(Status::ERR_BAD_PARAM)
        );
        let no_keys = Query {
            keys: vec![],
            qualifiers: vec![],
        };
        assert_eq!(query_target(&me(), &no_keys), Err(Status::ERR_BAD_PARAM));
    }

    #[test]
    fn local_answers_survive_a_failing_server() {
        let local = vec![Info::new(Key::new("k.x").unwrap(), Value::Bool(true))];
        assert_eq!(
            combine(local.clone(), Err(Status::ERR_NOT_FOUND)),
            Ok((Status::ERR_PARTIAL_SUCCESS, local.clone()))
        );
        assert_eq!(
            combine(vec![], Err(Status::ERR_NOT_FOUND)),
            Err(Status::ERR_NOT_FOUND)
        );
        assert_eq!(
            combine(local.clone(), Ok((Status::SUCCESS, vec![]))),
            Ok((Status::SUCCESS, local))
        );
    }
}
