/* How the C clients of stock (OpenPMIx) servers stop on a failed call,
 * and how they start:
 *
 *   MUST(rc, what)          prints "FAIL <what>: <status string>" on
 *                           stdout and exits 1 unless rc is PMIX_SUCCESS;
 *   must_init(me, wild)     PMIx_Init into *me (both MUST succeed), *wild
 *                           its namespace's wildcard: the job's size.
 *
 * Only the stable PMIx API is used, so that it compiles against our
 * headers and any OpenPMIx's. */
#ifndef TESTS_C_MUST_H
#define TESTS_C_MUST_H

#include <stdio.h>
#include <stdlib.h>

#include <pmix.h>

#define MUST(rc, what)                                             \
    do {                                                           \
        pmix_status_t rc_ = (rc);                                  \
        if (PMIX_SUCCESS != rc_) {                                 \
            printf("FAIL %s: %s\n", what, PMIx_Error_string(rc_)); \
            fflush(stdout);                                        \
            exit(1);                                               \
        }                                                          \
    } while (0)

/* PMIx_Init into *me and the job's size (PMIX_JOB_SIZE of *wild, which
 * becomes me's namespace's wildcard); exits 1 if either fails. */
static inline uint32_t must_init(pmix_proc_t *me, pmix_proc_t *wild)
{
    pmix_value_t *val = NULL;
    uint32_t size;

    MUST(PMIx_Init(me, NULL, 0), "init");
    PMIX_LOAD_PROCID(wild, me->nspace, PMIX_RANK_WILDCARD);
    MUST(PMIx_Get(wild, PMIX_JOB_SIZE, NULL, 0, &val), "get job size");
    size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    return size;
}

#endif
