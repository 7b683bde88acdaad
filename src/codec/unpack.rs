//! Unpacking: bytes in the layout of [`super::pack`] back to [`Value`]s.
//!
//! Every length and count is checked against the bytes that remain before
//! anything is allocated for it, structures may nest at most
//! [`MAX_DEPTH`] levels, and no input makes these functions panic.

use super::{pack::TOPOLOGY_SUPPORT, regex, wire, CodecError, Reader};
use crate::value::*;
use crate::{DataType, Info, InfoDirectives, Proc, Rank, Value};

/// Deepest nesting of values, infos and data arrays accepted.
pub const MAX_DEPTH: usize = 64;

/// Most items of a type that occupies no bytes (pointers, whose pack
/// writes one sentinel for any count) produced by one unpack.
pub const MAX_ZERO_WIDTH_ITEMS: usize = 1 << 16;

/// The values read by one counted unpack.
#[derive(Clone, Debug, PartialEq)]
pub struct Unpacked {
    /// The values read: all of them, or as many as the caller had room for.
    pub values: Vec<Value>,
    /// How many values the buffer declared.
    pub total: usize,
}

impl Unpacked {
    /// True if fewer values were read than the buffer declared (the
    /// reference then returns `PMIX_ERR_UNPACK_INADEQUATE_SPACE` with the
    /// values it read).
    pub fn is_partial(&self) -> bool {
        self.values.len() < self.total
    }
}

/// Reads a count and then up to `room` values of type `ty`, as
/// `PMIx_Data_unpack` does with `*max_num_values == room`.
pub fn unpack_counted(
    r: &mut Reader<'_>,
    ty: DataType,
    room: usize,
) -> Result<Unpacked, CodecError> {
    if room == 0 {
        return Err(CodecError::InadequateSpace { total: 0, room });
    }
    let n = wire::get_i32(r)?;
    let total = usize::try_from(n).map_err(|_| CodecError::BadLength(n.into()))?;
    let values = unpack_items(r, ty, total.min(room), 0)?;
    Ok(Unpacked { values, total })
}

/// Reads `n` items of type `ty` (no count in front).
pub fn unpack_items(
    r: &mut Reader<'_>,
    ty: DataType,
    n: usize,
    depth: usize,
) -> Result<Vec<Value>, CodecError> {
    match ty {
        DataType::Undef => Err(CodecError::UnknownType(ty.raw())),
        DataType::Pointer => {
            if n > MAX_ZERO_WIDTH_ITEMS {
                return Err(CodecError::BadLength(n as i128));
            }
            r.byte()?;
            Ok(vec![Value::Pointer(0); n])
        }
        DataType::Pid => pids_(r, n),
        _ => {
            // Every other item takes at least one byte.
            if n > r.remaining() {
                // Read the first item anyway so that the error is the one
                // the reference would report for running off the end.
                unpack_one(r, ty, depth)?;
                return Err(CodecError::ReadPastEnd);
            }
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(unpack_one(r, ty, depth)?);
            }
            Ok(v)
        }
    }
}

/// Reads a type tag and the payload of that type (a `pmix_value_t`).
pub fn unpack_val(r: &mut Reader<'_>, depth: usize) -> Result<Value, CodecError> {
    let t = wire::get_type(r)?;
    let ty = DataType::from_raw(t).ok_or(CodecError::UnknownType(t))?;
    match ty {
        DataType::Undef => Ok(Value::Undef),
        DataType::Pointer => {
            r.byte()?;
            Ok(Value::Pointer(0))
        }
        _ => unpack_one(r, ty, depth),
    }
}

fn deeper(depth: usize) -> Result<usize, CodecError> {
    if depth >= MAX_DEPTH {
        return Err(CodecError::TooDeep(MAX_DEPTH));
    }
    Ok(depth + 1)
}

fn u8_(r: &mut Reader<'_>) -> Result<u8, CodecError> {
    r.byte()
}

fn proc_(r: &mut Reader<'_>) -> Result<Proc, CodecError> {
    let nspace = wire::get_nspace(r)?;
    let rank = Rank(wire::get_u32(r)?);
    Ok(Proc { nspace, rank })
}

