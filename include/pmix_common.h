/*
 * pmix_common.h - types, constants and header-only helpers shared by the
 * PMIx client (pmix.h), server (pmix_server.h) and tool (pmix_tool.h) APIs.
 *
 * Part of the pmix-rs project: an independent, ABI-compatible
 * implementation of the OpenPMIx interfaces at the 5.0 API level. Every
 * type layout, constant value and attribute string OpenPMIx 4.2 has
 * follows its ABI; what OpenPMIx 5.0 added carries 5.0's values (see
 * docs/INTEROP.md). The text of this header is original to this project.
 *
 * Everything here that allocates memory uses malloc/calloc, so objects
 * obtained through these helpers may be released with free().
 */
#ifndef PMIx_COMMON_H
#define PMIx_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <time.h>
#include <sys/types.h> /* pid_t, uid_t, gid_t */
#include <sys/time.h>  /* struct timeval */
#include <unistd.h>

/* Symbol visibility for the library's public entry points. */
#define PMIX_HAVE_VISIBILITY 1
#if PMIX_HAVE_VISIBILITY == 1
#define PMIX_EXPORT __attribute__((__visibility__("default")))
#else
#define PMIX_EXPORT
#endif

#include <pmix_version.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

/* The process environment; pmix_setenv() treats it specially. */
extern char **environ;

#if !defined(c_plusplus) && !defined(__cplusplus)
/* POSIX functions that strict ISO C modes leave undeclared. */
extern int setenv(const char *name, const char *value, int overwrite);
extern int unsetenv(const char *name);
#endif


/* ====================================================================
 * 1. Names: namespaces, keys, ranks
 * ==================================================================== */

#define PMIX_MAX_NSLEN   255
#define PMIX_MAX_KEYLEN  511

/* Fixed-size, NUL-terminated name buffers. */
typedef char pmix_nspace_t[PMIX_MAX_NSLEN + 1];
typedef char pmix_key_t[PMIX_MAX_KEYLEN + 1];

typedef uint32_t pmix_rank_t;

/* Reserved rank values (all at the top of the 32-bit range). */
#define PMIX_RANK_UNDEF        UINT32_MAX          /* no specific rank */
#define PMIX_RANK_WILDCARD     (UINT32_MAX - 1)    /* every rank of the nspace */
#define PMIX_RANK_LOCAL_NODE   (UINT32_MAX - 2)    /* every rank on this node */
#define PMIX_RANK_INVALID      (UINT32_MAX - 3)
#define PMIX_RANK_LOCAL_PEERS  (UINT32_MAX - 4)    /* nspace peers on this node */
#define PMIX_RANK_VALID        (UINT32_MAX - 50)   /* ranks below this are real */

#define PMIX_RANK_IS_VALID(r)  ((r) < PMIX_RANK_VALID)

/* Application index meaning "all applications of the job". */
#define PMIX_APP_WILDCARD      UINT32_MAX


/* ====================================================================
 * 2. Status codes (pmix_status_t): 0 is success, errors are negative
 * ==================================================================== */

typedef int pmix_status_t;

/* -- general results -- */
#define PMIX_SUCCESS                              0
#define PMIX_ERROR                               (-1)
#define PMIX_DEBUGGER_RELEASE                    (-3)
#define PMIX_ERR_PROC_RESTART                    (-4)
#define PMIX_ERR_PROC_CHECKPOINT                 (-5)
#define PMIX_ERR_PROC_MIGRATE                    (-6)
#define PMIX_ERR_PROC_REQUESTED_ABORT            (-8)
#define PMIX_ERR_EXISTS                          (-11)
#define PMIX_ERR_INVALID_CRED                    (-12)
#define PMIX_ERR_WOULD_BLOCK                     (-15)
#define PMIX_ERR_UNKNOWN_DATA_TYPE               (-16)
#define PMIX_ERR_TYPE_MISMATCH                   (-18)
#define PMIX_ERR_UNPACK_INADEQUATE_SPACE         (-19)
#define PMIX_ERR_UNPACK_FAILURE                  (-20)
#define PMIX_ERR_PACK_FAILURE                    (-21)
#define PMIX_ERR_NO_PERMISSIONS                  (-23)
#define PMIX_ERR_TIMEOUT                         (-24)
#define PMIX_ERR_UNREACH                         (-25)
#define PMIX_ERR_BAD_PARAM                       (-27)
#define PMIX_ERR_RESOURCE_BUSY                   (-28)
#define PMIX_ERR_OUT_OF_RESOURCE                 (-29)
#define PMIX_ERR_INIT                            (-31)
#define PMIX_ERR_NOMEM                           (-32)
#define PMIX_ERR_NOT_FOUND                       (-46)
#define PMIX_ERR_NOT_SUPPORTED                   (-47)
#define PMIX_ERR_COMM_FAILURE                    (-49)
#define PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER  (-50)
#define PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES  (-51)
#define PMIX_ERR_PARTIAL_SUCCESS                 (-52)
#define PMIX_ERR_DUPLICATE_KEY                   (-53)
#define PMIX_PROCESS_SET_DEFINE                  (-55)
#define PMIX_PROCESS_SET_DELETE                  (-56)
#define PMIX_READY_FOR_DEBUG                     (-58)
#define PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED       (-59)
#define PMIX_ERR_EMPTY                           (-60)
#define PMIX_ERR_LOST_CONNECTION                 (-61)
#define PMIX_ERR_EXISTS_OUTSIDE_SCOPE            (-62)
/* Beyond 4.2.2, as OpenPMIx master defines it: */
#define PMIX_ERR_NOT_A_MEMBER                    (-66)

/* -- queries, job control, monitoring -- */
#define PMIX_QUERY_PARTIAL_SUCCESS               (-104)
#define PMIX_JCTRL_CHECKPOINT                    (-106)
#define PMIX_JCTRL_CHECKPOINT_COMPLETE           (-107)
#define PMIX_JCTRL_PREEMPT_ALERT                 (-108)
#define PMIX_MONITOR_HEARTBEAT_ALERT             (-109)
#define PMIX_MONITOR_FILE_ALERT                  (-110)
#define PMIX_PROC_TERMINATED                     (-111)
#define PMIX_FABRIC_UPDATE_ENDPOINTS             (-113)

/* -- operational events -- */
#define PMIX_ERR_EVENT_REGISTRATION              (-144)
#define PMIX_EVENT_JOB_END                       (-145)
#define PMIX_MODEL_DECLARED                      (-147)
#define PMIX_MODEL_RESOURCES                     (-151)
#define PMIX_OPENMP_PARALLEL_ENTERED             (-152)
#define PMIX_OPENMP_PARALLEL_EXITED              (-153)
#define PMIX_LAUNCHER_READY                      (-155)
#define PMIX_OPERATION_IN_PROGRESS               (-156)
#define PMIX_OPERATION_SUCCEEDED                 (-157)
#define PMIX_ERR_INVALID_OPERATION               (-158)
#define PMIX_GROUP_INVITED                       (-159)
#define PMIX_GROUP_LEFT                          (-160)
#define PMIX_GROUP_INVITE_ACCEPTED               (-161)
#define PMIX_GROUP_INVITE_DECLINED               (-162)
#define PMIX_GROUP_INVITE_FAILED                 (-163)
#define PMIX_GROUP_MEMBERSHIP_UPDATE             (-164)
#define PMIX_GROUP_CONSTRUCT_ABORT               (-165)
#define PMIX_GROUP_CONSTRUCT_COMPLETE            (-166)
#define PMIX_GROUP_LEADER_SELECTED               (-167)
#define PMIX_GROUP_LEADER_FAILED                 (-168)
#define PMIX_GROUP_CONTEXT_ID_ASSIGNED           (-169)
#define PMIX_GROUP_MEMBER_FAILED                 (-170)
#define PMIX_ERR_REPEAT_ATTR_REGISTRATION        (-171)
#define PMIX_ERR_IOF_FAILURE                     (-172)
#define PMIX_ERR_IOF_COMPLETE                    (-173)
#define PMIX_LAUNCH_COMPLETE                     (-174)
#define PMIX_FABRIC_UPDATED                      (-175)
#define PMIX_FABRIC_UPDATE_PENDING               (-176)

/* -- job failures -- */
#define PMIX_ERR_JOB_APP_NOT_EXECUTABLE          (-177)
#define PMIX_ERR_JOB_NO_EXE_SPECIFIED            (-178)
#define PMIX_ERR_JOB_FAILED_TO_MAP               (-179)
#define PMIX_ERR_JOB_CANCELED                    (-180)
#define PMIX_ERR_JOB_FAILED_TO_LAUNCH            (-181)
#define PMIX_ERR_JOB_ABORTED                     (-182)
#define PMIX_ERR_JOB_KILLED_BY_CMD               (-183)
#define PMIX_ERR_JOB_ABORTED_BY_SIG              (-184)
#define PMIX_ERR_JOB_TERM_WO_SYNC                (-185)
#define PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED       (-186)
#define PMIX_ERR_JOB_NON_ZERO_TERM               (-187)
#define PMIX_ERR_JOB_ALLOC_FAILED                (-188)
#define PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT        (-189)
#define PMIX_ERR_JOB_EXE_NOT_FOUND               (-190)
#define PMIX_ERR_JOB_WDIR_NOT_FOUND              (-233)
#define PMIX_ERR_JOB_INSUFFICIENT_RESOURCES      (-234)
#define PMIX_ERR_JOB_SYS_OP_FAILED               (-235)

/* -- job and session lifecycle (not errors) -- */
#define PMIX_EVENT_JOB_START                     (-191)
#define PMIX_EVENT_SESSION_START                 (-192)
#define PMIX_EVENT_SESSION_END                   (-193)

/* -- per-process events -- */
#define PMIX_ERR_PROC_TERM_WO_SYNC               (-200)
#define PMIX_EVENT_PROC_TERMINATED               (-201)
#define PMIX_ERR_PROC_KILLED_BY_CMD              (-400)
#define PMIX_ERR_PROC_FAILED_TO_START            (-401)
#define PMIX_ERR_PROC_ABORTED_BY_SIG             (-402)
#define PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED      (-403)
#define PMIX_ERR_EXIT_NONZERO_TERM               (-404)

/* -- system events occupy the closed range [SYS_OTHER, SYS_BASE] -- */
#define PMIX_EVENT_SYS_BASE                      (-230)
#define PMIX_EVENT_NODE_DOWN                     (-231)
#define PMIX_EVENT_NODE_OFFLINE                  (-232)
#define PMIX_EVENT_SYS_OTHER                     (-330)

#define PMIX_SYSTEM_EVENT(a) \
    ((a) <= PMIX_EVENT_SYS_BASE && PMIX_EVENT_SYS_OTHER <= (a))

/* -- results an event handler reports back -- */
#define PMIX_EVENT_NO_ACTION_TAKEN               (-331)
#define PMIX_EVENT_PARTIAL_ACTION_TAKEN          (-332)
#define PMIX_EVENT_ACTION_DEFERRED               (-333)
#define PMIX_EVENT_ACTION_COMPLETE               (-334)

/* Applications may define their own codes below this value. */
#define PMIX_EXTERNAL_ERR_BASE                   (-3000)


/* ====================================================================
 * 3. Value comparison results
 * ==================================================================== */

typedef enum {
    PMIX_EQUAL,
    PMIX_VALUE1_GREATER,
    PMIX_VALUE2_GREATER,
    PMIX_VALUE_TYPE_DIFFERENT,
    PMIX_VALUE_INCOMPATIBLE_OBJECTS,
    PMIX_VALUE_COMPARISON_NOT_AVAIL
} pmix_value_cmp_t;


/* ====================================================================
 * 4. Data type identifiers (pmix_data_type_t)
 * ==================================================================== */

typedef uint16_t pmix_data_type_t;

#define PMIX_UNDEF                   0
#define PMIX_BOOL                    1   /* bool */
#define PMIX_BYTE                    2   /* uint8_t */
#define PMIX_STRING                  3   /* char* */
#define PMIX_SIZE                    4   /* size_t */
#define PMIX_PID                     5   /* pid_t */
#define PMIX_INT                     6
#define PMIX_INT8                    7
#define PMIX_INT16                   8
#define PMIX_INT32                   9
#define PMIX_INT64                  10
#define PMIX_UINT                   11
#define PMIX_UINT8                  12
#define PMIX_UINT16                 13
#define PMIX_UINT32                 14
#define PMIX_UINT64                 15
#define PMIX_FLOAT                  16
#define PMIX_DOUBLE                 17
#define PMIX_TIMEVAL                18   /* struct timeval */
#define PMIX_TIME                   19   /* time_t */
#define PMIX_STATUS                 20   /* pmix_status_t */
#define PMIX_VALUE                  21
#define PMIX_PROC                   22
#define PMIX_APP                    23
#define PMIX_INFO                   24
#define PMIX_PDATA                  25
/* 26 was PMIX_BUFFER (see pmix_deprecated.h) */
#define PMIX_BYTE_OBJECT            27
#define PMIX_KVAL                   28
#define PMIX_PERSIST                30
#define PMIX_POINTER                31
#define PMIX_SCOPE                  32
#define PMIX_DATA_RANGE             33
#define PMIX_COMMAND                34
#define PMIX_INFO_DIRECTIVES        35
#define PMIX_DATA_TYPE              36
#define PMIX_PROC_STATE             37
#define PMIX_PROC_INFO              38
#define PMIX_DATA_ARRAY             39
#define PMIX_PROC_RANK              40
#define PMIX_QUERY                  41
#define PMIX_COMPRESSED_STRING      42
#define PMIX_ALLOC_DIRECTIVE        43
#define PMIX_IOF_CHANNEL            45
#define PMIX_ENVAR                  46
#define PMIX_COORD                  47
#define PMIX_REGATTR                48
#define PMIX_REGEX                  49
#define PMIX_JOB_STATE              50
#define PMIX_LINK_STATE             51
#define PMIX_PROC_CPUSET            52
#define PMIX_GEOMETRY               53
#define PMIX_DEVICE_DIST            54
#define PMIX_ENDPOINT               55
#define PMIX_TOPO                   56
#define PMIX_DEVTYPE                57
#define PMIX_LOCTYPE                58
#define PMIX_COMPRESSED_BYTE_OBJECT 59
#define PMIX_PROC_NSPACE            60
#define PMIX_PROC_STATS             61
#define PMIX_DISK_STATS             62
#define PMIX_NET_STATS              63
#define PMIX_NODE_STATS             64
#define PMIX_DATA_BUFFER            65
#define PMIX_STOR_MEDIUM            66
#define PMIX_STOR_ACCESS            67
#define PMIX_STOR_PERSIST           68
#define PMIX_STOR_ACCESS_TYPE       69

/* Values above this are free for implementation-private types. */
#define PMIX_DATA_TYPE_MAX         500


/* ====================================================================
 * 5. Small scalar types and their values
 * ==================================================================== */

/* -- process states; values below UNTERMINATED mean "still alive",
 *    values at or above ERROR mean "ended abnormally" -- */
typedef uint8_t pmix_proc_state_t;
#define PMIX_PROC_STATE_UNDEF                    0
#define PMIX_PROC_STATE_PREPPED                  1
#define PMIX_PROC_STATE_LAUNCH_UNDERWAY          2
#define PMIX_PROC_STATE_RESTART                  3
#define PMIX_PROC_STATE_TERMINATE                4
#define PMIX_PROC_STATE_RUNNING                  5
#define PMIX_PROC_STATE_CONNECTED                6
#define PMIX_PROC_STATE_UNTERMINATED            15
#define PMIX_PROC_STATE_TERMINATED              20
#define PMIX_PROC_STATE_ERROR                   50
#define PMIX_PROC_STATE_KILLED_BY_CMD           51
#define PMIX_PROC_STATE_ABORTED                 52
#define PMIX_PROC_STATE_FAILED_TO_START         53
#define PMIX_PROC_STATE_ABORTED_BY_SIG          54
#define PMIX_PROC_STATE_TERM_WO_SYNC            55
#define PMIX_PROC_STATE_COMM_FAILED             56
#define PMIX_PROC_STATE_SENSOR_BOUND_EXCEEDED   57
#define PMIX_PROC_STATE_CALLED_ABORT            58
#define PMIX_PROC_STATE_HEARTBEAT_FAILED        59
#define PMIX_PROC_STATE_MIGRATING               60
#define PMIX_PROC_STATE_CANNOT_RESTART          61
#define PMIX_PROC_STATE_TERM_NON_ZERO           62
#define PMIX_PROC_STATE_FAILED_TO_LAUNCH        63

/* -- job states, same boundary convention as process states -- */
typedef uint8_t pmix_job_state_t;
#define PMIX_JOB_STATE_UNDEF                     0
#define PMIX_JOB_STATE_AWAITING_ALLOC            1
#define PMIX_JOB_STATE_LAUNCH_UNDERWAY           2
#define PMIX_JOB_STATE_RUNNING                   3
#define PMIX_JOB_STATE_SUSPENDED                 4
#define PMIX_JOB_STATE_CONNECTED                 5
#define PMIX_JOB_STATE_UNTERMINATED             15
#define PMIX_JOB_STATE_TERMINATED               20
#define PMIX_JOB_STATE_TERMINATED_WITH_ERROR    50

/* -- visibility of data stored with PMIx_Put -- */
typedef uint8_t pmix_scope_t;
#define PMIX_SCOPE_UNDEF    0
#define PMIX_LOCAL          1   /* same node only */
#define PMIX_REMOTE         2   /* other nodes only */
#define PMIX_GLOBAL         3   /* everyone */
#define PMIX_INTERNAL       4   /* this process only */

/* -- audience of published data and events -- */
typedef uint8_t pmix_data_range_t;
#define PMIX_RANGE_UNDEF        0
#define PMIX_RANGE_RM           1
#define PMIX_RANGE_LOCAL        2
#define PMIX_RANGE_NAMESPACE    3
#define PMIX_RANGE_SESSION      4
#define PMIX_RANGE_GLOBAL       5
#define PMIX_RANGE_CUSTOM       6
#define PMIX_RANGE_PROC_LOCAL   7
#define PMIX_RANGE_INVALID      UINT8_MAX

/* -- lifetime of published data -- */
typedef uint8_t pmix_persistence_t;
#define PMIX_PERSIST_INDEF       0
#define PMIX_PERSIST_FIRST_READ  1
#define PMIX_PERSIST_PROC        2
#define PMIX_PERSIST_APP         3
#define PMIX_PERSIST_SESSION     4
#define PMIX_PERSIST_INVALID     UINT8_MAX

/* -- flag bits carried in pmix_info_t.flags -- */
typedef uint32_t pmix_info_directives_t;
#define PMIX_INFO_REQD            0x00000001
#define PMIX_INFO_ARRAY_END       0x00000002
#define PMIX_INFO_REQD_PROCESSED  0x00000004
#define PMIX_INFO_QUALIFIER       0x00000008
#define PMIX_INFO_PERSISTENT      0x00000010
/* upper half is reserved for the library's private use */
#define PMIX_INFO_DIR_RESERVED    0xffff0000

/* -- allocation request kinds -- */
typedef uint8_t pmix_alloc_directive_t;
#define PMIX_ALLOC_NEW        1
#define PMIX_ALLOC_EXTEND     2
#define PMIX_ALLOC_RELEASE    3
#define PMIX_ALLOC_REAQUIRE   4
#define PMIX_ALLOC_REQ_CANCEL 5     /* OpenPMIx 5.0: withdraw a pending request */
/* values from here up are implementation-defined */
#define PMIX_ALLOC_EXTERNAL 128

