#!/usr/bin/env bash
# Tools against a running job, timed (issue 12): benches/c/tool_bench.c
# (attach, a get of the job's data, proc-table and namespaces queries)
# against our pmixrun on our library, and against Debian's Open MPI
# mpirun on the reference OpenPMIx 4.2.2 when that accepts tools; then
# benches/c/iof_bench.c (a tool pulling a job's output) on ours.
#
# Usage: benches/c/tools.sh [REPS]     (default 5)
# Environment: NP (ranks, default 4), LINES (lines each rank writes for
# the IOF run, default 200000), OUT (default target/pmix-bench-tools).
#
# Each figure is the median over the repetitions of the run's figure
# (itself a median over the run's iterations, but for attach and the IOF
# ones, which happen once per run).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
REPS="${1:-5}"
NP="${NP:-4}"
LINES="${LINES:-200000}"
OUT="${OUT:-$ROOT/target/pmix-bench-tools}"
REF="/usr/lib/x86_64-linux-gnu/pmix2"

cargo build --release -p pmix-ffi >&2
cargo build --release --bin pmixrun >&2
OURS_LIB="$(realpath "$ROOT/target/release/libpmix.so")"
mkdir -p "$OUT/lib" "$OUT/raw"
rm -f "$OUT"/raw/*
ln -sf "$OURS_LIB" "$OUT/lib/libpmix.so.2"
ln -sf "$OURS_LIB" "$OUT/lib/libpmix.so"
CFLAGS=(-std=gnu11 -O2 -Wall -Wextra -Werror)
for b in tool_bench iof_bench; do
    cc "${CFLAGS[@]}" -I "$ROOT/include" "benches/c/$b.c" -o "$OUT/${b}_ours" -L "$OUT/lib" -lpmix -pthread
    cc "${CFLAGS[@]}" -I "$REF/include" "benches/c/$b.c" -o "$OUT/${b}_ref" -L "$REF/lib" \
        -Wl,-rpath,"$REF/lib" -lpmix -pthread
done

# A job of NP ranks that print "ready NSPACE" and wait: the launcher's pid
# in $JOB_PID, the namespace in $JOB_NS, its rendezvous files in $JOB_TMP.
start_job() { # side
    JOB_TMP="$(mktemp -d /tmp/pmix-bt.XXXXXX)"
    local fifo="$JOB_TMP/out"
    mkfifo "$fifo"
    if [ "$1" = ours ]; then
        TMPDIR="$JOB_TMP" LD_LIBRARY_PATH="$OUT/lib" target/release/pmixrun --timeout 300 -n "$NP" \
            sh -c 'echo ready $PMIX_NAMESPACE; exec sleep 300' >"$fifo" 2>/dev/null &
    else
        TMPDIR="$JOB_TMP" env -u LD_LIBRARY_PATH timeout -k 5 300 mpirun -np "$NP" --oversubscribe \
            --allow-run-as-root sh -c 'echo ready $PMIX_NAMESPACE; exec sleep 300' >"$fifo" 2>/dev/null &
    fi
    JOB_PID=$!
    exec 3<"$fifo"
    JOB_NS=""
    for _ in $(seq 1 "$NP"); do
        read -r -t 60 _ ns <&3 || { echo "the $1 job did not start" >&2; return 1; }
        JOB_NS="$ns"
    done
}
end_job() {
    kill -TERM "$JOB_PID" 2>/dev/null || true
    wait "$JOB_PID" 2>/dev/null || true
    exec 3<&-
    rm -rf "$JOB_TMP"
}

for i in $(seq 1 "$REPS"); do
    for side in ours ref; do
        echo "run $i/$REPS: $side" >&2
        start_job "$side"
        TMPDIR="$JOB_TMP" env -u LD_LIBRARY_PATH timeout -k 5 120 "$OUT/tool_bench_$side" \
            "$JOB_PID" "$JOB_NS" >"$OUT/raw/$side.$i.txt" 2>"$OUT/raw/$side.$i.err" ||
            echo "tool_bench result=attach n/a $(head -c 200 "$OUT/raw/$side.$i.err" | tr '\n' ' ')" \
                >>"$OUT/raw/$side.$i.txt"
        end_job
    done
    echo "run $i/$REPS: iof (ours)" >&2
    JOB_TMP="$(mktemp -d /tmp/pmix-bt.XXXXXX)"
    mkfifo "$JOB_TMP/in" "$JOB_TMP/out"
    # The ranks print "ready NSPACE", wait for a line (which the tool
    # pushes), then write LINES lines each; pmixrun's own stdin stays open
    # and silent (fd 4).
    TMPDIR="$JOB_TMP" LD_LIBRARY_PATH="$OUT/lib" target/release/pmixrun --timeout 300 \
        --stdin all -n "$NP" sh -c "echo ready \$PMIX_NAMESPACE; read x; exec seq 1 $LINES" \
        <"$JOB_TMP/in" >"$JOB_TMP/out" 2>/dev/null &
    JOB_PID=$!
    exec 4>"$JOB_TMP/in"
    exec 3<"$JOB_TMP/out"
    for _ in $(seq 1 "$NP"); do read -r -t 60 _ JOB_NS <&3; done
    # The output also reaches pmixrun's own stdout: drained meanwhile.
    cat <&3 >/dev/null &
    drain=$!
    TMPDIR="$JOB_TMP" env -u LD_LIBRARY_PATH timeout -k 5 300 "$OUT/iof_bench_ours" \
        "$JOB_PID" "$JOB_NS" "$NP" >"$OUT/raw/iof.$i.txt"
    wait "$JOB_PID" || true
    exec 4>&- 3<&-
    wait "$drain" || true
    rm -rf "$JOB_TMP"
done

echo "# N=$NP, $REPS runs each; ours=$OURS_LIB ref=$REF/lib/libpmix.so.2 (tools attach to"
echo "# ours: pmixrun; ref: Open MPI $(mpirun --version 2>/dev/null | head -n1 | awk '{print $NF}') mpirun)"
echo "# ours built from $(git rev-parse --short HEAD); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
awk '
function med(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/result=/ {
    side = FILENAME; sub(/.*\//, "", side); sub(/\..*/, "", side)
    split($2, r, "="); m = r[2]
    if (!(m in seen)) { seen[m] = 1; order[++nm] = m }
    if ($3 == "n/a") { na[side, m] = $0; next }
    split($3, u, "="); unit[m] = u[2]
    split($4, v, "="); k = side SUBSEP m; cnt[k]++; val[k, cnt[k]] = v[2] + 0
}
/^iof_bench bytes=/ { last = $0 }
END {
    printf "| %-17s | %-5s | %10s | %10s | %9s |\n", "figure", "unit", "ours", "ref", "ref/ours"
    printf "|%s|%s|%s|%s|%s|\n", "-------------------", "-------", "-----------:", "-----------:", "----------:"
    for (i = 1; i <= nm; i++) {
        m = order[i]
        for (s = 0; s < 3; s++) {
            side = s == 0 ? "ours" : s == 1 ? "ref" : "iof"; k = side SUBSEP m; n = cnt[k]
            delete a
            for (j = 1; j <= n; j++) a[j] = val[k, j]
            M[side] = n ? sprintf("%.1f", med(a, n)) : ((side, m) in na ? "n/a" : "")
        }
        if (M["iof"] != "") { M["ours"] = M["iof"]; M["ref"] = "-" }
        ratio = (M["ours"] + 0 > 0 && M["ref"] + 0 > 0) ? sprintf("%.1fx", M["ref"] / M["ours"]) : "-"
        printf "| %-17s | %-5s | %10s | %10s | %9s |\n", m, unit[m], M["ours"], M["ref"], ratio
    }
    if (last != "") print "# last IOF run: " substr(last, 11)
    for (k in na) { split(k, p, SUBSEP); if (p[1] == "ref") { print "# ref " p[2] ": " na[k]; break } }
}' "$OUT"/raw/ours.*.txt "$OUT"/raw/ref.*.txt "$OUT"/raw/iof.*.txt
