/* Process groups end to end (tests/groups.rs): one rank of a pmixrun job
 * running the scenario named by argv[1] against the C API of the PMIx
 * standard (PMIx_Group_construct/destruct/invite/join/leave and their
 * non-blocking forms). The scenarios are named after the numbered items of
 * shared/spec/groups-behaviour.md (the checklist); see `scenarios[]` at the
 * end for the list and each function's comment for what it checks.
 *
 * Built against our headers and, unchanged, against OpenPMIx 4.2.2's
 * (Debian): the only name beyond 4.2.2 is PMIX_GROUP_BOOTSTRAP, defined
 * below by its string when the header lacks it.
 *
 * Roles derive from the job size (PMIX_JOB_SIZE) and the rank, so that a
 * scenario runs at 2, 4 or 8 ranks. Membership is expected sorted by
 * (namespace, rank); the results of a construct, an invite or a join are
 * PMIX_GROUP_CONTEXT_ID first when one was assigned, then
 * PMIX_GROUP_MEMBERSHIP.
 *
 * Every wait is bounded: calls whose completion the scenario is about use
 * the non-blocking form and a timed wait, events are waited for with a
 * timeout, and alarm() is the backstop (it prints the step it interrupted).
 * In the fault scenarios one rank (the victim, the last) leaves with _exit()
 * without finalizing; pmixrun then tears the job down (SIGTERM, SIGKILL
 * three seconds later), so the survivors ignore SIGTERM and must be done
 * within that grace period.
 *
 * Prints "group client R ok" when every check passed; otherwise a message
 * per failed check on stderr ("group client R: SCENARIO: line L: ...") and
 * a nonzero exit status. */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#ifndef PMIX_GROUP_BOOTSTRAP
/* OpenPMIx master; not in 4.2.2's header: the number of leaders (size_t). */
#define PMIX_GROUP_BOOTSTRAP "pmix.grp.btstrp"
#endif

#define MAXP 64     /* most procs a membership may hold here */
#define MAXEV 512   /* events recorded */

static pmix_proc_t me;
static uint32_t N = 1;
static const char *scenario = "?";
static const char *volatile step = "start";
static int failures;

#define STEP(s) (step = (s))

static void vfail(int line, const char *fmt, va_list ap)
{
    fprintf(stderr, "group client %u: %s: line %d (step %s): ", me.rank, scenario, line,
            (const char *) step);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    fflush(stderr);
    failures++;
}

static void fail_at(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(line, fmt, ap);
    va_end(ap);
}

/* A failed check: recorded, the scenario goes on. */
#define FAIL(...) fail_at(__LINE__, __VA_ARGS__)
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            FAIL(__VA_ARGS__);                                                 \
        }                                                                      \
    } while (0)
/* A failed check after which the scenario cannot go on (a collective the
 * others wait in would hang): exit now; pmixrun ends the others. */
#define DIE(...)                                                               \
    do {                                                                       \
        FAIL(__VA_ARGS__);                                                     \
        fflush(stdout);                                                        \
        exit(1);                                                               \
    } while (0)
#define ESTR(rc) PMIx_Error_string(rc)

static void on_alarm(int sig)
{
    char buf[512];
    int n = snprintf(buf, sizeof(buf), "group client %u: %s: TIMED OUT (alarm) in step: %s\n",
                     me.rank, scenario, (const char *) step);
    if (n > 0) {
        ssize_t w = write(2, buf, (size_t) n);
        (void) w;
    }
    _exit(3);
}

/* ------------------------------------------------------------------ */
/* Time and procs                                                       */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (0 != nanosleep(&ts, &ts)) {
    }
}

static struct timespec deadline_in(double secs)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long ns = ts.tv_nsec + (long) ((secs - (double) (long) secs) * 1e9);
    ts.tv_sec += (time_t) secs + ns / 1000000000L;
    ts.tv_nsec = ns % 1000000000L;
    return ts;
}

static bool same_proc(const pmix_proc_t *a, const pmix_proc_t *b)
{
    return a->rank == b->rank && 0 == strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN);
}

static void load_proc(pmix_proc_t *p, const char *ns, pmix_rank_t r)
{
    PMIX_PROC_CONSTRUCT(p);
    PMIX_LOAD_PROCID(p, ns, r);
}

/* Every rank of the job, ascending (the sorted membership of the job). */
static size_t all_procs(pmix_proc_t *out)
{
    for (uint32_t r = 0; r < N; r++) {
        load_proc(&out[r], me.nspace, r);
    }
    return N;
}

/* Every rank but `skip`, ascending. */
static size_t all_but(pmix_proc_t *out, uint32_t skip)
{
    size_t n = 0;
    for (uint32_t r = 0; r < N; r++) {
        if (r != skip) {
            load_proc(&out[n++], me.nspace, r);
        }
    }
    return n;
}

static void procs_str(char *buf, size_t len, const pmix_proc_t *p, size_t n)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && off + 1 < len; i++) {
        int w = snprintf(buf + off, len - off, "%s%s:%u", i ? "," : "", p[i].nspace, p[i].rank);
        if (w < 0) {
            break;
        }
        off += (size_t) w;
    }
    if (off >= len) {
        buf[len - 1] = '\0';
    }
}

static bool as_u64(const pmix_value_t *v, uint64_t *out)
{
    switch (v->type) {
    case PMIX_SIZE: *out = v->data.size; return true;
    case PMIX_UINT64: *out = v->data.uint64; return true;
    case PMIX_UINT32: *out = v->data.uint32; return true;
    case PMIX_UINT16: *out = v->data.uint16; return true;
    case PMIX_UINT8: *out = v->data.uint8; return true;
    case PMIX_UINT: *out = v->data.uint; return true;
    case PMIX_INT64: *out = (uint64_t) v->data.int64; return v->data.int64 >= 0;
    case PMIX_INT32: *out = (uint64_t) v->data.int32; return v->data.int32 >= 0;
    case PMIX_INT: *out = (uint64_t) v->data.integer; return v->data.integer >= 0;
    default: return false;
    }
}

/* The procs of a PMIX_DATA_ARRAY of PMIX_PROC value (at most max). */
static bool value_procs(const pmix_value_t *v, pmix_proc_t *out, size_t max, size_t *n)
{
    if (PMIX_DATA_ARRAY != v->type || NULL == v->data.darray
        || PMIX_PROC != v->data.darray->type || v->data.darray->size > max
        || (v->data.darray->size > 0 && NULL == v->data.darray->array)) {
        return false;
    }
    *n = v->data.darray->size;
    if (*n > 0) {
        memcpy(out, v->data.darray->array, *n * sizeof(pmix_proc_t));
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* Directives                                                           */

typedef struct {
    pmix_info_t info[8];
    size_t n;
} dirs_t;

static void dirs_bool(dirs_t *d, const char *key)
{
    bool t = true;
    PMIX_INFO_LOAD(&d->info[d->n], key, &t, PMIX_BOOL);
    d->n++;
}

static void dirs_int(dirs_t *d, const char *key, int v)
{
    PMIX_INFO_LOAD(&d->info[d->n], key, &v, PMIX_INT);
    d->n++;
}

static void dirs_size(dirs_t *d, const char *key, size_t v)
{
    PMIX_INFO_LOAD(&d->info[d->n], key, &v, PMIX_SIZE);
    d->n++;
}

static void dirs_procs(dirs_t *d, const char *key, const pmix_proc_t *p, size_t n)
{
    pmix_data_array_t da;
    PMIX_DATA_ARRAY_CONSTRUCT(&da, n, PMIX_PROC);
    memcpy(da.array, p, n * sizeof(pmix_proc_t));
    PMIX_INFO_LOAD(&d->info[d->n], key, &da, PMIX_DATA_ARRAY);
    d->n++;
    PMIX_DATA_ARRAY_DESTRUCT(&da);
}

static void dirs_free(dirs_t *d)
{
    for (size_t i = 0; i < d->n; i++) {
        PMIX_INFO_DESTRUCT(&d->info[i]);
    }
    d->n = 0;
}

#define DIRS(d) ((d)->n ? (d)->info : NULL), ((d)->n)

/* ------------------------------------------------------------------ */
/* Waiting for callbacks                                                */

typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    int calls;
    pmix_status_t status;
    pmix_info_t *results;
    size_t nresults;
} waiter_t;

static void waiter_init(waiter_t *w)
{
    memset(w, 0, sizeof(*w));
    pthread_mutex_init(&w->m, NULL);
    pthread_cond_init(&w->c, NULL);
    w->status = -99999;
}

static void waiter_reset(waiter_t *w)
{
    if (NULL != w->results) {
        PMIX_INFO_FREE(w->results, w->nresults);
    }
    pthread_mutex_destroy(&w->m);
    pthread_cond_destroy(&w->c);
    waiter_init(w);
}

/* A waiter on the heap, for the waits that may give up: when its callback
 * has not come, waiter_release leaves it allocated (it may still come). */
static waiter_t *waiter_new(void)
{
    waiter_t *w = malloc(sizeof(*w));
    if (NULL == w) {
        abort();
    }
    waiter_init(w);
    return w;
}

static void waiter_release(waiter_t *w)
{
    pthread_mutex_lock(&w->m);
    bool done = w->calls > 0;
    pthread_mutex_unlock(&w->m);
    if (done) {
        waiter_reset(w);
        free(w);
    }
}

static void info_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    waiter_t *w = (waiter_t *) cbdata;
    pthread_mutex_lock(&w->m);
    if (0 == w->calls) {
        w->status = status;
        w->nresults = 0;
        w->results = NULL;
        if (ninfo > 0 && NULL != info) {
            PMIX_INFO_CREATE(w->results, ninfo);
            for (size_t i = 0; i < ninfo; i++) {
                PMIX_INFO_XFER(&w->results[i], &info[i]);
            }
            w->nresults = ninfo;
        }
    }
    w->calls++;
    pthread_cond_broadcast(&w->c);
    pthread_mutex_unlock(&w->m);
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
}

static void op_cb(pmix_status_t status, void *cbdata)
{
    waiter_t *w = (waiter_t *) cbdata;
    pthread_mutex_lock(&w->m);
    if (0 == w->calls) {
        w->status = status;
    }
    w->calls++;
    pthread_cond_broadcast(&w->c);
    pthread_mutex_unlock(&w->m);
}

/* Waits at most secs for the first callback; false if none came. */
static bool waiter_wait(waiter_t *w, double secs)
{
    struct timespec dl = deadline_in(secs);
    int rc = 0;
    pthread_mutex_lock(&w->m);
    while (0 == w->calls && 0 == rc) {
        rc = pthread_cond_timedwait(&w->c, &w->m, &dl);
    }
    bool done = w->calls > 0;
    pthread_mutex_unlock(&w->m);
    return done;
}

/* A callback counter for the "an immediate error means no callback" checks. */
static int stray_calls;
static void stray_info_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                          pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void) status; (void) info; (void) ninfo; (void) cbdata;
    __atomic_add_fetch(&stray_calls, 1, __ATOMIC_SEQ_CST);
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
}
static void stray_op_cb(pmix_status_t status, void *cbdata)
{
    (void) status; (void) cbdata;
    __atomic_add_fetch(&stray_calls, 1, __ATOMIC_SEQ_CST);
}

/* ------------------------------------------------------------------ */
/* Events                                                               */

typedef struct {
    pmix_status_t code;
    pmix_proc_t source;
    char grp[PMIX_MAX_NSLEN + 1];
    bool has_affected;
    pmix_proc_t affected;
    bool has_members;
    size_t nmembers;
    pmix_proc_t members[MAXP];
    bool has_cid;
    uint64_t cid;
} event_t;

static pthread_mutex_t ev_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ev_cv = PTHREAD_COND_INITIALIZER;
static event_t events[MAXEV];
static size_t nevents;

/* What an invitee does with PMIX_GROUP_INVITED. */
enum invite_policy { INV_NONE, INV_ACCEPT_NB, INV_DECLINE_NB, INV_DEFER, INV_ACCEPT_NOCB };
static enum invite_policy invite_policy = INV_NONE;
static waiter_t join_w;            /* the join_nb started by the handler */
static pmix_status_t join_rc = -99999;
static bool join_started;
/* What the PMIX_GROUP_MEMBER_FAILED handler answers. */
static pmix_status_t member_failed_answer = PMIX_EVENT_ACTION_COMPLETE;

/* GROUP_CLIENT_TRACE=1 in the environment: every event on stderr. */
static bool trace;

static void group_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                          pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                          pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    event_t e;
    (void) id; (void) results; (void) nresults;
    memset(&e, 0, sizeof(e));
    e.code = status;
    if (NULL != source) {
        e.source = *source;
    }
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_value_t *v = &info[i].value;
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && PMIX_STRING == v->type
            && NULL != v->data.string) {
            snprintf(e.grp, sizeof(e.grp), "%s", v->data.string);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && PMIX_PROC == v->type
                   && NULL != v->data.proc) {
            e.has_affected = true;
            e.affected = *v->data.proc;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_MEMBERSHIP)) {
            e.has_members = value_procs(v, e.members, MAXP, &e.nmembers);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_CONTEXT_ID)) {
            e.has_cid = as_u64(v, &e.cid);
        }
    }
    if (trace) {
        fprintf(stderr, "group client %u: event %s (%d) from %s:%u, group %s, affected %s:%u\n",
                me.rank, PMIx_Error_string(status), status, e.source.nspace, e.source.rank,
                e.grp[0] ? e.grp : "-", e.has_affected ? e.affected.nspace : "-",
                e.has_affected ? e.affected.rank : 0);
    }
    pthread_mutex_lock(&ev_mu);
    if (nevents < MAXEV) {
        events[nevents++] = e;
    }
    bool join_now = false;
    pmix_group_opt_t opt = PMIX_GROUP_ACCEPT;
    if (PMIX_GROUP_INVITED == status && NULL != source && !same_proc(source, &me)
        && !join_started
        && (INV_ACCEPT_NB == invite_policy || INV_DECLINE_NB == invite_policy
            || INV_ACCEPT_NOCB == invite_policy)) {
        join_started = true;
        join_now = true;
        opt = INV_DECLINE_NB == invite_policy ? PMIX_GROUP_DECLINE : PMIX_GROUP_ACCEPT;
    }
    pthread_cond_broadcast(&ev_cv);
    pthread_mutex_unlock(&ev_mu);

    if (join_now) {
        /* From the handler, as the standard's invite method does: only
         * the non-blocking join may be called here. */
        /* INV_ACCEPT_NOCB: no callback at all, as invitees usually
         * answer (OpenPMIx accepts it; the construct's completion event
         * tells the invitee it joined). */
        pmix_status_t rc = INV_ACCEPT_NOCB == invite_policy
                               ? PMIx_Group_join_nb(e.grp, source, opt, NULL, 0, NULL, NULL)
                               : PMIx_Group_join_nb(e.grp, source, opt, NULL, 0, info_cb, &join_w);
        pthread_mutex_lock(&ev_mu);
        join_rc = rc;
        pthread_cond_broadcast(&ev_cv);
        pthread_mutex_unlock(&ev_mu);
    }
    if (NULL != cbfunc) {
        pmix_status_t answer = PMIX_EVENT_ACTION_COMPLETE;
        if (PMIX_GROUP_MEMBER_FAILED == status) {
            answer = member_failed_answer;
        }
        cbfunc(answer, NULL, 0, NULL, NULL, cbdata);
    }
}

