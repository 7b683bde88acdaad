//! The I/O-forwarding room of the progress thread's state (see
//! [`super::service`] for what it serves): each requester connection's
//! outbox (its registrations and the chunks queued for it, bounded, with
//! its drop policy) and the early cache of output nobody pulled yet.
//!
//! Invariants:
//! - An outbox holds at most its limit in bytes (a chunk that does not
//!   fit is dropped, or older ones are, by its policy; an end marker is
//!   never dropped), and counts what it dropped until the next delivery.
//! - The early cache holds at most [`EARLY_CHUNKS`] chunks and
//!   [`EARLY_BYTES`] bytes, oldest dropped first, and never an end marker.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use mio::Token;

use crate::{Info, Proc, Rank, Status};

/// Default bound of a requester's outbox, in bytes.
pub const DEFAULT_CACHE: usize = 8 << 20;
/// Largest outbox a pull may ask for (`PMIX_IOF_CACHE_SIZE` is capped
/// there: a requester cannot make this server hold unbounded memory).
pub const MAX_CACHE: usize = 64 << 20;
/// Bytes a connection's write queue may hold before the outbox keeps
/// further chunks.
pub const WATERMARK: usize = 64 << 10;
/// Most chunks kept for registrations yet to come.
pub const EARLY_CHUNKS: usize = 1024;
/// Most bytes kept for registrations yet to come.
pub const EARLY_BYTES: usize = 1 << 20;
/// Info on a delivered chunk: bytes of output dropped for this requester
/// (full outbox) since its previous chunk (`uint64_t`). Our own key: the
/// standard has none.
pub const IOF_DROPPED: &str = "pmix.iof.dropped";

/// One chunk of output.
pub(in crate::server) struct Chunk {
    pub(in crate::server) source: Proc,
    pub(in crate::server) channel: u16,
    pub(in crate::server) data: Vec<u8>,
    pub(in crate::server) infos: Vec<Info>,
}

impl Chunk {
    pub(in crate::server) fn is_end(&self) -> bool {
        self.data.is_empty()
    }
}

pub(in crate::server) struct Registration {
    pub(in crate::server) id: u64,
    pub(in crate::server) requester: Proc,
    pub(in crate::server) sources: Vec<Proc>,
    pub(in crate::server) channels: u16,
}

impl Registration {
    pub(in crate::server) fn matches(&self, c: &Chunk) -> bool {
        self.channels & c.channel != 0
            && self.requester != c.source
            && self.sources.iter().any(|s| {
                s.nspace == c.source.nspace && (s.rank == c.source.rank || s.rank == Rank::WILDCARD)
            })
    }
}

/// A requester connection's outbox: its registrations and the chunks
/// queued for it (each with the ids of the registrations it matched).
pub(in crate::server) struct Outbox {
    regs: Vec<Registration>,
    queue: VecDeque<(Vec<u64>, Arc<Chunk>)>,
    /// The bytes queued.
    bytes: usize,
    limit: usize,
    drop_oldest: bool,
    /// Bytes dropped since the last chunk taken out.
    dropped: u64,
}

/// A chunk taken out of an outbox to be sent.
pub(in crate::server) struct Next {
    /// The registrations it matched.
    pub(in crate::server) ids: Vec<u64>,
    pub(in crate::server) chunk: Arc<Chunk>,
    /// Bytes dropped for this requester since its previous chunk.
    pub(in crate::server) dropped: u64,
}

impl Outbox {
    fn new() -> Outbox {
        Outbox {
            regs: Vec::new(),
            queue: VecDeque::new(),
            bytes: 0,
            limit: DEFAULT_CACHE,
            drop_oldest: false,
            dropped: 0,
        }
    }

    /// The ids of its registrations that `chunk` matches.
    fn matching(&self, chunk: &Chunk) -> Vec<u64> {
        self.regs
            .iter()
            .filter(|r| r.matches(chunk))
            .map(|r| r.id)
            .collect()
    }

