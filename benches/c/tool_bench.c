/* The tool side of a running job, timed (benches/c/tools.sh):
 *
 *   tool_bench PID|URI NSPACE [ITERS]
 *
 * attaches to the server of process PID (PMIX_SERVER_PIDINFO; rendezvous
 * files in $TMPDIR or /tmp), or to the server whose URI it is given
 * (PMIX_SERVER_URI: an argument holding ';'), and prints one line per
 * figure:
 *
 *   tool_bench lib=PATH
 *   tool_bench result=attach unit=us median=M      PMIx_tool_init (one)
 *   tool_bench result=get_job_size unit=us median=M  PMIx_Get of NSPACE's
 *                                                   PMIX_JOB_SIZE (ITERS)
 *   tool_bench result=query_proc_table unit=us median=M
 *                                                   PMIx_Query_info of
 *                                                   NSPACE's proc table
 *   tool_bench result=query_namespaces unit=us median=M
 *   tool_bench done
 *
 * A figure the library refuses prints "tool_bench result=NAME n/a STATUS".
 * The library is the one the dynamic linker gives (printed from
 * /proc/self/maps). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix_tool.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_lib(void)
{
    char line[4096];
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *p = strstr(line, "libpmix.so");
        if (p) {
            char *path = strchr(line, '/');
            path[strcspn(path, "\n")] = '\0';
            printf("tool_bench lib=%s\n", path);
            break;
        }
    }
    if (f) {
        fclose(f);
    }
}

static pmix_status_t query(const char *key, const char *nspace)
{
    pmix_query_t q;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_status_t rc;

    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(rc, q.keys, key);
    if (NULL != nspace) {
        PMIX_QUERY_QUALIFIERS_CREATE(&q, 1);
        PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_NSPACE, nspace, PMIX_STRING);
    }
    rc = PMIx_Query_info(&q, 1, &results, &nresults);
    PMIX_QUERY_DESTRUCT(&q);
    PMIX_INFO_FREE(results, nresults);
    return rc;
}

int main(int argc, char **argv)
{
    pmix_proc_t me, job;
    pmix_info_t info[2];
    size_t ninfo = 1;
    pmix_value_t *val;
    pmix_status_t rc;
    const char *tmp = getenv("TMPDIR");
    int iters = argc > 3 ? atoi(argv[3]) : 2000;
    double *t = calloc(iters, sizeof *t), t0;
    pid_t pid;

    if (argc < 3 || NULL == t) {
        fprintf(stderr, "usage: tool_bench PID NSPACE [ITERS]\n");
        return 2;
    }
    alarm(120);
    pid = (pid_t) atoi(argv[1]);
    if (NULL != strchr(argv[1], ';')) {
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_URI, argv[1], PMIX_STRING);
    } else {
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    }
    if (NULL != tmp) {
        PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TMPDIR, tmp, PMIX_STRING);
        ninfo = 2;
    }
    t0 = now_us();
    rc = PMIx_tool_init(&me, info, ninfo);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "tool_bench: PMIx_tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("tool_bench result=attach unit=us median=%.1f\n", now_us() - t0);
    print_lib();

    PMIX_LOAD_PROCID(&job, argv[2], PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
    if (PMIX_SUCCESS != rc) {
        printf("tool_bench result=get_job_size n/a %s\n", PMIx_Error_string(rc));
    } else {
        PMIX_VALUE_RELEASE(val);
        for (int i = 0; i < iters; i++) {
            t0 = now_us();
            rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
            t[i] = now_us() - t0;
            if (PMIX_SUCCESS == rc) {
                PMIX_VALUE_RELEASE(val);
            }
        }
        printf("tool_bench result=get_job_size unit=us median=%.3f\n", median(t, iters));
    }

    const char *keys[2] = {PMIX_QUERY_PROC_TABLE, PMIX_QUERY_NAMESPACES};
    const char *names[2] = {"query_proc_table", "query_namespaces"};
    for (int k = 0; k < 2; k++) {
        const char *ns = 0 == k ? argv[2] : NULL;
        int n = iters / 10 > 0 ? iters / 10 : 1;
        rc = query(keys[k], ns);
        if (PMIX_SUCCESS != rc) {
            printf("tool_bench result=%s n/a %s\n", names[k], PMIx_Error_string(rc));
            continue;
        }
        for (int i = 0; i < n; i++) {
            t0 = now_us();
            (void) query(keys[k], ns);
            t[i] = now_us() - t0;
        }
        printf("tool_bench result=%s unit=us median=%.1f\n", names[k], median(t, n));
    }
    PMIx_tool_finalize();
    printf("tool_bench done\n");
    free(t);
    return 0;
}