static void default_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                            pmix_info_t info[], size_t ninfo, pmix_info_t *results,
                            size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                            void *cbdata)
{
    (void) id; (void) status; (void) source; (void) info; (void) ninfo;
    (void) results; (void) nresults;
    if (NULL != cbfunc) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static bool event_matches(const event_t *e, pmix_status_t code, const char *grp)
{
    return e->code == code && (NULL == grp || 0 == strcmp(e->grp, grp));
}

/* How many events `code` (about group `grp`, if not NULL) were recorded. */
static size_t count_events(pmix_status_t code, const char *grp)
{
    size_t c = 0;
    pthread_mutex_lock(&ev_mu);
    for (size_t i = 0; i < nevents; i++) {
        if (event_matches(&events[i], code, grp)) {
            c++;
        }
    }
    pthread_mutex_unlock(&ev_mu);
    return c;
}

/* Waits at most secs until `count` such events were recorded; copies the
 * first into *out (if not NULL). */
static bool wait_events(pmix_status_t code, const char *grp, size_t count, double secs,
                        event_t *out)
{
    struct timespec dl = deadline_in(secs);
    int rc = 0;
    bool ok = false;
    pthread_mutex_lock(&ev_mu);
    for (;;) {
        size_t c = 0;
        const event_t *first = NULL;
        for (size_t i = 0; i < nevents; i++) {
            if (event_matches(&events[i], code, grp)) {
                if (NULL == first) {
                    first = &events[i];
                }
                c++;
            }
        }
        if (c >= count) {
            if (NULL != out && NULL != first) {
                *out = *first;
            }
            ok = true;
            break;
        }
        if (0 != rc) {
            break;
        }
        rc = pthread_cond_timedwait(&ev_cv, &ev_mu, &dl);
    }
    pthread_mutex_unlock(&ev_mu);
    return ok;
}

/* The i-th recorded event `code` about `grp`. */
static bool nth_event(pmix_status_t code, const char *grp, size_t i, event_t *out)
{
    bool ok = false;
    pthread_mutex_lock(&ev_mu);
    for (size_t k = 0; k < nevents; k++) {
        if (event_matches(&events[k], code, grp)) {
            if (0 == i) {
                *out = events[k];
                ok = true;
                break;
            }
            i--;
        }
    }
    pthread_mutex_unlock(&ev_mu);
    return ok;
}

static void register_handlers(void)
{
    pmix_status_t codes[] = {
        PMIX_GROUP_INVITED,          PMIX_GROUP_LEFT,
        PMIX_GROUP_INVITE_ACCEPTED,  PMIX_GROUP_INVITE_DECLINED,
        PMIX_GROUP_INVITE_FAILED,    PMIX_GROUP_MEMBERSHIP_UPDATE,
        PMIX_GROUP_CONSTRUCT_ABORT,  PMIX_GROUP_CONSTRUCT_COMPLETE,
        PMIX_GROUP_LEADER_SELECTED,  PMIX_GROUP_LEADER_FAILED,
        PMIX_GROUP_CONTEXT_ID_ASSIGNED, PMIX_GROUP_MEMBER_FAILED,
        PMIX_ERR_PROC_ABORTED,
    };
    STEP("register handlers");
    pmix_status_t rc = PMIx_Register_event_handler(codes, sizeof(codes) / sizeof(codes[0]), NULL,
                                                   0, group_handler, NULL, NULL);
    if (rc < 0) {
        DIE("register the group handler: %s", ESTR(rc));
    }
    rc = PMIx_Register_event_handler(NULL, 0, NULL, 0, default_handler, NULL, NULL);
    if (rc < 0) {
        DIE("register the default handler: %s", ESTR(rc));
    }
}

/* ------------------------------------------------------------------ */
/* Results                                                              */

typedef struct {
    bool has_cid;
    uint64_t cid;
    long cid_idx;
    bool has_members;
    long mem_idx;
    size_t nmembers;
    pmix_proc_t members[MAXP];
    bool has_id;
    char id[PMIX_MAX_NSLEN + 1];
} grpres_t;

static void parse_results(const pmix_info_t *r, size_t n, grpres_t *g)
{
    memset(g, 0, sizeof(*g));
    g->cid_idx = g->mem_idx = -1;
    for (size_t i = 0; i < n && NULL != r; i++) {
        if (PMIX_CHECK_KEY(&r[i], PMIX_GROUP_CONTEXT_ID) && !g->has_cid) {
            g->has_cid = as_u64(&r[i].value, &g->cid);
            g->cid_idx = (long) i;
        } else if (PMIX_CHECK_KEY(&r[i], PMIX_GROUP_MEMBERSHIP) && !g->has_members) {
            g->has_members = value_procs(&r[i].value, g->members, MAXP, &g->nmembers);
            g->mem_idx = (long) i;
        } else if (PMIX_CHECK_KEY(&r[i], PMIX_GROUP_ID) && PMIX_STRING == r[i].value.type
                   && NULL != r[i].value.data.string) {
            g->has_id = true;
            snprintf(g->id, sizeof(g->id), "%s", r[i].value.data.string);
        }
    }
}

enum cid_want { CID_ANY, CID_REQUIRED };

/* Checks the results of a completed construct/invite/join: the membership
 * is `want` (sorted), the context id (if any) comes first, membership right
 * after it. Returns the parsed results. */
static grpres_t check_results_at(int line, const char *what, const pmix_info_t *r, size_t n,
                                 const pmix_proc_t *want, size_t nwant, enum cid_want cw)
{
    grpres_t g;
    char a[1024], b[1024];
    parse_results(r, n, &g);
    if (!g.has_members) {
        fail_at(line, "%s: no PMIX_GROUP_MEMBERSHIP (data array of procs) in %zu results", what,
                n);
    } else {
        procs_str(a, sizeof(a), g.members, g.nmembers);
        procs_str(b, sizeof(b), want, nwant);
        bool same = g.nmembers == nwant;
        for (size_t i = 0; same && i < nwant; i++) {
            same = same_proc(&g.members[i], &want[i]);
        }
        if (!same) {
            fail_at(line, "%s: membership [%s], want [%s] (sorted by namespace, rank)", what, a,
                    b);
        }
    }
    if (CID_REQUIRED == cw && !g.has_cid) {
        fail_at(line, "%s: no PMIX_GROUP_CONTEXT_ID (an integer) in the results", what);
    }
    if (g.has_cid && 0 != g.cid_idx) {
        fail_at(line, "%s: PMIX_GROUP_CONTEXT_ID is result %ld, want 0", what, g.cid_idx);
    }
    if (g.has_members && g.mem_idx != (g.has_cid ? 1 : 0)) {
        fail_at(line, "%s: PMIX_GROUP_MEMBERSHIP is result %ld, want %d", what, g.mem_idx,
                g.has_cid ? 1 : 0);
    }
    return g;
}
#define CHECK_RESULTS(...) check_results_at(__LINE__, __VA_ARGS__)

/* ------------------------------------------------------------------ */
/* Calls                                                                */

#define HUNG ((pmix_status_t) -99999)

/* A blocking construct; the results (to be freed) in *res. */
static pmix_status_t construct_at(const char *grp, const pmix_proc_t *procs, size_t nprocs,
                                  const pmix_info_t *dirs, size_t ndirs, pmix_info_t **res,
                                  size_t *nres)
{
    *res = NULL;
    *nres = 0;
    return PMIx_Group_construct(grp, procs, nprocs, dirs, ndirs, res, nres);
}

/* Constructs `grp` (blocking) and checks success and the membership;
 * dies if it fails (the collectives after it would hang). */
static grpres_t construct_ok_at(int line, const char *grp, const pmix_proc_t *procs,
                                size_t nprocs, const pmix_info_t *dirs, size_t ndirs,
                                const pmix_proc_t *want, size_t nwant, enum cid_want cw)
{
    pmix_info_t *res;
    size_t nres;
    char what[300];
    STEP(grp);
    pmix_status_t rc = construct_at(grp, procs, nprocs, dirs, ndirs, &res, &nres);
    if (PMIX_SUCCESS != rc) {
        fail_at(line, "construct %s: %s (%d), want PMIX_SUCCESS", grp, ESTR(rc), rc);
        fflush(stdout);
        exit(1);
    }
    snprintf(what, sizeof(what), "construct %s", grp);
    grpres_t g = check_results_at(line, what, res, nres, want, nwant, cw);
    if (NULL != res) {
        PMIX_INFO_FREE(res, nres);
    }
    return g;
}
#define CONSTRUCT_OK(...) construct_ok_at(__LINE__, __VA_ARGS__)

static void destruct_ok_at(int line, const char *grp)
{
    STEP("destruct");
    pmix_status_t rc = PMIx_Group_destruct(grp, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fail_at(line, "destruct %s: %s (%d), want PMIX_SUCCESS", grp, ESTR(rc), rc);
        fflush(stdout);
        exit(1);
    }
}
#define DESTRUCT_OK(grp) destruct_ok_at(__LINE__, grp)

/* The status of a non-blocking fence on procs: its immediate error, or its
 * callback's status, or HUNG if none came within secs. */
static pmix_status_t fence_bounded(const pmix_proc_t *procs, size_t n, bool collect, double secs)
{
    waiter_t *w = waiter_new();
    dirs_t d = {0};
    if (collect) {
        dirs_bool(&d, PMIX_COLLECT_DATA);
    }
    pmix_status_t rc = PMIx_Fence_nb(procs, n, DIRS(&d), op_cb, w);
    dirs_free(&d);
    if (PMIX_OPERATION_SUCCEEDED == rc) {
        rc = PMIX_SUCCESS;
    } else if (PMIX_SUCCESS == rc) {
        rc = waiter_wait(w, secs) ? w->status : HUNG;
    }
    if (PMIX_SUCCESS != rc && HUNG != rc) {
        /* an immediate error: no callback will come */
        waiter_reset(w);
        free(w);
    } else {
        waiter_release(w);
    }
    return rc;
}

static pmix_status_t group_fence(const char *grp, pmix_rank_t r, double secs)
{
    pmix_proc_t p;
    load_proc(&p, grp, r);
    return fence_bounded(&p, 1, false, secs);
}

/* A fence on {grp, WILDCARD} (of secs at most) by its members, named who
 * in the message, then the group's destruct; both must succeed. */
static void fence_then_destruct_at(int line, const char *grp, const char *who, double secs)
{
    pmix_status_t rc = group_fence(grp, PMIX_RANK_WILDCARD, secs);
    if (PMIX_SUCCESS != rc) {
        fail_at(line, "fence {%s, WILDCARD}%s: %s", grp, who,
                HUNG == rc ? "no answer in time" : ESTR(rc));
    }
    destruct_ok_at(line, grp);
}
#define FENCE_THEN_DESTRUCT(grp, who, secs) fence_then_destruct_at(__LINE__, grp, who, secs)

static void job_fence_at(int line, bool collect)
{
    pmix_proc_t p;
    load_proc(&p, me.nspace, PMIX_RANK_WILDCARD);
    const char *was = step;
    STEP("job fence");
    dirs_t d = {0};
    if (collect) {
        dirs_bool(&d, PMIX_COLLECT_DATA);
    }
    pmix_status_t rc = PMIx_Fence(&p, 1, DIRS(&d));
    dirs_free(&d);
    if (PMIX_SUCCESS != rc) {
        fail_at(line, "job fence: %s", ESTR(rc));
        fflush(stdout);
        exit(1);
    }
    step = was;
}
#define JOB_FENCE() job_fence_at(__LINE__, false)

static void put_str(const char *key, const char *s)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, s, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (PMIX_SUCCESS != rc) {
        DIE("put %s: %s", key, ESTR(rc));
    }
}

static void put_u64(const char *key, uint64_t x)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, &x, PMIX_UINT64);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (PMIX_SUCCESS != rc) {
        DIE("put %s: %s", key, ESTR(rc));
    }
}

static void commit(void)
{
    pmix_status_t rc = PMIx_Commit();
    if (PMIX_SUCCESS != rc) {
        DIE("commit: %s", ESTR(rc));
    }
}

