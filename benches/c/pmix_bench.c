/*
 * pmix_bench: a PMIx client benchmark written against the standard PMIx
 * API only, so that the same source builds against our headers (include/)
 * and against OpenPMIx's, and runs under any launcher that provides a PMIx
 * server (our pmixrun, Open MPI's mpirun).
 *
 * Measures, per rank:
 *   init          wall clock from just before to just after PMIx_Init
 *   get_*         PMIx_Get latency, the median over batches of GET_BATCH
 *                 gets each (the batch's time / GET_BATCH; timing every get
 *                 separately would add the clock's own ~20 ns), for
 *                   job   PMIX_JOB_SIZE of PMIX_RANK_WILDCARD
 *                   peer  PMIX_LOCAL_RANK of rank (me+1)%n
 *                   post  a key rank (me+1)%n put before a collecting fence
 *                   own   the same key of this rank (its own put)
 *                 each with PMIX_GET_POINTER_VALUES (the value is not
 *                 freed, _ptr) and without (PMIX_VALUE_RELEASE each, _copy)
 *   fence         PMIx_Fence of the whole namespace without data, the
 *                 median over the iterations (each timed separately)
 *   modex100      PMIx_Commit + PMIx_Fence(PMIX_COLLECT_DATA) after putting
 *                 100 fresh keys of 32-byte strings, the median over rounds
 *                 (every round's fence carries all the keys posted so far,
 *                 so this grows with the number of rounds);
 *   modex100_first the same, first round only (100 keys in all)
 *   modex32k_first (with --first only) the first fence after PMIx_Init:
 *                 each rank puts 32 values of 1 KiB of random bytes
 *                 (PMIX_BYTE_OBJECT, PMIX_GLOBAL, distinct keys), commits,
 *                 and this times the one PMIx_Fence(PMIX_COLLECT_DATA)
 *                 over the namespace that follows (commit not included;
 *                 the ranks enter it at the same instant, so launch skew
 *                 is not counted, and leave it for a barrier, so no rank's
 *                 work after it is counted in another's figure)
 *   modex32k_commit_fence (with --first-commit only) the same, the ranks
 *                 entering at the same instant before the commit, which is
 *                 timed with the fence (back to back, as MPI_Init does)
 *   modex32k_get  (with --first only) PMIx_Get of one of the peer's 1 KiB
 *                 values after that fence, as get_* (value released)
 *   maxrss        getrusage(RUSAGE_SELF).ru_maxrss at the end, in KiB
 *
 * The ranks' results are exchanged through PMIx itself (a put + collecting
 * fence after all measurements) and rank 0 prints, per metric, the minimum,
 * median and maximum across ranks, one line each:
 *
 *   pmix_bench lib=<path of the libpmix mapped by rank 0> ranks=<n> ...
 *   pmix_bench result=<metric> unit=<ns|us|KiB> min=<x> median=<x> max=<x>
 *   pmix_bench done
 *
 * Usage: pmix_bench [--first|--first-commit] [-g GET_ITERS] [-f FENCE_ITERS]
 *                   [-m MODEX_ROUNDS]
 * (defaults 100000, 1000, 20; the environment variables PMIX_BENCH_GET,
 * PMIX_BENCH_FENCE and PMIX_BENCH_MODEX set them too). With --first the
 * process measures only modex32k_first and modex32k_get (a fence must be
 * the first after init to be measured, so it has a run of its own).
 */
#define _GNU_SOURCE
#include <pmix.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define GET_BATCH 100
#define MODEX_KEYS 100

static pmix_proc_t me;

#define CHECK(expr, what)                                                          \
    do {                                                                           \
        pmix_status_t rc_ = (expr);                                                \
        if (PMIX_SUCCESS != rc_) {                                                 \
            fprintf(stderr, "pmix_bench rank %u: %s failed: %s (%d)\n", me.rank,   \
                    what, PMIx_Error_string(rc_), (int) rc_);                      \
            exit(2);                                                               \
        }                                                                          \
    } while (0)

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    if (n == 0) {
        return 0.0;
    }
    return (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* The path of the libpmix this process has mapped. */
static void mapped_libpmix(char *out, size_t len)
{
    snprintf(out, len, "unknown");
    FILE *f = fopen("/proc/self/maps", "r");
    if (NULL == f) {
        return;
    }
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char *p = strchr(line, '/');
        if (NULL != p && NULL != strstr(p, "libpmix.so")) {
            p[strcspn(p, "\n")] = '\0';
            snprintf(out, len, "%s", p);
            break;
        }
    }
    fclose(f);
}