fn info_(r: &mut Reader<'_>, depth: usize) -> Result<Info, CodecError> {
    let key = wire::get_key(r)?;
    let flags = InfoDirectives(wire::get_u32(r)?);
    let value = unpack_val(r, depth)?;
    Ok(Info { key, flags, value })
}

fn infos_(r: &mut Reader<'_>, depth: usize) -> Result<Vec<Info>, CodecError> {
    let n = wire::get_size_count(r)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(info_(r, depth)?);
    }
    Ok(v)
}

/// Reads `n` `pid_t`s, which travel behind one tag naming the integer type
/// they were packed as; any integer tag is converted as C would cast it.
fn pids_(r: &mut Reader<'_>, n: usize) -> Result<Vec<Value>, CodecError> {
    let tag = wire::get_type(r)?;
    DataType::from_raw(tag).ok_or(CodecError::UnexpectedTag(tag))?;
    let mut v = Vec::with_capacity(n.min(r.remaining()));
    for _ in 0..n {
        v.push(Value::Pid(pid_as(r, tag)?));
    }
    Ok(v)
}

/// Reads one tagged `pid_t`.
fn pid_(r: &mut Reader<'_>) -> Result<i32, CodecError> {
    match pids_(r, 1)?.pop() {
        Some(Value::Pid(p)) => Ok(p),
        _ => Err(CodecError::ReadPastEnd),
    }
}

fn pid_as(r: &mut Reader<'_>, tag: u16) -> Result<i32, CodecError> {
    Ok(wire::get_tagged(r, tag)? as i32)
}

fn timeval_(r: &mut Reader<'_>) -> Result<Timeval, CodecError> {
    Ok(Timeval {
        sec: wire::get_i64(r)?,
        usec: wire::get_i64(r)?,
    })
}

fn coord_(r: &mut Reader<'_>) -> Result<Coord, CodecError> {
    let view = r.byte()?;
    let n = wire::get_size_count(r)?;
    let mut coord = Vec::with_capacity(n);
    for _ in 0..n {
        coord.push(wire::get_u32(r)?);
    }
    Ok(Coord { view, coord })
}

fn strings_(r: &mut Reader<'_>, n: usize) -> Result<Vec<std::ffi::CString>, CodecError> {
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(wire::get_cstr(r)?);
    }
    Ok(v)
}

fn disk_(r: &mut Reader<'_>) -> Result<DiskStats, CodecError> {
    let disk = wire::get_str(r)?;
    let mut f = [0u64; 11];
    for x in &mut f {
        *x = wire::get_u64(r)?;
    }
    Ok(DiskStats {
        disk,
        num_reads_completed: f[0],
        num_reads_merged: f[1],
        num_sectors_read: f[2],
        milliseconds_reading: f[3],
        num_writes_completed: f[4],
        num_writes_merged: f[5],
        num_sectors_written: f[6],
        milliseconds_writing: f[7],
        num_ios_in_progress: f[8],
        milliseconds_io: f[9],
        weighted_milliseconds_io: f[10],
    })
}

fn net_(r: &mut Reader<'_>) -> Result<NetStats, CodecError> {
    let net_interface = wire::get_str(r)?;
    let mut f = [0u64; 6];
    for x in &mut f {
        *x = wire::get_u64(r)?;
    }
    Ok(NetStats {
        net_interface,
        num_bytes_recvd: f[0],
        num_packets_recvd: f[1],
        num_recv_errs: f[2],
        num_bytes_sent: f[3],
        num_packets_sent: f[4],
        num_send_errs: f[5],
    })
}

fn hwloc_source() -> OptString {
    Some(c"hwloc".to_owned())
}

/// Reads one item of type `ty` (no count, no tag).
pub fn unpack_one(r: &mut Reader<'_>, ty: DataType, depth: usize) -> Result<Value, CodecError> {
    use DataType as T;
    // Only the container types recurse; keeping them apart keeps the
    // frames on the recursion path small, so that MAX_DEPTH levels fit in
    // a thread's stack even in unoptimized builds.
    match ty {
        T::Value | T::App | T::Info | T::PData | T::Kval | T::DataArray | T::Query => {
            unpack_container(r, ty, depth)
        }
        _ => unpack_leaf(r, ty),
    }
}

