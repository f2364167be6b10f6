#!/usr/bin/env bash
# ctest demo.quick: scripts/demo.sh --quick on an existing build; passes only if the demo exits 0
# AND its last line is "RESULT OK ...".
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
echo "demo.quick: passed"
