//! Property tests of the core codec: arbitrary values of every type
//! (structures nested through values, infos, apps and data arrays) survive
//! pack/unpack; every truncation of a packed buffer is an error; corrupted
//! and random bytes never make the unpacker panic.

use std::ffi::CString;

use pmix::codec::{self, float, Buffer, CodecError, Reader};
use pmix::testing::ValueGen;
use pmix::value::*;
use pmix::{DataType, Info, Key, Nspace, Value};
use proptest::collection::vec;
use proptest::prelude::*;

fn cstring() -> impl Strategy<Value = CString> {
    vec(1u8..=255, 0..12).prop_map(|b| CString::new(b).unwrap())
}

/// Values as the codec carries them: any bytes in strings, keys and
/// namespaces up to their longest, pointers as NULL, the regex forms the
/// reference packs, the cpuset and topology sources it knows; a `PMIX_KVAL`
/// always has a value.
fn gen() -> ValueGen {
    let opt = || proptest::option::of(cstring());
    ValueGen {
        string: cstring().boxed(),
        key: prop_oneof![
            vec(1u8..=255, 0..20).prop_map(|b| Key::new(b).unwrap()),
            Just(Key::new(vec![b'k'; 511]).unwrap()),
        ]
        .boxed(),
        nspace: prop_oneof![
            vec(1u8..=255, 0..20).prop_map(|b| Nspace::new(b).unwrap()),
            Just(Nspace::new(vec![b'n'; 255]).unwrap()),
        ]
        .boxed(),
        pointer: Just(0).boxed(),
        regex: regex().boxed(),
        cpuset: (
            prop_oneof![
                Just(None),
                Just(Some(c"hwloc".to_owned())),
                Just(Some(c"HWLOC2".to_owned()))
            ],
            opt(),
        )
            .prop_map(|(source, bitmap)| Cpuset { source, bitmap })
            .boxed(),
        topology: opt().prop_map(|xml| Topology { source: None, xml }).boxed(),
        kval_none: false,
        ..ValueGen::new()
    }
}

fn regex() -> impl Strategy<Value = Vec<u8>> {
    let text = || vec(1u8..=255, 0..10);
    prop_oneof![
        Just(Vec::new()),
        text().prop_map(|t| [b"pmix".as_slice(), &t, b"\0"].concat()),
        text().prop_map(|t| [b"raw:".as_slice(), &t, b"\0"].concat()),
        // anything else travels as a counted string
        text()
            .prop_filter("not a known form", |t| {
                !(t.starts_with(b"pmix") || t.starts_with(b"raw:") || t.starts_with(b"blob"))
            })
            .prop_map(|t| [t.as_slice(), b"\0"].concat()),
        vec(any::<u8>(), 0..8).prop_map(|data| {
            let mut b = b"blob:\0component=zlib:\0size=".to_vec();
            b.extend_from_slice(format!("{}:\0", data.len()).as_bytes());
            b.extend_from_slice(&data);
            b
        }),
    ]
}

/// Values of every type that has no nested values.
fn leaf() -> BoxedStrategy<Value> {
    let types = ValueGen::scalar_types()
        .into_iter()
        .filter(|t| *t != DataType::Undef)
        .collect();
    gen().one_of(types)
}

/// A strategy for `n` items of one type, drawn from `one`.
fn same_type(
    one: BoxedStrategy<Value>,
    max: usize,
) -> impl Strategy<Value = (DataType, Vec<Value>)> {
    one.prop_flat_map(move |first| {
        let t = first.data_type();
        // Further items: regenerate until they have the first one's type.
        (Just(t), Just(first), vec(any::<u64>(), 0..max))
    })
    .prop_map(|(t, first, seeds)| {
        let mut items = vec![first.clone()];
        // Variations of the first value keep the type.
        for s in seeds {
            items.push(vary(&first, s));
        }
        (t, items)
    })
}

/// A value of the same type as `v`, changed deterministically by `seed`.
fn vary(v: &Value, seed: u64) -> Value {
    match v {
        Value::Uint64(_) => Value::Uint64(seed),
        Value::Int64(_) => Value::Int64(seed as i64),
        Value::Int32(_) => Value::Int32(seed as i32),
        Value::String(_) => Value::String(CString::new(format!("s{seed}")).ok()),
        Value::ByteObject(_) => Value::ByteObject(seed.to_le_bytes().to_vec()),
        other => other.clone(),
    }
}

