#!/usr/bin/env bash
# An attach that leaves the agent inactive fails for the attacher (the Attach API throws, jcmd
# reports it), prints one "vtctx:" line in the target whatever log= says, and leaves nothing behind
# (HotSpot unloads the library): a later attach with good options works and every check passes.
#   env: JAVA JCMD AGENT CLASSES PROBE_DIR (set by ctest)
set -uo pipefail
source "$(dirname "$0")/lateAttachTarget.sh"
start_target "$work/out"

lines_before=0
# expect_refused <how: api|jcmd> <options> <regex of the one new vtctx line> [jcmd's return code:
# -6 (JNI_EINVAL) for options that do not parse, -1 (JNI_ERR) for a start that failed]
expect_refused() {
  local how=$1 opts=$2 regex=$3 code=${4:--6} rc=0 line
  if [[ $how == api ]]; then
    "$JAVA" -cp "$CLASSES" io.vtctx.test.AttachAgent "$target" "$AGENT" "$opts" >"$work/att" 2>&1 ||
      rc=$?
    [[ $rc -ne 0 ]] || fail "[$opts] the Attach API reported success"
  else
    "$JCMD" "$target" JVMTI.agent_load "$AGENT" "\"$opts\"" >"$work/att" 2>&1 || rc=$?
    if [[ $rc -eq 0 ]] && ! grep -q "return code: $code\$" "$work/att"; then
      fail "[$opts] jcmd reported success: $(tr '\n' ' ' <"$work/att")"
    fi
  fi
  echo "$how [$opts]: attacher exit $rc: $(tail -n 1 "$work/att")"
  local lines
  lines=$(grep -c '^vtctx:' "$work/out")
  line=$(grep '^vtctx:' "$work/out" | tail -n 1)
  if [[ $((lines - lines_before)) -ne 1 ]] || ! grep -Eq "$regex" <<<"$line"; then
    fail "[$opts] wanted one new vtctx line matching /$regex/, got $((lines - lines_before))"
    grep '^vtctx:' "$work/out"
  fi
  lines_before=$lines
}

expect_refused api "bogus=1" "unknown option 'bogus'.*the attach fails and vtctx is not loaded"
expect_refused jcmd "log=off,bogus=1" "unknown option 'bogus'.*the attach fails"
expect_refused api "stats=$work/no-such-dir/stats.json" \
  "cannot use '$work/no-such-dir/stats.json': No such file or directory.*the attach fails"
expect_refused jcmd "log=info,log=off" "option log given twice.*the attach fails"
expect_refused jcmd "stats=$work/no-such-dir/s.json" \
  "cannot use '$work/no-such-dir/s.json': No such file or directory.*the attach fails" -1

# Nothing of the failed attaches is left: a good attach goes active and the target's checks pass.
"$JCMD" "$target" JVMTI.agent_load "$AGENT" "\"log=info,stats=$work/stats.json\"" >"$work/att" 2>&1 ||
  fail "good attach: jcmd failed: $(tr '\n' ' ' <"$work/att")"
rc=0
finish_target || rc=$?
cat "$work/out"
[[ $rc -eq 0 ]] || fail "target checks after the failed attaches: exit $rc"
grep -q '^vtctx: active (attached' "$work/out" || fail "good attach: agent not active"
grep -q '"loaded": "attach"' "$work/stats.json" 2>/dev/null || fail "no stats written at exit"
report
