//! `PMIx_Data_print`: the text OpenPMIx 4.2 prints for a datum.
//!
//! Each line starts with the caller's prefix (a single space when there is
//! none); the layout of each type is OpenPMIx's. Text is built as bytes,
//! because strings from C need not be UTF-8.
//!
//! Where the reference prints an address instead of the datum
//! (`PMIX_DATA_RANGE` and `PMIX_DEVTYPE` at top level), its output cannot
//! be reproduced: the datum is printed instead. A topology is not printed
//! (`PMIX_ERR_NOT_SUPPORTED`: the reference walks its hwloc tree, we hold
//! XML). A cpuset prints its bitmap (the reference never manages to).

// The formats mirror the reference's line by line, trailing newlines
// included.
#![allow(clippy::write_with_newline)]

use std::ffi::CStr;
use std::io::Write;

use super::float::format_f;
use crate::value::*;
use crate::{keys, strings, DataType, Info, Proc, Rank, Status, Value};

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
}

/// Prints `v`, declared as type `ty`, as `PMIx_Data_print(&out, prefix,
/// &v, ty)` does; the text as UTF-8 (lossy) for Rust callers.
pub fn print_type(prefix: Option<&str>, ty: DataType, v: &Value) -> Result<Option<String>, Status> {
    let p = print_full(prefix.map(str::as_bytes), ty, v);
    if !p.status.is_success() {
        return Err(p.status);
    }
    Ok(p.text.map(|t| String::from_utf8_lossy(&t).into_owned()))
}

/// Prints `v`, declared as type `ty`: text and status.
pub fn print_full(prefix: Option<&[u8]>, ty: DataType, v: &Value) -> Printed {
    if v.data_type() != ty {
        return Printed::err(Status::ERR_TYPE_MISMATCH);
    }
    let p = prefix.unwrap_or(b" ");
    match v {
        // Not registered for printing in the reference.
        Value::Undef => Printed::err(Status::ERR_UNKNOWN_DATA_TYPE),
        // Registered, but print nothing.
        Value::App(_) | Value::Kval(_) => Printed {
            text: None,
            status: Status::SUCCESS,
        },
        Value::Value(inner) => print_value(p, inner),
        Value::Info(i) => Printed::ok(print_info(p, i)),
        Value::PData(d) => {
            let mut o = Vec::new();
            let proc = proc_line(p, &d.proc);
            let val = print_value(p, &d.value).text;
            o.extend_from_slice(p);
            o.extend_from_slice(b"  ");
            o.extend_from_slice(&proc);
            o.extend_from_slice(b"  KEY: ");
            o.extend_from_slice(attribute_name(d.key.as_bytes()));
            o.push(b' ');
            o.extend_from_slice(val.as_deref().unwrap_or(b"NULL"));
            Printed::ok(o)
        }
        Value::DataArray(d) => print_darray(p, d),
        Value::Query(q) => Printed::ok(print_query(p, q)),
        _ => print_item(p, v),
    }
}

/// `{prefix}Data type: {name}\tValue: {value}`.
fn line(p: &[u8], name: &str, value: &[u8]) -> Vec<u8> {
    let mut o = Vec::with_capacity(p.len() + name.len() + value.len() + 24);
    o.extend_from_slice(p);
    o.extend_from_slice(b"Data type: ");
    o.extend_from_slice(name.as_bytes());
    o.extend_from_slice(b"\tValue: ");
    o.extend_from_slice(value);
    o
}

fn cs(s: &CStr) -> &[u8] {
    s.to_bytes()
}

/// A nullable string as `%s` prints it (glibc: `(null)`).
fn s_or_null(s: &OptString) -> &[u8] {
    s.as_deref().map_or(b"(null)", CStr::to_bytes)
}

/// A nullable string the reference guards itself (`NULL`).
fn s_or_word(s: &OptString) -> &[u8] {
    s.as_deref().map_or(b"NULL", CStr::to_bytes)
}

/// `PMIx_Get_attribute_name`: the macro name of a key, or the key itself.
fn attribute_name(key: &[u8]) -> &[u8] {
    match keys::by_string(key) {
        Some(a) => a.name.as_bytes(),
        None => key,
    }
}

