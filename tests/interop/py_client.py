#!/usr/bin/python3
"""A python3-pmix PMIxClient under a PMIx server (pmixrun): init, job-level
get, put + commit, fence with data collection, a peer's get, publish /
lookup (rank 0 publishes, the others look up after a fence), finalize.
Prints one line per step; exits non-zero on the first failure."""
import os
import sys
import pmix

from maps import libpmix


def say(*args, flush=True):
    """Prints one line with a single write: the launcher forwards each
    rank's writes as they come, so a line written in pieces (text, then
    the newline) can be split by another rank's output."""
    del flush
    os.write(1, (" ".join(str(a) for a in args) + "\n").encode())


def check(what, rc, want=pmix.PMIX_SUCCESS):
    if rc != want:
        say("FAIL %s: status %d, want %d" % (what, rc, want), flush=True)
        sys.exit(1)


def main():
    pubsub = "--pubsub" in sys.argv
    c = pmix.PMIxClient()
    rc, me = c.init([])
    check("init", rc)
    rank = me["rank"]
    if rank == 0:
        say("python libpmix:", libpmix(), flush=True)
    wildcard = {"nspace": me["nspace"], "rank": pmix.PMIX_RANK_WILDCARD}
    rc, size = c.get(wildcard, pmix.PMIX_JOB_SIZE, [])
    check("get job size", rc)
    n = size["value"]
    rc = c.put(pmix.PMIX_GLOBAL, "interop.py", {"value": "py-%d" % rank, "val_type": pmix.PMIX_STRING})
    check("put", rc)
    check("commit", c.commit())
    collect = [{"key": pmix.PMIX_COLLECT_DATA, "value": True, "val_type": pmix.PMIX_BOOL}]
    check("fence", c.fence([wildcard], collect))
    peer = {"nspace": me["nspace"], "rank": (rank + 1) % n}
    rc, v = c.get(peer, "interop.py", [])
    check("peer get", rc)
    if v["value"] != "py-%d" % peer["rank"]:
        say("FAIL peer get: %r" % (v,), flush=True)
        sys.exit(1)
    if pubsub:
        if rank == 0:
            rc = c.publish([{"key": "interop.svc", "value": "port-7", "val_type": pmix.PMIX_STRING}])
            check("publish", rc)
        check("fence after publish", c.fence([wildcard], []))
        if rank != 0:
            rc, pdata = c.lookup([{"key": "interop.svc", "value": None, "val_type": pmix.PMIX_STRING}], [])
            check("lookup", rc)
            say("rank %d lookup: %r" % (rank, pdata), flush=True)
        check("fence after lookup", c.fence([wildcard], []))
    check("finalize", c.finalize([]))
    say("python client %d of %d ok" % (rank, n), flush=True)


main()
