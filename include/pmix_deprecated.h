/*
 * pmix_deprecated.h - names retired from the PMIx standard that the 4.2
 * ABI still provides for source compatibility.
 *
 * Part of the pmix-rs project: an independent, ABI-compatible
 * implementation of the OpenPMIx interfaces (5.0 API, 4.2 ABI). Normally reached
 * through pmix_common.h.
 */
#ifndef PMIx_DEPRECATED_H
#define PMIx_DEPRECATED_H

#include <pmix_common.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

/* ---- retired API (superseded by PMIx_tool_attach_to_server) ---- */
PMIX_EXPORT pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t *proc,
                                                      pmix_info_t info[], size_t ninfo);

/* ---- retired data type ---- */
#define PMIX_BUFFER                              26

/* ---- retired status codes ---- */
#define PMIX_ERR_SILENT                          (-2)
#define PMIX_ERR_DEBUGGER_RELEASE                (-3)
#define PMIX_ERR_PROC_ABORTED                    (-7)
#define PMIX_ERR_PROC_ABORTING                   (-9)
#define PMIX_ERR_SERVER_FAILED_REQUEST           (-10)
#define PMIX_EXISTS                              (-11)
#define PMIX_ERR_HANDSHAKE_FAILED                (-13)
#define PMIX_ERR_READY_FOR_HANDSHAKE             (-14)
#define PMIX_ERR_PROC_ENTRY_NOT_FOUND            (-17)
#define PMIX_ERR_PACK_MISMATCH                   (-22)
#define PMIX_ERR_IN_ERRNO                        (-26)
#define PMIX_ERR_DATA_VALUE_NOT_FOUND            (-30)
#define PMIX_ERR_INVALID_ARG                     (-33)
#define PMIX_ERR_INVALID_KEY                     (-34)
#define PMIX_ERR_INVALID_KEY_LENGTH              (-35)
#define PMIX_ERR_INVALID_VAL                     (-36)
#define PMIX_ERR_INVALID_VAL_LENGTH              (-37)
#define PMIX_ERR_INVALID_LENGTH                  (-38)
#define PMIX_ERR_INVALID_NUM_ARGS                (-39)
#define PMIX_ERR_INVALID_ARGS                    (-40)
#define PMIX_ERR_INVALID_NUM_PARSED              (-41)
#define PMIX_ERR_INVALID_KEYVALP                 (-42)
#define PMIX_ERR_INVALID_SIZE                    (-43)
#define PMIX_ERR_INVALID_NAMESPACE               (-44)
#define PMIX_ERR_SERVER_NOT_AVAIL                (-45)
#define PMIX_ERR_NOT_IMPLEMENTED                 (-48)
#define PMIX_DEBUG_WAITING_FOR_NOTIFY            (-58)
#define PMIX_ERR_FATAL                           (-63)
#define PMIX_ERR_NOT_AVAILABLE                   (-64)
#define PMIX_ERR_VALUE_OUT_OF_BOUNDS             (-65)
#define PMIX_ERR_FILE_OPEN_FAILURE               (-67)
#define PMIX_ERR_FILE_READ_FAILURE               (-68)
#define PMIX_ERR_FILE_WRITE_FAILURE              (-69)
#define PMIX_ERR_SYS_LIMITS_PIPES                (-70)
#define PMIX_ERR_SYS_LIMITS_CHILDREN             (-71)
#define PMIX_ERR_PIPE_SETUP_FAILURE              (-72)
#define PMIX_ERR_EXE_NOT_ACCESSIBLE              (-73)
#define PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE         (-74)
#define PMIX_ERR_SYS_LIMITS_FILES                (-75)
#define PMIX_ERR_LOST_CONNECTION_TO_SERVER       (-101)
#define PMIX_ERR_LOST_PEER_CONNECTION            (-102)
#define PMIX_ERR_LOST_CONNECTION_TO_CLIENT       (-103)
#define PMIX_NOTIFY_ALLOC_COMPLETE               (-105)
#define PMIX_ERR_INVALID_TERMINATION             (-112)
#define PMIX_ERR_JOB_TERMINATED                  (-145)
#define PMIX_ERR_UPDATE_ENDPOINTS                (-146)
#define PMIX_GDS_ACTION_COMPLETE                 (-148)
#define PMIX_PROC_HAS_CONNECTED                  (-149)
#define PMIX_CONNECT_REQUESTED                   (-150)
#define PMIX_ERR_NODE_DOWN                       (-231)
#define PMIX_ERR_NODE_OFFLINE                    (-232)
#define PMIX_ERR_SYS_BASE                        PMIX_EVENT_SYS_BASE
#define PMIX_ERR_SYS_OTHER                       PMIX_EVENT_SYS_OTHER

/* ---- retired job state ---- */
#define PMIX_JOB_STATE_PREPPED                   1

/* ---- retired attribute keys: progress engine, topology, debugger ---- */
#define PMIX_EVENT_BASE                          "pmix.evbase"                     /* struct event_base * */
#define PMIX_TOPOLOGY                            "pmix.topo"                       /* hwloc_topology_t */
#define PMIX_DEBUG_JOB                           "pmix.dbg.job"                    /* char* */
#define PMIX_RECONNECT_SERVER                    "pmix.cnct.recon"                 /* bool */