/// `PMIx_Data_type_string` once the library is initialized: the name a
/// buffer module registered, else `UNKNOWN`.
pub fn type_name(t: u16) -> &'static str {
    match t {
        29 => "PMIX_MODEX",
        44 => "PMIX_INFO_ARRAY",
        58 => "PMIX_LOCTYPE",
        59 => "PMIX_COMPRESSED_BYTE_OBJECT",
        66 => "PMIX_STOR_MEDIUM",
        67 => "PMIX_STOR_ACCESS",
        68 => "PMIX_STOR_PERSIST",
        69 => "PMIX_STOR_ACCESS_TYPE",
        _ => match strings::text(strings::data_type_string(t)) {
            "NOT INITIALIZED" | "" => "UNKNOWN",
            s => s,
        },
    }
}

/// `pmix_command_string` (OpenPMIx's internal command names).
fn command_name(c: u8) -> &'static str {
    const NAMES: [&str; 33] = [
        "REQUEST INIT INFO",
        "ABORT",
        "COMMIT",
        "FENCE",
        "GET",
        "FINALIZE",
        "PUBLISH",
        "LOOKUP",
        "UNPUBLISH",
        "SPAWN",
        "CONNECT",
        "DISCONNECT",
        "NOTIFY",
        "REGISTER EVENT HANDLER",
        "DEREGISTER EVENT HANDLER",
        "QUERY",
        "LOG",
        "ALLOCATE",
        "JOB CONTROL",
        "MONITOR",
        "UNKNOWN",
        "UNKNOWN",
        "IOF PULL",
        "IOF PUSH",
        "GROUP CONSTRUCT",
        "GROUP JOIN",
        "GROUP INVITE",
        "GROUP LEAVE",
        "GROUP DESTRUCT",
        "IOF DEREG",
        "FABRIC REGISTER",
        "FABRIC UPDATE",
        "COMPUTE DEVICE DIST",
    ];
    NAMES.get(usize::from(c)).copied().unwrap_or("UNKNOWN")
}

/// A rank as `%lu`, with the names of the three special ranks.
fn rank_text(r: u32) -> String {
    match Rank(r) {
        Rank::UNDEF => "PMIX_RANK_UNDEF".into(),
        Rank::WILDCARD => "PMIX_RANK_WILDCARD".into(),
        Rank::LOCAL_NODE => "PMIX_RANK_LOCAL_NODE".into(),
        _ => r.to_string(),
    }
}

/// `{prefix}PROC: {nspace}:{rank}`.
fn proc_line(p: &[u8], pr: &Proc) -> Vec<u8> {
    let mut o = p.to_vec();
    o.extend_from_slice(b"PROC: ");
    o.extend_from_slice(pr.nspace.as_bytes());
    o.push(b':');
    o.extend_from_slice(rank_text(pr.rank.0).as_bytes());
    o
}

/// `PMIX_NAME_PRINT`: `[nspace,rank]`.
fn name_print(pr: &Proc) -> Vec<u8> {
    let rank = match pr.rank {
        Rank::UNDEF => "UNDEF".to_string(),
        Rank::WILDCARD => "WILDCARD".to_string(),
        r => r.0.to_string(),
    };
    let mut o = b"[".to_vec();
    o.extend_from_slice(pr.nspace.as_bytes());
    o.push(b',');
    o.extend_from_slice(rank.as_bytes());
    o.push(b']');
    o
}

/// `%W.Pf` of a float, as C prints it.
fn fixed(v: f32, width: usize, prec: usize) -> String {
    let v = f64::from(v);
    let s = if v.is_nan() {
        if v.is_sign_negative() { "-nan" } else { "nan" }.to_string()
    } else if v.is_infinite() {
        if v < 0.0 { "-inf" } else { "inf" }.to_string()
    } else {
        format!("{v:.prec$}")
    };
    format!("{s:>width$}")
}

/// `ctime()` without its newline.
fn ctime(t: i64) -> Vec<u8> {
    let mut buf = [0 as libc::c_char; 64];
    let tt = t as libc::time_t;
    // SAFETY: ctime_r writes at most 26 bytes (NUL included) into the
    // 64-byte buffer, or returns NULL for an unrepresentable time.
    let r = unsafe { libc::ctime_r(&tt, buf.as_mut_ptr()) };
    if r.is_null() {
        return b"(null)".to_vec();
    }
    // SAFETY: ctime_r wrote a NUL-terminated string into buf.
    let mut s = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_bytes().to_vec();
    if s.last() == Some(&b'\n') {
        s.pop();
    }
    s
}

