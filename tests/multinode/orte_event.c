/* PMIx events across the nodes of an Open MPI 4.1 `mpirun` job (each node
 * with its own orted and its PMIx server), built against Debian's OpenPMIx
 * headers and run on either library.
 *
 *   orte_event notify [session|global|namespace]
 *   orte_event abort RANK
 *
 * Every rank first prints "orte_event rank R of N on HOST pid P", then which
 * libpmix it and its parent (the node's orted) mapped ("rank libpmix: PATH",
 * "orted libpmix: PATH", tests/interop/maps.h).
 *
 * notify: every rank registers a handler for the custom code ORTE_EVENT_CODE,
 * then all fence (so that every handler is in place); rank 0 notifies that
 * code with the given range (session by default) and a string payload.
 * Every other rank waits, at most WAIT_SECS, for its handler to see the
 * event, and prints "orte_event rank R on HOST: event CODE from rank S
 * payload 'TEXT'" (or names what it missed on stderr); a last fence, and
 * rank 0 prints "orte_event notify ok: N ranks" when all succeeded (each
 * rank's verdict travels with the last fence's data). Exit status 0, or 1
 * for a rank that saw no event, a wrong source or payload.
 *
 * abort: every rank registers a default handler that prints every event it
 * sees ("orte_event rank R: event STATUS ..."); all fence; rank RANK prints
 * "orte_event rank RANK aborting" and calls PMIx_Abort(40 + RANK, ...), then
 * exits 99 if that returns (Open MPI's host lets it return). The others
 * enter a fence with data collection that cannot complete: the host must end
 * them (or the fence fails, which they print before exiting 1). Whatever
 * happens, the launcher must end the job naming the aborting rank, without a
 * hang: the test bounds it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "maps.h"

/* A user-defined event code, below PMIX_EXTERNAL_ERR_BASE as the standard
 * asks, and outside the ranges Open MPI translates. */
#define ORTE_EVENT_CODE (PMIX_EXTERNAL_ERR_BASE - 77)
#define PAYLOAD_KEY "orte_event.payload"
#define VERDICT_KEY "orte_event.verdict"
#define WAIT_SECS 20
/* The status rank R aborts with: the job's exit status names the rank. */
#define ABORT_STATUS(r) (40 + (int) (r))

static pmix_proc_t me;
static char host[256];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int events_seen;
static pmix_status_t seen_code;
static pmix_proc_t seen_source;
static char seen_payload[256];
static bool notified;
static pmix_status_t notify_status;

