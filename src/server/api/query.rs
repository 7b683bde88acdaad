//! Queries asked by the host for its own process (`PMIx_Query_info_nb`
//! in the server process) and the names of the sets a process is in.

use std::ffi::CString;

use super::Server;
use crate::server::query::{query_for, ServerQueryCallback, Tap, NOBODY};
use crate::value::Query;
use crate::wire::rm;
use crate::{keys, Info, Key, Proc, Status, Value};

impl Server {
    /// `PMIx_Query_info_nb` in the server's own process: answered as a
    /// client's query reaching the server (its knowledge, the host's
    /// `query`, the defaults), the server itself being the requester.
    /// `cb` runs on the server's progress thread.
    pub fn query_nb(&self, queries: Vec<Query>, cb: ServerQueryCallback) -> Result<(), Status> {
        if queries.is_empty() || queries.iter().any(|q| q.keys.is_empty()) {
            return Err(Status::ERR_BAD_PARAM);
        }
        let me = self.proc();
        let tap: Tap = Box::new(move |r| {
            cb(r.clone()
                .and_then(|b| rm::get_query_answer(&b).map_err(|_| Status::ERR_UNPACK_FAILURE)))
        });
        if self.run_on_loop(move |el| query_for(el, NOBODY, &me, queries, Some(tap))) {
            Ok(())
        } else {
            Err(Status::ERR_INIT)
        }
    }
}

impl Server {
    /// `PMIx_Get(proc, PMIX_PSET_NAMES)` (`PMIX_GROUP_NAMES`) in the
    /// server's own process: the sets (groups) of the server's tables that
    /// `proc` belongs to, comma-separated; `PMIX_ERR_NOT_FOUND` when none.
    /// Blocks until the progress thread answered (not from it).
    pub fn set_names(&self, proc: &Proc, key: &str) -> Result<Value, Status> {
        let k = CString::new(key).map_err(|_| Status::ERR_BAD_PARAM)?;
        let q = Query {
            keys: vec![k],
            qualifiers: vec![Info::new(
                Key::new(keys::PROCID)?,
                Value::Proc(proc.clone()),
            )],
        };
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.query_nb(
            vec![q],
            Box::new(move |r| {
                let _ = tx.send(r);
            }),
        )?;
        let (_, infos) = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .map_err(|_| Status::ERR_TIMEOUT)??;
        crate::info::set_names_in(infos, key)
    }
}
