//! Stopping in `PMIx_Init` for a debugger (`PMIX_DEBUG_STOP_IN_INIT`).
//!
//! When the job data of this process's namespace holds
//! `PMIX_DEBUG_STOP_IN_INIT` naming it, `PMIx_Init` does what OpenPMIx's
//! client does before it returns:
//!
//! 1. registers a handler for `PMIX_DEBUGGER_RELEASE`;
//! 2. raises `PMIX_READY_FOR_DEBUG` (source: this process, range
//!    `PMIX_RANGE_CUSTOM` aimed at its server alone, with
//!    `PMIX_EVENT_NON_DEFAULT`, `PMIX_BREAKPOINT` = `"pmix-init"` and
//!    `PMIX_EVENT_DO_NOT_CACHE`), which the server hands to its host;
//! 3. blocks until a `PMIX_DEBUGGER_RELEASE` reaches it.
//!
//! The value forms accepted are OpenPMIx master's, plus the proc forms
//! the standard's "ranks to stop" suggests: a `PMIX_BOOL` (true: every
//! rank; false: none), a `PMIX_PROC_RANK` (that rank, or every rank for
//! the wildcard), a `PMIX_PROC` or a data array of procs (the ranks
//! named). Another type fails the init with `PMIX_ERR_BAD_PARAM`, as
//! OpenPMIx master does.
//!
//! Invariant: the wait ends — with success on the release, with
//! `PMIX_ERR_LOST_CONNECTION` when the server goes away (OpenPMIx would
//! wait forever) — and the handler registered for it is gone afterwards.

use std::sync::mpsc;
use std::sync::Arc;

use super::Client;
use crate::events::{codes, proc_matches, EventHandler, Range};
use crate::{keys, Info, Proc, Rank, Status, Value};

/// Whether `PMIX_DEBUG_STOP_IN_INIT` of value `v` names `me`.
pub fn names_me(v: &Value, me: &Proc) -> Result<bool, Status> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::ProcRank(r) | Value::Uint32(r) => Ok(*r == Rank::WILDCARD.0 || *r == me.rank.0),
        Value::Proc(_) | Value::DataArray(_) => Ok(v
            .procs()
            .unwrap_or_default()
            .iter()
            .any(|p| proc_matches(p, me))),
        _ => Err(Status::ERR_BAD_PARAM),
    }
}

/// The infos of the `PMIX_READY_FOR_DEBUG` a stopped process raises.
fn ready_infos(server: &Proc) -> Vec<Info> {
    let mut v = Vec::with_capacity(4);
    v.extend(Info::keyed(keys::EVENT_NON_DEFAULT, Value::Bool(true)));
    v.extend(Info::keyed(keys::BREAKPOINT, Value::string("pmix-init")));
    v.extend(Info::keyed(keys::EVENT_DO_NOT_CACHE, Value::Bool(true)));
    v.extend(Info::keyed(
        keys::EVENT_CUSTOM_RANGE,
        Value::Proc(server.clone()),
    ));
    v
}

impl Client {
    /// The stop in `PMIx_Init` the job data asks for, if it names this
    /// process (see the module documentation); returns at once otherwise.
    pub(super) fn stop_in_init_if_asked(&self) -> Result<(), Status> {
        let me = self.proc().clone();
        let job = Proc::new(me.nspace.clone(), Rank::WILDCARD);
        let optional: Vec<Info> = Info::keyed(keys::OPTIONAL, Value::Bool(true))
            .into_iter()
            .collect();
        let Ok(v) = self.get(&job, keys::DEBUG_STOP_IN_INIT, &optional) else {
            return Ok(());
        };
        if !names_me(&v, &me)? {
            return Ok(());
        }
        self.wait_for_release()
    }

    /// Steps 1 to 3 of the module documentation.
    fn wait_for_release(&self) -> Result<(), Status> {
        let (tx, rx) = mpsc::channel::<Status>();
        let tx = std::sync::Mutex::new(tx);
        let handler: EventHandler = Arc::new(move |call| {
            let _ = tx
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .send(call.status);
            call.done.complete(Status::SUCCESS, Vec::new());
        });
        let name: Vec<Info> =
            Info::keyed(keys::EVENT_HDLR_NAME, Value::string("WAIT-FOR-DEBUGGER"))
                .into_iter()
                .collect();
        let id = self.register_event_handler(
            &[codes::DEBUGGER_RELEASE, Status::ERR_LOST_CONNECTION],
            &name,
            handler,
        )?;
        let r = self.announce_and_wait(&rx);
        let _ = self.deregister_event_handler(id);
        r
    }

    fn announce_and_wait(&self, rx: &mpsc::Receiver<Status>) -> Result<(), Status> {
        let (ack_tx, ack_rx) = mpsc::channel::<Status>();
        self.notify_event(
            codes::READY_FOR_DEBUG,
            None,
            Range::CUSTOM,
            &ready_infos(self.server()),
            Some(Box::new(move |s| {
                let _ = ack_tx.send(s);
            })),
        )?;
        // The server answers every request, or the connection's loss
        // fails it: neither wait below outlives the server.
        match ack_rx.recv() {
            Ok(s) if s == Status::SUCCESS => {}
            Ok(s) => return Err(s),
            Err(_) => return Err(Status::ERR_LOST_CONNECTION),
        }
        match rx.recv() {
            Ok(s) if s == codes::DEBUGGER_RELEASE => Ok(()),
            Ok(_) | Err(_) => Err(Status::ERR_LOST_CONNECTION),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::DataArray;
    use crate::{DataType, Nspace};

    fn p(ns: &str, r: u32) -> Proc {
        Proc::new(Nspace::new(ns).unwrap(), Rank(r))
    }

    #[test]
    fn every_value_form_names_the_right_ranks() {
        let me = p("job", 1);
        assert_eq!(names_me(&Value::Bool(true), &me), Ok(true));
        assert_eq!(names_me(&Value::Bool(false), &me), Ok(false));
        assert_eq!(names_me(&Value::ProcRank(1), &me), Ok(true));
        assert_eq!(names_me(&Value::ProcRank(0), &me), Ok(false));
        assert_eq!(names_me(&Value::ProcRank(Rank::WILDCARD.0), &me), Ok(true));
        assert_eq!(names_me(&Value::Proc(p("job", 1)), &me), Ok(true));
        assert_eq!(names_me(&Value::Proc(p("other", 1)), &me), Ok(false));
        let arr = Value::DataArray(Box::new(DataArray {
            elem_type: DataType::Proc,
            items: vec![Value::Proc(p("job", 0)), Value::Proc(p("job", 1))],
        }));
        assert_eq!(names_me(&arr, &me), Ok(true));
        assert_eq!(
            names_me(&Value::Proc(p("job", Rank::WILDCARD.0)), &me),
            Ok(true)
        );
        assert_eq!(
            names_me(&Value::string("yes"), &me),
            Err(Status::ERR_BAD_PARAM)
        );
    }
}