fn flags_text(v: u64, names: &[(u64, &str)]) -> Vec<u8> {
    let parts: Vec<&str> = names
        .iter()
        .filter(|(b, _)| v & b != 0)
        .map(|(_, n)| *n)
        .collect();
    parts.join(":").into_bytes()
}

fn locality_text(l: u16) -> Vec<u8> {
    match l {
        0 => b"UNKNOWN".to_vec(),
        0x8000 => b"NONLOCAL".to_vec(),
        _ => flags_text(
            u64::from(l),
            &[
                (0x0001, "HWTHREAD"),
                (0x0002, "CORE"),
                (0x0004, "L1"),
                (0x0008, "L2"),
                (0x0010, "L3"),
                // The reference names the package bit "CORE".
                (0x0020, "CORE"),
                (0x0040, "NUMA"),
                (0x4000, "NODE"),
            ],
        ),
    }
}

fn coord_line(p: &[u8], c: &Coord) -> Vec<u8> {
    let view = match c.view {
        0 => "UNDEF",
        1 => "LOGICAL",
        2 => "PHYSICAL",
        _ => "UNRECOGNIZED",
    };
    let mut o = p.to_vec();
    write!(
        o,
        "Data type: PMIX_COORD\tView: {view}\tDims: {}",
        c.coord.len()
    )
    .ok();
    o
}

