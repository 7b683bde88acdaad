//! The text forms of PMIx enumerations and status codes: the strings the
//! `PMIx_*_string` functions return, identical to OpenPMIx 4.2's for every
//! input (learned by probing the reference library over each type's whole
//! range). Each function returns a static NUL-terminated string so the C
//! ABI can hand the pointer out as it is; [`text`] gives the `&str`.

use std::ffi::CStr;

/// The implementation's name and version, as a literal (so that
/// [`VERSION`] can be built from it at compile time).
macro_rules! implementation {
    () => {
        concat!("pmix-rs ", env!("CARGO_PKG_VERSION"))
    };
}

/// The OpenPMIx release whose exported API this library matches, as a
/// literal.
macro_rules! api_level {
    () => {
        "OpenPMIx 5.0.11"
    };
}

/// The implementation and its version.
pub const IMPLEMENTATION: &str = implementation!();

/// The OpenPMIx release whose exported API this library matches: every
/// function of OpenPMIx 5.0.11's `libpmix.so.2`, with 4.2.2's layouts.
pub const API_LEVEL: &str = api_level!();

/// The version string `PMIx_Get_version` returns: this implementation, the
/// OpenPMIx API it provides, then the standard and ABI levels in the
/// parenthesis OpenPMIx ends its own with (nothing that consumes it parses
/// more than that: Open MPI 5 and python3-pmix only print it, Slurm
/// checks its own headers' `PMIX_VERSION_MAJOR`).
pub const VERSION: &CStr = match CStr::from_bytes_with_nul(
    concat!(
        implementation!(),
        ", ",
        api_level!(),
        " API (PMIx Standard: 5.0, Stable ABI: 5.0, Provisional ABI: 5.0)\0"
    )
    .as_bytes(),
) {
    Ok(s) => s,
    Err(_) => panic!("the version string has an inner NUL"),
};

/// The PMIx Standard stable ABI version this library supports
/// (`PMIX_QUERY_STABLE_ABI_VERSION`): OpenPMIx 5.0's.
pub const STD_ABI_STABLE: &str = "5.0";

/// The provisional ABI version (`PMIX_QUERY_PROVISIONAL_ABI_VERSION`).
pub const STD_ABI_PROVISIONAL: &str = "5.0";

/// The answer this library gives to a query of `key` without asking
/// anyone (the ABI versions), as OpenPMIx answers them in the caller.
// attrs begin: PMIx_Query_info PMIx_Query_info_nb
pub fn library_answer(key: &str) -> Option<&'static str> {
    match key {
        crate::keys::QUERY_STABLE_ABI_VERSION => Some(STD_ABI_STABLE),
        crate::keys::QUERY_PROVISIONAL_ABI_VERSION => Some(STD_ABI_PROVISIONAL),
        _ => None,
    }
}
// attrs end

/// A static C string as text (all strings here are ASCII).
pub fn text(s: &'static CStr) -> &'static str {
    s.to_str().unwrap_or("")
}

/// `PMIx_Error_string`: the name of a status code.
pub fn error_string(status: i32) -> &'static CStr {
    let name = if status > -100 {
        base_error_name(status)
    } else {
        event_error_name(status)
    };
    name.unwrap_or(c"ERROR STRING NOT FOUND")
}

