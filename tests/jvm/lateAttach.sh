#!/usr/bin/env bash
# Late attach into a JVM whose virtual threads exist (parked, and one running) before the attach.
#   lateAttach.sh api|jcmd      (env: JAVA JCMD AGENT CLASSES PROBE_DIR, set by ctest)
set -euo pipefail
mode=$1
work=$(mktemp -d)
target=""
cleanup() {
  [[ -n "$target" ]] && kill "$target" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

"$JAVA" -XX:+EnableDynamicAgentLoading --enable-native-access=ALL-UNNAMED -Djava.library.path="$PROBE_DIR" -cp "$CLASSES" \
  io.vtctx.test.LateAttachTarget "$AGENT" "$work/go" >"$work/out" 2>&1 &
target=$!

for ((i = 0; i < 600; i++)); do  # up to 60 s for the target to get ready
  grep -q '^READY' "$work/out" && break
  kill -0 "$target" 2>/dev/null || { cat "$work/out"; echo "FAIL: target died"; exit 1; }
  sleep 0.1
done
grep -q '^READY' "$work/out" || { cat "$work/out"; echo "FAIL: target never got ready"; exit 1; }

opts="log=info,stats=$work/stats.json"
case $mode in
  api) "$JAVA" -cp "$CLASSES" io.vtctx.test.AttachAgent "$target" "$AGENT" "$opts" ;;
  # jcmd splits its arguments at '=' unless the options are one quoted argument: the inner
  # double quotes reach the JVM's parser and keep "log=info,stats=..." intact.
  jcmd) "$JCMD" "$target" JVMTI.agent_load "$AGENT" "\"$opts\"" ;;
  *) echo "usage: $0 api|jcmd"; exit 2 ;;
esac
touch "$work/go"

rc=0
wait "$target" || rc=$?
target=""
cat "$work/out"
grep -q 'vtctx: active (attached' "$work/out" || { echo "FAIL: agent did not report an attach"; rc=1; }
[[ -s "$work/stats.json" ]] || { echo "FAIL: the stats= option did not survive the $mode path"; rc=1; }
grep -q '"loaded": "attach"' "$work/stats.json" || { echo "FAIL: stats do not say attach"; rc=1; }
exit $rc