/// One datum of a type printed by its own function (everything but the
/// container types handled in [`print_full`]).
fn print_item(p: &[u8], v: &Value) -> Printed {
    let t = |name: &str, value: String| Printed::ok(line(p, name, value.as_bytes()));
    match v {
        Value::Bool(b) => t("PMIX_BOOL", if *b { "TRUE" } else { "FALSE" }.into()),
        Value::Byte(x) => t("PMIX_BYTE", format!("{x:x}")),
        Value::String(s) => match s {
            Some(s) => Printed::ok(line(p, "PMIX_STRING", s.to_bytes())),
            None => t("PMIX_STRING", "NULL pointer".into()),
        },
        Value::Size(x) => t("PMIX_SIZE", x.to_string()),
        Value::Pid(x) => t("PMIX_PID", (i64::from(*x) as u64).to_string()),
        Value::Int(x) => t("PMIX_INT", x.to_string()),
        Value::Int8(x) => t("PMIX_INT8", x.to_string()),
        Value::Int16(x) => t("PMIX_INT16", x.to_string()),
        Value::Int32(x) => t("PMIX_INT32", x.to_string()),
        Value::Int64(x) => t("PMIX_INT64", x.to_string()),
        Value::Uint(x) => t("PMIX_UINT", x.to_string()),
        Value::Uint8(x) => t("PMIX_UINT8", x.to_string()),
        Value::Uint16(x) => t("PMIX_UINT16", x.to_string()),
        Value::Uint32(x) => t("PMIX_UINT32", x.to_string()),
        Value::Uint64(x) => t("PMIX_UINT64", x.to_string()),
        Value::Float(x) => t("PMIX_FLOAT", format_f(f64::from(*x))),
        Value::Double(x) => t("PMIX_DOUBLE", format_f(*x)),
        Value::Time(x) => Printed::ok(line(p, "PMIX_TIME", &ctime(*x))),
        Value::Timeval(tv) => t("PMIX_TIMEVAL", format!("{}.{:06}", tv.sec, tv.usec)),
        Value::Status(s) => Printed::ok(line(p, "PMIX_STATUS", cs(strings::error_string(*s)))),
        Value::ProcRank(r) => t("PMIX_PROC_RANK", rank_text(*r)),
        Value::ProcNspace(n) => Printed::ok(line(p, "PMIX_PROC_NSPACE", n.as_bytes())),
        Value::Proc(pr) => Printed::ok(proc_line(p, pr)),
        Value::ByteObject(b) | Value::CompressedString(b) => {
            let mut o = p.to_vec();
            write!(o, "Data type: PMIX_BYTE_OBJECT\tSize: {}", b.len()).ok();
            Printed::ok(o)
        }
        Value::CompressedByteObject(b) => {
            let mut o = p.to_vec();
            write!(
                o,
                "Data type: PMIX_COMPRESSED_BYTE_OBJECT\tSize: {}",
                b.len()
            )
            .ok();
            Printed::ok(o)
        }
        Value::Persist(x) => t("PMIX_PERSIST", x.to_string()),
        Value::Scope(x) => Printed::ok(line(p, "PMIX_SCOPE", cs(strings::scope_string(*x)))),
        Value::DataRange(x) => Printed::ok(line(
            p,
            "PMIX_DATA_RANGE",
            cs(strings::data_range_string(*x)),
        )),
        Value::Command(c) => t("PMIX_COMMAND", command_name(*c).into()),
        Value::InfoDirectives(d) => t("PMIX_INFO_DIRECTIVES", strings::info_directives_string(*d)),
        Value::DataType(d) => t("PMIX_DATA_TYPE", type_name(*d).into()),
        Value::Pointer(a) => {
            let mut o = p.to_vec();
            if *a == 0 {
                o.extend_from_slice(b"Data type: PMIX_POINTER\tAddress: (nil)");
            } else {
                write!(o, "Data type: PMIX_POINTER\tAddress: {a:#x}").ok();
            }
            Printed::ok(o)
        }
        Value::ProcState(s) => Printed::ok(line(
            p,
            "PMIX_PROC_STATE",
            cs(strings::proc_state_string(*s)),
        )),
        Value::ProcInfo(i) => {
            let mut p2 = p.to_vec();
            p2.push(b'\t');
            let mut o = p.to_vec();
            o.extend_from_slice(b"Data type: PMIX_PROC_INFO\tValue:\n");
            o.extend_from_slice(&proc_line(&p2, &i.proc));
            o.push(b'\n');
            o.extend_from_slice(&p2);
            o.extend_from_slice(b"Hostname: ");
            o.extend_from_slice(s_or_null(&i.hostname));
            o.extend_from_slice(b"\tExecutable: ");
            o.extend_from_slice(s_or_null(&i.executable_name));
            o.push(b'\n');
            o.extend_from_slice(&p2);
            write!(
                o,
                "Pid: {}\tExit code: {}\tState: ",
                i64::from(i.pid) as u64,
                i.exit_code
            )
            .ok();
            o.extend_from_slice(cs(strings::proc_state_string(i.state)));
            Printed::ok(o)
        }
        Value::AllocDirective(a) => Printed::ok(line(
            p,
            "PMIX_ALLOC_DIRECTIVE",
            cs(strings::alloc_directive_string(*a)),
        )),
        Value::IofChannel(c) => Printed::ok(line(
            p,
            "PMIX_IOF_CHANNEL",
            cs(strings::iof_channel_string(*c)),
        )),
        Value::Envar(e) => {
            let mut o = p.to_vec();
            o.extend_from_slice(b"Data type: PMIX_ENVAR\tName: ");
            o.extend_from_slice(s_or_word(&e.envar));
            o.extend_from_slice(b"\tValue: ");
            o.extend_from_slice(s_or_word(&e.value));
            o.extend_from_slice(b"\tSeparator: ");
            o.push(if e.separator == 0 { b' ' } else { e.separator });
            Printed::ok(o)
        }
        Value::Coord(c) => Printed::ok(coord_line(p, c)),
        Value::RegAttr(a) => {
            let mut o = p.to_vec();
            o.extend_from_slice(b"Data type: PMIX_REGATTR\tName: ");
            o.extend_from_slice(s_or_word(&a.name));
            o.extend_from_slice(b"\tString: ");
            o.extend_from_slice(if a.string.is_empty() {
                b"NULL"
            } else {
                a.string.as_bytes()
            });
            Printed::ok(o)
        }
        Value::Regex(r) => {
            let text = r.split(|&b| b == 0).next().unwrap_or(&[]);
            let mut o = p.to_vec();
            o.extend_from_slice(b"Data type: PMIX_REGEX\tName: ");
            o.extend_from_slice(if r.is_empty() { b"(null)" } else { text });
            Printed::ok(o)
        }
        Value::JobState(s) => {
            Printed::ok(line(p, "PMIX_JOB_STATE", cs(strings::job_state_string(*s))))
        }
        Value::LinkState(s) => Printed::ok(line(
            p,
            "PMIX_LINK_STATE",
            cs(strings::link_state_string(*s)),
        )),
        Value::Cpuset(c) => {
            let hwloc = c.source.as_deref().is_some_and(|s| {
                s.to_bytes()
                    .get(..5)
                    .is_some_and(|x| x.eq_ignore_ascii_case(b"hwloc"))
            });
            match (&c.bitmap, hwloc) {
                (Some(b), true) => Printed::ok(line(p, "PMIX_CPUSET", b.to_bytes())),
                _ => Printed::err(Status::ERR_NOT_SUPPORTED),
            }
        }
        Value::Geometry(g) => {
            let mut o = p.to_vec();
            write!(
                o,
                "Data type: PMIX_GEOMETRY\tValue: Fabric: {} UUID: ",
                g.fabric
            )
            .ok();
            o.extend_from_slice(s_or_word(&g.uuid));
            o.extend_from_slice(b" OSName: ");
            o.extend_from_slice(s_or_word(&g.osname));
            for c in &g.coordinates {
                o.push(b'\n');
                o.extend_from_slice(&coord_line(p, c));
            }
            Printed::ok(o)
        }
        Value::DeviceDist(d) => {
            let mut o = p.to_vec();
            o.extend_from_slice(b"Data type: PMIX_DEVICE_DIST\tValue: UUID: ");
            o.extend_from_slice(s_or_word(&d.uuid));
            o.extend_from_slice(b" OSName: ");
            o.extend_from_slice(s_or_word(&d.osname));
            o.extend_from_slice(b" Type: ");
            o.extend_from_slice(cs(strings::device_type_string(d.dev_type)));
            write!(o, " Min: {} Max: {}", d.mindist, d.maxdist).ok();
            Printed::ok(o)
        }
        Value::Endpoint(e) => {
            let mut o = p.to_vec();
            o.extend_from_slice(b"Data type: PMIX_ENDPOINT\tValue: ");
            o.extend_from_slice(s_or_word(&e.uuid));
            o.push(b'(');
            o.extend_from_slice(s_or_word(&e.osname));
            write!(o, ") #bytes: {}", e.endpt.len()).ok();
            Printed::ok(o)
        }
        Value::Topology(_) => Printed::err(Status::ERR_NOT_SUPPORTED),
        Value::DevType(d) => t("PMIX_DEVICE_TYPE", format!("{d:#x}")),
        Value::LocType(l) => Printed::ok(line(p, "PMIX_LOCALITY", &locality_text(*l))),
        Value::ProcStats(s) => Printed::ok(print_pstats(p, s)),
        Value::DiskStats(d) => Printed::ok(print_disk(p, d)),
        Value::NetStats(n) => Printed::ok(print_net(p, n)),
        Value::NodeStats(n) => Printed::ok(print_node(p, n)),
        Value::DataBuffer(b) => {
            let mut o = p.to_vec();
            write!(o, "PMIX_DATA_BUFFER NumBytesUsed: {}", b.len()).ok();
            Printed::ok(o)
        }
        Value::StorMedium(m) => {
            let text = if m & 1 != 0 {
                b"UNKNOWN".to_vec()
            } else {
                flags_text(
                    *m,
                    &[
                        (2, "TAPE"),
                        (4, "HDD"),
                        (8, "SSD"),
                        (0x10, "NVME"),
                        (0x20, "PMEM"),
                        (0x40, "RAM"),
                    ],
                )
            };
            Printed::ok(line(p, "PMIX_STOR_MEDIUM", &text))
        }
        Value::StorAccess(a) => Printed::ok(line(
            p,
            "PMIX_STOR_ACCESS",
            &flags_text(
                *a,
                &[
                    (1, "NODE"),
                    (2, "SESSION"),
                    (4, "JOB"),
                    (8, "RACK"),
                    (0x10, "CLUSTER"),
                    (0x20, "REMOTE"),
                ],
            ),
        )),
        Value::StorPersist(a) => Printed::ok(line(
            p,
            "PMIX_STOR_PERSIST",
            &flags_text(
                *a,
                &[
                    (1, "TEMPORARY"),
                    (2, "NODE"),
                    (4, "SESSION"),
                    (8, "JOB"),
                    (0x10, "SCRATCH"),
                    (0x20, "PROJECT"),
                    (0x40, "ARCHIVE"),
                ],
            ),
        )),
        Value::StorAccessType(a) => Printed::ok(line(
            p,
            "PMIX_STOR_ACCESS_TYPE",
            &flags_text(u64::from(*a), &[(1, "READ"), (2, "WRITE")]),
        )),
        // Containers are dispatched by print_full.
        Value::Undef
        | Value::Value(_)
        | Value::App(_)
        | Value::Info(_)
        | Value::PData(_)
        | Value::Kval(_)
        | Value::DataArray(_)
        | Value::Query(_) => print_full(Some(p), v.data_type(), v),
    }
}

