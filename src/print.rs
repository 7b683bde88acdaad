//! The text forms of values: `PMIx_Value_string`, `PMIx_Info_string` and
//! the per-type printers behind `PMIx_Data_print`, byte for byte as
//! OpenPMIx 4.2 writes them.
//!
//! Each printer takes an optional prefix (the reference's `NULL` prefix
//! prints as one space) and returns `None` where the reference fails and
//! returns no string. Printing that needs hwloc (a topology's object tree)
//! goes through [`Hwloc`]; without it such values do not print.
//!
//! Deliberate differences: the reference prints the *address* of a
//! `PMIX_DEVTYPE` value (a bug); here its value is printed. `PMIX_POINTER`
//! prints the pointer the value holds.

use std::ffi::CStr;
use std::fmt::Write as _;

use crate::value::{
    Coord, Cpuset, DataArray, DeviceDistance, DiskStats, Endpoint, Envar, Geometry, NetStats,
    NodeStats, OptString, PData, ProcInfo, ProcStats, Query, RegAttr, Timeval, Topology,
};
use crate::{strings, DataType, Info, Proc, Rank, Value};

/// What printing needs from hwloc.
pub trait Hwloc {
    /// The object tree of the topology whose XML export is `xml`, as the
    /// reference prints it, or `None` if it cannot.
    fn topology_tree(&self, xml: &CStr) -> Option<String>;
}

/// Printing without hwloc: topologies do not print.
pub struct NoHwloc;

impl Hwloc for NoHwloc {
    fn topology_tree(&self, _: &CStr) -> Option<String> {
        None
    }
}

fn pfx(prefix: Option<&str>) -> &str {
    prefix.unwrap_or(" ")
}

fn opt(s: &OptString) -> String {
    match s {
        Some(s) => s.to_string_lossy().into_owned(),
        None => "NULL".to_owned(),
    }
}

/// How glibc's `printf("%s", NULL)` prints.
fn cnull(s: &OptString) -> String {
    match s {
        Some(s) => s.to_string_lossy().into_owned(),
        None => "(null)".to_owned(),
    }
}

