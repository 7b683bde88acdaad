/* A PMIx client for multi-node hosts (Slurm's srun --mpi=pmix, Open MPI's
 * mpirun across nodes), built against Debian's OpenPMIx headers and run on
 * either library: the one client of tests/slurm.rs and tests/mpirun_nodes.rs,
 * which run it on the reference OpenPMIx 4.2.2 too (without --ours) to
 * prove their fixtures.
 *
 *   pmix_wireup [--ours] [--no-collect] [--keys N] [--times]
 *               [--exit-early RANK] [--exit-after-fence RANK]
 *
 * Every rank puts its host name (as gethostname() sees it), its node id (as
 * PMIx_Get says) and N data keys (default 4), commits, and fences with data
 * collection (or, with --no-collect, without: every remote get then goes
 * through direct modex). It then reads, for every peer:
 *   - the peer's posted data (each of the N keys, with its value);
 *   - PMIX_HOSTNAME and PMIX_NODEID, which must equal what the peer posted
 *     of itself (a host that gives a remote rank the registering node's id
 *     or name fails here; the reference has no PMIX_NODEID of a remote rank
 *     under mpirun, so without --ours it is checked where given);
 *   - PMIX_LOCAL_RANK and PMIX_NODE_RANK (uint16), of a peer on the same
 *     node only unless --ours (Slurm registers them for local ranks only);
 *   - PMIX_APPNUM (a uint32 with --ours; without, a PMIX_INT as Slurm
 *     registers it, a rank or a uint32 also do) and PMIX_GLOBAL_RANK;
 *   - with --ours, for a peer on the same node: PMIX_LOCALITY_STRING
 *     (present, a string, NULL for an unbound process).
 * and the job-level keys Open MPI reads: PMIX_JOB_SIZE, PMIX_UNIV_SIZE,
 * PMIX_LOCAL_SIZE, PMIX_LOCAL_PEERS (whose ranks must be exactly the peers
 * that posted this host name), PMIX_LOCALLDR, PMIX_LOCAL_PROCS (where
 * given; with --ours it must be),
 * PMIX_NUM_NODES (the number of distinct host names posted).
 *
 * --ours asks for what our library derives where the reference relies on
 * the host (which Slurm and Open MPI 4.1 do not give): PMIX_LOCAL_PROCS,
 * every local peer's PMIX_LOCALITY_STRING, every remote peer's
 * PMIX_NODEID, PMIX_LOCAL_RANK and PMIX_NODE_RANK, PMIX_APPNUM as a uint32.
 *
 * With --exit-early RANK that rank calls _exit(3) right after PMIx_Init
 * (and its libpmix-id lines), without finalizing; with --exit-after-fence
 * RANK it does so once the first fence has completed, while the others
 * wait in the next one. The host must end the job with an error, and the
 * others must not hang (the fence they are in fails or the host kills
 * them).
 *
 * Each rank prints "wireup rank R of N on HOST (node ID): ok" and exits 0,
 * or names the first mismatch on stderr and exits 1. Rank 0 also prints
 * "wireup: N ranks on M nodes". With --times each rank also prints
 * "wireup rank R times: fence_us=F remote_get_us=G" (F: the first fence;
 * G: the first get of a key of a rank on another node, -1 without one: with
 * --no-collect, the direct-modex round trip). Every rank first prints which
 * libpmix it and its parent (the server: slurmstepd, orted) mapped, by
 * device and inode (libpmix_id.h), for the test to compare with the
 * library it meant.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "libpmix_id.h"
#include "rank_list.h"

#define CHECK_NAME "wireup rank"
#define CHECK_RANKED
#include "../c/check.h"
#define STEP_MUST(expr) CHECK(expr)
#include "pmix_steps.h"

/* PMIx_Get that must succeed, with the value's type checked. */
static pmix_value_t *get_typed(const pmix_proc_t *p, const char *key, pmix_data_type_t t)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v) {
        FAIL("get %s of %s:%d: %s", key, p->nspace, (int) p->rank, PMIx_Error_string(rc));
    }
    if (v->type != t) {
        FAIL("get %s of %s:%d: type %s, want %s", key, p->nspace, (int) p->rank,
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

static uint16_t get_u16(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = get_typed(p, key, PMIX_UINT16);
    uint16_t x = v->data.uint16;
    PMIX_VALUE_RELEASE(v);
    return x;
}

/* A string key, malloc'ed (NULL for a NULL string). */
static char *get_str(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = get_typed(p, key, PMIX_STRING);
    char *s = NULL == v->data.string ? NULL : strdup(v->data.string);
    PMIX_VALUE_RELEASE(v);
    return s;
}

/* A rank or uint32 (hosts register some keys in either type). */
static uint32_t get_rankish(const pmix_proc_t *p, const char *key)
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
    } else if (PMIX_INT == v->type) {
        x = (uint32_t) v->data.integer;
    } else {
        FAIL("get %s of rank %d: type %s", key, (int) p->rank, PMIx_Data_type_string(v->type));
    }
    PMIX_VALUE_RELEASE(v);
    return x;
}

