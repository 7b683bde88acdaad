"""python3-pmix's PMIxTool on our library (tests/tools.rs):
tool_client.py PID NSPACE TMPDIR attaches to the server of pid PID
(rendezvous files in TMPDIR), checks that the namespaces query names
NSPACE, and finalizes. Prints "py tool ok"."""
import sys

import pmix
from pyhelp import attach_tool, text


def main():
    tool, me, nspace = attach_tool(sys.argv, 'tool.')
    rc, info = tool.query([{'keys': [pmix.PMIX_QUERY_NAMESPACES], 'qualifiers': []}])
    key = text(pmix.PMIX_QUERY_NAMESPACES)
    names = [i['value'] for i in info if i['key'] == key]
    if rc != pmix.PMIX_SUCCESS or not names or nspace not in names[0].split(','):
        sys.exit("namespaces query: %d %s (want %r in %r)" % (rc, info, nspace, names))
    rc = tool.finalize()
    if rc != pmix.PMIX_SUCCESS:
        sys.exit("finalize: %d" % rc)
    print("py tool ok")


main()