/* PMIx_Get of `key` of p with PMIX_TIMEOUT (and the optional qualifier). */
static pmix_status_t get_bounded(const pmix_proc_t *p, const char *key, const pmix_info_t *qual,
                                 pmix_value_t **val)
{
    pmix_info_t info[2];
    size_t n = 0;
    int t = 5;
    if (NULL != qual) {
        PMIX_INFO_XFER(&info[n], qual);
        n++;
    }
    PMIX_INFO_LOAD(&info[n], PMIX_TIMEOUT, &t, PMIX_INT);
    n++;
    *val = NULL;
    pmix_status_t rc = PMIx_Get(p, key, info, n, val);
    for (size_t i = 0; i < n; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    return rc;
}

/* Gets key of p (bounded, with the qualifier qual or none), which must be
 * the string want; who names the get in the messages. */
static void expect_string(const pmix_proc_t *p, const char *key, const pmix_info_t *qual,
                          const char *want, const char *who)
{
    pmix_value_t *v;
    pmix_status_t rc = get_bounded(p, key, qual, &v);
    if (PMIX_SUCCESS != rc) {
        FAIL("get %s: %s", who, ESTR(rc));
    } else {
        CHECK(PMIX_STRING == v->type && 0 == strcmp(v->data.string, want), "%s = %s, want %s",
              who, PMIX_STRING == v->type ? v->data.string : "(not a string)", want);
        PMIX_VALUE_RELEASE(v);
    }
}

/* expect_string of key of member i of grp, as {grp, i}. */
static void expect_member_string(const char *grp, uint32_t i, const char *key, const char *want)
{
    pmix_proc_t p;
    char who[PMIX_MAX_NSLEN + 96];
    load_proc(&p, grp, i);
    snprintf(who, sizeof(who), "{%s, %u} %s", grp, i, key);
    expect_string(&p, key, NULL, want, who);
}

/* Every member's `key` (uint64, put by each under that key) equals mine:
 * put, commit, a collecting job fence, then a get from every rank. */
static void check_same_everywhere(const char *key, uint64_t mine)
{
    const char *was = step;
    STEP(key);
    put_u64(key, mine);
    commit();
    job_fence_at(__LINE__, true);
    for (uint32_t r = 0; r < N; r++) {
        pmix_proc_t p;
        pmix_value_t *v;
        uint64_t x = 0;
        load_proc(&p, me.nspace, r);
        pmix_status_t rc = get_bounded(&p, key, NULL, &v);
        if (PMIX_SUCCESS != rc) {
            FAIL("get %s of rank %u: %s", key, r, ESTR(rc));
            continue;
        }
        CHECK(as_u64(v, &x) && x == mine, "%s: rank %u has %llu, I have %llu", key, r,
              (unsigned long long) x, (unsigned long long) mine);
        PMIX_VALUE_RELEASE(v);
    }
    step = was;
}

/* The victim of a fault scenario: leaves without finalizing. */
static void die_now(long after_ms)
{
    fflush(stdout);
    fflush(stderr);
    sleep_ms(after_ms);
    _exit(0);
}

/* A job fence, after which the last rank (a scenario's victim) dies ms
 * later while the others go on. */
#define LAST_RANK_DIES_AFTER_FENCE(ms) \
    do {                               \
        JOB_FENCE();                   \
        if (me.rank == N - 1) {        \
            die_now(ms);               \
        }                              \
    } while (0)

static void need_ranks(uint32_t n)
{
    if (N < n) {
        DIE("this scenario needs at least %u ranks, the job has %u", n, N);
    }
}

/* A rank-dependent order of the job's ranks: rotated by my rank, reversed
 * on odd ranks. */
static void shuffled_all(pmix_proc_t *out)
{
    for (uint32_t i = 0; i < N; i++) {
        uint32_t r = (i + me.rank) % N;
        load_proc(&out[(me.rank & 1) ? N - 1 - i : i], me.nspace, r);
    }
}

/* ------------------------------------------------------------------ */
/* Scenarios                                                            */

/* 1, 2: before PMIx_Init every call is PMIX_ERR_INIT (the non-blocking
 * ones without a callback). */
static void c01_before_init(void)
{
    pmix_proc_t p;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc;
    load_proc(&p, "c01-ns", 0);
    STEP("before init");
    rc = PMIx_Group_construct("c01", &p, 1, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_INIT == rc, "construct before init: %s, want PMIX_ERR_INIT", ESTR(rc));
    rc = PMIx_Group_construct_nb("c01", &p, 1, NULL, 0, stray_info_cb, NULL);
    CHECK(PMIX_ERR_INIT == rc, "construct_nb before init: %s", ESTR(rc));
    rc = PMIx_Group_destruct("c01", NULL, 0);
    CHECK(PMIX_ERR_INIT == rc, "destruct before init: %s", ESTR(rc));
    rc = PMIx_Group_destruct_nb("c01", NULL, 0, stray_op_cb, NULL);
    CHECK(PMIX_ERR_INIT == rc, "destruct_nb before init: %s", ESTR(rc));
    rc = PMIx_Group_invite("c01", &p, 1, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_INIT == rc, "invite before init: %s", ESTR(rc));
    rc = PMIx_Group_invite_nb("c01", &p, 1, NULL, 0, stray_info_cb, NULL);
    CHECK(PMIX_ERR_INIT == rc, "invite_nb before init: %s", ESTR(rc));
    rc = PMIx_Group_join("c01", &p, PMIX_GROUP_ACCEPT, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_INIT == rc, "join before init: %s", ESTR(rc));
    rc = PMIx_Group_join_nb("c01", &p, PMIX_GROUP_ACCEPT, NULL, 0, stray_info_cb, NULL);
    CHECK(PMIX_ERR_INIT == rc, "join_nb before init: %s", ESTR(rc));
    rc = PMIx_Group_leave("c01", NULL, 0);
    CHECK(PMIX_ERR_INIT == rc, "leave before init: %s", ESTR(rc));
    rc = PMIx_Group_leave_nb("c01", NULL, 0, stray_op_cb, NULL);
    CHECK(PMIX_ERR_INIT == rc, "leave_nb before init: %s", ESTR(rc));
    CHECK(0 == nres, "results (%zu) from a call refused before init", nres);
}

/* 1, 2: after init, bad arguments are PMIX_ERR_BAD_PARAM at once and the
 * non-blocking forms then never call back. */
static void c01_entry(void)
{
    pmix_proc_t all[MAXP], other;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc;
    char longid[PMIX_MAX_NSLEN + 40];
    size_t n = all_procs(all);
    load_proc(&other, me.nspace, (me.rank + 1) % N);
    memset(longid, 'g', sizeof(longid) - 1);
    longid[sizeof(longid) - 1] = '\0';

    STEP("NULL group id");
    rc = PMIx_Group_construct(NULL, all, n, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "construct(NULL id): %s, want BAD_PARAM", ESTR(rc));
    rc = PMIx_Group_construct_nb(NULL, all, n, NULL, 0, stray_info_cb, NULL);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "construct_nb(NULL id): %s", ESTR(rc));
    rc = PMIx_Group_destruct(NULL, NULL, 0);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "destruct(NULL id): %s", ESTR(rc));
    rc = PMIx_Group_destruct_nb(NULL, NULL, 0, stray_op_cb, NULL);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "destruct_nb(NULL id): %s", ESTR(rc));
    rc = PMIx_Group_invite(NULL, &other, 1, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "invite(NULL id): %s", ESTR(rc));
    rc = PMIx_Group_invite_nb(NULL, &other, 1, NULL, 0, stray_info_cb, NULL);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "invite_nb(NULL id): %s", ESTR(rc));
    rc = PMIx_Group_join(NULL, &other, PMIX_GROUP_ACCEPT, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "join(NULL id): %s", ESTR(rc));
    rc = PMIx_Group_join_nb(NULL, &other, PMIX_GROUP_ACCEPT, NULL, 0, stray_info_cb, NULL);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "join_nb(NULL id): %s", ESTR(rc));
    rc = PMIx_Group_leave(NULL, NULL, 0);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "leave(NULL id): %s", ESTR(rc));
    rc = PMIx_Group_leave_nb(NULL, NULL, 0, stray_op_cb, NULL);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "leave_nb(NULL id): %s", ESTR(rc));

    STEP("bad ids and arrays");
    rc = PMIx_Group_construct("", all, n, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "construct(\"\"): %s, want BAD_PARAM", ESTR(rc));
    rc = PMIx_Group_construct(longid, all, n, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "construct(id of %zu chars): %s, want BAD_PARAM",
          strlen(longid), ESTR(rc));
    rc = PMIx_Group_construct("c01", NULL, 3, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "construct(NULL procs, 3): %s, want BAD_PARAM", ESTR(rc));
    rc = PMIx_Group_construct_nb("c01", NULL, 3, NULL, 0, stray_info_cb, NULL);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "construct_nb(NULL procs, 3): %s", ESTR(rc));
    rc = PMIx_Group_construct("c01", all, n, NULL, 0, NULL, NULL);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "construct(NULL results): %s, want BAD_PARAM", ESTR(rc));
    rc = PMIx_Group_invite("c01", NULL, 2, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "invite(NULL procs, 2): %s, want BAD_PARAM", ESTR(rc));
    rc = PMIx_Group_invite_nb("c01", NULL, 2, NULL, 0, stray_info_cb, NULL);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "invite_nb(NULL procs, 2): %s", ESTR(rc));
    CHECK(0 == nres, "results (%zu) from refused calls", nres);

    /* 2: an immediate error means no callback, ever */
    sleep_ms(200);
    CHECK(0 == __atomic_load_n(&stray_calls, __ATOMIC_SEQ_CST),
          "%d callbacks of refused non-blocking calls", stray_calls);
    JOB_FENCE();
}

/* 1: a singleton (no server) gets PMIX_ERR_UNREACH, before any argument
 * check. Run without pmixrun. */
static void c01_singleton(void)
{
    pmix_proc_t p;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc;
    load_proc(&p, me.nspace, me.rank);
    STEP("singleton");
    rc = PMIx_Group_construct("c01s", &p, 1, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_UNREACH == rc, "singleton construct: %s, want PMIX_ERR_UNREACH", ESTR(rc));
    rc = PMIx_Group_construct(NULL, &p, 1, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_UNREACH == rc, "singleton construct(NULL id): %s, want PMIX_ERR_UNREACH",
          ESTR(rc));
    rc = PMIx_Group_construct_nb("c01s", &p, 1, NULL, 0, stray_info_cb, NULL);
    CHECK(PMIX_ERR_UNREACH == rc, "singleton construct_nb: %s", ESTR(rc));
    rc = PMIx_Group_destruct("c01s", NULL, 0);
    CHECK(PMIX_ERR_UNREACH == rc, "singleton destruct: %s", ESTR(rc));
    rc = PMIx_Group_invite("c01s", &p, 1, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_UNREACH == rc, "singleton invite: %s", ESTR(rc));
    load_proc(&p, me.nspace, me.rank + 1);
    rc = PMIx_Group_join("c01s", &p, PMIX_GROUP_ACCEPT, NULL, 0, &res, &nres);
    CHECK(PMIX_ERR_UNREACH == rc, "singleton join: %s", ESTR(rc));
    rc = PMIx_Group_leave("c01s", NULL, 0);
    CHECK(PMIX_ERR_UNREACH == rc, "singleton leave: %s", ESTR(rc));
    sleep_ms(100);
    CHECK(0 == __atomic_load_n(&stray_calls, __ATOMIC_SEQ_CST), "%d stray callbacks",
          stray_calls);
}

/* 3: the same id and member set, in any order, from every member; a
 * wildcard rank is the whole namespace; two disjoint groups at once. */
static void c03_collective(void)
{
    pmix_proc_t all[MAXP], list[MAXP], wild, half[MAXP];
    size_t n = all_procs(all);
    need_ranks(2);

    load_proc(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CONSTRUCT_OK("c03-wild", &wild, 1, NULL, 0, all, n, CID_ANY);

    shuffled_all(list);
    CONSTRUCT_OK("c03-list", list, n, NULL, 0, all, n, CID_ANY);

    /* the two halves of the job, each listing its half backwards */
    uint32_t lo = N / 2, first = me.rank < lo ? 0 : lo, end = me.rank < lo ? lo : N;
    size_t nh = 0;
    pmix_proc_t sorted[MAXP];
    for (uint32_t r = end; r > first; r--) {
        load_proc(&half[nh++], me.nspace, r - 1);
    }
    for (size_t i = 0; i < nh; i++) {
        sorted[i] = half[nh - 1 - i];
    }
    const char *hid = me.rank < lo ? "c03-lo" : "c03-hi";
    CONSTRUCT_OK(hid, half, nh, NULL, 0, sorted, nh, CID_ANY);

    DESTRUCT_OK(hid);
    DESTRUCT_OK("c03-list");
    DESTRUCT_OK("c03-wild");
}

/* 4: results: PMIX_GROUP_CONTEXT_ID first, then PMIX_GROUP_MEMBERSHIP,
 * from both forms; an error brings no results. */
static void c04_results_order(void)
{
    pmix_proc_t all[MAXP], others[MAXP];
    size_t n = all_procs(all);
    dirs_t d = {0};
    waiter_t w;
    need_ranks(2);
    dirs_bool(&d, PMIX_GROUP_ASSIGN_CONTEXT_ID);

    grpres_t g = CONSTRUCT_OK("c04", all, n, DIRS(&d), all, n, CID_REQUIRED);
    CHECK(g.has_cid, "no context id");

    STEP("construct_nb");
    waiter_init(&w);
    pmix_status_t rc = PMIx_Group_construct_nb("c04-nb", all, n, DIRS(&d), info_cb, &w);
    if (PMIX_SUCCESS != rc) {
        DIE("construct_nb c04-nb: %s", ESTR(rc));
    }
    if (!waiter_wait(&w, 20)) {
        DIE("construct_nb c04-nb: no callback in 20 s");
    }
    if (PMIX_SUCCESS != w.status) {
        DIE("construct_nb c04-nb: callback status %s", ESTR(w.status));
    }
    CHECK(1 == w.calls, "construct_nb called back %d times", w.calls);
    CHECK_RESULTS("construct_nb c04-nb", w.results, w.nresults, all, n, CID_REQUIRED);
    waiter_reset(&w);

    STEP("refused construct");
    pmix_info_t *res = NULL;
    size_t nres = 0;
    size_t no = all_but(others, me.rank);
    rc = PMIx_Group_construct("c04-bad", others, no, DIRS(&d), &res, &nres);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "construct without myself: %s, want BAD_PARAM", ESTR(rc));
    CHECK(0 == nres, "%zu results from a failed construct", nres);
    dirs_free(&d);

    DESTRUCT_OK("c04-nb");
    DESTRUCT_OK("c04");
}

/* 5: context ids: equal on every member, distinct between groups that
 * exist at once, assigned when any participant asks. */
static void c05_context_ids(void)
{
    pmix_proc_t all[MAXP];
    size_t n = all_procs(all);
    dirs_t d = {0}, none = {0};
    need_ranks(2);
    dirs_bool(&d, PMIX_GROUP_ASSIGN_CONTEXT_ID);

    grpres_t a = CONSTRUCT_OK("c05-a", all, n, DIRS(&d), all, n, CID_REQUIRED);
    grpres_t b = CONSTRUCT_OK("c05-b", all, n, DIRS(&d), all, n, CID_REQUIRED);
    CHECK(a.cid != b.cid, "c05-a and c05-b share context id %llu", (unsigned long long) a.cid);
    /* only rank 0 asks */
    grpres_t c = 0 == me.rank ? CONSTRUCT_OK("c05-c", all, n, DIRS(&d), all, n, CID_REQUIRED)
                              : CONSTRUCT_OK("c05-c", all, n, DIRS(&none), all, n, CID_REQUIRED);
    CHECK(c.cid != a.cid && c.cid != b.cid, "c05-c reuses a live context id %llu",
          (unsigned long long) c.cid);

    check_same_everywhere("c05.cid.a", a.cid);
    check_same_everywhere("c05.cid.b", b.cid);
    check_same_everywhere("c05.cid.c", c.cid);

    DESTRUCT_OK("c05-a");
    DESTRUCT_OK("c05-b");
    /* c05-c lives on: a new group must not get its id */
    grpres_t e = CONSTRUCT_OK("c05-d", all, n, DIRS(&d), all, n, CID_REQUIRED);
    CHECK(e.cid != c.cid, "c05-d got the context id of live c05-c (%llu)",
          (unsigned long long) c.cid);
    check_same_everywhere("c05.cid.d", e.cid);
    DESTRUCT_OK("c05-c");
    DESTRUCT_OK("c05-d");
    dirs_free(&d);
}

/* 6: every member sees the same membership order (sorted by namespace,
 * rank) whatever order it listed, so {grp, i} names the same process
 * everywhere. */
