"""python3-pmix's PMIxTool on a stock OpenPMIx library, attached to our
pmixrun through its stock door (tests/stock_tools.rs): stock_tool.py PID
NSPACE TMPDIR attaches to the server of pid PID, checks that the
namespaces query names NSPACE and that the proc table of NSPACE lists
its two ranks, reads NSPACE's size and its rank 1's local rank and node
by get ("stockpy tool size 2 lrank 1 host HOST"), says which libpmix it
runs on ("stockpy tool lib PATH", from /proc/self/maps), finalizes and
prints "stockpy tool ok"."""
import sys

import pmix
from pyhelp import attach_tool, text


def libpmix():
    with open('/proc/self/maps') as maps:
        for line in maps:
            path = line.split()[-1]
            if '/libpmix.so' in path:
                return path
    return '-'


def value(v):
    """A get's value, which python3-pmix hands back as {'value', 'val_type'}."""
    return v['value'] if isinstance(v, dict) else v


def main():
    tool, me, nspace = attach_tool(sys.argv, 'tool.')
    print("stockpy tool lib %s" % libpmix(), flush=True)
    rc, info = tool.query([{'keys': [pmix.PMIX_QUERY_NAMESPACES], 'qualifiers': []}])
    key = text(pmix.PMIX_QUERY_NAMESPACES)
    names = [i['value'] for i in info if text(i['key']) == key]
    if rc != pmix.PMIX_SUCCESS or not names or nspace not in text(names[0]).split(','):
        sys.exit("namespaces query: %d %s (want %r in %r)" % (rc, info, nspace, names))
    rc, info = tool.query([{
        'keys': [pmix.PMIX_QUERY_PROC_TABLE],
        'qualifiers': [{'key': pmix.PMIX_NSPACE, 'value': nspace, 'val_type': pmix.PMIX_STRING}],
    }])
    key = text(pmix.PMIX_QUERY_PROC_TABLE)
    tables = [i['value'] for i in info if text(i['key']) == key]
    if rc != pmix.PMIX_SUCCESS or not tables:
        sys.exit("proc table query: %d %s" % (rc, info))
    print("stockpy tool table %r" % (tables[0],), flush=True)
    ranks = sorted(p['proc']['rank'] for p in tables[0]['array'])
    if ranks != [0, 1]:
        sys.exit("proc table ranks %r" % ranks)
    rc, size = tool.get({'nspace': nspace, 'rank': pmix.PMIX_RANK_WILDCARD}, pmix.PMIX_JOB_SIZE, [])
    size = value(size)
    if rc != pmix.PMIX_SUCCESS or size != 2:
        sys.exit("job size: %d %r" % (rc, size))
    rank1 = {'nspace': nspace, 'rank': 1}
    rc, lrank = tool.get(rank1, pmix.PMIX_LOCAL_RANK, [])
    lrank = value(lrank)
    if rc != pmix.PMIX_SUCCESS or lrank != 1:
        sys.exit("local rank of rank 1: %d %r" % (rc, lrank))
    rc, host = tool.get(rank1, pmix.PMIX_HOSTNAME, [])
    host = value(host)
    if rc != pmix.PMIX_SUCCESS or not host:
        sys.exit("node of rank 1: %d %r" % (rc, host))
    print("stockpy tool size %d lrank %d host %s" % (size, lrank, text(host)), flush=True)
    rc = tool.finalize()
    if rc != pmix.PMIX_SUCCESS:
        sys.exit("finalize: %d" % rc)
    print("stockpy tool ok")


main()
