/* A single-node PMIx host whose module implements publish, lookup and
 * unpublish with a small C datastore (keys are unique; lookups with
 * PMIX_WAIT are parked until the keys come), to check the library's
 * bridge of those module functions: the publisher's proc, the info array
 * with the client's PMIX_USERID/PMIX_GRPID, the keys array (NULL for
 * "unpublish everything"), and pmix_lookup_cbfunc_t with a pdata array
 * the host frees as soon as the callback returns.
 *
 * usage: pubsub_host N CLIENT [NSPACE]
 * Runs N clients (with PUBSUB_BASIC=1 in their environment), waits for
 * them, checks their exit codes and that every module function was
 * called. Exits 0 on success. */
#define HOST_NAME "pubsub_host"
#include "host_common.h"

static atomic_int n_publish, n_lookup, n_unpublish, n_unpublish_all;
static char nspace_name[PMIX_MAX_NSLEN + 1];

/* ---- the datastore ---- */
#define MAX_ITEMS 64
#define MAX_WAITERS 64
struct item {
    int used;
    pmix_proc_t owner;
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_value_t value;
};
struct waiter {
    int used;
    char **keys;
    pmix_lookup_cbfunc_t cbfunc;
    void *cbdata;
};
static struct item items[MAX_ITEMS];
static struct waiter waiters[MAX_WAITERS];
static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;

static struct item *find(const char *key)
{
    for (int i = 0; i < MAX_ITEMS; i++) {
        if (items[i].used && 0 == strcmp(items[i].key, key)) {
            return &items[i];
        }
    }
    return NULL;
}

/* The client's ids must come with every request. */
static void check_ids(const pmix_info_t info[], size_t ninfo, const char *what)
{
    int uid = 0, gid = 0;
    for (size_t n = 0; n < ninfo; n++) {
        if (PMIX_CHECK_KEY(&info[n], PMIX_USERID)) {
            uid = PMIX_UINT32 == info[n].value.type && info[n].value.data.uint32 == getuid();
        } else if (PMIX_CHECK_KEY(&info[n], PMIX_GRPID)) {
            gid = PMIX_UINT32 == info[n].value.type && info[n].value.data.uint32 == getgid();
        }
    }
    if (!uid || !gid) {
        FAIL("%s: PMIX_USERID/PMIX_GRPID missing or wrong", what);
    }
}

static int is_directive(const pmix_info_t *i)
{
    return PMIX_CHECK_KEY(i, PMIX_USERID) || PMIX_CHECK_KEY(i, PMIX_GRPID)
           || PMIX_CHECK_KEY(i, PMIX_RANGE) || PMIX_CHECK_KEY(i, PMIX_PERSISTENCE)
           || PMIX_CHECK_KEY(i, PMIX_TIMEOUT) || PMIX_CHECK_KEY(i, PMIX_WAIT);
}

/* Answers a lookup of keys (store locked) if every key is there, or
 * (when !all) whatever is there. Returns 1 if answered. The pdata array
 * is ours and freed as soon as the callback returns. */
static int answer(char **keys, int all, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    size_t nkeys = 0, nfound = 0, k;
    pmix_pdata_t *pd;
    while (keys[nkeys]) {
        nkeys++;
    }
    for (k = 0; k < nkeys; k++) {
        nfound += NULL != find(keys[k]);
    }
    if (all && nfound < nkeys) {
        return 0;
    }
    if (0 == nfound) {
        cbfunc(PMIX_ERR_NOT_FOUND, NULL, 0, cbdata);
        return 1;
    }
    PMIX_PDATA_CREATE(pd, nfound);
    nfound = 0;
    for (k = 0; k < nkeys; k++) {
        struct item *it = find(keys[k]);
        if (it) {
            PMIX_LOAD_PROCID(&pd[nfound].proc, it->owner.nspace, it->owner.rank);
            PMIX_LOAD_KEY(pd[nfound].key, it->key);
            PMIx_Value_xfer(&pd[nfound].value, &it->value);
            nfound++;
        }
    }
    cbfunc(nfound == nkeys ? PMIX_SUCCESS : PMIX_ERR_PARTIAL_SUCCESS, pd, nfound, cbdata);
    /* scribble before freeing: the library must have copied */
    for (k = 0; k < nfound; k++) {
        PMIX_PDATA_DESTRUCT(&pd[k]);
        memset(&pd[k], 0xA5, sizeof(pd[k]));
    }
    free(pd);
    return 1;
}

