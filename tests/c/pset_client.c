/* A client of tests/c/pset_host.c (tests/psets.rs): process sets.
 * - registers a handler for PMIX_PROCESS_SET_DEFINE/DELETE and a default
 *   handler (which must never see them: they are non-default);
 * - queries the sets the host registered with the job ("app-set", every
 *   rank), then tells the host it is ready (event READY, local range);
 * - waits for the host's definition of "pset-a" (ranks 0 and 2), checks
 *   the event's name and members, the queries (number, names, membership,
 *   missing qualifier, unknown set) and PMIx_Get(PMIX_PSET_NAMES) of
 *   itself and of peers, acknowledges (event ACK);
 * - waits for the deletion, checks the queries and gets again.
 * With arguments `pmixrun SET` (run by pmixrun with --pset, see
 * under_pmixrun): the sets pmixrun registered, and PMIx_Get of them.
 * Every wait is bounded (60 s). Prints "pset client R ok". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#include "pset_common.h"

#define READY (PMIX_EXTERNAL_ERR_BASE - 21)
#define ACK (PMIX_EXTERNAL_ERR_BASE - 22)

static int failures = 0;
static pmix_proc_t me;

#define FAIL(...)                                                        \
    do {                                                                 \
        fprintf(stderr, "pset client %u: line %d: ", me.rank, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                    \
        fprintf(stderr, "\n");                                           \
        failures++;                                                      \
    } while (0)

static int defined, deleted;
static char def_name[256], del_name[256];
static pmix_proc_t def_members[8];
static size_t def_nmembers = 99;
static int del_has_members;
static pmix_proc_t def_source;

static const pmix_info_t *find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&info[i], key)) {
            return &info[i];
        }
    }
    return NULL;
}

static void pset_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                         pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                         pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    const pmix_info_t *nm = find(info, ninfo, PMIX_PSET_NAME);
    const pmix_info_t *mb = find(info, ninfo, PMIX_PSET_MEMBERS);
    (void) id; (void) results; (void) nresults;
    pthread_mutex_lock(&mu);
    if (PMIX_PROCESS_SET_DEFINE == status) {
        if (nm && PMIX_STRING == nm->value.type) {
            snprintf(def_name, sizeof(def_name), "%s", nm->value.data.string);
        }
        if (mb && PMIX_DATA_ARRAY == mb->value.type && NULL != mb->value.data.darray
            && PMIX_PROC == mb->value.data.darray->type && mb->value.data.darray->size <= 8) {
            def_nmembers = mb->value.data.darray->size;
            memcpy(def_members, mb->value.data.darray->array, def_nmembers * sizeof(pmix_proc_t));
        }
        def_source = *source;
        defined++;
    } else if (PMIX_PROCESS_SET_DELETE == status) {
        if (nm && PMIX_STRING == nm->value.type) {
            snprintf(del_name, sizeof(del_name), "%s", nm->value.data.string);
        }
        del_has_members = NULL != mb;
        deleted++;
    }
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    if (NULL != cbfunc) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

/* Waits (60 s at most) until *flag reaches 1; false on timeout. */
static int wait_flag(int *flag)
{
    struct timespec ts;
    int rc = 0;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 60;
    pthread_mutex_lock(&mu);
    while (*flag < 1 && 0 == rc) {
        rc = pthread_cond_timedwait(&cv, &mu, &ts);
    }
    int ok = *flag >= 1;
    pthread_mutex_unlock(&mu);
    return ok;
}

/* One query of one key, optionally qualified by a set name. */
static pmix_status_t query1(const char *key, const char *pset, pmix_info_t **res, size_t *nres)
{
    pmix_query_t q;
    pmix_status_t r;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(r, q.keys, key);
    if (pset) {
        PMIX_QUERY_QUALIFIERS_CREATE(&q, 1);
        PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_PSET_NAME, pset, PMIX_STRING);
    }
    *res = NULL;
    *nres = 0;
    r = PMIx_Query_info(&q, 1, res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    return r;
}

static void check_num(size_t want)
{
    pmix_info_t *res;
    size_t nres;
    pmix_status_t rc = query1(PMIX_QUERY_NUM_PSETS, NULL, &res, &nres);
    if (PMIX_SUCCESS != rc || 1 != nres || PMIX_SIZE != res[0].value.type
        || want != res[0].value.data.size) {
        FAIL("num psets: %s, n %zu, want %zu", PMIx_Error_string(rc), nres, want);
    }
    if (res) PMIX_INFO_FREE(res, nres);
}

