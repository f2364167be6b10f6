#!/usr/bin/env bash
# `mvn package` of the shim as a user with JAVA_HOME set to the build's JDK (it runs Maven) and an
# older JDK's java and jar first on PATH (Debian 12: /usr/bin/java and /usr/bin/jar are 17): the
# tools the build runs itself (jar --update of the module descriptor, javadoc) must come from the
# toolchain JDK, never from PATH (the parent POM's useJdk=Never). The jar's module descriptor, read
# by the build JDK's jar, must be io.vtctx@<version>. Skipped (77) when no JDK older than 21 is
# found to put first on PATH.
#   env: MVN POM JDK_HOME JDK_RANGE VERSION OUT (set by ctest); OLD_JAVA (default: java on PATH,
#        else the first JDK < 21 under /usr/lib/jvm)
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
major() { # major version of the JDK home $1
  local line
  line=$(grep '^JAVA_VERSION=' "$1/release" 2>/dev/null) || return 1
  line=${line#JAVA_VERSION=\"}
  line=${line#1.}
  echo "${line%%[.\"]*}"
}

old_bin=""
candidates=()
[[ -n ${OLD_JAVA:-} ]] && candidates+=("$OLD_JAVA")
command -v java >/dev/null && candidates+=("$(command -v java)")
for home in /usr/lib/jvm/*; do candidates+=("$home/bin/java"); done
for java in "${candidates[@]}"; do
  bin=$(dirname "$(readlink -f "$java")")
  if [[ -x $bin/java && -x $bin/jar ]] && m=$(major "$bin/..") && ((m < 21)); then
    old_bin=$bin
    break
  fi
done
[[ -n $old_bin ]] || { echo "SKIP: no JDK older than 21 (with java and jar) to put first on PATH"; exit 77; }

rm -rf "$OUT"
mkdir -p "$OUT"
export JAVA_HOME=$JDK_HOME
export PATH=$old_bin:$PATH
echo "JAVA_HOME=$JAVA_HOME; first on PATH: $(command -v java) ($(java -version 2>&1 | head -1))," \
  "$(command -v jar) ($(jar --version 2>&1 | head -1))"
[[ $(command -v jar) == "$old_bin/jar" ]] || fail "jar on PATH is $(command -v jar), not $old_bin/jar"
# Maven itself runs on JAVA_HOME's JDK (what made the toolchain optional before useJdk=Never).
runtime=$("$MVN" -B -Dstyle.color=never -v 2>&1 | sed -n 's/.*runtime: //p')
[[ $(readlink -f "$runtime") == $(readlink -f "$JDK_HOME") ]] ||
  fail "Maven runs on '$runtime', not JAVA_HOME $JDK_HOME: $("$MVN" -v 2>&1)"

"$MVN" -B -ntp -Dstyle.color=never -f "$POM" "-Drevision=$VERSION" \
  "-Dvtctx.buildDir=$OUT/target" "-Dvtctx.jdkVersion=$JDK_RANGE" -Dmaven.test.skip=true package \
  >"$OUT/mvn.log" 2>&1 || { tail -40 "$OUT/mvn.log"; fail "mvn package"; }

main=$OUT/target/vtctx-shim-$VERSION.jar
[[ -s $main ]] || fail "mvn package did not give $main: $(ls "$OUT/target" 2>&1 | tr '\n' ' ')"
module=$("$JDK_HOME/bin/jar" --describe-module --file "$main") || fail "jar --describe-module: $module"
[[ $(head -1 <<<"$module") == "io.vtctx@$VERSION "* ]] || fail "module descriptor: $module"
echo "$main: module $(head -1 <<<"$module" | cut -d' ' -f1)"
echo PASS
