/* A PMIx server host with tool support and a `tool_connected` upcall
 * (tests/tools.rs): tool_host TOOL
 * - PMIx_server_init with PMIX_SERVER_TOOL_SUPPORT (rendezvous files in
 *   $TMPDIR or /tmp);
 * - its tool_connected names the tool "hosttool" rank 5 (answering from
 *   a thread of its own) and checks the tool's directives arrived (or,
 *   from a stock OpenPMIx tool, what it says of itself);
 * - runs TOOL (tests/c/tool_client.c) with this process's pid, expecting
 *   that identity; waits for it; checks the upcall ran once.
 * Prints "tool host ok". Every wait is bounded. */
#define HOST_NAME "tool host"
#include "host_common.h"

#include <pthread.h>

static pthread_mutex_t tmu = PTHREAD_MUTEX_INITIALIZER;
static int upcalls = 0;

struct answer {
    pmix_tool_connection_cbfunc_t cbfunc;
    void *cbdata;
};

static void *answer_later(void *arg)
{
    struct answer *a = arg;
    pmix_proc_t tool;
    PMIX_LOAD_PROCID(&tool, "hosttool", 5);
    a->cbfunc(PMIX_SUCCESS, &tool, a->cbdata);
    free(a);
    return NULL;
}

static void tool_connected(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                           void *cbdata)
{
    bool pid_seen = false;
    for (size_t i = 0; i < ninfo; i++) {
        /* Ours passes the tool's directives; OpenPMIx's library (a stock
         * tool at the door) passes what it says of itself: its pid and
         * command line, or (seen in some runs) its version. */
        if (PMIX_CHECK_KEY(&info[i], PMIX_SERVER_PIDINFO) ||
            PMIX_CHECK_KEY(&info[i], PMIX_PROC_PID) ||
            PMIX_CHECK_KEY(&info[i], PMIX_VERSION_INFO)) {
            pid_seen = true;
        }
    }
    if (!pid_seen) {
        for (size_t i = 0; i < ninfo; i++) {
            fprintf(stderr, "tool host: the tool sent %s\n", info[i].key);
        }
        FAIL("tool_connected: the tool's directives did not arrive");
    }
    pthread_mutex_lock(&tmu);
    upcalls++;
    pthread_mutex_unlock(&tmu);
    struct answer *a = malloc(sizeof *a);
    if (NULL == a) {
        cbfunc(PMIX_ERR_NOMEM, NULL, cbdata);
        return;
    }
    a->cbfunc = cbfunc;
    a->cbdata = cbdata;
    if (PMIX_SUCCESS != host_later(answer_later, a, free)) {
        cbfunc(PMIX_ERR_OUT_OF_RESOURCE, NULL, cbdata);
    }
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_status_t rc;
    char pidstr[32], *targv[4];
    char expect[] = "TOOL_EXPECT_NSPACE=hosttool";
    char *extra[] = {expect, NULL};

    if (argc < 2) {
        fprintf(stderr, "usage: tool_host TOOL\n");
        return 2;
    }
    alarm(60);
    memset(&module, 0, sizeof(module));
    module.tool_connected = tool_connected;
    if (PMIX_SUCCESS != host_init_for_tools(&module)) {
        return host_exit_code();
    }
    snprintf(pidstr, sizeof(pidstr), "%d", (int) getpid());
    targv[0] = argv[1];
    targv[1] = pidstr;
    targv[2] = "-";
    targv[3] = NULL;
    pid_t pid = host_fork_exec(NULL, extra, NULL, argv[1], targv);
    host_wait_children(&pid, 1);
    pthread_mutex_lock(&tmu);
    if (1 != upcalls) {
        FAIL("tool_connected ran %d times", upcalls);
    }
    pthread_mutex_unlock(&tmu);
    if (PMIX_SUCCESS != (rc = PMIx_server_finalize())) {
        FAIL("server_finalize: %s", PMIx_Error_string(rc));
    }
    if (0 == failures) {
        printf("tool host ok\n");
    }
    return host_exit_code();
}
