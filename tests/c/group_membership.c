/* Group membership after a decline and after a leave, with real processes
 * (tests/group_membership.rs runs it under pmixrun, at 3 ranks or more).
 *
 * Rank 0 invites every other rank to group "gm" with PMIX_GROUP_OPTIONAL
 * and no timeout; the last rank declines, the others accept, all from
 * their PMIX_GROUP_INVITED handler with PMIx_Group_join_nb (as OpenPMIx's
 * examples do). Then:
 * - the leader's invite returns PMIX_SUCCESS (as OpenPMIx's), and its
 *   results name the accepters and itself;
 * - every accepter's join callback says PMIX_SUCCESS (it joined), with the
 *   same membership;
 * - the members fence over {gm, PMIX_RANK_WILDCARD} straight away (the
 *   decliner does not take part: the fence must not wait for it), get a
 *   member's posted value through {gm, r}, and connect and disconnect over
 *   the group id;
 * - the members but rank 1 start a fence over the group, and once the
 *   server has it rank 1 leaves: the fence completes without it; the
 *   others, once told (PMIX_GROUP_LEFT), fence over the group again and
 *   destruct it.
 * Every wait is bounded (a stuck call is reported as such); `alarm` ends
 * a run that hangs anyway. Prints "gm <rank> ok" on success. */

#include <pmix.h>

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GRP "gm"
#define HUNG (-99999)

static pmix_proc_t me;
static uint32_t N;
static int failures;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gm %u: line %d: ", me.rank, line);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    failures++;
}
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fail(__LINE__, __VA_ARGS__);                                                           \
        }                                                                                          \
    } while (0)
#define DIE(...)                                                                                   \
    do {                                                                                           \
        fail(__LINE__, __VA_ARGS__);                                                               \
        fflush(stderr);                                                                            \
        _exit(1);                                                                                  \
    } while (0)

static const char *estr(pmix_status_t rc)
{
    return HUNG == rc ? "no answer in time" : PMIx_Error_string(rc);
}

static void on_alarm(int sig)
{
    static const char m[] = "gm: alarm: the run hung\n";
    (void) !write(2, m, sizeof(m) - 1);
    _exit(3);
}

/* One awaited callback: its status and the results it carried. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    pmix_status_t status;
    pmix_proc_t members[64];
    size_t nmembers;
    bool has_members;
} waiter_t;

static void waiter_init(waiter_t *w)
{
    memset(w, 0, sizeof(*w));
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
}

static void waiter_done(waiter_t *w, pmix_status_t status)
{
    pthread_mutex_lock(&w->mu);
    w->status = status;
    w->done = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* The callback's status, or HUNG if none came within secs. */
static pmix_status_t waiter_wait(waiter_t *w, int secs)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += secs;
    pthread_mutex_lock(&w->mu);
    int rc = 0;
    while (!w->done && 0 == rc) {
        rc = pthread_cond_timedwait(&w->cv, &w->mu, &dl);
    }
    pmix_status_t s = w->done ? w->status : HUNG;
    pthread_mutex_unlock(&w->mu);
    return s;
}

/* Records PMIX_GROUP_MEMBERSHIP from a group call's results. */
static void keep_members(waiter_t *w, const pmix_info_t *info, size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_MEMBERSHIP)
            && PMIX_DATA_ARRAY == info[i].value.type && NULL != info[i].value.data.darray
            && PMIX_PROC == info[i].value.data.darray->type) {
            size_t n = info[i].value.data.darray->size;
            if (n > 64) {
                n = 64;
            }
            memcpy(w->members, info[i].value.data.darray->array, n * sizeof(pmix_proc_t));
            w->nmembers = n;
            w->has_members = true;
        }
    }
}

static void info_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    waiter_t *w = cbdata;
    keep_members(w, info, ninfo);
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
    waiter_done(w, status);
}

static void op_cb(pmix_status_t status, void *cbdata) { waiter_done(cbdata, status); }

