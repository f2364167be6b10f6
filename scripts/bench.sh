#!/usr/bin/env bash
# Runs every vtctx benchmark and writes raw results (JSON, logs) and a summary.
#
#   scripts/bench.sh [--smoke] [--out DIR] [--build-dir DIR] [--rounds N] [--java JAVA]
#                    [--no-build] [--publish]
#   scripts/bench.sh --service [--smoke] [--java21 JAVA] [same options]
#
# Parts, in order: native (Google Benchmark: handler bodies, record rewrite, pool, TLS symbol
# resolution), JMH (5 virtual-thread workloads x 7 agent configurations, --rounds rounds of one
# fork each, configurations shuffled per round, medians over rounds), memory (1M parked virtual
# threads), reader BPF run time per event (benchmarks/reader/benchReader.py).
#   --smoke      quick (a few minutes): everything compiles and runs once, briefly; what CI runs
#                (ctest bench.smoke.jmh). Numbers from a smoke run mean nothing.
#   --out DIR    results directory (default: /tmp/vtctx-bench-<UTC time>, outside the repository;
#                smoke: <build-dir>/bench-smoke)
#   --no-build   use the existing build (ctest does); else install deps and build first
#   --publish    copy the summary and plots to docs/results/ (benchmarks-run.md, *.svg)
# Readers (JMH reader configurations and the BPF part) need root; without it they are skipped
# and the summary says so.
#
# --service runs only the service benchmark (benchmarks/service: what vtctx costs a Helidon
# service with OpenTelemetry, PostgreSQL and an HTTP backend, under vegeta load; ~50 min): JDK 25
# (--java) and Java 21 (--java21, default /opt/vtctx/jre21/bin/java), default and one carrier,
# --rounds rounds. --smoke: one short round (~1.5 min; ctest bench.smoke.service). --publish
# writes the tables into docs/results/service.md, the plot to docs/results/service.svg and the
# headline into README.md (between their service-results markers).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
smoke=0 out="" build="$root/build" rounds=5 do_build=1 publish=0 java="" service=0
java21=/opt/vtctx/jre21/bin/java
command_line="scripts/bench.sh $*"
while (($#)); do
  case $1 in
    --smoke) smoke=1; shift ;;
    --service) service=1; shift ;;
    --java21) java21=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --java) java=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --publish) publish=1; shift ;;
    *) echo "bench.sh: unknown argument $1 (see the header of scripts/bench.sh)" >&2; exit 2 ;;
  esac
done
build=$(cd "$build" 2>/dev/null && pwd || echo "$build")
if [[ -z $out ]]; then
  out=/tmp/vtctx-bench-$( ((service)) && echo "service-")$(date -u +%Y%m%dT%H%M%SZ)
  ((smoke)) && out=$build/bench-smoke$( ((service)) && echo "-service")
fi
log() { echo "bench.sh: $*" >&2; }

if ((do_build)); then
  bash "$root/scripts/install-deps.sh"
  cmake -S "$root" -B "$build" -G Ninja >/dev/null
  cmake --build "$build"
fi
source "$root/scripts/lib/jdk.sh"
source "$root/scripts/lib/version.sh"
if [[ -z $java ]]; then
  jdk=$(vtctx_find_jdk) || { log "no JDK >= 21 (set JAVA_HOME)"; exit 1; }
  java=$jdk/bin/java
fi
agent=$build/agent/libvtctx.so
empty=$build/benchmarks/libvtctx_empty_agent.so
reader=$build/reader-bpf/vtctx-reader
loadgen=$build/benchmarks/loadGen
for f in "$agent" "$empty" "$reader" "$build/benchmarks/vtctx_agent_benchmarks" \
  "$build/benchmarks/vtctx_resolve_benchmarks"; do
  [[ -e $f ]] || { log "missing $f: build first (cmake --build $build)"; exit 1; }
