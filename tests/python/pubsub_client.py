"""Publish / lookup / unpublish through python3-pmix (the bindings of
OpenPMIx 4.2, unchanged) on our libpmix.so.2, one rank of a pmixrun job.
Rank 0 publishes; every rank looks up with PMIX_WAIT; rank 0 unpublishes
between fences; then the key is gone. Prints "pubsub rank R ok"."""
import pyhelp

from pmix import (PMIxClient, PMIX_SUCCESS, PMIX_STRING, PMIX_INT, PMIX_WAIT,
                  PMIX_ERR_NOT_FOUND, PMIX_ERR_DUPLICATE_KEY)


def check(cond, what):
    pyhelp.check(cond, "python rank", what)


c = PMIxClient()
rc, me = c.init([])
check(rc == PMIX_SUCCESS, "init %d" % rc)
rank = me['rank']


def pdata(key):
    return [{'proc': {'nspace': me['nspace'], 'rank': rank}, 'key': key,
             'value': '', 'val_type': PMIX_STRING}]


if rank == 0:
    item = [{'key': 'py-svc', 'value': 'py-port', 'val_type': PMIX_STRING}]
    check(c.publish(item) == PMIX_SUCCESS, "publish")
    check(c.publish(item) == PMIX_ERR_DUPLICATE_KEY, "duplicate publish")
rc, res = c.lookup(pdata('py-svc'), [{'key': PMIX_WAIT, 'value': 0, 'val_type': PMIX_INT}])
check(rc == PMIX_SUCCESS, "lookup %d" % rc)
check(len(res) == 1 and res[0]['value'] == 'py-port', "lookup value %r" % res)
check(res[0]['proc']['rank'] == 0 and res[0]['proc']['nspace'] == me['nspace'],
      "publisher %r" % res)
check(c.fence(None, []) == PMIX_SUCCESS, "fence")
if rank == 0:
    check(c.unpublish(['py-svc'], []) == PMIX_SUCCESS, "unpublish")
check(c.fence(None, []) == PMIX_SUCCESS, "fence")
rc, res = c.lookup(pdata('py-svc'), [])
check(rc == PMIX_ERR_NOT_FOUND, "lookup after unpublish %d" % rc)
c.finalize([])
print("pubsub rank %d ok" % rank, flush=True)