static void c06_membership_order(void)
{
    pmix_proc_t all[MAXP], perm[MAXP], pair[2], pair_sorted[2];
    size_t n = all_procs(all);
    need_ranks(2);

    put_u64("c06.rank", me.rank);
    commit();

    /* a pseudo-random permutation seeded by my rank */
    memcpy(perm, all, n * sizeof(pmix_proc_t));
    uint32_t s = 2654435761u * (me.rank + 1);
    for (size_t i = n - 1; i > 0; i--) {
        s = s * 1103515245u + 12345u;
        size_t j = (s >> 8) % (i + 1);
        pmix_proc_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    grpres_t g = CONSTRUCT_OK("c06", perm, n, NULL, 0, all, n, CID_ANY);
    STEP("get through {c06, i}");
    for (uint32_t i = 0; i < g.nmembers; i++) {
        pmix_proc_t p;
        pmix_value_t *v;
        uint64_t x = 0;
        load_proc(&p, "c06", i);
        pmix_status_t rc = get_bounded(&p, "c06.rank", NULL, &v);
        if (PMIX_SUCCESS != rc) {
            FAIL("get {c06, %u} c06.rank: %s", i, ESTR(rc));
            continue;
        }
        CHECK(as_u64(v, &x) && x == g.members[i].rank, "{c06, %u} is rank %llu, want %u", i,
              (unsigned long long) x, g.members[i].rank);
        PMIX_VALUE_RELEASE(v);
    }

    /* the first and last ranks, listed in opposite orders */
    if (0 == me.rank || N - 1 == me.rank) {
        load_proc(&pair_sorted[0], me.nspace, 0);
        load_proc(&pair_sorted[1], me.nspace, N - 1);
        pair[0] = pair_sorted[0 == me.rank ? 1 : 0];
        pair[1] = pair_sorted[0 == me.rank ? 0 : 1];
        CONSTRUCT_OK("c06-pair", pair, 2, NULL, 0, pair_sorted, 2, CID_ANY);
        pmix_proc_t p;
        pmix_value_t *v;
        uint64_t x = 0;
        load_proc(&p, "c06-pair", 1);
        pmix_status_t rc = get_bounded(&p, "c06.rank", NULL, &v);
        if (PMIX_SUCCESS != rc) {
            FAIL("get {c06-pair, 1}: %s", ESTR(rc));
        } else {
            CHECK(as_u64(v, &x) && x == N - 1, "{c06-pair, 1} is rank %llu, want %u",
                  (unsigned long long) x, N - 1);
            PMIX_VALUE_RELEASE(v);
        }
        DESTRUCT_OK("c06-pair");
    }
    DESTRUCT_OK("c06");
}

/* 7: {grp, WILDCARD} is a fence over the members, {grp, r} is member r,
 * r >= size is PMIX_ERR_BAD_PARAM. */
static void c07_group_fence(void)
{
    pmix_proc_t all[MAXP], sub[MAXP], two[2];
    size_t n = all_procs(all);
    pmix_status_t rc;
    need_ranks(2);

    CONSTRUCT_OK("c07", all, n, NULL, 0, all, n, CID_ANY);
    STEP("fence {c07, WILDCARD}");
    rc = group_fence("c07", PMIX_RANK_WILDCARD, 20);
    if (PMIX_SUCCESS != rc) {
        DIE("fence {c07, WILDCARD}: %s", HUNG == rc ? "no answer in 20 s" : ESTR(rc));
    }
    STEP("blocking fence {c07, WILDCARD} with data");
    {
        pmix_proc_t p;
        dirs_t d = {0};
        load_proc(&p, "c07", PMIX_RANK_WILDCARD);
        dirs_bool(&d, PMIX_COLLECT_DATA);
        rc = PMIx_Fence(&p, 1, DIRS(&d));
        dirs_free(&d);
        if (PMIX_SUCCESS != rc) {
            DIE("PMIx_Fence {c07, WILDCARD} collecting: %s", ESTR(rc));
        }
    }
    STEP("fence {c07, size}");
    rc = group_fence("c07", N, 5);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "fence {c07, %u} (size %u): %s, want BAD_PARAM", N, N,
          HUNG == rc ? "no answer" : ESTR(rc));
    rc = group_fence("c07", N + 5, 5);
    CHECK(PMIX_ERR_BAD_PARAM == rc, "fence {c07, %u}: %s, want BAD_PARAM", N + 5,
          HUNG == rc ? "no answer" : ESTR(rc));

    /* members 0 and N-1 alone, named by group rank */
    if (0 == me.rank || N - 1 == me.rank) {
        STEP("fence {c07,0},{c07,last}");
        load_proc(&two[0], "c07", 0);
        load_proc(&two[1], "c07", N - 1);
        rc = fence_bounded(two, 2, false, 20);
        CHECK(PMIX_SUCCESS == rc, "fence {c07,0},{c07,%u}: %s", N - 1,
              HUNG == rc ? "no answer in 20 s" : ESTR(rc));
    }

    /* a group of every rank but 0: its fence involves its members only */
    if (0 != me.rank) {
        size_t ns = all_but(sub, 0);
        CONSTRUCT_OK("c07-sub", sub, ns, NULL, 0, sub, ns, CID_ANY);
        STEP("fence {c07-sub, WILDCARD}");
        rc = group_fence("c07-sub", PMIX_RANK_WILDCARD, 20);
        CHECK(PMIX_SUCCESS == rc, "fence {c07-sub, WILDCARD}: %s",
              HUNG == rc ? "no answer in 20 s (does it wait for a non-member?)" : ESTR(rc));
        rc = group_fence("c07-sub", ns, 5);
        CHECK(PMIX_ERR_BAD_PARAM == rc, "fence {c07-sub, %zu}: %s, want BAD_PARAM", ns,
              HUNG == rc ? "no answer" : ESTR(rc));
        DESTRUCT_OK("c07-sub");
    }
    DESTRUCT_OK("c07");
}

/* 7, 8: what members put before the construct is read after it, through
 * {grp, r} and through the real process; later data by direct modex. */
static void c08_group_data(void)
{
    pmix_proc_t all[MAXP];
    size_t n = all_procs(all);
    char want[64], buf[64];
    pmix_status_t rc;
    need_ranks(2);

    snprintf(buf, sizeof(buf), "early-%u", me.rank);
    put_str("c08.early", buf);
    commit();
    grpres_t g = CONSTRUCT_OK("c08", all, n, NULL, 0, all, n, CID_ANY);

    STEP("get early data");
    for (uint32_t i = 0; i < g.nmembers; i++) {
        char who[64];
        snprintf(want, sizeof(want), "early-%u", g.members[i].rank);
        expect_member_string("c08", i, "c08.early", want);
        snprintf(who, sizeof(who), "rank %u c08.early", g.members[i].rank);
        expect_string(&g.members[i], "c08.early", NULL, want, who);
    }
    STEP("get {c08, size}");
    {
        pmix_proc_t p;
        pmix_value_t *v = NULL;
        load_proc(&p, "c08", N);
        rc = get_bounded(&p, "c08.early", NULL, &v);
        CHECK(PMIX_ERR_BAD_PARAM == rc, "get {c08, %u} (size %u): %s, want BAD_PARAM", N, N,
              ESTR(rc));
        if (PMIX_SUCCESS == rc) {
            PMIX_VALUE_RELEASE(v);
        }
    }

    STEP("late data");
    snprintf(buf, sizeof(buf), "late-%u", me.rank);
    put_str("c08.late", buf);
    commit();
    rc = group_fence("c08", PMIX_RANK_WILDCARD, 20);
    if (PMIX_SUCCESS != rc) {
        DIE("fence {c08, WILDCARD}: %s", HUNG == rc ? "no answer in 20 s" : ESTR(rc));
    }
    {
        uint32_t i = (me.rank + 1) % N;
        snprintf(want, sizeof(want), "late-%u", g.members[i].rank);
        expect_member_string("c08", i, "c08.late", want);
    }
    /* nobody destructs before everyone read */
    rc = group_fence("c08", PMIX_RANK_WILDCARD, 20);
    if (PMIX_SUCCESS != rc) {
        DIE("fence {c08, WILDCARD}: %s", HUNG == rc ? "no answer in 20 s" : ESTR(rc));
    }
    DESTRUCT_OK("c08");
}

/* 9: PMIX_GROUP_INFO given at construct is shared: a peer's
 * PMIX_GROUP_LOCAL_CID (and another key) read with a get qualified by
 * PMIX_GROUP_CONTEXT_ID. */
