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
 *   fence_collect PMIx_Fence(PMIX_COLLECT_DATA) of the whole namespace
 *                 when nobody committed since the last collecting fence
 *                 (nothing new to collect), as fence
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
 * With --groups (a job of its own), process groups over all the job's
 * ranks, each figure the median over GROUP_ITERS iterations (each timed
 * separately, after a few untimed ones), every group id unique ("bg%d"):
 *   fence         PMIx_Fence of the namespace without data, as above (no
 *                 directives), for comparison
 *   fence_server  the same fence naming every rank of the job one by one
 *                 instead of {nspace, WILDCARD}: under our pmixrun this one
 *                 is not released through the job's barrier page but by
 *                 the server's collective engine, the path a construct
 *                 takes (for OpenPMIx both go through its server)
 *   group_construct      PMIx_Group_construct of {nspace, WILDCARD} with
 *                 PMIX_TIMEOUT only (no context id)
 *   group_destruct       the PMIx_Group_destruct of that group, timed
 *                 separately
 *   group_construct_cid  the same construct with
 *                 PMIX_GROUP_ASSIGN_CONTEXT_ID=true (its destruct untimed)
 *   group_invite  rank 0 only: PMIx_Group_invite of every other rank, from
 *                 the call to its return; the others accept from their
 *                 PMIX_GROUP_INVITED handler with PMIx_Group_join_nb (then
 *                 everybody destructs, untimed)
 * Every group call carries PMIX_TIMEOUT (GROUP_TIMEOUT s) and the whole
 * job is bounded by alarm() (-A SECONDS, PMIX_BENCH_ALARM, default 300):
 * a rank still running then prints which step it was in and exits 5.
 *
 * The ranks' results are exchanged through PMIx itself (a put + collecting
 * fence after all measurements) and rank 0 prints, per metric, the minimum,
 * median and maximum across ranks, one line each:
 *
 *   pmix_bench lib=<path of the libpmix mapped by rank 0> ranks=<n> ...
 *   pmix_bench result=<metric> unit=<ns|us|KiB> min=<x> median=<x> max=<x>
 *   pmix_bench done
 *
 * A rank with no figure for a metric (group_invite on any rank but 0) sends
 * -1, which rank 0 leaves out of min, median and max.
 *
 * Usage: pmix_bench [--first|--first-commit|--groups] [-g GET_ITERS]
 *                   [-f FENCE_ITERS] [-m MODEX_ROUNDS] [-G GROUP_ITERS]
 *                   [-A ALARM_SECONDS]
 * (defaults 100000, 1000, 20, 200, 300; the environment variables
 * PMIX_BENCH_GET, PMIX_BENCH_FENCE, PMIX_BENCH_MODEX, PMIX_BENCH_GROUPS
 * and PMIX_BENCH_ALARM set them too). With --first the process measures
 * only modex32k_first and modex32k_get (a fence must be the first after
 * init to be measured, so it has a run of its own); with --groups only the
 * group metrics and the two fences.
 */
