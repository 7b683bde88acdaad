/* A PMIx server host defining and deleting process sets (tests/psets.rs):
 *   pset_host CLIENT
 * - registers a job of 3 ranks whose application carries PMIX_PSET_NAME
 *   "app-set" (as PRRTE registers --pset): every rank is a member;
 * - runs 3 CLIENTs (tests/c/pset_client.c); once each said READY (an
 *   event to the local range), defines "pset-a" = ranks 0 and 2; checks the
 *   refusals (NULL name, unknown set); once each said ACK, deletes it;
 * - its own default handler must not see the (non-default) pset events,
 *   its code handler must.
 * Every wait is bounded. Prints "pset host ok". */
#define HOST_NAME "pset host"
#include "host_common.h"

#include "pset_common.h"

#define READY (PMIX_EXTERNAL_ERR_BASE - 21)
#define ACK (PMIX_EXTERNAL_ERR_BASE - 22)
#define N 3

static int ready, acked, own_define, own_delete;

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id; (void) source; (void) info; (void) ninfo; (void) results; (void) nresults;
    pthread_mutex_lock(&mu);
    if (READY == status) {
        ready++;
    } else if (ACK == status) {
        acked++;
    } else if (PMIX_PROCESS_SET_DEFINE == status) {
        own_define++;
    } else if (PMIX_PROCESS_SET_DELETE == status) {
        own_delete++;
    }
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    if (NULL != cbfunc) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

/* Waits (60 s at most) until *count reaches want; false on timeout. */
static int wait_count(int *count, int want)
{
    struct timespec ts;
    int rc = 0, ok;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 60;
    pthread_mutex_lock(&mu);
    while (*count < want && 0 == rc) {
        rc = pthread_cond_timedwait(&cv, &mu, &ts);
    }
    ok = *count >= want;
    pthread_mutex_unlock(&mu);
    return ok;
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_status_t rc, codes[4] = {READY, ACK, PMIX_PROCESS_SET_DEFINE, PMIX_PROCESS_SET_DELETE};
    char nspace[PMIX_MAX_NSLEN + 1];
    char *cargv[2];
    pid_t pids[N];
    pmix_proc_t members[2];
    pmix_info_t app, *ainfo;
    pmix_data_array_t darray;
    uint32_t appnum = 0;
    char unknown[] = "nope", setname[] = "pset-a";

    if (argc < 2) {
        fprintf(stderr, "usage: pset_host CLIENT\n");
        return 2;
    }
    cargv[0] = argv[1];
    cargv[1] = NULL;
    memset(&module, 0, sizeof(module));
    if (PMIX_ERR_INIT != PMIx_server_define_process_set(NULL, 0, setname)) {
        FAIL("define before server_init is not PMIX_ERR_INIT");
    }
    if (PMIX_SUCCESS != (rc = PMIx_server_init(&module, NULL, 0))) {
        FAIL("server_init: %s", PMIx_Error_string(rc));
        return host_exit_code();
    }
    const char *err = register_pset_handlers(codes, 4, handler);
    if (NULL != err) {
        FAIL("register handlers: %s", err);
    }

    /* The application's info: PMIX_APPNUM 0, PMIX_PSET_NAME "app-set". */
    PMIX_INFO_CREATE(ainfo, 2);
    PMIX_INFO_LOAD(&ainfo[0], PMIX_APPNUM, &appnum, PMIX_UINT32);
    PMIX_INFO_LOAD(&ainfo[1], PMIX_PSET_NAME, "app-set", PMIX_STRING);
    darray.type = PMIX_INFO;
    darray.size = 2;
    darray.array = ainfo;
    PMIX_INFO_LOAD(&app, PMIX_APP_INFO_ARRAY, &darray, PMIX_DATA_ARRAY);
    PMIX_INFO_FREE(ainfo, 2);

    snprintf(nspace, sizeof(nspace), "pset-host-%d", (int) getpid());
    if (PMIX_SUCCESS != (rc = host_register_nspace(nspace, N, &app, 1, true))) {
        FAIL("register_nspace: %s", PMIx_Error_string(rc));
        return host_exit_code();
    }
    PMIX_INFO_DESTRUCT(&app);
    for (uint32_t r = 0; r < N; r++) {
        pids[r] = host_start_client(nspace, r, NULL, argv[1], cargv);
    }

    if (!wait_count(&ready, N)) {
        FAIL("only %d clients ready", ready);
    }
    PMIX_LOAD_PROCID(&members[0], nspace, 0);
    PMIX_LOAD_PROCID(&members[1], nspace, 2);
    if (PMIX_SUCCESS != (rc = PMIx_server_define_process_set(members, 2, setname))) {
        FAIL("define: %s", PMIx_Error_string(rc));
    }
    {
        /* The server's own get of a member's sets reads its table. */
        pmix_value_t *names = NULL;
        rc = PMIx_Get(&members[1], PMIX_PSET_NAMES, NULL, 0, &names);
        if (PMIX_SUCCESS != rc || NULL == names || PMIX_STRING != names->type ||
            NULL == strstr(names->data.string, setname)) {
            FAIL("server's own get of PMIX_PSET_NAMES: %s", PMIx_Error_string(rc));
        }
        if (NULL != names) {
            PMIX_VALUE_RELEASE(names);
        }
    }
    if (PMIX_ERR_BAD_PARAM != (rc = PMIx_server_define_process_set(members, 2, NULL))) {
        FAIL("define with a NULL name: %s", PMIx_Error_string(rc));
    }
    if (PMIX_ERR_BAD_PARAM != (rc = PMIx_server_delete_process_set(NULL))) {
        FAIL("delete with a NULL name: %s", PMIx_Error_string(rc));
    }
    if (PMIX_ERR_NOT_FOUND != (rc = PMIx_server_delete_process_set(unknown))) {
        FAIL("delete of an unknown set: %s", PMIx_Error_string(rc));
    }
    if (!wait_count(&acked, N)) {
        FAIL("only %d clients acknowledged", acked);
    }
    if (PMIX_SUCCESS != (rc = PMIx_server_delete_process_set(setname))) {
        FAIL("delete: %s", PMIx_Error_string(rc));
    }
    host_wait_children(pids, N);
    if (!wait_count(&own_define, 1) || !wait_count(&own_delete, 1)) {
        FAIL("the host's handler heard %d defines, %d deletes", own_define, own_delete);
    }
    pthread_mutex_lock(&mu);
    if (default_saw_pset) {
        FAIL("the host's default handler saw %d process-set events", default_saw_pset);
    }
    pthread_mutex_unlock(&mu);
    host_teardown(nspace, N);
    if (0 == failures) {
        printf("pset host ok\n");
    }
    return host_exit_code();
}
