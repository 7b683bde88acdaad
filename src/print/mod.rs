//! The text forms of PMIx data, byte for byte as OpenPMIx 4.2 writes them:
//! `PMIx_Data_print` ([`print_full`]), `PMIx_Value_string` and
//! `PMIx_Info_string` ([`value_with`], [`info_with`]).
//!
//! One per-type printer serves all three entry points, as one set of
//! printers serves them in the reference. Each line starts with the
//! caller's prefix (a `NULL` prefix prints as one space); text is built as
//! bytes, because strings from C need not be UTF-8. What the entry points
//! do differently is said by a [`Style`]:
//! * the data type names (`PMIx_Data_type_string` depends on whether the
//!   library is initialized; `PMIx_Data_print` here always answers as an
//!   initialized library, since it needs no initialization);
//! * hwloc: a topology prints its object tree through [`Hwloc`];
//!   `PMIx_Data_print` does not print topologies
//!   (`PMIX_ERR_NOT_SUPPORTED`: the reference walks its hwloc tree, a
//!   [`Value`] holds XML);
//! * a cpuset with a non-empty bitmap: `PMIx_Value_string` fails as the
//!   reference does (it takes the bitmap's length for an error code), while
//!   `PMIx_Data_print` prints the bitmap.
//!
//! Other deliberate differences from the reference: where it prints the
//! *address* of a datum (a `PMIX_DEVTYPE` value, and `PMIX_DATA_RANGE` at
//! the top level of `PMIx_Data_print`), the datum is printed; `PMIX_POINTER`
//! prints the pointer the value holds.

use std::ffi::CStr;

use crate::codec::float::format_f;
use crate::value::{Cpuset, DataArray, OptString, PData, Query, Topology};
use crate::{strings, DataType, Info, Status, Value};

/// Concatenates byte strings (anything that is `AsRef<[u8]>`: `&[u8]`,
/// `&str`, `String`, `Vec<u8>`, byte arrays).
macro_rules! cat {
    ($($part:expr),* $(,)?) => {{
        let mut out: Vec<u8> = Vec::new();
        $(out.extend_from_slice(AsRef::<[u8]>::as_ref(&$part));)*
        out
    }};
}

mod structs;
mod text;

use structs::{
    coord_line, devdist, dkstats, endpoint, envar, geometry, ndstats, netstats, proc_info, pstats,
    regattr,
};
use text::{
    attribute_name, cs, ctime, line, locality, proc_line, rank_text, storage_access,
    storage_access_type, storage_medium, storage_persistence, tv,
};
pub use text::{no_proc_name, proc_name};

/// What printing (and comparison, which compares topologies by their
/// printed tree) needs from hwloc.
pub trait Hwloc {
    /// The object tree of the topology whose XML export is `xml`, as the
    /// reference prints it, or `None` if it cannot.
    fn topology_tree(&self, xml: &CStr) -> Option<String>;
}

/// No hwloc: topologies neither print nor compare.
pub struct NoHwloc;

impl Hwloc for NoHwloc {
    fn topology_tree(&self, _: &CStr) -> Option<String> {
        None
    }
}

/// How an entry point prints where the entry points differ.
#[derive(Clone, Copy)]
pub struct Style<'a> {
    /// Prints topologies (or, with [`NoHwloc`], fails on them).
    pub hwloc: &'a dyn Hwloc,
    /// `PMIx_Data_type_string` as this entry point answers it.
    pub type_name: fn(u16) -> &'static CStr,
    /// A cpuset with a non-empty bitmap prints it (instead of failing as
    /// the reference does).
    pub cpuset_bitmap: bool,
}

impl<'a> Style<'a> {
    /// `PMIx_Value_string` and `PMIx_Info_string`: type names as the
    /// library's state has them, cpusets as the reference prints them.
    pub fn value_string(hwloc: &'a dyn Hwloc) -> Self {
        Style {
            hwloc,
            type_name: strings::data_type_name,
            cpuset_bitmap: false,
        }
    }

    /// The payload the reference prints for a type it does not print
    /// (inside a value, or as the elements of a data array).
    pub fn unprintable(&self, t: u16) -> Vec<u8> {
        cat!(
            " Data type: ",
            self.type_text(t),
            format!("({t})\tValue: UNPRINTABLE")
        )
    }

    fn type_text(&self, t: u16) -> &'static [u8] {
        (self.type_name)(t).to_bytes()
    }
}

