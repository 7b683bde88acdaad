/* A PMIx client that OpenPMIx 3.x can run (tests/stock_v3.rs): it calls
 * only functions 3.2 exports and builds and frees its values by hand (the
 * 4.x macros call functions 3.2 does not have). Run on our library or on
 * the 3.2 inside Open MPI 4.1.8's libopen-pal.so.40 (under the name
 * libpmix.so.2), it reads PMIX_JOB_SIZE, puts "mixed.key" = 1000 + rank,
 * commits, fences with data collection, reads its right-hand peer's
 * key, fences again without collection, finalizes, and prints which
 * library it mapped ("mixed <rank> libpmix: PATH", "mixed <rank>
 * libopen-pal: PATH") and "mixed <rank> of <size> ok". Any failure exits
 * non-zero, naming the call. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"

static void fail(const pmix_proc_t *me, const char *what, pmix_status_t rc)
{
    fprintf(stderr, "mixed %u: %s: %s\n", me->rank, what, PMIx_Error_string(rc));
    exit(2);
}

/* The value of `key` of `proc` as a uint32, freed here. */
static uint32_t get_u32(const pmix_proc_t *me, const pmix_proc_t *proc, const char *key)
{
    pmix_value_t *val = NULL;
    pmix_status_t rc = PMIx_Get(proc, key, NULL, 0, &val);
    if (PMIX_SUCCESS != rc || NULL == val) {
        fail(me, key, rc);
    }
    if (PMIX_UINT32 != val->type) {
        fprintf(stderr, "mixed %u: %s has type %d\n", me->rank, key, (int) val->type);
        exit(3);
    }
    uint32_t v = val->data.uint32;
    free(val);
    return v;
}

int main(void)
{
    pmix_proc_t me, wild, peer;
    pmix_status_t rc;
    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        fprintf(stderr, "mixed: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    memset(&wild, 0, sizeof(wild));
    memcpy(wild.nspace, me.nspace, sizeof(wild.nspace));
    wild.rank = PMIX_RANK_WILDCARD;
    uint32_t size = get_u32(&me, &wild, PMIX_JOB_SIZE);

    pmix_value_t v;
    memset(&v, 0, sizeof(v));
    v.type = PMIX_UINT32;
    v.data.uint32 = 1000 + me.rank;
    if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, "mixed.key", &v))) {
        fail(&me, "put", rc);
    }
    if (PMIX_SUCCESS != (rc = PMIx_Commit())) {
        fail(&me, "commit", rc);
    }
    pmix_info_t collect;
    memset(&collect, 0, sizeof(collect));
    strncpy(collect.key, PMIX_COLLECT_DATA, PMIX_MAX_KEYLEN);
    collect.value.type = PMIX_BOOL;
    collect.value.data.flag = true;
    if (PMIX_SUCCESS != (rc = PMIx_Fence(&wild, 1, &collect, 1))) {
        fail(&me, "collecting fence", rc);
    }

    peer = wild;
    peer.rank = (me.rank + 1) % size;
    uint32_t got = get_u32(&me, &peer, "mixed.key");
    if (got != 1000 + peer.rank) {
        fprintf(stderr, "mixed %u: rank %u's key is %u\n", me.rank, peer.rank, got);
        return 4;
    }
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0))) {
        fail(&me, "fence", rc);
    }
    char who[32];
    snprintf(who, sizeof(who), "mixed %u", me.rank);
    print_libpmix(who, 0);
    print_mapped(who, 0, "libopen-pal");
    if (PMIX_SUCCESS != (rc = PMIx_Finalize(NULL, 0))) {
        fail(&me, "finalize", rc);
    }
    printf("mixed %u of %u ok\n", me.rank, size);
    return 0;
}
