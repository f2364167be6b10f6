#!/usr/bin/env bash
# Builds what the marker program needs, into OUT (default build/tests/correctness/java):
#   OUT/shim/vtctx-shim-<version>.jar  the shim, from java-shim/ (tests skipped: ctest runs them)
#   OUT/harness/vtctx-correctness.jar  the marker program (tests/correctness/java)
#   OUT/harness/lib/*.jar              OpenTelemetry API/SDK it runs with
#   OUT/classpath                      the java class path of all of the above
#   buildJava.sh [OUT]     (env: MVN, default mvn; JDK_RANGE, default [22,); VERSION, the
#                           build's project version, default the root pom.xml's revision)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build/tests/correctness/java}
mkdir -p "$out"
out=$(cd "$out" && pwd)
mvn=${MVN:-mvn}
range=${JDK_RANGE:-[22,)}
common=(-B -q -ntp -Dstyle.color=never "-Dvtctx.jdkVersion=$range")
[[ -n ${VERSION:-} ]] && common+=("-Drevision=$VERSION")

"$mvn" "${common[@]}" -f "$root/java-shim/pom.xml" -Dvtctx.buildDir="$out/shim" \
  -Dmaven.test.skip=true package
# The version Maven just built (its pom.properties), not a stale jar of another one.
version=$(sed -n 's/^version=//p' "$out/shim/maven-archiver/pom.properties" 2>/dev/null) || true
shim_jar=$out/shim/vtctx-shim-$version.jar
[[ -n $version && -f $shim_jar ]] || { echo "buildJava.sh: $shim_jar was not built" >&2; exit 1; }

"$mvn" "${common[@]}" -f "$here/java/pom.xml" -Dvtctx.buildDir="$out/harness" \
  -Dvtctx.shimJar="$shim_jar" package
harness_jar=$out/harness/vtctx-correctness.jar
[[ -f $harness_jar ]] || { echo "buildJava.sh: $harness_jar was not built" >&2; exit 1; }

cp=$harness_jar:$shim_jar
for jar in "$out"/harness/lib/*.jar; do cp=$cp:$jar; done
echo "$cp" >"$out/classpath"
