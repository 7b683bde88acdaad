/* PMIx timings of a multi-node job (srun --mpi=pmix), the same binary on
 * either library (built against Debian's OpenPMIx; see tests/slurm.rs,
 * SLURM_BENCH=1).
 *
 *   slurm_bench [-f FENCES] [-m MODEX_ROUNDS]
 *
 * Per rank, in microseconds:
 *   init           PMIx_Init
 *   fence          PMIx_Fence of the namespace without data, the median of
 *                  FENCES (after 10 untimed)
 *   modex100       put 100 fresh keys (32-character strings), then
 *                  PMIx_Commit + PMIx_Fence(PMIX_COLLECT_DATA): the median
 *                  over MODEX_ROUNDS of the commit + fence
 *   modex100_get   the same rounds: getting all 100 keys of every rank
 *                  after that fence (the whole loop)
 *   dmodex_get     first of all (a library fetches a remote rank's data
 *                  once, so this can only be measured before any collecting
 *                  fence): a key put and committed, a fence without data
 *                  collection, then the first PMIx_Get of that key of each
 *                  rank on another node, each a direct-modex request through
 *                  the host; the median over those ranks (on one node: the
 *                  other ranks)
 * Every value read is checked. The ranks' results travel to rank 0 through
 * PMIx (put + collecting fence) with the dev:inode of the libpmix each rank
 * mapped (which must all be rank 0's), and rank 0 prints:
 *
 *   slurm_bench lib dev=MAJ:MIN ino=INO ranks=N hosts=M
 *   slurm_bench result=METRIC unit=us min=X median=X max=X   (across ranks)
 *   slurm_bench done
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

#define NKEYS 100

static pmix_proc_t me;

#define MUST(expr)                                                                     \
    do {                                                                               \
        pmix_status_t rc_ = (expr);                                                    \
        if (PMIX_SUCCESS != rc_) {                                                     \
            fprintf(stderr, "slurm_bench rank %u: %s: %s\n", me.rank, #expr,           \
                    PMIx_Error_string(rc_));                                           \
            exit(2);                                                                   \
        }                                                                              \
    } while (0)

#define STEP_MUST(expr) MUST(expr)
#include "pmix_steps.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v). */
static double median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp);
    return 0 == n ? 0.0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0);
}

/* Gets key of p, which must be the string want. */
static void get_check(const pmix_proc_t *p, const char *key, const char *want)
{
    pmix_value_t *v = NULL;
    MUST(PMIx_Get(p, key, NULL, 0, &v));
    if (PMIX_STRING != v->type || 0 != strcmp(v->data.string, want)) {
        fprintf(stderr, "slurm_bench rank %u: %s of rank %u is not '%s'\n", me.rank, key,
                p->rank, want);
        exit(3);
    }
    PMIX_VALUE_RELEASE(v);
}

enum { M_INIT, M_FENCE, M_MODEX, M_MODEX_GET, M_DMODEX, M_COUNT };
static const char *const names[M_COUNT] = {"init", "fence", "modex100", "modex100_get",
                                           "dmodex_get"};

static long opt(int argc, char **argv, const char *flag, long dflt)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (0 == strcmp(argv[i], flag)) {
            return atol(argv[i + 1]);
        }
    }
    return dflt;
}

