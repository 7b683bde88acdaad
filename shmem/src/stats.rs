//! The field lists of the four PMIx statistics structs, written once.
//!
//! `pmix_proc_stats_t`, `pmix_disk_stats_t`, `pmix_net_stats_t` and
//! `pmix_node_stats_t` have three forms in this workspace: the core's
//! value types (`pmix::value::ProcStats`, ...), the segment's stored types
//! ([`StoredProcStats`](crate::StoredProcStats), ...) and the C layout
//! (`pmix_ffi::sys::pmix_proc_stats_t`, ...), with conversions between
//! them. Every one of those declarations and conversions is expanded from
//! [`stats_structs!`], so a field is added, renamed or reordered here and
//! nowhere else. This crate is the lowest of the workspace, so the core
//! and the C layer can both reach the list (the core re-exports it).

/// Calls `$m!` with the four statistics structs, each as
///
/// ```text
/// CoreName / StoredName / c_name [ExtraDerives] { field: Type, ... }
/// ```
///
/// with the fields in C order. The types are written in the core's
/// vocabulary (`OptString` a string that may be NULL, `Proc`, `Timeval`,
/// a number type that is the same in every form, `Vec<DiskStats>` a list
/// of another statistics struct); each expansion site names those types
/// in its own form (the segment's stored types, the C types). A list is
/// marked `[count: n]`: in C it is a pointer and the count field `n`.
/// `ExtraDerives` is `Eq` where no field is a float.
#[macro_export]
macro_rules! stats_structs {
    ($m:ident) => {
        $m! {
            ProcStats / StoredProcStats / pmix_proc_stats_t [] {
                node: OptString,
                proc: Proc,
                pid: i32,
                cmd: OptString,
                state: u8,
                time: Timeval,
                percent_cpu: f32,
                priority: i32,
                num_threads: u16,
                pss: f32,
                vsize: f32,
                rss: f32,
                peak_vsize: f32,
                processor: u16,
                sample_time: Timeval,
            }
            DiskStats / StoredDiskStats / pmix_disk_stats_t [Eq] {
                disk: OptString,
                num_reads_completed: u64,
                num_reads_merged: u64,
                num_sectors_read: u64,
                milliseconds_reading: u64,
                num_writes_completed: u64,
                num_writes_merged: u64,
                num_sectors_written: u64,
                milliseconds_writing: u64,
                num_ios_in_progress: u64,
                milliseconds_io: u64,
                weighted_milliseconds_io: u64,
            }
            NetStats / StoredNetStats / pmix_net_stats_t [Eq] {
                net_interface: OptString,
                num_bytes_recvd: u64,
                num_packets_recvd: u64,
                num_recv_errs: u64,
                num_bytes_sent: u64,
                num_packets_sent: u64,
                num_send_errs: u64,
            }
            NodeStats / StoredNodeStats / pmix_node_stats_t [] {
                node: OptString,
                la: f32,
                la5: f32,
                la15: f32,
                total_mem: f32,
                free_mem: f32,
                buffers: f32,
                cached: f32,
                swap_cached: f32,
                swap_total: f32,
                swap_free: f32,
                mapped: f32,
                sample_time: Timeval,
                diskstats: Vec<DiskStats> [count: ndiskstats],
                netstats: Vec<NetStats> [count: nnetstats],
            }
        }
    };
}
