//! `PMIx_Connect` / `PMIx_Disconnect` on the server, and the delivery of
//! other namespaces' segments to a client.
//!
//! A connect (or disconnect) is a collective over a participant set that
//! may span namespaces. As with fences, the local processes calling it with
//! the same (sorted) set join one tracker; once every local participant
//! arrived, the host's `connect` (`disconnect`) is called once for this
//! node, and its completion releases them all. Without the callback, a set
//! whose participants are all local completes at once. A participant that
//! leaves (connection lost or finalized) before arriving, or the shortest
//! `PMIX_TIMEOUT` given, fails the operation for those that arrived
//! (`PMIX_ERR_LOST_CONNECTION`, `PMIX_ERR_TIMEOUT`): nobody hangs. The
//! timeout is the server's alone: it is not passed to the host (the
//! standard's advice against competing timeouts), and a host answer after
//! it is ignored. A disconnect is not checked against earlier connects
//! (OpenPMIx 4.2's client does not either).
//!
//! After a connect, participants read each other's job data from the
//! other namespaces' job segments, which a client asks for with a
//! `NspaceRequest` (see [`EventLoop::nspace_segments`]), and their posted
//! data by direct modex, which serves any local process whatever its
//! namespace.

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

use mio::Token;

use super::event_loop::{push_job_segment, push_modex, EventLoop, PendingOp, TimerKey};
use super::fence;
use super::host::Completion;
use super::services::Caller;
use crate::wire::{process_mgmt, Directives, Message, NspaceReply, Op};
use crate::{keys, Info, Nspace, Proc, Status};

/// One connect or disconnect in progress.
struct Collective {
    op: Op,
    procs: Vec<Proc>,
    infos: Vec<Info>,
    expected: BTreeSet<Proc>,
    arrived: Vec<(Proc, Caller)>,
    deadline: Option<Instant>,
    host_op: Option<u64>,
}

/// The connects and disconnects in progress on this server.
#[derive(Default)]
pub(crate) struct Collectives {
    by_set: HashMap<(u16, Vec<Proc>), u64>,
    active: HashMap<u64, Collective>,
    next: u64,
}

impl EventLoop {
    /// Handles a connect or disconnect request from `proc`.
    pub(super) fn collective_enter(&mut self, caller: Caller, proc: &Proc, op: Op, body: &[u8]) {
        let (procs, infos) = match process_mgmt::decode_collective(body) {
            Ok(x) => x,
            Err(s) => return self.respond(caller, Err(s)),
        };
        if procs.is_empty() || !fence::includes(&procs, proc) {
            return self.respond(caller, Err(Status::ERR_BAD_PARAM));
        }
        let procs = fence::normalize(procs, proc);
        let d = Directives::parse(&infos);
        let key = (op.0, procs.clone());
        let cid = match self.collectives.by_set.get(&key).copied() {
            Some(c) => c,
            None => {
                let expected = self.local_participants(&procs);
                self.collectives.next += 1;
                let cid = self.collectives.next;
                self.collectives.by_set.insert(key, cid);
                self.collectives.active.insert(
                    cid,
                    Collective {
                        op,
                        procs: procs.clone(),
                        infos,
                        expected,
                        arrived: Vec::new(),
                        deadline: None,
                        host_op: None,
                    },
                );
                cid
            }
        };
        let Some(c) = self.collectives.active.get_mut(&cid) else {
            return;
        };
        if c.arrived.iter().any(|(p, _)| p == proc) {
            return self.respond(caller, Err(Status::ERR_BAD_PARAM));
        }
        c.expected.insert(proc.clone());
        c.arrived.push((proc.clone(), caller));
        if let Some(dl) = d.deadline() {
            if c.deadline.map_or(true, |old| dl < old) {
                if let Some(old) = c.deadline {
                    self.timers.remove(&(old, TimerKey::Collective(cid)));
                }
                c.deadline = Some(dl);
                self.timers.insert((dl, TimerKey::Collective(cid)));
            }
        }
        let departed = &self.departed;
        let gone = c
            .expected
            .iter()
            .any(|p| departed.contains(p) && !c.arrived.iter().any(|(a, _)| a == p));
        if gone {
            return self.collective_done(cid, Err(Status::ERR_LOST_CONNECTION));
        }
        let complete = c
            .expected
            .iter()
            .all(|p| c.arrived.iter().any(|(a, _)| a == p));
        if complete {
            self.collective_start(cid);
        }
    }

