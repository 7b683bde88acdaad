/* What more than one compat5 program does: start as a tool that connects
 * to no server (OpenPMIx 5.0 builds its attribute dictionary in init,
 * and a tool needs no server for it). Header-only: each program includes
 * it once. */
#ifndef COMPAT5_TOOL_ALONE_H
#define COMPAT5_TOOL_ALONE_H

#include <stdbool.h>
#include <stdio.h>
#include <pmix_tool.h>

/* PMIx_tool_init with PMIX_TOOL_DO_NOT_CONNECT; prints "init: STATUS"
 * and returns the status. */
static pmix_status_t tool_init_alone(pmix_proc_t *me)
{
    pmix_info_t alone;
    bool yes = true;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&alone, PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
    rc = PMIx_tool_init(me, &alone, 1);
    PMIX_INFO_DESTRUCT(&alone);
    printf("init: %d\n", rc);
    return rc;
}

#endif