/// Items that hold other values: each in its own small function.
fn unpack_container(r: &mut Reader<'_>, ty: DataType, depth: usize) -> Result<Value, CodecError> {
    let depth = deeper(depth)?;
    match ty {
        DataType::Value => value_item_(r, depth),
        DataType::App => app_(r, depth),
        DataType::Info => Ok(Value::Info(Box::new(info_(r, depth)?))),
        DataType::PData => pdata_(r, depth),
        DataType::Kval => kval_(r, depth),
        DataType::DataArray => darray_(r, depth),
        DataType::Query => query_(r, depth),
        _ => unpack_leaf(r, ty),
    }
}

#[inline(never)]
fn value_item_(r: &mut Reader<'_>, depth: usize) -> Result<Value, CodecError> {
    Ok(Value::Value(Box::new(unpack_val(r, depth)?)))
}

#[inline(never)]
fn app_(r: &mut Reader<'_>, depth: usize) -> Result<Value, CodecError> {
    let cmd = wire::get_str(r)?;
    let argc = wire::get_int_count(r)?;
    let argv = strings_(r, argc)?;
    let envc = wire::get_count(r)?;
    let env = strings_(r, envc)?;
    // The rest in the order the fields are written (and read).
    Ok(Value::App(Box::new(App {
        cmd,
        argv,
        env,
        cwd: wire::get_str(r)?,
        maxprocs: wire::get_int(r)?,
        info: infos_(r, depth)?,
    })))
}

#[inline(never)]
fn pdata_(r: &mut Reader<'_>, depth: usize) -> Result<Value, CodecError> {
    let proc = proc_(r)?;
    let key = wire::get_key(r)?;
    let value = unpack_val(r, depth)?;
    Ok(Value::PData(Box::new(PData { proc, key, value })))
}

#[inline(never)]
fn kval_(r: &mut Reader<'_>, depth: usize) -> Result<Value, CodecError> {
    let key = wire::get_str(r)?;
    let value = Box::new(unpack_val(r, depth)?);
    Ok(Value::Kval(Box::new(Kval {
        key,
        value: Some(value),
    })))
}

#[inline(never)]
fn darray_(r: &mut Reader<'_>, depth: usize) -> Result<Value, CodecError> {
    let t = wire::get_type(r)?;
    let elem_type = DataType::from_raw(t).ok_or(CodecError::UnknownType(t))?;
    let size = wire::get_size(r)?;
    let items = if size == 0 || elem_type == DataType::Undef {
        Vec::new()
    } else {
        let n = usize::try_from(size)
            .ok()
            .filter(|&n| i32::try_from(n).is_ok())
            .ok_or(CodecError::BadLength(size.into()))?;
        unpack_items(r, elem_type, n, depth)?
    };
    Ok(Value::DataArray(Box::new(DataArray { elem_type, items })))
}

#[inline(never)]
fn query_(r: &mut Reader<'_>, depth: usize) -> Result<Value, CodecError> {
    let n = wire::get_i32(r)?;
    // A non-positive count means no keys.
    let n = usize::try_from(n).unwrap_or(0);
    if n > r.remaining() {
        return Err(CodecError::BadLength(n as i128));
    }
    let keys = wire::get_argv(r, n)?;
    let qualifiers = infos_(r, depth)?;
    Ok(Value::Query(Box::new(Query { keys, qualifiers })))
}

