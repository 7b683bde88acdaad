/* The debugged job's program (tests/debugger.rs): prints "before init
 * RANK", calls PMIx_Init (where a job started with
 * PMIX_DEBUG_STOP_IN_INIT waits for PMIX_DEBUGGER_RELEASE), prints
 * "after init RANK", fences with the other ranks and finalizes. Each
 * line is flushed at once: the test reads them as they come. Exits 1 on
 * any failure. */
#include <stdio.h>
#include <stdlib.h>

#include <pmix.h>

int main(void)
{
    pmix_proc_t me, all;
    pmix_status_t rc;
    const char *rank = getenv("PMIX_RANK");

    printf("before init %s\n", rank ? rank : "?");
    fflush(stdout);
    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        fprintf(stderr, "debugger_target: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("after init %u\n", me.rank);
    fflush(stdout);
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS != (rc = PMIx_Fence(&all, 1, NULL, 0))) {
        fprintf(stderr, "debugger_target: PMIx_Fence: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (PMIX_SUCCESS != (rc = PMIx_Finalize(NULL, 0))) {
        fprintf(stderr, "debugger_target: PMIx_Finalize: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    return 0;
}