/* -- I/O forwarding channel bit mask -- */
typedef uint16_t pmix_iof_channel_t;
#define PMIX_FWD_NO_CHANNELS      0x0000
#define PMIX_FWD_STDIN_CHANNEL    0x0001
#define PMIX_FWD_STDOUT_CHANNEL   0x0002
#define PMIX_FWD_STDERR_CHANNEL   0x0004
#define PMIX_FWD_STDDIAG_CHANNEL  0x0008
#define PMIX_FWD_ALL_CHANNELS     0x00ff

/* -- PMIx_Group_join answers and group operations -- */
typedef enum {
    PMIX_GROUP_DECLINE,
    PMIX_GROUP_ACCEPT
} pmix_group_opt_t;

typedef enum {
    PMIX_GROUP_CONSTRUCT,
    PMIX_GROUP_DESTRUCT,
    PMIX_GROUP_NONE       /* OpenPMIx 5.0 */
} pmix_group_operation_t;

/* -- storage descriptions (bit masks) -- */
typedef uint64_t pmix_storage_medium_t;
#define PMIX_STORAGE_MEDIUM_UNKNOWN          0x0000000000000001
#define PMIX_STORAGE_MEDIUM_TAPE             0x0000000000000002
#define PMIX_STORAGE_MEDIUM_HDD              0x0000000000000004
#define PMIX_STORAGE_MEDIUM_SSD              0x0000000000000008
#define PMIX_STORAGE_MEDIUM_NVME             0x0000000000000010
#define PMIX_STORAGE_MEDIUM_PMEM             0x0000000000000020
#define PMIX_STORAGE_MEDIUM_RAM              0x0000000000000040

typedef uint64_t pmix_storage_accessibility_t;
#define PMIX_STORAGE_ACCESSIBILITY_NODE      0x0000000000000001
#define PMIX_STORAGE_ACCESSIBILITY_SESSION   0x0000000000000002
#define PMIX_STORAGE_ACCESSIBILITY_JOB       0x0000000000000004
#define PMIX_STORAGE_ACCESSIBILITY_RACK      0x0000000000000008
#define PMIX_STORAGE_ACCESSIBILITY_CLUSTER   0x0000000000000010
#define PMIX_STORAGE_ACCESSIBILITY_REMOTE    0x0000000000000020

typedef uint64_t pmix_storage_persistence_t;
#define PMIX_STORAGE_PERSISTENCE_TEMPORARY   0x0000000000000001
#define PMIX_STORAGE_PERSISTENCE_NODE        0x0000000000000002
#define PMIX_STORAGE_PERSISTENCE_SESSION     0x0000000000000004
#define PMIX_STORAGE_PERSISTENCE_JOB         0x0000000000000008
#define PMIX_STORAGE_PERSISTENCE_SCRATCH     0x0000000000000010
#define PMIX_STORAGE_PERSISTENCE_PROJECT     0x0000000000000020
#define PMIX_STORAGE_PERSISTENCE_ARCHIVE     0x0000000000000040

typedef uint16_t pmix_storage_access_type_t;
#define PMIX_STORAGE_ACCESS_RD               0x0001
#define PMIX_STORAGE_ACCESS_WR               0x0002
#define PMIX_STORAGE_ACCESS_RDWR             0x0003

/* -- fabric coordinate views -- */
typedef uint8_t pmix_coord_view_t;
#define PMIX_COORD_VIEW_UNDEF     0x00
#define PMIX_COORD_LOGICAL_VIEW   0x01
#define PMIX_COORD_PHYSICAL_VIEW  0x02

/* -- fabric port link state -- */
typedef uint8_t pmix_link_state_t;
#define PMIX_LINK_STATE_UNKNOWN   0
#define PMIX_LINK_DOWN            1
#define PMIX_LINK_UP              2

/* -- what a cpuset query is about -- */
typedef uint8_t pmix_bind_envelope_t;
#define PMIX_CPUBIND_PROCESS      0
#define PMIX_CPUBIND_THREAD       1

/* -- relative locality bit mask -- */
typedef uint16_t pmix_locality_t;
#define PMIX_LOCALITY_UNKNOWN         0x0000
#define PMIX_LOCALITY_SHARE_HWTHREAD  0x0001
#define PMIX_LOCALITY_SHARE_CORE      0x0002
#define PMIX_LOCALITY_SHARE_L1CACHE   0x0004
#define PMIX_LOCALITY_SHARE_L2CACHE   0x0008
#define PMIX_LOCALITY_SHARE_L3CACHE   0x0010
#define PMIX_LOCALITY_SHARE_PACKAGE   0x0020
#define PMIX_LOCALITY_SHARE_NUMA      0x0040
#define PMIX_LOCALITY_SHARE_NODE      0x4000
#define PMIX_LOCALITY_NONLOCAL        0x8000

/* -- device classes (bit mask) -- */
typedef uint64_t pmix_device_type_t;
#define PMIX_DEVTYPE_UNKNOWN      0x00
#define PMIX_DEVTYPE_BLOCK        0x01
#define PMIX_DEVTYPE_GPU          0x02
#define PMIX_DEVTYPE_NETWORK      0x04
#define PMIX_DEVTYPE_OPENFABRICS  0x08
#define PMIX_DEVTYPE_DMA          0x10
#define PMIX_DEVTYPE_COPROC       0x20


/* ====================================================================
 * 6. Attribute keys (strings used as pmix_info_t keys); the comment on
 *    each gives the C type of the value that goes with it
 * ==================================================================== */

/* ---- Environment variables recognised by launchers and tools ---- */
#define PMIX_LAUNCHER_RNDZ_URI                   "PMIX_LAUNCHER_RNDZ_URI"
#define PMIX_LAUNCHER_RNDZ_FILE                  "PMIX_LAUNCHER_RNDZ_FILE"
#define PMIX_KEEPALIVE_PIPE                      "PMIX_KEEPALIVE_PIPE"

/* ---- Attribute keys: generic ---- */
#define PMIX_ATTR_UNDEF                          "pmix.undef"

/* ---- Attribute keys: library and server initialisation ---- */
#define PMIX_EXTERNAL_PROGRESS                   "pmix.evext"                      /* bool */
#define PMIX_EXTERNAL_AUX_EVENT_BASE             "pmix.evaux"                      /* void* */
#define PMIX_SERVER_TOOL_SUPPORT                 "pmix.srvr.tool"                  /* bool */
#define PMIX_SERVER_ALLOW_FOREIGN_TOOLS          "pmix.srvr.ftools"                /* bool */
#define PMIX_SERVER_REMOTE_CONNECTIONS           "pmix.srvr.remote"                /* bool */
#define PMIX_SERVER_SYSTEM_SUPPORT               "pmix.srvr.sys"                   /* bool */
#define PMIX_SERVER_SESSION_SUPPORT              "pmix.srvr.sess"                  /* bool */
#define PMIX_SERVER_TMPDIR                       "pmix.srvr.tmpdir"                /* char* */
#define PMIX_SYSTEM_TMPDIR                       "pmix.sys.tmpdir"                 /* char* */
#define PMIX_SERVER_SHARE_TOPOLOGY               "pmix.srvr.share"                 /* bool */
#define PMIX_SERVER_ENABLE_MONITORING            "pmix.srv.monitor"                /* bool */
#define PMIX_SERVER_NSPACE                       "pmix.srv.nspace"                 /* char* */
#define PMIX_SERVER_RANK                         "pmix.srv.rank"                   /* pmix_rank_t */
#define PMIX_SERVER_GATEWAY                      "pmix.srv.gway"                   /* bool */
#define PMIX_SERVER_SYS_CONTROLLER               "pmix.srv.ctrlr"                  /* bool */
#define PMIX_SERVER_SCHEDULER                    "pmix.srv.sched"                  /* bool */
#define PMIX_SERVER_START_TIME                   "pmix.srv.strtime"                /* char* */
#define PMIX_HOMOGENEOUS_SYSTEM                  "pmix.homo"                       /* bool */
#define PMIX_SINGLETON                           "pmix.singleton"                  /* char* */
#define PMIX_BIND_PROGRESS_THREAD                "pmix.bind.pt"                    /* char* */
#define PMIX_BIND_REQUIRED                       "pmix.bind.reqd"                  /* bool */

/* ---- Attribute keys: tools and server connections ---- */
#define PMIX_TOOL_NSPACE                         "pmix.tool.nspace"                /* char* */
#define PMIX_TOOL_RANK                           "pmix.tool.rank"                  /* uint32_t */
#define PMIX_SERVER_PIDINFO                      "pmix.srvr.pidinfo"               /* pid_t */
#define PMIX_CONNECT_TO_SYSTEM                   "pmix.cnct.sys"                   /* bool */
#define PMIX_CONNECT_SYSTEM_FIRST                "pmix.cnct.sys.first"             /* bool */
#define PMIX_CONNECT_TO_SCHEDULER                "pmix.cnct.sched"                 /* bool */
#define PMIX_CONNECT_TO_SYS_CONTROLLER           "pmix.cnct.ctrlr"                 /* bool */
#define PMIX_CONNECTION_ORDER                    "pmix.cnct.ord"                   /* char* */
#define PMIX_SERVER_URI                          "pmix.srvr.uri"                   /* char* */
#define PMIX_MYSERVER_URI                        "pmix.mysrvr.uri"                 /* char* */
#define PMIX_SERVER_HOSTNAME                     "pmix.srvr.host"                  /* char* */
#define PMIX_CONNECT_MAX_RETRIES                 "pmix.tool.mretries"              /* uint32_t */
#define PMIX_CONNECT_RETRY_DELAY                 "pmix.tool.retry"                 /* uint32_t */
#define PMIX_TOOL_DO_NOT_CONNECT                 "pmix.tool.nocon"                 /* bool */
#define PMIX_TOOL_CONNECT_OPTIONAL               "pmix.tool.conopt"                /* bool */
#define PMIX_LAUNCHER                            "pmix.tool.launcher"              /* bool */
#define PMIX_LAUNCHER_RENDEZVOUS_FILE            "pmix.tool.lncrnd"                /* char* */
#define PMIX_TOOL_ATTACHMENT_FILE                "pmix.tool.attach"                /* char* */
#define PMIX_PRIMARY_SERVER                      "pmix.pri.srvr"                   /* bool */
#define PMIX_NOHUP                               "pmix.nohup"                      /* bool */
#define PMIX_LAUNCHER_DAEMON                     "pmix.lnch.dmn"                   /* char* */
#define PMIX_EXEC_AGENT                          "pmix.exec.agnt"                  /* char* */
#define PMIX_LAUNCH_DIRECTIVES                   "pmix.lnch.dirs"                  /* pmix_data_array_t* */
#define PMIX_REALUID                             "pmix.ruid"                       /* uint32_t */

/* ---- Attribute keys: caller identity ---- */
#define PMIX_USERID                              "pmix.euid"                       /* uint32_t */
#define PMIX_REALGID                             "pmix.rgid"                       /* uint32_t */
#define PMIX_GRPID                               "pmix.egid"                       /* uint32_t */
#define PMIX_VERSION_INFO                        "pmix.version"                    /* char* */
#define PMIX_REQUESTOR_IS_TOOL                   "pmix.req.tool"                   /* bool */
#define PMIX_REQUESTOR_IS_CLIENT                 "pmix.req.client"                 /* bool */
#define PMIX_PSET_NAME                           "pmix.pset.nm"                    /* char* */
#define PMIX_PSET_NAMES                          "pmix.pset.nms"                   /* pmix_data_array_t* */
#define PMIX_PSET_MEMBERS                        "pmix.pset.mems"                  /* pmix_data_array_t* */
#define PMIX_REINCARNATION                       "pmix.reinc"                      /* uint32_t */

/* ---- Attribute keys: programming model ---- */
#define PMIX_PROGRAMMING_MODEL                   "pmix.pgm.model"                  /* char* */
#define PMIX_MODEL_LIBRARY_NAME                  "pmix.mdl.name"                   /* char* */
#define PMIX_MODEL_LIBRARY_VERSION               "pmix.mld.vrs"                    /* char* */
#define PMIX_THREADING_MODEL                     "pmix.threads"                    /* char* */
#define PMIX_MODEL_NUM_THREADS                   "pmix.mdl.nthrds"                 /* uint64_t */
#define PMIX_MODEL_NUM_CPUS                      "pmix.mdl.ncpu"                   /* uint64_t */
#define PMIX_MODEL_CPU_TYPE                      "pmix.mdl.cputype"                /* char* */
#define PMIX_MODEL_PHASE_NAME                    "pmix.mdl.phase"                  /* char* */
#define PMIX_MODEL_PHASE_TYPE                    "pmix.mdl.ptype"                  /* char* */
#define PMIX_MODEL_AFFINITY_POLICY               "pmix.mdl.tap"                    /* char* */

/* ---- Attribute keys: TCP transport ---- */
#define PMIX_TCP_REPORT_URI                      "pmix.tcp.repuri"                 /* char* */
#define PMIX_TCP_URI                             "pmix.tcp.uri"                    /* char* */
#define PMIX_TCP_IF_INCLUDE                      "pmix.tcp.ifinclude"              /* char* */
#define PMIX_TCP_IF_EXCLUDE                      "pmix.tcp.ifexclude"              /* char* */
#define PMIX_TCP_IPV4_PORT                       "pmix.tcp.ipv4"                   /* int */
#define PMIX_TCP_IPV6_PORT                       "pmix.tcp.ipv6"                   /* int */
#define PMIX_TCP_DISABLE_IPV4                    "pmix.tcp.disipv4"                /* bool */
#define PMIX_TCP_DISABLE_IPV6                    "pmix.tcp.disipv6"                /* bool */

/* ---- Attribute keys: per-process information ---- */
#define PMIX_CPUSET                              "pmix.cpuset"                     /* char* */
#define PMIX_CPUSET_BITMAP                       "pmix.bitmap"                     /* pmix_cpuset_t* */
#define PMIX_CREDENTIAL                          "pmix.cred"                       /* char* */
#define PMIX_SPAWNED                             "pmix.spawned"                    /* bool */
#define PMIX_NODE_OVERSUBSCRIBED                 "pmix.ndosub"                     /* bool */

/* ---- Attribute keys: scratch directories ---- */
#define PMIX_TMPDIR                              "pmix.tmpdir"                     /* char* */
#define PMIX_NSDIR                               "pmix.nsdir"                      /* char* */
#define PMIX_PROCDIR                             "pmix.pdir"                       /* char* */
#define PMIX_TDIR_RMCLEAN                        "pmix.tdir.rmclean"               /* bool */

/* ---- Attribute keys: ranks, locations and node lists ---- */
#define PMIX_CLUSTER_ID                          "pmix.clid"                       /* char* */
#define PMIX_PROCID                              "pmix.procid"                     /* pmix_proc_t* */
#define PMIX_NSPACE                              "pmix.nspace"                     /* char* */
#define PMIX_JOBID                               "pmix.jobid"                      /* char* */
#define PMIX_APPNUM                              "pmix.appnum"                     /* uint32_t */
#define PMIX_RANK                                "pmix.rank"                       /* pmix_rank_t */
#define PMIX_GLOBAL_RANK                         "pmix.grank"                      /* pmix_rank_t */
#define PMIX_APP_RANK                            "pmix.apprank"                    /* pmix_rank_t */
#define PMIX_NPROC_OFFSET                        "pmix.offset"                     /* pmix_rank_t */
#define PMIX_LOCAL_RANK                          "pmix.lrank"                      /* uint16_t */
#define PMIX_NODE_RANK                           "pmix.nrank"                      /* uint16_t */
#define PMIX_PACKAGE_RANK                        "pmix.pkgrank"                    /* uint16_t */
#define PMIX_LOCALLDR                            "pmix.lldr"                       /* pmix_rank_t */
#define PMIX_APPLDR                              "pmix.aldr"                       /* pmix_rank_t */
#define PMIX_PROC_PID                            "pmix.ppid"                       /* pid_t */
#define PMIX_SESSION_ID                          "pmix.session.id"                 /* uint32_t */
#define PMIX_NODE_LIST                           "pmix.nlist"                      /* char* */
#define PMIX_ALLOCATED_NODELIST                  "pmix.alist"                      /* char* */
#define PMIX_HOSTNAME                            "pmix.hname"                      /* char* */
#define PMIX_HOSTNAME_ALIASES                    "pmix.alias"                      /* char* */
#define PMIX_HOSTNAME_KEEP_FQDN                  "pmix.fqdn"                       /* bool */
#define PMIX_NODEID                              "pmix.nodeid"                     /* uint32_t */
#define PMIX_LOCAL_PEERS                         "pmix.lpeers"                     /* char* */
#define PMIX_LOCAL_PROCS                         "pmix.lprocs"                     /* pmix_data_array_t* */
#define PMIX_LOCAL_CPUSETS                       "pmix.lcpus"                      /* char* */
#define PMIX_PARENT_ID                           "pmix.parent"                     /* pmix_proc_t* */
#define PMIX_EXIT_CODE                           "pmix.exit.code"                  /* int */

/* ---- Attribute keys: sizes and counts ---- */
#define PMIX_UNIV_SIZE                           "pmix.univ.size"                  /* uint32_t */
#define PMIX_JOB_SIZE                            "pmix.job.size"                   /* uint32_t */
#define PMIX_JOB_NUM_APPS                        "pmix.job.napps"                  /* uint32_t */
#define PMIX_APP_SIZE                            "pmix.app.size"                   /* uint32_t */
#define PMIX_LOCAL_SIZE                          "pmix.local.size"                 /* uint32_t */
#define PMIX_NODE_SIZE                           "pmix.node.size"                  /* uint32_t */
#define PMIX_MAX_PROCS                           "pmix.max.size"                   /* uint32_t */
#define PMIX_NUM_SLOTS                           "pmix.num.slots"                  /* uint32_t */
#define PMIX_NUM_NODES                           "pmix.num.nodes"                  /* uint32_t */
#define PMIX_NUM_ALLOCATED_NODES                 "pmix.num.anodes"                 /* uint32_t */

/* ---- Attribute keys: memory ---- */
#define PMIX_AVAIL_PHYS_MEMORY                   "pmix.pmem"                       /* uint64_t */
#define PMIX_DAEMON_MEMORY                       "pmix.dmn.mem"                    /* float */
#define PMIX_CLIENT_AVG_MEMORY                   "pmix.cl.mem.avg"                 /* float */

/* ---- Attribute keys: topology ---- */
#define PMIX_TOPOLOGY2                           "pmix.topo2"                      /* pmix_topology_t* */
#define PMIX_LOCALITY_STRING                     "pmix.locstr"                     /* char* */
#define PMIX_TOPOLOGY_INDEX                      "pmix.topo.index"                 /* int */

