/* The 5.0 tool and session functions where OpenPMIx 5.0.11 and ours
 * agree: PMIx_tool_is_connected before init, in a tool initialized
 * without a server, and after its finalize; PMIx_Session_control before
 * init. (Past init they differ on purpose: OpenPMIx 5.0.11's session
 * control is a stub answering PMIX_ERR_NOT_SUPPORTED, ours asks the
 * host; see docs/FEATURES.md.) */
#include <stdio.h>
#include <pmix_tool.h>

#include "tool_alone.h"

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc;

    printf("connected before init: %d\n", PMIx_tool_is_connected());
    printf("session control before init: %d\n", PMIx_Session_control(0, NULL, 0, NULL, NULL));
    if (PMIX_SUCCESS != tool_init_alone(&me)) {
        return 1;
    }
    printf("connected without a server: %d\n", PMIx_tool_is_connected());
    rc = PMIx_tool_finalize();
    printf("finalize: %d\n", rc);
    printf("connected after finalize: %d\n", PMIx_tool_is_connected());
    return 0;
}
