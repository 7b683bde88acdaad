"""python3-pmix's PMIxTool on our library (tests/tools.rs):
tool_client.py PID NSPACE TMPDIR attaches to the server of pid PID
(rendezvous files in TMPDIR), checks that the namespaces query names
NSPACE, and finalizes. Prints "py tool ok"."""
import sys

import pmix


def main():
    pid, nspace, tmp = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    tool = pmix.PMIxTool()
    rc, me = tool.init([
        {'key': pmix.PMIX_SERVER_PIDINFO, 'value': pid, 'val_type': pmix.PMIX_PID},
        {'key': pmix.PMIX_SERVER_TMPDIR, 'value': tmp, 'val_type': pmix.PMIX_STRING},
    ])
    if rc != pmix.PMIX_SUCCESS or not me['nspace'].startswith('tool.'):
        sys.exit("tool init: %d %s" % (rc, me))
    rc, info = tool.query([{'keys': [pmix.PMIX_QUERY_NAMESPACES], 'qualifiers': []}])
    key = pmix.PMIX_QUERY_NAMESPACES
    key = key.decode() if isinstance(key, bytes) else key
    names = [i['value'] for i in info if i['key'] == key]
    if rc != pmix.PMIX_SUCCESS or not names or nspace not in names[0].split(','):
        sys.exit("namespaces query: %d %s (want %r in %r)" % (rc, info, nspace, names))
    rc = tool.finalize()
    if rc != pmix.PMIX_SUCCESS:
        sys.exit("finalize: %d" % rc)
    print("py tool ok")


main()