static long arg_or_env(int argc, char **argv, const char *flag, const char *env, long dflt)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (0 == strcmp(argv[i], flag)) {
            return strtol(argv[i + 1], NULL, 10);
        }
    }
    const char *e = getenv(env);
    if (NULL != e && *e) {
        return strtol(e, NULL, 10);
    }
    return dflt;
}

/* Median per-get latency in ns of `iters` gets of `key` of `proc`. */
static double bench_get(const pmix_proc_t *proc, const char *key, int pointers, long iters)
{
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    if (pointers) {
        PMIX_INFO_CREATE(info, 1);
        bool t = true;
        PMIX_INFO_LOAD(&info[0], PMIX_GET_POINTER_VALUES, &t, PMIX_BOOL);
        ninfo = 1;
    }
    pmix_value_t *val = NULL;
    /* Check once, and warm up. */
    for (int i = 0; i < 1000; i++) {
        CHECK(PMIx_Get(proc, key, info, ninfo, &val), key);
        if (NULL == val) {
            fprintf(stderr, "pmix_bench rank %u: %s returned no value\n", me.rank, key);
            exit(2);
        }
        if (!pointers) {
            PMIX_VALUE_RELEASE(val);
        }
    }
    long batches = iters / GET_BATCH;
    if (batches < 1) {
        batches = 1;
    }
    double *samples = calloc((size_t) batches, sizeof *samples);
    for (long b = 0; b < batches; b++) {
        double t0 = now_ns();
        if (pointers) {
            for (int i = 0; i < GET_BATCH; i++) {
                (void) PMIx_Get(proc, key, info, ninfo, &val);
            }
        } else {
            for (int i = 0; i < GET_BATCH; i++) {
                if (PMIX_SUCCESS == PMIx_Get(proc, key, info, ninfo, &val)) {
                    PMIX_VALUE_RELEASE(val);
                }
            }
        }
        samples[b] = (now_ns() - t0) / GET_BATCH;
    }
    double m = median(samples, (size_t) batches);
    free(samples);
    if (pointers) {
        PMIX_INFO_FREE(info, ninfo);
    }
    return m;
}

static void fence_collect(void)
{
    pmix_info_t info;
    bool t = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    CHECK(PMIx_Fence(NULL, 0, &info, 1), "PMIx_Fence(collect)");
    PMIX_INFO_DESTRUCT(&info);
}

static void put_string(const char *key, const char *s)
{
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_STRING;
    v.data.string = (char *) s;
    CHECK(PMIx_Put(PMIX_GLOBAL, key, &v), "PMIx_Put");
}

enum {
    M_INIT,
    M_GET_JOB_PTR,
    M_GET_JOB_COPY,
    M_GET_PEER_PTR,
    M_GET_PEER_COPY,
    M_GET_POST_PTR,
    M_GET_POST_COPY,
    M_GET_OWN_PTR,
    M_GET_OWN_COPY,
    M_FENCE,
    M_MODEX100,
    M_MODEX100_FIRST,
    M_MAXRSS,
    M_COUNT
};
static const char *const names[M_COUNT] = {
    "init",          "get_job_ptr",    "get_job_copy", "get_peer_ptr", "get_peer_copy",
    "get_post_ptr", "get_post_copy", "get_own_ptr",   "get_own_copy", "fence",
    "modex100",     "modex100_first", "maxrss",
};
static const char *const units[M_COUNT] = {
    "us", "ns", "ns", "ns", "ns", "ns", "ns", "ns", "ns", "us", "us", "us", "KiB",
};

#define FIRST_KEYS 32
#define FIRST_LEN 1024

enum { F_MODEX32K_FIRST, F_MODEX32K_GET, F_COUNT };
static const char *const first_names[F_COUNT] = {"modex32k_first", "modex32k_get"};
static const char *const commit_names[F_COUNT] = {"modex32k_commit_fence", "modex32k_get"};
static const char *const first_units[F_COUNT] = {"us", "ns"};

