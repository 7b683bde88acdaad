/* Forwarded output to a tool, timed (benches/c/tools.sh):
 *
 *   iof_bench PID NSPACE NRANKS
 *
 * attaches to the server of process PID (a pmixrun started with
 * `--stdin all` whose ranks wait for a line on stdin, then write their
 * output and end), pulls the stdout of every rank of NSPACE with a
 * counting handler, pushes "go\n" to every rank, and waits until each
 * rank's stream has ended (PMIX_IOF_COMPLETE). Prints
 *
 *   iof_bench result=first_byte unit=us median=M    push -> first bytes
 *   iof_bench result=all_output unit=ms median=M    push -> every stream ended
 *   iof_bench result=throughput unit=MB/s median=M
 *   iof_bench bytes=B lines=L dropped=D
 *   iof_bench done
 *
 * (D: the bytes the server reported dropped, pmix.iof.dropped). With
 * IOF_CACHE=BYTES in the environment the pull asks for that much
 * buffering on the server (PMIX_IOF_CACHE_SIZE). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix_tool.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static size_t bytes, lines, ended;
static unsigned long long dropped;
static double first = 0;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void on_output(size_t id, pmix_iof_channel_t channel, pmix_proc_t *source,
                      pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void) id; (void) channel; (void) source;
    pthread_mutex_lock(&mu);
    if (NULL != payload && 0 < payload->size) {
        if (0 == first) {
            first = now_us();
        }
        bytes += payload->size;
        for (size_t i = 0; i < payload->size; i++) {
            lines += '\n' == payload->bytes[i];
        }
    }
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_IOF_COMPLETE)) {
            ended++;
        } else if (0 == strcmp(info[i].key, "pmix.iof.dropped")) {
            dropped += info[i].value.data.uint64;
        }
    }
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

int main(int argc, char **argv)
{
    pmix_proc_t me, all;
    pmix_info_t info[2], dir;
    size_t ndirs = 0;
    const char *cache = getenv("IOF_CACHE");
    size_t ninfo = 1, nranks;
    pmix_byte_object_t go;
    pmix_status_t rc;
    const char *tmp = getenv("TMPDIR");
    pid_t pid;
    double t0, t_end;

    if (argc < 4) {
        fprintf(stderr, "usage: iof_bench PID NSPACE NRANKS\n");
        return 2;
    }
    alarm(300);
    pid = (pid_t) atoi(argv[1]);
    nranks = (size_t) atoi(argv[3]);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    if (NULL != tmp) {
        PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TMPDIR, tmp, PMIX_STRING);
        ninfo = 2;
    }
    if (PMIX_SUCCESS != (rc = PMIx_tool_init(&me, info, ninfo))) {
        fprintf(stderr, "iof_bench: PMIx_tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_LOAD_PROCID(&all, argv[2], PMIX_RANK_WILDCARD);
    if (NULL != cache) {
        uint32_t size = (uint32_t) strtoul(cache, NULL, 10);
        PMIX_INFO_LOAD(&dir, PMIX_IOF_CACHE_SIZE, &size, PMIX_UINT32);
        ndirs = 1;
    }
    rc = PMIx_IOF_pull(&all, 1, ndirs ? &dir : NULL, ndirs, PMIX_FWD_STDOUT_CHANNEL, on_output,
                       NULL, NULL);
    if (rc < 0) {
        fprintf(stderr, "iof_bench: PMIx_IOF_pull: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    go.bytes = "go\n";
    go.size = 3;
    t0 = now_us();
    if (PMIX_SUCCESS != (rc = PMIx_IOF_push(&all, 1, &go, NULL, 0, NULL, NULL))) {
        fprintf(stderr, "iof_bench: PMIx_IOF_push: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pthread_mutex_lock(&mu);
    while (ended < nranks) {
        pthread_cond_wait(&cv, &mu);
    }
    t_end = now_us();
    pthread_mutex_unlock(&mu);
    printf("iof_bench result=first_byte unit=us median=%.1f\n", first - t0);
    printf("iof_bench result=all_output unit=ms median=%.2f\n", (t_end - t0) / 1e3);
    printf("iof_bench result=throughput unit=MB/s median=%.1f\n", bytes / (t_end - t0));
    printf("iof_bench bytes=%zu lines=%zu dropped=%llu\n", bytes, lines, dropped);
    PMIx_tool_finalize();
    printf("iof_bench done\n");
    return 0;
}
