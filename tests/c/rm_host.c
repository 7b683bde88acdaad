/* A single-node PMIx host whose module answers the resource-manager
 * upcalls: query (test.* keys, answered from another thread with a
 * release_fn), log (prints what it is asked to log), job_control, monitor,
 * allocate, get_credential and validate_credential. Forks one client
 * (tests/c/rm_client.c in "host" mode), waits for it and checks its exit
 * code and which upcalls fired.
 *
 * usage: rm_host CLIENT [nolog|succeeded]
 * With "nolog" the module has no log function: the server itself logs.
 * With "succeeded" every upcall the client's calls reach (spawn, publish,
 * lookup, unpublish, query, job_control, allocate, get_credential,
 * validate_credential) returns PMIX_OPERATION_SUCCEEDED without calling
 * back, and monitor calls back with a result and then returns an error
 * (the callback's answer counts); the client runs in "succeeded" mode.
 * Exits 0 on success; prints what failed to stderr. Every wait is bounded
 * (callbacks: 60 s; the child: the caller's watchdog). */
#define HOST_NAME "rm host"
#include "host_common.h"
#include "query_one.h"

static const char *nspace = "rm-host-job";
static atomic_int n_queries, n_logs, n_controls, n_monitors, n_allocs, n_creds, n_validations;

static pmix_status_t connected2(const pmix_proc_t *proc, void *server_object, pmix_info_t info[],
                                size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void) proc, (void) server_object, (void) info, (void) ninfo, (void) cbfunc, (void) cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t finalized(const pmix_proc_t *proc, void *server_object,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void) proc, (void) server_object, (void) cbfunc, (void) cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

/* ---- query: answered from a thread of the host ---- */
struct answer {
    pmix_info_t *info;
    size_t ninfo;
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
};

static void release_answer(void *cbdata)
{
    struct answer *a = cbdata;
    if (a->info) {
        PMIX_INFO_FREE(a->info, a->ninfo);
    }
    free(a);
}

static void *answer_thread(void *arg)
{
    struct answer *a = arg;
    a->cbfunc(a->ninfo ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND, a->info, a->ninfo, a->cbdata,
              release_answer, a);
    return NULL;
}

static pmix_status_t query_fn(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                              pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    struct answer *a = calloc(1, sizeof(*a));
    size_t n, k, found = 0;

    atomic_fetch_add(&n_queries, 1);
    if (0 != strcmp(proct->nspace, nspace)) {
        FAIL("query from %s", proct->nspace);
    }
    for (n = 0; n < nqueries; n++) {
        for (k = 0; queries[n].keys[k]; k++) {
            printf("host query: %s\n", queries[n].keys[k]);
            if (0 == strncmp(queries[n].keys[k], "test.", 5)) {
                found++;
            }
        }
    }
    fflush(stdout);
    if (found) {
        PMIX_INFO_CREATE(a->info, found);
        a->ninfo = 0;
        for (n = 0; n < nqueries; n++) {
            for (k = 0; queries[n].keys[k]; k++) {
                if (0 == strncmp(queries[n].keys[k], "test.", 5)) {
                    PMIX_INFO_LOAD(&a->info[a->ninfo], queries[n].keys[k], "host answer",
                                   PMIX_STRING);
                    a->ninfo++;
                }
            }
        }
    }
    a->cbfunc = cbfunc;
    a->cbdata = cbdata;
    return host_later(answer_thread, a, release_answer);
}

static void log_fn(const pmix_proc_t *client, const pmix_info_t data[], size_t ndata,
                   const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
                   void *cbdata)
{
    size_t n;
    int have_source = 0;
    atomic_fetch_add(&n_logs, 1);
    for (n = 0; n < ndirs; n++) {
        if (PMIX_CHECK_KEY(&directives[n], PMIX_LOG_SOURCE) && PMIX_PROC == directives[n].value.type
            && directives[n].value.data.proc->rank == client->rank) {
            have_source = 1;
        }
    }
    if (!have_source) {
        FAIL("log without PMIX_LOG_SOURCE");
    }
    for (n = 0; n < ndata; n++) {
        if (PMIX_STRING == data[n].value.type) {
            printf("host logged: %s=%s\n", data[n].key, data[n].value.data.string);
        }
    }
    fflush(stdout);
    cbfunc(PMIX_SUCCESS, cbdata);
}

/* The other upcalls answer at once with one info naming what they did. */
static void answer_one(const char *key, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    struct answer *a = calloc(1, sizeof(*a));
    bool t = true;
    PMIX_INFO_CREATE(a->info, 1);
    a->ninfo = 1;
    PMIX_INFO_LOAD(&a->info[0], key, &t, PMIX_BOOL);
    cbfunc(PMIX_SUCCESS, a->info, 1, cbdata, release_answer, a);
}

