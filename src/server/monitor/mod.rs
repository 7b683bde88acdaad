//! Process monitoring in the server library (`PMIx_Process_monitor`):
//! what a host that implements `monitor` does not serve, the library does
//! itself, as OpenPMIx's sensors do: heartbeats (`PMIX_MONITOR_HEARTBEAT`,
//! fed by the process's `PMIX_SEND_HEARTBEAT`) and files
//! (`PMIX_MONITOR_FILE`: size, access, modification), raising
//! `PMIX_MONITOR_HEARTBEAT_ALERT` / `PMIX_MONITOR_FILE_ALERT` (or the
//! requester's own code) when a process stops beating or a file stops
//! changing.
//!
//! - [`request`]: reading a request, and why one is refused;
//! - [`room`]: the monitors in progress, a room of the progress thread's
//!   state, looking once per period on the loop's timers;
//! - [`service`]: who serves a request (the host first), the looks, and
//!   departures (a departed process's monitors end).
//!
//! Invariants:
//! - Only the progress thread touches the monitors room.
//! - A monitor watches the process that asked for it, and lives until it
//!   is cancelled, its process departs, or (a file's) it alerted.

pub(super) mod request;
pub(super) mod room;
pub(super) mod service;
