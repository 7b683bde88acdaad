//! [`Census`]: how many entries each room of the server's state holds,
//! for finding state that outlives what it belongs to (a rank gone, a
//! namespace deregistered). The session fuzzer prints it at every renewal
//! of its namespaces, and `tests/state_census.rs` asserts that a
//! namespace's departure brings it back to where it was.
//!
//! Invariant: one row per collection, named `room.collection`; counts
//! are entries (elements summed over nested lists), never bytes.

use std::fmt;

/// The rows of a census, in the order the rooms were counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Census {
    rows: Vec<(&'static str, usize)>,
}

impl Census {
    /// Adds row `name`.
    pub(crate) fn add(&mut self, name: &'static str, count: usize) {
        self.rows.push((name, count));
    }

    /// The count of row `name`, if counted.
    pub fn get(&self, name: &str) -> Option<usize> {
        self.rows.iter().find(|(n, _)| *n == name).map(|&(_, c)| c)
    }

    /// Every row.
    pub fn rows(&self) -> &[(&'static str, usize)] {
        &self.rows
    }

    /// The rows whose count is above the same row's in `before`, with
    /// both counts.
    pub fn grown_since(&self, before: &Census) -> Vec<(&'static str, usize, usize)> {
        self.rows
            .iter()
            .filter_map(|&(n, c)| {
                let b = before.get(n).unwrap_or(0);
                (c > b).then_some((n, b, c))
            })
            .collect()
    }
}

impl fmt::Display for Census {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (n, c)) in self.rows.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{n}={c}")?;
        }
        Ok(())
    }
}
