//! Packing: [`Value`]s to the bytes OpenPMIx 4.2 writes for them in a
//! non-described buffer.
//!
//! Layout per type (integers as [`super::wire`] encodes them: varints by
//! default, fixed-width for bfrops v3; strings, byte objects and floats as
//! in [`super::wire`]):
//!
//! | type | bytes |
//! |---|---|
//! | bool, byte, int8, uint8, and the 8-bit enums | one raw byte each |
//! | int16/32/64, int, status | zigzag varint (`PMIX_INT` and `PMIX_UINT` as `int32`) |
//! | uint16/32/64, size, rank, enums of 16/32/64 bits | unsigned varint |
//! | pid | one type tag `PMIX_UINT32` per pack call, then each pid as a `uint32` |
//! | float, double | `%f` text as a string |
//! | timeval | `int64` seconds, `int64` microseconds |
//! | time | `uint64` |
//! | value | type tag, then the payload |
//! | info | key, flags (`uint32`), type tag, payload |
//! | data array | element type tag, element count (`size_t`), elements |
//! | pointer | one byte `1` per pack call, whatever the count |
//!
//! Structures are their fields in the order of the reference's pack
//! functions; see each arm of [`pack_one`].

use std::ffi::CStr;

use super::{regex, wire, CodecError};
use crate::value::*;
use crate::{DataType, Info, Proc, Value};

/// The support flags hwloc reports for a Linux topology (discovery: 6,
/// cpubind: 11, membind: 15 bytes), packed after a topology's XML. Our
/// [`Topology`] carries no support flags, so these typical values are
/// written; unpacking skips them.
pub const TOPOLOGY_SUPPORT: [u8; 32] = [
    1, 1, 1, 1, 1, 1, // discovery
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, // cpubind
    0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, // membind
];

/// Appends `count` then the items, all of type `ty`, exactly as
/// `PMIx_Data_pack(NULL, buf, items, count, ty)` does.
///
/// As in the reference, the count is written before the type is checked,
/// so a failed pack can leave the count behind.
pub fn pack_counted(out: &mut Vec<u8>, ty: DataType, items: &[Value]) -> Result<(), CodecError> {
    wire::put_count(out, items.len())?;
    pack_items(out, ty, items)
}

/// Appends the items (no count), all of type `ty`.
pub fn pack_items(out: &mut Vec<u8>, ty: DataType, items: &[Value]) -> Result<(), CodecError> {
    match ty {
        DataType::Undef => return Err(CodecError::UnknownType(ty.raw())),
        DataType::Pointer => {
            check_types(ty, items)?;
            // A pointer is meaningless elsewhere: one sentinel per call.
            out.push(1);
            return Ok(());
        }
        DataType::Pid => {
            check_types(ty, items)?;
            // pid_t is a "system type": one tag for the whole call names
            // the integer type the pids travel as.
            wire::put_type(out, DataType::Uint32.raw());
            for v in items {
                if let Value::Pid(p) = v {
                    wire::put_u32(out, *p as u32);
                }
            }
            return Ok(());
        }
        _ => {}
    }
    for v in items {
        check_type(ty, v)?;
        pack_one(out, v)?;
    }
    Ok(())
}

fn check_type(ty: DataType, v: &Value) -> Result<(), CodecError> {
    let found = v.data_type();
    if found != ty {
        return Err(CodecError::TypeMismatch {
            expected: ty,
            found,
        });
    }
    Ok(())
}

fn check_types(ty: DataType, items: &[Value]) -> Result<(), CodecError> {
    items.iter().try_for_each(|v| check_type(ty, v))
}

/// Appends the payload of a `pmix_value_t` with its type tag in front (the
/// form values take inside infos, pdata, kvals and `PMIX_VALUE` items).
pub fn pack_val(out: &mut Vec<u8>, v: &Value) -> Result<(), CodecError> {
    let ty = v.data_type();
    wire::put_type(out, ty.raw());
    match ty {
        DataType::Undef => Ok(()),
        _ => pack_items(out, ty, std::slice::from_ref(v)),
    }
}

