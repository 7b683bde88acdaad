/* A process on a stock OpenPMIx library that connects to the server the
 * test plays: "client" calls PMIx_Init with the rendezvous the
 * environment gives; "tool URI" calls PMIx_tool_init pointed at URI.
 * Prints the library it runs on, then "init STATUS" (or "tool_init
 * STATUS"); exits 0 on success, 3 on failure. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pmix.h>
#include <pmix_tool.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    Dl_info where;
    pmix_proc_t me;
    pmix_status_t rc;

    if (0 != dladdr((void *) PMIx_Init, &where) && NULL != where.dli_fname) {
        printf("lib %s\n", where.dli_fname);
    }
    printf("version %s\n", PMIx_Get_version());
    fflush(stdout);
    if (argc > 2 && 0 == strcmp(argv[1], "tool")) {
        pmix_info_t info[1];
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_URI, argv[2], PMIX_STRING);
        rc = PMIx_tool_init(&me, info, 1);
        printf("tool_init %d\n", rc);
        fflush(stdout);
        if (PMIX_SUCCESS == rc) {
            PMIx_tool_finalize();
        }
    } else {
        rc = PMIx_Init(&me, NULL, 0);
        printf("init %d\n", rc);
        fflush(stdout);
        if (PMIX_SUCCESS == rc) {
            PMIx_Finalize(NULL, 0);
        }
    }
    return PMIX_SUCCESS == rc ? 0 : 3;
}
