//! Process identifiers: namespaces, ranks, keys.

use std::ffi::{CStr, CString};
use std::fmt;

use crate::Status;

/// Longest namespace, in bytes, without the terminating NUL (`PMIX_MAX_NSLEN`).
pub const MAX_NSLEN: usize = 255;
/// Longest key, in bytes, without the terminating NUL (`PMIX_MAX_KEYLEN`).
pub const MAX_KEYLEN: usize = 511;

/// `pmix_proc_state_t` values (those of a proc table).
pub mod state {
    /// `PMIX_PROC_STATE_UNDEF`.
    pub const UNDEF: u8 = 0;
    /// `PMIX_PROC_STATE_RUNNING`.
    pub const RUNNING: u8 = 5;
    /// `PMIX_PROC_STATE_CONNECTED`.
    pub const CONNECTED: u8 = 6;
    /// `PMIX_PROC_STATE_TERMINATED`.
    pub const TERMINATED: u8 = 20;
    /// `PMIX_PROC_STATE_ABORTED_BY_SIG`.
    pub const ABORTED_BY_SIG: u8 = 54;
    /// `PMIX_PROC_STATE_TERM_NON_ZERO`.
    pub const TERM_NON_ZERO: u8 = 62;
}

/// A process rank (`pmix_rank_t`), with the standard's reserved values.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Rank(pub u32);

impl Rank {
    /// `PMIX_RANK_UNDEF`.
    pub const UNDEF: Rank = Rank(u32::MAX);
    /// `PMIX_RANK_WILDCARD`: all ranks of a namespace (job-level data).
    pub const WILDCARD: Rank = Rank(u32::MAX - 1);
    /// `PMIX_RANK_LOCAL_NODE`: all ranks on the local node.
    pub const LOCAL_NODE: Rank = Rank(u32::MAX - 2);
    /// `PMIX_RANK_LOCAL_PEERS`.
    pub const LOCAL_PEERS: Rank = Rank(u32::MAX - 4);
    /// `PMIX_RANK_INVALID`.
    pub const INVALID: Rank = Rank(u32::MAX - 3);
    /// `PMIX_RANK_VALID`: the largest valid rank.
    pub const VALID: Rank = Rank(u32::MAX - 50);
}

macro_rules! bounded_name {
    ($(#[$doc:meta])* $name:ident, $max:expr) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name(CString);

        impl $name {
            /// Longest accepted length in bytes (without the NUL).
            pub const MAX_LEN: usize = $max;

            /// Validates the length; `PMIX_ERR_BAD_PARAM` if too long or if
            /// the bytes hold a NUL.
            pub fn new(s: impl Into<Vec<u8>>) -> Result<Self, Status> {
                let c = CString::new(s).map_err(|_| Status::ERR_BAD_PARAM)?;
                Self::from_cstring(c)
            }

            /// Takes an existing C string, checking its length.
            pub fn from_cstring(c: CString) -> Result<Self, Status> {
                if c.as_bytes().len() > $max {
                    return Err(Status::ERR_BAD_PARAM);
                }
                Ok($name(c))
            }

            /// From a C string that may be longer than allowed: the same
            /// truncation `PMIX_LOAD_KEY`/`PMIX_LOAD_NSPACE` apply.
            pub fn truncated(c: &CStr) -> Self {
                let b = c.to_bytes();
                let b = &b[..b.len().min($max)];
                $name(CString::new(b).expect("bytes of a CStr hold no NUL"))
            }

            /// The name as a C string.
            pub fn as_c_str(&self) -> &CStr {
                &self.0
            }

            /// The name's bytes, without the NUL.
            pub fn as_bytes(&self) -> &[u8] {
                self.0.as_bytes()
            }

            /// The name as text (lossy if it is not UTF-8).
            pub fn to_string_lossy(&self) -> std::borrow::Cow<'_, str> {
                self.0.to_string_lossy()
            }

            /// True if empty.
            pub fn is_empty(&self) -> bool {
                self.0.as_bytes().is_empty()
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0.to_string_lossy())
            }
        }

        impl TryFrom<&str> for $name {
            type Error = Status;
            fn try_from(s: &str) -> Result<Self, Status> {
                $name::new(s)
            }
        }
    };
}

bounded_name!(
    /// A namespace (`pmix_nspace_t`): at most [`MAX_NSLEN`] bytes.
    Nspace,
    MAX_NSLEN
);
bounded_name!(
    /// A key (`pmix_key_t`): at most [`MAX_KEYLEN`] bytes.
    Key,
    MAX_KEYLEN
);

/// A process identifier (`pmix_proc_t`).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Proc {
    pub nspace: Nspace,
    pub rank: Rank,
}

impl Default for Rank {
    fn default() -> Self {
        Rank::UNDEF
    }
}

impl Proc {
    /// A process from its namespace and rank.
    pub fn new(nspace: Nspace, rank: Rank) -> Self {
        Proc { nspace, rank }
    }
}
