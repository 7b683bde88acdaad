#!/usr/bin/env bash
# Installs the Debian packages the build and the test suite need:
#   pkg-config, a C compiler, hwloc and udev headers (topology and cpusets),
#   and the reference OpenPMIx 4.2.2 (libpmix-dev) that the ABI and
#   compatibility tests compare against; Open MPI 4.1 (openmpi-bin,
#   libopenmpi-dev) and OpenPMIx's Python bindings (python3-pmix), which
#   the interoperability suite (tests/interop.rs) runs on our library;
#   Slurm 22.05 (slurmd, slurmctld, slurm-client), whose cluster of
#   namespaced nodes tests/slurm.rs starts itself (no service is started
#   or configured under /etc); valgrind, under which tests/valgrind.rs
#   runs the C test programs.
# Runs apt-get as root, or through sudo; does nothing for packages already
# installed. Set PMIX_SKIP_APT=1 to skip (tests needing a missing reference
# then report themselves as skipped).
set -euo pipefail

packages=(gcc g++ pkg-config libhwloc-dev libudev-dev libpmix-dev binutils
          openmpi-bin libopenmpi-dev python3-pmix slurmd slurmctld slurm-client
          valgrind)

[ "${PMIX_SKIP_APT:-0}" = 1 ] && exit 0

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ]; then
    sudo=()
elif command -v sudo >/dev/null; then
    sudo=(sudo)
else
    echo "deps.sh: need root or sudo to install: ${missing[*]}" >&2
    exit 1
fi
echo "deps.sh: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