/// The payload of a `pmix_value_t`, as the reference's `print_val` writes
/// it (always with the default prefix).
fn print_val(v: &Value) -> Printed {
    const P: &[u8] = b" ";
    match v {
        Value::Undef => Printed::ok(b" Data type: PMIX_UNDEF".to_vec()),
        Value::Bool(_)
        | Value::Byte(_)
        | Value::String(_)
        | Value::Size(_)
        | Value::Pid(_)
        | Value::Int(_)
        | Value::Int8(_)
        | Value::Int16(_)
        | Value::Int32(_)
        | Value::Int64(_)
        | Value::Uint(_)
        | Value::Uint8(_)
        | Value::Uint16(_)
        | Value::Uint32(_)
        | Value::Uint64(_)
        | Value::Float(_)
        | Value::Double(_)
        | Value::Timeval(_)
        | Value::Time(_)
        | Value::Status(_)
        | Value::ProcRank(_)
        | Value::ProcNspace(_)
        | Value::Proc(_)
        | Value::ByteObject(_)
        | Value::Persist(_)
        | Value::Scope(_)
        | Value::DataRange(_)
        | Value::ProcState(_)
        | Value::ProcInfo(_)
        | Value::RegAttr(_)
        | Value::AllocDirective(_)
        | Value::Envar(_)
        | Value::Coord(_)
        | Value::LinkState(_)
        | Value::JobState(_)
        | Value::Topology(_)
        | Value::Cpuset(_)
        | Value::LocType(_)
        | Value::Geometry(_)
        | Value::DevType(_)
        | Value::DeviceDist(_)
        | Value::Endpoint(_)
        | Value::StorMedium(_)
        | Value::StorAccess(_)
        | Value::StorPersist(_)
        | Value::StorAccessType(_) => print_item(P, v),
        Value::DataArray(d) => print_darray(P, d),
        other => {
            let t = other.data_type().raw();
            let mut o = Vec::new();
            write!(o, " Data type: {}({t})\tValue: UNPRINTABLE", type_name(t)).ok();
            Printed::ok(o)
        }
    }
}