static void c09_group_info(void)
{
    pmix_proc_t all[MAXP];
    size_t n = all_procs(all);
    dirs_t d = {0};
    pmix_data_array_t da;
    size_t lcid = 1000 + me.rank;
    char str[64];
    need_ranks(2);

    dirs_bool(&d, PMIX_GROUP_ASSIGN_CONTEXT_ID);
    PMIX_DATA_ARRAY_CONSTRUCT(&da, 2, PMIX_INFO);
    pmix_info_t *gi = (pmix_info_t *) da.array;
    snprintf(str, sizeof(str), "info-of-%u", me.rank);
    PMIX_INFO_LOAD(&gi[0], PMIX_GROUP_LOCAL_CID, &lcid, PMIX_SIZE);
    PMIX_INFO_LOAD(&gi[1], "c09.key", str, PMIX_STRING);
    PMIX_INFO_LOAD(&d.info[d.n], PMIX_GROUP_INFO, &da, PMIX_DATA_ARRAY);
    d.n++;
    PMIX_DATA_ARRAY_DESTRUCT(&da);

    grpres_t g = CONSTRUCT_OK("c09", all, n, DIRS(&d), all, n, CID_REQUIRED);
    dirs_free(&d);

    STEP("get PMIX_GROUP_LOCAL_CID");
    pmix_info_t q;
    size_t cid = (size_t) g.cid;
    PMIX_INFO_LOAD(&q, PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
    PMIX_INFO_SET_QUALIFIER(&q);
    for (uint32_t r = 0; r < N; r++) {
        pmix_proc_t p;
        pmix_value_t *v;
        uint64_t x = 0;
        load_proc(&p, me.nspace, r);
        pmix_status_t rc = get_bounded(&p, PMIX_GROUP_LOCAL_CID, &q, &v);
        if (PMIX_SUCCESS != rc) {
            FAIL("get PMIX_GROUP_LOCAL_CID of rank %u (context id %zu): %s", r, cid, ESTR(rc));
        } else {
            CHECK(as_u64(v, &x) && x == 1000 + r, "LOCAL_CID of rank %u = %llu, want %u", r,
                  (unsigned long long) x, 1000 + r);
            PMIX_VALUE_RELEASE(v);
        }
        char want[64], who[96];
        snprintf(want, sizeof(want), "info-of-%u", r);
        snprintf(who, sizeof(who), "c09.key of rank %u (context id %zu)", r, cid);
        expect_string(&p, "c09.key", &q, want, who);
    }
    PMIX_INFO_DESTRUCT(&q);
    /* nobody destructs before everyone read */
    pmix_status_t rc = group_fence("c09", PMIX_RANK_WILDCARD, 20);
    if (PMIX_SUCCESS != rc) {
        DIE("fence {c09, WILDCARD}: %s", HUNG == rc ? "no answer in 20 s" : ESTR(rc));
    }
    DESTRUCT_OK("c09");
}

/* The status of a non-blocking construct: its immediate error or its
 * callback's status (HUNG if none within secs). */
static pmix_status_t construct_nb_bounded(const char *grp, const pmix_proc_t *procs, size_t n,
                                          const pmix_info_t *dirs, size_t ndirs, double secs)
{
    waiter_t *w = waiter_new();
    pmix_status_t rc = PMIx_Group_construct_nb(grp, procs, n, dirs, ndirs, info_cb, w);
    if (PMIX_SUCCESS != rc) {
        waiter_reset(w);
        free(w);
        return rc;
    }
    rc = waiter_wait(w, secs) ? w->status : HUNG;
    waiter_release(w);
    return rc;
}

/* The status of a non-blocking destruct, as construct_nb_bounded. */
static pmix_status_t destruct_nb_bounded(const char *grp, double secs, int *calls)
{
    waiter_t *w = waiter_new();
    pmix_status_t rc = PMIx_Group_destruct_nb(grp, NULL, 0, op_cb, w);
    if (PMIX_SUCCESS != rc) {
        waiter_reset(w);
        free(w);
        return PMIX_OPERATION_SUCCEEDED == rc ? PMIX_SUCCESS : rc;
    }
    rc = waiter_wait(w, secs) ? w->status : HUNG;
    if (HUNG != rc) {
        sleep_ms(50);
        *calls = w->calls;
    }
    waiter_release(w);
    return rc;
}

/* 11: one process in two constructs at once with distinct ids (the
 * non-blocking forms, started in rank-dependent order); overlapping
 * groups; a caller that is not in its own list is refused. */
static void c11_concurrent_groups(void)
{
    pmix_proc_t all[MAXP], others[MAXP], pair[2];
    size_t n = all_procs(all);
    dirs_t d = {0};
    waiter_t wa, wb, wc;
    pmix_status_t rc;
    need_ranks(2);
    dirs_bool(&d, PMIX_GROUP_ASSIGN_CONTEXT_ID);
    waiter_init(&wa);
    waiter_init(&wb);
    waiter_init(&wc);

    STEP("two constructs at once");
    for (int k = 0; k < 2; k++) {
        bool a_first = 0 == (me.rank & 1);
        bool do_a = (0 == k) == a_first;
        rc = PMIx_Group_construct_nb(do_a ? "c11-a" : "c11-b", all, n, DIRS(&d), info_cb,
                                     do_a ? &wa : &wb);
        if (PMIX_SUCCESS != rc) {
            DIE("construct_nb %s: %s", do_a ? "c11-a" : "c11-b", ESTR(rc));
        }
    }
    /* ranks 0 and 1 also build a pair group meanwhile */
    if (me.rank < 2) {
        load_proc(&pair[0], me.nspace, 0);
        load_proc(&pair[1], me.nspace, 1);
        rc = PMIx_Group_construct_nb("c11-pair", pair, 2, DIRS(&d), info_cb, &wc);
        if (PMIX_SUCCESS != rc) {
            DIE("construct_nb c11-pair: %s", ESTR(rc));
        }
    }
    if (!waiter_wait(&wa, 20) || !waiter_wait(&wb, 20)) {
        DIE("construct_nb c11-a/c11-b: no callback in 20 s");
    }
    if (PMIX_SUCCESS != wa.status || PMIX_SUCCESS != wb.status) {
        DIE("construct_nb c11-a: %s, c11-b: %s", ESTR(wa.status), ESTR(wb.status));
    }
    grpres_t a = CHECK_RESULTS("c11-a", wa.results, wa.nresults, all, n, CID_REQUIRED);
    grpres_t b = CHECK_RESULTS("c11-b", wb.results, wb.nresults, all, n, CID_REQUIRED);
    CHECK(a.cid != b.cid, "c11-a and c11-b share context id %llu", (unsigned long long) a.cid);
    if (me.rank < 2) {
        if (!waiter_wait(&wc, 20)) {
            DIE("construct_nb c11-pair: no callback in 20 s");
        }
        if (PMIX_SUCCESS != wc.status) {
            DIE("construct_nb c11-pair: %s", ESTR(wc.status));
        }
        grpres_t c = CHECK_RESULTS("c11-pair", wc.results, wc.nresults, pair, 2, CID_REQUIRED);
        CHECK(c.cid != a.cid && c.cid != b.cid, "c11-pair reuses a live context id %llu",
              (unsigned long long) c.cid);
    }
    check_same_everywhere("c11.cid.a", a.cid);
    check_same_everywhere("c11.cid.b", b.cid);

    STEP("caller not in its list");
    {
        pmix_info_t *res = NULL;
        size_t nres = 0;
        size_t no = all_but(others, me.rank);
        rc = PMIx_Group_construct("c11-x", others, no, NULL, 0, &res, &nres);
        CHECK(PMIX_ERR_BAD_PARAM == rc, "construct of a list without me: %s, want BAD_PARAM",
              ESTR(rc));
        rc = construct_nb_bounded("c11-y", others, no, NULL, 0, 5);
        CHECK(PMIX_ERR_BAD_PARAM == rc, "construct_nb of a list without me: %s, want BAD_PARAM",
              HUNG == rc ? "no answer" : ESTR(rc));
    }
    dirs_free(&d);
    if (me.rank < 2) {
        DESTRUCT_OK("c11-pair");
    }
    DESTRUCT_OK("c11-b");
    DESTRUCT_OK("c11-a");
}

/* This leader's share of ranks first..N-1 when nleaders share them out
 * round robin (rank r goes to leader r % nleaders), into add; returns
 * how many. */
static size_t share_of(pmix_proc_t *add, uint32_t first, uint32_t nleaders)
{
    size_t na = 0;
    for (uint32_t r = first; r < N; r++) {
        if (r % nleaders == me.rank) {
            load_proc(&add[na++], me.nspace, r);
        }
    }
    return na;
}

/* 13: bootstrap: ranks 0 and 1 lead, each passing only itself, the number
 * of leaders ("pmix.grp.btstrp" = 2) and PMIX_GROUP_ADD_MEMBERS naming its
 * share of the others; the others call with no procs. */
static void c13_bootstrap(void)
{
    pmix_proc_t all[MAXP], add[MAXP], self;
    size_t n = all_procs(all);
    dirs_t d = {0};
    need_ranks(2);
    grpres_t g;

    if (me.rank < 2) {
        size_t na = share_of(add, 2, 2);
        load_proc(&self, me.nspace, me.rank);
        dirs_size(&d, PMIX_GROUP_BOOTSTRAP, 2);
        dirs_bool(&d, PMIX_GROUP_ASSIGN_CONTEXT_ID);
        if (na > 0) {
            dirs_procs(&d, PMIX_GROUP_ADD_MEMBERS, add, na);
        }
        g = CONSTRUCT_OK("c13", &self, 1, DIRS(&d), all, n, CID_REQUIRED);
        dirs_free(&d);
    } else {
        g = CONSTRUCT_OK("c13", NULL, 0, NULL, 0, all, n, CID_REQUIRED);
    }
    check_same_everywhere("c13.cid", g.cid);
    STEP("fence {c13, WILDCARD}");
    FENCE_THEN_DESTRUCT("c13", "", 20);
}

/* 14: add-members in a collective construct: the leaders list each other
 * plus PMIX_GROUP_ADD_MEMBERS; the added call with the id only. */
static void c14_add_members(void)
{
    pmix_proc_t all[MAXP], leaders[2], add[MAXP];
    size_t n = all_procs(all);
    uint32_t nl = N >= 3 ? 2 : 1;
    dirs_t d = {0};
    need_ranks(2);

    if (me.rank < nl) {
        size_t na = share_of(add, nl, nl);
        /* leader 1 lists the leaders backwards */
        for (uint32_t i = 0; i < nl; i++) {
            load_proc(&leaders[i], me.nspace, me.rank ? nl - 1 - i : i);
        }
        if (na > 0) {
            dirs_procs(&d, PMIX_GROUP_ADD_MEMBERS, add, na);
        }
        CONSTRUCT_OK("c14", leaders, nl, DIRS(&d), all, n, CID_ANY);
        dirs_free(&d);
    } else {
        CONSTRUCT_OK("c14", NULL, 0, NULL, 0, all, n, CID_ANY);
    }
    STEP("fence {c14, WILDCARD}");
    FENCE_THEN_DESTRUCT("c14", "", 20);
}

/* 15: PMIX_TIMEOUT on construct: the last rank never calls; the others
 * get PMIX_ERR_TIMEOUT after about a second; then the late rank calls and
 * must get an error promptly, not hang and not form a group. */
static void c15_construct_timeout(void)
{
    pmix_proc_t all[MAXP];
    size_t n = all_procs(all);
    uint32_t late = N - 1;
    need_ranks(2);

    if (me.rank != late) {
        dirs_t d = {0};
        pmix_info_t *res = NULL;
        size_t nres = 0;
        dirs_int(&d, PMIX_TIMEOUT, 1);
        STEP("construct with PMIX_TIMEOUT 1");
        double t0 = now_s();
        pmix_status_t rc = PMIx_Group_construct("c15", all, n, DIRS(&d), &res, &nres);
        double dt = now_s() - t0;
        dirs_free(&d);
        CHECK(PMIX_ERR_TIMEOUT == rc, "construct with a missing member: %s (%d), want "
              "PMIX_ERR_TIMEOUT", ESTR(rc), rc);
        CHECK(0 == nres, "%zu results from a timed-out construct", nres);
        CHECK(dt >= 0.5 && dt < 6, "timed out after %.2f s, want about 1 s", dt);
        if (NULL != res) {
            PMIX_INFO_FREE(res, nres);
        }
    }
    JOB_FENCE();
    if (me.rank == late) {
        STEP("late construct");
        double t0 = now_s();
        pmix_status_t rc = construct_nb_bounded("c15", all, n, NULL, 0, 4);
        if (HUNG == rc) {
            DIE("the late construct of a timed-out group hangs (no answer in 4 s)");
        }
        CHECK(PMIX_SUCCESS != rc && PMIX_ERR_PARTIAL_SUCCESS != rc,
              "the late construct formed a group alone (%s)", ESTR(rc));
        CHECK(now_s() - t0 < 3, "the late construct took %.2f s", now_s() - t0);
    }
    JOB_FENCE();
}

/* 15: PMIX_TIMEOUT on destruct: the last member never calls it. */
static void c15_destruct_timeout(void)
{
    pmix_proc_t all[MAXP];
    size_t n = all_procs(all);
    uint32_t late = N - 1;
    need_ranks(2);

    CONSTRUCT_OK("c15d", all, n, NULL, 0, all, n, CID_ANY);
    JOB_FENCE();
    if (me.rank != late) {
        dirs_t d = {0};
        dirs_int(&d, PMIX_TIMEOUT, 1);
        STEP("destruct with PMIX_TIMEOUT 1");
        double t0 = now_s();
        pmix_status_t rc = PMIx_Group_destruct("c15d", DIRS(&d));
        double dt = now_s() - t0;
        dirs_free(&d);
        CHECK(PMIX_ERR_TIMEOUT == rc, "destruct with a missing member: %s (%d), want "
              "PMIX_ERR_TIMEOUT", ESTR(rc), rc);
        CHECK(dt >= 0.5 && dt < 6, "timed out after %.2f s, want about 1 s", dt);
    }
    JOB_FENCE();
}

/* Checks a join's results: membership `want`, and PMIX_GROUP_ID `grp`. */
static void check_join_results(int line, const char *what, const waiter_t *w, const char *grp,
                               const pmix_proc_t *want, size_t nwant)
{
    grpres_t g = check_results_at(line, what, w->results, w->nresults, want, nwant, CID_ANY);
    if (!g.has_id) {
        fail_at(line, "%s: no PMIX_GROUP_ID in the join's results", what);
    } else if (0 != strcmp(g.id, grp)) {
        fail_at(line, "%s: PMIX_GROUP_ID %s, want %s", what, g.id, grp);
    }
}

/* Who an INVITE_ACCEPTED/DECLINED/FAILED event is about. */
static const pmix_proc_t *event_invitee(const event_t *e)
{
    return e->has_affected ? &e->affected : &e->source;
}

/* Checks that the leader got one `code` event about each of who[], about grp. */
static void check_invitee_events(int line, pmix_status_t code, const char *grp,
                                 const pmix_proc_t *who, size_t nwho, double secs)
{
    if (!wait_events(code, grp, nwho, secs, NULL)) {
        fail_at(line, "%s about %s: %zu of %zu in %.0f s", PMIx_Error_string(code), grp,
                count_events(code, grp), nwho, secs);
        return;
    }
    for (size_t i = 0; i < nwho; i++) {
        bool found = false;
        event_t e;
        for (size_t k = 0; nth_event(code, grp, k, &e); k++) {
            if (same_proc(event_invitee(&e), &who[i])) {
                found = true;
            }
        }
        if (!found) {
            fail_at(line, "no %s about %s:%u", PMIx_Error_string(code), who[i].nspace,
                    who[i].rank);
        }
    }
}

/* Checks the CONSTRUCT_COMPLETE event about grp: its membership. */
static void check_complete_event(int line, const char *grp, const pmix_proc_t *want,
                                 size_t nwant)
{
    event_t e;
    char a[1024], b[1024];
    if (!wait_events(PMIX_GROUP_CONSTRUCT_COMPLETE, grp, 1, 10, &e)) {
        fail_at(line, "no PMIX_GROUP_CONSTRUCT_COMPLETE about %s in 10 s", grp);
        return;
    }
    if (!e.has_members) {
        fail_at(line, "PMIX_GROUP_CONSTRUCT_COMPLETE about %s without PMIX_GROUP_MEMBERSHIP",
                grp);
        return;
    }
    bool same = e.nmembers == nwant;
    for (size_t i = 0; same && i < nwant; i++) {
        same = same_proc(&e.members[i], &want[i]);
    }
    procs_str(a, sizeof(a), e.members, e.nmembers);
    procs_str(b, sizeof(b), want, nwant);
    if (!same) {
        fail_at(line, "PMIX_GROUP_CONSTRUCT_COMPLETE about %s: membership [%s], want [%s]", grp,
                a, b);
    }
}

/* Invitee side: wait for the invitation and check it. */
static void check_invited(int line, const char *grp, uint32_t leader)
{
    event_t e;
    if (!wait_events(PMIX_GROUP_INVITED, grp, 1, 10, &e)) {
        fail_at(line, "no PMIX_GROUP_INVITED about %s in 10 s", grp);
        fflush(stdout);
        exit(1);
    }
    if (e.source.rank != leader || 0 != strcmp(e.source.nspace, me.nspace)) {
        fail_at(line, "PMIX_GROUP_INVITED from %s:%u, want the leader (rank %u)",
                e.source.nspace, e.source.rank, leader);
    }
}

/* A join's status when the group completed without some invitee: it
 * joined, so PMIX_SUCCESS (it was PMIX_ERR_PARTIAL_SUCCESS, issue 21). */
#define JOINED(rc) (PMIX_SUCCESS == (rc))

/* The status PMIx_Group_join_nb returned in the invite handler (HUNG if
 * the handler did not call it within secs). */
static pmix_status_t handler_join_rc(double secs)
{
    struct timespec dl = deadline_in(secs);
    int rc = 0;
    pthread_mutex_lock(&ev_mu);
    while (-99999 == join_rc && 0 == rc) {
        rc = pthread_cond_timedwait(&ev_cv, &ev_mu, &dl);
    }
    pmix_status_t jr = join_rc;
    pthread_mutex_unlock(&ev_mu);
    return -99999 == jr ? HUNG : jr;
}

/* Waits for the join the invite handler started; its status. */
static pmix_status_t handler_join_status(double secs)
{
    pmix_status_t jr = handler_join_rc(secs);
    if (PMIX_SUCCESS != jr) {
        return jr;
    }
    if (!waiter_wait(&join_w, secs)) {
        return HUNG;
    }
    return join_w.status;
}

/* 21, 22: invite/join. Rank 0 invites the others; odd invitees accept from
 * their PMIX_GROUP_INVITED handler with PMIx_Group_join_nb, even ones with
 * the blocking PMIx_Group_join from the main thread (`nocb`: every invitee
 * accepts from its handler with PMIx_Group_join_nb and no callback). The leader gets an
 * INVITE_ACCEPTED per invitee and its invite returns the membership; every
 * member gets PMIX_GROUP_CONSTRUCT_COMPLETE; the joins return the id and
 * the membership. `nb`: the leader uses PMIx_Group_invite_nb. */
static void invite_join(const char *grp, bool nb, bool nocb)
{
    pmix_proc_t all[MAXP], invitees[MAXP], leader;
    size_t n = all_procs(all);
    size_t ni = all_but(invitees, 0);
    pmix_status_t rc;
    char what[128];
    need_ranks(2);
    load_proc(&leader, me.nspace, 0);
    invite_policy = 0 == me.rank ? INV_NONE
                    : nocb       ? INV_ACCEPT_NOCB
                    : (me.rank & 1) ? INV_ACCEPT_NB
                                    : INV_DEFER;
    JOB_FENCE(); /* every handler is in place before the invitation */

    if (0 == me.rank) {
        STEP("invite");
        if (nb) {
            waiter_t w;
            waiter_init(&w);
            rc = PMIx_Group_invite_nb(grp, invitees, ni, NULL, 0, info_cb, &w);
            if (PMIX_SUCCESS != rc) {
                DIE("invite_nb %s: %s", grp, ESTR(rc));
            }
            if (!waiter_wait(&w, 20)) {
                DIE("invite_nb %s: no callback in 20 s", grp);
            }
            if (PMIX_SUCCESS != w.status) {
                DIE("invite_nb %s: callback status %s", grp, ESTR(w.status));
            }
            CHECK(1 == w.calls, "invite_nb called back %d times", w.calls);
            snprintf(what, sizeof(what), "invite_nb %s", grp);
            CHECK_RESULTS(what, w.results, w.nresults, all, n, CID_ANY);
            waiter_reset(&w);
        } else {
            pmix_info_t *res = NULL;
            size_t nres = 0;
            rc = PMIx_Group_invite(grp, invitees, ni, NULL, 0, &res, &nres);
            if (PMIX_SUCCESS != rc) {
                DIE("invite %s: %s", grp, ESTR(rc));
            }
            snprintf(what, sizeof(what), "invite %s", grp);
            CHECK_RESULTS(what, res, nres, all, n, CID_ANY);
            if (NULL != res) {
                PMIX_INFO_FREE(res, nres);
            }
        }
        check_invitee_events(__LINE__, PMIX_GROUP_INVITE_ACCEPTED, grp, invitees, ni, 10);
        CHECK(0 == count_events(PMIX_GROUP_INVITE_DECLINED, grp)
                  && 0 == count_events(PMIX_GROUP_INVITE_FAILED, grp),
              "declined/failed events though every invitee accepted");
    } else {
        STEP("invited");
        check_invited(__LINE__, grp, 0);
        snprintf(what, sizeof(what), "join %s", grp);
        if (INV_ACCEPT_NOCB == invite_policy) {
            STEP("join_nb without a callback from the handler");
            rc = handler_join_rc(20);
            if (PMIX_SUCCESS != rc) {
                DIE("join_nb %s without a callback: %s", grp,
                    HUNG == rc ? "not called in 20 s" : ESTR(rc));
            }
        } else if (INV_DEFER == invite_policy) {
            pmix_info_t *res = NULL;
            size_t nres = 0;
            STEP("blocking join");
            rc = PMIx_Group_join(grp, &leader, PMIX_GROUP_ACCEPT, NULL, 0, &res, &nres);
            if (PMIX_SUCCESS != rc) {
                DIE("join %s: %s", grp, ESTR(rc));
            }
            waiter_t fake;
            waiter_init(&fake);
            fake.results = res;
            fake.nresults = nres;
            check_join_results(__LINE__, what, &fake, grp, all, n);
            waiter_reset(&fake);
        } else {
            STEP("join_nb from the handler");
            rc = handler_join_status(20);
            if (PMIX_SUCCESS != rc) {
                DIE("join_nb %s: %s", grp, HUNG == rc ? "no answer in 20 s" : ESTR(rc));
            }
            check_join_results(__LINE__, what, &join_w, grp, all, n);
        }
    }
    STEP("construct complete event");
    check_complete_event(__LINE__, grp, all, n);
    STEP("group fence");
    FENCE_THEN_DESTRUCT(grp, "", 20);
}

static void c21_invite_join(void) { invite_join("c21", false, false); }
static void c21_join_nb_without_callback(void) { invite_join("c21n", false, true); }
static void c22_invite_nb(void) { invite_join("c22", true, false); }

/* 23: the last rank declines. Without PMIX_GROUP_OPTIONAL the invite
 * aborts: the leader's invite returns PMIX_GROUP_CONSTRUCT_ABORT (after an
 * INVITE_DECLINED event and the CONSTRUCT_ABORT event), the accepters get
 * the CONSTRUCT_ABORT event and their joins fail. With it (`optional`):
 * PMIX_SUCCESS (as OpenPMIx's), after an INVITE_FAILED event about the
 * decliner (as OpenPMIx master), and the accepters as the members. */
static void decline(const char *grp, bool optional)
{
    pmix_proc_t all[MAXP], invitees[MAXP], members[MAXP], decliner;
    size_t n = all_procs(all);
    size_t ni = all_but(invitees, 0);
    uint32_t dr = N - 1;
    size_t nm = all_but(members, dr);
    pmix_status_t rc;
    char what[128];
    (void) n;
    need_ranks(2);
    load_proc(&decliner, me.nspace, dr);
    invite_policy = 0 == me.rank ? INV_NONE : me.rank == dr ? INV_DECLINE_NB : INV_ACCEPT_NB;
    JOB_FENCE();

    if (0 == me.rank) {
        dirs_t d = {0};
        pmix_info_t *res = NULL;
        size_t nres = 0;
        if (optional) {
            dirs_bool(&d, PMIX_GROUP_OPTIONAL);
        }
        STEP("invite");
        rc = PMIx_Group_invite(grp, invitees, ni, DIRS(&d), &res, &nres);
        dirs_free(&d);
        if (optional) {
            CHECK(PMIX_SUCCESS == rc, "invite %s with a decliner, optional: %s, "
                  "want PMIX_SUCCESS", grp, ESTR(rc));
            snprintf(what, sizeof(what), "invite %s", grp);
            CHECK_RESULTS(what, res, nres, members, nm, CID_ANY);
        } else {
            CHECK(PMIX_GROUP_CONSTRUCT_ABORT == rc, "invite %s with a decliner: %s (%d), want "
                  "PMIX_GROUP_CONSTRUCT_ABORT", grp, ESTR(rc), rc);
            CHECK(0 == nres, "%zu results from an aborted invite", nres);
        }
        if (NULL != res) {
            PMIX_INFO_FREE(res, nres);
        }
        /* The outcome's events reach the leader's handlers before its invite
         * returns (OpenPMIx master): the decliner reported as failed too when
         * the group forms without it, the abort event when it does not. */
        if (optional) {
            CHECK(1 == count_events(PMIX_GROUP_INVITE_FAILED, grp),
                  "%zu PMIX_GROUP_INVITE_FAILED events about %s when the invite returned, want 1",
                  count_events(PMIX_GROUP_INVITE_FAILED, grp), grp);
        } else {
            CHECK(1 == count_events(PMIX_GROUP_CONSTRUCT_ABORT, grp),
                  "%zu PMIX_GROUP_CONSTRUCT_ABORT events about %s at the leader when its invite "
                  "returned, want 1", count_events(PMIX_GROUP_CONSTRUCT_ABORT, grp), grp);
        }
        check_invitee_events(__LINE__, PMIX_GROUP_INVITE_DECLINED, grp, &decliner, 1, 10);
    } else if (me.rank == dr) {
        check_invited(__LINE__, grp, 0);
        STEP("decline");
        rc = handler_join_status(10);
        CHECK(PMIX_SUCCESS == rc, "join_nb DECLINE: %s, want PMIX_SUCCESS",
              HUNG == rc ? "no answer in 10 s" : ESTR(rc));
    } else {
        check_invited(__LINE__, grp, 0);
        STEP("accept");
        rc = handler_join_status(10);
        if (optional) {
            CHECK(JOINED(rc), "join_nb ACCEPT: %s, want PMIX_SUCCESS",
                  HUNG == rc ? "no answer in 10 s" : ESTR(rc));
            if (JOINED(rc)) {
                snprintf(what, sizeof(what), "join %s", grp);
                check_join_results(__LINE__, what, &join_w, grp, members, nm);
            }
        } else {
            CHECK(PMIX_SUCCESS != rc && HUNG != rc, "join_nb ACCEPT of an aborted invite: %s, "
                  "want an error", HUNG == rc ? "no answer in 10 s" : ESTR(rc));
            STEP("abort event");
            CHECK(wait_events(PMIX_GROUP_CONSTRUCT_ABORT, grp, 1, 10, NULL),
                  "no PMIX_GROUP_CONSTRUCT_ABORT event about %s in 10 s", grp);
        }
    }
    if (optional && me.rank != dr) {
        STEP("construct complete event");
        check_complete_event(__LINE__, grp, members, nm);
    }
    JOB_FENCE();
    if (me.rank == dr) {
        CHECK(0 == count_events(PMIX_GROUP_CONSTRUCT_COMPLETE, grp),
              "the decliner got PMIX_GROUP_CONSTRUCT_COMPLETE about %s", grp);
    } else if (optional) {
        FENCE_THEN_DESTRUCT(grp, " of the accepters", 20);
    }
}

static void c23_decline_aborts(void) { decline("c23", false); }
static void c23_decline_optional(void) { decline("c23o", true); }

/* 15, 21: an invitee that does not answer within the invite's PMIX_TIMEOUT
 * counts as PMIX_GROUP_INVITE_FAILED; with PMIX_GROUP_OPTIONAL the invite
 * completes on the others (PMIX_SUCCESS, as OpenPMIx's). Its join afterwards
 * fails promptly. */
static void c15_invite_timeout(void)
{
    pmix_proc_t all[MAXP], invitees[MAXP], members[MAXP], silent, leader;
    size_t ni = all_but(invitees, 0);
    uint32_t sr = N - 1;
    size_t nm = all_but(members, sr);
    pmix_status_t rc;
    need_ranks(2);
    (void) all;
    load_proc(&silent, me.nspace, sr);
    load_proc(&leader, me.nspace, 0);
    invite_policy = 0 == me.rank || me.rank == sr ? INV_NONE : INV_ACCEPT_NB;
    JOB_FENCE();

    if (0 == me.rank) {
        dirs_t d = {0};
        pmix_info_t *res = NULL;
        size_t nres = 0;
        dirs_int(&d, PMIX_TIMEOUT, 1);
        dirs_bool(&d, PMIX_GROUP_OPTIONAL);
        STEP("invite with PMIX_TIMEOUT 1");
        double t0 = now_s();
        rc = PMIx_Group_invite("c15i", invitees, ni, DIRS(&d), &res, &nres);
        double dt = now_s() - t0;
        dirs_free(&d);
        CHECK(PMIX_SUCCESS == rc, "invite with a silent invitee, optional: %s, want "
              "PMIX_SUCCESS", ESTR(rc));
        CHECK(dt >= 0.5 && dt < 6, "the invite returned after %.2f s, want about 1 s", dt);
        CHECK_RESULTS("invite c15i", res, nres, members, nm, CID_ANY);
        if (NULL != res) {
            PMIX_INFO_FREE(res, nres);
        }
        check_invitee_events(__LINE__, PMIX_GROUP_INVITE_FAILED, "c15i", &silent, 1, 5);
    } else if (me.rank == sr) {
        check_invited(__LINE__, "c15i", 0);
    } else {
        check_invited(__LINE__, "c15i", 0);
        rc = handler_join_status(10);
        CHECK(JOINED(rc), "join_nb ACCEPT: %s", HUNG == rc ? "no answer" : ESTR(rc));
        if (JOINED(rc)) {
            check_join_results(__LINE__, "join c15i", &join_w, "c15i", members, nm);
        }
    }
    if (me.rank != sr) {
        check_complete_event(__LINE__, "c15i", members, nm);
    }
    JOB_FENCE();
    if (me.rank == sr) {
        waiter_t w;
        waiter_init(&w);
        STEP("late join");
        rc = PMIx_Group_join_nb("c15i", &leader, PMIX_GROUP_ACCEPT, NULL, 0, info_cb, &w);
        if (PMIX_SUCCESS == rc) {
            if (!waiter_wait(&w, 4)) {
                DIE("the late join of a completed invite hangs (no answer in 4 s)");
            }
            rc = w.status;
        }
        CHECK(PMIX_SUCCESS != rc, "the late join succeeded");
    }
    JOB_FENCE();
    if (me.rank != sr) {
        DESTRUCT_OK("c15i");
    }
}

/* Survivors of a fault scenario: until the end, as pmixrun signals us. */
static void survive_teardown(void)
{
    signal(SIGTERM, SIG_IGN);
}

/* 16: the last rank dies before contributing; no flags: every survivor's
 * construct fails with PMIX_GROUP_CONSTRUCT_ABORT, soon. */
static void c16_member_dies_abort(void)
{
    pmix_proc_t all[MAXP];
    size_t n = all_procs(all);
    need_ranks(2);
    LAST_RANK_DIES_AFTER_FENCE(500);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    STEP("construct with a dying member");
    double t0 = now_s();
    pmix_status_t rc = PMIx_Group_construct("c16", all, n, NULL, 0, &res, &nres);
    double dt = now_s() - t0;
    CHECK(PMIX_GROUP_CONSTRUCT_ABORT == rc, "construct with a member that died: %s (%d), want "
          "PMIX_GROUP_CONSTRUCT_ABORT", ESTR(rc), rc);
    CHECK(0 == nres, "%zu results from an aborted construct", nres);
    CHECK(dt < 2.5, "the abort took %.2f s (the member died 0.5 s in)", dt);
}

/* 16: the same with PMIX_GROUP_OPTIONAL: PMIX_ERR_PARTIAL_SUCCESS with the
 * survivors as the members; the group works. */
static void c16_member_dies_optional(void)
{
    pmix_proc_t all[MAXP], surv[MAXP];
    size_t n = all_procs(all);
    size_t ns = all_but(surv, N - 1);
    dirs_t d = {0};
    need_ranks(2);
    LAST_RANK_DIES_AFTER_FENCE(500);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    dirs_bool(&d, PMIX_GROUP_OPTIONAL);
    STEP("optional construct with a dying member");
    pmix_status_t rc = PMIx_Group_construct("c16o", all, n, DIRS(&d), &res, &nres);
    dirs_free(&d);
    if (PMIX_ERR_PARTIAL_SUCCESS != rc) {
        DIE("optional construct with a member that died: %s (%d), want "
            "PMIX_ERR_PARTIAL_SUCCESS", ESTR(rc), rc);
    }
    CHECK_RESULTS("construct c16o", res, nres, surv, ns, CID_ANY);
    if (NULL != res) {
        PMIX_INFO_FREE(res, nres);
    }
    FENCE_THEN_DESTRUCT("c16o", " of the survivors", 2);
}

/* 16: with PMIX_GROUP_NOTIFY_TERMINATION (no leader): the survivors are
 * in the construct (their requests precede a job fence the victim takes
 * part in) when the last rank dies; each gets PMIX_GROUP_MEMBER_FAILED
 * (affected proc, group id). Alone the flag still aborts the construct
 * (PMIX_GROUP_CONSTRUCT_ABORT, our documented choice); with
 * PMIX_GROUP_FT_COLLECTIVE (`ft`) it completes on the survivors with
 * PMIX_ERR_PARTIAL_SUCCESS. */
static void member_dies_notify(const char *grp, bool ft)
{
    pmix_proc_t all[MAXP], surv[MAXP], victim;
    size_t n = all_procs(all);
    size_t ns = all_but(surv, N - 1);
    dirs_t d = {0};
    event_t e;
    waiter_t w;
    pmix_status_t rc;
    need_ranks(2);
    load_proc(&victim, me.nspace, N - 1);
    waiter_init(&w);
    dirs_bool(&d, PMIX_GROUP_NOTIFY_TERMINATION);
    if (ft) {
        dirs_bool(&d, PMIX_GROUP_FT_COLLECTIVE);
    }
    JOB_FENCE();
    if (me.rank != N - 1) {
        STEP("notifying construct_nb");
        rc = PMIx_Group_construct_nb(grp, all, n, DIRS(&d), info_cb, &w);
        if (PMIX_SUCCESS != rc) {
            DIE("construct_nb %s: %s", grp, ESTR(rc));
        }
    }
    dirs_free(&d);
    JOB_FENCE(); /* every survivor is in the construct */
    if (me.rank == N - 1) {
        die_now(100);
    }
    STEP("wait for the construct");
    if (!waiter_wait(&w, 2.5)) {
        DIE("construct_nb %s: no callback 2.5 s after the fence (the member died 0.1 s in)",
            grp);
    }
    if (ft) {
        CHECK(PMIX_ERR_PARTIAL_SUCCESS == w.status, "construct with NOTIFY_TERMINATION and "
              "FT_COLLECTIVE and a member that died: %s (%d), want PMIX_ERR_PARTIAL_SUCCESS",
              ESTR(w.status), w.status);
        if (PMIX_ERR_PARTIAL_SUCCESS == w.status) {
            char what[64];
            snprintf(what, sizeof(what), "construct %s", grp);
            CHECK_RESULTS(what, w.results, w.nresults, surv, ns, CID_ANY);
        }
    } else {
        CHECK(PMIX_GROUP_CONSTRUCT_ABORT == w.status, "construct with NOTIFY_TERMINATION and a "
              "member that died: %s (%d), want PMIX_GROUP_CONSTRUCT_ABORT", ESTR(w.status),
              w.status);
        CHECK(0 == w.nresults, "%zu results from an aborted construct", w.nresults);
    }
    STEP("member failed event");
    if (!wait_events(PMIX_GROUP_MEMBER_FAILED, grp, 1, 1, &e)) {
        FAIL("no PMIX_GROUP_MEMBER_FAILED about %s", grp);
    } else {
        CHECK(e.has_affected && same_proc(&e.affected, &victim),
              "PMIX_GROUP_MEMBER_FAILED without PMIX_EVENT_AFFECTED_PROC = rank %u", N - 1);
    }
    if (ft && PMIX_ERR_PARTIAL_SUCCESS == w.status) {
        FENCE_THEN_DESTRUCT(grp, " of the survivors", 1.5);
    }
}

static void c16_member_dies_notify(void) { member_dies_notify("c16n", false); }
static void c16_member_dies_notify_ft(void) { member_dies_notify("c16f", true); }

/* 16: rank 0 leads (PMIX_GROUP_LEADER) a construct with
 * NOTIFY_TERMINATION and FT_COLLECTIVE; the last rank dies; the leader
 * alone gets PMIX_GROUP_MEMBER_FAILED and its handler answers
 * PMIX_GROUP_CONSTRUCT_ABORT: the construct aborts for everyone (the
 * leader's, and the others' calling after it: PMIX_GROUP_CONSTRUCT_ABORT,
 * with the event). */
static void c16_notify_handler_abort(void)
{
    pmix_proc_t all[MAXP], surv[MAXP], victim;
    size_t n = all_procs(all);
    size_t ns = all_but(surv, N - 1);
    dirs_t d = {0};
    pmix_status_t rc;
    need_ranks(2);
    load_proc(&victim, me.nspace, N - 1);
    dirs_bool(&d, PMIX_GROUP_NOTIFY_TERMINATION);
    dirs_bool(&d, PMIX_GROUP_FT_COLLECTIVE);
    if (0 == me.rank) {
        member_failed_answer = PMIX_GROUP_CONSTRUCT_ABORT;
        dirs_bool(&d, PMIX_GROUP_LEADER);
    }
    LAST_RANK_DIES_AFTER_FENCE(300);
    if (0 == me.rank) {
        waiter_t w;
        event_t e;
        waiter_init(&w);
        STEP("leader's construct_nb");
        rc = PMIx_Group_construct_nb("c16a", all, n, DIRS(&d), info_cb, &w);
        if (PMIX_SUCCESS != rc) {
            DIE("construct_nb c16a: %s", ESTR(rc));
        }
        if (!waiter_wait(&w, 2)) {
            DIE("the leader's construct: no callback in 2 s (the member died 0.3 s in)");
        }
        CHECK(PMIX_GROUP_CONSTRUCT_ABORT == w.status, "construct whose MEMBER_FAILED handler "
              "answered PMIX_GROUP_CONSTRUCT_ABORT: %s (%d)", ESTR(w.status), w.status);
        CHECK(wait_events(PMIX_GROUP_MEMBER_FAILED, "c16a", 1, 0.5, &e)
                  && e.has_affected && same_proc(&e.affected, &victim),
              "no PMIX_GROUP_MEMBER_FAILED about rank %u to the leader", N - 1);
    }
    STEP("fence of the survivors");
    rc = fence_bounded(surv, ns, false, 2);
    if (PMIX_SUCCESS != rc) {
        DIE("fence of the survivors: %s", HUNG == rc ? "no answer in 2 s" : ESTR(rc));
    }
    if (0 != me.rank) {
        pmix_info_t *res = NULL;
        size_t nres = 0;
        CHECK(wait_events(PMIX_GROUP_CONSTRUCT_ABORT, "c16a", 1, 1, NULL),
              "no PMIX_GROUP_CONSTRUCT_ABORT event about c16a");
        STEP("construct after the abort");
        rc = PMIx_Group_construct("c16a", all, n, DIRS(&d), &res, &nres);
        CHECK(PMIX_GROUP_CONSTRUCT_ABORT == rc, "construct of an aborted group: %s (%d), want "
              "PMIX_GROUP_CONSTRUCT_ABORT", ESTR(rc), rc);
        CHECK(0 == count_events(PMIX_GROUP_MEMBER_FAILED, "c16a"),
              "PMIX_GROUP_MEMBER_FAILED to a member though the construct has a leader");
        if (NULL != res) {
            PMIX_INFO_FREE(res, nres);
        }
    }
    dirs_free(&d);
}

/* Waits (bounded) until pmixrun's PMIX_ERR_PROC_ABORTED about `victim`
 * arrives, i.e. the victim is gone; falls back to a pause. */
static void wait_victim_gone(uint32_t victim)
{
    struct timespec dl = deadline_in(3);
    int rc = 0;
    bool seen = false;
    STEP("wait for the victim's end");
    pthread_mutex_lock(&ev_mu);
    while (!seen && 0 == rc) {
        for (size_t i = 0; i < nevents && !seen; i++) {
            seen = PMIX_ERR_PROC_ABORTED == events[i].code && events[i].has_affected
                   && victim == events[i].affected.rank;
        }
        if (!seen) {
            rc = pthread_cond_timedwait(&ev_cv, &ev_mu, &dl);
        }
    }
    pthread_mutex_unlock(&ev_mu);
    if (!seen) {
        sleep_ms(300);
    }
}

/* 17: the last rank contributes (construct_nb) and dies; then the others
 * call: its contribution stands, the construct succeeds with every rank. */
static void c17_contributed_then_dies(void)
{
    pmix_proc_t all[MAXP];
    size_t n = all_procs(all);
    need_ranks(2);
    JOB_FENCE();
    if (me.rank == N - 1) {
        waiter_t w;
        waiter_init(&w);
        pmix_status_t rc = PMIx_Group_construct_nb("c17", all, n, NULL, 0, info_cb, &w);
        if (PMIX_SUCCESS != rc) {
            DIE("construct_nb c17: %s", ESTR(rc));
        }
        die_now(300);
    }
    wait_victim_gone(N - 1);
    CONSTRUCT_OK("c17", all, n, NULL, 0, all, n, CID_ANY);
}

/* 18: destruct with a dead member. With NOTIFY_TERMINATION at construct:
 * PMIX_GROUP_MEMBER_FAILED and the destruct succeeds; without: the destruct
 * fails with PMIX_ERR_LOST_CONNECTION. */
static void destruct_dead(const char *grp, bool notify)
{
    pmix_proc_t all[MAXP], victim;
    size_t n = all_procs(all);
    dirs_t d = {0};
    need_ranks(2);
    load_proc(&victim, me.nspace, N - 1);
    if (notify) {
        dirs_bool(&d, PMIX_GROUP_NOTIFY_TERMINATION);
    }
    CONSTRUCT_OK(grp, all, n, DIRS(&d), all, n, CID_ANY);
    dirs_free(&d);
    LAST_RANK_DIES_AFTER_FENCE(300);
    STEP("destruct with a dying member");
    pmix_status_t rc = PMIx_Group_destruct(grp, NULL, 0);
    if (notify) {
        event_t e;
        CHECK(PMIX_SUCCESS == rc, "destruct (NOTIFY_TERMINATION) with a member that died: %s "
              "(%d), want PMIX_SUCCESS", ESTR(rc), rc);
        if (!wait_events(PMIX_GROUP_MEMBER_FAILED, grp, 1, 2, &e)) {
            FAIL("no PMIX_GROUP_MEMBER_FAILED about %s", grp);
        } else {
            CHECK(e.has_affected && same_proc(&e.affected, &victim),
                  "PMIX_GROUP_MEMBER_FAILED without PMIX_EVENT_AFFECTED_PROC = rank %u", N - 1);
        }
    } else {
        CHECK(PMIX_ERR_LOST_CONNECTION == rc, "destruct with a member that died: %s (%d), want "
              "PMIX_ERR_LOST_CONNECTION", ESTR(rc), rc);
    }
}

static void c18_destruct_dead_notify(void) { destruct_dead("c18n", true); }
static void c18_destruct_dead_plain(void) { destruct_dead("c18p", false); }

/* 20: destruct: success for all; then the id is unknown (a second destruct
 * is PMIX_ERR_NOT_FOUND, a fence on it errs and does not hang); the id may
 * be reused. */
static void c20_destruct(void)
{
    pmix_proc_t all[MAXP];
    size_t n = all_procs(all);
    pmix_status_t rc;
    need_ranks(2);

    CONSTRUCT_OK("c20", all, n, NULL, 0, all, n, CID_ANY);
    DESTRUCT_OK("c20");
    STEP("second destruct");
    rc = PMIx_Group_destruct("c20", NULL, 0);
    CHECK(PMIX_ERR_NOT_FOUND == rc, "second destruct: %s, want PMIX_ERR_NOT_FOUND", ESTR(rc));
    rc = PMIx_Group_destruct("c20-never-made", NULL, 0);
    CHECK(PMIX_ERR_NOT_FOUND == rc, "destruct of an unknown id: %s, want PMIX_ERR_NOT_FOUND",
          ESTR(rc));
    {
        int calls = 0;
        rc = destruct_nb_bounded("c20-never-made", 5, &calls);
        CHECK(PMIX_ERR_NOT_FOUND == rc, "destruct_nb of an unknown id: %s, want NOT_FOUND",
              HUNG == rc ? "no answer in 5 s" : ESTR(rc));
    }
    STEP("fence on a destructed id");
    rc = group_fence("c20", PMIX_RANK_WILDCARD, 4);
    CHECK(HUNG != rc, "a fence on the destructed group hangs (no answer in 4 s)");
    CHECK(PMIX_SUCCESS != rc, "a fence on the destructed group succeeded");
    STEP("get through a destructed id");
    {
        pmix_proc_t p;
        pmix_value_t *v = NULL;
        load_proc(&p, "c20", 0);
        rc = get_bounded(&p, PMIX_LOCAL_RANK, NULL, &v);
        CHECK(PMIX_SUCCESS != rc, "PMIx_Get through the destructed group succeeded");
        if (PMIX_SUCCESS == rc) {
            PMIX_VALUE_RELEASE(v);
        }
    }
    JOB_FENCE();
    STEP("reuse the id");
    CONSTRUCT_OK("c20", all, n, NULL, 0, all, n, CID_ANY);
    {
        int calls = 1;
        STEP("destruct_nb");
        rc = destruct_nb_bounded("c20", 20, &calls);
        CHECK(1 == calls, "destruct_nb called back %d times", calls);
        CHECK(PMIX_SUCCESS == rc, "destruct_nb c20: %s",
              HUNG == rc ? "no answer in 20 s" : ESTR(rc));
    }
}

/* 24: the last rank leaves: the others get PMIX_GROUP_LEFT (affected proc
 * = the leaver, group id); their group fences exclude it and the group's
 * size shrinks. */
static void c24_leave(void)
{
    pmix_proc_t all[MAXP], leaver;
    size_t n = all_procs(all);
    uint32_t lr = N - 1;
    pmix_status_t rc;
    need_ranks(2);
    load_proc(&leaver, me.nspace, lr);

    CONSTRUCT_OK("c24", all, n, NULL, 0, all, n, CID_ANY);
    JOB_FENCE();
    if (me.rank == lr) {
        STEP("leave");
        rc = PMIx_Group_leave("c24", NULL, 0);
        CHECK(PMIX_SUCCESS == rc, "leave: %s", ESTR(rc));
    } else {
        event_t e;
        STEP("left event");
        if (!wait_events(PMIX_GROUP_LEFT, "c24", 1, 10, &e)) {
            DIE("no PMIX_GROUP_LEFT about c24 in 10 s");
        }
        CHECK(e.has_affected && same_proc(&e.affected, &leaver),
              "PMIX_GROUP_LEFT without PMIX_EVENT_AFFECTED_PROC = rank %u", lr);
        STEP("fence of the remaining");
        rc = group_fence("c24", PMIX_RANK_WILDCARD, 10);
        CHECK(PMIX_SUCCESS == rc, "fence {c24, WILDCARD} after a leave: %s",
              HUNG == rc ? "no answer in 10 s (does it wait for the leaver?)" : ESTR(rc));
        rc = group_fence("c24", N - 1, 5);
        CHECK(PMIX_ERR_BAD_PARAM == rc, "fence {c24, %u} (size now %u): %s, want BAD_PARAM",
              N - 1, N - 1, HUNG == rc ? "no answer" : ESTR(rc));
        DESTRUCT_OK("c24");
    }
    JOB_FENCE();
    if (me.rank == lr) {
        STEP("destruct after leaving");
        rc = PMIx_Group_destruct("c24", NULL, 0);
        CHECK(PMIX_ERR_NOT_FOUND == rc, "destruct of a group I left (and the others "
              "destructed): %s, want NOT_FOUND", ESTR(rc));
    }
}

/* Whether a PMIX_GROUP_NAMES / PMIX_QUERY_GROUP_NAMES value lists `name`:
 * a comma-separated string or a data array of strings. `ok` is false if
 * the value is neither. */
static bool names_contain(const pmix_value_t *v, const char *name, bool *ok)
{
    *ok = true;
    if (PMIX_STRING == v->type) {
        const char *s = v->data.string ? v->data.string : "";
        size_t len = strlen(name);
        while (*s) {
            const char *c = strchr(s, ',');
            size_t l = c ? (size_t) (c - s) : strlen(s);
            if (l == len && 0 == strncmp(s, name, len)) {
                return true;
            }
            s += l + (c ? 1 : 0);
        }
        return false;
    }
    if (PMIX_DATA_ARRAY == v->type && NULL != v->data.darray
        && PMIX_STRING == v->data.darray->type) {
        char **a = (char **) v->data.darray->array;
        for (size_t i = 0; i < v->data.darray->size; i++) {
            if (NULL != a[i] && 0 == strcmp(a[i], name)) {
                return true;
            }
        }
        return false;
    }
    *ok = false;
    return false;
}

static size_t names_count(const pmix_value_t *v)
{
    if (PMIX_STRING == v->type) {
        const char *s = v->data.string ? v->data.string : "";
        if (!*s) {
            return 0;
        }
        size_t c = 1;
        for (; *s; s++) {
            c += ',' == *s;
        }
        return c;
    }
    if (PMIX_DATA_ARRAY == v->type && NULL != v->data.darray) {
        return v->data.darray->size;
    }
    return 0;
}

static void check_group_names(int line, uint32_t rank, const char *name, bool want)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    bool ok;
    load_proc(&p, me.nspace, rank);
    pmix_status_t rc = get_bounded(&p, PMIX_GROUP_NAMES, NULL, &v);
    if (PMIX_SUCCESS != rc) {
        if (want || PMIX_ERR_NOT_FOUND != rc) {
            fail_at(line, "get PMIX_GROUP_NAMES of rank %u: %s", rank, ESTR(rc));
        }
        return;
    }
    bool has = names_contain(v, name, &ok);
    if (!ok) {
        fail_at(line, "PMIX_GROUP_NAMES of rank %u: type %s, want a string or an array of "
                "strings", rank, PMIx_Data_type_string(v->type));
    } else if (has != want) {
        fail_at(line, "PMIX_GROUP_NAMES of rank %u (%s) %s %s", rank,
                PMIX_STRING == v->type ? v->data.string : "array", has ? "lists" : "lacks",
                name);
    }
    PMIX_VALUE_RELEASE(v);
}

