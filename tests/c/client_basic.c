/* A PMIx client, launched by tests/c/server_host.c with the environment of
 * PMIx_server_setup_fork. Builds against our headers or, unchanged, against
 * the reference OpenPMIx headers.
 *
 * Checks: PMIx_Init and the identity, job-level keys (types and values),
 * PMIx_Put in each scope + PMIx_Commit + PMIx_Fence with
 * PMIX_COLLECT_DATA, PMIx_Get of every peer's keys (malloc'd, static and
 * pointer values: the same pointer on repeated gets), PMIx_Get_nb,
 * PMIx_Resolve_peers/nodes, PMIx_Finalize. Exits with the number of
 * failed checks (0: success). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#define CHECK_NAME "client"
#define CHECK_RANKED
#define CHECK_COUNTS
#include "check.h"

static void check_u32(const pmix_proc_t *p, const char *key, uint32_t want)
{
    pmix_value_t *v = get_ok(p, key);
    if (NULL == v) {
        return;
    }
    if (PMIX_UINT32 != v->type || want != v->data.uint32) {
        FAIL("%s: type %d value %u, want uint32 %u", key, v->type, v->data.uint32, want);
    }
    PMIX_VALUE_RELEASE(v);
}

/* PMIx_Get_nb completion, waited on with a bound. */
struct nb {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    pmix_status_t status;
    uint32_t u32;
};

static void fence_cb(pmix_status_t status, void *cbdata)
{
    struct nb *nb = cbdata;
    pthread_mutex_lock(&nb->lock);
    nb->status = status;
    nb->done = 1;
    pthread_cond_signal(&nb->cond);
    pthread_mutex_unlock(&nb->lock);
}

static void get_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    struct nb *nb = cbdata;
    pthread_mutex_lock(&nb->lock);
    nb->status = status;
    if (PMIX_SUCCESS == status && NULL != kv && PMIX_UINT32 == kv->type) {
        nb->u32 = kv->data.uint32;
    }
    nb->done = 1;
    pthread_cond_signal(&nb->cond);
    pthread_mutex_unlock(&nb->lock);
}

static int wait_nb(struct nb *nb)
{
    struct timespec ts;
    int rc = 0;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 60;
    pthread_mutex_lock(&nb->lock);
    while (!nb->done && 0 == rc) {
        rc = pthread_cond_timedwait(&nb->cond, &nb->lock, &ts);
    }
    pthread_mutex_unlock(&nb->lock);
    return nb->done;
}

/* Threads getting the same keys at once (pointer and malloc'd values). */
struct racer {
    pmix_proc_t wild;
    const pmix_value_t *want;
    int bad;
};

static void *race(void *arg)
{
    struct racer *rc = arg;
    pmix_info_t info;
    bool flag = true;
    int i;
    PMIX_INFO_LOAD(&info, PMIX_GET_POINTER_VALUES, &flag, PMIX_BOOL);
    for (i = 0; i < 2000; i++) {
        pmix_value_t *p = NULL, *m = NULL;
        if (PMIX_SUCCESS != PMIx_Get(&rc->wild, PMIX_JOB_SIZE, &info, 1, &p) || p != rc->want) {
            rc->bad++;
        }
        if (PMIX_SUCCESS != PMIx_Get(&rc->wild, PMIX_JOB_SIZE, NULL, 0, &m)
            || m->data.uint32 != rc->want->data.uint32) {
            rc->bad++;
        }
        if (NULL != m) {
            PMIX_VALUE_RELEASE(m);
        }
    }
    PMIX_INFO_DESTRUCT(&info);
    return NULL;
}

