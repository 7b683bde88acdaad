/* A tool on our library at an OpenPMIx server (tests/stock_link_tools.rs):
 *
 *   stock_dvm_tool spawn PID        attaches to the server of pid PID (a
 *                                   `prte` DVM), spawns a job of 2 ranks
 *                                   that print "tick R N" lines for a
 *                                   while, prints "spawned NSPACE"
 *   stock_dvm_tool attach PID [NS]  attaches to the server of pid PID (a
 *                                   `prte` or an `mpirun`), takes job NS
 *                                   (default: the first job the
 *                                   namespaces query names that is neither
 *                                   the tool's nor the server's), checks
 *                                   its proc table (2 ranks, their pids),
 *                                   its size (PMIx_Get of PMIX_JOB_SIZE)
 *                                   and status query, pulls its stdout
 *                                   (PMIx_IOF_pull) until 3 lines came,
 *                                   deregisters and finalizes.
 *   stock_dvm_tool attach system NS the same at the system server
 *                                   (PMIX_CONNECT_TO_SYSTEM)
 *   stock_dvm_tool self 0           a tool its launcher started (no
 *                                   directive: the server its environment
 *                                   names): its own job's size, finalize.
 *
 * Prints "tool libpmix: PATH" (the library this process mapped), "job NS",
 * "proc R pid P", "pulled LINE" and finally "tool ok". Rendezvous files
 * are searched as PMIx_tool_init does ($TMPDIR or /tmp and below). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix_tool.h>

#include "../interop/maps.h"
#include "query_one.h"

#define TOOL_NAME "stock_dvm_tool"
#include "tool_common.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int lines_seen = 0;

static void output(size_t ref, pmix_iof_channel_t channel, pmix_proc_t *source,
                   pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void) ref;
    (void) info;
    (void) ninfo;
    if (!(channel & PMIX_FWD_STDOUT_CHANNEL) || NULL == payload || 0 == payload->size) {
        return;
    }
    pthread_mutex_lock(&lock);
    /* Each chunk may hold several lines: print each "tick" line. */
    char *text = strndup(payload->bytes, payload->size), *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); NULL != l; l = strtok_r(NULL, "\n", &save)) {
        if (NULL != strstr(l, "tick")) {
            printf("pulled %s (from %s.%u)\n", l, source->nspace, source->rank);
            ++lines_seen;
        }
    }
    free(text);
    fflush(stdout);
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void registered(pmix_status_t status, size_t ref, void *cbdata)
{
    (void) status;
    (void) ref;
    (void) cbdata;
}

/* A one-key query (qualified by nspace ns if given). */
static pmix_status_t query(const char *key, const char *ns, pmix_info_t **results,
                           size_t *nresults)
{
    pmix_info_t qual;
    pmix_status_t rc;
    PMIX_INFO_CONSTRUCT(&qual);
    if (NULL != ns) {
        PMIX_INFO_LOAD(&qual, PMIX_NSPACE, ns, PMIX_STRING);
    }
    rc = query_one(key, &qual, NULL != ns ? 1 : 0, results, nresults);
    PMIX_INFO_DESTRUCT(&qual);
    return rc;
}

static int spawn(void)
{
    pmix_app_t app;
    pmix_nspace_t ns;
    pmix_status_t rc;
    sh_app(&app, "/bin/sh",
           "i=0; while [ $i -lt 240 ]; do echo tick $PMIX_RANK $i; i=$((i+1)); "
           "sleep 0.25; done");
    app.maxprocs = 2;
    rc = PMIx_Spawn(NULL, 0, &app, 1, ns);
    PMIX_APP_DESTRUCT(&app);
    if (PMIX_SUCCESS != rc) {
        FAIL("PMIx_Spawn: %s", PMIx_Error_string(rc));
    }
    printf("spawned %s\n", ns);
    return 0;
}