/// The names of the statuses from `PMIX_SUCCESS` down to -99 (errors of
/// the library and its operations).
fn base_error_name(status: i32) -> Option<&'static CStr> {
    match status {
        0 => Some(c"SUCCESS"),
        -1 => Some(c"ERROR"),
        -2 => Some(c"SILENT_ERROR"),
        -3 => Some(c"DEBUGGER-RELEASE"),
        -4 => Some(c"PROC_RESTART"),
        -5 => Some(c"PROC-CHECKPOINT-ERROR"),
        -6 => Some(c"PROC-MIGRATE"),
        -7 => Some(c"PROC-ABORTED"),
        -8 => Some(c"PROC-ABORT-REQUESTED"),
        -9 => Some(c"PROC-ABORTING"),
        -10 => Some(c"SERVER FAILED REQUEST"),
        -11 => Some(c"EXISTS"),
        -12 => Some(c"INVALID-CREDENTIAL"),
        -13 => Some(c"HANDSHAKE-FAILED"),
        -14 => Some(c"READY-FOR-HANDSHAKE"),
        -15 => Some(c"WOULD-BLOCK"),
        -16 => Some(c"UNKNOWN-DATA-TYPE"),
        -17 => Some(c"PROC-ENTRY-NOT-FOUND"),
        -18 => Some(c"TYPE-MISMATCH"),
        -19 => Some(c"UNPACK-INADEQUATE-SPACE"),
        -20 => Some(c"UNPACK-FAILURE"),
        -21 => Some(c"PACK-FAILURE"),
        -22 => Some(c"PACK-MISMATCH"),
        -23 => Some(c"NO-PERMISSIONS"),
        -24 => Some(c"TIMEOUT"),
        -25 => Some(c"UNREACHABLE"),
        -26 => Some(c"ERR-IN-ERRNO"),
        -27 => Some(c"BAD-PARAM"),
        -28 => Some(c"RESOURCE-BUSY"),
        -29 => Some(c"OUT-OF-RESOURCE"),
        -30 => Some(c"DATA-VALUE-NOT-FOUND"),
        -31 => Some(c"INIT"),
        -32 => Some(c"NO-MEM"),
        -33 => Some(c"INVALID-ARG"),
        -34 => Some(c"INVALID-KEY"),
        -35 => Some(c"INVALID-KEY-LENGTH"),
        -36 => Some(c"INVALID-VAL"),
        -37 => Some(c"INVALID-VAL-LENGTH"),
        -38 => Some(c"INVALID-LENGTH"),
        -39 => Some(c"INVALID-NUM-ARGS"),
        -40 => Some(c"INVALID-ARGS"),
        -41 => Some(c"INVALID-NUM-PARSED"),
        -42 => Some(c"INVALID-KEYVAL"),
        -43 => Some(c"INVALID-SIZE"),
        -44 => Some(c"INVALID-NAMESPACE"),
        -45 => Some(c"SERVER-NOT-AVAIL"),
        -46 => Some(c"NOT-FOUND"),
        -47 => Some(c"NOT-SUPPORTED"),
        -48 => Some(c"NOT-IMPLEMENTED"),
        -49 => Some(c"COMM-FAILURE"),
        -50 => Some(c"UNPACK-PAST-END"),
        -51 => Some(c"PMIX CONFLICTING CLEANUP DIRECTIVES"),
        -52 => Some(c"PARTIAL SUCCESS"),
        -53 => Some(c"DUPLICATE KEY"),
        -55 => Some(c"PROCESS SET DEFINED"),
        -58 => Some(c"READY-FOR-DEBUG"),
        -59 => Some(c"PARAM-VALUE-NOT-SUPPORTED"),
        -60 => Some(c"EMPTY"),
        -61 => Some(c"LOST_CONNECTION"),
        -62 => Some(c"OUTSIDE-SCOPE"),
        -63 => Some(c"FATAL"),
        -64 => Some(c"NOT_AVAILABLE"),
        -65 => Some(c"VALUE_OUT_OF_BOUNDS"),
        -67 => Some(c"FILE_OPEN_FAILURE"),
        -68 => Some(c"FILE_READ_FAILURE"),
        -69 => Some(c"FILE_WRITE_FAILURE"),
        -70 => Some(c"SYS_LIMITS_PIPES"),
        -71 => Some(c"SYS_LIMITS_CHILDREN"),
        -72 => Some(c"PIPE_SETUP_FAILURE"),
        -73 => Some(c"EXE NOT ACCESSIBLE"),
        -74 => Some(c"WDIR NOT ACCESSIBLE"),
        _ => None,
    }
}

