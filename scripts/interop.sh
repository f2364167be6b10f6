#!/usr/bin/env bash
# Interoperability check (docs/interop.md): builds two external OTEP 4947 / OTEP 4719 readers at
# pinned commits and runs them against a JVM with the vtctx agent whose virtual threads publish
# known contexts (tests/interop/InteropWorkload.java); tests/interop/interopCheck.py then checks
# that every context a reader reported is exactly one the workload published.
#
#   scripts/interop.sh [--profiler-src DIR] [--csd-src DIR] [--work DIR] [--seconds N]
#                      [--only csd|profiler] [--filter REGEX]   (scenario names, e.g. 640)
#                      [--repeat N] [--attach-delay S] [--profiler-main-src DIR]
#
# --repeat N runs every selected scenario N times (names get #1..#N). --attach-delay is the time
# between the JVM's start and a late attach (default 1 s). --profiler-main-src adds the late-attach
# scenarios against the profiler's main branch (no thread-context reader there: they check that it
# re-read the JVM's mappings after the attach, i.e. that libvtctx.so's code is in its
# pid_page_to_mapping_info map; needs bpftool). *-noresync: agent option reader_resync=off;
# main-noprctl-*: prctl(PR_SET_VMA) made to fail in the JVM (tests/interop/noprctl.c, LD_PRELOAD).
# Controls (see is_control) run only when --filter matches them.
#
# Readers (sources are copied into WORK, never modified in place):
#   OpenTelemetry eBPF profiler, PR #1229 head   open-telemetry/opentelemetry-ebpf-profiler
#                                                @ 4905b24680d8d3445b42a93bbaec846b517ca188
#   its main branch (optional)                   @ b442421a32ccfa07a527084c7c93b0f2b260b28f
#   ctx-sharing-demo context-reader              scottgerring/ctx-sharing-demo
#                                                @ 2809317434d725725382bdc17c5f35a298c208dd
# Without --*-src the script clones them from github.com (network needed; CI has none, so this
# script is NOT part of ctest or CI). Needs root (ptrace, BPF), Go >= 1.24, cargo, a JDK >= 21,
# and a kernel with BPF (the profiler's prebuilt BPF objects come with the PR).
#
# Local build tweak, applied to the WORK copy only: where RLIMIT_MEMLOCK cannot be raised (a
# container without CAP_SYS_RESOURCE) the profiler's rlimit helper is made to tolerate EPERM;
# kernels >= 5.11 account BPF memory to the memory cgroup and ignore that limit.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
. scripts/lib/jdk.sh
. scripts/lib/version.sh

PROFILER_COMMIT=4905b24680d8d3445b42a93bbaec846b517ca188
PROFILER_MAIN_COMMIT=b442421a32ccfa07a527084c7c93b0f2b260b28f
CSD_COMMIT=2809317434d725725382bdc17c5f35a298c208dd
PROFILER_SRC="" CSD_SRC="" WORK=${TMPDIR:-/tmp}/vtctx-interop SECONDS_RUN=20 ONLY="" FILTER=""
REPEAT=1 ATTACH_DELAY=1 PROFILER_MAIN_SRC=""
while (($#)); do
  case $1 in
    --profiler-src) PROFILER_SRC=$2; shift 2 ;;
    --csd-src) CSD_SRC=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --seconds) SECONDS_RUN=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --filter) FILTER=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --attach-delay) ATTACH_DELAY=$2; shift 2 ;;
    --profiler-main-src) PROFILER_MAIN_SRC=$2; shift 2 ;;
    *) echo "interop.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ $(id -u) == 0 ]] || { echo "interop.sh: run as root (ptrace, BPF)" >&2; exit 2; }
JDK=$(vtctx_find_jdk) || { echo "interop.sh: no JDK >= 21" >&2; exit 2; }
JAVA=$JDK/bin/java
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
log() { echo "interop: $*" >&2; }

# --- vtctx itself -------------------------------------------------------------------------------
BUILD=$REPO/build
[[ -f $BUILD/agent/libvtctx.so ]] || { cmake -S . -B "$BUILD" -G Ninja && cmake --build "$BUILD" --target vtctx; }
VERSION=$(vtctx_build_version "$BUILD")
SHIM=$REPO/java-shim/target/vtctx-shim-$VERSION.jar
[[ -f $SHIM ]] || mvn -q -f java-shim/pom.xml "-Drevision=$VERSION" package -DskipTests
AGENT=$BUILD/agent/libvtctx.so
mkdir -p "$WORK/wl"
"$JDK/bin/javac" -d "$WORK/wl" -cp "$SHIM" tests/interop/InteropWorkload.java
CHECK="python3 $REPO/tests/interop/interopCheck.py"

