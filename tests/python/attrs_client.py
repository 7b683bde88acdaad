"""Attribute support through python3-pmix (the bindings of OpenPMIx 4.2.2,
unchanged) on our libpmix.so.2, one rank of a pmixrun job
(tests/attributes.rs): a query of PMIX_QUERY_ATTRIBUTE_SUPPORT with the
PMIX_CLIENT_FUNCTIONS and PMIX_SERVER_FUNCTIONS qualifiers answers one info
holding an array of infos, the comma-separated function lists (the
bindings cannot unload pmix_regattr_t arrays, so the attribute arrays
themselves are read by the C tests). Prints "py attrs R ok"."""
import signal

import pyhelp
from pyhelp import text

from pmix import (PMIxClient, PMIX_SUCCESS, PMIX_BOOL,
                  PMIX_QUERY_ATTRIBUTE_SUPPORT, PMIX_CLIENT_FUNCTIONS,
                  PMIX_SERVER_FUNCTIONS)

# A backstop: a call that hangs ends the process.
signal.alarm(45)


def check(cond, what):
    pyhelp.check(cond, "py attrs", what)


c = PMIxClient()
rc, me = c.init([])
check(rc == PMIX_SUCCESS, "init %d" % rc)
rc, info = c.query([{
    'keys': [PMIX_QUERY_ATTRIBUTE_SUPPORT],
    'qualifiers': [
        {'key': PMIX_CLIENT_FUNCTIONS, 'value': True, 'val_type': PMIX_BOOL},
        {'key': PMIX_SERVER_FUNCTIONS, 'value': True, 'val_type': PMIX_BOOL},
    ],
}])
check(rc == PMIX_SUCCESS, "query %d" % rc)
check(len(info) == 1 and info[0]['key'] == text(PMIX_QUERY_ATTRIBUTE_SUPPORT),
      "answer %r" % (info,))
items = info[0]['value']['array']
lists = {i['key']: i['value'] for i in items}
client = lists.get(text(PMIX_CLIENT_FUNCTIONS), "")
server = lists.get(text(PMIX_SERVER_FUNCTIONS), "")
check("PMIx_Fence" in client.split(","), "client functions %r" % client)
check("PMIx_server_init" in server.split(","), "server functions %r" % server)
rc = c.finalize([])
check(rc == PMIX_SUCCESS, "finalize %d" % rc)
print("py attrs %d ok" % me['rank'], flush=True)
