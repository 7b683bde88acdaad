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

/// The value of the first info of key `key` among `infos`.
pub fn value_of<'a>(infos: &'a [Info], key: &str) -> Option<&'a Value> {
    infos
        .iter()
        .find(|i| i.key.as_bytes() == key.as_bytes())
        .map(|i| &i.value)
}

/// True if an info of key `key` among `infos` is a set boolean
/// directive (a true `PMIX_BOOL`, or the bare key).
pub fn flag_in(infos: &[Info], key: &str) -> bool {
    infos
        .iter()
        .any(|i| i.key.as_bytes() == key.as_bytes() && ValueView::of(&i.value).flag())
}

/// The answer to a query of `PMIX_PSET_NAMES` or `PMIX_GROUP_NAMES`
/// (`key`) among `infos`: its non-empty string, else
/// `PMIX_ERR_NOT_FOUND` (the process belongs to none).
pub(crate) fn set_names_in(infos: Vec<Info>, key: &str) -> Result<Value, crate::Status> {
    infos
        .into_iter()
        .find(|i| i.key.as_bytes() == key.as_bytes())
        .map(|i| i.value)
        .filter(|v| v.as_str().is_some_and(|s| !s.is_empty()))
        .ok_or(crate::Status::ERR_NOT_FOUND)
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

    /// An info of key `key` (none if `key` is no valid key).
    pub fn keyed(key: &str, value: Value) -> Option<Info> {
        Key::new(key).ok().map(|k| Info::new(k, value))
    }

    /// True if `PMIX_INFO_REQUIRED` is set.
    pub fn is_required(&self) -> bool {
        self.flags.contains(InfoDirectives::REQUIRED)
    }
}

/// A qualifier's or directive's value as the core's parsers of infos read
/// it ([`crate::client::GetOptions::parse`],
/// [`crate::wire::Directives::parse`]): a view, borrowed from wherever the
/// info lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueView<'a> {
    /// `PMIX_BOOL`.
    Bool(bool),
    /// `PMIX_UNDEF` (a flag given without a value: true).
    Undef,
    /// Any integer type, if its value fits an `i64`.
    Int(i64),
    /// A non-NULL `PMIX_STRING` that is UTF-8.
    Str(&'a str),
    /// Anything else.
    Other,
}

impl<'a> ValueView<'a> {
    /// The view of a core value.
    pub fn of(v: &'a Value) -> ValueView<'a> {
        match *v {
            Value::Bool(b) => ValueView::Bool(b),
            Value::Undef => ValueView::Undef,
            Value::String(_) => v.as_str().map_or(ValueView::Other, ValueView::Str),
            Value::Int(x) | Value::Int32(x) => ValueView::Int(x.into()),
            Value::Int8(x) => ValueView::Int(x.into()),
            Value::Int16(x) => ValueView::Int(x.into()),
            Value::Int64(x) => ValueView::Int(x),
            Value::Uint(x) | Value::Uint32(x) => ValueView::Int(x.into()),
            Value::Uint8(x) => ValueView::Int(x.into()),
            Value::Uint16(x) => ValueView::Int(x.into()),
            Value::Uint64(x) => i64::try_from(x).map_or(ValueView::Other, ValueView::Int),
            Value::Size(x) => i64::try_from(x).map_or(ValueView::Other, ValueView::Int),
            _ => ValueView::Other,
        }
    }

    /// A boolean directive: true for a true `PMIX_BOOL` or a bare key
    /// (`PMIX_UNDEF`), false otherwise.
    pub fn flag(self) -> bool {
        match self {
            ValueView::Bool(b) => b,
            ValueView::Undef => true,
            _ => false,
        }
    }

    /// An integer directive of any integer type.
    pub fn int(self) -> Option<i64> {
        match self {
            ValueView::Int(x) => Some(x),
            _ => None,
        }
    }

    /// A string qualifier.
    pub fn str(self) -> Option<&'a str> {
        match self {
            ValueView::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// How OpenPMIx reads a string as a boolean (`pmix_check_true`, behind
/// `PMIx_Value_true`): after leading white space, nothing is true; a
/// number is true unless `atoi` makes it zero; a text starting with
/// "yes"/"true" (any case) is true, with "no"/"false" false; anything
/// else is no boolean (`None`).
pub fn text_truth(s: &[u8]) -> Option<bool> {
    // C's isspace: the space and \t, \n, \v, \f, \r.
    let lead = s
        .iter()
        .take_while(|&&c| c == b' ' || (b'\t'..=b'\r').contains(&c))
        .count();
    let t = &s[lead..];
    let starts = |p: &[u8]| t.len() >= p.len() && t[..p.len()].eq_ignore_ascii_case(p);
    match t.first() {
        None => Some(true),
        Some(c) if c.is_ascii_digit() => {
            // atoi: strtol's saturated long, then cut to an int.
            let n = t
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .fold(0i64, |n, &c| {
                    n.saturating_mul(10).saturating_add(i64::from(c - b'0'))
                });
            Some(n as i32 != 0)
        }
        _ if starts(b"yes") || starts(b"true") => Some(true),
        _ if starts(b"no") || starts(b"false") => Some(false),
        _ => None,
    }
}

/// One key/value pair of a list of infos, read where it lives: the core's
/// [`Info`], or the C layer's `pmix_info_t` read in place (no copy). The
/// core's parsers of qualifiers and directives take a slice of any
/// `InfoItem`, so that one parser serves both.
pub trait InfoItem {
    /// True if the key is exactly `key`.
    fn key_is(&self, key: &str) -> bool;
    /// The value, as the parsers read it.
    fn view(&self) -> ValueView<'_>;
}

impl InfoItem for Info {
    #[inline]
    fn key_is(&self, key: &str) -> bool {
        self.key.as_bytes() == key.as_bytes()
    }

    #[inline]
    fn view(&self) -> ValueView<'_> {
        ValueView::of(&self.value)
    }
}

#[cfg(test)]
mod text_truth_tests {
    use super::text_truth;

    #[test]
    fn strings_read_as_openpmix_reads_them() {
        assert_eq!(text_truth(b""), Some(true));
        assert_eq!(text_truth(b" \x0b\t"), Some(true));
        assert_eq!(text_truth(b"  0"), Some(false));
        assert_eq!(text_truth(b"0012"), Some(true));
        assert_eq!(text_truth(b"4294967296"), Some(false));
        assert_eq!(text_truth(b"YESS"), Some(true));
        assert_eq!(text_truth(b"Nope"), Some(false));
        assert_eq!(text_truth(b"FALSE"), Some(false));
        assert_eq!(text_truth(b"maybe"), None);
        assert_eq!(text_truth(b"-1"), None);
    }
}
