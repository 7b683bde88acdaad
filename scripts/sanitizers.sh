#!/usr/bin/env bash
# The unsafe core under a checker (issue 13, item 6): the C conversions and
# the pointer cache (pmix-ffi's unit tests) and the shared-memory segment
# reader and writer (pmix-shmem's unit and integration tests).
#
# Miri when the nightly toolchain has it (`rustup component add miri
# --toolchain nightly`); else AddressSanitizer (with LeakSanitizer) on the
# nightly compiler; else says what is missing and exits 0 (the suite does
# not depend on a nightly toolchain). Extra arguments go to every
# `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! rustc +nightly --version >/dev/null 2>&1; then
    echo "sanitizers.sh: no nightly toolchain: neither Miri nor AddressSanitizer can run" >&2
    exit 0
fi

if cargo +nightly miri --version >/dev/null 2>&1; then
    echo "sanitizers.sh: Miri" >&2
    # Miri runs no foreign code: the tests that map segments or call libc
    # beyond what Miri models report themselves as unsupported.
    cargo +nightly miri test -p pmix-ffi --lib "$@"
    cargo +nightly miri test -p pmix-shmem --lib "$@"
    exit 0
fi

echo "sanitizers.sh: Miri is not installed for nightly; AddressSanitizer" >&2
target=$(rustc +nightly -vV | sed -n 's/^host: //p')
export RUSTFLAGS=-Zsanitizer=address RUSTC_BOOTSTRAP=1
# --target keeps the build scripts and proc macros uninstrumented.
cargo +nightly test -p pmix-ffi --lib --target "$target" "$@"
cargo +nightly test -p pmix-shmem --tests --target "$target" "$@"
