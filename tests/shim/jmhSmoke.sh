#!/usr/bin/env bash
# Builds the shim's JMH benchmarks and runs every benchmark once, briefly, under the agent, so that
# they keep compiling and running (setup checks included: -foe fails on any error). Not a
# measurement: see benchmarks/jmh-shim/run.sh and docs/shim.md.
#   env: MVN VERSION JAVA AGENT PROBE_DIR OUT JDK_RANGE (set by ctest)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
"$MVN" -B -ntp -q -f "$root/benchmarks/jmh-shim/pom.xml" "-Drevision=$VERSION" \
  "-Dvtctx.jdkVersion=$JDK_RANGE" \
  "-Dvtctx.buildDir=$OUT" package
# jmh.ignoreLock: a smoke run measures nothing, so it need not wait for (or fail on) another JMH
# run on the machine holding /tmp/jmh.lock.
"$JAVA" "-agentpath:$AGENT=log=error" -Djava.library.path="$PROBE_DIR" -Djmh.ignoreLock=true \
  --enable-native-access=ALL-UNNAMED -jar "$OUT/benchmarks.jar" \
  -f 1 -wi 0 -i 1 -r 100ms -foe true