/// The names of the statuses below -99 (events, job and process states,
/// and the few codes far down the range).
fn event_error_name(status: i32) -> Option<&'static CStr> {
    match status {
        -104 => Some(c"QUERY-PARTIAL-SUCCESS"),
        -105 => Some(c"PMIX ALLOC OPERATION COMPLETE"),
        -106 => Some(c"PMIX JOB CONTROL CHECKPOINT"),
        -107 => Some(c"PMIX JOB CONTROL CHECKPOINT COMPLETE"),
        -108 => Some(c"PMIX PRE-EMPTION ALERT"),
        -109 => Some(c"PMIX HEARTBEAT ALERT"),
        -110 => Some(c"PMIX FILE MONITOR ALERT"),
        -111 => Some(c"PROC-TERMINATED"),
        -112 => Some(c"INVALID-TERMINATION"),
        -113 => Some(c"FABRIC-UPDATE-ENDPOINTS"),
        -144 => Some(c"EVENT-REGISTRATION"),
        -145 => Some(c"JOB ENDED"),
        -146 => Some(c"UPDATE-ENDPOINTS"),
        -147 => Some(c"PMIX MODEL DECLARED"),
        -148 => Some(c"GDS-ACTION-COMPLETE"),
        -149 => Some(c"PROC-HAS-CONNECTED"),
        -150 => Some(c"CONNECT-REQUESTED"),
        -152 => Some(c"OPENMP-PARALLEL-ENTERED"),
        -153 => Some(c"OPENMP-PARALLEL-EXITED"),
        -155 => Some(c"LAUNCHER-READY"),
        -156 => Some(c"OPERATION-IN-PROGRESS"),
        -157 => Some(c"OPERATION-SUCCEEDED"),
        -158 => Some(c"INVALID-OPERATION"),
        -159 => Some(c"GROUP-INVITED"),
        -160 => Some(c"GROUP-LEFT"),
        -161 => Some(c"GROUP-INVITE-ACCEPTED"),
        -162 => Some(c"GROUP-INVITE-DECLINED"),
        -163 => Some(c"GROUP-INVITE-FAILED"),
        -164 => Some(c"GROUP-MEMBERSHIP-UPDATE"),
        -165 => Some(c"GROUP-CONSTRUCT-ABORT"),
        -166 => Some(c"GROUP-CONSTRUCT-COMPLETE"),
        -167 => Some(c"GROUP-LEADER-SELECTED"),
        -168 => Some(c"GROUP-LEADER-FAILED"),
        -169 => Some(c"GROUP-CONTEXT-ID-ASSIGNED"),
        -170 => Some(c"GROUP-MEMBER-FAILED"),
        -171 => Some(c"REPEAT-ATTRIBUTE-REGISTRATION"),
        -172 => Some(c"IOF FAILURE"),
        -173 => Some(c"IOF COMPLETE"),
        -174 => Some(c"PMIX LAUNCH COMPLETE"),
        -175 => Some(c"FABRIC-UPDATED"),
        -176 => Some(c"FABRIC-UPDATE-PENDING"),
        -177 => Some(c"APPLICATION NOT EXECUTABLE"),
        -178 => Some(c"NO EXECUTABLE SPECIFIED"),
        -179 => Some(c"JOB FAILED TO MAP"),
        -180 => Some(c"JOB CANCELED"),
        -181 => Some(c"JOB FAILED TO LAUNCH"),
        -182 => Some(c"JOB ABORTED"),
        -183 => Some(c"KILLED BY COMMAND"),
        -184 => Some(c"ABORTED BY SIGNAL"),
        -185 => Some(c"TERMINATED WITHOUT SYNC"),
        -186 => Some(c"SENSOR BOUND EXCEEDED"),
        -187 => Some(c"NON-ZERO TERMINATION"),
        -188 => Some(c"FAILED TO OBTAIN ALLOCATION"),
        -189 => Some(c"JOB ABORTED BY SYSTEM EVENT"),
        -190 => Some(c"EXECUTABLE NOT FOUND"),
        -191 => Some(c"JOB STARTED"),
        -192 => Some(c"SESSION STARTED"),
        -193 => Some(c"SESSION ENDED"),
        -200 => Some(c"PROC TERMINATED WITHOUT SYNC"),
        -201 => Some(c"PROC TERMINATED"),
        -230 => Some(c"SYSTEM BASE EVENT"),
        -231 => Some(c"NODE-DOWN"),
        -232 => Some(c"NODE-OFFLINE"),
        -233 => Some(c"WORKING DIRECTORY NOT FOUND"),
        -234 => Some(c"INSUFFICIENT RESOURCES"),
        -235 => Some(c"SYSTEM OPERATION FAILED"),
        -330 => Some(c"UNDEFINED-SYSTEM-EVENT"),
        -331 => Some(c"EVENT-NO-ACTION-TAKEN"),
        -332 => Some(c"EVENT-PARTIAL-ACTION-TAKEN"),
        -333 => Some(c"EVENT-ACTION-DEFERRED"),
        -334 => Some(c"EVENT-ACTION-COMPLETE"),
        -400 => Some(c"PROC-KILLED-BY-CMD"),
        -401 => Some(c"PROC-FAILED-TO-START"),
        -402 => Some(c"PROC-ABORTED-BY-SIG"),
        -403 => Some(c"PROC-SENSOR-BOUND-EXCEEDED"),
        -404 => Some(c"PROC-EXIT-NONZERO-TERM"),
        -1363 => Some(c"FABRIC_NOT_PARSEABLE"),
        -1366 => Some(c"TAKE-NEXT-OPTION"),
        -1367 => Some(c"PMIX TEMPORARILY UNAVAILABLE"),
        -2147483648 => Some(c"PMIX_ERR_WILDCARD"),
        _ => None,
    }
}

