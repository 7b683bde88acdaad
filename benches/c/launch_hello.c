/* launch_hello: the rank of benches/c/launch.sh. Takes CLOCK_REALTIME
 * right after PMIx_Init returns and prints it as
 *   launch_hello rank=<r> init_ns=<ns since the epoch>
 * then rank 0 prints which libpmix it mapped ("rank libpmix: <path>",
 * tests/interop/maps.h); then PMIx_Finalize. Written against the standard
 * API only: builds against our headers and OpenPMIx's. */
#include <pmix.h>

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "maps.h"

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "launch_hello: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("launch_hello rank=%u init_ns=%lld\n", me.rank,
           (long long) t.tv_sec * 1000000000LL + t.tv_nsec);
    fflush(stdout);
    if (0 == me.rank) {
        print_libpmix("rank", 0);
    }
    rc = PMIx_Finalize(NULL, 0);
    return PMIX_SUCCESS == rc ? 0 : 2;
}
