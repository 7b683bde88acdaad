//! The buffer format a peer announces in its connect message — a bfrops
//! module name and a buffer type byte — as a [`crate::codec::Format`].
//!
//! Names: `v41` (4.2+), `v4` (4.0/4.1), `v3` (3.x); `v21`, `v20` and `v12`
//! (2.x and 1.x) are refused. The buffer type byte is 1 for non-described
//! and 2 for fully described (`PMIX_BFROP_BUFFER_NON_DESC` /
//! `..._FULLY_DESC`; 0 is "undefined" and never sent). The environment
//! variable `PMIX_BFROP_BUFFER_TYPE` names the same two values.

use super::WireError;
use crate::codec::{Format, Module};

/// `PMIX_BFROP_BUFFER_TYPE`'s value for non-described buffers.
pub const ENV_NON_DESC: &str = "PMIX_BFROP_BUFFER_NON_DESC";
/// `PMIX_BFROP_BUFFER_TYPE`'s value for fully described buffers.
pub const ENV_FULLY_DESC: &str = "PMIX_BFROP_BUFFER_FULLY_DESC";

/// The buffer type byte of the handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferType {
    /// 1: no type tags beyond the format's own.
    NonDescribed = 1,
    /// 2: a type tag before each pack call's count and items.
    FullyDescribed = 2,
}

impl BufferType {
    /// The byte on the wire.
    pub fn byte(self) -> u8 {
        self as u8
    }

    /// The byte from the wire.
    pub fn from_byte(b: u8) -> Result<BufferType, WireError> {
        match b {
            1 => Ok(BufferType::NonDescribed),
            2 => Ok(BufferType::FullyDescribed),
            _ => Err(WireError::UnknownBufferType(b)),
        }
    }

    /// The value of `PMIX_BFROP_BUFFER_TYPE` that selects this type.
    pub fn env_value(self) -> &'static str {
        match self {
            BufferType::NonDescribed => ENV_NON_DESC,
            BufferType::FullyDescribed => ENV_FULLY_DESC,
        }
    }

    /// The type a `PMIX_BFROP_BUFFER_TYPE` value selects.
    pub fn from_env(v: &str) -> Option<BufferType> {
        match v {
            ENV_NON_DESC => Some(BufferType::NonDescribed),
            ENV_FULLY_DESC => Some(BufferType::FullyDescribed),
            _ => None,
        }
    }
}

/// The module named `name` in a handshake.
pub fn module_by_name(name: &str) -> Result<Module, WireError> {
    match name {
        "v41" => Ok(Module::V41),
        "v4" => Ok(Module::V4),
        "v3" => Ok(Module::V3),
        _ => Err(WireError::UnsupportedBfrops(name.to_owned())),
    }
}

/// A peer's buffer format as its handshake states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PeerFormat {
    /// The bfrops module.
    pub module: Module,
    /// The buffer type.
    pub buffer_type: BufferType,
}

impl PeerFormat {
    /// From the handshake's module name and buffer type byte.
    pub fn from_handshake(name: &str, buffer_type: u8) -> Result<PeerFormat, WireError> {
        Ok(PeerFormat {
            module: module_by_name(name)?,
            buffer_type: BufferType::from_byte(buffer_type)?,
        })
    }

    /// The handshake's statement of the codec format `f`.
    pub fn from_codec(f: Format) -> PeerFormat {
        PeerFormat {
            module: f.module,
            buffer_type: if f.described {
                BufferType::FullyDescribed
            } else {
                BufferType::NonDescribed
            },
        }
    }

    /// The codec format for this peer's buffers.
    pub fn codec(self) -> Format {
        Format {
            module: self.module,
            described: self.buffer_type == BufferType::FullyDescribed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_bytes_map_both_ways_and_old_formats_are_refused() {
        for m in [Module::V3, Module::V4, Module::V41] {
            assert_eq!(module_by_name(m.name()).unwrap(), m);
        }
        for old in ["v21", "v20", "v12", "", "v5"] {
            assert!(matches!(
                module_by_name(old),
                Err(WireError::UnsupportedBfrops(_))
            ));
        }
        for t in [BufferType::NonDescribed, BufferType::FullyDescribed] {
            assert_eq!(BufferType::from_byte(t.byte()).unwrap(), t);
            assert_eq!(BufferType::from_env(t.env_value()), Some(t));
        }
        assert!(BufferType::from_byte(0).is_err() && BufferType::from_byte(3).is_err());
        let f = PeerFormat::from_handshake("v41", 2).unwrap().codec();
        assert!(f.described && f.module == Module::V41);
    }
}
