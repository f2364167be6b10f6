#!/usr/bin/env bash
# One agent per process. A second copy of libvtctx.so at another path refuses with one "vtctx:"
# line naming the first copy, leaves nothing behind, and the first copy keeps working:
#   startup   two -agentpath: the JVM runs (the second stays inactive); CarrierTlsCheck passes
#   attach    a startup copy, then another copy attached with jcmd: the attach reports failure
#             (HotSpot unloads the library); LateAttachTarget's checks then pass with the first
#   env: JAVA JCMD AGENT CLASSES PROBE_DIR (set by ctest)
set -uo pipefail
work=$(mktemp -d)
target=""
cleanup() {
  [[ -n "$target" ]] && kill "$target" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mkdir -p "$work/copy"
cp "$AGENT" "$work/copy/libvtctx.so"
copy=$work/copy/libvtctx.so
flags=(--enable-native-access=ALL-UNNAMED "-Djava.library.path=$PROBE_DIR" -cp "$CLASSES")

# The one line the second copy prints: it names the first copy's path.
refusal="vtctx: another OTEP 4947 writer is already loaded: $AGENT defines otel_thread_ctx_v1"

# --- startup: two -agentpath ----------------------------------------------------------------------
"$JAVA" "-agentpath:$AGENT=log=info" "-agentpath:$copy=log=info" "${flags[@]}" \
  io.vtctx.test.CarrierTlsCheck "$AGENT" 2000 8 >"$work/startup.out" 2>&1
rc=$?
cat "$work/startup.out"
[[ $rc -eq 0 ]] || fail "startup: exit $rc"
[[ $(grep -c '^vtctx:' "$work/startup.out") -eq 2 ]] || fail "startup: want two vtctx lines"
grep -qF "$refusal" "$work/startup.out" || fail "startup: no refusal naming $AGENT"
grep -q '^vtctx: active (startup' "$work/startup.out" || fail "startup: first copy not active"

# --- attach: another copy on top of a startup one ----------------------------------------------
"$JAVA" -XX:+EnableDynamicAgentLoading "-agentpath:$AGENT=log=info" "${flags[@]}" \
  io.vtctx.test.LateAttachTarget "$AGENT" "$work/go" >"$work/attach.out" 2>&1 &
target=$!
for ((i = 0; i < 600; i++)); do  # up to 60 s for the target to get ready
  grep -q '^READY' "$work/attach.out" && break
  kill -0 "$target" 2>/dev/null || break
  sleep 0.1
done
grep -q '^READY' "$work/attach.out" || { cat "$work/attach.out"; fail "attach: target not ready"; exit 1; }
"$JCMD" "$target" JVMTI.agent_load "$copy" '"log=info"' >"$work/jcmd.out" 2>&1
jcmd_rc=$?
echo "jcmd (exit $jcmd_rc): $(tr '\n' ' ' <"$work/jcmd.out")"
if [[ $jcmd_rc -eq 0 ]] && ! grep -q 'return code: -1' "$work/jcmd.out"; then
  fail "attach: jcmd reported success for the second copy"
fi
touch "$work/go"
rc=0
wait "$target" || rc=$?
target=""
cat "$work/attach.out"
[[ $rc -eq 0 ]] || fail "attach: the first copy's checks failed (exit $rc)"
[[ $(grep -c '^vtctx:' "$work/attach.out") -eq 2 ]] || fail "attach: want two vtctx lines"
grep -qF "$refusal" "$work/attach.out" || fail "attach: no refusal naming $AGENT"

((fails == 0)) && echo PASS || echo "FAIL: $fails check(s)"
exit $((fails != 0))
