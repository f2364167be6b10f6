#!/usr/bin/env bash
# Late attach into a JVM whose virtual threads exist (parked, and one running) before the attach.
#   lateAttach.sh api|jcmd      (env: JAVA JCMD AGENT CLASSES PROBE_DIR, set by ctest)
set -uo pipefail
mode=$1
source "$(dirname "$0")/lateAttachTarget.sh"
start_target "$work/out"

opts="log=info,stats=$work/stats.json"
case $mode in
  api) "$JAVA" -cp "$CLASSES" io.vtctx.test.AttachAgent "$target" "$AGENT" "$opts" ;;
  # jcmd splits its arguments at '=' unless the options are one quoted argument: the inner
  # double quotes reach the JVM's parser and keep "log=info,stats=..." intact.
  jcmd) "$JCMD" "$target" JVMTI.agent_load "$AGENT" "\"$opts\"" ;;
  *) echo "usage: $0 api|jcmd"; exit 2 ;;
esac || fail "$mode attach failed"

rc=0
finish_target || rc=$?
cat "$work/out"
[[ $rc -eq 0 ]] || fail "the target's checks failed (exit $rc)"
grep -q 'vtctx: active (attached' "$work/out" || fail "agent did not report an attach"
[[ -s "$work/stats.json" ]] || fail "the stats= option did not survive the $mode path"
grep -q '"loaded": "attach"' "$work/stats.json" || fail "stats do not say attach"
report
