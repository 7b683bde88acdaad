"""python3-pmix's PMIxTool pulling a job's output on our library
(tests/iof.rs): iof_tool.py PID NSPACE TMPDIR attaches to the server of
pid PID (rendezvous files in TMPDIR), pulls the stdout of every rank of
NSPACE (a 2-rank job whose ranks print "line R" and "bye R" once started)
with PMIX_IOF_TAG_OUTPUT, prints "pulled", waits (bounded) for each
rank's tagged lines, deregisters and finalizes. Prints "py iof ok"."""
import sys
import threading

import pmix
from pyhelp import attach_tool


def main():
    tool, _, nspace = attach_tool(sys.argv)
    text = {0: '', 1: ''}
    cond = threading.Condition()

    def handler(refid, channel, source, payload, info):
        data = payload.get('bytes', b'')
        if isinstance(data, bytes):
            data = data.decode(errors='replace')
        with cond:
            text[source['rank']] = text.get(source['rank'], '') + data
            cond.notify_all()

    rc, refid = tool.iof_pull(
        [{'nspace': nspace, 'rank': pmix.PMIX_RANK_WILDCARD}],
        pmix.PMIX_FWD_STDOUT_CHANNEL,
        [{'key': pmix.PMIX_IOF_TAG_OUTPUT, 'value': True, 'val_type': pmix.PMIX_BOOL}],
        handler)
    if rc != pmix.PMIX_SUCCESS or refid < 0:
        sys.exit("pull: %d %d" % (rc, refid))
    print("pulled", flush=True)
    jobid = nspace.rsplit('@', 1)[-1]
    want = {r: ("[%s,%d]<stdout>: line %d" % (jobid, r, r), "[%s,%d]<stdout>: bye %d" % (jobid, r, r))
            for r in (0, 1)}

    def seen(r):
        # Both lines, in order. Not necessarily adjacent: python3-pmix
        # hands output that arrives before iof_pull returns (what the
        # ranks wrote before the pull, which the server replays first) to
        # the handler later, from timer threads of its own, so under load
        # those earlier lines can land after the live ones.
        lines = text[r].splitlines()
        first, then = want[r]
        return first in lines and then in lines and lines.index(first) < lines.index(then)

    with cond:
        ok = cond.wait_for(lambda: all(seen(r) for r in (0, 1)), timeout=30)
    if not ok:
        sys.exit("timed out; got %r" % text)
    try:
        rc = tool.iof_deregister(refid, [])
        if rc != pmix.PMIX_SUCCESS:
            sys.exit("deregister: %d" % rc)
    except TypeError:
        # python3-pmix 4.2.2's iof_deregister calls the library, then
        # fails in its own bookkeeping ("for h in myhdlrs and not found").
        pass
    rc = tool.finalize()
    if rc != pmix.PMIX_SUCCESS:
        sys.exit("finalize: %d" % rc)
    print("py iof ok", flush=True)


main()
