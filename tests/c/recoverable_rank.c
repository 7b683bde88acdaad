/* A rank of tests/pmixrun_modes.rs under `pmixrun --recoverable`: member
 * loss. Usage: recoverable_rank exit|status|kill.
 * - every rank initialises and fences (the others with a handler for
 *   PMIX_ERR_PROC_ABORTED registered);
 * - rank 1 then leaves without PMIx_Finalize: `exit` exits 0,
 *   `status` exits 3, `kill` dies of SIGKILL;
 * - every other rank constructs a group of the whole job (which must
 *   fail: rank 1 leaves), waits for the event naming rank 1, fences with the other survivors,
 *   finalizes and prints "survivor R ok".
 * Every wait is bounded (30 s). Exits with the number of failed checks. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#define CHECK_NAME "survivor"
#define CHECK_RANKED
#define CHECK_COUNTS
#include "check.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int lost_rank = -1;

static void aborted(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t *results, size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id, (void) status, (void) source, (void) results, (void) nresults;
    /* Completed first, the arguments read after, as OpenPMIx's
     * examples/fault.c does: they stay valid until the handler returns. */
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && PMIX_PROC == info[i].value.type
            && 1 == info[i].value.data.proc->rank) {
            lost_rank = 1;
        }
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "exit";
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (1 != me.rank) {
        pmix_status_t code = PMIX_ERR_PROC_ABORTED;
        rc = PMIx_Register_event_handler(&code, 1, NULL, 0, aborted, NULL, NULL);
        if (rc < 0) {
            FAIL("register: %s", PMIx_Error_string(rc));
        }
    }
    /* Every rank is connected (the launcher's event reaches those
     * connected) before rank 1 leaves. */
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        FAIL("fence: %s", PMIx_Error_string(rc));
    }
    if (1 == me.rank) {
        if (0 == strcmp(mode, "kill")) {
            raise(SIGKILL);
        }
        _exit(0 == strcmp(mode, "status") ? 3 : 0);
    }

    /* A group of the whole job: rank 1 leaves, so it fails (bounded). */
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t tmo;
    int secs = 30;
    PMIX_INFO_LOAD(&tmo, PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    rc = PMIx_Group_construct("whole", &all, 1, &tmo, 1, &results, &nresults);
    if (PMIX_SUCCESS == rc) {
        FAIL("a group with a lost member was constructed");
    }

    /* The launcher's word on rank 1. */
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += 30;
    pthread_mutex_lock(&lock);
    while (lost_rank < 0) {
        if (0 != pthread_cond_timedwait(&cond, &lock, &end)) {
            break;
        }
    }
    int lost = lost_rank;
    pthread_mutex_unlock(&lock);
    if (1 != lost) {
        FAIL("no PMIX_ERR_PROC_ABORTED about rank 1");
    }

    /* The survivors go on together. */
    uint32_t size = 0;
    pmix_value_t *v = NULL;
    if (PMIX_SUCCESS == PMIx_Get(&all, PMIX_JOB_SIZE, NULL, 0, &v)) {
        size = v->data.uint32;
        PMIX_VALUE_RELEASE(v);
    }
    pmix_proc_t *alive = calloc(size, sizeof(pmix_proc_t));
    size_t n = 0;
    for (uint32_t r = 0; r < size; r++) {
        if (1 != r) {
            PMIX_LOAD_PROCID(&alive[n], me.nspace, r);
            n++;
        }
    }
    rc = PMIx_Fence(alive, n, &tmo, 1);
    if (PMIX_SUCCESS != rc) {
        FAIL("fence of the survivors: %s", PMIx_Error_string(rc));
    }
    free(alive);
    rc = PMIx_Finalize(NULL, 0);
    if (PMIX_SUCCESS != rc) {
        FAIL("finalize: %s", PMIx_Error_string(rc));
    }
    if (0 == failures) {
        printf("survivor %u ok\n", me.rank);
    }
    return failures;
}