/// `PMIx_Data_print`: type names of an initialized library (no
/// initialization is needed), no topologies, cpusets with their bitmap.
pub const DATA_PRINT: Style<'static> = Style {
    hwloc: &NoHwloc,
    type_name: strings::data_type_string_initialized,
    cpuset_bitmap: true,
};

/// The result of printing: the text (if any is produced) and the status the
/// reference returns with it (it can return an error and still produce
/// text, or succeed and produce none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Printed {
    pub text: Option<Vec<u8>>,
    pub status: Status,
}

impl Printed {
    fn ok(text: Vec<u8>) -> Self {
        Printed {
            text: Some(text),
            status: Status::SUCCESS,
        }
    }

    fn err(status: Status) -> Self {
        Printed { text: None, status }
    }

    /// The text, if printing succeeded.
    fn succeeded(self) -> Option<Vec<u8>> {
        let ok = self.status.is_success();
        self.text.filter(|_| ok)
    }
}

fn lossy(b: Vec<u8>) -> String {
    String::from_utf8_lossy(&b).into_owned()
}

// ---------------------------------------------------------------------------
// Entry points

/// Prints `v`, declared as type `ty`, as `PMIx_Data_print(&out, prefix,
/// &v, ty)` does; the text as UTF-8 (lossy) for Rust callers.
pub fn print_type(prefix: Option<&str>, ty: DataType, v: &Value) -> Result<Option<String>, Status> {
    let p = print_full(prefix.map(str::as_bytes), ty, v);
    if !p.status.is_success() {
        return Err(p.status);
    }
    Ok(p.text.map(lossy))
}

/// Prints `v`, declared as type `ty`, as `PMIx_Data_print` does: text and
/// status.
pub fn print_full(prefix: Option<&[u8]>, ty: DataType, v: &Value) -> Printed {
    if v.data_type() != ty {
        return Printed::err(Status::ERR_TYPE_MISMATCH);
    }
    datum(prefix.unwrap_or(b" "), v, &DATA_PRINT)
}

/// One item of its type as the printer the reference registers for that
/// type writes it, in the style of `PMIx_Value_string`; `None` where the
/// reference returns no string (`PMIX_APP`, `PMIX_KVAL` and failures).
pub fn item(prefix: Option<&str>, v: &Value, hw: &dyn Hwloc) -> Option<String> {
    let p = prefix.map_or(&b" "[..], str::as_bytes);
    datum(p, v, &Style::value_string(hw)).succeeded().map(lossy)
}

/// A value as the reference's `PMIX_VALUE` printer writes it (what
/// `PMIx_Value_string` returns): `"<prefix>PMIX_VALUE: <payload>"`, or
/// `None` where the reference returns no string.
pub fn value_with(prefix: Option<&[u8]>, v: &Value, hw: &dyn Hwloc) -> Option<Vec<u8>> {
    value(prefix.unwrap_or(b" "), v, &Style::value_string(hw)).succeeded()
}

/// An info as the reference's `PMIX_INFO` printer writes it (what
/// `PMIx_Info_string` returns).
pub fn info_with(prefix: Option<&[u8]>, i: &Info, hw: &dyn Hwloc) -> Vec<u8> {
    info(prefix.unwrap_or(b" "), i, &Style::value_string(hw))
}

/// `PMIx_Value_string`, as UTF-8 (lossy).
pub fn value_string(v: &Value, hw: &dyn Hwloc) -> Option<String> {
    value_with(None, v, hw).map(lossy)
}

/// `PMIx_Info_string`, as UTF-8 (lossy).
pub fn info_string(i: &Info, hw: &dyn Hwloc) -> String {
    lossy(info_with(None, i, hw))
}

// ---------------------------------------------------------------------------
// Layouts shared with callers that print part of a datum themselves

/// `{prefix}PMIX_VALUE: {payload}`: a value around its payload's text.
pub fn value_line(prefix: Option<&[u8]>, payload: &[u8]) -> Vec<u8> {
    cat!(prefix.unwrap_or(b" "), "PMIX_VALUE: ", payload)
}

/// `{prefix}Data type: PMIX_TOPO\tValue: {tree}`: a topology whose object
/// tree is `tree`.
pub fn topology_line(prefix: Option<&[u8]>, tree: &str) -> Vec<u8> {
    line(prefix.unwrap_or(b" "), "PMIX_TOPO", tree)
}

