#!/usr/bin/env bash
# Startup time of an MPI hello world (MPI_Init + MPI_Allreduce +
# MPI_Finalize, tests/interop/mpi_hello.c built with Debian's mpicc) under
# Open MPI 4.1's mpirun, at 1, 2, 4, 8 and 16 ranks, on OUR libpmix.so.2
# (LD_LIBRARY_PATH) and on the reference OpenPMIx 4.2.2, interleaved.
# Prints a markdown table of medians (and min/max) in milliseconds.
#
# Usage: benches/mpi_startup.sh [RUNS]   (default 15 runs per cell)
# Env:   PMIX_LIB_DIR  a directory holding our libpmix.so.2 (default: a
#                      release build of pmix-ffi, made here)
#        RANKS         the rank counts (default "1 2 4 8 16")
# Uses hyperfine when installed (apt-get install -y hyperfine), otherwise
# its own timing loop; needs openmpi-bin and libopenmpi-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-15}
ranks=${RANKS:-"1 2 4 8 16"}

command -v mpicc >/dev/null && command -v mpirun >/dev/null || {
    echo "mpi_startup: needs openmpi-bin and libopenmpi-dev" >&2
    exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -z "${PMIX_LIB_DIR:-}" ]; then
    cargo build --release -q -p pmix-ffi
    PMIX_LIB_DIR="$work/lib"
    mkdir -p "$PMIX_LIB_DIR"
    ln -s "$PWD/target/release/libpmix.so" "$PMIX_LIB_DIR/libpmix.so.2"
fi
[ -e "$PMIX_LIB_DIR/libpmix.so.2" ] || {
    echo "mpi_startup: no libpmix.so.2 in $PMIX_LIB_DIR" >&2
    exit 1
}

mpicc -O2 -I tests/interop tests/interop/mpi_hello.c -o "$work/mpi_hello"
mpirun_cmd() { # n
    echo "mpirun --allow-run-as-root --oversubscribe -n $1 $work/mpi_hello"
}

# Sanity: both libraries run the program, and ours is the one mapped.
for n in 1 2; do
    out=$(LD_LIBRARY_PATH="$PMIX_LIB_DIR" timeout 60 $(mpirun_cmd $n))
    grep -q "hello ok: $n ranks" <<<"$out" || { echo "ours failed at $n ranks:" >&2; echo "$out" >&2; exit 1; }
    grep -q "rank libpmix: $(readlink -f "$PMIX_LIB_DIR/libpmix.so.2")" <<<"$out" || {
        echo "our library is not the one mapped:" >&2; echo "$out" >&2; exit 1; }
    env -u LD_LIBRARY_PATH timeout 60 $(mpirun_cmd $n) | grep -q "hello ok: $n ranks"
done

# ms statistics of a list of seconds on stdin: median min max
stats() {
    sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2;
        printf "%.0f %.0f %.0f\n", m*1000, a[1]*1000, a[NR]*1000}'
}

# Times of `runs` runs of one configuration, in seconds, one per line.
times() { # ours|ref n
    local which=$1 n=$2
    if command -v hyperfine >/dev/null; then
        local json="$work/h.json" envset
        if [ "$which" = ours ]; then envset="env LD_LIBRARY_PATH=$PMIX_LIB_DIR"; else envset="env -u LD_LIBRARY_PATH"; fi
        hyperfine -N --warmup 1 --runs "$runs" --export-json "$json" \
            "$envset $(mpirun_cmd "$n")" >/dev/null 2>&1
        python3 -c 'import json,sys; [print(t) for t in json.load(open(sys.argv[1]))["results"][0]["times"]]' "$json"
    else
        local i s e
        for ((i = 0; i < runs + 1; i++)); do
            s=$(date +%s%N)
            if [ "$which" = ours ]; then
                LD_LIBRARY_PATH="$PMIX_LIB_DIR" $(mpirun_cmd "$n") >/dev/null
            else
                env -u LD_LIBRARY_PATH $(mpirun_cmd "$n") >/dev/null
            fi
            e=$(date +%s%N)
            # the first run warms the caches
            [ "$i" -gt 0 ] && awk -v d=$((e - s)) 'BEGIN {print d / 1e9}'
        done
    fi
}

tool=$(command -v hyperfine >/dev/null && echo "hyperfine $(hyperfine --version | awk '{print $2}')" || echo "a shell timing loop")
echo "MPI hello (MPI_Init + MPI_Allreduce + MPI_Finalize) under mpirun, $runs runs per cell ($tool), $(nproc) cores"
echo
echo "| ranks | OpenPMIx 4.2.2: median (min-max) ms | ours: median (min-max) ms | ours / reference |"
echo "|---:|---:|---:|---:|"
for n in $ranks; do
    read -r rm rmin rmax < <(times ref "$n" | stats)
    read -r om omin omax < <(times ours "$n" | stats)
    ratio=$(awk -v a="$om" -v b="$rm" 'BEGIN {printf "%.2f", a / b}')
    echo "| $n | $rm ($rmin-$rmax) | $om ($omin-$omax) | $ratio |"
done
