//! Unit tests of the get path's caches and qualifiers.

use pmix_core::client::{GetOptions, RealmQualifier, ValueStorage};
use pmix_core::{Info, Value};

use crate::convert;
use crate::sys::pmix_info_t;

use pmix_core::{keys, Key};

/// C infos that release what `info_write` allocated when dropped (a
/// string value's copy: LeakSanitizer found it leaked).
struct CInfos(Vec<pmix_info_t>);

impl std::ops::Deref for CInfos {
    type Target = Vec<pmix_info_t>;
    fn deref(&self) -> &Vec<pmix_info_t> {
        &self.0
    }
}

impl Drop for CInfos {
    fn drop(&mut self) {
        for i in &mut self.0 {
            // SAFETY: each info was written by info_write and is
            // released once, here.
            unsafe { convert::info_destruct(i) };
        }
    }
}

fn c_infos(infos: &[Info]) -> CInfos {
    CInfos(
        infos
            .iter()
            .map(|i| {
                // SAFETY: an all-zero info is valid; info_write fills it.
                let mut o: pmix_info_t = unsafe { std::mem::zeroed() };
                // SAFETY: o is a writable info.
                unsafe { convert::info_write(i, &mut o) }.unwrap();
                o
            })
            .collect(),
    )
}

/// The one qualifier parser reads C infos in place as it reads the
/// converted infos.
#[test]
fn c_infos_parse_as_converted_infos() {
    let k = |s: &str| Key::new(s).unwrap();
    let t = |s: &str| Info::new(k(s), Value::Bool(true));
    let cases: Vec<Vec<Info>> = vec![
        vec![],
        vec![t(keys::GET_POINTER_VALUES)],
        vec![t(keys::GET_STATIC_VALUES), t(keys::GET_POINTER_VALUES)],
        vec![Info::new(k(keys::GET_POINTER_VALUES), Value::Bool(false))],
        vec![t(keys::GET_STATIC_VALUES), t(keys::OPTIONAL)],
        vec![Info::new(k(keys::GET_POINTER_VALUES), Value::Undef)],
        vec![t(keys::SESSION_INFO)],
        vec![
            t(keys::NODE_INFO),
            Info::new(k(keys::NODEID), Value::Uint32(3)),
        ],
        vec![
            Info::new(k(keys::NODEID), Value::Int64(-1)),
            t(keys::NODE_INFO),
        ],
        vec![
            t(keys::APP_INFO),
            Info::new(k(keys::APPNUM), Value::Uint64(u64::MAX)),
        ],
        vec![t(keys::APP_INFO), Info::new(k(keys::APPNUM), Value::Int(2))],
        vec![t(keys::APP_INFO), t(keys::NODE_INFO), t(keys::TIMEOUT)],
        vec![Info::new(k("pmix.get.pntrsx"), Value::Bool(true))],
        vec![
            t(keys::NODE_INFO),
            Info::new(k(keys::HOSTNAME), Value::string("n1")),
        ],
        vec![
            Info::new(k(keys::TIMEOUT), Value::Int32(3)),
            t(keys::IMMEDIATE),
        ],
    ];
    for infos in cases {
        let c = c_infos(&infos);
        let from_c = GetOptions::parse(&c[..]);
        let want = GetOptions::parse(&infos);
        assert_eq!(from_c, want, "{infos:?}");
    }
    // What the former hot-path reader gave for these cases.
    let storage = |i: &[Info]| GetOptions::parse(&c_infos(i)[..]).storage;
    assert_eq!(storage(&[]), ValueStorage::Copy);
    assert_eq!(
        storage(&[t(keys::GET_STATIC_VALUES), t(keys::GET_POINTER_VALUES)]),
        ValueStorage::Pointer
    );
    assert_eq!(
        storage(&[Info::new(k(keys::GET_POINTER_VALUES), Value::Undef)]),
        ValueStorage::Pointer
    );
    assert_eq!(
        storage(&[Info::new(k("pmix.get.pntrsx"), Value::Bool(true))]),
        ValueStorage::Copy
    );
    let node = GetOptions::parse(
        &c_infos(&[
            Info::new(k(keys::NODEID), Value::Int64(-1)),
            t(keys::NODE_INFO),
        ])[..],
    );
    assert_eq!(
        node.realm,
        RealmQualifier::Node {
            id: None,
            hostname: None
        }
    );
    let app = GetOptions::parse(
        &c_infos(&[
            t(keys::APP_INFO),
            Info::new(k(keys::APPNUM), Value::Uint64(u64::MAX)),
        ])[..],
    );
    assert_eq!(app.realm, RealmQualifier::App(None));
}
