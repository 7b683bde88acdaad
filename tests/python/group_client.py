"""Process groups through python3-pmix (the bindings of OpenPMIx 4.2.2,
unchanged) on our libpmix.so.2, one rank of a pmixrun job (tests/groups.rs):
every rank puts a value, constructs group "pygrp" of the whole job (listed
backwards) asking for a context id, checks the results (PMIX_GROUP_CONTEXT_ID
first, then PMIX_GROUP_MEMBERSHIP sorted by rank), fences on
{pygrp, WILDCARD}, reads its neighbour's value through {pygrp, r},
destructs the group, and gets PMIX_ERR_NOT_FOUND from a second destruct.
Prints "py group R ok"."""
import signal

import pyhelp
from pyhelp import text

from pmix import (PMIxClient, PMIX_SUCCESS, PMIX_ERR_NOT_FOUND, PMIX_BOOL,
                  PMIX_STRING, PMIX_INT, PMIX_PROC, PMIX_GLOBAL,
                  PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, PMIX_TIMEOUT,
                  PMIX_GROUP_ASSIGN_CONTEXT_ID, PMIX_GROUP_CONTEXT_ID,
                  PMIX_GROUP_MEMBERSHIP)

# A backstop: a call that hangs ends the process (a Python handler would
# not run while the main thread is inside the C library).
signal.alarm(45)


def check(cond, what):
    pyhelp.check(cond, "py group %s" % rank, what)


rank = "?"
c = PMIxClient()
rc, me = c.init([])
check(rc == PMIX_SUCCESS, "init %d" % rc)
ns, rank = text(me['nspace']), me['rank']

rc, v = c.get({'nspace': ns, 'rank': PMIX_RANK_WILDCARD}, PMIX_JOB_SIZE, [])
check(rc == PMIX_SUCCESS, "job size %d" % rc)
n = v['value']

check(c.put(PMIX_GLOBAL, 'py.grp.val', {'value': 'py-%d' % rank, 'val_type': PMIX_STRING})
      == PMIX_SUCCESS, "put")
check(c.commit() == PMIX_SUCCESS, "commit")

peers = [{'nspace': ns, 'rank': r} for r in reversed(range(n))]
rc, res = c.group_construct('pygrp', peers, [
    {'key': PMIX_GROUP_ASSIGN_CONTEXT_ID, 'value': True, 'val_type': PMIX_BOOL}])
check(rc == PMIX_SUCCESS, "group_construct %d" % rc)
check(len(res) >= 2, "group_construct results %r" % res)
check(text(res[0]['key']) == text(PMIX_GROUP_CONTEXT_ID),
      "results[0] is %s, want the context id" % res[0]['key'])
check(isinstance(res[0]['value'], int), "context id %r" % res[0]['value'])
check(text(res[1]['key']) == text(PMIX_GROUP_MEMBERSHIP),
      "results[1] is %s, want the membership" % res[1]['key'])
members = res[1]['value']
check(isinstance(members, dict) and members.get('type') == PMIX_PROC,
      "membership %r" % members)
got = [(text(m['nspace']), m['rank']) for m in members['array']]
check(got == [(ns, r) for r in range(n)], "membership %r" % got)

group = [{'nspace': 'pygrp', 'rank': PMIX_RANK_WILDCARD}]
check(c.fence(group, []) == PMIX_SUCCESS, "fence on the group")
peer = (rank + 1) % n
rc, v = c.get({'nspace': 'pygrp', 'rank': peer}, 'py.grp.val',
              [{'key': PMIX_TIMEOUT, 'value': 5, 'val_type': PMIX_INT}])
check(rc == PMIX_SUCCESS, "get through {pygrp, %d}: %d" % (peer, rc))
check(v['value'] == 'py-%d' % peer, "value of {pygrp, %d}: %r" % (peer, v))
check(c.fence(group, []) == PMIX_SUCCESS, "second fence on the group")

check(c.group_destruct('pygrp', []) == PMIX_SUCCESS, "group_destruct")
rc = c.group_destruct('pygrp', [])
check(rc == PMIX_ERR_NOT_FOUND, "second group_destruct %d" % rc)
c.finalize([])
print("py group %d ok" % rank, flush=True)