/// Any value, structures nested to a few levels.
fn value() -> BoxedStrategy<Value> {
    let g = gen();
    leaf()
        .prop_recursive(4, 48, 6, move |inner| {
            let mut arms = g.nesting(inner.clone());
            arms.push(
                same_type(inner, 4)
                    .prop_map(|(elem_type, items)| {
                        Value::DataArray(Box::new(DataArray { elem_type, items }))
                    })
                    .boxed(),
            );
            arms.push(
                Just(Value::DataArray(Box::new(DataArray {
                    elem_type: DataType::Undef,
                    items: vec![],
                })))
                .boxed(),
            );
            proptest::strategy::Union::new(arms).boxed()
        })
        .boxed()
}

fn through_text_f32(x: f32) -> f32 {
    float::parse_f32(float::format_f(x.into()).as_bytes())
}

/// What a value becomes once packed and unpacked.
fn normalize(v: &Value) -> Value {
    let f = through_text_f32;
    let hwloc = || Some(c"hwloc".to_owned());
    match v {
        Value::Float(x) => Value::Float(f(*x)),
        Value::Double(x) => Value::Double(float::parse_f64(float::format_f(*x).as_bytes())),
        Value::Pointer(_) => Value::Pointer(0),
        Value::Value(i) => Value::Value(Box::new(normalize(i))),
        Value::Info(i) => Value::Info(Box::new(Info {
            value: normalize(&i.value),
            ..(**i).clone()
        })),
        Value::PData(p) => Value::PData(Box::new(PData {
            value: normalize(&p.value),
            ..(**p).clone()
        })),
        Value::Kval(k) => Value::Kval(Box::new(Kval {
            key: k.key.clone(),
            value: Some(Box::new(normalize(
                k.value.as_deref().unwrap_or(&Value::Undef),
            ))),
        })),
        Value::App(a) => Value::App(Box::new(App {
            info: a
                .info
                .iter()
                .map(|i| Info {
                    value: normalize(&i.value),
                    ..i.clone()
                })
                .collect(),
            ..(**a).clone()
        })),
        Value::Query(q) => Value::Query(Box::new(Query {
            keys: q.keys.clone(),
            qualifiers: q
                .qualifiers
                .iter()
                .map(|i| Info {
                    value: normalize(&i.value),
                    ..i.clone()
                })
                .collect(),
        })),
        Value::DataArray(d) => Value::DataArray(Box::new(DataArray {
            elem_type: d.elem_type,
            items: if d.elem_type == DataType::Undef {
                vec![]
            } else {
                d.items.iter().map(normalize).collect()
            },
        })),
        Value::ProcInfo(p) => Value::ProcInfo(Box::new(ProcInfo {
            exit_code: 0,
            ..(**p).clone()
        })),
        Value::Cpuset(c) => Value::Cpuset(Box::new(Cpuset {
            source: hwloc(),
            bitmap: c.bitmap.clone(),
        })),
        Value::Topology(t) => Value::Topology(Box::new(Topology {
            source: hwloc(),
            xml: t.xml.clone(),
        })),
        Value::ProcStats(s) => Value::ProcStats(Box::new(ProcStats {
            percent_cpu: 0.0,
            peak_vsize: 0.0,
            pss: f(s.pss),
            vsize: f(s.vsize),
            rss: f(s.rss),
            ..(**s).clone()
        })),
        Value::NodeStats(n) => Value::NodeStats(Box::new(NodeStats {
            la: f(n.la),
            la5: f(n.la5),
            la15: f(n.la15),
            total_mem: f(n.total_mem),
            free_mem: f(n.free_mem),
            buffers: f(n.buffers),
            cached: f(n.cached),
            swap_cached: f(n.swap_cached),
            swap_total: f(n.swap_total),
            swap_free: f(n.swap_free),
            mapped: f(n.mapped),
            ..(**n).clone()
        })),
        Value::Regex(r) if r.starts_with(b"blob") => {
            // The reference frames 27 + strlen("size=N:") + 1 bytes,
            // whatever the blob holds: padded or cut to that.
            let third = r.split(|&b| b == 0).nth(2).unwrap_or(&[]);
            let mut b = r.clone();
            b.resize(27 + third.len() + 1, 0);
            Value::Regex(b)
        }
        other => other.clone(),
    }
}

