#!/usr/bin/env bash
# Runs benches/c/pmix_bench.c on our libpmix.so.2 under our pmixrun and on
# the reference OpenPMIx 4.2.2 (Debian libpmix2) under Debian's Open MPI
# mpirun, several times each, and prints a side-by-side table.
#
# Usage: benches/c/run.sh [REPS]            (default 5 repetitions each)
# Environment: NP (ranks, default 4), PMIX_BENCH_GET, PMIX_BENCH_FENCE,
# PMIX_BENCH_MODEX (iteration counts, the bench's defaults otherwise),
# OUT (directory for the builds and raw outputs, default target/pmix-bench).
#
# Every value in the table is the median over the repetitions of the
# per-run figure, which is the median across ranks (the bench's own
# `median=`); "best" is the minimum over the repetitions of that figure.
# Each repetition also runs the bench with --first (the first collecting
# fence after init: the modex32k_* rows) and with --first-commit (the same
# with the commit timed too, back to back with the fence), jobs of their
# own.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
REPS="${1:-5}"
NP="${NP:-4}"
OUT="${OUT:-$ROOT/target/pmix-bench}"
REF="/usr/lib/x86_64-linux-gnu/pmix2"
ARGS=()
[ -n "${PMIX_BENCH_GET:-}" ] && ARGS+=(-g "$PMIX_BENCH_GET")
[ -n "${PMIX_BENCH_FENCE:-}" ] && ARGS+=(-f "$PMIX_BENCH_FENCE")
[ -n "${PMIX_BENCH_MODEX:-}" ] && ARGS+=(-m "$PMIX_BENCH_MODEX")

# --- prerequisites -----------------------------------------------------
need_pkgs=()
command -v mpirun >/dev/null 2>&1 || need_pkgs+=(openmpi-bin libopenmpi-dev)
[ -e "$REF/include/pmix.h" ] || need_pkgs+=(libpmix-dev)
if [ "${#need_pkgs[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "installing ${need_pkgs[*]}" >&2
        apt-get install -y "${need_pkgs[@]}" >&2 ||
            { apt-get update >&2 && apt-get install -y "${need_pkgs[@]}" >&2; }
    else
        echo "missing: ${need_pkgs[*]} (run as root to install them)" >&2
        exit 1
    fi
fi

# --- builds ------------------------------------------------------------
cargo build --release -p pmix-ffi >&2
cargo build --release --bin pmixrun >&2
OURS_LIB="$(realpath "$ROOT/target/release/libpmix.so")"
REF_LIB="$(realpath "$REF/lib/libpmix.so.2")"
mkdir -p "$OUT/lib" "$OUT/raw"
ln -sf "$OURS_LIB" "$OUT/lib/libpmix.so.2"
ln -sf "$OURS_LIB" "$OUT/lib/libpmix.so"
CFLAGS=(-std=gnu11 -O2 -Wall -Wextra -Werror)
cc "${CFLAGS[@]}" -I "$ROOT/include" benches/c/pmix_bench.c \
    -o "$OUT/pmix_bench_ours" -L "$OUT/lib" -lpmix
cc "${CFLAGS[@]}" -I "$REF/include" benches/c/pmix_bench.c \
    -o "$OUT/pmix_bench_ref" -L "$REF/lib" -Wl,-rpath,"$REF/lib" -lpmix

# --- runs --------------------------------------------------------------
# The lib= line of every run must name the library that run was meant to
# use (rank 0 also checks that every rank mapped the same one).
check_lib() { # file expected
    local got
    got="$(sed -n 's/^pmix_bench lib=\([^ ]*\) .*/\1/p' "$1")"
    got="$(realpath "$got" 2>/dev/null || echo "$got")"
    if [ "$got" != "$2" ]; then
        echo "run $1 mapped $got, expected $2" >&2
        exit 1
    fi
    grep -q '^pmix_bench done$' "$1" || { echo "run $1 incomplete" >&2; exit 1; }
}

rm -f "$OUT"/raw/*.txt
for i in $(seq 1 "$REPS"); do
    for mode in "" first first-commit; do
        sfx="${mode:+_$mode}"
        flag=()
        [ -n "$mode" ] && flag=(--"$mode")
        echo "run $i/$REPS${mode:+ ($mode)}: ours under pmixrun" >&2
        LD_LIBRARY_PATH="$OUT/lib" target/release/pmixrun --timeout 600 -n "$NP" \
            "$OUT/pmix_bench_ours" "${flag[@]}" "${ARGS[@]}" >"$OUT/raw/ours$sfx.$i.txt"
        check_lib "$OUT/raw/ours$sfx.$i.txt" "$OURS_LIB"
        echo "run $i/$REPS${mode:+ ($mode)}: reference under mpirun" >&2
        # mpirun itself loads libpmix.so.2: never point it at ours.
        env -u LD_LIBRARY_PATH timeout 900 mpirun -np "$NP" --oversubscribe --allow-run-as-root \
            "$OUT/pmix_bench_ref" "${flag[@]}" "${ARGS[@]}" >"$OUT/raw/ref$sfx.$i.txt"
        check_lib "$OUT/raw/ref$sfx.$i.txt" "$REF_LIB"
    done
done

# --- table -------------------------------------------------------------
echo "# N=$NP, $REPS runs each; ours=$OURS_LIB ref=$REF_LIB"
if git rev-parse --git-dir >/dev/null 2>&1; then
    dirty="$(git status --porcelain --untracked-files=no | awk '{print $2}' | tr '\n' ' ')"
    echo "# ours built from $(git rev-parse --short HEAD)${dirty:+ with uncommitted changes in: $dirty}"
fi
echo "# $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
head -n1 "$OUT/raw/ours.1.txt" | sed 's/^pmix_bench /# ours: /'
head -n1 "$OUT/raw/ref.1.txt" | sed 's/^pmix_bench /# ref:  /'
awk '
function med(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^pmix_bench result=/ {
    side = (FILENAME ~ /\/ours(_[a-z-]+)?\.[0-9]+\.txt$/) ? "ours" : "ref"
    for (f = 2; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
    m = v["result"]
    if (!(m in unit)) { order[++nm] = m; unit[m] = v["unit"] }
    k = side SUBSEP m
    cnt[k]++; val[k, cnt[k]] = v["median"] + 0
}
END {
    printf "| %-14s | %-4s | %12s | %12s | %12s | %12s | %9s |\n", "metric", "unit", "ours median", "ours best", "ref median", "ref best", "ref/ours"
    printf "|%s|%s|%s|%s|%s|%s|%s|\n", "----------------", "------", "-------------:", "-------------:", "-------------:", "-------------:", "----------:"
    for (i = 1; i <= nm; i++) {
        m = order[i]
        for (s = 0; s < 2; s++) {
            side = s ? "ref" : "ours"; k = side SUBSEP m; n = cnt[k]
            delete a; best = ""
            for (j = 1; j <= n; j++) { a[j] = val[k, j]; if (best == "" || a[j] < best) best = a[j] }
            M[side] = n ? med(a, n) : 0; B[side] = best
        }
        ratio = M["ours"] > 0 ? sprintf("%.1fx", M["ref"] / M["ours"]) : "-"
        printf "| %-14s | %-4s | %12.1f | %12.1f | %12.1f | %12.1f | %9s |\n", m, unit[m], M["ours"], B["ours"], M["ref"], B["ref"], ratio
    }
}' "$OUT"/raw/ours.*.txt "$OUT"/raw/ours_*.txt "$OUT"/raw/ref.*.txt "$OUT"/raw/ref_*.txt
