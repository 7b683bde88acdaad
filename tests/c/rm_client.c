/* A C client of the resource-manager services, for tests/query_log.rs.
 *
 *   rm_client pmixrun   - run by pmixrun -n 2: queries (local, server,
 *                         partial, not found, non-blocking), logging to
 *                         stderr/stdout, job control of rank 1 by rank 0
 *                         (pause, resume, SIGUSR1), the calls pmixrun
 *                         refuses (allocation; a heartbeat monitor
 *                         without a period) and the server's
 *                         native credentials.
 *   rm_client kill      - run by pmixrun -n 2: rank 0 kills rank 1.
 *   rm_client host      - forked by tests/c/rm_host.c: every call reaches
 *                         the C host's callbacks, whose answers it checks.
 *   rm_client succeeded - forked by tests/c/rm_host.c in "succeeded" mode:
 *                         the host completes each call at once
 *                         (PMIX_OPERATION_SUCCEEDED, no data); checks what
 *                         each call returns.
 *
 * Prints "rm client R ok" and exits 0 when every check passed. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#include <pmix.h>

static int failures = 0;
static pmix_proc_t me;

#define FAIL(...)                                                     \
    do {                                                              \
        fprintf(stderr, "rm client %u: line %d: ", me.rank, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                 \
        fprintf(stderr, "\n");                                        \
        failures++;                                                   \
    } while (0)

#define CHECK_RC(rc, want, what)                                              \
    do {                                                                      \
        if ((rc) != (want)) {                                                 \
            FAIL("%s: %s, want %s", what, PMIx_Error_string(rc),              \
                 PMIx_Error_string(want));                                    \
        }                                                                     \
    } while (0)

static const pmix_info_t *find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&info[i], key)) {
            return &info[i];
        }
    }
    return NULL;
}

static void add_key(char ***keys, const char *k)
{
    pmix_status_t r;
    PMIX_ARGV_APPEND(r, *keys, k);
    (void) r;
}

/* One query of one key, optionally qualified by a namespace. */
static pmix_status_t query1(const char *key, const char *nspace, pmix_info_t **res, size_t *nres)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    add_key(&q.keys, key);
    if (nspace) {
        PMIX_QUERY_QUALIFIERS_CREATE(&q, 1);
        PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_NSPACE, nspace, PMIX_STRING);
    }
    pmix_status_t rc = PMIx_Query_info(&q, 1, res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    return rc;
}

struct waiter {
    pthread_mutex_t m;
    pthread_cond_t c;
    int done;
    pmix_status_t status;
    size_t n;
    int released;
    pmix_value_t value;
};

static void wait_for(struct waiter *w)
{
    pthread_mutex_lock(&w->m);
    while (!w->done) {
        pthread_cond_wait(&w->c, &w->m);
    }
    pthread_mutex_unlock(&w->m);
}

static void wake(struct waiter *w)
{
    pthread_mutex_lock(&w->m);
    w->done = 1;
    pthread_cond_signal(&w->c);
    pthread_mutex_unlock(&w->m);
}

static void infocb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                   pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    struct waiter *w = cbdata;
    w->status = status;
    w->n = ninfo;
    PMIX_VALUE_CONSTRUCT(&w->value);
    if (ninfo > 0) {
        PMIx_Value_xfer(&w->value, &info[0].value);
    }
    if (release_fn) {
        release_fn(release_cbdata);
        w->released = 1;
    }
    wake(w);
}

static void opcb(pmix_status_t status, void *cbdata)
{
    struct waiter *w = cbdata;
    w->status = status;
    wake(w);
}

#define WAITER_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, {0}}

