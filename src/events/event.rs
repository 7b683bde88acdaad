//! What an event is: its code, source, range and infos ([`Event`],
//! [`Range`], the event [`codes`]), and which processes it names and
//! reaches.
//!
//! Invariants: a [`Range`] is valid only if it is one of the ranges
//! OpenPMIx defines; a wildcard rank matches its whole namespace, on
//! either side of [`proc_matches`].

use crate::{keys, Info, Proc, Rank, Status, Value};

/// `pmix_data_range_t`: which processes an event reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Range(pub u8);

impl Range {
    /// `PMIX_RANGE_UNDEF`.
    pub const UNDEF: Range = Range(0);
    /// `PMIX_RANGE_RM`: the resource manager (the host) only.
    pub const RM: Range = Range(1);
    /// `PMIX_RANGE_LOCAL`: the processes on this node.
    pub const LOCAL: Range = Range(2);
    /// `PMIX_RANGE_NAMESPACE`: the source's namespace.
    pub const NAMESPACE: Range = Range(3);
    /// `PMIX_RANGE_SESSION`: the source's session.
    pub const SESSION: Range = Range(4);
    /// `PMIX_RANGE_GLOBAL`: everyone.
    pub const GLOBAL: Range = Range(5);
    /// `PMIX_RANGE_CUSTOM`: the processes of `PMIX_EVENT_CUSTOM_RANGE`.
    pub const CUSTOM: Range = Range(6);
    /// `PMIX_RANGE_PROC_LOCAL`: this process only.
    pub const PROC_LOCAL: Range = Range(7);

    /// True for a range the standard defines.
    pub fn is_valid(self) -> bool {
        self.0 <= 7
    }
}

/// Event codes and statuses the event machinery uses.
pub mod codes {
    use crate::Status;
    /// `PMIX_EVENT_ACTION_COMPLETE`: a handler ends the chain.
    pub const ACTION_COMPLETE: Status = Status(-334);
    /// `PMIX_ERR_EVENT_REGISTRATION`: a placement cannot be honoured.
    pub const ERR_EVENT_REGISTRATION: Status = Status(-144);
    /// `PMIX_ERR_PROC_ABORTED`.
    pub const ERR_PROC_ABORTED: Status = Status(-7);
    /// `PMIX_ERR_PROC_TERM_WO_SYNC`.
    pub const ERR_PROC_TERM_WO_SYNC: Status = Status(-200);
    /// `PMIX_EVENT_JOB_END`.
    pub const JOB_END: Status = Status(-145);
    /// `PMIX_DEBUGGER_RELEASE`: a debugger releases stopped processes.
    pub const DEBUGGER_RELEASE: Status = Status(-3);
    /// `PMIX_READY_FOR_DEBUG`: processes wait for a debugger.
    pub const READY_FOR_DEBUG: Status = Status(-58);
    /// `PMIX_PROCESS_SET_DEFINE`.
    pub const PROCESS_SET_DEFINE: Status = Status(-55);
    /// `PMIX_PROCESS_SET_DELETE`.
    pub const PROCESS_SET_DELETE: Status = Status(-56);
    /// `PMIX_MONITOR_HEARTBEAT_ALERT`: a monitored process stopped beating.
    pub const MONITOR_HEARTBEAT_ALERT: Status = Status(-109);
    /// `PMIX_MONITOR_FILE_ALERT`: a monitored file stopped changing.
    pub const MONITOR_FILE_ALERT: Status = Status(-110);
}

/// One event: its code, who raised it, how far it goes and what it says.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The event's code.
    pub status: Status,
    /// The process the event is about or came from.
    pub source: Proc,
    /// Who it reaches.
    pub range: Range,
    /// Its description (`PMIX_EVENT_AFFECTED_PROC`, custom range, ...).
    pub infos: Vec<Info>,
}

impl Event {
    // attrs begin: PMIx_Notify_event
    /// The processes `PMIX_EVENT_AFFECTED_PROC(S)` name.
    pub fn affected(&self) -> Vec<Proc> {
        procs_of(
            &self.infos,
            &[keys::EVENT_AFFECTED_PROC, keys::EVENT_AFFECTED_PROCS],
        )
    }

    /// The processes `PMIX_EVENT_CUSTOM_RANGE` names.
    pub fn custom_range(&self) -> Vec<Proc> {
        procs_of(&self.infos, &[keys::EVENT_CUSTOM_RANGE])
    }

    /// True if `PMIX_EVENT_NON_DEFAULT` is set: default handlers skip it.
    pub fn non_default(&self) -> bool {
        self.infos
            .iter()
            .any(|i| key_is(i, keys::EVENT_NON_DEFAULT) && info_true(i))
    }

    /// The `PMIX_EVENT_PROXY` the event carries, if any.
    pub fn proxy(&self) -> Option<Proc> {
        self.infos
            .iter()
            .find(|i| key_is(i, keys::EVENT_PROXY))
            .and_then(|i| match &i.value {
                Value::Proc(p) => Some(p.clone()),
                _ => None,
            })
    }
    // attrs end

    /// Whether the local process `target` is within the event's range.
    /// `PMIX_RANGE_RM` reaches no application process.
    pub fn reaches(&self, target: &Proc) -> bool {
        match self.range {
            Range::PROC_LOCAL => target == &self.source,
            Range::NAMESPACE => target.nspace == self.source.nspace,
            Range::CUSTOM => self.custom_range().iter().any(|p| proc_matches(p, target)),
            Range::RM => false,
            _ => true,
        }
    }
}

/// True if `pattern` names `p` (a wildcard rank names its whole namespace).
pub fn proc_matches(pattern: &Proc, p: &Proc) -> bool {
    pattern.nspace == p.nspace
        && (pattern.rank == p.rank || pattern.rank == Rank::WILDCARD || p.rank == Rank::WILDCARD)
}

pub(super) fn key_is(i: &Info, k: &str) -> bool {
    i.key.as_bytes() == k.as_bytes()
}

/// `PMIX_INFO_TRUE`: a true bool, or no value at all.
pub(super) fn info_true(i: &Info) -> bool {
    matches!(i.value, Value::Bool(true) | Value::Undef)
}

pub(super) fn procs_of(infos: &[Info], wanted: &[&str]) -> Vec<Proc> {
    let mut out = Vec::new();
    for i in infos.iter().filter(|i| wanted.iter().any(|k| key_is(i, k))) {
        match &i.value {
            Value::Proc(p) => out.push(p.clone()),
            Value::DataArray(a) => out.extend(a.items.iter().filter_map(|v| match v {
                Value::Proc(p) => Some(p.clone()),
                _ => None,
            })),
            _ => {}
        }
    }
    out
}
