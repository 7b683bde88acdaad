//! The directives (info keys) the control plane acts on, parsed once.

use std::time::{Duration, Instant};

use crate::{keys, Info, Value};

/// The value of a boolean directive: `true`, or present without a value.
pub fn flag(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Undef => true,
        _ => false,
    }
}

/// An integer directive of any integer type.
pub fn int(v: &Value) -> Option<i64> {
    Some(match *v {
        Value::Int(x) | Value::Int32(x) => x.into(),
        Value::Int8(x) => x.into(),
        Value::Int16(x) => x.into(),
        Value::Int64(x) => x,
        Value::Uint(x) | Value::Uint32(x) => x.into(),
        Value::Uint8(x) => x.into(),
        Value::Uint16(x) => x.into(),
        Value::Uint64(x) => i64::try_from(x).ok()?,
        Value::Size(x) => i64::try_from(x).ok()?,
        _ => return None,
    })
}

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
    /// Reads the directives among `infos` (others are ignored).
    pub fn parse(infos: &[Info]) -> Directives {
        let mut d = Directives::default();
        for i in infos {
            match i.key.as_bytes() {
                k if k == keys::COLLECT_DATA.as_bytes() => d.collect = flag(&i.value),
                k if k == keys::IMMEDIATE.as_bytes() => d.immediate = flag(&i.value),
                k if k == keys::OPTIONAL.as_bytes() => d.optional = flag(&i.value),
                k if k == keys::TIMEOUT.as_bytes() => {
                    d.timeout = int(&i.value)
                        .filter(|&s| s > 0)
                        .map(|s| Duration::from_secs(s as u64));
                }
                _ => {}
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
    use crate::Key;

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
