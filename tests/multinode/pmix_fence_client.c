/* A PMIx client for a multi-node host that checks only what such a host
 * and either library must provide, so that it passes on the reference
 * OpenPMIx under Slurm 22.05 (srun --mpi=pmix) and proves the test cluster
 * itself right (tests/slurm.rs). Built against Debian's OpenPMIx headers.
 *
 *   pmix_fence_client [--no-collect] [--keys N] [--exit-early RANK]
 *                     [--exit-after-fence RANK]
 *
 * Each rank:
 *   - PMIx_Init, then prints which libpmix file it and its parent (the
 *     node's slurmstepd) mapped (libpmix_id.h);
 *   - reads PMIX_JOB_SIZE, PMIX_LOCAL_SIZE and PMIX_LOCAL_PEERS of the job
 *     (the peers list must hold LOCAL_SIZE ranks, this one among them), its
 *     own PMIX_HOSTNAME and PMIX_LOCAL_RANK (below LOCAL_SIZE);
 *   - puts its kernel host name and N string keys, commits, and fences with
 *     data collection, or with --no-collect without (each remote get is then
 *     a direct modex request);
 *   - gets every peer's host name and keys and checks their values; checks
 *     that a peer is in PMIX_LOCAL_PEERS exactly when it posted this host
 *     name, that PMIX_HOSTNAME is the same for two ranks exactly when they
 *     posted the same host name, and reads a local peer's PMIX_LOCAL_RANK;
 *   - fences once more (nobody leaves while others read) and finalizes.
 *
 * It prints "client rank R of N on HOST: ok" (rank 0 also "client: N ranks
 * on M hosts"), or names the first failure on stderr and exits 1. With
 * --exit-early RANK that rank calls _exit(3) right after PMIx_Init and its
 * first output, without finalizing; with --exit-after-fence RANK it does
 * so once the first fence has completed, while the others wait in the
 * next one. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "libpmix_id.h"

static pmix_proc_t me;

#define DIE(...)                                                                       \
    do {                                                                               \
        fprintf(stderr, "client rank %u: ", me.rank);                                  \
        fprintf(stderr, __VA_ARGS__);                                                  \
        fprintf(stderr, "\n");                                                         \
        exit(1);                                                                       \
    } while (0)

#define OK(expr)                                                                       \
    do {                                                                               \
        pmix_status_t rc_ = (expr);                                                    \
        if (PMIX_SUCCESS != rc_) {                                                     \
            DIE("%s: %s", #expr, PMIx_Error_string(rc_));                              \
        }                                                                              \
    } while (0)

/* PMIx_Get of a value of type t (the caller releases it). */
static pmix_value_t *fetch(const pmix_proc_t *p, const char *key, pmix_data_type_t t)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v) {
        DIE("PMIx_Get(%s:%d, %s): %s", p->nspace, (int) p->rank, key, PMIx_Error_string(rc));
    }
    if (t != v->type) {
        DIE("PMIx_Get(%s:%d, %s): type %s, want %s", p->nspace, (int) p->rank, key,
            PMIx_Data_type_string(v->type), PMIx_Data_type_string(t));
    }
    return v;
}

static uint32_t fetch_u32(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = fetch(p, key, PMIX_UINT32);
    uint32_t x = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    return x;
}

static uint16_t fetch_u16(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = fetch(p, key, PMIX_UINT16);
    uint16_t x = v->data.uint16;
    PMIX_VALUE_RELEASE(v);
    return x;
}

/* A string value, malloc'ed; "" for a NULL string. */
static char *fetch_str(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = fetch(p, key, PMIX_STRING);
    char *s = strdup(NULL == v->data.string ? "" : v->data.string);
    PMIX_VALUE_RELEASE(v);
    return s;
}

static void post(const char *key, const char *s)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, s, PMIX_STRING);
    OK(PMIx_Put(PMIX_GLOBAL, key, &v));
    PMIX_VALUE_DESTRUCT(&v);
}

/* Whether rank r is in the comma-separated list s, and its length. */
static bool listed(const char *s, uint32_t r)
{
    for (const char *p = s; '\0' != *p;) {
        char *end;
        unsigned long x = strtoul(p, &end, 10);
        if (end == p) {
            return false;
        }
        if (x == r) {
            return true;
        }
        p = ',' == *end ? end + 1 : end;
    }
    return false;
}

static uint32_t list_count(const char *s)
{
    uint32_t n = '\0' == *s ? 0 : 1;
    for (const char *p = s; '\0' != *p; p++) {
        n += ',' == *p;
    }
    return n;
}

