/*
 * pmix_tool.h - PMIx tool API: debuggers, launchers and monitors that
 * attach to a PMIx server (OpenPMIx 5.0 API on the 4.2 ABI).
 *
 * Part of the pmix-rs project: an independent, ABI-compatible
 * implementation of the OpenPMIx interfaces (5.0 API, 4.2 ABI). A tool may use every
 * client call in pmix.h once initialised.
 */
#ifndef PMIx_TOOL_API_H
#define PMIx_TOOL_API_H

#include <pmix.h>
#include <pmix_server.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

/* ---- lifecycle and server connections ---- */

PMIX_EXPORT pmix_status_t PMIx_tool_init(pmix_proc_t *proc,
                                         pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_tool_finalize(void);
/* Open an additional server connection; ids of both ends returned. */
PMIX_EXPORT pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t *myproc, pmix_proc_t *server,
                                                     pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_tool_disconnect(const pmix_proc_t *server);
/* Currently connected servers; *servers is allocated. */
PMIX_EXPORT pmix_status_t PMIx_tool_get_servers(pmix_proc_t *servers[], size_t *nservers);
/* Choose which connected server subsequent requests go to. */
PMIX_EXPORT pmix_status_t PMIx_tool_set_server(const pmix_proc_t *server,
                                               pmix_info_t info[], size_t ninfo);

/* ---- I/O forwarding ---- */

/* Receives forwarded output; payload and info belong to the library. */
typedef void (*pmix_iof_cbfunc_t)(size_t iofhdlr, pmix_iof_channel_t channel,
                                  pmix_proc_t *source, pmix_byte_object_t *payload,
                                  pmix_info_t info[], size_t ninfo);

PMIX_EXPORT pmix_status_t PMIx_IOF_pull(const pmix_proc_t procs[], size_t nprocs,
                                        const pmix_info_t directives[], size_t ndirs,
                                        pmix_iof_channel_t channel, pmix_iof_cbfunc_t cbfunc,
                                        pmix_hdlr_reg_cbfunc_t regcbfunc, void *regcbdata);
PMIX_EXPORT pmix_status_t PMIx_IOF_deregister(size_t iofhdlr,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_op_cbfunc_t cbfunc, void *cbdata);
/* Send bo to the stdin of targets (bo == NULL signals end of input). */
PMIX_EXPORT pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t ntargets,
                                        pmix_byte_object_t *bo,
                                        const pmix_info_t directives[], size_t ndirs,
                                        pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ---- OpenPMIx 5.0 ---- */

/* Whether the tool is connected to a server now. */
PMIX_EXPORT bool PMIx_tool_is_connected(void);
/* Give a tool that acts as a server for its own tools (a launcher's
 * front end) the host functions its tools' requests go to. */
PMIX_EXPORT pmix_status_t PMIx_tool_set_server_module(pmix_server_module_t *module);

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

#endif /* PMIx_TOOL_API_H */