/* ---- Attribute keys: request modifiers ---- */
#define PMIX_COLLECT_DATA                        "pmix.collect"                    /* bool */
#define PMIX_ALL_CLONES_PARTICIPATE              "pmix.clone.part"                 /* bool */
#define PMIX_COLLECT_GENERATED_JOB_INFO          "pmix.collect.gen"                /* bool */
#define PMIX_TIMEOUT                             "pmix.timeout"                    /* int */
#define PMIX_IMMEDIATE                           "pmix.immediate"                  /* bool */
#define PMIX_WAIT                                "pmix.wait"                       /* int */
#define PMIX_NOTIFY_COMPLETION                   "pmix.notecomp"                   /* bool */
#define PMIX_RANGE                               "pmix.range"                      /* pmix_data_range_t */
#define PMIX_PERSISTENCE                         "pmix.persist"                    /* pmix_persistence_t */
#define PMIX_DATA_SCOPE                          "pmix.scope"                      /* pmix_scope_t */
#define PMIX_OPTIONAL                            "pmix.optional"                   /* bool */
#define PMIX_GET_STATIC_VALUES                   "pmix.get.static"                 /* bool */
#define PMIX_GET_POINTER_VALUES                  "pmix.get.pntrs"                  /* bool */
#define PMIX_EMBED_BARRIER                       "pmix.embed.barrier"              /* bool */
#define PMIX_JOB_TERM_STATUS                     "pmix.job.term.status"            /* pmix_status_t */
#define PMIX_PROC_TERM_STATUS                    "pmix.proc.term.status"           /* pmix_status_t */
#define PMIX_PROC_STATE_STATUS                   "pmix.proc.state"                 /* pmix_proc_state_t */
#define PMIX_GET_REFRESH_CACHE                   "pmix.get.refresh"                /* bool */
#define PMIX_ACCESS_PERMISSIONS                  "pmix.aperms"                     /* pmix_data_array_t* */
#define PMIX_ACCESS_USERIDS                      "pmix.auids"                      /* pmix_data_array_t* */
#define PMIX_ACCESS_GRPIDS                       "pmix.agids"                      /* pmix_data_array_t* */
#define PMIX_WAIT_FOR_CONNECTION                 "pmix.wait.conn"                  /* bool */
#define PMIX_QUALIFIED_VALUE                     "pmix.qual.val"                   /* pmix_data_array_t* */

/* ---- Attribute keys: data passed between host and server library ---- */
#define PMIX_REGISTER_NODATA                     "pmix.reg.nodata"                 /* bool */
#define PMIX_NODE_MAP                            "pmix.nmap"                       /* char* */
#define PMIX_NODE_MAP_RAW                        "pmix.nmap.raw"                   /* char* */
#define PMIX_PROC_MAP                            "pmix.pmap"                       /* char* */
#define PMIX_PROC_MAP_RAW                        "pmix.pmap.raw"                   /* char* */
#define PMIX_ANL_MAP                             "pmix.anlmap"                     /* char* */
#define PMIX_APP_MAP_TYPE                        "pmix.apmap.type"                 /* char* */
#define PMIX_APP_MAP_REGEX                       "pmix.apmap.regex"                /* char* */
#define PMIX_REQUIRED_KEY                        "pmix.req.key"                    /* char* */
#define PMIX_LOCAL_COLLECTIVE_STATUS             "pmix.loc.col.st"                 /* pmix_status_t */
#define PMIX_SORTED_PROC_ARRAY                   "pmix.sorted.parr"                /* bool */

/* ---- Attribute keys: event handlers and notification ---- */
#define PMIX_EVENT_HDLR_NAME                     "pmix.evname"                     /* char* */
#define PMIX_EVENT_HDLR_FIRST                    "pmix.evfirst"                    /* bool */
#define PMIX_EVENT_HDLR_LAST                     "pmix.evlast"                     /* bool */
#define PMIX_EVENT_HDLR_FIRST_IN_CATEGORY        "pmix.evfirstcat"                 /* bool */
#define PMIX_EVENT_HDLR_LAST_IN_CATEGORY         "pmix.evlastcat"                  /* bool */
#define PMIX_EVENT_HDLR_BEFORE                   "pmix.evbefore"                   /* char* */
#define PMIX_EVENT_HDLR_AFTER                    "pmix.evafter"                    /* char* */
#define PMIX_EVENT_HDLR_PREPEND                  "pmix.evprepend"                  /* bool */
#define PMIX_EVENT_HDLR_APPEND                   "pmix.evappend"                   /* bool */
#define PMIX_EVENT_CUSTOM_RANGE                  "pmix.evrange"                    /* pmix_data_array_t* */
#define PMIX_EVENT_AFFECTED_PROC                 "pmix.evproc"                     /* pmix_proc_t* */
#define PMIX_EVENT_AFFECTED_PROCS                "pmix.evaffected"                 /* pmix_data_array_t* */
#define PMIX_EVENT_NON_DEFAULT                   "pmix.evnondef"                   /* bool */
#define PMIX_EVENT_RETURN_OBJECT                 "pmix.evobject"                   /* void* */
#define PMIX_EVENT_DO_NOT_CACHE                  "pmix.evnocache"                  /* bool */
#define PMIX_EVENT_SILENT_TERMINATION            "pmix.evsilentterm"               /* bool */
#define PMIX_EVENT_PROXY                         "pmix.evproxy"                    /* pmix_proc_t* */
#define PMIX_EVENT_TEXT_MESSAGE                  "pmix.evtext"                     /* char* */
#define PMIX_EVENT_TIMESTAMP                     "pmix.evtstamp"                   /* time_t */
#define PMIX_EVENT_ONESHOT                       "pmix.evone"                      /* bool */

/* ---- Attribute keys: fault-tolerance event actions ---- */
#define PMIX_EVENT_TERMINATE_SESSION             "pmix.evterm.sess"                /* bool */
#define PMIX_EVENT_TERMINATE_JOB                 "pmix.evterm.job"                 /* bool */
#define PMIX_EVENT_TERMINATE_NODE                "pmix.evterm.node"                /* bool */
#define PMIX_EVENT_TERMINATE_PROC                "pmix.evterm.proc"                /* bool */
#define PMIX_EVENT_ACTION_TIMEOUT                "pmix.evtimeout"                  /* int */

/* ---- Attribute keys: spawn directives ---- */
#define PMIX_PERSONALITY                         "pmix.pers"                       /* char* */
#define PMIX_HOST                                "pmix.host"                       /* char* */
#define PMIX_HOSTFILE                            "pmix.hostfile"                   /* char* */
#define PMIX_ADD_HOST                            "pmix.addhost"                    /* char* */
#define PMIX_ADD_HOSTFILE                        "pmix.addhostfile"                /* char* */
#define PMIX_PREFIX                              "pmix.prefix"                     /* char* */
#define PMIX_WDIR                                "pmix.wdir"                       /* char* */
#define PMIX_WDIR_USER_SPECIFIED                 "pmix.wdir.user"                  /* bool */
#define PMIX_DISPLAY_MAP                         "pmix.dispmap"                    /* bool */
#define PMIX_DISPLAY_MAP_DETAILED                "pmix.dispmapdet"                 /* bool */
#define PMIX_DISPLAY_ALLOCATION                  "pmix.dispalloc"                  /* bool */
#define PMIX_DISPLAY_TOPOLOGY                    "pmix.disptopo"                   /* char* */
#define PMIX_DISPLAY_PROCESSORS                  "pmix.dispcpus"                   /* char* */
#define PMIX_DISPLAY_PARSEABLE_OUTPUT            "pmix.dispparse"                  /* bool */
#define PMIX_PPR                                 "pmix.ppr"                        /* char* */
#define PMIX_MAPBY                               "pmix.mapby"                      /* char* */
#define PMIX_RANKBY                              "pmix.rankby"                     /* char* */
#define PMIX_BINDTO                              "pmix.bindto"                     /* char* */
#define PMIX_PRELOAD_BIN                         "pmix.preloadbin"                 /* bool */
#define PMIX_PRELOAD_FILES                       "pmix.preloadfiles"               /* char* */
#define PMIX_STDIN_TGT                           "pmix.stdin"                      /* pmix_proc_t* */
#define PMIX_DEBUGGER_DAEMONS                    "pmix.debugger"                   /* bool */
#define PMIX_COSPAWN_APP                         "pmix.cospawn"                    /* bool */
#define PMIX_COLOCATE_PROCS                      "pmix.colproc"                    /* pmix_data_array_t* */
#define PMIX_COLOCATE_NPERPROC                   "pmix.colnum.proc"                /* uint16_t */
#define PMIX_COLOCATE_NPERNODE                   "pmix.colnum.node"                /* uint16_t */
#define PMIX_SET_SESSION_CWD                     "pmix.ssncwd"                     /* bool */
#define PMIX_INDEX_ARGV                          "pmix.indxargv"                   /* bool */
#define PMIX_CPUS_PER_PROC                       "pmix.cpuperproc"                 /* uint32_t */
#define PMIX_NO_PROCS_ON_HEAD                    "pmix.nolocal"                    /* bool */
#define PMIX_NO_OVERSUBSCRIBE                    "pmix.noover"                     /* bool */
#define PMIX_REPORT_BINDINGS                     "pmix.repbind"                    /* bool */
#define PMIX_CPU_LIST                            "pmix.cpulist"                    /* char* */
#define PMIX_JOB_RECOVERABLE                     "pmix.recover"                    /* bool */
#define PMIX_JOB_CONTINUOUS                      "pmix.continuous"                 /* bool */
#define PMIX_MAX_RESTARTS                        "pmix.maxrestarts"                /* uint32_t */
#define PMIX_FWD_STDIN                           "pmix.fwd.stdin"                  /* bool */
#define PMIX_FWD_STDOUT                          "pmix.fwd.stdout"                 /* bool */
#define PMIX_FWD_STDERR                          "pmix.fwd.stderr"                 /* bool */
#define PMIX_FWD_STDDIAG                         "pmix.fwd.stddiag"                /* bool */
#define PMIX_SPAWN_TOOL                          "pmix.spwn.tool"                  /* bool */
#define PMIX_CMD_LINE                            "pmix.cmd.line"                   /* char* */
#define PMIX_FORKEXEC_AGENT                      "pmix.fe.agnt"                    /* char* */
#define PMIX_JOB_TIMEOUT                         "pmix.job.time"                   /* int */
#define PMIX_SPAWN_TIMEOUT                       "pmix.sp.time"                    /* int */
#define PMIX_TIMEOUT_STACKTRACES                 "pmix.tim.stack"                  /* bool */
#define PMIX_TIMEOUT_REPORT_STATE                "pmix.tim.state"                  /* bool */
#define PMIX_APP_ARGV                            "pmix.app.argv"                   /* char* */
#define PMIX_NOTIFY_JOB_EVENTS                   "pmix.note.jev"                   /* bool */
#define PMIX_NOTIFY_PROC_TERMINATION             "pmix.noteproc"                   /* bool */
#define PMIX_NOTIFY_PROC_ABNORMAL_TERMINATION    "pmix.noteabproc"                 /* bool */
#define PMIX_ENVARS_HARVESTED                    "pmix.evar.hvstd"                 /* bool */
#define PMIX_RUNTIME_OPTIONS                     "pmix.runopt"                     /* char* */
#define PMIX_ABORT_NON_ZERO_TERM                 "pmix.abnz"                       /* bool */
#define PMIX_DO_NOT_LAUNCH                       "pmix.dnl"                        /* bool */
#define PMIX_SHOW_LAUNCH_PROGRESS                "pmix.showprog"                   /* bool */
#define PMIX_AGGREGATE_HELP                      "pmix.agg.help"                   /* bool */
#define PMIX_REPORT_CHILD_SEP                    "pmix.rptchildsep"                /* bool */
#define PMIX_SPAWN_CHILD_SEP                     "pmix.spchildsep"                 /* bool */

/* ---- Attribute keys: query keys ---- */
#define PMIX_QUERY_SUPPORTED_KEYS                "pmix.qry.keys"                   /* char* */
#define PMIX_QUERY_NAMESPACES                    "pmix.qry.ns"                     /* char* */
#define PMIX_QUERY_NAMESPACE_INFO                "pmix.qry.nsinfo"                 /* pmix_data_array_t* */
#define PMIX_QUERY_JOB_STATUS                    "pmix.qry.jst"                    /* pmix_status_t */
#define PMIX_QUERY_QUEUE_LIST                    "pmix.qry.qlst"                   /* char* */
#define PMIX_QUERY_QUEUE_STATUS                  "pmix.qry.qst"                    /* pmix_data_array_t* */
#define PMIX_QUERY_PROC_TABLE                    "pmix.qry.ptable"                 /* pmix_data_array_t* */
#define PMIX_QUERY_LOCAL_PROC_TABLE              "pmix.qry.lptable"                /* pmix_data_array_t* */
#define PMIX_QUERY_AUTHORIZATIONS                "pmix.qry.auths"                  /* pmix_data_array_t* */
#define PMIX_QUERY_SPAWN_SUPPORT                 "pmix.qry.spawn"                  /* char* */
#define PMIX_QUERY_DEBUG_SUPPORT                 "pmix.qry.debug"                  /* char* */
#define PMIX_QUERY_MEMORY_USAGE                  "pmix.qry.mem"                    /* pmix_data_array_t* */
#define PMIX_QUERY_ALLOC_STATUS                  "pmix.query.alloc"                /* char* */
#define PMIX_QUERY_ALLOCATION                    "pmix.query.allc"                 /* pmix_data_array_t* */
#define PMIX_TIME_REMAINING                      "pmix.time.remaining"             /* uint32_t */
#define PMIX_QUERY_NUM_PSETS                     "pmix.qry.psetnum"                /* size_t */
#define PMIX_QUERY_PSET_NAMES                    "pmix.qry.psets"                  /* char* */
#define PMIX_QUERY_PSET_MEMBERSHIP               "pmix.qry.pmems"                  /* pmix_data_array_t* */
#define PMIX_QUERY_NUM_GROUPS                    "pmix.qry.pgrpnum"                /* size_t */
#define PMIX_QUERY_GROUP_NAMES                   "pmix.qry.pgrp"                   /* pmix_data_array_t* */
#define PMIX_QUERY_GROUP_MEMBERSHIP              "pmix.qry.pgrpmems"               /* pmix_data_array_t* */
#define PMIX_QUERY_ATTRIBUTE_SUPPORT             "pmix.qry.attrs"                  /* pmix_data_array_t* */
#define PMIX_CLIENT_FUNCTIONS                    "pmix.client.fns"                 /* char* */
#define PMIX_SERVER_FUNCTIONS                    "pmix.srvr.fns"                   /* char* */
#define PMIX_TOOL_FUNCTIONS                      "pmix.tool.fns"                   /* char* */
#define PMIX_HOST_FUNCTIONS                      "pmix.host.fns"                   /* char* */
#define PMIX_QUERY_AVAIL_SERVERS                 "pmix.qry.asrvrs"                 /* pmix_data_array_t* */
#define PMIX_QUERY_QUALIFIERS                    "pmix.qry.quals"                  /* pmix_data_array_t* */
#define PMIX_QUERY_RESULTS                       "pmix.qry.res"                    /* pmix_data_array_t* */
#define PMIX_QUERY_AVAILABLE_SLOTS               "pmix.qry.aslots"                 /* uint32_t */
#define PMIX_QUERY_RESOLVE_PEERS                 "pmix.qry.peers"                  /* pmix_data_array_t* */
#define PMIX_QUERY_RESOLVE_NODE                  "pmix.qry.node"                   /* char* */

/* ---- Attribute keys: query qualifiers ---- */
#define PMIX_QUERY_REFRESH_CACHE                 "pmix.qry.rfsh"                   /* bool */
#define PMIX_QUERY_LOCAL_ONLY                    "pmix.qry.local"                  /* bool */
#define PMIX_QUERY_REPORT_AVG                    "pmix.qry.avg"                    /* bool */
#define PMIX_QUERY_REPORT_MINMAX                 "pmix.qry.minmax"                 /* bool */
#define PMIX_CLIENT_ATTRIBUTES                   "pmix.client.attrs"               /* char* */
#define PMIX_SERVER_ATTRIBUTES                   "pmix.srvr.attrs"                 /* char* */
#define PMIX_HOST_ATTRIBUTES                     "pmix.host.attrs"                 /* char* */
#define PMIX_TOOL_ATTRIBUTES                     "pmix.tool.attrs"                 /* char* */
#define PMIX_QUERY_SUPPORTED_QUALIFIERS          "pmix.qry.quals"                  /* bool */

/* ---- Attribute keys: PMIx_Get scoping ---- */
#define PMIX_SESSION_INFO                        "pmix.ssn.info"                   /* bool */
#define PMIX_JOB_INFO                            "pmix.job.info"                   /* bool */
#define PMIX_APP_INFO                            "pmix.app.info"                   /* bool */
#define PMIX_NODE_INFO                           "pmix.node.info"                  /* bool */

/* ---- Attribute keys: registration info arrays ---- */
#define PMIX_SESSION_INFO_ARRAY                  "pmix.ssn.arr"                    /* pmix_data_array_t* */
#define PMIX_JOB_INFO_ARRAY                      "pmix.job.arr"                    /* pmix_data_array_t* */
#define PMIX_APP_INFO_ARRAY                      "pmix.app.arr"                    /* pmix_data_array_t* */
#define PMIX_PROC_INFO_ARRAY                     "pmix.pdata"                      /* pmix_data_array_t* */
#define PMIX_NODE_INFO_ARRAY                     "pmix.node.arr"                   /* pmix_data_array_t* */
#define PMIX_SERVER_INFO_ARRAY                   "pmix.srv.arr"                    /* pmix_data_array_t* */

/* ---- Attribute keys: logging ---- */
#define PMIX_LOG_SOURCE                          "pmix.log.source"                 /* pmix_proc_t* */
#define PMIX_LOG_STDERR                          "pmix.log.stderr"                 /* char* */
#define PMIX_LOG_STDOUT                          "pmix.log.stdout"                 /* char* */
#define PMIX_LOG_SYSLOG                          "pmix.log.syslog"                 /* char* */
#define PMIX_LOG_LOCAL_SYSLOG                    "pmix.log.lsys"                   /* char* */
#define PMIX_LOG_GLOBAL_SYSLOG                   "pmix.log.gsys"                   /* char* */
#define PMIX_LOG_SYSLOG_PRI                      "pmix.log.syspri"                 /* int */
#define PMIX_LOG_TIMESTAMP                       "pmix.log.tstmp"                  /* time_t */
#define PMIX_LOG_GENERATE_TIMESTAMP              "pmix.log.gtstmp"                 /* bool */
#define PMIX_LOG_TAG_OUTPUT                      "pmix.log.tag"                    /* bool */
#define PMIX_LOG_TIMESTAMP_OUTPUT                "pmix.log.tsout"                  /* bool */
#define PMIX_LOG_XML_OUTPUT                      "pmix.log.xml"                    /* bool */
#define PMIX_LOG_ONCE                            "pmix.log.once"                   /* bool */
#define PMIX_LOG_MSG                             "pmix.log.msg"                    /* pmix_byte_object_t */
#define PMIX_LOG_KEY                             "pmix.log.key"                    /* char* */
#define PMIX_LOG_VAL                             "pmix.log.val"                    /* char* */
#define PMIX_LOG_AGG                             "pmix.log.agg"                    /* bool */
#define PMIX_LOG_EMAIL                           "pmix.log.email"                  /* pmix_data_array_t* */
#define PMIX_LOG_EMAIL_ADDR                      "pmix.log.emaddr"                 /* char* */
#define PMIX_LOG_EMAIL_SENDER_ADDR               "pmix.log.emfaddr"                /* char* */
#define PMIX_LOG_EMAIL_SUBJECT                   "pmix.log.emsub"                  /* char* */
#define PMIX_LOG_EMAIL_MSG                       "pmix.log.emmsg"                  /* char* */
#define PMIX_LOG_EMAIL_SERVER                    "pmix.log.esrvr"                  /* char* */
#define PMIX_LOG_EMAIL_SRVR_PORT                 "pmix.log.esrvrprt"               /* int32_t */
#define PMIX_LOG_GLOBAL_DATASTORE                "pmix.log.gstore"                 /* bool */
#define PMIX_LOG_JOB_RECORD                      "pmix.log.jrec"                   /* bool */
#define PMIX_LOG_PROC_TERMINATION                "pmix.logproc"                    /* bool */
#define PMIX_LOG_PROC_ABNORMAL_TERMINATION       "pmix.logabproc"                  /* bool */
#define PMIX_LOG_JOB_EVENTS                      "pmix.log.jev"                    /* bool */
#define PMIX_LOG_COMPLETION                      "pmix.logcomp"                    /* bool */

