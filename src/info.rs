//! `pmix_info_t`: a key, directive flags and a value.

use crate::{Key, Value};

/// The directive bits of an info (`pmix_info_directives_t`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct InfoDirectives(pub u32);

impl InfoDirectives {
    /// `PMIX_INFO_REQUIRED`: the receiver must honour the directive.
    pub const REQUIRED: InfoDirectives = InfoDirectives(0x0000_0001);
    /// `PMIX_INFO_ARRAY_END`: marks the last info of an array.
    pub const ARRAY_END: InfoDirectives = InfoDirectives(0x0000_0002);
    /// `PMIX_INFO_REQD_PROCESSED`: a required directive was processed.
    pub const REQD_PROCESSED: InfoDirectives = InfoDirectives(0x0000_0004);
    /// `PMIX_INFO_QUALIFIER`: the info qualifies another one.
    pub const QUALIFIER: InfoDirectives = InfoDirectives(0x0000_0008);
    /// `PMIX_INFO_PERSISTENT`: the info must not be released by the callee.
    pub const PERSISTENT: InfoDirectives = InfoDirectives(0x0000_0010);
    /// `PMIX_INFO_DIR_RESERVED`: bits reserved for implementers.
    pub const RESERVED: InfoDirectives = InfoDirectives(0xffff_0000);

    /// True if every bit of `other` is set.
    pub const fn contains(self, other: InfoDirectives) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for InfoDirectives {
    type Output = InfoDirectives;
    fn bitor(self, rhs: InfoDirectives) -> InfoDirectives {
        InfoDirectives(self.0 | rhs.0)
    }
}

/// One `pmix_info_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Info {
    pub key: Key,
    pub flags: InfoDirectives,
    pub value: Value,
}

impl Info {
    /// An info with no directive flags.
    pub fn new(key: Key, value: Value) -> Self {
        Info {
            key,
            flags: InfoDirectives::default(),
            value,
        }
    }

    /// True if `PMIX_INFO_REQUIRED` is set.
    pub fn is_required(&self) -> bool {
        self.flags.contains(InfoDirectives::REQUIRED)
    }
}