/// `PMIx_Proc_state_string`.
pub fn proc_state_string(v: u8) -> &'static CStr {
    match v {
        0 => c"UNDEFINED",
        1 => c"PREPPED FOR LAUNCH",
        2 => c"LAUNCH UNDERWAY",
        3 => c"PROC READY FOR RESTART",
        4 => c"PROC MARKED FOR TERMINATION",
        5 => c"PROC EXECUTING",
        6 => c"PROC HAS CONNECTED TO LOCAL PMIX SERVER",
        15 => c"PROC HAS NOT TERMINATED",
        20 => c"PROC HAS TERMINATED",
        50 => c"PROC ERROR",
        51 => c"PROC KILLED BY CMD",
        52 => c"PROC ABNORMALLY ABORTED",
        53 => c"PROC FAILED TO START",
        54 => c"PROC ABORTED BY SIGNAL",
        55 => c"PROC TERMINATED WITHOUT CALLING PMIx_Finalize",
        56 => c"PROC LOST COMMUNICATION",
        57 => c"PROC SENSOR BOUND EXCEEDED",
        58 => c"PROC CALLED PMIx_Abort",
        59 => c"PROC FAILED TO REPORT HEARTBEAT",
        60 => c"PROC WAITING TO MIGRATE",
        61 => c"PROC CANNOT BE RESTARTED",
        62 => c"PROC TERMINATED WITH NON-ZERO STATUS",
        63 => c"PROC FAILED TO LAUNCH",
        _ => c"UNKNOWN STATE",
    }
}

/// `PMIx_Scope_string`.
pub fn scope_string(v: u8) -> &'static CStr {
    match v {
        0 => c"UNDEFINED",
        1 => c"SHARE ON LOCAL NODE ONLY",
        2 => c"SHARE ON REMOTE NODES ONLY",
        3 => c"SHARE ACROSS ALL NODES",
        4 => c"STORE INTERNALLY",
        _ => c"UNKNOWN SCOPE",
    }
}

