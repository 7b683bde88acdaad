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
//!   (master's `v41` no longer registers the four statistics types 61–64;
//!   a 6.x peer is not told them apart here yet.)
//! - `v4` and `v41` encode integers alike (variable length, [`super::varint`]).
//!   `v3` registers the base's fixed-width integer functions: every
//!   integer is its C width in network order, and `PMIX_SIZE`, `PMIX_INT`
//!   and `PMIX_UINT` are "system types" packed behind a type tag naming
//!   the type they travel as (`PMIX_UINT64` for `size_t`, `PMIX_INT32` for
//!   `int` and `unsigned int`; `v4`'s own size/int functions write no tag).
//!   The composites are the same base functions in every module, packing
//!   their fields through the module's table, so a `v3` structure has the
//!   `v41` field order with the `v3` integers inside:
//!   - type tags (top-level described tags, value/info/pdata/darray tags,
//!     the pid tag, `PMIX_DATA_TYPE`): `uint16`, 2 bytes;
//!   - the pack-call count, string lengths, status, `int32`: 4 bytes;
//!   - rank and info directives: `uint32`, 4 bytes; `pid_t`: tag
//!     `PMIX_UINT32` once per pack call, then 4 bytes each;
//!   - byte objects, data-array sizes, info counts of apps and queries,
//!     nested buffers' lengths: tagged `size_t`, 2 + 8 bytes;
//!   - an app's argc and maxprocs are `PMIX_INT` (tagged, 2 + 4 bytes),
//!     its envc an `int32`; a query's key count an `int32`;
//!   - timeval: two `int64`; time: `uint64`; coord entries `uint32`;
//!   - strings, floats (`%f` text), bytes, bools, envars' separator and
//!     the 8-bit enums are unchanged.
//!
//!   [`Module::ints`] picks the encoding; [`Format`] selects it for each
//!   call (see [`super::ints`]), so the pack and unpack code is shared.
//!   A reader of a tagged `size_t`/`int` converts whatever integer type
//!   the tag names, as the reference does for a peer of another width.
//!
//! Invariant: [`Format::DATA_PACK`] (v41, non-described) produces exactly
//! the bytes of [`super::pack_typed`]; the described form is those bytes
//! with the two tags added.

use super::ints::{self, Ints};
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
            // Every type up to PMIX_ENVAR, MODEX and INFO_ARRAY included.
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

    /// The integer encoding of this module's buffers.
    pub fn ints(self) -> Ints {
        match self {
            Module::V3 => Ints::Fixed,
            Module::V4 | Module::V41 => Ints::Varint,
        }
    }
}

/// The fuzz selector's bit for `v3` (see [`Format::from_fuzz_selector`]).
const FUZZ_V3: u8 = 0x40;

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

    /// The format a fuzz input's selector byte names: the fuzz targets'
    /// and their seeds' one convention (bit 6: `v3`; else bit 0: `v4`
    /// rather than `v41`; bit 1: fully described; the other bits are each
    /// target's own).
    #[doc(hidden)]
    pub fn from_fuzz_selector(sel: u8) -> Format {
        Format {
            module: if sel & FUZZ_V3 != 0 {
                Module::V3
            } else if sel & 1 == 0 {
                Module::V41
            } else {
                Module::V4
            },
            described: sel & 2 != 0,
        }
    }

    /// The selector bits of [`from_fuzz_selector`](Self::from_fuzz_selector)
    /// that name this format (the others clear).
    #[doc(hidden)]
    pub fn fuzz_selector(self) -> u8 {
        let module = match self.module {
            Module::V41 => 0,
            Module::V4 => 1,
            Module::V3 => FUZZ_V3,
        };
        module | if self.described { 2 } else { 0 }
    }

    /// Packs `values`, all of type `ty`, as one pack call of this format.
    pub fn pack(self, buf: &mut Buffer, ty: DataType, values: &[Value]) -> Result<(), CodecError> {
        self.module.check_type(ty.raw())?;
        values.iter().try_for_each(|v| self.module.check_value(v))?;
        let out = buf.bytes_mut();
        ints::with(self.module.ints(), || {
            if self.described {
                wire::put_type(out, DataType::Int32.raw());
                wire::put_count(out, values.len())?;
                wire::put_type(out, ty.raw());
                pack::pack_items(out, ty, values)
            } else {
                pack::pack_counted(out, ty, values)
            }
        })
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
        self.module.check_type(ty.raw())?;
        ints::with(self.module.ints(), || self.unpack_checked(r, ty, max))
    }

    fn unpack_checked(
        self,
        r: &mut Reader<'_>,
        ty: DataType,
        max: usize,
    ) -> Result<Vec<Value>, CodecError> {
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

/// One `PMIX_BUFFER` item: a whole `pmix_buffer_t` nested in another (a
/// commit carries its put data so). On the wire: the inner buffer's type
/// byte (0 undefined, 1 non-described, 2 fully described), its length as a
/// `PMIX_SIZE`, then its bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NestedBuffer {
    /// The inner buffer's type byte.
    pub buffer_type: u8,
    /// The inner buffer's packed bytes.
    pub bytes: Vec<u8>,
}

