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
# "$OUT/raw" for the runs' outputs.
build_ours() {
    cargo build --release -p pmix-ffi >&2
    cargo build --release --bin pmixrun >&2
    OURS_LIB="$(realpath "$ROOT/target/release/libpmix.so")"
    mkdir -p "$OUT/lib" "$OUT/raw"
    ln -sf "$OURS_LIB" "$OUT/lib/libpmix.so.2"
    ln -sf "$OURS_LIB" "$OUT/lib/libpmix.so"
}
