#!/usr/bin/env bash
# Runs the shim's JMH benchmarks in ROUNDS rounds of one fork each, so that the configurations
# being compared alternate in time (a 2-core machine shared with other work drifts), then prints
# the median over rounds of each configuration's per-fork score. Results: $OUT/round-*.json.
#   benchmarks/jmh-shim/run.sh [ROUNDS] [JMH regexp and options...]
# env: AGENT (default build/agent/libvtctx.so; AGENT= to run without the agent),
#      PROBE_DIR (default build/tests/jvm), JAVA (default: the JDK >= 21 of scripts/lib/jdk.sh),
#      OUT (default benchmarks/jmh-shim/results)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/lib/jdk.sh"
JAVA=${JAVA:-$(vtctx_find_jdk)/bin/java}
AGENT=${AGENT-$root/build/agent/libvtctx.so}
PROBE_DIR=${PROBE_DIR:-$root/build/tests/jvm}
OUT=${OUT:-$root/benchmarks/jmh-shim/results}
rounds=${1:-5}
shift || true
jar=$root/benchmarks/jmh-shim/target/benchmarks.jar
[[ -f $jar ]] || mvn -q -f "$root/benchmarks/jmh-shim/pom.xml" package
mkdir -p "$OUT"
agent_args=()
[[ -n $AGENT ]] && agent_args=("-agentpath:$AGENT=log=error")
for ((r = 1; r <= rounds; r++)); do
  echo "round $r/$rounds" >&2
  "$JAVA" "${agent_args[@]}" -Djava.library.path="$PROBE_DIR" --enable-native-access=ALL-UNNAMED \
    -jar "$jar" -f 1 -rf json -rff "$OUT/round-$r.json" "$@" >"$OUT/round-$r.log" 2>&1 ||
    { tail -20 "$OUT/round-$r.log"; exit 1; }
done
python3 "$root/benchmarks/jmh-shim/summarize.py" "$OUT"/round-*.json