/// `{prefix}PMIX_VALUE: {payload}`.
fn print_value(p: &[u8], v: &Value) -> Printed {
    let inner = print_val(v);
    match inner.text {
        Some(t) if inner.status.is_success() => {
            let mut o = p.to_vec();
            o.extend_from_slice(b"PMIX_VALUE: ");
            o.extend_from_slice(&t);
            Printed::ok(o)
        }
        // The reference reports any failure here as out of resource.
        _ => Printed::err(Status::ERR_OUT_OF_RESOURCE),
    }
}

fn print_info(p: &[u8], i: &Info) -> Vec<u8> {
    let val = print_value(p, &i.value).text;
    let dirs = line(
        p,
        "PMIX_INFO_DIRECTIVES",
        strings::info_directives_string(i.flags.0).as_bytes(),
    );
    let mut o = p.to_vec();
    o.extend_from_slice(b"KEY: ");
    o.extend_from_slice(attribute_name(i.key.as_bytes()));
    o.push(b'\n');
    o.extend_from_slice(p);
    o.push(b'\t');
    o.extend_from_slice(&dirs);
    o.push(b'\n');
    o.extend_from_slice(p);
    o.push(b'\t');
    o.extend_from_slice(val.as_deref().unwrap_or(b"(null)"));
    o
}

