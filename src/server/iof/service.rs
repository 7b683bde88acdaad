//! I/O forwarding on the server: the registrations of `PMIx_IOF_pull`
//! (`Op::IOF_PULL`, `Op::IOF_DEREGISTER`), the delivery of output the
//! host hands to [`Server::iof_deliver`](crate::server::Server::iof_deliver) (`PMIx_server_IOF_deliver`), and
//! `PMIx_IOF_push` (`Op::IOF_PUSH`), handed to the host's `push_stdin`.
//!
//! Output to a requester goes through an *outbox* per connection: a FIFO
//! of chunks moved into the connection's write queue only while that
//! queue holds less than [`WATERMARK`] bytes, so a requester that does not
//! read holds at most its outbox's limit plus the watermark (plus one
//! chunk) of this server's memory, and the job is never slowed down by
//! it. The outbox's limit is `PMIX_IOF_CACHE_SIZE` of the latest pull that
//! gave one (at most [`MAX_CACHE`]), else [`DEFAULT_CACHE`]. When a chunk does not fit, the
//! policy of that pull decides: `PMIX_IOF_DROP_NEWEST` (the standard's
//! default) drops the new chunk, `PMIX_IOF_DROP_OLDEST` drops queued
//! chunks from the front until it fits (a chunk larger than the limit is
//! dropped whole). Either way the count of dropped bytes rides on the next
//! chunk delivered to that requester, as the info [`IOF_DROPPED`]. An
//! end-of-stream marker (no bytes, `PMIX_IOF_COMPLETE`) is never dropped.
//!
//! Output that matches no registration is kept in a small *early cache*
//! (at most `EARLY_CHUNKS` chunks and `EARLY_BYTES` bytes, oldest
//! dropped first), as OpenPMIx does: a pull that matches cached chunks
//! receives them first, in order, and they leave the cache.
//!
//! Invariants:
//! - Only the progress thread touches this room ([`State::iof`]).
//! - Within one channel of one source, chunks reach a requester in the
//!   order they were delivered (one FIFO per connection; drops leave gaps,
//!   never reorder).
//! - A registration lives until its deregistration or until its
//!   connection is gone (noticed at the next delivery, drain or pull: connection
//!   tokens are never reused).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use mio::Token;

use super::room::{Chunk, Next, Policy, Registration};
pub use super::room::{DEFAULT_CACHE, IOF_DROPPED, MAX_CACHE, WATERMARK};
use crate::info::{flag_in, value_of};
use crate::server::clients::connections::Caller;
use crate::server::command::{Command, Notifier};
use crate::server::query::{Tap, NOBODY};
use crate::server::state::State;
use crate::wire::iof::{channel, Delivery, Deregister, Pull, Push};
use crate::wire::{int, Message};
use crate::{keys, Info, Proc, Status, Value};

/// Moves what `token`'s outbox holds into its connection while the
/// connection's write queue is under the watermark; forgets the outbox of
/// a closed connection.
fn pump(st: &mut State, token: Token) {
    let (iof, conns) = st.iof_with_conns();
    let Some(ob) = iof.outbox_mut(token) else {
        return;
    };
    loop {
        let Some(pending) = conns.pending_output(token) else {
            iof.forget(token);
            return;
        };
        if pending >= WATERMARK {
            return;
        }
        let Some(Next {
            ids,
            chunk,
            dropped,
        }) = ob.next()
        else {
            return;
        };
        let mut infos = chunk.infos.clone();
        if dropped > 0 {
            infos.extend(Info::keyed(IOF_DROPPED, Value::Uint64(dropped)));
        }
        let d = Delivery {
            ids,
            source: chunk.source.clone(),
            channel: chunk.channel,
            data: chunk.data.clone(),
            infos,
        };
        if let Ok(body) = d.encode() {
            conns.send(token, 0, &Message::Iof(body), Vec::new());
        }
    }
}

/// The connections that pulled output.
pub(in crate::server) fn tokens(st: &State) -> Vec<Token> {
    st.iof().queued().map(|(t, _)| t).collect()
}

/// True while forwarded output waits for an open connection (in its
/// outbox or its write queue).
pub(in crate::server) fn unsent(st: &State) -> bool {
    st.iof().queued().any(|(t, bytes)| {
        st.conns()
            .pending_output(t)
            .is_some_and(|queued| queued > 0 || bytes > 0)
    })
}

/// The connection `token` wrote what it had queued: more output may go.
pub(in crate::server) fn drained(st: &mut State, token: Token) {
    if st.iof().has_outbox(token) {
        pump(st, token);
    }
}

/// Forwards one chunk to every matching registration (or keeps it early).
pub(in crate::server) fn deliver(st: &mut State, chunk: Chunk) {
    let (iof, conns) = st.iof_with_conns();
    let mut touched = iof.deliver(Arc::new(chunk), |t| conns.state(t).is_some());
    touched.sort_unstable_by_key(|t| t.0);
    for t in touched {
        pump(st, t);
    }
}