/* 26: PMIx_Get(proc, PMIX_GROUP_NAMES) lists the groups proc belongs to. */
static void c26_group_names(void)
{
    pmix_proc_t all[MAXP], even[MAXP];
    size_t n = all_procs(all);
    size_t ne = 0;
    bool me_even = 0 == (me.rank & 1);
    uint32_t peer = (me.rank + 1) % N;
    bool peer_even = 0 == (peer & 1);
    need_ranks(2);
    for (uint32_t r = 0; r < N; r += 2) {
        load_proc(&even[ne++], me.nspace, r);
    }
    CONSTRUCT_OK("c26-a", all, n, NULL, 0, all, n, CID_ANY);
    if (me_even) {
        CONSTRUCT_OK("c26-b", even, ne, NULL, 0, even, ne, CID_ANY);
    }
    JOB_FENCE();
    STEP("group names");
    check_group_names(__LINE__, me.rank, "c26-a", true);
    check_group_names(__LINE__, me.rank, "c26-b", me_even);
    check_group_names(__LINE__, peer, "c26-a", true);
    if (!peer_even) {
        check_group_names(__LINE__, peer, "c26-b", false);
    } else if (me_even) {
        check_group_names(__LINE__, peer, "c26-b", true);
    }
    JOB_FENCE();
    if (me_even) {
        DESTRUCT_OK("c26-b");
    }
    DESTRUCT_OK("c26-a");
    STEP("group names after destruct");
    check_group_names(__LINE__, me.rank, "c26-a", false);
    check_group_names(__LINE__, me.rank, "c26-b", false);
}