/// `PMIx_Persistence_string`.
pub fn persistence_string(v: u8) -> &'static CStr {
    match v {
        0 => c"INDEFINITE",
        1 => c"DELETE ON FIRST ACCESS",
        2 => c"RETAIN UNTIL PUBLISHING PROCESS TERMINATES",
        3 => c"RETAIN UNTIL APPLICATION OF PUBLISHING PROCESS TERMINATES",
        4 => c"RETAIN UNTIL ALLOCATION OF PUBLISHING PROCESS TERMINATES",
        255 => c"INVALID",
        _ => c"UNKNOWN PERSISTENCE",
    }
}

/// `PMIx_Data_range_string`.
pub fn data_range_string(v: u8) -> &'static CStr {
    match v {
        0 => c"UNDEFINED",
        1 => c"INTENDED FOR HOST RESOURCE MANAGER ONLY",
        2 => c"AVAIL ON LOCAL NODE ONLY",
        3 => c"AVAIL TO PROCESSES IN SAME JOB ONLY",
        4 => c"AVAIL TO PROCESSES IN SAME ALLOCATION ONLY",
        5 => c"AVAIL TO ANYONE WITH AUTHORIZATION",
        6 => c"AVAIL AS SPECIFIED IN DIRECTIVES",
        7 => c"AVAIL ON LOCAL PROC ONLY",
        255 => c"INVALID",
        _ => c"UNKNOWN",
    }
}

/// `PMIx_Alloc_directive_string`.
pub fn alloc_directive_string(v: u8) -> &'static CStr {
    match v {
        1 => c"NEW",
        2 => c"EXTEND",
        3 => c"RELEASE",
        4 => c"REACQUIRE",
        _ => c"UNSPECIFIED",
    }
}

/// `PMIx_Job_state_string`.
pub fn job_state_string(v: u8) -> &'static CStr {
    match v {
        0 => c"UNDEFINED",
        1 => c"PREPPED FOR LAUNCH",
        2 => c"LAUNCHING",
        3 => c"RUNNING",
        4 => c"SUSPENDED",
        5 => c"CONNECTED",
        15 => c"UNTERMINATED",
        20 => c"TERMINATED",
        50 => c"TERMINATED WITH ERROR",
        _ => c"UNKNOWN",
    }
}

/// `PMIx_Link_state_string`.
pub fn link_state_string(v: u8) -> &'static CStr {
    match v {
        1 => c"INACTIVE",
        2 => c"ACTIVE",
        _ => c"UNKNOWN",
    }
}