/// An info around its value's text (`None`: the value did not print): the
/// key by its attribute name when it has one, the directives, the value.
pub fn info_lines(prefix: Option<&[u8]>, key: &[u8], flags: u32, value: Option<&[u8]>) -> Vec<u8> {
    let p = prefix.unwrap_or(b" ");
    cat!(
        p,
        "KEY: ",
        attribute_name(key),
        "\n",
        p,
        "\t",
        line(
            p,
            "PMIX_INFO_DIRECTIVES",
            strings::info_directives_string(flags)
        ),
        "\n",
        p,
        "\t",
        value.unwrap_or(b"(null)"),
    )
}

// ---------------------------------------------------------------------------
// Containers

/// Any datum, as the reference's printer for its type writes it, with the
/// (resolved) prefix `p`.
fn datum(p: &[u8], v: &Value, s: &Style) -> Printed {
    let t = |name: &str, value: &dyn AsRef<[u8]>| line(p, name, value.as_ref());
    Printed::ok(match v {
        // Not registered for printing in the reference.
        Value::Undef => return Printed::err(Status::ERR_UNKNOWN_DATA_TYPE),
        // Registered, but print nothing.
        Value::App(_) | Value::Kval(_) => {
            return Printed {
                text: None,
                status: Status::SUCCESS,
            }
        }
        Value::Value(inner) => return value(p, inner, s),
        Value::DataArray(d) => return data_array(p, d, s),
        Value::Cpuset(c) => return cpuset(p, c, s),
        Value::Topology(x) => return topology(p, x, s),
        Value::Info(i) => info(p, i, s),
        Value::PData(d) => pdata(p, d, s),
        Value::Query(q) => query(p, q, s),
        Value::DataType(x) => t("PMIX_DATA_TYPE", &s.type_text(*x)),
        Value::Bool(b) => t("PMIX_BOOL", &if *b { "TRUE" } else { "FALSE" }),
        Value::Byte(x) => t("PMIX_BYTE", &format!("{x:x}")),
        Value::String(None) => t("PMIX_STRING", &"NULL pointer"),
        Value::String(Some(s)) => t("PMIX_STRING", &s.to_bytes()),
        Value::Size(x) => t("PMIX_SIZE", &x.to_string()),
        Value::Pid(x) => t("PMIX_PID", &(i64::from(*x) as u64).to_string()),
        Value::Int(x) => t("PMIX_INT", &x.to_string()),
        Value::Int8(x) => t("PMIX_INT8", &x.to_string()),
        Value::Int16(x) => t("PMIX_INT16", &x.to_string()),
        Value::Int32(x) => t("PMIX_INT32", &x.to_string()),
        Value::Int64(x) => t("PMIX_INT64", &x.to_string()),
        Value::Uint(x) => t("PMIX_UINT", &x.to_string()),
        Value::Uint8(x) => t("PMIX_UINT8", &x.to_string()),
        Value::Uint16(x) => t("PMIX_UINT16", &x.to_string()),
        Value::Uint32(x) => t("PMIX_UINT32", &x.to_string()),
        Value::Uint64(x) => t("PMIX_UINT64", &x.to_string()),
        Value::Float(x) => t("PMIX_FLOAT", &format_f(f64::from(*x))),
        Value::Double(x) => t("PMIX_DOUBLE", &format_f(*x)),
        Value::Time(x) => t("PMIX_TIME", &ctime(*x)),
        Value::Timeval(x) => t("PMIX_TIMEVAL", &tv(x)),
        Value::Status(x) => t("PMIX_STATUS", &cs(strings::error_string(*x))),
        Value::ProcRank(r) => t("PMIX_PROC_RANK", &rank_text(*r)),
        Value::ProcNspace(n) => t("PMIX_PROC_NSPACE", &n.as_bytes()),
        Value::Proc(pr) => proc_line(p, pr),
        Value::ByteObject(b) | Value::CompressedString(b) => {
            cat!(p, format!("Data type: PMIX_BYTE_OBJECT\tSize: {}", b.len()))
        }
        Value::CompressedByteObject(b) => cat!(
            p,
            format!("Data type: PMIX_COMPRESSED_BYTE_OBJECT\tSize: {}", b.len())
        ),
        Value::Persist(x) => t("PMIX_PERSIST", &x.to_string()),
        Value::Scope(x) => t("PMIX_SCOPE", &cs(strings::scope_string(*x))),
        Value::DataRange(x) => t("PMIX_DATA_RANGE", &cs(strings::data_range_string(*x))),
        Value::Command(x) => t("PMIX_COMMAND", &cs(strings::command_string(*x))),
        Value::InfoDirectives(x) => t("PMIX_INFO_DIRECTIVES", &strings::info_directives_string(*x)),
        Value::Pointer(0) => cat!(p, "Data type: PMIX_POINTER\tAddress: (nil)"),
        Value::Pointer(a) => cat!(p, format!("Data type: PMIX_POINTER\tAddress: {a:#x}")),
        Value::ProcState(x) => t("PMIX_PROC_STATE", &cs(strings::proc_state_string(*x))),
        Value::ProcInfo(i) => proc_info(p, i),
        Value::AllocDirective(x) => t(
            "PMIX_ALLOC_DIRECTIVE",
            &cs(strings::alloc_directive_string(*x)),
        ),
        Value::IofChannel(x) => t("PMIX_IOF_CHANNEL", &cs(strings::iof_channel_string(*x))),
        Value::Envar(e) => envar(p, e),
        Value::Coord(c) => coord_line(p, c),
        Value::RegAttr(a) => regattr(p, a),
        Value::Regex(r) => {
            let text = r.split(|&b| b == 0).next().unwrap_or(&[]);
            let text: &[u8] = if r.is_empty() { b"(null)" } else { text };
            cat!(p, "Data type: PMIX_REGEX\tName: ", text)
        }
        Value::JobState(x) => t("PMIX_JOB_STATE", &cs(strings::job_state_string(*x))),
        Value::LinkState(x) => t("PMIX_LINK_STATE", &cs(strings::link_state_string(*x))),
        Value::Geometry(g) => geometry(p, g),
        Value::DeviceDist(d) => devdist(p, d),
        Value::Endpoint(e) => endpoint(p, e),
        Value::DevType(x) => t("PMIX_DEVICE_TYPE", &format!("{x:#x}")),
        Value::LocType(x) => t("PMIX_LOCALITY", &locality(*x)),
        Value::ProcStats(x) => pstats(p, x),
        Value::DiskStats(x) => dkstats(p, x),
        Value::NetStats(x) => netstats(p, x),
        Value::NodeStats(x) => ndstats(p, x),
        Value::DataBuffer(b) => cat!(p, format!("PMIX_DATA_BUFFER NumBytesUsed: {}", b.len())),
        Value::StorMedium(x) => t("PMIX_STOR_MEDIUM", &storage_medium(*x)),
        Value::StorAccess(x) => t("PMIX_STOR_ACCESS", &storage_access(*x)),
        Value::StorPersist(x) => t("PMIX_STOR_PERSIST", &storage_persistence(*x)),
        Value::StorAccessType(x) => t("PMIX_STOR_ACCESS_TYPE", &storage_access_type(*x)),
    })
}

