/* A tool on the C API (tests/tools.rs): tool_client PID NSPACE
 * attaches to the server of pid PID (PMIX_SERVER_PIDINFO; rendezvous
 * files in $TMPDIR or /tmp), checks its identity, that the namespaces
 * query names NSPACE, and reads NSPACE's job size; then finalizes.
 * Prints "tool ok". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_tool.h>

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "tool_client: " __VA_ARGS__);                          \
        fprintf(stderr, "\n");                                                 \
        return 1;                                                              \
    } while (0)

int main(int argc, char **argv)
{
    pmix_proc_t me, job;
    pmix_info_t info[2];
    pmix_query_t query;
    pmix_info_t *results = NULL;
    size_t nresults = 0, ninfo = 1;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    pid_t pid;
    const char *tmp = getenv("TMPDIR");

    if (argc < 3) {
        fprintf(stderr, "usage: tool_client PID NSPACE\n");
        return 2;
    }
    alarm(45);
    pid = (pid_t) atoi(argv[1]);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    if (NULL != tmp) {
        PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TMPDIR, tmp, PMIX_STRING);
        ninfo = 2;
    }
    if (PMIX_SUCCESS != (rc = PMIx_tool_init(&me, info, ninfo))) {
        FAIL("PMIx_tool_init: %s", PMIx_Error_string(rc));
    }
    if (0 != strncmp(me.nspace, "tool.", 5)) {
        FAIL("identity %s", me.nspace);
    }
    PMIX_QUERY_CONSTRUCT(&query);
    PMIX_ARGV_APPEND(rc, query.keys, PMIX_QUERY_NAMESPACES);
    rc = PMIx_Query_info(&query, 1, &results, &nresults);
    if (PMIX_SUCCESS != rc || 0 == nresults || PMIX_STRING != results[0].value.type ||
        NULL == strstr(results[0].value.data.string, argv[2])) {
        FAIL("namespaces query: %s", PMIx_Error_string(rc));
    }
    PMIX_INFO_FREE(results, nresults);
    PMIX_LOAD_PROCID(&job, argv[2], PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
    if (PMIX_SUCCESS != rc || NULL == val || PMIX_UINT32 != val->type || 2 != val->data.uint32) {
        FAIL("job size: %s", PMIx_Error_string(rc));
    }
    PMIX_VALUE_RELEASE(val);
    if (PMIX_SUCCESS != (rc = PMIx_tool_finalize())) {
        FAIL("PMIx_tool_finalize: %s", PMIx_Error_string(rc));
    }
    printf("tool ok\n");
    return 0;
}