/* ---- Attribute keys: debugger support ---- */
#define PMIX_DEBUG_STOP_ON_EXEC                  "pmix.dbg.exec"
#define PMIX_DEBUG_STOP_IN_INIT                  "pmix.dbg.init"
#define PMIX_DEBUG_STOP_IN_APP                   "pmix.dbg.notify"
#define PMIX_BREAKPOINT                          "pmix.brkpnt"                     /* char* */
#define PMIX_DEBUG_TARGET                        "pmix.dbg.tgt"                    /* pmix_proc_t* */
#define PMIX_DEBUG_DAEMONS_PER_PROC              "pmix.dbg.dpproc"                 /* uint16_t */
#define PMIX_DEBUG_DAEMONS_PER_NODE              "pmix.dbg.dpnd"                   /* uint16_t */

/* ---- Attribute keys: resource manager identity ---- */
#define PMIX_RM_NAME                             "pmix.rm.name"                    /* char* */
#define PMIX_RM_VERSION                          "pmix.rm.version"                 /* char* */

/* ---- Attribute keys: environment-variable edits ---- */
#define PMIX_SET_ENVAR                           "pmix.envar.set"                  /* pmix_envar_t* */
#define PMIX_ADD_ENVAR                           "pmix.envar.add"                  /* pmix_envar_t* */
#define PMIX_UNSET_ENVAR                         "pmix.envar.unset"                /* char* */
#define PMIX_PREPEND_ENVAR                       "pmix.envar.prepnd"               /* pmix_envar_t* */
#define PMIX_APPEND_ENVAR                        "pmix.envar.appnd"                /* pmix_envar_t* */
#define PMIX_FIRST_ENVAR                         "pmix.envar.first"                /* pmix_envar_t* */

/* ---- Attribute keys: allocation requests ---- */
#define PMIX_ALLOC_REQ_ID                        "pmix.alloc.reqid"                /* char* */
#define PMIX_ALLOC_ID                            "pmix.alloc.id"                   /* char* */
#define PMIX_ALLOC_NUM_NODES                     "pmix.alloc.nnodes"               /* uint64_t */
#define PMIX_ALLOC_NODE_LIST                     "pmix.alloc.nlist"                /* char* */
#define PMIX_ALLOC_EXCLUDE                       "pmix.alloc.exclude"              /* char* */
#define PMIX_ALLOC_NUM_CPUS                      "pmix.alloc.ncpus"                /* uint64_t */
#define PMIX_ALLOC_NUM_CPU_LIST                  "pmix.alloc.ncpulist"             /* char* */
#define PMIX_ALLOC_CPU_LIST                      "pmix.alloc.cpulist"              /* char* */
#define PMIX_ALLOC_MEM_SIZE                      "pmix.alloc.msize"                /* float */
#define PMIX_ALLOC_FABRIC                        "pmix.alloc.net"                  /* pmix_data_array_t* */
#define PMIX_ALLOC_FABRIC_ID                     "pmix.alloc.netid"                /* char* */
#define PMIX_ALLOC_BANDWIDTH                     "pmix.alloc.bw"                   /* float */
#define PMIX_ALLOC_FABRIC_QOS                    "pmix.alloc.netqos"               /* char* */
#define PMIX_ALLOC_TIME                          "pmix.alloc.time"                 /* uint32_t */
#define PMIX_ALLOC_FABRIC_TYPE                   "pmix.alloc.nettype"              /* char* */
#define PMIX_ALLOC_FABRIC_PLANE                  "pmix.alloc.netplane"             /* char* */
#define PMIX_ALLOC_FABRIC_ENDPTS                 "pmix.alloc.endpts"               /* size_t */
#define PMIX_ALLOC_FABRIC_ENDPTS_NODE            "pmix.alloc.endpts.nd"            /* size_t */
#define PMIX_ALLOC_FABRIC_SEC_KEY                "pmix.alloc.nsec"                 /* pmix_byte_object_t */
#define PMIX_ALLOC_QUEUE                         "pmix.alloc.queue"                /* char* */
#define PMIX_ALLOC_PREEMPTIBLE                   "pmix.alloc.preempt"              /* bool */
#define PMIX_ALLOC_LEND                          "pmix.alloc.lend"                 /* char* */
#define PMIX_ALLOC_IMAGE                         "pmix.alloc.image"                /* char* */
#define PMIX_ALLOC_WAIT_ALL_NODES                "pmix.alloc.waitall"              /* bool */
#define PMIX_ALLOC_SHARE                         "pmix.alloc.share"                /* bool */
#define PMIX_ALLOC_NOSHELL                       "pmix.alloc.noshell"              /* bool */
#define PMIX_ALLOC_DEPENDENCY                    "pmix.alloc.depend"               /* char* */
#define PMIX_ALLOC_BEGIN                         "pmix.alloc.begin"                /* char* */
#define PMIX_ALLOC_CHILD_SEP                     "pmix.alloc.sep"                  /* bool */

/* ---- Attribute keys: job control ---- */
#define PMIX_JOB_CTRL_ID                         "pmix.jctrl.id"                   /* char* */
#define PMIX_JOB_CTRL_PAUSE                      "pmix.jctrl.pause"                /* bool */
#define PMIX_JOB_CTRL_RESUME                     "pmix.jctrl.resume"               /* bool */
#define PMIX_JOB_CTRL_CANCEL                     "pmix.jctrl.cancel"               /* char* */
#define PMIX_JOB_CTRL_KILL                       "pmix.jctrl.kill"                 /* bool */
#define PMIX_JOB_CTRL_RESTART                    "pmix.jctrl.restart"              /* char* */
#define PMIX_JOB_CTRL_CHECKPOINT                 "pmix.jctrl.ckpt"                 /* char* */
#define PMIX_JOB_CTRL_CHECKPOINT_EVENT           "pmix.jctrl.ckptev"               /* bool */
#define PMIX_JOB_CTRL_CHECKPOINT_SIGNAL          "pmix.jctrl.ckptsig"              /* int */
#define PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT         "pmix.jctrl.ckptsig"              /* int */
#define PMIX_JOB_CTRL_CHECKPOINT_METHOD          "pmix.jctrl.ckmethod"             /* pmix_data_array_t* */
#define PMIX_JOB_CTRL_SIGNAL                     "pmix.jctrl.sig"                  /* int */
#define PMIX_JOB_CTRL_PROVISION                  "pmix.jctrl.pvn"                  /* char* */
#define PMIX_JOB_CTRL_PROVISION_IMAGE            "pmix.jctrl.pvnimg"               /* char* */
#define PMIX_JOB_CTRL_PREEMPTIBLE                "pmix.jctrl.preempt"              /* bool */
#define PMIX_JOB_CTRL_TERMINATE                  "pmix.jctrl.term"                 /* bool */
#define PMIX_JOB_CTRL_DEFINE_PSET                "pmix.jctrl.defpset"              /* char* */
#define PMIX_REGISTER_CLEANUP                    "pmix.reg.cleanup"                /* char* */
#define PMIX_REGISTER_CLEANUP_DIR                "pmix.reg.cleanupdir"             /* char* */
#define PMIX_CLEANUP_RECURSIVE                   "pmix.clnup.recurse"              /* bool */
#define PMIX_CLEANUP_EMPTY                       "pmix.clnup.empty"                /* bool */
#define PMIX_CLEANUP_IGNORE                      "pmix.clnup.ignore"               /* char* */
#define PMIX_CLEANUP_LEAVE_TOPDIR                "pmix.clnup.lvtop"                /* bool */
#define PMIX_JOB_CTRL_SEP                        "pmix.jctrl.sep"                  /* bool */

/* ---- Attribute keys: session control (PMIx_Session_control, OpenPMIx 5.0) ---- */
#define PMIX_SESSION_CTRL_ID                     "pmix.ssnctrl.id"                 /* char* */
#define PMIX_SESSION_APP                         "pmix.ssn.app"                    /* pmix_data_array_t* */
#define PMIX_SESSION_PROVISION                   "pmix.ssn.pvn"                    /* pmix_data_array_t* */
#define PMIX_SESSION_PROVISION_NODES             "pmix.ssn.pvnnds"                 /* char* */
#define PMIX_SESSION_PROVISION_IMAGE             "pmix.ssn.pvnimg"                 /* char* */
#define PMIX_SESSION_PAUSE                       "pmix.ssn.pause"                  /* bool */
#define PMIX_SESSION_RESUME                      "pmix.ssn.resume"                 /* bool */
#define PMIX_SESSION_TERMINATE                   "pmix.ssn.terminate"              /* bool */
#define PMIX_SESSION_PREEMPT                     "pmix.ssn.preempt"                /* bool */
#define PMIX_SESSION_RESTORE                     "pmix.ssn.restore"                /* bool */
#define PMIX_SESSION_SIGNAL                      "pmix.ssn.sig"                    /* int */
#define PMIX_SESSION_COMPLETE                    "pmix.ssn.complete"               /* bool */

/* ---- Attribute keys: process monitoring ---- */
#define PMIX_MONITOR_ID                          "pmix.monitor.id"                 /* char* */
#define PMIX_MONITOR_CANCEL                      "pmix.monitor.cancel"             /* char* */
#define PMIX_MONITOR_APP_CONTROL                 "pmix.monitor.appctrl"            /* bool */
#define PMIX_MONITOR_HEARTBEAT                   "pmix.monitor.mbeat"              /* bool */
#define PMIX_SEND_HEARTBEAT                      "pmix.monitor.beat"               /* bool */
#define PMIX_MONITOR_HEARTBEAT_TIME              "pmix.monitor.btime"              /* uint32_t */
#define PMIX_MONITOR_HEARTBEAT_DROPS             "pmix.monitor.bdrop"              /* uint32_t */
#define PMIX_MONITOR_FILE                        "pmix.monitor.fmon"               /* char* */
#define PMIX_MONITOR_FILE_SIZE                   "pmix.monitor.fsize"              /* bool */
#define PMIX_MONITOR_FILE_ACCESS                 "pmix.monitor.faccess"            /* char* */
#define PMIX_MONITOR_FILE_MODIFY                 "pmix.monitor.fmod"               /* char* */
#define PMIX_MONITOR_FILE_CHECK_TIME             "pmix.monitor.ftime"              /* uint32_t */
#define PMIX_MONITOR_FILE_DROPS                  "pmix.monitor.fdrop"              /* uint32_t */

/* ---- Attribute keys: security ---- */
#define PMIX_CRED_TYPE                           "pmix.sec.ctype"                  /* char* */
#define PMIX_CRYPTO_KEY                          "pmix.sec.key"                    /* pmix_byte_object_t */

/* ---- Attribute keys: I/O forwarding ---- */
#define PMIX_IOF_CACHE_SIZE                      "pmix.iof.csize"                  /* uint32_t */
#define PMIX_IOF_DROP_OLDEST                     "pmix.iof.old"                    /* bool */
#define PMIX_IOF_DROP_NEWEST                     "pmix.iof.new"                    /* bool */
#define PMIX_IOF_BUFFERING_SIZE                  "pmix.iof.bsize"                  /* uint32_t */
#define PMIX_IOF_BUFFERING_TIME                  "pmix.iof.btime"                  /* uint32_t */
#define PMIX_IOF_COMPLETE                        "pmix.iof.cmp"                    /* bool */
#define PMIX_IOF_PUSH_STDIN                      "pmix.iof.stdin"                  /* bool */
#define PMIX_IOF_TAG_OUTPUT                      "pmix.iof.tag"                    /* bool */
#define PMIX_IOF_TAG_DETAILED_OUTPUT             "pmix.iof.tagdet"                 /* bool */
#define PMIX_IOF_TAG_FULLNAME_OUTPUT             "pmix.iof.tagfull"                /* bool */
#define PMIX_IOF_RANK_OUTPUT                     "pmix.iof.rank"                   /* bool */
#define PMIX_IOF_TIMESTAMP_OUTPUT                "pmix.iof.ts"                     /* bool */
#define PMIX_IOF_MERGE_STDERR_STDOUT             "pmix.iof.mrg"                    /* bool */
#define PMIX_IOF_XML_OUTPUT                      "pmix.iof.xml"                    /* bool */
#define PMIX_IOF_OUTPUT_TO_FILE                  "pmix.iof.file"                   /* char* */
#define PMIX_IOF_FILE_PATTERN                    "pmix.iof.fpt"                    /* bool */
#define PMIX_IOF_OUTPUT_TO_DIRECTORY             "pmix.iof.dir"                    /* char* */
#define PMIX_IOF_FILE_ONLY                       "pmix.iof.fonly"                  /* bool */
#define PMIX_IOF_COPY                            "pmix.iof.cpy"                    /* bool */
#define PMIX_IOF_REDIRECT                        "pmix.iof.redir"                  /* bool */
#define PMIX_IOF_LOCAL_OUTPUT                    "pmix.iof.local"                  /* bool */
#define PMIX_IOF_OUTPUT_RAW                      "pmix.iof.raw"                    /* bool */

/* ---- Attribute keys: application setup ---- */
#define PMIX_SETUP_APP_ENVARS                    "pmix.setup.env"                  /* bool */
#define PMIX_SETUP_APP_NONENVARS                 "pmix.setup.nenv"                 /* bool */
#define PMIX_SETUP_APP_ALL                       "pmix.setup.all"                  /* bool */

/* ---- Attribute keys: process groups ---- */
#define PMIX_GROUP_ID                            "pmix.grp.id"                     /* char* */
#define PMIX_GROUP_LEADER                        "pmix.grp.ldr"                    /* bool */
#define PMIX_GROUP_OPTIONAL                      "pmix.grp.opt"                    /* bool */
#define PMIX_GROUP_NOTIFY_TERMINATION            "pmix.grp.notterm"                /* bool */
#define PMIX_GROUP_FT_COLLECTIVE                 "pmix.grp.ftcoll"                 /* bool */
#define PMIX_GROUP_MEMBERSHIP                    "pmix.grp.mbrs"                   /* pmix_data_array_t* */
#define PMIX_GROUP_ASSIGN_CONTEXT_ID             "pmix.grp.actxid"                 /* bool */
#define PMIX_GROUP_CONTEXT_ID                    "pmix.grp.ctxid"                  /* size_t */
#define PMIX_GROUP_LOCAL_ONLY                    "pmix.grp.lcl"                    /* bool */
#define PMIX_GROUP_ENDPT_DATA                    "pmix.grp.endpt"                  /* pmix_byte_object_t */
#define PMIX_GROUP_NAMES                         "pmix.pgrp.nm"                    /* pmix_data_array_t* */
#define PMIX_GROUP_INFO                          "pmix.grp.info"                   /* pmix_data_array_t* */
#define PMIX_GROUP_LOCAL_CID                     "pmix.grp.lclid"                  /* size_t */
#define PMIX_GROUP_ADD_MEMBERS                   "pmix.grp.add"                    /* pmix_data_array_t* */
/* Beyond 4.2.2, as OpenPMIx master defines it: */
#define PMIX_GROUP_BOOTSTRAP                     "pmix.grp.btstrp"                 /* size_t: number of leaders */

/* ---- Attribute keys: storage ---- */
#define PMIX_QUERY_STORAGE_LIST                  "pmix.strg.list"                  /* char* */
#define PMIX_STORAGE_CAPACITY_LIMIT              "pmix.strg.cap"                   /* uint64_t */
#define PMIX_STORAGE_OBJECT_LIMIT                "pmix.strg.obj"                   /* uint64_t */
#define PMIX_STORAGE_ID                          "pmix.strg.id"                    /* char* */
#define PMIX_STORAGE_PATH                        "pmix.strg.path"                  /* char* */
#define PMIX_STORAGE_TYPE                        "pmix.strg.type"                  /* char* */
#define PMIX_STORAGE_ACCESSIBILITY               "pmix.strg.access"                /* pmix_storage_accessibility_t */
#define PMIX_STORAGE_ACCESS_TYPE                 "pmix.strg.atype"                 /* pmix_storage_access_type_t */
#define PMIX_STORAGE_BW_CUR                      "pmix.strg.bwcur"                 /* double */
#define PMIX_STORAGE_BW_MAX                      "pmix.strg.bwmax"                 /* double */
#define PMIX_STORAGE_CAPACITY_USED               "pmix.strg.capuse"                /* double */
#define PMIX_STORAGE_IOPS_CUR                    "pmix.strg.iopscur"               /* double */
#define PMIX_STORAGE_IOPS_MAX                    "pmix.strg.iopsmax"               /* double */
#define PMIX_STORAGE_MEDIUM                      "pmix.strg.medium"                /* pmix_storage_medium_t */
#define PMIX_STORAGE_MINIMAL_XFER_SIZE           "pmix.strg.minxfer"               /* double */
#define PMIX_STORAGE_OBJECTS_USED                "pmix.strg.objuse"                /* uint64_t */
#define PMIX_STORAGE_PERSISTENCE                 "pmix.strg.persist"               /* pmix_storage_persistence_t */
#define PMIX_STORAGE_SUGGESTED_XFER_SIZE         "pmix.strg.sxfer"                 /* double */
#define PMIX_STORAGE_VERSION                     "pmix.strg.ver"                   /* char* */

