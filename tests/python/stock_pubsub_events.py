"""python3-pmix (OpenPMIx 4.2's bindings) on Debian's libpmix as a client
of our server's stock door (tests/stock_clients.rs), two ranks or more:
rank 0 publishes a service, every rank looks it up (waiting for it),
rank 0 unpublishes between fences and the key is gone; then every rank
registers an event handler, fences, rank 0 notifies the namespace and
every other rank waits (at most 20 s) for the event from rank 0.
Prints the libpmix it runs on (from /proc/self/maps),
"stockpy-pubsub RANK ok" and, for ranks other than 0,
"stockpy-event RANK from 0"; any failure exits non-zero naming the
step."""
import sys
import threading

import pyhelp
from pmix import (PMIxClient, PMIX_SUCCESS, PMIX_STRING, PMIX_INT, PMIX_WAIT,
                  PMIX_ERR_NOT_FOUND, PMIX_RANGE_NAMESPACE,
                  PMIX_EXTERNAL_ERR_BASE, PMIX_EVENT_ACTION_COMPLETE)

# A code of the applications' own range (as tests/c/stock_client.c's).
EVENT = PMIX_EXTERNAL_ERR_BASE - 43


def check(cond, what):
    pyhelp.check(cond, "stockpy rank", what)


c = PMIxClient()
rc, me = c.init([])
check(rc == PMIX_SUCCESS, "init %d" % rc)
ns, rank = me['nspace'], me['rank']


def pdata(key):
    return [{'proc': {'nspace': ns, 'rank': rank}, 'key': key,
             'value': '', 'val_type': PMIX_STRING}]


# Publish / lookup / unpublish.
if rank == 0:
    item = [{'key': 'stockpy-svc', 'value': 'stockpy-port', 'val_type': PMIX_STRING}]
    check(c.publish(item) == PMIX_SUCCESS, "publish")
rc, res = c.lookup(pdata('stockpy-svc'), [{'key': PMIX_WAIT, 'value': 0, 'val_type': PMIX_INT}])
check(rc == PMIX_SUCCESS, "lookup %d" % rc)
check(len(res) == 1 and pyhelp.text(res[0]['value']) == 'stockpy-port', "lookup value %r" % res)
check(res[0]['proc']['rank'] == 0 and pyhelp.text(res[0]['proc']['nspace']) == pyhelp.text(ns),
      "publisher %r" % res)
check(c.fence(None, []) == PMIX_SUCCESS, "fence")
if rank == 0:
    check(c.unpublish(['stockpy-svc'], []) == PMIX_SUCCESS, "unpublish")
check(c.fence(None, []) == PMIX_SUCCESS, "fence")
rc, res = c.lookup(pdata('stockpy-svc'), [])
check(rc == PMIX_ERR_NOT_FOUND, "lookup after unpublish %d" % rc)
print("stockpy-pubsub %d ok" % rank, flush=True)

# An event from rank 0 to the namespace.
got = threading.Event()
source = []


def handler(evid, status, src, info, results):
    if status == EVENT:
        source.append(src['rank'])
        got.set()
    return PMIX_EVENT_ACTION_COMPLETE, []


rc, _ = c.register_event_handler([EVENT], [], handler)
check(rc == PMIX_SUCCESS, "register the event handler %d" % rc)
check(c.fence(None, []) == PMIX_SUCCESS, "fence")
if rank == 0:
    check(c.notify_event(EVENT, {'nspace': ns, 'rank': rank}, PMIX_RANGE_NAMESPACE, [])
          == PMIX_SUCCESS, "notify")
else:
    check(got.wait(20), "no event within 20 s")
    print("stockpy-event %d from %d" % (rank, source[0]), flush=True)
with open("/proc/self/maps") as maps:
    for line in maps:
        if "libpmix.so" in line:
            print("stockpy-pubsub %d lib %s" % (rank, line.split()[-1]), flush=True)
            break
check(c.fence(None, []) == PMIX_SUCCESS, "last fence")
c.finalize([])
