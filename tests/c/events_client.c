/* Event notification end to end, run by pmixrun (or tests/c/events_host.c)
 * as N ranks:
 *  - every rank registers a chain of handlers for MYCODE (first, last,
 *    prepended, appended, before a named one, a multi-code one, a default
 *    one), with and without registration callbacks;
 *  - rank 0 notifies MYCODE to its namespace with an info; every rank's
 *    chain runs in the expected order, each handler sees the source, the
 *    info and the results of the handlers before it;
 *  - after deregistering one handler, the next notification skips it;
 *  - a PMIX_RANGE_PROC_LOCAL notification reaches only the notifier.
 * Prints "events client R of N ok" on success; exits nonzero otherwise.
 * Every wait is on a condition signalled by a handler (the launcher's
 * timeout bounds a hang). */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#define MYCODE (PMIX_EXTERNAL_ERR_BASE - 1)
#define OTHER (PMIX_EXTERNAL_ERR_BASE - 2)
#define LOCALCODE (PMIX_EXTERNAL_ERR_BASE - 3)
#define FLUSH (PMIX_EXTERNAL_ERR_BASE - 4)
#define TORM (PMIX_EXTERNAL_ERR_BASE - 5)

static pmix_proc_t me;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static char order[256];
static size_t pos; /* handlers of the current chain so far */
static int chains_done, local_seen, foreign_local, flushes, regs_done;
static int bad;
static pthread_t caller;

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "events client %u: ", me.rank);                       \
        fprintf(stderr, __VA_ARGS__);                                          \
        fprintf(stderr, "\n");                                                 \
        exit(1);                                                               \
    } while (0)

static const char *name_of(pmix_info_t *info, size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (0 == strcmp(info[i].key, PMIX_EVENT_HDLR_NAME)) {
            return info[i].value.data.string;
        }
    }
    return "?";
}

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t *results, size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    if (pthread_equal(pthread_self(), caller)) {
        bad = 1; /* handlers never run on the caller's thread */
    }
    pthread_mutex_lock(&mu);
    if (0 == strcmp(name_of(info, ninfo), "DEF") && MYCODE != status) {
        /* the default handler sees every other event too */
    } else if (FLUSH == status) {
        flushes++;
    } else if (LOCALCODE == status) {
        if (PMIX_CHECK_PROCID(source, &me)) {
            local_seen++;
        } else {
            foreign_local++;
        }
    } else if (MYCODE == status) {
        const char *n = name_of(info, ninfo);
        int found = 0;
        /* the source is rank 0, the payload is there */
        if (0 != source->rank || !PMIX_CHECK_NSPACE(source->nspace, me.nspace)) {
            bad = 2;
        }
        for (size_t i = 0; i < ninfo; i++) {
            if (0 == strcmp(info[i].key, "ev.payload") && PMIX_STRING == info[i].value.type
                && 0 == strcmp(info[i].value.data.string, "hello")) {
                found = 1;
            }
        }
        if (!found) {
            bad = 3;
        }
        /* each handler before this one left one result */
        if (nresults != pos) {
            bad = 4;
        }
        pos++;
        strncat(order, n, sizeof(order) - strlen(order) - 1);
        if (0 == strcmp(n, "L")) {
            pos = 0;
            chains_done++;
        }
    } else if (TORM == status) {
        /* not for clients: RM range goes to the host only */
        bad = 5;
    }
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    if (NULL != cbfunc) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static size_t a_ref;
static void reg_cb(pmix_status_t status, size_t ref, void *cbdata)
{
    if (PMIX_SUCCESS != status) {
        bad = 6;
    }
    if (pthread_equal(pthread_self(), caller)) {
        bad = 7;
    }
    pthread_mutex_lock(&mu);
    if (NULL != cbdata) {
        *(size_t *) cbdata = ref;
    }
    regs_done++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void reg(pmix_status_t *codes, size_t ncodes, const char *name, const char *where,
                const char *target, size_t *ref_out)
{
    pmix_info_t info[2];
    size_t n = 1;
    int rc;
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_HDLR_NAME, name, PMIX_STRING);
    if (NULL != where) {
        if (NULL != target) {
            PMIX_INFO_LOAD(&info[1], where, target, PMIX_STRING);
        } else {
            bool t = true;
            PMIX_INFO_LOAD(&info[1], where, &t, PMIX_BOOL);
        }
        n = 2;
    }
    if (NULL != ref_out) {
        /* through the callback */
        pthread_mutex_lock(&mu);
        int before = regs_done;
        pthread_mutex_unlock(&mu);
        rc = PMIx_Register_event_handler(codes, ncodes, info, n, handler, reg_cb, ref_out);
        if (PMIX_SUCCESS != rc) {
            FAIL("register %s: %d", name, rc);
        }
        pthread_mutex_lock(&mu);
        while (regs_done == before) {
            pthread_cond_wait(&cv, &mu);
        }
        pthread_mutex_unlock(&mu);
    } else {
        rc = PMIx_Register_event_handler(codes, ncodes, info, n, handler, NULL, NULL);
        if (rc < 0) {
            FAIL("register %s: %d", name, rc);
        }
    }
    PMIX_INFO_DESTRUCT(&info[0]);
    if (n > 1) {
        PMIX_INFO_DESTRUCT(&info[1]);
    }
}

