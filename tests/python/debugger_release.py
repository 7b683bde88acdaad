"""python3-pmix's PMIxTool releases a job stopped in init (tests/debugger.rs):
debugger_release.py PID NSPACE TMPDIR attaches to the server of pid PID
(rendezvous files in TMPDIR) and sends PMIX_DEBUGGER_RELEASE to every rank
of NSPACE, then finalizes. Prints "py release ok"."""
import sys

import pmix
from pyhelp import attach_tool


def main():
    tool, me, nspace = attach_tool(sys.argv)
    job = {'nspace': nspace, 'rank': pmix.PMIX_RANK_WILDCARD}
    rc = tool.notify_event(pmix.PMIX_DEBUGGER_RELEASE, me, pmix.PMIX_RANGE_CUSTOM, [
        {'key': pmix.PMIX_EVENT_CUSTOM_RANGE, 'value': job, 'val_type': pmix.PMIX_PROC},
        {'key': pmix.PMIX_EVENT_NON_DEFAULT, 'value': True, 'val_type': pmix.PMIX_BOOL},
    ])
    if rc not in (pmix.PMIX_SUCCESS, pmix.PMIX_OPERATION_SUCCEEDED):
        sys.exit("release: %d" % rc)
    rc = tool.finalize()
    if rc != pmix.PMIX_SUCCESS:
        sys.exit("finalize: %d" % rc)
    print("py release ok")


main()