fn opt(s: &OptString) -> Option<&CStr> {
    s.as_deref()
}

fn pack_proc(out: &mut Vec<u8>, p: &Proc) -> Result<(), CodecError> {
    wire::put_cstr(out, p.nspace.as_c_str())?;
    wire::put_u32(out, p.rank.0);
    Ok(())
}

fn pack_info(out: &mut Vec<u8>, i: &Info) -> Result<(), CodecError> {
    wire::put_cstr(out, i.key.as_c_str())?;
    wire::put_u32(out, i.flags.0);
    pack_val(out, &i.value)
}

fn pack_infos(out: &mut Vec<u8>, infos: &[Info]) -> Result<(), CodecError> {
    wire::put_size(out, infos.len());
    infos.iter().try_for_each(|i| pack_info(out, i))
}

fn pack_strings(out: &mut Vec<u8>, v: &[std::ffi::CString]) -> Result<(), CodecError> {
    v.iter().try_for_each(|s| wire::put_cstr(out, s))
}

fn pack_pid(out: &mut Vec<u8>, pid: i32) {
    wire::put_type(out, DataType::Uint32.raw());
    wire::put_u32(out, pid as u32);
}

fn pack_timeval(out: &mut Vec<u8>, t: &Timeval) {
    wire::put_i64(out, t.sec);
    wire::put_i64(out, t.usec);
}

fn pack_coord(out: &mut Vec<u8>, c: &Coord) {
    out.push(c.view);
    wire::put_size(out, c.coord.len());
    for &x in &c.coord {
        wire::put_u32(out, x);
    }
}

fn check_hwloc(source: &OptString, what: &'static str) -> Result<(), CodecError> {
    match source {
        Some(s)
            if !s
                .to_bytes()
                .get(..5)
                .is_some_and(|p| p.eq_ignore_ascii_case(b"hwloc")) =>
        {
            Err(CodecError::NotSupported(what))
        }
        _ => Ok(()),
    }
}

/// A disk's or network interface's stats: its name, then its counters.
fn pack_counters(out: &mut Vec<u8>, name: &OptString, counters: &[u64]) -> Result<(), CodecError> {
    wire::put_str(out, opt(name))?;
    for &v in counters {
        wire::put_u64(out, v);
    }
    Ok(())
}

fn pack_disk(out: &mut Vec<u8>, d: &DiskStats) -> Result<(), CodecError> {
    pack_counters(
        out,
        &d.disk,
        &[
            d.num_reads_completed,
            d.num_reads_merged,
            d.num_sectors_read,
            d.milliseconds_reading,
            d.num_writes_completed,
            d.num_writes_merged,
            d.num_sectors_written,
            d.milliseconds_writing,
            d.num_ios_in_progress,
            d.milliseconds_io,
            d.weighted_milliseconds_io,
        ],
    )
}

fn pack_net(out: &mut Vec<u8>, n: &NetStats) -> Result<(), CodecError> {
    pack_counters(
        out,
        &n.net_interface,
        &[
            n.num_bytes_recvd,
            n.num_packets_recvd,
            n.num_recv_errs,
            n.num_bytes_sent,
            n.num_packets_sent,
            n.num_send_errs,
        ],
    )
}