done
rm -rf "$out"
mkdir -p "$out"
is_root=0
[[ $(id -u) -eq 0 ]] && is_root=1

# Java parts: the shim jar as users build it, then the JMH (or service) jar against it (Maven
# writes into the build tree, at the build's version). Pinned to the JDK's major version, like the
# ctest Maven runs.
major=$("$java" -XshowSettings:properties -version 2>&1 |
  sed -n 's/^ *java.specification.version = //p')
version=$(vtctx_build_version "$build")
mvn_args=(-q -B -ntp "-Drevision=$version" "-Dvtctx.jdkVersion=[$major,$((major + 1)))")
part=$( ((service)) && echo service || echo jmh)
log "building the shim jar and the $part jar (Maven)"
mvn "${mvn_args[@]}" -f "$root/java-shim/pom.xml" -DskipTests \
  -Dvtctx.buildDir="$build/bench/shim" package
shim_jar=$build/bench/shim/vtctx-shim-$version.jar
mvn "${mvn_args[@]}" -f "$root/benchmarks/$part/pom.xml" -Dvtctx.buildDir="$build/bench/$part" \
  -Dvtctx.shimJar="$shim_jar" package
jmh_jar=$build/bench/jmh/benchmarks.jar

# What and where: the command, the machine, the JDK, the load when we start (others may run).
{
  echo "$command_line"
  echo "(out: $out, build: $build, java: $java, rounds: $rounds, smoke: $smoke, root: $is_root)"
} >"$out/command.txt"
machine() {
  echo "date: $(date -u +%FT%TZ)"
  echo "uname: $(uname -srvm)"
  lscpu | grep -E '^(Model name|CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket)' || true
  lscpu | grep -E '^(Hypervisor vendor|CPU max MHz)' || true
  echo "memory: $(free -h | awk '/^Mem:/ {print $2 " total, " $7 " available"}')"
  echo "java: $("$java" -version 2>&1 | tr '\n' ' ')"
  local dirty=""
  git -C "$root" diff --quiet HEAD 2>/dev/null || dirty=" (with local changes)"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null)$dirty"
}
machine >"$out/machine.txt"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
started=$SECONDS

# The service benchmark alone (--service).
run_service() {
  local vegeta service_args page=$root/docs/results/service.md
  vegeta=$(command -v vegeta || echo /opt/vtctx/bin/vegeta)
  [[ -x $vegeta ]] || { log "no vegeta: run scripts/install-deps.sh"; exit 1; }
  [[ -x $java21 ]] || { log "no Java 21 at $java21: run scripts/install-deps.sh"; exit 1; }
  echo "java 21: $("$java21" -version 2>&1 | tr '\n' ' ')" >>"$out/machine.txt"
  service_args=(--java "$major=$java" --java "21=$java21" --backend-java "$java"
    --service-dir "$build/bench/service" --shim-jar "$shim_jar" --agent "$agent"
    --empty-agent "$empty" --reader "$reader" --vegeta "$vegeta" --out "$out" --rounds "$rounds")
  ((smoke)) && service_args+=(--smoke)
  log "service benchmark ($( ((smoke)) && echo smoke || echo "$rounds rounds"))"
  python3 "$root/benchmarks/service/measureService.py" "${service_args[@]}"
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg); took $((SECONDS - started)) s" \
    >>"$out/machine.txt"
  {
    printf '### Machine and command\n\n```\n'
    cat "$out/command.txt"
    printf '```\n\n```\n'
    cat "$out/machine.txt"
    printf '```\n'
  } >"$out/header.md"
  local publish_args=()
  ((publish)) && publish_args=(--publish-page "$page" --publish-readme "$root/README.md")
  python3 "$root/benchmarks/service/serviceResults.py" "$out" --header "$out/header.md" \
    --md "$out/summary.md" --svg "$out/service.svg" --json "$out/summary.json" \
    "${publish_args[@]}" >/dev/null
  if ((publish)); then
    cp "$out/service.svg" "$root/docs/results/service.svg"
    log "published docs/results/service.md, service.svg and the README's headline"
  fi
  log "done in $((SECONDS - started)) s: $out/summary.md"
}
if ((service)); then
  run_service
  exit 0
