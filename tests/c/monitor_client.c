/* PMIx_Process_monitor served by the server library (pmixrun has no
 * monitor upcall), driven by tests/monitor.rs. Run by pmixrun -n 2 in
 * one of these modes:
 *
 *   monitor_client heartbeat - rank 1 asks to be watched (1 s windows,
 *       id "hb1") and beats (PMIx_Heartbeat) every 100 ms for 1.5 s, then
 *       stops: both ranks' handlers get PMIX_MONITOR_HEARTBEAT_ALERT
 *       from rank 1, naming it and the id, not before it stopped and at
 *       most 4 s after (two windows, and slack for a loaded machine).
 *       Rank 0 is watched too (2 s windows, id "hb0") and beats until
 *       it saw rank 1's alert and 1.5 s more: no alert of its own; it
 *       then cancels "hb0", stops beating and still gets none in 2.5 s.
 *       Prints "monitor heartbeat R ok".
 *   monitor_client file      - rank 0 watches a file it appends to
 *       (PMIX_MONITOR_FILE_SIZE, 1 s checks, asked with _nb) every 100 ms
 *       for 1.5 s, then stops: PMIX_MONITOR_FILE_ALERT naming the file,
 *       not before it stopped and at most 4 s after. A second file
 *       monitor, cancelled by its id at once, never alerts. Prints
 *       "monitor file R ok".
 *   monitor_client bad       - bad requests get their status: no period
 *       or 0 (PMIX_ERR_BAD_PARAM), a file monitor without a file or with
 *       nothing to watch (BAD_PARAM), a directive of the other kind
 *       (BAD_PARAM), an unknown kind (PMIX_ERR_NOT_SUPPORTED), a cancel
 *       of an unknown id (PMIX_ERR_NOT_FOUND). Prints "monitor bad R ok".
 *
 * Every wait is bounded; nothing sleeps to synchronize (the sleeps pace
 * the beats and appends). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#define CHECK_NAME "monitor_client"
#define CHECK_RANKED
#define CHECK_COUNTS
#include "check.h"

#define MAX_SEEN 32

struct seen {
    pmix_status_t status;
    pmix_rank_t source;
    pmix_rank_t affected;
    char id[64];
    char file[256];
    double at;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct seen seen[MAX_SEEN];
static int nseen = 0;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void on_alert(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id, (void) results, (void) nresults;
    pthread_mutex_lock(&lock);
    if (nseen < MAX_SEEN) {
        struct seen *s = &seen[nseen++];
        memset(s, 0, sizeof(*s));
        s->status = status;
        s->source = source->rank;
        s->affected = PMIX_RANK_INVALID;
        s->at = now();
        for (size_t i = 0; i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC)
                && PMIX_PROC == info[i].value.type) {
                s->affected = info[i].value.data.proc->rank;
            } else if (PMIX_CHECK_KEY(&info[i], PMIX_MONITOR_ID)
                       && PMIX_STRING == info[i].value.type) {
                snprintf(s->id, sizeof(s->id), "%s", info[i].value.data.string);
            } else if (PMIX_CHECK_KEY(&info[i], PMIX_MONITOR_FILE)
                       && PMIX_STRING == info[i].value.type) {
                snprintf(s->file, sizeof(s->file), "%s", info[i].value.data.string);
            }
        }
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (NULL != cbfunc) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

/* The first alert of code from rank source, waited for until deadline
 * (monotonic seconds); copied to out. */
static bool wait_alert(pmix_status_t code, pmix_rank_t source, double deadline, struct seen *out)
{
    bool found = false;
    pthread_mutex_lock(&lock);
    for (;;) {
        for (int i = 0; i < nseen && !found; i++) {
            if (seen[i].status == code && seen[i].source == source) {
                *out = seen[i];
                found = true;
            }
        }
        double left = deadline - now();
        if (found || left <= 0) {
            break;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        double w = left < 0.2 ? left : 0.2;
        ts.tv_nsec += (long) (w * 1e9);
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&cond, &lock, &ts);
    }
    pthread_mutex_unlock(&lock);
    return found;
}

static void registered(pmix_status_t status, size_t id, void *cbdata)
{
    (void) id;
    *(volatile pmix_status_t *) cbdata = status;
}

static void register_alerts(void)
{
    pmix_status_t codes[2] = {PMIX_MONITOR_HEARTBEAT_ALERT, PMIX_MONITOR_FILE_ALERT};
    volatile pmix_status_t reg = PMIX_ERR_TIMEOUT;
    PMIx_Register_event_handler(codes, 2, NULL, 0, on_alert, registered, (void *) &reg);
    double deadline = now() + 10;
    while (PMIX_ERR_TIMEOUT == reg && now() < deadline) {
        pause_ms(5);
    }
    if (PMIX_SUCCESS != reg) {
        FAIL("event handler registration: %s", PMIx_Error_string(reg));
    }
}

/* PMIx_Process_monitor of key (value: string, or none if NULL) with
 * directives; its status. */
