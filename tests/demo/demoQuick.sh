#!/usr/bin/env bash
# ctest demo.quick: scripts/demo.sh --quick on an existing build; passes only if the demo exits 0
# AND its last line is "RESULT OK ...", and the service's stacks (no -XX:+PreserveFramePointer)
# are whole: no [stack lost] or [no user stack] frame in the folded profile, at most 5 % of the
# samples unwound only part way (stacks_unwind_stopped + stacks_copy_cut), and at least 90 % of
# the slow requests' samples under their handler (NoteHandler.handle).
#   demoQuick.sh SOURCE_DIR BUILD_DIR OUT_DIR
set -euo pipefail
src=$1 build=$2 out=$3
if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: the demo needs root (BPF)"
  exit 77
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
code=0
bash "$src/scripts/demo.sh" --quick --skip-setup --build-dir "$build" --out "$out" 2>&1 |
  tee "$log" || code=$?
last=$(tail -n 1 "$log")
if ((code != 0)) || [[ $last != "RESULT OK "* ]]; then
  echo "demo.quick: FAILED (exit $code, last line: $last)"
  exit 1
fi
summary=$(grep "summary:" "$out/reader-folded.log" | tail -n 1)
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$summary"; }
samples=$(field samples) stopped=$(field stacks_unwind_stopped) cut=$(field stacks_copy_cut)
if [[ -z $samples || -z $stopped || -z $cut ]]; then
  echo "demo.quick: FAILED (the folded reader's summary has no stack counts: $summary)"
  exit 1
fi
if grep -q -e '\[stack lost\]' -e '\[no user stack\]' "$out/profile.folded"; then
  echo "demo.quick: FAILED (stacks lost in $out/profile.folded)"
  exit 1
fi
if ((100 * (stopped + cut) > 5 * samples)); then
  echo "demo.quick: FAILED ($stopped + $cut of $samples samples unwound only part way)"
  exit 1
fi
# The request handler sits near the root of a request's stack: a stack cut short misses it.
read -r slow handled < <(awk '{n = $NF; total += n; if (index($0, "io.vtctx.demo.NoteHandler.handle")) h += n}
  END { print total + 0, h + 0 }' "$out/slow-requests.folded")
if ((slow == 0 || 100 * handled < 90 * slow)); then
  echo "demo.quick: FAILED ($handled of $slow slow-request samples reach NoteHandler.handle)"
  exit 1
fi
echo "demo.quick: stacks: $stopped + $cut of $samples samples unwound only part way;" \
  "$handled of $slow slow-request samples under NoteHandler.handle"
echo "demo.quick: passed"
