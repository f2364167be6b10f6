#!/usr/bin/env bash
# One agent per process. A second copy of libvtctx.so at another path refuses with one "vtctx:"
# line naming the first copy, leaves nothing behind, and the first copy keeps working:
#   startup   two -agentpath: the JVM runs (the second stays inactive); CarrierTlsCheck passes
#   attach    a startup copy, then another copy attached with jcmd: the attach reports failure
#             (HotSpot unloads the library); LateAttachTarget's checks then pass with the first
#   env: JAVA JCMD AGENT CLASSES PROBE_DIR (set by ctest)
set -uo pipefail
source "$(dirname "$0")/lateAttachTarget.sh"
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
start_target "$work/attach.out" "-agentpath:$AGENT=log=info"
"$JCMD" "$target" JVMTI.agent_load "$copy" '"log=info"' >"$work/jcmd.out" 2>&1
jcmd_rc=$?
echo "jcmd (exit $jcmd_rc): $(tr '\n' ' ' <"$work/jcmd.out")"
if [[ $jcmd_rc -eq 0 ]] && ! grep -q 'return code: -1' "$work/jcmd.out"; then
  fail "attach: jcmd reported success for the second copy"
fi
rc=0
finish_target || rc=$?
cat "$work/attach.out"
[[ $rc -eq 0 ]] || fail "attach: the first copy's checks failed (exit $rc)"
[[ $(grep -c '^vtctx:' "$work/attach.out") -eq 2 ]] || fail "attach: want two vtctx lines"
grep -qF "$refusal" "$work/attach.out" || fail "attach: no refusal naming $AGENT"
report