/// Appends one item (no type tag, no count).
pub fn pack_one(out: &mut Vec<u8>, v: &Value) -> Result<(), CodecError> {
    match v {
        Value::Undef => return Err(CodecError::UnknownType(DataType::Undef.raw())),
        Value::Bool(b) => out.push(u8::from(*b)),
        Value::Byte(x)
        | Value::Uint8(x)
        | Value::Persist(x)
        | Value::Scope(x)
        | Value::DataRange(x)
        | Value::Command(x)
        | Value::ProcState(x)
        | Value::AllocDirective(x)
        | Value::JobState(x)
        | Value::LinkState(x) => out.push(*x),
        Value::Int8(x) => out.push(*x as u8),
        Value::String(s) => wire::put_str(out, opt(s))?,
        Value::Size(x) => wire::put_size(out, *x),
        Value::Pid(p) => pack_pid(out, *p),
        Value::Int(x) => wire::put_int(out, *x),
        Value::Int32(x) | Value::Status(x) => wire::put_i32(out, *x),
        // PMIX_UINT travels as the signed int of the same bits.
        Value::Uint(x) => wire::put_int(out, *x as i32),
        Value::Int16(x) => wire::put_i16(out, *x),
        Value::Int64(x) => wire::put_i64(out, *x),
        Value::Uint16(x)
        | Value::IofChannel(x)
        | Value::DataType(x)
        | Value::LocType(x)
        | Value::StorAccessType(x) => wire::put_u16(out, *x),
        Value::Uint32(x) | Value::InfoDirectives(x) | Value::ProcRank(x) => wire::put_u32(out, *x),
        Value::Uint64(x)
        | Value::DevType(x)
        | Value::StorMedium(x)
        | Value::StorAccess(x)
        | Value::StorPersist(x) => wire::put_u64(out, *x),
        Value::Float(x) => wire::put_float(out, f64::from(*x))?,
        Value::Double(x) => wire::put_float(out, *x)?,
        Value::Timeval(t) => pack_timeval(out, t),
        Value::Time(t) => wire::put_u64(out, *t as u64),
        Value::Value(inner) => pack_val(out, inner)?,
        Value::Proc(p) => pack_proc(out, p)?,
        Value::App(a) => pack_app(out, a)?,
        Value::Info(i) => pack_info(out, i)?,
        Value::PData(p) => {
            pack_proc(out, &p.proc)?;
            wire::put_cstr(out, p.key.as_c_str())?;
            pack_val(out, &p.value)?;
        }
        Value::ByteObject(b) | Value::CompressedString(b) | Value::CompressedByteObject(b) => {
            wire::put_bytes(out, b)
        }
        Value::Kval(k) => {
            wire::put_str(out, opt(&k.key))?;
            pack_val(out, k.value.as_deref().unwrap_or(&Value::Undef))?;
        }
        Value::Pointer(_) => out.push(1),
        Value::ProcInfo(p) => {
            pack_proc(out, &p.proc)?;
            wire::put_str(out, opt(&p.hostname))?;
            wire::put_str(out, opt(&p.executable_name))?;
            pack_pid(out, p.pid);
            // exit_code does not travel.
            out.push(p.state);
        }
        Value::DataArray(d) => {
            wire::put_type(out, d.elem_type.raw());
            wire::put_size(out, d.items.len());
            if !d.items.is_empty() && d.elem_type != DataType::Undef {
                pack_items(out, d.elem_type, &d.items)?;
            }
        }
        Value::Query(q) => {
            wire::put_count(out, q.keys.len())?;
            pack_strings(out, &q.keys)?;
            pack_infos(out, &q.qualifiers)?;
        }
        Value::Envar(e) => {
            wire::put_str(out, opt(&e.envar))?;
            wire::put_str(out, opt(&e.value))?;
            out.push(e.separator);
        }
        Value::Coord(c) => pack_coord(out, c),
        Value::RegAttr(a) => {
            wire::put_str(out, opt(&a.name))?;
            wire::put_cstr(out, a.string.as_c_str())?;
            wire::put_u16(out, a.data_type);
            wire::put_count(out, a.description.len())?;
            pack_strings(out, &a.description)?;
        }
        Value::Regex(r) => regex::pack(out, r)?,
        Value::Cpuset(c) => {
            check_hwloc(&c.source, "cpuset source other than hwloc")?;
            wire::put_str(out, opt(&c.bitmap))?;
        }
        Value::Geometry(g) => {
            wire::put_size(out, g.fabric);
            wire::put_str(out, opt(&g.uuid))?;
            wire::put_str(out, opt(&g.osname))?;
            wire::put_size(out, g.coordinates.len());
            g.coordinates.iter().for_each(|c| pack_coord(out, c));
        }
        Value::DeviceDist(d) => {
            wire::put_str(out, opt(&d.uuid))?;
            wire::put_str(out, opt(&d.osname))?;
            wire::put_u64(out, d.dev_type);
            wire::put_u16(out, d.mindist);
            wire::put_u16(out, d.maxdist);
        }
        Value::Endpoint(e) => {
            wire::put_str(out, opt(&e.uuid))?;
            wire::put_str(out, opt(&e.osname))?;
            wire::put_bytes(out, &e.endpt);
        }
        Value::Topology(t) => {
            check_hwloc(&t.source, "topology source other than hwloc")?;
            wire::put_str(out, opt(&t.xml))?;
            if t.xml.is_some() {
                out.extend_from_slice(&TOPOLOGY_SUPPORT);
            }
        }
        Value::ProcNspace(n) => wire::put_cstr(out, n.as_c_str())?,
        Value::ProcStats(s) => pack_proc_stats(out, s)?,
        Value::DiskStats(d) => pack_disk(out, d)?,
        Value::NetStats(n) => pack_net(out, n)?,
        Value::NodeStats(n) => pack_node_stats(out, n)?,
        Value::DataBuffer(b) => wire::put_bytes(out, b),
    }
    Ok(())
}

