/* Job registration at scale, on whichever libpmix.so.2 it runs on (driven
 * by benches/c/register.sh): a server with no clients registers one
 * namespace of N ranks, 64 per node, as mpirun/PRRTE does it:
 *
 *   - PMIX_NODE_MAP and PMIX_PROC_MAP as regexes made by the library's
 *     own PMIx_generate_regex and PMIx_generate_ppn (not timed);
 *   - job-level keys (PMIX_JOBID, PMIX_JOB_SIZE, PMIX_MAX_PROCS,
 *     PMIX_UNIV_SIZE, PMIX_NUM_NODES, PMIX_JOB_NUM_APPS, PMIX_TMPDIR);
 *   - one PMIX_APP_INFO_ARRAY per application (two, half the ranks each);
 *   - this node (its real hostname) in the middle of the node map, with
 *     its 64 ranks local (nlocalprocs = 64).
 *
 *   register_bench [-n RANKS] [-p PPN] [-N] [-P]
 *
 * -N adds what PRRTE also sends for every node of the map, a
 * PMIX_NODE_INFO_ARRAY (hostname, node id, node and local size, local
 * leader, local peers); -P adds what it sends for every rank, a
 * PMIX_PROC_INFO_ARRAY (rank, global, application, local and node ranks,
 * application number, node id, hostname). Both are built before the
 * timed call (their memory counts in the RSS, the same for every library).
 *
 * Times PMIx_server_register_nspace from the call to its callback, then
 * reads VmRSS and VmHWM from /proc/self/status. Prints
 *
 *   register_bench lib=PATH            the libpmix mapped (/proc/self/maps)
 *   register_bench ranks=N nodes=M us=T cpu_us=C rss_kib=R hwm_kib=H base_rss_kib=B
 *   register_bench done
 *
 * (cpu_us: the CPU time of the whole process, every thread, over the same
 * interval, which a loaded machine inflates less than the wall time;
 * base_rss_kib: VmRSS after PMIx_server_init, before the registration.)
 * Every wait is bounded by an alarm. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int registered = 0;
static pmix_status_t reg_status;
static struct timespec reg_end, reg_cpu_end;

static void reg_done(pmix_status_t status, void *cbdata)
{
    (void) cbdata;
    clock_gettime(CLOCK_MONOTONIC, &reg_end);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &reg_cpu_end);
    pthread_mutex_lock(&mu);
    reg_status = status;
    registered = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

/* The value of "Key:" in /proc/self/status, in kB, or -1. */
static long status_kib(const char *key)
{
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    FILE *f = fopen("/proc/self/status", "r");

    if (NULL == f) {
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        if (0 == strncmp(line, key, n) && ':' == line[n]) {
            v = strtol(line + n + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return v;
}

/* Prints the path of the libpmix mapped into this process. */
static void print_lib(void)
{
    char line[4096];
    FILE *f = fopen("/proc/self/maps", "r");

    if (NULL == f) {
        printf("register_bench lib=unknown\n");
        return;
    }
    while (fgets(line, sizeof line, f)) {
        char *p = strchr(line, '/');
        if (NULL != p && NULL != strstr(p, "/libpmix.so")) {
            p[strcspn(p, "\n")] = '\0';
            printf("register_bench lib=%s\n", p);
            fclose(f);
            return;
        }
    }
    fclose(f);
    printf("register_bench lib=none\n");
}

/* Appends to a growing string buffer. */
struct sbuf {
    char *s;
    size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cap = 2 * (b->len + n + 1);
        b->s = realloc(b->s, b->cap);
        if (NULL == b->s) {
            fprintf(stderr, "register_bench: out of memory\n");
            exit(1);
        }
    }
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

/* Loads dst with a PMIX_DATA_ARRAY of PMIX_INFO of key `k`, taking the n
 * items (built with PMIX_INFO_CREATE). */
static void info_array(pmix_info_t *dst, const char *k, pmix_info_t *items, size_t n)
{
    pmix_data_array_t arr;

    arr.type = PMIX_INFO;
    arr.size = n;
    arr.array = items;
    PMIX_INFO_LOAD(dst, k, &arr, PMIX_DATA_ARRAY);
    PMIX_INFO_FREE(items, n);
}

/* The PMIX_NODE_INFO_ARRAY of node `n` (PRRTE's fields). */
static void node_array(pmix_info_t *dst, const char *name, uint32_t n, uint32_t first,
                       uint32_t count)
{
    pmix_info_t *items;
    struct sbuf peers = {0};
    char num[16];

    for (uint32_t r = 0; r < count; r++) {
        snprintf(num, sizeof num, "%s%u", r ? "," : "", first + r);
        sb_add(&peers, num);
    }
    PMIX_INFO_CREATE(items, 6);
    PMIX_INFO_LOAD(&items[0], PMIX_HOSTNAME, name, PMIX_STRING);
    PMIX_INFO_LOAD(&items[1], PMIX_NODEID, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&items[2], PMIX_NODE_SIZE, &count, PMIX_UINT32);
    PMIX_INFO_LOAD(&items[3], PMIX_LOCAL_SIZE, &count, PMIX_UINT32);
    PMIX_INFO_LOAD(&items[4], PMIX_LOCALLDR, &first, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&items[5], PMIX_LOCAL_PEERS, peers.s, PMIX_STRING);
    free(peers.s);
    info_array(dst, PMIX_NODE_INFO_ARRAY, items, 6);
}

/* The PMIX_PROC_INFO_ARRAY of rank `r` (PRRTE's fields). */
static void proc_array(pmix_info_t *dst, const char *host, uint32_t r, uint32_t node,
                       uint32_t ppn, uint32_t half)
{
    pmix_info_t *items;
    uint32_t app = r < half ? 0 : 1, app_rank = r < half ? r : r - half;
    uint16_t local = (uint16_t) (r % ppn);

    PMIX_INFO_CREATE(items, 8);
    PMIX_INFO_LOAD(&items[0], PMIX_RANK, &r, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&items[1], PMIX_GLOBAL_RANK, &r, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&items[2], PMIX_APPNUM, &app, PMIX_UINT32);
    PMIX_INFO_LOAD(&items[3], PMIX_APP_RANK, &app_rank, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&items[4], PMIX_LOCAL_RANK, &local, PMIX_UINT16);
    PMIX_INFO_LOAD(&items[5], PMIX_NODE_RANK, &local, PMIX_UINT16);
    PMIX_INFO_LOAD(&items[6], PMIX_NODEID, &node, PMIX_UINT32);
    PMIX_INFO_LOAD(&items[7], PMIX_HOSTNAME, host, PMIX_STRING);
    info_array(dst, PMIX_PROC_INFO_ARRAY, items, 8);
}

static void app_array(pmix_info_t *dst, uint32_t appnum, uint32_t size, uint32_t leader)
{
    pmix_data_array_t *arr;
    pmix_info_t *items;

    PMIX_DATA_ARRAY_CREATE(arr, 4, PMIX_INFO);
    items = (pmix_info_t *) arr->array;
    PMIX_INFO_LOAD(&items[0], PMIX_APPNUM, &appnum, PMIX_UINT32);
    PMIX_INFO_LOAD(&items[1], PMIX_APP_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&items[2], PMIX_APPLDR, &leader, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&items[3], PMIX_APP_ARGV, "./bench --flag", PMIX_STRING);
    PMIX_INFO_LOAD(dst, PMIX_APP_INFO_ARRAY, arr, PMIX_DATA_ARRAY);
    /* PMIX_INFO_LOAD copied the array: free ours. */
    PMIX_DATA_ARRAY_FREE(arr);
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_info_t *job;
    pmix_status_t rc;
    uint32_t nranks = 131072, ppn = 64, nnodes, half, napps = 2, one = 1, zero = 0;
    char host[256], name[300], range[64], *node_regex = NULL, *proc_regex = NULL;
    struct sbuf nodes = {0}, procs = {0};
    struct timespec t0, cpu0;
    pmix_nspace_t ns;
    long base_rss;
    size_t nj = 0, njob;
    int opt, node_arrays = 0, proc_arrays = 0;

    while (-1 != (opt = getopt(argc, argv, "n:p:NP"))) {
        switch (opt) {
        case 'n': nranks = (uint32_t) strtoul(optarg, NULL, 10); break;
        case 'p': ppn = (uint32_t) strtoul(optarg, NULL, 10); break;
        case 'N': node_arrays = 1; break;
        case 'P': proc_arrays = 1; break;
        default:
            fprintf(stderr, "usage: register_bench [-n RANKS] [-p PPN] [-N] [-P]\n");
            return 2;
        }
    }
    if (0 == nranks || 0 == ppn) {
        fprintf(stderr, "register_bench: RANKS and PPN must be positive\n");
        return 2;
    }
    alarm(120);
    print_lib();
    if (0 != gethostname(host, sizeof host)) {
        strcpy(host, "localhost");
    }
    host[sizeof host - 1] = '\0';
    nnodes = (nranks + ppn - 1) / ppn;
    for (uint32_t n = 0; n < nnodes; n++) {
        uint32_t first = n * ppn, last = (n + 1) * ppn;
        if (last > nranks) {
            last = nranks;
        }
        if (n == nnodes / 2) {
            snprintf(name, sizeof name, "%s%s", n ? "," : "", host);
        } else {
            snprintf(name, sizeof name, "%snode%05u", n ? "," : "", n);
        }
        sb_add(&nodes, name);
        snprintf(range, sizeof range, "%s%u-%u", n ? ";" : "", first, last - 1);
        sb_add(&procs, range);
    }

    memset(&module, 0, sizeof module);
    if (PMIX_SUCCESS != (rc = PMIx_server_init(&module, NULL, 0))) {
        fprintf(stderr, "register_bench: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (PMIX_SUCCESS != (rc = PMIx_generate_regex(nodes.s, &node_regex)) ||
        PMIX_SUCCESS != (rc = PMIx_generate_ppn(procs.s, &proc_regex))) {
        fprintf(stderr, "register_bench: generating the maps: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    free(nodes.s);
    free(procs.s);

    half = nranks / 2;
    njob = 11 + (node_arrays ? nnodes : 0) + (proc_arrays ? nranks : 0);
    PMIX_INFO_CREATE(job, njob);
    PMIX_INFO_LOAD(&job[nj], PMIX_NODE_MAP, node_regex, PMIX_REGEX);
    nj++;
    PMIX_INFO_LOAD(&job[nj], PMIX_PROC_MAP, proc_regex, PMIX_REGEX);
    nj++;
    PMIX_INFO_LOAD(&job[nj++], PMIX_JOBID, "bench.1", PMIX_STRING);
    PMIX_INFO_LOAD(&job[nj++], PMIX_JOB_SIZE, &nranks, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[nj++], PMIX_MAX_PROCS, &nranks, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[nj++], PMIX_UNIV_SIZE, &nranks, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[nj++], PMIX_NUM_NODES, &nnodes, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[nj++], PMIX_JOB_NUM_APPS, &napps, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[nj++], PMIX_TMPDIR, "/tmp/pmix-register-bench", PMIX_STRING);
    app_array(&job[nj++], zero, half, zero);
    app_array(&job[nj++], one, nranks - half, half);
    for (uint32_t n = 0; n < nnodes && (node_arrays || proc_arrays); n++) {
        uint32_t first = n * ppn, count = first + ppn > nranks ? nranks - first : ppn;
        if (n == nnodes / 2) {
            snprintf(name, sizeof name, "%s", host);
        } else {
            snprintf(name, sizeof name, "node%05u", n);
        }
        if (node_arrays) {
            node_array(&job[nj++], name, n, first, count);
        }
        for (uint32_t r = first; proc_arrays && r < first + count; r++) {
            proc_array(&job[nj++], name, r, n, ppn, half);
        }
    }

    PMIX_LOAD_NSPACE(ns, "bench.1");
    base_rss = status_kib("VmRSS");
    pthread_mutex_lock(&mu);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = PMIx_server_register_nspace(ns, (int) (ppn < nranks ? ppn : nranks), job, nj, reg_done,
                                     NULL);
    if (PMIX_OPERATION_SUCCEEDED == rc) {
        clock_gettime(CLOCK_MONOTONIC, &reg_end);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &reg_cpu_end);
        registered = 1;
        reg_status = PMIX_SUCCESS;
    } else if (PMIX_SUCCESS != rc) {
        pthread_mutex_unlock(&mu);
        fprintf(stderr, "register_bench: register_nspace: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    while (!registered) {
        pthread_cond_wait(&cv, &mu);
    }
    pthread_mutex_unlock(&mu);
    if (PMIX_SUCCESS != reg_status) {
        fprintf(stderr, "register_bench: register_nspace: %s\n", PMIx_Error_string(reg_status));
        return 1;
    }
    printf("register_bench form=%s%s\n", node_arrays ? "N" : "", proc_arrays ? "P" : "");
    printf("register_bench ranks=%u nodes=%u us=%.1f cpu_us=%.1f rss_kib=%ld hwm_kib=%ld "
           "base_rss_kib=%ld\n",
           nranks, nnodes,
           (double) (reg_end.tv_sec - t0.tv_sec) * 1e6 + (double) (reg_end.tv_nsec - t0.tv_nsec) / 1e3,
           (double) (reg_cpu_end.tv_sec - cpu0.tv_sec) * 1e6 +
               (double) (reg_cpu_end.tv_nsec - cpu0.tv_nsec) / 1e3,
           status_kib("VmRSS"), status_kib("VmHWM"), base_rss);
    fflush(stdout);
    PMIX_INFO_FREE(job, njob);
    free(node_regex);
    free(proc_regex);
    PMIx_server_finalize();
    printf("register_bench done\n");
    return 0;
}
