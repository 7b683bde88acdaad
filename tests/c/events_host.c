/* A PMIx server host exercising events in the server process:
 *   events_host N CLIENT
 * - registers a default handler through a registration callback (as Open
 *   MPI's ext3x_server_init does, waiting for it) and a code handler
 *   without one (the call returns the reference);
 * - PMIx_Notify_event(PMIX_RANGE_PROC_LOCAL) from the host reaches its own
 *   handler, not on the calling thread;
 * - runs N CLIENTs (tests/c/events_client.c): their RM-range event
 *   and their namespace-range event go to the host's notify_event upcall
 *   (with PMIX_EVENT_PROXY), which hands them back to the server as Open
 *   MPI's mpirun does: the clients and the server's handlers hear them.
 * Prints "events host ok" on success. */
/* Every failure ends the host at once. */
#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "events host: ");                                      \
        fprintf(stderr, __VA_ARGS__);                                          \
        fprintf(stderr, "\n");                                                 \
        exit(1);                                                               \
    } while (0)
#define HOST_NAME "events host"
#include "host_common.h"

#define MYCODE (PMIX_EXTERNAL_ERR_BASE - 1)
#define SELFCODE (PMIX_EXTERNAL_ERR_BASE - 6)
#define TORM (PMIX_EXTERNAL_ERR_BASE - 5)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int reg_called, self_seen, rm_seen, ns_seen, up_rm, up_ns, up_proxy, bad;
static size_t default_ref = 999;
static pthread_t main_thread;
static char nspace[PMIX_MAX_NSLEN + 1] = "events-host-job";

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t *results, size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id; (void) info; (void) ninfo; (void) results; (void) nresults;
    if (pthread_equal(pthread_self(), main_thread)) {
        bad = 1;
    }
    pthread_mutex_lock(&mu);
    if (SELFCODE == status) {
        self_seen++;
    } else if (TORM == status && 0 == source->rank && PMIX_CHECK_NSPACE(source->nspace, nspace)) {
        rm_seen++;
    } else if (MYCODE == status && 0 == source->rank) {
        ns_seen++; /* handed back by notify_up: the server's handlers hear it too */
    }
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    if (NULL != cbfunc) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static void reg_cb(pmix_status_t status, size_t ref, void *cbdata)
{
    pthread_mutex_lock(&mu);
    if (PMIX_SUCCESS != status) {
        bad = 3;
    }
    default_ref = ref;
    reg_called = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static pmix_status_t notify_up(pmix_status_t code, const pmix_proc_t *source,
                               pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pthread_mutex_lock(&mu);
    if (TORM == code && PMIX_RANGE_RM == range) {
        up_rm++;
    }
    if (MYCODE == code && PMIX_RANGE_NAMESPACE == range) {
        up_ns++;
    }
    for (size_t i = 0; i < ninfo; i++) {
        if (0 == strcmp(info[i].key, PMIX_EVENT_PROXY)) {
            up_proxy++;
        }
    }
    pthread_mutex_unlock(&mu);
    /* As Open MPI's mpirun: the event comes back to this node's server,
     * which delivers it to its clients (not to the source). */
    if (PMIX_SUCCESS != PMIx_Notify_event(code, source, range, info, ninfo, NULL, NULL)) {
        bad = 2;
    }
    /* done at once: no callback */
    (void) cbfunc; (void) cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

static void wait_for(int *flag, int want)
{
    pthread_mutex_lock(&mu);
    while (*flag < want) {
        pthread_cond_wait(&cv, &mu);
    }
    pthread_mutex_unlock(&mu);
}

static void notified(pmix_status_t status, void *cbdata)
{
    if (PMIX_SUCCESS != status) {
        bad = 4;
    }
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_status_t rc, code = TORM;
    pmix_info_t name;
    char *cargv[2];
    uint32_t n, r;
    pid_t *pids;

    if (argc < 3) {
        fprintf(stderr, "usage: events_host N CLIENT\n");
        return 2;
    }
    main_thread = pthread_self();
    cargv[0] = argv[2];
    cargv[1] = NULL;
    n = (uint32_t) atoi(argv[1]);
    memset(&module, 0, sizeof(module));
    module.notify_event = notify_up;
    if (PMIX_SUCCESS != (rc = PMIx_server_init(&module, NULL, 0))) {
        FAIL("server_init: %d", rc);
    }

    /* As Open MPI: a default handler, waiting for its registration. */
    PMIX_INFO_LOAD(&name, PMIX_EVENT_HDLR_NAME, "HOST-DEFAULT", PMIX_STRING);
    rc = PMIx_Register_event_handler(NULL, 0, &name, 1, handler, reg_cb, NULL);
    if (PMIX_SUCCESS != rc) {
        FAIL("register default: %d", rc);
    }
    wait_for(&reg_called, 1);
    PMIX_INFO_DESTRUCT(&name);
    /* Without a callback the reference comes back. */
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, handler, NULL, NULL);
    if (rc < 0 || (size_t) rc == default_ref) {
        FAIL("register code: %d (default %zu)", rc, default_ref);
    }

    rc = PMIx_Notify_event(SELFCODE, NULL, PMIX_RANGE_PROC_LOCAL, NULL, 0, notified, NULL);
    if (PMIX_SUCCESS != rc) {
        FAIL("notify self: %d", rc);
    }
    wait_for(&self_seen, 1);

    snprintf(nspace, sizeof(nspace), "events-host-%d", (int) getpid());
    /* No callback: the library must not need one. */
    if (PMIX_SUCCESS != (rc = host_register_nspace(nspace, n, NULL, 0, false))) {
        FAIL("register_nspace: %d", rc);
    }

    pids = calloc(n, sizeof(pid_t));
    for (r = 0; r < n; r++) {
        pids[r] = host_start_client(nspace, r, NULL, argv[2], cargv);
    }
    host_wait_children(pids, n);
    free(pids);

    /* Rank 0 raised TORM with PMIX_RANGE_RM and MYCODE twice. */
    wait_for(&rm_seen, 1);
    wait_for(&ns_seen, 2);
    pthread_mutex_lock(&mu);
    if (1 != up_rm || 2 != up_ns || up_proxy != up_rm + up_ns) {
        FAIL("notify_event upcalls: rm %d, namespace %d, proxy %d", up_rm, up_ns, up_proxy);
    }
    pthread_mutex_unlock(&mu);
    if (bad) {
        FAIL("check %d failed", bad);
    }
    if (PMIX_SUCCESS != PMIx_Deregister_event_handler(default_ref, NULL, NULL)) {
        FAIL("deregister");
    }
    if (PMIX_SUCCESS != PMIx_server_finalize()) {
        FAIL("server_finalize");
    }
    printf("events host ok\n");
    return 0;
}