/* The 1 KiB value `k` of `rank`: random-looking bytes (xorshift64*), the
 * same in every process so that a peer's value can be checked. */
static void first_value(uint32_t rank, int k, unsigned char *out)
{
    uint64_t x = 0x9E3779B97F4A7C15ull ^ ((uint64_t) rank << 32) ^ (uint64_t) (k + 1);
    for (int i = 0; i < FIRST_LEN; i += 8) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        uint64_t w = x * 0x2545F4914F6CDD1Dull;
        memcpy(out + i, &w, 8);
    }
}

/* Exchanges every rank's `count` results and the mapped library's path
 * (a put + collecting fence), and rank 0 prints them. Returns the exit
 * status. */
static int report(uint32_t n, const char *header, const double *res,
                  int count, const char *const *rnames, const char *const *runits)
{
    pmix_value_t *val = NULL;
    char lib[1024];
    mapped_libpmix(lib, sizeof lib);
    char out[2048];
    size_t off = (size_t) snprintf(out, sizeof out, "%s", lib);
    for (int m = 0; m < count; m++) {
        off += (size_t) snprintf(out + off, sizeof out - off, " %.3f", res[m]);
    }
    put_string("bench.results", out);
    CHECK(PMIx_Commit(), "PMIx_Commit");
    fence_collect();

    int status = 0;
    if (0 == me.rank) {
        double *all = calloc((size_t) n * (size_t) count, sizeof *all);
        printf("pmix_bench lib=%s ranks=%u %s\n", lib, n, header);
        for (uint32_t r = 0; r < n; r++) {
            pmix_proc_t p;
            PMIX_PROC_CONSTRUCT(&p);
            PMIX_LOAD_PROCID(&p, me.nspace, r);
            CHECK(PMIx_Get(&p, "bench.results", NULL, 0, &val), "PMIx_Get(bench.results)");
            char *s = val->data.string;
            char *sp = strchr(s, ' ');
            if (NULL == sp) {
                fprintf(stderr, "pmix_bench: bad results of rank %u\n", r);
                return 3;
            }
            if ((size_t) (sp - s) != strlen(lib) || 0 != strncmp(s, lib, strlen(lib))) {
                fprintf(stderr, "pmix_bench: rank %u mapped %.*s, rank 0 %s\n", r,
                        (int) (sp - s), s, lib);
                status = 4;
            }
            char *q = sp;
            for (int m = 0; m < count; m++) {
                all[(size_t) m * n + r] = strtod(q, &q);
            }
            PMIX_VALUE_RELEASE(val);
        }
        for (int m = 0; m < count; m++) {
            double *v = &all[(size_t) m * n];
            double med = median(v, n); /* sorts v */
            printf("pmix_bench result=%s unit=%s min=%.1f median=%.1f max=%.1f\n", rnames[m],
                   runits[m], v[0], med, v[n - 1]);
        }
        free(all);
        printf("pmix_bench done\n");
        fflush(stdout);
    }

    /* Nobody finalizes while rank 0 still reads. */
    CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence");
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "pmix_bench rank %u: PMIx_Finalize: %s\n", me.rank, PMIx_Error_string(rc));
        return 2;
    }
    return status;
}

