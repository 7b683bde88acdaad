/* Invite/join (PMIx_Group_invite, PMIx_Group_join) under a stock
 * server (tests/stock_hosts.rs), built against our headers and run on our
 * library or on the server's own OpenPMIx (for comparison).
 *
 * Every rank but 0 registers a handler for PMIX_GROUP_INVITED and
 * PMIX_GROUP_CONSTRUCT_COMPLETE; a fence makes sure all have. Rank 0 (the
 * leader) then invites every rank (itself included) to group
 * "stock-invite"; each other rank, once told, joins (PMIX_GROUP_ACCEPT)
 * and waits for the leader's word that the group is complete. Each rank
 * prints
 *
 *     rank R invite STATUS    (rank 0: PMIx_Group_invite's status)
 *     rank R members N        (rank 0: PMIX_GROUP_MEMBERSHIP of the
 *                              invite's results, if there; else "-")
 *     rank R invited by L     (the others: the event's source rank)
 *     rank R join STATUS      (the others: PMIx_Group_join's status)
 *     rank R complete from L  (the others: the leader's word)
 *
 * with STATUS a number, then fences and prints "ok rank R size N". A
 * watchdog ends a rank that waits more than 20 s in any step with
 * "rank R stuck in STEP" and exit status 2. */
#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;
static volatile const char *step = "init";
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int invited = 0, complete = 0;
static pmix_proc_t leader, completer;

static void *watchdog(void *arg)
{
    (void) arg;
    sleep(20);
    printf("rank %u stuck in %s\n", me.rank, (const char *) step);
    fflush(stdout);
    _exit(2);
    return NULL;
}

static void on_invited(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id;
    (void) info;
    (void) ninfo;
    (void) results;
    (void) nresults;
    pthread_mutex_lock(&lock);
    if (PMIX_GROUP_CONSTRUCT_COMPLETE == status) {
        if (NULL != source) {
            completer = *source;
        }
        complete = 1;
    } else {
        if (NULL != source) {
            leader = *source;
        }
        invited = 1;
    }
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void registered(pmix_status_t status, size_t ref, void *cbdata)
{
    (void) ref;
    *(pmix_status_t *) cbdata = status;
}

int main(void)
{
    pthread_t dog;
    pmix_status_t rc, reg = PMIX_ERR_TIMEOUT;
    pmix_status_t codes[2] = {PMIX_GROUP_INVITED, PMIX_GROUP_CONSTRUCT_COMPLETE};
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    uint32_t size;
    pmix_info_t *results = NULL;
    size_t nresults = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    pthread_create(&dog, NULL, watchdog, NULL);
    rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        printf("FAIL init: %d\n", rc);
        return 1;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS != PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val)) {
        printf("FAIL job size\n");
        return 1;
    }
    size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    if (0 != me.rank) {
        step = "register";
        PMIx_Register_event_handler(codes, 2, NULL, 0, on_invited, registered, &reg);
    }
    step = "first fence";
    rc = PMIx_Fence(&wild, 1, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        printf("FAIL fence: %d\n", rc);
        return 1;
    }
    if (0 == me.rank) {
        pmix_proc_t *procs = calloc(size, sizeof(pmix_proc_t));
        for (uint32_t r = 0; r < size; r++) {
            PMIX_LOAD_PROCID(&procs[r], me.nspace, r);
        }
        step = "invite";
        rc = PMIx_Group_invite("stock-invite", procs, size, NULL, 0, &results, &nresults);
        printf("rank %u invite %d\n", me.rank, rc);
        long members = -1;
        for (size_t i = 0; i < nresults; i++) {
            if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_MEMBERSHIP)
                && PMIX_DATA_ARRAY == results[i].value.type
                && NULL != results[i].value.data.darray) {
                members = (long) results[i].value.data.darray->size;
            }
        }
        if (members < 0) {
            printf("rank %u members -\n", me.rank);
        } else {
            printf("rank %u members %ld\n", me.rank, members);
        }
        free(procs);
    } else {
        step = "waiting for the invitation";
        pthread_mutex_lock(&lock);
        while (!invited) {
            pthread_cond_wait(&cond, &lock);
        }
        pthread_mutex_unlock(&lock);
        printf("rank %u invited by %u\n", me.rank, leader.rank);
        step = "join";
        rc = PMIx_Group_join("stock-invite", &leader, PMIX_GROUP_ACCEPT, NULL, 0, &results,
                             &nresults);
        printf("rank %u join %d\n", me.rank, rc);
        step = "waiting for the group's completion";
        pthread_mutex_lock(&lock);
        while (!complete) {
            pthread_cond_wait(&cond, &lock);
        }
        pthread_mutex_unlock(&lock);
        printf("rank %u complete from %u\n", me.rank, completer.rank);
    }
    if (NULL != results) {
        PMIX_INFO_FREE(results, nresults);
    }
    step = "last fence";
    rc = PMIx_Fence(&wild, 1, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        printf("FAIL last fence: %d\n", rc);
        return 1;
    }
    step = "finalize";
    PMIx_Finalize(NULL, 0);
    printf("ok rank %u size %u\n", me.rank, size);
    return 0;
}
