#!/usr/bin/env bash
# Paired A/B of shim builds: runs the same JMH selection for each VARIANT in every round, one fork
# each, the variants' order rotating from round to round (a 2-core machine shared with other work
# drifts within minutes; JMH's fork inherits the agent and the options), then prints each variant's summary (summarize.py) and the per-round
# ratios of every variant to the first (compare.py). Results: $OUT/<label>/round-*.json.
#   VARIANTS='old|/tmp/old/build/jmh-shim/benchmarks.jar|/tmp/old/build/agent/libvtctx.so|
#             new|build/jmh-shim/benchmarks.jar|build/agent/libvtctx.so|-Dio.vtctx.x=y ...'
#   benchmarks/jmh-shim/pair.sh ROUNDS [JMH regexp and options...]
# VARIANTS: one variant per line, label|benchmarks.jar|agent|extra JVM options (may be empty).
# env: PROBE_DIR (default build/tests/jvm), JAVA (default: the JDK >= 21 of scripts/lib/jdk.sh),
#      OUT (default benchmarks/jmh-shim/results/pair)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/lib/jdk.sh"
JAVA=${JAVA:-$(vtctx_find_jdk)/bin/java}
PROBE_DIR=${PROBE_DIR:-$root/build/tests/jvm}
OUT=${OUT:-$root/benchmarks/jmh-shim/results/pair}
rounds=${1:?rounds}
shift
mapfile -t variants < <(grep -v '^[[:space:]]*$' <<<"${VARIANTS:?VARIANTS}")
n=${#variants[@]}
labels=()
for v in "${variants[@]}"; do
  IFS='|' read -r label jar agent _ <<<"$v"
  [[ -f $jar && -f $agent ]] || { echo "pair.sh: $label: no $jar or $agent" >&2; exit 1; }
  labels+=("$label")
  mkdir -p "$OUT/$label"
done
for ((r = 1; r <= rounds; r++)); do
  for ((k = 0; k < n; k++)); do
    IFS='|' read -r label jar agent extra <<<"${variants[(k + r - 1) % n]}"
    echo "round $r/$rounds: $label" >&2
    # shellcheck disable=SC2086  # extra holds separate JVM options
    "$JAVA" "-agentpath:$agent=log=error" -Djava.library.path="$PROBE_DIR" \
      --enable-native-access=ALL-UNNAMED $extra -jar "$jar" -f 1 -rf json -rff "$OUT/$label/round-$r.json" "$@" >"$OUT/$label/round-$r.log" 2>&1 ||
      { tail -20 "$OUT/$label/round-$r.log"; exit 1; }
  done
done
for label in "${labels[@]}"; do
  echo "== $label"
  python3 "$root/benchmarks/jmh-shim/summarize.py" "$OUT/$label"/round-*.json
done
python3 "$root/benchmarks/jmh-shim/compare.py" "${labels[@]/#/$OUT/}"
