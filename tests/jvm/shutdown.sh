#!/usr/bin/env bash
# System.exit with virtual threads mounted, parked and starting during shutdown: the JVM exits with
# the requested status (42), never crashes, and the agent writes its stats (with the project's
# version). Repeated to give races a chance.   env: JAVA AGENT CLASSES PROBE_DIR VTCTX_VERSION
# (set by ctest)
set -uo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for run in 1 2 3 4 5; do
  rm -f stats.json hs_err_pid*.log
  "$JAVA" "-agentpath:$AGENT=log=error,stats=$work/stats.json" -cp "$CLASSES" \
    io.vtctx.test.ShutdownWhileMounted >out 2>&1
  rc=$?
  if [[ $rc -ne 42 ]] || ls hs_err_pid*.log >/dev/null 2>&1 || grep -q '^vtctx:' out; then
    echo "FAIL run $run: exit $rc (want 42)"; cat out; ls; exit 1
  fi
  grep -q '"mounts": [1-9]' stats.json || { echo "FAIL run $run: no stats"; cat stats.json; exit 1; }
  grep -qxF "  \"version\": \"$VTCTX_VERSION\"," stats.json ||
    { echo "FAIL run $run: stats lack \"version\": \"$VTCTX_VERSION\""; cat stats.json; exit 1; }
  echo "run $run: exit 42, stats: $(grep -E '"(mounts|records_live)"' stats.json | tr -d '\n ')"
done
echo PASS