fn print_query(p: &[u8], q: &Query) -> Vec<u8> {
    let mut p2 = p.to_vec();
    p2.push(b'\t');
    let mut o = p.to_vec();
    o.extend_from_slice(b"Data type: PMIX_QUERY\tValue:");
    for k in &q.keys {
        o.push(b'\n');
        o.extend_from_slice(&p2);
        o.extend_from_slice(b"Key: ");
        o.extend_from_slice(k.to_bytes());
    }
    for i in &q.qualifiers {
        o.push(b'\n');
        o.extend_from_slice(&print_info(&p2, i));
    }
    o
}

fn print_darray(p: &[u8], d: &DataArray) -> Printed {
    // With no elements the reference returns its initial PMIX_ERR_BAD_PARAM
    // (with the text); otherwise the status of the last element.
    let mut status = Status::ERR_BAD_PARAM;
    let mut body: Option<Vec<u8>> = None;
    for item in &d.items {
        let e = match item {
            Value::Info(i) => Printed::ok(print_info(p, i)),
            Value::DataArray(inner) => print_darray(p, inner),
            Value::Proc(_)
            | Value::Bool(_)
            | Value::Byte(_)
            | Value::String(_)
            | Value::Size(_)
            | Value::Pid(_)
            | Value::Int(_)
            | Value::Int8(_)
            | Value::Int16(_)
            | Value::Int32(_)
            | Value::Int64(_)
            | Value::Uint(_)
            | Value::Uint8(_)
            | Value::Uint16(_)
            | Value::Uint32(_)
            | Value::Uint64(_)
            | Value::Float(_)
            | Value::Double(_)
            | Value::Timeval(_)
            | Value::Time(_)
            | Value::Status(_)
            | Value::ProcRank(_)
            | Value::ProcNspace(_)
            | Value::ByteObject(_)
            | Value::Persist(_)
            | Value::Scope(_)
            | Value::DataRange(_)
            | Value::ProcState(_)
            | Value::ProcInfo(_)
            | Value::RegAttr(_)
            | Value::AllocDirective(_)
            | Value::Envar(_)
            | Value::Coord(_)
            | Value::LinkState(_)
            | Value::JobState(_)
            | Value::Topology(_)
            | Value::Cpuset(_)
            | Value::LocType(_)
            | Value::Geometry(_)
            | Value::DevType(_)
            | Value::DeviceDist(_)
            | Value::Endpoint(_)
            | Value::StorMedium(_)
            | Value::StorAccess(_)
            | Value::StorPersist(_)
            | Value::StorAccessType(_) => print_item(p, item),
            other => {
                let t = d.elem_type.raw();
                let _ = other;
                let mut o = Vec::new();
                write!(o, " Data type: {}({t})\tValue: UNPRINTABLE", type_name(t)).ok();
                Printed::ok(o)
            }
        };
        status = e.status;
        if let Some(tp) = e.text {
            body = Some(match body {
                None => tp,
                Some(mut b) => {
                    b.push(b'\n');
                    b.extend_from_slice(p);
                    b.extend_from_slice(&tp);
                    b
                }
            });
        }
    }
    let mut o = p.to_vec();
    write!(
        o,
        "Data type: PMIX_DATA_ARRAY\tType: {}\tSize: {}\n",
        type_name(d.elem_type.raw()),
        d.items.len()
    )
    .ok();
    o.extend_from_slice(p);
    o.extend_from_slice(body.as_deref().unwrap_or(b"NULL"));
    Printed {
        text: Some(o),
        status,
    }
}