/* ---- retired attribute keys: rendezvous sockets ---- */
#define PMIX_USOCK_DISABLE                       "pmix.usock.disable"              /* bool */
#define PMIX_SOCKET_MODE                         "pmix.sockmode"                   /* uint32_t */
#define PMIX_SINGLE_LISTENER                     "pmix.sing.listnr"                /* bool */

/* ---- retired attribute keys: network allocation, topology sharing,
 *      internal storage and mapping ---- */
#define PMIX_ALLOC_NETWORK                       "pmix.alloc.net"                  /* pmix_data_array_t* */
#define PMIX_ALLOC_NETWORK_ID                    "pmix.alloc.netid"                /* char* */
#define PMIX_ALLOC_NETWORK_QOS                   "pmix.alloc.netqos"               /* char* */
#define PMIX_ALLOC_NETWORK_TYPE                  "pmix.alloc.nettype"              /* char* */
#define PMIX_ALLOC_NETWORK_PLANE                 "pmix.alloc.netplane"             /* char* */
#define PMIX_ALLOC_NETWORK_ENDPTS                "pmix.alloc.endpts"               /* size_t */
#define PMIX_ALLOC_NETWORK_ENDPTS_NODE           "pmix.alloc.endpts.nd"            /* size_t */
#define PMIX_ALLOC_NETWORK_SEC_KEY               "pmix.alloc.nsec"                 /* pmix_byte_object_t */
#define PMIX_PROC_DATA                           "pmix.pdata"                      /* pmix_data_array_t* */
#define PMIX_LOCALITY                            "pmix.loc"                        /* uint16_t */
#define PMIX_LOCAL_TOPO                          "pmix.ltopo"                      /* char* */
#define PMIX_TOPOLOGY_XML                        "pmix.topo.xml"                   /* char* */
#define PMIX_TOPOLOGY_FILE                       "pmix.topo.file"                  /* char* */
#define PMIX_TOPOLOGY_SIGNATURE                  "pmix.toposig"                    /* char* */
#define PMIX_HWLOC_SHMEM_ADDR                    "pmix.hwlocaddr"                  /* size_t */
#define PMIX_HWLOC_SHMEM_SIZE                    "pmix.hwlocsize"                  /* size_t */
#define PMIX_HWLOC_SHMEM_FILE                    "pmix.hwlocfile"                  /* char* */
#define PMIX_HWLOC_XML_V1                        "pmix.hwlocxml1"                  /* char* */
#define PMIX_HWLOC_XML_V2                        "pmix.hwlocxml2"                  /* char* */
#define PMIX_HWLOC_SHARE_TOPO                    "pmix.hwlocsh"                    /* bool */
#define PMIX_HWLOC_HOLE_KIND                     "pmix.hwlocholek"                 /* char* */
#define PMIX_DSTPATH                             "pmix.dstpath"                    /* char* */
#define PMIX_COLLECTIVE_ALGO                     "pmix.calgo"                      /* char* */
#define PMIX_COLLECTIVE_ALGO_REQD                "pmix.calreqd"                    /* bool */
#define PMIX_PROC_BLOB                           "pmix.pblob"                      /* pmix_byte_object_t */
#define PMIX_MAP_BLOB                            "pmix.mblob"                      /* pmix_byte_object_t */
#define PMIX_MAPPER                              "pmix.mapper"                     /* char* */
#define PMIX_NON_PMI                             "pmix.nonpmi"                     /* bool */
#define PMIX_PROC_URI                            "pmix.puri"                       /* char* */
#define PMIX_ARCH                                "pmix.arch"                       /* uint32_t */
#define PMIX_DEBUG_JOB_DIRECTIVES                "pmix.dbg.jdirs"                  /* pmix_data_array_t* */
#define PMIX_DEBUG_APP_DIRECTIVES                "pmix.dbg.adirs"                  /* pmix_data_array_t* */

/* ---- retired attribute keys: event handling and output control ---- */
#define PMIX_EVENT_NO_TERMINATION                "pmix.evnoterm"                   /* bool */
#define PMIX_EVENT_WANT_TERMINATION              "pmix.evterm"                     /* bool */
#define PMIX_TAG_OUTPUT                          "pmix.tagout"                     /* bool */
#define PMIX_TIMESTAMP_OUTPUT                    "pmix.tsout"                      /* bool */
#define PMIX_MERGE_STDERR_STDOUT                 "pmix.mergeerrout"                /* bool */
#define PMIX_OUTPUT_TO_FILE                      "pmix.outfile"                    /* char* */
#define PMIX_OUTPUT_TO_DIRECTORY                 "pmix.outdir"                     /* char* */
#define PMIX_OUTPUT_NOCOPY                       "pmix.nocopy"                     /* bool */

/* ---- retired attribute keys: internal plugin selection, I/O ---- */
#define PMIX_GDS_MODULE                          "pmix.gds.mod"                    /* char* */
#define PMIX_BFROPS_MODULE                       "pmix.bfrops.mod"                 /* char* */
#define PMIX_PNET_SETUP_APP                      "pmix.pnet.setapp"                /* pmix_byte_object_t */
#define PMIX_IOF_STOP                            "pmix.iof.stop"                   /* bool */
#define PMIX_NOTIFY_LAUNCH                       "pmix.note.lnch"                  /* bool */

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

#endif /* PMIx_DEPRECATED_H */
