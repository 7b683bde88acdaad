/*
 * A rank of tests/chaos.rs on the C library: CHAOS_PLAN is
 * KIND:POINT:HOW:DELAY_US:VICTIM (POINT before, during or after). Every
 * rank initializes and fences (so that all are up, and the survivors deaf
 * to SIGTERM, before the victim may die); the victim then dies at its
 * point (SIGKILL, _exit(0) without finalizing, or _exit(3)) and prints
 * "chaos-kill RANK NS"; a survivor calls KIND until it fails and prints
 * "chaos-ret RANK STATUS NS" and "chaos-fin RANK STATUS" (NS:
 * CLOCK_MONOTONIC nanoseconds).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static pmix_proc_t me;
static char kind[32];

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long) ts.tv_sec * 1000000000ull + (unsigned long long) ts.tv_nsec;
}

/* One collective of KIND over the whole job; a disconnect is preceded
 * by a connect. */
static pmix_status_t collective(int round)
{
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    if (0 == strcmp(kind, "fence")) {
        return PMIx_Fence(&all, 1, NULL, 0);
    }
    if (0 == strcmp(kind, "fence_collect")) {
        pmix_info_t info;
        bool yes = true;
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        pmix_status_t rc = PMIx_Fence(&all, 1, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
        return rc;
    }
    if (0 == strcmp(kind, "connect")) {
        return PMIx_Connect(&all, 1, NULL, 0);
    }
    if (0 == strcmp(kind, "disconnect")) {
        pmix_status_t rc = PMIx_Connect(&all, 1, NULL, 0);
        return PMIX_SUCCESS == rc ? PMIx_Disconnect(&all, 1, NULL, 0) : rc;
    }
    if (0 == strcmp(kind, "group")) {
        char id[32];
        pmix_info_t *results = NULL;
        size_t nresults = 0;
        snprintf(id, sizeof(id), "cchaos%d", round);
        pmix_status_t rc = PMIx_Group_construct(id, &all, 1, NULL, 0, &results, &nresults);
        if (NULL != results) {
            PMIX_INFO_FREE(results, nresults);
        }
        return rc;
    }
    return PMIX_ERR_BAD_PARAM;
}

static void *in_thread(void *arg)
{
    (void) collective((int) (intptr_t) arg);
    return NULL;
}

static void die(const char *how)
{
    printf("chaos-kill %u %llu\n", me.rank, now_ns());
    fflush(stdout);
    if (0 == strcmp(how, "sigkill")) {
        raise(SIGKILL);
    }
    _exit(0 == strcmp(how, "exit0") ? 0 : 3);
}

int main(void)
{
    const char *plan = getenv("CHAOS_PLAN");
    char point[16], how[16];
    unsigned long delay_us;
    unsigned victim;
    if (NULL == plan
        || 5 != sscanf(plan, "%31[^:]:%15[^:]:%15[^:]:%lu:%u", kind, point, how, &delay_us, &victim)) {
        fprintf(stderr, "chaos_rank: bad CHAOS_PLAN\n");
        return 2;
    }
    const char *r = getenv("PMIX_RANK");
    int is_victim = NULL != r && (unsigned) atoi(r) == victim;
    if (!is_victim) {
        signal(SIGTERM, SIG_IGN);
    }
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "chaos_rank: init %d\n", rc);
        return 1;
    }
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS != (rc = PMIx_Fence(&all, 1, NULL, 0))) {
        fprintf(stderr, "chaos_rank: setup fence %d\n", rc);
        return 1;
    }
    int round = 0;
    if (0 == strcmp(point, "after")) {
        if (PMIX_SUCCESS != (rc = collective(round))) {
            fprintf(stderr, "chaos_rank: first round %d\n", rc);
            return 1;
        }
        round++;
    }
    if (is_victim) {
        if (0 == strcmp(point, "during")) {
            pthread_t t;
            pthread_create(&t, NULL, in_thread, (void *) (intptr_t) round);
        }
        /* The point of death, not a wait for anyone. */
        usleep((useconds_t) delay_us);
        die(how);
    }
    /* A victim that died just after contributing lets a round complete:
     * the next one must fail. */
    rc = PMIX_SUCCESS;
    for (int i = round; i < round + 3 && PMIX_SUCCESS == rc; i++) {
        rc = collective(i);
        if (PMIX_SUCCESS == rc) {
            printf("chaos-ok %u %d\n", me.rank, i);
        }
    }
    printf("chaos-ret %u %d %llu\n", me.rank, rc, now_ns());
    fflush(stdout);
    rc = PMIx_Finalize(NULL, 0);
    printf("chaos-fin %u %d\n", me.rank, rc);
    fflush(stdout);
    return 0;
}