fn print_pstats(p: &[u8], s: &ProcStats) -> Vec<u8> {
    let mut o = p.to_vec();
    write!(
        o,
        "PMIX_PROC_STATS SAMPLED AT: {}.{:06}\n",
        s.sample_time.sec, s.sample_time.usec
    )
    .ok();
    o.extend_from_slice(p);
    o.extend_from_slice(b"node: ");
    o.extend_from_slice(s_or_null(&s.node));
    o.extend_from_slice(b" proc: ");
    o.extend_from_slice(&name_print(&s.proc));
    write!(o, " pid: {} cmd: ", s.pid).ok();
    o.extend_from_slice(s_or_null(&s.cmd));
    o.extend_from_slice(b" state: ");
    o.push(s.state);
    write!(
        o,
        " pri: {} #threads: {} Processor: {}\n",
        s.priority, s.num_threads, s.processor
    )
    .ok();
    o.extend_from_slice(p);
    write!(
        o,
        "\ttime: {}.{:06} cpu: {}  PSS: {}  VMsize: {} PeakVMSize: {} RSS: {}\n",
        s.time.sec,
        s.time.usec,
        fixed(s.percent_cpu, 5, 2),
        fixed(s.pss, 8, 2),
        fixed(s.vsize, 8, 2),
        fixed(s.peak_vsize, 8, 2),
        fixed(s.rss, 8, 2)
    )
    .ok();
    o
}

fn print_disk(p: &[u8], d: &DiskStats) -> Vec<u8> {
    let mut o = p.to_vec();
    o.extend_from_slice(b"PMIX_DISK_STATS Disk: ");
    o.extend_from_slice(s_or_null(&d.disk));
    o.push(b'\n');
    o.extend_from_slice(p);
    write!(
        o,
        "NumReadsCompleted: {:x} NumReadsMerged: {:x} NumSectorsRead: {:x} MillisecReading: {:x}\n",
        d.num_reads_completed, d.num_reads_merged, d.num_sectors_read, d.milliseconds_reading
    )
    .ok();
    o.extend_from_slice(p);
    write!(
        o,
        "NumWritesCompleted: {:x} NumWritesMerged: {:x} NumSectorsWrote: {:x} MillisecWriting: {:x}\n",
        d.num_writes_completed, d.num_writes_merged, d.num_sectors_written, d.milliseconds_writing
    )
    .ok();
    o.extend_from_slice(p);
    write!(
        o,
        "NumIOsInProgress: {:x} MillisecondsIO: {:x} WeightedMillisecsIO: {:x}\n",
        d.num_ios_in_progress, d.milliseconds_io, d.weighted_milliseconds_io
    )
    .ok();
    o
}

fn print_net(p: &[u8], n: &NetStats) -> Vec<u8> {
    let mut o = p.to_vec();
    o.extend_from_slice(b"PMIX_NET_STATS Interface: ");
    o.extend_from_slice(s_or_null(&n.net_interface));
    o.push(b'\n');
    o.extend_from_slice(p);
    write!(
        o,
        "NumBytesRecvd: {:x} NumPacketsRecv: {:x} NumRecvErrors: {:x}\n",
        n.num_bytes_recvd, n.num_packets_recvd, n.num_recv_errs
    )
    .ok();
    o.extend_from_slice(p);
    write!(
        o,
        "NumBytesSent: {:x} NumPacketsSent: {:x} NumSendErrors: {:x}\n",
        n.num_bytes_sent, n.num_packets_sent, n.num_send_errs
    )
    .ok();
    o
}

fn print_node(p: &[u8], n: &NodeStats) -> Vec<u8> {
    let f = |x: f32| fixed(x, 5, 2);
    let mut o = p.to_vec();
    write!(
        o,
        "PMIX_NODE_STATS SAMPLED AT: {}.{:06}\tNode: ",
        n.sample_time.sec, n.sample_time.usec
    )
    .ok();
    o.extend_from_slice(s_or_null(&n.node));
    o.push(b'\n');
    o.extend_from_slice(p);
    write!(
        o,
        "Total Mem: {} Free Mem: {} Buffers: {} Cached: {}\n",
        f(n.total_mem),
        f(n.free_mem),
        f(n.buffers),
        f(n.cached)
    )
    .ok();
    o.extend_from_slice(p);
    write!(
        o,
        "SwapCached: {} SwapTotal: {} SwapFree: {} Mapped: {}\n",
        f(n.swap_cached),
        f(n.swap_total),
        f(n.swap_free),
        f(n.mapped)
    )
    .ok();
    o.extend_from_slice(p);
    write!(
        o,
        "\tla: {}\tla5: {}\tla15: {}\n",
        f(n.la),
        f(n.la5),
        f(n.la15)
    )
    .ok();
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Key, Nspace};

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
