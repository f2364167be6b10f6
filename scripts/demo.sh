#!/usr/bin/env bash
# The README's first command. Installs what is missing, builds, and runs a bundled virtual-thread
# workload under the agent, printing the agent's live counters.
#   scripts/demo.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
source scripts/lib/jdk.sh
jdk=$(vtctx_find_jdk)
cmake -S . -B build -G Ninja >/dev/null
cmake --build build
echo
echo "== a virtual-thread workload under vtctx (build/agent/libvtctx.so), live agent counters =="
"$jdk/bin/java" -agentpath:"$PWD/build/agent/libvtctx.so" -cp build/scripts/demo/classes \
  io.vtctx.demo.LiveCounters "${1:-8}"
