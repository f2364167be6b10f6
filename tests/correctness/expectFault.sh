#!/usr/bin/env bash
# Negative control: run.sh against an agent with a test-only fault must FAIL, and must fail for
# the right reason: misattributed markers on both planes (not a crash, a timeout or a drop).
#   expectFault.sh FAULT [run.sh arguments...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fault=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT

rc=0
bash "$here/run.sh" --fault "$fault" "$@" | tee "$out" || rc=$?
((rc == 77)) && exit 77  # not root: skipped
result=$(tail -n 1 "$out")
fail() {
  echo "expectFault.sh: FAIL: $1"
  exit 1
}
((rc != 0)) || fail "run.sh exited 0 with fault=$fault: the harness did not notice the fault"
[[ $result =~ ^RESULT\ FAIL\ markers=[1-9] ]] || fail "last line is not a RESULT FAIL with markers"
[[ $result =~ \ content_misattributed=[1-9][0-9]*\  ]] || fail "no content misattribution reported"
[[ $result =~ \ identity_misattributed=[1-9][0-9]*\  ]] || fail "no identity misattribution reported"
[[ $result =~ \ failed_runs=[0-9]+\  ]] || fail "no failed_runs count"
[[ $result =~ \ dropped=0\  ]] || fail "the reader dropped events: the fault run proves nothing"
grep -q 'run could not be' "$out" && fail "some runs did not complete or could not be graded"
echo "expectFault.sh: PASS: fault=$fault detected (${result%% naive*})"