#define _GNU_SOURCE
#include <pmix.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

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
    M_FENCE_COLLECT,
    M_MODEX100,
    M_MODEX100_FIRST,
    M_MAXRSS,
    M_COUNT
};
static const char *const names[M_COUNT] = {
    "init",          "get_job_ptr",    "get_job_copy", "get_peer_ptr", "get_peer_copy",
    "get_post_ptr", "get_post_copy", "get_own_ptr",   "get_own_copy", "fence",
    "fence_collect", "modex100",     "modex100_first", "maxrss",
};
static const char *const units[M_COUNT] = {
    "us", "ns", "ns", "ns", "ns", "ns", "ns", "ns", "ns", "us", "us", "us", "us", "KiB",
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
            uint32_t k = 0; /* the ranks that have a figure (not -1) */
            for (uint32_t r = 0; r < n; r++) {
                if (v[r] >= 0) {
                    v[k++] = v[r];
                }
            }
            if (0 == k) {
                continue;
            }
            double med = median(v, k); /* sorts v */
            printf("pmix_bench result=%s unit=%s min=%.1f median=%.1f max=%.1f\n", rnames[m],
                   runits[m], v[0], med, v[k - 1]);
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

/* --groups ----------------------------------------------------------- */

#define GROUP_TIMEOUT 30 /* s: PMIX_TIMEOUT of every group call */
#define GROUP_WARMUP 5   /* untimed iterations before each timed loop */

enum { G_FENCE, G_FENCE_SERVER, G_CONSTRUCT, G_DESTRUCT, G_CONSTRUCT_CID, G_INVITE, G_COUNT };
static const char *const group_names[G_COUNT] = {
    "fence",          "fence_server",        "group_construct",
    "group_destruct", "group_construct_cid", "group_invite",
};
static const char *const group_units[G_COUNT] = {"us", "us", "us", "us", "us", "us"};

/* What this rank is doing, for the alarm's message. */
static const char *volatile step = "PMIx_Init";
static volatile long step_iter = -1;

static size_t fmt_long(char *out, long v)
{
    char tmp[24];
    size_t n = 0, k = 0;
    unsigned long u = v < 0 ? (unsigned long) -v : (unsigned long) v;
    do {
        tmp[n++] = (char) ('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) {
        out[k++] = '-';
    }
    while (n) {
        out[k++] = tmp[--n];
    }
    return k;
}

/* The backstop of every wait: whoever is still running says where it is
 * and exits (async-signal-safe: write and _exit only). */
static void on_alarm(int sig)
{
    (void) sig;
    char buf[256];
    size_t k = 0;
    const char *a = "pmix_bench rank ", *b = ": alarm: still in ", *c = ", iteration ";
    const char *st = step;
    memcpy(buf + k, a, strlen(a));
    k += strlen(a);
    k += fmt_long(buf + k, (long) me.rank);
    memcpy(buf + k, b, strlen(b));
    k += strlen(b);
    size_t l = strnlen(st, 100);
    memcpy(buf + k, st, l);
    k += l;
    memcpy(buf + k, c, strlen(c));
    k += strlen(c);
    k += fmt_long(buf + k, step_iter);
    buf[k++] = '\n';
    ssize_t w = write(2, buf, k);
    (void) w;
    _exit(5);
}

static pmix_info_t group_tmo; /* PMIX_TIMEOUT = GROUP_TIMEOUT */
static long group_seq;        /* the next group id is "bg<group_seq>" */

static void next_group_id(char *grp, size_t len)
{
    snprintf(grp, len, "bg%ld", group_seq++);
}

/* The invitations this rank accepted (from the PMIX_GROUP_INVITED
 * handler, on the progress thread) and the joins that completed. */
static pthread_mutex_t inv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t inv_cond = PTHREAD_COND_INITIALIZER;
static long inv_joined;                     /* joins completed */
static pmix_status_t inv_status = PMIX_SUCCESS; /* the first failure */
static const char *inv_what = "";
static char inv_last[PMIX_MAX_NSLEN + 1];   /* the last joined group */

static void inv_record(pmix_status_t status, const char *what, const char *grp)
{
    pthread_mutex_lock(&inv_lock);
    if (PMIX_SUCCESS != status && PMIX_SUCCESS == inv_status) {
        inv_status = status;
        inv_what = what;
    }
    snprintf(inv_last, sizeof inv_last, "%s", grp);
    inv_joined++;
    pthread_cond_broadcast(&inv_cond);
    pthread_mutex_unlock(&inv_lock);
}

static void join_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                      pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void) info;
    (void) ninfo;
    char *grp = cbdata;
    inv_record(status, "PMIx_Group_join_nb (callback)", grp);
    free(grp);
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
}