fi

# Native.
log "native benchmarks"
native_args=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true)
((smoke)) && native_args=(--benchmark_min_time=0.01)
for b in agent resolve; do
  "$build/benchmarks/vtctx_${b}_benchmarks" "${native_args[@]}" \
    --benchmark_out="$out/native-$b.json" --benchmark_out_format=json >"$out/native-$b.txt" 2>&1 ||
    { cat "$out/native-$b.txt" >&2; log "native $b benchmarks failed"; exit 1; }
  if grep -q '"error_occurred": true' "$out/native-$b.json"; then
    cat "$out/native-$b.txt" >&2; log "native $b benchmark reported an error"; exit 1
  fi
done

# JMH.
log "JMH ($( ((smoke)) && echo smoke || echo "$rounds rounds"))"
jmh_args=(--java "$java" --jar "$jmh_jar" --shim-jar "$shim_jar" --agent "$agent"
  --empty-agent "$empty" --reader "$reader" --out "$out/jmh" --rounds "$rounds")
((smoke)) && jmh_args+=(--smoke)
python3 "$root/benchmarks/jmh/run.py" "${jmh_args[@]}"
python3 "$root/benchmarks/jmh/summarize.py" "$out/jmh" --md "$out/jmh-summary.md" \
  --svg "$out/jmh.svg" --json "$out/jmh-summary.json" >/dev/null

# Memory: native bytes per live (parked) virtual thread and the agent's fixed footprint.
threads=1000000
((smoke)) && threads=20000
log "memory ($threads parked virtual threads)"
"$java" -Xms4g -Xmx4g -agentpath:"$agent"=log=error -cp "$build/benchmarks/e2e-classes" \
  io.vtctx.bench.ParkedThreads "$threads" >"$out/memory.txt" 2>&1
live=$(sed -n 's/^memory .* records_live=\([0-9]*\) .*/\1/p' "$out/memory.txt")
((${live:-0} >= threads)) ||
  { cat "$out/memory.txt" >&2; log "memory: records_live=${live:-none} < $threads"; exit 1; }

# Reader BPF run time per event (kernel BPF statistics), on a load generator.
if ((is_root)) && [[ -x $loadgen ]]; then
  log "reader BPF cost"
  bpf_args=(--runs 3 --seconds 3)
  ((smoke)) && bpf_args=(--runs 1 --seconds 1 --only syscalls)
  PYTHONPATH="$root/tests/lib" python3 "$root/benchmarks/reader/benchReader.py" --reader "$reader" --loadgen "$loadgen" \
    "${bpf_args[@]}" >"$out/bpf.txt" 2>"$out/bpf.log" ||
    { tail -20 "$out/bpf.log" >&2; log "reader BPF benchmark failed"; exit 1; }
else
  log "reader BPF cost skipped (needs root and $loadgen)"
fi

echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg); took $((SECONDS - started)) s" \
  >>"$out/machine.txt"
python3 "$root/benchmarks/report.py" "$out" >"$out/summary.md"
if ((publish)); then
  cp "$out/summary.md" "$root/docs/results/benchmarks-run.md"
  cp "$out/jmh.svg" "$root/docs/results/benchmarks-jmh.svg"
  cp "$out/jmh-cpu.svg" "$root/docs/results/benchmarks-jmh-cpu.svg"
  sed -i 's|(jmh.svg)|(benchmarks-jmh.svg)|; s|(jmh-cpu.svg)|(benchmarks-jmh-cpu.svg)|' \
    "$root/docs/results/benchmarks-run.md"
  log "published docs/results/benchmarks-run.md and the plots"
fi
log "done in $((SECONDS - started)) s: $out/summary.md"