/* One query of one key, optionally qualified by a group id. */
static pmix_status_t query1(const char *key, const char *grp, pmix_info_t **res, size_t *nres)
{
    pmix_query_t q;
    pmix_status_t r;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(r, q.keys, key);
    (void) r;
    if (NULL != grp) {
        PMIX_QUERY_QUALIFIERS_CREATE(&q, 1);
        PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_GROUP_ID, grp, PMIX_STRING);
    }
    *res = NULL;
    *nres = 0;
    r = PMIx_Query_info(&q, 1, res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    return r;
}

static void check_num_groups(int line, uint64_t want)
{
    pmix_info_t *res;
    size_t nres;
    uint64_t x = 0;
    pmix_status_t rc = query1(PMIX_QUERY_NUM_GROUPS, NULL, &res, &nres);
    if (PMIX_SUCCESS != rc || 1 != nres || !as_u64(&res[0].value, &x) || x != want) {
        fail_at(line, "query PMIX_QUERY_NUM_GROUPS: %s, %zu results, %llu, want %llu",
                ESTR(rc), nres, (unsigned long long) x, (unsigned long long) want);
    }
    if (NULL != res) {
        PMIX_INFO_FREE(res, nres);
    }
}

static void check_group_name_query(int line, const char **names, size_t nnames)
{
    pmix_info_t *res;
    size_t nres;
    bool ok = true;
    pmix_status_t rc = query1(PMIX_QUERY_GROUP_NAMES, NULL, &res, &nres);
    if (PMIX_SUCCESS != rc || 1 != nres) {
        fail_at(line, "query PMIX_QUERY_GROUP_NAMES: %s, %zu results", ESTR(rc), nres);
    } else {
        for (size_t i = 0; i < nnames && ok; i++) {
            if (!names_contain(&res[0].value, names[i], &ok) && ok) {
                fail_at(line, "PMIX_QUERY_GROUP_NAMES lacks %s", names[i]);
            }
        }
        if (!ok) {
            fail_at(line, "PMIX_QUERY_GROUP_NAMES: type %s, want a string or an array of "
                    "strings", PMIx_Data_type_string(res[0].value.type));
        } else if (names_count(&res[0].value) != nnames) {
            fail_at(line, "PMIX_QUERY_GROUP_NAMES lists %zu groups, want %zu",
                    names_count(&res[0].value), nnames);
        }
    }
    if (NULL != res) {
        PMIX_INFO_FREE(res, nres);
    }
}