static pmix_status_t job_control_fn(const pmix_proc_t *requestor, const pmix_proc_t targets[],
                                    size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                    pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    atomic_fetch_add(&n_controls, 1);
    if (1 != ntargets || PMIX_RANK_WILDCARD != targets[0].rank || 1 != ndirs
        || !PMIX_CHECK_KEY(&directives[0], PMIX_JOB_CTRL_TERMINATE)) {
        FAIL("job control arguments");
        return PMIX_ERR_BAD_PARAM;
    }
    answer_one("test.controlled", cbfunc, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t monitor_fn(const pmix_proc_t *requestor, const pmix_info_t *monitor,
                                pmix_status_t error, const pmix_info_t directives[], size_t ndirs,
                                pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void) requestor, (void) directives, (void) ndirs;
    atomic_fetch_add(&n_monitors, 1);
    if (!PMIX_CHECK_KEY(monitor, PMIX_MONITOR_HEARTBEAT) || PMIX_MONITOR_HEARTBEAT_ALERT != error) {
        FAIL("monitor arguments");
        return PMIX_ERR_BAD_PARAM;
    }
    answer_one("test.monitored", cbfunc, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t allocate_fn(const pmix_proc_t *client, pmix_alloc_directive_t directive,
                                 const pmix_info_t data[], size_t ndata,
                                 pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void) client, (void) data, (void) ndata;
    atomic_fetch_add(&n_allocs, 1);
    if (PMIX_ALLOC_EXTEND != directive) {
        FAIL("allocation directive %u", (unsigned) directive);
        return PMIX_ERR_BAD_PARAM;
    }
    answer_one("test.allocated", cbfunc, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t get_cred_fn(const pmix_proc_t *proc, const pmix_info_t directives[],
                                 size_t ndirs, pmix_credential_cbfunc_t cbfunc, void *cbdata)
{
    (void) proc, (void) directives, (void) ndirs;
    pmix_byte_object_t bo;
    atomic_fetch_add(&n_creds, 1);
    bo.bytes = "credential!";
    bo.size = 11;
    cbfunc(PMIX_SUCCESS, &bo, NULL, 0, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t validate_fn(const pmix_proc_t *proc, const pmix_byte_object_t *cred,
                                 const pmix_info_t directives[], size_t ndirs,
                                 pmix_validation_cbfunc_t cbfunc, void *cbdata)
{
    (void) proc, (void) directives, (void) ndirs;
    atomic_fetch_add(&n_validations, 1);
    if (11 == cred->size && 0 == memcmp(cred->bytes, "credential!", 11)) {
        cbfunc(PMIX_SUCCESS, NULL, 0, cbdata);
    } else {
        cbfunc(PMIX_ERR_INVALID_CRED, NULL, 0, cbdata);
    }
    return PMIX_SUCCESS;
}

/* ---- "succeeded" mode: every upcall done at once ---- */
static atomic_int n_succeeded;

static pmix_status_t succ_spawn(const pmix_proc_t *proc, const pmix_info_t job_info[],
                                size_t ninfo, const pmix_app_t apps[], size_t napps,
                                pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
    (void) proc, (void) job_info, (void) ninfo, (void) apps, (void) napps, (void) cbfunc,
    atomic_fetch_add(&n_succeeded, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t succ_publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void) proc, (void) info, (void) ninfo, (void) cbfunc, (void) cbdata;
    atomic_fetch_add(&n_succeeded, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t succ_lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                                 size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    (void) proc, (void) keys, (void) info, (void) ninfo, (void) cbfunc, (void) cbdata;
    atomic_fetch_add(&n_succeeded, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t succ_unpublish(const pmix_proc_t *proc, char **keys,
                                    const pmix_info_t info[], size_t ninfo,
                                    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void) proc, (void) keys, (void) info, (void) ninfo, (void) cbfunc, (void) cbdata;
    atomic_fetch_add(&n_succeeded, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t succ_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                                pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void) proct, (void) queries, (void) nqueries, (void) cbfunc, (void) cbdata;
    atomic_fetch_add(&n_succeeded, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t succ_job_control(const pmix_proc_t *requestor, const pmix_proc_t targets[],
                                      size_t ntargets, const pmix_info_t directives[],
                                      size_t ndirs, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void) requestor, (void) targets, (void) ntargets, (void) directives, (void) ndirs,
        (void) cbfunc, (void) cbdata;
    atomic_fetch_add(&n_succeeded, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t succ_allocate(const pmix_proc_t *client, pmix_alloc_directive_t directive,
                                   const pmix_info_t data[], size_t ndata,
                                   pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void) client, (void) directive, (void) data, (void) ndata, (void) cbfunc, (void) cbdata;
    atomic_fetch_add(&n_succeeded, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t succ_get_cred(const pmix_proc_t *proc, const pmix_info_t directives[],
                                   size_t ndirs, pmix_credential_cbfunc_t cbfunc, void *cbdata)
{
    (void) proc, (void) directives, (void) ndirs, (void) cbfunc, (void) cbdata;
    atomic_fetch_add(&n_succeeded, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t succ_validate(const pmix_proc_t *proc, const pmix_byte_object_t *cred,
                                   const pmix_info_t directives[], size_t ndirs,
                                   pmix_validation_cbfunc_t cbfunc, void *cbdata)
{
    (void) proc, (void) cred, (void) directives, (void) ndirs, (void) cbfunc, (void) cbdata;
    atomic_fetch_add(&n_succeeded, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

/* Calls back, then returns an error anyway: the callback's answer counts
 * (and the library takes its operation back once). */
static pmix_status_t succ_monitor(const pmix_proc_t *requestor, const pmix_info_t *monitor,
                                  pmix_status_t error, const pmix_info_t directives[],
                                  size_t ndirs, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void) requestor, (void) monitor, (void) error, (void) directives, (void) ndirs;
    atomic_fetch_add(&n_monitors, 1);
    answer_one("test.monitored", cbfunc, cbdata);
    return PMIX_ERROR;
}

/* The module of "succeeded" mode. */
static void succeeded_module(pmix_server_module_t *module)
{
    module->spawn = succ_spawn;
    module->publish = succ_publish;
    module->lookup = succ_lookup;
    module->unpublish = succ_unpublish;
    module->query = succ_query;
    module->job_control = succ_job_control;
    module->allocate = succ_allocate;
    module->get_credential = succ_get_cred;
    module->validate_credential = succ_validate;
    module->monitor = succ_monitor;
}

/* After the client of "succeeded" mode: which upcalls fired. */
static int check_succeeded(void)
{
    /* spawn, publish, lookup, unpublish, query, job control, allocate,
     * get and validate credential */
    if (9 != atomic_load(&n_succeeded) || 1 != atomic_load(&n_monitors)) {
        FAIL("upcalls done at once: %d, want 9; monitor %d, want 1", atomic_load(&n_succeeded),
             atomic_load(&n_monitors));
    }
    host_teardown(nspace, 0);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_status_t rc;
    int code;
    char *cargv[3];

    if (argc < 2) {
        fprintf(stderr, "usage: rm_host CLIENT\n");
        return 2;
    }
    int succeeded = argc > 2 && 0 == strcmp(argv[2], "succeeded");
    cargv[0] = argv[1];
    cargv[1] = succeeded ? "succeeded" : "host";
    cargv[2] = NULL;
    memset(&module, 0, sizeof(module));
    module.client_connected2 = connected2;
    module.client_finalized = finalized;
    module.query = query_fn;
    int nolog = argc > 2 && 0 == strcmp(argv[2], "nolog");
    module.log = nolog ? NULL : log_fn;
    module.job_control = job_control_fn;
    module.monitor = monitor_fn;
    module.allocate = allocate_fn;
    module.get_credential = get_cred_fn;
    module.validate_credential = validate_fn;
    if (succeeded) {
        succeeded_module(&module);
    }

    rc = PMIx_server_init(&module, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "rm host: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 3;
    }
    if (0 != (code = host_run_one_client(nspace, argv[1], cargv))) {
        return code;
    }
    if (succeeded) {
        return check_succeeded();
    }
    /* The host process's own query and log. */
    {
        pmix_info_t data;
        char *names;
        rc = query_string(PMIX_QUERY_NAMESPACES, &names);
        if (NULL == names || NULL == strstr(names, nspace)) {
            FAIL("server's own query: %s", PMIx_Error_string(rc));
        }
        free(names);
        PMIX_INFO_LOAD(&data, PMIX_LOG_STDERR, "the server's own log", PMIX_STRING);
        rc = PMIx_Log(&data, 1, NULL, 0);
        if (PMIX_SUCCESS != rc) {
            FAIL("server's own log: %s", PMIx_Error_string(rc));
        }
        PMIX_INFO_DESTRUCT(&data);
    }

    if (atomic_load(&n_queries) < 1 || (nolog ? 0 : 2) != atomic_load(&n_logs)
        || 1 != atomic_load(&n_controls)
        || 1 != atomic_load(&n_monitors) || 1 != atomic_load(&n_allocs)
        || 1 != atomic_load(&n_creds) || 2 != atomic_load(&n_validations)) {
        FAIL("upcalls: query %d log %d control %d monitor %d alloc %d cred %d validate %d",
             atomic_load(&n_queries), atomic_load(&n_logs), atomic_load(&n_controls),
             atomic_load(&n_monitors), atomic_load(&n_allocs), atomic_load(&n_creds),
             atomic_load(&n_validations));
    }

    host_teardown(nspace, 0);
    return failures ? 1 : 0;
}
