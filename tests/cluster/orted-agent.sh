#!/bin/sh
# Launch agent for Open MPI's `mpirun` (ORTE's plm/rsh) on a cluster
# simulated on this machine: used in place of ssh through
#
#   mpirun --mca plm_rsh_agent "/bin/sh /path/to/orted-agent.sh" ...
#
# plm/rsh calls it as ssh would be called: `orted-agent.sh NODE WORDS...`,
# where WORDS, joined with spaces, are the command line a remote shell
# would run (ORTE quotes the arguments that hold spaces for that shell).
# Instead of logging into NODE, this runs that command line with /bin/sh as
# "node" NODE of tests/cluster/node.sh: in its own UTS and mount namespaces,
# with host name NODE and a private /dev/shm, on this machine's network.
#
# The environment passes through as it is (ssh would not pass it): the
# orted, and through it the ranks, keep LD_LIBRARY_PATH (which library they
# load) and whatever marker variable the test uses to find them later.
# ORTED_AGENT_NODE_LIB, when set and not empty, is node.sh's LIB argument:
# the file bind-mounted over the reference libpmix inside the node only.
#
# Without --daemonize (tree spawn, debugging) the orted runs in this
# process (node.sh and sh exec); with it the orted forks away, calls setsid
# and this agent exits 0 as ssh would.
set -eu
[ $# -ge 2 ] || { echo "usage: orted-agent.sh NODE COMMAND..." >&2; exit 2; }
node=$1
shift
here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
exec /bin/sh "$here/node.sh" "$node" "${ORTED_AGENT_NODE_LIB:-}" -- /bin/sh -c "$*"
