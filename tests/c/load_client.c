/* Load for tests/load.rs, run by pmixrun as N ranks:
 *
 *   load_client fences ITERS BYTES   every rank puts BYTES bytes (BYTES 0:
 *                                    no data, no put), commits, fences
 *                                    (collecting data when BYTES > 0) and
 *                                    reads its right neighbour's value,
 *                                    ITERS times;
 *   load_client pubsub ITERS         rank 0 publishes ITERS keys, rank 1
 *                                    looks each up (waiting for it);
 *   load_client events ITERS         rank 0 notifies ITERS events to its
 *                                    namespace; every other rank counts
 *                                    them (each waits for all, then a fence).
 *
 * Rank 0 prints "warm" once the first tenth of the iterations is done (the
 * test then samples pmixrun), "rate R per-second" at the end, then "done",
 * and waits for a line on its stdin (the test samples pmixrun again)
 * before a last fence with every rank and PMIx_Finalize. Every check that
 * fails exits nonzero naming it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#define LOADCODE (PMIX_EXTERNAL_ERR_BASE - 11)

static pmix_proc_t me;
static uint32_t size;

#define DIE(...)                                                               \
    do {                                                                       \
        fprintf(stderr, "load_client %u: ", me.rank);                          \
        fprintf(stderr, __VA_ARGS__);                                          \
        fprintf(stderr, "\n");                                                 \
        exit(1);                                                               \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fence(int collect)
{
    pmix_info_t info;
    bool yes = true;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0))) {
        DIE("fence: %s", PMIx_Error_string(rc));
    }
}

static void warm(long i, long iters)
{
    if (0 == me.rank && i == iters / 10) {
        printf("warm\n");
        fflush(stdout);
    }
}

static void fences(long iters, size_t bytes)
{
    char *buf = malloc(bytes + 1);
    pmix_proc_t peer = me;
    pmix_value_t val, *got;
    pmix_status_t rc;

    peer.rank = (me.rank + 1) % size;
    for (long i = 0; i < iters; i++) {
        warm(i, iters);
        if (0 < bytes) {
            memset(buf, 'a' + (int) ((me.rank + i) % 26), bytes);
            val.type = PMIX_BYTE_OBJECT;
            val.data.bo.bytes = buf;
            val.data.bo.size = bytes;
            if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, "load.data", &val))) {
                DIE("put: %s", PMIx_Error_string(rc));
            }
            if (PMIX_SUCCESS != (rc = PMIx_Commit())) {
                DIE("commit: %s", PMIx_Error_string(rc));
            }
        }
        fence(0 < bytes);
        if (0 < bytes) {
            rc = PMIx_Get(&peer, "load.data", NULL, 0, &got);
            if (PMIX_SUCCESS != rc || PMIX_BYTE_OBJECT != got->type || bytes != got->data.bo.size ||
                got->data.bo.bytes[0] != 'a' + (int) ((peer.rank + i) % 26)) {
                DIE("iteration %ld: rank %u's data: %s", i, peer.rank, PMIx_Error_string(rc));
            }
            PMIX_VALUE_RELEASE(got);
        }
    }
    free(buf);
}

static void pubsub(long iters)
{
    pmix_status_t rc;
    char key[64];

    if (size < 2) {
        DIE("pubsub needs 2 ranks");
    }
    for (long i = 0; i < iters; i++) {
        warm(i, iters);
        snprintf(key, sizeof key, "load.key.%ld", i);
        if (0 == me.rank) {
            pmix_info_t info;
            long v = i;
            PMIX_INFO_LOAD(&info, key, &v, PMIX_INT64);
            if (PMIX_SUCCESS != (rc = PMIx_Publish(&info, 1))) {
                DIE("publish %s: %s", key, PMIx_Error_string(rc));
            }
        } else if (1 == me.rank) {
            pmix_pdata_t pd;
            pmix_info_t wait;
            bool yes = true;
            PMIX_PDATA_CONSTRUCT(&pd);
            PMIX_LOAD_KEY(pd.key, key);
            PMIX_INFO_LOAD(&wait, PMIX_WAIT, &yes, PMIX_BOOL);
            rc = PMIx_Lookup(&pd, 1, &wait, 1);
            if (PMIX_SUCCESS != rc || PMIX_INT64 != pd.value.type || i != pd.value.data.int64) {
                DIE("lookup %s: %s", key, PMIx_Error_string(rc));
            }
            PMIX_PDATA_DESTRUCT(&pd);
        }
    }
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long seen = 0;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id; (void) status; (void) source; (void) info; (void) ninfo; (void) results;
    pthread_mutex_lock(&mu);
    seen++;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void events(long iters)
{
    pmix_status_t code = LOADCODE, rc;

    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL);
    if (rc < 0) {
        DIE("register: %s", PMIx_Error_string(rc));
    }
    fence(0);
    if (0 == me.rank) {
        for (long i = 0; i < iters; i++) {
            warm(i, iters);
            rc = PMIx_Notify_event(LOADCODE, &me, PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL);
            if (PMIX_SUCCESS != rc) {
                DIE("notify %ld: %s", i, PMIx_Error_string(rc));
            }
        }
    } else {
        pthread_mutex_lock(&mu);
        while (seen < iters) {
            pthread_cond_wait(&cv, &mu);
        }
        pthread_mutex_unlock(&mu);
    }
    fence(0);
}

int main(int argc, char **argv)
{
    pmix_proc_t wild;
    pmix_value_t *v;
    pmix_status_t rc;
    double t0;
    long iters;
    char line[16];

    if (argc < 3) {
        fprintf(stderr, "usage: load_client fences ITERS BYTES | pubsub ITERS | events ITERS\n");
        return 2;
    }
    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        fprintf(stderr, "load_client: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS != (rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v))) {
        DIE("job size: %s", PMIx_Error_string(rc));
    }
    size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    iters = atol(argv[2]);
    t0 = now();
    if (0 == strcmp(argv[1], "fences")) {
        fences(iters, argc > 3 ? (size_t) atol(argv[3]) : 0);
    } else if (0 == strcmp(argv[1], "pubsub")) {
        pubsub(iters);
    } else if (0 == strcmp(argv[1], "events")) {
        events(iters);
    } else {
        DIE("unknown mode %s", argv[1]);
    }
    if (0 == me.rank) {
        printf("rate %.0f per-second\n", iters / (now() - t0));
        printf("done\n");
        fflush(stdout);
        if (NULL == fgets(line, sizeof line, stdin)) {
            DIE("no line on stdin");
        }
    }
    fence(0);
    if (PMIX_SUCCESS != (rc = PMIx_Finalize(NULL, 0))) {
        DIE("finalize: %s", PMIx_Error_string(rc));
    }
    return 0;
}