static void check_names(const char *want)
{
    pmix_info_t *res;
    size_t nres;
    pmix_status_t rc = query1(PMIX_QUERY_PSET_NAMES, NULL, &res, &nres);
    if (PMIX_SUCCESS != rc || 1 != nres || PMIX_STRING != res[0].value.type
        || 0 != strcmp(want, res[0].value.data.string)) {
        FAIL("pset names: %s (%s), want %s", PMIx_Error_string(rc),
             nres && PMIX_STRING == res[0].value.type ? res[0].value.data.string : "?", want);
    }
    if (res) PMIX_INFO_FREE(res, nres);
}

/* The membership of pset: want_n ranks of my namespace, listed in want. */
static void check_members(const char *pset, const pmix_rank_t *want, size_t want_n)
{
    pmix_info_t *res;
    size_t nres;
    pmix_status_t rc = query1(PMIX_QUERY_PSET_MEMBERSHIP, pset, &res, &nres);
    if (PMIX_SUCCESS != rc || 1 != nres || PMIX_DATA_ARRAY != res[0].value.type
        || PMIX_PROC != res[0].value.data.darray->type
        || want_n != res[0].value.data.darray->size) {
        FAIL("membership of %s: %s, n %zu", pset, PMIx_Error_string(rc), nres);
    } else {
        pmix_proc_t *p = res[0].value.data.darray->array;
        for (size_t i = 0; i < want_n; i++) {
            if (!PMIX_CHECK_NSPACE(p[i].nspace, me.nspace) || p[i].rank != want[i]) {
                FAIL("membership of %s: member %zu is %s:%u", pset, i, p[i].nspace, p[i].rank);
            }
        }
    }
    if (res) PMIX_INFO_FREE(res, nres);
}

static void expect_rc(const char *key, const char *pset, pmix_status_t want)
{
    pmix_info_t *res;
    size_t nres;
    pmix_status_t rc = query1(key, pset, &res, &nres);
    if (want != rc) {
        FAIL("%s of %s: %s, want %s", key, pset ? pset : "(none)", PMIx_Error_string(rc),
             PMIx_Error_string(want));
    }
    if (res) PMIX_INFO_FREE(res, nres);
}

/* PMIx_Get(rank r of my namespace, PMIX_PSET_NAMES): the sets it is in. */
static void check_get(pmix_rank_t r, const char *want)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    PMIX_LOAD_PROCID(&p, me.nspace, r);
    rc = PMIx_Get(&p, PMIX_PSET_NAMES, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v || PMIX_STRING != v->type
        || 0 != strcmp(want, v->data.string)) {
        FAIL("get pset names of %u: %s (%s), want %s", r, PMIx_Error_string(rc),
             v && PMIX_STRING == v->type ? v->data.string : "?", want);
    }
    if (v) PMIX_VALUE_RELEASE(v);
}

static int nb_done;
static char nb_value[256];
static pmix_status_t nb_status;

static void get_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    pthread_mutex_lock(&mu);
    nb_status = status;
    if (PMIX_SUCCESS == status && kv && PMIX_STRING == kv->type) {
        snprintf(nb_value, sizeof(nb_value), "%s", kv->data.string);
    }
    nb_done = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

/* PMIx_Get_nb(rank r, PMIX_PSET_NAMES), waited for (60 s at most). */
static void check_get_nb(pmix_rank_t r, const char *want)
{
    pmix_proc_t p;
    pmix_status_t rc;
    PMIX_LOAD_PROCID(&p, me.nspace, r);
    nb_done = 0;
    rc = PMIx_Get_nb(&p, PMIX_PSET_NAMES, NULL, 0, get_cb, NULL);
    if (PMIX_SUCCESS != rc) {
        FAIL("get_nb pset names of %u: %s", r, PMIx_Error_string(rc));
        return;
    }
    if (!wait_flag(&nb_done)) {
        FAIL("get_nb pset names of %u: no callback", r);
    } else if (PMIX_SUCCESS != nb_status || 0 != strcmp(want, nb_value)) {
        FAIL("get_nb pset names of %u: %s (%s), want %s", r, PMIx_Error_string(nb_status),
             nb_value, want);
    }
}

