/* A tool of tests/pmixrun_modes.rs attaching to `pmixrun --system-server`.
 * Usage: system_tool system SYSTEM_TMPDIR NSPACE [HOST]
 *        system_tool uri URI NSPACE [HOST]
 * `system`: PMIx_tool_init with PMIX_CONNECT_TO_SYSTEM (and
 * PMIX_SYSTEM_TMPDIR); `uri`: with PMIX_SERVER_URI (e.g. file:PATH).
 * Then queries PMIX_QUERY_NAMESPACES, which must list NSPACE; with HOST,
 * queries PMIX_SERVER_URI of that node (PMIX_HOSTNAME qualifier, as
 * OpenPMIx's examples/tool.c --uri does) and prints "server uri: URI", and
 * checks that another node's is not found. Finalizes. Prints "system tool
 * ok"; exits with the number of failed checks. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_tool.h>

#include "query_one.h"

static int failures = 0;

#define FAIL(...)                                    \
    do {                                             \
        fprintf(stderr, "system tool: line %d: ", __LINE__); \
        fprintf(stderr, __VA_ARGS__);                \
        fprintf(stderr, "\n");                       \
        failures++;                                  \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: system_tool system|uri ARG NSPACE [HOST]\n");
        return 2;
    }
    pmix_info_t info[2];
    size_t ninfo = 0;
    bool yes = true;
    if (0 == strcmp(argv[1], "system")) {
        PMIX_INFO_LOAD(&info[ninfo], PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL);
        ninfo++;
        PMIX_INFO_LOAD(&info[ninfo], PMIX_SYSTEM_TMPDIR, argv[2], PMIX_STRING);
        ninfo++;
    } else {
        PMIX_INFO_LOAD(&info[ninfo], PMIX_SERVER_URI, argv[2], PMIX_STRING);
        ninfo++;
    }
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, info, ninfo);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "system tool: tool_init (%s): %s\n", argv[1], PMIx_Error_string(rc));
        return 1;
    }
    char *names;
    rc = query_string(PMIX_QUERY_NAMESPACES, &names);
    if (NULL == names) {
        FAIL("query namespaces: %s, no string", PMIx_Error_string(rc));
    } else if (NULL == strstr(names, argv[3])) {
        FAIL("namespaces %s do not list %s", names, argv[3]);
    }
    free(names);
    const char *hosts[2] = {argc > 4 ? argv[4] : NULL, "surely-not-this-host.example"};
    for (int h = 0; h < 2 && NULL != hosts[0]; h++) {
        pmix_info_t host, *results;
        size_t nresults;
        PMIX_INFO_LOAD(&host, PMIX_HOSTNAME, hosts[h], PMIX_STRING);
        rc = query_one(PMIX_SERVER_URI, &host, 1, &results, &nresults);
        PMIX_INFO_DESTRUCT(&host);
        if (0 == h) {
            if (PMIX_SUCCESS != rc || 1 != nresults || PMIX_STRING != results[0].value.type
                || !PMIX_CHECK_KEY(&results[0], PMIX_SERVER_URI)) {
                FAIL("server uri of %s: %s, %zu results", hosts[h], PMIx_Error_string(rc),
                     nresults);
            } else {
                printf("server uri: %s\n", results[0].value.data.string);
            }
        } else if (PMIX_SUCCESS == rc) {
            FAIL("a server uri of %s", hosts[h]);
        }
        if (NULL != results) {
            PMIX_INFO_FREE(results, nresults);
        }
    }
    rc = PMIx_tool_finalize();
    if (PMIX_SUCCESS != rc) {
        FAIL("tool_finalize: %s", PMIx_Error_string(rc));
    }
    if (0 == failures) {
        printf("system tool ok\n");
    }
    return failures;
}