impl Format {
    /// Packs `items` as one pack call of `PMIX_BUFFER`s.
    pub fn pack_buffers(self, buf: &mut Buffer, items: &[NestedBuffer]) -> Result<(), CodecError> {
        let out = buf.bytes_mut();
        ints::with(self.module.ints(), || self.put_buffers(out, items))
    }

    fn put_buffers(self, out: &mut Vec<u8>, items: &[NestedBuffer]) -> Result<(), CodecError> {
        if self.described {
            wire::put_type(out, DataType::Int32.raw());
        }
        wire::put_count(out, items.len())?;
        if self.described {
            wire::put_type(out, PMIX_BUFFER);
        }
        for b in items {
            out.push(b.buffer_type);
            wire::put_bytes(out, &b.bytes);
        }
        Ok(())
    }

    /// Unpacks one pack call of `PMIX_BUFFER`s, at most `max`.
    pub fn unpack_buffers(
        self,
        buf: &mut Buffer,
        max: usize,
    ) -> Result<Vec<NestedBuffer>, CodecError> {
        ints::with(self.module.ints(), || {
            buf.read_with(|r| {
                if self.described {
                    let t = wire::get_type(r)?;
                    if t != DataType::Int32.raw() {
                        return Err(CodecError::CountNotFirst(t));
                    }
                }
                let n = wire::get_count(r)?;
                if n > max {
                    return Err(CodecError::InadequateSpace {
                        total: n,
                        room: max,
                    });
                }
                if self.described {
                    let t = wire::get_type(r)?;
                    if t != PMIX_BUFFER {
                        return Err(CodecError::PackMismatch {
                            expected: PMIX_BUFFER,
                            found: t,
                        });
                    }
                }
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    let buffer_type = r.byte()?;
                    let bytes = wire::get_bytes(r)?;
                    v.push(NestedBuffer { buffer_type, bytes });
                }
                Ok(v)
            })
        })
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
    use crate::value::Timeval;
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
    fn nested_buffers_round_trip_in_both_modes() {
        let items = vec![
            NestedBuffer {
                buffer_type: 1,
                bytes: vec![2, 9, 9],
            },
            NestedBuffer::default(),
        ];
        for described in [false, true] {
            let f = Format {
                module: Module::V41,
                described,
            };
            let mut b = Buffer::new();
            f.pack_buffers(&mut b, &items).unwrap();
            let want: &[u8] = if described {
                &[9, 4, 26, 1, 3, 2, 9, 9, 0, 0]
            } else {
                &[4, 1, 3, 2, 9, 9, 0, 0]
            };
            assert_eq!(b.as_bytes(), want);
            assert_eq!(f.unpack_buffers(&mut b.clone(), 2).unwrap(), items);
            assert!(f.unpack_buffers(&mut b.clone(), 1).is_err());
            for n in 0..want.len() {
                let mut cut = Buffer::from_bytes(want[..n].to_vec());
                assert!(f.unpack_buffers(&mut cut, 2).is_err());
            }
        }
    }

    const V3: Format = Format {
        module: Module::V3,
        described: false,
    };

    /// Packs `v` as v3 (non-described), checks the bytes against `want`
    /// (written by hand from the reference's v3 pack functions) and reads
    /// them back.
    fn v3_bytes(v: Value, want: &[u8]) {
        let mut b = Buffer::new();
        V3.pack_value(&mut b, &v).unwrap();
        assert_eq!(b.as_bytes(), want, "{v:?}");
        assert_eq!(V3.unpack_value(&mut b, v.data_type()).unwrap(), v);
        assert_eq!(b.remaining(), 0);
        for n in 0..want.len() {
            let mut cut = Buffer::from_bytes(want[..n].to_vec());
            assert!(V3.unpack_value(&mut cut, v.data_type()).is_err(), "{n}");
        }
    }

    fn nul(s: &str) -> Vec<u8> {
        let mut v = ((s.len() + 1) as i32).to_be_bytes().to_vec();
        v.extend_from_slice(s.as_bytes());
        v.push(0);
        v
    }

    const ONE: [u8; 4] = [0, 0, 0, 1];