int main(int argc, char **argv)
{
    long fences = opt(argc, argv, "-f", 200);
    long mrounds = opt(argc, argv, "-m", 10);
    if (fences < 1 || mrounds < 1) {
        fprintf(stderr, "slurm_bench: counts must be positive\n");
        return 1;
    }
    double res[M_COUNT];
    double t = now_us();
    MUST(PMIx_Init(&me, NULL, 0));
    res[M_INIT] = now_us() - t;

    pmix_proc_t wild, p;
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    MUST(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v));
    uint32_t n = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    MUST(PMIx_Get(&wild, PMIX_LOCAL_PEERS, NULL, 0, &v));
    char *peers = strdup(v->data.string);
    PMIX_VALUE_RELEASE(v);
    /* Direct modex first: every remote rank's key, each fetched once. */
    long most = fences > mrounds ? fences : mrounds;
    most = most > (long) n ? most : (long) n;
    double *s = calloc((size_t) most, sizeof(double));
    double *s2 = calloc((size_t) mrounds, sizeof(double));
    char key[PMIX_MAX_KEYLEN + 1], val[64];
    snprintf(val, sizeof(val), "direct-r%05u", me.rank);
    put_str("b.direct", val);
    MUST(PMIx_Commit());
    fence(false);
    bool one_node = true;
    for (uint32_t r = 0; r < n; r++) {
        one_node = one_node && in_rank_list(peers, r);
    }
    size_t nd = 0;
    for (uint32_t k = 1; k < n; k++) {
        uint32_t r = (me.rank + k) % n;
        if (!one_node && in_rank_list(peers, r)) {
            continue;
        }
        PMIX_PROC_LOAD(&p, me.nspace, r);
        snprintf(val, sizeof(val), "direct-r%05u", r);
        t = now_us();
        get_check(&p, "b.direct", val);
        s[nd++] = now_us() - t;
    }
    res[M_DMODEX] = median(s, nd);

    /* Fence without data. */
    for (int i = 0; i < 10; i++) {
        fence(false);
    }
    for (long i = 0; i < fences; i++) {
        t = now_us();
        fence(false);
        s[i] = now_us() - t;
    }
    res[M_FENCE] = median(s, (size_t) fences);

    /* 100-key modex, fresh keys each round, every key of every rank read. */
    for (long r = 0; r < mrounds; r++) {
        for (int k = 0; k < NKEYS; k++) {
            snprintf(key, sizeof(key), "b.m%ld.%d", r, k);
            snprintf(val, sizeof(val), "r%05u-rd%05ld-key%03d-value-xxxx", me.rank, r, k);
            put_str(key, val);
        }
        t = now_us();
        MUST(PMIx_Commit());
        fence(true);
        s[r] = now_us() - t;
        t = now_us();
        for (uint32_t q = 0; q < n; q++) {
            PMIX_PROC_LOAD(&p, me.nspace, q);
            for (int k = 0; k < NKEYS; k++) {
                snprintf(key, sizeof(key), "b.m%ld.%d", r, k);
                snprintf(val, sizeof(val), "r%05u-rd%05ld-key%03d-value-xxxx", q, r, k);
                get_check(&p, key, val);
            }
        }
        s2[r] = now_us() - t;
    }
    res[M_MODEX] = median(s, (size_t) mrounds);
    res[M_MODEX_GET] = median(s2, (size_t) mrounds);

    /* Results to rank 0, with the library each rank mapped and its host. */
    char dev[32], host[64], out[1024];
    unsigned long long ino;
    find_libpmix(0, dev, sizeof(dev), &ino);
    if (0 != gethostname(host, sizeof(host))) {
        snprintf(host, sizeof(host), "?");
    }
    host[sizeof(host) - 1] = '\0';
    size_t off = (size_t) snprintf(out, sizeof(out), "%s %llu %s", dev, ino, host);
    for (int m = 0; m < M_COUNT; m++) {
        off += (size_t) snprintf(out + off, sizeof(out) - off, " %.3f", res[m]);
    }
    put_str("b.results", out);
    MUST(PMIx_Commit());
    fence(true);

    int status = 0;
    if (0 == me.rank) {
        double *all = calloc((size_t) n * M_COUNT, sizeof(double));
        char (*hosts)[64] = calloc(n, 64);
        uint32_t nhosts = 0;
        for (uint32_t r = 0; r < n; r++) {
            PMIX_PROC_LOAD(&p, me.nspace, r);
            MUST(PMIx_Get(&p, "b.results", NULL, 0, &v));
            char d[32], h[64];
            unsigned long long i;
            int used = 0;
            if (3 != sscanf(v->data.string, "%31s %llu %63s %n", d, &i, h, &used)) {
                fprintf(stderr, "slurm_bench: bad results of rank %u\n", r);
                return 3;
            }
            if (0 != strcmp(d, dev) || i != ino) {
                fprintf(stderr, "slurm_bench: rank %u mapped %s %llu, rank 0 %s %llu\n", r, d, i,
                        dev, ino);
                status = 4;
            }
            bool seen = false;
            for (uint32_t q = 0; q < r; q++) {
                seen = seen || 0 == strcmp(hosts[q], h);
            }
            nhosts += !seen;
            snprintf(hosts[r], 64, "%s", h);
            char *c = v->data.string + used;
            for (int m = 0; m < M_COUNT; m++) {
                all[(size_t) m * n + r] = strtod(c, &c);
            }
            PMIX_VALUE_RELEASE(v);
        }
        printf("slurm_bench lib dev=%s ino=%llu ranks=%u hosts=%u\n", dev, ino, n, nhosts);
        for (int m = 0; m < M_COUNT; m++) {
            double *x = &all[(size_t) m * n];
            double med = median(x, n);
            printf("slurm_bench result=%s unit=us min=%.1f median=%.1f max=%.1f\n", names[m],
                   x[0], med, x[n - 1]);
        }
        printf("slurm_bench done\n");
        fflush(stdout);
        free(all);
        free(hosts);
    }
    fence(false);
    MUST(PMIx_Finalize(NULL, 0));
    free(s);
    free(s2);
    free(peers);
    return status;
}