int main(int argc, char **argv)
{
    bool collect = true;
    int nkeys = 4;
    long early = -1, after_fence = -1;
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], "--no-collect")) {
            collect = false;
        } else if (0 == strcmp(argv[i], "--keys") && i + 1 < argc) {
            nkeys = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--exit-early") && i + 1 < argc) {
            early = atol(argv[++i]);
        } else if (0 == strcmp(argv[i], "--exit-after-fence") && i + 1 < argc) {
            after_fence = atol(argv[++i]);
        } else {
            fprintf(stderr, "usage: pmix_fence_client [--no-collect] [--keys N] "
                            "[--exit-early RANK] [--exit-after-fence RANK]\n");
            return 2;
        }
    }

    OK(PMIx_Init(&me, NULL, 0));
    print_libpmix_ids((long) me.rank);
    if (early == (long) me.rank) {
        _exit(3);
    }

    pmix_proc_t wild, peer;
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    uint32_t n = fetch_u32(&wild, PMIX_JOB_SIZE);
    uint32_t lsize = fetch_u32(&wild, PMIX_LOCAL_SIZE);
    char *peers = fetch_str(&wild, PMIX_LOCAL_PEERS);
    if (list_count(peers) != lsize || !listed(peers, me.rank)) {
        DIE("PMIX_LOCAL_PEERS '%s' with PMIX_LOCAL_SIZE %u", peers, lsize);
    }
    char *my_hostname = fetch_str(&me, PMIX_HOSTNAME);
    uint16_t lrank = fetch_u16(&me, PMIX_LOCAL_RANK);
    if (lrank >= lsize) {
        DIE("PMIX_LOCAL_RANK %u, PMIX_LOCAL_SIZE %u", lrank, lsize);
    }

    char host[256];
    if (0 != gethostname(host, sizeof(host))) {
        DIE("gethostname");
    }
    host[sizeof(host) - 1] = '\0';
    char key[64], val[512];
    post("fc.host", host);
    for (int k = 0; k < nkeys; k++) {
        snprintf(key, sizeof(key), "fc.k%d", k);
        snprintf(val, sizeof(val), "rank %u key %d from %s", me.rank, k, host);
        post(key, val);
    }
    OK(PMIx_Commit());
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    OK(PMIx_Fence(&wild, 1, collect ? &info : NULL, collect ? 1 : 0));
    PMIX_INFO_DESTRUCT(&info);
    if (after_fence == (long) me.rank) {
        _exit(3);
    }

    char **hosts = calloc(n, sizeof(char *));
    uint32_t nhosts = 0;
    for (uint32_t r = 0; r < n; r++) {
        PMIX_PROC_LOAD(&peer, me.nspace, r);
        char *h = fetch_str(&peer, "fc.host");
        for (int k = 0; k < nkeys; k++) {
            snprintf(key, sizeof(key), "fc.k%d", k);
            snprintf(val, sizeof(val), "rank %u key %d from %s", r, k, h);
            char *got = fetch_str(&peer, key);
            if (0 != strcmp(got, val)) {
                DIE("%s of rank %u is '%s', want '%s'", key, r, got, val);
            }
            free(got);
        }
        bool same = 0 == strcmp(h, host);
        if (same != listed(peers, r)) {
            DIE("rank %u posted host %s (mine %s), PMIX_LOCAL_PEERS '%s'", r, h, host, peers);
        }
        char *hn = fetch_str(&peer, PMIX_HOSTNAME);
        if (same != (0 == strcmp(hn, my_hostname))) {
            DIE("rank %u posted host %s with PMIX_HOSTNAME %s; I am %s with %s", r, h, hn, host,
                my_hostname);
        }
        free(hn);
        if (same && fetch_u16(&peer, PMIX_LOCAL_RANK) >= lsize) {
            DIE("PMIX_LOCAL_RANK of local rank %u out of range", r);
        }
        bool seen = false;
        for (uint32_t s = 0; s < r; s++) {
            seen = seen || 0 == strcmp(hosts[s], h);
        }
        nhosts += !seen;
        hosts[r] = h;
    }

    printf("client rank %u of %u on %s: ok\n", me.rank, n, host);
    if (0 == me.rank) {
        printf("client: %u ranks on %u hosts\n", n, nhosts);
    }
    fflush(stdout);
    OK(PMIx_Fence(&wild, 1, NULL, 0));
    OK(PMIx_Finalize(NULL, 0));
    for (uint32_t r = 0; r < n; r++) {
        free(hosts[r]);
    }
    free(hosts);
    free(peers);
    free(my_hostname);
    return 0;
}
