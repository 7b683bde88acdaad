/* A C client for tests/pmixrun.rs: launched by pmixrun, built against our
 * headers or, unchanged, against the reference OpenPMIx headers, and linked
 * with our libpmix.so.2. Checks the identity, job keys (types and values),
 * a put in two scopes, commit, a collecting fence and every peer's data,
 * then finalizes and prints "c client R of N ok". Exits with the number of
 * failed checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static int failures = 0;
static pmix_proc_t me;

#define FAIL(...)                                                   \
    do {                                                            \
        fprintf(stderr, "c client %u: line %d: ", me.rank, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                               \
        fprintf(stderr, "\n");                                      \
        failures++;                                                 \
    } while (0)

static pmix_value_t *get(const pmix_proc_t *p, const char *key, pmix_data_type_t type)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    if (PMIX_SUCCESS != rc) {
        FAIL("get %s of rank %u: %s", key, p->rank, PMIx_Error_string(rc));
        return NULL;
    }
    if (v->type != type) {
        FAIL("get %s: type %u, want %u", key, (unsigned) v->type, (unsigned) type);
        PMIX_VALUE_RELEASE(v);
        return NULL;
    }
    return v;
}

static void check_u32(const pmix_proc_t *p, const char *key, uint32_t want)
{
    pmix_value_t *v = get(p, key, PMIX_UINT32);
    if (v) {
        if (v->data.uint32 != want) {
            FAIL("%s = %u, want %u", key, v->data.uint32, want);
        }
        PMIX_VALUE_RELEASE(v);
    }
}

static void check_u16(const pmix_proc_t *p, const char *key, uint16_t want)
{
    pmix_value_t *v = get(p, key, PMIX_UINT16);
    if (v) {
        if (v->data.uint16 != want) {
            FAIL("%s = %u, want %u", key, v->data.uint16, want);
        }
        PMIX_VALUE_RELEASE(v);
    }
}

int main(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    const char *env_rank = getenv("PMIX_RANK");
    if (!env_rank || (uint32_t) atoi(env_rank) != me.rank) {
        FAIL("rank %u, environment says %s", me.rank, env_rank ? env_rank : "nothing");
    }
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);

    uint32_t n = 0;
    pmix_value_t *v = get(&wild, PMIX_JOB_SIZE, PMIX_UINT32);
    if (v) {
        n = v->data.uint32;
        PMIX_VALUE_RELEASE(v);
    }
    check_u32(&wild, PMIX_LOCAL_SIZE, n);
    check_u32(&wild, PMIX_UNIV_SIZE, n);
    check_u32(&me, PMIX_APPNUM, 0);
    check_u32(&me, PMIX_NODEID, 0);
    check_u16(&me, PMIX_LOCAL_RANK, (uint16_t) me.rank);
    check_u16(&me, PMIX_NODE_RANK, (uint16_t) me.rank);
    v = get(&wild, PMIX_LOCAL_PEERS, PMIX_STRING);
    if (v) {
        char want[4096] = "";
        for (uint32_t r = 0; r < n; r++) {
            snprintf(want + strlen(want), sizeof(want) - strlen(want), r ? ",%u" : "%u", r);
        }
        if (strcmp(v->data.string, want) != 0) {
            FAIL("local peers %s, want %s", v->data.string, want);
        }
        PMIX_VALUE_RELEASE(v);
    }
    v = get(&me, PMIX_HOSTNAME, PMIX_STRING);
    if (v) {
        PMIX_VALUE_RELEASE(v);
    }

    pmix_value_t put;
    PMIX_VALUE_LOAD(&put, &me.rank, PMIX_UINT32);
    if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, "c.global", &put))) {
        FAIL("put: %s", PMIx_Error_string(rc));
    }
    char text[64];
    snprintf(text, sizeof(text), "local-%u", me.rank);
    PMIX_VALUE_LOAD(&put, text, PMIX_STRING);
    if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_LOCAL, "c.local", &put))) {
        FAIL("put: %s", PMIx_Error_string(rc));
    }
    PMIX_VALUE_DESTRUCT(&put);
    if (PMIX_SUCCESS != (rc = PMIx_Commit())) {
        FAIL("commit: %s", PMIx_Error_string(rc));
    }
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, &collect, 1))) {
        FAIL("fence: %s", PMIx_Error_string(rc));
    }
    for (uint32_t r = 0; r < n; r++) {
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        check_u32(&peer, "c.global", r);
        v = get(&peer, "c.local", PMIX_STRING);
        if (v) {
            snprintf(text, sizeof(text), "local-%u", r);
            if (strcmp(v->data.string, text) != 0) {
                FAIL("c.local of %u = %s", r, v->data.string);
            }
            PMIX_VALUE_RELEASE(v);
        }
    }
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0))) {
        FAIL("last fence: %s", PMIx_Error_string(rc));
    }
    if (PMIX_SUCCESS != (rc = PMIx_Finalize(NULL, 0))) {
        FAIL("finalize: %s", PMIx_Error_string(rc));
    }
    if (0 == failures) {
        printf("c client %u of %u ok\n", me.rank, n);
    }
    return failures;
}