/* This rank's namespace (wildcard), its next peer, and the job's size. */
static pmix_status_t job_and_peer(pmix_proc_t *wild, pmix_proc_t *peer, uint32_t *n)
{
    PMIX_PROC_CONSTRUCT(wild);
    PMIX_LOAD_PROCID(wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *val = NULL;
    pmix_status_t rc = PMIx_Get(wild, PMIX_JOB_SIZE, NULL, 0, &val);
    if (PMIX_SUCCESS != rc) {
        return rc;
    }
    *n = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    PMIX_PROC_CONSTRUCT(peer);
    PMIX_LOAD_PROCID(peer, me.nspace, (me.rank + 1) % *n);
    return PMIX_SUCCESS;
}

/* --first: the first collecting fence after init, with 32 KiB per rank. */
static int first_fence(long get_iters, int with_commit)
{
    pmix_proc_t wild, peer;
    pmix_value_t *val = NULL;
    uint32_t n = 0;
    CHECK(job_and_peer(&wild, &peer, &n), "PMIx_Get(PMIX_JOB_SIZE)");

    double res[F_COUNT];
    static unsigned char bytes[FIRST_LEN];
    char key[PMIX_MAX_KEYLEN + 1];
    for (int k = 0; k < FIRST_KEYS; k++) {
        first_value(me.rank, k, bytes);
        snprintf(key, sizeof key, "bench.k32.%02d", k);
        pmix_value_t v;
        PMIX_VALUE_CONSTRUCT(&v);
        v.type = PMIX_BYTE_OBJECT;
        v.data.bo.bytes = (char *) bytes;
        v.data.bo.size = FIRST_LEN;
        CHECK(PMIx_Put(PMIX_GLOBAL, key, &v), "PMIx_Put");
    }
    if (!with_commit) {
        CHECK(PMIx_Commit(), "PMIx_Commit");
    }
    /* The ranks were launched at different times; so that the figure is
     * the fence's and not the launch's skew, they all enter it at the same
     * instant: the next whole second of CLOCK_REALTIME at least 10 ms away
     * (one clock for every process of the node). */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    const int64_t tick = 1000000000;
    int64_t at = ((int64_t) now.tv_sec * 1000000000 + now.tv_nsec + 10000000 + tick - 1) / tick * tick;
    struct timespec start = {.tv_sec = at / 1000000000, .tv_nsec = at % 1000000000};
    while (EINTR == clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &start, NULL)) {
    }
    pmix_info_t info;
    bool t = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    double a = now_ns();
    if (with_commit) {
        CHECK(PMIx_Commit(), "PMIx_Commit");
    }
    CHECK(PMIx_Fence(NULL, 0, &info, 1), "PMIx_Fence(collect)");
    res[F_MODEX32K_FIRST] = (now_ns() - a) / 1e3;
    PMIX_INFO_DESTRUCT(&info);
    /* Nobody computes before every rank left the timed fence: with fewer
     * cores than ranks, a released rank busy with its gets would delay
     * the others' return from the fence (and count in their figure). */
    CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence");

    /* Check every value of the peer (untimed). */
    for (int k = 0; k < FIRST_KEYS; k++) {
        snprintf(key, sizeof key, "bench.k32.%02d", k);
        CHECK(PMIx_Get(&peer, key, NULL, 0, &val), "PMIx_Get(bench.k32)");
        first_value(peer.rank, k, bytes);
        if (PMIX_BYTE_OBJECT != val->type || FIRST_LEN != val->data.bo.size ||
            0 != memcmp(val->data.bo.bytes, bytes, FIRST_LEN)) {
            fprintf(stderr, "pmix_bench rank %u: wrong %s of rank %u\n", me.rank, key, peer.rank);
            return 3;
        }
        PMIX_VALUE_RELEASE(val);
    }
    res[F_MODEX32K_GET] = bench_get(&peer, "bench.k32.17", 0, get_iters);

    char header[128];
    snprintf(header, sizeof header, "mode=%s get_iters=%ld", with_commit ? "first-commit" : "first",
             get_iters);
    return report(n, header, res, F_COUNT, with_commit ? commit_names : first_names, first_units);
}