fn packed(t: DataType, items: &[Value]) -> Vec<u8> {
    let mut buf = Buffer::new();
    codec::pack_typed(&mut buf, t, items).expect("pack");
    buf.into_bytes()
}

proptest! {
    // PROPTEST_CASES overrides the number of cases (e.g. for long runs).
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(512),
        ..ProptestConfig::default()
    })]

    #[test]
    fn round_trip((t, items) in same_type(value(), 5)) {
        let bytes = packed(t, &items);
        let mut buf = Buffer::from_bytes(bytes);
        let got = codec::unpack(&mut buf, t, items.len()).expect("unpack");
        prop_assert_eq!(buf.remaining(), 0);
        let want: Vec<Value> = items.iter().map(normalize).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn packing_is_a_pure_function_of_the_values((t, items) in same_type(value(), 3)) {
        // Re-packing what was unpacked gives the same bytes.
        let bytes = packed(t, &items);
        let mut buf = Buffer::from_bytes(bytes.clone());
        let got = codec::unpack(&mut buf, t, items.len()).expect("unpack");
        prop_assert_eq!(packed(t, &got), bytes);
    }

    #[test]
    fn every_truncation_is_an_error((t, items) in same_type(value(), 3)) {
        let bytes = packed(t, &items);
        for cut in 0..bytes.len() {
            let mut buf = Buffer::from_bytes(bytes[..cut].to_vec());
            let r = codec::unpack(&mut buf, t, items.len());
            prop_assert!(r.is_err(), "prefix of {} of {} bytes unpacked: {:?}", cut, bytes.len(), r);
        }
    }

    #[test]
    fn corruption_never_panics(
        (t, items) in same_type(value(), 3),
        flips in vec((any::<usize>(), any::<u8>()), 1..6),
        as_type in 0u16..72,
        room in 1usize..8,
    ) {
        let mut bytes = packed(t, &items);
        if bytes.is_empty() { return Ok(()); }
        for (at, x) in flips {
            let n = bytes.len();
            bytes[at % n] ^= x | 1;
        }
        let ty = DataType::from_raw(as_type).unwrap_or(t);
        let mut r = Reader::new(&bytes);
        let _ = codec::unpack::unpack_counted(&mut r, ty, room);
        let mut r = Reader::new(&bytes);
        let _ = codec::unpack::unpack_counted(&mut r, t, room);
    }

    #[test]
    fn random_bytes_never_panic(bytes in vec(any::<u8>(), 0..64), as_type in 0u16..72, room in 0usize..4) {
        if let Some(ty) = DataType::from_raw(as_type) {
            let mut r = Reader::new(&bytes);
            let res = codec::unpack::unpack_counted(&mut r, ty, room);
            prop_assert!(r.pos() <= bytes.len());
            if let Ok(u) = res {
                prop_assert!(u.values.len() <= room);
            }
        }
    }

    #[test]
    fn print_never_panics(v in value(), prefix in proptest::option::of("[ -~]{0,4}")) {
        let _ = pmix::print::print_full(prefix.as_deref().map(str::as_bytes), v.data_type(), &v);
    }
}

#[test]
fn every_type_is_generated_and_round_trips() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strat = value();
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..30_000 {
        let v = strat.new_tree(&mut runner).unwrap().current();
        seen.insert(v.data_type());
    }
    let missing: Vec<DataType> = DataType::ALL
        .iter()
        .copied()
        .filter(|t| *t != DataType::Undef && !seen.contains(t))
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

