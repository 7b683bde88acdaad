/* Tool initialization modes on the C API (tests/tools.rs):
 *
 *   tool_modes optional PID       PMIX_TOOL_CONNECT_OPTIONAL naming a pid
 *                                 no server has: initialized unconnected
 *                                 (identity tool.*, no servers, a query
 *                                 fails with PMIX_ERR_UNREACH).
 *   tool_modes late SRVNS JOBNS   PMIX_TOOL_DO_NOT_CONNECT as "latetool":
 *                                 no servers; PMIx_tool_set_server with
 *                                 PMIX_WAIT_FOR_CONNECTION times out on a
 *                                 server that does not exist, then attaches
 *                                 to server SRVNS (rank 0) by its namespace
 *                                 and reads job JOBNS through it.
 *   tool_modes uri URI STATUS     PMIx_tool_init by PMIX_SERVER_URI must
 *                                 return STATUS (a number: 0, or the
 *                                 refusal expected).
 *   tool_modes launcher           PMIX_LAUNCHER: connects to the server
 *                                 PMIX_LAUNCHER_RNDZ_URI names, prints
 *                                 "launcher up NSPACE" and waits for a line
 *                                 on stdin (other tools attach meanwhile).
 *   tool_modes orphan PID         attaches to the server of pid PID,
 *                                 prints "attached", waits for a line on
 *                                 stdin (the server is killed meanwhile),
 *                                 sees its queries fail (bounded), then
 *                                 PMIx_tool_finalize must succeed.
 *   tool_modes hosted             the same launcher, which then hands its
 *                                 tools' upcalls to a module of its own
 *                                 (PMIx_tool_set_server_module): every
 *                                 query is answered "answered-by" =
 *                                 "the launcher's module" plus the first
 *                                 key asked, and counted (built against
 *                                 OpenPMIx 5.0-level headers only).
 *
 * Rendezvous files in $TMPDIR. Prints "tool ok" at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix_server.h>
#include <pmix_tool.h>

#include "query_one.h"

#define TOOL_NAME "tool_modes"
#include "tool_common.h"

static size_t nservers(void)
{
    pmix_proc_t *servers = NULL;
    size_t n = 0;
    if (PMIX_SUCCESS != PMIx_tool_get_servers(&servers, &n)) {
        return (size_t) -1;
    }
    PMIX_PROC_FREE(servers, n);
    return n;
}

static int optional(pid_t pid)
{
    pmix_proc_t me;
    pmix_info_t info[2];
    bool yes = true;
    char *ns = NULL;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    PMIX_INFO_LOAD(&info[1], PMIX_TOOL_CONNECT_OPTIONAL, &yes, PMIX_BOOL);
    if (PMIX_SUCCESS != (rc = PMIx_tool_init(&me, info, 2))) {
        FAIL("optional init: %s", PMIx_Error_string(rc));
    }
    if (0 != strncmp(me.nspace, "tool.", 5) || 0 != me.rank) {
        FAIL("optional identity %s.%u", me.nspace, me.rank);
    }
    if (0 != nservers()) {
        FAIL("an unconnected tool lists servers");
    }
    if (PMIX_ERR_UNREACH != (rc = query_string(PMIX_QUERY_NAMESPACES, &ns))) {
        FAIL("query without a server: %s", PMIx_Error_string(rc));
    }
    return 0;
}

static int orphan(pid_t pid)
{
    pmix_proc_t me;
    pmix_info_t info;
    char line[64], *ns = NULL;
    struct timespec tick = {0, 10 * 1000 * 1000};
    pmix_status_t rc;
    int tries;

    PMIX_INFO_LOAD(&info, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    if (PMIX_SUCCESS != (rc = PMIx_tool_init(&me, &info, 1))) {
        FAIL("orphan init: %s", PMIx_Error_string(rc));
    }
    printf("attached\n");
    fflush(stdout);
    if (NULL == fgets(line, sizeof line, stdin)) {
        FAIL("no line on stdin");
    }
    /* The server is gone: a query fails once the library has seen it go. */
    for (tries = 0; tries < 1000; tries++) {
        rc = query_string(PMIX_QUERY_NAMESPACES, &ns);
        free(ns);
        ns = NULL;
        if (PMIX_SUCCESS != rc) {
            break;
        }
        nanosleep(&tick, NULL);
    }
    if (PMIX_SUCCESS == rc) {
        FAIL("queries still answered 10 s after the server's end");
    }
    return 0;
}

