//! `PMIX_EVENT_JOB_END`: once every rank of a namespace (the launched job,
//! a spawned one, debugger daemons) has ended *and* its output pipes are
//! drained (so that tools pulling the output get its last lines before
//! the event), the server raises `PMIX_EVENT_JOB_END` with
//! `PMIX_EVENT_AFFECTED_PROC` (the namespace, wildcard rank),
//! `PMIX_JOB_TERM_STATUS` and `PMIX_EXIT_CODE` (the first non-zero exit
//! code of its ranks, 128 + signal for a killed one, else 0), to every
//! process and tool of the server (`PMIX_RANGE_SESSION`), marked
//! `PMIX_EVENT_NON_DEFAULT` so that only handlers registered for the code
//! get it, as PRRTE does for its tools.
//!
//! Invariant: a namespace's count is its started ranks plus their open
//! output pipes; the event is raised once, when it reaches zero.

use std::collections::HashMap;

use pmix::events::{Event, Range};
use pmix::server::Server;
use pmix::{keys, Info, Nspace, Proc, Rank, Status, Value};

use crate::sys;

/// The namespaces not ended yet.
#[derive(Default)]
pub struct JobEnds {
    open: HashMap<Nspace, Pending>,
}

#[derive(Default)]
struct Pending {
    /// Running ranks and open output pipes.
    count: u32,
    /// The first failure's exit code.
    code: i32,
}

impl JobEnds {
    /// A rank of `ns` started, with `pipes` output pipes.
    pub fn started(&mut self, ns: &Nspace, pipes: u32) {
        self.open.entry(ns.clone()).or_default().count += 1 + pipes;
    }

    /// A rank of `ns` ended with wait status `status`.
    pub fn rank_ended(&mut self, server: &Server, ns: &Nspace, status: i32) {
        let code = sys::exit_code(status)
            .or_else(|| sys::killed_by(status).map(|s| 128 + s))
            .unwrap_or(0);
        if let Some(p) = self.open.get_mut(ns) {
            if p.code == 0 {
                p.code = code;
            }
        }
        self.one_less(server, ns);
    }

    /// An output pipe of a rank of `ns` reached its end.
    pub fn pipe_closed(&mut self, server: &Server, ns: &Nspace) {
        self.one_less(server, ns);
    }

    fn one_less(&mut self, server: &Server, ns: &Nspace) {
        let Some(p) = self.open.get_mut(ns) else {
            return;
        };
        p.count = p.count.saturating_sub(1);
        if p.count == 0 {
            let code = p.code;
            self.open.remove(ns);
            raise(server, ns, code);
        }
    }
}

/// Raises `PMIX_EVENT_JOB_END` for `ns`.
fn raise(server: &Server, ns: &Nspace, code: i32) {
    let info = |k: &str, v: Value| Info::keyed(k, v).expect("short key");
    let me = server.config();
    let event = Event {
        status: Status::EVENT_JOB_END,
        source: Proc::new(me.nspace.clone(), me.rank),
        range: Range::SESSION,
        infos: vec![
            info(
                keys::EVENT_AFFECTED_PROC,
                Value::Proc(Proc::new(ns.clone(), Rank::WILDCARD)),
            ),
            info(keys::JOB_TERM_STATUS, Value::Status(code)),
            info(keys::EXIT_CODE, Value::Int(code)),
            info(keys::EVENT_NON_DEFAULT, Value::Bool(true)),
        ],
    };
    let _ = server.notify_event(event, None);
}