static void tell_host(pmix_status_t code)
{
    pmix_status_t rc = PMIx_Notify_event(code, &me, PMIX_RANGE_LOCAL, NULL, 0, NULL, NULL);
    if (PMIX_SUCCESS != rc) {
        FAIL("notify %d: %s", code, PMIx_Error_string(rc));
    }
}

/* Under `pmixrun --pset left -n 2 C pmixrun left : --pset right -n 1 C
 * pmixrun right`: the job's sets, and the one this rank is in (want). */
static int under_pmixrun(const char *want)
{
    const pmix_rank_t left[2] = {0, 1}, right[1] = {2};
    check_num(2);
    check_names("left,right");
    check_members("left", left, 2);
    check_members("right", right, 1);
    check_get(me.rank, want);
    check_get(2, "right");
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (PMIX_SUCCESS != rc) {
        FAIL("finalize: %s", PMIx_Error_string(rc));
    }
    if (0 == failures) {
        printf("pset client %u ok\n", me.rank);
    }
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    pmix_status_t codes[2] = {PMIX_PROCESS_SET_DEFINE, PMIX_PROCESS_SET_DELETE};
    const pmix_rank_t all[3] = {0, 1, 2}, set_a[2] = {0, 2};
    pmix_status_t rc;

    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        fprintf(stderr, "pset client: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (argc > 2 && 0 == strcmp(argv[1], "pmixrun")) {
        return under_pmixrun(argv[2]);
    }
    const char *err = register_pset_handlers(codes, 2, pset_handler);
    if (NULL != err) {
        FAIL("register handlers: %s", err);
    }

    /* The set the host registered with the job. */
    check_num(1);
    check_names("app-set");
    check_members("app-set", all, 3);
    check_get(me.rank, "app-set");
    tell_host(READY);

    if (!wait_flag(&defined)) {
        FAIL("no PROCESS_SET_DEFINE event");
    } else {
        if (0 != strcmp(def_name, "pset-a")) {
            FAIL("define event name '%s'", def_name);
        }
        if (2 != def_nmembers || def_members[0].rank != 0 || def_members[1].rank != 2
            || !PMIX_CHECK_NSPACE(def_members[0].nspace, me.nspace)) {
            FAIL("define event members: %zu", def_nmembers);
        }
        if (PMIX_CHECK_NSPACE(def_source.nspace, me.nspace)) {
            FAIL("define event source %s:%u is not the server", def_source.nspace,
                 def_source.rank);
        }
    }
    check_num(2);
    check_names("app-set,pset-a");
    check_members("pset-a", set_a, 2);
    check_get(me.rank, 1 == me.rank ? "app-set" : "app-set,pset-a");
    check_get(2, "app-set,pset-a");
    check_get(1, "app-set");
    check_get_nb(0, "app-set,pset-a");
    expect_rc(PMIX_QUERY_PSET_MEMBERSHIP, NULL, PMIX_ERR_BAD_PARAM);
    expect_rc(PMIX_QUERY_PSET_MEMBERSHIP, "nope", PMIX_ERR_NOT_FOUND);
    tell_host(ACK);

    if (!wait_flag(&deleted)) {
        FAIL("no PROCESS_SET_DELETE event");
    } else if (0 != strcmp(del_name, "pset-a") || del_has_members) {
        FAIL("delete event name '%s', members %d", del_name, del_has_members);
    }
    check_num(1);
    check_names("app-set");
    check_get(me.rank, "app-set");
    check_get(2, "app-set");
    expect_rc(PMIX_QUERY_PSET_MEMBERSHIP, "pset-a", PMIX_ERR_NOT_FOUND);
    pthread_mutex_lock(&mu);
    if (default_saw_pset) {
        FAIL("the default handler saw %d process-set events", default_saw_pset);
    }
    if (1 != defined || 1 != deleted) {
        FAIL("events: %d defines, %d deletes", defined, deleted);
    }
    pthread_mutex_unlock(&mu);

    rc = PMIx_Finalize(NULL, 0);
    if (PMIX_SUCCESS != rc) {
        FAIL("finalize: %s", PMIx_Error_string(rc));
    }
    if (0 == failures) {
        printf("pset client %u ok\n", me.rank);
    }
    return failures ? 1 : 0;
}