/// An application (`PMIX_APP`).
fn pack_app(out: &mut Vec<u8>, a: &App) -> Result<(), CodecError> {
    wire::put_str(out, opt(&a.cmd))?;
    // argc travels as PMIX_INT (tagged in v3), envc as PMIX_INT32.
    let argc =
        i32::try_from(a.argv.len()).map_err(|_| CodecError::BadParam("argc exceeds INT_MAX"))?;
    wire::put_int(out, argc);
    pack_strings(out, &a.argv)?;
    wire::put_count(out, a.env.len())?;
    pack_strings(out, &a.env)?;
    wire::put_str(out, opt(&a.cwd))?;
    wire::put_int(out, a.maxprocs);
    pack_infos(out, &a.info)?;
    Ok(())
}

/// A process's statistics (`PMIX_PROC_STATS`).
fn pack_proc_stats(out: &mut Vec<u8>, s: &ProcStats) -> Result<(), CodecError> {
    wire::put_str(out, opt(&s.node))?;
    pack_proc(out, &s.proc)?;
    pack_pid(out, s.pid);
    wire::put_str(out, opt(&s.cmd))?;
    out.push(s.state);
    pack_timeval(out, &s.time);
    wire::put_i32(out, s.priority);
    wire::put_i16(out, s.num_threads as i16);
    // percent_cpu and peak_vsize do not travel.
    for f in [s.pss, s.vsize, s.rss] {
        wire::put_float(out, f64::from(f))?;
    }
    wire::put_i16(out, s.processor as i16);
    pack_timeval(out, &s.sample_time);
    Ok(())
}

/// A node's statistics (`PMIX_NODE_STATS`).
fn pack_node_stats(out: &mut Vec<u8>, n: &NodeStats) -> Result<(), CodecError> {
    wire::put_str(out, opt(&n.node))?;
    for f in n.figures() {
        wire::put_float(out, f64::from(f))?;
    }
    pack_timeval(out, &n.sample_time);
    wire::put_size(out, n.diskstats.len());
    n.diskstats.iter().try_for_each(|d| pack_disk(out, d))?;
    wire::put_size(out, n.netstats.len());
    n.netstats.iter().try_for_each(|x| pack_net(out, x))?;
    Ok(())
}