static int attach(const pmix_proc_t *me, const char *given)
{
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_status_t rc;
    char job[PMIX_MAX_NSLEN + 1] = {0};
    pmix_proc_t server;

    /* The job: given, or the first the server names but itself and us. */
    rc = query(PMIX_QUERY_NAMESPACES, NULL, &results, &nresults);
    if (PMIX_SUCCESS != rc || 0 == nresults || PMIX_STRING != results[0].value.type) {
        FAIL("namespaces query: %s", PMIx_Error_string(rc));
    }
    pmix_value_t *sv = NULL;
    pmix_proc_t myself = *me;
    rc = PMIx_Get(&myself, PMIX_SERVER_NSPACE, NULL, 0, &sv);
    if (PMIX_SUCCESS != rc || NULL == sv || PMIX_STRING != sv->type) {
        FAIL("server nspace: %s", PMIx_Error_string(rc));
    }
    PMIX_LOAD_PROCID(&server, sv->data.string, 0);
    PMIX_VALUE_RELEASE(sv);
    char *list = strdup(results[0].value.data.string), *save = NULL;
    printf("namespaces %s\n", list);
    for (char *n = strtok_r(list, ",", &save); NULL != n; n = strtok_r(NULL, ",", &save)) {
        if (NULL != given ? 0 == strcmp(n, given)
                          : (0 != strcmp(n, me->nspace) && 0 != strcmp(n, server.nspace))) {
            PMIX_LOAD_NSPACE(job, n);
            break;
        }
    }
    free(list);
    PMIX_INFO_FREE(results, nresults);
    if ('\0' == job[0]) {
        FAIL("no job at the server (wanted %s)", NULL != given ? given : "any");
    }
    printf("job %s\n", job);

    /* Its proc table: 2 ranks with their pids. */
    rc = query(PMIX_QUERY_PROC_TABLE, job, &results, &nresults);
    if (PMIX_SUCCESS != rc || 0 == nresults || PMIX_DATA_ARRAY != results[0].value.type) {
        FAIL("proc table of %s: %s", job, PMIx_Error_string(rc));
    }
    pmix_data_array_t *table = results[0].value.data.darray;
    if (PMIX_PROC_INFO != table->type || 2 != table->size) {
        FAIL("proc table of %s: %zu entries", job, table->size);
    }
    pmix_proc_info_t *pi = (pmix_proc_info_t *) table->array;
    for (size_t i = 0; i < table->size; i++) {
        printf("proc %u pid %d\n", pi[i].proc.rank, (int) pi[i].pid);
    }
    PMIX_INFO_FREE(results, nresults);

    /* Its size, as a get of a job key. */
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    PMIX_LOAD_PROCID(&wild, job, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val);
    if (PMIX_SUCCESS != rc || NULL == val || PMIX_UINT32 != val->type || 2 != val->data.uint32) {
        FAIL("job size of %s: %s", job, PMIx_Error_string(rc));
    }
    PMIX_VALUE_RELEASE(val);
    printf("size 2\n");

    /* Its status, if the server answers that query. */
    rc = query(PMIX_QUERY_JOB_STATUS, job, &results, &nresults);
    if (PMIX_SUCCESS == rc && 0 < nresults) {
        printf("status %s\n", PMIx_Job_state_string(results[0].value.data.state));
        PMIX_INFO_FREE(results, nresults);
    } else {
        printf("status query: %s\n", PMIx_Error_string(rc));
    }

    /* Its output. */
    pmix_info_t directive;
    PMIX_INFO_LOAD(&directive, PMIX_IOF_REDIRECT, NULL, PMIX_BOOL);
    rc = PMIx_IOF_pull(&wild, 1, &directive, 1, PMIX_FWD_STDOUT_CHANNEL, output, registered,
                       NULL);
    if (0 > rc) {
        FAIL("PMIx_IOF_pull: %s", PMIx_Error_string(rc));
    }
    size_t ref = (size_t) rc;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&lock);
    while (lines_seen < 3) {
        if (0 != pthread_cond_timedwait(&cond, &lock, &until)) {
            break;
        }
    }
    int seen = lines_seen;
    pthread_mutex_unlock(&lock);
    if (seen < 3) {
        FAIL("%d output lines of %s in 30 s", seen, job);
    }
    if (PMIX_SUCCESS != (rc = PMIx_IOF_deregister(ref, NULL, 0, NULL, NULL))) {
        FAIL("PMIx_IOF_deregister: %s", PMIx_Error_string(rc));
    }
    return 0;
}

/* A tool its launcher started: a client of its job; the job's size. */
static int own_job(const pmix_proc_t *me)
{
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val);
    if (PMIX_SUCCESS != rc || NULL == val || PMIX_UINT32 != val->type) {
        FAIL("own job size: %s", PMIx_Error_string(rc));
    }
    printf("own job %s size %u\n", me->nspace, val->data.uint32);
    PMIX_VALUE_RELEASE(val);
    return 0;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_info_t info;
    pmix_status_t rc;
    pid_t pid;

    if (argc < 3) {
        fprintf(stderr, "usage: stock_dvm_tool spawn|attach PID [NSPACE]\n");
        return 2;
    }
    alarm(90);
    print_libpmix("tool", 0);
    /* PID "system": the system server (PMIX_CONNECT_TO_SYSTEM). */
    pid = (pid_t) atoi(argv[2]);
    if (0 == strcmp(argv[2], "system")) {
        PMIX_INFO_LOAD(&info, PMIX_CONNECT_TO_SYSTEM, NULL, PMIX_BOOL);
        pid = 1;
    } else {
        PMIX_INFO_LOAD(&info, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    }
    rc = PMIx_tool_init(&me, &info, 0 < pid ? 1 : 0);
    if (PMIX_SUCCESS != rc) {
        FAIL("PMIx_tool_init: %s", PMIx_Error_string(rc));
    }
    printf("tool %s.%u connected %d\n", me.nspace, me.rank, (int) PMIx_tool_is_connected());
    int r = 0 == strcmp(argv[1], "spawn")  ? spawn()
            : 0 == strcmp(argv[1], "self") ? own_job(&me)
                                           : attach(&me, argc > 3 ? argv[3] : NULL);
    if (0 != r) {
        return r;
    }
    return tool_end();
}
