//! The generic service path of the server: dispatch of [`Request`]s by
//! [`Op`] to the service that handles each, the tools those services use
//! on the progress thread (answering, handing an operation to the host,
//! pushing events to clients), and [`Server::run_on_loop`] for server API
//! calls that need the loop's state.
//!
//! A service handler runs on the progress thread with the caller's
//! authenticated identity. It answers at once with [`EventLoop::respond`],
//! or hands the operation to the host with [`EventLoop::host_op`] and
//! answers when the host's [`Completion`] arrives. Every request gets
//! exactly one response: an unknown operation is `PMIX_ERR_NOT_SUPPORTED`.

// Some tools are used only once the services that need them land.
#![allow(dead_code)]

use std::sync::Arc;

use mio::Token;

use super::event_loop::{EventLoop, PendingOp};
use super::host::{take_result, Command, Completion, HostModule, OpResult};
use super::Server;
use crate::wire::{Message, Op, Request, Response};
use crate::{Proc, Status};

/// Turns a host's typed result into a response body.
pub(crate) type Encoder = Box<dyn FnOnce(OpResult) -> Result<Vec<u8>, Status> + Send + 'static>;

/// Where a request came from: the connection and the request id to answer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Caller {
    pub(crate) token: Token,
    pub(crate) id: u32,
}

impl EventLoop {
    /// Dispatches one service request from `proc`.
    pub(super) fn service(&mut self, caller: Caller, proc: &Proc, req: Request) {
        // Each service adds its operations here.
        match req.op {
            Op::PUBLISH | Op::LOOKUP | Op::UNPUBLISH => self.pubsub(caller, proc, req),
            Op::QUERY => self.query(caller, proc, &req.body),
            Op::LOG => self.log(caller, proc, &req.body),
            Op::JOB_CONTROL => self.job_control(caller, proc, &req.body),
            Op::MONITOR => self.monitor(caller, proc, &req.body),
            Op::ALLOCATE => self.allocate(caller, proc, &req.body),
            Op::GET_CREDENTIAL => self.get_credential(caller, proc, &req.body),
            Op::VALIDATE_CREDENTIAL => self.validate_credential(caller, proc, &req.body),
            Op::SPAWN => self.spawn_request(caller, proc, &req.body),
            Op::CONNECT | Op::DISCONNECT => self.collective_enter(caller, proc, req.op, &req.body),
            Op::NOTIFY_EVENT => self.notify_from_client(caller, proc, &req.body),
            Op(_) => self.respond(caller, Err(Status::ERR_NOT_SUPPORTED)),
        }
    }

    /// Answers a request.
    pub(crate) fn respond(&mut self, caller: Caller, r: Result<Vec<u8>, Status>) {
        let m = Message::Response(match r {
            Ok(body) => Response {
                status: Status::SUCCESS,
                body,
            },
            Err(status) => Response {
                status,
                body: Vec::new(),
            },
        });
        self.send_msg(caller.token, caller.id, &m);
    }

    /// Starts a host operation answering `caller`: returns the operation's
    /// number (for [`EventLoop::refuse_op`]) and the completion to give the
    /// host. When the host completes with a `T`, `encode` makes the
    /// response body from it.
    pub(crate) fn host_op<T: Send + 'static>(
        &mut self,
        caller: Caller,
        encode: impl FnOnce(T) -> Result<Vec<u8>, Status> + Send + 'static,
    ) -> (u64, Completion<T>) {
        let encoder: Encoder = Box::new(move |r| take_result::<T>(r).and_then(encode));
        let op = self.new_pending(PendingOp::Service { caller, encoder });
        (op, Completion::new(op, self.notifier().clone()))
    }

    /// Resolves a host operation the host refused synchronously.
    pub(crate) fn refuse_op(&mut self, op: u64, status: Status) {
        self.finish_op(op, Err(status));
    }

    /// The host module.
    pub(crate) fn host_module(&self) -> Arc<dyn HostModule> {
        self.host().clone()
    }

    /// Pushes an event notification to the connected client `proc`;
    /// false if it is not connected.
    pub(crate) fn send_event(&mut self, proc: &Proc, body: Vec<u8>) -> bool {
        match self.token_of(proc) {
            Some(token) => {
                self.send_msg(token, 0, &Message::Event(body));
                true
            }
            None => false,
        }
    }
}

impl Server {
    /// Runs `task` on the progress thread with the loop's state; false if
    /// the loop has stopped.
    pub(crate) fn run_on_loop(&self, task: impl FnOnce(&mut EventLoop) + Send + 'static) -> bool {
        self.notifier.send(Command::Run(Box::new(task)))
    }
}
