/* A process started without any PMIx server: PMIx_Init makes it a
 * singleton. Checks what OpenPMIx 4.2 and this library both do: init
 * reports PMIX_ERR_UNREACH but initializes, the process is rank 0 of
 * "singleton.<host>.<pid>", the basic job keys answer, put/commit/fence
 * with itself succeed and its own data reads back, operations needing a
 * launcher report PMIX_ERR_UNREACH (every group call too, before looking
 * at its arguments, and with no callback), finalize ends it.
 * Says one line per failed check on stderr; exits with the number of
 * failures. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define CHECK_NAME "singleton"
#define CHECK_COUNTS
#include "check.h"

static int group_callbacks = 0;

static void group_infocb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void) status; (void) info; (void) ninfo; (void) cbdata;
    group_callbacks++;
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
}

static void group_opcb(pmix_status_t status, void *cbdata)
{
    (void) status; (void) cbdata;
    group_callbacks++;
}

/* Every group call needs a server: PMIX_ERR_UNREACH, good arguments or
 * bad, and no callback. */
static void check_groups_unreachable(const pmix_proc_t *me, const pmix_proc_t *other)
{
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    struct {
        const char *what;
        pmix_status_t rc;
    } calls[] = {
        {"construct", PMIx_Group_construct("grp", me, 1, NULL, 0, &results, &nresults)},
        {"construct (bad arguments)", PMIx_Group_construct(NULL, NULL, 3, NULL, 0, NULL, NULL)},
        {"construct_nb", PMIx_Group_construct_nb("grp", me, 1, NULL, 0, group_infocb, NULL)},
        {"destruct", PMIx_Group_destruct("grp", NULL, 0)},
        {"destruct_nb", PMIx_Group_destruct_nb("grp", NULL, 0, group_opcb, NULL)},
        {"invite", PMIx_Group_invite("grp", other, 1, NULL, 0, &results, &nresults)},
        {"invite (bad arguments)", PMIx_Group_invite(NULL, NULL, 0, NULL, 0, NULL, NULL)},
        {"invite_nb", PMIx_Group_invite_nb("grp", other, 1, NULL, 0, group_infocb, NULL)},
        {"join", PMIx_Group_join("grp", other, PMIX_GROUP_ACCEPT, NULL, 0, &results, &nresults)},
        {"join_nb", PMIx_Group_join_nb("grp", other, PMIX_GROUP_DECLINE, NULL, 0, group_infocb,
                                       NULL)},
        {"leave", PMIx_Group_leave("grp", NULL, 0)},
        {"leave_nb", PMIx_Group_leave_nb("grp", NULL, 0, group_opcb, NULL)},
    };
    for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++) {
        if (PMIX_ERR_UNREACH != calls[k].rc) {
            FAIL("group %s: %s", calls[k].what, PMIx_Error_string(calls[k].rc));
        }
    }
    if (NULL != results || 0 != nresults) {
        FAIL("refused group calls left results");
    }
    if (0 != group_callbacks) {
        FAIL("%d callbacks of refused group calls", group_callbacks);
    }
}

/* An unsigned value of the integer types the two libraries use. */
static long as_num(const pmix_value_t *v)
{
    switch (v->type) {
    case PMIX_UINT32: return (long) v->data.uint32;
    case PMIX_PROC_RANK: return (long) v->data.rank;
    case PMIX_INT: return (long) v->data.integer;
    case PMIX_UINT16: return (long) v->data.uint16;
    default: return -1;
    }
}

static void expect_num(const pmix_proc_t *p, const char *key, long want)
{
    pmix_value_t *v = get_ok(p, key);
    if (NULL == v) {
        return;
    }
    if (as_num(v) != want) {
        FAIL("get %s: type %s value %ld, want %ld", key, PMIx_Data_type_string(v->type),
             as_num(v), want);
    }
    PMIX_VALUE_RELEASE(v);
}