static int late(const char *srvns, const char *jobns)
{
    pmix_proc_t me, srv, nosuch;
    pmix_info_t info[2], wait[2];
    bool yes = true;
    int secs = 1;
    char *ns = NULL;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info[0], PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_TOOL_NSPACE, "latetool", PMIX_STRING);
    if (PMIX_SUCCESS != (rc = PMIx_tool_init(&me, info, 2))) {
        FAIL("do-not-connect init: %s", PMIx_Error_string(rc));
    }
    if (0 != strcmp(me.nspace, "latetool") || 0 != me.rank || 0 != nservers()) {
        FAIL("unconnected identity %s.%u", me.nspace, me.rank);
    }
    PMIX_LOAD_PROCID(&nosuch, "nosuch-server", 0);
    if (PMIX_ERR_NOT_FOUND != (rc = PMIx_tool_set_server(&nosuch, NULL, 0))) {
        FAIL("set_server without waiting: %s", PMIx_Error_string(rc));
    }
    PMIX_INFO_LOAD(&wait[0], PMIX_WAIT_FOR_CONNECTION, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&wait[1], PMIX_TIMEOUT, &secs, PMIX_INT);
    if (PMIX_ERR_TIMEOUT != (rc = PMIx_tool_set_server(&nosuch, wait, 2))) {
        FAIL("waiting for a server that never comes: %s", PMIx_Error_string(rc));
    }
    secs = 20;
    PMIX_INFO_LOAD(&wait[1], PMIX_TIMEOUT, &secs, PMIX_INT);
    PMIX_LOAD_PROCID(&srv, srvns, 0);
    if (PMIX_SUCCESS != (rc = PMIx_tool_set_server(&srv, wait, 2))) {
        FAIL("set_server %s with waiting: %s", srvns, PMIx_Error_string(rc));
    }
    if (1 != nservers()) {
        FAIL("servers after set_server");
    }
    if (PMIX_SUCCESS != (rc = query_string(PMIX_QUERY_NAMESPACES, &ns)) || NULL == ns
        || NULL == strstr(ns, jobns)) {
        FAIL("namespaces through %s: %s (%s)", srvns, PMIx_Error_string(rc), ns ? ns : "-");
    }
    free(ns);
    return 0;
}

static int by_uri(const char *uri, int expect)
{
    pmix_proc_t me;
    pmix_info_t info;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info, PMIX_SERVER_URI, uri, PMIX_STRING);
    rc = PMIx_tool_init(&me, &info, 1);
    if (rc != expect) {
        FAIL("tool_init by URI as uid %d: %s, expected %s", (int) getuid(),
             PMIx_Error_string(rc), PMIx_Error_string(expect));
    }
    if (PMIX_SUCCESS != rc) {
        printf("tool ok\n");
        exit(0);
    }
    return 0;
}

/* The hosted launcher's module (OpenPMIx 5.0's function: not built
 * against 4.2.2's headers): answers every query itself. */
static int queries_answered = 0;

#if PMIX_NUMERIC_VERSION >= 0x00050000

static pmix_status_t module_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                                  pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    pmix_info_t *answer;
    if (1 > nqueries || NULL == queries[0].keys || NULL == queries[0].keys[0]) {
        return PMIX_ERR_BAD_PARAM;
    }
    PMIX_INFO_CREATE(answer, 2);
    PMIX_INFO_LOAD(&answer[0], "answered-by", "the launcher's module", PMIX_STRING);
    PMIX_INFO_LOAD(&answer[1], "asked", queries[0].keys[0], PMIX_STRING);
    queries_answered++;
    /* The library copies the answer before the callback returns. */
    cbfunc(PMIX_SUCCESS, answer, 2, cbdata, NULL, NULL);
    PMIX_INFO_FREE(answer, 2);
    return PMIX_SUCCESS;
}

#endif

static int launcher(bool hosted)
{
    pmix_proc_t me;
    pmix_info_t info;
    bool yes = true;
    char line[64];
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info, PMIX_LAUNCHER, &yes, PMIX_BOOL);
    if (PMIX_SUCCESS != (rc = PMIx_tool_init(&me, &info, 1))) {
        FAIL("launcher init: %s", PMIx_Error_string(rc));
    }
    if (1 != nservers()) {
        FAIL("the launcher did not connect to the server it was given");
    }
    if (hosted) {
#if PMIX_NUMERIC_VERSION >= 0x00050000
        static pmix_server_module_t module;
        module.query = module_query;
        if (PMIX_SUCCESS != (rc = PMIx_tool_set_server_module(&module))) {
            FAIL("PMIx_tool_set_server_module: %s", PMIx_Error_string(rc));
        }
#else
        FAIL("hosted: built against headers older than OpenPMIx 5.0");
#endif
    }
    printf("launcher up %s\n", me.nspace);
    fflush(stdout);
    if (NULL == fgets(line, sizeof line, stdin)) {
        FAIL("no line on stdin");
    }
    if (hosted) {
        printf("module answered %d queries\n", queries_answered);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int r;

    alarm(45);
    if (argc >= 3 && 0 == strcmp(argv[1], "optional")) {
        r = optional((pid_t) atoi(argv[2]));
    } else if (argc >= 4 && 0 == strcmp(argv[1], "late")) {
        r = late(argv[2], argv[3]);
    } else if (argc >= 4 && 0 == strcmp(argv[1], "uri")) {
        r = by_uri(argv[2], atoi(argv[3]));
    } else if (argc >= 2 && 0 == strcmp(argv[1], "launcher")) {
        r = launcher(false);
    } else if (argc >= 3 && 0 == strcmp(argv[1], "orphan")) {
        r = orphan((pid_t) atoi(argv[2]));
    } else if (argc >= 2 && 0 == strcmp(argv[1], "hosted")) {
        r = launcher(true);
    } else {
        fprintf(stderr, "usage: tool_modes optional PID | late SRVNS JOBNS | uri URI STATUS | launcher | hosted | orphan PID\n");
        return 2;
    }
    if (0 != r) {
        return r;
    }
    return tool_end();
}