fn text(s: &'static CStr) -> &'static str {
    strings::text(s)
}

/// C's `%f`.
fn f6(x: f64) -> String {
    c_float(x, 6, 0)
}

/// C's `%W.Pf`.
fn c_float(x: f64, precision: usize, width: usize) -> String {
    let s = if x.is_nan() {
        if x.is_sign_negative() {
            "-nan".to_owned()
        } else {
            "nan".to_owned()
        }
    } else if x.is_infinite() {
        if x < 0.0 {
            "-inf".to_owned()
        } else {
            "inf".to_owned()
        }
    } else {
        format!("{x:.precision$}")
    };
    format!("{s:>width$}")
}

fn tv(t: &Timeval) -> String {
    format!("{}.{:06}", t.sec, t.usec)
}

/// `ctime()` without its newline, in the process's local time zone.
fn ctime(t: i64) -> String {
    let mut buf = [0 as libc::c_char; 64];
    let tt: libc::time_t = t;
    // SAFETY: buf has the 26 bytes ctime_r needs; tt is a valid time_t.
    let p = unsafe { libc::ctime_r(&tt, buf.as_mut_ptr()) };
    if p.is_null() {
        return String::new();
    }
    // SAFETY: on success ctime_r wrote a NUL-terminated string into buf.
    let s = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
    s.trim_end_matches('\n').to_owned()
}

fn rank_text(r: u32) -> String {
    match Rank(r) {
        Rank::UNDEF => "PMIX_RANK_UNDEF".to_owned(),
        Rank::WILDCARD => "PMIX_RANK_WILDCARD".to_owned(),
        Rank::LOCAL_NODE => "PMIX_RANK_LOCAL_NODE".to_owned(),
        _ => r.to_string(),
    }
}

fn proc_line(prefix: Option<&str>, p: &Proc) -> String {
    format!(
        "{}PROC: {}:{}",
        pfx(prefix),
        p.nspace.to_string_lossy(),
        rank_text(p.rank.0)
    )
}

fn join_flags(bits: u64, names: &[(u64, &str)]) -> String {
    names
        .iter()
        .filter(|(b, _)| bits & b != 0)
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join(":")
}

fn locality(l: u16) -> String {
    match l {
        0 => "UNKNOWN".to_owned(),
        0x8000 => "NONLOCAL".to_owned(),
        _ => join_flags(
            l.into(),
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

fn storage_medium(m: u64) -> String {
    if m & 0x1 != 0 {
        return "UNKNOWN".to_owned();
    }
    join_flags(
        m,
        &[
            (0x02, "TAPE"),
            (0x04, "HDD"),
            (0x08, "SSD"),
            (0x10, "NVME"),
            (0x20, "PMEM"),
            (0x40, "RAM"),
        ],
    )
}

fn storage_access(a: u64) -> String {
    join_flags(
        a,
        &[
            (0x01, "NODE"),
            (0x02, "SESSION"),
            (0x04, "JOB"),
            (0x08, "RACK"),
            (0x10, "CLUSTER"),
            (0x20, "REMOTE"),
        ],
    )
}

fn storage_persistence(p: u64) -> String {
    join_flags(
        p,
        &[
            (0x01, "TEMPORARY"),
            (0x02, "NODE"),
            (0x04, "SESSION"),
            (0x08, "JOB"),
            (0x10, "SCRATCH"),
            (0x20, "PROJECT"),
            (0x40, "ARCHIVE"),
        ],
    )
}

fn storage_access_type(t: u16) -> String {
    join_flags(t.into(), &[(0x1, "READ"), (0x2, "WRITE")])
}

fn coord_line(prefix: Option<&str>, c: &Coord) -> String {
    let view = match c.view {
        0 => "UNDEF",
        1 => "LOGICAL",
        2 => "PHYSICAL",
        _ => "UNRECOGNIZED",
    };
    format!(
        "{}Data type: PMIX_COORD\tView: {}\tDims: {}",
        pfx(prefix),
        view,
        c.coord.len()
    )
}

fn geometry(prefix: Option<&str>, g: &Geometry) -> String {
    let mut lines = vec![format!(
        "{}Data type: PMIX_GEOMETRY\tValue: Fabric: {} UUID: {} OSName: {}",
        pfx(prefix),
        g.fabric,
        opt(&g.uuid),
        opt(&g.osname)
    )];
    lines.extend(g.coordinates.iter().map(|c| coord_line(prefix, c)));
    lines.join("\n")
}

fn proc_info(prefix: Option<&str>, p: &ProcInfo) -> String {
    let p2 = format!("{}\t", pfx(prefix));
    format!(
        "{}Data type: PMIX_PROC_INFO\tValue:\n{}\n{}Hostname: {}\tExecutable: {}\n{}Pid: {}\tExit code: {}\tState: {}",
        pfx(prefix),
        proc_line(Some(&p2), &p.proc),
        p2,
        cnull(&p.hostname),
        cnull(&p.executable_name),
        p2,
        i64::from(p.pid) as u64,
        p.exit_code,
        text(strings::proc_state_string(p.state))
    )
}

fn envar(prefix: Option<&str>, e: &Envar) -> String {
    let sep = if e.separator == 0 {
        ' '
    } else {
        e.separator as char
    };
    format!(
        "{}Data type: PMIX_ENVAR\tName: {}\tValue: {}\tSeparator: {}",
        pfx(prefix),
        opt(&e.envar),
        opt(&e.value),
        sep
    )
}

fn regattr(prefix: Option<&str>, r: &RegAttr) -> String {
    format!(
        "{}Data type: PMIX_REGATTR\tName: {}\tString: {}",
        pfx(prefix),
        opt(&r.name),
        if r.string.is_empty() {
            "NULL".to_owned()
        } else {
            r.string.to_string_lossy().into_owned()
        }
    )
}

fn devdist(prefix: Option<&str>, d: &DeviceDistance) -> String {
    format!(
        "{}Data type: PMIX_DEVICE_DIST\tValue: UUID: {} OSName: {} Type: {} Min: {} Max: {}",
        pfx(prefix),
        opt(&d.uuid),
        opt(&d.osname),
        text(strings::device_type_string(d.dev_type)),
        d.mindist,
        d.maxdist
    )
}

fn endpoint(prefix: Option<&str>, e: &Endpoint) -> String {
    format!(
        "{}Data type: PMIX_ENDPOINT\tValue: {}({}) #bytes: {}",
        pfx(prefix),
        opt(&e.uuid),
        opt(&e.osname),
        e.endpt.len()
    )
}

/// `pmix_hwloc_print_cpuset`: the reference takes any non-zero return of
/// `hwloc_bitmap_list_asprintf` (the string's length) as a failure, so only
/// an empty set prints.
fn cpuset(prefix: Option<&str>, c: &Cpuset) -> Option<String> {
    let source = c.source.as_ref()?.to_bytes();
    if source.len() < 5 || !source[..5].eq_ignore_ascii_case(b"hwloc") {
        return None;
    }
    let list = c.bitmap.as_ref()?;
    if !list.to_bytes().is_empty() {
        return None;
    }
    Some(format!("{}Data type: PMIX_CPUSET\tValue: ", pfx(prefix)))
}

fn topology(prefix: Option<&str>, t: &Topology, hw: &dyn Hwloc) -> Option<String> {
    let source = t.source.as_ref()?.to_bytes();
    if source.len() < 5 || !source[..5].eq_ignore_ascii_case(b"hwloc") {
        return None;
    }
    let tree = hw.topology_tree(t.xml.as_ref()?)?;
    Some(format!(
        "{}Data type: PMIX_TOPO\tValue: {}",
        pfx(prefix),
        tree
    ))
}

fn pstats(prefix: Option<&str>, s: &ProcStats) -> String {
    let p = pfx(prefix);
    format!(
        "{p}PMIX_PROC_STATS SAMPLED AT: {}\n{p}node: {} proc: {} pid: {} cmd: {} state: {} pri: {} #threads: {} Processor: {}\n{p}\ttime: {} cpu: {}  PSS: {}  VMsize: {} PeakVMSize: {} RSS: {}\n",
        tv(&s.sample_time),
        cnull(&s.node),
        name_print(&s.proc),
        s.pid,
        cnull(&s.cmd),
        s.state as char,
        s.priority,
        s.num_threads,
        s.processor,
        tv(&s.time),
        c_float(s.percent_cpu.into(), 2, 5),
        c_float(s.pss.into(), 2, 8),
        c_float(s.vsize.into(), 2, 8),
        c_float(s.peak_vsize.into(), 2, 8),
        c_float(s.rss.into(), 2, 8),
    )
}

/// `PMIX_NAME_PRINT`: `nspace:rank` with the reserved ranks named.
fn name_print(p: &Proc) -> String {
    let r = match p.rank {
        Rank::UNDEF => "UNDEF".to_owned(),
        Rank::WILDCARD => "WILDCARD".to_owned(),
        Rank::LOCAL_NODE => "LOCALNODE".to_owned(),
        Rank::LOCAL_PEERS => "LOCALPEERS".to_owned(),
        Rank::INVALID => "INVALID".to_owned(),
        r => r.0.to_string(),
    };
    format!("{}:{}", p.nspace.to_string_lossy(), r)
}

fn dkstats(prefix: Option<&str>, s: &DiskStats) -> String {
    let p = pfx(prefix);
    format!(
        "{p}PMIX_DISK_STATS Disk: {}\n{p}NumReadsCompleted: {:x} NumReadsMerged: {:x} NumSectorsRead: {:x} MillisecReading: {:x}\n{p}NumWritesCompleted: {:x} NumWritesMerged: {:x} NumSectorsWrote: {:x} MillisecWriting: {:x}\n{p}NumIOsInProgress: {:x} MillisecondsIO: {:x} WeightedMillisecsIO: {:x}\n",
        cnull(&s.disk),
        s.num_reads_completed,
        s.num_reads_merged,
        s.num_sectors_read,
        s.milliseconds_reading,
        s.num_writes_completed,
        s.num_writes_merged,
        s.num_sectors_written,
        s.milliseconds_writing,
        s.num_ios_in_progress,
        s.milliseconds_io,
        s.weighted_milliseconds_io,
    )
}

fn netstats(prefix: Option<&str>, s: &NetStats) -> String {
    let p = pfx(prefix);
    format!(
        "{p}PMIX_NET_STATS Interface: {}\n{p}NumBytesRecvd: {:x} NumPacketsRecv: {:x} NumRecvErrors: {:x}\n{p}NumBytesSent: {:x} NumPacketsSent: {:x} NumSendErrors: {:x}\n",
        cnull(&s.net_interface),
        s.num_bytes_recvd,
        s.num_packets_recvd,
        s.num_recv_errs,
        s.num_bytes_sent,
        s.num_packets_sent,
        s.num_send_errs,
    )
}

fn ndstats(prefix: Option<&str>, s: &NodeStats) -> String {
    let p = pfx(prefix);
    let f = |x: f32| c_float(x.into(), 2, 5);
    format!(
        "{p}PMIX_NODE_STATS SAMPLED AT: {}\tNode: {}\n{p}Total Mem: {} Free Mem: {} Buffers: {} Cached: {}\n{p}SwapCached: {} SwapTotal: {} SwapFree: {} Mapped: {}\n{p}\tla: {}\tla5: {}\tla15: {}\n",
        tv(&s.sample_time),
        cnull(&s.node),
        f(s.total_mem),
        f(s.free_mem),
        f(s.buffers),
        f(s.cached),
        f(s.swap_cached),
        f(s.swap_total),
        f(s.swap_free),
        f(s.mapped),
        f(s.la),
        f(s.la5),
        f(s.la15),
    )
}

fn query(prefix: Option<&str>, q: &Query, hw: &dyn Hwloc) -> String {
    let p2 = format!("{}\t", pfx(prefix));
    let mut out = format!("{}Data type: PMIX_QUERY\tValue:", pfx(prefix));
    for k in &q.keys {
        let _ = write!(out, "\n{}Key: {}", p2, k.to_string_lossy());
    }
    for i in &q.qualifiers {
        let _ = write!(out, "\n{}", info_with(Some(&p2), i, hw));
    }
    out
}

fn pdata(prefix: Option<&str>, d: &PData, hw: &dyn Hwloc) -> String {
    format!(
        "{}  {}  KEY: {} {}",
        pfx(prefix),
        proc_line(prefix, &d.proc),
        attribute_name(d.key.as_bytes()),
        value_with(prefix, &d.value, hw).unwrap_or_else(|| "NULL".to_owned())
    )
}

/// `PMIx_Get_attribute_name` on a key: its macro name, or the key itself.
fn attribute_name(key: &[u8]) -> String {
    match crate::keys::by_string(key) {
        Some(a) => a.name.to_owned(),
        None => String::from_utf8_lossy(key).into_owned(),
    }
}

fn typed(prefix: Option<&str>, name: &str, value: impl std::fmt::Display) -> String {
    format!("{}Data type: {}\tValue: {}", pfx(prefix), name, value)
}

/// The reference's fallback for a type it cannot print.
fn unprintable(t: DataType) -> String {
    format!(
        " Data type: {}({})\tValue: UNPRINTABLE",
        text(strings::data_type_name(t.raw())),
        t.raw()
    )
}

/// Prints one item of its type as `PMIx_Data_print` does (the printer the
/// reference registers for that type). `None` where the reference returns
/// no string (`PMIX_APP`, `PMIX_KVAL` and failures).
pub fn item(prefix: Option<&str>, v: &Value, hw: &dyn Hwloc) -> Option<String> {
    Some(match v {
        Value::Undef => return None,
        Value::Bool(b) => typed(prefix, "PMIX_BOOL", if *b { "TRUE" } else { "FALSE" }),
        Value::Byte(b) => typed(prefix, "PMIX_BYTE", format!("{b:x}")),
        Value::String(None) => {
            format!("{}Data type: PMIX_STRING\tValue: NULL pointer", pfx(prefix))
        }
        Value::String(Some(s)) => typed(prefix, "PMIX_STRING", s.to_string_lossy()),
        Value::Size(x) => typed(prefix, "PMIX_SIZE", x),
        Value::Pid(x) => typed(prefix, "PMIX_PID", i64::from(*x) as u64),
        Value::Int(x) => typed(prefix, "PMIX_INT", x),
        Value::Int8(x) => typed(prefix, "PMIX_INT8", x),
        Value::Int16(x) => typed(prefix, "PMIX_INT16", x),
        Value::Int32(x) => typed(prefix, "PMIX_INT32", x),
        Value::Int64(x) => typed(prefix, "PMIX_INT64", x),
        Value::Uint(x) => typed(prefix, "PMIX_UINT", x),
        Value::Uint8(x) => typed(prefix, "PMIX_UINT8", x),
        Value::Uint16(x) => typed(prefix, "PMIX_UINT16", x),
        Value::Uint32(x) => typed(prefix, "PMIX_UINT32", x),
        Value::Uint64(x) => typed(prefix, "PMIX_UINT64", x),
        Value::Float(x) => typed(prefix, "PMIX_FLOAT", f6((*x).into())),
        Value::Double(x) => typed(prefix, "PMIX_DOUBLE", f6(*x)),
        Value::Timeval(t) => typed(prefix, "PMIX_TIMEVAL", tv(t)),
        Value::Time(t) => typed(prefix, "PMIX_TIME", ctime(*t)),
        Value::Status(s) => typed(prefix, "PMIX_STATUS", text(strings::error_string(*s))),
        Value::Value(inner) => value_with(prefix, inner, hw)?,
        Value::Proc(p) => proc_line(prefix, p),
        Value::App(_) | Value::Kval(_) => return None,
        Value::Info(i) => info_with(prefix, i, hw),
        Value::PData(d) => pdata(prefix, d, hw),
        Value::ByteObject(b) | Value::CompressedString(b) => {
            format!(
                "{}Data type: PMIX_BYTE_OBJECT\tSize: {}",
                pfx(prefix),
                b.len()
            )
        }
        Value::CompressedByteObject(b) => format!(
            "{}Data type: PMIX_COMPRESSED_BYTE_OBJECT\tSize: {}",
            pfx(prefix),
            b.len()
        ),
        Value::Persist(x) => typed(prefix, "PMIX_PERSIST", x),
        Value::Pointer(p) => format!(
            "{}Data type: PMIX_POINTER\tAddress: {}",
            pfx(prefix),
            if *p == 0 {
                "(nil)".to_owned()
            } else {
                format!("{p:#x}")
            }
        ),
        Value::Scope(x) => typed(prefix, "PMIX_SCOPE", text(strings::scope_string(*x))),
        Value::DataRange(x) => typed(
            prefix,
            "PMIX_DATA_RANGE",
            text(strings::data_range_string(*x)),
        ),
        Value::Command(x) => typed(prefix, "PMIX_COMMAND", text(strings::command_string(*x))),
        Value::InfoDirectives(x) => typed(
            prefix,
            "PMIX_INFO_DIRECTIVES",
            strings::info_directives_string(*x),
        ),
        Value::DataType(x) => typed(prefix, "PMIX_DATA_TYPE", text(strings::data_type_name(*x))),
        Value::ProcState(x) => typed(
            prefix,
            "PMIX_PROC_STATE",
            text(strings::proc_state_string(*x)),
        ),
        Value::ProcInfo(p) => proc_info(prefix, p),
        Value::DataArray(d) => data_array(prefix, d, hw)?,
        Value::ProcRank(r) => typed(prefix, "PMIX_PROC_RANK", rank_text(*r)),
        Value::Query(q) => query(prefix, q, hw),
        Value::AllocDirective(x) => typed(
            prefix,
            "PMIX_ALLOC_DIRECTIVE",
            text(strings::alloc_directive_string(*x)),
        ),
        Value::IofChannel(x) => typed(
            prefix,
            "PMIX_IOF_CHANNEL",
            text(strings::iof_channel_string(*x)),
        ),
        Value::Envar(e) => envar(prefix, e),
        Value::Coord(c) => coord_line(prefix, c),
        Value::RegAttr(r) => regattr(prefix, r),
        Value::Regex(r) => {
            let text = r.split(|&b| b == 0).next().unwrap_or(&[]);
            format!(
                "{}Data type: PMIX_REGEX\tName: {}",
                pfx(prefix),
                String::from_utf8_lossy(text)
            )
        }
        Value::JobState(x) => typed(
            prefix,
            "PMIX_JOB_STATE",
            text(strings::job_state_string(*x)),
        ),
        Value::LinkState(x) => typed(
            prefix,
            "PMIX_LINK_STATE",
            text(strings::link_state_string(*x)),
        ),
        Value::Cpuset(c) => cpuset(prefix, c)?,
        Value::Geometry(g) => geometry(prefix, g),
        Value::DeviceDist(d) => devdist(prefix, d),
        Value::Endpoint(e) => endpoint(prefix, e),
        Value::Topology(t) => topology(prefix, t, hw)?,
        Value::DevType(x) => format!(
            "{}Data type: PMIX_DEVICE_TYPE\tValue: {:#x}",
            pfx(prefix),
            x
        ),
        Value::LocType(x) => typed(prefix, "PMIX_LOCALITY", locality(*x)),
        Value::ProcNspace(n) => typed(prefix, "PMIX_PROC_NSPACE", n.to_string_lossy()),
        Value::ProcStats(s) => pstats(prefix, s),
        Value::DiskStats(s) => dkstats(prefix, s),
        Value::NetStats(s) => netstats(prefix, s),
        Value::NodeStats(s) => ndstats(prefix, s),
        Value::DataBuffer(b) => {
            format!("{}PMIX_DATA_BUFFER NumBytesUsed: {}", pfx(prefix), b.len())
        }
        Value::StorMedium(x) => typed(prefix, "PMIX_STOR_MEDIUM", storage_medium(*x)),
        Value::StorAccess(x) => typed(prefix, "PMIX_STOR_ACCESS", storage_access(*x)),
        Value::StorPersist(x) => typed(prefix, "PMIX_STOR_PERSIST", storage_persistence(*x)),
        Value::StorAccessType(x) => typed(prefix, "PMIX_STOR_ACCESS_TYPE", storage_access_type(*x)),
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
    use DataType as T;
    t == T::Info || (printable_in_value(t) && t != T::Undef)
}

/// The payload part of a value (the reference's `print_val`).
fn val(v: &Value, hw: &dyn Hwloc) -> Option<String> {
    let t = v.data_type();
    if t == DataType::Undef {
        return Some(" Data type: PMIX_UNDEF".to_owned());
    }
    if !printable_in_value(t) {
        return Some(unprintable(t));
    }
    item(None, v, hw)
}

fn data_array(prefix: Option<&str>, d: &DataArray, hw: &dyn Hwloc) -> Option<String> {
    // The reference reports the last element's printing status, and an
    // empty array as a failure.
    let mut ok = false;
    let mut body: Option<String> = None;
    for v in &d.items {
        let printed = if printable_in_array(d.elem_type) {
            item(prefix, v, hw)
        } else {
            Some(unprintable(d.elem_type))
        };
        ok = printed.is_some();
        if let Some(tp) = printed {
            body = Some(match body {
                None => tp,
                Some(b) => format!("{}\n{}{}", b, pfx(prefix), tp),
            });
        }
    }
    if !ok {
        return None;
    }
    Some(format!(
        "{}Data type: PMIX_DATA_ARRAY\tType: {}\tSize: {}\n{}{}",
        pfx(prefix),
        text(strings::data_type_name(d.elem_type.raw())),
        d.items.len(),
        pfx(prefix),
        body.unwrap_or_else(|| "NULL".to_owned())
    ))
}

/// A value as the reference's `PMIX_VALUE` printer writes it:
/// `"<prefix>PMIX_VALUE: <payload>"`.
pub fn value_with(prefix: Option<&str>, v: &Value, hw: &dyn Hwloc) -> Option<String> {
    Some(format!("{}PMIX_VALUE: {}", pfx(prefix), val(v, hw)?))
}

/// An info as the reference's `PMIX_INFO` printer writes it: key (by its
/// attribute name when it has one), directives, value.
pub fn info_with(prefix: Option<&str>, i: &Info, hw: &dyn Hwloc) -> String {
    let p = pfx(prefix);
    let value = value_with(prefix, &i.value, hw).unwrap_or_else(|| "(null)".to_owned());
    format!(
        "{p}KEY: {}\n{p}\t{}Data type: PMIX_INFO_DIRECTIVES\tValue: {}\n{p}\t{}",
        attribute_name(i.key.as_bytes()),
        p,
        strings::info_directives_string(i.flags.0),
        value
    )
}

/// `PMIx_Value_string`.
pub fn value_string(v: &Value, hw: &dyn Hwloc) -> Option<String> {
    value_with(None, v, hw)
}

/// `PMIx_Info_string`.
pub fn info_string(i: &Info, hw: &dyn Hwloc) -> String {
    info_with(None, i, hw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Key, Nspace};

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
}
