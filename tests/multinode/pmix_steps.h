/* Steps the multi-node PMIx programs (orte_event.c, pmix_wireup.c,
 * slurm_bench.c) share: a clock for timing, a string put and a fence with
 * or without data collection. The PMIx calls are checked with the
 * includer's STEP_MUST(expr), which ends the program unless expr is
 * PMIX_SUCCESS: define it before including this. */
#ifndef MULTINODE_PMIX_STEPS_H
#define MULTINODE_PMIX_STEPS_H

#include <stdbool.h>
#include <time.h>

#include <pmix.h>

#ifndef STEP_MUST
#error "define STEP_MUST(expr) before including pmix_steps.h"
#endif

/* Microseconds on the monotonic clock. */
static inline double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

/* Puts the string s under key, globally. */
static inline void put_str(const char *key, const char *s)
{
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, s, PMIX_STRING);
    STEP_MUST(PMIx_Put(PMIX_GLOBAL, key, &val));
    PMIX_VALUE_DESTRUCT(&val);
}

/* A fence over the whole job, collecting the data put when collect. */
static inline void fence(bool collect)
{
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    STEP_MUST(PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0));
    PMIX_INFO_DESTRUCT(&info);
}

#endif