static void wait_chains(int n)
{
    pthread_mutex_lock(&mu);
    while (chains_done < n) {
        pthread_cond_wait(&cv, &mu);
    }
    pthread_mutex_unlock(&mu);
}

/* A PROC_LOCAL event queued behind everything delivered so far: once it
 * ran, every earlier event has been handled. */
static void flush(void)
{
    pthread_mutex_lock(&mu);
    int want = flushes + 1;
    pthread_mutex_unlock(&mu);
    if (PMIX_SUCCESS != PMIx_Notify_event(FLUSH, NULL, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL)) {
        FAIL("flush notify");
    }
    pthread_mutex_lock(&mu);
    while (flushes < want) {
        pthread_cond_wait(&cv, &mu);
    }
    pthread_mutex_unlock(&mu);
}

static void fence(void)
{
    int rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        FAIL("fence: %d", rc);
    }
}

static void notify_done(pmix_status_t status, void *cbdata)
{
    if (PMIX_SUCCESS != status) {
        bad = 8;
    }
}

/* Counts this process's threads named `name` (/proc/self/task/N/comm). */
static int threads_named(const char *name)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    if (NULL == d) {
        return -1;
    }
    while (NULL != (e = readdir(d))) {
        char path[300], comm[64] = "";
        FILE *f;
        if ('.' == e->d_name[0]) {
            continue;
        }
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        if (NULL != (f = fopen(path, "r"))) {
            if (NULL != fgets(comm, sizeof comm, f)) {
                comm[strcspn(comm, "\n")] = '\0';
                n += 0 == strcmp(comm, name);
            }
            fclose(f);
        }
    }
    closedir(d);
    return n;
}

/* Deregistration callback: records that it ran. */
static volatile int dereg_called = 0;
static void dereg_cb(pmix_status_t status, void *cbdata)
{
    dereg_called = PMIX_SUCCESS == status ? 1 : -1;
}