/// Types the reference prints inside a `pmix_value_t` (others are
/// "UNPRINTABLE" there).
fn printable_in_value(t: DataType) -> bool {
    use DataType as T;
    !matches!(
        t,
        T::Value
            | T::App
            | T::Info
            | T::PData
            | T::Kval
            | T::Pointer
            | T::Command
            | T::InfoDirectives
            | T::DataType
            | T::Query
            | T::CompressedString
            | T::IofChannel
            | T::Regex
            | T::CompressedByteObject
            | T::ProcStats
            | T::DiskStats
            | T::NetStats
            | T::NodeStats
            | T::DataBuffer
    )
}

/// Types the reference prints as elements of a data array.
fn printable_in_array(t: DataType) -> bool {
    t == DataType::Info || (printable_in_value(t) && t != DataType::Undef)
}

/// The payload of a `pmix_value_t`, as the reference's `print_val` writes
/// it (always with the default prefix).
fn payload(v: &Value, s: &Style) -> Printed {
    let t = v.data_type();
    if t == DataType::Undef {
        Printed::ok(b" Data type: PMIX_UNDEF".to_vec())
    } else if printable_in_value(t) {
        datum(b" ", v, s)
    } else {
        Printed::ok(s.unprintable(t.raw()))
    }
}

/// `{prefix}PMIX_VALUE: {payload}`.
fn value(p: &[u8], v: &Value, s: &Style) -> Printed {
    match payload(v, s).succeeded() {
        Some(t) => Printed::ok(value_line(Some(p), &t)),
        // The reference reports any failure here as out of resource.
        None => Printed::err(Status::ERR_OUT_OF_RESOURCE),
    }
}

