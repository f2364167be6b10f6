# Sourced by the late-attach test scripts: a work directory removed at exit, a failure count, and
# the LateAttachTarget JVM started in the background and waited for.
#   env: JAVA CLASSES PROBE_DIR (set by ctest)
work=$(mktemp -d)
target=""
cleanup() {
  [[ -n "$target" ]] && kill "$target" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# start_target OUT [JVM OPTION...]: starts LateAttachTarget (it runs its checks once $work/go
# exists) with its output in OUT, sets $target, and waits up to 60 s for its READY line; exits the
# script with the output if it never comes.
start_target() {
  local out=$1
  shift
  "$JAVA" -XX:+EnableDynamicAgentLoading "$@" --enable-native-access=ALL-UNNAMED \
    "-Djava.library.path=$PROBE_DIR" -cp "$CLASSES" \
    io.vtctx.test.LateAttachTarget "$AGENT" "$work/go" >"$out" 2>&1 &
  target=$!
  for ((i = 0; i < 600; i++)); do
    grep -q '^READY' "$out" && return
    kill -0 "$target" 2>/dev/null || break
    sleep 0.1
  done
  cat "$out"
  echo "FAIL: the target never got ready"
  exit 1
}

# finish_target: lets the target run its checks and waits for it; returns its exit code.
finish_target() {
  local rc=0
  touch "$work/go"
  wait "$target" || rc=$?
  target=""
  return $rc
}

# The script's verdict and exit code.
report() {
  ((fails == 0)) && echo PASS || echo "FAIL: $fails check(s)"
  exit $((fails != 0))
}
