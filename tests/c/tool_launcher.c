/* What tools and launchers rely on (tests/tool_launcher.rs):
 *
 *   tool_launcher nsinfo PID NSPACE
 *       attaches to the server of pid PID and asks PMIX_QUERY_NAMESPACE_INFO
 *       with PMIx_Query_info_nb, copying the answer with PMIX_INFO_XFER as
 *       OpenPMIx's examples/tool.c does; the answer must hold an array of
 *       pmix_info_t, one per namespace, each holding an array of pmix_info_t
 *       that starts with PMIX_NSPACE, as PRRTE answers; job NSPACE must be
 *       among them, with its PMIX_CMD_LINE ("sh ...") and PMIX_JOB_SIZE 2.
 *   tool_launcher fork DIR
 *       PMIX_LAUNCHER with PMIX_TOOL_DO_NOT_CONNECT, then PMIx_Spawn of two
 *       processes of /bin/sh in working directory DIR: the launcher forks
 *       and execs them itself. The new namespace is "<own nspace>:1"; each
 *       child writes its PMIX_NAMESPACE, PMIX_RANK and working directory to
 *       DIR/out.RANK; the launcher waits (bounded) for the job's
 *       PMIX_ERR_JOB_TERMINATED event, then checks both files.
 *   tool_launcher setup
 *       PMIX_LAUNCHER with PMIX_TOOL_DO_NOT_CONNECT, then
 *       PMIx_server_setup_application with PMIX_SETUP_APP_ENVARS: the
 *       callback must bring PMIX_SET_ENVAR PMIX_MCA_tl_probe=yes (set in
 *       this process's environment first), as in a server.
 *
 * Rendezvous files in $TMPDIR. Prints "tool ok" at the end. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix_server.h>
#include <pmix_tool.h>

#define TOOL_NAME "tool_launcher"
#include "tool_common.h"

/* A one-shot completion with a bounded wait. */
typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
    pmix_info_t *info;
    size_t ninfo;
    char nspace[PMIX_MAX_NSLEN + 1];
} waiter_t;

static void waiter_init(waiter_t *w)
{
    memset(w, 0, sizeof(*w));
    pthread_mutex_init(&w->mutex, NULL);
    pthread_cond_init(&w->cond, NULL);
}

static void waiter_wake(waiter_t *w)
{
    pthread_mutex_lock(&w->mutex);
    w->done = true;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->mutex);
}

/* True if woken within 30 seconds. */
static bool waiter_wait(waiter_t *w)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&w->mutex);
    int rc = 0;
    while (!w->done && ETIMEDOUT != rc) {
        rc = pthread_cond_timedwait(&w->cond, &w->mutex, &until);
    }
    bool done = w->done;
    pthread_mutex_unlock(&w->mutex);
    return done;
}

/* Keeps an answer in w: its status and a copy (PMIX_INFO_XFER, as
 * OpenPMIx's examples/tool.c does) of its ninfo infos. */
static void waiter_keep(waiter_t *w, pmix_status_t status, const pmix_info_t *info, size_t ninfo)
{
    w->status = status;
    if (0 < ninfo) {
        PMIX_INFO_CREATE(w->info, ninfo);
        w->ninfo = ninfo;
        for (size_t n = 0; n < ninfo; n++) {
            PMIX_INFO_XFER(&w->info[n], &info[n]);
        }
    }
}

static void query_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                       pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    waiter_t *w = (waiter_t *) cbdata;
    waiter_keep(w, status, info, ninfo);
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
    waiter_wake(w);
}