/* ---- Attribute keys: fabric ---- */
#define PMIX_FABRIC_COST_MATRIX                  "pmix.fab.cm"                     /* pointer */
#define PMIX_FABRIC_GROUPS                       "pmix.fab.grps"                   /* char* */
#define PMIX_FABRIC_VENDOR                       "pmix.fab.vndr"                   /* char* */
#define PMIX_FABRIC_IDENTIFIER                   "pmix.fab.id"                     /* char* */
#define PMIX_FABRIC_INDEX                        "pmix.fab.idx"                    /* size_t */
#define PMIX_FABRIC_COORDINATES                  "pmix.fab.coord"                  /* pmix_data_array_t* */
#define PMIX_FABRIC_DEVICE_VENDORID              "pmix.fabdev.vendid"              /* char* */
#define PMIX_FABRIC_NUM_DEVICES                  "pmix.fab.nverts"                 /* size_t */
#define PMIX_FABRIC_DIMS                         "pmix.fab.dims"                   /* uint32_t */
#define PMIX_FABRIC_PLANE                        "pmix.fab.plane"                  /* char* */
#define PMIX_FABRIC_SWITCH                       "pmix.fab.switch"                 /* char* */
#define PMIX_FABRIC_ENDPT                        "pmix.fab.endpt"                  /* pmix_data_array_t* */
#define PMIX_FABRIC_SHAPE                        "pmix.fab.shape"                  /* pmix_data_array_t* */
#define PMIX_FABRIC_SHAPE_STRING                 "pmix.fab.shapestr"               /* char* */
#define PMIX_SWITCH_PEERS                        "pmix.speers"                     /* char* */
#define PMIX_FABRIC_DEVICE                       "pmix.fabdev"                     /* pmix_data_array_t* */
#define PMIX_FABRIC_DEVICES                      "pmix.fab.devs"                   /* pmix_data_array_t* */
#define PMIX_FABRIC_DEVICE_NAME                  "pmix.fabdev.nm"                  /* char* */
#define PMIX_FABRIC_DEVICE_INDEX                 "pmix.fabdev.idx"                 /* uint32_t */
#define PMIX_FABRIC_DEVICE_VENDOR                "pmix.fabdev.vndr"                /* char* */
#define PMIX_FABRIC_DEVICE_BUS_TYPE              "pmix.fabdev.btyp"                /* char* */
#define PMIX_FABRIC_DEVICE_DRIVER                "pmix.fabdev.driver"              /* char* */
#define PMIX_FABRIC_DEVICE_FIRMWARE              "pmix.fabdev.fmwr"                /* char* */
#define PMIX_FABRIC_DEVICE_ADDRESS               "pmix.fabdev.addr"                /* char* */
#define PMIX_FABRIC_DEVICE_COORDINATES           "pmix.fab.coord"                  /* pmix_geometry_t */
#define PMIX_FABRIC_DEVICE_MTU                   "pmix.fabdev.mtu"                 /* size_t */
#define PMIX_FABRIC_DEVICE_SPEED                 "pmix.fabdev.speed"               /* size_t */
#define PMIX_FABRIC_DEVICE_STATE                 "pmix.fabdev.state"               /* pmix_link_state_t */
#define PMIX_FABRIC_DEVICE_TYPE                  "pmix.fabdev.type"                /* char* */
#define PMIX_FABRIC_DEVICE_PCI_DEVID             "pmix.fabdev.pcidevid"            /* char* */

/* ---- Attribute keys: device distances ---- */
#define PMIX_DEVICE_DISTANCES                    "pmix.dev.dist"                   /* pmix_data_array_t* */
#define PMIX_DEVICE_TYPE                         "pmix.dev.type"                   /* pmix_device_type_t */
#define PMIX_DEVICE_ID                           "pmix.dev.id"                     /* char* */

/* ---- Attribute keys: attribute descriptions and ABI queries ---- */
#define PMIX_MAX_VALUE                           "pmix.descr.maxval"
#define PMIX_MIN_VALUE                           "pmix.descr.minval"
#define PMIX_ENUM_VALUE                          "pmix.descr.enum"                 /* char* */
#define PMIX_QUERY_STABLE_ABI_VERSION            "pmix.qry.stabiver"               /* char* */
#define PMIX_QUERY_PROVISIONAL_ABI_VERSION       "pmix.qry.prabiver"               /* char* */
#define PMIX_VERSION_NUMERIC                     "pmix.vers.num"                   /* uint32_t */


/* ====================================================================
 * 7. Data structures
 * ==================================================================== */

/* A position in a fabric coordinate system. */
typedef struct pmix_coord {
    pmix_coord_view_t view;
    uint32_t *coord;            /* dims entries */
    size_t dims;
} pmix_coord_t;

/* A cpu set; bitmap is owned by the source ("hwloc", ...) library. */
typedef struct {
    char *source;
    void *bitmap;
} pmix_cpuset_t;

/* A hardware topology handle; same ownership rule as pmix_cpuset_t. */
typedef struct {
    char *source;
    void *topology;
} pmix_topology_t;

/* Where a device sits in a fabric. */
typedef struct pmix_geometry {
    size_t fabric;
    char *uuid;
    char *osname;
    pmix_coord_t *coordinates;
    size_t ncoords;
} pmix_geometry_t;

/* Distance from a process's binding to a device. */
typedef struct pmix_device_distance {
    char *uuid;
    char *osname;
    pmix_device_type_t type;
    uint16_t mindist;
    uint16_t maxdist;
} pmix_device_distance_t;

/* Counted, not necessarily NUL-terminated, byte string. */
typedef struct pmix_byte_object {
    char *bytes;
    size_t size;
} pmix_byte_object_t;

/* A fabric endpoint of a device. */
typedef struct pmix_endpoint {
    char *uuid;
    char *osname;
    pmix_byte_object_t endpt;
} pmix_endpoint_t;

/* An environment edit: variable, value, and the list separator to use
 * when prepending/appending. */
typedef struct {
    char *envar;
    char *value;
    char separator;
} pmix_envar_t;

/* A process identifier. */
typedef struct pmix_proc {
    pmix_nspace_t nspace;
    pmix_rank_t rank;
} pmix_proc_t;

/* Process table entry. */
typedef struct pmix_proc_info {
    pmix_proc_t proc;
    char *hostname;
    char *executable_name;
    pid_t pid;
    int exit_code;
    pmix_proc_state_t state;
} pmix_proc_info_t;

/* Typed array; "array" points to "size" elements of "type". */
typedef struct pmix_data_array {
    pmix_data_type_t type;
    size_t size;
    void *array;
} pmix_data_array_t;

/* Serialisation buffer used by PMIx_Data_pack/unpack. */
typedef struct pmix_data_buffer {
    char *base_ptr;             /* start of allocation */
    char *pack_ptr;             /* next write position */
    char *unpack_ptr;           /* next read position */
    size_t bytes_allocated;
    size_t bytes_used;
} pmix_data_buffer_t;

/* Per-process resource statistics (sizes in MBytes). */
typedef struct pmix_proc_stats {
    char *node;
    pmix_proc_t proc;
    pid_t pid;
    char *cmd;
    char state;
    struct timeval time;
    float percent_cpu;
    int32_t priority;
    uint16_t num_threads;
    float pss;
    float vsize;
    float rss;
    float peak_vsize;
    uint16_t processor;
    struct timeval sample_time;
} pmix_proc_stats_t;

/* Per-disk statistics. */
typedef struct {
    char *disk;
    uint64_t num_reads_completed;
    uint64_t num_reads_merged;
    uint64_t num_sectors_read;
    uint64_t milliseconds_reading;
    uint64_t num_writes_completed;
    uint64_t num_writes_merged;
    uint64_t num_sectors_written;
    uint64_t milliseconds_writing;
    uint64_t num_ios_in_progress;
    uint64_t milliseconds_io;
    uint64_t weighted_milliseconds_io;
} pmix_disk_stats_t;

/* Per-interface network statistics. */
typedef struct {
    char *net_interface;
    uint64_t num_bytes_recvd;
    uint64_t num_packets_recvd;
    uint64_t num_recv_errs;
    uint64_t num_bytes_sent;
    uint64_t num_packets_sent;
    uint64_t num_send_errs;
} pmix_net_stats_t;

/* Node statistics (memory figures in MBytes). */
typedef struct {
    char *node;
    float la;
    float la5;
    float la15;
    float total_mem;
    float free_mem;
    float buffers;
    float cached;
    float swap_cached;
    float swap_total;
    float swap_free;
    float mapped;
    struct timeval sample_time;
    pmix_disk_stats_t *diskstats;
    size_t ndiskstats;
    pmix_net_stats_t *netstats;
    size_t nnetstats;
} pmix_node_stats_t;

/* Tagged value; "type" (a PMIX_* data type code) selects the member. */
typedef struct pmix_value {
    pmix_data_type_t type;
    union {
        bool flag;
        uint8_t byte;
        char *string;
        size_t size;
        pid_t pid;
        int integer;
        int8_t int8;
        int16_t int16;
        int32_t int32;
        int64_t int64;
        unsigned int uint;
        uint8_t uint8;
        uint16_t uint16;
        uint32_t uint32;
        uint64_t uint64;
        float fval;
        double dval;
        struct timeval tv;
        time_t time;
        pmix_status_t status;
        pmix_rank_t rank;
        pmix_nspace_t *nspace;
        pmix_proc_t *proc;
        pmix_byte_object_t bo;
        pmix_persistence_t persist;
        pmix_scope_t scope;
        pmix_data_range_t range;
        pmix_proc_state_t state;
        pmix_proc_info_t *pinfo;
        pmix_data_array_t *darray;
        void *ptr;               /* also carries pmix_regattr_t* */
        pmix_alloc_directive_t adir;
        pmix_envar_t envar;
        pmix_coord_t *coord;
        pmix_link_state_t linkstate;
        pmix_job_state_t jstate;
        pmix_topology_t *topo;
        pmix_cpuset_t *cpuset;
        pmix_locality_t locality;
        pmix_geometry_t *geometry;
        pmix_device_type_t devtype;
        pmix_device_distance_t *devdist;
        pmix_endpoint_t *endpoint;
        pmix_data_buffer_t *dbuf;
        pmix_proc_stats_t *pstats;
        pmix_disk_stats_t *dkstats;
        pmix_net_stats_t *netstats;
        pmix_node_stats_t *ndstats;
    } data;
} pmix_value_t;

/* Key/value pair with directive flags. */
typedef struct pmix_info {
    pmix_key_t key;
    pmix_info_directives_t flags;
    pmix_value_t value;
} pmix_info_t;

/* Result element of PMIx_Lookup. */
typedef struct pmix_pdata {
    pmix_proc_t proc;
    pmix_key_t key;
    pmix_value_t value;
} pmix_pdata_t;

/* One application of a spawn request. */
typedef struct pmix_app {
    char *cmd;
    char **argv;                /* NULL-terminated */
    char **env;                 /* NULL-terminated */
    char *cwd;
    int maxprocs;
    pmix_info_t *info;
    size_t ninfo;
} pmix_app_t;

/* One query: NULL-terminated key list plus qualifiers. */
typedef struct pmix_query {
    char **keys;
    pmix_info_t *qualifiers;
    size_t nqual;
} pmix_query_t;

/* Attribute registration record. */
typedef struct pmix_regattr_t {
    char *name;
    pmix_key_t string;
    pmix_data_type_t type;
    char **description;         /* NULL-terminated */
} pmix_regattr_t;

/* Handle for the fabric APIs. */
typedef struct pmix_fabric_s {
    char *name;                 /* chosen by the caller */
    size_t index;               /* assigned by the library */
    pmix_info_t *info;
    size_t ninfo;
    void *module;               /* library-private */
} pmix_fabric_t;

typedef enum {
    PMIX_FABRIC_REQUEST_INFO,
    PMIX_FABRIC_UPDATE_INFO
} pmix_fabric_operation_t;

/* Answer of pmix_check_true(). */
typedef enum {
    PMIX_BOOL_TRUE,
    PMIX_BOOL_FALSE,
    PMIX_NON_BOOL
} pmix_boolean_t;


/* ====================================================================
 * 8. Callback signatures for non-blocking operations
 * ==================================================================== */

/* Lets the library hand back a buffer it lent to the caller. */
typedef void (*pmix_release_cbfunc_t)(void *cbdata);

/* Server side: delivers collected/requested modex data; release_fn is
 * called once the receiver is done with "data". */
typedef void (*pmix_modex_cbfunc_t)(pmix_status_t status,
                                    const char *data, size_t ndata,
                                    void *cbdata,
                                    pmix_release_cbfunc_t release_fn,
                                    void *release_cbdata);

/* Completion of PMIx_Spawn_nb; nspace is only valid during the call. */
typedef void (*pmix_spawn_cbfunc_t)(pmix_status_t status,
                                    pmix_nspace_t nspace, void *cbdata);

/* Completion carrying only a status. */
typedef void (*pmix_op_cbfunc_t)(pmix_status_t status, void *cbdata);

/* Completion of PMIx_Lookup_nb; data is only valid during the call. */
typedef void (*pmix_lookup_cbfunc_t)(pmix_status_t status,
                                     pmix_pdata_t data[], size_t ndata,
                                     void *cbdata);

/* Called by an event handler when it has finished. */
typedef void (*pmix_event_notification_cbfunc_fn_t)(pmix_status_t status,
                                                    pmix_info_t *results, size_t nresults,
                                                    pmix_op_cbfunc_t cbfunc, void *thiscbdata,
                                                    void *notification_cbdata);

/* An event handler. */
typedef void (*pmix_notification_fn_t)(size_t evhdlr_registration_id,
                                       pmix_status_t status,
                                       const pmix_proc_t *source,
                                       pmix_info_t info[], size_t ninfo,
                                       pmix_info_t *results, size_t nresults,
                                       pmix_event_notification_cbfunc_fn_t cbfunc,
                                       void *cbdata);

/* Completion of a handler registration; refid identifies the handler. */
typedef void (*pmix_hdlr_reg_cbfunc_t)(pmix_status_t status,
                                       size_t refid,
                                       void *cbdata);
typedef void (*pmix_evhdlr_reg_cbfunc_t)(pmix_status_t status,
                                         size_t refid,
                                         void *cbdata);

/* Completion of PMIx_Get_nb. */
typedef void (*pmix_value_cbfunc_t)(pmix_status_t status,
                                    pmix_value_t *kv, void *cbdata);

/* Completion returning an info array owned by the library until
 * release_fn is called. */
typedef void (*pmix_info_cbfunc_t)(pmix_status_t status,
                                   pmix_info_t *info, size_t ninfo,
                                   void *cbdata,
                                   pmix_release_cbfunc_t release_fn,
                                   void *release_cbdata);

/* Completion of PMIx_Get_credential_nb; the credential becomes the
 * receiver's, the info array stays the library's. */
typedef void (*pmix_credential_cbfunc_t)(pmix_status_t status,
                                         pmix_byte_object_t *credential,
                                         pmix_info_t info[], size_t ninfo,
                                         void *cbdata);

/* Completion of PMIx_Validate_credential_nb. */
typedef void (*pmix_validation_cbfunc_t)(pmix_status_t status,
                                         pmix_info_t info[], size_t ninfo,
                                         void *cbdata);

/* Completion of PMIx_Compute_distances_nb. */
typedef void (*pmix_device_dist_cbfunc_t)(pmix_status_t status,
                                          pmix_device_distance_t *dist,
                                          size_t ndist,
                                          void *cbdata,
                                          pmix_release_cbfunc_t release_fn,
                                          void *release_cbdata);


/* ====================================================================
 * 9. Library functions the helper macros below rely on (also part of
 *    the client API in pmix.h)
 * ==================================================================== */