static pmix_status_t monitor(const char *key, const char *value, pmix_info_t *dirs, size_t ndirs)
{
    pmix_info_t mon, *results = NULL;
    size_t nresults = 0;
    if (NULL != value) {
        PMIX_INFO_LOAD(&mon, key, value, PMIX_STRING);
    } else {
        PMIX_INFO_LOAD(&mon, key, NULL, PMIX_UNDEF);
    }
    pmix_status_t rc = PMIx_Process_monitor(&mon, PMIX_SUCCESS, dirs, ndirs, &results, &nresults);
    if (NULL != results) {
        PMIX_INFO_FREE(results, nresults);
    }
    PMIX_INFO_DESTRUCT(&mon);
    return rc;
}

static pmix_status_t heartbeat_monitor(uint32_t secs, const char *id)
{
    pmix_info_t dirs[2];
    PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_HEARTBEAT_TIME, &secs, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_ID, id, PMIX_STRING);
    pmix_status_t rc = monitor(PMIX_MONITOR_HEARTBEAT, NULL, dirs, 2);
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&dirs[1]);
    return rc;
}

static void beat_for(double secs)
{
    double end = now() + secs;
    while (now() < end) {
        PMIx_Heartbeat();
        pause_ms(100);
    }
}

static bool has_alert_from(pmix_status_t code, pmix_rank_t source)
{
    bool found = false;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nseen; i++) {
        found |= seen[i].status == code && seen[i].source == source;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

static void heartbeat(void)
{
    struct seen s;
    if (1 == me.rank) {
        CHECK(heartbeat_monitor(1, "hb1"));
        beat_for(1.5);
        if (has_alert_from(PMIX_MONITOR_HEARTBEAT_ALERT, 1)) {
            FAIL("an alert while beating");
        }
        double stopped = now();
        if (!wait_alert(PMIX_MONITOR_HEARTBEAT_ALERT, 1, stopped + 10, &s)) {
            FAIL("no alert of my own silence");
        } else if (s.at - stopped > 4.0) {
            FAIL("alert %.2f s after the last beat", s.at - stopped);
        }
        return;
    }
    /* rank 0: watched, beating, until rank 1's alert and 1.5 s more */
    CHECK(heartbeat_monitor(2, "hb0"));
    double deadline = now() + 15;
    bool got = false;
    while (!got && now() < deadline) {
        PMIx_Heartbeat();
        got = wait_alert(PMIX_MONITOR_HEARTBEAT_ALERT, 1, now() + 0.1, &s);
    }
    if (!got) {
        FAIL("no alert of rank 1's silence");
    } else {
        if (1 != s.affected || 0 != strcmp(s.id, "hb1")) {
            FAIL("alert names rank %u, id '%s'", s.affected, s.id);
        }
    }
    beat_for(1.5);
    if (has_alert_from(PMIX_MONITOR_HEARTBEAT_ALERT, 0)) {
        FAIL("an alert of rank 0, which kept beating");
    }
    pmix_info_t cancel, *results = NULL;
    size_t nresults = 0;
    PMIX_INFO_LOAD(&cancel, PMIX_MONITOR_CANCEL, "hb0", PMIX_STRING);
    CHECK(PMIx_Process_monitor(&cancel, PMIX_SUCCESS, NULL, 0, &results, &nresults));
    PMIX_INFO_DESTRUCT(&cancel);
    if (wait_alert(PMIX_MONITOR_HEARTBEAT_ALERT, 0, now() + 2.5, &s)) {
        FAIL("an alert of a cancelled monitor");
    }
}

static volatile pmix_status_t nb_status = PMIX_ERR_TIMEOUT;

static void monitored(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                      pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void) info, (void) ninfo, (void) cbdata;
    nb_status = status;
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
}

/* A size monitor of path, checked every second, named id, asked with
 * PMIx_Process_monitor_nb; its status. */
static pmix_status_t file_monitor(const char *path, const char *id)
{
    pmix_info_t mon, dirs[3];
    bool yes = true;
    uint32_t secs = 1;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_FILE, path, PMIX_STRING);
    PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_FILE_SIZE, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_FILE_CHECK_TIME, &secs, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[2], PMIX_MONITOR_ID, id, PMIX_STRING);
    nb_status = PMIX_ERR_TIMEOUT;
    pmix_status_t rc = PMIx_Process_monitor_nb(&mon, PMIX_SUCCESS, dirs, 3, monitored, NULL);
    double deadline = now() + 10;
    while (PMIX_SUCCESS == rc && PMIX_ERR_TIMEOUT == nb_status && now() < deadline) {
        pause_ms(5);
    }
    if (PMIX_SUCCESS == rc) {
        rc = nb_status;
    }
    PMIX_INFO_DESTRUCT(&mon);
    for (int i = 0; i < 3; i++) {
        PMIX_INFO_DESTRUCT(&dirs[i]);
    }
    return rc;
}