    /// Queues `chunk` for `ids` under the outbox's policy.
    fn enqueue(&mut self, ids: Vec<u64>, chunk: Arc<Chunk>) {
        let len = chunk.data.len();
        if self.bytes + len > self.limit {
            if !self.drop_oldest || len > self.limit {
                self.dropped += len as u64;
                return;
            }
            while self.bytes + len > self.limit {
                let Some(pos) = self.queue.iter().position(|(_, c)| !c.is_end()) else {
                    break;
                };
                if let Some((_, old)) = self.queue.remove(pos) {
                    self.bytes -= old.data.len();
                    self.dropped += old.data.len() as u64;
                }
            }
        }
        self.bytes += len;
        self.queue.push_back((ids, chunk));
    }

    /// Takes the oldest queued chunk out, with the count of bytes dropped
    /// since the previous one (which starts again from zero).
    pub(in crate::server) fn next(&mut self) -> Option<Next> {
        let (ids, chunk) = self.queue.pop_front()?;
        self.bytes -= chunk.data.len();
        Some(Next {
            ids,
            chunk,
            dropped: std::mem::take(&mut self.dropped),
        })
    }
}

/// What a pull asks of its outbox when a chunk does not fit (see
/// [`Iof::register`]); `None` keeps what an earlier pull set.
#[derive(Default)]
pub(in crate::server) struct Policy {
    /// `PMIX_IOF_CACHE_SIZE`, already capped.
    pub(in crate::server) limit: Option<usize>,
    /// `PMIX_IOF_DROP_OLDEST` (`true`) or `PMIX_IOF_DROP_NEWEST`.
    pub(in crate::server) drop_oldest: Option<bool>,
}

/// The IOF room of the progress thread's state.
#[derive(Default)]
pub(crate) struct Iof {
    outboxes: HashMap<Token, Outbox>,
    early: VecDeque<Arc<Chunk>>,
    early_bytes: usize,
}

impl Iof {
    /// Counts this room's entries (see [`Census`](crate::server::census::Census)).
    pub(in crate::server) fn count(&self, c: &mut crate::server::census::Census) {
        c.add("iof.outboxes", self.outboxes.len());
        c.add(
            "iof.registrations",
            self.outboxes.values().map(|o| o.regs.len()).sum(),
        );
        c.add(
            "iof.queued",
            self.outboxes.values().map(|o| o.queue.len()).sum(),
        );
        c.add("iof.early", self.early.len());
    }