    /// Every local participant arrived: hand the operation to the host, or
    /// complete it here.
    fn collective_start(&mut self, cid: u64) {
        let Some(c) = self.collectives.active.get_mut(&cid) else {
            return;
        };
        // The server keeps PMIX_TIMEOUT itself: the host gets no competing
        // timeout (as the standard advises).
        let infos: Vec<Info> = c
            .infos
            .iter()
            .filter(|i| i.key.as_bytes() != keys::TIMEOUT.as_bytes())
            .cloned()
            .collect();
        let (op, procs) = (c.op, c.procs.clone());
        self.collectives.by_set.remove(&(op.0, procs.clone()));
        let hop = self.new_pending(PendingOp::Collective(cid));
        if let Some(c) = self.collectives.active.get_mut(&cid) {
            c.host_op = Some(hop);
        }
        let done = Completion::new(hop, self.notifier().clone());
        let host = self.host_module();
        let r = if op == Op::CONNECT {
            host.connect(&procs, &infos, done)
        } else {
            host.disconnect(&procs, &infos, done)
        };
        match r {
            Ok(()) => {}
            Err(s) if s == Status::ERR_NOT_SUPPORTED && self.all_local(&procs) => {
                self.ops_forget(hop);
                self.collective_done(cid, Ok(()));
            }
            Err(s) => {
                self.ops_forget(hop);
                self.collective_done(cid, Err(s));
            }
        }
    }

    /// The operation finished (or failed): answer every participant that
    /// arrived and forget it.
    pub(super) fn collective_done(&mut self, cid: u64, result: Result<(), Status>) {
        let Some(c) = self.collectives.active.remove(&cid) else {
            return;
        };
        if self.collectives.by_set.get(&(c.op.0, c.procs.clone())) == Some(&cid) {
            self.collectives.by_set.remove(&(c.op.0, c.procs.clone()));
        }
        if let Some(dl) = c.deadline {
            self.timers.remove(&(dl, TimerKey::Collective(cid)));
        }
        if let Some(h) = c.host_op {
            // A late answer from the host finds nothing to resolve.
            self.ops_forget(h);
        }
        for (_, caller) in c.arrived {
            self.respond(caller, result.map(|()| Vec::new()));
        }
    }

    /// The shortest `PMIX_TIMEOUT` of a collective passed.
    pub(super) fn collective_timeout(&mut self, cid: u64) {
        self.collective_done(cid, Err(Status::ERR_TIMEOUT));
    }

    /// `proc` left (lost or finalized): collectives that wait for it and
    /// have not reached the host fail.
    pub(super) fn collectives_proc_left(&mut self, proc: &Proc) {
        let ids: Vec<u64> = self
            .collectives
            .active
            .iter()
            .filter(|(_, c)| {
                c.host_op.is_none()
                    && c.expected.contains(proc)
                    && !c.arrived.iter().any(|(a, _)| a == proc)
            })
            .map(|(&id, _)| id)
            .collect();
        for cid in ids {
            self.collective_done(cid, Err(Status::ERR_LOST_CONNECTION));
        }
    }

    fn ops_forget(&mut self, op: u64) {
        self.take_pending(op);
    }

    /// Answers a `NspaceRequest`: the job segment and modex generations of
    /// `ns`, or `PMIX_ERR_NOT_FOUND` if it is not registered here.
    pub(super) fn nspace_segments(&mut self, token: Token, id: u32, ns: &Nspace) {
        let mut segments = Vec::new();
        let mut fds = Vec::new();
        let status = match self.registry().nspace(ns) {
            None => Status::ERR_NOT_FOUND,
            Some(rec) => {
                let ok = push_job_segment(ns, &rec, &mut segments, &mut fds)
                    && self
                        .modex
                        .get(ns)
                        .into_iter()
                        .flatten()
                        .all(|m| push_modex(ns, m, &mut segments, &mut fds));
                if ok {
                    Status::SUCCESS
                } else {
                    Status::ERR_OUT_OF_RESOURCE
                }
            }
        };
        if status != Status::SUCCESS {
            segments.clear();
            fds.clear();
        }
        let m = Message::NspaceReply(NspaceReply { status, segments });
        self.send(token, id, &m, fds);
    }
}