static void file(void)
{
    const char *tmp = getenv("MONITOR_TEST_DIR");
    char path[256], idle[256];
    snprintf(path, sizeof(path), "%s/progress.%u", tmp ? tmp : "/tmp", me.rank);
    snprintf(idle, sizeof(idle), "%s/idle.%u", tmp ? tmp : "/tmp", me.rank);
    FILE *f = fopen(path, "w");
    FILE *g = fopen(idle, "w");
    if (NULL == f || NULL == g) {
        FAIL("cannot create %s or %s", path, idle);
        return;
    }
    fclose(g);
    CHECK(file_monitor(path, "grow"));
    CHECK(file_monitor(idle, "idle"));
    CHECK(monitor(PMIX_MONITOR_CANCEL, "idle", NULL, 0));
    double end = now() + 1.5;
    while (now() < end) {
        fputs("step\n", f);
        fflush(f);
        pause_ms(100);
    }
    fclose(f);
    if (has_alert_from(PMIX_MONITOR_FILE_ALERT, me.rank)) {
        FAIL("an alert while the file grew");
    }
    double stopped = now();
    struct seen s;
    if (!wait_alert(PMIX_MONITOR_FILE_ALERT, me.rank, stopped + 10, &s)) {
        FAIL("no alert of the file that stopped growing");
        return;
    }
    if (s.at - stopped > 4.0) {
        FAIL("alert %.2f s after the last write", s.at - stopped);
    }
    if (0 != strcmp(s.file, path) || 0 != strcmp(s.id, "grow")) {
        FAIL("alert names file '%s', id '%s'", s.file, s.id);
    }
    /* the cancelled monitor's file never changed: still no alert of it */
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nseen; i++) {
        if (0 == strcmp(seen[i].file, idle)) {
            FAIL("an alert of the cancelled monitor");
        }
    }
    pthread_mutex_unlock(&lock);
}

#define EXPECT(expr, want)                                                                \
    do {                                                                                  \
        pmix_status_t got_ = (expr);                                                      \
        if ((want) != got_) {                                                             \
            FAIL("%s: %s, not %s", #expr, PMIx_Error_string(got_), PMIx_Error_string(want)); \
        }                                                                                 \
    } while (0)

static void bad(void)
{
    uint32_t zero = 0, one = 1;
    bool yes = true;
    pmix_info_t d[2];
    EXPECT(monitor(PMIX_MONITOR_HEARTBEAT, NULL, NULL, 0), PMIX_ERR_BAD_PARAM);
    PMIX_INFO_LOAD(&d[0], PMIX_MONITOR_HEARTBEAT_TIME, &zero, PMIX_UINT32);
    EXPECT(monitor(PMIX_MONITOR_HEARTBEAT, NULL, d, 1), PMIX_ERR_BAD_PARAM);
    PMIX_INFO_DESTRUCT(&d[0]);
    PMIX_INFO_LOAD(&d[0], PMIX_MONITOR_HEARTBEAT_TIME, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&d[1], PMIX_MONITOR_FILE_CHECK_TIME, &one, PMIX_UINT32);
    EXPECT(monitor(PMIX_MONITOR_HEARTBEAT, NULL, d, 2), PMIX_ERR_BAD_PARAM);
    PMIX_INFO_DESTRUCT(&d[0]);
    PMIX_INFO_DESTRUCT(&d[1]);
    PMIX_INFO_LOAD(&d[0], PMIX_MONITOR_FILE_CHECK_TIME, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&d[1], PMIX_MONITOR_FILE_SIZE, &yes, PMIX_BOOL);
    EXPECT(monitor(PMIX_MONITOR_FILE, NULL, d, 2), PMIX_ERR_BAD_PARAM);
    EXPECT(monitor(PMIX_MONITOR_FILE, "/tmp", d, 1), PMIX_ERR_BAD_PARAM);
    PMIX_INFO_DESTRUCT(&d[0]);
    PMIX_INFO_DESTRUCT(&d[1]);
    EXPECT(monitor("pmix.monitor.bogus", NULL, NULL, 0), PMIX_ERR_NOT_SUPPORTED);
    EXPECT(monitor(PMIX_MONITOR_CANCEL, "nosuch", NULL, 0), PMIX_ERR_NOT_FOUND);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    CHECK(PMIx_Init(&me, NULL, 0));
    register_alerts();
    CHECK(PMIx_Fence(NULL, 0, NULL, 0));
    if (0 == strcmp(mode, "heartbeat")) {
        heartbeat();
    } else if (0 == strcmp(mode, "file")) {
        file();
    } else if (0 == strcmp(mode, "bad")) {
        bad();
    } else {
        FAIL("unknown mode '%s'", mode);
    }
    CHECK(PMIx_Fence(NULL, 0, NULL, 0));
    CHECK(PMIx_Finalize(NULL, 0));
    if (0 == failures) {
        printf("monitor %s %u ok\n", mode, me.rank);
    }
    return failures ? 1 : 0;
}