static void queries(int in_pmixrun)
{
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc;

    /* From the server: the registered namespaces. */
    rc = query1(PMIX_QUERY_NAMESPACES, NULL, &res, &nres);
    CHECK_RC(rc, PMIX_SUCCESS, "query namespaces");
    if (PMIX_SUCCESS == rc) {
        const pmix_info_t *i = find(res, nres, PMIX_QUERY_NAMESPACES);
        if (!i || i->value.type != PMIX_STRING || !strstr(i->value.data.string, me.nspace)) {
            FAIL("namespaces do not list %s", me.nspace);
        }
        PMIX_INFO_FREE(res, nres);
    }

    /* From this process's own data: the job size. */
    rc = query1(PMIX_JOB_SIZE, NULL, &res, &nres);
    CHECK_RC(rc, PMIX_SUCCESS, "query job size");
    if (PMIX_SUCCESS == rc) {
        const pmix_info_t *i = find(res, nres, PMIX_JOB_SIZE);
        if (!i || i->value.type != PMIX_UINT32 || i->value.data.uint32 < 1) {
            FAIL("job size answer");
        }
        PMIX_INFO_FREE(res, nres);
    }

    /* PMIX_QUERY_REFRESH_CACHE: the same key answered by the server, from
     * the job data its host registered. */
    {
        pmix_query_t q;
        bool t = true;
        PMIX_QUERY_CONSTRUCT(&q);
        add_key(&q.keys, PMIX_JOB_SIZE);
        PMIX_QUERY_QUALIFIERS_CREATE(&q, 1);
        PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_QUERY_REFRESH_CACHE, &t, PMIX_BOOL);
        rc = PMIx_Query_info(&q, 1, &res, &nres);
        CHECK_RC(rc, PMIX_SUCCESS, "query job size from the server");
        if (PMIX_SUCCESS == rc) {
            const pmix_info_t *i = find(res, nres, PMIX_JOB_SIZE);
            if (nres != 1 || !i || i->value.type != PMIX_UINT32 || i->value.data.uint32 < 1) {
                FAIL("server's job size answer");
            }
            PMIX_INFO_FREE(res, nres);
        }
        PMIX_QUERY_DESTRUCT(&q);
    }

    /* The local process table holds this process with its pid. */
    rc = query1(PMIX_QUERY_LOCAL_PROC_TABLE, me.nspace, &res, &nres);
    CHECK_RC(rc, PMIX_SUCCESS, "query local proc table");
    if (PMIX_SUCCESS == rc) {
        const pmix_info_t *i = find(res, nres, PMIX_QUERY_LOCAL_PROC_TABLE);
        int mine = 0;
        if (!i || i->value.type != PMIX_DATA_ARRAY || i->value.data.darray->type != PMIX_PROC_INFO) {
            FAIL("proc table type");
        } else {
            pmix_proc_info_t *pi = i->value.data.darray->array;
            for (size_t k = 0; k < i->value.data.darray->size; k++) {
                if (pi[k].proc.rank == me.rank && pi[k].pid == getpid() && pi[k].hostname) {
                    mine = 1;
                    /* pmixrun registers the command line of its ranks */
                    if (in_pmixrun && (!pi[k].executable_name
                                       || !strstr(pi[k].executable_name, "rm_client"))) {
                        FAIL("proc table executable %s",
                             pi[k].executable_name ? pi[k].executable_name : "(null)");
                    }
                }
            }
            if (!mine) {
                FAIL("proc table lacks rank %u with pid %d", me.rank, (int) getpid());
            }
        }
        PMIX_INFO_FREE(res, nres);
    }

    /* One key answered, one nobody knows: partial success. */
    {
        pmix_query_t q[2];
        PMIX_QUERY_CONSTRUCT(&q[0]);
        PMIX_QUERY_CONSTRUCT(&q[1]);
        add_key(&q[0].keys, PMIX_QUERY_NAMESPACES);
        add_key(&q[1].keys, "test.nobody.knows");
        rc = PMIx_Query_info(q, 2, &res, &nres);
        if (in_pmixrun) {
            CHECK_RC(rc, PMIX_ERR_PARTIAL_SUCCESS, "partial query");
            if (nres != 1 || !find(res, nres, PMIX_QUERY_NAMESPACES)) {
                FAIL("partial query: %zu results", nres);
            }
        } else {
            /* the C host answers test.* keys */
            CHECK_RC(rc, PMIX_SUCCESS, "query through the host");
            const pmix_info_t *i = find(res, nres, "test.nobody.knows");
            if (nres != 2 || !i || i->value.type != PMIX_STRING
                || strcmp(i->value.data.string, "host answer")) {
                FAIL("host's answer missing (%zu results)", nres);
            }
        }
        if (res) {
            PMIX_INFO_FREE(res, nres);
        }
        PMIX_QUERY_DESTRUCT(&q[0]);
        PMIX_QUERY_DESTRUCT(&q[1]);
    }

    if (!in_pmixrun) {
        /* The host answers one of its two keys: partial success. */
        pmix_query_t q;
        PMIX_QUERY_CONSTRUCT(&q);
        add_key(&q.keys, "test.answered");
        add_key(&q.keys, "other.unanswered");
        rc = PMIx_Query_info(&q, 1, &res, &nres);
        CHECK_RC(rc, PMIX_ERR_PARTIAL_SUCCESS, "query partly answered by the host");
        if (nres != 1 || !find(res, nres, "test.answered")) {
            FAIL("host's partial answer (%zu results)", nres);
        }
        if (res) {
            PMIX_INFO_FREE(res, nres);
        }
        PMIX_QUERY_DESTRUCT(&q);
    }

    /* Nothing known: not found, no results. */
    rc = query1("unknown.key", NULL, &res, &nres);
    CHECK_RC(rc, PMIX_ERR_NOT_FOUND, "unknown query");
    if (res != NULL || nres != 0) {
        FAIL("results for an unknown query");
    }

    /* Non-blocking: the server's default for process sets. */
    {
        struct waiter w = WAITER_INIT;
        pmix_query_t q;
        PMIX_QUERY_CONSTRUCT(&q);
        add_key(&q.keys, PMIX_QUERY_NUM_PSETS);
        rc = PMIx_Query_info_nb(&q, 1, infocb, &w);
        CHECK_RC(rc, PMIX_SUCCESS, "query_nb");
        if (PMIX_SUCCESS == rc) {
            wait_for(&w);
            CHECK_RC(w.status, PMIX_SUCCESS, "query_nb callback");
            if (w.n != 1 || w.value.type != PMIX_SIZE || w.value.data.size != 0 || !w.released) {
                FAIL("query_nb answer");
            }
            PMIX_VALUE_DESTRUCT(&w.value);
        }
        PMIX_QUERY_DESTRUCT(&q);
    }

    /* Bad queries. */
    rc = PMIx_Query_info(NULL, 0, &res, &nres);
    CHECK_RC(rc, PMIX_ERR_BAD_PARAM, "query without queries");
}