int main(void)
{
    pmix_proc_t me, wild, other;
    pmix_value_t val, *v = NULL;
    pmix_status_t rc;
    char host[256], want[512];
    bool t = true;
    pmix_info_t collect;

    memset(&me, 0, sizeof(me));
    rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_ERR_UNREACH != rc) {
        FAIL("init: %s", PMIx_Error_string(rc));
    }
    if (!PMIx_Initialized()) {
        FAIL("not initialized");
        return failures;
    }
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    snprintf(want, sizeof(want), "singleton.%s.%d", host, (int) getpid());
    if (0 != strcmp(me.nspace, want) || 0 != me.rank) {
        FAIL("identity %s.%u, want %s.0", me.nspace, me.rank, want);
    }
    /* A second init is counted (and tells the same). */
    rc = PMIx_Init(NULL, NULL, 0);
    if (PMIX_ERR_UNREACH != rc) {
        FAIL("second init: %s", PMIx_Error_string(rc));
    }
    rc = PMIx_Finalize(NULL, 0);
    if (PMIX_SUCCESS != rc || !PMIx_Initialized()) {
        FAIL("inner finalize: %s", PMIx_Error_string(rc));
    }

    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    expect_num(&wild, PMIX_JOB_SIZE, 1);
    expect_num(&wild, PMIX_LOCAL_SIZE, 1);
    expect_num(&wild, PMIX_MAX_PROCS, 1);
    expect_num(&wild, PMIX_LOCALLDR, 0);
    expect_num(&me, PMIX_RANK, 0);
    expect_num(&me, PMIX_APPNUM, 0);
    expect_num(&me, PMIX_LOCAL_RANK, 0);
    expect_num(&me, PMIX_GLOBAL_RANK, 0);
    rc = PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || PMIX_STRING != v->type || 0 != strcmp(v->data.string, host)) {
        FAIL("hostname: %s", PMIx_Error_string(rc));
    }
    if (PMIX_SUCCESS == rc) {
        PMIX_VALUE_RELEASE(v);
    }
    rc = PMIx_Get(&wild, PMIX_LOCAL_PEERS, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || PMIX_STRING != v->type || 0 != strcmp(v->data.string, "0")) {
        FAIL("local peers: %s", PMIx_Error_string(rc));
    }
    if (PMIX_SUCCESS == rc) {
        PMIX_VALUE_RELEASE(v);
    }

    /* Its own data, with and without a fence. */
    PMIX_VALUE_LOAD(&val, "mine", PMIX_STRING);
    if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, "single.key", &val))) {
        FAIL("put: %s", PMIx_Error_string(rc));
    }
    PMIX_VALUE_DESTRUCT(&val);
    if (PMIX_SUCCESS != (rc = PMIx_Commit())) {
        FAIL("commit: %s", PMIx_Error_string(rc));
    }
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0))) {
        FAIL("fence: %s", PMIx_Error_string(rc));
    }
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    if (PMIX_SUCCESS != (rc = PMIx_Fence(&wild, 1, &collect, 1))) {
        FAIL("fence collecting: %s", PMIx_Error_string(rc));
    }
    rc = PMIx_Get(&me, "single.key", NULL, 0, &v);
    if (PMIX_SUCCESS != rc || PMIX_STRING != v->type || 0 != strcmp(v->data.string, "mine")) {
        FAIL("get own: %s", PMIx_Error_string(rc));
    }
    if (PMIX_SUCCESS == rc) {
        PMIX_VALUE_RELEASE(v);
    }
    rc = PMIx_Get(&me, "single.absent", NULL, 0, &v);
    if (PMIX_ERR_NOT_FOUND != rc) {
        FAIL("get absent: %s", PMIx_Error_string(rc));
    }
    PMIX_LOAD_PROCID(&other, me.nspace, 1);
    rc = PMIx_Get(&other, "single.key", NULL, 0, &v);
    if (PMIX_ERR_NOT_FOUND != rc) {
        FAIL("get of rank 1: %s", PMIx_Error_string(rc));
    }

    /* No launcher to ask. */
    rc = PMIx_Abort(3, "not really", &other, 1);
    if (PMIX_ERR_UNREACH != rc) {
        FAIL("abort: %s", PMIx_Error_string(rc));
    }
    check_groups_unreachable(&me, &other);

    rc = PMIx_Finalize(NULL, 0);
    if (PMIX_SUCCESS != rc || PMIx_Initialized()) {
        FAIL("finalize: %s", PMIx_Error_string(rc));
    }
    printf("singleton: %d failures\n", failures);
    return failures;
}