/// `PMIx_Data_type_string`, as the reference answers before its buffer
/// operations are initialised.
pub fn data_type_string(t: u16) -> &'static CStr {
    match t {
        1 => c"PMIX_BOOL",
        2 => c"PMIX_BYTE",
        3 => c"PMIX_STRING",
        4 => c"PMIX_SIZE",
        5 => c"PMIX_PID",
        6 => c"PMIX_INT",
        7 => c"PMIX_INT8",
        8 => c"PMIX_INT16",
        9 => c"PMIX_INT32",
        10 => c"PMIX_INT64",
        11 => c"PMIX_UINT",
        12 => c"PMIX_UINT8",
        13 => c"PMIX_UINT16",
        14 => c"PMIX_UINT32",
        15 => c"PMIX_UINT64",
        16 => c"PMIX_FLOAT",
        17 => c"PMIX_DOUBLE",
        18 => c"PMIX_TIMEVAL",
        19 => c"PMIX_TIME",
        20 => c"PMIX_STATUS",
        21 => c"PMIX_VALUE",
        22 => c"PMIX_PROC",
        23 => c"PMIX_APP",
        24 => c"PMIX_INFO",
        25 => c"PMIX_PDATA",
        26 => c"PMIX_BUFFER",
        27 => c"PMIX_BYTE_OBJECT",
        28 => c"PMIX_KVAL",
        30 => c"PMIX_PERSIST",
        31 => c"PMIX_POINTER",
        32 => c"PMIX_SCOPE",
        33 => c"PMIX_DATA_RANGE",
        34 => c"PMIX_COMMAND",
        35 => c"PMIX_INFO_DIRECTIVES",
        36 => c"PMIX_DATA_TYPE",
        37 => c"PMIX_PROC_STATE",
        38 => c"PMIX_PROC_INFO",
        39 => c"PMIX_DATA_ARRAY",
        40 => c"PMIX_PROC_RANK",
        41 => c"PMIX_QUERY",
        42 => c"PMIX_COMPRESSED_STRING",
        43 => c"PMIX_ALLOC_DIRECTIVE",
        45 => c"PMIX_IOF_CHANNEL",
        46 => c"PMIX_ENVAR",
        47 => c"PMIX_COORD",
        48 => c"PMIX_REGATTR",
        49 => c"PMIX_REGEX",
        50 => c"PMIX_JOB_STATE",
        51 => c"PMIX_LINK_STATE",
        52 => c"PMIX_PROC_CPUSET",
        53 => c"PMIX_GEOMETRY",
        54 => c"PMIX_DEVICE_DIST",
        55 => c"PMIX_ENDPOINT",
        56 => c"PMIX_TOPO",
        57 => c"PMIX_DEVTYPE",
        60 => c"PMIX_PROC_NSPACE",
        61 => c"PMIX_PROC_STATS",
        62 => c"PMIX_DISK_STATS",
        63 => c"PMIX_NET_STATS",
        64 => c"PMIX_NODE_STATS",
        65 => c"PMIX_DATA_BUFFER",
        _ => c"NOT INITIALIZED",
    }
}

/// `PMIx_Data_type_string` once the library is initialised (its buffer
/// operations then know a few more names, and say "UNKNOWN" otherwise).
pub fn data_type_string_initialized(t: u16) -> &'static CStr {
    match t {
        0 => c"UNKNOWN",
        29 => c"PMIX_MODEX",
        44 => c"PMIX_INFO_ARRAY",
        58 => c"PMIX_LOCTYPE",
        59 => c"PMIX_COMPRESSED_BYTE_OBJECT",
        66 => c"PMIX_STOR_MEDIUM",
        67 => c"PMIX_STOR_ACCESS",
        68 => c"PMIX_STOR_PERSIST",
        69 => c"PMIX_STOR_ACCESS_TYPE",
        _ => match data_type_string(t).to_bytes() {
            b"NOT INITIALIZED" => c"UNKNOWN",
            _ => data_type_string(t),
        },
    }
}

/// How many `PMIx_Init`/`PMIx_server_init`/`PMIx_tool_init` calls are not
/// yet finalized. Some answers of the reference depend on it (the data type
/// names above); the init and finalize entry points keep it with
/// [`note_init`] and [`note_finalize`].
static INIT_COUNT: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// Records one successful initialisation of the library.
pub fn note_init() {
    INIT_COUNT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

/// Records one finalisation (never below zero).
pub fn note_finalize() {
    let _ = INIT_COUNT.fetch_update(
        std::sync::atomic::Ordering::SeqCst,
        std::sync::atomic::Ordering::SeqCst,
        |n| Some((n - 1).max(0)),
    );
}

/// True between a successful init and its finalize.
pub fn library_initialized() -> bool {
    INIT_COUNT.load(std::sync::atomic::Ordering::SeqCst) > 0
}

/// `PMIx_Data_type_string` as the reference answers in the library's
/// current state.
pub fn data_type_name(t: u16) -> &'static CStr {
    if library_initialized() {
        data_type_string_initialized(t)
    } else {
        data_type_string(t)
    }
}

/// `PMIx_Device_type_string`.
pub fn device_type_string(t: u64) -> &'static CStr {
    match t {
        1 => c"BLOCK",
        2 => c"GPU",
        4 => c"NETWORK",
        8 => c"OPENFABRICS",
        16 => c"DMA",
        32 => c"COPROCESSOR",
        _ => c"UNKNOWN",
    }
}