static void on_invited(size_t ref, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) ref;
    (void) status;
    (void) results;
    (void) nresults;
    const char *grp = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (0 == strncmp(info[i].key, PMIX_GROUP_ID, PMIX_MAX_KEYLEN) &&
            PMIX_STRING == info[i].value.type) {
            grp = info[i].value.data.string;
        }
    }
    pmix_status_t rc = (NULL == grp || NULL == source) ? PMIX_ERR_BAD_PARAM : PMIX_SUCCESS;
    const char *what = "PMIX_GROUP_INVITED without a source or PMIX_GROUP_ID";
    if (PMIX_SUCCESS == rc) {
        char *id = strdup(grp);
        rc = PMIx_Group_join_nb(grp, source, PMIX_GROUP_ACCEPT, &group_tmo, 1, join_done, id);
        what = "PMIx_Group_join_nb";
        if (PMIX_SUCCESS != rc) {
            free(id);
        }
    }
    if (PMIX_SUCCESS != rc) {
        inv_record(rc, what, NULL == grp ? "?" : grp);
    }
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

/* An invitee: waits until its join of `grp` completed (the count-th). */
static void wait_joined(long count, const char *grp)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += GROUP_TIMEOUT + 5;
    pthread_mutex_lock(&inv_lock);
    while (inv_joined < count && PMIX_SUCCESS == inv_status) {
        if (ETIMEDOUT == pthread_cond_timedwait(&inv_cond, &inv_lock, &dl)) {
            pthread_mutex_unlock(&inv_lock);
            fprintf(stderr, "pmix_bench rank %u: no completed join of %s in %d s\n", me.rank,
                    grp, GROUP_TIMEOUT + 5);
            exit(2);
        }
    }
    pmix_status_t rc = inv_status;
    const char *what = inv_what;
    int same = 0 == strcmp(inv_last, grp);
    pthread_mutex_unlock(&inv_lock);
    CHECK(rc, what);
    if (!same) {
        fprintf(stderr, "pmix_bench rank %u: joined %s, expected %s\n", me.rank, inv_last, grp);
        exit(3);
    }
}

/* Checks a construct's or an invite's results: n members, and a context
 * id if one was asked for. Frees them. */
static void check_group_results(const char *grp, pmix_info_t *results, size_t nresults, uint32_t n,
                                int want_cid)
{
    int cid = 0;
    size_t members = 0;
    for (size_t i = 0; i < nresults; i++) {
        if (0 == strncmp(results[i].key, PMIX_GROUP_CONTEXT_ID, PMIX_MAX_KEYLEN)) {
            cid = 1;
        } else if (0 == strncmp(results[i].key, PMIX_GROUP_MEMBERSHIP, PMIX_MAX_KEYLEN) &&
                   PMIX_DATA_ARRAY == results[i].value.type &&
                   NULL != results[i].value.data.darray) {
            members = results[i].value.data.darray->size;
        }
    }
    if (members != n || (want_cid && !cid)) {
        fprintf(stderr,
                "pmix_bench rank %u: group %s: %zu results, %zu members (expected %u)%s\n",
                me.rank, grp, nresults, members, n,
                want_cid && !cid ? ", no PMIX_GROUP_CONTEXT_ID" : "");
        exit(3);
    }
    if (NULL != results) {
        PMIX_INFO_FREE(results, nresults);
    }
}

/* One PMIx_Group_construct of the whole job: its time in us. */
static double construct_once(const char *grp, const pmix_proc_t *wild, uint32_t n, int with_cid)
{
    pmix_info_t dirs[2];
    PMIX_INFO_CONSTRUCT(&dirs[0]);
    PMIX_INFO_CONSTRUCT(&dirs[1]);
    int tmo = GROUP_TIMEOUT;
    bool t = true;
    PMIX_INFO_LOAD(&dirs[0], PMIX_TIMEOUT, &tmo, PMIX_INT);
    PMIX_INFO_LOAD(&dirs[1], PMIX_GROUP_ASSIGN_CONTEXT_ID, &t, PMIX_BOOL);
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    double a = now_ns();
    pmix_status_t rc =
        PMIx_Group_construct(grp, wild, 1, dirs, with_cid ? 2 : 1, &results, &nresults);
    double us = (now_ns() - a) / 1e3;
    CHECK(rc, with_cid ? "PMIx_Group_construct(PMIX_GROUP_ASSIGN_CONTEXT_ID)"
                       : "PMIx_Group_construct");
    check_group_results(grp, results, nresults, n, with_cid);
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&dirs[1]);
    return us;
}

