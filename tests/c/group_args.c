/* A C client for tests/group_arguments.rs, launched by pmixrun: every
 * PMIx_Group_* call, blocking and non-blocking, given bad arguments by a
 * process connected to its server, is refused with PMIX_ERR_BAD_PARAM
 * before anything is sent, and no callback ever runs: a NULL group id, a
 * group id the server could not name (empty, longer than PMIX_MAX_NSLEN),
 * a NULL array with a nonzero count, NULL out-parameters of a blocking
 * form, an invite of no procs or
 * of a whole namespace, a join with no leader, with itself or a whole
 * namespace as leader, or with an answer that is neither
 * PMIX_GROUP_DECLINE nor PMIX_GROUP_ACCEPT.
 * Prints "group_args R ok" and exits 0 when every check passed; exits
 * with the number of failures otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static int failures = 0;
static int callbacks = 0;
static pmix_proc_t me;

#define EXPECT_BAD(expr)                                                            \
    do {                                                                            \
        pmix_status_t got_ = (expr);                                                \
        if (PMIX_ERR_BAD_PARAM != got_) {                                           \
            fprintf(stderr, "group_args %u: line %d: %s: got %s, want BAD_PARAM\n", \
                    me.rank, __LINE__, #expr, PMIx_Error_string(got_));             \
            failures++;                                                             \
        }                                                                           \
    } while (0)

static void infocb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                   pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void) status; (void) info; (void) ninfo; (void) cbdata;
    callbacks++;
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
}

static void opcb(pmix_status_t status, void *cbdata)
{
    (void) status; (void) cbdata;
    callbacks++;
}

int main(void)
{
    pmix_status_t rc;
    pmix_proc_t peers[2], wild, leader;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    char long_id[PMIX_MAX_NSLEN + 8];

    memset(&me, 0, sizeof(me));
    rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "group_args: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_LOAD_PROCID(&peers[0], me.nspace, 0);
    PMIX_LOAD_PROCID(&peers[1], me.nspace, 1);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&leader, me.nspace, me.rank + 1);
    memset(long_id, 'g', sizeof(long_id) - 1);
    long_id[sizeof(long_id) - 1] = '\0';

    /* Construct. */
    EXPECT_BAD(PMIx_Group_construct(NULL, peers, 2, NULL, 0, &results, &nresults));
    EXPECT_BAD(PMIx_Group_construct("", peers, 2, NULL, 0, &results, &nresults));
    EXPECT_BAD(PMIx_Group_construct(long_id, peers, 2, NULL, 0, &results, &nresults));
    EXPECT_BAD(PMIx_Group_construct("g", NULL, 2, NULL, 0, &results, &nresults));
    EXPECT_BAD(PMIx_Group_construct("g", peers, 2, NULL, 1, &results, &nresults));
    EXPECT_BAD(PMIx_Group_construct("g", peers, 2, NULL, 0, NULL, &nresults));
    EXPECT_BAD(PMIx_Group_construct("g", peers, 2, NULL, 0, &results, NULL));
    EXPECT_BAD(PMIx_Group_construct_nb(NULL, peers, 2, NULL, 0, infocb, NULL));
    EXPECT_BAD(PMIx_Group_construct_nb("", peers, 2, NULL, 0, infocb, NULL));
    EXPECT_BAD(PMIx_Group_construct_nb("g", NULL, 2, NULL, 0, infocb, NULL));
    EXPECT_BAD(PMIx_Group_construct_nb("g", peers, 2, NULL, 3, infocb, NULL));

    /* Destruct. */
    EXPECT_BAD(PMIx_Group_destruct(NULL, NULL, 0));
    EXPECT_BAD(PMIx_Group_destruct("", NULL, 0));
    EXPECT_BAD(PMIx_Group_destruct("g", NULL, 1));
    EXPECT_BAD(PMIx_Group_destruct_nb(NULL, NULL, 0, opcb, NULL));
    EXPECT_BAD(PMIx_Group_destruct_nb(long_id, NULL, 0, opcb, NULL));
    EXPECT_BAD(PMIx_Group_destruct_nb("g", NULL, 2, opcb, NULL));

    /* Invite. */
    EXPECT_BAD(PMIx_Group_invite(NULL, &leader, 1, NULL, 0, &results, &nresults));
    EXPECT_BAD(PMIx_Group_invite("g", NULL, 0, NULL, 0, &results, &nresults));
    EXPECT_BAD(PMIx_Group_invite("g", NULL, 1, NULL, 0, &results, &nresults));
    EXPECT_BAD(PMIx_Group_invite("g", &leader, 0, NULL, 0, &results, &nresults));
    EXPECT_BAD(PMIx_Group_invite("g", &wild, 1, NULL, 0, &results, &nresults));
    EXPECT_BAD(PMIx_Group_invite("g", &leader, 1, NULL, 1, &results, &nresults));
    EXPECT_BAD(PMIx_Group_invite("g", &leader, 1, NULL, 0, NULL, &nresults));
    EXPECT_BAD(PMIx_Group_invite("g", &leader, 1, NULL, 0, &results, NULL));
    EXPECT_BAD(PMIx_Group_invite_nb(NULL, &leader, 1, NULL, 0, infocb, NULL));
    EXPECT_BAD(PMIx_Group_invite_nb("g", NULL, 0, NULL, 0, infocb, NULL));
    EXPECT_BAD(PMIx_Group_invite_nb("g", &wild, 1, NULL, 0, infocb, NULL));

    /* Join. */
    EXPECT_BAD(PMIx_Group_join(NULL, &leader, PMIX_GROUP_ACCEPT, NULL, 0, &results, &nresults));
    EXPECT_BAD(PMIx_Group_join("g", NULL, PMIX_GROUP_ACCEPT, NULL, 0, &results, &nresults));
    EXPECT_BAD(PMIx_Group_join("g", &me, PMIX_GROUP_ACCEPT, NULL, 0, &results, &nresults));
    EXPECT_BAD(PMIx_Group_join("g", &wild, PMIX_GROUP_ACCEPT, NULL, 0, &results, &nresults));
    EXPECT_BAD(PMIx_Group_join("g", &leader, (pmix_group_opt_t) 2, NULL, 0, &results,
                               &nresults));
    EXPECT_BAD(PMIx_Group_join("g", &leader, (pmix_group_opt_t) -1, NULL, 0, &results,
                               &nresults));
    EXPECT_BAD(PMIx_Group_join("g", &leader, PMIX_GROUP_DECLINE, NULL, 1, &results, &nresults));
    EXPECT_BAD(PMIx_Group_join("g", &leader, PMIX_GROUP_DECLINE, NULL, 0, NULL, &nresults));
    EXPECT_BAD(PMIx_Group_join("g", &leader, PMIX_GROUP_DECLINE, NULL, 0, &results, NULL));
    EXPECT_BAD(PMIx_Group_join_nb(NULL, &leader, PMIX_GROUP_ACCEPT, NULL, 0, infocb, NULL));
    EXPECT_BAD(PMIx_Group_join_nb("g", NULL, PMIX_GROUP_DECLINE, NULL, 0, infocb, NULL));
    EXPECT_BAD(PMIx_Group_join_nb("g", &leader, (pmix_group_opt_t) 7, NULL, 0, infocb, NULL));
    EXPECT_BAD(PMIx_Group_join_nb("g", &leader, PMIX_GROUP_ACCEPT, NULL, 4, infocb, NULL));

    /* Leave. */
    EXPECT_BAD(PMIx_Group_leave(NULL, NULL, 0));
    EXPECT_BAD(PMIx_Group_leave("", NULL, 0));
    EXPECT_BAD(PMIx_Group_leave("g", NULL, 1));
    EXPECT_BAD(PMIx_Group_leave_nb(NULL, NULL, 0, opcb, NULL));
    EXPECT_BAD(PMIx_Group_leave_nb("g", NULL, 5, opcb, NULL));

    /* A NULL callback of an _nb form is not bad input: OpenPMIx accepts
     * it, and so do we (tests/groups.rs c21_join_nb_without_a_callback). */

    /* Callbacks would come from the progress thread: a fence with the
     * server (one round trip) lets any stray one arrive first. */
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "group_args %u: fence: %s\n", me.rank, PMIx_Error_string(rc));
        failures++;
    }
    if (0 != callbacks) {
        fprintf(stderr, "group_args %u: %d callbacks of refused calls\n", me.rank, callbacks);
        failures++;
    }
    if (NULL != results || 0 != nresults) {
        fprintf(stderr, "group_args %u: refused calls left results\n", me.rank);
        failures++;
    }

    rc = PMIx_Finalize(NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "group_args %u: finalize: %s\n", me.rank, PMIx_Error_string(rc));
        failures++;
    }
    if (0 == failures) {
        printf("group_args %u ok\n", me.rank);
    }
    return failures;
}
