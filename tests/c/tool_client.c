/* A tool on the C API (tests/tools.rs): tool_client PID NSPACE [PID2
 * NSPACE2] attaches to the server of pid PID (PMIX_SERVER_PIDINFO;
 * rendezvous files in $TMPDIR or /tmp), checks its identity, that the
 * namespaces query names NSPACE, and reads NSPACE's job size (NSPACE
 * "-": none; TOOL_EXPECT_NSPACE: the identity the host gives). With a
 * second server: attaches to it too (PMIx_tool_attach_to_server), finds
 * both in PMIx_tool_get_servers, makes the second primary
 * (PMIx_tool_set_server) and checks that queries now go there,
 * disconnects the first (PMIx_tool_disconnect) and finds one server
 * left. Then finalizes. Prints "tool ok". */
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

/* The namespaces query (of the primary server) names ns; its size is 2. */
static int check_job(const char *ns)
{
    pmix_query_t query;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_value_t *val = NULL;
    pmix_proc_t job;
    pmix_status_t rc;

    PMIX_QUERY_CONSTRUCT(&query);
    PMIX_ARGV_APPEND(rc, query.keys, PMIX_QUERY_NAMESPACES);
    rc = PMIx_Query_info(&query, 1, &results, &nresults);
    PMIX_QUERY_DESTRUCT(&query);
    if (PMIX_SUCCESS != rc || 0 == nresults || PMIX_STRING != results[0].value.type ||
        NULL == strstr(results[0].value.data.string, ns)) {
        FAIL("namespaces query for %s: %s", ns, PMIx_Error_string(rc));
    }
    PMIX_INFO_FREE(results, nresults);
    PMIX_LOAD_PROCID(&job, ns, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
    if (PMIX_SUCCESS != rc || NULL == val || PMIX_UINT32 != val->type || 2 != val->data.uint32) {
        FAIL("job size of %s: %s", ns, PMIx_Error_string(rc));
    }
    PMIX_VALUE_RELEASE(val);
    return 0;
}

/* Attaches to the server of pid2 (job ns2) as well, makes it primary,
 * drops the first (whose identity is first). */
static int second_server(const char *pid2s, const char *ns2, const pmix_proc_t *me)
{
    pmix_proc_t me2, srv2, *servers = NULL;
    pmix_info_t info[2];
    size_t nservers = 0, ninfo = 1;
    pmix_status_t rc;
    pid_t pid2 = (pid_t) atoi(pid2s);
    const char *tmp = getenv("TMPDIR");

    if (PMIX_SUCCESS != (rc = PMIx_tool_get_servers(&servers, &nservers)) || 1 != nservers) {
        FAIL("get_servers before attaching: %s, %zu", PMIx_Error_string(rc), nservers);
    }
    pmix_proc_t first = servers[0];
    PMIX_PROC_FREE(servers, nservers);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid2, PMIX_PID);
    if (NULL != tmp) {
        PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TMPDIR, tmp, PMIX_STRING);
        ninfo = 2;
    }
    rc = PMIx_tool_attach_to_server(&me2, &srv2, info, ninfo);
    PMIX_INFO_DESTRUCT(&info[ninfo - 1]); /* the directory string, if any */
    if (PMIX_SUCCESS != rc) {
        FAIL("attach_to_server: %s", PMIx_Error_string(rc));
    }
    if (!PMIX_CHECK_PROCID(&me2, me)) {
        FAIL("identity at the second server: %s.%u", me2.nspace, me2.rank);
    }
    if (PMIX_SUCCESS != (rc = PMIx_tool_get_servers(&servers, &nservers)) || 2 != nservers) {
        FAIL("get_servers after attaching: %s, %zu", PMIx_Error_string(rc), nservers);
    }
    PMIX_PROC_FREE(servers, nservers);
    if (PMIX_SUCCESS != (rc = PMIx_tool_set_server(&srv2, NULL, 0))) {
        FAIL("set_server: %s", PMIx_Error_string(rc));
    }
    if (0 != check_job(ns2)) {
        return 1;
    }
    if (PMIX_SUCCESS != (rc = PMIx_tool_disconnect(&first))) {
        FAIL("disconnect: %s", PMIx_Error_string(rc));
    }
    if (PMIX_ERR_NOT_FOUND != (rc = PMIx_tool_disconnect(&first))) {
        FAIL("second disconnect: %s", PMIx_Error_string(rc));
    }
    if (PMIX_SUCCESS != (rc = PMIx_tool_get_servers(&servers, &nservers)) || 1 != nservers ||
        !PMIX_CHECK_PROCID(&servers[0], &srv2)) {
        FAIL("get_servers after disconnecting: %s, %zu", PMIx_Error_string(rc), nservers);
    }
    PMIX_PROC_FREE(servers, nservers);
    return check_job(ns2);
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_info_t info[2];
    size_t ninfo = 1;
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
    rc = PMIx_tool_init(&me, info, ninfo);
    PMIX_INFO_DESTRUCT(&info[ninfo - 1]); /* the directory string, if any */
    if (PMIX_SUCCESS != rc) {
        FAIL("PMIx_tool_init: %s", PMIx_Error_string(rc));
    }
    const char *expect = getenv("TOOL_EXPECT_NSPACE");
    if (NULL != expect ? 0 != strcmp(me.nspace, expect) : 0 != strncmp(me.nspace, "tool.", 5)) {
        FAIL("identity %s", me.nspace);
    }
    /* NSPACE "-": no job to look at (a host that registered none). */
    if (0 != strcmp(argv[2], "-") && 0 != check_job(argv[2])) {
        return 1;
    }
    if (argc >= 5 && 0 != second_server(argv[3], argv[4], &me)) {
        return 1;
    }
    if (PMIX_SUCCESS != (rc = PMIx_tool_finalize())) {
        FAIL("PMIx_tool_finalize: %s", PMIx_Error_string(rc));
    }
    printf("tool ok\n");
    return 0;
}
