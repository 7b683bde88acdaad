#!/usr/bin/env bash
# The whole test suite: installs what it needs, then runs every test of the
# workspace (Rust unit and property tests, the C-ABI tests against our
# headers and library, and the side-by-side tests against Debian's OpenPMIx).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cargo test --workspace --no-fail-fast "$@"