/// `PMIx_Value_comparison_string` (argument: a `pmix_value_cmp_t`).
pub fn value_comparison_string(cmp: i32) -> &'static CStr {
    match cmp {
        0 => c"EQUAL",
        1 => c"VALUE1 GREATER",
        2 => c"VALUE2 GREATER",
        3 => c"DIFFERENT TYPES",
        4 => c"INCOMPATIBLE OBJECTS",
        5 => c"COMPARISON NOT AVAILABLE",
        _ => c"UNKNOWN VALUE",
    }
}

/// The name of an OpenPMIx internal command code (`pmix_cmd_t`, data type
/// `PMIX_COMMAND`), as its printer writes it.
pub fn command_string(cmd: u8) -> &'static CStr {
    match cmd {
        0 => c"REQUEST INIT INFO",
        1 => c"ABORT",
        2 => c"COMMIT",
        3 => c"FENCE",
        4 => c"GET",
        5 => c"FINALIZE",
        6 => c"PUBLISH",
        7 => c"LOOKUP",
        8 => c"UNPUBLISH",
        9 => c"SPAWN",
        10 => c"CONNECT",
        11 => c"DISCONNECT",
        12 => c"NOTIFY",
        13 => c"REGISTER EVENT HANDLER",
        14 => c"DEREGISTER EVENT HANDLER",
        15 => c"QUERY",
        16 => c"LOG",
        17 => c"ALLOCATE",
        18 => c"JOB CONTROL",
        19 => c"MONITOR",
        22 => c"IOF PULL",
        23 => c"IOF PUSH",
        24 => c"GROUP CONSTRUCT",
        25 => c"GROUP JOIN",
        26 => c"GROUP INVITE",
        27 => c"GROUP LEAVE",
        28 => c"GROUP DESTRUCT",
        29 => c"IOF DEREG",
        30 => c"FABRIC REGISTER",
        31 => c"FABRIC UPDATE",
        32 => c"COMPUTE DEVICE DIST",
        _ => c"UNKNOWN",
    }
}

/// `PMIx_IOF_channel_string`: the set channels, each followed by a space,
/// or `NONE`. (The reference formats into one static buffer that every call
/// overwrites; here each of the 16 answers is its own static string, which
/// gives the same text and is safe to call from several threads.)
pub fn iof_channel_string(channel: u16) -> &'static CStr {
    const ANSWERS: [&CStr; 16] = [
        c"NONE",
        c"STDIN ",
        c"STDOUT ",
        c"STDIN STDOUT ",
        c"STDERR ",
        c"STDIN STDERR ",
        c"STDOUT STDERR ",
        c"STDIN STDOUT STDERR ",
        c"STDDIAG ",
        c"STDIN STDDIAG ",
        c"STDOUT STDDIAG ",
        c"STDIN STDOUT STDDIAG ",
        c"STDERR STDDIAG ",
        c"STDIN STDERR STDDIAG ",
        c"STDOUT STDERR STDDIAG ",
        c"STDIN STDOUT STDERR STDDIAG ",
    ];
    ANSWERS[usize::from(channel & 0x000f)]
}