static void logs(void)
{
    char msg[64];
    pmix_info_t data[1];
    pmix_status_t rc;

    snprintf(msg, sizeof msg, "log to stderr from %u", me.rank);
    PMIX_INFO_LOAD(&data[0], PMIX_LOG_STDERR, msg, PMIX_STRING);
    rc = PMIx_Log(data, 1, NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "log stderr");
    PMIX_INFO_DESTRUCT(&data[0]);

    struct waiter w = WAITER_INIT;
    pmix_info_t dirs[1];
    snprintf(msg, sizeof msg, "log to stdout from %u", me.rank);
    PMIX_INFO_LOAD(&data[0], PMIX_LOG_STDOUT, msg, PMIX_STRING);
    PMIX_INFO_LOAD(&dirs[0], PMIX_LOG_ONCE, NULL, PMIX_BOOL);
    rc = PMIx_Log_nb(data, 1, dirs, 1, opcb, &w);
    CHECK_RC(rc, PMIX_SUCCESS, "log_nb stdout");
    if (PMIX_SUCCESS == rc) {
        wait_for(&w);
        CHECK_RC(w.status, PMIX_SUCCESS, "log_nb callback");
    }
    PMIX_INFO_DESTRUCT(&data[0]);
    PMIX_INFO_DESTRUCT(&dirs[0]);
}

static void job_control_rank1(const char *directive, pmix_data_type_t type, const void *val)
{
    pmix_proc_t target;
    pmix_info_t dir;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    PMIX_LOAD_PROCID(&target, me.nspace, 1);
    PMIX_INFO_LOAD(&dir, directive, val, type);
    pmix_status_t rc = PMIx_Job_control(&target, 1, &dir, 1, &res, &nres);
    CHECK_RC(rc, PMIX_SUCCESS, directive);
    if (res) {
        PMIX_INFO_FREE(res, nres);
    }
    PMIX_INFO_DESTRUCT(&dir);
}

struct credwait {
    struct waiter w;
    pmix_byte_object_t cred;
    uint32_t uid;
    int have_uid;
};

