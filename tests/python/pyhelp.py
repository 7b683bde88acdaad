"""What the python3-pmix scripts of tests/python share: decoding the
bindings' strings, failing a check, and attaching a PMIxTool to a job's
server from the arguments every tool script gets (PID NSPACE TMPDIR).

Each script is run as `python3 tests/python/SCRIPT`, so this module is
found beside it."""
import sys

import pmix


def text(x):
    """A string the bindings may hand back as bytes, as str."""
    return x.decode() if isinstance(x, bytes) else x


def check(cond, who, what):
    """Ends the process (status 1) naming `who` and `what` unless `cond`."""
    if not cond:
        print("%s failed: %s" % (who, what), file=sys.stderr, flush=True)
        sys.exit(1)


def attach_tool(argv, nspace_prefix=''):
    """Attaches a PMIxTool to the server of pid argv[1] (rendezvous files
    in argv[3]); returns (tool, its proc, the job's namespace argv[2]).
    Exits unless init succeeds with a namespace starting with
    `nspace_prefix`."""
    pid, nspace, tmp = int(argv[1]), argv[2], argv[3]
    tool = pmix.PMIxTool()
    rc, me = tool.init([
        {'key': pmix.PMIX_SERVER_PIDINFO, 'value': pid, 'val_type': pmix.PMIX_PID},
        {'key': pmix.PMIX_SERVER_TMPDIR, 'value': tmp, 'val_type': pmix.PMIX_STRING},
    ])
    if rc != pmix.PMIX_SUCCESS or not text(me['nspace']).startswith(nspace_prefix):
        sys.exit("tool init: %d %s" % (rc, me))
    return tool, me, nspace