static int nsinfo(const char *pid, const char *nspace)
{
    pmix_proc_t me;
    pmix_info_t info[1];
    pid_t p = (pid_t) atoi(pid);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &p, PMIX_PID);
    pmix_status_t rc = PMIx_tool_init(&me, info, 1);
    if (PMIX_SUCCESS != rc) {
        FAIL("tool init: %s", PMIx_Error_string(rc));
    }
    pmix_query_t *query;
    PMIX_QUERY_CREATE(query, 1);
    PMIX_ARGV_APPEND(rc, query[0].keys, PMIX_QUERY_NAMESPACE_INFO);
    waiter_t w;
    waiter_init(&w);
    rc = PMIx_Query_info_nb(query, 1, query_done, &w);
    if (PMIX_SUCCESS != rc) {
        FAIL("query: %s", PMIx_Error_string(rc));
    }
    if (!waiter_wait(&w)) {
        FAIL("no answer to the query");
    }
    if (PMIX_SUCCESS != w.status || 1 != w.ninfo) {
        FAIL("query answered %s with %zu infos", PMIx_Error_string(w.status), w.ninfo);
    }
    if (!PMIX_CHECK_KEY(&w.info[0], PMIX_QUERY_NAMESPACE_INFO)
        || PMIX_DATA_ARRAY != w.info[0].value.type) {
        FAIL("answer keyed %s of type %d", w.info[0].key, (int) w.info[0].value.type);
    }
    pmix_data_array_t *darray = w.info[0].value.data.darray;
    if (NULL == darray || PMIX_INFO != darray->type || 0 == darray->size) {
        FAIL("the namespaces are no array of infos (type %d)",
             NULL == darray ? -1 : (int) darray->type);
    }
    pmix_info_t *jobs = (pmix_info_t *) darray->array;
    bool found = false;
    for (size_t n = 0; n < darray->size; n++) {
        pmix_data_array_t *d = jobs[n].value.data.darray;
        if (PMIX_DATA_ARRAY != jobs[n].value.type || NULL == d || PMIX_INFO != d->type
            || 0 == d->size) {
            FAIL("namespace %zu is no array of infos", n);
        }
        pmix_info_t *fields = (pmix_info_t *) d->array;
        if (!PMIX_CHECK_KEY(&fields[0], PMIX_NSPACE) || PMIX_STRING != fields[0].value.type) {
            FAIL("namespace %zu starts with %s", n, fields[0].key);
        }
        printf("namespace %s\n", fields[0].value.data.string);
        if (0 != strcmp(fields[0].value.data.string, nspace)) {
            continue;
        }
        found = true;
        bool cmd = false, size = false;
        for (size_t m = 1; m < d->size; m++) {
            if (PMIX_CHECK_KEY(&fields[m], PMIX_CMD_LINE) && PMIX_STRING == fields[m].value.type
                && 0 == strncmp(fields[m].value.data.string, "sh ", 3)) {
                cmd = true;
            }
            if (PMIX_CHECK_KEY(&fields[m], PMIX_JOB_SIZE) && PMIX_UINT32 == fields[m].value.type
                && 2 == fields[m].value.data.uint32) {
                size = true;
            }
        }
        if (!cmd || !size) {
            FAIL("job %s: command line found %d, size found %d", nspace, cmd, size);
        }
    }
    if (!found) {
        FAIL("job %s is not among the namespaces", nspace);
    }
    PMIX_INFO_FREE(w.info, w.ninfo);
    PMIX_QUERY_FREE(query, 1);
    rc = PMIx_tool_finalize();
    if (PMIX_SUCCESS != rc) {
        FAIL("finalize: %s", PMIx_Error_string(rc));
    }
    printf("tool ok\n");
    return 0;
}

static pmix_status_t launcher_init(pmix_proc_t *me)
{
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_LAUNCHER, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_TOOL_DO_NOT_CONNECT, NULL, PMIX_BOOL);
    return PMIx_tool_init(me, info, 2);
}

static waiter_t ended;

static void job_ended(size_t id, pmix_status_t status, const pmix_proc_t *source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    for (size_t n = 0; n < ninfo; n++) {
        if (PMIX_CHECK_KEY(&info[n], PMIX_EVENT_AFFECTED_PROC)
            && PMIX_PROC == info[n].value.type) {
            PMIX_LOAD_NSPACE(ended.nspace, info[n].value.data.proc->nspace);
        }
    }
    if (NULL != cbfunc) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
    waiter_wake(&ended);
}

static void registered(pmix_status_t status, size_t id, void *cbdata)
{
    waiter_t *w = (waiter_t *) cbdata;
    w->status = status;
    waiter_wake(w);
}

/* The first line of DIR/out.RANK. */
static bool read_line(const char *dir, int rank, char *line, size_t len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/out.%d", dir, rank);
    FILE *f = fopen(path, "r");
    if (NULL == f) {
        return false;
    }
    bool ok = NULL != fgets(line, (int) len, f);
    fclose(f);
    if (ok) {
        line[strcspn(line, "\n")] = '\0';
    }
    return ok;
}

