#!/bin/sh
# Runs a reader fuzzer (elfFuzzer, pctxFuzzer) for a bounded time on a scratch copy of its seed
# corpus (so new inputs never land in the source tree), plus any extra seed files given (the
# fixture libraries built by the suite).
#   runFuzzer.sh FUZZER SEED_DIR WORK_DIR SECONDS [EXTRA_SEED...]
# A crash, leak, timeout or sanitizer report fails the test; the reproducer is left in
# WORK_DIR/artifacts: add it to the fuzzer's regressions folder with the fix.
set -eu
fuzzer=$1 seeds=$2 work=$3 seconds=$4
shift 4
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
cp "$seeds"/* "$work/corpus/"
for extra in "$@"; do cp "$extra" "$work/corpus/"; done
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus"
