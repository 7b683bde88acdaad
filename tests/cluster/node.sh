#!/bin/sh
# Runs a command as one "node" of a cluster simulated on this machine:
#
#   node.sh NAME LIB -- COMMAND [ARGS...]
#
# The command runs in its own UTS and mount namespaces (unshare), with host
# name NAME and a private, empty /dev/shm, so that two nodes never share a
# host name or a shared-memory segment. When LIB is not empty, the file that
# Debian's libpmix resolves to (what Slurm's mpi_pmix_v4.so dlopens by
# absolute path, and what every program linked against libpmix.so.2 loads)
# is bind-mounted over with LIB inside this namespace only: no system file
# is changed, and the host's processes keep the reference library.
#
# The network namespace is the machine's: nodes talk over loopback.
# `unshare` and the shell both exec, so the command keeps this script's pid:
# a test that started node.sh as a child kills the daemon by that pid.
set -eu
[ $# -ge 3 ] && [ "$3" = "--" ] || { echo "usage: node.sh NAME LIB -- COMMAND [ARGS...]" >&2; exit 2; }
name=$1
lib=$2
shift 3
exec unshare --uts --mount --propagation private -- /bin/sh -eu -c '
name=$1; lib=$2; shift 2
hostname "$name"
mount -t tmpfs -o mode=1777,size=1g "shm-$name" /dev/shm
if [ -n "$lib" ]; then
    target=$(readlink -f /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so)
    mount --bind "$(readlink -f "$lib")" "$target"
fi
exec "$@"
' node.sh "$name" "$lib" "$@"
