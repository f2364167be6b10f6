#!/usr/bin/env bash
# The two-plane correctness harness (docs/results/correctness.md). Runs the scenarios of
# scenarios.py against the real agent, shim and vtctx-reader, grades every marker, and ends with
#   RESULT OK|FAIL markers=N runs=R content_correct=... identity_lost=... ...
# Exit 0 only if every marker is correct on both planes. Needs root (BPF).
#
#   tests/correctness/run.sh [--quick] [--fault stale-carrier] [--build DIR] [--prebuilt DIR]
#                            [--only REGEX] [--runs N] [--keep] [--json FILE] [--java21 HOME]
#                            [--java JAVA --jcmd JCMD]
#
#   --quick      the CI subset (one run of most scenarios, smaller stress and churn)
#   --fault F    start the agent with the test-only fault=F; the harness must then report
#                misattributions and exit non-zero
#   --build DIR  the CMake build tree with the agent and the reader (default: build)
#   --prebuilt D the marker program was already built into D by buildJava.sh (ctest does this)
#   --only RE    only the scenarios whose name matches RE;  --runs N  at most N runs of each
#   --keep       keep the reader's event files of passing runs too;  --json F  totals as JSON
#   --java21 H   the Java 21 runtime for the *-java21 scenarios (default /opt/vtctx/jre21, which
#                scripts/install-deps.sh installs)
#   --java J --jcmd C  the launchers the other scenarios run on (default: the build JDK's; ctest
#                passes JDK 26's and 27's from the sid root, tests/CMakeLists.txt); the marker
#                program is still built by the build JDK
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

quick=() fault=() only=() runs=() keep=() json=()
build=$root/build
prebuilt=""
java21=/opt/vtctx/jre21
java="" jcmd=""
while (($#)); do
  case $1 in
    --quick) quick=(--quick) ;;
    --fault) fault=(--fault "$2"); shift ;;
    --build) build=$2; shift ;;
    --prebuilt) prebuilt=$2; shift ;;
    --only) only=(--only "$2"); shift ;;
    --runs) runs=(--runs "$2"); shift ;;
    --keep) keep=(--keep) ;;
    --json) json=(--json "$2"); shift ;;
    --java21) java21=$2; shift ;;
    --java) java=$2; shift ;;
    --jcmd) jcmd=$2; shift ;;
    *) echo "run.sh: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
  shift
done
build=$(cd "$build" && pwd)

if [[ $(id -u) -ne 0 ]]; then
  echo "run.sh: needs root (vtctx-reader loads BPF programs)"
  echo "RESULT FAIL markers=0 (not run: needs root)"
  exit 77
fi

source "$root/scripts/lib/jdk.sh"
source "$root/scripts/lib/version.sh"
jdk=$(vtctx_find_jdk) || { echo "run.sh: no JDK >= 21 found (JAVA_HOME, /usr/lib/jvm)" >&2; exit 1; }
major=$(vtctx_jdk_major "$jdk")
((major >= 22)) || { echo "run.sh: $jdk is JDK $major; the marker program is built with >= 22" >&2; exit 1; }
[[ -x $java21/bin/java ]] || { echo "run.sh: no Java 21 runtime at $java21 (scripts/install-deps.sh)" >&2; exit 1; }
agent=$build/agent/libvtctx.so
reader=$build/reader-bpf/vtctx-reader
for f in "$agent" "$reader"; do
  [[ -e $f ]] || { echo "run.sh: $f missing; build first: cmake --build $build" >&2; exit 1; }
done

java_out=${prebuilt:-$build/tests/correctness/java}
if [[ -z $prebuilt ]]; then
  echo "run.sh: building the shim jar and the marker program (Maven) into $java_out"
  version=$(vtctx_build_version "$build")
  VERSION=$version JDK_RANGE="[$major,$((major + 1)))" bash "$here/buildJava.sh" "$java_out"
fi
[[ -s $java_out/classpath ]] || { echo "run.sh: $java_out/classpath missing" >&2; exit 1; }

[[ -n $java && -n $jcmd || -z $java$jcmd ]] || { echo "run.sh: --java and --jcmd go together" >&2; exit 2; }
runtime=""
if [[ -n $java ]]; then
  runtime=-$(basename "$(dirname "$(dirname "$java")")")  # .../jdk27/bin/java: "-jdk27"
else
  java=$jdk/bin/java jcmd=$jdk/bin/jcmd
fi

mode=${quick:+quick}
work=$build/tests/correctness/work-${mode:-full}${fault:+-fault}$runtime
export PYTHONPATH=$root/tests/lib${PYTHONPATH:+:$PYTHONPATH}
exec /usr/bin/python3 "$here/harness.py" --java "$java" --jcmd "$jcmd" \
  --java21 "$java21/bin/java" --jcmd21 "$java21/bin/jcmd" \
  --agent "$agent" --reader "$reader" --classpath "$(cat "$java_out/classpath")" --work "$work" \
  "${quick[@]}" "${fault[@]}" "${only[@]}" "${runs[@]}" "${keep[@]}" "${json[@]}"
