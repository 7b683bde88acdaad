/* A job rank that connects with a tool (tests/tools.rs): registers a
 * handler for TOOLCODE, prints "ready NSPACE", waits for the tool's event
 * (whose source is the tool), then PMIx_Connect over itself and the tool,
 * PMIx_Disconnect, and finalizes. Prints "peer ok". The launcher's
 * timeout bounds every wait. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <pmix.h>

#define TOOLCODE (PMIX_EXTERNAL_ERR_BASE - 9)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int seen = 0;
static pmix_proc_t tool;

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id; (void) status; (void) info; (void) ninfo; (void) results; (void) nresults;
    pthread_mutex_lock(&mu);
    tool = *source;
    seen = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

int main(void)
{
    pmix_proc_t me, procs[2];
    pmix_status_t rc, code = TOOLCODE;

    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        fprintf(stderr, "tool_peer: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, handler, NULL, NULL);
    if (rc < 0) {
        fprintf(stderr, "tool_peer: register: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("ready %s\n", me.nspace);
    fflush(stdout);
    pthread_mutex_lock(&mu);
    while (!seen) {
        pthread_cond_wait(&cv, &mu);
    }
    pthread_mutex_unlock(&mu);
    procs[0] = me;
    procs[1] = tool;
    if (PMIX_SUCCESS != (rc = PMIx_Connect(procs, 2, NULL, 0))) {
        fprintf(stderr, "tool_peer: connect with %s: %s\n", tool.nspace, PMIx_Error_string(rc));
        return 1;
    }
    printf("connected %s\n", tool.nspace);
    fflush(stdout);
    if (PMIX_SUCCESS != (rc = PMIx_Disconnect(procs, 2, NULL, 0))) {
        fprintf(stderr, "tool_peer: disconnect: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    /* The job (and its server) lasts until the test, once the tool has
     * finalized, closes our stdin: else the tool's finalize could find
     * the server gone. */
    while (EOF != getchar()) {
    }
    if (PMIX_SUCCESS != (rc = PMIx_Finalize(NULL, 0))) {
        fprintf(stderr, "tool_peer: finalize: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("peer ok\n");
    return 0;
}
