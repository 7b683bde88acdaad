#!/usr/bin/env bash
# Runs benches/c/pmix_bench.c on our libpmix.so.2 under our pmixrun and on
# the reference OpenPMIx 4.2.2 (Debian libpmix2) under Debian's Open MPI
# mpirun, several times each, and prints a side-by-side table.
#
# Usage: benches/c/run.sh [REPS]            (default 5 repetitions each)
# Environment: NP (ranks, default 4), PMIX_BENCH_GET, PMIX_BENCH_FENCE,
# PMIX_BENCH_MODEX, PMIX_BENCH_GROUPS (iteration counts, the bench's
# defaults otherwise), GROUPS_NP (the rank counts of the --groups job,
# default "4 16"; empty: no --groups job), ONLY (ONLY=groups runs only
# the --groups job and its table; ONLY=first only the --first and
# --first-commit jobs, with GROUPS_NP empty), OUT (directory for the builds and raw
# outputs, default target/pmix-bench).
#
# Every value in the table is the median over the repetitions of the
# per-run figure, which is the median across ranks (the bench's own
# `median=`); "best" is the minimum over the repetitions of that figure.
# Each repetition also runs the bench with --first (the first collecting
# fence after init: the modex32k_* rows) and with --first-commit (the same
# with the commit timed too, back to back with the fence), jobs of their
# own. The --groups job (process groups over every rank, with the job's
# fences for comparison) runs at each of GROUPS_NP ranks in every
# repetition, and has a table of its own.
set -euo pipefail

# shellcheck source=benches/c/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
OUT="${OUT:-$ROOT/target/pmix-bench}"
ARGS=()
[ -n "${PMIX_BENCH_GET:-}" ] && ARGS+=(-g "$PMIX_BENCH_GET")
[ -n "${PMIX_BENCH_FENCE:-}" ] && ARGS+=(-f "$PMIX_BENCH_FENCE")
[ -n "${PMIX_BENCH_MODEX:-}" ] && ARGS+=(-m "$PMIX_BENCH_MODEX")
[ -n "${PMIX_BENCH_GROUPS:-}" ] && ARGS+=(-G "$PMIX_BENCH_GROUPS")
GROUPS_NP="${GROUPS_NP-4 16}"
ONLY="${ONLY:-}"
case "$ONLY" in
"") MODES=("" first first-commit) ;;
groups) MODES=() ;;
first) MODES=(first first-commit) ;;
*) echo "ONLY=$ONLY: only ONLY=groups and ONLY=first are known" >&2; exit 1 ;;
esac

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
build_ours
REF_LIB="$(realpath "$REF/lib/libpmix.so.2")"
cc "${CFLAGS[@]}" -I "$ROOT/include" benches/c/pmix_bench.c \
    -o "$OUT/pmix_bench_ours" -L "$OUT/lib" -lpmix
cc "${CFLAGS[@]}" -I "$REF/include" benches/c/pmix_bench.c \
    -o "$OUT/pmix_bench_ref" -L "$REF/lib" -Wl,-rpath,"$REF/lib" -lpmix

# --- runs --------------------------------------------------------------
# The reference and --groups. Debian's mpirun is Open MPI 4.1 (ORTE): its
# glue to the PMIx server (opal's ext3x component) fills the PMIx v3
# server module, which has no `group` upcall, so OpenPMIx 4.2.2's server
# answers PMIx_Group_construct with PMIX_ERR_NOT_SUPPORTED. (Its
# PMIx_Group_invite is worse: the invitees get PMIX_GROUP_INVITED, but
# their joins never complete and the invite does not return, PMIX_TIMEOUT
# or not; the ORTE daemon logs "PACK-OPAL-VALUE: UNSUPPORTED TYPE 0 FOR KEY
# pmix.evrange", and mpirun then ignores SIGTERM.) So the reference's
# --groups job is tried once, small and bounded (the bench's alarm, then
# timeout's SIGKILL); if it fails, its columns say n/a and the table says
# why. Should a reference ever pass, it runs in every repetition.
REF_GROUPS=""
probe_ref_groups() {
    local np="${GROUPS_NP%% *}" err="$OUT/raw/ref_groups_probe.err"
    echo "probe: reference --groups under mpirun (np $np)" >&2
    if env -u LD_LIBRARY_PATH timeout -k 5 60 mpirun -np "$np" --oversubscribe --allow-run-as-root \
        "$OUT/pmix_bench_ref" --groups -G 3 -A 30 >"$OUT/raw/ref_groups_probe.out" 2>"$err" &&
        grep -q '^pmix_bench done$' "$OUT/raw/ref_groups_probe.out"; then
        REF_GROUPS=yes
    else
        REF_GROUPS="$(grep -m1 '^pmix_bench' "$err" || echo "exit without a result")"
        echo "reference --groups: n/a ($REF_GROUPS)" >&2
    fi
}

