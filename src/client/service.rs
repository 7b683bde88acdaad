//! The generic service path of the client: one [`Request`] carrying an
//! [`Op`] and its body, answered by one [`Response`], and the event
//! notifications the server pushes. The services built on it (publish and
//! lookup, query, log, events, spawn, connect, ...) encode their own bodies.

use crate::wire::{Message, Op, Request, Response};
use crate::Status;

use super::progress::EventSink;
use super::Client;

/// Callback of [`Client::request_nb`]: the response body or the failure;
/// runs on the progress thread.
pub type ResponseCallback = Box<dyn FnOnce(Result<Vec<u8>, Status>) + Send + 'static>;

fn response_of(r: super::progress::Reply) -> Result<Vec<u8>, Status> {
    match r?.0 {
        Message::Response(Response { status, body }) => status.into_result().map(|()| body),
        _ => Err(Status::ERR_COMM_FAILURE),
    }
}

impl Client {
    /// Sends a service request and blocks until its response: the body on
    /// success, the server's status otherwise (`PMIX_ERR_LOST_CONNECTION`
    /// if the connection ends first).
    pub fn request(&self, op: Op, body: Vec<u8>) -> Result<Vec<u8>, Status> {
        self.inner.check_active()?;
        self.check_reachable(op)?;
        response_of(
            self.inner
                .requester
                .call(Message::Request(Request { op, body })),
        )
    }

    /// Sends a service request; `cb` runs on the progress thread with the
    /// response (exactly once).
    pub fn request_nb(&self, op: Op, body: Vec<u8>, cb: ResponseCallback) -> Result<(), Status> {
        self.inner.check_active()?;
        self.check_reachable(op)?;
        self.inner.requester.submit(
            Message::Request(Request { op, body }),
            Some(Box::new(move |r| cb(response_of(r)))),
        );
        Ok(())
    }

    /// `PMIX_ERR_UNREACH` for an operation a singleton cannot serve.
    pub(super) fn check_reachable(&self, op: Op) -> Result<(), Status> {
        if self.is_singleton() && !super::singleton::serves(op) {
            return Err(Status::ERR_UNREACH);
        }
        Ok(())
    }

    /// Sets the receiver of the event notifications the server pushes
    /// (`None` drops them). It runs on the progress thread.
    pub fn set_event_sink(&self, sink: Option<EventSink>) {
        self.inner.requester.set_event_sink(sink);
    }

    /// Runs `f` on the client's progress thread (for callbacks of local
    /// operations that must not run in the caller's thread).
    pub fn run_on_progress_thread(&self, f: Box<dyn FnOnce() + Send + 'static>) {
        self.inner.requester.run_there(f);
    }
}