static void check_membership_query(int line, const char *grp, const pmix_proc_t *want,
                                   size_t nwant)
{
    pmix_info_t *res;
    size_t nres;
    pmix_proc_t got[MAXP];
    size_t ng = 0;
    char a[1024], b[1024];
    pmix_status_t rc = query1(PMIX_QUERY_GROUP_MEMBERSHIP, grp, &res, &nres);
    if (PMIX_SUCCESS != rc || 1 != nres) {
        fail_at(line, "query PMIX_QUERY_GROUP_MEMBERSHIP of %s: %s, %zu results", grp, ESTR(rc),
                nres);
    } else if (!value_procs(&res[0].value, got, MAXP, &ng)) {
        fail_at(line, "PMIX_QUERY_GROUP_MEMBERSHIP of %s: type %s, want an array of procs", grp,
                PMIx_Data_type_string(res[0].value.type));
    } else {
        bool same = ng == nwant;
        for (size_t i = 0; same && i < nwant; i++) {
            same = same_proc(&got[i], &want[i]);
        }
        procs_str(a, sizeof(a), got, ng);
        procs_str(b, sizeof(b), want, nwant);
        if (!same) {
            fail_at(line, "PMIX_QUERY_GROUP_MEMBERSHIP of %s: [%s], want [%s]", grp, a, b);
        }
    }
    if (NULL != res) {
        PMIX_INFO_FREE(res, nres);
    }
}

static void check_query_fails(int line, const char *key, const char *grp, pmix_status_t want)
{
    pmix_info_t *res;
    size_t nres;
    pmix_status_t rc = query1(key, grp, &res, &nres);
    if (want != rc) {
        fail_at(line, "query %s (qualifier %s): %s, want %s", key, grp ? grp : "none", ESTR(rc),
                ESTR(want));
    }
    if (NULL != res) {
        PMIX_INFO_FREE(res, nres);
    }
}

/* 27: the group queries: number, names, membership (qualifier
 * PMIX_GROUP_ID; none is BAD_PARAM, an unknown group NOT_FOUND). */
static void c27_queries(void)
{
    pmix_proc_t all[MAXP], low[MAXP];
    size_t n = all_procs(all);
    uint32_t nl = N / 2;
    size_t nlow = 0;
    need_ranks(2);
    for (uint32_t r = 0; r < nl; r++) {
        load_proc(&low[nlow++], me.nspace, r);
    }
    CONSTRUCT_OK("c27-a", all, n, NULL, 0, all, n, CID_ANY);
    if (me.rank < nl) {
        CONSTRUCT_OK("c27-b", low, nlow, NULL, 0, low, nlow, CID_ANY);
    }
    JOB_FENCE();
    STEP("queries with two groups");
    {
        const char *names[] = {"c27-a", "c27-b"};
        check_num_groups(__LINE__, 2);
        check_group_name_query(__LINE__, names, 2);
        check_membership_query(__LINE__, "c27-a", all, n);
        check_membership_query(__LINE__, "c27-b", low, nlow);
        check_query_fails(__LINE__, PMIX_QUERY_GROUP_MEMBERSHIP, NULL, PMIX_ERR_BAD_PARAM);
        check_query_fails(__LINE__, PMIX_QUERY_GROUP_MEMBERSHIP, "c27-none",
                          PMIX_ERR_NOT_FOUND);
    }
    JOB_FENCE();
    if (me.rank < nl) {
        DESTRUCT_OK("c27-b");
    }
    JOB_FENCE();
    STEP("queries with one group");
    {
        const char *names[] = {"c27-a"};
        check_num_groups(__LINE__, 1);
        check_group_name_query(__LINE__, names, 1);
        check_query_fails(__LINE__, PMIX_QUERY_GROUP_MEMBERSHIP, "c27-b", PMIX_ERR_NOT_FOUND);
    }
    JOB_FENCE();
    DESTRUCT_OK("c27-a");
}

/* 21, 23: an invitee dies before answering: the leader gets
 * PMIX_GROUP_INVITE_FAILED (affected proc); with PMIX_GROUP_OPTIONAL the
 * invite completes on the others with PMIX_SUCCESS (as OpenPMIx's). */
static void c23_invitee_dies(void)
{
    pmix_proc_t invitees[MAXP], members[MAXP], victim;
    size_t ni = all_but(invitees, 0);
    uint32_t vr = N - 1;
    size_t nm = all_but(members, vr);
    pmix_status_t rc;
    need_ranks(2);
    load_proc(&victim, me.nspace, vr);
    invite_policy = 0 == me.rank || me.rank == vr ? INV_NONE : INV_ACCEPT_NB;
    JOB_FENCE();
    if (me.rank == vr) {
        die_now(500);
    }
    if (0 == me.rank) {
        dirs_t d = {0};
        pmix_info_t *res = NULL;
        size_t nres = 0;
        dirs_bool(&d, PMIX_GROUP_OPTIONAL);
        STEP("invite with a dying invitee");
        rc = PMIx_Group_invite("c23d", invitees, ni, DIRS(&d), &res, &nres);
        dirs_free(&d);
        CHECK(PMIX_SUCCESS == rc, "optional invite with an invitee that died: %s "
              "(%d), want PMIX_SUCCESS", ESTR(rc), rc);
        CHECK_RESULTS("invite c23d", res, nres, members, nm, CID_ANY);
        if (NULL != res) {
            PMIX_INFO_FREE(res, nres);
        }
        check_invitee_events(__LINE__, PMIX_GROUP_INVITE_FAILED, "c23d", &victim, 1, 2);
    } else {
        check_invited(__LINE__, "c23d", 0);
        rc = handler_join_status(3);
        CHECK(JOINED(rc), "join_nb ACCEPT: %s", HUNG == rc ? "no answer" : ESTR(rc));
        if (JOINED(rc)) {
            check_join_results(__LINE__, "join c23d", &join_w, "c23d", members, nm);
        }
    }
    check_complete_event(__LINE__, "c23d", members, nm);
}

/* ------------------------------------------------------------------ */

typedef struct {
    const char *name;
    void (*run)(void);
    bool fault; /* the last rank dies on purpose */
} scenario_t;

static const scenario_t scenarios[] = {
    {"c01_entry", c01_entry, false},
    {"c01_singleton", c01_singleton, false},
    {"c03_collective", c03_collective, false},
    {"c04_results_order", c04_results_order, false},
    {"c05_context_ids", c05_context_ids, false},
    {"c06_membership_order", c06_membership_order, false},
    {"c07_group_fence", c07_group_fence, false},
    {"c08_group_data", c08_group_data, false},
    {"c09_group_info", c09_group_info, false},
    {"c11_concurrent_groups", c11_concurrent_groups, false},
    {"c13_bootstrap", c13_bootstrap, false},
    {"c14_add_members", c14_add_members, false},
    {"c15_construct_timeout", c15_construct_timeout, false},
    {"c15_destruct_timeout", c15_destruct_timeout, false},
    {"c15_invite_timeout", c15_invite_timeout, false},
    {"c16_member_dies_abort", c16_member_dies_abort, true},
    {"c16_member_dies_optional", c16_member_dies_optional, true},
    {"c16_member_dies_notify", c16_member_dies_notify, true},
    {"c16_member_dies_notify_ft", c16_member_dies_notify_ft, true},
    {"c16_notify_handler_abort", c16_notify_handler_abort, true},
    {"c17_contributed_then_dies", c17_contributed_then_dies, true},
    {"c18_destruct_dead_notify", c18_destruct_dead_notify, true},
    {"c18_destruct_dead_plain", c18_destruct_dead_plain, true},
    {"c20_destruct", c20_destruct, false},
    {"c21_invite_join", c21_invite_join, false},
    {"c21_join_nb_without_callback", c21_join_nb_without_callback, false},
    {"c22_invite_nb", c22_invite_nb, false},
    {"c23_decline_aborts", c23_decline_aborts, false},
    {"c23_decline_optional", c23_decline_optional, false},
    {"c23_invitee_dies", c23_invitee_dies, true},
    {"c24_leave", c24_leave, false},
    {"c26_group_names", c26_group_names, false},
    {"c27_queries", c27_queries, false},
    {NULL, NULL, false},
};

int main(int argc, char **argv)
{
    const scenario_t *sc = NULL;
    pmix_status_t rc;
    const char *er = getenv("PMIX_RANK");
    if (NULL != er) {
        me.rank = (pmix_rank_t) atoi(er);
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s SCENARIO\n", argv[0]);
        return 2;
    }
    for (const scenario_t *s = scenarios; NULL != s->name; s++) {
        if (0 == strcmp(s->name, argv[1])) {
            sc = s;
        }
    }
    if (NULL == sc) {
        fprintf(stderr, "group client: unknown scenario %s\n", argv[1]);
        return 2;
    }
    scenario = sc->name;
    void (*run)(void) = sc->run;
    signal(SIGALRM, on_alarm);
    alarm(45);
    if (sc->fault) {
        survive_teardown();
    }
    waiter_init(&join_w);
    trace = NULL != getenv("GROUP_CLIENT_TRACE");

    if (run == c01_entry) {
        c01_before_init();
    }
    STEP("init");
    rc = PMIx_Init(&me, NULL, 0);
    /* a singleton initializes but reports that no server was reached */
    if (PMIX_SUCCESS != rc && !(run == c01_singleton && PMIX_ERR_UNREACH == rc)) {
        DIE("PMIx_Init: %s", ESTR(rc));
    }
    {
        pmix_proc_t wild;
        pmix_value_t *v = NULL;
        uint64_t x = 0;
        load_proc(&wild, me.nspace, PMIX_RANK_WILDCARD);
        rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
        if (PMIX_SUCCESS != rc || !as_u64(v, &x) || 0 == x || x > MAXP) {
            DIE("PMIX_JOB_SIZE: %s", ESTR(rc));
        }
        N = (uint32_t) x;
        PMIX_VALUE_RELEASE(v);
    }
    register_handlers();

    STEP("scenario");
    run();

    STEP("finalize");
    rc = PMIx_Finalize(NULL, 0);
    CHECK(PMIX_SUCCESS == rc, "PMIx_Finalize: %s", ESTR(rc));
    if (0 == failures) {
        printf("group client %u ok\n", me.rank);
    }
    fflush(stdout);
    return failures ? 1 : 0;
}
