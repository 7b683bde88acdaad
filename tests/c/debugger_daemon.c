/* A debugger daemon (tests/debugger.rs), written as PRRTE's
 * examples/debugger/daemon.c works: started by the launcher beside a
 * target job, it calls PMIx_tool_init (the launcher's environment makes
 * it a client of that launcher's server), reads PMIX_DEBUG_TARGET from
 * its own job data and its PMIX_LOCAL_RANK, queries the local proc table
 * of the target's namespace and checks each entry (the target's
 * namespace, a host, a pid that exists, an absolute executable). Prints
 * "daemon RANK target NSPACE procs N", one "daemon RANK sees RANK PID EXE"
 * per entry, and exits 0, or 1 with a message on stderr. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_tool.h>

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "debugger_daemon: " __VA_ARGS__);                      \
        fprintf(stderr, "\n");                                                 \
        PMIx_tool_finalize();                                                  \
        return 1;                                                              \
    } while (0)

int main(void)
{
    pmix_proc_t me, job, target;
    pmix_value_t *val = NULL;
    pmix_query_t query;
    pmix_info_t *results = NULL;
    size_t nresults = 0, n;
    pmix_status_t rc;

    if (PMIX_SUCCESS != (rc = PMIx_tool_init(&me, NULL, 0))) {
        fprintf(stderr, "debugger_daemon: PMIx_tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_DEBUG_TARGET, NULL, 0, &val);
    if (PMIX_SUCCESS != rc || NULL == val || PMIX_PROC != val->type) {
        FAIL("no PMIX_DEBUG_TARGET: %s", PMIx_Error_string(rc));
    }
    target = *val->data.proc;
    PMIX_VALUE_RELEASE(val);
    rc = PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &val);
    if (PMIX_SUCCESS != rc || NULL == val || PMIX_UINT16 != val->type) {
        FAIL("no PMIX_LOCAL_RANK: %s", PMIx_Error_string(rc));
    }
    PMIX_VALUE_RELEASE(val);

    PMIX_QUERY_CONSTRUCT(&query);
    PMIX_ARGV_APPEND(rc, query.keys, PMIX_QUERY_LOCAL_PROC_TABLE);
    PMIX_QUERY_QUALIFIERS_CREATE(&query, 1);
    PMIX_INFO_LOAD(&query.qualifiers[0], PMIX_NSPACE, target.nspace, PMIX_STRING);
    rc = PMIx_Query_info(&query, 1, &results, &nresults);
    PMIX_QUERY_DESTRUCT(&query);
    if (PMIX_SUCCESS != rc || 1 != nresults || PMIX_DATA_ARRAY != results[0].value.type ||
        PMIX_PROC_INFO != results[0].value.data.darray->type) {
        FAIL("local proc table of %s: %s", target.nspace, PMIx_Error_string(rc));
    }
    pmix_proc_info_t *pi = results[0].value.data.darray->array;
    size_t np = results[0].value.data.darray->size;
    printf("daemon %u target %s procs %zu\n", me.rank, target.nspace, np);
    for (n = 0; n < np; n++) {
        if (!PMIX_CHECK_NSPACE(pi[n].proc.nspace, target.nspace)) {
            FAIL("entry %zu of namespace %s", n, pi[n].proc.nspace);
        }
        if (NULL == pi[n].hostname || 0 >= pi[n].pid || 0 != kill(pi[n].pid, 0)) {
            FAIL("entry %zu: host %s pid %d", n, pi[n].hostname ? pi[n].hostname : "(null)",
                 (int) pi[n].pid);
        }
        if (NULL == pi[n].executable_name || '/' != pi[n].executable_name[0]) {
            FAIL("entry %zu: executable %s", n,
                 pi[n].executable_name ? pi[n].executable_name : "(null)");
        }
        printf("daemon %u sees %u %d %s\n", me.rank, pi[n].proc.rank, (int) pi[n].pid,
               pi[n].executable_name);
    }
    fflush(stdout);
    PMIX_INFO_FREE(results, nresults);
    if (PMIX_SUCCESS != (rc = PMIx_tool_finalize())) {
        fprintf(stderr, "debugger_daemon: finalize: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    return 0;
}