#[test]
fn deep_nesting_is_bounded() {
    // 10000 nested values: packing is fine, unpacking stops at MAX_DEPTH
    // with an error instead of overflowing the stack.
    let mut v = Value::Int32(1);
    for _ in 0..10_000 {
        v = Value::Value(Box::new(v));
    }
    let mut buf = Buffer::new();
    // Pack iteratively: the tags, then the payload.
    let mut bytes = vec![0x02];
    bytes.resize(1 + 10_000, 21);
    bytes.extend_from_slice(&[9, 2]);
    buf.extend_from_slice(&bytes);
    // Well inside a small thread stack, even unoptimized.
    let r = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || codec::unpack(&mut buf, DataType::Value, 1))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(r, Err(CodecError::TooDeep(codec::MAX_DEPTH)));
    // Nested data arrays and infos take the same path.
    let mut bytes = vec![0x02];
    for _ in 0..200 {
        bytes.extend_from_slice(&[39, 1]); // PMIX_DATA_ARRAY of one ...
    }
    let mut buf = Buffer::from_bytes([vec![0x02], bytes[1..].to_vec()].concat());
    let r = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || codec::unpack(&mut buf, DataType::DataArray, 1))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(r, Err(CodecError::TooDeep(codec::MAX_DEPTH)));
    // Dropping a deep value is the caller's business; avoid it here.
    std::mem::forget(v);
}

#[test]
fn huge_counts_do_not_allocate() {
    // A count of i32::MAX strings followed by nothing.
    let mut buf = Buffer::from_bytes(vec![0xfe, 0xff, 0xff, 0xff, 0x0f]);
    assert_eq!(
        codec::unpack(&mut buf, DataType::String, usize::MAX),
        Err(CodecError::ReadPastEnd)
    );
    // A data array claiming 2^62 elements.
    let mut b = vec![0x02, 12];
    pmix::codec::varint::put(&mut b, 1 << 62);
    let mut buf = Buffer::from_bytes(b);
    assert!(codec::unpack(&mut buf, DataType::DataArray, 1).is_err());
    // A byte object claiming u64::MAX bytes.
    let mut buf = Buffer::from_bytes([vec![0x02], vec![0xff; 9]].concat());
    assert_eq!(
        codec::unpack(&mut buf, DataType::ByteObject, 1),
        Err(CodecError::ReadPastEnd)
    );
    // Pointers: one sentinel byte cannot stand for millions of them.
    let mut buf = Buffer::from_bytes(vec![0xfe, 0xff, 0xff, 0xff, 0x0f, 1]);
    assert!(codec::unpack(&mut buf, DataType::Pointer, usize::MAX).is_err());
}

/// Fully described (`codec::Format`, OpenPMIx's `PMIX_BFROP_BUFFER_FULLY_DESC`)
/// against non-described: the same bytes with a `PMIX_INT32` tag before the
/// count and the type's tag before the items, the same values back, and
/// every truncation an error; a v4 peer never gets a type only v41 knows.
mod described {
    use super::*;
    use pmix::codec::{wire, Format, Module};

    fn fmt(module: Module, described: bool) -> Format {
        Format { module, described }
    }