/// Handles `Op::IOF_PULL` from `proc`.
pub(in crate::server) fn pull(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    let p = match Pull::decode(body) {
        Ok(p) => p,
        Err(e) => return st.respond(caller, Err(e.status())),
    };
    // The outboxes of connections closed since are forgotten here too
    // (not only at the next delivery): pulls from connections that come
    // and go without any output delivered do not pile up.
    let (iof, conns) = st.iof_with_conns();
    iof.forget_closed(|t| conns.state(t).is_some());
    // attrs begin: PMIx_IOF_pull
    let policy = Policy {
        limit: value_of(&p.directives, keys::IOF_CACHE_SIZE)
            .and_then(int)
            .map(|n| usize::try_from(n).map_or(DEFAULT_CACHE, |n| n.min(MAX_CACHE))),
        drop_oldest: if flag_in(&p.directives, keys::IOF_DROP_OLDEST) {
            Some(true)
        } else if flag_in(&p.directives, keys::IOF_DROP_NEWEST) {
            Some(false)
        } else {
            None
        },
    };
    // attrs end
    let reg = Registration {
        id: p.id,
        requester: proc.clone(),
        sources: p.sources.clone(),
        channels: p.channels,
    };
    // Output that waited for a registration like this one goes first.
    if let Err(s) = iof.register(caller.token, reg, policy) {
        return st.respond(caller, Err(s));
    }
    // The host hears of it (to start forwarding, `PMIX_IOF_REDIRECT`,
    // `PMIX_IOF_COPY`); a host without `iof_pull` still has its
    // `iof_deliver` output served.
    let (op, done) = st.host_op_or_fallback(caller, |r: Result<(), Status>| match r {
        Ok(()) | Err(Status::ERR_NOT_SUPPORTED) => Ok(Vec::new()),
        Err(s) => Err(s),
    });
    let host = st.host();
    if let Err(s) = host.iof_pull(&p.sources, &p.directives, p.channels, done) {
        st.finish_service(op, Err(s));
    }
    pump(st, caller.token);
}

/// Handles `Op::IOF_DEREGISTER` from `proc`: `PMIX_ERR_NOT_FOUND` for an
/// id this connection did not register.
pub(in crate::server) fn deregister(st: &mut State, caller: Caller, _proc: &Proc, body: &[u8]) {
    let d = match Deregister::decode(body) {
        Ok(d) => d,
        Err(e) => return st.respond(caller, Err(e.status())),
    };
    // Chunks queued for it alone are no longer wanted.
    if !st.iof_mut().deregister(caller.token, d.id) {
        return st.respond(caller, Err(Status::ERR_NOT_FOUND));
    }
    st.respond(caller, Ok(Vec::new()));
}

/// Handles `Op::IOF_PUSH` from `proc`: handed to the host's `push_stdin`
/// (`PMIX_ERR_NOT_SUPPORTED` without one, as OpenPMIx answers).
pub(in crate::server) fn push(st: &mut State, caller: Caller, proc: &Proc, body: &[u8]) {
    let p = match Push::decode(body) {
        Ok(p) => p,
        Err(e) => return st.respond(caller, Err(e.status())),
    };
    push_for(st, caller, proc, p, None);
}

/// Hands `proc`'s push to the host's `push_stdin`, answering `caller`
/// and `tap` (see [`crate::server::query`]).
pub(in crate::server) fn push_for(
    st: &mut State,
    caller: Caller,
    proc: &Proc,
    p: Push,
    tap: Option<Tap>,
) {
    let (op, done) = st.host_op_or_fallback(caller, move |r: Result<(), Status>| {
        let r = r.map(|()| Vec::new());
        if let Some(t) = tap {
            t(&r);
        }
        r
    });
    let host = st.host();
    if let Err(s) = host.push_stdin(proc, &p.targets, &p.directives, p.data, done) {
        st.finish_service(op, Err(s));
    }
}

/// `PMIX_IOF_LOCAL_OUTPUT`: `data` delivered on `channel` to this
/// process's stdout (the stdout channel) or stderr (the others), as
/// OpenPMIx's server writes it. Called on the delivering thread, so one
/// host thread's deliveries keep their order; a failed write loses only
/// the local copy.
pub(in crate::server) fn write_locally(channel: u16, data: &[u8]) {
    use std::io::Write;
    if data.is_empty() {
        return;
    }
    let _ = if channel == channel::STDOUT {
        let mut out = std::io::stdout().lock();
        out.write_all(data).and_then(|()| out.flush())
    } else {
        std::io::stderr().lock().write_all(data)
    };
}

/// Set while a thread forwards this process's stdin
/// ([`Server::iof_push_stdin`](crate::server::Server::iof_push_stdin)).
pub(in crate::server) static PUSHING_STDIN: AtomicBool = AtomicBool::new(false);

/// Reads this process's stdin to its end, pushing each chunk (then the
/// end) to the host as `me`, one at a time (see
/// [`Server::iof_push_stdin`](crate::server::Server::iof_push_stdin)).
pub(in crate::server) fn forward_stdin(
    notifier: &Notifier,
    me: &Proc,
    targets: &[Proc],
    dirs: &[Info],
) {
    Push::from_stdin(targets, dirs, |p| {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let tap: Tap = Box::new(move |r| {
            let _ = tx.send(r.is_ok());
        });
        let me = me.clone();
        let task = Box::new(move |st: &mut State| push_for(st, NOBODY, &me, p, Some(tap)));
        // The loop gone (the task dropped with its tap) or the host's
        // refusal ends the forwarding.
        notifier.send(Command::Run(task)) && rx.recv().unwrap_or(false)
    });
}