    /// The connections that pulled output, with the bytes their outboxes
    /// hold.
    pub(in crate::server) fn queued(&self) -> impl Iterator<Item = (Token, usize)> + '_ {
        self.outboxes.iter().map(|(t, ob)| (*t, ob.bytes))
    }

    /// True if connection `token` pulled output.
    pub(in crate::server) fn has_outbox(&self, token: Token) -> bool {
        self.outboxes.contains_key(&token)
    }

    /// Connection `token`'s outbox.
    pub(in crate::server) fn outbox_mut(&mut self, token: Token) -> Option<&mut Outbox> {
        self.outboxes.get_mut(&token)
    }

    /// Connection `token` is closed: its outbox goes.
    pub(in crate::server) fn forget(&mut self, token: Token) {
        self.outboxes.remove(&token);
    }

    /// Forgets the outboxes of the connections that are not `open`.
    pub(in crate::server) fn forget_closed(&mut self, open: impl Fn(Token) -> bool) {
        self.outboxes.retain(|t, _| open(*t));
    }

    /// Queues `chunk` in every outbox of an `open` connection with a
    /// registration it matches (forgetting the outboxes of closed ones),
    /// or keeps it early if none does. Returns the outboxes it went to.
    pub(in crate::server) fn deliver(
        &mut self,
        chunk: Arc<Chunk>,
        open: impl Fn(Token) -> bool,
    ) -> Vec<Token> {
        self.forget_closed(&open);
        let mut touched = Vec::new();
        for (token, ob) in self.outboxes.iter_mut() {
            let ids = ob.matching(&chunk);
            if !ids.is_empty() {
                ob.enqueue(ids, chunk.clone());
                touched.push(*token);
            }
        }
        if touched.is_empty() {
            self.keep_early(chunk);
        }
        touched
    }

    /// Adds `reg` to connection `token`'s outbox (made if it has none)
    /// under `policy`; the early chunks it matches leave the early cache
    /// for the outbox first, in order. `PMIX_ERR_BAD_PARAM` if the
    /// connection registered that id already.
    pub(in crate::server) fn register(
        &mut self,
        token: Token,
        reg: Registration,
        policy: Policy,
    ) -> Result<(), Status> {
        let ob = self.outboxes.entry(token).or_insert_with(Outbox::new);
        if ob.regs.iter().any(|r| r.id == reg.id) {
            return Err(Status::ERR_BAD_PARAM);
        }
        if let Some(limit) = policy.limit {
            ob.limit = limit;
        }
        if let Some(oldest) = policy.drop_oldest {
            ob.drop_oldest = oldest;
        }
        let mut i = 0;
        while i < self.early.len() {
            if reg.matches(&self.early[i]) {
                if let Some(c) = self.early.remove(i) {
                    self.early_bytes -= c.data.len();
                    ob.enqueue(vec![reg.id], c);
                }
            } else {
                i += 1;
            }
        }
        ob.regs.push(reg);
        Ok(())
    }

    /// Removes registration `id` of connection `token`, and the chunks
    /// queued for it alone; false if there is none.
    pub(in crate::server) fn deregister(&mut self, token: Token, id: u64) -> bool {
        let Some(ob) = self.outboxes.get_mut(&token) else {
            return false;
        };
        let before = ob.regs.len();
        ob.regs.retain(|r| r.id != id);
        if ob.regs.len() == before {
            return false;
        }
        let mut freed = 0;
        ob.queue.retain_mut(|(ids, c)| {
            ids.retain(|i| *i != id);
            let keep = !ids.is_empty();
            if !keep {
                freed += c.data.len();
            }
            keep
        });
        ob.bytes -= freed;
        true
    }

    /// Keeps `chunk`, which no registration matched, for registrations yet
    /// to come (never an end marker), within the early cache's bounds.
    fn keep_early(&mut self, chunk: Arc<Chunk>) {
        if chunk.is_end() {
            return;
        }
        self.early_bytes += chunk.data.len();
        self.early.push_back(chunk);
        while self.early.len() > EARLY_CHUNKS || self.early_bytes > EARLY_BYTES {
            match self.early.pop_front() {
                Some(c) => self.early_bytes -= c.data.len(),
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::iof::channel;
    use crate::Nspace;

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
        // What was dropped rides on the next chunk out, once.
        assert_eq!(ob.next().map(|n| n.dropped), Some(6));
        assert_eq!(ob.next().map(|n| n.dropped), Some(0));
        assert_eq!(ob.bytes, 0);
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
    fn a_registration_takes_the_early_chunks_it_matches_and_frees_them_when_it_goes() {
        let mut iof = Iof::default();
        let token = Token(7);
        assert!(iof.deliver(chunk(3), |_| true).is_empty());
        let ns = Nspace::new("j").unwrap();
        let reg = |id| Registration {
            id,
            requester: Proc::new(ns.clone(), Rank(1)),
            sources: vec![Proc::new(ns.clone(), Rank::WILDCARD)],
            channels: channel::STDOUT,
        };
        iof.register(token, reg(1), Policy::default()).unwrap();
        assert_eq!(
            iof.register(token, reg(1), Policy::default()),
            Err(Status::ERR_BAD_PARAM)
        );
        assert!(iof.early.is_empty());
        assert_eq!(iof.queued().collect::<Vec<_>>(), [(token, 3)]);
        assert_eq!(iof.deliver(chunk(2), |_| true), [token]);
        assert!(iof.deregister(token, 1));
        assert!(!iof.deregister(token, 1));
        assert_eq!(iof.queued().collect::<Vec<_>>(), [(token, 0)]);
        assert!(iof.deliver(chunk(2), |_| false).is_empty());
        assert!(!iof.has_outbox(token));
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
