#!/usr/bin/env bash
# Installs dependencies, builds everything and runs every test through ctest.
#   scripts/test.sh [build-dir] [extra ctest args...]
# Tests that need root or BPF run too; run as root (CI does).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
BUILD=${1:-build}
shift || true
cmake -S . -B "$BUILD" -G Ninja -DVTCTX_WERROR=ON  # warnings fail our own builds, not users'
cmake --build "$BUILD"
ctest --test-dir "$BUILD" --output-on-failure --timeout 900 "$@"