/// `PMIx_Info_directives_string`: `QUALIFIER` if that bit is set, else
/// `REQUIRED` or `OPTIONAL` followed by `:PROCESSED` and `:END` for those
/// bits. Other bits are not shown.
pub fn info_directives_string(directives: u32) -> String {
    use crate::InfoDirectives as D;
    let d = D(directives);
    if d.contains(D::QUALIFIER) {
        return "QUALIFIER".to_owned();
    }
    let mut s = String::from(if d.contains(D::REQUIRED) {
        "REQUIRED"
    } else {
        "OPTIONAL"
    });
    if d.contains(D::REQD_PROCESSED) {
        s.push_str(":PROCESSED");
    }
    if d.contains(D::ARRAY_END) {
        s.push_str(":END");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names() {
        assert_eq!(text(error_string(0)), "SUCCESS");
        assert_eq!(text(error_string(-27)), "BAD-PARAM");
        assert_eq!(text(error_string(-1367)), "PMIX TEMPORARILY UNAVAILABLE");
        assert_eq!(text(error_string(i32::MIN)), "PMIX_ERR_WILDCARD");
        assert_eq!(text(error_string(1)), "ERROR STRING NOT FOUND");
        assert_eq!(text(error_string(i32::MAX)), "ERROR STRING NOT FOUND");
        let named = (-5000..=5000)
            .filter(|&c| text(error_string(c)) != "ERROR STRING NOT FOUND")
            .count();
        assert_eq!(named, 150);
    }

    #[test]
    fn enumerations() {
        assert_eq!(text(proc_state_string(5)), "PROC EXECUTING");
        assert_eq!(text(proc_state_string(255)), "UNKNOWN STATE");
        assert_eq!(text(scope_string(9)), "UNKNOWN SCOPE");
        assert_eq!(text(persistence_string(255)), "INVALID");
        assert_eq!(text(data_range_string(255)), "INVALID");
        assert_eq!(text(data_range_string(8)), "UNKNOWN");
        assert_eq!(text(alloc_directive_string(0)), "UNSPECIFIED");
        assert_eq!(text(job_state_string(50)), "TERMINATED WITH ERROR");
        assert_eq!(text(link_state_string(2)), "ACTIVE");
        assert_eq!(text(device_type_string(0x20)), "COPROCESSOR");
        assert_eq!(text(device_type_string(3)), "UNKNOWN");
        assert_eq!(text(value_comparison_string(4)), "INCOMPATIBLE OBJECTS");
        assert_eq!(text(value_comparison_string(-1)), "UNKNOWN VALUE");
    }

    #[test]
    fn data_types() {
        assert_eq!(text(data_type_string(1)), "PMIX_BOOL");
        assert_eq!(text(data_type_string(26)), "PMIX_BUFFER");
        assert_eq!(text(data_type_string(65)), "PMIX_DATA_BUFFER");
        // The reference has no name for these before initialisation.
        for t in [0, 29, 44, 58, 59, 66, 69, 500, u16::MAX] {
            assert_eq!(text(data_type_string(t)), "NOT INITIALIZED", "{t}");
        }
    }

    #[test]
    fn data_types_after_init() {
        assert_eq!(text(data_type_string_initialized(0)), "UNKNOWN");
        assert_eq!(text(data_type_string_initialized(58)), "PMIX_LOCTYPE");
        assert_eq!(text(data_type_string_initialized(3)), "PMIX_STRING");
        assert_eq!(text(data_type_string_initialized(500)), "UNKNOWN");
        assert!(!library_initialized());
        note_finalize();
        assert!(!library_initialized());
    }

    #[test]
    fn bit_sets() {
        assert_eq!(text(iof_channel_string(0)), "NONE");
        assert_eq!(
            text(iof_channel_string(0x00ff)),
            "STDIN STDOUT STDERR STDDIAG "
        );
        assert_eq!(text(iof_channel_string(0x0010)), "NONE");
        assert_eq!(text(iof_channel_string(0x0006)), "STDOUT STDERR ");
        assert_eq!(info_directives_string(0), "OPTIONAL");
        assert_eq!(info_directives_string(7), "REQUIRED:PROCESSED:END");
        assert_eq!(info_directives_string(9), "QUALIFIER");
        assert_eq!(info_directives_string(0xffff_0010), "OPTIONAL");
    }

    #[test]
    fn version() {
        let v = text(VERSION);
        assert!(v.starts_with(IMPLEMENTATION), "{v}");
        assert!(v.contains(API_LEVEL), "{v}");
        assert!(v.ends_with("(PMIx Standard: 5.0, Stable ABI: 5.0, Provisional ABI: 5.0)"));
    }
}
