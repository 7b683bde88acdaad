//! Property tests: every `Value` variant survives core -> C -> core, in
//! item form (arrays) and in value form (`pmix_value_t`), including data
//! arrays nested three deep (arrays of infos whose values are arrays, and
//! arrays of arrays), apps, queries and statistics. Every C object written
//! is released with the destructors, so leaks and double frees surface
//! under sanitizers too.

use pmix_core::testing::ValueGen;
use proptest::prelude::*;

use super::*;
use std::ffi::CString;

use pmix_core::value::{Cpuset, DataArray, Topology};
use pmix_core::{DataType, Info, Key, Status, Value};

use crate::sys::*;

/// Values as the C forms hold them: regexes as strings, canonical
/// cpusets and the topology of this library; persistent infos are never
/// released by design, so not generated.
fn gen() -> ValueGen {
    ValueGen {
        bytes: proptest::collection::vec(any::<u8>(), 0..24).boxed(),
        regex: "pmix\\[[a-z0-9:,-]{0,10}\\]"
            .prop_map(|s| CString::new(s).unwrap().into_bytes_with_nul())
            .boxed(),
        cpuset: proptest::option::of(cpu_list())
            .prop_map(|bitmap| Cpuset {
                source: Some(c"hwloc".to_owned()),
                bitmap,
            })
            .boxed(),
        topology: Just(Topology {
            source: Some(c"hwloc".to_owned()),
            xml: None,
        })
        .boxed(),
        info_flags: any::<u32>().prop_map(|f| f & !0x10).boxed(),
        ..ValueGen::new()
    }
}

fn key() -> impl Strategy<Value = Key> {
    gen().key
}

/// A canonical hwloc list string (`0-2,5`) for a set of cpu indices.
fn cpu_list() -> impl Strategy<Value = CString> {
    proptest::collection::btree_set(0u32..70, 0..10).prop_map(|set| {
        let v: Vec<u32> = set.into_iter().collect();
        let mut parts = Vec::new();
        let mut i = 0;
        while i < v.len() {
            let mut j = i;
            while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
                j += 1;
            }
            parts.push(if i == j {
                v[i].to_string()
            } else {
                format!("{}-{}", v[i], v[j])
            });
            i = j + 1;
        }
        CString::new(parts.join(",")).unwrap()
    })
}

/// Item types (every type with a C item form).
fn item_types() -> Vec<DataType> {
    DataType::ALL
        .iter()
        .copied()
        .filter(|t| !matches!(t, DataType::Undef | DataType::Kval | DataType::Topo))
        .collect()
}

/// Types that have a member in a `pmix_value_t`.
fn in_value_form(t: DataType) -> bool {
    !matches!(
        t,
        DataType::Value
            | DataType::App
            | DataType::Info
            | DataType::PData
            | DataType::Query
            | DataType::Kval
            | DataType::Topo
    )
}

/// A value that fits in a `pmix_value_t`, nesting at most `depth` more
/// levels.
fn value_form(depth: u32) -> BoxedStrategy<Value> {
    let types: Vec<DataType> = item_types()
        .into_iter()
        .filter(|t| in_value_form(*t))
        .collect();
    proptest::sample::select(types)
        .prop_flat_map(move |t| value_of(t, depth))
        .boxed()
}

fn info(depth: u32) -> BoxedStrategy<Info> {
    gen().info(value_form(depth))
}

/// A value of type `t`, nesting at most `depth` more levels of arrays.
fn value_of(t: DataType, depth: u32) -> BoxedStrategy<Value> {
    let d = depth.saturating_sub(1);
    let g = gen();
    match t {
        DataType::DataArray => data_array(d)
            .prop_map(|a| Value::DataArray(Box::new(a)))
            .boxed(),
        DataType::Kval => Just(Value::Undef).boxed(),
        t if ValueGen::nests(t) => g.nested(t, value_form(d)).unwrap(),
        t => g.scalar(t),
    }
}

/// A data array; at depth 0 its elements cannot nest further arrays.
fn data_array(depth: u32) -> BoxedStrategy<DataArray> {
    let types: Vec<DataType> = item_types()
        .into_iter()
        .filter(|t| {
            depth > 0
                || !matches!(
                    t,
                    DataType::DataArray
                        | DataType::Value
                        | DataType::Info
                        | DataType::PData
                        | DataType::App
                        | DataType::Query
                )
        })
        .collect();
    proptest::sample::select(types)
        .prop_flat_map(move |t| {
            proptest::collection::vec(value_of(t, depth), 0..4).prop_map(move |items| DataArray {
                elem_type: t,
                items,
            })
        })
        .boxed()
}

/// Arrays nested exactly three deep: an array of infos whose value is an
/// array of arrays of scalars.
fn three_deep() -> impl Strategy<Value = Value> {
    let inner = proptest::collection::vec(any::<u32>(), 0..4).prop_map(|v| {
        Value::DataArray(Box::new(DataArray {
            elem_type: DataType::Uint32,
            items: v.into_iter().map(Value::Uint32).collect(),
        }))
    });
    let middle = proptest::collection::vec(inner, 0..3).prop_map(|items| DataArray {
        elem_type: DataType::DataArray,
        items,
    });
    (key(), middle).prop_map(|(k, m)| {
        Value::DataArray(Box::new(DataArray {
            elem_type: DataType::Info,
            items: vec![Value::Info(Box::new(Info::new(
                k,
                Value::DataArray(Box::new(m)),
            )))],
        }))
    })
}

fn value_round_trip(v: &Value) {
    let mut c = pmix_value_t::default();
    // SAFETY: c is a writable value.
    unsafe { value_write(v, &mut c) }.expect("write");
    // SAFETY: c was written above.
    let back = unsafe { value_from_c(&c) }.expect("read");
    // SAFETY: as above; released once.
    unsafe { value_destruct(&mut c) };
    assert_eq!(c.type_, PMIX_UNDEF);
    assert_eq!(&back, v);
}

fn items_round_trip(t: DataType, items: &[Value]) {
    let arr = write_items(t, items).expect("write items");
    // SAFETY: arr holds items.len() items of type t.
    let back = unsafe { read_items(t, arr, items.len()) }.expect("read items");
    // SAFETY: as above; released once.
    unsafe { free_items(t, arr, items.len()) };
    assert_eq!(back, items);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_value_survives_a_pmix_value_t(v in value_form(3)) {
        value_round_trip(&v);
    }

    #[test]
    fn every_item_type_survives_a_c_array(
        (t, items) in proptest::sample::select(item_types())
            .prop_flat_map(|t| (Just(t), proptest::collection::vec(value_of(t, 2), 0..4)))
    ) {
        items_round_trip(t, &items);
    }

    #[test]
    fn nested_arrays_three_deep(v in three_deep()) {
        value_round_trip(&v);
        if let Value::DataArray(d) = &v {
            items_round_trip(d.elem_type, &d.items);
        }
    }

    #[test]
    fn infos_survive(i in info(2)) {
        let mut c = pmix_info_t::default();
        // SAFETY: c is writable; read back and released once.
        unsafe {
            info_write(&i, &mut c).expect("write");
            let back = info_from_c(&c).expect("read");
            info_destruct(&mut c);
            prop_assert_eq!(back, i);
        }
    }
}

#[test]
fn undef_and_kval_have_no_item_form() {
    assert_eq!(item_size(DataType::Undef), None);
    assert_eq!(item_size(DataType::Kval), None);
    assert_eq!(
        write_items(DataType::Undef, &[Value::Undef]),
        Err(Status::ERR_UNKNOWN_DATA_TYPE)
    );
}
