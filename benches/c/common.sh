# Sourced by the bench scripts of benches/c (run.sh, tools.sh) with the
# script's own arguments: goes to the workspace root and sets ROOT, REPS
# (the first argument, default 5 repetitions), NP (ranks, default 4), REF
# (Debian's OpenPMIx 4.2.2) and CFLAGS (how every bench program is built).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
REPS="${1:-5}"
NP="${NP:-4}"
REF="/usr/lib/x86_64-linux-gnu/pmix2"
CFLAGS=(-std=gnu11 -O2 -Wall -Wextra -Werror)

# Builds our library and pmixrun (release) and links "$OUT/lib/libpmix.so"
# and ".so.2" to the library, whose path is then in OURS_LIB; makes
# "$OUT/raw" for the runs' outputs. build_ours_lib: the same without
# pmixrun.
build_ours() {
    cargo build --release --bin pmixrun >&2
    build_ours_lib
}
build_ours_lib() {
    cargo build --release -p pmix-ffi >&2
    OURS_LIB="$(realpath "$ROOT/target/release/libpmix.so")"
    mkdir -p "$OUT/lib" "$OUT/raw"
    ln -sf "$OURS_LIB" "$OUT/lib/libpmix.so.2"
    ln -sf "$OURS_LIB" "$OUT/lib/libpmix.so"
}

# The lib= line of every pmix_bench run must name the library that run was
# meant to use (rank 0 also checks that every rank mapped the same one),
# and the run must have finished.
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

# An awk function for the tables: med(a, n) is the median of a[1..n]
# (sorts a in place).
MED_AWK='
function med(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'

# The lines a table starts with after its own: the commit ours was built
# from (and what was uncommitted), the cores and the load at the end.
table_provenance() {
    if git rev-parse --git-dir >/dev/null 2>&1; then
        local dirty
        dirty="$(git status --porcelain --untracked-files=no | awk '{print $2}' | tr '\n' ' ')"
        echo "# ours built from $(git rev-parse --short HEAD)${dirty:+ with uncommitted changes in: $dirty}"
    fi
    echo "# $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
}