/// Items that hold no other values.
#[inline(never)]
fn unpack_leaf(r: &mut Reader<'_>, ty: DataType) -> Result<Value, CodecError> {
    use DataType as T;
    Ok(match ty {
        T::Undef => return Err(CodecError::UnknownType(ty.raw())),
        T::Bool => Value::Bool(r.byte()? != 0),
        T::Byte => Value::Byte(u8_(r)?),
        T::Uint8 => Value::Uint8(u8_(r)?),
        T::Int8 => Value::Int8(u8_(r)? as i8),
        T::Persist => Value::Persist(u8_(r)?),
        T::Scope => Value::Scope(u8_(r)?),
        T::DataRange => Value::DataRange(u8_(r)?),
        T::Command => Value::Command(u8_(r)?),
        T::ProcState => Value::ProcState(u8_(r)?),
        T::AllocDirective => Value::AllocDirective(u8_(r)?),
        T::JobState => Value::JobState(u8_(r)?),
        T::LinkState => Value::LinkState(u8_(r)?),
        T::String => Value::String(wire::get_str(r)?),
        T::Size => Value::Size(wire::get_size(r)? as usize),
        T::Pid => Value::Pid(pid_(r)?),
        T::Int => Value::Int(wire::get_int(r)?),
        T::Int32 => Value::Int32(wire::get_i32(r)?),
        T::Status => Value::Status(wire::get_i32(r)?),
        T::Uint => Value::Uint(wire::get_int(r)? as u32),
        T::Int16 => Value::Int16(wire::get_i16(r)?),
        T::Int64 => Value::Int64(wire::get_i64(r)?),
        T::Uint16 => Value::Uint16(wire::get_u16(r)?),
        T::IofChannel => Value::IofChannel(wire::get_u16(r)?),
        // The reference reads this back as a zigzag int16 although it packs
        // it as a uint16 (so its own round trip is wrong); we read it as
        // it was packed.
        T::DataType => Value::DataType(wire::get_u16(r)?),
        T::LocType => Value::LocType(wire::get_u16(r)?),
        T::StorAccessType => Value::StorAccessType(wire::get_u16(r)?),
        T::Uint32 => Value::Uint32(wire::get_u32(r)?),
        T::InfoDirectives => Value::InfoDirectives(wire::get_u32(r)?),
        T::ProcRank => Value::ProcRank(wire::get_u32(r)?),
        T::Uint64 => Value::Uint64(wire::get_u64(r)?),
        T::DevType => Value::DevType(wire::get_u64(r)?),
        T::StorMedium => Value::StorMedium(wire::get_u64(r)?),
        T::StorAccess => Value::StorAccess(wire::get_u64(r)?),
        T::StorPersist => Value::StorPersist(wire::get_u64(r)?),
        T::Float => Value::Float(wire::get_f32(r)?),
        T::Double => Value::Double(wire::get_f64(r)?),
        T::Timeval => Value::Timeval(timeval_(r)?),
        T::Time => Value::Time(wire::get_u64(r)? as i64),
        T::Proc => Value::Proc(proc_(r)?),
        T::ByteObject => Value::ByteObject(wire::get_bytes(r)?),
        T::CompressedString => Value::CompressedString(wire::get_bytes(r)?),
        T::CompressedByteObject => Value::CompressedByteObject(wire::get_bytes(r)?),
        T::Pointer => {
            r.byte()?;
            Value::Pointer(0)
        }
        T::ProcInfo => {
            let proc = proc_(r)?;
            let hostname = wire::get_str(r)?;
            let executable_name = wire::get_str(r)?;
            let pid = pid_(r)?;
            let state = r.byte()?;
            Value::ProcInfo(Box::new(ProcInfo {
                proc,
                hostname,
                executable_name,
                pid,
                exit_code: 0,
                state,
            }))
        }
        T::Envar => Value::Envar(Envar {
            envar: wire::get_str(r)?,
            value: wire::get_str(r)?,
            separator: r.byte()?,
        }),
        T::Coord => Value::Coord(Box::new(coord_(r)?)),
        T::RegAttr => reg_attr_(r)?,
        T::Regex => Value::Regex(regex::unpack(r)?),
        T::ProcCpuset => Value::Cpuset(Box::new(Cpuset {
            source: hwloc_source(),
            bitmap: wire::get_str(r)?,
        })),
        T::Geometry => geometry_(r)?,
        T::DeviceDist => Value::DeviceDist(Box::new(DeviceDistance {
            uuid: wire::get_str(r)?,
            osname: wire::get_str(r)?,
            dev_type: wire::get_u64(r)?,
            mindist: wire::get_u16(r)?,
            maxdist: wire::get_u16(r)?,
        })),
        T::Endpoint => Value::Endpoint(Box::new(Endpoint {
            uuid: wire::get_str(r)?,
            osname: wire::get_str(r)?,
            endpt: wire::get_bytes(r)?,
        })),
        T::Topo => {
            let xml = wire::get_str(r)?;
            if xml.is_some() {
                r.take(TOPOLOGY_SUPPORT.len())?;
            }
            Value::Topology(Box::new(Topology {
                source: hwloc_source(),
                xml,
            }))
        }
        T::ProcNspace => Value::ProcNspace(
            wire::get_str(r)?
                .map(|s| crate::Nspace::truncated(&s))
                .unwrap_or_default(),
        ),
        T::ProcStats => proc_stats_(r)?,
        T::DiskStats => Value::DiskStats(Box::new(disk_(r)?)),
        T::NetStats => Value::NetStats(Box::new(net_(r)?)),
        T::NodeStats => node_stats_(r)?,
        T::DataBuffer => Value::DataBuffer(wire::get_bytes(r)?),
        T::Value | T::App | T::Info | T::PData | T::Kval | T::DataArray | T::Query => {
            return Err(CodecError::UnknownType(ty.raw()))
        }
    })
}

