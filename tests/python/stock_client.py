"""python3-pmix (OpenPMIx 4.2's bindings, on Debian's libpmix) as a client
of our server's stock door (tests/stock_clients.rs): init, the job size,
put/commit, a collecting fence, the right-hand peer's value, finalize.
Prints the libpmix it runs on (from /proc/self/maps) and
"stockpy RANK of SIZE ok"; any failure exits non-zero naming the step."""
import sys

import pmix


def value(v):
    """A value the bindings may hand back as a dict with its type."""
    return v['value'] if isinstance(v, dict) else v


c = pmix.PMIxClient()
rc, me = c.init([])
if rc != pmix.PMIX_SUCCESS:
    sys.exit("init: %d" % rc)
ns, rank = me['nspace'], me['rank']
rc, size = c.get({'nspace': ns, 'rank': pmix.PMIX_RANK_WILDCARD}, pmix.PMIX_JOB_SIZE, [])
if rc != pmix.PMIX_SUCCESS:
    sys.exit("get job size: %d" % rc)
size = value(size)
rc = c.put(pmix.PMIX_GLOBAL, "stock.py", {'value': rank * 3 + 1, 'val_type': pmix.PMIX_UINT32})
if rc != pmix.PMIX_SUCCESS:
    sys.exit("put: %d" % rc)
rc = c.commit()
if rc != pmix.PMIX_SUCCESS:
    sys.exit("commit: %d" % rc)
collect = {'key': pmix.PMIX_COLLECT_DATA, 'value': True, 'val_type': pmix.PMIX_BOOL}
rc = c.fence([], [collect])
if rc != pmix.PMIX_SUCCESS:
    sys.exit("fence: %d" % rc)
peer = (rank + 1) % size
rc, v = c.get({'nspace': ns, 'rank': peer}, "stock.py", [])
if rc != pmix.PMIX_SUCCESS or value(v) != peer * 3 + 1:
    sys.exit("get the peer's value: %d %r" % (rc, v))
with open("/proc/self/maps") as maps:
    for line in maps:
        if "libpmix.so" in line:
            print("stockpy %d lib %s" % (rank, line.split()[-1]), flush=True)
            break
print("stockpy %d of %d ok" % (rank, size), flush=True)
c.finalize([])
