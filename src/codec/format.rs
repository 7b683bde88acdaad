//! Buffer formats of OpenPMIx's peers: which bfrops module a peer speaks
//! ([`Module`]: the set of types it can pack and unpack) and whether its
//! buffers are *fully described* ([`Format::described`]).
//!
//! Facts from OpenPMIx's source (4.2.2, 5.0.11, master; no code copied):
//!
//! - In a fully described buffer every top-level pack call (one
//!   `PMIx_Data_pack`, or one `PMIX_BFROPS_PACK` inside the library) is
//!   `[tag PMIX_INT32][count][tag T][items]`, where a tag is a
//!   `pmix_data_type_t` packed as `PMIX_UINT16`. Nothing *inside* an item
//!   gains a tag: values, infos, data arrays and the rest already carry the
//!   tags of their non-described layout, and the fields of a structure are
//!   packed without the described wrapper. Unpacking a described buffer
//!   checks that the count's tag is `PMIX_INT32` (else
//!   `PMIX_ERR_UNPACK_FAILURE`) and that the items' tag is the type asked
//!   for (else `PMIX_ERR_PACK_MISMATCH`).
//! - `v41` registers every type up to `PMIX_STOR_ACCESS_TYPE` (69); `v4`
//!   stops at `PMIX_COMPRESSED_BYTE_OBJECT` (59); `v3` stops at
//!   `PMIX_ENVAR` (46) but also knows the legacy `PMIX_MODEX` (29) and
//!   `PMIX_INFO_ARRAY` (44). A type the peer's module does not register is
//!   an error at the peer (`UNSUPPORTED TYPE`), so it is never sent: packing
//!   one, at any depth, fails here with [`CodecError::NotInModule`].
//! - `v4` and `v41` encode integers alike (variable length, [`super::varint`]);
//!   `v3` packs them fixed-width in network order with a type tag before
//!   `PMIX_SIZE`/`PMIX_INT`/`PMIX_UINT`. That encoding is not implemented:
//!   packing or unpacking as `v3` fails with [`CodecError::NotSupported`].
//!
//! Invariant: [`Format::DATA_PACK`] (v41, non-described) produces exactly
//! the bytes of [`super::pack_typed`]; the described form is those bytes
//! with the two tags added.

use super::{pack, unpack, wire, Buffer, CodecError, Reader};
use crate::{DataType, Value};

/// `PMIX_MODEX`, a type of the v3 module only.
pub const MODEX: u16 = 29;
/// `PMIX_INFO_ARRAY`, the legacy array type of the v3 module.
pub const INFO_ARRAY: u16 = 44;
/// `PMIX_BUFFER`, a nested `pmix_buffer_t` (every module registers it).
pub const PMIX_BUFFER: u16 = 26;

/// A bfrops module: the type set and integer encoding of a peer's buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Module {
    /// OpenPMIx 3.x's native format (fixed-width integers).
    V3,
    /// OpenPMIx 4.0/4.1's format.
    V4,
    /// OpenPMIx 4.2 and 5.0's format (what `PMIx_Data_pack` writes).
    V41,
}

impl Module {
    /// The name the handshake carries (`"v41"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Module::V3 => "v3",
            Module::V4 => "v4",
            Module::V41 => "v41",
        }
    }

    /// Whether this module registers the type `raw`.
    pub fn knows(self, raw: u16) -> bool {
        match self {
            // 1..=46 except 26 (BUFFER: registered) all exist in v3, plus
            // MODEX and INFO_ARRAY.
            Module::V3 => (1..=46).contains(&raw),
            Module::V4 => (1..=59).contains(&raw) && raw != MODEX && raw != INFO_ARRAY,
            Module::V41 => (1..=69).contains(&raw) && raw != MODEX && raw != INFO_ARRAY,
        }
    }

    /// Checks that `v` and every value nested in it have types this
    /// module knows.
    pub fn check_value(self, v: &Value) -> Result<(), CodecError> {
        self.check_type(v.data_type().raw())?;
        match v {
            Value::Value(inner) => self.check_value(inner),
            Value::Info(i) => self.check_value(&i.value),
            Value::PData(p) => self.check_value(&p.value),
            Value::Kval(k) => k.value.as_deref().map_or(Ok(()), |v| self.check_value(v)),
            Value::App(a) => a.info.iter().try_for_each(|i| self.check_value(&i.value)),
            Value::Query(q) => q
                .qualifiers
                .iter()
                .try_for_each(|i| self.check_value(&i.value)),
            Value::DataArray(d) => {
                if d.elem_type != DataType::Undef {
                    self.check_type(d.elem_type.raw())?;
                }
                d.items.iter().try_for_each(|v| self.check_value(v))
            }
            _ => Ok(()),
        }
    }

    fn check_type(self, raw: u16) -> Result<(), CodecError> {
        // PMIX_UNDEF travels inside values (an empty value) in every module.
        if raw == 0 || self.knows(raw) {
            Ok(())
        } else {
            Err(CodecError::NotInModule {
                module: self.name(),
                ty: raw,
            })
        }
    }

    fn require_varint(self) -> Result<(), CodecError> {
        match self {
            Module::V3 => Err(CodecError::NotSupported(
                "bfrops v3 (fixed-width integers) is not implemented",
            )),
            Module::V4 | Module::V41 => Ok(()),
        }
    }
}

/// How a peer's buffers are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    /// The peer's bfrops module.
    pub module: Module,
    /// Fully described (a type tag before each pack call's count and
    /// items) rather than non-described.
    pub described: bool,
}

impl Format {
    /// What `PMIx_Data_pack` writes: v41, non-described.
    pub const DATA_PACK: Format = Format {
        module: Module::V41,
        described: false,
    };