static void credcb(pmix_status_t status, pmix_byte_object_t *credential, pmix_info_t info[],
                   size_t ninfo, void *cbdata)
{
    struct credwait *c = cbdata;
    (void) info, (void) ninfo;
    c->w.status = status;
    if (PMIX_SUCCESS == status && credential && credential->size) {
        c->cred.bytes = malloc(credential->size);
        memcpy(c->cred.bytes, credential->bytes, credential->size);
        c->cred.size = credential->size;
    }
    wake(&c->w);
}

static void validcb(pmix_status_t status, pmix_info_t info[], size_t ninfo, void *cbdata)
{
    struct credwait *c = cbdata;
    const pmix_info_t *i = find(info, ninfo, PMIX_USERID);
    c->w.status = status;
    if (i && PMIX_UINT32 == i->value.type) {
        c->uid = i->value.data.uint32;
        c->have_uid = 1;
    }
    wake(&c->w);
}

/* A heartbeat monitor without its period refused by the server's own
 * monitoring (pmixrun has no monitor upcall), allocation refused;
 * credentials are the server's native ones (pmixrun has no credential
 * upcalls). */
static void pmixrun_services(void)
{
    pmix_info_t mon, *res = NULL;
    size_t nres = 0;
    bool t = true;
    pmix_status_t rc;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, &t, PMIX_BOOL);
    CHECK_RC(PMIx_Process_monitor(&mon, PMIX_MONITOR_HEARTBEAT_ALERT, NULL, 0, &res, &nres),
             PMIX_ERR_BAD_PARAM, "monitor");
    CHECK_RC(PMIx_Allocation_request(PMIX_ALLOC_NEW, NULL, 0, &res, &nres),
             PMIX_ERR_NOT_SUPPORTED, "allocation");
    PMIX_INFO_DESTRUCT(&mon);

    /* blocking: get, validate (our uid), tamper, validate again */
    pmix_byte_object_t cred;
    PMIX_BYTE_OBJECT_CONSTRUCT(&cred);
    rc = PMIx_Get_credential(NULL, 0, &cred);
    CHECK_RC(rc, PMIX_SUCCESS, "get native credential");
    if (PMIX_SUCCESS == rc) {
        rc = PMIx_Validate_credential(&cred, NULL, 0, &res, &nres);
        CHECK_RC(rc, PMIX_SUCCESS, "validate native credential");
        const pmix_info_t *i = find(res, nres, PMIX_USERID);
        if (!i || PMIX_UINT32 != i->value.type || i->value.data.uint32 != (uint32_t) getuid()) {
            FAIL("native credential uid");
        }
        if (res) {
            PMIX_INFO_FREE(res, nres);
        }
        cred.bytes[cred.size / 2] ^= 1;
        CHECK_RC(PMIx_Validate_credential(&cred, NULL, 0, &res, &nres), PMIX_ERR_INVALID_CRED,
                 "validate a tampered credential");
        PMIX_BYTE_OBJECT_DESTRUCT(&cred);
    }

    /* non-blocking */
    struct credwait c;
    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.w.m, NULL);
    pthread_cond_init(&c.w.c, NULL);
    rc = PMIx_Get_credential_nb(NULL, 0, credcb, &c);
    CHECK_RC(rc, PMIX_SUCCESS, "get credential nb");
    if (PMIX_SUCCESS == rc) {
        wait_for(&c.w);
        CHECK_RC(c.w.status, PMIX_SUCCESS, "get credential nb callback");
        c.w.done = 0;
        rc = PMIx_Validate_credential_nb(&c.cred, NULL, 0, validcb, &c);
        CHECK_RC(rc, PMIX_SUCCESS, "validate credential nb");
        if (PMIX_SUCCESS == rc) {
            wait_for(&c.w);
            CHECK_RC(c.w.status, PMIX_SUCCESS, "validate credential nb callback");
            if (!c.have_uid || c.uid != (uint32_t) getuid()) {
                FAIL("validate nb uid");
            }
        }
        PMIX_BYTE_OBJECT_DESTRUCT(&c.cred);
    }
}