int main(void)
{
    pmix_status_t rc;
    pmix_proc_t wild, peer;
    pmix_value_t val, *v;
    pmix_info_t info;
    char key[64], str[64], host[256];
    uint32_t n, r;
    bool flag = true;

    memset(&me, 0, sizeof(me));
    rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 100;
    }
    if (!PMIx_Initialized()) {
        FAIL("PMIx_Initialized is false after init");
    }
    if (NULL == getenv("TEST_NSPACE") || 0 != strcmp(getenv("TEST_NSPACE"), me.nspace)) {
        FAIL("nspace %s", me.nspace);
    }
    /* The host's application setup reached our environment. */
    if (NULL != getenv("TEST_APP_SETUP")) {
        const char *h = getenv("PMIX_MCA_test_app_setup");
        const char *l = getenv("TEST_LIST");
        if (NULL == h || 0 != strcmp(h, "harvested")) {
            FAIL("PMIX_MCA_test_app_setup: %s", h ? h : "(unset)");
        }
        if (NULL == l || 0 != strcmp(l, "pre:mid,post")) {
            FAIL("TEST_LIST: %s", l ? l : "(unset)");
        }
        if (NULL != getenv("TEST_GONE")) {
            FAIL("TEST_GONE still set");
        }
    }
    n = (uint32_t) atoi(getenv("TEST_SIZE"));
    if (me.rank >= n) {
        FAIL("rank %u of %u", me.rank, n);
    }

    /* What the client answers about itself. */
    {
        pmix_value_t *v = NULL;
        pmix_status_t rc2 = PMIx_Get(&me, PMIX_RANK, NULL, 0, &v);
        if (PMIX_SUCCESS != rc2 || PMIX_PROC_RANK != v->type || me.rank != v->data.rank) {
            FAIL("own PMIX_RANK: %s", PMIx_Error_string(rc2));
        }
        if (PMIX_SUCCESS == rc2) {
            PMIX_VALUE_RELEASE(v);
        }
        rc2 = PMIx_Get(&me, PMIX_SERVER_RANK, NULL, 0, &v);
        if (PMIX_SUCCESS != rc2 || PMIX_PROC_RANK != v->type) {
            FAIL("own PMIX_SERVER_RANK: %s", PMIx_Error_string(rc2));
        }
        if (PMIX_SUCCESS == rc2) {
            PMIX_VALUE_RELEASE(v);
        }
    }

    /* Job-level keys. */
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    check_u32(&wild, PMIX_JOB_SIZE, n);
    check_u32(&wild, PMIX_LOCAL_SIZE, n);
    check_u32(NULL, PMIX_JOB_SIZE, n);

    v = NULL;
    CHECK(PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &v));
    if (NULL != v) {
        if (PMIX_UINT16 != v->type || me.rank != v->data.uint16) {
            FAIL("local rank type %d value %u", v->type, v->data.uint16);
        }
        PMIX_VALUE_RELEASE(v);
    }
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    v = NULL;
    CHECK(PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &v));
    if (NULL != v) {
        if (PMIX_STRING != v->type || NULL == v->data.string || 0 != strcmp(v->data.string, host)) {
            FAIL("hostname type %d", v->type);
        }
        PMIX_VALUE_RELEASE(v);
    }
    /* A missing key of this process: optional, so not waited for. */
    {
        pmix_info_t opt;
        PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &flag, PMIX_BOOL);
        v = NULL;
        rc = PMIx_Get(&me, "no.such.key", &opt, 1, &v);
        if (PMIX_ERR_NOT_FOUND != rc || NULL != v) {
            FAIL("missing key: %s", PMIx_Error_string(rc));
        }
        PMIX_INFO_DESTRUCT(&opt);
        /* Not optional: still answered at once (nobody else has it). */
        rc = PMIx_Get(&me, "no.such.key", NULL, 0, &v);
        if (PMIX_ERR_NOT_FOUND != rc || NULL != v) {
            FAIL("missing own key: %s", PMIx_Error_string(rc));
        }
    }
    /* A NULL key: all of this process's data, one info per key
     * (tests/get_all.rs checks the contents). */
    v = NULL;
    rc = PMIx_Get(&me, NULL, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v || PMIX_DATA_ARRAY != v->type
        || PMIX_INFO != v->data.darray->type) {
        FAIL("NULL key: %s", PMIx_Error_string(rc));
    }
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
    }

    /* Posts in every scope. */
    snprintf(key, sizeof(key), "test.glob.%u", me.rank);
    PMIX_VALUE_LOAD(&val, &me.rank, PMIX_UINT32);
    CHECK(PMIx_Put(PMIX_GLOBAL, key, &val));
    snprintf(key, sizeof(key), "test.loc.%u", me.rank);
    CHECK(PMIx_Put(PMIX_LOCAL, key, &val));
    snprintf(key, sizeof(key), "test.rem.%u", me.rank);
    CHECK(PMIx_Put(PMIX_REMOTE, key, &val));
    snprintf(key, sizeof(key), "test.str.%u", me.rank);
    snprintf(str, sizeof(str), "hello from %u", me.rank);
    PMIX_VALUE_LOAD(&val, str, PMIX_STRING);
    CHECK(PMIx_Put(PMIX_GLOBAL, key, &val));
    PMIX_VALUE_DESTRUCT(&val);
    CHECK(PMIx_Commit());

    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    CHECK(PMIx_Fence(NULL, 0, &info, 1));
    PMIX_INFO_DESTRUCT(&info);

    /* Every peer's posts. */
    pmix_value_t *kept = NULL;
    for (r = 0; r < n; r++) {
        pmix_value_t *p1 = NULL, *p2 = NULL, sv;
        pmix_info_t pinfo;

        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        snprintf(key, sizeof(key), "test.glob.%u", r);
        v = NULL;
        CHECK(PMIx_Get(&peer, key, NULL, 0, &v));
        if (NULL != v) {
            if (PMIX_UINT32 != v->type || r != v->data.uint32) {
                FAIL("%s: type %d", key, v->type);
            }
            PMIX_VALUE_RELEASE(v);
        }
        snprintf(key, sizeof(key), "test.loc.%u", r);
        v = NULL;
        CHECK(PMIx_Get(&peer, key, NULL, 0, &v));
        if (NULL != v) {
            PMIX_VALUE_RELEASE(v);
        }

        /* Static values: into our own storage. */
        snprintf(key, sizeof(key), "test.str.%u", r);
        snprintf(str, sizeof(str), "hello from %u", r);
        PMIX_INFO_LOAD(&pinfo, PMIX_GET_STATIC_VALUES, &flag, PMIX_BOOL);
        PMIX_VALUE_CONSTRUCT(&sv);
        v = &sv;
        CHECK(PMIx_Get(&peer, key, &pinfo, 1, &v));
        if (&sv != v || PMIX_STRING != sv.type || NULL == sv.data.string
            || 0 != strcmp(sv.data.string, str)) {
            FAIL("static %s", key);
        }
        PMIX_VALUE_DESTRUCT(&sv);
        PMIX_INFO_DESTRUCT(&pinfo);

        /* Pointer values: owned by the library, stable across gets. */
        PMIX_INFO_LOAD(&pinfo, PMIX_GET_POINTER_VALUES, &flag, PMIX_BOOL);
        CHECK(PMIx_Get(&peer, key, &pinfo, 1, &p1));
        CHECK(PMIx_Get(&peer, key, &pinfo, 1, &p2));
        if (NULL == p1 || PMIX_STRING != p1->type || 0 != strcmp(p1->data.string, str)) {
            FAIL("pointer %s", key);
        }
        if (r != me.rank && p1 != p2) {
            FAIL("pointer values of %s differ: %p %p", key, (void *) p1, (void *) p2);
        }
        if (r == (me.rank + 1) % n) {
            kept = p1;
        }
        PMIX_INFO_DESTRUCT(&pinfo);
    }

    /* A pointer value stays valid across a newer generation of data. */
    snprintf(key, sizeof(key), "test.late.%u", me.rank);
    PMIX_VALUE_LOAD(&val, &me.rank, PMIX_UINT32);
    CHECK(PMIx_Put(PMIX_GLOBAL, key, &val));
    CHECK(PMIx_Commit());
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    CHECK(PMIx_Fence(NULL, 0, &info, 1));
    PMIX_INFO_DESTRUCT(&info);
    snprintf(str, sizeof(str), "hello from %u", (me.rank + 1) % n);
    if (NULL == kept || PMIX_STRING != kept->type || 0 != strcmp(kept->data.string, str)) {
        FAIL("kept pointer value changed after a second fence");
    }
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % n);
    snprintf(key, sizeof(key), "test.late.%u", (me.rank + 1) % n);
    v = NULL;
    CHECK(PMIx_Get(&peer, key, NULL, 0, &v));
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
    }

    /* Pointer values of a job-level key. */
    {
        pmix_value_t *p1 = NULL, *p2 = NULL;
        PMIX_INFO_LOAD(&info, PMIX_GET_POINTER_VALUES, &flag, PMIX_BOOL);
        CHECK(PMIx_Get(&wild, PMIX_JOB_SIZE, &info, 1, &p1));
        CHECK(PMIx_Get(&wild, PMIX_JOB_SIZE, &info, 1, &p2));
        if (NULL == p1 || p1 != p2 || PMIX_UINT32 != p1->type || n != p1->data.uint32) {
            FAIL("pointer values of the job size");
        }
        PMIX_INFO_DESTRUCT(&info);
        if (NULL != p1) {
            pthread_t t[4];
            struct racer rc[4];
            int i;
            for (i = 0; i < 4; i++) {
                rc[i].wild = wild;
                rc[i].want = p1;
                rc[i].bad = 0;
                pthread_create(&t[i], NULL, race, &rc[i]);
            }
            for (i = 0; i < 4; i++) {
                pthread_join(t[i], NULL);
                if (rc[i].bad) {
                    FAIL("thread %d: %d bad gets", i, rc[i].bad);
                }
            }
        }
    }

    /* Optional: a missing key of a peer does not go to the server. */
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &flag, PMIX_BOOL);
    PMIX_LOAD_PROCID(&peer, me.nspace, 0);
    v = NULL;
    rc = PMIx_Get(&peer, "test.never.posted", &info, 1, &v);
    if (PMIX_ERR_NOT_FOUND != rc) {
        FAIL("optional missing key: %s", PMIx_Error_string(rc));
    }
    PMIX_INFO_DESTRUCT(&info);

    /* Non-blocking get. */
    {
        struct nb nb;
        memset(&nb, 0, sizeof(nb));
        pthread_mutex_init(&nb.lock, NULL);
        pthread_cond_init(&nb.cond, NULL);
        CHECK(PMIx_Get_nb(&wild, PMIX_JOB_SIZE, NULL, 0, get_cb, &nb));
        if (!wait_nb(&nb)) {
            FAIL("PMIx_Get_nb never called back");
        } else if (PMIX_SUCCESS != nb.status || n != nb.u32) {
            FAIL("PMIx_Get_nb: %s, %u", PMIx_Error_string(nb.status), nb.u32);
        }
    }

    /* Non-blocking fence. */
    {
        struct nb nb;
        memset(&nb, 0, sizeof(nb));
        pthread_mutex_init(&nb.lock, NULL);
        pthread_cond_init(&nb.cond, NULL);
        CHECK(PMIx_Fence_nb(NULL, 0, NULL, 0, fence_cb, &nb));
        if (!wait_nb(&nb)) {
            FAIL("PMIx_Fence_nb never called back");
        } else if (PMIX_SUCCESS != nb.status) {
            FAIL("PMIx_Fence_nb: %s", PMIx_Error_string(nb.status));
        }
    }

    /* Internal store: visible to this process only, found by gets. */
    {
        uint32_t x = 4242;
        PMIX_LOAD_PROCID(&peer, me.nspace, 0);
        PMIX_VALUE_LOAD(&val, &x, PMIX_UINT32);
        CHECK(PMIx_Store_internal(&peer, "test.internal", &val));
        v = NULL;
        CHECK(PMIx_Get(&peer, "test.internal", NULL, 0, &v));
        if (NULL == v || PMIX_UINT32 != v->type || 4242 != v->data.uint32) {
            FAIL("internal store");
        }
        if (NULL != v) {
            PMIX_VALUE_RELEASE(v);
        }
    }

    /* Abort (rank 0): this host lets the process live and says so. */
    if (0 == me.rank) {
        CHECK(PMIx_Abort(3, "test abort", NULL, 0));
    }

    /* Layout queries. */
    {
        pmix_proc_t *procs = NULL;
        size_t np = 0;
        char *nodes = NULL;
        CHECK(PMIx_Resolve_peers(host, me.nspace, &procs, &np));
        if (np != n) {
            FAIL("resolve_peers: %zu, want %u", np, n);
        }
        if (NULL != procs) {
            PMIX_PROC_FREE(procs, np);
        }
        CHECK(PMIx_Resolve_nodes(me.nspace, &nodes));
        if (NULL == nodes || NULL == strstr(nodes, host)) {
            FAIL("resolve_nodes: %s", nodes ? nodes : "(null)");
        }
        free(nodes);
    }

    CHECK(PMIx_Finalize(NULL, 0));
    if (PMIx_Initialized()) {
        FAIL("still initialized after finalize");
    }
    return failures > 99 ? 99 : failures;
}
