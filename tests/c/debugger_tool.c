/* A debugger on the C API (tests/debugger.rs), as PRRTE's
 * examples/debugger/direct.c works:
 *   debugger_tool PMIXRUN_PID TARGET DAEMON
 * attaches to the pmixrun of pid PMIXRUN_PID (PMIX_SERVER_PIDINFO;
 * rendezvous files in $TMPDIR), spawns 2 ranks of TARGET stopped in
 * PMIx_Init (PMIX_DEBUG_STOP_IN_INIT), waits for PMIX_READY_FOR_DEBUG
 * naming the new namespace and prints "ready NSPACE"; queries the job's
 * proc table (a host, a live pid, TARGET's absolute path, connected) and
 * prints "proc RANK PID EXE" per rank; spawns one debugger daemon per
 * target process (PMIX_DEBUGGER_DAEMONS, PMIX_DEBUG_TARGET,
 * PMIX_DEBUG_DAEMONS_PER_PROC) and waits until both have ended with
 * status 0 (their proc table says so); then reads one line on stdin (the
 * test's go-ahead, once it has checked the ranks wait), releases the job
 * (PMIX_DEBUGGER_RELEASE aimed at it) and waits until its ranks have
 * ended with status 0. Prints "tool ok"; exits 1 on any failure. Every
 * wait is bounded. */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix_tool.h>

#define CHECK_NAME "debugger_tool"
#include "check.h"

#define LIMIT_SECS 60

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int registered = 0;
static pmix_status_t reg_status = PMIX_SUCCESS;
static char ready_nspace[PMIX_MAX_NSLEN + 1];
static int ready = 0;

static void reg_cb(pmix_status_t status, size_t ref, void *cbdata)
{
    pthread_mutex_lock(&lock);
    reg_status = status;
    registered = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void ready_cb(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    pthread_mutex_lock(&lock);
    for (size_t n = 0; n < ninfo; n++) {
        if (PMIX_CHECK_KEY(&info[n], PMIX_NSPACE) && PMIX_STRING == info[n].value.type) {
            snprintf(ready_nspace, sizeof(ready_nspace), "%s", info[n].value.data.string);
        }
    }
    ready = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

/* Waits (bounded) until *flag is set. */
static void wait_flag(int *flag, const char *what)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += LIMIT_SECS;
    pthread_mutex_lock(&lock);
    while (!*flag) {
        if (0 != pthread_cond_timedwait(&cond, &lock, &until)) {
            pthread_mutex_unlock(&lock);
            FAIL("no %s within %d s", what, LIMIT_SECS);
        }
    }
    pthread_mutex_unlock(&lock);
}

/* The proc table of ns: its entries (PMIX_PROC_INFO array) in *out. */
static size_t proc_table(const char *ns, pmix_info_t **results, pmix_proc_info_t **out)
{
    pmix_query_t query;
    size_t nresults = 0;
    pmix_status_t rc;

    PMIX_QUERY_CONSTRUCT(&query);
    PMIX_ARGV_APPEND(rc, query.keys, PMIX_QUERY_PROC_TABLE);
    PMIX_QUERY_QUALIFIERS_CREATE(&query, 1);
    PMIX_INFO_LOAD(&query.qualifiers[0], PMIX_NSPACE, ns, PMIX_STRING);
    rc = PMIx_Query_info(&query, 1, results, &nresults);
    PMIX_QUERY_DESTRUCT(&query);
    if (PMIX_SUCCESS != rc || 1 != nresults || PMIX_DATA_ARRAY != (*results)[0].value.type ||
        PMIX_PROC_INFO != (*results)[0].value.data.darray->type) {
        FAIL("proc table of %s: %s", ns, PMIx_Error_string(rc));
    }
    *out = (*results)[0].value.data.darray->array;
    return (*results)[0].value.data.darray->size;
}

/* Polls ns's proc table (bounded) until its n ranks have terminated with
 * status 0. */
static void wait_terminated(const char *ns, size_t n)
{
    time_t until = time(NULL) + LIMIT_SECS;
    for (;;) {
        pmix_info_t *results;
        pmix_proc_info_t *pi;
        size_t np = proc_table(ns, &results, &pi), done = 0;
        for (size_t k = 0; k < np; k++) {
            if (PMIX_PROC_STATE_TERMINATED == pi[k].state && 0 == pi[k].exit_code) {
                done++;
            } else if (PMIX_PROC_STATE_TERMINATED < pi[k].state) {
                FAIL("rank %u of %s failed: state %s, exit code %d", pi[k].proc.rank, ns,
                     PMIx_Proc_state_string(pi[k].state), pi[k].exit_code);
            }
        }
        PMIX_INFO_FREE(results, 1);
        if (np == n && done == n) {
            return;
        }
        if (time(NULL) > until) {
            FAIL("the %zu ranks of %s did not end within %d s", n, ns, LIMIT_SECS);
        }
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL); /* a polling interval, not a synchronisation */
    }
}