static void host_services(void)
{
    pmix_info_t mon, *res = NULL;
    size_t nres = 0;
    bool t = true;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, &t, PMIX_BOOL);
    rc = PMIx_Process_monitor(&mon, PMIX_MONITOR_HEARTBEAT_ALERT, NULL, 0, &res, &nres);
    CHECK_RC(rc, PMIX_SUCCESS, "monitor");
    if (nres != 1 || !find(res, nres, "test.monitored")) {
        FAIL("monitor results");
    }
    if (res) {
        PMIX_INFO_FREE(res, nres);
    }
    PMIX_INFO_DESTRUCT(&mon);

    rc = PMIx_Allocation_request(PMIX_ALLOC_EXTEND, NULL, 0, &res, &nres);
    CHECK_RC(rc, PMIX_SUCCESS, "allocation");
    if (nres != 1 || !find(res, nres, "test.allocated")) {
        FAIL("allocation results");
    }
    if (res) {
        PMIX_INFO_FREE(res, nres);
    }

    pmix_proc_t target;
    pmix_info_t dir;
    PMIX_LOAD_PROCID(&target, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_TERMINATE, &t, PMIX_BOOL);
    rc = PMIx_Job_control(&target, 1, &dir, 1, &res, &nres);
    CHECK_RC(rc, PMIX_SUCCESS, "job control");
    if (nres != 1 || !find(res, nres, "test.controlled")) {
        FAIL("job control results");
    }
    if (res) {
        PMIX_INFO_FREE(res, nres);
    }
    PMIX_INFO_DESTRUCT(&dir);

    pmix_byte_object_t cred;
    PMIX_BYTE_OBJECT_CONSTRUCT(&cred);
    rc = PMIx_Get_credential(NULL, 0, &cred);
    CHECK_RC(rc, PMIX_SUCCESS, "get credential");
    if (cred.size != 11 || memcmp(cred.bytes, "credential!", 11)) {
        FAIL("credential");
    }
    rc = PMIx_Validate_credential(&cred, NULL, 0, &res, &nres);
    CHECK_RC(rc, PMIX_SUCCESS, "validate credential");
    if (res) {
        PMIX_INFO_FREE(res, nres);
    }
    PMIX_BYTE_OBJECT_DESTRUCT(&cred);
    char *forged = strdup("forged");
    size_t forged_size = 6;
    PMIX_BYTE_OBJECT_LOAD(&cred, forged, forged_size);
    rc = PMIx_Validate_credential(&cred, NULL, 0, &res, &nres);
    CHECK_RC(rc, PMIX_ERR_INVALID_CRED, "validate a forged credential");
    PMIX_BYTE_OBJECT_DESTRUCT(&cred);

    char msg[64];
    pmix_info_t data;
    snprintf(msg, sizeof msg, "host log from %u", me.rank);
    PMIX_INFO_LOAD(&data, PMIX_LOG_STDERR, msg, PMIX_STRING);
    CHECK_RC(PMIx_Log(&data, 1, NULL, 0), PMIX_SUCCESS, "log through the host");
    PMIX_INFO_DESTRUCT(&data);
}

/* Under a host that returns PMIX_OPERATION_SUCCEEDED from each upcall:
 * success with no data, as OpenPMIx's server answers (a spawn's namespace
 * empty); a lookup or query done at once found nothing. */