static pmix_status_t publish_fn(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pmix_status_t rc = PMIX_SUCCESS;
    atomic_fetch_add(&n_publish, 1);
    if (!PMIX_CHECK_NSPACE(proc->nspace, nspace_name)) {
        FAIL("publish from %s", proc->nspace);
    }
    check_ids(info, ninfo, "publish");
    pthread_mutex_lock(&store_lock);
    for (size_t n = 0; n < ninfo; n++) {
        if (!is_directive(&info[n]) && NULL != find(info[n].key)) {
            rc = PMIX_ERR_DUPLICATE_KEY;
        }
    }
    for (size_t n = 0; PMIX_SUCCESS == rc && n < ninfo; n++) {
        if (is_directive(&info[n])) {
            continue;
        }
        for (int i = 0; i < MAX_ITEMS; i++) {
            if (!items[i].used) {
                items[i].used = 1;
                items[i].owner = *proc;
                PMIX_LOAD_KEY(items[i].key, info[n].key);
                PMIx_Value_xfer(&items[i].value, &info[n].value);
                break;
            }
        }
    }
    /* Parked lookups that can now be answered. */
    for (int w = 0; PMIX_SUCCESS == rc && w < MAX_WAITERS; w++) {
        if (waiters[w].used && answer(waiters[w].keys, 1, waiters[w].cbfunc, waiters[w].cbdata)) {
            pmix_argv_free(waiters[w].keys);
            waiters[w].used = 0;
        }
    }
    pthread_mutex_unlock(&store_lock);
    /* The callback from inside the upcall is allowed. */
    cbfunc(rc, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t lookup_fn(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                               size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    int wait = 0;
    atomic_fetch_add(&n_lookup, 1);
    check_ids(info, ninfo, "lookup");
    if (NULL == keys || NULL == keys[0]) {
        FAIL("lookup without keys");
        return PMIX_ERR_BAD_PARAM;
    }
    for (size_t n = 0; n < ninfo; n++) {
        if (PMIX_CHECK_KEY(&info[n], PMIX_WAIT)) {
            wait = 1;
        }
    }
    pthread_mutex_lock(&store_lock);
    if (!answer(keys, wait, cbfunc, cbdata)) {
        int w;
        for (w = 0; w < MAX_WAITERS && waiters[w].used; w++) {
        }
        if (w == MAX_WAITERS) {
            pthread_mutex_unlock(&store_lock);
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        /* The keys are only valid until we call back: copy them. */
        waiters[w].used = 1;
        waiters[w].keys = NULL;
        for (size_t k = 0; keys[k]; k++) {
            pmix_argv_append_nosize(&waiters[w].keys, keys[k]);
        }
        waiters[w].cbfunc = cbfunc;
        waiters[w].cbdata = cbdata;
    }
    pthread_mutex_unlock(&store_lock);
    return PMIX_SUCCESS;
}

static pmix_status_t unpublish_fn(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                                  size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    atomic_fetch_add(&n_unpublish, 1);
    check_ids(info, ninfo, "unpublish");
    if (NULL == keys) {
        atomic_fetch_add(&n_unpublish_all, 1);
    }
    pthread_mutex_lock(&store_lock);
    for (int i = 0; i < MAX_ITEMS; i++) {
        int match = NULL == keys;
        for (size_t k = 0; keys && keys[k]; k++) {
            match |= 0 == strcmp(keys[k], items[i].key);
        }
        if (items[i].used && match && PMIX_CHECK_PROCID(&items[i].owner, proc)) {
            PMIX_VALUE_DESTRUCT(&items[i].value);
            items[i].used = 0;
        }
    }
    pthread_mutex_unlock(&store_lock);
    /* Done at once: no callback. */
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t finalized(const pmix_proc_t *proc, void *server_object,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return PMIX_OPERATION_SUCCEEDED;
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_status_t rc;
    char *extra[] = {"PUBSUB_BASIC=1", NULL};
    char *cargv[2];
    uint32_t n, r;
    pid_t *pids;
    int bad_exit = 0;

    if (argc < 3) {
        fprintf(stderr, "usage: pubsub_host N CLIENT [NSPACE]\n");
        return 2;
    }
    n = (uint32_t) atoi(argv[1]);
    PMIX_LOAD_NSPACE(nspace_name, argc > 3 ? argv[3] : "c-pubsub-job");
    cargv[0] = argv[2];
    cargv[1] = NULL;

    memset(&module, 0, sizeof(module));
    module.client_finalized = finalized;
    module.publish = publish_fn;
    module.lookup = lookup_fn;
    module.unpublish = unpublish_fn;

    rc = PMIx_server_init(&module, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "pubsub_host: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 3;
    }

    rc = host_register_nspace(nspace_name, n, NULL, 0, true);
    if (PMIX_SUCCESS != rc) {
        FAIL("register_nspace: %s", PMIx_Error_string(rc));
        return 4;
    }

    pids = calloc(n, sizeof(pid_t));
    for (r = 0; r < n; r++) {
        pids[r] = host_start_client(nspace_name, r, extra, argv[2], cargv);
        if (pids[r] < 0) {
            return 5;
        }
    }

    bad_exit = host_wait_children(pids, n);
    free(pids);

    if (!bad_exit) {
        if (atomic_load(&n_publish) < 2) {
            FAIL("publish called %d times", atomic_load(&n_publish));
        }
        if (atomic_load(&n_lookup) < (int) n) {
            FAIL("lookup called %d times", atomic_load(&n_lookup));
        }
        if (atomic_load(&n_unpublish) < 2 || atomic_load(&n_unpublish_all) < 1) {
            FAIL("unpublish called %d times (%d of everything)", atomic_load(&n_unpublish),
                 atomic_load(&n_unpublish_all));
        }
    }

    host_teardown(nspace_name, n);
    return host_exit_code();
}
