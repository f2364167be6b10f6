#!/usr/bin/env bash
# jvm.forged_natives: a forged io.vtctx.internal.AgentNatives (wrong parameter and return types),
# bound through a forged AgentBootstrap (wrong parameter and return types too), never crashes the
# JVM through the agent, on JDK 25 under --illegal-native-access=deny and on Java 21, with either
# channel; the agent's one line names the class it refused.
#   env: JAVA JAVA21 AGENT CLASSES (set by ctest)
set -uo pipefail
fails=0
run() {
  local java=$1 options=$2; shift 2
  out=$(timeout 60 "$java" "$@" "-agentpath:$AGENT$options" -cp "$CLASSES" io.vtctx.internal.ForgedNatives 2>&1)
  rc=$?
  echo "$out" | sed 's/^/  /'
  if [[ $rc -ne 0 ]] || ! grep -q "forged natives: PASS" <<<"$out"; then
    echo "FAIL: $java $*: exit $rc (a crash is 134)"; fails=$((fails + 1)); return
  fi
  if [[ $(grep -c "^vtctx: .*does not declare this agent's natives" <<<"$out") -ne 1 ]]; then
    echo "FAIL: $java $*: want one vtctx line naming the refused class"; fails=$((fails + 1))
  fi
}
run "$JAVA" "" --illegal-native-access=deny
run "$JAVA21" ""
run "$JAVA" "=channel=identity" --illegal-native-access=deny
run "$JAVA21" "=channel=identity"
[[ $fails -eq 0 ]] && echo PASS
exit $fails
