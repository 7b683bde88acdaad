//! The directives (info keys) the control plane acts on, parsed once.

use std::time::{Duration, Instant};

use crate::info::{InfoItem, ValueView};
use crate::{keys, Value};

/// The value of a boolean directive: `true`, or present without a value.
pub fn flag(v: &Value) -> bool {
    ValueView::of(v).flag()
}

/// An integer directive of any integer type.
pub fn int(v: &Value) -> Option<i64> {
    ValueView::of(v).int()
}

// attrs begin: PMIx_Fence PMIx_Fence_nb
/// The directives a fence honours.
pub const FENCE: &[&str] = &[keys::COLLECT_DATA, keys::TIMEOUT];
// attrs end

// attrs begin: PMIx_Get PMIx_Get_nb
/// The directives a get (and the direct modex serving it) honours.
pub const GET: &[&str] = &[keys::TIMEOUT, keys::IMMEDIATE, keys::OPTIONAL];
// attrs end

// attrs begin: PMIx_Init PMIx_tool_init PMIx_tool_attach_to_server PMIx_Connect PMIx_Connect_nb PMIx_Disconnect PMIx_Disconnect_nb PMIx_Group_construct PMIx_Group_construct_nb PMIx_Group_destruct PMIx_Group_destruct_nb PMIx_Group_invite PMIx_Group_invite_nb
/// The directives of the operations that honour only the timeout among
/// these: connecting to a server, connect/disconnect, group construct,
/// destruct and invite.
pub const TIMEOUT_ONLY: &[&str] = &[keys::TIMEOUT];
// attrs end

/// The directives of a fence, a get or a direct modex that the control
/// plane honours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Directives {
    /// `PMIX_COLLECT_DATA`.
    pub collect: bool,
    /// `PMIX_TIMEOUT` (seconds; zero or negative: none).
    pub timeout: Option<Duration>,
    /// `PMIX_IMMEDIATE`.
    pub immediate: bool,
    /// `PMIX_OPTIONAL`.
    pub optional: bool,
}

impl Directives {
    /// Reads the directives among `infos` (others are ignored): core
    /// infos or C infos read in place.
    pub fn parse<I: InfoItem>(infos: &[I]) -> Directives {
        Directives::parse_for(infos, &[])
    }

    /// Reads the directives among `infos` that `honoured` lists ([`FENCE`],
    /// [`GET`], [`TIMEOUT_ONLY`]; empty: all of them): what the operation
    /// honours is what it says it honours (`PMIX_QUERY_ATTRIBUTE_SUPPORT`
    /// answers from those lists, see [`crate::attributes`]).
    pub fn parse_for<I: InfoItem>(infos: &[I], honoured: &[&str]) -> Directives {
        let mut d = Directives::default();
        let honours = |i: &I| honoured.is_empty() || honoured.iter().any(|k| i.key_is(k));
        for i in infos.iter().filter(|i| honours(i)) {
            if i.key_is(keys::COLLECT_DATA) {
                d.collect = i.view().flag();
            } else if i.key_is(keys::IMMEDIATE) {
                d.immediate = i.view().flag();
            } else if i.key_is(keys::OPTIONAL) {
                d.optional = i.view().flag();
            } else if i.key_is(keys::TIMEOUT) {
                d.timeout = i
                    .view()
                    .int()
                    .filter(|&s| s > 0)
                    .map(|s| Duration::from_secs(s as u64));
            }
        }
        d
    }

    /// The deadline of an operation starting now.
    pub fn deadline(&self) -> Option<Instant> {
        self.timeout.map(|t| Instant::now() + t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Info, Key};

    #[test]
    fn directives_parse() {
        let infos = vec![
            Info::new(Key::new(keys::COLLECT_DATA).unwrap(), Value::Bool(true)),
            Info::new(Key::new(keys::TIMEOUT).unwrap(), Value::Int32(3)),
        ];
        let d = Directives::parse(&infos);
        assert!(d.collect);
        assert_eq!(d.timeout, Some(Duration::from_secs(3)));
        assert!(!d.immediate);
    }
}