PMIX_EXPORT pmix_status_t PMIx_Value_load(pmix_value_t *val,
                                          const void *data,
                                          pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Value_unload(pmix_value_t *val,
                                            void **data,
                                            size_t *sz);
PMIX_EXPORT void PMIx_Value_destruct(pmix_value_t *val);
PMIX_EXPORT pmix_status_t PMIx_Value_xfer(pmix_value_t *dest,
                                          const pmix_value_t *src);
PMIX_EXPORT pmix_value_cmp_t PMIx_Value_compare(pmix_value_t *v1,
                                                pmix_value_t *v2);
PMIX_EXPORT void PMIx_Data_array_destruct(pmix_data_array_t *d);
PMIX_EXPORT pmix_status_t PMIx_Info_load(pmix_info_t *info,
                                         const char *key,
                                         const void *data,
                                         pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Info_xfer(pmix_info_t *dest,
                                         const pmix_info_t *src);

/* Info lists: an opaque accumulator turned into a pmix_data_array_t. */
PMIX_EXPORT void *PMIx_Info_list_start(void);
PMIX_EXPORT pmix_status_t PMIx_Info_list_add(void *ptr,
                                             const char *key,
                                             const void *value,
                                             pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info);
PMIX_EXPORT pmix_status_t PMIx_Info_list_xfer(void *ptr,
                                              const pmix_info_t *info);
PMIX_EXPORT pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t *par);
PMIX_EXPORT void PMIx_Info_list_release(void *ptr);

PMIX_EXPORT void PMIx_Topology_destruct(pmix_topology_t *topo);
PMIX_EXPORT pmix_status_t PMIx_Data_unload(pmix_data_buffer_t *buffer,
                                           pmix_byte_object_t *payload);
PMIX_EXPORT pmix_status_t PMIx_Data_load(pmix_data_buffer_t *buffer,
                                         pmix_byte_object_t *payload);


/* ====================================================================
 * 10. Header-only utilities
 *
 * These are "static inline" so that every caller gets its own copy;
 * they depend on nothing but the C library.
 * ==================================================================== */

/* Allocation hooks; everything below allocates through these. */
static inline void *pmix_malloc(size_t n)
{
    return malloc(n);
}

static inline void pmix_free(void *m)
{
    free(m);
}

static inline void *pmix_calloc(size_t n, size_t m)
{
    return calloc(n, m);
}

/* Private: n zero-filled objects of "size" bytes, NULL when n == 0. */
static inline void *pmix_hdr_zalloc(size_t n, size_t size)
{
    if (0 == n) {
        return NULL;
    }
    return calloc(n, size);
}

/* Private: malloc-backed copy of a C string (NULL in, NULL out). */
static inline char *pmix_hdr_strdup(const char *s)
{
    size_t len;
    char *copy;

    if (NULL == s) {
        return NULL;
    }
    len = strlen(s) + 1;
    copy = (char *) malloc(len);
    if (NULL != copy) {
        memcpy(copy, s, len);
    }
    return copy;
}

/* Private: does s begin with prefix, ignoring ASCII case? */
static inline bool pmix_hdr_has_prefix_nocase(const char *s, const char *prefix)
{
    for (; '\0' != *prefix; ++prefix, ++s) {
        if (tolower((unsigned char) *s) != tolower((unsigned char) *prefix)) {
            return false;
        }
    }
    return true;
}

/* Copy at most len characters of src into dest, stopping after a NUL,
 * and always NUL-terminate (dest needs len + 1 bytes). src need not be
 * terminated. */
static inline void pmix_strncpy(char *dest, const char *src, size_t len)
{
    size_t i = 0;

    while (i < len && '\0' != src[i]) {
        dest[i] = src[i];
        ++i;
    }
    dest[i] = '\0';
}

/* Private: strlen that never looks at more than limit bytes. */
static inline size_t pmix_hdr_bounded_len(const char *s, size_t limit)
{
    size_t i = 0;

    if (NULL == s) {
        return 0;
    }
    while (i < limit && '\0' != s[i]) {
        ++i;
    }
    return i;
}

/* Length of a key (at most PMIX_MAX_KEYLEN + 1; 0 for NULL). */
static inline size_t pmix_keylen(const char *src)
{
    return pmix_hdr_bounded_len(src, PMIX_MAX_KEYLEN + 1);
}

/* Length of a namespace (at most PMIX_MAX_NSLEN + 1; 0 for NULL). */
static inline size_t pmix_nslen(const char *src)
{
    return pmix_hdr_bounded_len(src, PMIX_MAX_NSLEN + 1);
}

/* ---- NULL-terminated string arrays ("argv" style) ---- */

/* Number of entries (0 for NULL). */
static inline int pmix_argv_count(char **argv)
{
    int n = 0;

    if (NULL != argv) {
        while (NULL != argv[n]) {
            ++n;
        }
    }
    return n;
}

/* Append a copy of arg, creating the array if *argv is NULL. */
static inline pmix_status_t pmix_argv_append_nosize(char ***argv, const char *arg)
{
    int n = pmix_argv_count(*argv);
    char **grown;

    grown = (char **) realloc(*argv, ((size_t) n + 2) * sizeof(char *));
    if (NULL == grown) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    *argv = grown;
    grown[n] = pmix_hdr_strdup(arg);
    grown[n + 1] = NULL;
    if (NULL == grown[n]) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

/* Insert a copy of arg in front, creating the array if needed. */
static inline pmix_status_t pmix_argv_prepend_nosize(char ***argv, const char *arg)
{
    int n = pmix_argv_count(*argv);
    char **grown;

    grown = (char **) realloc(*argv, ((size_t) n + 2) * sizeof(char *));
    if (NULL == grown) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    *argv = grown;
    memmove(&grown[1], &grown[0], (size_t) n * sizeof(char *));
    grown[0] = pmix_hdr_strdup(arg);
    grown[n + 1] = NULL;
    return PMIX_SUCCESS;
}

/* Append a copy of arg unless an equal string is already present. */
static inline pmix_status_t pmix_argv_append_unique_nosize(char ***argv, const char *arg)
{
    int i;

    if (NULL != *argv) {
        for (i = 0; NULL != (*argv)[i]; ++i) {
            if (0 == strcmp((*argv)[i], arg)) {
                return PMIX_SUCCESS;
            }
        }
    }
    return pmix_argv_append_nosize(argv, arg);
}

/* Release every entry and the array itself. */
static inline void pmix_argv_free(char **argv)
{
    char **p;

    if (NULL == argv) {
        return;
    }
    for (p = argv; NULL != *p; ++p) {
        pmix_free(*p);
    }
    pmix_free(argv);
}

/* Split src_string at each delimiter. Empty fields are dropped unless
 * include_empty is set; a trailing delimiter never yields a field.
 * Returns NULL for an empty input or on allocation failure. */
static inline char **pmix_argv_split_inter(const char *src_string, int delimiter,
                                           bool include_empty)
{
    char **result = NULL;
    const char *end;
    char *field;
    size_t len;

    while (NULL != src_string && '\0' != *src_string) {
        end = src_string;
        while ('\0' != *end && delimiter != *end) {
            ++end;
        }
        len = (size_t) (end - src_string);
        if (0 < len || include_empty) {
            field = (char *) malloc(len + 1);
            if (NULL == field) {
                pmix_argv_free(result);
                return NULL;
            }
            memcpy(field, src_string, len);
            field[len] = '\0';
            if (PMIX_SUCCESS != pmix_argv_append_nosize(&result, field)) {
                free(field);
                pmix_argv_free(result);
                return NULL;
            }
            free(field);
        }
        src_string = ('\0' == *end) ? end : end + 1;
    }
    return result;
}

static inline char **pmix_argv_split_with_empty(const char *src_string, int delimiter)
{
    return pmix_argv_split_inter(src_string, delimiter, true);
}

static inline char **pmix_argv_split(const char *src_string, int delimiter)
{
    return pmix_argv_split_inter(src_string, delimiter, false);
}

/* Join the entries with delimiter into one new string ("" when empty). */
static inline char *pmix_argv_join(char **argv, int delimiter)
{
    size_t total = 0, pos = 0, len;
    char *out;
    int i;

    if (NULL == argv || NULL == argv[0]) {
        return pmix_hdr_strdup("");
    }
    for (i = 0; NULL != argv[i]; ++i) {
        total += strlen(argv[i]) + 1;
    }
    out = (char *) malloc(total);
    if (NULL == out) {
        return NULL;
    }
    for (i = 0; NULL != argv[i]; ++i) {
        len = strlen(argv[i]);
        memcpy(out + pos, argv[i], len);
        pos += len;
        out[pos++] = (char) delimiter;
    }
    out[total - 1] = '\0';
    return out;
}

/* Deep copy; NULL for NULL, an empty array for an empty one. */
static inline char **pmix_argv_copy(char **argv)
{
    char **copy;

    if (NULL == argv) {
        return NULL;
    }
    copy = (char **) malloc(sizeof(char *));
    if (NULL == copy) {
        return NULL;
    }
    copy[0] = NULL;
    for (; NULL != *argv; ++argv) {
        if (PMIX_SUCCESS != pmix_argv_append_nosize(&copy, *argv)) {
            pmix_argv_free(copy);
            return NULL;
        }
    }
    return copy;
}

/* Set name=value in an environ-style array (growing it as needed). A
 * NULL value stores "name=". When *env is the process environment the
 * real setenv()/unsetenv() is used instead. Returns PMIX_ERR_EXISTS if
 * the name is present and overwrite is false. */
static inline pmix_status_t pmix_setenv(const char *name, const char *value,
                                        bool overwrite, char ***env)
{
    /* values must be NUL-terminated within this many bytes */
    const size_t value_limit = 100000;
    size_t nlen, vlen;
    char *entry;
    int i;

    if (NULL == env) {
        return PMIX_ERR_BAD_PARAM;
    }
    vlen = 0;
    if (NULL != value) {
        vlen = pmix_hdr_bounded_len(value, value_limit);
        if (vlen == value_limit) {
            return PMIX_ERR_BAD_PARAM;
        }
    }
    if (*env == environ) {
        if (NULL == value) {
            unsetenv(name);
        } else {
            setenv(name, value, overwrite ? 1 : 0);
        }
        return PMIX_SUCCESS;
    }

    nlen = strlen(name);
    entry = (char *) malloc(nlen + vlen + 2);
    if (NULL == entry) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    memcpy(entry, name, nlen);
    entry[nlen] = '=';
    if (0 < vlen) {
        memcpy(entry + nlen + 1, value, vlen);
    }
    entry[nlen + 1 + vlen] = '\0';

    if (NULL != *env) {
        for (i = 0; NULL != (*env)[i]; ++i) {
            if (0 == strncmp((*env)[i], entry, nlen + 1)) {
                if (!overwrite) {
                    free(entry);
                    return PMIX_ERR_EXISTS;
                }
                free((*env)[i]);
                (*env)[i] = entry;
                return PMIX_SUCCESS;
            }
        }
    }
    i = pmix_argv_append_nosize(env, entry);
    free(entry);
    return i;
}

/* Interpret a value as a boolean. PMIX_UNDEF, a NULL/empty string, a
 * non-zero number or a string starting with "yes"/"true" are true;
 * zero, "no..." and "false..." are false; anything else is
 * PMIX_NON_BOOL. */
static inline pmix_boolean_t pmix_check_true(const pmix_value_t *value)
{
    const char *s;

    switch (value->type) {
    case PMIX_UNDEF:
        return PMIX_BOOL_TRUE;
    case PMIX_BOOL:
        return value->data.flag ? PMIX_BOOL_TRUE : PMIX_BOOL_FALSE;
    case PMIX_STRING:
        s = value->data.string;
        if (NULL == s) {
            return PMIX_BOOL_TRUE;
        }
        while (isspace((unsigned char) *s)) {
            ++s;
        }
        if ('\0' == *s) {
            return PMIX_BOOL_TRUE;
        }
        if (isdigit((unsigned char) *s)) {
            return (0 == atoi(s)) ? PMIX_BOOL_FALSE : PMIX_BOOL_TRUE;
        }
        if (pmix_hdr_has_prefix_nocase(s, "yes") || pmix_hdr_has_prefix_nocase(s, "true")) {
            return PMIX_BOOL_TRUE;
        }
        if (pmix_hdr_has_prefix_nocase(s, "no") || pmix_hdr_has_prefix_nocase(s, "false")) {
            return PMIX_BOOL_FALSE;
        }
        return PMIX_NON_BOOL;
    default:
        return PMIX_NON_BOOL;
    }
}


/* ====================================================================
 * 11. Convenience macros
 *
 * Naming convention used throughout:
 *   X_CONSTRUCT(p)  initialise the object at p
 *   X_DESTRUCT(p)   release what the object at p owns (not p itself)
 *   X_CREATE(m, n)  m = n freshly initialised objects (NULL if n is 0)
 *   X_FREE(m, n)    destruct n objects at m, then free m
 *   X_RELEASE(m)    destruct and free a single object
 * Arguments may be evaluated more than once.
 * ==================================================================== */

/* ---- keys, namespaces and process ids ---- */

#define PMIX_CHECK_KEY(a, b) \
    (0 == strncmp((a)->key, (b), PMIX_MAX_KEYLEN))

/* Keys starting with "pmix" are reserved for the standard. */
#define PMIX_CHECK_RESERVED_KEY(a) \
    (0 == strncmp((a), "pmix", 4))

#define PMIX_LOAD_KEY(a, b)                                                   \
    do {                                                                      \
        memset((a), 0, PMIX_MAX_KEYLEN + 1);                                  \
        if (NULL != (b)) {                                                    \
            pmix_strncpy((char *) (a), (const char *) (b), PMIX_MAX_KEYLEN);  \
        }                                                                     \
    } while (0)

#define PMIX_LOAD_NSPACE(a, b)                                                \
    do {                                                                      \
        memset((a), 0, PMIX_MAX_NSLEN + 1);                                   \
        if (NULL != (b)) {                                                    \
            pmix_strncpy((char *) (a), (const char *) (b), PMIX_MAX_NSLEN);   \
        }                                                                     \
    } while (0)

/* An empty or NULL namespace. */
#define PMIX_NSPACE_INVALID(a) \
    (NULL == (a) || 0 == pmix_nslen((a)))

/* Namespaces match if equal or if either one is unset. */
#define PMIX_CHECK_NSPACE(a, b)                                  \
    (PMIX_NSPACE_INVALID((a)) || PMIX_NSPACE_INVALID((b)) ||     \
     0 == strncmp((a), (b), PMIX_MAX_NSLEN))

#define PMIX_LOAD_PROCID(a, b, c)                \
    do {                                         \
        PMIX_LOAD_NSPACE((a)->nspace, (b));      \
        (a)->rank = (c);                         \
    } while (0)

#define PMIX_XFER_PROCID(a, b) \
    memcpy((a), (b), sizeof(pmix_proc_t))

#define PMIX_PROCID_XFER(a, b) PMIX_XFER_PROCID(a, b)

/* Ranks match if equal or if either one is the wildcard. */
#define PMIX_CHECK_RANK(a, b) \
    ((a) == (b) || PMIX_RANK_WILDCARD == (a) || PMIX_RANK_WILDCARD == (b))

#define PMIX_CHECK_PROCID(a, b) \
    (PMIX_CHECK_NSPACE((a)->nspace, (b)->nspace) && PMIX_CHECK_RANK((a)->rank, (b)->rank))

#define PMIX_PROCID_INVALID(a) \
    (PMIX_NSPACE_INVALID((a)->nspace) || PMIX_RANK_INVALID == (a)->rank)

/* ---- argv / environment wrappers (results go to the first argument) ---- */

#define PMIX_ARGV_COUNT(r, a)             (r) = pmix_argv_count(a)
#define PMIX_ARGV_APPEND(r, a, b)         (r) = pmix_argv_append_nosize(&(a), (b))
#define PMIX_ARGV_PREPEND(r, a, b)        (r) = pmix_argv_prepend_nosize(&(a), (b))
/* note: a is the address of the array (char ***), unlike PMIX_ARGV_APPEND */
#define PMIX_ARGV_APPEND_UNIQUE(r, a, b)  (r) = pmix_argv_append_unique_nosize((a), (b))
#define PMIX_ARGV_FREE(a)                 pmix_argv_free(a)
#define PMIX_ARGV_SPLIT(a, b, c)          (a) = pmix_argv_split((b), (c))
#define PMIX_ARGV_JOIN(a, b, c)           (a) = pmix_argv_join((b), (c))
#define PMIX_ARGV_COPY(a, b)              (a) = pmix_argv_copy(b)
#define PMIX_SETENV(r, a, b, c)           (r) = pmix_setenv((a), (b), true, (c))

/* Private: m = n zeroed objects of type T (NULL when n is 0). */
#define PMIX_HDR_ZALLOC(m, n, T) \
    (m) = (T *) pmix_hdr_zalloc((size_t) (n), sizeof(T))

/* Private: frees what the pointer field f points to, if anything, and
 * sets f to NULL. */
#define PMIX_HDR_FREE_FIELD(f) \
    do {                       \
        if (NULL != (f)) {     \
            pmix_free(f);      \
            (f) = NULL;        \
        }                      \
    } while (0)

/* Private: destructs the n objects at m with destruct, then frees m
 * (leaving m dangling); PMIX_HDR_FREE_ARRAY also sets m to NULL. The X_FREE
 * macros of most types are these. A macro cannot expand itself, so the
 * X_FREE macros that another such X_FREE's destruct expands
 * (PMIX_COORD_FREE in PMIX_GEOMETRY_DESTRUCT, PMIX_INFO_FREE in
 * PMIX_QUERY_DESTRUCT) are written out, with counters of their own. */
#define PMIX_HDR_DESTRUCT_FREE(m, n, destruct)                          \
    do {                                                                \
        size_t _pmix_hdr_k;                                             \
        if (NULL != (m)) {                                              \
            for (_pmix_hdr_k = 0; _pmix_hdr_k < (size_t) (n); _pmix_hdr_k++) { \
                destruct(&(m)[_pmix_hdr_k]);                            \
            }                                                           \
            pmix_free((m));                                             \
        }                                                               \
    } while (0)
#define PMIX_HDR_FREE_ARRAY(m, n, destruct)          \
    do {                                             \
        PMIX_HDR_DESTRUCT_FREE((m), (n), destruct);  \
        (m) = NULL;                                  \
    } while (0)

/* ---- pmix_coord_t ---- */

#define PMIX_COORD_STATIC_INIT \
    { PMIX_COORD_VIEW_UNDEF, NULL, 0 }

#define PMIX_COORD_CONSTRUCT(m)                \
    do {                                       \
        (m)->view = PMIX_COORD_VIEW_UNDEF;     \
        (m)->coord = NULL;                     \
        (m)->dims = 0;                         \
    } while (0)

#define PMIX_COORD_DESTRUCT(m)                 \
    do {                                       \
        (m)->view = PMIX_COORD_VIEW_UNDEF;     \
        if (NULL != (m)->coord) {              \
            pmix_free((m)->coord);             \
            (m)->coord = NULL;                 \
            (m)->dims = 0;                     \
        }                                      \
    } while (0)

/* m = d coordinates, each with n zeroed dimensions. */
#define PMIX_COORD_CREATE(m, d, n)                                               \
    do {                                                                         \
        pmix_coord_t *_pc_arr;                                                   \
        size_t _pc_i;                                                            \
        PMIX_HDR_ZALLOC(_pc_arr, (d), pmix_coord_t);                             \
        if (NULL != _pc_arr) {                                                   \
            for (_pc_i = 0; _pc_i < (size_t) (d); _pc_i++) {                     \
                _pc_arr[_pc_i].view = PMIX_COORD_VIEW_UNDEF;                     \
                _pc_arr[_pc_i].dims = (n);                                       \
                PMIX_HDR_ZALLOC(_pc_arr[_pc_i].coord, (n), uint32_t);            \
            }                                                                    \
        }                                                                        \
        (m) = _pc_arr;                                                           \
    } while (0)

#define PMIX_COORD_FREE(m, n)                              \
    do {                                                   \
        size_t _pc_k;                                      \
        if (NULL != (m)) {                                 \
            for (_pc_k = 0; _pc_k < (size_t) (n); _pc_k++) { \
                PMIX_COORD_DESTRUCT(&(m)[_pc_k]);          \
            }                                              \
            pmix_free((m));                                \
            (m) = NULL;                                    \
        }                                                  \
    } while (0)

/* ---- pmix_cpuset_t / pmix_topology_t ---- */

#define PMIX_CPUSET_STATIC_INIT       { NULL, NULL }
#define PMIX_CPUSET_CONSTRUCT(m)      memset((m), 0, sizeof(pmix_cpuset_t))
#define PMIX_CPUSET_CREATE(m, n)      PMIX_HDR_ZALLOC(m, n, pmix_cpuset_t)

#define PMIX_TOPOLOGY_STATIC_INIT     { NULL, NULL }
#define PMIX_TOPOLOGY_CONSTRUCT(m)    memset((m), 0, sizeof(pmix_topology_t))
#define PMIX_TOPOLOGY_CREATE(m, n)    PMIX_HDR_ZALLOC(m, n, pmix_topology_t)
#define PMIX_TOPOLOGY_DESTRUCT(x)     PMIx_Topology_destruct(x)

/* OpenPMIx 5.0 added these four; they call library functions that a 4.x
 * libpmix lacks, so a program using them needs a 5.0-level library. The
 * free forms also reset the pointer. */
#define PMIX_CPUSET_DESTRUCT(m)       PMIx_Cpuset_destruct(m)
#define PMIX_CPUSET_FREE(m, n)                                     \
    do {                                                           \
        PMIx_Cpuset_free((m), (n));                                \
        (m) = NULL;                                                \
    } while (0)
#define PMIX_TOPOLOGY_FREE(m, n)                                   \
    do {                                                           \
        PMIx_Topology_free((m), (n));                              \
        (m) = NULL;                                                \
    } while (0)

/* ---- pmix_geometry_t ---- */

#define PMIX_GEOMETRY_STATIC_INIT     { 0, NULL, NULL, NULL, 0 }
#define PMIX_GEOMETRY_CONSTRUCT(m)    memset((m), 0, sizeof(pmix_geometry_t))
#define PMIX_GEOMETRY_CREATE(m, n)    PMIX_HDR_ZALLOC(m, n, pmix_geometry_t)

#define PMIX_GEOMETRY_DESTRUCT(m)                                   \
    do {                                                            \
        PMIX_HDR_FREE_FIELD((m)->uuid);                             \
        PMIX_HDR_FREE_FIELD((m)->osname);                           \
        if (NULL != (m)->coordinates) {                             \
            PMIX_COORD_FREE((m)->coordinates, (m)->ncoords);        \
        }                                                           \
    } while (0)

#define PMIX_GEOMETRY_FREE(m, n) PMIX_HDR_FREE_ARRAY(m, n, PMIX_GEOMETRY_DESTRUCT)

/* ---- pmix_device_distance_t (distances start out "unknown" = max) ---- */

#define PMIX_DEVICE_DIST_STATIC_INIT \
    { NULL, NULL, PMIX_DEVTYPE_UNKNOWN, 0, 0 }

#define PMIX_DEVICE_DIST_CONSTRUCT(m)                         \
    do {                                                      \
        memset((m), 0, sizeof(pmix_device_distance_t));       \
        (m)->mindist = UINT16_MAX;                            \
        (m)->maxdist = UINT16_MAX;                            \
    } while (0)

#define PMIX_DEVICE_DIST_DESTRUCT(m)          \
    do {                                      \
        if (NULL != (m)->uuid) {              \
            pmix_free((m)->uuid);             \
        }                                     \
        if (NULL != (m)->osname) {            \
            pmix_free((m)->osname);           \
        }                                     \
    } while (0)

#define PMIX_DEVICE_DIST_CREATE(m, n)                                  \
    do {                                                               \
        pmix_device_distance_t *_pd_arr;                               \
        size_t _pd_i;                                                  \
        PMIX_HDR_ZALLOC(_pd_arr, (n), pmix_device_distance_t);         \
        if (NULL != _pd_arr) {                                         \
            for (_pd_i = 0; _pd_i < (size_t) (n); _pd_i++) {           \
                _pd_arr[_pd_i].mindist = UINT16_MAX;                   \
                _pd_arr[_pd_i].maxdist = UINT16_MAX;                   \
            }                                                          \
        }                                                              \
        (m) = _pd_arr;                                                 \
    } while (0)

#define PMIX_DEVICE_DIST_FREE(m, n) PMIX_HDR_FREE_ARRAY(m, n, PMIX_DEVICE_DIST_DESTRUCT)

/* ---- pmix_byte_object_t ---- */

#define PMIX_BYTE_OBJECT_STATIC_INIT     { NULL, 0 }
#define PMIX_BYTE_OBJECT_CREATE(m, n)    PMIX_HDR_ZALLOC(m, n, pmix_byte_object_t)

#define PMIX_BYTE_OBJECT_CONSTRUCT(m)    \
    do {                                 \
        (m)->bytes = NULL;               \
        (m)->size = 0;                   \
    } while (0)

#define PMIX_BYTE_OBJECT_DESTRUCT(m)     \
    do {                                 \
        if (NULL != (m)->bytes) {        \
            pmix_free((m)->bytes);       \
        }                                \
        (m)->bytes = NULL;               \
        (m)->size = 0;                   \
    } while (0)

#define PMIX_BYTE_OBJECT_FREE(m, n) PMIX_HDR_FREE_ARRAY(m, n, PMIX_BYTE_OBJECT_DESTRUCT)

/* Move buffer d of s bytes into b; d and s are cleared. */
#define PMIX_BYTE_OBJECT_LOAD(b, d, s)   \
    do {                                 \
        (b)->bytes = (char *) (d);       \
        (d) = NULL;                      \
        (b)->size = (s);                 \
        (s) = 0;                         \
    } while (0)

/* ---- pmix_endpoint_t ---- */

#define PMIX_ENDPOINT_STATIC_INIT \
    { NULL, NULL, PMIX_BYTE_OBJECT_STATIC_INIT }
#define PMIX_ENDPOINT_CONSTRUCT(m)    memset((m), 0, sizeof(pmix_endpoint_t))
#define PMIX_ENDPOINT_CREATE(m, n)    PMIX_HDR_ZALLOC(m, n, pmix_endpoint_t)

#define PMIX_ENDPOINT_DESTRUCT(m)             \
    do {                                      \
        if (NULL != (m)->uuid) {              \
            pmix_free((m)->uuid);             \
        }                                     \
        if (NULL != (m)->osname) {            \
            pmix_free((m)->osname);           \
        }                                     \
        if (NULL != (m)->endpt.bytes) {       \
            pmix_free((m)->endpt.bytes);      \
        }                                     \
    } while (0)

#define PMIX_ENDPOINT_FREE(m, n) PMIX_HDR_FREE_ARRAY(m, n, PMIX_ENDPOINT_DESTRUCT)

/* ---- pmix_envar_t ---- */

#define PMIX_ENVAR_STATIC_INIT      { NULL, NULL, '\0' }
#define PMIX_ENVAR_CREATE(m, n)     PMIX_HDR_ZALLOC(m, n, pmix_envar_t)

#define PMIX_ENVAR_CONSTRUCT(m)     \
    do {                            \
        (m)->envar = NULL;          \
        (m)->value = NULL;          \
        (m)->separator = '\0';      \
    } while (0)

#define PMIX_ENVAR_DESTRUCT(m)            \
    do {                                  \
        PMIX_HDR_FREE_FIELD((m)->envar);  \
        PMIX_HDR_FREE_FIELD((m)->value);  \
    } while (0)

/* note: m itself is left dangling, not reset to NULL */
#define PMIX_ENVAR_FREE(m, n) PMIX_HDR_DESTRUCT_FREE(m, n, PMIX_ENVAR_DESTRUCT)

/* Copies e and v (when non-NULL). */
#define PMIX_ENVAR_LOAD(m, e, v, s)                   \
    do {                                              \
        if (NULL != (e)) {                            \
            (m)->envar = pmix_hdr_strdup(e);          \
        }                                             \
        if (NULL != (v)) {                            \
            (m)->value = pmix_hdr_strdup(v);          \
        }                                             \
        (m)->separator = (s);                         \
    } while (0)

/* ---- pmix_data_buffer_t ---- */

#define PMIX_DATA_BUFFER_STATIC_INIT     { NULL, NULL, NULL, 0, 0 }
#define PMIX_DATA_BUFFER_CONSTRUCT(m)    memset((m), 0, sizeof(pmix_data_buffer_t))
#define PMIX_DATA_BUFFER_CREATE(m)       PMIX_HDR_ZALLOC(m, 1, pmix_data_buffer_t)

#define PMIX_DATA_BUFFER_DESTRUCT(m)          \
    do {                                      \
        PMIX_HDR_FREE_FIELD((m)->base_ptr);   \
        (m)->pack_ptr = NULL;                 \
        (m)->unpack_ptr = NULL;               \
        (m)->bytes_allocated = 0;             \
        (m)->bytes_used = 0;                  \
    } while (0)

#define PMIX_DATA_BUFFER_RELEASE(m)           \
    do {                                      \
        if (NULL != (m)->base_ptr) {          \
            pmix_free((m)->base_ptr);         \
        }                                     \
        pmix_free((m));                       \
        (m) = NULL;                           \
    } while (0)

/* Hand s bytes at d over to buffer b (b takes ownership). */
#define PMIX_DATA_BUFFER_LOAD(b, d, s)        \
    do {                                      \
        pmix_byte_object_t _pdb_bo;           \
        _pdb_bo.bytes = (char *) (d);         \
        _pdb_bo.size = (s);                   \
        PMIx_Data_load((b), &_pdb_bo);        \
    } while (0)

/* Take the unread payload of b: d/s receive it (NULL/0 on failure). */
#define PMIX_DATA_BUFFER_UNLOAD(b, d, s)                      \
    do {                                                      \
        pmix_byte_object_t _pdb_bo;                           \
        if (PMIX_SUCCESS == PMIx_Data_unload((b), &_pdb_bo)) { \
            (d) = _pdb_bo.bytes;                              \
            (s) = _pdb_bo.size;                               \
        } else {                                              \
            (d) = NULL;                                       \
            (s) = 0;                                          \
        }                                                     \
    } while (0)

/* ---- pmix_proc_t ---- */

#define PMIX_PROC_STATIC_INIT       { {0}, PMIX_RANK_UNDEF }
#define PMIX_PROC_CREATE(m, n)      PMIX_HDR_ZALLOC(m, n, pmix_proc_t)
#define PMIX_PROC_CONSTRUCT(m)      memset((m), 0, sizeof(pmix_proc_t))
/* a pmix_proc_t owns nothing */
#define PMIX_PROC_DESTRUCT(m)       do { } while (0)

#define PMIX_PROC_RELEASE(m)        \
    do {                            \
        pmix_free((m));             \
        (m) = NULL;                 \
    } while (0)

#define PMIX_PROC_FREE(m, n)        \
    do {                            \
        if (NULL != (m)) {          \
            pmix_free((m));         \
            (m) = NULL;             \
        }                           \
    } while (0)

#define PMIX_PROC_LOAD(m, n, r)                                            \
    do {                                                                   \
        PMIX_PROC_CONSTRUCT((m));                                          \
        pmix_strncpy((char *) (m)->nspace, (n), PMIX_MAX_NSLEN);           \
        (m)->rank = (r);                                                   \
    } while (0)

/* t = "c:n" (left empty if it would not fit in a namespace). */
#define PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(t, c, n)                            \
    do {                                                                       \
        size_t _pm_len;                                                        \
        memset((t), 0, PMIX_MAX_NSLEN + 1);                                    \
        _pm_len = pmix_nslen((c));                                             \
        if ((_pm_len + pmix_nslen((n))) < PMIX_MAX_NSLEN) {                    \
            pmix_strncpy((char *) (t), (c), PMIX_MAX_NSLEN);                   \
            (t)[_pm_len] = ':';                                                \
            pmix_strncpy((char *) &(t)[_pm_len + 1], (n),                      \
                         PMIX_MAX_NSLEN - _pm_len);                            \
        }                                                                      \
    } while (0)

/* Split "cluster:nspace" t into c and n. The characters are copied
 * without adding terminators, so c and n should start zeroed. */
#define PMIX_MULTICLUSTER_NSPACE_PARSE(t, c, n)                                \
    do {                                                                       \
        size_t _pm_i = 0, _pm_j = 0;                                           \
        while (_pm_i <= PMIX_MAX_NSLEN && '\0' != (t)[_pm_i] &&                \
               ':' != (t)[_pm_i]) {                                            \
            (c)[_pm_i] = (t)[_pm_i];                                           \
            _pm_i++;                                                           \
        }                                                                      \
        if (_pm_i <= PMIX_MAX_NSLEN && ':' == (t)[_pm_i]) {                    \
            for (_pm_i++; _pm_i <= PMIX_MAX_NSLEN && '\0' != (t)[_pm_i];       \
                 _pm_i++, _pm_j++) {                                           \
                (n)[_pm_j] = (t)[_pm_i];                                       \
            }                                                                  \
        }                                                                      \
    } while (0)

/* ---- pmix_proc_info_t ---- */

#define PMIX_PROC_INFO_STATIC_INIT \
    { PMIX_PROC_STATIC_INIT, NULL, NULL, 0, 0, PMIX_PROC_STATE_UNDEF }
#define PMIX_PROC_INFO_CREATE(m, n)    PMIX_HDR_ZALLOC(m, n, pmix_proc_info_t)
#define PMIX_PROC_INFO_CONSTRUCT(m)    memset((m), 0, sizeof(pmix_proc_info_t))

#define PMIX_PROC_INFO_DESTRUCT(m)                 \
    do {                                           \
        PMIX_HDR_FREE_FIELD((m)->hostname);        \
        PMIX_HDR_FREE_FIELD((m)->executable_name); \
    } while (0)

/* note: m itself is left dangling, not reset to NULL */
#define PMIX_PROC_INFO_FREE(m, n) PMIX_HDR_DESTRUCT_FREE(m, n, PMIX_PROC_INFO_DESTRUCT)

#define PMIX_PROC_INFO_RELEASE(m)    PMIX_PROC_INFO_FREE((m), 1)

/* ---- pmix_data_array_t (element helpers further below) ---- */

#define PMIX_DATA_ARRAY_STATIC_INIT    { PMIX_UNDEF, 0, NULL }

/* ---- statistics structures ---- */

#define PMIX_PROC_STATS_STATIC_INIT \
    { NULL, PMIX_PROC_STATIC_INIT, 0, NULL, '\0', {0, 0}, 0.0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0, {0, 0} }
#define PMIX_PROC_STATS_CREATE(m, n)    PMIX_HDR_ZALLOC(m, n, pmix_proc_stats_t)
#define PMIX_PROC_STATS_CONSTRUCT(m)    memset((m), 0, sizeof(pmix_proc_stats_t))

#define PMIX_PROC_STATS_DESTRUCT(m)          \
    do {                                     \
        PMIX_HDR_FREE_FIELD((m)->node);      \
        PMIX_HDR_FREE_FIELD((m)->cmd);       \
    } while (0)

/* Destruct n entries (the array itself is kept). */
static inline void pmix_proc_stats_free(pmix_proc_stats_t *ps, size_t n)
{
    size_t k;

    for (k = 0; NULL != ps && k < n; k++) {
        PMIX_PROC_STATS_DESTRUCT(&ps[k]);
    }
}

#define PMIX_PROC_STATS_FREE(m, n)         \
    do {                                   \
        pmix_proc_stats_free((m), (n));    \
        pmix_free((m));                    \
        (m) = NULL;                        \
    } while (0)

#define PMIX_PROC_STATS_RELEASE(m)    PMIX_PROC_STATS_FREE((m), 1)

#define PMIX_DISK_STATS_STATIC_INIT \
    { NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
#define PMIX_DISK_STATS_CREATE(m, n)    PMIX_HDR_ZALLOC(m, n, pmix_disk_stats_t)
#define PMIX_DISK_STATS_CONSTRUCT(m)    memset((m), 0, sizeof(pmix_disk_stats_t))

#define PMIX_DISK_STATS_DESTRUCT(m)          \
    do {                                     \
        PMIX_HDR_FREE_FIELD((m)->disk);      \
    } while (0)

static inline void pmix_disk_stats_free(pmix_disk_stats_t *d, size_t n)
{
    size_t k;

    for (k = 0; NULL != d && k < n; k++) {
        PMIX_DISK_STATS_DESTRUCT(&d[k]);
    }
}

#define PMIX_DISK_STATS_FREE(m, n)         \
    do {                                   \
        pmix_disk_stats_free((m), (n));    \
        pmix_free((m));                    \
        (m) = NULL;                        \
    } while (0)

#define PMIX_DISK_STATS_RELEASE(m)    PMIX_DISK_STATS_FREE((m), 1)

#define PMIX_NET_STATS_STATIC_INIT \
    { NULL, 0, 0, 0, 0, 0, 0 }
#define PMIX_NET_STATS_CREATE(m, n)    PMIX_HDR_ZALLOC(m, n, pmix_net_stats_t)
#define PMIX_NET_STATS_CONSTRUCT(m)    memset((m), 0, sizeof(pmix_net_stats_t))

#define PMIX_NET_STATS_DESTRUCT(m)              \
    do {                                        \
        PMIX_HDR_FREE_FIELD((m)->net_interface);\
    } while (0)

static inline void pmix_net_stats_free(pmix_net_stats_t *nst, size_t n)
{
    size_t k;

    for (k = 0; NULL != nst && k < n; k++) {
        PMIX_NET_STATS_DESTRUCT(&nst[k]);
    }
}

#define PMIX_NET_STATS_FREE(m, n)          \
    do {                                   \
        pmix_net_stats_free((m), (n));     \
        pmix_free((m));                    \
        (m) = NULL;                        \
    } while (0)

#define PMIX_NET_STATS_RELEASE(m)    PMIX_NET_STATS_FREE((m), 1)

#define PMIX_NODE_STATS_STATIC_INIT \
    { NULL, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, {0, 0}, NULL, 0, NULL, 0 }
#define PMIX_NODE_STATS_CREATE(m, n)    PMIX_HDR_ZALLOC(m, n, pmix_node_stats_t)
#define PMIX_NODE_STATS_CONSTRUCT(m)    memset((m), 0, sizeof(pmix_node_stats_t))

#define PMIX_NODE_STATS_DESTRUCT(m)                                  \
    do {                                                             \
        PMIX_HDR_FREE_FIELD((m)->node);                              \
        if (NULL != (m)->diskstats) {                                \
            PMIX_DISK_STATS_FREE((m)->diskstats, (m)->ndiskstats);   \
        }                                                            \
        if (NULL != (m)->netstats) {                                 \
            PMIX_NET_STATS_FREE((m)->netstats, (m)->nnetstats);      \
        }                                                            \
    } while (0)

static inline void pmix_node_stats_free(pmix_node_stats_t *nd, size_t n)
{
    size_t k;

    for (k = 0; NULL != nd && k < n; k++) {
        PMIX_NODE_STATS_DESTRUCT(&nd[k]);
    }
}

#define PMIX_NODE_STATS_FREE(m, n)         \
    do {                                   \
        pmix_node_stats_free((m), (n));    \
        pmix_free((m));                    \
        (m) = NULL;                        \
    } while (0)

/* note: destructs the single object but does not free it */
#define PMIX_NODE_STATS_RELEASE(m)    pmix_node_stats_free((m), 1)

/* ---- pmix_value_t ---- */

/* C99 can name the union member; C++ (before C++20) cannot. */
#if defined(c_plusplus) || defined(__cplusplus)
#define PMIX_VALUE_STATIC_INIT    { PMIX_UNDEF, { false } }
#else
#define PMIX_VALUE_STATIC_INIT    { PMIX_UNDEF, { .ptr = NULL } }
#endif
#define PMIX_VALUE_CREATE(m, n)   PMIX_HDR_ZALLOC(m, n, pmix_value_t)

#define PMIX_VALUE_CONSTRUCT(m)                   \
    do {                                          \
        memset((m), 0, sizeof(pmix_value_t));     \
        (m)->type = PMIX_UNDEF;                   \
    } while (0)

#define PMIX_VALUE_DESTRUCT(m)    PMIx_Value_destruct(m)

#define PMIX_VALUE_RELEASE(m)         \
    do {                              \
        PMIX_VALUE_DESTRUCT((m));     \
        pmix_free((m));               \
        (m) = NULL;                   \
    } while (0)

#define PMIX_VALUE_FREE(m, n) PMIX_HDR_FREE_ARRAY(m, n, PMIX_VALUE_DESTRUCT)

#define PMIX_VALUE_LOAD(v, d, t) \
    PMIx_Value_load((v), (d), (t))

#define PMIX_VALUE_UNLOAD(r, k, d, s) \
    (r) = PMIx_Value_unload((k), (d), (s))

/* Copy s into v, allocating v (uninitialised memory) when it is NULL. */
#define PMIX_VALUE_XFER(r, v, s)                                          \
    do {                                                                  \
        if (NULL == (v)) {                                                \
            (v) = (pmix_value_t *) pmix_malloc(sizeof(pmix_value_t));     \
        }                                                                 \
        if (NULL == (v)) {                                                \
            (r) = PMIX_ERR_NOMEM;                                         \
        } else {                                                          \
            (r) = PMIx_Value_xfer((v), (s));                              \
        }                                                                 \
    } while (0)

#define PMIX_VALUE_XFER_DIRECT(r, v, s) \
    (r) = PMIx_Value_xfer((v), (s))

/* n = the numeric content of value m converted to type t; s reports
 * PMIX_ERR_BAD_PARAM when m does not hold a number. */
#define PMIX_VALUE_GET_NUMBER(s, m, n, t)                             \
    do {                                                              \
        (s) = PMIX_SUCCESS;                                           \
        switch ((m)->type) {                                          \
        case PMIX_SIZE:      (n) = (t) ((m)->data.size);    break;    \
        case PMIX_INT:       (n) = (t) ((m)->data.integer); break;    \
        case PMIX_INT8:      (n) = (t) ((m)->data.int8);    break;    \
        case PMIX_INT16:     (n) = (t) ((m)->data.int16);   break;    \
        case PMIX_INT32:     (n) = (t) ((m)->data.int32);   break;    \
        case PMIX_INT64:     (n) = (t) ((m)->data.int64);   break;    \
        case PMIX_UINT:      (n) = (t) ((m)->data.uint);    break;    \
        case PMIX_UINT8:     (n) = (t) ((m)->data.uint8);   break;    \
        case PMIX_UINT16:    (n) = (t) ((m)->data.uint16);  break;    \
        case PMIX_UINT32:    (n) = (t) ((m)->data.uint32);  break;    \
        case PMIX_UINT64:    (n) = (t) ((m)->data.uint64);  break;    \
        case PMIX_FLOAT:     (n) = (t) ((m)->data.fval);    break;    \
        case PMIX_DOUBLE:    (n) = (t) ((m)->data.dval);    break;    \
        case PMIX_PID:       (n) = (t) ((m)->data.pid);     break;    \
        case PMIX_PROC_RANK: (n) = (t) ((m)->data.rank);    break;    \
        default:             (s) = PMIX_ERR_BAD_PARAM;      break;    \
        }                                                             \
    } while (0)

/* ---- pmix_info_t ---- */

#define PMIX_INFO_STATIC_INIT \
    { {0}, 0, PMIX_VALUE_STATIC_INIT }

#define PMIX_INFO_CONSTRUCT(m)                    \
    do {                                          \
        memset((m), 0, sizeof(pmix_info_t));      \
        (m)->value.type = PMIX_UNDEF;             \
    } while (0)

/* The last element of a created array carries PMIX_INFO_ARRAY_END. */
#define PMIX_INFO_CREATE(m, n)                                          \
    do {                                                                \
        pmix_info_t *_pn_arr;                                           \
        PMIX_HDR_ZALLOC(_pn_arr, (n), pmix_info_t);                     \
        if (NULL != _pn_arr) {                                          \
            _pn_arr[(size_t) (n) - 1].flags = PMIX_INFO_ARRAY_END;      \
        }                                                               \
        (m) = _pn_arr;                                                  \
    } while (0)

/* Persistent entries keep their value. */
#define PMIX_INFO_DESTRUCT(m)                     \
    do {                                          \
        if (!PMIX_INFO_IS_PERSISTENT((m))) {      \
            PMIX_VALUE_DESTRUCT(&(m)->value);     \
        }                                         \
    } while (0)

#define PMIX_INFO_FREE(m, n)                                  \
    do {                                                      \
        size_t _pn_k;                                         \
        if (NULL != (m)) {                                    \
            for (_pn_k = 0; _pn_k < (size_t) (n); _pn_k++) {  \
                PMIX_INFO_DESTRUCT(&(m)[_pn_k]);              \
            }                                                 \
            pmix_free((m));                                   \
            (m) = NULL;                                       \
        }                                                     \
    } while (0)

#define PMIX_INFO_LOAD(i, k, d, t) \
    (void) PMIx_Info_load((i), (k), (d), (t))

#define PMIX_INFO_XFER(d, s) \
    (void) PMIx_Info_xfer((d), (s))

/* flag accessors */
#define PMIX_INFO_REQUIRED(m)         ((m)->flags |= PMIX_INFO_REQD)
#define PMIX_INFO_OPTIONAL(m)         ((m)->flags &= (pmix_info_directives_t) ~PMIX_INFO_REQD)
#define PMIX_INFO_IS_REQUIRED(m)      ((m)->flags & PMIX_INFO_REQD)
#define PMIX_INFO_IS_OPTIONAL(m)      (!((m)->flags & PMIX_INFO_REQD))
#define PMIX_INFO_PROCESSED(m)        ((m)->flags |= PMIX_INFO_REQD_PROCESSED)
#define PMIX_INFO_WAS_PROCESSED(m)    ((m)->flags & PMIX_INFO_REQD_PROCESSED)
#define PMIX_INFO_SET_END(m)          ((m)->flags |= PMIX_INFO_ARRAY_END)
#define PMIX_INFO_IS_END(m)           ((m)->flags & PMIX_INFO_ARRAY_END)
#define PMIX_INFO_SET_QUALIFIER(i)    ((i)->flags |= PMIX_INFO_QUALIFIER)
#define PMIX_INFO_IS_QUALIFIER(i)     ((i)->flags & PMIX_INFO_QUALIFIER)
#define PMIX_INFO_SET_PERSISTENT(ii)  ((ii)->flags |= PMIX_INFO_PERSISTENT)
#define PMIX_INFO_IS_PERSISTENT(ii)   ((ii)->flags & PMIX_INFO_PERSISTENT)

/* boolean tests built on pmix_check_true() */
#define PMIX_CHECK_TRUE(a) \
    (PMIX_BOOL_TRUE == pmix_check_true(a) ? true : false)
#define PMIX_CHECK_BOOL(a) \
    (PMIX_NON_BOOL == pmix_check_true(a) ? false : true)
#define PMIX_INFO_TRUE(m) \
    (PMIX_BOOL_TRUE == pmix_check_true(&(m)->value) ? true : false)

/* info lists */
#define PMIX_INFO_LIST_START(p)              (p) = PMIx_Info_list_start()
#define PMIX_INFO_LIST_ADD(r, p, a, v, t)    (r) = PMIx_Info_list_add((p), (a), (v), (t))
/* OpenPMIx 5.0 (needs a 5.0-level library): add at the front. */
#define PMIX_INFO_LIST_PREPEND(r, p, a, v, t) (r) = PMIx_Info_list_prepend((p), (a), (v), (t))
#define PMIX_INFO_LIST_INSERT(r, p, i)       (r) = PMIx_Info_list_insert((p), (i))
#define PMIX_INFO_LIST_XFER(r, p, a)         (r) = PMIx_Info_list_xfer((p), (a))
#define PMIX_INFO_LIST_CONVERT(r, p, m)      (r) = PMIx_Info_list_convert((p), (m))
#define PMIX_INFO_LIST_RELEASE(p)            PMIx_Info_list_release((p))

/* ---- pmix_pdata_t ---- */

#define PMIX_LOOKUP_STATIC_INIT \
    { PMIX_PROC_STATIC_INIT, {0}, PMIX_VALUE_STATIC_INIT }
#define PMIX_PDATA_CREATE(m, n)    PMIX_HDR_ZALLOC(m, n, pmix_pdata_t)

#define PMIX_PDATA_CONSTRUCT(m)                   \
    do {                                          \
        memset((m), 0, sizeof(pmix_pdata_t));     \
        (m)->value.type = PMIX_UNDEF;             \
    } while (0)

#define PMIX_PDATA_DESTRUCT(m)                    \
    do {                                          \
        PMIX_VALUE_DESTRUCT(&(m)->value);         \
    } while (0)

#define PMIX_PDATA_RELEASE(m)                     \
    do {                                          \
        PMIX_VALUE_DESTRUCT(&(m)->value);         \
        pmix_free((m));                           \
        (m) = NULL;                               \
    } while (0)

static inline void pmix_pdata_free(pmix_pdata_t *pd, size_t n)
{
    size_t k;

    for (k = 0; NULL != pd && k < n; k++) {
        PMIX_PDATA_DESTRUCT(&pd[k]);
    }
}

#define PMIX_PDATA_FREE(m, n)          \
    do {                               \
        pmix_pdata_free((m), (n));     \
        pmix_free((m));                \
        (m) = NULL;                    \
    } while (0)

/* m (if non-NULL) = {proc p, key k, value loaded from v of type t} */
#define PMIX_PDATA_LOAD(m, p, k, v, t)                              \
    do {                                                            \
        if (NULL != (m)) {                                          \
            memset((m), 0, sizeof(pmix_pdata_t));                   \
            PMIX_LOAD_NSPACE((m)->proc.nspace, (p)->nspace);        \
            (m)->proc.rank = (p)->rank;                             \
            PMIX_LOAD_KEY((m)->key, (k));                           \
            PMIx_Value_load(&(m)->value, (v), (t));                 \
        }                                                           \
    } while (0)

#define PMIX_PDATA_XFER(d, s)                                       \
    do {                                                            \
        if (NULL != (d)) {                                          \
            memset((d), 0, sizeof(pmix_pdata_t));                   \
            PMIX_LOAD_NSPACE((d)->proc.nspace, (s)->proc.nspace);   \
            (d)->proc.rank = (s)->proc.rank;                        \
            PMIX_LOAD_KEY((d)->key, (s)->key);                      \
            PMIx_Value_xfer(&(d)->value, &(s)->value);              \
        }                                                           \
    } while (0)

/* ---- pmix_app_t ---- */

#define PMIX_APP_STATIC_INIT \
    { NULL, NULL, NULL, NULL, 0, NULL, 0 }
#define PMIX_APP_CREATE(m, n)    PMIX_HDR_ZALLOC(m, n, pmix_app_t)
#define PMIX_APP_CONSTRUCT(m)    memset((m), 0, sizeof(pmix_app_t))

#define PMIX_APP_INFO_CREATE(m, n)                      \
    do {                                                \
        (m)->ninfo = (n);                               \
        PMIX_INFO_CREATE((m)->info, (m)->ninfo);        \
    } while (0)

#define PMIX_APP_DESTRUCT(m)                            \
    do {                                                \
        PMIX_HDR_FREE_FIELD((m)->cmd);                  \
        if (NULL != (m)->argv) {                        \
            pmix_argv_free((m)->argv);                  \
            (m)->argv = NULL;                           \
        }                                               \
        if (NULL != (m)->env) {                         \
            pmix_argv_free((m)->env);                   \
            (m)->env = NULL;                            \
        }                                               \
        PMIX_HDR_FREE_FIELD((m)->cwd);                  \
        if (NULL != (m)->info) {                        \
            PMIX_INFO_FREE((m)->info, (m)->ninfo);      \
            (m)->ninfo = 0;                             \
        }                                               \
    } while (0)

#define PMIX_APP_RELEASE(m)          \
    do {                             \
        PMIX_APP_DESTRUCT((m));      \
        pmix_free((m));              \
        (m) = NULL;                  \
    } while (0)

static inline void pmix_app_free(pmix_app_t *ap, size_t n)
{
    size_t k;

    for (k = 0; NULL != ap && k < n; k++) {
        PMIX_APP_DESTRUCT(&ap[k]);
    }
}

#define PMIX_APP_FREE(m, n)            \
    do {                               \
        pmix_app_free((m), (n));       \
        pmix_free((m));                \
        (m) = NULL;                    \
    } while (0)

/* ---- pmix_query_t ---- */

#define PMIX_QUERY_STATIC_INIT     { NULL, NULL, 0 }
#define PMIX_QUERY_CREATE(m, n)    PMIX_HDR_ZALLOC(m, n, pmix_query_t)
#define PMIX_QUERY_CONSTRUCT(m)    memset((m), 0, sizeof(pmix_query_t))

#define PMIX_QUERY_QUALIFIERS_CREATE(m, n)                  \
    do {                                                    \
        (m)->nqual = (n);                                   \
        PMIX_INFO_CREATE((m)->qualifiers, (m)->nqual);      \
    } while (0)

#define PMIX_QUERY_DESTRUCT(m)                                  \
    do {                                                        \
        if (NULL != (m)->keys) {                                \
            pmix_argv_free((m)->keys);                          \
            (m)->keys = NULL;                                   \
        }                                                       \
        if (NULL != (m)->qualifiers) {                          \
            PMIX_INFO_FREE((m)->qualifiers, (m)->nqual);        \
            (m)->nqual = 0;                                     \
        }                                                       \
    } while (0)

#define PMIX_QUERY_RELEASE(m)          \
    do {                               \
        PMIX_QUERY_DESTRUCT((m));      \
        pmix_free((m));                \
        (m) = NULL;                    \
    } while (0)

#define PMIX_QUERY_FREE(m, n) PMIX_HDR_FREE_ARRAY(m, n, PMIX_QUERY_DESTRUCT)

/* ---- pmix_regattr_t ---- */

#define PMIX_REGATTR_STATIC_INIT \
    { NULL, {0}, PMIX_UNDEF, NULL }
#define PMIX_REGATTR_CREATE(m, n)    PMIX_HDR_ZALLOC(m, n, pmix_regattr_t)

#define PMIX_REGATTR_CONSTRUCT(a)                           \
    do {                                                    \
        if (NULL != (a)) {                                  \
            (a)->name = NULL;                               \
            memset((a)->string, 0, PMIX_MAX_KEYLEN + 1);    \
            (a)->type = PMIX_UNDEF;                         \
            (a)->description = NULL;                        \
        }                                                   \
    } while (0)

/* Fill a: name n and key k are copied, v is appended to the
 * description list. */
#define PMIX_REGATTR_LOAD(a, n, k, t, v)                                  \
    do {                                                                  \
        if (NULL != (n)) {                                                \
            (a)->name = pmix_hdr_strdup(n);                               \
        }                                                                 \
        if (NULL != (k)) {                                                \
            PMIX_LOAD_KEY((a)->string, (k));                              \
        }                                                                 \
        (a)->type = (t);                                                  \
        if (NULL != (v)) {                                                \
            (void) pmix_argv_append_nosize(&(a)->description, (v));       \
        }                                                                 \
    } while (0)

#define PMIX_REGATTR_DESTRUCT(a)                        \
    do {                                                \
        if (NULL != (a)) {                              \
            if (NULL != (a)->name) {                    \
                pmix_free((a)->name);                   \
            }                                           \
            if (NULL != (a)->description) {             \
                pmix_argv_free((a)->description);       \
            }                                           \
        }                                               \
    } while (0)

#define PMIX_REGATTR_FREE(m, n)                                   \
    do {                                                          \
        size_t _pr_k;                                             \
        pmix_regattr_t *_pr_arr = (pmix_regattr_t *) (m);         \
        if (NULL != _pr_arr) {                                    \
            for (_pr_k = 0; _pr_k < (size_t) (n); _pr_k++) {      \
                PMIX_REGATTR_DESTRUCT(&_pr_arr[_pr_k]);           \
            }                                                     \
            pmix_free(_pr_arr);                                   \
            (m) = NULL;                                           \
        }                                                         \
    } while (0)

/* a = deep copy of b */
#define PMIX_REGATTR_XFER(a, b)                                       \
    do {                                                              \
        PMIX_REGATTR_CONSTRUCT((a));                                  \
        if (NULL != (b)->name) {                                      \
            (a)->name = pmix_hdr_strdup((b)->name);                   \
        }                                                             \
        PMIX_LOAD_KEY((a)->string, (b)->string);                      \
        (a)->type = (b)->type;                                        \
        if (NULL != (b)->description) {                               \
            (a)->description = pmix_argv_copy((b)->description);      \
        }                                                             \
    } while (0)

/* ---- pmix_fabric_t ---- */

#define PMIX_FABRIC_STATIC_INIT    { NULL, 0, NULL, 0, NULL }
#define PMIX_FABRIC_CONSTRUCT(x)   memset((x), 0, sizeof(pmix_fabric_t))

/* ---- pmix_data_array_t ---- */

#define PMIX_DATA_ARRAY_INIT(m, t)     \
    do {                               \
        (m)->array = NULL;             \
        (m)->type = (t);               \
        (m)->size = 0;                 \
    } while (0)

/* Private: storage for n elements of data type t, initialised as the
 * matching X_CREATE macro would. *ok is cleared for unsupported types. */
static inline void *pmix_hdr_darray_alloc(pmix_data_type_t t, size_t n, bool *ok)
{
    size_t esz;
    void *arr;
    size_t k;

    *ok = true;
    switch (t) {
    case PMIX_INFO:
        arr = pmix_hdr_zalloc(n, sizeof(pmix_info_t));
        if (NULL != arr) {
            ((pmix_info_t *) arr)[n - 1].flags = PMIX_INFO_ARRAY_END;
        }
        return arr;
    case PMIX_DEVICE_DIST:
        arr = pmix_hdr_zalloc(n, sizeof(pmix_device_distance_t));
        for (k = 0; NULL != arr && k < n; k++) {
            ((pmix_device_distance_t *) arr)[k].mindist = UINT16_MAX;
            ((pmix_device_distance_t *) arr)[k].maxdist = UINT16_MAX;
        }
        return arr;
    case PMIX_PROC:             esz = sizeof(pmix_proc_t);            break;
    case PMIX_PROC_INFO:        esz = sizeof(pmix_proc_info_t);       break;
    case PMIX_ENVAR:            esz = sizeof(pmix_envar_t);           break;
    case PMIX_VALUE:            esz = sizeof(pmix_value_t);           break;
    case PMIX_PDATA:            esz = sizeof(pmix_pdata_t);           break;
    case PMIX_QUERY:            esz = sizeof(pmix_query_t);           break;
    case PMIX_APP:              esz = sizeof(pmix_app_t);             break;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING: esz = sizeof(pmix_byte_object_t);    break;
    case PMIX_ALLOC_DIRECTIVE:
    case PMIX_PROC_STATE:
    case PMIX_PERSIST:
    case PMIX_SCOPE:
    case PMIX_DATA_RANGE:
    case PMIX_BYTE:
    case PMIX_INT8:
    case PMIX_UINT8:
    case PMIX_POINTER:          esz = sizeof(int8_t);                 break;
    case PMIX_STRING:           esz = sizeof(char *);                 break;
    case PMIX_SIZE:             esz = sizeof(size_t);                 break;
    case PMIX_PID:              esz = sizeof(pid_t);                  break;
    case PMIX_INT:
    case PMIX_UINT:
    case PMIX_STATUS:           esz = sizeof(int);                    break;
    case PMIX_IOF_CHANNEL:
    case PMIX_DATA_TYPE:
    case PMIX_INT16:
    case PMIX_UINT16:           esz = sizeof(int16_t);                break;
    case PMIX_PROC_RANK:
    case PMIX_INFO_DIRECTIVES:
    case PMIX_INT32:
    case PMIX_UINT32:           esz = sizeof(int32_t);                break;
    case PMIX_INT64:
    case PMIX_UINT64:           esz = sizeof(int64_t);                break;
    case PMIX_FLOAT:            esz = sizeof(float);                  break;
    case PMIX_DOUBLE:           esz = sizeof(double);                 break;
    case PMIX_TIMEVAL:          esz = sizeof(struct timeval);         break;
    case PMIX_TIME:             esz = sizeof(time_t);                 break;
    case PMIX_REGATTR:          esz = sizeof(pmix_regattr_t);         break;
    case PMIX_BOOL:             esz = sizeof(bool);                   break;
    case PMIX_COORD:            esz = sizeof(pmix_coord_t);           break;
    case PMIX_LINK_STATE:       esz = sizeof(pmix_link_state_t);      break;
    case PMIX_ENDPOINT:         esz = sizeof(pmix_endpoint_t);        break;
    case PMIX_PROC_NSPACE:      esz = sizeof(pmix_nspace_t);          break;
    case PMIX_PROC_STATS:       esz = sizeof(pmix_proc_stats_t);      break;
    case PMIX_DISK_STATS:       esz = sizeof(pmix_disk_stats_t);      break;
    case PMIX_NET_STATS:        esz = sizeof(pmix_net_stats_t);       break;
    case PMIX_NODE_STATS:       esz = sizeof(pmix_node_stats_t);      break;
    case PMIX_GEOMETRY:         esz = sizeof(pmix_geometry_t);        break;
    case PMIX_PROC_CPUSET:      esz = sizeof(pmix_cpuset_t);          break;
    default:
        *ok = false;
        return NULL;
    }
    return pmix_hdr_zalloc(n, esz);
}

/* Give m (an existing pmix_data_array_t) n fresh elements of type t.
 * Unsupported types leave array NULL and size 0. */
#define PMIX_DATA_ARRAY_CONSTRUCT(m, n, t)                                  \
    do {                                                                    \
        bool _pa_ok;                                                        \
        (m)->type = (t);                                                    \
        (m)->size = (n);                                                    \
        (m)->array = pmix_hdr_darray_alloc((t), (size_t) (n), &_pa_ok);     \
        if (!_pa_ok) {                                                      \
            (m)->size = 0;                                                  \
        }                                                                   \
    } while (0)

#define PMIX_DATA_ARRAY_CREATE(m, n, t)                                     \
    do {                                                                    \
        PMIX_HDR_ZALLOC(m, 1, pmix_data_array_t);                           \
        if (NULL != (m)) {                                                  \
            PMIX_DATA_ARRAY_CONSTRUCT((m), (n), (t));                       \
        }                                                                   \
    } while (0)

#define PMIX_DATA_ARRAY_DESTRUCT(m)    PMIx_Data_array_destruct(m)

#define PMIX_DATA_ARRAY_FREE(m)              \
    do {                                     \
        if (NULL != (m)) {                   \
            PMIX_DATA_ARRAY_DESTRUCT(m);     \
            pmix_free((m));                  \
            (m) = NULL;                      \
        }                                    \
    } while (0)

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

/* Deprecated names are still part of the 4.2 interface. */
#include <pmix_deprecated.h>

#endif /* PMIx_COMMON_H */