/* The join the invite handler started, and whether it returned an error. */
static waiter_t join_w;
/* PMIX_GROUP_LEFT about GRP. */
static waiter_t left_w;
static pmix_proc_t left_who;

static const char *group_of(const pmix_info_t *info, size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && PMIX_STRING == info[i].value.type) {
            return info[i].value.data.string;
        }
    }
    return NULL;
}

static void invited(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id, (void) status, (void) results, (void) nresults;
    const char *grp = group_of(info, ninfo);
    if (NULL != grp && 0 == strcmp(grp, GRP)) {
        pmix_group_opt_t opt = me.rank == N - 1 ? PMIX_GROUP_DECLINE : PMIX_GROUP_ACCEPT;
        pmix_status_t rc = PMIx_Group_join_nb(grp, source, opt, NULL, 0, info_cb, &join_w);
        if (PMIX_SUCCESS != rc) {
            waiter_done(&join_w, rc);
        }
    }
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void left(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                 size_t ninfo, pmix_info_t results[], size_t nresults,
                 pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id, (void) status, (void) source, (void) results, (void) nresults;
    const char *grp = group_of(info, ninfo);
    if (NULL != grp && 0 == strcmp(grp, GRP)) {
        for (size_t i = 0; i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC)
                && PMIX_PROC == info[i].value.type) {
                left_who = *info[i].value.data.proc;
            }
        }
        waiter_done(&left_w, PMIX_SUCCESS);
    }
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void reg_cb(pmix_status_t status, size_t ref, void *cbdata)
{
    waiter_done(cbdata, status);
}

static void register_handler(pmix_status_t code, pmix_notification_fn_t fn)
{
    waiter_t w;
    waiter_init(&w);
    PMIx_Register_event_handler(&code, 1, NULL, 0, fn, reg_cb, &w);
    pmix_status_t rc = waiter_wait(&w, 10);
    if (PMIX_SUCCESS != rc) {
        DIE("register a handler of %s: %s", PMIx_Error_string(code), estr(rc));
    }
}

/* A fence over procs, bounded: its status, or HUNG. */
static pmix_status_t fence(const pmix_proc_t *procs, size_t n, bool collect, int secs)
{
    waiter_t *w = malloc(sizeof(*w));
    pmix_info_t dir;
    waiter_init(w);
    PMIX_INFO_LOAD(&dir, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence_nb(procs, n, collect ? &dir : NULL, collect ? 1 : 0, op_cb, w);
    PMIX_INFO_DESTRUCT(&dir);
    if (PMIX_SUCCESS == rc) {
        rc = waiter_wait(w, secs);
    } else if (PMIX_OPERATION_SUCCEEDED == rc) {
        rc = PMIX_SUCCESS;
    }
    /* a hung fence's waiter is left to its late callback */
    if (HUNG != rc) {
        free(w);
    }
    return rc;
}

static pmix_status_t group_fence(int secs)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, GRP, PMIX_RANK_WILDCARD);
    return fence(&p, 1, false, secs);
}

/* A job fence; `collect`: with PMIX_COLLECT_DATA, which goes through the
 * server (after every request this process sent before). */
static void job_fence(bool collect)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, PMIX_RANK_WILDCARD);
    pmix_status_t rc = fence(&p, 1, collect, 30);
    if (PMIX_SUCCESS != rc) {
        DIE("job fence: %s", estr(rc));
    }
}

/* A connect (then a disconnect) over the group id, bounded. */
static pmix_status_t group_connect(bool connect, int secs)
{
    pmix_proc_t p;
    waiter_t *w = malloc(sizeof(*w));
    waiter_init(w);
    PMIX_LOAD_PROCID(&p, GRP, PMIX_RANK_WILDCARD);
    pmix_status_t rc = connect ? PMIx_Connect_nb(&p, 1, NULL, 0, op_cb, w)
                               : PMIx_Disconnect_nb(&p, 1, NULL, 0, op_cb, w);
    if (PMIX_SUCCESS == rc) {
        rc = waiter_wait(w, secs);
    }
    if (HUNG != rc) {
        free(w);
    }
    return rc;
}

