/* Publish / lookup / unpublish from C clients (run by pmixrun, or by
 * tests/c/pubsub_host.c with PUBSUB_BASIC set, whose C datastore knows no
 * ranges and no timeouts). Needs at least 2 ranks.
 *
 * Rank 0 publishes; every rank looks the data up with PMIX_WAIT (so no
 * other synchronization is needed), checks the publisher and the values,
 * that a second publish of a key is PMIX_ERR_DUPLICATE_KEY, partial
 * lookups (blocking and _nb, whose array the library owns), a lookup of a
 * never-published key that times out, PMIX_RANGE_PROC_LOCAL, then (between
 * fences) unpublish by key and of everything, after which lookups find
 * nothing. Prints "pubsub rank R ok" and exits 0 on success. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static pmix_proc_t me;
static int failures = 0;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "rank %u: line %d: ", me.rank, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            failures++;                                                         \
        }                                                                       \
    } while (0)

struct wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int fired;
    pmix_status_t status;
    size_t ndata;
    char key[PMIX_MAX_KEYLEN + 1];
    int value;
    pmix_rank_t publisher;
};

static void wait_init(struct wait *w)
{
    memset(w, 0, sizeof(*w));
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
}

static void wait_fire(struct wait *w, pmix_status_t status)
{
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->fired = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static pmix_status_t wait_for(struct wait *w)
{
    pthread_mutex_lock(&w->lock);
    while (!w->fired) {
        pthread_cond_wait(&w->cond, &w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return w->status;
}

static void op_cb(pmix_status_t status, void *cbdata)
{
    wait_fire(cbdata, status);
}

/* The array belongs to the library: copy what we need. */
static void lookup_cb(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    struct wait *w = cbdata;
    w->ndata = ndata;
    if (ndata > 0 && NULL != data) {
        pmix_pdata_t copy;
        PMIX_PDATA_XFER(&copy, &data[0]);
        strncpy(w->key, copy.key, PMIX_MAX_KEYLEN);
        w->value = PMIX_INT == copy.value.type ? copy.value.data.integer : -1;
        w->publisher = copy.proc.rank;
        PMIX_PDATA_DESTRUCT(&copy);
    }
    wait_fire(w, status);
}

static void fence(void)
{
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
    CHECK(PMIX_SUCCESS == rc, "fence: %s", PMIx_Error_string(rc));
}

/* A blocking lookup of one key: its status, the int found in *out. */
static pmix_status_t lookup_int(const char *key, int *out, pmix_info_t *info, size_t ninfo)
{
    pmix_pdata_t *pd;
    pmix_status_t rc;
    PMIX_PDATA_CREATE(pd, 1);
    PMIX_LOAD_KEY(pd[0].key, key);
    rc = PMIx_Lookup(pd, 1, info, ninfo);
    if (PMIX_SUCCESS == rc && NULL != out) {
        *out = PMIX_INT == pd[0].value.type ? pd[0].value.data.integer : -1;
    }
    PMIX_PDATA_FREE(pd, 1);
    return rc;
}