fn info(p: &[u8], i: &Info, s: &Style) -> Vec<u8> {
    let v = value(p, &i.value, s).text;
    info_lines(Some(p), i.key.as_bytes(), i.flags.0, v.as_deref())
}

fn pdata(p: &[u8], d: &PData, s: &Style) -> Vec<u8> {
    let v = value(p, &d.value, s).text;
    cat!(
        p,
        "  ",
        proc_line(p, &d.proc),
        "  KEY: ",
        attribute_name(d.key.as_bytes()),
        " ",
        v.as_deref().unwrap_or(b"NULL"),
    )
}

fn query(p: &[u8], q: &Query, s: &Style) -> Vec<u8> {
    let p2 = cat!(p, "\t");
    let mut o = cat!(p, "Data type: PMIX_QUERY\tValue:");
    for k in &q.keys {
        o.extend(cat!("\n", p2, "Key: ", k.to_bytes()));
    }
    for i in &q.qualifiers {
        o.extend(cat!("\n", info(&p2, i, s)));
    }
    o
}

fn data_array(p: &[u8], d: &DataArray, s: &Style) -> Printed {
    // With no elements the reference returns its initial PMIX_ERR_BAD_PARAM
    // (with the text); otherwise the status of the last element. An element
    // that printed text is shown even if its status is an error.
    let mut status = Status::ERR_BAD_PARAM;
    let mut body: Option<Vec<u8>> = None;
    for item in &d.items {
        let e = if printable_in_array(d.elem_type) {
            datum(p, item, s)
        } else {
            Printed::ok(s.unprintable(d.elem_type.raw()))
        };
        status = e.status;
        if let Some(tp) = e.text {
            body = Some(match body {
                None => tp,
                Some(b) => cat!(b, "\n", p, tp),
            });
        }
    }
    let text = cat!(
        p,
        "Data type: PMIX_DATA_ARRAY\tType: ",
        s.type_text(d.elem_type.raw()),
        format!("\tSize: {}\n", d.items.len()),
        p,
        body.as_deref().unwrap_or(b"NULL"),
    );
    Printed {
        text: Some(text),
        status,
    }
}

// ---------------------------------------------------------------------------
// Types whose printing depends on the style

fn names_hwloc(source: &OptString) -> bool {
    source.as_deref().is_some_and(|s| {
        s.to_bytes()
            .get(..5)
            .is_some_and(|x| x.eq_ignore_ascii_case(b"hwloc"))
    })
}

/// `pmix_hwloc_print_cpuset`: the reference takes any non-zero return of
/// `hwloc_bitmap_list_asprintf` (the string's length) as a failure, so only
/// an empty set prints there.
fn cpuset(p: &[u8], c: &Cpuset, s: &Style) -> Printed {
    match &c.bitmap {
        Some(b) if names_hwloc(&c.source) && (s.cpuset_bitmap || b.is_empty()) => {
            Printed::ok(line(p, "PMIX_CPUSET", b.to_bytes()))
        }
        _ => Printed::err(Status::ERR_NOT_SUPPORTED),
    }
}

