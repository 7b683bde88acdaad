/* A plain PMIx client for the Python server (py_server.py): init, job size,
 * put + commit + fence with data collection, every peer's value, finalize.
 * Rank 0 prints which libpmix it mapped. Exits non-zero on failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "maps.h"

#define CHECK(expr)                                                                  \
    do {                                                                             \
        pmix_status_t rc_ = (expr);                                                  \
        if (PMIX_SUCCESS != rc_) {                                                   \
            fprintf(stderr, "client: %s: %s\n", #expr, PMIx_Error_string(rc_));      \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

int main(void)
{
    pmix_proc_t me, wild, peer;
    pmix_value_t val, *v = NULL;
    pmix_info_t collect;
    bool yes = true;
    char buf[64];

    CHECK(PMIx_Init(&me, NULL, 0));
    if (0 == me.rank) {
        print_libpmix("client", 0);
    }
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v));
    uint32_t n = v->data.uint32;
    PMIX_VALUE_RELEASE(v);

    snprintf(buf, sizeof(buf), "c-%u", me.rank);
    PMIX_VALUE_LOAD(&val, buf, PMIX_STRING);
    CHECK(PMIx_Put(PMIX_GLOBAL, "interop.c", &val));
    PMIX_VALUE_DESTRUCT(&val);
    CHECK(PMIx_Commit());
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK(PMIx_Fence(&wild, 1, &collect, 1));
    for (uint32_t r = 0; r < n; r++) {
        PMIX_PROC_LOAD(&peer, me.nspace, r);
        CHECK(PMIx_Get(&peer, "interop.c", NULL, 0, &v));
        snprintf(buf, sizeof(buf), "c-%u", r);
        if (PMIX_STRING != v->type || 0 != strcmp(buf, v->data.string)) {
            fprintf(stderr, "client %u: rank %u's value wrong\n", me.rank, r);
            exit(1);
        }
        PMIX_VALUE_RELEASE(v);
    }
    CHECK(PMIx_Finalize(NULL, 0));
    printf("c client %u of %u ok\n", me.rank, n);
    return 0;
}