#define CHECK(expr)                                                                      \
    do {                                                                                 \
        pmix_status_t rc_ = (expr);                                                      \
        if (PMIX_SUCCESS != rc_) {                                                       \
            fprintf(stderr, "orte_event rank %u on %s: %s: %s\n", me.rank, host, #expr, \
                    PMIx_Error_string(rc_));                                             \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

#define STEP_MUST(expr) CHECK(expr)
#include "pmix_steps.h"

/* The custom event's handler: records the first delivery. */
static void on_custom(size_t id, pmix_status_t status, const pmix_proc_t *source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id;
    (void) results;
    (void) nresults;
    pthread_mutex_lock(&lock);
    if (0 == events_seen++) {
        seen_code = status;
        if (NULL != source) {
            seen_source = *source;
        }
        for (size_t i = 0; i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PAYLOAD_KEY) && PMIX_STRING == info[i].value.type
                && NULL != info[i].value.data.string) {
                snprintf(seen_payload, sizeof(seen_payload), "%s", info[i].value.data.string);
            }
        }
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

/* The abort case's default handler: prints what reaches this rank. */
static void on_any(size_t id, pmix_status_t status, const pmix_proc_t *source,
                   pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id;
    (void) info;
    (void) ninfo;
    (void) results;
    (void) nresults;
    printf("orte_event rank %u: event %s (%d) from %s:%d\n", me.rank,
           PMIx_Error_string(status), (int) status, NULL == source ? "?" : source->nspace,
           NULL == source ? -1 : (int) source->rank);
    fflush(stdout);
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void notify_done(pmix_status_t status, void *cbdata)
{
    (void) cbdata;
    pthread_mutex_lock(&lock);
    notified = true;
    notify_status = status;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

/* Waits until *flag (under lock) or WAIT_SECS; returns *flag. */
static bool wait_for(const bool *flag_b, const int *flag_i)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += WAIT_SECS;
    pthread_mutex_lock(&lock);
    int rc = 0;
    while (!(NULL != flag_b ? *flag_b : 0 < *flag_i) && ETIMEDOUT != rc) {
        rc = pthread_cond_timedwait(&cond, &lock, &deadline);
    }
    bool got = NULL != flag_b ? *flag_b : 0 < *flag_i;
    pthread_mutex_unlock(&lock);
    return got;
}

static pmix_data_range_t parse_range(const char *s)
{
    if (0 == strcmp(s, "session")) {
        return PMIX_RANGE_SESSION;
    }
    if (0 == strcmp(s, "global")) {
        return PMIX_RANGE_GLOBAL;
    }
    if (0 == strcmp(s, "namespace")) {
        return PMIX_RANGE_NAMESPACE;
    }
    fprintf(stderr, "orte_event: unknown range %s\n", s);
    exit(2);
}

static int run_notify(uint32_t n, pmix_data_range_t range)
{
    pmix_status_t code = ORTE_EVENT_CODE;
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_custom, NULL, NULL);
    if (rc < 0) {
        CHECK(rc);
    }
    fence(false);

    char want[300];
    snprintf(want, sizeof(want), "custom event from rank 0 on %s", host);
    int status = 0;
    char verdict[512];
    if (0 == me.rank) {
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, PAYLOAD_KEY, want, PMIX_STRING);
        CHECK(PMIx_Notify_event(code, &me, range, &info, 1, notify_done, NULL));
        if (!wait_for(&notified, NULL)) {
            fprintf(stderr, "orte_event rank 0 on %s: notify callback not called in %d s\n",
                    host, WAIT_SECS);
            status = 1;
        } else if (PMIX_SUCCESS != notify_status) {
            fprintf(stderr, "orte_event rank 0 on %s: notify completed with %s\n", host,
                    PMIx_Error_string(notify_status));
            status = 1;
        }
        PMIX_INFO_DESTRUCT(&info);
        snprintf(verdict, sizeof(verdict), "%s", 0 == status ? "ok" : "notify failed");
    } else if (!wait_for(NULL, &events_seen)) {
        fprintf(stderr, "orte_event rank %u on %s: no event %d within %d s\n", me.rank, host,
                (int) code, WAIT_SECS);
        snprintf(verdict, sizeof(verdict), "no event");
        status = 1;
    } else {
        pthread_mutex_lock(&lock);
        printf("orte_event rank %u on %s: event %d from rank %d payload '%s'\n", me.rank, host,
               (int) seen_code, (int) seen_source.rank, seen_payload);
        fflush(stdout);
        /* The payload names rank 0's host: the notifier's text, intact. */
        char from[300];
        snprintf(from, sizeof(from), "custom event from rank 0 on ");
        if (seen_code != code || 0 != seen_source.rank
            || !PMIX_CHECK_NSPACE(seen_source.nspace, me.nspace)
            || 0 != strncmp(seen_payload, from, strlen(from))) {
            fprintf(stderr,
                    "orte_event rank %u on %s: got code %d from %s:%d payload '%s', want code %d "
                    "from %s:0 payload '%s...'\n",
                    me.rank, host, (int) seen_code, seen_source.nspace, (int) seen_source.rank,
                    seen_payload, (int) code, me.nspace, from);
            snprintf(verdict, sizeof(verdict), "wrong event");
            status = 1;
        } else {
            snprintf(verdict, sizeof(verdict), "ok");
        }
        pthread_mutex_unlock(&lock);
    }

    /* Every rank's verdict to rank 0, with the last fence. */
    put_str(VERDICT_KEY, verdict);
    CHECK(PMIx_Commit());
    fence(true);
    if (0 == me.rank) {
        uint32_t good = 0;
        for (uint32_t r = 0; r < n; r++) {
            pmix_proc_t p;
            pmix_value_t *v = NULL;
            PMIX_PROC_LOAD(&p, me.nspace, r);
            if (PMIX_SUCCESS == PMIx_Get(&p, VERDICT_KEY, NULL, 0, &v) && NULL != v
                && PMIX_STRING == v->type && 0 == strcmp(v->data.string, "ok")) {
                good++;
            }
            if (NULL != v) {
                PMIX_VALUE_RELEASE(v);
            }
        }
        if (good == n) {
            printf("orte_event notify ok: %u ranks\n", n);
        } else {
            printf("orte_event notify failed: %u of %u ranks ok\n", good, n);
            status = 1;
        }
        fflush(stdout);
    }
    fence(false);
    CHECK(PMIx_Finalize(NULL, 0));
    return status;
}

static int run_abort(uint32_t who)
{
    pmix_status_t rc = PMIx_Register_event_handler(NULL, 0, NULL, 0, on_any, NULL, NULL);
    if (rc < 0) {
        CHECK(rc);
    }
    fence(false);
    if (me.rank == who) {
        printf("orte_event rank %u aborting\n", me.rank);
        fflush(stdout);
        rc = PMIx_Abort(ABORT_STATUS(me.rank), "orte_event: this rank aborts on purpose", NULL,
                        0);
        /* The host may let it return (Open MPI's does) and end the job
         * itself: the job's status must still be the abort's, not this. */
        fprintf(stderr, "orte_event rank %u: PMIx_Abort returned %s\n", me.rank,
                PMIx_Error_string(rc));
        exit(99);
    }
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    printf("orte_event rank %u: fence after the abort returned %s\n", me.rank,
           PMIx_Error_string(rc));
    fflush(stdout);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (0 != strcmp(argv[1], "notify") && 0 != strcmp(argv[1], "abort"))
        || (0 == strcmp(argv[1], "abort") && argc != 3)) {
        fprintf(stderr, "usage: orte_event notify [session|global|namespace] | abort RANK\n");
        return 2;
    }
    if (0 != gethostname(host, sizeof(host))) {
        snprintf(host, sizeof(host), "?");
    }
    host[sizeof(host) - 1] = '\0';
    CHECK(PMIx_Init(&me, NULL, 0));

    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v));
    uint32_t n = v->data.uint32;
    PMIX_VALUE_RELEASE(v);

    printf("orte_event rank %u of %u on %s pid %d\n", me.rank, n, host, (int) getpid());
    fflush(stdout);
    print_libpmix("rank", 0);
    print_libpmix("orted", getppid());

    if (0 == strcmp(argv[1], "notify")) {
        return run_notify(n, parse_range(argc > 2 ? argv[2] : "session"));
    }
    return run_abort((uint32_t) atoi(argv[2]));
}
