//! Unit tests of the conversions: round trips of every value form and
//! the reference's ownership rules.

use super::*;
use std::ffi::CString;
use std::ptr::null_mut;

use pmix_core::value::{
    App, Coord, Cpuset, DataArray, DeviceDistance, DiskStats, Endpoint, Envar, Geometry, NetStats,
    NodeStats, ProcInfo, ProcStats, Query, RegAttr, Timeval,
};
use pmix_core::{DataType, Info, Key, Nspace, Proc, Rank, Status, Value};

use crate::boundary::malloc_cstr;
use crate::sys::hwloc;
use crate::sys::*;

fn cs(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn sample_values() -> Vec<Value> {
    let proc = Proc::new(Nspace::new("ns").unwrap(), Rank(3));
    let info = Info::new(Key::new("pmix.k").unwrap(), Value::Uint32(7));
    vec![
        Value::Bool(true),
        Value::Byte(9),
        Value::String(Some(cs("hello"))),
        Value::String(None),
        Value::Size(12),
        Value::Pid(-4),
        Value::Int(-5),
        Value::Int8(-6),
        Value::Int16(-7),
        Value::Int32(-8),
        Value::Int64(-9),
        Value::Uint(10),
        Value::Uint8(11),
        Value::Uint16(12),
        Value::Uint32(13),
        Value::Uint64(14),
        Value::Float(1.5),
        Value::Double(2.25),
        Value::Timeval(Timeval { sec: 3, usec: 4 }),
        Value::Time(99),
        Value::Status(-27),
        Value::Proc(proc.clone()),
        Value::ByteObject(vec![1, 2, 0, 3]),
        Value::Persist(2),
        Value::Pointer(0x1234),
        Value::Scope(1),
        Value::DataRange(3),
        Value::Command(4),
        Value::InfoDirectives(0x11),
        Value::DataType(3),
        Value::ProcState(5),
        Value::ProcInfo(Box::new(ProcInfo {
            proc: proc.clone(),
            hostname: Some(cs("host")),
            executable_name: None,
            pid: 42,
            exit_code: 1,
            state: 20,
        })),
        Value::DataArray(Box::new(DataArray {
            elem_type: DataType::Info,
            items: vec![Value::Info(Box::new(info.clone()))],
        })),
        Value::ProcRank(17),
        Value::CompressedString(vec![5, 6]),
        Value::AllocDirective(2),
        Value::IofChannel(3),
        Value::Envar(Envar {
            envar: Some(cs("PATH")),
            value: Some(cs("/bin")),
            separator: b':',
        }),
        Value::Coord(Box::new(Coord {
            view: 1,
            coord: vec![1, 2, 3],
        })),
        Value::RegAttr(Box::new(RegAttr {
            name: Some(cs("PMIX_RANK")),
            string: Key::new("pmix.rank").unwrap(),
            data_type: 40,
            description: vec![cs("a"), cs("b")],
        })),
        Value::Regex(b"pmix[a]\0".to_vec()),
        Value::JobState(3),
        Value::LinkState(2),
        Value::Cpuset(Box::new(Cpuset {
            source: Some(cs("hwloc")),
            bitmap: Some(cs("0-3,8")),
        })),
        Value::Geometry(Box::new(Geometry {
            fabric: 2,
            uuid: Some(cs("u")),
            osname: None,
            coordinates: vec![Coord {
                view: 2,
                coord: vec![4],
            }],
        })),
        Value::DeviceDist(Box::new(DeviceDistance {
            uuid: None,
            osname: Some(cs("eth0")),
            dev_type: 4,
            mindist: 1,
            maxdist: 9,
        })),
        Value::Endpoint(Box::new(Endpoint {
            uuid: Some(cs("x")),
            osname: None,
            endpt: vec![7, 7],
        })),
        Value::DevType(8),
        Value::LocType(0x40),
        Value::CompressedByteObject(vec![9]),
        Value::ProcNspace(Nspace::new("nspace-x").unwrap()),
        Value::ProcStats(Box::new(ProcStats {
            node: Some(cs("n")),
            cmd: Some(cs("c")),
            proc,
            pid: 1,
            state: b'R',
            ..Default::default()
        })),
        Value::DiskStats(Box::new(DiskStats {
            disk: Some(cs("sda")),
            num_reads_completed: 5,
            ..Default::default()
        })),
        Value::NetStats(Box::new(NetStats {
            net_interface: Some(cs("lo")),
            num_send_errs: 2,
            ..Default::default()
        })),
        Value::NodeStats(Box::new(NodeStats {
            node: Some(cs("node")),
            la: 0.5,
            diskstats: vec![DiskStats::default()],
            netstats: vec![NetStats::default(), NetStats::default()],
            ..Default::default()
        })),
        Value::DataBuffer(vec![1, 2, 3]),
        Value::StorMedium(1),
        Value::StorAccess(2),
        Value::StorPersist(4),
        Value::StorAccessType(3),
        Value::Value(Box::new(Value::Uint8(1))),
        Value::Info(Box::new(info.clone())),
        Value::App(Box::new(App {
            cmd: Some(cs("hostname")),
            argv: vec![cs("hostname"), cs("-f")],
            env: vec![cs("A=1")],
            cwd: None,
            maxprocs: 2,
            info: vec![info.clone()],
        })),
        Value::PData(Box::default()),
        Value::Query(Box::new(Query {
            keys: vec![cs("k1")],
            qualifiers: vec![info],
        })),
    ]
}

fn in_value_form(v: &Value) -> bool {
    !matches!(
        v,
        Value::Value(_)
            | Value::Info(_)
            | Value::App(_)
            | Value::PData(_)
            | Value::Query(_)
            | Value::Kval(_)
    )
}

#[test]
fn items_round_trip() {
    for v in sample_values() {
        let t = v.data_type();
        let arr = write_items(t, &[v.clone(), v.clone()]).unwrap();
        // SAFETY: arr holds two items of type t written above.
        let back = unsafe { read_items(t, arr, 2) }.unwrap();
        // SAFETY: as above.
        unsafe { free_items(t, arr, 2) };
        assert_eq!(back, vec![v.clone(), v], "{t:?}");
    }
}

#[test]
fn values_round_trip() {
    for v in sample_values().into_iter().filter(in_value_form) {
        let mut c = pmix_value_t::default();
        // SAFETY: c is a writable value.
        unsafe { value_write(&v, &mut c) }.unwrap();
        assert_eq!(c.type_, v.data_type().raw());
        // SAFETY: c was written above.
        let back = unsafe { value_from_c(&c) }.unwrap();
        // SAFETY: as above.
        unsafe { value_destruct(&mut c) };
        assert_eq!(c.type_, PMIX_UNDEF);
        assert_eq!(back, v);
    }
}

#[test]
fn refused_in_value_form() {
    for v in sample_values().into_iter().filter(|v| !in_value_form(v)) {
        let mut c = pmix_value_t::default();
        // SAFETY: c is a writable value.
        let r = unsafe { value_write(&v, &mut c) };
        assert_eq!(r, Err(Status::ERR_NOT_SUPPORTED));
        assert_eq!(c.type_, PMIX_UNDEF);
    }
}

#[test]
fn mismatched_item_is_refused() {
    let mut slot = 0u32;
    // SAFETY: slot is a writable 4-byte item.
    let r = unsafe {
        write_item(
            DataType::Uint32,
            &Value::Int32(1),
            (&mut slot as *mut u32).cast(),
        )
    };
    assert_eq!(r, Err(Status::ERR_TYPE_MISMATCH));
    // SAFETY: a NULL array with no items is valid.
    let r = unsafe { read_items_raw(1000, null_mut(), 0) };
    assert_eq!(r, Err(Status::ERR_UNKNOWN_DATA_TYPE));
    assert_eq!(
        write_items(DataType::Kval, &[]),
        Err(Status::ERR_NOT_SUPPORTED)
    );
}

#[test]
fn topology_survives_xml() {
    let mut topo: hwloc::hwloc_topology_t = null_mut();
    // SAFETY: creates and loads this machine's topology.
    unsafe {
        assert_eq!(hwloc::hwloc_topology_init(&mut topo), 0);
        assert_eq!(hwloc::hwloc_topology_load(topo), 0);
    }
    let mut c = pmix_topology_t {
        source: malloc_cstr(&cs("hwloc")).unwrap(),
        topology: topo,
    };
    // SAFETY: c is a valid hwloc topology.
    let t = unsafe { topology_from_c(&c) }.unwrap();
    assert!(t.xml.as_ref().unwrap().to_bytes().starts_with(b"<?xml"));
    let v = Value::Topology(Box::new(t));
    let mut cv = pmix_value_t::default();
    // SAFETY: cv is writable; then read back and released.
    unsafe {
        value_write(&v, &mut cv).unwrap();
        let back = value_from_c(&cv).unwrap();
        value_destruct(&mut cv);
        // A re-imported topology exports the same XML.
        let again = Value::Topology(Box::new(match back {
            Value::Topology(t) => *t,
            _ => unreachable!(),
        }));
        value_write(&again, &mut cv).unwrap();
        assert_eq!(value_from_c(&cv).unwrap(), again);
        value_destruct(&mut cv);
        topology_destruct(&mut c);
    }
}