int main(void)
{
    pmix_status_t code = MYCODE, multi[2] = {OTHER, MYCODE}, flushcode = FLUSH,
                  localcode = LOCALCODE;
    pmix_value_t *val;
    uint32_t size;
    size_t ref;
    int rc;

    caller = pthread_self();
    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        fprintf(stderr, "PMIx_Init: %d\n", rc);
        return 1;
    }
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS != PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val)) {
        FAIL("job size");
    }
    size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);

    /* Expected chain: F B D A C M DEF L */
    reg(&code, 1, "A", NULL, NULL, &a_ref);
    reg(&code, 1, "B", NULL, NULL, NULL); /* prepended by default */
    reg(&code, 1, "C", PMIX_EVENT_HDLR_APPEND, NULL, &ref);
    reg(&code, 1, "D", PMIX_EVENT_HDLR_BEFORE, "A", NULL);
    reg(&code, 1, "F", PMIX_EVENT_HDLR_FIRST, NULL, NULL);
    reg(&code, 1, "L", PMIX_EVENT_HDLR_LAST, NULL, &ref);
    reg(multi, 2, "M", NULL, NULL, NULL);
    reg(NULL, 0, "DEF", NULL, NULL, &ref);
    reg(&flushcode, 1, "flush", NULL, NULL, NULL);
    reg(&localcode, 1, "local", NULL, NULL, NULL);
    /* a second first handler is refused */
    {
        pmix_info_t f;
        bool t = true;
        PMIX_INFO_LOAD(&f, PMIX_EVENT_HDLR_FIRST, &t, PMIX_BOOL);
        rc = PMIx_Register_event_handler(&code, 1, &f, 1, handler, NULL, NULL);
        if (PMIX_ERR_EVENT_REGISTRATION != rc) {
            FAIL("second FIRST handler: %d", rc);
        }
    }
    fence();

    pmix_info_t payload;
    PMIX_INFO_LOAD(&payload, "ev.payload", "hello", PMIX_STRING);
    if (0 == me.rank) {
        rc = PMIx_Notify_event(MYCODE, NULL, PMIX_RANGE_NAMESPACE, &payload, 1, notify_done, NULL);
        if (PMIX_SUCCESS != rc) {
            FAIL("notify: %d", rc);
        }
        /* the host only, never a client */
        rc = PMIx_Notify_event(TORM, NULL, PMIX_RANGE_RM, NULL, 0, NULL, NULL);
        if (PMIX_SUCCESS != rc) {
            FAIL("notify rm: %d", rc);
        }
    }
    wait_chains(1);
    if (0 != strcmp(order, "FBDACMDEFL")) {
        FAIL("chain order %s", order);
    }
    order[0] = '\0';
    fence();

    /* Deregistration stops delivery. */
    rc = PMIx_Deregister_event_handler(a_ref, NULL, NULL);
    if (PMIX_SUCCESS != rc) {
        FAIL("deregister: %d", rc);
    }
    fence();
    if (0 == me.rank) {
        rc = PMIx_Notify_event(MYCODE, NULL, PMIX_RANGE_NAMESPACE, &payload, 1, NULL, NULL);
        if (PMIX_SUCCESS != rc) {
            FAIL("notify 2: %d", rc);
        }
    }
    wait_chains(2);
    if (0 != strcmp(order, "FBDCMDEFL")) {
        FAIL("chain order after deregistration %s", order);
    }
    PMIX_INFO_DESTRUCT(&payload);

    /* PROC_LOCAL stays here: every rank raises one; each sees its own. */
    rc = PMIx_Notify_event(LOCALCODE, NULL, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL);
    if (PMIX_SUCCESS != rc) {
        FAIL("notify local: %d", rc);
    }
    fence();
    flush();
    pthread_mutex_lock(&mu);
    if (1 != local_seen || 0 != foreign_local) {
        FAIL("proc-local events: own %d, foreign %d", local_seen, foreign_local);
    }
    pthread_mutex_unlock(&mu);
    if (bad) {
        FAIL("handler check %d failed", bad);
    }
    fence();
    /* A deregistration with a callback, as Open MPI does just before
     * PMIx_Finalize and then unloads its PMIx component: the callback has
     * run and the library's event thread is gone once finalize returns. */
    if (1 > threads_named("pmix-events")) {
        FAIL("no event thread before finalize");
    }
    rc = PMIx_Deregister_event_handler(ref, dereg_cb, NULL);
    if (PMIX_SUCCESS != rc) {
        FAIL("deregister with callback: %d", rc);
    }
    if (PMIX_SUCCESS != PMIx_Finalize(NULL, 0)) {
        FAIL("finalize");
    }
    if (1 != dereg_called) {
        FAIL("deregistration callback: %d", dereg_called);
    }
    if (0 != threads_named("pmix-events")) {
        FAIL("an event thread outlived PMIx_Finalize");
    }
    printf("events client %u of %u ok\n", me.rank, size);
    return 0;
}
