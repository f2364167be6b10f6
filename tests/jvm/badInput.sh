#!/usr/bin/env bash
# Bad input never crashes the JVM: unknown, repeated or malformed options, a stats= path that cannot
# take the report and a too-old JDK give exactly one clear "vtctx:" line (even with log=off) and the
# JVM keeps running; with onerror=abort the JVM refuses to start.
#   env: JAVA AGENT (set by ctest)
set -uo pipefail
fails=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# expect <java> <agent options> <want exit: 0|nonzero> <regex the single vtctx line must match>
# The JVM must also exit on its own within 60 s (a stats file must never block its exit).
expect() {
  local java=$1 opts=$2 want=$3 regex=$4 rc lines
  timeout 60 "$java" "-agentpath:$AGENT${opts:+=$opts}" -version >"$work/out" 2>&1
  rc=$?
  if [[ $rc -eq 124 ]]; then
    echo "FAIL [$opts] on $java: the JVM did not exit within 60 s"; fails=$((fails + 1)); return
  fi
  lines=$(grep -c '^vtctx:' "$work/out")
  if [[ $want == 0 && $rc -ne 0 ]] || [[ $want == nonzero && $rc -eq 0 ]]; then
    echo "FAIL [$opts] on $java: exit $rc, wanted $want"; cat "$work/out"; fails=$((fails + 1)); return
  fi
  if [[ $lines -ne 1 ]] || ! grep '^vtctx:' "$work/out" | grep -Eq "$regex"; then
    echo "FAIL [$opts] on $java: wanted one vtctx line matching /$regex/, got $lines:"; cat "$work/out"
    fails=$((fails + 1)); return
  fi
  echo "ok   [$opts] exit=$rc: $(grep '^vtctx:' "$work/out")"
}

expect "$JAVA" "bogus=1" 0 "unknown option 'bogus' \(valid keys: log, stats, onerror"
expect "$JAVA" "log" 0 "malformed option 'log' \(expected key=value"
expect "$JAVA" "log=loud" 0 "option log: bad value 'loud' \(expected off\|error\|info\|debug\)"
expect "$JAVA" "record_size=100" 0 "option record_size: bad value '100'"
expect "$JAVA" "stats=" 0 "option stats: bad value ''"
expect "$JAVA" "bogus=1,onerror=abort" nonzero "unknown option 'bogus'.*aborting \(onerror=abort\)"
expect "$JAVA" "onerror=sometimes" 0 "option onerror: bad value 'sometimes'"
expect "$JAVA" "service_name=" 0 "option service_name: bad value ''"
expect "$JAVA" "attribute_keys=a||b" 0 "option attribute_keys: key '': empty attribute key"
expect "$JAVA" "" 0 "active \(startup"
# A load error is printed whatever log= says; a key given twice is refused, not "last wins".
expect "$JAVA" "log=off,bogus=1" 0 "unknown option 'bogus'.*vtctx is inactive"
expect "$JAVA" "log=error,bind=use,log=off" 0 "option log given twice"
# The stats file is checked at load, with the reason; none of these may block the JVM's exit.
mkdir "$work/dir"
mkfifo "$work/fifo"
expect "$JAVA" "stats=$work/dir" 0 "option stats: cannot use '$work/dir': a directory"
expect "$JAVA" "stats=$work/missing/s.json" 0 "cannot use '$work/missing/s.json': No such file"
expect "$JAVA" "stats=/dev/full" 0 "option stats: cannot use '/dev/full': a device"
expect "$JAVA" "stats=$work/fifo" 0 "option stats: cannot use '$work/fifo': a FIFO"
expect "$JAVA" "stats=$work/dir,onerror=abort" nonzero "a directory.*aborting \(onerror=abort\)"
# A planted symbolic link (at the file or on the way) is refused: the JVM never writes through it.
echo "not yours" >"$work/victim"
ln -s "$work/victim" "$work/link"
ln -s "$work/dir" "$work/linkdir"
expect "$JAVA" "stats=$work/link" 0 "option stats: cannot use '$work/link': a symbolic link"
expect "$JAVA" "stats=$work/linkdir/s.json" 0 "cannot use '$work/linkdir/s.json': a symbolic link on the way"
[[ $(cat "$work/victim") == "not yours" ]] || { echo "FAIL: the stats file was written through a symlink"; fails=$((fails + 1)); }
[[ ! -e "$work/dir/s.json" ]] || { echo "FAIL: the stats file was created through a symlinked directory"; fails=$((fails + 1)); }
# report= (written before the load returns): a FIFO never blocks the JVM's start (main runs).
# The agent stays active and says once that the report cannot be written.
if timeout 60 "$JAVA" "-agentpath:$AGENT=report=$work/fifo" -version >"$work/out" 2>&1 &&
  grep -q "^vtctx: cannot use report file $work/fifo: a FIFO" "$work/out"; then
  echo "ok   [report=fifo]: $(grep '^vtctx: cannot' "$work/out")"
else
  echo "FAIL [report=fifo]: the JVM did not start and exit within 60 s with one line:"; cat "$work/out"
  fails=$((fails + 1))
fi

# A JDK without virtual threads (17): refuse cleanly.
jdk17=""
for home in /usr/lib/jvm/*; do
  if [[ -x "$home/bin/java" ]] && grep -q '^JAVA_VERSION="17' "$home/release" 2>/dev/null; then
    jdk17=$home/bin/java
    break
  fi
done
if [[ -z "$jdk17" ]]; then
  echo "FAIL: no JDK 17 found (scripts/install-deps.sh installs openjdk-17-jdk-headless)"
  fails=$((fails + 1))
else
  expect "$jdk17" "" 0 "has no JVMTI 21: virtual threads need JDK 21 or newer; vtctx is inactive"
  expect "$jdk17" "onerror=abort" nonzero "has no JVMTI 21.*aborting \(onerror=abort\)"
fi

((fails == 0)) && echo PASS || echo "FAIL: $fails case(s)"
exit $((fails != 0))