static void succeeded_calls(void)
{
    pmix_info_t info, *res = NULL;
    size_t nres = 0;
    bool t = true;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info, "test.published", "value", PMIX_STRING);
    CHECK_RC(PMIx_Publish(&info, 1), PMIX_SUCCESS, "publish");
    PMIX_INFO_DESTRUCT(&info);

    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, "test.published");
    CHECK_RC(PMIx_Lookup(&pd, 1, NULL, 0), PMIX_ERR_NOT_FOUND, "lookup");
    PMIX_PDATA_DESTRUCT(&pd);

    char *keys[] = {"test.published", NULL};
    CHECK_RC(PMIx_Unpublish(keys, NULL, 0), PMIX_SUCCESS, "unpublish");

    pmix_app_t app;
    pmix_nspace_t ns;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup("/bin/true");
    app.maxprocs = 1;
    memset(ns, 'x', sizeof(ns));
    CHECK_RC(PMIx_Spawn(NULL, 0, &app, 1, ns), PMIX_SUCCESS, "spawn");
    if ('\0' != ns[0]) {
        FAIL("spawn done at once named namespace '%.20s'", ns);
    }
    PMIX_APP_DESTRUCT(&app);

    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(rc, q.keys, "test.asked");
    rc = PMIx_Query_info(&q, 1, &res, &nres);
    CHECK_RC(rc, PMIX_ERR_NOT_FOUND, "query");
    if (res) {
        PMIX_INFO_FREE(res, nres);
    }
    PMIX_QUERY_DESTRUCT(&q);

    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&info, PMIX_JOB_CTRL_TERMINATE, &t, PMIX_BOOL);
    res = NULL;
    nres = 0;
    CHECK_RC(PMIx_Job_control(&target, 1, &info, 1, &res, &nres), PMIX_SUCCESS, "job control");
    if (0 != nres) {
        FAIL("job control done at once gave %zu results", nres);
    }
    if (res) {
        PMIX_INFO_FREE(res, nres);
    }
    PMIX_INFO_DESTRUCT(&info);

    res = NULL;
    nres = 0;
    CHECK_RC(PMIx_Allocation_request(PMIX_ALLOC_EXTEND, NULL, 0, &res, &nres), PMIX_SUCCESS,
             "allocation");
    if (0 != nres) {
        FAIL("allocation done at once gave %zu results", nres);
    }
    if (res) {
        PMIX_INFO_FREE(res, nres);
    }

    pmix_byte_object_t cred;
    PMIX_BYTE_OBJECT_CONSTRUCT(&cred);
    CHECK_RC(PMIx_Get_credential(NULL, 0, &cred), PMIX_SUCCESS, "get credential");
    if (0 != cred.size) {
        FAIL("credential done at once has %zu bytes", cred.size);
    }
    PMIX_BYTE_OBJECT_DESTRUCT(&cred);
    char *anything = strdup("anything");
    size_t anything_size = 8;
    PMIX_BYTE_OBJECT_LOAD(&cred, anything, anything_size);
    res = NULL;
    nres = 0;
    CHECK_RC(PMIx_Validate_credential(&cred, NULL, 0, &res, &nres), PMIX_SUCCESS,
             "validate credential");
    if (res) {
        PMIX_INFO_FREE(res, nres);
    }
    PMIX_BYTE_OBJECT_DESTRUCT(&cred);

    /* The host called back, then returned PMIX_ERROR: the callback's
     * answer is the result. */
    PMIX_INFO_LOAD(&info, PMIX_MONITOR_HEARTBEAT, &t, PMIX_BOOL);
    res = NULL;
    nres = 0;
    rc = PMIx_Process_monitor(&info, PMIX_MONITOR_HEARTBEAT_ALERT, NULL, 0, &res, &nres);
    CHECK_RC(rc, PMIX_SUCCESS, "monitor answered, then refused");
    if (nres != 1 || !find(res, nres, "test.monitored")) {
        FAIL("monitor results");
    }
    if (res) {
        PMIX_INFO_FREE(res, nres);
    }
    PMIX_INFO_DESTRUCT(&info);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "pmixrun";
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    /* Blocked before the library starts its threads: only sigwait sees it. */
    pthread_sigmask(SIG_BLOCK, &set, NULL);

    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "rm client: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }

    if (0 == strcmp(mode, "kill")) {
        /* every rank in the fence: rank 1 is up before rank 0 kills it */
        CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence");
        if (0 == me.rank) {
            bool t = true;
            job_control_rank1(PMIX_JOB_CTRL_KILL, PMIX_BOOL, &t);
        }
        int sig;
        sigwait(&set, &sig); /* nobody sends it: killed or terminated */
        return 1;
    }

    if (0 == strcmp(mode, "succeeded")) {
        succeeded_calls();
    } else if (0 == strcmp(mode, "host")) {
        queries(0);
        host_services();
    } else {
        queries(1);
        logs();
        pmixrun_services();
        CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "fence");
        if (0 == me.rank) {
            bool t = true;
            int sig = SIGUSR1;
            job_control_rank1(PMIX_JOB_CTRL_PAUSE, PMIX_BOOL, &t);
            job_control_rank1(PMIX_JOB_CTRL_RESUME, PMIX_BOOL, &t);
            job_control_rank1(PMIX_JOB_CTRL_SIGNAL, PMIX_INT, &sig);
        } else if (1 == me.rank) {
            int sig = 0;
            sigwait(&set, &sig);
            printf("rm client 1 got signal %d\n", sig);
        }
    }

    rc = PMIx_Finalize(NULL, 0);
    CHECK_RC(rc, PMIX_SUCCESS, "finalize");
    if (0 == failures) {
        printf("rm client %u ok\n", me.rank);
    }
    fflush(stdout);
    return failures ? 1 : 0;
}