# --- reader sources -----------------------------------------------------------------------------
fetch_src() {  # name url commit given-dir [extra refspec]
  local name=$1 url=$2 commit=$3 given=$4 ref=${5:-}
  local dst=$WORK/src/$name
  if [[ -f $dst/.interop-commit && $(cat "$dst/.interop-commit") == "$commit" ]]; then return; fi
  rm -rf "$dst"
  mkdir -p "$dst"
  if [[ -n $given ]]; then
    cp -a "$given/." "$dst/"
  else
    git clone --quiet "$url" "$dst"
    [[ -z $ref ]] || git -C "$dst" fetch --quiet origin "$ref"
    git -C "$dst" checkout --quiet "$commit"
  fi
  echo "$commit" >"$dst/.interop-commit"
}

build_profiler() {  # name commit given-dir [extra refspec]
  fetch_src "$1" https://github.com/open-telemetry/opentelemetry-ebpf-profiler "$2" "$3" "${4:-}"
  local P=$WORK/src/$1
  if ! grep -q 'unix.EPERM' "$P/rlimit/rlimit.go"; then
    python3 - "$P/rlimit/rlimit.go" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
old = "\tif err := unix.Prlimit(0, unix.RLIMIT_MEMLOCK, &tmpLimit, &oldLimit); err != nil {\n"
assert old in s, "rlimit.go changed upstream"
s = s.replace(old, old + "\t\tif err == unix.EPERM { // interop.sh: memcg accounting, see header\n"
              "\t\t\treturn func() {}, nil\n\t\t}\n", 1)
open(p, "w").write(s)
EOF
  fi
  log "building $1 (go build)"
  (cd "$P" && go build -o "$WORK/$1" .)
}
if [[ $ONLY != csd ]]; then
  build_profiler ebpf-profiler "$PROFILER_COMMIT" "$PROFILER_SRC" pull/1229/head
  [[ -z $PROFILER_MAIN_SRC ]] ||
    build_profiler ebpf-profiler-main "$PROFILER_MAIN_COMMIT" "$PROFILER_MAIN_SRC"
  (cd tests/interop/otlpsink && go build -o "$WORK/otlpsink" .)
  cc -shared -fPIC -O2 -Wall -o "$WORK/noprctl.so" tests/interop/noprctl.c
  # The profiler attaches tracepoints through tracefs.
  [[ -e /sys/kernel/tracing/events ]] || mount -t tracefs nodev /sys/kernel/tracing
fi
if [[ $ONLY != profiler ]]; then
  fetch_src ctx-sharing-demo https://github.com/scottgerring/ctx-sharing-demo "$CSD_COMMIT" "$CSD_SRC"
  C=$WORK/src/ctx-sharing-demo
  export CARGO_TARGET_DIR=$WORK/cargo-target
  log "building ctx-sharing-demo's context-reader (cargo build)"
  (cd "$C/context-reader" && cargo build --quiet --bin validate --bin tail --bin check-elf)
  mkdir -p "$WORK/pctxdump/src"
  cp tests/interop/pctxdump.rs "$WORK/pctxdump/src/main.rs"
  cat >"$WORK/pctxdump/Cargo.toml" <<EOF
[package]
name = "pctxdump"
version = "0.1.0"
edition = "2021"
[dependencies]
custom-labels = { path = "$C/custom-labels" }
[workspace]
EOF
  (cd "$WORK/pctxdump" && cargo build --quiet)
  CSD_BIN=$CARGO_TARGET_DIR/debug
fi