/* Checks that `got` is want[] (ranks of this namespace, in order). */
static void check_members(int line, const char *what, const pmix_proc_t *got, size_t ngot,
                          const pmix_rank_t *want, size_t nwant)
{
    bool same = ngot == nwant;
    for (size_t i = 0; same && i < nwant; i++) {
        same = 0 == strcmp(got[i].nspace, me.nspace) && got[i].rank == want[i];
    }
    if (!same) {
        char buf[512] = "";
        for (size_t i = 0; i < ngot && strlen(buf) < 400; i++) {
            snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " %s:%u", got[i].nspace,
                     got[i].rank);
        }
        fail(line, "%s: membership [%s ], want ranks 0..%zu but the decliner", what, buf,
             nwant);
    }
}

int main(void)
{
    pmix_status_t rc;
    pmix_value_t *v = NULL;
    pmix_proc_t p;

    signal(SIGALRM, on_alarm);
    alarm(50);
    waiter_init(&join_w);
    waiter_init(&left_w);
    rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        DIE("init: %s", estr(rc));
    }
    PMIX_LOAD_PROCID(&p, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&p, PMIX_JOB_SIZE, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || PMIX_UINT32 != v->type || v->data.uint32 < 3) {
        DIE("job size: %s (3 ranks or more)", estr(rc));
    }
    N = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    const pmix_rank_t decliner = N - 1, leaver = 1;
    /* the members after the decline: every rank but the decliner */
    pmix_rank_t members[64];
    size_t nm = 0;
    for (pmix_rank_t r = 0; r < N && nm < 64; r++) {
        if (r != decliner) {
            members[nm++] = r;
        }
    }

    register_handler(PMIX_GROUP_INVITED, invited);
    register_handler(PMIX_GROUP_LEFT, left);
    pmix_value_t mine;
    uint32_t x = 1000 + me.rank;
    PMIX_VALUE_LOAD(&mine, &x, PMIX_UINT32);
    rc = PMIx_Put(PMIX_GLOBAL, "gm.val", &mine);
    CHECK(PMIX_SUCCESS == rc, "put: %s", estr(rc));
    rc = PMIx_Commit();
    CHECK(PMIX_SUCCESS == rc, "commit: %s", estr(rc));
    job_fence(false); /* every handler is in place before the invitation */

    if (0 == me.rank) {
        pmix_proc_t invitees[64];
        pmix_info_t dir, *res = NULL;
        size_t nres = 0;
        for (pmix_rank_t r = 1; r < N; r++) {
            PMIX_LOAD_PROCID(&invitees[r - 1], me.nspace, r);
        }
        PMIX_INFO_LOAD(&dir, PMIX_GROUP_OPTIONAL, NULL, PMIX_BOOL);
        rc = PMIx_Group_invite(GRP, invitees, N - 1, &dir, 1, &res, &nres);
        PMIX_INFO_DESTRUCT(&dir);
        CHECK(PMIX_SUCCESS == rc, "invite with one decline, optional: %s, want PMIX_SUCCESS "
              "(as OpenPMIx)", estr(rc));
        waiter_t got;
        waiter_init(&got);
        keep_members(&got, res, nres);
        CHECK(got.has_members, "no PMIX_GROUP_MEMBERSHIP in the invite's results");
        check_members(__LINE__, "invite", got.members, got.nmembers, members, nm);
        if (NULL != res) {
            PMIX_INFO_FREE(res, nres);
        }
    } else {
        rc = waiter_wait(&join_w, 20);
        if (me.rank == decliner) {
            CHECK(PMIX_SUCCESS == rc, "decline: %s", estr(rc));
        } else {
            CHECK(PMIX_SUCCESS == rc, "join callback of an accepter: %s, want PMIX_SUCCESS "
                  "(it joined)", estr(rc));
            CHECK(join_w.has_members, "no PMIX_GROUP_MEMBERSHIP in the join's results");
            check_members(__LINE__, "join", join_w.members, join_w.nmembers, members, nm);
        }
    }

    if (me.rank != decliner) {
        /* at once: the group is the accepters and the leader */
        rc = group_fence(10);
        CHECK(PMIX_SUCCESS == rc, "fence {%s, WILDCARD} after the decline: %s", GRP, estr(rc));
        pmix_proc_t m;
        pmix_info_t t;
        int secs = 5;
        PMIX_LOAD_PROCID(&m, GRP, (pmix_rank_t) (nm - 1));
        PMIX_INFO_LOAD(&t, PMIX_TIMEOUT, &secs, PMIX_INT);
        v = NULL;
        rc = PMIx_Get(&m, "gm.val", &t, 1, &v);
        PMIX_INFO_DESTRUCT(&t);
        CHECK(PMIX_SUCCESS == rc && NULL != v && PMIX_UINT32 == v->type
                  && v->data.uint32 == 1000 + members[nm - 1],
              "get {%s, %zu} gm.val: %s", GRP, nm - 1, estr(rc));
        if (NULL != v) {
            PMIX_VALUE_RELEASE(v);
        }
        rc = group_connect(true, 10);
        CHECK(PMIX_SUCCESS == rc, "connect {%s, WILDCARD}: %s", GRP, estr(rc));
        rc = group_connect(false, 10);
        CHECK(PMIX_SUCCESS == rc, "disconnect {%s, WILDCARD}: %s", GRP, estr(rc));
    }

    /* The members but the leaver start a fence over the group; once the
     * server has them (the collecting job fence goes through it, after
     * them), rank 1 leaves: the fence completes without it. */
    waiter_t *inflight = NULL;
    if (me.rank != decliner && me.rank != leaver) {
        pmix_proc_t g;
        PMIX_LOAD_PROCID(&g, GRP, PMIX_RANK_WILDCARD);
        inflight = malloc(sizeof(*inflight));
        waiter_init(inflight);
        rc = PMIx_Fence_nb(&g, 1, NULL, 0, op_cb, inflight);
        if (PMIX_SUCCESS != rc) {
            waiter_done(inflight, rc);
        }
    }
    job_fence(true);
    if (me.rank == leaver) {
        rc = PMIx_Group_leave(GRP, NULL, 0);
        CHECK(PMIX_SUCCESS == rc, "leave: %s", estr(rc));
    } else if (me.rank != decliner) {
        rc = waiter_wait(inflight, 10);
        CHECK(PMIX_SUCCESS == rc, "fence {%s, WILDCARD} begun before a member left: %s", GRP,
              estr(rc));
        if (HUNG != rc) {
            free(inflight);
        }
        rc = waiter_wait(&left_w, 10);
        CHECK(PMIX_SUCCESS == rc && left_who.rank == leaver,
              "PMIX_GROUP_LEFT about rank %u: %s (rank %u)", leaver, estr(rc), left_who.rank);
        rc = group_fence(10);
        CHECK(PMIX_SUCCESS == rc, "fence {%s, WILDCARD} after a leave: %s", GRP, estr(rc));
        pmix_info_t t;
        int secs = 10;
        PMIX_INFO_LOAD(&t, PMIX_TIMEOUT, &secs, PMIX_INT);
        rc = PMIx_Group_destruct(GRP, &t, 1);
        PMIX_INFO_DESTRUCT(&t);
        CHECK(PMIX_SUCCESS == rc, "destruct: %s", estr(rc));
    }
    job_fence(false);
    rc = PMIx_Finalize(NULL, 0);
    CHECK(PMIX_SUCCESS == rc, "finalize: %s", estr(rc));
    if (0 == failures) {
        printf("gm %u ok\n", me.rank);
    }
    fflush(stdout);
    return failures ? 1 : 0;
}