    /// The values back, compared through their debug text (a NaN float
    /// is then equal to itself).
    fn text(v: &[Value]) -> String {
        format!("{v:?}")
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 128,
            ..ProptestConfig::default()
        })]

        #[test]
        fn described_is_non_described_with_two_tags((ty, items) in same_type(value(), 4)) {
            let mut non = Buffer::new();
            let plain = fmt(Module::V41, false).pack(&mut non, ty, &items);
            let mut desc = Buffer::new();
            let tagged = fmt(Module::V41, true).pack(&mut desc, ty, &items);
            prop_assert_eq!(plain.is_ok(), tagged.is_ok());
            if plain.is_err() {
                return Ok(());
            }
            // The non-described bytes: the count, then the items.
            let count_len = {
                let mut r = Reader::new(non.as_bytes());
                wire::get_i32(&mut r).unwrap();
                r.pos()
            };
            let mut want = Vec::new();
            wire::put_type(&mut want, DataType::Int32.raw());
            want.extend_from_slice(&non.as_bytes()[..count_len]);
            wire::put_type(&mut want, ty.raw());
            want.extend_from_slice(&non.as_bytes()[count_len..]);
            prop_assert_eq!(desc.as_bytes(), &want[..]);

            let back_plain = fmt(Module::V41, false).unpack(&mut non, ty, items.len()).unwrap();
            let back_desc = fmt(Module::V41, true).unpack(&mut desc, ty, items.len()).unwrap();
            prop_assert_eq!(text(&back_desc), text(&back_plain));
            prop_assert_eq!(desc.remaining(), 0);

            for n in 0..want.len() {
                let mut cut = Buffer::from_bytes(want[..n].to_vec());
                prop_assert!(fmt(Module::V41, true).unpack(&mut cut, ty, items.len()).is_err());
            }
        }

        #[test]
        fn v4_packs_what_it_knows_as_v41_does_and_refuses_the_rest(v in value()) {
            for described in [false, true] {
                let mut a = Buffer::new();
                let mut b = Buffer::new();
                let v41 = fmt(Module::V41, described).pack_value(&mut a, &v);
                let v4 = fmt(Module::V4, described).pack_value(&mut b, &v);
                match (v41, v4) {
                    (Ok(()), Ok(())) => prop_assert_eq!(a.as_bytes(), b.as_bytes()),
                    (_, Err(CodecError::NotInModule { module, ty })) => {
                        prop_assert_eq!(module, "v4");
                        prop_assert!(ty > 59 && !Module::V4.knows(ty));
                        prop_assert!(b.is_empty());
                    }
                    (Err(_), Err(_)) => {}
                    (a, b) => prop_assert!(false, "v41 {:?} but v4 {:?}", a, b),
                }
            }
        }

        #[test]
        fn random_bytes_never_panic_described_unpack(
            bytes in vec(any::<u8>(), 0..64),
            t in 1u16..=69,
        ) {
            if let Some(ty) = DataType::from_raw(t) {
                for module in [Module::V4, Module::V41] {
                    let mut buf = Buffer::from_bytes(bytes.clone());
                    let _ = fmt(module, true).unpack(&mut buf, ty, 8);
                }
            }
        }
    }
}

/// bfrops v3 (`Module::V3`, fixed-width integers): every value the module
/// knows comes back as the v41 round trip gives it, in both buffer types,
/// with every truncation an error; a type v3 lacks is refused with
/// nothing written; random bytes never panic; and packing as v3 leaves the
/// default (varint) encoding in force afterwards.
mod v3 {
    use super::*;
    use pmix::codec::{Format, Module};

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 256,
            ..ProptestConfig::default()
        })]

        #[test]
        fn v3_round_trips_what_it_knows((ty, items) in same_type(value(), 4)) {
            for described in [false, true] {
                let f = Format { module: Module::V3, described };
                let mut b = Buffer::new();
                match f.pack(&mut b, ty, &items) {
                    Err(CodecError::NotInModule { module, ty }) => {
                        prop_assert_eq!(module, "v3");
                        prop_assert!(!Module::V3.knows(ty));
                        prop_assert!(b.is_empty());
                        continue;
                    }
                    Err(e) => {
                        // Whatever v41 refuses, v3 refuses too.
                        let v41 = Format { module: Module::V41, described };
                        prop_assert!(v41.pack(&mut Buffer::new(), ty, &items).is_err(), "{e:?}");
                        continue;
                    }
                    Ok(()) => {}
                }
                let bytes = b.as_bytes().to_vec();
                let back = f.unpack(&mut b, ty, items.len()).expect("unpack v3");
                prop_assert_eq!(b.remaining(), 0);
                let want: Vec<Value> = items.iter().map(normalize).collect();
                prop_assert_eq!(format!("{back:?}"), format!("{want:?}"));
                for n in 0..bytes.len() {
                    let mut cut = Buffer::from_bytes(bytes[..n].to_vec());
                    prop_assert!(f.unpack(&mut cut, ty, items.len()).is_err());
                }
            }
            // The default encoding is untouched by the v3 calls above.
            if let Ok(()) = codec::pack_typed(&mut Buffer::new(), ty, &items) {
                let mut a = Buffer::new();
                Format::DATA_PACK.pack(&mut a, ty, &items).unwrap();
                prop_assert_eq!(a.into_bytes(), packed(ty, &items));
            }
        }

        #[test]
        fn random_bytes_never_panic_v3_unpack(
            bytes in vec(any::<u8>(), 0..64),
            t in 1u16..=46,
        ) {
            if let Some(ty) = DataType::from_raw(t) {
                for described in [false, true] {
                    let mut buf = Buffer::from_bytes(bytes.clone());
                    let _ = Format { module: Module::V3, described }.unpack(&mut buf, ty, 8);
                }
            }
        }
    }
}
