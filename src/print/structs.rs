//! The printers of the struct types made of plain fields: process info,
//! environment variable, coordinate, registered attribute, geometry,
//! device distance, endpoint, and the process, disk, network and node
//! statistics.
//!
//! Invariants: each prints one line per field, each line starting with
//! the caller's prefix, in the reference's order and words.

use crate::strings;
use crate::value::{
    Coord, DeviceDistance, DiskStats, Endpoint, Envar, Geometry, NetStats, NodeStats, ProcInfo,
    ProcStats, RegAttr,
};

use super::text::{cs, f2, name_print, proc_line, s_or_null, s_or_word, tv};

pub(super) fn proc_info(p: &[u8], i: &ProcInfo) -> Vec<u8> {
    let p2 = cat!(p, "\t");
    cat!(
        p,
        "Data type: PMIX_PROC_INFO\tValue:\n",
        proc_line(&p2, &i.proc),
        "\n",
        p2,
        "Hostname: ",
        s_or_null(&i.hostname),
        "\tExecutable: ",
        s_or_null(&i.executable_name),
        "\n",
        p2,
        format!(
            "Pid: {}\tExit code: {}\tState: ",
            i64::from(i.pid) as u64,
            i.exit_code
        ),
        cs(strings::proc_state_string(i.state)),
    )
}

pub(super) fn envar(p: &[u8], e: &Envar) -> Vec<u8> {
    let sep = if e.separator == 0 { b' ' } else { e.separator };
    cat!(
        p,
        "Data type: PMIX_ENVAR\tName: ",
        s_or_word(&e.envar),
        "\tValue: ",
        s_or_word(&e.value),
        "\tSeparator: ",
        [sep],
    )
}

pub(super) fn coord_line(p: &[u8], c: &Coord) -> Vec<u8> {
    let view = match c.view {
        0 => "UNDEF",
        1 => "LOGICAL",
        2 => "PHYSICAL",
        _ => "UNRECOGNIZED",
    };
    cat!(
        p,
        format!(
            "Data type: PMIX_COORD\tView: {view}\tDims: {}",
            c.coord.len()
        )
    )
}

pub(super) fn regattr(p: &[u8], a: &RegAttr) -> Vec<u8> {
    let string: &[u8] = if a.string.is_empty() {
        b"NULL"
    } else {
        a.string.as_bytes()
    };
    cat!(
        p,
        "Data type: PMIX_REGATTR\tName: ",
        s_or_word(&a.name),
        "\tString: ",
        string,
    )
}

pub(super) fn geometry(p: &[u8], g: &Geometry) -> Vec<u8> {
    let mut o = cat!(
        p,
        format!(
            "Data type: PMIX_GEOMETRY\tValue: Fabric: {} UUID: ",
            g.fabric
        ),
        s_or_word(&g.uuid),
        " OSName: ",
        s_or_word(&g.osname),
    );
    for c in &g.coordinates {
        o.extend(cat!("\n", coord_line(p, c)));
    }
    o
}

pub(super) fn devdist(p: &[u8], d: &DeviceDistance) -> Vec<u8> {
    cat!(
        p,
        "Data type: PMIX_DEVICE_DIST\tValue: UUID: ",
        s_or_word(&d.uuid),
        " OSName: ",
        s_or_word(&d.osname),
        " Type: ",
        cs(strings::device_type_string(d.dev_type)),
        format!(" Min: {} Max: {}", d.mindist, d.maxdist),
    )
}

pub(super) fn endpoint(p: &[u8], e: &Endpoint) -> Vec<u8> {
    cat!(
        p,
        "Data type: PMIX_ENDPOINT\tValue: ",
        s_or_word(&e.uuid),
        "(",
        s_or_word(&e.osname),
        format!(") #bytes: {}", e.endpt.len()),
    )
}

pub(super) fn pstats(p: &[u8], s: &ProcStats) -> Vec<u8> {
    cat!(
        p,
        format!("PMIX_PROC_STATS SAMPLED AT: {}\n", tv(&s.sample_time)),
        p,
        "node: ",
        s_or_null(&s.node),
        " proc: ",
        name_print(&s.proc),
        format!(" pid: {} cmd: ", s.pid),
        s_or_null(&s.cmd),
        " state: ",
        [s.state],
        format!(
            " pri: {} #threads: {} Processor: {}\n",
            s.priority, s.num_threads, s.processor
        ),
        p,
        format!(
            "\ttime: {} cpu: {}  PSS: {}  VMsize: {} PeakVMSize: {} RSS: {}\n",
            tv(&s.time),
            f2(s.percent_cpu, 5),
            f2(s.pss, 8),
            f2(s.vsize, 8),
            f2(s.peak_vsize, 8),
            f2(s.rss, 8)
        ),
    )
}

pub(super) fn dkstats(p: &[u8], d: &DiskStats) -> Vec<u8> {
    cat!(
        p,
        "PMIX_DISK_STATS Disk: ",
        s_or_null(&d.disk),
        "\n",
        p,
        format!(
            "NumReadsCompleted: {:x} NumReadsMerged: {:x} NumSectorsRead: {:x} MillisecReading: {:x}\n",
            d.num_reads_completed, d.num_reads_merged, d.num_sectors_read, d.milliseconds_reading
        ),
        p,
        format!(
            "NumWritesCompleted: {:x} NumWritesMerged: {:x} NumSectorsWrote: {:x} MillisecWriting: {:x}\n",
            d.num_writes_completed, d.num_writes_merged, d.num_sectors_written, d.milliseconds_writing
        ),
        p,
        format!(
            "NumIOsInProgress: {:x} MillisecondsIO: {:x} WeightedMillisecsIO: {:x}\n",
            d.num_ios_in_progress, d.milliseconds_io, d.weighted_milliseconds_io
        ),
    )
}

pub(super) fn netstats(p: &[u8], n: &NetStats) -> Vec<u8> {
    cat!(
        p,
        "PMIX_NET_STATS Interface: ",
        s_or_null(&n.net_interface),
        "\n",
        p,
        format!(
            "NumBytesRecvd: {:x} NumPacketsRecv: {:x} NumRecvErrors: {:x}\n",
            n.num_bytes_recvd, n.num_packets_recvd, n.num_recv_errs
        ),
        p,
        format!(
            "NumBytesSent: {:x} NumPacketsSent: {:x} NumSendErrors: {:x}\n",
            n.num_bytes_sent, n.num_packets_sent, n.num_send_errs
        ),
    )
}

pub(super) fn ndstats(p: &[u8], n: &NodeStats) -> Vec<u8> {
    let f = |x: f32| f2(x, 5);
    cat!(
        p,
        format!("PMIX_NODE_STATS SAMPLED AT: {}\tNode: ", tv(&n.sample_time)),
        s_or_null(&n.node),
        "\n",
        p,
        format!(
            "Total Mem: {} Free Mem: {} Buffers: {} Cached: {}\n",
            f(n.total_mem),
            f(n.free_mem),
            f(n.buffers),
            f(n.cached)
        ),
        p,
        format!(
            "SwapCached: {} SwapTotal: {} SwapFree: {} Mapped: {}\n",
            f(n.swap_cached),
            f(n.swap_total),
            f(n.swap_free),
            f(n.mapped)
        ),
        p,
        format!(
            "\tla: {}\tla5: {}\tla15: {}\n",
            f(n.la),
            f(n.la5),
            f(n.la15)
        ),
    )
}
