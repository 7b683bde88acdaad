//! The deadlines of the server's operations that carry a `PMIX_TIMEOUT`:
//! collectives and direct-modex waiters; each accepted connection's
//! handshake deadline; and the monitors' next looks.
//!
//! Invariant: an operation's deadline is in the set exactly while its
//! operation waits; whoever ends the operation first (its completion, a
//! failure, the timer) removes it, so a timer never fires for an operation
//! that is over, and the loop's poll timeout is always the earliest live
//! deadline. A handshake deadline is the exception: it stays armed and,
//! when it fires, ends only a connection still waiting for its handshake
//! (tokens are never reused). A monitor's look is re-armed by the monitor
//! itself, one period on, for as long as the monitor lives.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// What a deadline belongs to.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) enum TimerKey {
    /// A collective (fence, connect, disconnect), by its number.
    Collective(u64),
    /// A direct-modex waiter, by its number.
    Waiter(u64),
    /// A group invitation, by its number.
    Invite(u64),
    /// An accepted connection's handshake deadline.
    Handshake(mio::Token),
    /// A monitor's next look (see `monitor::room`), by its number.
    Monitor(u64),
}

/// The pending deadlines, earliest first.
#[derive(Default)]
pub(super) struct Timers {
    set: BTreeSet<(Instant, TimerKey)>,
}

impl Timers {
    /// Counts this room's entries (see [`Census`](super::census::Census)).
    pub(super) fn count(&self, c: &mut super::census::Census) {
        let of = |f: fn(&TimerKey) -> bool| self.set.iter().filter(|(_, k)| f(k)).count();
        let handshakes = of(|k| matches!(k, TimerKey::Handshake(_)));
        let monitors = of(|k| matches!(k, TimerKey::Monitor(_)));
        c.add("timers.operations", self.set.len() - handshakes - monitors);
        c.add("timers.handshakes", handshakes);
        c.add("timers.monitors", monitors);
    }

    /// Arms `key` for `at`.
    pub(super) fn set(&mut self, at: Instant, key: TimerKey) {
        self.set.insert((at, key));
    }

    /// Disarms `key`'s deadline `at` (nothing if it already fired).
    pub(super) fn cancel(&mut self, at: Instant, key: TimerKey) {
        self.set.remove(&(at, key));
    }

    /// How long the loop may sleep before the earliest deadline.
    pub(super) fn next_in(&self, now: Instant) -> Option<Duration> {
        self.set
            .first()
            .map(|(t, _)| t.saturating_duration_since(now))
    }

    /// Takes the earliest deadline that passed at `now`, if any.
    pub(super) fn pop_expired(&mut self, now: Instant) -> Option<TimerKey> {
        match self.set.first() {
            Some(&(t, _)) if t <= now => self.set.pop_first().map(|(_, k)| k),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expired_deadlines_come_out_earliest_first_and_cancelled_ones_never() {
        let now = Instant::now();
        let mut t = Timers::default();
        t.set(now + Duration::from_millis(30), TimerKey::Waiter(1));
        t.set(now + Duration::from_millis(10), TimerKey::Collective(2));
        t.set(now + Duration::from_millis(20), TimerKey::Collective(3));
        t.cancel(now + Duration::from_millis(20), TimerKey::Collective(3));
        assert_eq!(t.next_in(now), Some(Duration::from_millis(10)));
        assert_eq!(t.pop_expired(now), None);
        let later = now + Duration::from_millis(40);
        assert_eq!(t.pop_expired(later), Some(TimerKey::Collective(2)));
        assert_eq!(t.pop_expired(later), Some(TimerKey::Waiter(1)));
        assert_eq!(t.pop_expired(later), None);
        assert_eq!(t.next_in(later), None);
    }
}
