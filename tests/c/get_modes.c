/*
 * Copy, static and pointer gets of the same keys agree, and stay right
 * across collecting fences that change a peer's posted values (the
 * library caches values per generation of a namespace's data): each round
 * every rank posts a uint32 and a string under the same keys with new
 * values, fences with PMIX_COLLECT_DATA, and reads its peer's values and
 * a job-level key in the three modes, many times each. Exits 0 on success.
 */
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pmix_proc_t me;

#define FAIL(...)                                                                  \
    do {                                                                           \
        fprintf(stderr, "get_modes rank %u: ", me.rank);                           \
        fprintf(stderr, __VA_ARGS__);                                              \
        fprintf(stderr, "\n");                                                     \
        exit(1);                                                                   \
    } while (0)

/* Reads `key` of `p` in the three modes and checks it is `want`. */
static void check_u32(const pmix_proc_t *p, const char *key, uint32_t want, int round)
{
    bool t = true;
    pmix_info_t sinfo, pinfo;
    PMIX_INFO_CONSTRUCT(&sinfo);
    PMIX_INFO_CONSTRUCT(&pinfo);
    PMIX_INFO_LOAD(&sinfo, PMIX_GET_STATIC_VALUES, &t, PMIX_BOOL);
    PMIX_INFO_LOAD(&pinfo, PMIX_GET_POINTER_VALUES, &t, PMIX_BOOL);
    for (int i = 0; i < 50; i++) {
        pmix_value_t *v = NULL;
        if (PMIX_SUCCESS != PMIx_Get(p, key, NULL, 0, &v) || PMIX_UINT32 != v->type ||
            want != v->data.uint32) {
            FAIL("round %d: copy get of %s of %u: want %u", round, key, p->rank, want);
        }
        PMIX_VALUE_RELEASE(v);
        pmix_value_t sv;
        PMIX_VALUE_CONSTRUCT(&sv);
        v = &sv;
        if (PMIX_SUCCESS != PMIx_Get(p, key, &sinfo, 1, &v) || PMIX_UINT32 != sv.type ||
            want != sv.data.uint32) {
            FAIL("round %d: static get of %s of %u: want %u", round, key, p->rank, want);
        }
        v = NULL;
        if (PMIX_SUCCESS != PMIx_Get(p, key, &pinfo, 1, &v) || PMIX_UINT32 != v->type ||
            want != v->data.uint32) {
            FAIL("round %d: pointer get of %s of %u: want %u", round, key, p->rank, want);
        }
    }
    PMIX_INFO_DESTRUCT(&sinfo);
    PMIX_INFO_DESTRUCT(&pinfo);
}

int main(void)
{
    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "get_modes: init failed\n");
        return 1;
    }
    pmix_proc_t wild, peer;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    if (PMIX_SUCCESS != PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v)) {
        FAIL("job size");
    }
    uint32_t n = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % n);
    pmix_info_t collect;
    bool t = true;
    PMIX_INFO_CONSTRUCT(&collect);
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    for (int round = 0; round < 8; round++) {
        pmix_value_t pv;
        PMIX_VALUE_CONSTRUCT(&pv);
        pv.type = PMIX_UINT32;
        pv.data.uint32 = me.rank * 100 + (uint32_t) round;
        if (PMIX_SUCCESS != PMIx_Put(PMIX_GLOBAL, "modes.u32", &pv)) {
            FAIL("put");
        }
        char s[64];
        snprintf(s, sizeof s, "rank-%u-round-%d", me.rank, round);
        pv.type = PMIX_STRING;
        pv.data.string = s;
        if (PMIX_SUCCESS != PMIx_Put(PMIX_GLOBAL, "modes.str", &pv)) {
            FAIL("put");
        }
        if (PMIX_SUCCESS != PMIx_Commit() || PMIX_SUCCESS != PMIx_Fence(NULL, 0, &collect, 1)) {
            FAIL("commit/fence %d", round);
        }
        check_u32(&peer, "modes.u32", peer.rank * 100 + (uint32_t) round, round);
        check_u32(&wild, PMIX_JOB_SIZE, n, round);
        snprintf(s, sizeof s, "rank-%u-round-%d", peer.rank, round);
        v = NULL;
        if (PMIX_SUCCESS != PMIx_Get(&peer, "modes.str", NULL, 0, &v) || PMIX_STRING != v->type ||
            0 != strcmp(s, v->data.string)) {
            FAIL("round %d: modes.str of %u", round, peer.rank);
        }
        PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&collect);
    if (PMIX_SUCCESS != PMIx_Fence(NULL, 0, NULL, 0) || PMIX_SUCCESS != PMIx_Finalize(NULL, 0)) {
        FAIL("finalize");
    }
    return 0;
}
