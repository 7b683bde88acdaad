#!/usr/bin/env bash
# How the fence rows of benches/c/run.sh grow with the number of ranks:
# run.sh (ours under pmixrun against the reference OpenPMIx 4.2.2 under
# Debian's mpirun --oversubscribe) at each of SCALING_NP, one table per N
# with the rows fence, modex32k_first, modex32k_commit_fence and
# modex100_first (their meaning: benches/c/pmix_bench.c's header).
#
# Usage: benches/c/scaling.sh [REPS]      (default 5 repetitions per N)
# Environment: SCALING_NP (default "4 16 64"; above the cores, the ranks
# oversubscribe them), PMIX_BENCH_FENCE (default 200), PMIX_BENCH_MODEX
# (default 2: modex100_first needs one round), PMIX_BENCH_GET (default
# 1000: the get rows are not shown); the outputs go to
# target/pmix-bench-scaling/N.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REPS="${1:-5}"
export GROUPS_NP="" # no --groups job
export PMIX_BENCH_FENCE="${PMIX_BENCH_FENCE:-200}"
export PMIX_BENCH_MODEX="${PMIX_BENCH_MODEX:-2}"
export PMIX_BENCH_GET="${PMIX_BENCH_GET:-1000}"
for n in ${SCALING_NP:-4 16 64}; do
    echo
    echo "## N=$n"
    NP="$n" OUT="$ROOT/target/pmix-bench-scaling/$n" "$ROOT/benches/c/run.sh" "$REPS" |
        awk -F'|' '/^#/ || /^\| metric/ || /^\|---/ { print; next }
            { m = $2; gsub(/ /, "", m) }
            m ~ /^(fence|modex32k_first|modex32k_commit_fence|modex100_first)$/ { print }'
done
