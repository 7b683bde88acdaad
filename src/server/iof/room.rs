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

use crate::{Info, Proc, Rank};

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

pub(in crate::server) struct Outbox {
    pub(in crate::server) regs: Vec<Registration>,
    pub(in crate::server) queue: VecDeque<(Vec<u64>, Arc<Chunk>)>,
    pub(in crate::server) bytes: usize,
    pub(in crate::server) limit: usize,
    pub(in crate::server) drop_oldest: bool,
    pub(in crate::server) dropped: u64,
}

impl Outbox {
    pub(in crate::server) fn new() -> Outbox {
        Outbox {
            regs: Vec::new(),
            queue: VecDeque::new(),
            bytes: 0,
            limit: DEFAULT_CACHE,
            drop_oldest: false,
            dropped: 0,
        }
    }

    /// Queues `chunk` for `ids` under the outbox's policy.
    pub(in crate::server) fn enqueue(&mut self, ids: Vec<u64>, chunk: Arc<Chunk>) {
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
}

/// The IOF room of the progress thread's state.
#[derive(Default)]
pub(crate) struct Iof {
    pub(in crate::server) outboxes: HashMap<Token, Outbox>,
    pub(in crate::server) early: VecDeque<Arc<Chunk>>,
    pub(in crate::server) early_bytes: usize,
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

    pub(in crate::server) fn keep_early(&mut self, chunk: Arc<Chunk>) {
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
