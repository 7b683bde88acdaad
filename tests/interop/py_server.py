#!/usr/bin/python3
"""A PMIx server written in Python with python3-pmix's PMIxServer: it
registers a namespace of N ranks, sets up each child's environment with
setup_fork and launches the C client given on the command line N times,
then waits for them. Usage: py_server.py N CLIENT [ARGS...]"""
import os
import subprocess
import sys
import pmix

from maps import libpmix

# Blocking registration calls may answer PMIX_OPERATION_SUCCEEDED (OpenPMIx
# does when no callback is given): done, successfully.
OK = (pmix.PMIX_SUCCESS, pmix.PMIX_OPERATION_SUCCEEDED)
connected = []
finalized = []


def clientconnected(proc, *rest):
    connected.append(proc["rank"])
    return pmix.PMIX_SUCCESS


def clientfinalized(proc, *rest):
    finalized.append(proc["rank"])
    return pmix.PMIX_SUCCESS


def main():
    n = int(sys.argv[1])
    argv = sys.argv[2:]
    srv = pmix.PMIxServer()
    tmp = os.environ.get("TMPDIR", "/tmp")
    rc = srv.init([{"key": pmix.PMIX_SERVER_TMPDIR, "value": tmp, "val_type": pmix.PMIX_STRING}],
                  {"clientconnected": clientconnected, "clientfinalized": clientfinalized})
    if rc != pmix.PMIX_SUCCESS:
        print("FAIL server init:", rc, flush=True)
        return 1
    print("server libpmix:", libpmix(), flush=True)
    ns = "pyserver-%d" % os.getpid()
    ranks = ",".join(str(r) for r in range(n))
    host = os.uname()[1]
    rc, nodes = srv.generate_regex([host])
    rc2, ppn = srv.generate_ppn([ranks])
    info = [
        {"key": pmix.PMIX_UNIV_SIZE, "value": n, "val_type": pmix.PMIX_UINT32},
        {"key": pmix.PMIX_JOB_SIZE, "value": n, "val_type": pmix.PMIX_UINT32},
        {"key": pmix.PMIX_LOCAL_SIZE, "value": n, "val_type": pmix.PMIX_UINT32},
        {"key": pmix.PMIX_NODE_MAP, "value": nodes, "val_type": pmix.PMIX_REGEX},
        {"key": pmix.PMIX_PROC_MAP, "value": ppn, "val_type": pmix.PMIX_REGEX},
        {"key": pmix.PMIX_LOCAL_PEERS, "value": ranks, "val_type": pmix.PMIX_STRING},
    ]
    rc = srv.register_nspace(ns, n, info)
    if rc not in OK:
        print("FAIL register_nspace:", rc, flush=True)
        return 1
    children = []
    for r in range(n):
        proc = {"nspace": ns, "rank": r}
        rc = srv.register_client(proc, os.getuid(), os.getgid())
        if rc not in OK:
            print("FAIL register_client:", rc, flush=True)
            return 1
        env = dict(os.environ)
        rc = srv.setup_fork(proc, env)
        if rc != pmix.PMIX_SUCCESS:
            print("FAIL setup_fork:", rc, flush=True)
            return 1
        children.append(subprocess.Popen(argv, env=env))
    failed = 0
    for r, c in enumerate(children):
        code = c.wait()
        if code != 0:
            print("FAIL client %d exited %d" % (r, code), flush=True)
            failed += 1
    srv.deregister_nspace(ns)
    srv.finalize()
    print("python server: %d clients, %d failed, connected %s" %
          (n, failed, sorted(connected)), flush=True)
    return 1 if failed else 0


sys.exit(main())