static size_t list_len(const char *s)
{
    size_t n = 0;
    for (const char *p = s; NULL != p && '\0' != *p; p++) {
        n += ',' == *p;
    }
    return NULL == s || '\0' == *s ? 0 : n + 1;
}

int main(int argc, char **argv)
{
    bool collect = true;
    int nkeys = 4;
    long exit_early = -1, exit_after_fence = -1;
    bool ours = false, times = false;
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], "--no-collect")) {
            collect = false;
        } else if (0 == strcmp(argv[i], "--ours")) {
            ours = true;
        } else if (0 == strcmp(argv[i], "--keys") && i + 1 < argc) {
            nkeys = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--times")) {
            times = true;
        } else if (0 == strcmp(argv[i], "--exit-early") && i + 1 < argc) {
            exit_early = atol(argv[++i]);
        } else if (0 == strcmp(argv[i], "--exit-after-fence") && i + 1 < argc) {
            exit_after_fence = atol(argv[++i]);
        } else {
            fprintf(stderr, "usage: pmix_wireup [--ours] [--no-collect] [--keys N] [--times]\n"
                            "                   [--exit-early RANK] [--exit-after-fence RANK]\n");
            return 2;
        }
    }

    CHECK(PMIx_Init(&me, NULL, 0));
    print_libpmix_ids(me.rank);
    if (exit_early == (long) me.rank) {
        _exit(3);
    }

    pmix_proc_t wild, peer;
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    char host[256];
    if (0 != gethostname(host, sizeof(host))) {
        FAIL("gethostname");
    }
    host[sizeof(host) - 1] = '\0';
    uint32_t my_node = get_u32(&me, PMIX_NODEID);
    char *my_host = get_str(&me, PMIX_HOSTNAME);
    char buf[512];
    put_str("wireup.host", host);
    snprintf(buf, sizeof(buf), "%u", my_node);
    put_str("wireup.nodeid", buf);
    for (int k = 0; k < nkeys; k++) {
        char key[64];
        snprintf(key, sizeof(key), "wireup.k%d", k);
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
    if (exit_after_fence == (long) me.rank) {
        fflush(stdout);
        _exit(3);
    }
    /* The job keys after the fence: before it as little as possible, for
     * the ranks to reach it early (when one leaves early, a late fence
     * races the host's ending of the job: Slurm under -K1 then retries its
     * fence message to the gone node's slurmstepd for a while). */
    uint32_t n = get_u32(&wild, PMIX_JOB_SIZE);
    uint32_t univ = get_u32(&wild, PMIX_UNIV_SIZE);
    uint32_t lsize = get_u32(&wild, PMIX_LOCAL_SIZE);
    uint32_t nnodes = get_u32(&wild, PMIX_NUM_NODES);
    char *peers = get_str(&wild, PMIX_LOCAL_PEERS);
    uint32_t ldr = get_rankish(&wild, PMIX_LOCALLDR);
    if (univ < n || lsize != list_len(peers) || !in_rank_list(peers, me.rank)
        || !in_rank_list(peers, ldr)) {
        FAIL("job keys: size %u univ %u local size %u peers '%s' leader %u", n, univ, lsize, peers,
             ldr);
    }
    /* PMIX_LOCAL_PROCS: the same ranks as PMIX_LOCAL_PEERS, as procs. */
    pmix_value_t *lp = NULL;
    if (ours || PMIX_SUCCESS == PMIx_Get(&wild, PMIX_LOCAL_PROCS, NULL, 0, &lp)) {
        if (NULL != lp) {
            PMIX_VALUE_RELEASE(lp);
        }
        lp = get_typed(&wild, PMIX_LOCAL_PROCS, PMIX_DATA_ARRAY);
    }
    if (NULL != lp
        && (NULL == lp->data.darray || PMIX_PROC != lp->data.darray->type
            || lp->data.darray->size != lsize)) {
        FAIL("PMIX_LOCAL_PROCS: not %u procs", lsize);
    }
    for (size_t i = 0; NULL != lp && i < lp->data.darray->size; i++) {
        pmix_proc_t *p = &((pmix_proc_t *) lp->data.darray->array)[i];
        if (!PMIX_CHECK_NSPACE(p->nspace, me.nspace) || !in_rank_list(peers, p->rank)) {
            FAIL("PMIX_LOCAL_PROCS[%zu] = %s:%u, not in PMIX_LOCAL_PEERS '%s'", i, p->nspace,
                 p->rank, peers);
        }
    }
    if (NULL != lp) {
        PMIX_VALUE_RELEASE(lp);
    }
    double remote_get_us = -1;

    /* Every peer: posted data, and reserved keys that agree with it. */
    char **hosts = calloc(n, sizeof(char *));
    for (uint32_t r = 0; r < n; r++) {
        PMIX_PROC_LOAD(&peer, me.nspace, r);
        t0 = now_us();
        char *h = get_str(&peer, "wireup.host");
        if (remote_get_us < 0 && 0 != strcmp(h, host)) {
            remote_get_us = now_us() - t0;
        }
        char *id = get_str(&peer, "wireup.nodeid");
        for (int k = 0; k < nkeys; k++) {
            char key[64], want[512];
            snprintf(key, sizeof(key), "wireup.k%d", k);
            snprintf(want, sizeof(want), "rank %u key %d on %s", r, k, h);
            char *got = get_str(&peer, key);
            if (NULL == got || 0 != strcmp(got, want)) {
                FAIL("%s of rank %u: '%s', want '%s'", key, r, got, want);
            }
            free(got);
        }
        char *rh = get_str(&peer, PMIX_HOSTNAME);
        bool same_node = 0 == strcmp(h, host);
        /* OpenPMIx 4.2 under mpirun has no PMIX_NODEID of a remote rank:
         * required with --ours, checked where given. */
        uint32_t rid = same_node ? my_node : UINT32_MAX;
        pmix_value_t *idv = NULL;
        if (ours || same_node || PMIX_SUCCESS == PMIx_Get(&peer, PMIX_NODEID, NULL, 0, &idv)) {
            if (NULL != idv) {
                PMIX_VALUE_RELEASE(idv);
            }
            rid = get_u32(&peer, PMIX_NODEID);
            snprintf(buf, sizeof(buf), "%u", rid);
            if (0 != strcmp(buf, id)) {
                FAIL("PMIX_NODEID of rank %u is %u, the rank says %s", r, rid, id);
            }
        }
        /* Hosts name nodes as they like (Slurm's NodeName), not always the
         * kernel's host name: compare node ids, and host names between
         * ranks (same node, same PMIX_HOSTNAME). */
        if (same_node != (0 == strcmp(rh, my_host)) || same_node != (rid == my_node)) {
            FAIL("rank %u runs on %s (PMIX_HOSTNAME %s, node %u); I run on %s (%s, node %u)", r,
                 h, rh, rid, host, my_host, my_node);
        }
        if (same_node != in_rank_list(peers, r)) {
            FAIL("rank %u on %s: PMIX_LOCAL_PEERS '%s' says otherwise", r, h, peers);
        }
        /* Slurm registers these two for local ranks only. */
        if (ours || same_node) {
            (void) get_u16(&peer, PMIX_LOCAL_RANK);
            (void) get_u16(&peer, PMIX_NODE_RANK);
        }
        /* Slurm registers PMIX_APPNUM as a PMIX_INT. */
        (void) (ours ? get_u32(&peer, PMIX_APPNUM) : get_rankish(&peer, PMIX_APPNUM));
        if (get_rankish(&peer, PMIX_GLOBAL_RANK) != r) {
            FAIL("PMIX_GLOBAL_RANK of rank %u", r);
        }
        if (same_node && ours) {
            pmix_value_t *loc = get_typed(&peer, PMIX_LOCALITY_STRING, PMIX_STRING);
            PMIX_VALUE_RELEASE(loc);
        }
        hosts[r] = h;
        free(id);
        free(rh);
    }
    uint32_t distinct = 0;
    for (uint32_t r = 0; r < n; r++) {
        bool seen = false;
        for (uint32_t s = 0; s < r; s++) {
            seen = seen || 0 == strcmp(hosts[r], hosts[s]);
        }
        distinct += !seen;
    }
    if (distinct != nnodes) {
        FAIL("PMIX_NUM_NODES is %u, ranks posted %u host names", nnodes, distinct);
    }

    printf("wireup rank %u of %u on %s (node %u): ok\n", me.rank, n, host, my_node);
    if (times) {
        printf("wireup rank %u times: fence_us=%.1f remote_get_us=%.1f\n", me.rank, fence_us,
               remote_get_us);
    }
    if (0 == me.rank) {
        printf("wireup: %u ranks on %u nodes\n", n, nnodes);
    }
    fflush(stdout);
    /* Nobody leaves before everyone has read: a last fence. */
    CHECK(PMIx_Fence(&wild, 1, NULL, 0));
    CHECK(PMIx_Finalize(NULL, 0));
    return 0;
}
