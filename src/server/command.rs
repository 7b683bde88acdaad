//! The channel into the server's progress thread: the [`Command`]s host
//! threads (and completions) send it, and the [`Notifier`] that queues one
//! and wakes the loop.
//!
//! Invariant: a command sent from the loop's own thread (a host completing
//! an operation inside the callback that started it) does not wake the
//! loop; the loop drains the channel after its work in every pass, before
//! it polls again, so the command is handled in the same pass.

use std::sync::Arc;

use crossbeam_channel::Sender;

use super::host::{DmodexCallback, OpResult, OpSink};
use super::state::State;
use crate::{Nspace, Proc};

/// What the loop receives from completions and from API calls.
pub(crate) enum Command {
    /// A host operation finished.
    OpDone { op: u64, result: OpResult },
    /// The host asks for a local process's data (`dmodex_request`).
    HostDmodex { proc: Proc, done: DmodexCallback },
    /// A namespace was deregistered: drop its modex data and segments.
    NspaceGone(Nspace),
    /// A client was deregistered: forget it and close its connection.
    ClientGone(Proc),
    /// Run a closure on the progress thread with the loop's state (server
    /// API calls that need it: notifications, queries, logs).
    Run(LoopTask),
    /// Run a closure on the progress thread ([`super::Server::defer`]).
    Defer(Box<dyn FnOnce() + Send>),
    /// Stop the loop.
    Shutdown,
}

/// A closure run on the server's progress thread (see [`Command::Run`]).
pub(crate) type LoopTask = Box<dyn FnOnce(&mut State) + Send + 'static>;

/// Sends commands to the progress thread and wakes it.
#[derive(Clone)]
pub(crate) struct Notifier {
    tx: Sender<Command>,
    waker: Arc<mio::Waker>,
}

thread_local! {
    /// The waker of the event loop that runs on this thread, if one does.
    static LOOP_WAKER: std::cell::Cell<*const mio::Waker> =
        const { std::cell::Cell::new(std::ptr::null()) };
}

impl Notifier {
    pub(crate) fn new(tx: Sender<Command>, waker: Arc<mio::Waker>) -> Notifier {
        Notifier { tx, waker }
    }

    /// Delivers `cmd`; false if the loop is gone. On the loop's own thread
    /// the loop is not woken (see the module documentation).
    pub(crate) fn send(&self, cmd: Command) -> bool {
        self.try_send(cmd).is_ok() && self.wake()
    }

    /// Queues `cmd` without waking the loop; gives it back if the loop is
    /// gone.
    pub(crate) fn try_send(&self, cmd: Command) -> Result<(), Command> {
        self.tx.send(cmd).map_err(|e| e.0)
    }

    /// Wakes the loop unless this is its own thread; false if it cannot be
    /// woken.
    pub(crate) fn wake(&self) -> bool {
        self.on_loop_thread() || self.waker.wake().is_ok()
    }

    /// Marks the calling thread as the one running this notifier's loop.
    pub(crate) fn enter_loop(&self) {
        LOOP_WAKER.with(|w| w.set(Arc::as_ptr(&self.waker)));
    }

    /// True on the thread running this notifier's loop.
    pub(crate) fn on_loop_thread(&self) -> bool {
        LOOP_WAKER.with(|w| std::ptr::eq(w.get(), Arc::as_ptr(&self.waker)))
    }
}

impl OpSink for Notifier {
    fn done(&self, op: u64, result: OpResult) {
        self.send(Command::OpDone { op, result });
    }
}