/* One PMIx_Group_destruct: its time in us. */
static double destruct_once(const char *grp)
{
    double a = now_ns();
    pmix_status_t rc = PMIx_Group_destruct(grp, &group_tmo, 1);
    double us = (now_ns() - a) / 1e3;
    CHECK(rc, "PMIx_Group_destruct");
    return us;
}

/* iters rounds (after GROUP_WARMUP untimed ones) of a construct of a
 * fresh group over wild (with a context id when with_cid) and its
 * destruct: the times in us in cons[] and dest[]. */
static void construct_rounds(const pmix_proc_t *wild, uint32_t n, int with_cid, long iters,
                             double *cons, double *dest)
{
    char grp[PMIX_MAX_NSLEN + 1];
    for (long i = -GROUP_WARMUP; i < iters; i++) {
        step_iter = i;
        next_group_id(grp, sizeof grp);
        step = with_cid ? "PMIx_Group_construct(PMIX_GROUP_ASSIGN_CONTEXT_ID)"
                        : "PMIx_Group_construct";
        double c = construct_once(grp, wild, n, with_cid);
        step = with_cid ? "PMIx_Group_destruct (context id)" : "PMIx_Group_destruct";
        double d = destruct_once(grp);
        if (i >= 0) {
            cons[i] = c;
            dest[i] = d;
        }
    }
}

/* One invitation of every other rank by rank 0, accepted by all, then
 * destructed: rank 0's invite time in us (-1 elsewhere). */
static double invite_once(const char *grp, const pmix_proc_t *others, uint32_t n)
{
    double us = -1;
    if (0 == me.rank) {
        pmix_info_t *results = NULL;
        size_t nresults = 0;
        double a = now_ns();
        pmix_status_t rc = PMIx_Group_invite(grp, others, n - 1, &group_tmo, 1, &results,
                                             &nresults);
        us = (now_ns() - a) / 1e3;
        CHECK(rc, "PMIx_Group_invite");
        check_group_results(grp, results, nresults, n, 0);
    } else {
        static long joins;
        wait_joined(++joins, grp);
    }
    destruct_once(grp);
    return us;
}