int main(void)
{
    pmix_status_t rc;
    pmix_info_t *info;
    pmix_pdata_t *pd;
    pmix_value_t *val = NULL;
    pmix_proc_t wild;
    struct wait w;
    uint32_t size = 0;
    int basic = NULL != getenv("PUBSUB_BASIC");
    int num = 42, got = 0;
    char *keys[3];

    rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val);
    if (PMIX_SUCCESS == rc) {
        size = val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }
    CHECK(size >= 2, "job size %u", size);

    /* Bad arguments. */
    CHECK(PMIX_ERR_BAD_PARAM == PMIx_Publish(NULL, 0), "publish NULL");
    CHECK(PMIX_ERR_BAD_PARAM == PMIx_Lookup(NULL, 0, NULL, 0), "lookup NULL");
    CHECK(PMIX_ERR_BAD_PARAM == PMIx_Lookup_nb(NULL, NULL, 0, lookup_cb, &w), "lookup_nb NULL");

    /* Rank 0 publishes two keys at once. */
    if (0 == me.rank) {
        PMIX_INFO_CREATE(info, 2);
        PMIX_INFO_LOAD(&info[0], "svc-name", "port-xyz", PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], "svc-num", &num, PMIX_INT);
        rc = PMIx_Publish(info, 2);
        CHECK(PMIX_SUCCESS == rc, "publish: %s", PMIx_Error_string(rc));
        /* The same key on the same range again. */
        rc = PMIx_Publish(info, 1);
        CHECK(PMIX_ERR_DUPLICATE_KEY == rc, "duplicate publish: %s", PMIx_Error_string(rc));
        PMIX_INFO_FREE(info, 2);
    }

    /* Everyone waits for both keys. */
    PMIX_PDATA_CREATE(pd, 2);
    PMIX_LOAD_KEY(pd[0].key, "svc-name");
    PMIX_LOAD_KEY(pd[1].key, "svc-num");
    PMIX_INFO_CREATE(info, 1);
    {
        int all = 0;
        PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &all, PMIX_INT);
    }
    rc = PMIx_Lookup(pd, 2, info, 1);
    CHECK(PMIX_SUCCESS == rc, "lookup with wait: %s", PMIx_Error_string(rc));
    if (PMIX_SUCCESS == rc) {
        CHECK(PMIX_STRING == pd[0].value.type && 0 == strcmp(pd[0].value.data.string, "port-xyz"),
              "svc-name value");
        CHECK(PMIX_INT == pd[1].value.type && 42 == pd[1].value.data.integer, "svc-num value");
        CHECK(0 == pd[0].proc.rank && PMIX_CHECK_NSPACE(pd[0].proc.nspace, me.nspace),
              "publisher %s:%u", pd[0].proc.nspace, pd[0].proc.rank);
    }
    PMIX_INFO_FREE(info, 1);
    PMIX_PDATA_FREE(pd, 2);

    /* Another rank's publish of the key collides too. */
    if (0 != me.rank) {
        PMIX_INFO_CREATE(info, 1);
        PMIX_INFO_LOAD(&info[0], "svc-name", "mine", PMIX_STRING);
        rc = PMIx_Publish(info, 1);
        CHECK(PMIX_ERR_DUPLICATE_KEY == rc, "duplicate from rank %u: %s", me.rank,
              PMIx_Error_string(rc));
        PMIX_INFO_FREE(info, 1);
    }

    /* Partial, non-blocking: the library's array holds the one found. */
    keys[0] = "svc-num";
    keys[1] = "absent-key";
    keys[2] = NULL;
    wait_init(&w);
    rc = PMIx_Lookup_nb(keys, NULL, 0, lookup_cb, &w);
    CHECK(PMIX_SUCCESS == rc, "lookup_nb: %s", PMIx_Error_string(rc));
    if (PMIX_SUCCESS == rc) {
        rc = wait_for(&w);
        CHECK(PMIX_ERR_PARTIAL_SUCCESS == rc, "lookup_nb status %s", PMIx_Error_string(rc));
        CHECK(1 == w.ndata && 0 == strcmp(w.key, "svc-num") && 42 == w.value && 0 == w.publisher,
              "lookup_nb data: %zu %s %d", w.ndata, w.key, w.value);
    }

    /* Partial, blocking: the missing key stays PMIX_UNDEF. */
    PMIX_PDATA_CREATE(pd, 2);
    PMIX_LOAD_KEY(pd[0].key, "absent-key");
    PMIX_LOAD_KEY(pd[1].key, "svc-name");
    rc = PMIx_Lookup(pd, 2, NULL, 0);
    CHECK(PMIX_ERR_PARTIAL_SUCCESS == rc, "partial lookup: %s", PMIx_Error_string(rc));
    CHECK(PMIX_UNDEF == pd[0].value.type, "missing key has type %d", pd[0].value.type);
    CHECK(PMIX_STRING == pd[1].value.type, "found key has type %d", pd[1].value.type);
    PMIX_PDATA_FREE(pd, 2);

    CHECK(PMIX_ERR_NOT_FOUND == lookup_int("absent-key", NULL, NULL, 0), "absent key");

    if (!basic) {
        /* Waiting for a key nobody publishes ends at the timeout. */
        int one = 1, wait_all = 0;
        PMIX_INFO_CREATE(info, 2);
        PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &wait_all, PMIX_INT);
        PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &one, PMIX_INT);
        rc = lookup_int("never-published", NULL, info, 2);
        CHECK(PMIX_ERR_TIMEOUT == rc, "timeout lookup: %s", PMIx_Error_string(rc));
        PMIX_INFO_FREE(info, 2);

        /* Data for the publisher only. */
        if (1 == me.rank) {
            pmix_data_range_t range = PMIX_RANGE_PROC_LOCAL;
            int v = 7;
            PMIX_INFO_CREATE(info, 2);
            PMIX_INFO_LOAD(&info[0], "private-key", &v, PMIX_INT);
            PMIX_INFO_LOAD(&info[1], PMIX_RANGE, &range, PMIX_DATA_RANGE);
            rc = PMIx_Publish(info, 2);
            CHECK(PMIX_SUCCESS == rc, "proc-local publish: %s", PMIx_Error_string(rc));
            PMIX_INFO_FREE(info, 2);
            rc = lookup_int("private-key", &got, NULL, 0);
            CHECK(PMIX_SUCCESS == rc && 7 == got, "own private key: %s", PMIx_Error_string(rc));
        }
    }
    fence();
    if (!basic && 1 != me.rank) {
        rc = lookup_int("private-key", NULL, NULL, 0);
        CHECK(PMIX_ERR_NOT_FOUND == rc, "another's private key: %s", PMIx_Error_string(rc));
    }

    /* Unpublish one key. */
    if (0 == me.rank) {
        keys[0] = "svc-name";
        keys[1] = NULL;
        rc = PMIx_Unpublish(keys, NULL, 0);
        CHECK(PMIX_SUCCESS == rc, "unpublish: %s", PMIx_Error_string(rc));
    }
    fence();
    rc = lookup_int("svc-name", NULL, NULL, 0);
    CHECK(PMIX_ERR_NOT_FOUND == rc, "unpublished key: %s", PMIx_Error_string(rc));
    rc = lookup_int("svc-num", &got, NULL, 0);
    CHECK(PMIX_SUCCESS == rc && 42 == got, "key kept: %s", PMIx_Error_string(rc));
    fence();

    /* Unpublish everything, non-blocking. */
    if (0 == me.rank) {
        wait_init(&w);
        rc = PMIx_Unpublish_nb(NULL, NULL, 0, op_cb, &w);
        CHECK(PMIX_SUCCESS == rc, "unpublish_nb: %s", PMIx_Error_string(rc));
        if (PMIX_SUCCESS == rc) {
            rc = wait_for(&w);
            CHECK(PMIX_SUCCESS == rc, "unpublish_nb status: %s", PMIx_Error_string(rc));
        }
    }
    fence();
    rc = lookup_int("svc-num", NULL, NULL, 0);
    CHECK(PMIX_ERR_NOT_FOUND == rc, "after unpublish all: %s", PMIx_Error_string(rc));

    /* Publish_nb of a fresh key, then it is visible. */
    if (0 == me.rank) {
        int v = 9;
        PMIX_INFO_CREATE(info, 1);
        PMIX_INFO_LOAD(&info[0], "late-key", &v, PMIX_INT);
        wait_init(&w);
        rc = PMIx_Publish_nb(info, 1, op_cb, &w);
        CHECK(PMIX_SUCCESS == rc, "publish_nb: %s", PMIx_Error_string(rc));
        if (PMIX_SUCCESS == rc) {
            rc = wait_for(&w);
            CHECK(PMIX_SUCCESS == rc, "publish_nb status: %s", PMIx_Error_string(rc));
        }
        PMIX_INFO_FREE(info, 1);
    }
    {
        int all = 0;
        PMIX_INFO_CREATE(info, 1);
        PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &all, PMIX_INT);
        rc = lookup_int("late-key", &got, info, 1);
        CHECK(PMIX_SUCCESS == rc && 9 == got, "late key: %s", PMIx_Error_string(rc));
        PMIX_INFO_FREE(info, 1);
    }

    rc = PMIx_Finalize(NULL, 0);
    CHECK(PMIX_SUCCESS == rc, "finalize: %s", PMIx_Error_string(rc));
    if (0 == failures) {
        printf("pubsub rank %u ok\n", me.rank);
    }
    return failures ? 1 : 0;
}
