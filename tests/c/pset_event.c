/* A rank of tests/pmixrun_modes.rs under `pmixrun --pset left -n 2 ... :
 * --pset right -n 1 ...`: the pattern of programs that use the launcher's
 * process sets. It fences first (so the launcher's definitions reached this
 * process before any handler existed), then registers a handler for
 * PMIX_PROCESS_SET_DEFINE, waits (30 s at most) for the definitions of
 * "left" (ranks 0 and 1) and "right" (rank 2), and then queries
 * PMIX_QUERY_PSET_NAMES. Prints "pset event R ok"; exits with the number of
 * failed checks. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#define CHECK_NAME "pset event"
#define CHECK_RANKED
#define CHECK_COUNTS
#include "check.h"
#include "query_one.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
/* Members seen per set (-1: no definition yet); events seen in all. */
static int left_members = -1, right_members = -1, events = 0;

static void defined(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t *results, size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id, (void) source, (void) results, (void) nresults;
    const char *name = NULL;
    int members = -1;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_PSET_NAME) && PMIX_STRING == info[i].value.type) {
            name = info[i].value.data.string;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_PSET_MEMBERS)
                   && PMIX_DATA_ARRAY == info[i].value.type) {
            members = (int) info[i].value.data.darray->size;
        }
    }
    pthread_mutex_lock(&lock);
    if (PMIX_PROCESS_SET_DEFINE == status && NULL != name) {
        if (0 == strcmp(name, "left")) {
            left_members = members;
        } else if (0 == strcmp(name, "right")) {
            right_members = members;
        }
    }
    events++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (NULL != cbfunc) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

int main(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    /* Every rank connected, and the definitions sent to this one came in
     * before the fence's answer: the handler is registered after them. */
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        FAIL("fence: %s", PMIx_Error_string(rc));
    }
    pmix_status_t code = PMIX_PROCESS_SET_DEFINE;
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, defined, NULL, NULL);
    if (rc < 0) {
        FAIL("register: %s", PMIx_Error_string(rc));
    }
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += 30;
    pthread_mutex_lock(&lock);
    while (left_members < 0 || right_members < 0) {
        if (0 != pthread_cond_timedwait(&cond, &lock, &end)) {
            break;
        }
    }
    int left = left_members, right = right_members;
    pthread_mutex_unlock(&lock);
    if (2 != left || 1 != right) {
        FAIL("PMIX_PROCESS_SET_DEFINE: left %d members, right %d (want 2 and 1)", left, right);
    }

    char *names;
    rc = query_string(PMIX_QUERY_PSET_NAMES, &names);
    if (NULL == names) {
        FAIL("query pset names: %s, no string", PMIx_Error_string(rc));
    } else if (NULL == strstr(names, "left") || NULL == strstr(names, "right")) {
        FAIL("pset names: %s", names);
    }
    free(names);

    pthread_mutex_lock(&lock);
    int seen = events;
    pthread_mutex_unlock(&lock);
    if (2 != seen) {
        FAIL("%d PMIX_PROCESS_SET_DEFINE events, want 2 (one per set)", seen);
    }
    rc = PMIx_Finalize(NULL, 0);
    if (PMIX_SUCCESS != rc) {
        FAIL("finalize: %s", PMIx_Error_string(rc));
    }
    if (0 == failures) {
        printf("pset event %u ok\n", me.rank);
    }
    return failures;
}