    /// Packs `values`, all of type `ty`, as one pack call of this format.
    pub fn pack(self, buf: &mut Buffer, ty: DataType, values: &[Value]) -> Result<(), CodecError> {
        self.module.require_varint()?;
        self.module.check_type(ty.raw())?;
        values.iter().try_for_each(|v| self.module.check_value(v))?;
        let out = buf.bytes_mut();
        if self.described {
            wire::put_type(out, DataType::Int32.raw());
            wire::put_count(out, values.len())?;
            wire::put_type(out, ty.raw());
            pack::pack_items(out, ty, values)
        } else {
            pack::pack_counted(out, ty, values)
        }
    }

    /// Packs one value of its own type.
    pub fn pack_value(self, buf: &mut Buffer, v: &Value) -> Result<(), CodecError> {
        self.pack(buf, v.data_type(), std::slice::from_ref(v))
    }

    /// Unpacks one pack call's values of type `ty`, at most `max` of them
    /// (more is [`CodecError::InadequateSpace`]).
    pub fn unpack(
        self,
        buf: &mut Buffer,
        ty: DataType,
        max: usize,
    ) -> Result<Vec<Value>, CodecError> {
        buf.read_with(|r| self.unpack_from(r, ty, max))
    }

    /// Unpacks exactly one value of type `ty`.
    pub fn unpack_value(self, buf: &mut Buffer, ty: DataType) -> Result<Value, CodecError> {
        let mut v = self.unpack(buf, ty, 1)?;
        v.pop().ok_or(CodecError::ReadPastEnd)
    }

    /// [`Format::unpack`] over a [`Reader`].
    pub fn unpack_from(
        self,
        r: &mut Reader<'_>,
        ty: DataType,
        max: usize,
    ) -> Result<Vec<Value>, CodecError> {
        self.module.require_varint()?;
        self.module.check_type(ty.raw())?;
        if max == 0 {
            return Err(CodecError::InadequateSpace { total: 0, room: 0 });
        }
        if self.described {
            let t = wire::get_type(r)?;
            if t != DataType::Int32.raw() {
                return Err(CodecError::CountNotFirst(t));
            }
        }
        let n = wire::get_i32(r)?;
        let total = usize::try_from(n).map_err(|_| CodecError::BadLength(n.into()))?;
        if self.described {
            let t = wire::get_type(r)?;
            if t != ty.raw() {
                return Err(CodecError::PackMismatch {
                    expected: ty.raw(),
                    found: t,
                });
            }
        }
        let values = unpack::unpack_items(r, ty, total.min(max), 0)?;
        values.iter().try_for_each(|v| self.module.check_value(v))?;
        if total > max {
            return Err(CodecError::InadequateSpace { total, room: max });
        }
        Ok(values)
    }
}

impl Default for Format {
    fn default() -> Self {
        Format::DATA_PACK
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Info, Key};

    const DESC41: Format = Format {
        module: Module::V41,
        described: true,
    };

    #[test]
    fn non_described_v41_is_data_pack() {
        let vals = [Value::Int32(-5), Value::Int32(300)];
        let mut a = Buffer::new();
        super::super::pack(&mut a, &vals).unwrap();
        let mut b = Buffer::new();
        Format::DATA_PACK
            .pack(&mut b, DataType::Int32, &vals)
            .unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn described_adds_two_tags_around_the_count() {
        let mut b = Buffer::new();
        DESC41.pack_value(&mut b, &Value::Command(0)).unwrap();
        // INT32 tag (9), count 1 (zigzag 2), COMMAND tag (34), the byte.
        assert_eq!(b.as_bytes(), [9, 2, 34, 0]);
        assert_eq!(
            DESC41.unpack_value(&mut b, DataType::Command).unwrap(),
            Value::Command(0)
        );
    }

    #[test]
    fn described_unpack_rejects_a_different_type() {
        let mut b = Buffer::new();
        DESC41.pack_value(&mut b, &Value::Uint32(7)).unwrap();
        let e = DESC41.unpack(&mut b, DataType::Int32, 1).unwrap_err();
        assert!(matches!(
            e,
            CodecError::PackMismatch {
                expected: 9,
                found: 14
            }
        ));
        assert_eq!(e.status(), crate::Status(-22));
        let mut b = Buffer::from_bytes(vec![14, 2, 14, 7]);
        let e = DESC41.unpack(&mut b, DataType::Uint32, 1).unwrap_err();
        assert_eq!(e, CodecError::CountNotFirst(14));
    }

    #[test]
    fn a_type_the_module_lacks_is_never_packed_even_nested() {
        let stats = Value::StorMedium(1);
        let mut b = Buffer::new();
        let f = Format {
            module: Module::V4,
            described: false,
        };
        let e = f.pack_value(&mut b, &stats).unwrap_err();
        assert_eq!(
            e,
            CodecError::NotInModule {
                module: "v4",
                ty: 66
            }
        );
        let nested = Value::Info(Box::new(Info {
            key: Key::new("k").unwrap(),
            flags: Default::default(),
            value: stats.clone(),
        }));
        assert!(f.pack_value(&mut b, &nested).is_err());
        assert!(b.is_empty(), "nothing written on refusal");
        Format {
            module: Module::V41,
            described: false,
        }
        .pack_value(&mut b, &stats)
        .unwrap();
    }

    #[test]
    fn v3_is_refused_clearly() {
        let f = Format {
            module: Module::V3,
            described: false,
        };
        let e = f
            .pack_value(&mut Buffer::new(), &Value::Int32(1))
            .unwrap_err();
        assert!(matches!(e, CodecError::NotSupported(_)));
        assert!(Module::V3.knows(INFO_ARRAY) && !Module::V41.knows(INFO_ARRAY));
    }
}