int main(int argc, char **argv)
{
    pmix_proc_t me, target;
    pmix_info_t init[2], *jinfo, rel[2];
    pmix_app_t app;
    char nspace[PMIX_MAX_NSLEN + 1], dnspace[PMIX_MAX_NSLEN + 1], exe[PATH_MAX];
    pmix_status_t rc, code = PMIX_READY_FOR_DEBUG;
    size_t ninit = 1;
    const char *tmp = getenv("TMPDIR");

    if (4 != argc) {
        FAIL("usage: debugger_tool PMIXRUN_PID TARGET DAEMON");
    }
    pid_t server = (pid_t) atoi(argv[1]);
    if (NULL == realpath(argv[2], exe)) {
        FAIL("no such program %s", argv[2]);
    }
    PMIX_INFO_LOAD(&init[0], PMIX_SERVER_PIDINFO, &server, PMIX_PID);
    if (NULL != tmp) {
        PMIX_INFO_LOAD(&init[1], PMIX_SERVER_TMPDIR, tmp, PMIX_STRING);
        ninit = 2;
    }
    if (PMIX_SUCCESS != (rc = PMIx_tool_init(&me, init, ninit))) {
        FAIL("PMIx_tool_init: %s", PMIx_Error_string(rc));
    }
    PMIx_Register_event_handler(&code, 1, NULL, 0, ready_cb, reg_cb, NULL);
    wait_flag(&registered, "event registration");
    if (PMIX_SUCCESS != reg_status) {
        FAIL("registration: %s", PMIx_Error_string(reg_status));
    }

    /* The job, stopped in init. */
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(exe);
    PMIX_ARGV_APPEND(rc, app.argv, exe);
    app.maxprocs = 2;
    PMIX_INFO_CREATE(jinfo, 1);
    PMIX_INFO_LOAD(&jinfo[0], PMIX_DEBUG_STOP_IN_INIT, NULL, PMIX_BOOL);
    if (PMIX_SUCCESS != (rc = PMIx_Spawn(jinfo, 1, &app, 1, nspace))) {
        FAIL("spawn of the job: %s", PMIx_Error_string(rc));
    }
    PMIX_INFO_FREE(jinfo, 1);
    PMIX_APP_DESTRUCT(&app);
    wait_flag(&ready, "PMIX_READY_FOR_DEBUG");
    if (0 != strcmp(ready_nspace, nspace)) {
        FAIL("ready for debug names %s, not %s", ready_nspace, nspace);
    }
    printf("ready %s\n", nspace);
    fflush(stdout);

    /* What a debugger attaches to. */
    {
        pmix_info_t *results;
        pmix_proc_info_t *pi;
        size_t np = proc_table(nspace, &results, &pi);
        if (2 != np) {
            FAIL("proc table of %s has %zu entries", nspace, np);
        }
        for (size_t k = 0; k < np; k++) {
            if (NULL == pi[k].hostname || 0 >= pi[k].pid || 0 != kill(pi[k].pid, 0) ||
                NULL == pi[k].executable_name || 0 != strcmp(pi[k].executable_name, exe) ||
                PMIX_PROC_STATE_CONNECTED != pi[k].state) {
                FAIL("proc table entry %zu: host %s pid %d exe %s state %s", k,
                     pi[k].hostname ? pi[k].hostname : "(null)", (int) pi[k].pid,
                     pi[k].executable_name ? pi[k].executable_name : "(null)",
                     PMIx_Proc_state_string(pi[k].state));
            }
            printf("proc %u %d %s\n", pi[k].proc.rank, (int) pi[k].pid, pi[k].executable_name);
        }
        fflush(stdout);
        PMIX_INFO_FREE(results, 1);
    }

    /* One daemon per target process. */
    {
        uint16_t per_proc = 1;
        PMIX_APP_CONSTRUCT(&app);
        app.cmd = strdup(argv[3]);
        PMIX_ARGV_APPEND(rc, app.argv, argv[3]);
        app.maxprocs = 1;
        PMIX_INFO_CREATE(jinfo, 3);
        PMIX_LOAD_PROCID(&target, nspace, PMIX_RANK_WILDCARD);
        PMIX_INFO_LOAD(&jinfo[0], PMIX_DEBUGGER_DAEMONS, NULL, PMIX_BOOL);
        PMIX_INFO_LOAD(&jinfo[1], PMIX_DEBUG_TARGET, &target, PMIX_PROC);
        PMIX_INFO_LOAD(&jinfo[2], PMIX_DEBUG_DAEMONS_PER_PROC, &per_proc, PMIX_UINT16);
        if (PMIX_SUCCESS != (rc = PMIx_Spawn(jinfo, 3, &app, 1, dnspace))) {
            FAIL("spawn of the daemons: %s", PMIx_Error_string(rc));
        }
        PMIX_INFO_FREE(jinfo, 3);
        PMIX_APP_DESTRUCT(&app);
        wait_terminated(dnspace, 2);
        printf("daemons done %s\n", dnspace);
        fflush(stdout);
    }

    /* The test's go-ahead, then the release. */
    {
        char line[64];
        if (NULL == fgets(line, sizeof(line), stdin)) {
            FAIL("no go-ahead on stdin");
        }
    }
    PMIX_LOAD_PROCID(&target, nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&rel[0], PMIX_EVENT_CUSTOM_RANGE, &target, PMIX_PROC);
    PMIX_INFO_LOAD(&rel[1], PMIX_EVENT_NON_DEFAULT, NULL, PMIX_BOOL);
    rc = PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, &me, PMIX_RANGE_CUSTOM, rel, 2, NULL, NULL);
    if (PMIX_SUCCESS != rc && PMIX_OPERATION_SUCCEEDED != rc) {
        FAIL("release: %s", PMIx_Error_string(rc));
    }
    wait_terminated(nspace, 2);
    printf("tool ok\n");
    fflush(stdout);
    if (PMIX_SUCCESS != (rc = PMIx_tool_finalize())) {
        FAIL("finalize: %s", PMIx_Error_string(rc));
    }
    return 0;
}
