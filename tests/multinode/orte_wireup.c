/* A PMIx client's wire-up across the nodes of an Open MPI 4.1 `mpirun` job,
 * built against Debian's OpenPMIx headers and run on either library: what
 * Open MPI's own mpirun gives on both (tests/multinode/pmix_wireup.c checks
 * more, some of which mpirun does not register).
 *
 *   orte_wireup [--no-collect] [--keys N]
 *
 * Every rank prints "orte_wireup rank R of N on HOST pid P" and which libpmix
 * it and its parent (the node's orted) mapped ("rank libpmix: PATH", "orted
 * libpmix: PATH"). It puts its host name (gethostname: the node's) and N
 * keys (default 4), commits, and fences with data collection (without, with
 * --no-collect: every remote get then goes through direct modex). Then, for
 * every peer: every key with its value; PMIX_HOSTNAME, which must be the host
 * name the peer posted (mpirun names the nodes as --host does, and each node
 * runs under that host name); the peer is in PMIX_LOCAL_PEERS exactly when it
 * posted this rank's host name; PMIX_LOCAL_RANK, PMIX_NODE_RANK present;
 * PMIX_GLOBAL_RANK its rank. And PMIX_JOB_SIZE, PMIX_LOCAL_SIZE (the number
 * of local peers), PMIX_NUM_NODES (the number of distinct host names posted).
 *
 * Each rank prints "orte_wireup rank R of N on HOST: ok" and a timing line
 * "orte_wireup rank R times: fence_us=F remote_get_us=G" (G: the first get
 * of a key of a rank on another node, -1 without one), or names the first
 * mismatch on stderr and exits 1. Rank 0 also prints "orte_wireup: N ranks
 * on M nodes, collect|no collect".
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "maps.h"

static pmix_proc_t me;

#define FAIL(...)                                                  \
    do {                                                           \
        fprintf(stderr, "orte_wireup rank %u: ", me.rank);         \
        fprintf(stderr, __VA_ARGS__);                              \
        fprintf(stderr, "\n");                                     \
        exit(1);                                                   \
    } while (0)

#define CHECK(expr)                                                             \
    do {                                                                        \
        pmix_status_t rc_ = (expr);                                             \
        if (PMIX_SUCCESS != rc_) {                                              \
            FAIL("%s: %s", #expr, PMIx_Error_string(rc_));                      \
        }                                                                       \
    } while (0)

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

/* PMIx_Get that must succeed with a value of type t. */
static pmix_value_t *get_typed(const pmix_proc_t *p, const char *key, pmix_data_type_t t)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v) {
        FAIL("get %s of rank %d: %s", key, (int) p->rank, PMIx_Error_string(rc));
    }
    if (t != v->type) {
        FAIL("get %s of rank %d: type %s, want %s", key, (int) p->rank,
             PMIx_Data_type_string(v->type), PMIx_Data_type_string(t));
    }
    return v;
}

static uint32_t get_u32(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = get_typed(p, key, PMIX_UINT32);
    uint32_t x = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    return x;
}

/* A string key, malloc'ed; a NULL string is a failure here. */
static char *get_str(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = get_typed(p, key, PMIX_STRING);
    if (NULL == v->data.string) {
        FAIL("get %s of rank %d: NULL string", key, (int) p->rank);
    }
    char *s = strdup(v->data.string);
    PMIX_VALUE_RELEASE(v);
    return s;
}

/* A rank-valued key: mpirun registers them as PMIX_PROC_RANK. */
static uint32_t get_rank(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v) {
        FAIL("get %s of rank %d: %s", key, (int) p->rank, PMIx_Error_string(rc));
    }
    uint32_t x;
    if (PMIX_PROC_RANK == v->type) {
        x = v->data.rank;
    } else if (PMIX_UINT32 == v->type) {
        x = v->data.uint32;
    } else {
        FAIL("get %s of rank %d: type %s", key, (int) p->rank, PMIx_Data_type_string(v->type));
    }
    PMIX_VALUE_RELEASE(v);
    return x;
}

/* Whether rank r is in the comma-separated list s. */
static bool in_list(const char *s, uint32_t r)
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

static void put_str(const char *key, const char *s)
{
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, s, PMIX_STRING);
    CHECK(PMIx_Put(PMIX_GLOBAL, key, &val));
    PMIX_VALUE_DESTRUCT(&val);
}