# --- scenarios ----------------------------------------------------------------------------------
FAILED=0
RUN=""  # "#i" when --repeat > 1
# Controls: a late attach under a running profiler with every mechanism that reader responds to
# switched off (PR head: reader_resync=off; main: that and prctl). Run only when --filter matches
# them; their outcome is reported, never a failure.
is_control() { [[ $1 =~ ^profiler-.*-noresync || $1 =~ noprctl.*-noresync ]]; }
result() {  # name status-of-check
  local name=$1$RUN
  if is_control "$1"; then
    if [[ $2 == 0 ]]; then echo "CONTROL $name: reader saw the writer"; else echo "CONTROL $name: reader did not see the writer"; fi
  elif [[ $2 == 0 ]]; then echo "SCENARIO $name: OK"; else echo "SCENARIO $name: FAIL"; FAILED=1; fi
}
KEYS='attribute_keys=method|route|user,service_name=interop-check'
start_jvm() {  # out mode(startup|startup-640|late|late-dtv|late-noresync) [workload flags...]
  local out=$1 mode=$2 opt=() tunables=${GLIBC_TUNABLES:-} keys=$KEYS preload=""
  shift 2
  [[ $mode == startup ]] && opt=("-agentpath:$AGENT=$KEYS")
  # startup-640: 640-byte records holding 519 bytes of attributes (two 255-byte values, one in
  # 2-byte UTF-8 characters), near the OTEP's 640-byte bound.
  if [[ $mode == startup-640 ]]; then
    opt=("-agentpath:$AGENT=$KEYS,record_size=640")
    set -- "$@" long
    mode=startup
  fi
  # late-dtv: no optional static TLS for dlopen, so the late-loaded agent's TLS block is
  # allocated dynamically and readers must go through the DTV.
  [[ $mode == late-dtv ]] && tunables=glibc.rtld.optional_static_tls=0
  # Late attaches ask for the agent's reader resync (off by default: docs/interop.md), which the
  # PR-head profiler needs when it started before the attach; late-noresync (control) goes
  # without it.
  [[ $mode == late || $mode == late-dtv ]] && keys="$KEYS,reader_resync=on"
  [[ $mode == late-noresync ]] && keys="$KEYS,reader_resync=off"
  [[ $mode == late-* ]] && mode=late
  [[ ${NOPRCTL:-} == 1 ]] && preload=$WORK/noprctl.so
  LD_PRELOAD=$preload GLIBC_TUNABLES=$tunables \
    OTEL_RESOURCE_ATTRIBUTES='deployment.environment.name=interop,service.namespace=vtctx' \
    "$JAVA" -Djdk.virtualThreadScheduler.parallelism=2 "${opt[@]}" -cp "$WORK/wl:$SHIM" \
    InteropWorkload 6 "$SECONDS_RUN" $([[ $mode == late ]] && echo late) "$@" \
    >"$out/jvm.txt" 2>"$out/jvm.err" &
  JVM_PID=$!
  local word=READY
  [[ $mode == late ]] && word=WAITING
  for _ in $(seq 100); do grep -q "^$word" "$out/jvm.txt" 2>/dev/null && break; sleep 0.1; done
  if [[ $mode == late ]]; then
    sleep "$ATTACH_DELAY"
    date +%s.%N >"$out/attach.txt"
    "$JDK/bin/jcmd" "$JVM_PID" JVMTI.agent_load "$AGENT" "\"$keys\"" >"$out/jcmd.txt"
    for _ in $(seq 100); do grep -q '^READY' "$out/jvm.txt" && break; sleep 0.1; done
  fi
}

wanted() {
  if is_control "$1"; then [[ -n $FILTER && $1 =~ $FILTER ]]; else [[ -z $FILTER || $1 =~ $FILTER ]]; fi
}

csd_scenario() {  # mode(startup|startup-640|late|late-dtv)
  local name=csd-$1 out=$WORK/out/csd-$1$RUN
  wanted "$name" || return 0
  rm -rf "$out"; mkdir -p "$out"
  start_jvm "$out" "$1"
  "$CSD_BIN/check-elf" "$AGENT" --symbol otel_thread_ctx_v1 >"$out/check-elf.txt" 2>&1 || true
  "$CSD_BIN/pctxdump" "$JVM_PID" >"$out/pctxdump.txt" 2>"$out/pctxdump.err" || true
  "$CSD_BIN/validate" "$JVM_PID" --timeout 10 >"$out/validate.txt" 2>&1 || true
  timeout $((SECONDS_RUN - 6)) "$CSD_BIN/tail" "$JVM_PID" --interval 200 >"$out/tail.txt" 2>&1 || true
  wait "$JVM_PID" || true
  local rc=0
  grep -q 'PASS: all 1 TLS symbol' "$out/check-elf.txt" || { echo "$name: check-elf did not pass"; rc=1; }
  grep -q '^VALIDATE OK' "$out/validate.txt" || { echo "$name: validate did not pass"; rc=1; }
  grep -q 'tls_config key_table = \["method", "route", "user"\]' "$out/pctxdump.txt" ||
    { echo "$name: process context not accepted"; rc=1; }
  grep -q 'resource service.name = String("interop-check")' "$out/pctxdump.txt" ||
    { echo "$name: service.name missing"; rc=1; }
  $CHECK csd "$out/jvm.txt" "$out/tail.txt" >"$out/check.txt" || rc=1
  sed "s/^/$name$RUN: /" "$out/check.txt"
  result "$name" $rc
}