rm -f "$OUT"/raw/*.txt "$OUT"/raw/*.out "$OUT"/raw/*.err
[ -n "$GROUPS_NP" ] && probe_ref_groups
for i in $(seq 1 "$REPS"); do
    for np in $GROUPS_NP; do
        echo "run $i/$REPS (groups, N=$np): ours under pmixrun" >&2
        LD_LIBRARY_PATH="$OUT/lib" target/release/pmixrun --timeout 600 -n "$np" \
            "$OUT/pmix_bench_ours" --groups "${ARGS[@]}" >"$OUT/raw/ours_groups$np.$i.txt"
        check_lib "$OUT/raw/ours_groups$np.$i.txt" "$OURS_LIB"
        [ "$REF_GROUPS" = yes ] || continue
        echo "run $i/$REPS (groups, N=$np): reference under mpirun" >&2
        env -u LD_LIBRARY_PATH timeout -k 5 900 mpirun -np "$np" --oversubscribe --allow-run-as-root \
            "$OUT/pmix_bench_ref" --groups "${ARGS[@]}" >"$OUT/raw/ref_groups$np.$i.txt"
        check_lib "$OUT/raw/ref_groups$np.$i.txt" "$REF_LIB"
    done
    for mode in "${MODES[@]}"; do
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
echo "# N=$NP${GROUPS_NP:+ (groups: N=${GROUPS_NP// /, })}, $REPS runs each; ours=$OURS_LIB ref=$REF_LIB"
table_provenance
for f in "$OUT"/raw/ours.1.txt "$OUT"/raw/ref.1.txt "$OUT"/raw/ours_groups*.1.txt "$OUT"/raw/ref_groups*.1.txt; do
    [ -e "$f" ] || continue
    side="ours:"
    case "$f" in */ref*) side="ref: " ;; esac
    head -n1 "$f" | sed "s/^pmix_bench /# $side /"
done
# The medians of the runs' figures, per metric (MED_AWK: common.sh).
main_files=()
for f in "$OUT"/raw/ours.*.txt "$OUT"/raw/ours_first*.txt "$OUT"/raw/ref.*.txt "$OUT"/raw/ref_first*.txt; do
    [ -e "$f" ] && main_files+=("$f")
done
if [ "${#MODES[@]}" -gt 0 ]; then
awk "$MED_AWK"'
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
}' "${main_files[@]}"
fi

# --- groups table --------------------------------------------------------
[ -n "$GROUPS_NP" ] || exit 0
echo
echo "# --groups: medians over $REPS runs of the median across ranks (group_invite: rank 0's)"
[ "$REF_GROUPS" = yes ] || echo "# ref n/a: $REF_GROUPS (see the comment above probe_ref_groups in run.sh)"
files=("$OUT"/raw/ours_groups*.txt)
[ "$REF_GROUPS" = yes ] && files+=("$OUT"/raw/ref_groups*.txt)
awk -v nps="$GROUPS_NP" "$MED_AWK"'
/^pmix_bench result=/ {
    match(FILENAME, /_groups[0-9]+\./)
    np = substr(FILENAME, RSTART + 7, RLENGTH - 8) + 0
    side = (FILENAME ~ /\/ours_groups/) ? "ours" : "ref"
    for (f = 2; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
    m = v["result"]
    if (!(m in unit)) { order[++nm] = m; unit[m] = v["unit"] }
    k = side SUBSEP np SUBSEP m
    cnt[k]++; val[k, cnt[k]] = v["median"] + 0
}
END {
    printf "| %-20s | %3s | %-4s | %12s | %12s | %12s | %12s | %9s |\n", "metric", "N", "unit", "ours median", "ours best", "ref median", "ref best", "ref/ours"
    printf "|%s|%s|%s|%s|%s|%s|%s|%s|\n", "----------------------", "----:", "------", "-------------:", "-------------:", "-------------:", "-------------:", "----------:"
    nn = split(nps, NPS, " ")
    for (q = 1; q <= nn; q++) for (i = 1; i <= nm; i++) {
        np = NPS[q] + 0; m = order[i]
        for (s = 0; s < 2; s++) {
            side = s ? "ref" : "ours"; k = side SUBSEP np SUBSEP m; n = cnt[k]
            delete a; best = ""
            for (j = 1; j <= n; j++) { a[j] = val[k, j]; if (best == "" || a[j] < best) best = a[j] }
            M[side] = n ? sprintf("%.1f", med(a, n)) : "n/a"; B[side] = n ? sprintf("%.1f", best) : "n/a"
        }
        ratio = (M["ours"] != "n/a" && M["ref"] != "n/a" && M["ours"] > 0) ? sprintf("%.1fx", M["ref"] / M["ours"]) : "-"
        printf "| %-20s | %3d | %-4s | %12s | %12s | %12s | %12s | %9s |\n", m, np, unit[m], M["ours"], B["ours"], M["ref"], B["ref"], ratio
    }
}' "${files[@]}"