static int fork_exec(const char *dir)
{
    pmix_proc_t me;
    pmix_status_t rc = launcher_init(&me);
    if (PMIX_SUCCESS != rc) {
        FAIL("launcher init: %s", PMIx_Error_string(rc));
    }
    waiter_init(&ended);
    waiter_t reg;
    waiter_init(&reg);
    pmix_status_t code = PMIX_ERR_JOB_TERMINATED;
    PMIx_Register_event_handler(&code, 1, NULL, 0, job_ended, registered, &reg);
    if (!waiter_wait(&reg) || PMIX_SUCCESS != reg.status) {
        FAIL("event registration: %s", PMIx_Error_string(reg.status));
    }

    pmix_app_t app;
    sh_app(&app, "sh", "echo \"$PMIX_NAMESPACE $PMIX_RANK $(pwd) $TL_GIVEN\" > out.$PMIX_RANK");
    PMIX_ARGV_APPEND(rc, app.env, "TL_GIVEN=given");
    app.cwd = strdup(dir);
    app.maxprocs = 2;
    pmix_nspace_t child;
    rc = PMIx_Spawn(NULL, 0, &app, 1, child);
    if (PMIX_SUCCESS != rc) {
        FAIL("spawn: %s", PMIx_Error_string(rc));
    }
    char expected[PMIX_MAX_NSLEN + 8];
    snprintf(expected, sizeof(expected), "%s:1", me.nspace);
    if (0 != strcmp(child, expected)) {
        FAIL("the new namespace is %s, not %s", child, expected);
    }
    if (!waiter_wait(&ended)) {
        FAIL("no PMIX_ERR_JOB_TERMINATED for %s", child);
    }
    if (0 != strcmp(ended.nspace, child)) {
        FAIL("the job that ended is %s, not %s", ended.nspace, child);
    }
    for (int r = 0; r < 2; r++) {
        char line[8192], want[8192];
        if (!read_line(dir, r, line, sizeof(line))) {
            FAIL("rank %d wrote nothing", r);
        }
        snprintf(want, sizeof(want), "%s %d %s given", child, r, dir);
        if (0 != strcmp(line, want)) {
            FAIL("rank %d wrote \"%s\", not \"%s\"", r, line, want);
        }
    }
    PMIX_APP_DESTRUCT(&app);
    rc = PMIx_tool_finalize();
    if (PMIX_SUCCESS != rc) {
        FAIL("finalize: %s", PMIx_Error_string(rc));
    }
    printf("tool ok\n");
    return 0;
}

static void setup_done(pmix_status_t status, pmix_info_t info[], size_t ninfo,
                       void *provided_cbdata, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    waiter_t *w = (waiter_t *) provided_cbdata;
    waiter_keep(w, status, info, ninfo);
    if (NULL != cbfunc) {
        cbfunc(PMIX_SUCCESS, cbdata);
    }
    waiter_wake(w);
}

static int setup(void)
{
    setenv("PMIX_MCA_tl_probe", "yes", 1);
    pmix_proc_t me;
    pmix_status_t rc = launcher_init(&me);
    if (PMIX_SUCCESS != rc) {
        FAIL("launcher init: %s", PMIx_Error_string(rc));
    }
    pmix_info_t directives[1];
    PMIX_INFO_LOAD(&directives[0], PMIX_SETUP_APP_ENVARS, NULL, PMIX_BOOL);
    waiter_t w;
    waiter_init(&w);
    pmix_nspace_t job;
    PMIX_LOAD_NSPACE(job, "tl.job");
    rc = PMIx_server_setup_application(job, directives, 1, setup_done, &w);
    if (PMIX_SUCCESS != rc) {
        FAIL("setup_application: %s", PMIx_Error_string(rc));
    }
    if (!waiter_wait(&w)) {
        FAIL("no setup_application callback");
    }
    if (PMIX_SUCCESS != w.status) {
        FAIL("setup_application answered %s", PMIx_Error_string(w.status));
    }
    bool found = false;
    for (size_t n = 0; n < w.ninfo; n++) {
        if (PMIX_CHECK_KEY(&w.info[n], PMIX_SET_ENVAR) && PMIX_ENVAR == w.info[n].value.type
            && 0 == strcmp(w.info[n].value.data.envar.envar, "PMIX_MCA_tl_probe")
            && 0 == strcmp(w.info[n].value.data.envar.value, "yes")) {
            found = true;
        }
    }
    if (!found) {
        FAIL("PMIX_MCA_tl_probe not among the %zu infos", w.ninfo);
    }
    PMIX_INFO_FREE(w.info, w.ninfo);
    rc = PMIx_tool_finalize();
    if (PMIX_SUCCESS != rc) {
        FAIL("finalize: %s", PMIx_Error_string(rc));
    }
    printf("tool ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (4 == argc && 0 == strcmp(argv[1], "nsinfo")) {
        return nsinfo(argv[2], argv[3]);
    }
    if (3 == argc && 0 == strcmp(argv[1], "fork")) {
        return fork_exec(argv[2]);
    }
    if (2 == argc && 0 == strcmp(argv[1], "setup")) {
        return setup();
    }
    fprintf(stderr, "usage: tool_launcher nsinfo PID NSPACE | fork DIR | setup\n");
    return 2;
}