# profiler: pr = PR #1229's head (reads thread context); main, main-noprctl = the main branch
# (no thread-context reader; main-noprctl: the JVM's prctl(PR_SET_VMA) fails, see header).
profiler_scenario() {  # order(after|before|delayed) mode(startup|startup-640|late|late-dtv|late-noresync) [profiler]
  local variant=${3:-pr} prof sink bin=$WORK/ebpf-profiler tracers=hotspot,thread_context
  local name=profiler-$1-$2
  if [[ $variant != pr ]]; then
    name=$variant-$1-$2 bin=$WORK/ebpf-profiler-main tracers=hotspot
    [[ -x $bin ]] || return 0
  fi
  local out=$WORK/out/$name$RUN
  wanted "$name" || return 0
  rm -rf "$out"; mkdir -p "$out"
  "$WORK/otlpsink" -listen 127.0.0.1:4317 >"$out/sink.txt" 2>"$out/sink.err" &
  sink=$!
  start_prof() {
    "$bin" -collection-agent 127.0.0.1:4317 -disable-tls \
      -t "$tracers" -reporter-interval 2s -samples-per-second 50 -v \
      >"$out/profiler.log" 2>&1 &
    prof=$!
  }
  if [[ $1 == before ]]; then
    start_prof
    # Loaded: its last tracepoint is attached (main: the prctl monitor, after the sched monitor).
    local ready='Attached sched monitor'
    [[ $variant != pr ]] && ready='Attached prctl monitor'
    for _ in $(seq 600); do grep -q "$ready" "$out/profiler.log" && break; sleep 0.1; done
  fi
  # runtime-key: a key registered while the profiler runs must be named (process context re-read).
  [[ $variant == *-noprctl ]] && NOPRCTL=1
  start_jvm "$out" "$2" runtime-key
  NOPRCTL=0
  [[ $1 == after ]] && start_prof
  # delayed: the profiler first reads the process context after the runtime key was registered
  # (3 s after READY), i.e. it reads a republished context and must name the new key.
  if [[ $1 == delayed ]]; then sleep 5; start_prof; fi
  # A late attach under a running profiler: does it know libvtctx.so's code by now?
  if [[ $1 == before && $2 == late* ]]; then
    sleep 8
    python3 "$REPO/tests/interop/profilerKnows.py" "$JVM_PID" "$(cat "$out/attach.txt")" \
      "$out/profiler.log" >"$out/known.txt" 2>&1 || true
  fi
  wait "$JVM_PID" || true
  sleep 5
  kill "$prof" "$sink" 2>/dev/null || true
  wait "$prof" "$sink" 2>/dev/null || true
  local rc=0 pid
  pid=$(awk '/^READY/{print $2}' "$out/jvm.txt")
  if [[ $variant != pr ]]; then
    # No thread-context reader: it must have re-read the JVM's mappings after the attach.
    grep -q '^KNOWN yes' "$out/known.txt" || rc=1
    sed "s/^/$name$RUN: /" "$out/known.txt"
    result "$name" $rc
    return
  fi
  # PR #1229's head re-reads the process context only when it resynchronises the process (no prctl
  # hook at that commit), so naming the runtime key is reported, not required (docs/interop.md).
  local rk=--runtime-key-optional
  [[ $1 == delayed ]] && rk=--runtime-key
  $CHECK otlp "$out/jvm.txt" "$out/sink.txt" $rk >"$out/check.txt" || rc=1
  sed "s/^/$name$RUN: /" "$out/check.txt"
  [[ -f $out/known.txt ]] && sed "s/^/$name$RUN: /" "$out/known.txt"
  grep "^RESOURCE .*process.pid=$pid " "$out/sink.txt" | tail -1 >"$out/resource.txt" || true
  # service.name (agent option), service.instance.id and telemetry.sdk.language exist only in our
  # process context; the profiler also merges OTEL_RESOURCE_ATTRIBUTES from the environment.
  for want in service.name=interop-check telemetry.sdk.language=java service.instance.id= \
    deployment.environment.name=interop service.namespace=vtctx; do
    grep -q " $want" "$out/resource.txt" || { echo "$name$RUN: resource lacks $want"; rc=1; }
  done
  result "$name" $rc
}

for ((r = 1; r <= REPEAT; r++)); do
  ((REPEAT > 1)) && RUN="#$r"
  if [[ $ONLY != profiler ]]; then
    csd_scenario startup
    csd_scenario startup-640
    csd_scenario late
    csd_scenario late-dtv
  fi
  if [[ $ONLY != csd ]]; then
    profiler_scenario after startup
    profiler_scenario after startup-640
    profiler_scenario before startup
    profiler_scenario delayed startup
    profiler_scenario after late
    profiler_scenario after late-dtv
    # Late attach under a running profiler (docs/interop.md, "A late-attached writer").
    profiler_scenario before late
    profiler_scenario before late-dtv
    profiler_scenario before late-noresync
    profiler_scenario before late main
    profiler_scenario before late-noresync main
    profiler_scenario before late main-noprctl
    profiler_scenario before late-noresync main-noprctl
  fi
done
log "outputs under $WORK/out"
if ((FAILED)); then echo "INTEROP RESULT FAIL"; exit 1; fi
echo "INTEROP RESULT OK"
