#!/usr/bin/env bash
# Tools against a running server, timed (issue 12): benches/c/tool_bench.c
# (attach, a get of the job's data, proc-table and namespaces queries)
# against benches/c/tool_host_bench.c (a minimal host: the server library
# with tool support and one registered job) on our library and on the
# reference OpenPMIx 4.2.2, side by side; then benches/c/iof_bench.c (a
# tool pulling the output of a pmixrun job) on ours.
#
# Why not Debian's mpirun for the reference: Open MPI 4.1's mpirun writes
# no tool rendezvous files (no tool support), and a 4.2.2 tool given its
# server's URI fails the handshake ("UNPACK-PAST-END" in pmix_tool.c:
# the v3 server of Open MPI's ext3x glue). So both libraries serve the
# tool from the same minimal host instead.
#
# Usage: benches/c/tools.sh [REPS]     (default 5)
# Environment: NP (ranks, default 4), LINES (lines each rank writes for
# the IOF run, default 200000), OUT (default target/pmix-bench-tools).
#
# Each figure is the median over the repetitions of the run's figure
# (itself a median over the run's iterations, but for attach and the IOF
# ones, which happen once per run).
set -euo pipefail

# shellcheck source=benches/c/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
LINES="${LINES:-200000}"
OUT="${OUT:-$ROOT/target/pmix-bench-tools}"

build_ours
rm -f "$OUT"/raw/*
for b in tool_bench iof_bench tool_host_bench; do
    cc "${CFLAGS[@]}" -I "$ROOT/include" "benches/c/$b.c" -o "$OUT/${b}_ours" -L "$OUT/lib" \
        -Wl,-rpath,"$OUT/lib" -lpmix -pthread
    cc "${CFLAGS[@]}" -I "$REF/include" "benches/c/$b.c" -o "$OUT/${b}_ref" -L "$REF/lib" \
        -Wl,-rpath,"$REF/lib" -lpmix -pthread
done

# The host of one side, serving a registered job of NP processes: its pid
# in $JOB_PID, the namespace in $JOB_NS, its rendezvous files in $JOB_TMP.
start_job() { # side
    JOB_TMP="$(mktemp -d /tmp/pmix-bt.XXXXXX)"
    local fifo="$JOB_TMP/out"
    mkfifo "$fifo"
    TMPDIR="$JOB_TMP" env -u LD_LIBRARY_PATH "$OUT/tool_host_bench_$1" "$NP" >"$fifo" &
    JOB_PID=$!
    exec 3<"$fifo"
    read -r -t 60 _ JOB_NS <&3 || { echo "the $1 host did not start" >&2; return 1; }
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
        # The run must have mapped the library it was meant to use.
        want="$OURS_LIB"
        [ "$side" = ref ] && want="$(realpath "$REF/lib/libpmix.so.2")"
        got="$(sed -n 's/^tool_bench lib=//p' "$OUT/raw/$side.$i.txt")"
        if [ -n "$got" ] && [ "$(realpath "$got")" != "$want" ]; then
            echo "the $side tool mapped $got, not $want" >&2
            exit 1
        fi
    done
  for cache in default lossless; do
    echo "run $i/$REPS: iof (ours, $cache buffering)" >&2
    JOB_TMP="$(mktemp -d /tmp/pmix-bt.XXXXXX)"
    mkfifo "$JOB_TMP/in" "$JOB_TMP/out"
    # The ranks print "ready NSPACE", wait for a line (which the tool
    # pushes), then write LINES lines each; pmixrun's own stdin stays open
    # and silent (fd 4).
    TMPDIR="$JOB_TMP" LD_LIBRARY_PATH="$OUT/lib" target/release/pmixrun --timeout 300 \
        --stdin all -n "$NP" sh -c "echo ready \$PMIX_NAMESPACE >&2; read x; exec seq 1 $LINES" \
        <"$JOB_TMP/in" 2>"$JOB_TMP/out" >/dev/null &
    JOB_PID=$!
    exec 4>"$JOB_TMP/in"
    exec 3<"$JOB_TMP/out"
    for _ in $(seq 1 "$NP"); do read -r -t 60 _ JOB_NS <&3; done
    # (The ranks say "ready" on stderr: the tool pulls stdout only. The
    # output also reaches pmixrun's own stdout: /dev/null.)
    cat <&3 >/dev/null &
    drain=$!
    # lossless: a server-side buffer (PMIX_IOF_CACHE_SIZE) above the
    # whole output, so nothing is dropped; default: 1 MiB, dropping the
    # newest output when the tool falls behind (the documented policy).
    cache_env=()
    [ "$cache" = lossless ] && cache_env=(IOF_CACHE=$((64 << 20)))
    TMPDIR="$JOB_TMP" env -u LD_LIBRARY_PATH "${cache_env[@]}" timeout -k 5 300 \
        "$OUT/iof_bench_ours" "$JOB_PID" "$JOB_NS" "$NP" |
        sed "s/result=\([a-z_]*\)/result=\1_$cache/; s/^iof_bench bytes=/iof_bench $cache bytes=/" \
            >"$OUT/raw/iof.$i.$cache.txt"
    wait "$JOB_PID" || true
    exec 4>&- 3<&-
    wait "$drain" || true
    rm -rf "$JOB_TMP"
  done
done

echo "# N=$NP, $REPS runs each; ours=$OURS_LIB ref=$REF/lib/libpmix.so.2"
echo "# (tool_bench against tool_host_bench on each library; iof_* rows: ours, a pmixrun job,"
echo "# $LINES lines per rank)"
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
/^iof_bench [a-z]+ bytes=/ { last[$2] = $0 }
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
    for (c in last) print "# last IOF run, " substr(last[c], 11)
    for (k in na) { split(k, p, SUBSEP); if (p[1] == "ref") { print "# ref " p[2] ": " na[k]; break } }
}' "$OUT"/raw/ours.*.txt "$OUT"/raw/ref.*.txt "$OUT"/raw/iof.*.*.txt