int main(int argc, char **argv)
{
    bool collect = true;
    int nkeys = 4;
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], "--no-collect")) {
            collect = false;
        } else if (0 == strcmp(argv[i], "--keys") && i + 1 < argc) {
            nkeys = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: orte_wireup [--no-collect] [--keys N]\n");
            return 2;
        }
    }
    char host[256];
    if (0 != gethostname(host, sizeof(host))) {
        snprintf(host, sizeof(host), "?");
    }
    host[sizeof(host) - 1] = '\0';

    CHECK(PMIx_Init(&me, NULL, 0));
    pmix_proc_t wild, peer;
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    uint32_t n = get_u32(&wild, PMIX_JOB_SIZE);
    printf("orte_wireup rank %u of %u on %s pid %d\n", me.rank, n, host, (int) getpid());
    fflush(stdout);
    print_libpmix("rank", 0);
    print_libpmix("orted", getppid());

    uint32_t lsize = get_u32(&wild, PMIX_LOCAL_SIZE);
    uint32_t nnodes = get_u32(&wild, PMIX_NUM_NODES);
    char *peers = get_str(&wild, PMIX_LOCAL_PEERS);
    char *my_host = get_str(&me, PMIX_HOSTNAME);
    if (0 != strcmp(my_host, host)) {
        FAIL("PMIX_HOSTNAME is %s, the node is %s", my_host, host);
    }
    if (!in_list(peers, me.rank)) {
        FAIL("not in my own PMIX_LOCAL_PEERS '%s'", peers);
    }

    char key[64], buf[512];
    put_str("orte_wireup.host", host);
    for (int k = 0; k < nkeys; k++) {
        snprintf(key, sizeof(key), "orte_wireup.k%d", k);
        snprintf(buf, sizeof(buf), "rank %u key %d on %s", me.rank, k, host);
        put_str(key, buf);
    }
    CHECK(PMIx_Commit());
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    double t0 = now_us();
    CHECK(PMIx_Fence(&wild, 1, collect ? &info : NULL, collect ? 1 : 0));
    double fence_us = now_us() - t0;
    PMIX_INFO_DESTRUCT(&info);

    double remote_get_us = -1;
    uint32_t local = 0, distinct = 0;
    char **hosts = calloc(n, sizeof(char *));
    for (uint32_t r = 0; r < n; r++) {
        PMIX_PROC_LOAD(&peer, me.nspace, r);
        t0 = now_us();
        char *h = get_str(&peer, "orte_wireup.host");
        double took = now_us() - t0;
        bool same_node = 0 == strcmp(h, host);
        if (!same_node && remote_get_us < 0) {
            remote_get_us = took;
        }
        for (int k = 0; k < nkeys; k++) {
            snprintf(key, sizeof(key), "orte_wireup.k%d", k);
            snprintf(buf, sizeof(buf), "rank %u key %d on %s", r, k, h);
            char *got = get_str(&peer, key);
            if (0 != strcmp(got, buf)) {
                FAIL("%s of rank %u: '%s', want '%s'", key, r, got, buf);
            }
            free(got);
        }
        char *rh = get_str(&peer, PMIX_HOSTNAME);
        if (0 != strcmp(rh, h)) {
            FAIL("PMIX_HOSTNAME of rank %u is %s, the rank runs on %s", r, rh, h);
        }
        if (same_node != in_list(peers, r)) {
            FAIL("rank %u runs on %s, I on %s: PMIX_LOCAL_PEERS '%s' says otherwise", r, h, host,
                 peers);
        }
        pmix_value_t *v = get_typed(&peer, PMIX_LOCAL_RANK, PMIX_UINT16);
        PMIX_VALUE_RELEASE(v);
        v = get_typed(&peer, PMIX_NODE_RANK, PMIX_UINT16);
        PMIX_VALUE_RELEASE(v);
        if (get_rank(&peer, PMIX_GLOBAL_RANK) != r) {
            FAIL("PMIX_GLOBAL_RANK of rank %u", r);
        }
        local += same_node;
        bool seen = false;
        for (uint32_t s = 0; s < r && !seen; s++) {
            seen = 0 == strcmp(hosts[s], h);
        }
        distinct += !seen;
        hosts[r] = h;
        free(rh);
    }
    if (local != lsize) {
        FAIL("PMIX_LOCAL_SIZE is %u, %u ranks posted my host name", lsize, local);
    }
    if (distinct != nnodes) {
        FAIL("PMIX_NUM_NODES is %u, the ranks posted %u host names", nnodes, distinct);
    }

    printf("orte_wireup rank %u of %u on %s: ok\n", me.rank, n, host);
    printf("orte_wireup rank %u times: fence_us=%.1f remote_get_us=%.1f\n", me.rank, fence_us,
           remote_get_us);
    if (0 == me.rank) {
        printf("orte_wireup: %u ranks on %u nodes, %s\n", n, nnodes,
               collect ? "collect" : "no collect");
    }
    fflush(stdout);
    /* Nobody leaves while a peer may still ask for its data. */
    CHECK(PMIx_Fence(&wild, 1, NULL, 0));
    for (uint32_t r = 0; r < n; r++) {
        free(hosts[r]);
    }
    free(hosts);
    free(peers);
    free(my_host);
    CHECK(PMIx_Finalize(NULL, 0));
    return 0;
}
