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

use super::room::{Chunk, Outbox, Registration};
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
    let Some(ob) = iof.outboxes.get_mut(&token) else {
        return;
    };
    loop {
        let Some(pending) = conns.pending_output(token) else {
            iof.outboxes.remove(&token);
            return;
        };
        if pending >= WATERMARK {
            return;
        }
        let Some((ids, chunk)) = ob.queue.pop_front() else {
            return;
        };
        ob.bytes -= chunk.data.len();
        let mut infos = chunk.infos.clone();
        if ob.dropped > 0 {
            infos.extend(Info::keyed(IOF_DROPPED, Value::Uint64(ob.dropped)));
            ob.dropped = 0;
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
    st.iof().outboxes.keys().copied().collect()
}

/// True while forwarded output waits for an open connection (in its
/// outbox or its write queue).
pub(in crate::server) fn unsent(st: &State) -> bool {
    st.iof().outboxes.iter().any(|(t, ob)| {
        st.conns()
            .pending_output(*t)
            .is_some_and(|queued| queued > 0 || ob.bytes > 0)
    })
}

/// The connection `token` wrote what it had queued: more output may go.
pub(in crate::server) fn drained(st: &mut State, token: Token) {
    if st.iof().outboxes.contains_key(&token) {
        pump(st, token);
    }
}

/// Forwards one chunk to every matching registration (or keeps it early).
pub(in crate::server) fn deliver(st: &mut State, chunk: Chunk) {
    let chunk = Arc::new(chunk);
    let mut touched = Vec::new();
    let mut gone = Vec::new();
    let (iof, conns) = st.iof_with_conns();
    for (token, ob) in iof.outboxes.iter_mut() {
        if conns.state(*token).is_none() {
            gone.push(*token);
            continue;
        }
        let ids: Vec<u64> = ob
            .regs
            .iter()
            .filter(|r| r.matches(&chunk))
            .map(|r| r.id)
            .collect();
        if !ids.is_empty() {
            ob.enqueue(ids, chunk.clone());
            touched.push(*token);
        }
    }
    for t in gone {
        st.iof_mut().outboxes.remove(&t);
    }
    if touched.is_empty() {
        st.iof_mut().keep_early(chunk);
        return;
    }
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
    iof.outboxes.retain(|t, _| conns.state(*t).is_some());
    let iof = st.iof_mut();
    let ob = iof.outboxes.entry(caller.token).or_insert_with(Outbox::new);
    if ob.regs.iter().any(|r| r.id == p.id) {
        return st.respond(caller, Err(Status::ERR_BAD_PARAM));
    }
    // attrs begin: PMIx_IOF_pull
    if let Some(n) = value_of(&p.directives, keys::IOF_CACHE_SIZE).and_then(int) {
        ob.limit = usize::try_from(n).map_or(DEFAULT_CACHE, |n| n.min(MAX_CACHE));
    }
    if flag_in(&p.directives, keys::IOF_DROP_OLDEST) {
        ob.drop_oldest = true;
    } else if flag_in(&p.directives, keys::IOF_DROP_NEWEST) {
        ob.drop_oldest = false;
    }
    // attrs end
    let reg = Registration {
        id: p.id,
        requester: proc.clone(),
        sources: p.sources.clone(),
        channels: p.channels,
    };
    // Output that waited for a registration like this one goes first.
    let mut i = 0;
    while i < iof.early.len() {
        if reg.matches(&iof.early[i]) {
            if let Some(c) = iof.early.remove(i) {
                iof.early_bytes -= c.data.len();
                ob.enqueue(vec![reg.id], c);
            }
        } else {
            i += 1;
        }
    }
    ob.regs.push(reg);
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
    let Some(ob) = st.iof_mut().outboxes.get_mut(&caller.token) else {
        return st.respond(caller, Err(Status::ERR_NOT_FOUND));
    };
    let before = ob.regs.len();
    ob.regs.retain(|r| r.id != d.id);
    if ob.regs.len() == before {
        return st.respond(caller, Err(Status::ERR_NOT_FOUND));
    }
    // Chunks queued for it alone are no longer wanted.
    let mut freed = 0;
    ob.queue.retain_mut(|(ids, c)| {
        ids.retain(|i| *i != d.id);
        let keep = !ids.is_empty();
        if !keep {
            freed += c.data.len();
        }
        keep
    });
    ob.bytes -= freed;
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
    let mut buf = vec![0u8; 64 << 10];
    let mut stdin = std::io::stdin().lock();
    loop {
        let n = match std::io::Read::read(&mut stdin, &mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => 0,
        };
        let mut directives = dirs.to_vec();
        if n == 0 {
            directives.extend(Info::keyed(keys::IOF_COMPLETE, Value::Bool(true)));
        }
        let p = Push {
            targets: targets.to_vec(),
            directives,
            data: (n > 0).then(|| buf[..n].to_vec()),
        };
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let tap: Tap = Box::new(move |r| {
            let _ = tx.send(r.is_ok());
        });
        let me = me.clone();
        let task = Box::new(move |st: &mut State| push_for(st, NOBODY, &me, p, Some(tap)));
        // The loop gone (the task dropped with its tap) or the host's
        // refusal ends the forwarding.
        let pushed = notifier.send(Command::Run(task)) && rx.recv().unwrap_or(false);
        if !pushed || n == 0 {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::room::{Iof, EARLY_BYTES, EARLY_CHUNKS};
    use super::*;
    use crate::{Nspace, Rank};

    fn chunk(n: usize) -> Arc<Chunk> {
        Arc::new(Chunk {
            source: Proc::new(Nspace::new("j").unwrap(), Rank(0)),
            channel: channel::STDOUT,
            data: vec![b'x'; n],
            infos: Vec::new(),
        })
    }

    #[test]
    fn a_full_outbox_drops_the_newest_by_default() {
        let mut ob = Outbox::new();
        ob.limit = 10;
        ob.enqueue(vec![1], chunk(6));
        ob.enqueue(vec![1], chunk(6));
        ob.enqueue(vec![1], chunk(4));
        assert_eq!(ob.queue.len(), 2);
        assert_eq!((ob.bytes, ob.dropped), (10, 6));
        // The end of a stream always fits.
        ob.enqueue(vec![1], chunk(0));
        assert_eq!(ob.queue.len(), 3);
    }

    #[test]
    fn drop_oldest_makes_room_from_the_front() {
        let mut ob = Outbox::new();
        ob.limit = 10;
        ob.drop_oldest = true;
        ob.enqueue(vec![1], chunk(4));
        ob.enqueue(vec![1], chunk(0));
        ob.enqueue(vec![1], chunk(5));
        ob.enqueue(vec![1], chunk(5));
        // The 4-byte chunk went; the end marker stayed, in order.
        let sizes: Vec<usize> = ob.queue.iter().map(|(_, c)| c.data.len()).collect();
        assert_eq!(sizes, [0, 5, 5]);
        assert_eq!((ob.bytes, ob.dropped), (10, 4));
        // Larger than the whole limit: dropped whole.
        ob.enqueue(vec![1], chunk(11));
        assert_eq!(ob.dropped, 15);
    }

    #[test]
    fn the_early_cache_is_bounded() {
        let mut iof = Iof::default();
        for _ in 0..EARLY_CHUNKS + 5 {
            iof.keep_early(chunk(1));
        }
        assert_eq!(iof.early.len(), EARLY_CHUNKS);
        iof.keep_early(chunk(EARLY_BYTES));
        assert!(iof.early_bytes <= EARLY_BYTES);
    }

    #[test]
    fn registrations_match_wildcards_channels_and_not_the_requester() {
        let ns = Nspace::new("j").unwrap();
        let r = Registration {
            id: 0,
            requester: Proc::new(ns.clone(), Rank(1)),
            sources: vec![Proc::new(ns.clone(), Rank::WILDCARD)],
            channels: channel::STDOUT,
        };
        let mut c = Chunk {
            source: Proc::new(ns.clone(), Rank(0)),
            channel: channel::STDOUT,
            data: vec![],
            infos: vec![],
        };
        assert!(r.matches(&c));
        c.channel = channel::STDERR;
        assert!(!r.matches(&c));
        c.channel = channel::STDOUT;
        c.source = Proc::new(ns, Rank(1));
        assert!(!r.matches(&c), "never back to its own source");
    }
}