static int groups(long group_iters)
{
    pmix_proc_t wild, peer;
    uint32_t n = 0;
    CHECK(job_and_peer(&wild, &peer, &n), "PMIx_Get(PMIX_JOB_SIZE)");

    PMIX_INFO_CONSTRUCT(&group_tmo);
    int tmo = GROUP_TIMEOUT;
    PMIX_INFO_LOAD(&group_tmo, PMIX_TIMEOUT, &tmo, PMIX_INT);

    step = "PMIx_Register_event_handler(PMIX_GROUP_INVITED)";
    pmix_status_t code = PMIX_GROUP_INVITED;
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_invited, NULL, NULL);
    if (rc < 0) { /* blocking: the handler's id, or an error */
        CHECK(rc, "PMIx_Register_event_handler(PMIX_GROUP_INVITED)");
    }
    /* Every handler is in place before the first invitation. */
    step = "PMIx_Fence (start)";
    CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence");

    double res[G_COUNT];
    double *samples = calloc((size_t) group_iters, sizeof *samples);
    double *samples2 = calloc((size_t) group_iters, sizeof *samples2);
    char grp[PMIX_MAX_NSLEN + 1];

    step = "PMIx_Fence";
    for (long i = -GROUP_WARMUP; i < group_iters; i++) {
        step_iter = i;
        double a = now_ns();
        CHECK(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence");
        if (i >= 0) {
            samples[i] = (now_ns() - a) / 1e3;
        }
    }
    res[G_FENCE] = median(samples, (size_t) group_iters);

    pmix_proc_t *all = calloc(n, sizeof *all);
    for (uint32_t r = 0; r < n; r++) {
        PMIX_PROC_CONSTRUCT(&all[r]);
        PMIX_LOAD_PROCID(&all[r], me.nspace, r);
    }
    step = "PMIx_Fence (every rank named)";
    for (long i = -GROUP_WARMUP; i < group_iters; i++) {
        step_iter = i;
        double a = now_ns();
        CHECK(PMIx_Fence(all, n, NULL, 0), "PMIx_Fence(every rank named)");
        if (i >= 0) {
            samples[i] = (now_ns() - a) / 1e3;
        }
    }
    res[G_FENCE_SERVER] = median(samples, (size_t) group_iters);
    free(all);

    construct_rounds(&wild, n, 0, group_iters, samples, samples2);
    res[G_CONSTRUCT] = median(samples, (size_t) group_iters);
    res[G_DESTRUCT] = median(samples2, (size_t) group_iters);
    construct_rounds(&wild, n, 1, group_iters, samples, samples2);
    res[G_CONSTRUCT_CID] = median(samples, (size_t) group_iters);

    res[G_INVITE] = -1;
    if (n > 1) {
        pmix_proc_t *others = calloc(n - 1, sizeof *others);
        for (uint32_t r = 1; r < n; r++) {
            PMIX_PROC_CONSTRUCT(&others[r - 1]);
            PMIX_LOAD_PROCID(&others[r - 1], me.nspace, r);
        }
        step = 0 == me.rank ? "PMIx_Group_invite (then destruct)"
                            : "waiting for an invitation and the join (then destruct)";
        for (long i = -GROUP_WARMUP; i < group_iters; i++) {
            step_iter = i;
            next_group_id(grp, sizeof grp);
            double v = invite_once(grp, others, n);
            if (i >= 0) {
                samples[i] = v;
            }
        }
        if (0 == me.rank) {
            res[G_INVITE] = median(samples, (size_t) group_iters);
        }
        free(others);
    }
    free(samples);
    free(samples2);

    step = "reporting";
    step_iter = -1;
    char header[128];
    snprintf(header, sizeof header, "mode=groups group_iters=%ld", group_iters);
    int status = report(n, header, res, G_COUNT, group_names, group_units);
    alarm(0);
    return status;
}

int main(int argc, char **argv)
{
    long get_iters = arg_or_env(argc, argv, "-g", "PMIX_BENCH_GET", 100000);
    long fence_iters = arg_or_env(argc, argv, "-f", "PMIX_BENCH_FENCE", 1000);
    long modex_rounds = arg_or_env(argc, argv, "-m", "PMIX_BENCH_MODEX", 20);
    long group_iters = arg_or_env(argc, argv, "-G", "PMIX_BENCH_GROUPS", 200);
    long alarm_s = arg_or_env(argc, argv, "-A", "PMIX_BENCH_ALARM", 300);
    if (get_iters < 1 || fence_iters < 1 || modex_rounds < 1 || group_iters < 1 ||
        alarm_s < 1) {
        fprintf(stderr, "pmix_bench: iteration counts must be positive\n");
        return 1;
    }
    int first = 0;
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], "--first")) {
            first = 1;
        } else if (0 == strcmp(argv[i], "--first-commit")) {
            first = 2;
        } else if (0 == strcmp(argv[i], "--groups")) {
            first = 3;
        }
    }
    double res[M_COUNT];
    if (3 == first) { /* PMIx_Init included */
        signal(SIGALRM, on_alarm);
        alarm((unsigned) alarm_s);
    }

    double t0 = now_ns();
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    double t1 = now_ns();
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "pmix_bench: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    if (3 == first) {
        return groups(group_iters);
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

    /* Collecting fence with nothing new (the last one collected all). */
    for (long i = 0; i < fence_iters; i++) {
        double a = now_ns();
        fence_collect();
        samples[i] = (now_ns() - a) / 1e3;
    }
    res[M_FENCE_COLLECT] = median(samples, (size_t) fence_iters);
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