fn topology(p: &[u8], t: &Topology, s: &Style) -> Printed {
    let tree = match &t.xml {
        Some(xml) if names_hwloc(&t.source) => s.hwloc.topology_tree(xml),
        _ => None,
    };
    match tree {
        Some(tree) => Printed::ok(topology_line(Some(p), &tree)),
        None => Printed::err(Status::ERR_NOT_SUPPORTED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::float::c_float;
    use crate::value::Timeval;
    use crate::{Key, Nspace, Proc, Rank};

    fn vs(v: Value) -> Option<String> {
        value_string(&v, &NoHwloc)
    }

    #[test]
    fn scalars() {
        assert_eq!(
            vs(Value::Bool(true)).unwrap(),
            " PMIX_VALUE:  Data type: PMIX_BOOL\tValue: TRUE"
        );
        assert_eq!(
            vs(Value::Byte(0xab)).unwrap(),
            " PMIX_VALUE:  Data type: PMIX_BYTE\tValue: ab"
        );
        assert_eq!(
            vs(Value::Float(3.25)).unwrap(),
            " PMIX_VALUE:  Data type: PMIX_FLOAT\tValue: 3.250000"
        );
        assert_eq!(
            vs(Value::Pid(-1)).unwrap(),
            " PMIX_VALUE:  Data type: PMIX_PID\tValue: 18446744073709551615"
        );
        assert_eq!(
            vs(Value::Undef).unwrap(),
            " PMIX_VALUE:  Data type: PMIX_UNDEF"
        );
        assert_eq!(
            vs(Value::Regex(b"pmix[x]\0".to_vec())).unwrap(),
            " PMIX_VALUE:  Data type: PMIX_REGEX(49)\tValue: UNPRINTABLE"
        );
    }

    #[test]
    fn arrays_and_infos() {
        let empty = DataArray {
            elem_type: DataType::Uint32,
            items: vec![],
        };
        assert_eq!(vs(Value::DataArray(Box::new(empty))), None);
        let procs = DataArray {
            elem_type: DataType::Proc,
            items: vec![Value::Proc(Proc::new(
                Nspace::new("a").unwrap(),
                Rank::WILDCARD,
            ))],
        };
        assert_eq!(
            vs(Value::DataArray(Box::new(procs))).unwrap(),
            " PMIX_VALUE:  Data type: PMIX_DATA_ARRAY\tType: PMIX_PROC\tSize: 1\n  PROC: a:PMIX_RANK_WILDCARD"
        );
        let info = Info::new(Key::new("pmix.rank").unwrap(), Value::ProcRank(3));
        assert_eq!(
            info_string(&info, &NoHwloc),
            " KEY: PMIX_RANK\n \t Data type: PMIX_INFO_DIRECTIVES\tValue: OPTIONAL\n \t PMIX_VALUE:  Data type: PMIX_PROC_RANK\tValue: 3"
        );
    }

    #[test]
    fn c_formats() {
        assert_eq!(c_float(f64::NAN, 6, 0), "nan");
        assert_eq!(c_float(-1.0 / 0.0, 6, 0), "-inf");
        assert_eq!(c_float(1.5, 2, 8), "    1.50");
        assert_eq!(locality(0x22), "CORE:CORE");
        assert_eq!(storage_medium(0x49), "UNKNOWN");
        assert_eq!(storage_access(0), "");
    }

    /// `PMIx_Data_print`.
    mod data_print {
        use super::*;

        fn pr(v: Value) -> String {
            print_type(None, v.data_type(), &v).unwrap().unwrap()
        }

        #[test]
        fn scalars() {
            assert_eq!(pr(Value::Bool(true)), " Data type: PMIX_BOOL\tValue: TRUE");
            assert_eq!(pr(Value::Byte(0xab)), " Data type: PMIX_BYTE\tValue: ab");
            assert_eq!(
                pr(Value::Pid(-5)),
                " Data type: PMIX_PID\tValue: 18446744073709551611"
            );
            assert_eq!(
                pr(Value::Double(2.5)),
                " Data type: PMIX_DOUBLE\tValue: 2.500000"
            );
            assert_eq!(
                pr(Value::Timeval(Timeval { sec: 1, usec: 2 })),
                " Data type: PMIX_TIMEVAL\tValue: 1.000002"
            );
        }

        #[test]
        fn info_layout() {
            let i = Info::new(Key::new("pmix.timeout").unwrap(), Value::Int(5));
            let s = print_type(Some("P>"), DataType::Info, &Value::Info(Box::new(i)))
                .unwrap()
                .unwrap();
            assert_eq!(
                s,
                "P>KEY: PMIX_TIMEOUT\nP>\tP>Data type: PMIX_INFO_DIRECTIVES\tValue: OPTIONAL\nP>\tP>PMIX_VALUE:  Data type: PMIX_INT\tValue: 5"
            );
        }

        #[test]
        fn empty_array_reports_bad_param_with_text() {
            let d = Value::DataArray(Box::new(DataArray {
                elem_type: DataType::Uint8,
                items: vec![],
            }));
            let p = print_full(None, DataType::DataArray, &d);
            assert_eq!(p.status, Status::ERR_BAD_PARAM);
            assert_eq!(
                String::from_utf8(p.text.unwrap()).unwrap(),
                " Data type: PMIX_DATA_ARRAY\tType: PMIX_UINT8\tSize: 0\n NULL"
            );
            let _ = Nspace::default();
        }
    }
}