/// A registered attribute.
fn reg_attr_(r: &mut Reader<'_>) -> Result<Value, CodecError> {
    let name = wire::get_str(r)?;
    let string = wire::get_key(r)?;
    let data_type = wire::get_u16(r)?;
    let n = wire::get_i32(r)?;
    let n = usize::try_from(n).unwrap_or(0);
    if n > r.remaining() {
        return Err(CodecError::BadLength(n as i128));
    }
    let description = wire::get_argv(r, n)?;
    Ok(Value::RegAttr(Box::new(RegAttr {
        name,
        string,
        data_type,
        description,
    })))
}

/// A geometry.
fn geometry_(r: &mut Reader<'_>) -> Result<Value, CodecError> {
    let fabric = wire::get_size(r)? as usize;
    let uuid = wire::get_str(r)?;
    let osname = wire::get_str(r)?;
    let n = wire::get_size_count(r)?;
    let mut coordinates = Vec::with_capacity(n);
    for _ in 0..n {
        coordinates.push(coord_(r)?);
    }
    Ok(Value::Geometry(Box::new(Geometry {
        fabric,
        uuid,
        osname,
        coordinates,
    })))
}

/// A process's statistics (the fields that travel).
fn proc_stats_(r: &mut Reader<'_>) -> Result<Value, CodecError> {
    // Read in the order the fields are written (a struct expression's
    // fields are evaluated as written); the two that do not travel are 0.
    Ok(Value::ProcStats(Box::new(ProcStats {
        node: wire::get_str(r)?,
        proc: proc_(r)?,
        pid: pid_(r)?,
        cmd: wire::get_str(r)?,
        state: r.byte()?,
        time: timeval_(r)?,
        percent_cpu: 0.0,
        priority: wire::get_i32(r)?,
        num_threads: wire::get_i16(r)? as u16,
        pss: wire::get_f32(r)?,
        vsize: wire::get_f32(r)?,
        rss: wire::get_f32(r)?,
        peak_vsize: 0.0,
        processor: wire::get_i16(r)? as u16,
        sample_time: timeval_(r)?,
    })))
}

/// A node's statistics.
fn node_stats_(r: &mut Reader<'_>) -> Result<Value, CodecError> {
    let node = wire::get_str(r)?;
    let mut f = [0f32; 11];
    for x in &mut f {
        *x = wire::get_f32(r)?;
    }
    let sample_time = timeval_(r)?;
    let n = wire::get_size_count(r)?;
    let mut diskstats = Vec::with_capacity(n);
    for _ in 0..n {
        diskstats.push(disk_(r)?);
    }
    let n = wire::get_size_count(r)?;
    let mut netstats = Vec::with_capacity(n);
    for _ in 0..n {
        netstats.push(net_(r)?);
    }
    Ok(Value::NodeStats(Box::new(NodeStats::from_figures(
        node,
        f,
        sample_time,
        diskstats,
        netstats,
    ))))
}
