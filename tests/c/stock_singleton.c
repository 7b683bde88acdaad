/* A process started with no PMIx server in its environment, on a stock
 * OpenPMIx library (tests/stock_tools.rs): PMIx_Init makes it a
 * singleton, which looks for a session server's rendezvous file
 * (pmix.<host>.tool in $TMPDIR) and connects to it. Prints
 * "singleton init RC NSPACE", then asks the server for its namespaces
 * (PMIx_Query_info, PMIX_QUERY_NAMESPACES: answered only by a server it
 * is connected to) and prints "singleton namespaces RC LIST", then
 * finalizes and prints "singleton done RC". */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

int main(void)
{
    pmix_proc_t me;
    pmix_query_t query;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_status_t rc;

    alarm(45);
    rc = PMIx_Init(&me, NULL, 0);
    printf("singleton init %d %s\n", rc, me.nspace);
    fflush(stdout);
    PMIX_QUERY_CONSTRUCT(&query);
    PMIX_ARGV_APPEND(rc, query.keys, PMIX_QUERY_NAMESPACES);
    rc = PMIx_Query_info(&query, 1, &results, &nresults);
    PMIX_QUERY_DESTRUCT(&query);
    printf("singleton namespaces %d %s\n", rc,
           (PMIX_SUCCESS == rc && 0 < nresults && PMIX_STRING == results[0].value.type)
               ? results[0].value.data.string
               : "-");
    fflush(stdout);
    if (NULL != results) {
        PMIX_INFO_FREE(results, nresults);
    }
    rc = PMIx_Finalize(NULL, 0);
    printf("singleton done %d\n", rc);
    return 0;
}
