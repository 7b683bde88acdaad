//! Which integer encoding the buffer being packed or unpacked on this
//! thread uses: variable length (bfrops `v4`/`v41`, and everything our own
//! wire speaks) or fixed width in network order (bfrops `v3`).
//!
//! The encoding is chosen in one place, [`with`], by
//! [`super::Format`] for the duration of one pack or unpack call; every
//! integer primitive of [`super::wire`] asks [`current`]. Outside a
//! [`with`] scope the encoding is [`Ints::Varint`], so every caller that
//! does not name a format gets exactly the bytes it always got.
//!
//! Invariant: a scope restores the previous encoding when it ends, also
//! when its closure unwinds, so scopes nest and never leak.

use std::cell::Cell;

/// An integer encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ints {
    /// Variable length (zigzag for signed types): `v4`, `v41`.
    Varint,
    /// Fixed width, big-endian; `size_t`, `int` and `unsigned int` carry a
    /// type tag naming the width they travel as: `v3`.
    Fixed,
}

thread_local! {
    static CURRENT: Cell<Ints> = const { Cell::new(Ints::Varint) };
}

/// The encoding in force on this thread.
pub fn current() -> Ints {
    CURRENT.with(Cell::get)
}

/// Restores the encoding a scope replaced.
struct Restore(Ints);

impl Drop for Restore {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.0));
    }
}

/// Runs `f` with `ints` as this thread's encoding.
pub fn with<T>(ints: Ints, f: impl FnOnce() -> T) -> T {
    let _restore = Restore(CURRENT.with(|c| c.replace(ints)));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_nest_and_restore() {
        assert_eq!(current(), Ints::Varint);
        with(Ints::Fixed, || {
            assert_eq!(current(), Ints::Fixed);
            with(Ints::Varint, || assert_eq!(current(), Ints::Varint));
            assert_eq!(current(), Ints::Fixed);
        });
        assert_eq!(current(), Ints::Varint);
        let r = std::panic::catch_unwind(|| with(Ints::Fixed, || panic!("inside")));
        assert!(r.is_err());
        assert_eq!(current(), Ints::Varint);
    }
}
