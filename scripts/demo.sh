#!/usr/bin/env bash
# The README's first command: "which request burned the CPU?" on virtual threads, in one command.
# Installs what is missing, builds (CMake, then the shim and demo jars with Maven), and runs a
# virtual-thread HTTP service with OpenTelemetry spans under the vtctx agent, a load generator
# and vtctx-reader (demo/run.py; docs/demo.md explains the output). Needs root (BPF).
#
#   scripts/demo.sh [--quick] [--seconds S] [--out DIR] [--build-dir DIR] [--skip-setup]
#                   [run.py options, e.g. --hz 999 --judge naive --agent-options fault=stale-carrier]
#
#   --quick       a short run (3 s warm-up, 8 s profile) as ctest runs it
#   --skip-setup  no install-deps, no CMake build: use the existing build (ctest does)
# The CMake build is only what the demo runs: the agent, the reader and the demo's native helpers.
# Ends with one line "RESULT OK ..." (exit 0) or "RESULT FAIL <reason>" (exit 1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

build=$root/build
out=$root/demo-output
setup=1
run_args=()
while (($#)); do
  case $1 in
    --quick) run_args+=(--seconds 8 --warmup 3) ;;
    --seconds) run_args+=(--seconds "$2"); shift ;;
    --out) out=$(realpath -m "$2"); shift ;;
    --build-dir) build=$(realpath -m "$2"); shift ;;
    --skip-setup) setup=0 ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) run_args+=("$1") ;;
  esac
  shift
done
cd "$root"

if [[ $(id -u) -ne 0 ]]; then
  echo "demo: vtctx-reader loads BPF programs and needs root; rerun with sudo" >&2
  exit 1
fi

if ((setup)); then
  bash scripts/install-deps.sh
  cmake -S . -B "$build" -G Ninja >/dev/null
  cmake --build "$build" --target vtctx vtctx-reader vtctx_demo_native vtctx_demo_flamegraph
fi
source scripts/lib/jdk.sh
source scripts/lib/version.sh
jdk=$(vtctx_find_jdk)
for f in "$build/agent/libvtctx.so" "$build/reader-bpf/vtctx-reader" \
  "$build/demo/libvtctx_demo_native.so" "$build/demo/vtctx_demo_flamegraph"; do
  [[ -e $f ]] || { echo "demo: $f is missing; build first (drop --skip-setup)" >&2; exit 1; }
done

# Maven writes into the build tree, at the build's version; the shim's tests are ctest's job, not
# the demo's. Its output goes to a log, shown only on failure.
echo "demo: building the shim and demo jars (Maven)"
major=$(vtctx_jdk_major "$jdk")
version=$(vtctx_build_version "$build")
mvn_args=(-B -ntp "-Drevision=$version" "-Dvtctx.jdkVersion=[$major,$((major + 1)))")
mkdir -p "$build/demo"
mvn_log=$build/demo/maven.log
if ! { mvn "${mvn_args[@]}" -f java-shim/pom.xml -Dmaven.test.skip=true \
  -Dvtctx.javadoc.skip=true -Dmaven.source.skip=true "-Dvtctx.buildDir=$build/demo/shim" package &&
  mvn "${mvn_args[@]}" -f demo/pom.xml "-Dvtctx.buildDir=$build/demo/java" package; } \
  >"$mvn_log" 2>&1; then
  tail -n 40 "$mvn_log"
  echo "demo: the Maven build failed (full log: $mvn_log)" >&2
  exit 1
fi
shim_jar=$build/demo/shim/vtctx-shim-$version.jar
classpath="$build/demo/java/vtctx-demo.jar:$build/demo/java/lib/*:$shim_jar"

echo
echo "== vtctx demo: which request burned the CPU? =="
# exec: Ctrl-C and SIGTERM go straight to run.py, which stops every process it started.
exec python3 "$root/demo/run.py" --java-home "$jdk" --agent "$build/agent/libvtctx.so" \
  --reader "$build/reader-bpf/vtctx-reader" --classpath "$classpath" \
  --native-dir "$build/demo" --out "$out" "${run_args[@]}"