    fn cat(parts: &[&[u8]]) -> Vec<u8> {
        parts.concat()
    }

    #[test]
    fn v3_integers_are_fixed_width_big_endian() {
        v3_bytes(Value::Int32(-5), &cat(&[&ONE, &[0xff, 0xff, 0xff, 0xfb]]));
        v3_bytes(Value::Uint32(0x0102_0304), &cat(&[&ONE, &[1, 2, 3, 4]]));
        v3_bytes(Value::Int16(-2), &cat(&[&ONE, &[0xff, 0xfe]]));
        v3_bytes(Value::Uint16(258), &cat(&[&ONE, &[1, 2]]));
        v3_bytes(Value::Int64(-1), &cat(&[&ONE, &[0xff; 8]]));
        v3_bytes(
            Value::Uint64(1 << 40),
            &cat(&[&ONE, &[0, 0, 1, 0, 0, 0, 0, 0]]),
        );
        v3_bytes(Value::Status(-25), &cat(&[&ONE, &(-25i32).to_be_bytes()]));
        v3_bytes(Value::ProcRank(7), &cat(&[&ONE, &[0, 0, 0, 7]]));
        v3_bytes(Value::InfoDirectives(1), &cat(&[&ONE, &[0, 0, 0, 1]]));
        v3_bytes(Value::DataType(22), &cat(&[&ONE, &[0, 22]]));
        v3_bytes(Value::Time(5), &cat(&[&ONE, &[0, 0, 0, 0, 0, 0, 0, 5]]));
        v3_bytes(
            Value::Timeval(Timeval { sec: 1, usec: 2 }),
            &cat(&[&ONE, &[0, 0, 0, 0, 0, 0, 0, 1], &[0, 0, 0, 0, 0, 0, 0, 2]]),
        );
        v3_bytes(Value::Uint8(9), &cat(&[&ONE, &[9]]));
        v3_bytes(Value::Bool(true), &cat(&[&ONE, &[1]]));
    }

    #[test]
    fn v3_size_int_uint_and_pid_carry_a_type_tag() {
        // size_t: tag PMIX_UINT64 (15), then 8 bytes.
        v3_bytes(
            Value::Size(3),
            &cat(&[&ONE, &[0, 15], &[0, 0, 0, 0, 0, 0, 0, 3]]),
        );
        // int and unsigned int: tag PMIX_INT32 (9), then 4 bytes.
        v3_bytes(Value::Int(-1), &cat(&[&ONE, &[0, 9], &[0xff; 4]]));
        v3_bytes(Value::Uint(u32::MAX), &cat(&[&ONE, &[0, 9], &[0xff; 4]]));
        // pid_t: tag PMIX_UINT32 (14) once per pack call, then 4 bytes each.
        let mut b = Buffer::new();
        V3.pack(&mut b, DataType::Pid, &[Value::Pid(42), Value::Pid(43)])
            .unwrap();
        assert_eq!(b.as_bytes(), [0, 0, 0, 2, 0, 14, 0, 0, 0, 42, 0, 0, 0, 43]);
        // A size packed on a host whose size_t is 32 bits (tag PMIX_UINT32)
        // is converted as C would.
        let mut b = Buffer::from_bytes(cat(&[&ONE, &[0, 14], &[0, 0, 0, 9]]));
        assert_eq!(
            V3.unpack_value(&mut b, DataType::Size).unwrap(),
            Value::Size(9)
        );
        let mut b = Buffer::from_bytes(cat(&[&ONE, &[0, 3], &[0, 0, 0, 9]]));
        assert_eq!(
            V3.unpack_value(&mut b, DataType::Size).unwrap_err(),
            CodecError::UnexpectedTag(3)
        );
    }