int main(int argc, char **argv)
{
    long get_iters = arg_or_env(argc, argv, "-g", "PMIX_BENCH_GET", 100000);
    long fence_iters = arg_or_env(argc, argv, "-f", "PMIX_BENCH_FENCE", 1000);
    long modex_rounds = arg_or_env(argc, argv, "-m", "PMIX_BENCH_MODEX", 20);
    if (get_iters < 1 || fence_iters < 1 || modex_rounds < 1) {
        fprintf(stderr, "pmix_bench: iteration counts must be positive\n");
        return 1;
    }
    int first = 0;
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], "--first")) {
            first = 1;
        } else if (0 == strcmp(argv[i], "--first-commit")) {
            first = 2;
        }
    }
    double res[M_COUNT];

    double t0 = now_ns();
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    double t1 = now_ns();
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "pmix_bench: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    if (first) {
        return first_fence(get_iters, first == 2);
    }
    res[M_INIT] = (t1 - t0) / 1e3;

    pmix_proc_t wild, peer;
    pmix_value_t *val = NULL;
    uint32_t n = 0;
    CHECK(job_and_peer(&wild, &peer, &n), "PMIx_Get(PMIX_JOB_SIZE)");

    /* The posted key every rank reads of its peer. */
    char buf[64];
    snprintf(buf, sizeof buf, "posted-by-rank-%010u-xxxxxxxx", me.rank);
    put_string("bench.post", buf);
    CHECK(PMIx_Commit(), "PMIx_Commit");
    fence_collect();
    CHECK(PMIx_Get(&peer, "bench.post", NULL, 0, &val), "PMIx_Get(bench.post)");
    snprintf(buf, sizeof buf, "posted-by-rank-%010u-xxxxxxxx", peer.rank);
    if (PMIX_STRING != val->type || 0 != strcmp(val->data.string, buf)) {
        fprintf(stderr, "pmix_bench rank %u: wrong bench.post of rank %u\n", me.rank, peer.rank);
        return 3;
    }
    PMIX_VALUE_RELEASE(val);

    res[M_GET_JOB_PTR] = bench_get(&wild, PMIX_JOB_SIZE, 1, get_iters);
    res[M_GET_JOB_COPY] = bench_get(&wild, PMIX_JOB_SIZE, 0, get_iters);
    res[M_GET_PEER_PTR] = bench_get(&peer, PMIX_LOCAL_RANK, 1, get_iters);
    res[M_GET_PEER_COPY] = bench_get(&peer, PMIX_LOCAL_RANK, 0, get_iters);
    res[M_GET_POST_PTR] = bench_get(&peer, "bench.post", 1, get_iters);
    res[M_GET_POST_COPY] = bench_get(&peer, "bench.post", 0, get_iters);
    res[M_GET_OWN_PTR] = bench_get(&me, "bench.post", 1, get_iters);
    res[M_GET_OWN_COPY] = bench_get(&me, "bench.post", 0, get_iters);

    /* Fence without data. */
    for (int i = 0; i < 10; i++) {
        CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence");
    }
    double *samples = calloc((size_t) fence_iters, sizeof *samples);
    for (long i = 0; i < fence_iters; i++) {
        double a = now_ns();
        CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence");
        samples[i] = (now_ns() - a) / 1e3;
    }
    res[M_FENCE] = median(samples, (size_t) fence_iters);
    free(samples);

    /* 100-key modex, fresh keys each round. */
    samples = calloc((size_t) modex_rounds, sizeof *samples);
    char key[PMIX_MAX_KEYLEN + 1];
    char str[64]; /* the values are 32 characters */
    for (long r = 0; r < modex_rounds; r++) {
        for (int k = 0; k < MODEX_KEYS; k++) {
            snprintf(key, sizeof key, "bench.m%ld.%d", r, k);
            snprintf(str, sizeof str, "r%05u-rd%05ld-key%03d-value-xxxx", me.rank, r, k);
            put_string(key, str);
        }
        double a = now_ns();
        CHECK(PMIx_Commit(), "PMIx_Commit");
        fence_collect();
        samples[r] = (now_ns() - a) / 1e3;
        /* Check one of the peer's keys arrived (untimed). */
        snprintf(key, sizeof key, "bench.m%ld.%d", r, MODEX_KEYS - 1);
        CHECK(PMIx_Get(&peer, key, NULL, 0, &val), "PMIx_Get(modex key)");
        snprintf(str, sizeof str, "r%05u-rd%05ld-key%03d-value-xxxx", peer.rank, r,
                 MODEX_KEYS - 1);
        if (PMIX_STRING != val->type || 0 != strcmp(val->data.string, str)) {
            fprintf(stderr, "pmix_bench rank %u: wrong %s of rank %u\n", me.rank, key, peer.rank);
            return 3;
        }
        PMIX_VALUE_RELEASE(val);
    }
    res[M_MODEX100_FIRST] = samples[0];
    res[M_MODEX100] = median(samples, (size_t) modex_rounds);
    free(samples);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    res[M_MAXRSS] = (double) ru.ru_maxrss;

    char header[128];
    snprintf(header, sizeof header, "get_iters=%ld fence_iters=%ld modex_rounds=%ld", get_iters,
             fence_iters, modex_rounds);
    return report(n, header, res, M_COUNT, names, units);
}