    #[test]
    fn v3_composites_use_the_fixed_integers_inside() {
        let ns = crate::Nspace::new("ns").unwrap();
        let proc = crate::Proc::new(ns, crate::Rank(3));
        v3_bytes(
            Value::Proc(proc.clone()),
            &cat(&[&ONE, &nul("ns"), &[0, 0, 0, 3]]),
        );
        v3_bytes(Value::String(None), &cat(&[&ONE, &[0, 0, 0, 0]]));
        v3_bytes(
            Value::String(Some(c"ab".to_owned())),
            &cat(&[&ONE, &nul("ab")]),
        );
        // Byte object: its size as a tagged size_t.
        v3_bytes(
            Value::ByteObject(vec![7, 8]),
            &cat(&[&ONE, &[0, 15, 0, 0, 0, 0, 0, 0, 0, 2, 7, 8]]),
        );
        // Info: key, directives (uint32), value tag (uint16), payload.
        let info = Info::new(Key::new("k").unwrap(), Value::Uint32(7));
        let info_bytes = cat(&[&nul("k"), &[0, 0, 0, 0], &[0, 14], &[0, 0, 0, 7]]);
        v3_bytes(
            Value::Info(Box::new(info.clone())),
            &cat(&[&ONE, &info_bytes]),
        );
        // Value: tag, payload.
        v3_bytes(
            Value::Value(Box::new(Value::Status(-1))),
            &cat(&[&ONE, &[0, 20], &[0xff; 4]]),
        );
        // Data array: element tag, tagged size_t count, elements.
        v3_bytes(
            Value::DataArray(Box::new(crate::value::DataArray {
                elem_type: DataType::Uint16,
                items: vec![Value::Uint16(1), Value::Uint16(2)],
            })),
            &cat(&[
                &ONE,
                &[0, 13],
                &[0, 15, 0, 0, 0, 0, 0, 0, 0, 2],
                &[0, 1, 0, 2],
            ]),
        );
        // Pdata: proc, key, tagged value.
        v3_bytes(
            Value::PData(Box::new(crate::value::PData {
                proc: proc.clone(),
                key: Key::new("k").unwrap(),
                value: Value::Int16(1),
            })),
            &cat(&[&ONE, &nul("ns"), &[0, 0, 0, 3], &nul("k"), &[0, 8, 0, 1]]),
        );
        // App: argc and maxprocs are PMIX_INT (tagged), envc an int32, the
        // info count a tagged size_t.
        v3_bytes(
            Value::App(Box::new(crate::value::App {
                cmd: Some(c"a".to_owned()),
                argv: vec![c"x".to_owned()],
                env: vec![],
                cwd: None,
                maxprocs: 2,
                info: vec![info],
            })),
            &cat(&[
                &ONE,
                &nul("a"),
                &[0, 9, 0, 0, 0, 1],
                &nul("x"),
                &[0, 0, 0, 0],
                &[0, 0, 0, 0],
                &[0, 9, 0, 0, 0, 2],
                &[0, 15, 0, 0, 0, 0, 0, 0, 0, 1],
                &info_bytes,
            ]),
        );
        // Envar: two strings and the separator byte.
        v3_bytes(
            Value::Envar(crate::value::Envar {
                envar: Some(c"A".to_owned()),
                value: None,
                separator: b':',
            }),
            &cat(&[&ONE, &nul("A"), &[0, 0, 0, 0], b":"]),
        );
    }

    #[test]
    fn v3_described_and_nested_buffers() {
        let d3 = Format {
            module: Module::V3,
            described: true,
        };
        let mut b = Buffer::new();
        d3.pack_value(&mut b, &Value::Command(5)).unwrap();
        // INT32 tag, count, COMMAND tag, the byte.
        assert_eq!(b.as_bytes(), [0, 9, 0, 0, 0, 1, 0, 34, 5]);
        assert_eq!(
            d3.unpack_value(&mut b, DataType::Command).unwrap(),
            Value::Command(5)
        );
        let items = [NestedBuffer {
            buffer_type: 1,
            bytes: vec![4],
        }];
        let mut b = Buffer::new();
        V3.pack_buffers(&mut b, &items).unwrap();
        assert_eq!(
            b.as_bytes(),
            [0, 0, 0, 1, 1, 0, 15, 0, 0, 0, 0, 0, 0, 0, 1, 4]
        );
        assert_eq!(V3.unpack_buffers(&mut b, 1).unwrap(), items);
        // The default encoding is back after a v3 call.
        let mut b = Buffer::new();
        super::super::pack(&mut b, &[Value::Int32(-5)]).unwrap();
        assert_eq!(b.as_bytes(), [2, 9]);
        assert!(Module::V3.knows(INFO_ARRAY) && !Module::V41.knows(INFO_ARRAY));
    }

    #[test]
    fn v3_refuses_types_it_does_not_register() {
        let e = V3
            .pack_value(&mut Buffer::new(), &Value::JobState(1))
            .unwrap_err();
        assert!(matches!(e, CodecError::NotInModule { module: "v3", .. }));
    }

    /// Every format, v3 included, is a fuzz selector's, and each selector
    /// names the format its own bits give back.
    #[test]
    fn every_format_has_a_fuzz_selector() {
        for module in [Module::V3, Module::V4, Module::V41] {
            for described in [false, true] {
                let f = Format { module, described };
                assert_eq!(Format::from_fuzz_selector(f.fuzz_selector()), f);
                // The targets' own bits do not change the format.
                assert_eq!(Format::from_fuzz_selector(f.fuzz_selector() | 0x8c), f);
            }
        }
    }
}
